/* Exact decimal arithmetic; see dec_math.h. The wide intermediate is a
 * little-endian array of 32-bit limbs holding a magnitude (signs are kept
 * apart), big enough for a 38-digit value times 10^78. */
#include "expr/dec_math.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMBS 16 /* 512 bits, about 10^154 */

typedef struct {
  uint32_t w[LIMBS];
  int n; /* limbs in use; w[n-1] != 0 unless n == 0 */
} big;

static void big_trim(big *b) {
  while (b->n > 0 && b->w[b->n - 1] == 0) b->n--;
}

static void big_from_u128(big *b, unsigned __int128 v) {
  memset(b, 0, sizeof *b);
  for (int i = 0; i < 4; i++, v >>= 32) b->w[i] = (uint32_t)v;
  b->n = 4;
  big_trim(b);
}

static void big_mul_small(big *b, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < b->n; i++) {
    uint64_t t = (uint64_t)b->w[i] * m + carry;
    b->w[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry && b->n < LIMBS) b->w[b->n++] = (uint32_t)carry;
}

static void big_mul_pow10(big *b, int k) {
  for (; k >= 9; k -= 9) big_mul_small(b, 1000000000u);
  static const uint32_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  if (k > 0) big_mul_small(b, p10[k]);
}

static uint32_t big_div_small(big *b, uint32_t d) {
  uint64_t rem = 0;
  for (int i = b->n - 1; i >= 0; i--) {
    uint64_t cur = (rem << 32) | b->w[i];
    b->w[i] = (uint32_t)(cur / d);
    rem = cur % d;
  }
  big_trim(b);
  return (uint32_t)rem;
}

static void big_mul(const big *a, const big *b, big *out) {
  big r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < a->n; i++) {
    uint64_t carry = 0;
    for (int j = 0; j < b->n && i + j < LIMBS; j++) {
      uint64_t t = (uint64_t)a->w[i] * b->w[j] + r.w[i + j] + carry;
      r.w[i + j] = (uint32_t)t;
      carry = t >> 32;
    }
    if (i + b->n < LIMBS) r.w[i + b->n] = (uint32_t)carry;
  }
  r.n = a->n + b->n > LIMBS ? LIMBS : a->n + b->n;
  big_trim(&r);
  *out = r;
}

static int big_cmp(const big *a, const big *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (int i = a->n - 1; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

static void big_add(big *a, const big *b) {
  uint64_t carry = 0;
  int n = a->n > b->n ? a->n : b->n;
  for (int i = 0; i < n; i++) {
    uint64_t t = (uint64_t)(i < a->n ? a->w[i] : 0) + (i < b->n ? b->w[i] : 0) + carry;
    a->w[i] = (uint32_t)t;
    carry = t >> 32;
  }
  a->n = n;
  if (carry && n < LIMBS) a->w[a->n++] = (uint32_t)carry;
}

/* a -= b, a >= b */
static void big_sub(big *a, const big *b) {
  int64_t borrow = 0;
  for (int i = 0; i < a->n; i++) {
    int64_t t = (int64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
    borrow = t < 0;
    a->w[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
  }
  big_trim(a);
}

static void big_shl1(big *a, uint32_t bit) {
  uint32_t carry = bit;
  for (int i = 0; i < a->n; i++) {
    uint32_t next = a->w[i] >> 31;
    a->w[i] = (a->w[i] << 1) | carry;
    carry = next;
  }
  if (carry && a->n < LIMBS) a->w[a->n++] = carry;
}

/* q = a / b, r = a % b (b != 0): one limb by short division, else binary
 * long division over a's bits (quotients here are a few hundred bits). */
static void big_divmod(const big *a, const big *b, big *q, big *r) {
  if (b->n == 1) {
    *q = *a;
    uint32_t rem = big_div_small(q, b->w[0]);
    big_from_u128(r, rem);
    return;
  }
  big quo, rem;
  memset(&quo, 0, sizeof quo);
  memset(&rem, 0, sizeof rem);
  quo.n = a->n;
  for (int i = a->n * 32 - 1; i >= 0; i--) {
    big_shl1(&rem, (a->w[i / 32] >> (i % 32)) & 1);
    if (big_cmp(&rem, b) >= 0) {
      big_sub(&rem, b);
      quo.w[i / 32] |= 1u << (i % 32);
    }
  }
  big_trim(&quo);
  *q = quo;
  *r = rem;
}

static int big_digits(const big *b) {
  big t = *b;
  int d = 0;
  while (t.n > 1 || (t.n == 1 && t.w[0] >= 1000000000u)) {
    big_div_small(&t, 1000000000u);
    d += 9;
  }
  uint32_t x = t.n ? t.w[0] : 0;
  do {
    d++;
    x /= 10;
  } while (x);
  return d;
}

/* b / 10^k rounded HALF_UP: only the first dropped digit decides. */
static void big_round_pow10(big *b, int k) {
  if (k <= 0) return;
  int drop = k - 1;
  for (; drop >= 9; drop -= 9) big_div_small(b, 1000000000u);
  static const uint32_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  if (drop > 0) big_div_small(b, p10[drop]);
  uint32_t digit = big_div_small(b, 10);
  if (digit >= 5) {
    big one;
    big_from_u128(&one, 1);
    big_add(b, &one);
  }
}

static bool big_fits(const big *b, int p, unsigned __int128 *out) {
  if (b->n > 4) return false;
  unsigned __int128 v = 0;
  for (int i = b->n - 1; i >= 0; i--) v = (v << 32) | b->w[i];
  unsigned __int128 lim = 1;
  for (int i = 0; i < p; i++) lim *= 10;
  if (v >= lim) return false;
  *out = v;
  return true;
}

static unsigned __int128 mag(__int128 v) { return v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v; }

/* Round |value| at scale *cur to at most 38 significant digits. */
static void big_round_sig(big *b, int *cur) {
  int d = big_digits(b);
  if (d > DEC_MAX_PRECISION) {
    big_round_pow10(b, d - DEC_MAX_PRECISION);
    *cur -= d - DEC_MAX_PRECISION;
  }
}

/* The signed magnitude at scale cur into a decimal(p, s). */
static int finish(big *b, bool neg, int cur, int p, int s, __int128 *out) {
  if (cur > s) big_round_pow10(b, cur - s);
  else if (cur < s) {
    if (big_digits(b) + (s - cur) > DEC_MAX_PRECISION + 1) return DEC_OVERFLOW;
    big_mul_pow10(b, s - cur);
  }
  unsigned __int128 v;
  if (!big_fits(b, p, &v)) return DEC_OVERFLOW;
  *out = neg ? -(__int128)v : (__int128)v;
  return DEC_OK;
}

static void adjust(int p, int s, int *rp, int *rs) {
  if (p <= DEC_MAX_PRECISION) {
    *rp = p;
    *rs = s;
    return;
  }
  int int_digits = p - s, min_scale = s < 6 ? s : 6, as = DEC_MAX_PRECISION - int_digits;
  *rp = DEC_MAX_PRECISION;
  *rs = as > min_scale ? as : min_scale;
}

void dec_result_type(char op, int p1, int s1, int p2, int s2, int *p, int *s) {
  int i1 = p1 - s1, i2 = p2 - s2, ms = s1 > s2 ? s1 : s2;
  switch (op) {
  case '+': case '-': adjust((i1 > i2 ? i1 : i2) + ms + 1, ms, p, s); return;
  case '*': adjust(p1 + p2 + 1, s1 + s2, p, s); return;
  case '/': {
    int scale = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
    adjust(i1 + s2 + scale, scale, p, s);
    return;
  }
  default: adjust((i1 < i2 ? i1 : i2) + ms, ms, p, s); return;
  }
}

int dec_apply(char op, __int128 a, int s1, __int128 b, int s2, int p, int s, __int128 *out) {
  big A, B, R;
  big_from_u128(&A, mag(a));
  big_from_u128(&B, mag(b));
  bool na = a < 0, nb = b < 0;
  switch (op) {
  case '+': case '-': {
    if (op == '-') nb = !nb;
    int ms = s1 > s2 ? s1 : s2;
    big_mul_pow10(&A, ms - s1);
    big_mul_pow10(&B, ms - s2);
    bool neg;
    if (na == nb) {
      big_add(&A, &B);
      neg = na;
    } else if (big_cmp(&A, &B) >= 0) {
      big_sub(&A, &B);
      neg = na;
    } else {
      big_sub(&B, &A);
      A = B;
      neg = nb;
    }
    return finish(&A, neg && A.n > 0, ms, p, s, out);
  }
  case '*': {
    big_mul(&A, &B, &R);
    int cur = s1 + s2;
    big_round_sig(&R, &cur);
    return finish(&R, (na != nb) && R.n > 0, cur, p, s, out);
  }
  case '/': {
    if (B.n == 0) return DEC_DIVZERO;
    if (A.n == 0) return finish(&A, false, 0, p, s, out);
    /* enough quotient digits to round to 38 significant ones */
    int k = 40 + big_digits(&B) - big_digits(&A);
    if (k < 0) k = 0;
    big_mul_pow10(&A, k);
    big Q, rem;
    big_divmod(&A, &B, &Q, &rem);
    int cur = s1 - s2 + k;
    big_round_sig(&Q, &cur);
    return finish(&Q, (na != nb) && Q.n > 0, cur, p, s, out);
  }
  default: { /* % : truncated, the sign of the dividend */
    if (B.n == 0) return DEC_DIVZERO;
    int ms = s1 > s2 ? s1 : s2;
    big_mul_pow10(&A, ms - s1);
    big_mul_pow10(&B, ms - s2);
    big Q;
    big_divmod(&A, &B, &Q, &R);
    return finish(&R, na && R.n > 0, ms, p, s, out);
  }
  }
}

int dec_rescale(__int128 v, int from, int p, int to, __int128 *out) {
  big A;
  big_from_u128(&A, mag(v));
  return finish(&A, v < 0, from, p, to, out);
}

int dec_digits(__int128 v) {
  unsigned __int128 m = mag(v);
  int d = 1;
  while (m >= 10) m /= 10, d++;
  return d;
}

int dec_format(__int128 v, int scale, char *buf) {
  char digits[48];
  unsigned __int128 m = mag(v);
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(m % 10));
    m /= 10;
  } while (m);
  while (n <= scale) digits[n++] = '0';
  int o = 0;
  if (v < 0) buf[o++] = '-';
  for (int i = n - 1; i >= 0; i--) {
    buf[o++] = digits[i];
    if (i == scale && scale > 0) buf[o++] = '.';
  }
  buf[o] = 0;
  return o;
}

int dec_parse(const char *t, size_t len, int p, int s, __int128 *out) {
  size_t i = 0;
  while (i < len && (t[i] == ' ' || t[i] == '\t')) i++;
  while (len > i && (t[len - 1] == ' ' || t[len - 1] == '\t')) len--;
  bool neg = false;
  if (i < len && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
  big A;
  big_from_u128(&A, 0);
  int frac = 0, digits = 0;
  bool point = false, any = false;
  for (; i < len; i++) {
    if (t[i] == '.' && !point) {
      point = true;
      continue;
    }
    if (t[i] < '0' || t[i] > '9') return DEC_OVERFLOW;
    any = true;
    if (A.n == 0 && t[i] == '0') {
      if (point) frac++;
      continue;
    }
    if (++digits > 120) return DEC_OVERFLOW;
    big_mul_small(&A, 10);
    big one;
    big_from_u128(&one, (unsigned)(t[i] - '0'));
    big_add(&A, &one);
    if (point) frac++;
  }
  if (!any) return DEC_OVERFLOW;
  return finish(&A, neg && A.n > 0, frac, p, s, out);
}

int dec_from_double(double d, int p, int s, __int128 *out) {
  if (!isfinite(d)) return DEC_OVERFLOW;
  char buf[64];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) break;
  }
  /* "1.5e+20" / "1e-07": expand the exponent */
  char *e = strchr(buf, 'e');
  if (!e) return dec_parse(buf, strlen(buf), p, s, out);
  int exp = atoi(e + 1);
  *e = 0;
  char mant[32];
  int m = 0, point_at = -1;
  bool neg = buf[0] == '-';
  for (char *c = buf + neg; *c; c++) {
    if (*c == '.') point_at = m;
    else mant[m++] = *c;
  }
  if (point_at < 0) point_at = m;
  point_at += exp;
  if (point_at > 60) return DEC_OVERFLOW;
  if (point_at < -40) { /* below any scale's last digit and its rounding */
    *out = 0;
    return DEC_OK;
  }
  char txt[160];
  int o = 0;
  if (neg) txt[o++] = '-';
  if (point_at <= 0) {
    txt[o++] = '0';
    txt[o++] = '.';
    for (int i = 0; i < -point_at; i++) txt[o++] = '0';
    for (int i = 0; i < m; i++) txt[o++] = mant[i];
  } else {
    for (int i = 0; i < point_at || i < m; i++) {
      if (i == point_at) txt[o++] = '.';
      txt[o++] = i < m ? mant[i] : '0';
    }
  }
  return dec_parse(txt, (size_t)o, p, s, out);
}

double dec_to_double(__int128 v, int scale) {
  char buf[64];
  dec_format(v, scale, buf); /* strtod rounds the exact text correctly */
  return strtod(buf, NULL);
}

bool dec_to_int64(__int128 v, int scale, long long *out) {
  for (int i = 0; i < scale; i++) v /= 10;
  if (v > INT64_MAX || v < INT64_MIN) return false;
  *out = (long long)v;
  return true;
}
