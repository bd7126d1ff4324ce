/* ULEB128 and zigzag varints as used by the RLE hybrid run headers and
 * DELTA_BINARY_PACKED headers. Bounded: never reads at or past `end`. */
#ifndef DELTAC_PARQUET_ULEB128_H
#define DELTAC_PARQUET_ULEB128_H

#include <stdint.h>

/* Read one ULEB128 of at most 64 bits at *pp. Returns 0 and advances *pp, or
 * -1 when the bytes end first or the value does not fit in 64 bits (so the
 * caller can name its encoding in the error message). */
static inline int pq_uleb64(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
  const uint8_t *p = *pp;
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) return -1;
    uint8_t b = *p++;
    /* The 10th byte may only carry the top bit of a 64-bit value. */
    if (shift == 63 && b > 1) return -1;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *pp = p;
      *out = v;
      return 0;
    }
  }
  return -1;
}

static inline uint64_t pq_unzigzag64(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }

#endif
