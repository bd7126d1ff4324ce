/* gen_columns: when the protocol turns the features on, identity metadata
 * parsed and rewritten (other keys kept), identity values filled from the
 * high-water mark (negative steps, overflow), generated columns computed
 * into an effective schema, given values checked, the new high-water mark
 * written back into the schema. */
#include <string.h>

#include "arrow/array.h"
#include "deltac/error.h"
#include "test.h"
#include "util/alloc_internal.h"
#include "rewrite/gen_columns.h"
#include "write/input_text.h"
#include "log/schema_build.h"

static int64_t long_at(const struct ArrowArray *a, int64_t i) { return ((const int64_t *)a->buffers[1])[a->offset + i]; }

/* The batch of `json` rows (NDJSON, typed by `t`). */
static void read_rows(const char *json, const delta_type *t, struct ArrowArrayStream *st, struct ArrowSchema *s,
                      struct ArrowArray *rows) {
  char *text = mem_malloc(strlen(json) + 1);
  memcpy(text, json, strlen(json) + 1);
  CHECK_EQ_INT(input_text_stream(text, strlen(json), INPUT_NDJSON, t, 0, st), 0);
  CHECK_EQ_INT(st->get_schema(st, s), 0);
  CHECK_EQ_INT(st->get_next(st, rows), 0);
}

int main(void) {
  /* enablement */
  const char *gf[] = {"generatedColumns"}, *idf[] = {"identityColumns"};
  delta_protocol p4 = {1, 4, NULL, 0, false, NULL, 0, false}, p6 = {1, 6, NULL, 0, false, NULL, 0, false},
                 p2 = {1, 2, NULL, 0, false, NULL, 0, false}, p7g = {3, 7, NULL, 0, true, gf, 1, true},
                 p7i = {3, 7, NULL, 0, true, idf, 1, true};
  CHECK(log_generated_enabled(&p4) && log_generated_enabled(&p6) && !log_generated_enabled(&p2));
  CHECK(log_generated_enabled(&p7g) && !log_generated_enabled(&p7i) && !log_generated_enabled(NULL));
  CHECK(log_identity_enabled(&p6) && !log_identity_enabled(&p4) && log_identity_enabled(&p7i) && !log_identity_enabled(&p7g));

  delta_type *t = NULL;
  CHECK_EQ_INT(schema_parse_text(
                   "{\"type\":\"struct\",\"fields\":["
                   "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"comment\":\"x\","
                   "\"delta.identity.start\":-1,\"delta.identity.step\":-3,\"delta.identity.allowExplicitInsert\":false}},"
                   "{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}},"
                   "{\"name\":\"b\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.generationExpression\":\"a * 2 + id\"}},"
                   "{\"name\":\"c\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}",
                   &t),
               0);
  gen_identity gi;
  CHECK_EQ_INT(gen_identity_parse(&t->fields[0], &gi), 0);
  CHECK(gi.start == -1 && gi.step == -3 && !gi.has_high_water_mark && !gi.allow_explicit_insert);

  /* input: a only; the effective schema adds id and b (and c, null, for expressions) */
  struct ArrowArrayStream st;
  struct ArrowSchema in;
  struct ArrowArray rows;
  read_rows("{\"a\":1}\n{\"a\":null}\n{\"a\":5}\n", NULL, &st, &in, &rows);
  gen_columns *g = NULL;
  struct ArrowSchema eff;
  CHECK_EQ_INT(gen_columns_new(&g, t, &p6, false, &in, &eff), 0);
  CHECK(g != NULL);
  CHECK_EQ_INT(eff.n_children, 4);
  CHECK_STR(eff.children[0]->name, "a");
  CHECK_STR(eff.children[1]->name, "id");
  CHECK_STR(eff.children[2]->name, "b");
  CHECK_STR(eff.children[3]->name, "c");
  struct ArrowArray out;
  CHECK_EQ_INT(gen_columns_apply(g, &rows, NULL, false, &out), 0);
  CHECK_EQ_INT(long_at(out.children[1], 0), -1);
  CHECK_EQ_INT(long_at(out.children[1], 1), -4);
  CHECK_EQ_INT(long_at(out.children[1], 2), -7);
  CHECK_EQ_INT(long_at(out.children[2], 0), 1);  /* 1 * 2 + -1 */
  CHECK_EQ_INT(out.children[2]->null_count, 1);  /* a null */
  CHECK_EQ_INT(long_at(out.children[2], 2), 3);  /* 5 * 2 + -7 */
  CHECK_EQ_INT(out.children[3]->null_count, 3);
  /* a second batch goes on from there; the schema gets the mark, other keys kept */
  CHECK_EQ_INT(gen_columns_apply(g, &rows, NULL, false, &out), 0);
  CHECK_EQ_INT(long_at(out.children[1], 2), -16);
  delta_type *copy = schema_copy(t);
  bool changed = false;
  CHECK_EQ_INT(gen_columns_update_schema(g, copy, &changed), 0);
  CHECK(changed);
  CHECK(strstr(copy->fields[0].metadata, "\"delta.identity.highWaterMark\":-16") != NULL);
  CHECK(strstr(copy->fields[0].metadata, "\"comment\":\"x\"") != NULL);
  CHECK_EQ_INT(gen_identity_parse(&copy->fields[0], &gi), 0);
  CHECK(gi.has_high_water_mark && gi.high_water_mark == -16 && gi.step == -3);
  CHECK_EQ_INT(gen_identity_set_hwm(&copy->fields[0], 7), 0);
  CHECK_EQ_INT(gen_identity_parse(&copy->fields[0], &gi), 0);
  CHECK_EQ_INT(gi.high_water_mark, 7);
  CHECK(strstr(copy->fields[0].metadata, "highWaterMark\":-16") == NULL);
  log_type_free(copy);
  gen_columns_free(g);
  eff.release(&eff);
  rows.release(&rows);
  in.release(&in);
  st.release(&st);

  /* given values: a matching b passes, a wrong one names row and values; an explicit id is refused */
  read_rows("{\"a\":1,\"b\":1}\n{\"a\":2,\"b\":4}\n", t, &st, &in, &rows);
  CHECK_EQ_INT(gen_columns_new(&g, t, &p6, false, &in, &eff), 0);
  CHECK_EQ_INT(gen_columns_apply(g, &rows, NULL, false, &out), DELTA_EINVAL);
  CHECK_STR(delta_error_last(), "generated column b: row 2 has 4, but its expression a * 2 + id gives 0");
  gen_columns_free(g);
  eff.release(&eff);
  rows.release(&rows);
  in.release(&in);
  st.release(&st);
  read_rows("{\"id\":9,\"a\":1}\n", t, &st, &in, &rows);
  CHECK_EQ_INT(gen_columns_new(&g, t, &p6, false, &in, &eff), 0);
  CHECK_EQ_INT(gen_columns_apply(g, &rows, NULL, false, &out), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "identity column id: row 1 gives it a value (9)") != NULL);
  gen_columns_free(g);
  eff.release(&eff);
  /* features off (writer 2): nothing to do, the input's schema as it is */
  CHECK_EQ_INT(gen_columns_new(&g, t, &p2, false, &in, &eff), 0);
  CHECK(g == NULL);
  CHECK_EQ_INT(eff.n_children, in.n_children);
  eff.release(&eff);
  rows.release(&rows);
  in.release(&in);
  st.release(&st);

  /* overflow: a high-water mark at the end of the range */
  CHECK_EQ_INT(gen_identity_set_hwm(&t->fields[0], INT64_MIN + 2), 0);
  read_rows("{\"a\":1}\n", NULL, &st, &in, &rows);
  CHECK_EQ_INT(gen_columns_new(&g, t, &p6, false, &in, &eff), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "identity column id: the next value overflows") != NULL);
  rows.release(&rows);
  in.release(&in);
  st.release(&st);
  log_type_free(t);
  TEST_MAIN_END();
}
