/* Arrow columns built value by value from JSON or text; see column_builder.h. */
#include "log/column_builder.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

struct col_builder {
  const delta_type *type;
  const char *name;       /* for messages */
  bool nullable;
  int64_t length, null_count;
  delta_buf valid;        /* validity bits */
  delta_buf data;         /* fixed-width values, bits (boolean) or bytes */
  delta_buf offsets;      /* int32 offsets: strings, binary, lists, maps */
  int64_t data_items;     /* booleans: bits used in data */
  col_builder *kids;      /* struct fields; list: element; map: key, value */
  int n_kids;
};

static int width_of(delta_type_kind k) {
  switch (k) {
  case DT_LONG: case DT_TIMESTAMP: case DT_TIMESTAMP_NTZ: case DT_DOUBLE: return 8;
  case DT_INTEGER: case DT_DATE: case DT_FLOAT: return 4;
  case DT_SHORT: return 2;
  case DT_BYTE: return 1;
  case DT_DECIMAL: return 16;
  default: return 0;
  }
}

static int col_init(col_builder *c, const delta_type *t, const char *name, bool nullable) {
  memset(c, 0, sizeof *c);
  c->type = t;
  c->name = name;
  c->nullable = nullable;
  int rc = 0;
  switch (t->kind) {
  case DT_STRING: case DT_BINARY: case DT_ARRAY: case DT_MAP:
    rc = buf_append(&c->offsets, &(int32_t){0}, 4);
    break;
  case DT_VARIANT:
    return err_set(DELTA_EUNSUPPORTED, "column %s: writing variant columns is not supported", name);
  case DT_NULL:
    return err_set(DELTA_EUNSUPPORTED, "column %s: writing void columns is not supported", name);
  default: break;
  }
  if (rc) return rc;
  if (t->kind == DT_STRUCT) {
    c->n_kids = t->n_fields;
    c->kids = mem_calloc((size_t)(t->n_fields ? t->n_fields : 1), sizeof *c->kids);
    if (!c->kids) return DELTA_NOMEM();
    for (int i = 0; i < t->n_fields; i++)
      if ((rc = col_init(&c->kids[i], t->fields[i].type, t->fields[i].name, t->fields[i].nullable))) return rc;
  } else if (t->kind == DT_ARRAY) {
    c->n_kids = 1;
    c->kids = mem_calloc(1, sizeof *c->kids);
    if (!c->kids) return DELTA_NOMEM();
    rc = col_init(&c->kids[0], t->element, "element", t->contains_null);
  } else if (t->kind == DT_MAP) {
    c->n_kids = 2;
    c->kids = mem_calloc(2, sizeof *c->kids);
    if (!c->kids) return DELTA_NOMEM();
    rc = col_init(&c->kids[0], t->key, "key", false);
    if (!rc) rc = col_init(&c->kids[1], t->value, "value", t->value_contains_null);
  }
  return rc;
}

static void col_dispose(col_builder *c) {
  for (int i = 0; i < c->n_kids; i++) col_dispose(&c->kids[i]);
  mem_free(c->kids);
  buf_dispose(&c->valid);
  buf_dispose(&c->data);
  buf_dispose(&c->offsets);
  memset(c, 0, sizeof *c);
}

static int push_bit(delta_buf *b, int64_t i, bool v) {
  if ((i & 7) == 0) {
    int rc = buf_putc(b, 0);
    if (rc) return rc;
  }
  if (v) b->data[i >> 3] |= (uint8_t)(1u << (i & 7));
  return 0;
}

/* The slot's validity; the value itself is appended by the caller. */
static int mark(col_builder *c, bool valid) {
  int rc = push_bit(&c->valid, c->length, valid);
  if (rc) return rc;
  c->length++;
  if (!valid) c->null_count++;
  return 0;
}

static int push_offset(col_builder *c, int64_t end) {
  if (end > INT32_MAX) return err_set(DELTA_ELIMIT, "column %s: more than 2 GiB in one batch", c->name);
  int32_t o = (int32_t)end;
  return buf_append(&c->offsets, &o, 4);
}

static int col_null(col_builder *c) {
  if (!c->nullable) return err_set(DELTA_EINVAL, "column %s: null in a non-nullable column", c->name);
  int rc = mark(c, false);
  if (rc) return rc;
  switch (c->type->kind) {
  case DT_BOOLEAN: rc = push_bit(&c->data, c->data_items++, false); break;
  case DT_STRING: case DT_BINARY:
    rc = push_offset(c, (int64_t)c->data.len);
    break;
  case DT_ARRAY: case DT_MAP: {
    int32_t last;
    memcpy(&last, c->offsets.data + c->offsets.len - 4, 4);
    rc = buf_append(&c->offsets, &last, 4);
    break;
  }
  case DT_STRUCT:
    /* children get a slot each, null where allowed, else a default value
     * (masked by this null), as Arrow requires aligned children */
    for (int i = 0; i < c->n_kids && !rc; i++) {
      col_builder *k = &c->kids[i];
      bool save = k->nullable;
      k->nullable = true;
      rc = col_null(k);
      k->nullable = save;
    }
    break;
  default: {
    int w = width_of(c->type->kind);
    rc = buf_reserve(&c->data, (size_t)w);
    if (!rc) {
      memset(c->data.data + c->data.len, 0, (size_t)w);
      c->data.len += (size_t)w;
    }
  }
  }
  return rc;
}

static int bad(col_builder *c, const char *what, const char *s, size_t n) {
  if (n > 40) n = 40;
  return err_set(DELTA_EINVAL, "column %s: %s: '%.*s'", c->name, what, (int)n, s);
}

static int put_int(col_builder *c, int64_t v) {
  int64_t lo, hi;
  switch (c->type->kind) {
  case DT_BYTE: lo = INT8_MIN; hi = INT8_MAX; break;
  case DT_SHORT: lo = INT16_MIN; hi = INT16_MAX; break;
  case DT_INTEGER: lo = INT32_MIN; hi = INT32_MAX; break;
  default: lo = INT64_MIN; hi = INT64_MAX;
  }
  if (v < lo || v > hi)
    return err_set(DELTA_EINVAL, "column %s: %lld is out of range for %s", c->name, (long long)v,
                           c->type->kind == DT_BYTE ? "byte" : c->type->kind == DT_SHORT ? "short" : "integer");
  int rc = mark(c, true);
  if (rc) return rc;
  switch (c->type->kind) {
  case DT_BYTE: return buf_append(&c->data, &(int8_t){(int8_t)v}, 1);
  case DT_SHORT: return buf_append(&c->data, &(int16_t){(int16_t)v}, 2);
  case DT_INTEGER: case DT_DATE: return buf_append(&c->data, &(int32_t){(int32_t)v}, 4);
  default: return buf_append(&c->data, &v, 8);
  }
}

static int parse_int_text(col_builder *c, const char *s, size_t n, int64_t *out) {
  char tmp[32];
  if (n == 0 || n >= sizeof tmp) return bad(c, "not an integer", s, n);
  memcpy(tmp, s, n);
  tmp[n] = 0;
  char *end;
  errno = 0;
  long long v = strtoll(tmp, &end, 10);
  if (*end || errno) return bad(c, "not an integer", s, n);
  *out = v;
  return 0;
}

static int parse_double_text(col_builder *c, const char *s, size_t n, double *out) {
  char tmp[64];
  if (n == 0 || n >= sizeof tmp) return bad(c, "not a number", s, n);
  memcpy(tmp, s, n);
  tmp[n] = 0;
  if (strcmp(tmp, "NaN") == 0) { *out = NAN; return 0; }
  if (strcmp(tmp, "Infinity") == 0 || strcmp(tmp, "inf") == 0) { *out = INFINITY; return 0; }
  if (strcmp(tmp, "-Infinity") == 0 || strcmp(tmp, "-inf") == 0) { *out = -INFINITY; return 0; }
  char *end;
  *out = strtod(tmp, &end);
  if (*end || !(isdigit((unsigned char)tmp[0]) || tmp[0] == '-' || tmp[0] == '+' || tmp[0] == '.'))
    return bad(c, "not a number", s, n);
  return 0;
}

int cb_parse_decimal(const char *s, size_t n, int precision, int scale, __int128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  __int128 v = 0;
  int digits = 0, frac = -1;
  bool any = false;
  for (; i < n; i++) {
    if (s[i] == '.' && frac < 0) { frac = 0; continue; }
    if (!isdigit((unsigned char)s[i])) break;
    any = true;
    if (frac >= 0) {
      if (frac == scale) {
        if (s[i] != '0') return -1; /* more precision than the column keeps */
        continue;
      }
      frac++;
    }
    v = v * 10 + (s[i] - '0');
    if (v != 0) digits++;
    if (digits > precision) return -1;
  }
  if (!any || i != n) return -1;
  for (int f = frac < 0 ? 0 : frac; f < scale; f++) {
    v *= 10;
    if (v != 0) digits++;
  }
  if (digits > precision) return -1;
  *out = neg ? -v : v;
  return 0;
}

int cb_parse_date(const char *s, size_t n, int32_t *days) {
  int y, m, d;
  char tmp[16];
  if (n != 10) return -1;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  char tail;
  if (sscanf(tmp, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3 || m < 1 || m > 12 || d < 1 || d > 31) return -1;
  *days = (int32_t)time_days_from_civil(y, (unsigned)m, (unsigned)d);
  return 0;
}

int cb_parse_timestamp(const char *s, size_t n, bool ntz, int64_t *us) {
  char tmp[64];
  if (n == 0 || n >= sizeof tmp) return -1;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  if (ntz && (tmp[n - 1] == 'Z' || (n > 19 && (strchr(tmp + 19, '+') || strchr(tmp + 19, '-'))))) return -1;
  return time_parse_us(tmp, us) ? -1 : 0;
}

static int put_bytes(col_builder *c, const void *p, size_t n) {
  int rc = mark(c, true);
  if (!rc) rc = buf_append(&c->data, p, n);
  if (!rc) rc = push_offset(c, (int64_t)c->data.len);
  return rc;
}

static int base64_decode(delta_buf *out, const char *s, size_t n) {
  static signed char map[256];
  static const char *alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (!map['B']) {
    memset(map, -1, sizeof map);
    for (int i = 0; i < 64; i++) map[(unsigned char)alpha[i]] = (signed char)i;
  }
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '=') break;
    int v = map[(unsigned char)s[i]];
    if (v < 0) return -1;
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      int rc = buf_putc(out, (char)(acc >> bits));
      if (rc) return rc;
    }
  }
  return 0;
}

/* A scalar from its text (CSV cell, JSON string). */
static int col_text(col_builder *c, const char *s, size_t n, delta_buf *tmp) {
  int64_t i64 = 0;
  double d = 0;
  switch (c->type->kind) {
  case DT_STRING: return put_bytes(c, s, n);
  case DT_BINARY: {
    buf_reset(tmp);
    if (base64_decode(tmp, s, n)) return bad(c, "not base64", s, n);
    return put_bytes(c, tmp->data, tmp->len);
  }
  case DT_BYTE: case DT_SHORT: case DT_INTEGER: case DT_LONG: {
    int rc = parse_int_text(c, s, n, &i64);
    return rc ? rc : put_int(c, i64);
  }
  case DT_FLOAT: case DT_DOUBLE: {
    int rc = parse_double_text(c, s, n, &d);
    if (rc) return rc;
    if ((rc = mark(c, true))) return rc;
    if (c->type->kind == DT_FLOAT) return buf_append(&c->data, &(float){(float)d}, 4);
    return buf_append(&c->data, &d, 8);
  }
  case DT_BOOLEAN: {
    bool v;
    if ((n == 4 && strncasecmp(s, "true", 4) == 0) || (n == 1 && s[0] == '1')) v = true;
    else if ((n == 5 && strncasecmp(s, "false", 5) == 0) || (n == 1 && s[0] == '0')) v = false;
    else return bad(c, "not a boolean", s, n);
    int rc = mark(c, true);
    return rc ? rc : push_bit(&c->data, c->data_items++, v);
  }
  case DT_DATE: {
    int32_t days;
    if (cb_parse_date(s, n, &days)) return bad(c, "not a date (YYYY-MM-DD)", s, n);
    int rc = mark(c, true);
    return rc ? rc : buf_append(&c->data, &days, 4);
  }
  case DT_TIMESTAMP: case DT_TIMESTAMP_NTZ: {
    int64_t us;
    if (cb_parse_timestamp(s, n, c->type->kind == DT_TIMESTAMP_NTZ, &us))
      return bad(c, "not a timestamp", s, n);
    int rc = mark(c, true);
    return rc ? rc : buf_append(&c->data, &us, 8);
  }
  case DT_DECIMAL: {
    __int128 v;
    if (cb_parse_decimal(s, n, c->type->precision, c->type->scale, &v)) {
      char what[64];
      snprintf(what, sizeof what, "not a decimal(%d,%d)", c->type->precision, c->type->scale);
      return bad(c, what, s, n);
    }
    int rc = mark(c, true);
    return rc ? rc : buf_append(&c->data, &v, 16);
  }
  default:
    return err_set(DELTA_EINVAL, "column %s: a nested value cannot come from text", c->name);
  }
}

static int type_err(col_builder *c, const char *want, delta_json_val v) {
  return err_set(DELTA_EINVAL, "column %s: expected %s, got %s", c->name, want,
                         json_type_name(json_typeof(v)));
}

static int col_json(col_builder *c, delta_json_val v, delta_buf *tmp);

static int struct_json(col_builder *c, delta_json_val v, delta_buf *tmp) {
  int rc = mark(c, true);
  for (int i = 0; i < c->n_kids && !rc; i++)
    rc = col_json(&c->kids[i], json_get(v, c->type->fields[i].name), tmp);
  return rc;
}

static int col_json(col_builder *c, delta_json_val v, delta_buf *tmp) {
  delta_json_type jt = json_typeof(v);
  if (jt == DELTA_JSON_ABSENT || jt == DELTA_JSON_NULL) return col_null(c);
  const char *raw;
  size_t n;
  switch (c->type->kind) {
  case DT_STRUCT:
    if (jt != DELTA_JSON_OBJECT) return type_err(c, "an object", v);
    return struct_json(c, v, tmp);
  case DT_ARRAY: {
    if (jt != DELTA_JSON_ARRAY) return type_err(c, "an array", v);
    int rc = mark(c, true);
    for (delta_json_val e = json_first(v); !rc && json_present(e); e = json_next(e))
      rc = col_json(&c->kids[0], e, tmp);
    return rc ? rc : push_offset(c, c->kids[0].length);
  }
  case DT_MAP: {
    if (jt == DELTA_JSON_ARRAY) {
      /* maps with non-string keys, as deltac prints them: [{"key":k,"value":v}, ...] */
      int rc = mark(c, true);
      for (delta_json_val e = json_first(v); !rc && json_present(e); e = json_next(e)) {
        if (json_typeof(e) != DELTA_JSON_OBJECT) return type_err(c, "a {\"key\":...,\"value\":...} object", e);
        delta_json_val k = json_get(e, "key");
        if (json_typeof(k) == DELTA_JSON_NULL || !json_present(k))
          return err_set(DELTA_EINVAL, "column %s: a map key is null", c->name);
        rc = col_json(&c->kids[0], k, tmp);
        if (!rc) rc = col_json(&c->kids[1], json_get(e, "value"), tmp);
      }
      return rc ? rc : push_offset(c, c->kids[0].length);
    }
    if (jt != DELTA_JSON_OBJECT) return type_err(c, "an object", v);
    int rc = mark(c, true);
    for (delta_json_val e = json_first(v); !rc && json_present(e); e = json_next(e)) {
      rc = json_key(e, tmp);
      if (!rc) rc = col_text(&c->kids[0], (const char *)tmp->data, tmp->len, tmp);
      if (!rc) rc = col_json(&c->kids[1], e, tmp);
    }
    return rc ? rc : push_offset(c, c->kids[0].length);
  }
  case DT_STRING: {
    if (jt != DELTA_JSON_STRING) return type_err(c, "a string", v);
    int rc = json_string(v, tmp);
    return rc ? rc : put_bytes(c, tmp->data, tmp->len);
  }
  case DT_BOOLEAN: {
    if (jt != DELTA_JSON_BOOL) return type_err(c, "true or false", v);
    bool b;
    json_bool(v, &b);
    int rc = mark(c, true);
    return rc ? rc : push_bit(&c->data, c->data_items++, b);
  }
  case DT_BYTE: case DT_SHORT: case DT_INTEGER: case DT_LONG: {
    if (jt != DELTA_JSON_NUMBER) return type_err(c, "an integer", v);
    int64_t i64;
    if (json_int64(v, &i64)) {
      json_raw(v, &raw, &n);
      return bad(c, "not an integer", raw, n);
    }
    return put_int(c, i64);
  }
  case DT_FLOAT: case DT_DOUBLE: case DT_DECIMAL:
    if (jt == DELTA_JSON_NUMBER) {
      json_raw(v, &raw, &n);
      if (c->type->kind == DT_DECIMAL) return col_text(c, raw, n, tmp);
      double d;
      if (json_double(v, &d)) return bad(c, "not a number", raw, n);
      int rc = mark(c, true);
      if (rc) return rc;
      if (c->type->kind == DT_FLOAT) return buf_append(&c->data, &(float){(float)d}, 4);
      return buf_append(&c->data, &d, 8);
    }
    if (jt != DELTA_JSON_STRING) return type_err(c, "a number", v);
    /* "NaN", "Infinity", or a decimal written as a string */
    /* fall through */
  default: {
    if (jt != DELTA_JSON_STRING) return type_err(c, "a string", v);
    delta_buf s = DELTA_BUF_INIT;
    int rc = json_string(v, &s);
    if (!rc) rc = col_text(c, (const char *)s.data, s.len, tmp);
    buf_dispose(&s);
    return rc;
  }
  }
}

/* ---- finishing into Arrow arrays ---- */

static void *take(delta_buf *b) {
  if (!b->data) return mem_calloc(1, 8);
  return buf_detach(b);
}

static int col_finish(col_builder *c, struct ArrowArray *out) {
  int n_buf, n_kids = 0;
  delta_type_kind k = c->type->kind;
  if (k == DT_STRING || k == DT_BINARY) n_buf = 3;
  else if (k == DT_STRUCT) n_buf = 1, n_kids = c->n_kids;
  else if (k == DT_ARRAY || k == DT_MAP) n_buf = 2, n_kids = 1;
  else n_buf = 2;
  int rc = arrow_array_new(out, n_buf, n_kids);
  if (rc) return rc;
  out->length = c->length;
  out->null_count = c->null_count;
  if (c->null_count) {
    arrow_array_set_buffer(out, 0, take(&c->valid));
  } else {
    buf_dispose(&c->valid);
  }
  if (k == DT_STRING || k == DT_BINARY) {
    arrow_array_set_buffer(out, 1, take(&c->offsets));
    arrow_array_set_buffer(out, 2, take(&c->data));
  } else if (k == DT_STRUCT) {
    for (int i = 0; i < c->n_kids && !rc; i++) rc = col_finish(&c->kids[i], out->children[i]);
  } else if (k == DT_ARRAY) {
    arrow_array_set_buffer(out, 1, take(&c->offsets));
    rc = col_finish(&c->kids[0], out->children[0]);
  } else if (k == DT_MAP) {
    arrow_array_set_buffer(out, 1, take(&c->offsets));
    struct ArrowArray *e = out->children[0];
    rc = arrow_array_new(e, 1, 2);
    if (!rc) {
      e->length = c->kids[0].length;
      rc = col_finish(&c->kids[0], e->children[0]);
      if (!rc) rc = col_finish(&c->kids[1], e->children[1]);
    }
  } else {
    arrow_array_set_buffer(out, 1, take(&c->data));
  }
  /* start over: fresh buffers, same shape */
  c->length = c->null_count = c->data_items = 0;
  buf_dispose(&c->valid);
  buf_dispose(&c->data);
  buf_dispose(&c->offsets);
  if (!rc && (k == DT_STRING || k == DT_BINARY || k == DT_ARRAY || k == DT_MAP))
    rc = buf_append(&c->offsets, &(int32_t){0}, 4);
  return rc;
}

int row_builder_init(row_builder *rb, const delta_type *st) {
  memset(rb, 0, sizeof *rb);
  rb->type = st;
  rb->cols = mem_calloc((size_t)(st->n_fields ? st->n_fields : 1), sizeof *rb->cols);
  if (!rb->cols) return DELTA_NOMEM();
  for (int i = 0; i < st->n_fields; i++) {
    int rc = col_init(&rb->cols[i], st->fields[i].type, st->fields[i].name, st->fields[i].nullable);
    if (rc) {
      row_builder_dispose(rb);
      return rc;
    }
  }
  return 0;
}

void row_builder_dispose(row_builder *rb) {
  if (rb->cols)
    for (int i = 0; i < rb->type->n_fields; i++) col_dispose(&rb->cols[i]);
  mem_free(rb->cols);
  buf_dispose(&rb->tmp);
  memset(rb, 0, sizeof *rb);
}

int row_builder_add_json(row_builder *rb, delta_json_val obj) {
  if (json_typeof(obj) != DELTA_JSON_OBJECT)
    return err_set(DELTA_EINVAL, "a row is not a JSON object");
  for (int i = 0; i < rb->type->n_fields; i++) {
    int rc = col_json(&rb->cols[i], json_get(obj, rb->type->fields[i].name), &rb->tmp);
    if (rc) return rc;
  }
  rb->rows++;
  return 0;
}

int row_builder_add_text(row_builder *rb, const char *const *cells, const size_t *lens,
                         const int *cell_of_field) {
  int nf = rb->type->n_fields;
  for (int f = 0; f < nf; f++) {
    col_builder *c = &rb->cols[f];
    int cell = cell_of_field[f];
    int rc;
    if (cell < 0 || !cells[cell] || (lens[cell] == 0 && c->type->kind != DT_STRING)) rc = col_null(c);
    else rc = col_text(c, cells[cell], lens[cell], &rb->tmp);
    if (rc) return rc;
  }
  rb->rows++;
  return 0;
}

int row_builder_finish(row_builder *rb, struct ArrowArray *out) {
  int nf = rb->type->n_fields;
  int rc = arrow_array_new(out, 1, nf);
  if (rc) return rc;
  out->length = rb->rows;
  for (int i = 0; i < nf && !rc; i++) rc = col_finish(&rb->cols[i], out->children[i]);
  rb->rows = 0;
  if (rc) arrow_array_release(out);
  return rc;
}
