/* Unit test for src/maint/zorder.c: the value mapping preserves order
 * for every value class (negatives, floats around zero, string prefixes,
 * nulls first), ranks spread distinct values evenly, and interleaving puts
 * the columns' bits in Z order. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "maint/zorder.h"
#include "test.h"

static expr_value ival(int64_t v) {
  expr_value e = {.type = VT_INT};
  e.u.i = v;
  return e;
}

static expr_value dval(double v) {
  expr_value e = {.type = VT_FLOAT};
  e.u.d = v;
  return e;
}

static expr_value sval(const char *s) {
  expr_value e = {.type = VT_STRING};
  e.u.s.p = s;
  e.u.s.n = strlen(s);
  return e;
}

static void test_ints(void) {
  int64_t v[] = {INT64_MIN, -1000000, -1, 0, 1, 42, 1000000, INT64_MAX};
  for (size_t i = 0; i + 1 < sizeof v / sizeof v[0]; i++) {
    expr_value a = ival(v[i]), b = ival(v[i + 1]);
    CHECK(zorder_value_key(&a) < zorder_value_key(&b));
  }
  expr_value null = {.type = VT_INT, .is_null = true}, min = ival(INT64_MIN);
  CHECK_EQ_INT(zorder_value_key(&null), 0);
  CHECK(zorder_value_key(&null) <= zorder_value_key(&min));
  expr_value date = {.type = VT_DATE};
  date.u.i = -3;
  expr_value later = date;
  later.u.i = 20000;
  CHECK(zorder_value_key(&date) < zorder_value_key(&later));
}

static void test_doubles(void) {
  double v[] = {-INFINITY, -1e300, -2.5, -1e-300, 0.0, 1e-300, 2.5, 1e300, INFINITY};
  for (size_t i = 0; i + 1 < sizeof v / sizeof v[0]; i++) {
    expr_value a = dval(v[i]), b = dval(v[i + 1]);
    CHECK(zorder_value_key(&a) < zorder_value_key(&b));
  }
  expr_value pz = dval(0.0), nz = dval(-0.0);
  CHECK_EQ_INT(zorder_value_key(&pz), zorder_value_key(&nz));
}

static void test_strings(void) {
  const char *v[] = {"", "A", "Ab", "a", "ab", "abc", "abcdefgh", "b", "\xc3\xa9"};
  for (size_t i = 0; i + 1 < sizeof v / sizeof v[0]; i++) {
    expr_value a = sval(v[i]), b = sval(v[i + 1]);
    CHECK(zorder_value_key(&a) < zorder_value_key(&b));
  }
  /* beyond 8 bytes only the prefix counts: order kept, not strict */
  expr_value a = sval("abcdefgh1"), b = sval("abcdefgh2"), c = sval("abcdefgi");
  CHECK_EQ_INT(zorder_value_key(&a), zorder_value_key(&b));
  CHECK(zorder_value_key(&b) < zorder_value_key(&c));
  expr_value e = sval("abc");
  CHECK_EQ_INT(zorder_value_key(&e), 0x6162630000000000ULL);
}

static void test_rank(void) {
  uint64_t k[] = {500, 7, 7, 1000000, 3};
  CHECK_EQ_INT(zorder_rank(k, 5, 8), 0);
  /* 4 distinct values over 256: 0, 64, 128, 192 */
  CHECK_EQ_INT(k[4], 0);
  CHECK_EQ_INT(k[1], 64);
  CHECK_EQ_INT(k[2], 64);
  CHECK_EQ_INT(k[0], 128);
  CHECK_EQ_INT(k[3], 192);
  uint64_t big[] = {UINT64_MAX, 0};
  CHECK_EQ_INT(zorder_rank(big, 2, 64), 0);
  CHECK_EQ_INT(big[1], 0);
  CHECK(big[0] == 0x8000000000000000ULL);
}

static void test_interleave(void) {
  /* x = 0b11, y = 0b01 with 2 bits: x1 y1 x0 y0 = 1 0 1 1 */
  uint64_t v[] = {3, 1};
  zorder_key k = zorder_interleave(v, 2, 2);
  CHECK_EQ_INT(k.hi, 0);
  CHECK_EQ_INT(k.lo, 0xB);
  /* the Z curve over a 4x4 grid visits the 2x2 quadrants one after another */
  int quadrant_seen[4] = {0}, last = -1, ok = 1;
  zorder_key keys[16];
  int order[16];
  for (int i = 0; i < 16; i++) {
    uint64_t xy[2] = {(uint64_t)(i % 4), (uint64_t)(i / 4)};
    keys[i] = zorder_interleave(xy, 2, 2);
    order[i] = i;
  }
  for (int i = 0; i < 16; i++) /* insertion sort by key */
    for (int j = i; j > 0 && zorder_key_cmp(&keys[order[j]], &keys[order[j - 1]]) < 0; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int i = 0; i < 16; i++) {
    int x = order[i] % 4, y = order[i] / 4, q = (y / 2) * 2 + x / 2;
    if (q != last) {
      if (quadrant_seen[q]) ok = 0;
      quadrant_seen[q] = 1;
      last = q;
    }
  }
  CHECK(ok);
  /* 128 bits: 2 columns of 64 */
  uint64_t w[] = {UINT64_MAX, 0};
  k = zorder_interleave(w, 2, 64);
  CHECK(k.hi == 0xAAAAAAAAAAAAAAAAULL && k.lo == 0xAAAAAAAAAAAAAAAAULL);
  zorder_key a = {1, 0}, b = {0, UINT64_MAX};
  CHECK(zorder_key_cmp(&a, &b) > 0);
  CHECK(zorder_key_cmp(&b, &b) == 0);
}

int main(void) {
  test_ints();
  test_doubles();
  test_strings();
  test_rank();
  test_interleave();
  TEST_MAIN_END();
}
