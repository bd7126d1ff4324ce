/*
 * Bit unpacking, LSB first (RLE hybrid bit-packed runs, DELTA_BINARY_PACKED
 * miniblocks). This is the innermost loop of level, dictionary-index and
 * delta decoding, so each bit width gets its own fully unrolled kernel for 32
 * values in which every shift and mask is a constant: one unaligned 64-bit
 * load, a shift and a mask per value, no branches.
 *
 * A kernel for width W reads up to 4*W + 8 bytes (its last load starts inside
 * the 4*W bytes of its 32 values and is 8 bytes wide). The caller only
 * promises n*W/8 bytes, so kernels run in place only while that many bytes
 * remain; the tail (at most the last block plus a partial block) is copied
 * into a zero-padded stack buffer first. Nothing past n*W/8 is ever read, so
 * callers need no padding.
 */
#include <string.h>

#include "parquet/encoding.h"
#include "util/bytes.h"

#if defined(__GNUC__)
#define PQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PQ_ALWAYS_INLINE inline
#endif

/* Largest block: 32 values of 64 bits, plus the 8-byte overread of a kernel. */
#define PQ_BLOCK_MAX (32 * 8)
#define PQ_TMP_SIZE (PQ_BLOCK_MAX + 16)

#define PQ_REP8(X, b) X(b + 0) X(b + 1) X(b + 2) X(b + 3) X(b + 4) X(b + 5) X(b + 6) X(b + 7)
#define PQ_REP32(X) PQ_REP8(X, 0) PQ_REP8(X, 8) PQ_REP8(X, 16) PQ_REP8(X, 24)

/* 32 values of width w (1..32); w is a constant after inlining. Values fit in
 * 8 bytes from their first byte because shift (<= 7) + w <= 39. */
static PQ_ALWAYS_INLINE void kern32(const uint8_t *in, uint32_t *out, const int w) {
  const uint64_t mask = (w == 32) ? 0xffffffffu : (((uint64_t)1 << w) - 1);
#define PQ_K32(i)                                                                             \
  out[i] = (uint32_t)((bytes_load_le64(in + ((i) * w) / 8) >> (((i) * w) & 7)) & mask);
  PQ_REP32(PQ_K32)
#undef PQ_K32
}

/* 32 values of width w (1..64). For w > 57 a value can straddle 9 bytes; the
 * ninth byte is then inside this block's data (the value's own bits), so the
 * 4*w + 8 read bound still holds. */
static PQ_ALWAYS_INLINE void kern64(const uint8_t *in, uint64_t *out, const int w) {
  const uint64_t mask = (w == 64) ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
#define PQ_K64(i)                                                                             \
  do {                                                                                        \
    const int s_ = ((i) * w) & 7;                                                             \
    const uint8_t *p_ = in + ((i) * w) / 8;                                                   \
    uint64_t v_ = bytes_load_le64(p_) >> s_;                                                  \
    if (s_ + w > 64) v_ |= (uint64_t)p_[8] << ((64 - s_) & 63);                               \
    out[i] = v_ & mask;                                                                       \
  } while (0);
  PQ_REP32(PQ_K64)
#undef PQ_K64
}

typedef void (*pq_kern32_fn)(const uint8_t *, uint32_t *);
typedef void (*pq_kern64_fn)(const uint8_t *, uint64_t *);

#define PQ_DEF32(w) \
  static void k32_##w(const uint8_t *in, uint32_t *out) { kern32(in, out, w); }
#define PQ_DEF64(w) \
  static void k64_##w(const uint8_t *in, uint64_t *out) { kern64(in, out, w); }
/* X(a0) .. X(a9): the ten widths a0..a9. */
#define PQ_TENS(X, a) X(a##0) X(a##1) X(a##2) X(a##3) X(a##4) X(a##5) X(a##6) X(a##7) X(a##8) X(a##9)

PQ_DEF32(1) PQ_DEF32(2) PQ_DEF32(3) PQ_DEF32(4) PQ_DEF32(5) PQ_DEF32(6) PQ_DEF32(7)
PQ_DEF32(8) PQ_DEF32(9) PQ_TENS(PQ_DEF32, 1) PQ_TENS(PQ_DEF32, 2) PQ_DEF32(30) PQ_DEF32(31)

PQ_DEF64(1) PQ_DEF64(2) PQ_DEF64(3) PQ_DEF64(4) PQ_DEF64(5) PQ_DEF64(6) PQ_DEF64(7)
PQ_DEF64(8) PQ_DEF64(9) PQ_TENS(PQ_DEF64, 1) PQ_TENS(PQ_DEF64, 2) PQ_TENS(PQ_DEF64, 3)
PQ_TENS(PQ_DEF64, 4) PQ_TENS(PQ_DEF64, 5) PQ_DEF64(60) PQ_DEF64(61) PQ_DEF64(62)
PQ_DEF64(63) PQ_DEF64(64)

/* Width 32 is a plain little-endian copy. */
static void k32_32(const uint8_t *in, uint32_t *out) {
  for (int i = 0; i < 32; i++) out[i] = bytes_load_le32(in + 4 * i);
}

#define PQ_NAME32(w) k32_##w,
#define PQ_NAME64(w) k64_##w,

static const pq_kern32_fn kern32_by_width[33] = {
    NULL, k32_1, k32_2, k32_3, k32_4, k32_5, k32_6, k32_7, k32_8, k32_9,
    PQ_TENS(PQ_NAME32, 1) PQ_TENS(PQ_NAME32, 2) k32_30, k32_31, k32_32};

static const pq_kern64_fn kern64_by_width[65] = {
    NULL, k64_1, k64_2, k64_3, k64_4, k64_5, k64_6, k64_7, k64_8, k64_9,
    PQ_TENS(PQ_NAME64, 1) PQ_TENS(PQ_NAME64, 2) PQ_TENS(PQ_NAME64, 3)
    PQ_TENS(PQ_NAME64, 4) PQ_TENS(PQ_NAME64, 5) k64_60, k64_61, k64_62, k64_63, k64_64};

void pq_unpack64(const uint8_t *in, uint64_t *out, size_t n, int bit_width) {
  if (bit_width <= 0 || bit_width > 64) {
    /* Width 0 means all zeros; wider is a caller bug, made harmless. */
    memset(out, 0, n * sizeof *out);
    return;
  }
  pq_kern64_fn k = kern64_by_width[bit_width];
  const size_t w = (size_t)bit_width, blk = 4 * w, bytes = n / 8 * w;
  size_t i = 0, pos = 0;
  /* In place while a whole kernel read (blk + 8 bytes) stays inside. */
  while (n - i >= 32 && bytes - pos >= blk + 8) {
    k(in + pos, out + i);
    i += 32;
    pos += blk;
  }
  while (i < n) {
    uint8_t tmp[PQ_TMP_SIZE];
    uint64_t vals[32];
    size_t cnt = n - i < 32 ? n - i : 32, take = cnt / 8 * w;
    memcpy(tmp, in + pos, take);
    memset(tmp + take, 0, sizeof tmp - take);
    k(tmp, vals);
    memcpy(out + i, vals, cnt * sizeof *out);
    i += cnt;
    pos += take;
  }
}

void pq_unpack32(const uint8_t *in, uint32_t *out, size_t n, int bit_width) {
  if (bit_width <= 0 || bit_width > 64) {
    memset(out, 0, n * sizeof *out);
    return;
  }
  const size_t w = (size_t)bit_width;
  if (bit_width > 32) {
    /* Rare (only a corrupt or 64-bit stream read as 32-bit): keep the low
     * 32 bits of each value. */
    for (size_t i = 0; i < n; i += 32) {
      uint64_t vals[32];
      size_t cnt = n - i < 32 ? n - i : 32;
      pq_unpack64(in + i / 8 * w, vals, cnt, bit_width);
      for (size_t j = 0; j < cnt; j++) out[i + j] = (uint32_t)vals[j];
    }
    return;
  }
  pq_kern32_fn k = kern32_by_width[bit_width];
  const size_t blk = 4 * w, bytes = n / 8 * w;
  size_t i = 0, pos = 0;
  while (n - i >= 32 && bytes - pos >= blk + 8) {
    k(in + pos, out + i);
    i += 32;
    pos += blk;
  }
  while (i < n) {
    uint8_t tmp[PQ_TMP_SIZE];
    uint32_t vals[32];
    size_t cnt = n - i < 32 ? n - i : 32, take = cnt / 8 * w;
    memcpy(tmp, in + pos, take);
    memset(tmp + take, 0, sizeof tmp - take);
    k(tmp, vals);
    memcpy(out + i, vals, cnt * sizeof *out);
    i += cnt;
    pos += take;
  }
}
