/*
 * Arrow-style bitmaps (bit i of the map is bit i%8 of byte i/8) as the flat
 * read path builds them: validity maps decoded straight from definition
 * levels, boolean values.
 *
 * The helpers work a 64-bit word at a time at any bit position, so they read
 * and write up to PQ_BITS_PAD bytes past the last bit, and writers OR into
 * memory that starts out zero: every bitmap they touch is allocated with
 * pq_bits_bytes(nbits) bytes, the padding included and zeroed.
 */
#ifndef DELTAC_PARQUET_BITS_H
#define DELTAC_PARQUET_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/bytes.h"

#define PQ_BITS_PAD 16

static inline size_t pq_bits_bytes(size_t nbits) { return nbits / 8 + PQ_BITS_PAD; }

static inline void pq_store_le64(void *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  memcpy(p, &v, 8);
}

static inline int pq_popcount64(uint64_t v) {
#if defined(__GNUC__)
  return __builtin_popcountll(v);
#else
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (int)((v * 0x0101010101010101ull) >> 56);
#endif
}

/* The 64 bits starting at bit `pos`. */
static inline uint64_t pq_bits_get64(const uint8_t *b, size_t pos) {
  const uint8_t *p = b + pos / 8;
  unsigned s = (unsigned)(pos % 8);
  uint64_t w = bytes_load_le64(p) >> s;
  if (s) w |= (uint64_t)p[8] << (64 - s);
  return w;
}

/* The k (< 64) low bits of w, the rest cleared. */
static inline uint64_t pq_bits_low(uint64_t w, size_t k) { return k >= 64 ? w : w & (((uint64_t)1 << k) - 1); }

/* OR w into the 64 bits starting at bit `pos`. */
static inline void pq_bits_or64(uint8_t *b, size_t pos, uint64_t w) {
  uint8_t *p = b + pos / 8;
  unsigned s = (unsigned)(pos % 8);
  pq_store_le64(p, bytes_load_le64(p) | (w << s));
  if (s) p[8] |= (uint8_t)(w >> (64 - s));
}

/* Set bits [pos, pos + n). */
static inline void pq_bits_fill(uint8_t *b, size_t pos, size_t n) {
  for (size_t k = 0; k < n; k += 64) pq_bits_or64(b, pos + k, pq_bits_low(~(uint64_t)0, n - k));
}

/* OR n bits of src starting at spos into dst starting at dpos. */
static inline void pq_bits_copy(uint8_t *dst, size_t dpos, const uint8_t *src, size_t spos, size_t n) {
  if (dpos % 8 == 0 && spos % 8 == 0 && n % 8 == 0) {
    /* The common whole-byte case (and dst is zero there, so OR is a copy). */
    memcpy(dst + dpos / 8, src + spos / 8, n / 8);
    return;
  }
  for (size_t k = 0; k < n; k += 64) pq_bits_or64(dst, dpos + k, pq_bits_low(pq_bits_get64(src, spos + k), n - k));
}

/* How many of bits [pos, pos + n) are set. */
static inline size_t pq_bits_count(const uint8_t *b, size_t pos, size_t n) {
  size_t c = 0;
  for (size_t k = 0; k < n; k += 64) c += (size_t)pq_popcount64(pq_bits_low(pq_bits_get64(b, pos + k), n - k));
  return c;
}

#endif
