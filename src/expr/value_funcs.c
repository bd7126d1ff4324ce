/* Named functions and temporal casts of value expressions; see value_funcs.h. */
#include "expr/value_funcs.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/date_math.h"
#include "expr/expr_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"


typedef enum {
  F_YEAR, F_MONTH, F_DAY, F_HOUR, F_MINUTE, F_SECOND, F_QUARTER, F_TO_DATE, F_DATE_FORMAT, F_SUBSTRING,
  F_CONCAT, F_UPPER, F_LOWER, F_LENGTH, F_TRIM, F_ABS
} fid;

static const struct {
  const char *name;
  fid id;
  int min_args, max_args; /* max -1: any number */
} funcs[] = {
    {"year", F_YEAR, 1, 1},         {"month", F_MONTH, 1, 1},         {"day", F_DAY, 1, 1},
    {"dayofmonth", F_DAY, 1, 1},    {"hour", F_HOUR, 1, 1},           {"minute", F_MINUTE, 1, 1},
    {"second", F_SECOND, 1, 1},     {"quarter", F_QUARTER, 1, 1},     {"to_date", F_TO_DATE, 1, 1},
    {"date_format", F_DATE_FORMAT, 2, 2}, {"substring", F_SUBSTRING, 2, 3}, {"substr", F_SUBSTRING, 2, 3},
    {"concat", F_CONCAT, 1, -1},    {"upper", F_UPPER, 1, 1},         {"ucase", F_UPPER, 1, 1},
    {"lower", F_LOWER, 1, 1},       {"lcase", F_LOWER, 1, 1},         {"length", F_LENGTH, 1, 1},
    {"char_length", F_LENGTH, 1, 1}, {"trim", F_TRIM, 1, 1},          {"abs", F_ABS, 1, 1},
};

int vfunc_find(const char *name, int n_args, int *id) {
  for (size_t i = 0; i < sizeof funcs / sizeof *funcs; i++)
    if (strcasecmp(funcs[i].name, name) == 0) {
      if (n_args < funcs[i].min_args || (funcs[i].max_args >= 0 && n_args > funcs[i].max_args))
        return err_set(DELTA_EINVAL, "expression: %s() does not take %d argument%s", name, n_args,
                               n_args == 1 ? "" : "s");
      *id = (int)funcs[i].id;
      return 0;
    }
  return err_set(DELTA_EINVAL, "expression: unknown function %s()", name);
}


int vfunc_bind(int id, const value_type *a, int n, value_type *out) {
  const char *name = "?";
  for (size_t i = 0; i < sizeof funcs / sizeof *funcs; i++)
    if ((int)funcs[i].id == id) {
      name = funcs[i].name;
      break;
    }
  bool temporal_ok = a[0] == VT_DATE || a[0] == VT_TIMESTAMP || a[0] == VT_STRING || a[0] == VT_NULL;
  switch ((fid)id) {
  case F_YEAR: case F_MONTH: case F_DAY: case F_QUARTER: case F_HOUR: case F_MINUTE: case F_SECOND:
    if (!temporal_ok) break;
    *out = VT_INT;
    return 0;
  case F_TO_DATE:
    if (!temporal_ok) break;
    *out = VT_DATE;
    return 0;
  case F_DATE_FORMAT:
    if (!temporal_ok || (a[1] != VT_STRING && a[1] != VT_NULL)) break;
    *out = VT_STRING;
    return 0;
  case F_SUBSTRING:
    if (a[0] == VT_BOOL) break;
    for (int i = 1; i < n; i++)
      if (a[i] != VT_INT && a[i] != VT_NULL) return err_set(DELTA_EINVAL, "expression: %s() takes integer positions", name);
    *out = VT_STRING;
    return 0;
  case F_CONCAT: case F_UPPER: case F_LOWER: case F_TRIM:
    *out = VT_STRING;
    return 0;
  case F_LENGTH:
    *out = VT_INT;
    return 0;
  case F_ABS:
    if (a[0] != VT_INT && a[0] != VT_FLOAT && a[0] != VT_NULL) break;
    *out = a[0];
    return 0;
  }
  return err_set(DELTA_EINVAL, "expression: %s() cannot take a %s", name, expr_vtype_name(a[0]));
}

/* ------------------------------------------------------------- calendar */

/* util/time_parse.h's, in the int types of this file's callers */
int64_t vfunc_days_from_civil(int64_t y, int m, int d) { return time_days_from_civil(y, (unsigned)m, (unsigned)d); }

void vfunc_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  unsigned um, ud;
  time_civil_from_days(z, y, &um, &ud);
  *m = (int)um;
  *d = (int)ud;
}

static int digits(const char *s, size_t n, size_t *at, int min, int max, int64_t *out) {
  int64_t v = 0;
  int k = 0;
  while (*at < n && k < max && isdigit((unsigned char)s[*at])) v = v * 10 + (s[(*at)++] - '0'), k++;
  *out = v;
  return k >= min ? 0 : -1;
}

/* YYYY-M-D[( |T)h:m[:s[.f]]][Z]: *us (UTC); -1 when it is not one. */
static int parse_temporal(const char *s, size_t n, bool want_time, int64_t *days, int64_t *us) {
  while (n && isspace((unsigned char)s[n - 1])) n--;
  size_t at = 0;
  while (at < n && isspace((unsigned char)s[at])) at++;
  int64_t y, mo, d, h = 0, mi = 0, se = 0, frac = 0;
  bool neg = at < n && s[at] == '-';
  if (neg) at++;
  if (digits(s, n, &at, 4, 6, &y) || at >= n || s[at++] != '-' || digits(s, n, &at, 1, 2, &mo) || at >= n ||
      s[at++] != '-' || digits(s, n, &at, 1, 2, &d))
    return -1;
  if (neg) y = -y;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return -1;
  if (at < n && (s[at] == ' ' || s[at] == 'T')) {
    at++;
    if (digits(s, n, &at, 1, 2, &h) || at >= n || s[at++] != ':' || digits(s, n, &at, 1, 2, &mi)) return -1;
    if (at < n && s[at] == ':') {
      at++;
      if (digits(s, n, &at, 1, 2, &se)) return -1;
      if (at < n && s[at] == '.') {
        at++;
        int k = 0;
        while (at < n && isdigit((unsigned char)s[at])) {
          if (k < 6) frac = frac * 10 + (s[at] - '0'), k++;
          at++;
        }
        while (k < 6) frac *= 10, k++;
      }
    }
    if (at < n && s[at] == 'Z') at++;
    if (h > 23 || mi > 59 || se > 59) return -1;
  } else if (!want_time && at < n && s[at] == 'T') {
    return -1;
  }
  if (at != n) return -1;
  int64_t y2;
  int m2, d2;
  *days = vfunc_days_from_civil(y, (int)mo, (int)d);
  vfunc_civil_from_days(*days, &y2, &m2, &d2);
  if (m2 != mo || d2 != d) return -1; /* Feb 30 and the like */
  *us = *days * DM_US_PER_DAY + ((h * 60 + mi) * 60 + se) * 1000000 + frac;
  return 0;
}

/* Breaks a value (date or timestamp) into its calendar fields. */
typedef struct {
  int64_t y;
  int mo, d, h, mi, s, us;
} civil;

static void to_civil(const sval *v, civil *c) {
  int64_t days = v->t == VT_DATE ? v->i : dm_floor_div(v->i, DM_US_PER_DAY);
  int64_t rest = v->t == VT_DATE ? 0 : v->i - days * DM_US_PER_DAY;
  vfunc_civil_from_days(days, &c->y, &c->mo, &c->d);
  c->us = (int)(rest % 1000000);
  rest /= 1000000;
  c->s = (int)(rest % 60);
  c->mi = (int)(rest / 60 % 60);
  c->h = (int)(rest / 3600);
}

static int put_text(delta_buf *scratch, sval *out, const char *p, size_t n) {
  out->t = VT_STRING;
  out->s_off = scratch->len;
  out->s_len = n;
  return buf_append(scratch, p, n);
}

int vfunc_cast_temporal(sval *v, value_type to, delta_buf *scratch) {
  if (v->t == VT_NULL || v->t == to) return 0;
  if (v->t == VT_STRING && (to == VT_DATE || to == VT_TIMESTAMP)) {
    int64_t days, us;
    if (parse_temporal((const char *)scratch->data + v->s_off, v->s_len, to == VT_TIMESTAMP, &days, &us) != 0) {
      v->t = VT_NULL; /* Spark's non-ANSI cast: text that is not a date is null */
      return 0;
    }
    v->i = to == VT_DATE ? days : us;
    v->t = to;
    return 0;
  }
  if (v->t == VT_TIMESTAMP && to == VT_DATE) {
    v->i = dm_floor_div(v->i, DM_US_PER_DAY);
    v->t = VT_DATE;
    return 0;
  }
  if (v->t == VT_DATE && to == VT_TIMESTAMP) {
    if (__builtin_mul_overflow(v->i, DM_US_PER_DAY, &v->i)) return err_set(DELTA_EINVAL, "expression: date out of range");
    v->t = VT_TIMESTAMP;
    return 0;
  }
  if ((v->t == VT_DATE || v->t == VT_TIMESTAMP) && to == VT_STRING) {
    civil c;
    to_civil(v, &c);
    char b[64];
    int n = snprintf(b, sizeof b, "%04lld-%02d-%02d", (long long)c.y, c.mo, c.d);
    if (v->t == VT_TIMESTAMP) {
      n += snprintf(b + n, sizeof b - (size_t)n, " %02d:%02d:%02d", c.h, c.mi, c.s);
      if (c.us) {
        n += snprintf(b + n, sizeof b - (size_t)n, ".%06d", c.us);
        while (b[n - 1] == '0') n--; /* Spark drops trailing zeros of the fraction */
      }
    }
    return put_text(scratch, v, b, (size_t)n);
  }
  return err_set(DELTA_EINVAL, "expression: cannot cast a %s to %s", expr_vtype_name(v->t), expr_vtype_name(to));
}

int vfunc_double_text(double d, char *buf) {
  if (isnan(d)) return sprintf(buf, "NaN");
  if (isinf(d)) return sprintf(buf, d > 0 ? "Infinity" : "-Infinity");
  if (d == 0) return sprintf(buf, signbit(d) ? "-0.0" : "0.0");
  /* the shortest digits that read back: d.ddde[+-]x */
  char e[40];
  for (int p = 0; p <= 16; p++) {
    snprintf(e, sizeof e, "%.*e", p, d);
    if (strtod(e, NULL) == d) break;
  }
  bool neg = e[0] == '-';
  const char *m = e + neg;
  char digits[24];
  int nd = 0;
  for (const char *q = m; *q && *q != 'e'; q++)
    if (isdigit((unsigned char)*q)) digits[nd++] = *q;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  int x = atoi(strchr(e, 'e') + 1);
  int k = 0;
  if (neg) buf[k++] = '-';
  double a = fabs(d);
  if (a >= 1e-3 && a < 1e7) {
    /* plain: integer part, '.', at least one fraction digit */
    if (x < 0) {
      buf[k++] = '0';
      buf[k++] = '.';
      for (int i = -1; i > x; i--) buf[k++] = '0';
      for (int i = 0; i < nd; i++) buf[k++] = digits[i];
    } else {
      for (int i = 0; i <= x; i++) buf[k++] = i < nd ? digits[i] : '0';
      buf[k++] = '.';
      if (nd > x + 1)
        for (int i = x + 1; i < nd; i++) buf[k++] = digits[i];
      else
        buf[k++] = '0';
    }
    buf[k] = 0;
    return k;
  }
  /* computerized scientific: d.dddE[-]x */
  buf[k++] = digits[0];
  buf[k++] = '.';
  if (nd > 1)
    for (int i = 1; i < nd; i++) buf[k++] = digits[i];
  else
    buf[k++] = '0';
  return k + sprintf(buf + k, "E%d", x);
}

/* ------------------------------------------------------------ functions */

static const char *const month_names[] = {"January", "February", "March",     "April",   "May",      "June",
                                          "July",    "August",   "September", "October", "November", "December"};

/* Spark's datetime pattern letters: y M d H h m s S a, 'quoted' text;
 * other letters are refused. */
static int date_format(const sval *v, const char *pat, size_t n, delta_buf *scratch, sval *out) {
  civil c;
  to_civil(v, &c);
  delta_buf b = DELTA_BUF_INIT;
  int rc = 0;
  for (size_t i = 0; i < n && !rc;) {
    char ch = pat[i];
    if (ch == '\'') {
      size_t j = i + 1;
      if (j < n && pat[j] == '\'') {
        rc = buf_putc(&b, '\'');
        i += 2;
        continue;
      }
      while (j < n && pat[j] != '\'') rc = rc ? rc : buf_putc(&b, pat[j]), j++;
      i = j + 1;
      continue;
    }
    if (!isalpha((unsigned char)ch)) {
      rc = buf_putc(&b, ch);
      i++;
      continue;
    }
    size_t k = i;
    while (k < n && pat[k] == ch) k++;
    int w = (int)(k - i);
    i = k;
    switch (ch) {
    case 'y':
      if (w == 2) rc = buf_printf(&b, "%02d", (int)(((c.y % 100) + 100) % 100));
      else rc = buf_printf(&b, "%0*lld", w < 4 ? 4 : w, (long long)c.y);
      break;
    case 'M': case 'L':
      if (w >= 4) rc = buf_puts(&b, month_names[c.mo - 1]);
      else if (w == 3) rc = buf_printf(&b, "%.3s", month_names[c.mo - 1]);
      else rc = buf_printf(&b, "%0*d", w, c.mo);
      break;
    case 'd': rc = buf_printf(&b, "%0*d", w, c.d); break;
    case 'H': rc = buf_printf(&b, "%0*d", w, c.h); break;
    case 'h': rc = buf_printf(&b, "%0*d", w, c.h % 12 == 0 ? 12 : c.h % 12); break;
    case 'm': rc = buf_printf(&b, "%0*d", w, c.mi); break;
    case 's': rc = buf_printf(&b, "%0*d", w, c.s); break;
    case 'a': rc = buf_puts(&b, c.h < 12 ? "AM" : "PM"); break;
    case 'S': {
      char f[8];
      snprintf(f, sizeof f, "%06d", c.us);
      for (int q = 0; q < w && !rc; q++) rc = buf_putc(&b, q < 6 ? f[q] : '0');
      break;
    }
    default:
      rc = err_set(DELTA_EUNSUPPORTED, "expression: date_format pattern letter '%c' is not supported", ch);
    }
  }
  if (!rc) rc = put_text(scratch, out, b.data ? (const char *)b.data : "", b.len);
  buf_dispose(&b);
  return rc;
}

/* Byte offset of character `k` (0-based) of a UTF-8 string; n when past it. */
static size_t utf8_at(const char *s, size_t n, int64_t k) {
  size_t i = 0;
  while (i < n && k > 0) {
    i++;
    while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    k--;
  }
  return i;
}

static int64_t utf8_len(const char *s, size_t n) {
  int64_t k = 0;
  for (size_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
  return k;
}

/* Arguments that are strings by now (the caller made them text). */
static const char *text_of(const sval *a, const delta_buf *scratch) { return (const char *)scratch->data + a->s_off; }

static int as_text(sval *a, delta_buf *scratch) {
  if (a->t == VT_STRING || a->t == VT_NULL) return 0;
  if (a->t == VT_DATE || a->t == VT_TIMESTAMP) return vfunc_cast_temporal(a, VT_STRING, scratch);
  char b[64];
  int n;
  if (a->t == VT_INT) n = snprintf(b, sizeof b, "%lld", (long long)a->i);
  else if (a->t == VT_FLOAT) n = vfunc_double_text(a->d, b);
  else n = snprintf(b, sizeof b, "%s", a->b ? "true" : "false");
  return put_text(scratch, a, b, (size_t)n);
}

int vfunc_eval(int id, const sval *in, int n, delta_buf *scratch, sval *out) {
  memset(out, 0, sizeof *out);
  sval a[n > 0 ? n : 1];
  for (int i = 0; i < n; i++) {
    a[i] = in[i];
    if (a[i].t == VT_NULL) return 0; /* null in, null out (every function here) */
  }
  int rc = 0;
  switch ((fid)id) {
  case F_YEAR: case F_MONTH: case F_DAY: case F_QUARTER: case F_HOUR: case F_MINUTE: case F_SECOND: {
    bool timey = id == F_HOUR || id == F_MINUTE || id == F_SECOND;
    if (a[0].t == VT_STRING && (rc = vfunc_cast_temporal(&a[0], timey ? VT_TIMESTAMP : VT_DATE, scratch))) return rc;
    if (a[0].t == VT_NULL) return 0;
    civil c;
    to_civil(&a[0], &c);
    out->t = VT_INT;
    out->i = id == F_YEAR ? c.y : id == F_MONTH ? c.mo : id == F_DAY ? c.d : id == F_QUARTER ? (c.mo + 2) / 3
           : id == F_HOUR ? c.h : id == F_MINUTE ? c.mi : c.s;
    return 0;
  }
  case F_TO_DATE:
    *out = a[0];
    return vfunc_cast_temporal(out, VT_DATE, scratch);
  case F_DATE_FORMAT:
    if (a[0].t == VT_STRING && (rc = vfunc_cast_temporal(&a[0], VT_TIMESTAMP, scratch))) return rc;
    if (a[0].t == VT_NULL) return 0;
    return date_format(&a[0], text_of(&a[1], scratch), a[1].s_len, scratch, out);
  case F_SUBSTRING: {
    if ((rc = as_text(&a[0], scratch))) return rc;
    const char *s = text_of(&a[0], scratch);
    int64_t len = utf8_len(s, a[0].s_len), pos = a[1].i, cnt = n == 3 ? a[2].i : INT64_MAX;
    /* Spark: 1-based; 0 acts as 1; negative counts from the end */
    int64_t start = pos > 0 ? pos - 1 : pos < 0 ? len + pos : 0;
    int64_t end = cnt <= 0 ? start : (cnt > INT64_MAX - start ? INT64_MAX : start + cnt);
    if (start < 0) start = 0;
    if (end > len) end = len;
    if (end < start) end = start;
    size_t b0 = utf8_at(s, a[0].s_len, start), b1 = utf8_at(s, a[0].s_len, end);
    out->t = VT_STRING;
    out->s_off = a[0].s_off + b0;
    out->s_len = b1 - b0;
    return 0;
  }
  case F_CONCAT: {
    for (int i = 0; i < n; i++)
      if ((rc = as_text(&a[i], scratch))) return rc;
    size_t total = 0;
    for (int i = 0; i < n; i++) total += a[i].s_len;
    size_t at = scratch->len;
    if ((rc = buf_reserve(scratch, total))) return rc;
    for (int i = 0; i < n; i++) {
      memcpy(scratch->data + scratch->len, scratch->data + a[i].s_off, a[i].s_len);
      scratch->len += a[i].s_len;
    }
    out->t = VT_STRING;
    out->s_off = at;
    out->s_len = total;
    return 0;
  }
  case F_UPPER: case F_LOWER: case F_TRIM: {
    if ((rc = as_text(&a[0], scratch))) return rc;
    size_t b0 = a[0].s_off, n0 = a[0].s_len;
    if (id == F_TRIM) {
      while (n0 && scratch->data[b0] == ' ') b0++, n0--;
      while (n0 && scratch->data[b0 + n0 - 1] == ' ') n0--;
      out->t = VT_STRING;
      out->s_off = b0;
      out->s_len = n0;
      return 0;
    }
    size_t at = scratch->len;
    if ((rc = buf_reserve(scratch, n0))) return rc;
    for (size_t i = 0; i < n0; i++) {
      unsigned char ch = scratch->data[b0 + i];
      scratch->data[at + i] = (unsigned char)(id == F_UPPER ? toupper(ch) : tolower(ch));
    }
    scratch->len += n0;
    out->t = VT_STRING;
    out->s_off = at;
    out->s_len = n0;
    return 0;
  }
  case F_LENGTH:
    if ((rc = as_text(&a[0], scratch))) return rc;
    out->t = VT_INT;
    out->i = utf8_len(text_of(&a[0], scratch), a[0].s_len);
    return 0;
  case F_ABS:
    *out = a[0];
    if (out->t == VT_FLOAT) out->d = out->d < 0 ? -out->d : out->d;
    else if (out->i == INT64_MIN) return err_set(DELTA_EINVAL, "expression: integer overflow in abs()");
    else if (out->i < 0) out->i = -out->i;
    return 0;
  }
  return err_set(DELTA_EINVAL, "expression: unknown function id %d", id);
}
