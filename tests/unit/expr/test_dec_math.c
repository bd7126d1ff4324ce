/* Exact decimal arithmetic: Spark's result precision/scale table (with the
 * precision-loss adjustment past 38 digits), HALF_UP rounding of negative
 * and .5 cases, 38-digit products and quotients, overflow and division by
 * zero. Expected values were worked out with Python's decimal module
 * emulating Spark (round to 38 significant digits, then to the scale). */
#include <string.h>

#include "expr/dec_math.h"
#include "test.h"

static __int128 D(const char *text, int scale) {
  __int128 v = 0;
  CHECK_EQ_INT(dec_parse(text, strlen(text), 38, scale, &v), DEC_OK);
  return v;
}

/* a (p1,s1) op b (p2,s2): the result type, then the value (or the error). */
static void check_op(char op, const char *a, int p1, int s1, const char *b, int p2, int s2, int want_p, int want_s,
                     const char *want) {
  int p, s;
  dec_result_type(op, p1, s1, p2, s2, &p, &s);
  CHECK_EQ_INT(p, want_p);
  CHECK_EQ_INT(s, want_s);
  __int128 out = 0;
  int rc = dec_apply(op, D(a, s1), s1, D(b, s2), s2, p, s, &out);
  if (strcmp(want, "OVERFLOW") == 0) {
    CHECK_EQ_INT(rc, DEC_OVERFLOW);
  } else if (strcmp(want, "DIVZERO") == 0) {
    CHECK_EQ_INT(rc, DEC_DIVZERO);
  } else {
    CHECK_EQ_INT(rc, DEC_OK);
    char buf[48];
    dec_format(out, s, buf);
    CHECK_STR(buf, want);
  }
}

static void check_type(char op, int p1, int s1, int p2, int s2, int want_p, int want_s) {
  int p, s;
  dec_result_type(op, p1, s1, p2, s2, &p, &s);
  CHECK_EQ_INT(p, want_p);
  CHECK_EQ_INT(s, want_s);
}

int main(void) {
  /* the result type table */
  check_type('*', 10, 2, 3, 1, 14, 3);
  check_type('+', 10, 2, 5, 3, 12, 3);
  check_type('-', 20, 0, 10, 2, 23, 2);   /* bigint - decimal(10,2) */
  check_type('/', 10, 2, 1, 0, 14, 6);    /* a / 3 */
  check_type('/', 10, 2, 10, 0, 21, 13);  /* a / an int column */
  check_type('%', 10, 2, 1, 0, 3, 2);     /* a % 7 */
  check_type('*', 5, 5, 5, 5, 11, 10);
  check_type('*', 38, 10, 38, 10, 38, 6); /* precision loss: keep min(scale, 6) */
  check_type('/', 38, 2, 10, 3, 38, 6);
  check_type('+', 38, 0, 38, 38, 38, 6);
  check_type('*', 38, 0, 38, 0, 38, 0);
  check_type('/', 38, 37, 1, 0, 38, 37);  /* 40 digits, only one integral: scale 37 */

  /* values */
  check_op('*', "11.28", 10, 2, "1.1", 2, 1, 13, 3, "12.408");
  check_op('/', "1", 1, 0, "3", 1, 0, 7, 6, "0.333333");
  check_op('/', "-2", 1, 0, "3", 1, 0, 7, 6, "-0.666667");
  check_op('/', "100.00", 10, 2, "3", 1, 0, 14, 6, "33.333333");
  check_op('/', "-0.05", 10, 2, "3", 1, 0, 14, 6, "-0.016667");
  check_op('/', "1.00", 38, 2, "3.000", 10, 3, 38, 6, "0.333333");
  check_op('-', "-0.005", 3, 3, "0.0005", 4, 4, 5, 4, "-0.0055");
  check_op('%', "-7.5", 2, 1, "2", 1, 0, 2, 1, "-1.5");
  check_op('%', "7.5", 2, 1, "-2", 1, 0, 2, 1, "1.5");
  /* 38-digit operands: 77-digit products and 40-digit quotients */
  check_op('*', "1234567890123456789012345678.9012345678", 38, 10, "1.5000000000", 38, 10, 38, 6,
           "1851851835185185183518518518.351852");
  check_op('*', "1.0000000001", 38, 10, "1.0000000001", 38, 10, 38, 6, "1.000000");
  check_op('*', "0.00000000000000000001", 38, 20, "0.00000000000000000001", 38, 20, 38, 6, "0.000000");
  check_op('/', "99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999", 38, 0,
           38, 6, "1.000000");
  check_op('/', "0.0000000000000000000000000000000000001", 38, 37, "3", 1, 0, 38, 37,
           "0.0000000000000000000000000000000000000");
  check_op('+', "1234", 38, 0, "0.12345678901234567890123456789012345678", 38, 38, 38, 6, "1234.123457");
  /* overflow and division by zero */
  check_op('*', "99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999", 38, 0,
           38, 0, "OVERFLOW");
  check_op('/', "12345678901234567890123456789012345678", 38, 0, "0.0000000000000000000000000000000000007", 38, 37,
           38, 6, "OVERFLOW");
  check_op('+', "12345678901234567890123456789012345678", 38, 0, "0.12345678901234567890123456789012345678", 38, 38,
           38, 6, "OVERFLOW");
  check_op('/', "1.5", 2, 1, "0", 1, 0, 7, 6, "DIVZERO");
  check_op('%', "1.5", 2, 1, "0.0", 2, 1, 2, 1, "DIVZERO");

  /* HALF_UP rescaling, away from zero on .5 */
  char buf[48];
  __int128 v;
  CHECK_EQ_INT(dec_rescale(D("0.125", 3), 3, 10, 2, &v), DEC_OK);
  dec_format(v, 2, buf);
  CHECK_STR(buf, "0.13");
  CHECK_EQ_INT(dec_rescale(D("-0.125", 3), 3, 10, 2, &v), DEC_OK);
  dec_format(v, 2, buf);
  CHECK_STR(buf, "-0.13");
  CHECK_EQ_INT(dec_rescale(D("0.124999", 6), 6, 10, 2, &v), DEC_OK);
  dec_format(v, 2, buf);
  CHECK_STR(buf, "0.12");
  CHECK_EQ_INT(dec_rescale(D("999.995", 3), 3, 5, 2, &v), DEC_OVERFLOW); /* rounds to 1000.00 */
  CHECK_EQ_INT(dec_parse("12.345", 6, 4, 2, &v), DEC_OK);
  dec_format(v, 2, buf);
  CHECK_STR(buf, "12.35");
  CHECK_EQ_INT(dec_parse("1x", 2, 4, 2, &v), DEC_OVERFLOW);
  /* doubles go through their shortest text, as Spark's */
  CHECK_EQ_INT(dec_from_double(2.675, 10, 2, &v), DEC_OK);
  dec_format(v, 2, buf);
  CHECK_STR(buf, "2.68");
  CHECK_EQ_INT(dec_from_double(1.5e-7, 10, 8, &v), DEC_OK);
  dec_format(v, 8, buf);
  CHECK_STR(buf, "0.00000015");
  CHECK_EQ_INT(dec_from_double(1e-300, 10, 2, &v), DEC_OK);
  CHECK(v == 0);
  CHECK_EQ_INT(dec_from_double(-0.005, 10, 2, &v), DEC_OK);
  dec_format(v, 2, buf);
  CHECK_STR(buf, "-0.01");
  CHECK_EQ_INT(dec_from_double(1e20, 20, 0, &v), DEC_OVERFLOW);
  CHECK_EQ_INT(dec_from_double(1e20, 21, 0, &v), DEC_OK);
  long long x;
  CHECK(dec_to_int64(D("-7.99", 2), 2, &x) && x == -7);
  CHECK(dec_to_double(D("0.1", 1), 1) == 0.1);
  TEST_MAIN_END();
}
