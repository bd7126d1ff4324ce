/* Unit test for src/rewrite/constraints.c: NOT NULL fields (top level and
 * nested, a null parent struct exempting its fields), NOT NULL inside
 * arrays and maps (elements, values, keys, struct fields below them; a null
 * list, map or struct exempting what it would hold; sliced batches), CHECK constraints
 * (false violates, NULL passes, a column the input lacks is NULL), the
 * messages naming the constraint and the row, and bad constraints. */
#include <string.h>

#include "deltac.h"
#include "json/json.h"
#include "test.h"
#include "util/error_internal.h"
#include "log/column_builder.h"
#include "rewrite/constraints.h"
#include "log/schema_build.h"

/* One batch of `input_schema` rows from NDJSON-ish lines ('\n'-separated). */
static void batch_of(const delta_type *t, const char *lines, struct ArrowArray *out) {
  row_builder rb;
  delta_json_doc *d = NULL;
  json_doc_new(&d);
  CHECK_EQ_INT(row_builder_init(&rb, t), 0);
  const char *p = lines;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    CHECK_EQ_INT(json_parse(d, p, n), 0);
    CHECK_EQ_INT(row_builder_add_json(&rb, json_root(d)), 0);
    p += n + (nl ? 1 : 0);
  }
  CHECK_EQ_INT(row_builder_finish(&rb, out), 0);
  row_builder_dispose(&rb);
  json_doc_free(d);
}

/* The error of checking `lines` (NDJSON of `in`) against `c`, or "" when none. */
static const char *check_rows(write_constraints *c, const delta_type *in, const char *lines, int64_t offset,
                              int64_t length) {
  struct ArrowArray b;
  batch_of(in, lines, &b);
  b.offset += offset;
  if (length >= 0) b.length = length;
  int rc = constraints_check(c, &b);
  b.release(&b);
  return rc ? delta_error_last() : "";
}

static void nested(void) {
  static const char strict[] =
      "{\"type\":\"struct\",\"fields\":["
      "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},"
      "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":false},"
      "\"nullable\":true,\"metadata\":{}},"
      "{\"name\":\"attrs\",\"type\":{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"long\","
      "\"valueContainsNull\":false},\"nullable\":true,\"metadata\":{}},"
      "{\"name\":\"items\",\"type\":{\"type\":\"array\",\"elementType\":{\"type\":\"struct\",\"fields\":["
      "{\"name\":\"qty\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
      "{\"name\":\"note\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]},"
      "\"containsNull\":true},\"nullable\":true,\"metadata\":{}}]}";
  delta_type *table = NULL, *in = NULL, *partial = NULL;
  CHECK_EQ_INT(log_schema_parse(strict, strlen(strict), &table), 0);
  CHECK_EQ_INT(schema_parse_text("id long, tags array<string>, attrs map<string, long>, "
                                 "items array<struct<qty: long, note: string>>", &in), 0);
  struct ArrowSchema s;
  CHECK_EQ_INT(log_schema_to_arrow(in, &s), 0);
  write_constraints *c = NULL;
  CHECK_EQ_INT(constraints_new(&c, table, NULL, 0, &s), 0);
  CHECK(c != NULL);

  /* nulls where they are allowed, and inside null or empty containers */
  CHECK_STR(check_rows(c, in, "{\"id\":1,\"tags\":[\"a\"],\"attrs\":{\"k\":1},\"items\":[null,{\"qty\":1}]}\n"
                              "{\"id\":2,\"tags\":null,\"attrs\":null,\"items\":null}\n"
                              "{\"id\":3,\"tags\":[],\"attrs\":{},\"items\":[{\"qty\":2,\"note\":null}]}", 0, -1), "");
  CHECK_STR(check_rows(c, in, "{\"id\":1,\"tags\":[\"a\",null]}", 0, -1),
            "NOT NULL constraint on tags.element violated by row "
            "{\"id\":1,\"tags\":[\"a\",null],\"attrs\":null,\"items\":null}");
  CHECK(strstr(check_rows(c, in, "{\"id\":1,\"attrs\":{\"a\":1,\"b\":null}}", 0, -1),
               "NOT NULL constraint on attrs.value violated by row {\"id\":1,\"tags\":null,\"attrs\":{\"a\":1,\"b\":null}") != NULL);
  CHECK(strstr(check_rows(c, in, "{\"id\":1,\"items\":[{\"qty\":1},{\"note\":\"x\"}]}", 0, -1),
               "NOT NULL constraint on items.element.qty violated by row") != NULL);
  /* the violating row is the one named, after good ones */
  CHECK(strstr(check_rows(c, in, "{\"id\":1,\"tags\":[\"a\"]}\n{\"id\":2,\"tags\":[null]}", 0, -1),
               "by row {\"id\":2,") != NULL);
  /* sliced batches: only the rows in the slice count, offsets applied at each level */
  const char *two = "{\"id\":1,\"tags\":[\"a\",null],\"items\":[{\"qty\":null}]}\n"
                    "{\"id\":2,\"tags\":[\"b\"],\"attrs\":{\"k\":2},\"items\":[{\"qty\":5}]}";
  CHECK_STR(check_rows(c, in, two, 1, 1), "");
  CHECK(strstr(check_rows(c, in, two, 0, 2), "tags.element") != NULL);
  const char *good_first = "{\"id\":1,\"items\":[{\"qty\":1}]}\n{\"id\":2,\"items\":[{\"qty\":null}]}";
  CHECK_STR(check_rows(c, in, good_first, 0, 1), "");
  CHECK(strstr(check_rows(c, in, good_first, 1, 1), "items.element.qty violated by row {\"id\":2") != NULL);

  /* a null map key (which JSON cannot give: set one by hand) */
  struct ArrowArray b;
  batch_of(in, "{\"id\":1,\"attrs\":{\"a\":1,\"b\":2}}", &b);
  struct ArrowArray *keys = b.children[2]->children[0]->children[0];
  const void *save = keys->buffers[0];
  int64_t save_nulls = keys->null_count;
  static const uint8_t second_null = 0x01;
  keys->buffers[0] = &second_null;
  keys->null_count = 1;
  CHECK_EQ_INT(constraints_check(c, &b), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "NOT NULL constraint on attrs.key violated") != NULL);
  keys->buffers[0] = save;
  keys->null_count = save_nulls;
  b.release(&b);
  constraints_free(c);
  s.release(&s);

  /* a struct given inside an array lacking a NOT NULL field */
  CHECK_EQ_INT(schema_parse_text("id long, items array<struct<note: string>>", &partial), 0);
  CHECK_EQ_INT(log_schema_to_arrow(partial, &s), 0);
  CHECK_EQ_INT(constraints_new(&c, table, NULL, 0, &s), DELTA_EINVAL);
  CHECK_STR(delta_error_last(), "NOT NULL field items.element.qty is missing from the input");
  CHECK(c == NULL);
  s.release(&s);
  log_type_free(partial);
  log_type_free(table);
  log_type_free(in);
}

int main(void) {
  nested();
  delta_type *table = NULL, *input = NULL;
  CHECK_EQ_INT(schema_parse_text("id long not null, amount long, s struct<x: long not null, y: string>", &table), 0);
  /* the input lacks `amount` */
  CHECK_EQ_INT(schema_parse_text("id long, s struct<x: long, y: string>", &input), 0);
  struct ArrowSchema in_schema;
  CHECK_EQ_INT(log_schema_to_arrow(input, &in_schema), 0);
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
  CHECK_EQ_INT(log_schema_to_arrow(table, &full), 0);
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
  CHECK_EQ_INT(log_schema_to_arrow(plain, &ps), 0);
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
  log_type_free(plain);
  log_type_free(table);
  log_type_free(input);
  TEST_MAIN_END();
}
