/* Unit test for src/rewrite/file_stats.c: stats JSON from a Parquet write
 * result (nesting of struct leaves, skipped lists, string truncation with
 * the U+10FFFF tie-breaker, timestamps in milliseconds, decimals, dates). */
#include <string.h>

#include "deltac.h"
#include "test.h"
#include "rewrite/file_stats.h"

static delta_parquet_column_result leaf(const char *path, const char *const *parts, int n, const char *fmt) {
  delta_parquet_column_result c;
  memset(&c, 0, sizeof c);
  c.path = path;
  c.path_parts = parts;
  c.path_len = n;
  c.format = fmt;
  return c;
}

int main(void) {
  static const char *p_id[] = {"id"}, *p_sx[] = {"s", "x"}, *p_sy[] = {"s", "y"}, *p_l[] = {"l", "list", "element"},
                    *p_t[] = {"t"}, *p_name[] = {"name"}, *p_d[] = {"d"}, *p_dec[] = {"dec"}, *p_b[] = {"b"};
  delta_parquet_column_result cols[8];
  cols[0] = leaf("id", p_id, 1, "l");
  cols[0].has_min_max = true;
  cols[0].min = (delta_parquet_value){DELTA_PARQUET_VALUE_INT64, {.i64 = -3}};
  cols[0].max = (delta_parquet_value){DELTA_PARQUET_VALUE_INT64, {.i64 = 9}};
  cols[1] = leaf("s.x", p_sx, 2, "g");
  cols[1].has_min_max = true;
  cols[1].null_count = 1;
  cols[1].min = (delta_parquet_value){DELTA_PARQUET_VALUE_DOUBLE, {.f64 = 0.5}};
  cols[1].max = (delta_parquet_value){DELTA_PARQUET_VALUE_DOUBLE, {.f64 = 2}};
  cols[2] = leaf("s.y", p_sy, 2, "b");
  cols[2].has_min_max = true;
  cols[3] = leaf("l.list.element", p_l, 3, "l");
  cols[3].repeated = true;
  cols[3].has_min_max = true;
  cols[4] = leaf("t", p_t, 1, "tsu:UTC");
  cols[4].has_min_max = true;
  cols[4].min = (delta_parquet_value){DELTA_PARQUET_VALUE_INT64, {.i64 = -1}};      /* 1969-12-31T23:59:59.999999 */
  cols[4].max = (delta_parquet_value){DELTA_PARQUET_VALUE_INT64, {.i64 = 1999999}}; /* 1.999999 s */
  const char *longs = "ééééééééééééééééééééééééééééééééééé"; /* 35 two-byte characters */
  cols[5] = leaf("name", p_name, 1, "u");
  cols[5].has_min_max = true;
  cols[5].min = (delta_parquet_value){DELTA_PARQUET_VALUE_BYTES, {.bytes = {(const uint8_t *)"a\"b", 3}}};
  cols[5].max = (delta_parquet_value){DELTA_PARQUET_VALUE_BYTES, {.bytes = {(const uint8_t *)longs, strlen(longs)}}};
  cols[6] = leaf("d", p_d, 1, "tdD");
  cols[6].has_min_max = true;
  cols[6].min = cols[6].max = (delta_parquet_value){DELTA_PARQUET_VALUE_INT64, {.i64 = 19782}};
  cols[7] = leaf("dec", p_dec, 1, "d:5,2");
  cols[7].has_min_max = true;
  cols[7].min = (delta_parquet_value){DELTA_PARQUET_VALUE_DECIMAL, {.dec = {(uint64_t)-505, -1}}};
  cols[7].max = (delta_parquet_value){DELTA_PARQUET_VALUE_DECIMAL, {.dec = {7, 0}}};
  (void)p_b;
  delta_parquet_write_result r = {100, 4, 1, 8, cols};
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(file_stats_json(&r, &b), 0);
  buf_putc(&b, 0);
  CHECK_STR((const char *)b.data,
            "{\"numRecords\":4,"
            "\"minValues\":{\"id\":-3,\"s\":{\"x\":0.5},\"t\":\"1969-12-31T23:59:59.999Z\",\"name\":\"a\\\"b\","
            "\"d\":\"2024-02-29\",\"dec\":-5.05},"
            "\"maxValues\":{\"id\":9,\"s\":{\"x\":2.0},\"t\":\"1970-01-01T00:00:01.999Z\","
            "\"name\":\"éééééééééééééééééééééééééééééééé\xF4\x8F\xBF\xBF\",\"d\":\"2024-02-29\",\"dec\":0.07},"
            "\"nullCount\":{\"id\":0,\"s\":{\"x\":1,\"y\":0},\"t\":0,\"name\":0,\"d\":0,\"dec\":0}}");
  buf_dispose(&b);
  TEST_MAIN_END();
}
