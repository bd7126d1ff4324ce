/* Scalar values: parsing from text, reading from Arrow arrays, comparing. */
#include "expr/value.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "util/time_parse.h"

value_type value_type_of_arrow(const char *f, int *precision, int *scale) {
  if (precision) *precision = 0;
  if (scale) *scale = 0;
  switch (f[0]) {
  case 'n': return VT_NULL;
  case 'b': return VT_BOOL;
  case 'c': case 's': case 'i': case 'l': case 'C': case 'S': case 'I': case 'L': return VT_INT;
  case 'f': case 'g': return VT_FLOAT;
  case 'u': case 'U': return VT_STRING;
  case 'z': case 'Z': return VT_BINARY;
  case 'd': {
    int p = 0, s = 0;
    if (f[1] != ':' || sscanf(f + 2, "%d,%d", &p, &s) != 2) return VT_OTHER;
    if (strchr(strchr(f + 2, ',') + 1, ',') && !strstr(f, ",128")) return VT_OTHER; /* decimal256 */
    if (precision) *precision = p;
    if (scale) *scale = s;
    return VT_DECIMAL;
  }
  case 't':
    if (f[1] == 'd') return VT_DATE;
    if (f[1] == 's') return f[3] == ':' && f[4] ? VT_TIMESTAMP : VT_TIMESTAMP_NTZ;
    return VT_OTHER;
  case '+':
    return f[1] == 's' ? VT_STRUCT : VT_OTHER;
  default: return VT_OTHER;
  }
}

const char *value_type_name(value_type t) {
  static const char *const names[] = {"null", "boolean", "integer", "floating-point", "decimal", "string",
                                      "binary", "date", "timestamp", "timestamp_ntz", "struct", "nested", "interval"};
  return names[t];
}

/* Decimal text (sign, digits, point, exponent) as an unscaled 128-bit
 * integer at `scale`; scale < 0 keeps the text's own scale. Fails on
 * overflow or when digits would be lost. */
static int parse_decimal(const char *p, const char *end, int scale, __int128 *out, int *out_scale) {
  bool neg = false;
  if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
  unsigned __int128 v = 0;
  int digits = 0, frac = 0;
  bool point = false, any = false;
  for (; p < end && ((*p >= '0' && *p <= '9') || (*p == '.' && !point)); p++) {
    if (*p == '.') {
      point = true;
      continue;
    }
    any = true;
    if (v == 0 && *p == '0') {
      if (point) frac++;
      continue;
    }
    if (++digits > 38) return -1;
    v = v * 10 + (unsigned)(*p - '0');
    if (point) frac++;
  }
  if (!any) return -1;
  long exp = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    char *e;
    char buf[16];
    size_t n = (size_t)(end - p - 1);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, p + 1, n);
    buf[n] = '\0';
    exp = strtol(buf, &e, 10);
    if (*e || exp > 76 || exp < -76) return -1;
    p = end;
  }
  if (p != end) return -1;
  long own = (long)frac - exp; /* the text's scale */
  if (scale < 0) scale = own < 0 ? 0 : (int)own;
  for (long k = own; k < scale; k++) {
    if (v > ((unsigned __int128)1 << 126) / 5) return -1;
    v *= 10;
  }
  for (long k = own; k > scale; k--) {
    if (v % 10) return -1;
    v /= 10;
  }
  if (v >> 127) return -1;
  *out = neg ? -(__int128)v : (__int128)v;
  *out_scale = scale;
  return 0;
}

int value_parse(value_type t, int scale, const char *text, size_t len, expr_value *out) {
  memset(out, 0, sizeof *out);
  out->type = t;
  char buf[80];
  const char *end = text + len;
  switch (t) {
  case VT_STRING: case VT_BINARY:
    out->u.s.p = text;
    out->u.s.n = len;
    return 0;
  case VT_BOOL:
    if (len == 4 && strncasecmp(text, "true", 4) == 0) out->u.b = true;
    else if (!(len == 5 && strncasecmp(text, "false", 5) == 0)) return -1;
    return 0;
  case VT_DECIMAL:
    return parse_decimal(text, end, scale, &out->u.dec, &out->scale);
  default:
    break;
  }
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, text, len);
  buf[len] = '\0';
  char *e = NULL;
  errno = 0;
  switch (t) {
  case VT_INT:
    out->u.i = strtoll(buf, &e, 10);
    return *e || errno ? -1 : 0;
  case VT_FLOAT:
    out->u.d = strtod(buf, &e);
    return *e ? -1 : 0;
  case VT_DATE: case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: {
    int64_t us;
    if (time_parse_us(buf, &us)) return -1;
    if (t == VT_DATE) {
      if (us % 86400000000LL) return -1; /* a date literal with a time of day */
      out->u.i = us / 86400000000LL;
    } else {
      out->u.i = us;
    }
    return 0;
  }
  default:
    return -1;
  }
}

static bool numeric(value_type t) { return t == VT_INT || t == VT_FLOAT || t == VT_DECIMAL; }
static bool temporal(value_type t) { return t == VT_DATE || t == VT_TIMESTAMP || t == VT_TIMESTAMP_NTZ; }

bool value_comparable(value_type a, value_type b) {
  if (a == VT_NULL || b == VT_NULL) return true;
  if (numeric(a) && numeric(b)) return true;
  if (temporal(a) && temporal(b)) return true;
  if ((a == VT_STRING || a == VT_BINARY) && (b == VT_STRING || b == VT_BINARY)) return true;
  return a == b && a == VT_BOOL;
}

static double as_double(const expr_value *v) {
  if (v->type == VT_FLOAT) return v->u.d;
  if (v->type == VT_INT) return (double)v->u.i;
  double d = (double)v->u.dec;
  for (int k = 0; k < v->scale; k++) d /= 10;
  return d;
}

static int cmp_double(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
  return (a > b) - (a < b);
}

/* Compare decimals (or integers as scale-0 decimals) exactly where the
 * rescaled values fit in 128 bits, else through long double. */
static int cmp_decimal(const expr_value *a, const expr_value *b) {
  __int128 x = a->type == VT_INT ? a->u.i : a->u.dec, y = b->type == VT_INT ? b->u.i : b->u.dec;
  int sx = a->type == VT_INT ? 0 : a->scale, sy = b->type == VT_INT ? 0 : b->scale;
  const __int128 lim = ((__int128)1 << 120);
  while (sx < sy && x < lim && x > -lim) x *= 10, sx++;
  while (sy < sx && y < lim && y > -lim) y *= 10, sy++;
  if (sx == sy) return (x > y) - (x < y);
  long double lx = (long double)x, ly = (long double)y;
  for (; sx > 0; sx--) lx /= 10;
  for (; sy > 0; sy--) ly /= 10;
  return (lx > ly) - (lx < ly);
}

static int64_t as_micros(const expr_value *v) { return v->type == VT_DATE ? v->u.i * 86400000000LL : v->u.i; }

int value_cmp(const expr_value *a, const expr_value *b) {
  if (numeric(a->type)) {
    if (a->type == VT_FLOAT || b->type == VT_FLOAT) return cmp_double(as_double(a), as_double(b));
    if (a->type == VT_INT && b->type == VT_INT) return (a->u.i > b->u.i) - (a->u.i < b->u.i);
    return cmp_decimal(a, b);
  }
  if (temporal(a->type)) {
    if (a->type == VT_DATE && b->type == VT_DATE) return (a->u.i > b->u.i) - (a->u.i < b->u.i);
    int64_t x = as_micros(a), y = as_micros(b);
    return (x > y) - (x < y);
  }
  if (a->type == VT_BOOL) return (int)a->u.b - (int)b->u.b;
  size_t n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
  int c = n ? memcmp(a->u.s.p, b->u.s.p, n) : 0; /* byte order is UTF-8 code point order */
  if (c) return c < 0 ? -1 : 1;
  return (a->u.s.n > b->u.s.n) - (a->u.s.n < b->u.s.n);
}

static int64_t time_unit_to_us(const char *f, int64_t v) {
  switch (f[2]) {
  case 's': return v * 1000000;
  case 'm': return v * 1000;
  case 'n': return v / 1000 - (v % 1000 < 0);
  default: return v;
  }
}

void value_from_array(const struct ArrowArray *a, const char *f, value_type t, int scale, int64_t i,
                      expr_value *out) {
  memset(out, 0, sizeof *out);
  out->type = t;
  out->scale = scale;
  if (!arrow_is_valid(a, i)) {
    out->is_null = true;
    return;
  }
  int64_t j = a->offset + i;
  const void *d = a->buffers[1];
  switch (f[0]) {
  case 'b': out->u.b = arrow_bit_get(d, j); return;
  case 'c': out->u.i = ((const int8_t *)d)[j]; return;
  case 's': out->u.i = ((const int16_t *)d)[j]; return;
  case 'i': out->u.i = ((const int32_t *)d)[j]; return;
  case 'l': out->u.i = ((const int64_t *)d)[j]; return;
  case 'C': out->u.i = ((const uint8_t *)d)[j]; return;
  case 'S': out->u.i = ((const uint16_t *)d)[j]; return;
  case 'I': out->u.i = ((const uint32_t *)d)[j]; return;
  case 'L': out->u.i = (int64_t)((const uint64_t *)d)[j]; return;
  case 'f': out->u.d = ((const float *)d)[j]; return;
  case 'g': out->u.d = ((const double *)d)[j]; return;
  case 'd': memcpy(&out->u.dec, (const uint8_t *)d + 16 * j, 16); return;
  case 'u': case 'z': {
    const int32_t *off = d;
    out->u.s.p = (const char *)a->buffers[2] + off[j];
    out->u.s.n = (size_t)(off[j + 1] - off[j]);
    return;
  }
  case 'U': case 'Z': {
    const int64_t *off = d;
    out->u.s.p = (const char *)a->buffers[2] + off[j];
    out->u.s.n = (size_t)(off[j + 1] - off[j]);
    return;
  }
  case 't':
    if (f[1] == 'd') {
      out->u.i = f[2] == 'D' ? ((const int32_t *)d)[j] : ((const int64_t *)d)[j] / 86400000;
    } else {
      out->u.i = time_unit_to_us(f, ((const int64_t *)d)[j]);
    }
    return;
  default:
    out->is_null = true;
  }
}
