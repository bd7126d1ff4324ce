/* Arrow values as JSON text, per the NDJSON contract in DESIGN.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "arrow/format.h"
#include "arrow/format_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

static int parse(const struct ArrowSchema *s, arrow_type **out, int depth) {
  if (depth > 64) return err_set(DELTA_EUNSUPPORTED, "Arrow type nested too deeply");
  arrow_type *t = mem_calloc(1, sizeof *t);
  if (!t) return DELTA_NOMEM();
  const char *f = s->format;
  t->name = mem_strdup(s->name ? s->name : "");
  int rc = t->name ? 0 : DELTA_NOMEM();
  int32_t elen = 0;
  const char *ext = arrow_schema_metadata_get(s, "ARROW:extension:name", &elen);
  if (ext && elen == 10 && memcmp(ext, "arrow.uuid", 10) == 0) t->is_uuid = true;
  if (arrow_schema_metadata_get(s, "deltac.raw_json", NULL)) t->raw_json = true;
  switch (f[0]) {
  case 'n': t->kind = AT_NULL; break;
  case 'b': t->kind = AT_BOOL; break;
  case 'c': t->kind = AT_INT; t->width = 1; break;
  case 'C': t->kind = AT_UINT; t->width = 1; break;
  case 's': t->kind = AT_INT; t->width = 2; break;
  case 'S': t->kind = AT_UINT; t->width = 2; break;
  case 'i': t->kind = AT_INT; t->width = 4; break;
  case 'I': t->kind = AT_UINT; t->width = 4; break;
  case 'l': t->kind = AT_INT; t->width = 8; break;
  case 'L': t->kind = AT_UINT; t->width = 8; break;
  case 'e': t->kind = AT_FLOAT; t->width = 2; break;
  case 'f': t->kind = AT_FLOAT; t->width = 4; break;
  case 'g': t->kind = AT_FLOAT; t->width = 8; break;
  case 'u': t->kind = AT_STRING; break;
  case 'U': t->kind = AT_STRING; t->large = true; break;
  case 'z': t->kind = AT_BINARY; break;
  case 'Z': t->kind = AT_BINARY; t->large = true; break;
  case 'w':
    t->kind = AT_FIXED;
    t->width = atoi(f + 2);
    if (t->width <= 0) rc = err_set(DELTA_EINVAL, "bad Arrow format %s", f);
    break;
  case 'd': {
    int p = 0, sc = 0, bits = 128;
    if (sscanf(f, "d:%d,%d,%d", &p, &sc, &bits) < 2 || (bits != 128 && bits != 256 && bits != 64 && bits != 32))
      rc = err_set(DELTA_EINVAL, "bad Arrow format %s", f);
    t->kind = AT_DECIMAL;
    t->precision = p;
    t->scale = sc;
    t->width = bits / 8;
    break;
  }
  case 't':
    switch (f[1]) {
    case 'd': t->kind = AT_DATE; t->width = f[2] == 'D' ? 4 : 8; break;
    case 't':
      t->kind = AT_TIME;
      t->unit = f[2];
      t->width = (f[2] == 's' || f[2] == 'm') ? 4 : 8;
      break;
    case 's':
      t->kind = AT_TIMESTAMP;
      t->unit = f[2];
      t->width = 8;
      t->utc = f[3] == ':' && f[4] != '\0';
      break;
    case 'D': t->kind = AT_INT; t->width = 8; break; /* duration: its count */
    default: rc = err_set(DELTA_EUNSUPPORTED, "Arrow format %s", f);
    }
    break;
  case '+':
    switch (f[1]) {
    case 'l': t->kind = AT_LIST; break;
    case 'L': t->kind = AT_LIST; t->large = true; break;
    case 'w': t->kind = AT_FIXED_LIST; t->width = atoi(f + 3); break;
    case 's': t->kind = AT_STRUCT; break;
    case 'm': t->kind = AT_MAP; break;
    default: rc = err_set(DELTA_EUNSUPPORTED, "Arrow format %s", f);
    }
    break;
  default:
    rc = err_set(DELTA_EUNSUPPORTED, "Arrow format %s", f);
  }
  if (rc) goto fail;
  if (s->n_children > 0) {
    t->children = mem_calloc((size_t)s->n_children, sizeof *t->children);
    if (!t->children) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    for (int64_t i = 0; i < s->n_children; i++) {
      if ((rc = parse(s->children[i], &t->children[i], depth + 1)) != 0) goto fail;
      t->n_children++;
    }
  }
  if ((t->kind == AT_LIST || t->kind == AT_FIXED_LIST || t->kind == AT_MAP) && t->n_children != 1) {
    rc = err_set(DELTA_EINVAL, "Arrow list type without one child");
    goto fail;
  }
  if (t->kind == AT_MAP) {
    arrow_type *e = t->children[0];
    if (e->kind != AT_STRUCT || e->n_children != 2) {
      rc = err_set(DELTA_EINVAL, "Arrow map without key/value entries");
      goto fail;
    }
    t->string_keys = e->children[0]->kind == AT_STRING;
  }
  *out = t;
  return 0;
fail:
  arrow_type_free(t);
  return rc;
}

int arrow_type_parse(const struct ArrowSchema *schema, arrow_type **out) { return parse(schema, out, 0); }

void arrow_type_free(arrow_type *t) {
  if (!t) return;
  for (int i = 0; i < t->n_children; i++) arrow_type_free(t->children[i]);
  mem_free(t->children);
  mem_free(t->name);
  mem_free(t);
}

/* ---- scalar renderers ---- */

int fmt_json_string(delta_buf *out, const uint8_t *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  int rc = buf_reserve(out, n + 2);
  if (rc) return rc;
  out->data[out->len++] = '"';
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if ((rc = buf_append(out, s + start, i - start)) != 0) return rc;
    char esc[7] = {'\\', 0};
    size_t el = 2;
    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    default:
      esc[1] = 'u'; esc[2] = '0'; esc[3] = '0'; esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
      el = 6;
    }
    if ((rc = buf_append(out, esc, el)) != 0) return rc;
    start = i + 1;
  }
  if ((rc = buf_append(out, s + start, n - start)) != 0) return rc;
  return buf_putc(out, '"');
}

static int put_str(delta_buf *out, const char *s) { return buf_append(out, s, strlen(s)); }

int fmt_double(delta_buf *out, double v, bool single) {
  if (isnan(v)) return put_str(out, "\"NaN\"");
  if (isinf(v)) return put_str(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  char b[40];
  int n = 0;
  /* Shortest text that reads back as the same value. */
  if (single) {
    float f = (float)v;
    for (int p = 6; p <= 9; p++) {
      n = snprintf(b, sizeof b, "%.*g", p, (double)f);
      if (strtof(b, NULL) == f) break;
    }
  } else {
    for (int p = 15; p <= 17; p++) {
      n = snprintf(b, sizeof b, "%.*g", p, v);
      if (strtod(b, NULL) == v) break;
    }
  }
  /* Integral values keep a ".0" so they read as floats (e.g. -0.0). */
  if (!strpbrk(b, ".eEn")) {
    b[n++] = '.';
    b[n++] = '0';
    b[n] = '\0';
  }
  return buf_append(out, b, (size_t)n);
}

static float half_to_float(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  float v;
  if (exp == 0) v = ldexpf((float)mant, -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = ldexpf((float)(mant | 1024), exp - 25);
  return sign ? -v : v;
}

/* Little-endian two's complement integer of `w` bytes to decimal digits with
 * `scale` fraction digits. */
int fmt_decimal(delta_buf *out, const uint8_t *p, int w, int scale) {
  /* 256 bits have at most 78 digits: a larger scale is no real decimal
   * (and would overrun the digit buffers below) */
  if (w <= 0 || w > 32 || w % 4 || scale > 80)
    return err_set(DELTA_ECORRUPT, "decimal of %d bytes with scale %d cannot be printed", w, scale);
  uint32_t limbs[8];
  int nl = w / 4;
  memcpy(limbs, p, (size_t)w);
  bool neg = (p[w - 1] & 0x80) != 0;
  if (neg) { /* negate: invert and add one */
    uint64_t carry = 1;
    for (int i = 0; i < nl; i++) {
      uint64_t v = (uint64_t)(uint32_t)~limbs[i] + carry;
      limbs[i] = (uint32_t)v;
      carry = v >> 32;
    }
  }
  char digits[90];
  int nd = 0;
  for (;;) {
    bool zero = true;
    uint64_t rem = 0;
    for (int i = nl - 1; i >= 0; i--) {
      uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = (uint32_t)(cur / 10);
      rem = cur % 10;
      if (limbs[i]) zero = false;
    }
    digits[nd++] = (char)('0' + rem);
    if (zero) break;
  }
  while (nd <= scale) digits[nd++] = '0';
  char text[100];
  int k = 0;
  if (neg) text[k++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    text[k++] = digits[i];
    if (i == scale && scale > 0) text[k++] = '.';
  }
  return buf_append(out, text, (size_t)k);
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  unsigned um, ud;
  time_civil_from_days(z, y, &um, &ud);
  *m = (int)um;
  *d = (int)ud;
}

static int fmt_date_days(int64_t days, char *b) {
  int64_t y;
  int m, d;
  civil_from_days(days, &y, &m, &d);
  int n;
  if (y >= 0 && y <= 9999) n = sprintf(b, "%04d-%02d-%02d", (int)y, m, d);
  else n = sprintf(b, "%+05lld-%02d-%02d", (long long)y, m, d);
  return n;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int fmt_timestamp(delta_buf *out, int64_t v, char unit, bool utc, bool quote) {
  int64_t per_sec = unit == 's' ? 1 : unit == 'm' ? 1000 : unit == 'u' ? 1000000 : 1000000000;
  /* remainders, not v - secs * per_sec: that overflows near INT64_MIN */
  int64_t secs = floor_div(v, per_sec);
  int64_t frac = v % per_sec;
  if (frac < 0) frac += per_sec;
  int64_t days = floor_div(secs, 86400);
  int64_t sod = secs % 86400;
  if (sod < 0) sod += 86400;
  char b[80];
  int n = 0;
  if (quote) b[n++] = '"';
  n += fmt_date_days(days, b + n);
  n += sprintf(b + n, "T%02d:%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
  if (unit == 'n') n += sprintf(b + n, ".%09lld", (long long)frac);
  else n += sprintf(b + n, ".%06lld", (long long)(frac * (1000000 / per_sec)));
  if (utc) b[n++] = 'Z';
  if (quote) b[n++] = '"';
  return buf_append(out, b, (size_t)n);
}

int fmt_date(delta_buf *out, int64_t days, bool quote) {
  char b[40];
  int n = 0;
  if (quote) b[n++] = '"';
  n += fmt_date_days(days, b + n);
  if (quote) b[n++] = '"';
  return buf_append(out, b, (size_t)n);
}

static int fmt_time(delta_buf *out, int64_t v, char unit) {
  int64_t per_sec = unit == 's' ? 1 : unit == 'm' ? 1000 : unit == 'u' ? 1000000 : 1000000000;
  int64_t secs = floor_div(v, per_sec), frac = v - secs * per_sec;
  char b[48];
  int n = sprintf(b, "\"%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
  if (unit == 'n') n += sprintf(b + n, ".%09lld\"", (long long)frac);
  else n += sprintf(b + n, ".%06lld\"", (long long)(frac * (1000000 / per_sec)));
  return buf_append(out, b, (size_t)n);
}

int fmt_base64(delta_buf *out, const uint8_t *p, size_t n) {
  static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  int rc = buf_reserve(out, (n + 2) / 3 * 4 + 2);
  if (rc) return rc;
  char *o = (char *)out->data + out->len;
  *o++ = '"';
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    *o++ = tbl[v >> 18]; *o++ = tbl[(v >> 12) & 63]; *o++ = tbl[(v >> 6) & 63]; *o++ = tbl[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
    *o++ = tbl[v >> 18];
    *o++ = tbl[(v >> 12) & 63];
    *o++ = i + 1 < n ? tbl[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
  *o++ = '"';
  out->len = (size_t)(o - (char *)out->data);
  return 0;
}

static int fmt_uuid(delta_buf *out, const uint8_t *p) {
  char b[40];
  int n = 0;
  b[n++] = '"';
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) b[n++] = '-';
    n += sprintf(b + n, "%02x", p[i]);
  }
  b[n++] = '"';
  return buf_append(out, b, (size_t)n);
}

static int64_t load_int(const uint8_t *p, int w) {
  switch (w) {
  case 1: return (int8_t)p[0];
  case 2: { int16_t v; memcpy(&v, p, 2); return v; }
  case 4: { int32_t v; memcpy(&v, p, 4); return v; }
  default: { int64_t v; memcpy(&v, p, 8); return v; }
  }
}

static uint64_t load_uint(const uint8_t *p, int w) {
  switch (w) {
  case 1: return p[0];
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
  default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

static void list_bounds(const arrow_type *t, const struct ArrowArray *a, int64_t j, int64_t *s, int64_t *e) {
  if (t->kind == AT_FIXED_LIST) {
    *s = j * t->width;
    *e = *s + t->width;
  } else if (t->large) {
    const int64_t *o = a->buffers[1];
    *s = o[j];
    *e = o[j + 1];
  } else {
    const int32_t *o = a->buffers[1];
    *s = o[j];
    *e = o[j + 1];
  }
}

int arrow_value_json(delta_buf *out, const arrow_type *t, const struct ArrowArray *a, int64_t i) {
  if (t->kind == AT_NULL || !arrow_is_valid(a, i)) return put_str(out, "null");
  int64_t j = a->offset + i;
  const uint8_t *data = a->n_buffers > 1 ? a->buffers[1] : NULL;
  char b[48];
  int rc;
  switch (t->kind) {
  case AT_BOOL:
    return put_str(out, arrow_bit_get(data, j) ? "true" : "false");
  case AT_INT:
    return buf_append(out, b, (size_t)sprintf(b, "%lld", (long long)load_int(data + j * t->width, t->width)));
  case AT_UINT:
    return buf_append(out, b,
                            (size_t)sprintf(b, "%llu", (unsigned long long)load_uint(data + j * t->width, t->width)));
  case AT_FLOAT:
    if (t->width == 2) {
      uint16_t h;
      memcpy(&h, data + j * 2, 2);
      return fmt_double(out, half_to_float(h), true);
    }
    if (t->width == 4) {
      float f;
      memcpy(&f, data + j * 4, 4);
      return fmt_double(out, f, true);
    } else {
      double d;
      memcpy(&d, data + j * 8, 8);
      return fmt_double(out, d, false);
    }
  case AT_DECIMAL:
    return fmt_decimal(out, data + j * t->width, t->width, t->scale);
  case AT_STRING:
  case AT_BINARY: {
    const uint8_t *bytes = a->buffers[2];
    int64_t s, e;
    if (t->large) {
      const int64_t *o = a->buffers[1];
      s = o[j]; e = o[j + 1];
    } else {
      const int32_t *o = a->buffers[1];
      s = o[j]; e = o[j + 1];
    }
    if (t->raw_json) return buf_append(out, bytes + s, (size_t)(e - s));
    return t->kind == AT_STRING ? fmt_json_string(out, bytes + s, (size_t)(e - s))
                                : fmt_base64(out, bytes + s, (size_t)(e - s));
  }
  case AT_FIXED:
    if (t->is_uuid && t->width == 16) return fmt_uuid(out, data + j * 16);
    return fmt_base64(out, data + j * t->width, (size_t)t->width);
  case AT_DATE:
    if (t->width == 4) return fmt_date(out, load_int(data + j * 4, 4), true);
    return fmt_date(out, floor_div(load_int(data + j * 8, 8), 86400000), true);
  case AT_TIME:
    return fmt_time(out, load_int(data + j * t->width, t->width), t->unit);
  case AT_TIMESTAMP:
    return fmt_timestamp(out, load_int(data + j * 8, 8), t->unit, t->utc, true);
  case AT_STRUCT:
    if ((rc = buf_putc(out, '{')) != 0) return rc;
    for (int k = 0; k < t->n_children; k++) {
      if (k && (rc = buf_putc(out, ',')) != 0) return rc;
      const arrow_type *c = t->children[k];
      if ((rc = fmt_json_string(out, (const uint8_t *)c->name, strlen(c->name))) != 0) return rc;
      if ((rc = buf_putc(out, ':')) != 0) return rc;
      if ((rc = arrow_value_json(out, c, a->children[k], j)) != 0) return rc;
    }
    return buf_putc(out, '}');
  case AT_LIST:
  case AT_FIXED_LIST: {
    int64_t s, e;
    list_bounds(t, a, j, &s, &e);
    if ((rc = buf_putc(out, '[')) != 0) return rc;
    for (int64_t k = s; k < e; k++) {
      if (k > s && (rc = buf_putc(out, ',')) != 0) return rc;
      if ((rc = arrow_value_json(out, t->children[0], a->children[0], k)) != 0) return rc;
    }
    return buf_putc(out, ']');
  }
  case AT_MAP: {
    int64_t s, e;
    list_bounds(t, a, j, &s, &e);
    const arrow_type *et = t->children[0];
    const struct ArrowArray *ea = a->children[0];
    const struct ArrowArray *ka = ea->children[0], *va = ea->children[1];
    if ((rc = buf_putc(out, t->string_keys ? '{' : '[')) != 0) return rc;
    for (int64_t k = s; k < e; k++) {
      if (k > s && (rc = buf_putc(out, ',')) != 0) return rc;
      int64_t kk = ea->offset + k;
      if (t->string_keys) {
        if ((rc = arrow_value_json(out, et->children[0], ka, kk)) != 0) return rc;
        if ((rc = buf_putc(out, ':')) != 0) return rc;
        if ((rc = arrow_value_json(out, et->children[1], va, kk)) != 0) return rc;
      } else {
        if ((rc = put_str(out, "{\"key\":")) != 0) return rc;
        if ((rc = arrow_value_json(out, et->children[0], ka, kk)) != 0) return rc;
        if ((rc = put_str(out, ",\"value\":")) != 0) return rc;
        if ((rc = arrow_value_json(out, et->children[1], va, kk)) != 0) return rc;
        if ((rc = buf_putc(out, '}')) != 0) return rc;
      }
    }
    return buf_putc(out, t->string_keys ? '}' : ']');
  }
  default:
    return put_str(out, "null");
  }
}
