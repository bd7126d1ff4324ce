/* Unit test for src/log/column_builder.c: JSON and text values into Arrow
 * arrays of every Delta type, nulls, nesting, and the errors. */
#include <math.h>
#include <string.h>

#include "deltac.h"
#include "json/json.h"
#include "test.h"
#include "log/column_builder.h"
#include "log/schema_build.h"

static int add(row_builder *rb, delta_json_doc *d, const char *json) {
  int rc = json_parse(d, json, strlen(json));
  return rc ? rc : row_builder_add_json(rb, json_root(d));
}

static void test_json(void) {
  delta_type *t = NULL;
  CHECK_EQ_INT(schema_parse_text("l long, i int, b byte, f float, bo boolean, s string, bin binary, d date, "
                                 "ts timestamp, dec decimal(6,2), a array<long>, st struct<x: int>, "
                                 "m map<string, string>", &t), 0);
  row_builder rb;
  delta_json_doc *d = NULL;
  json_doc_new(&d);
  CHECK_EQ_INT(row_builder_init(&rb, t), 0);
  CHECK_EQ_INT(add(&rb, d, "{\"l\":-5,\"i\":7,\"b\":-128,\"f\":\"NaN\",\"bo\":true,\"s\":\"x\\u00e9\",\"bin\":\"AAH/\","
                           "\"d\":\"1970-01-02\",\"ts\":\"1970-01-01T00:00:01.5Z\",\"dec\":-12.5,\"a\":[1,null,3],"
                           "\"st\":{\"x\":9},\"m\":{\"k\":\"v\",\"n\":null}}"), 0);
  CHECK_EQ_INT(add(&rb, d, "{}"), 0); /* every column null */
  CHECK_EQ_INT(add(&rb, d, "{\"dec\":\"1234.50\",\"a\":[],\"st\":{},\"m\":{}}"), 0);
  struct ArrowArray out;
  CHECK_EQ_INT(row_builder_finish(&rb, &out), 0);
  CHECK_EQ_INT(out.length, 3);
  CHECK_EQ_INT(((const int64_t *)out.children[0]->buffers[1])[0], -5);
  CHECK_EQ_INT(out.children[0]->null_count, 2);
  CHECK_EQ_INT(((const int8_t *)out.children[2]->buffers[1])[0], -128);
  CHECK(isnan(((const float *)out.children[3]->buffers[1])[0]));
  CHECK_EQ_INT(((const uint8_t *)out.children[4]->buffers[1])[0] & 1, 1);
  const int32_t *so = out.children[5]->buffers[1];
  CHECK_EQ_INT(so[1], 3);
  CHECK(memcmp(out.children[5]->buffers[2], "x\xc3\xa9", 3) == 0);
  const int32_t *bo = out.children[6]->buffers[1];
  CHECK_EQ_INT(bo[1], 3);
  CHECK(memcmp(out.children[6]->buffers[2], "\x00\x01\xff", 3) == 0);
  CHECK_EQ_INT(((const int32_t *)out.children[7]->buffers[1])[0], 1);
  CHECK_EQ_INT(((const int64_t *)out.children[8]->buffers[1])[0], 1500000);
  const __int128 *dec = out.children[9]->buffers[1];
  CHECK(dec[0] == -1250 && dec[2] == 123450);
  const int32_t *ao = out.children[10]->buffers[1];
  CHECK(ao[0] == 0 && ao[1] == 3 && ao[2] == 3 && ao[3] == 3);
  CHECK_EQ_INT(out.children[10]->null_count, 1);
  CHECK_EQ_INT(out.children[10]->children[0]->null_count, 1);
  CHECK_EQ_INT(out.children[11]->null_count, 1);
  CHECK_EQ_INT(out.children[11]->children[0]->length, 3); /* a slot per row, null struct included */
  CHECK_EQ_INT(out.children[12]->children[0]->length, 2); /* map entries */
  out.release(&out);
  /* errors name the column; the builder is then discarded */
  CHECK_EQ_INT(add(&rb, d, "{\"i\":3000000000}"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "column i: 3000000000 is out of range") != NULL);
  row_builder_dispose(&rb);
  CHECK_EQ_INT(row_builder_init(&rb, t), 0);
  CHECK_EQ_INT(add(&rb, d, "{\"dec\":1.234}"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "not a decimal(6,2)") != NULL);
  row_builder_dispose(&rb);
  CHECK_EQ_INT(row_builder_init(&rb, t), 0);
  CHECK_EQ_INT(add(&rb, d, "{\"s\":5}"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "column s: expected a string, got number") != NULL);
  row_builder_dispose(&rb);
  json_doc_free(d);
  log_type_free(t);
}

static void test_text(void) {
  delta_type *t = NULL;
  CHECK_EQ_INT(schema_parse_text("a long not null, s string, d date", &t), 0);
  row_builder rb;
  CHECK_EQ_INT(row_builder_init(&rb, t), 0);
  const char *cells[3] = {"42", "", "2024-02-29"};
  size_t lens[3] = {2, 0, 10};
  int map[3] = {0, 1, 2};
  CHECK_EQ_INT(row_builder_add_text(&rb, cells, lens, map), 0);
  const char *cells2[3] = {"1", NULL, ""};
  size_t lens2[3] = {1, 0, 0};
  CHECK_EQ_INT(row_builder_add_text(&rb, cells2, lens2, map), 0);
  struct ArrowArray out;
  CHECK_EQ_INT(row_builder_finish(&rb, &out), 0);
  CHECK_EQ_INT(out.children[1]->null_count, 1);  /* "" is a string, NULL is null */
  CHECK_EQ_INT(out.children[2]->null_count, 1);  /* an empty date is null */
  CHECK_EQ_INT(((const int32_t *)out.children[2]->buffers[1])[0], 19782);
  out.release(&out);
  const char *cells3[3] = {NULL, "x", "2024-02-30x"};
  CHECK_EQ_INT(row_builder_add_text(&rb, cells3, lens, map), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "column a: null in a non-nullable column") != NULL);
  row_builder_dispose(&rb);
  log_type_free(t);
  __int128 v;
  CHECK_EQ_INT(cb_parse_decimal("-0.5", 4, 3, 2, &v), 0);
  CHECK(v == -50);
  CHECK(cb_parse_decimal("1000", 4, 3, 0, &v) != 0);
  CHECK(cb_parse_decimal("1.", 2, 3, 0, &v) == 0 && v == 1);
  int64_t us;
  CHECK(cb_parse_timestamp("2024-01-01T00:00:00Z", 20, true, &us) != 0); /* ntz takes no zone */
  CHECK(cb_parse_timestamp("2024-01-01 00:00:00.000001", 26, true, &us) == 0 && us == 1704067200000001LL);
}

int main(void) {
  test_json();
  test_text();
  TEST_MAIN_END();
}
