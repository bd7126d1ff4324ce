#include "scan/columns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

/* A decimal's text as a little-endian 128-bit integer scaled to `scale`. */
static int parse_decimal(const char *s, int scale, uint8_t out[16]) {
  const char *p = s;
  bool neg = *p == '-';
  if (*p == '-' || *p == '+') p++;
  unsigned __int128 v = 0;
  int frac = -1, digits = 0;
  for (; *p; p++) {
    if (*p == '.' && frac < 0) {
      frac = 0;
      continue;
    }
    if (*p < '0' || *p > '9') return -1;
    if (frac >= 0) {
      if (frac == scale) {
        if (*p != '0') return -1; /* more fraction digits than the scale holds */
        continue;
      }
      frac++;
    }
    if (++digits > 38) return -1;
    v = v * 10 + (unsigned)(*p - '0');
  }
  if (digits == 0) return -1;
  for (int k = frac < 0 ? 0 : frac; k < scale; k++) v *= 10;
  __int128 sv = neg ? -(__int128)v : (__int128)v;
  memcpy(out, &sv, 16);
  return 0;
}

int scan_partition_array(const delta_type *t, const char *column, const char *value, int64_t n,
                         struct ArrowArray *out) {
  bool is_null = value == NULL || value[0] == '\0';
  bool is_text = t->kind == DT_STRING || t->kind == DT_BINARY;
  int rc = arrow_array_new(out, is_text ? 3 : 2, 0);
  if (rc) return rc;
  out->length = n;
  uint8_t *valid = mem_calloc((size_t)(n + 7) / 8 + 1, 1);
  if (!valid) goto nomem;
  arrow_array_set_buffer(out, 0, valid);
  if (is_null) {
    out->null_count = n;
  } else {
    memset(valid, 0xff, (size_t)(n + 7) / 8);
  }
  if (is_text) {
    size_t len = is_null ? 0 : strlen(value);
    if (len * (size_t)n > INT32_MAX) {
      rc = err_set(DELTA_ELIMIT, "partition value of %s too long for one batch", column);
      goto fail;
    }
    int32_t *off = mem_malloc(((size_t)n + 1) * 4);
    uint8_t *bytes = mem_malloc(len * (size_t)n + 1);
    if (!off || !bytes) {
      mem_free(off);
      mem_free(bytes);
      goto nomem;
    }
    arrow_array_set_buffer(out, 1, off);
    arrow_array_set_buffer(out, 2, bytes);
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) {
      if (len) memcpy(bytes + (size_t)i * len, value, len);
      off[i + 1] = (int32_t)((size_t)(i + 1) * len);
    }
    return 0;
  }
  uint8_t one[32] = {0};
  int w = 0;
  if (!is_null) {
    char *end = NULL;
    errno = 0;
    switch (t->kind) {
    case DT_BOOLEAN:
      if (strcasecmp(value, "true") == 0) one[0] = 1;
      else if (strcasecmp(value, "false") != 0) goto bad;
      break;
    case DT_BYTE: case DT_SHORT: case DT_INTEGER: case DT_LONG: {
      long long v = strtoll(value, &end, 10);
      if (*end || errno) goto bad;
      memcpy(one, &v, 8); /* little-endian: narrower widths take the low bytes */
      break;
    }
    case DT_FLOAT: {
      float v = strtof(value, &end);
      if (*end) goto bad;
      memcpy(one, &v, 4);
      break;
    }
    case DT_DOUBLE: {
      double v = strtod(value, &end);
      if (*end) goto bad;
      memcpy(one, &v, 8);
      break;
    }
    case DT_DATE: {
      int64_t us;
      if (time_parse_us(value, &us)) goto bad;
      int32_t days = (int32_t)(us / 86400000000LL - (us % 86400000000LL < 0));
      memcpy(one, &days, 4);
      break;
    }
    case DT_TIMESTAMP: case DT_TIMESTAMP_NTZ: {
      int64_t us;
      if (time_parse_us(value, &us)) goto bad;
      memcpy(one, &us, 8);
      break;
    }
    case DT_DECIMAL:
      if (parse_decimal(value, t->scale, one)) goto bad;
      break;
    default:
      rc = err_set(DELTA_EUNSUPPORTED, "partition column %s has a type that cannot be partitioned on",
                           column);
      goto fail;
    }
  }
  switch (t->kind) {
  case DT_BOOLEAN: w = 0; break;
  case DT_BYTE: w = 1; break;
  case DT_SHORT: w = 2; break;
  case DT_INTEGER: case DT_FLOAT: case DT_DATE: w = 4; break;
  case DT_DECIMAL: w = 16; break;
  default: w = 8;
  }
  if (w == 0) {
    uint8_t *bits = mem_calloc((size_t)(n + 7) / 8 + 1, 1);
    if (!bits) goto nomem;
    if (one[0]) memset(bits, 0xff, (size_t)(n + 7) / 8);
    arrow_array_set_buffer(out, 1, bits);
    return 0;
  }
  uint8_t *vals = mem_malloc((size_t)n * (size_t)w + 1);
  if (!vals) goto nomem;
  for (int64_t i = 0; i < n; i++) memcpy(vals + i * w, one, (size_t)w);
  arrow_array_set_buffer(out, 1, vals);
  return 0;
bad:
  rc = err_set(DELTA_ECORRUPT, "partition value '%s' of column %s is not a valid %s", value, column,
                       t->kind == DT_DECIMAL ? "decimal" : "value of its type");
  goto fail;
nomem:
  rc = DELTA_NOMEM();
fail:
  arrow_array_release(out);
  return rc;
}
