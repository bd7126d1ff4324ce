#include "json/json_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_internal.h"
#include "util/error_internal.h"

void json_writer_init(delta_json_writer *w, delta_buf *out, unsigned flags) {
  memset(w, 0, sizeof *w);
  w->out = out;
  w->flags = flags;
}

static int fail(delta_json_writer *w, int rc) {
  w->err = rc;
  return rc;
}

static int misuse(delta_json_writer *w, const char *why) {
  return fail(w, err_set(DELTA_EINVAL, "JSON writer: %s", why));
}

int json_writer_finish(delta_json_writer *w) {
  if (w->err) return w->err;
  if (w->depth || !w->done) return misuse(w, "document is incomplete");
  return 0;
}

/* Separator and state checks before any value. */
static int begin_value(delta_json_writer *w) {
  if (w->err) return w->err;
  if (w->depth == 0) {
    if (w->done) return misuse(w, "a second top-level value");
    return 0;
  }
  if (w->stack[w->depth - 1] == '{') {
    if (!w->after_key) return misuse(w, "object value without a key");
    w->after_key = false; /* the comma went before the key */
    return 0;
  }
  if (w->need_comma) {
    int rc = buf_putc(w->out, ',');
    if (rc) return fail(w, rc);
  }
  return 0;
}

static int end_value(delta_json_writer *w, int rc) {
  if (rc) return fail(w, rc);
  if (w->depth == 0) w->done = true;
  else w->need_comma = true;
  return 0;
}

static int open_container(delta_json_writer *w, char c) {
  int rc = begin_value(w);
  if (rc) return rc;
  if (w->depth == DELTA_JSON_WRITER_MAX_DEPTH)
    return fail(w, err_set(DELTA_ELIMIT, "JSON writer: nesting deeper than %d levels",
                                   DELTA_JSON_WRITER_MAX_DEPTH));
  if ((rc = buf_putc(w->out, c)) != 0) return fail(w, rc);
  w->stack[w->depth++] = c;
  w->need_comma = false;
  return 0;
}

static int close_container(delta_json_writer *w, char open, char close) {
  if (w->err) return w->err;
  if (w->depth == 0 || w->stack[w->depth - 1] != open)
    return misuse(w, close == '}' ? "object end without a matching begin"
                                  : "array end without a matching begin");
  if (w->after_key) return misuse(w, "key without a value");
  w->depth--;
  return end_value(w, buf_putc(w->out, close));
}

int json_write_object_begin(delta_json_writer *w) { return open_container(w, '{'); }
int json_write_object_end(delta_json_writer *w) { return close_container(w, '{', '}'); }
int json_write_array_begin(delta_json_writer *w) { return open_container(w, '['); }
int json_write_array_end(delta_json_writer *w) { return close_container(w, '[', ']'); }

/* 1 for bytes that need an escape: '"', '\\' and C0 controls. */
static const uint8_t needs_esc[128] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

int json_append_string(delta_buf *out, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  int rc = buf_reserve(out, n + 2);
  if (rc) return rc;
  out->data[out->len++] = '"';
  size_t run = 0; /* start of the pending unescaped run */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80 || !needs_esc[c]) continue;
    if ((rc = buf_append(out, s + run, i - run)) != 0) return rc;
    char e[6] = {'\\', 0, 0, 0, 0, 0};
    size_t el = 2;
    switch (c) {
    case '"': e[1] = '"'; break;
    case '\\': e[1] = '\\'; break;
    case '\n': e[1] = 'n'; break;
    case '\r': e[1] = 'r'; break;
    case '\t': e[1] = 't'; break;
    case '\b': e[1] = 'b'; break;
    case '\f': e[1] = 'f'; break;
    default:
      e[1] = 'u', e[2] = '0', e[3] = '0', e[4] = hex[c >> 4], e[5] = hex[c & 15];
      el = 6;
    }
    if ((rc = buf_append(out, e, el)) != 0) return rc;
    run = i + 1;
  }
  if ((rc = buf_append(out, s + run, n - run)) != 0) return rc;
  return buf_putc(out, '"');
}

int json_write_key_n(delta_json_writer *w, const char *key, size_t n) {
  if (w->err) return w->err;
  if (w->depth == 0 || w->stack[w->depth - 1] != '{') return misuse(w, "key outside an object");
  if (w->after_key) return misuse(w, "two keys in a row");
  int rc;
  if (w->need_comma && (rc = buf_putc(w->out, ',')) != 0) return fail(w, rc);
  if ((rc = json_append_string(w->out, key, n)) != 0) return fail(w, rc);
  if ((rc = buf_putc(w->out, ':')) != 0) return fail(w, rc);
  w->after_key = true;
  return 0;
}

int json_write_key(delta_json_writer *w, const char *key) {
  return json_write_key_n(w, key, strlen(key));
}

int json_write_string_n(delta_json_writer *w, const char *s, size_t n) {
  int rc = begin_value(w);
  return rc ? rc : end_value(w, json_append_string(w->out, s, n));
}

int json_write_string(delta_json_writer *w, const char *s) {
  return json_write_string_n(w, s, strlen(s));
}

int json_write_raw(delta_json_writer *w, const char *json, size_t n) {
  int rc = begin_value(w);
  return rc ? rc : end_value(w, buf_append(w->out, json, n));
}

int json_write_uint64(delta_json_writer *w, uint64_t v) {
  char b[24];
  size_t i = sizeof b;
  do b[--i] = (char)('0' + v % 10); while (v /= 10);
  return json_write_raw(w, b + i, sizeof b - i);
}

int json_write_int64(delta_json_writer *w, int64_t v) {
  char b[24];
  size_t i = sizeof b;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v; /* INT64_MIN safe */
  do b[--i] = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) b[--i] = '-';
  return json_write_raw(w, b + i, sizeof b - i);
}

int json_write_bool(delta_json_writer *w, bool v) {
  return v ? json_write_raw(w, "true", 4) : json_write_raw(w, "false", 5);
}

int json_write_null(delta_json_writer *w) { return json_write_raw(w, "null", 4); }

int json_write_string_array(delta_json_writer *w, const char *const *v, int n) {
  json_write_array_begin(w);
  for (int i = 0; i < n; i++) v[i] ? json_write_string(w, v[i]) : json_write_null(w);
  return json_write_array_end(w);
}

/* %.*e with p significant digits under the C locale; true if it reads back
 * as v. */
static bool render_e(char *b, size_t cap, int p, double v, locale_t loc) {
  snprintf(b, cap, "%.*e", p - 1, v);
  return strtod_l(b, NULL, loc) == v;
}

int json_write_double(delta_json_writer *w, double v) {
  if (w->err) return w->err;
  if (!isfinite(v)) {
    if (w->flags & DELTA_JSON_WRITE_NONFINITE_NULL) return json_write_null(w);
    return misuse(w, isnan(v) ? "NaN is not a JSON number" : "Infinity is not a JSON number");
  }
  locale_t loc = json_c_locale();
  if (!loc) return fail(w, DELTA_NOMEM());
  locale_t old = uselocale(loc); /* snprintf follows the thread's LC_NUMERIC */
  /* Fewest significant digits (1..17) that round-trip; more digits never
   * stop round-tripping, so binary search. */
  char b[48];
  int lo = 1, hi = 17;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (render_e(b, sizeof b, mid, v, loc)) hi = mid;
    else lo = mid + 1;
  }
  render_e(b, sizeof b, lo, v, loc);
  /* The decimal exponent after rounding decides plain vs. exponent form. */
  int x = atoi(strchr(b, 'e') + 1);
  if (x >= -5 && x < 17) {
    int frac = lo - 1 - x;
    snprintf(b, sizeof b, "%.*f", frac > 0 ? frac : 0, v);
    if (!strchr(b, '.')) strcat(b, ".0"); /* keep it a float for type-sniffing readers */
  }
  uselocale(old);
  return json_write_raw(w, b, strlen(b));
}
