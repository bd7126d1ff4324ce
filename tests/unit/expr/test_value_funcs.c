/* The value evaluator's functions and temporal casts (value_funcs.h), with
 * exact values: calendar arithmetic around the epoch and leap days, the
 * functions generated columns use, null propagation, and clear errors. */
#include <string.h>

#include "arrow/array.h"
#include "arrow/format_internal.h"
#include "deltac/error.h"
#include "expr/value_eval.h"
#include "expr/value_funcs.h"
#include "test.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "log/partition_text.h"
#include "write/input_text.h"

static struct ArrowSchema schema;
static struct ArrowArray rows;

/* Evaluate `text` over the rows into Arrow format `fmt`; the values as
 * "a|b|NULL" text (partition-value notation), or "ERR: message". */
static void eval(const char *text, const char *fmt, char *out, size_t cap) {
  vexpr *e = NULL;
  struct ArrowArray a;
  int rc = vexpr_parse(text, &e);
  if (!rc) rc = vexpr_bind(e, &schema, fmt, "target");
  if (!rc) rc = vexpr_eval(e, &rows, &a);
  vexpr_free(e);
  if (rc) {
    snprintf(out, cap, "ERR: %s", delta_error_last());
    return;
  }
  delta_buf b = DELTA_BUF_INIT;
  for (int64_t i = 0; i < a.length; i++) {
    bool is_null;
    if (i) buf_putc(&b, '|');
    size_t at = b.len;
    log_partition_value_text(fmt, &a, i, &b, &is_null);
    if (is_null) {
      b.len = at;
      buf_puts(&b, "NULL");
    }
  }
  buf_putc(&b, 0);
  snprintf(out, cap, "%s", (const char *)b.data);
  buf_dispose(&b);
  a.release(&a);
}

#define EVAL(text, fmt, want)                                                                                          \
  do {                                                                                                                 \
    char got[512];                                                                                                     \
    eval(text, fmt, got, sizeof got);                                                                                  \
    CHECK_STR(got, want);                                                                                              \
  } while (0)

int main(void) {
  /* calendar */
  CHECK_EQ_INT(vfunc_days_from_civil(1970, 1, 1), 0);
  CHECK_EQ_INT(vfunc_days_from_civil(1969, 12, 31), -1);
  CHECK_EQ_INT(vfunc_days_from_civil(2000, 3, 1), 11017);
  CHECK_EQ_INT(vfunc_days_from_civil(2024, 2, 29), 19782);
  CHECK_EQ_INT(vfunc_days_from_civil(1, 1, 1), -719162);
  int64_t y;
  int m, d;
  vfunc_civil_from_days(19782, &y, &m, &d);
  CHECK(y == 2024 && m == 2 && d == 29);
  vfunc_civil_from_days(-719162, &y, &m, &d);
  CHECK(y == 1 && m == 1 && d == 1);
  for (int64_t k = -800000; k <= 800000; k += 997) {
    vfunc_civil_from_days(k, &y, &m, &d);
    if (vfunc_days_from_civil(y, m, d) != k) {
      CHECK(!"civil round trip");
      break;
    }
  }

  const char *json = "{\"s\":\"2024-03-05 10:11:12.5\",\"n\":\"Alice\",\"k\":7}\n"
                     "{\"s\":\"1969-12-31T23:59:59.25Z\",\"n\":\"b\\u00e9ta\",\"k\":-3}\n"
                     "{\"s\":\"not a date\",\"n\":null,\"k\":null}\n";
  char *text = mem_malloc(strlen(json) + 1);
  memcpy(text, json, strlen(json) + 1);
  struct ArrowArrayStream st;
  CHECK_EQ_INT(input_text_stream(text, strlen(json), INPUT_NDJSON, NULL, 0, &st), 0);
  CHECK_EQ_INT(st.get_schema(&st, &schema), 0);
  CHECK_EQ_INT(st.get_next(&st, &rows), 0);

  /* casts: text to timestamp and date, timestamp to date floors, back to text */
  EVAL("CAST(s AS TIMESTAMP)", "tsu:UTC", "2024-03-05T10:11:12.500000Z|1969-12-31T23:59:59.250000Z|NULL");
  EVAL("CAST(s AS DATE)", "tdD", "2024-03-05|1969-12-31|NULL");
  EVAL("CAST(CAST(s AS TIMESTAMP) AS DATE)", "tdD", "2024-03-05|1969-12-31|NULL");
  EVAL("CAST(CAST(s AS TIMESTAMP) AS STRING)", "u", "2024-03-05 10:11:12.5|1969-12-31 23:59:59.25|NULL");
  EVAL("CAST(CAST(s AS DATE) AS TIMESTAMP)", "tsu:UTC", "2024-03-05T00:00:00.000000Z|1969-12-31T00:00:00.000000Z|NULL");
  /* to_date (the date functions' own, value_eval.c) refuses text that is no
   * date, where CAST gives NULL */
  EVAL("to_date(s)", "tdD", "ERR: expression: 'not a date' is not a date");
  /* calendar fields, from timestamps and (cast) text */
  EVAL("year(CAST(s AS TIMESTAMP))", "i", "2024|1969|NULL");
  EVAL("month(CAST(s AS TIMESTAMP)) * 100 + day(CAST(s AS TIMESTAMP))", "l", "305|1231|NULL");
  EVAL("hour(s) * 10000 + minute(s) * 100 + second(s)", "l", "101112|235959|NULL");
  EVAL("quarter(s)", "i", "1|4|NULL");
  EVAL("date_format(CAST(s AS TIMESTAMP), 'yyyy-MM')", "u", "2024-03|1969-12|NULL");
  EVAL("date_format(s, 'yy/M/d HH:mm:ss.SSS ''at'' MMM')", "u", "24/3/5 10:11:12.500 at Mar|69/12/31 23:59:59.250 at Dec|NULL");
  EVAL("date_format(s, 'Q')", "u", "ERR: expression: date_format pattern letter 'Q' is not supported");
  /* strings: characters, not bytes */
  EVAL("substring(n, 2, 3)", "u", "lic|\xc3\xa9ta|NULL");
  EVAL("substr(n, -2)", "u", "ce|ta|NULL");
  EVAL("substr(n, 0, 1)", "u", "A|b|NULL");
  EVAL("substr(n, 1, -1)", "u", "||NULL"); /* empty strings */
  EVAL("length(n)", "i", "5|4|NULL");
  EVAL("upper(n) || lower(n)", "u", "ALICEalice|B\xc3\xa9TAb\xc3\xa9ta|NULL");
  EVAL("concat(n, '-', k)", "u", "Alice-7|b\xc3\xa9ta--3|NULL");
  EVAL("concat(n, NULL)", "u", "NULL|NULL|NULL");
  EVAL("trim('  x ') || abs(k)", "u", "x7|x3|NULL");
  EVAL("COALESCE(upper(n), 'none')", "u", "ALICE|B\xc3\xa9TA|none");
  EVAL("CASE WHEN k > 0 THEN year(s) ELSE 0 END", "i", "2024|0|0");
  /* doubles as text, as Spark casts them */
  const struct { double d; const char *s; } dt[] = {
      {0.1, "0.1"}, {1, "1.0"}, {-2.5, "-2.5"}, {100, "100.0"}, {1234567.0, "1234567.0"}, {1e7, "1.0E7"},
      {12345678.9, "1.23456789E7"}, {0.001, "0.001"}, {0.0001, "1.0E-4"}, {-0.00012, "-1.2E-4"}, {1e300, "1.0E300"},
      {0.30000000000000004, "0.30000000000000004"}, {0, "0.0"}, {1.0 / 3, "0.3333333333333333"}};
  for (size_t i = 0; i < sizeof dt / sizeof *dt; i++) {
    char b[40];
    vfunc_double_text(dt[i].d, b);
    CHECK_STR(b, dt[i].s);
  }
  EVAL("concat(k / 2, '|')", "u", "3.5||-1.5||NULL");
  /* errors: a one-line message */
  EVAL("sha2(n, 256)", "u", "ERR: expression: unknown function sha2()");
  EVAL("year(s, 1)", "i", "ERR: expression: year() does not take 2 arguments");
  EVAL("year(k)", "i", "ERR: expression: year() cannot take a long");
  EVAL("CAST(k AS DATE)", "tdD", "ERR: expression: cannot CAST a long AS date");
  EVAL("CAST(s AS TIMESTAMP)", "i", "ERR: column target is long: cannot assign a timestamp (use CAST)");

  rows.release(&rows);
  schema.release(&schema);
  st.release(&st);
  TEST_MAIN_END();
}
