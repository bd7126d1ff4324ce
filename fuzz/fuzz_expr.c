/* Fuzz target for the expression language: one parser, two entry points.
 *
 * As a predicate: what parses must print back to text that parses to the
 * same print (a canonical form); then bind it to a small batch, evaluate
 * it on every row and run data skipping over made-up statistics — none of
 * which may crash, leak or disagree with itself (a row kept by evaluation
 * must not be skipped).
 *
 * As a value (SET, generation expressions): print it back as above, then
 * bind it for columns of every kind the evaluator writes (integers,
 * doubles, strings, booleans, decimals, dates, timestamps) over a batch
 * with such columns (values at the extremes of their types, negative
 * values, nulls) and evaluate it. Errors are fine; crashes, leaks, hangs
 * and sanitizer reports are not.
 *
 * The corpus holds inputs of both kinds (vexpr-* were the value target's). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "expr/expr.h"
#include "expr/skip.h"
#include "expr/value_eval.h"
#include "log/table_schema.h"
#include "util/alloc_internal.h"
#include "write/input_text.h"
#include "log/schema_build.h"

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

static void exercise_predicate(expr_node *e) {
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

static const char rows[] =
    "{\"i\":7,\"l\":-9223372036854775807,\"a\":\"-12345678.99\",\"big\":\"99999999999999999999999999.999999999999\","
    "\"d\":\"2024-02-29\",\"ts\":\"1969-12-31T23:59:59.999999Z\",\"tn\":\"9999-12-31T23:59:59\",\"s\":\"2024-01-01\","
    "\"f\":1e308,\"b\":true}\n"
    "{\"i\":0,\"l\":0,\"a\":\"0.01\",\"big\":\"-0.000000000001\",\"d\":\"0001-01-01\",\"ts\":\"2024-03-10T10:30:00Z\","
    "\"tn\":\"1900-01-01T00:00:00\",\"s\":\"x\",\"f\":-0.0,\"b\":false}\n"
    "{\"i\":null}\n";

static const char *targets[] = {"l", "i", "g", "u", "b", "d:10,2", "d:38,6", "d:38,0", "tdD", "tsu:UTC", "tsu:"};

static void exercise_value(vexpr *e) {
  delta_type *schema = NULL;
  struct ArrowArrayStream st;
  struct ArrowSchema sch;
  struct ArrowArray batch;
  char *json = mem_malloc(sizeof rows);
  if (json && schema_parse_text("i int, l long, a decimal(10,2), big decimal(38,12), d date, ts timestamp, "
                                "tn timestamp_ntz, s string, f double, b boolean", &schema) == 0) {
    memcpy(json, rows, sizeof rows);
    if (input_text_stream(json, sizeof rows - 1, INPUT_NDJSON, schema, 0, &st) == 0) {
      if (st.get_schema(&st, &sch) == 0) {
        if (st.get_next(&st, &batch) == 0 && batch.release) {
          for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
            struct ArrowArray out;
            if (vexpr_bind(e, &sch, targets[k], "c") == 0 && vexpr_eval(e, &batch, &out) == 0) out.release(&out);
          }
          batch.release(&batch);
        }
        sch.release(&sch);
      }
      st.release(&st);
    }
  } else {
    mem_free(json);
  }
  log_type_free(schema);
}

/* Printing is canonical: print(parse(print(e))) == print(e). */
static void check_reprint(expr_node *e, int (*parse)(const char *, expr_node **)) {
  delta_buf a = DELTA_BUF_INIT, b = DELTA_BUF_INIT;
  expr_node *again;
  if (expr_to_text(e, &a) || buf_putc(&a, '\0')) abort();
  if (parse((const char *)a.data, &again)) abort();
  if (expr_to_text(again, &b) || buf_putc(&b, '\0')) abort();
  if (strcmp((const char *)a.data, (const char *)b.data) != 0) abort();
  expr_free(again);
  buf_dispose(&a);
  buf_dispose(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  expr_node *e;
  if (expr_parse(text, &e) == 0) {
    check_reprint(e, expr_parse);
    exercise_predicate(e);
    expr_free(e);
  }
  vexpr *v = NULL;
  if (vexpr_parse(text, &v) == 0) {
    check_reprint(v, vexpr_parse);
    exercise_value(v);
    vexpr_free(v);
  }
  free(text);
  return 0;
}
