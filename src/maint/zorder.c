/* The Z-order value mapping and bit interleaving; see zorder.h. */
#include "maint/zorder.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define SIGN 0x8000000000000000ULL

uint64_t zorder_value_key(const expr_value *v) {
  if (v->is_null) return 0;
  switch (v->type) {
  case VT_BOOL: return v->u.b ? 2 : 1;
  case VT_INT:
  case VT_DATE:
  case VT_TIMESTAMP:
  case VT_TIMESTAMP_NTZ: return (uint64_t)v->u.i ^ SIGN;
  case VT_FLOAT: {
    uint64_t bits;
    double d = v->u.d == 0 ? 0.0 : v->u.d; /* -0.0 and 0.0 are equal */
    memcpy(&bits, &d, sizeof bits);
    return bits & SIGN ? ~bits : bits | SIGN;
  }
  case VT_DECIMAL: {
    __int128 x = v->u.dec;
    int64_t c = x > (__int128)INT64_MAX ? INT64_MAX : x < (__int128)INT64_MIN ? INT64_MIN : (int64_t)x;
    return (uint64_t)c ^ SIGN;
  }
  case VT_STRING:
  case VT_BINARY: {
    uint64_t k = 0;
    for (size_t i = 0; i < 8; i++)
      k = (k << 8) | (i < v->u.s.n ? (uint8_t)v->u.s.p[i] : 0);
    return k;
  }
  default: return 0;
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int zorder_rank(uint64_t *keys, int64_t n, int bits) {
  if (n <= 0) return 0;
  uint64_t *sorted = mem_malloc((size_t)n * sizeof *sorted);
  if (!sorted) return DELTA_NOMEM();
  memcpy(sorted, keys, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_u64);
  int64_t distinct = 0;
  for (int64_t i = 0; i < n; i++)
    if (i == 0 || sorted[i] != sorted[distinct - 1]) sorted[distinct++] = sorted[i];
  /* rank r of `distinct` spread over [0, 2^bits): r * 2^bits / distinct */
  unsigned __int128 span = (unsigned __int128)1 << bits;
  for (int64_t i = 0; i < n; i++) {
    int64_t lo = 0, hi = distinct - 1;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (sorted[mid] < keys[i]) lo = mid + 1;
      else hi = mid;
    }
    keys[i] = (uint64_t)((unsigned __int128)lo * span / (unsigned __int128)distinct);
  }
  mem_free(sorted);
  return 0;
}

zorder_key zorder_interleave(const uint64_t *values, int n_cols, int bits) {
  zorder_key k = {0, 0};
  for (int b = bits - 1; b >= 0; b--)
    for (int c = 0; c < n_cols; c++) {
      k.hi = (k.hi << 1) | (k.lo >> 63);
      k.lo = (k.lo << 1) | ((values[c] >> b) & 1);
    }
  return k;
}

int zorder_key_cmp(const zorder_key *a, const zorder_key *b) {
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  return 0;
}
