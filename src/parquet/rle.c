/*
 * RLE / bit-packed hybrid decoding (levels, dictionary indices, booleans) and
 * the legacy MSB-first BIT_PACKED levels.
 *
 * Runs: a ULEB128 header; LSB 1 = bit-packed run of (header>>1)*8 values,
 * LSB 0 = RLE run of header>>1 copies of a value stored in ceil(width/8)
 * little-endian bytes. Writers may end the page in the middle of the last
 * bit-packed run (its header counts whole groups of 8 but the trailing
 * padding values are not stored), so a bit-packed run is cut to the values
 * whose bits are present; asking for more than that is an error.
 */
#include <string.h>

#include "deltac/error.h"
#include "parquet/bits.h"
#include "parquet/encoding.h"
#include "parquet/uleb128.h"
#include "util/error_internal.h"

#if defined(__GNUC__)
#define PQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PQ_ALWAYS_INLINE inline
#endif

/* Longest run the spec allows (lengths must fit a signed 32-bit int). */
#define PQ_RLE_MAX_RUN 0x7fffffffu

int pq_rle_init(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width) {
  memset(d, 0, sizeof *d);
  if (bit_width < 0 || bit_width > 32)
    return err_set(DELTA_ECORRUPT, "RLE: bit width %d out of range 0..32", bit_width);
  /* NULL + 0 is undefined, so an empty NULL buffer stays NULL..NULL. */
  d->p = data;
  d->end = data ? data + len : data;
  d->bit_width = bit_width;
  return 0;
}

/* Read the next run header (the current runs are all used up). */
static int rle_next_run(pq_rle_decoder *d, size_t missing) {
  const int w = d->bit_width;
  uint64_t h;
  if (d->p >= d->end)
    return err_set(DELTA_ECORRUPT, "RLE: runs end with %zu values still expected", missing);
  if (pq_uleb64(&d->p, d->end, &h))
    return err_set(DELTA_ECORRUPT, "RLE: truncated or overlong run header");
  if (h & 1) {
    uint64_t groups = h >> 1;
    if (groups > PQ_RLE_MAX_RUN / 8)
      return err_set(DELTA_ECORRUPT, "RLE: bit-packed run of %llu groups is too long",
                             (unsigned long long)groups);
    uint64_t count = groups * 8, need = groups * (uint64_t)w;
    size_t avail = (size_t)(d->end - d->p);
    if (need > avail) {
      /* Truncated at the page end: keep only values whose bits are all here. */
      count = (uint64_t)avail * 8 / (uint64_t)w;
      need = avail;
    }
    d->bp = d->p;
    d->bp_left = (uint32_t)count;
    d->p += need;
  } else {
    uint64_t count = h >> 1;
    size_t nb = ((size_t)w + 7) / 8;
    if (count > PQ_RLE_MAX_RUN)
      return err_set(DELTA_ECORRUPT, "RLE: run of %llu values is too long",
                             (unsigned long long)count);
    if ((size_t)(d->end - d->p) < nb)
      return err_set(DELTA_ECORRUPT, "RLE: truncated run value");
    uint32_t v = 0;
    for (size_t i = 0; i < nb; i++) v |= (uint32_t)d->p[i] << (8 * i);
    if (w < 32 && (v >> w) != 0)
      return err_set(DELTA_ECORRUPT, "RLE: run value %u does not fit in %d bits", v, w);
    d->p += nb;
    d->rle_left = (uint32_t)count;
    d->rle_value = v;
  }
  return 0;
}

/* Unpack the next group of 8 of a bit-packed run into bp_buf: possibly the
 * partial one at a truncated page end, whose bytes run to d->end, so what is
 * there is copied into a zeroed buffer first. */
static void rle_load_group(pq_rle_decoder *d) {
  const int w = d->bit_width;
  uint8_t tmp[32] = {0};
  size_t take = (size_t)(d->end - d->bp);
  if (take > (size_t)w) take = (size_t)w;
  memcpy(tmp, d->bp, take);
  pq_unpack32(tmp, d->bp_buf, 8, w);
  d->bp += take;
  d->bp_have = d->bp_left < 8 ? d->bp_left : 8;
  d->bp_pos = 0;
  d->bp_left -= d->bp_have;
}

static int index_error(uint32_t v, uint32_t dict_size) {
  return err_set(DELTA_ECORRUPT, "RLE_DICTIONARY: index %u out of range for %u entries", v,
                         dict_size);
}

/* Store k values from src as elements out[i..i+k) of width `size` bytes. */
static PQ_ALWAYS_INLINE void store_vals(void *out, size_t i, const uint32_t *src, size_t k,
                                        int size) {
  if (size == 4) {
    memcpy((uint32_t *)out + i, src, k * 4);
  } else if (size == 2) {
    uint16_t *o = (uint16_t *)out + i;
    for (size_t j = 0; j < k; j++) o[j] = (uint16_t)src[j];
  } else {
    uint8_t *o = (uint8_t *)out + i;
    for (size_t j = 0; j < k; j++) o[j] = (uint8_t)src[j];
  }
}

static PQ_ALWAYS_INLINE void fill_vals(void *out, size_t i, uint32_t v, size_t k, int size) {
  if (size == 4) {
    uint32_t *o = (uint32_t *)out + i;
    for (size_t j = 0; j < k; j++) o[j] = v;
  } else if (size == 2) {
    uint16_t *o = (uint16_t *)out + i;
    for (size_t j = 0; j < k; j++) o[j] = (uint16_t)v;
  } else {
    memset((uint8_t *)out + i, (int)v, k);
  }
}

/* Whether any of v[0..k) is >= limit, and if so the first such value. A
 * branch-free OR of comparisons vectorises even without unsigned SIMD max. */
static PQ_ALWAYS_INLINE bool any_ge(const uint32_t *v, size_t k, uint32_t limit, uint32_t *bad) {
  uint32_t acc = 0;
  for (size_t j = 0; j < k; j++) acc |= (uint32_t)(v[j] >= limit);
  if (!acc) return false;
  for (size_t j = 0; j < k; j++)
    if (v[j] >= limit) {
      *bad = v[j];
      break;
    }
  return true;
}

/* The one decoding loop, specialised by the wrappers below through constant
 * `size` (output element bytes) and `check` (dictionary bound). */
static PQ_ALWAYS_INLINE int rle_get(pq_rle_decoder *d, void *out, size_t n, int size, bool check,
                                    uint32_t dict_size) {
  const int w = d->bit_width;
  if (w == 0) {
    if (check && n && dict_size == 0) return index_error(0, dict_size);
    memset(out, 0, n * (size_t)size);
    return 0;
  }
  size_t i = 0;
  while (i < n) {
    size_t want = n - i;
    if (d->bp_pos < d->bp_have) {
      size_t k = d->bp_have - d->bp_pos;
      if (k > want) k = want;
      const uint32_t *src = d->bp_buf + d->bp_pos;
      uint32_t badv = 0;
      if (check && any_ge(src, k, dict_size, &badv)) return index_error(badv, dict_size);
      store_vals(out, i, src, k, size);
      d->bp_pos += (uint32_t)k;
      i += k;
    } else if (d->rle_left) {
      size_t k = d->rle_left < want ? d->rle_left : want;
      if (check && d->rle_value >= dict_size) return index_error(d->rle_value, dict_size);
      fill_vals(out, i, d->rle_value, k, size);
      d->rle_left -= (uint32_t)k;
      i += k;
    } else if (d->bp_left >= 8 && want >= 8) {
      /* Whole groups straight into the output (via a small buffer when the
       * output is narrower than 32 bits). */
      size_t k = (d->bp_left < want ? d->bp_left : want) & ~(size_t)7;
      if (size == 4) {
        uint32_t *o = (uint32_t *)out + i, badv = 0;
        pq_unpack32(d->bp, o, k, w);
        /* Indices are checked after landing; a failed call's output is junk. */
        if (check && any_ge(o, k, dict_size, &badv)) return index_error(badv, dict_size);
      } else {
        uint32_t tmp[256];
        if (k > 256) k = 256;
        pq_unpack32(d->bp, tmp, k, w);
        store_vals(out, i, tmp, k, size);
      }
      d->bp += k / 8 * (size_t)w;
      d->bp_left -= (uint32_t)k;
      i += k;
    } else if (d->bp_left) {
      rle_load_group(d);
    } else {
      int rc = rle_next_run(d, want);
      if (rc) return rc;
    }
  }
  return 0;
}

int pq_rle_get_u32(pq_rle_decoder *d, uint32_t *out, size_t n) {
  return rle_get(d, out, n, 4, false, 0);
}

int pq_rle_get_u16(pq_rle_decoder *d, uint16_t *out, size_t n) {
  if (d->bit_width > 16)
    return err_set(DELTA_EINVAL, "RLE: bit width %d too wide for 16-bit values",
                           d->bit_width);
  return rle_get(d, out, n, 2, false, 0);
}

int pq_rle_get_u8(pq_rle_decoder *d, uint8_t *out, size_t n) {
  if (d->bit_width > 8)
    return err_set(DELTA_EINVAL, "RLE: bit width %d too wide for 8-bit values",
                           d->bit_width);
  return rle_get(d, out, n, 1, false, 0);
}

int pq_rle_get_indices(pq_rle_decoder *d, uint32_t *out, size_t n, uint32_t dict_size) {
  return rle_get(d, out, n, 4, true, dict_size);
}

/* Width-1 runs are bitmaps already: a bit-packed run's bytes are copied as
 * they are (shifted to the output position), an RLE run sets or skips a
 * range of bits. */
int pq_rle_get_bits(pq_rle_decoder *d, uint8_t *bits, size_t n) {
  if (d->bit_width != 1)
    return err_set(DELTA_EINVAL, "RLE: bit width %d read as bits", d->bit_width);
  size_t i = 0;
  while (i < n) {
    size_t want = n - i;
    if (d->bp_pos < d->bp_have) {
      if (d->bp_buf[d->bp_pos++]) bits[i / 8] |= (uint8_t)(1u << (i % 8));
      i++;
    } else if (d->rle_left) {
      size_t k = d->rle_left < want ? d->rle_left : want;
      if (d->rle_value) pq_bits_fill(bits, i, k);
      d->rle_left -= (uint32_t)k;
      i += k;
    } else if (d->bp_left >= 8 && want >= 8) {
      size_t bytes = (d->bp_left < want ? d->bp_left : want) / 8;
      size_t b = 0;
      for (; bytes - b >= 8; b += 8) pq_bits_or64(bits, i + 8 * b, bytes_load_le64(d->bp + b));
      if (b < bytes) {
        uint64_t tail = 0;
        memcpy(&tail, d->bp + b, bytes - b);
        pq_bits_or64(bits, i + 8 * b, bytes_load_le64(&tail));
      }
      d->bp += bytes;
      d->bp_left -= (uint32_t)(bytes * 8);
      i += bytes * 8;
    } else if (d->bp_left) {
      rle_load_group(d);
    } else {
      int rc = rle_next_run(d, want);
      if (rc) return rc;
    }
  }
  return 0;
}

int pq_bitpacked_legacy_get_u16(const uint8_t *data, size_t len, int bit_width, uint16_t *out,
                                size_t n) {
  if (bit_width < 0 || bit_width > 16)
    return err_set(DELTA_ECORRUPT, "BIT_PACKED: bit width %d out of range 0..16",
                           bit_width);
  if (bit_width == 0) {
    memset(out, 0, n * sizeof *out);
    return 0;
  }
  const unsigned w = (unsigned)bit_width;
  if (n > len / w * 8 + (len % w) * 8 / w) /* n * w > len * 8 without overflow */
    return err_set(DELTA_ECORRUPT, "BIT_PACKED: %zu values of %u bits need more than %zu bytes",
                           n, w, len);
  const uint32_t mask = ((uint32_t)1 << w) - 1;
  const uint8_t *p = data;
  uint32_t acc = 0; /* holds at most w + 7 <= 23 live bits */
  unsigned bits = 0;
  for (size_t i = 0; i < n; i++) {
    while (bits < w) {
      acc = acc << 8 | *p++;
      bits += 8;
    }
    bits -= w;
    out[i] = (uint16_t)((acc >> bits) & mask);
  }
  return 0;
}
