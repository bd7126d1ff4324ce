/* Placing dense values at their slots; see slots.h. */
#include "parquet/slots.h"

#include <string.h>

#include "parquet/bits.h"

#if defined(__GNUC__)
#define PQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PQ_ALWAYS_INLINE inline
#endif

/* Copy or clear one slot of w bytes without a branch on the bit: the value is
 * loaded either way and masked (the caller makes sure it is loadable). */
static PQ_ALWAYS_INLINE void put_masked(uint8_t *dst, const uint8_t *src, const int w, uint64_t bit) {
  if (w == 8) {
    uint64_t v;
    memcpy(&v, src, 8);
    v &= -bit;
    memcpy(dst, &v, 8);
  } else if (w == 4) {
    uint32_t v;
    memcpy(&v, src, 4);
    v &= -(uint32_t)bit;
    memcpy(dst, &v, 4);
  } else if (bit) {
    memcpy(dst, src, (size_t)w);
  } else {
    memset(dst, 0, (size_t)w);
  }
}

/* The loop behind scatter (idx NULL: value j is src + j*w) and gather (value
 * j is src + idx[j]*w), specialised through constant w and idx. While 64
 * more values remain, each word of 64 slots loads "its" value unconditionally
 * (branch-free, as the nulls fall at random); the last slots check first. */
static PQ_ALWAYS_INLINE void fill(uint8_t *dst, const uint8_t *src, const uint32_t *idx, const int w,
                                  const uint8_t *valid, size_t vpos, size_t n, size_t nv) {
  const size_t sw = (size_t)w;
  size_t i = 0, j = 0;
  if (!valid) {
    for (; i < n; i++) memcpy(dst + i * sw, src + (idx ? idx[i] : i) * sw, sw);
    return;
  }
  for (; n - i >= 64 && nv - j >= 64; i += 64) {
    uint64_t m = pq_bits_get64(valid, vpos + i);
    for (size_t k = 0; k < 64; k++) {
      uint64_t bit = (m >> k) & 1;
      put_masked(dst + (i + k) * sw, src + (idx ? idx[j] : j) * sw, w, bit);
      j += bit;
    }
  }
  for (; i < n; i++) {
    uint64_t bit = (valid[(vpos + i) / 8] >> ((vpos + i) % 8)) & 1;
    if (bit) {
      memcpy(dst + i * sw, src + (idx ? idx[j] : j) * sw, sw);
      j++;
    } else {
      memset(dst + i * sw, 0, sw);
    }
  }
}

void pq_slots_scatter(uint8_t *dst, const uint8_t *src, int w, const uint8_t *valid, size_t vpos,
                      size_t n, size_t nv) {
  if (w == 8) fill(dst, src, NULL, 8, valid, vpos, n, nv);
  else if (w == 4) fill(dst, src, NULL, 4, valid, vpos, n, nv);
  else fill(dst, src, NULL, w, valid, vpos, n, nv);
}

void pq_slots_gather(uint8_t *dst, const uint8_t *dict, const uint32_t *idx, int w,
                     const uint8_t *valid, size_t vpos, size_t n, size_t nv) {
  if (w == 8) fill(dst, dict, idx, 8, valid, vpos, n, nv);
  else if (w == 4) fill(dst, dict, idx, 4, valid, vpos, n, nv);
  else fill(dst, dict, idx, w, valid, vpos, n, nv);
}

static inline int bit_at(const uint8_t *b, size_t i) { return (b[i / 8] >> (i % 8)) & 1; }

/* Backwards, so that no value is overwritten before it moves: slot i's value
 * comes from an index <= i. Once every remaining slot has a value (j == i)
 * the rest is in place already. */
void pq_slots_expand(uint8_t *data, int w, const uint8_t *valid, size_t vpos, size_t n, size_t nv) {
  const size_t sw = (size_t)w;
  size_t j = nv;
  for (size_t i = n; i > j;) {
    i--;
    if (bit_at(valid, vpos + i)) {
      j--;
      memmove(data + i * sw, data + j * sw, sw);
    } else {
      memset(data + i * sw, 0, sw);
    }
  }
}

/* Slot i-1 ends where the last value before slot i ends: dense end number
 * (values in slots [0, i)), which is j below. Backwards for the same reason
 * as above. */
void pq_slots_expand_offsets(int32_t *off, const uint8_t *valid, size_t vpos, size_t n, size_t nv) {
  size_t j = nv;
  for (size_t i = n; i > j; i--) {
    off[i] = off[j];
    j -= (size_t)bit_at(valid, vpos + i - 1);
  }
}

void pq_slots_pack_bools(uint8_t *bits, size_t pos, const uint8_t *vals, const uint8_t *valid,
                         size_t vpos, size_t n) {
  size_t j = 0;
  for (size_t i = 0; i < n; i += 64) {
    size_t k = n - i < 64 ? n - i : 64;
    uint64_t m = valid ? pq_bits_get64(valid, vpos + i) : ~(uint64_t)0;
    uint64_t word = 0;
    for (size_t b = 0; b < k; b++) {
      uint64_t bit = (m >> b) & 1;
      word |= ((uint64_t)vals[j] & bit) << b; /* vals[nv] may be read: padded */
      j += bit;
    }
    pq_bits_or64(bits, pos + i, word);
  }
}
