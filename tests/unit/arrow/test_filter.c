/* The filter kernel on nested data: rows kept by a mask render exactly as
 * the same rows of the unfiltered batch, for every column of the sample
 * (lists, structs, strings, decimals, booleans, nulls) and for sliced input.
 * The take kernel: rows gathered from two chunks (one sliced) in any order,
 * with repeats, render as the rows they came from; null rows (a negative
 * chunk) render as nulls in every column. */
#include <stdlib.h>
#include <string.h>

#include "arrow/filter.h"
#include "arrow/format.h"
#include "arrow/format_internal.h"
#include "deltac/parquet.h"
#include "test.h"
#include "util/buf.h"

static void render_row(delta_buf *out, const arrow_type *t, const struct ArrowArray *batch, int64_t row) {
  out->len = 0;
  for (int c = 0; c < t->n_children; c++) {
    arrow_value_json(out, t->children[c], batch->children[c], batch->offset + row);
    buf_putc(out, '|');
  }
  buf_putc(out, '\0');
}

static void check_filter(const struct ArrowSchema *schema, const arrow_type *t, const struct ArrowArray *batch,
                         const uint8_t *keep) {
  struct ArrowArray f;
  int rc = arrow_filter(schema, batch, keep, &f);
  CHECK_EQ_INT(rc, 0);
  if (rc) return;
  int64_t kept = 0;
  for (int64_t i = 0; i < batch->length; i++) kept += keep[i] != 0;
  CHECK_EQ_INT(f.length, kept);
  delta_buf a = DELTA_BUF_INIT, b = DELTA_BUF_INIT;
  int64_t j = 0, mismatches = 0;
  for (int64_t i = 0; i < batch->length; i++) {
    if (!keep[i]) continue;
    render_row(&a, t, batch, i);
    render_row(&b, t, &f, j++);
    if (strcmp((const char *)a.data, (const char *)b.data) != 0 && mismatches++ == 0)
      fprintf(stderr, "row %lld:\n  %s\n  %s\n", (long long)i, (const char *)a.data, (const char *)b.data);
  }
  CHECK_EQ_INT(mismatches, 0);
  buf_dispose(&a);
  buf_dispose(&b);
  f.release(&f);
}

static void check_take(const struct ArrowSchema *schema, const arrow_type *t, const struct ArrowArray *const *in) {
  enum { M = 500 };
  arrow_row_ref refs[M];
  for (int k = 0; k < M; k++) refs[k] = (arrow_row_ref){k % 2, (int64_t)((k * 7919) % in[k % 2]->length)};
  for (int k = 3; k < M; k += 11) refs[k] = (arrow_row_ref){-1, 0}; /* null rows */
  struct ArrowArray out;
  CHECK_EQ_INT(arrow_take(schema, in, 2, refs, M, &out), 0);
  if (!out.release) return;
  CHECK_EQ_INT(out.length, M);
  delta_buf a = DELTA_BUF_INIT, b = DELTA_BUF_INIT;
  int64_t mismatches = 0;
  for (int k = 0; k < M; k++) {
    if (refs[k].chunk < 0) { /* every column null */
      a.len = 0;
      for (int c = 0; c < t->n_children; c++) buf_puts(&a, "null|");
      buf_putc(&a, '\0');
    } else {
      render_row(&a, t, in[refs[k].chunk], refs[k].row);
    }
    render_row(&b, t, &out, k);
    if (strcmp((const char *)a.data, (const char *)b.data) != 0 && mismatches++ == 0)
      fprintf(stderr, "take %d:\n  %s\n  %s\n", k, (const char *)a.data, (const char *)b.data);
  }
  CHECK_EQ_INT(mismatches, 0);
  buf_dispose(&a);
  buf_dispose(&b);
  out.release(&out);
}

int main(void) {
  delta_parquet_file *pf = NULL;
  CHECK_EQ_INT(delta_parquet_open(&pf, "tests/resources/sample.parquet"), 0);
  if (!pf) TEST_MAIN_END();
  struct ArrowArrayStream s;
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  ro.batch_rows = 1000;
  CHECK_EQ_INT(delta_parquet_read(pf, &ro, &s), 0);
  struct ArrowSchema schema;
  CHECK_EQ_INT(s.get_schema(&s, &schema), 0);
  arrow_type *t = NULL;
  CHECK_EQ_INT(arrow_type_parse(&schema, &t), 0);
  struct ArrowArray batch;
  CHECK_EQ_INT(s.get_next(&s, &batch), 0);
  uint8_t *keep = malloc((size_t)batch.length);
  srand(7);
  for (int round = 0; round < 6; round++) {
    for (int64_t i = 0; i < batch.length; i++)
      keep[i] = round == 0 ? 1 : round == 1 ? 0 : round == 2 ? (i % 2) : (rand() % 4 != 0);
    check_filter(&schema, t, &batch, keep);
  }
  /* A slice: offset 10, 300 rows. */
  struct ArrowArray slice = batch;
  slice.offset = 10;
  slice.length = 300;
  slice.release = NULL;
  for (int64_t i = 0; i < 300; i++) keep[i] = (i * 7) % 5 != 0;
  check_filter(&schema, t, &slice, keep);
  const struct ArrowArray *chunks[2] = {&batch, &slice};
  check_take(&schema, t, chunks);
  free(keep);
  batch.release(&batch);
  arrow_type_free(t);
  schema.release(&schema);
  s.release(&s);
  delta_parquet_free(pf);
  TEST_MAIN_END();
}
