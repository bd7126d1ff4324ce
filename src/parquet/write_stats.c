/*
 * Column statistics of the writer. Bounds are kept as physical values and
 * compared by the column's sort order (parquet.thrift ColumnOrder /
 * TypeDefinedOrder): signed or unsigned integers, floats without NaN,
 * unsigned bytes for strings and binary, signed big-endian for decimals in
 * FIXED_LEN_BYTE_ARRAY. Written bounds of byte arrays may be truncated:
 * the min to a prefix, the max to a prefix whose last byte is incremented
 * (dropped when no byte can be), each flagged inexact.
 */
#include <math.h>
#include <string.h>

#include "parquet/metadata.h"
#include "parquet/write_internal.h"
#include "util/bytes.h"

void pqw_stats_reset(pqw_stats *s) {
  s->has = false;
  s->min.len = s->max.len = 0;
  s->null_count = s->num_values = 0;
}

void pqw_stats_dispose(pqw_stats *s) {
  buf_dispose(&s->min);
  buf_dispose(&s->max);
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return al < bl ? -1 : al > bl;
}

/* Order of a and b (both non-NaN) by `o`. */
static int compare(pqw_order o, const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  switch (o) {
  case PQW_ORD_BOOL: return (a[0] != 0) - (b[0] != 0);
  case PQW_ORD_I32: {
    int32_t x = (int32_t)bytes_load_le32(a), y = (int32_t)bytes_load_le32(b);
    return (x > y) - (x < y);
  }
  case PQW_ORD_U32: {
    uint32_t x = bytes_load_le32(a), y = bytes_load_le32(b);
    return (x > y) - (x < y);
  }
  case PQW_ORD_I64: {
    int64_t x = (int64_t)bytes_load_le64(a), y = (int64_t)bytes_load_le64(b);
    return (x > y) - (x < y);
  }
  case PQW_ORD_U64: {
    uint64_t x = bytes_load_le64(a), y = bytes_load_le64(b);
    return (x > y) - (x < y);
  }
  case PQW_ORD_F32: {
    float x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    if (x == y) return (signbit(y) != 0) - (signbit(x) != 0); /* -0 before +0 */
    return (x > y) - (x < y);
  }
  case PQW_ORD_F64: {
    double x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x == y) return (signbit(y) != 0) - (signbit(x) != 0);
    return (x > y) - (x < y);
  }
  case PQW_ORD_DEC_BE: {
    if (al && bl && (a[0] ^ b[0]) & 0x80) return (a[0] & 0x80) ? -1 : 1;
    return cmp_bytes(a, al, b, bl);
  }
  case PQW_ORD_BYTES:
  default: return cmp_bytes(a, al, b, bl);
  }
}

static bool is_nan(pqw_order o, const uint8_t *v) {
  if (o == PQW_ORD_F32) {
    float x;
    memcpy(&x, v, 4);
    return isnan(x);
  }
  if (o == PQW_ORD_F64) {
    double x;
    memcpy(&x, v, 8);
    return isnan(x);
  }
  return false;
}

static int set(delta_buf *b, const uint8_t *v, size_t len) {
  b->len = 0;
  return buf_append(b, v, len);
}

int pqw_stats_update(pqw_stats *s, pqw_order o, const uint8_t *v, size_t len) {
  if (o == PQW_ORD_NONE || is_nan(o, v)) return 0;
  int rc = 0;
  if (!s->has) {
    s->has = true;
    if ((rc = set(&s->min, v, len)) != 0) return rc;
    return set(&s->max, v, len);
  }
  if (compare(o, v, len, s->min.data, s->min.len) < 0) rc = set(&s->min, v, len);
  else if (compare(o, v, len, s->max.data, s->max.len) > 0) rc = set(&s->max, v, len);
  return rc;
}

#define RANGE_LOOP(T, LOAD)                                                 \
  do {                                                                      \
    T mn = 0, mx = 0;                                                       \
    size_t i = 0;                                                           \
    for (; i < n; i++) {                                                    \
      T x = (T)LOAD(v + i * width);                                         \
      if (x == x) { mn = mx = x; break; }                                   \
    }                                                                       \
    if (i == n) return 0;                                                   \
    size_t at_min = i, at_max = i;                                          \
    for (; i < n; i++) {                                                    \
      T x = (T)LOAD(v + i * width);                                         \
      if (x < mn) mn = x, at_min = i;                                       \
      else if (x > mx) mx = x, at_max = i;                                  \
    }                                                                       \
    int rc = pqw_stats_update(s, o, v + at_min * width, width);             \
    if (rc != 0) return rc;                                                 \
    return pqw_stats_update(s, o, v + at_max * width, width);               \
  } while (0)

static float load_f32(const uint8_t *p) {
  float f;
  memcpy(&f, p, 4);
  return f;
}
static double load_f64(const uint8_t *p) {
  double f;
  memcpy(&f, p, 8);
  return f;
}

static int update_each(pqw_stats *s, pqw_order o, const uint8_t *v, size_t n, size_t width) {
  int rc;
  for (size_t i = 0; i < n; i++)
    if ((rc = pqw_stats_update(s, o, v + i * width, width)) != 0) return rc;
  return 0;
}

int pqw_stats_update_range(pqw_stats *s, pqw_order o, const uint8_t *v, size_t n, size_t width) {
  switch (o) {
  case PQW_ORD_NONE: return 0;
  case PQW_ORD_I32: RANGE_LOOP(int32_t, bytes_load_le32);
  case PQW_ORD_U32: RANGE_LOOP(uint32_t, bytes_load_le32);
  case PQW_ORD_I64: RANGE_LOOP(int64_t, bytes_load_le64);
  case PQW_ORD_U64: RANGE_LOOP(uint64_t, bytes_load_le64);
  case PQW_ORD_F32: {
    /* zeros of both signs must reach the exact comparison: go value by value
     * when any zero is present, else the plain loop is exact. */
    for (size_t i = 0; i < n; i++)
      if (load_f32(v + i * 4) == 0) return update_each(s, o, v, n, width);
    RANGE_LOOP(float, load_f32);
  }
  case PQW_ORD_F64: {
    for (size_t i = 0; i < n; i++)
      if (load_f64(v + i * 8) == 0) return update_each(s, o, v, n, width);
    RANGE_LOOP(double, load_f64);
  }
  default:
    return update_each(s, o, v, n, width);
  }
}

int pqw_stats_merge(pqw_stats *into, const pqw_stats *from, pqw_order o) {
  into->null_count += from->null_count;
  into->num_values += from->num_values;
  if (!from->has) return 0;
  int rc;
  if ((rc = pqw_stats_update(into, o, from->min.data, from->min.len)) != 0) return rc;
  return pqw_stats_update(into, o, from->max.data, from->max.len);
}

/* Length of a UTF-8 prefix of at most `max` bytes that ends on a character
 * boundary. */
static size_t utf8_prefix(const uint8_t *p, size_t len, size_t max) {
  if (len <= max) return len;
  size_t n = max;
  while (n > 0 && (p[n] & 0xC0) == 0x80) n--;
  return n;
}

void pqw_stats_write(const pqw_stats *s, pqw_order o, int32_t max_bytes, pq_tw *t, int16_t id) {
  pq_tw_struct_begin(t, id);
  pq_tw_i64(t, 3, s->null_count);
  if (s->has && o != PQW_ORD_NONE) {
    const uint8_t *mn = s->min.data, *mx = s->max.data;
    size_t mn_len = s->min.len, mx_len = s->max.len;
    uint8_t zmin[8], zmax[8];
    /* -0/+0: the min is written as -0 and the max as +0 so both bound. */
    if ((o == PQW_ORD_F32 || o == PQW_ORD_F64) && mn_len <= 8) {
      memcpy(zmin, mn, mn_len);
      memcpy(zmax, mx, mx_len);
      if (o == PQW_ORD_F32) {
        float a = load_f32(zmin), b = load_f32(zmax);
        if (a == 0) a = -0.0f;
        if (b == 0) b = 0.0f;
        memcpy(zmin, &a, 4);
        memcpy(zmax, &b, 4);
      } else {
        double a = load_f64(zmin), b = load_f64(zmax);
        if (a == 0) a = -0.0;
        if (b == 0) b = 0.0;
        memcpy(zmin, &a, 8);
        memcpy(zmax, &b, 8);
      }
      mn = zmin, mx = zmax;
    }
    bool max_exact = true, min_exact = true, write_max = true;
    uint8_t tmax[4100];
    if (o == PQW_ORD_BYTES && max_bytes >= 0) {
      size_t lim = (size_t)max_bytes < 4096 ? (size_t)max_bytes : 4096;
      if (mn_len > lim) {
        mn_len = utf8_prefix(mn, mn_len, lim);
        min_exact = false;
      }
      if (mx_len > lim) {
        /* Increment the last byte that can be incremented within a prefix;
         * for UTF-8 text keep whole characters and stay below 0xF4. */
        size_t n = utf8_prefix(mx, mx_len, lim);
        memcpy(tmax, mx, n);
        write_max = false;
        while (n > 0) {
          if (tmax[n - 1] < 0xF4 && (tmax[n - 1] & 0xC0) != 0x80) {
            tmax[n - 1]++; /* an ASCII byte (or a stray byte of binary data) */
            if (tmax[n - 1] == 0x80) tmax[n - 1] = 0xC2, tmax[n++] = 0x80; /* U+007F -> U+0080 */
            write_max = true;
            break;
          }
          /* drop the whole last character */
          n--;
          while (n > 0 && (tmax[n] & 0xC0) == 0x80) n--;
        }
        mx = tmax, mx_len = n;
        max_exact = false;
      }
    }
    if (write_max) pq_tw_binary(t, 5, mx, mx_len);
    pq_tw_binary(t, 6, mn, mn_len);
    if (write_max) pq_tw_bool(t, 7, max_exact);
    pq_tw_bool(t, 8, min_exact);
  }
  pq_tw_struct_end(t);
}

void pqw_stats_value(const pqw_leaf *l, const delta_buf *b, delta_parquet_value *out) {
  memset(out, 0, sizeof *out);
  const uint8_t *p = b->data;
  switch (l->order) {
  case PQW_ORD_BOOL:
    out->kind = DELTA_PARQUET_VALUE_BOOL;
    out->v.b = p[0] != 0;
    return;
  case PQW_ORD_I32:
  case PQW_ORD_I64: {
    int64_t x = l->order == PQW_ORD_I32 ? (int32_t)bytes_load_le32(p) : (int64_t)bytes_load_le64(p);
    if (l->logical == PQ_LT_DECIMAL) {
      out->kind = DELTA_PARQUET_VALUE_DECIMAL;
      out->v.dec.lo = (uint64_t)x;
      out->v.dec.hi = x < 0 ? -1 : 0;
    } else {
      out->kind = DELTA_PARQUET_VALUE_INT64;
      out->v.i64 = x;
    }
    return;
  }
  case PQW_ORD_U32:
    out->kind = DELTA_PARQUET_VALUE_UINT64;
    out->v.u64 = bytes_load_le32(p);
    return;
  case PQW_ORD_U64:
    out->kind = DELTA_PARQUET_VALUE_UINT64;
    out->v.u64 = bytes_load_le64(p);
    return;
  case PQW_ORD_F32:
    out->kind = DELTA_PARQUET_VALUE_DOUBLE;
    out->v.f64 = load_f32(p);
    return;
  case PQW_ORD_F64:
    out->kind = DELTA_PARQUET_VALUE_DOUBLE;
    out->v.f64 = load_f64(p);
    return;
  case PQW_ORD_DEC_BE: {
    /* big-endian two's complement, sign-extended to 128 bits (the low 16
     * bytes of a wider decimal256 value) */
    uint8_t le[16];
    size_t n = b->len;
    uint8_t fill = n && (p[0] & 0x80) ? 0xFF : 0;
    for (size_t i = 0; i < 16; i++) le[i] = i < n ? p[n - 1 - i] : fill;
    out->kind = DELTA_PARQUET_VALUE_DECIMAL;
    memcpy(&out->v.dec.lo, le, 8);
    uint64_t hi;
    memcpy(&hi, le + 8, 8);
    out->v.dec.hi = (int64_t)hi;
    return;
  }
  default:
    out->kind = DELTA_PARQUET_VALUE_BYTES;
    out->v.bytes.data = p;
    out->v.bytes.len = b->len;
    return;
  }
}
