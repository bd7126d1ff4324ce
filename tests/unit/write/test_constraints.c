/* Unit test for src/write/constraints.c: NOT NULL fields (top level and
 * nested, a null parent struct exempting its fields), CHECK constraints
 * (false violates, NULL passes, a column the input lacks is NULL), the
 * messages naming the constraint and the row, and bad constraints. */
#include <string.h>

#include "deltac.h"
#include "json/json.h"
#include "test.h"
#include "util/error_internal.h"
#include "write/column_builder.h"
#include "write/constraints.h"
#include "write/schema_build.h"

/* One batch of `input_schema` rows from NDJSON-ish lines ('\n'-separated). */
static void batch_of(const delta_type *t, const char *lines, struct ArrowArray *out) {
  row_builder rb;
  delta_json_doc *d = NULL;
  delta_json_doc_new(&d);
  CHECK_EQ_INT(row_builder_init(&rb, t), 0);
  const char *p = lines;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    CHECK_EQ_INT(delta_json_parse(d, p, n), 0);
    CHECK_EQ_INT(row_builder_add_json(&rb, delta_json_root(d)), 0);
    p += n + (nl ? 1 : 0);
  }
  CHECK_EQ_INT(row_builder_finish(&rb, out), 0);
  row_builder_dispose(&rb);
  delta_json_doc_free(d);
}

int main(void) {
  delta_type *table = NULL, *input = NULL;
  CHECK_EQ_INT(schema_parse_text("id long not null, amount long, s struct<x: long not null, y: string>", &table), 0);
  /* the input lacks `amount` */
  CHECK_EQ_INT(schema_parse_text("id long, s struct<x: long, y: string>", &input), 0);
  struct ArrowSchema in_schema;
  CHECK_EQ_INT(delta_schema_to_arrow(input, &in_schema), 0);
  delta_kv config[] = {{"delta.constraints.pos", "amount > 0"}, {"delta.constraints.small", "id < 10"},
                       {"other", "x"}};
  write_constraints *c = NULL;
  CHECK_EQ_INT(constraints_new(&c, table, config, 3, &in_schema), 0);
  CHECK(c != NULL);

  struct ArrowArray b;
  batch_of(input, "{\"id\":1,\"s\":{\"x\":1,\"y\":\"a\"}}\n{\"id\":2,\"s\":null}", &b);
  CHECK_EQ_INT(constraints_check(c, &b), 0); /* amount missing: NULL passes; a null struct holds no x */
  b.release(&b);
  batch_of(input, "{\"id\":3,\"s\":{\"x\":3}}\n{\"id\":11,\"s\":{\"x\":1}}", &b);
  CHECK_EQ_INT(constraints_check(c, &b), DELTA_EINVAL);
  CHECK_STR(delta_error_last(), "CHECK constraint small (id < 10) violated by row {\"id\":11,\"s\":{\"x\":1,\"y\":null}}");
  b.release(&b);
  batch_of(input, "{\"id\":4,\"s\":{\"y\":\"no x\"}}", &b);
  CHECK_EQ_INT(constraints_check(c, &b), DELTA_EINVAL);
  CHECK_STR(delta_error_last(), "NOT NULL constraint on s.x violated by row {\"id\":4,\"s\":{\"x\":null,\"y\":\"no x\"}}");
  b.release(&b);
  batch_of(input, "{\"id\":null}", &b);
  CHECK_EQ_INT(constraints_check(c, &b), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "NOT NULL constraint on id") != NULL);
  b.release(&b);
  constraints_free(c);

  /* with the column present, FALSE violates */
  struct ArrowSchema full;
  CHECK_EQ_INT(delta_schema_to_arrow(table, &full), 0);
  CHECK_EQ_INT(constraints_new(&c, table, config, 1, &full), 0);
  batch_of(table, "{\"id\":1,\"amount\":5}\n{\"id\":2,\"amount\":null}\n{\"id\":3,\"amount\":-5}", &b);
  CHECK_EQ_INT(constraints_check(c, &b), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "CHECK constraint pos (amount > 0) violated by row {\"id\":3,\"amount\":-5") != NULL);
  b.release(&b);
  constraints_free(c);

  /* nothing to check: no object */
  delta_type *plain = NULL;
  CHECK_EQ_INT(schema_parse_text("a long", &plain), 0);
  struct ArrowSchema ps;
  CHECK_EQ_INT(delta_schema_to_arrow(plain, &ps), 0);
  c = (write_constraints *)&ps; /* overwritten */
  CHECK_EQ_INT(constraints_new(&c, plain, config + 2, 1, &ps), 0);
  CHECK(c == NULL);
  CHECK_EQ_INT(constraints_check(NULL, &(struct ArrowArray){.length = 1}), 0);

  /* bad constraints */
  delta_kv bad[] = {{"delta.constraints.b", "a >"}};
  CHECK_EQ_INT(constraints_new(&c, plain, bad, 1, &ps), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "CHECK constraint b") != NULL);
  CHECK_EQ_INT(constraint_validate("n", "nope = 1", plain), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "no column named nope") != NULL);
  CHECK_EQ_INT(constraint_validate("n", "a BETWEEN 1 AND 3", plain), 0);
  CHECK_EQ_INT(constraint_validate("", "a > 1", plain), DELTA_EINVAL);
  CHECK(constraints_any(config, 3));
  CHECK(!constraints_any(config + 2, 1));

  ps.release(&ps);
  full.release(&full);
  in_schema.release(&in_schema);
  delta_type_free(plain);
  delta_type_free(table);
  delta_type_free(input);
  TEST_MAIN_END();
}
