/* Unit test for src/log/schema_build.c: the compact schema form, Delta
 * JSON output, Arrow schemas in, column mapping ids, input checks/merge. */
#include <string.h>

#include "arrow/array.h"
#include "deltac.h"
#include "test.h"
#include "util/alloc_internal.h"
#include "log/schema_build.h"

static char *json_of(const char *text) {
  delta_type *t = NULL;
  if (schema_parse_text(text, &t)) return NULL;
  delta_buf b = DELTA_BUF_INIT;
  schema_to_json(t, &b);
  buf_putc(&b, 0);
  log_type_free(t);
  return (char *)buf_detach(&b);
}

static void test_compact(void) {
  char *j = json_of("id bigint not null, `odd name` string, d decimal(5, 2), a array<int>, m map<string, "
                    "struct<x: double, y: timestamp_ntz>>");
  CHECK_STR(j, "{\"type\":\"struct\",\"fields\":["
               "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
               "{\"name\":\"odd name\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
               "{\"name\":\"d\",\"type\":\"decimal(5,2)\",\"nullable\":true,\"metadata\":{}},"
               "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"elementType\":\"integer\",\"containsNull\":true},"
               "\"nullable\":true,\"metadata\":{}},"
               "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":{\"type\":\"struct\","
               "\"fields\":[{\"name\":\"x\",\"type\":\"double\",\"nullable\":true,\"metadata\":{}},"
               "{\"name\":\"y\",\"type\":\"timestamp_ntz\",\"nullable\":true,\"metadata\":{}}]},"
               "\"valueContainsNull\":true},\"nullable\":true,\"metadata\":{}}]}");
  mem_free(j);
  /* JSON in, JSON out: metadata kept */
  const char *in = "{\"type\":\"struct\",\"fields\":[{\"name\":\"c\",\"type\":\"string\",\"nullable\":true,"
                   "\"metadata\":{\"comment\":\"hi\"}}]}";
  j = json_of(in);
  CHECK_STR(j, in);
  mem_free(j);
  delta_type *t = NULL;
  CHECK_EQ_INT(schema_parse_text("a integr", &t), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "unknown type") != NULL);
  CHECK_EQ_INT(schema_parse_text("a int,", &t), DELTA_EINVAL);
  CHECK_EQ_INT(schema_parse_text("a decimal(40,2)", &t), DELTA_EINVAL);
  CHECK_EQ_INT(schema_parse_text("a array<int", &t), DELTA_EINVAL);
  CHECK_EQ_INT(schema_parse_text("a int not nul", &t), DELTA_EINVAL);
  CHECK(t == NULL);
}

static void test_column_mapping(void) {
  delta_type *t = NULL;
  CHECK_EQ_INT(schema_parse_text("a int, s struct<x: int, y: array<struct<z: int>>>", &t), 0);
  int64_t max = 0;
  CHECK_EQ_INT(schema_assign_column_mapping(t, &max), 0);
  CHECK_EQ_INT(max, 5);
  CHECK_EQ_INT(t->fields[0].field_id, 1);
  CHECK_EQ_INT(t->fields[1].field_id, 2);
  CHECK_EQ_INT(t->fields[1].type->fields[0].field_id, 3);
  CHECK(strncmp(t->fields[0].physical_name, "col-", 4) == 0 && strlen(t->fields[0].physical_name) == 40);
  CHECK(strstr(t->fields[0].metadata, "\"delta.columnMapping.id\":1") != NULL);
  /* serialised and parsed back, the ids stay */
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(schema_to_json(t, &b), 0);
  delta_type *u = NULL;
  CHECK_EQ_INT(log_schema_parse((const char *)b.data, b.len, &u), 0);
  CHECK_EQ_INT(u->fields[1].type->fields[1].type->element->fields[0].field_id, 5);
  CHECK_STR(u->fields[0].physical_name, t->fields[0].physical_name);
  /* assigning again changes nothing */
  CHECK_EQ_INT(schema_assign_column_mapping(u, &max), 0);
  CHECK_EQ_INT(max, 5);
  buf_dispose(&b);
  log_type_free(t);
  log_type_free(u);
}

static void test_arrow_and_checks(void) {
  delta_type *t = NULL, *in = NULL, *merged = NULL;
  CHECK_EQ_INT(schema_parse_text("id long, ts timestamp, n timestamp_ntz, d decimal(9,3), m map<string,int>", &t), 0);
  struct ArrowSchema as;
  CHECK_EQ_INT(log_schema_to_arrow(t, &as), 0);
  CHECK_EQ_INT(schema_from_arrow(&as, &in), 0);
  CHECK(schema_type_equal(t, in));
  as.release(&as);
  CHECK_EQ_INT(schema_check_input(t, in, false, &merged), 0);
  CHECK(merged == NULL);
  log_type_free(in);
  /* a new column: refused, or merged as nullable */
  CHECK_EQ_INT(schema_parse_text("ID long, extra string not null", &in), 0);
  CHECK_EQ_INT(schema_check_input(t, in, false, &merged), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "input column extra is not in the table") != NULL);
  CHECK_EQ_INT(schema_check_input(t, in, true, &merged), 0);
  CHECK(merged && merged->n_fields == 6 && strcmp(merged->fields[5].name, "extra") == 0 && merged->fields[5].nullable);
  log_type_free(merged);
  log_type_free(in);
  CHECK_EQ_INT(schema_parse_text("id string", &in), 0);
  CHECK_EQ_INT(schema_check_input(t, in, true, &merged), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "column id is long in the table but string in the input") != NULL);
  log_type_free(in);
  /* safe widenings are accepted as input */
  delta_type *to = NULL, *from = NULL;
  CHECK_EQ_INT(schema_parse_text("a long, b double, c short, d double, e int", &to), 0);
  CHECK_EQ_INT(schema_parse_text("a byte, b float, c byte, d int, e long", &from), 0);
  CHECK(schema_safe_widening(to->fields[0].type, from->fields[0].type));
  CHECK(schema_safe_widening(to->fields[1].type, from->fields[1].type));
  CHECK(schema_safe_widening(to->fields[2].type, from->fields[2].type));
  CHECK(schema_safe_widening(to->fields[3].type, from->fields[3].type));
  CHECK(!schema_safe_widening(to->fields[4].type, from->fields[4].type));
  CHECK(!schema_safe_widening(to->fields[3].type, from->fields[4].type)); /* long -> double loses digits */
  log_type_free(to);
  log_type_free(from);
  /* Arrow types without a Delta type */
  struct ArrowSchema u;
  arrow_schema_new(&u, "+s", "", 0, 1);
  arrow_schema_new(u.children[0], "I", "big", ARROW_FLAG_NULLABLE, 0);
  CHECK_EQ_INT(schema_from_arrow(&u, &in), DELTA_EUNSUPPORTED);
  CHECK(strstr(delta_error_last(), "column big") != NULL);
  u.release(&u);
  log_type_free(t);
}

int main(void) {
  test_compact();
  test_column_mapping();
  test_arrow_and_checks();
  char a[37], b[37];
  write_uuid(a);
  write_uuid(b);
  CHECK(strlen(a) == 36 && a[14] == '4' && strcmp(a, b) != 0);
  TEST_MAIN_END();
}
