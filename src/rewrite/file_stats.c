/* Per-file statistics JSON; see file_stats.h. */
#include "rewrite/file_stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arrow/format_internal.h"
#include "json/json_writer.h"
#include "util/error_internal.h"

/* Bytes of the first `chars` UTF-8 characters of s (all of it if shorter). */
static size_t utf8_prefix(const uint8_t *s, size_t n, int chars) {
  size_t i = 0;
  for (int c = 0; i < n && c < chars; c++) {
    i++;
    while (i < n && (s[i] & 0xC0) == 0x80) i++;
  }
  return i;
}

static bool has_bounds(const delta_parquet_column_result *c) {
  if (!c->has_min_max || c->repeated) return false;
  switch (c->min.kind) {
  case DELTA_PARQUET_VALUE_BOOL: return false;
  case DELTA_PARQUET_VALUE_DOUBLE: return isfinite(c->min.v.f64) && isfinite(c->max.v.f64);
  case DELTA_PARQUET_VALUE_BYTES: return c->format[0] == 'u' || c->format[0] == 'U';
  default: return true;
  }
}

static int value(delta_json_writer *w, const delta_parquet_column_result *c, const delta_parquet_value *v,
                 bool is_max, delta_buf *tmp) {
  const char *f = c->format;
  buf_reset(tmp);
  switch (v->kind) {
  case DELTA_PARQUET_VALUE_INT64:
    if (strncmp(f, "ts", 2) == 0) {
      char unit = f[2];
      int64_t ms = unit == 'm' ? v->v.i64 : unit == 'u' ? v->v.i64 / 1000 : unit == 'n' ? v->v.i64 / 1000000 : v->v.i64 * 1000;
      if (unit == 'u' && v->v.i64 % 1000 < 0) ms--;
      if (unit == 'n' && v->v.i64 % 1000000 < 0) ms--;
      int rc = fmt_timestamp(tmp, ms, 'm', f[4] != 0, false);
      if (rc) return rc;
      /* fmt_timestamp prints 6 fraction digits; Delta writes milliseconds */
      size_t dot = 0;
      for (size_t i = 0; i < tmp->len; i++)
        if (tmp->data[i] == '.') dot = i;
      char out[48];
      int n = snprintf(out, sizeof out, "%.*s%s", (int)(dot + 4), (const char *)tmp->data, f[4] ? "Z" : "");
      return json_write_string_n(w, out, (size_t)n);
    }
    if (strcmp(f, "tdD") == 0) {
      int rc = fmt_date(tmp, v->v.i64, false);
      return rc ? rc : json_write_string_n(w, (const char *)tmp->data, tmp->len);
    }
    return json_write_int64(w, v->v.i64);
  case DELTA_PARQUET_VALUE_UINT64: return json_write_uint64(w, v->v.u64);
  case DELTA_PARQUET_VALUE_DOUBLE: return json_write_double(w, v->v.f64);
  case DELTA_PARQUET_VALUE_DECIMAL: {
    int scale = 0, prec = 0;
    sscanf(f, "d:%d,%d", &prec, &scale);
    uint8_t le[16];
    memcpy(le, &v->v.dec.lo, 8);
    memcpy(le + 8, &v->v.dec.hi, 8);
    int rc = fmt_decimal(tmp, le, 16, scale);
    return rc ? rc : json_write_raw(w, (const char *)tmp->data, tmp->len);
  }
  case DELTA_PARQUET_VALUE_BYTES: {
    size_t n = utf8_prefix(v->v.bytes.data, v->v.bytes.len, DELTA_STATS_STRING_PREFIX);
    int rc;
    if ((rc = buf_append(tmp, v->v.bytes.data, n)) != 0)
      return rc;
    if (is_max && n < v->v.bytes.len && (rc = buf_append(tmp, "\xF4\x8F\xBF\xBF", 4)) != 0)
      return rc;
    return json_write_string_n(w, (const char *)tmp->data, tmp->len);
  }
  default: return json_write_null(w);
  }
}

/* One of minValues / maxValues / nullCount: leaves in file order, struct
 * parents opened and closed as the paths change. */
static int section(delta_json_writer *w, const delta_parquet_write_result *r, int which, delta_buf *tmp) {
  int depth = 0; /* open nested objects below the section */
  const delta_parquet_column_result *prev = NULL;
  int rc;
  if ((rc = json_write_object_begin(w)) != 0)
    return rc;
  for (int i = 0; i < r->n_columns; i++) {
    const delta_parquet_column_result *c = &r->columns[i];
    if (c->repeated) continue;
    if (which != 2 && !has_bounds(c)) continue;
    /* common prefix of parents with the previous leaf written */
    int common = 0;
    if (prev)
      while (common < depth && common < c->path_len - 1 && strcmp(prev->path_parts[common], c->path_parts[common]) == 0)
        common++;
    for (; depth > common; depth--) json_write_object_end(w);
    for (; depth < c->path_len - 1; depth++) {
      json_write_key(w, c->path_parts[depth]);
      json_write_object_begin(w);
    }
    json_write_key(w, c->path_parts[c->path_len - 1]);
    if (which == 0) rc = value(w, c, &c->min, false, tmp);
    else if (which == 1) rc = value(w, c, &c->max, true, tmp);
    else rc = json_write_int64(w, c->null_count);
    if (rc != 0)
      goto done;
    prev = c;
  }
done:
  for (; depth > 0; depth--) json_write_object_end(w); /* closed after a failure too */
  if (rc != 0)
    return rc;
  return json_write_object_end(w);
}

int file_stats_json(const delta_parquet_write_result *r, delta_buf *out) {
  delta_json_writer w;
  delta_buf tmp = DELTA_BUF_INIT;
  json_writer_init(&w, out, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "numRecords");
  json_write_int64(&w, r->num_rows);
  json_write_key(&w, "minValues");
  section(&w, r, 0, &tmp);
  json_write_key(&w, "maxValues");
  section(&w, r, 1, &tmp);
  json_write_key(&w, "nullCount");
  section(&w, r, 2, &tmp);
  json_write_object_end(&w);
  buf_dispose(&tmp);
  return json_writer_finish(&w);
}
