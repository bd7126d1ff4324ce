/* Value expressions over nested columns (MERGE's joined rows {t, s}):
 * dotted and quoted references resolve through struct fields, evaluate per
 * row, and bad references are clear errors. Then decimal, date and
 * timestamp arithmetic with Spark's semantics over a typed batch, with
 * exact expected values (dates as days, timestamps as microseconds). */
#include <stdio.h>
#include <string.h>

#include "arrow/array.h"
#include "deltac/error.h"
#include "expr/dec_math.h"
#include "expr/value_eval.h"
#include "test.h"
#include "util/alloc_internal.h"
#include "write/input_text.h"
#include "log/schema_build.h"

static void no_release(struct ArrowArray *a) { a->release = NULL; }

static struct ArrowSchema typed_schema;
static struct ArrowArray typed_batch;

/* Evaluate `text` into a column of `format`; 0 or the error code. */
static int eval_typed(const char *text, const char *format, struct ArrowArray *out) {
  vexpr *e = NULL;
  int rc = vexpr_parse(text, &e);
  if (!rc) rc = vexpr_bind(e, &typed_schema, format, "c");
  if (!rc) rc = vexpr_eval(e, &typed_batch, out);
  vexpr_free(e);
  return rc;
}

/* Three rows, the third all null: decimals as text ("NULL" for null). */
static void check_dec(const char *text, const char *format, const char *r0, const char *r1, const char *r2) {
  struct ArrowArray out;
  int rc = eval_typed(text, format, &out);
  CHECK_EQ_INT(rc, 0);
  if (rc) {
    fprintf(stderr, "  %s: %s\n", text, delta_error_last());
    return;
  }
  int scale = 0;
  sscanf(strchr(format, ',') + 1, "%d", &scale);
  const char *want[3] = {r0, r1, r2};
  for (int i = 0; i < 3; i++) {
    char buf[48] = "NULL";
    if (arrow_is_valid(&out, i)) {
      __int128 v;
      memcpy(&v, (const uint8_t *)out.buffers[1] + 16 * i, 16);
      dec_format(v, scale, buf);
    }
    CHECK_STR(buf, want[i]);
    if (strcmp(buf, want[i]) != 0) fprintf(stderr, "  %s row %d\n", text, i);
  }
  out.release(&out);
}

#define NUL INT64_MIN
/* dates (tdD) and timestamps as integers, NUL for null */
static void check_int(const char *text, const char *format, int64_t r0, int64_t r1, int64_t r2) {
  struct ArrowArray out;
  int rc = eval_typed(text, format, &out);
  CHECK_EQ_INT(rc, 0);
  if (rc) {
    fprintf(stderr, "  %s: %s\n", text, delta_error_last());
    return;
  }
  int64_t want[3] = {r0, r1, r2};
  for (int i = 0; i < 3; i++) {
    int64_t got = NUL;
    if (arrow_is_valid(&out, i))
      got = format[0] == 't' && format[1] == 'd' ? ((const int32_t *)out.buffers[1])[i]
            : format[0] == 'i' ? ((const int32_t *)out.buffers[1])[i]
                                : ((const int64_t *)out.buffers[1])[i];
    CHECK_EQ_INT(got, want[i]);
    if (got != want[i]) fprintf(stderr, "  %s row %d\n", text, i);
  }
  out.release(&out);
}

static void check_err(const char *text, const char *format, const char *msg) {
  struct ArrowArray out;
  int rc = eval_typed(text, format, &out);
  CHECK(rc != 0);
  if (rc == 0) {
    out.release(&out);
    fprintf(stderr, "  %s: no error\n", text);
    return;
  }
  CHECK(strstr(delta_error_last(), msg) != NULL);
  if (!strstr(delta_error_last(), msg)) fprintf(stderr, "  %s: %s\n", text, delta_error_last());
}

static void typed_tests(void) {
  const char *json =
      "{\"id\":1,\"amt\":\"10.25\",\"big\":\"1234567890123456789012345678.9012345678\",\"d\":\"2024-01-31\","
      "\"ts\":\"2024-03-10T10:30:00Z\",\"tn\":\"2024-02-29T23:00:00\",\"n\":3,\"s\":\"2024-12-25\"}\n"
      "{\"id\":2,\"amt\":\"-3.35\",\"big\":\"-1.0000000001\",\"d\":\"1969-12-31\","
      "\"ts\":\"1969-12-31T23:59:59.5Z\",\"tn\":\"1900-03-01T00:00:00\",\"n\":-7,\"s\":\"x\"}\n"
      "{\"id\":3}\n";
  delta_type *schema = NULL;
  CHECK_EQ_INT(schema_parse_text("id long, amt decimal(10,2), big decimal(38,10), d date, ts timestamp, "
                                 "tn timestamp_ntz, n int, s string", &schema), 0);
  char *text = mem_malloc(strlen(json) + 1);
  memcpy(text, json, strlen(json) + 1);
  struct ArrowArrayStream st;
  CHECK_EQ_INT(input_text_stream(text, strlen(json), INPUT_NDJSON, schema, 0, &st), 0);
  CHECK_EQ_INT(st.get_schema(&st, &typed_schema), 0);
  CHECK_EQ_INT(st.get_next(&st, &typed_batch), 0);
  CHECK_EQ_INT(typed_batch.length, 3);

  /* decimals: Spark's result types, then HALF_UP into the column's scale */
  check_dec("amt * 1.1", "d:10,2", "11.28", "-3.69", "NULL");     /* 11.275, -3.685 */
  check_dec("amt / 3", "d:10,2", "3.42", "-1.12", "NULL");
  check_dec("amt % 7", "d:10,2", "3.25", "-3.35", "NULL");
  check_dec("-amt + n", "d:10,2", "-7.25", "-3.65", "NULL");      /* int promotes to decimal(10,0) */
  check_dec("amt - 0.05", "d:10,2", "10.20", "-3.40", "NULL");
  check_dec("amt * amt", "d:10,4", "105.0625", "11.2225", "NULL");
  check_dec("big * 1.5", "d:38,6", "1851851835185185183518518518.351852", "-1.500000", "NULL");
  check_dec("big / big", "d:38,6", "1.000000", "1.000000", "NULL");
  check_dec("amt * 2.0e0", "d:10,2", "20.50", "-6.70", "NULL");   /* decimal with double: a double */
  check_dec("CAST(n AS DECIMAL(5,1)) / 7", "d:10,2", "0.43", "-1.00", "NULL");
  check_dec("CASE WHEN id = 1 THEN amt ELSE 0.125 END", "d:10,2", "10.25", "0.13", "0.13");
  check_dec("COALESCE(amt, 0) + 1", "d:10,2", "11.25", "-2.35", "1.00");
  check_dec("n", "d:10,2", "3.00", "-7.00", "NULL");
  check_dec("CAST(s AS DECIMAL(10,2))", "d:10,2", "NULL", "NULL", "NULL"); /* CAST of no number: null */
  check_err("amt * 100000000", "d:10,2", "1025000000.00 does not fit column c decimal(10,2)");
  check_err("amt / (n - n)", "d:10,2", "division by zero in 10.25 / 0");
  check_err("amt % 0.0", "d:10,2", "division by zero");
  check_err("big * big", "d:38,6", "decimal overflow");
  check_err("CAST(1 AS DECIMAL(39,0))", "d:10,2", "DECIMAL needs 1 <= precision <= 38");
  /* decimal into a double and an integer column */
  struct ArrowArray out;
  CHECK_EQ_INT(eval_typed("amt + 0.5", "g", &out), 0);
  CHECK(((const double *)out.buffers[1])[0] == 10.75);
  out.release(&out);
  CHECK_EQ_INT(eval_typed("amt * 2", "l", &out), 0);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[1], -6); /* -6.70 truncates */
  out.release(&out);
  CHECK_EQ_INT(eval_typed("amt || ''", "u", &out), 0);
  const int32_t *off = out.buffers[1];
  CHECK_EQ_INT(off[1] - off[0], 5); /* "10.25" */
  out.release(&out);

  /* dates */
  check_int("d + 1", "tdD", 19754, 0, NUL);
  check_int("1 + d", "tdD", 19754, 0, NUL);
  check_int("d - 7", "tdD", 19746, -8, NUL);
  check_int("date_add(d, 1)", "tdD", 19754, 0, NUL);
  check_int("date_sub(d, -1)", "tdD", 19754, 0, NUL);
  check_int("add_months(d, 1)", "tdD", 19782, 30, NUL);           /* 2024-02-29 (leap), 1970-01-31 */
  check_int("add_months(DATE '2023-01-31', 1)", "tdD", 19416, 19416, 19416); /* 2023-02-28 */
  check_int("add_months(d, -12)", "tdD", 19753 - 365, -1 - 365, NUL);
  check_int("add_months(DATE '1900-01-31', 1)", "tdD", -25509, -25509, -25509); /* 1900-02-28: not a leap year */
  check_int("add_months(DATE '2000-01-31', 1)", "tdD", 11016, 11016, 11016);    /* 2000-02-29: a leap year */
  check_int("add_months(DATE '2024-02-29', 12)", "tdD", 20147, 20147, 20147);   /* 2025-02-28 */
  check_int("datediff(d, DATE '2024-01-01')", "i", 30, -19724, NUL);
  check_int("d + INTERVAL '3' DAY", "tdD", 19756, 2, NUL);
  check_int("d + INTERVAL 1 YEAR", "tdD", 20119, 364, NUL);
  check_int("d - INTERVAL 1 WEEK", "tdD", 19746, -8, NUL);
  check_int("CAST(ts AS DATE)", "tdD", 19792, -1, NUL);           /* before 1970: floor */
  check_int("CAST(d AS TIMESTAMP)", "tsu:UTC", 19753 * 86400000000LL, -86400000000LL, NUL);
  check_int("d + INTERVAL 1 HOUR", "tsu:UTC", 1706662800000000LL, -82800000000LL, NUL); /* a timestamp */
  check_int("CASE WHEN id = 1 THEN to_date(s) END", "tdD", 20082, NUL, NUL);
  check_int("d", "tsu:UTC", 19753 * 86400000000LL, -86400000000LL, NUL); /* a date into a timestamp column */
  /* timestamps */
  check_int("ts + INTERVAL '1' HOUR", "tsu:UTC", 1710070200000000LL, 3599500000LL, NUL);
  check_int("ts - INTERVAL 90 MINUTES", "tsu:UTC", 1710061200000000LL, -5400500000LL, NUL);
  check_int("ts + INTERVAL '2' DAY", "tsu:UTC", 1710066600000000LL + 172800000000LL, -500000 + 172800000000LL, NUL);
  check_int("ts + INTERVAL 500 MILLISECONDS", "tsu:UTC", 1710066600500000LL, 0, NUL);
  check_int("ts + INTERVAL 1 DAY 2 HOURS", "tsu:UTC", 1710066600000000LL + 93600000000LL, -500000 + 93600000000LL, NUL);
  check_int("ts + -INTERVAL 30 SECONDS", "tsu:UTC", 1710066570000000LL, -30500000, NUL);
  check_int("date_trunc('hour', ts)", "tsu:UTC", 1710064800000000LL, -3600000000LL, NUL);
  check_int("date_trunc('WEEK', ts)", "tsu:UTC", 1709510400000000LL, -259200000000LL, NUL);
  check_int("date_trunc('quarter', ts)", "tsu:UTC", 1704067200000000LL, -7948800000000LL, NUL);
  check_int("date_trunc('second', ts)", "tsu:UTC", 1710066600000000LL, -1000000, NUL);
  check_int("tn + INTERVAL 1 MONTH", "tsu:", 1711753200000000LL, -2201212800000000LL, NUL);
  check_int("unix_micros(ts)", "l", 1710066600000000LL, -500000, NUL);
  check_int("unix_seconds(ts)", "l", 1710066600LL, -1, NUL);
  check_int("timestamp_seconds(n)", "tsu:UTC", 3000000, -7000000, NUL);
  check_int("CAST('2024-01-01 10:00:00' AS TIMESTAMP)", "tsu:UTC", 1704103200000000LL, 1704103200000000LL,
            1704103200000000LL);
  /* errors: one line, naming the problem */
  check_err("d * 2", "tdD", "'*' cannot be applied to date and long");
  check_err("ts + 1", "tsu:UTC", "timestamp + integer is not defined");
  check_err("d - d", "tdD", "use datediff");
  check_err("INTERVAL 1 DAY", "tsu:UTC", "an INTERVAL can only be added to or subtracted from");
  check_err("ts + INTERVAL 2 FORTNIGHTS", "tsu:UTC", "unknown INTERVAL unit 'FORTNIGHTS'");
  check_err("ts + INTERVAL '1.5' SECOND", "tsu:UTC", "INTERVAL value must be a whole number");
  check_err("date_trunc('fortnight', ts)", "tsu:UTC", "date_trunc's unit must be one of");
  check_err("to_date(s)", "tdD", "'x' is not a date");
  check_err("s", "tdD", "'x' is not a date for column c");
  check_err("amt", "tdD", "column c is date: cannot assign a decimal");
  check_err("date_add(d, 1.5)", "tdD", "date_add needs a date and an integer");
  check_err("DATE '2024-13-01'", "tdD", "not a DATE literal");
  check_err("CAST(d AS DECIMAL(5,0))", "d:5,0", "cannot CAST a date AS decimal");
  check_err("add_months(d)", "tdD", "add_months takes 2 arguments, not 1");

  /* predicates as values: comparisons are booleans (NULL when unknown),
   * CASE conditions take the whole filter language, values inside them */
  CHECK_EQ_INT(eval_typed("n > 0", "b", &out), 0);
  CHECK_EQ_INT(out.null_count, 1);
  CHECK(((const uint8_t *)out.buffers[1])[0] == 1); /* row 0 true, row 1 false */
  out.release(&out);
  check_int("CASE WHEN id IN (1, 3) AND amt IS NULL THEN 1 ELSE 0 END", "l", 0, 0, 1);
  check_int("CASE WHEN n * 2 > 0 AND s LIKE '2024%' THEN 10 WHEN amt < 0 THEN 20 END", "l", 10, 20, NUL);
  check_int("CASE WHEN coalesce(n > 0, false) THEN 1 ELSE 2 END", "l", 1, 2, 2);
  check_int("CAST(d > DATE '2000-01-01' AS INT)", "l", 1, 0, NUL);
  check_int("CASE WHEN lower(s) = 'x' THEN id END", "l", NUL, 2, NUL);
  check_dec("CASE WHEN amt + 1 > 5 THEN amt ELSE -amt END", "d:10,2", "10.25", "3.35", "NULL");
  check_err("n > 'x'", "b", "'x' is not a valid integer for column n");

  typed_batch.release(&typed_batch);
  typed_schema.release(&typed_schema);
  st.release(&st);
  log_type_free(schema);
}

int main(void) {
  const char *json = "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":null}\n{\"a\":null,\"b\":\"z\"}\n";
  char *text = mem_malloc(strlen(json) + 1);
  memcpy(text, json, strlen(json) + 1);
  struct ArrowArrayStream st;
  CHECK_EQ_INT(input_text_stream(text, strlen(json), INPUT_NDJSON, NULL, 0, &st), 0);
  struct ArrowSchema inner;
  struct ArrowArray rows;
  CHECK_EQ_INT(st.get_schema(&st, &inner), 0);
  CHECK_EQ_INT(st.get_next(&st, &rows), 0);
  /* {t: rows, s: rows} */
  struct ArrowSchema joined;
  CHECK_EQ_INT(arrow_schema_new(&joined, "+s", "", 0, 2), 0);
  const char *names[2] = {"t", "s"};
  for (int k = 0; k < 2; k++) {
    struct ArrowSchema *c = joined.children[k];
    arrow_schema_release(c);
    CHECK_EQ_INT(arrow_schema_new(c, "+s", names[k], 0, (int)inner.n_children), 0);
    for (int64_t i = 0; i < inner.n_children; i++) {
      arrow_schema_release(c->children[i]);
      CHECK_EQ_INT(arrow_schema_copy(c->children[i], inner.children[i]), 0);
    }
  }
  struct ArrowArray *kids[2] = {&rows, &rows};
  const void *bufs[1] = {NULL};
  struct ArrowArray batch = {.length = rows.length, .n_buffers = 1, .n_children = 2, .buffers = bufs,
                             .children = kids, .release = no_release};
  vexpr *e = NULL;
  struct ArrowArray out;
  /* arithmetic over t.a and s.a: long */
  CHECK_EQ_INT(vexpr_parse("t.a + `s`.`a` * 10", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "l", "x"), 0);
  CHECK_EQ_INT(vexpr_eval(e, &batch, &out), 0);
  CHECK_EQ_INT(out.length, 3);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[0], 11);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[1], 22);
  CHECK_EQ_INT(out.null_count, 1);
  out.release(&out);
  vexpr_free(e);
  /* strings; a plain copy of a nested column */
  CHECK_EQ_INT(vexpr_parse("COALESCE(s.b, 'none') || '!'", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "u", "y"), 0);
  CHECK_EQ_INT(vexpr_eval(e, &batch, &out), 0);
  const int32_t *off = out.buffers[1];
  CHECK_EQ_INT(off[2] - off[1], 5); /* "none!" */
  out.release(&out);
  vexpr_free(e);
  /* errors */
  CHECK_EQ_INT(vexpr_parse("t.zz", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "l", "x"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "no column named t.zz") != NULL);
  vexpr_free(e);
  CHECK_EQ_INT(vexpr_parse("s.b.c", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "u", "x"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "not a struct") != NULL);
  vexpr_free(e);
  CHECK_EQ_INT(vexpr_parse("t.", &e), DELTA_EINVAL);
  /* "t.a = 1" splits as an assignment to "t.a" */
  char **n = NULL;
  vexpr **x = NULL;
  int cnt = 0;
  CHECK_EQ_INT(vexpr_parse_set("t.a = 1, b = s.b", &n, &x, &cnt), 0);
  CHECK_EQ_INT(cnt, 2);
  if (cnt == 2) {
    CHECK_STR(n[0], "t.a");
    CHECK_STR(n[1], "b");
  }
  vexpr_set_free(n, x, cnt);
  rows.release(&rows);
  inner.release(&inner);
  joined.release(&joined);
  st.release(&st);
  typed_tests();
  TEST_MAIN_END();
}
