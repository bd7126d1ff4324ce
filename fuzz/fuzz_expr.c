/* Fuzz target for the filter language: parse any text; what parses must
 * print back to text that parses to the same print (a canonical form);
 * then bind it to a small batch, evaluate it on every row and run data
 * skipping over made-up statistics — none of which may crash, leak or
 * disagree with itself (a row kept by evaluation must not be skipped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "expr/expr.h"
#include "expr/skip.h"
#include "util/alloc_internal.h"

static const char *names[] = {"i", "s", "b", "t"};
static const arrow_builder_type types[] = {AB_INT64, AB_UTF8, AB_BOOL, AB_TIMESTAMP_MS};

static int exact_stats(void *ctx, const expr_node *c, expr_col_stats *out) {
  /* the one-row batch's own values, as exact bounds */
  const struct ArrowArray *batch = ctx;
  const struct ArrowArray *a = batch->children[c->child_index[0]];
  expr_value v;
  value_from_array(a, c->format, c->type, c->scale, 0, &v);
  if (v.is_null) {
    out->has_nulls = 1;
    out->has_values = 0;
  } else if (c->type != VT_FLOAT) {
    out->has_min = out->has_max = true;
    out->min = out->max = v;
    out->has_nulls = 0;
    out->has_values = 1;
  }
  return 0;
}

static void exercise(expr_node *e) {
  arrow_batch_builder *b;
  if (arrow_batch_builder_new(&b, 4, names, types)) return;
  /* one row per variant: values, then nulls */
  arrow_builder_i64(b, 0, 5);
  arrow_builder_str(b, 1, "abc");
  arrow_builder_bool(b, 2, true);
  arrow_builder_i64(b, 3, 86400000);
  for (int c = 0; c < 4; c++) arrow_builder_null(b, c);
  struct ArrowArrayStream s;
  struct ArrowSchema schema;
  struct ArrowArray batch;
  if (arrow_builder_finish(b, &s) == 0) {
    if (s.get_schema(&s, &schema) == 0) {
      if (s.get_next(&s, &batch) == 0 && batch.release) {
        if (expr_bind(e, &schema) == 0) {
          uint8_t keep[2];
          if (expr_eval_batch(e, &batch, keep) == 0) {
            /* each row alone: a row evaluation keeps must not be skipped */
            for (int r = 0; r < 2; r++) {
              struct ArrowArray one = batch, kids[4], *kp[4];
              for (int c = 0; c < 4; c++) {
                kids[c] = *batch.children[c];
                kids[c].offset = r;
                kids[c].length = 1;
                kp[c] = &kids[c];
              }
              one.children = kp;
              one.length = 1;
              if (keep[r] && expr_may_match(e, exact_stats, &one) == 0) abort();
            }
          }
        }
        batch.release(&batch);
      }
      schema.release(&schema);
    }
    s.release(&s);
  }
  arrow_batch_builder_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  expr_node *e;
  if (expr_parse(text, &e) == 0) {
    delta_buf a = DELTA_BUF_INIT, b = DELTA_BUF_INIT;
    expr_node *again;
    if (expr_to_text(e, &a) || delta_buf_putc(&a, '\0')) abort();
    if (expr_parse((const char *)a.data, &again)) abort();
    if (expr_to_text(again, &b) || delta_buf_putc(&b, '\0')) abort();
    if (strcmp((const char *)a.data, (const char *)b.data) != 0) abort();
    expr_free(again);
    delta_buf_dispose(&a);
    delta_buf_dispose(&b);
    exercise(e);
    expr_free(e);
  }
  free(text);
  return 0;
}
