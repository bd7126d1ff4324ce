/*
 * DELTA_BINARY_PACKED.
 *
 * Header: <block size> <miniblocks per block> <total count> <first value
 * (zigzag)>, then blocks of <min delta (zigzag)> <one width byte per
 * miniblock> <miniblocks>. Everything is computed in uint64_t so overflow
 * wraps as the spec requires; INT32 columns take the low 32 bits, which also
 * accepts writers that used 64-bit arithmetic for INT32 (min delta outside
 * the int32 range, widths up to 33).
 *
 * Only what the values need is read: a miniblock's width byte is looked at
 * when the miniblock starts (the last block's unused widths may be garbage and
 * their bodies are absent), and a block header is read only when a value of
 * that block is wanted. The decoder turns 32 deltas at a time into values in
 * mb_buf; mb_data is the read position inside the stream.
 */
#include <string.h>

#include "deltac/error.h"
#include "parquet/encoding.h"
#include "parquet/uleb128.h"
#include "util/error_internal.h"

#if defined(__GNUC__)
#define PQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PQ_ALWAYS_INLINE inline
#endif

#define DBP "DELTA_BINARY_PACKED"

/* Values per block are capped so per-miniblock counts fit in 32 bits; real
 * writers use 128 to 1024. */
#define PQ_DBP_MAX_BLOCK ((uint64_t)1 << 31)

int pq_dbp_init(pq_dbp_decoder *d, const uint8_t *data, size_t len) {
  memset(d, 0, sizeof *d);
  const uint8_t *p = data, *end = data ? data + len : data;
  uint64_t block, mbs, total, first;
  if (pq_uleb64(&p, end, &block) || pq_uleb64(&p, end, &mbs) || pq_uleb64(&p, end, &total) ||
      pq_uleb64(&p, end, &first))
    return err_set(DELTA_ECORRUPT, DBP ": truncated or overlong header");
  if (block == 0 || block % 128 || block > PQ_DBP_MAX_BLOCK)
    return err_set(DELTA_ECORRUPT, DBP ": block size %llu is not a multiple of 128 up to 2^31",
                           (unsigned long long)block);
  if (mbs == 0 || block % mbs || (block / mbs) % 32)
    return err_set(DELTA_ECORRUPT,
                           DBP ": %llu miniblocks do not split a block of %llu into multiples of 32",
                           (unsigned long long)mbs, (unsigned long long)block);
  d->p = p;
  d->end = end;
  d->block_size = block;
  d->miniblocks_per_block = mbs;
  d->values_per_miniblock = block / mbs;
  d->total_values = total;
  d->last_value = (int64_t)pq_unzigzag64(first);
  /* The first value waits in the buffer like any decoded value. */
  if (total) {
    d->first_pending = true;
    d->mb_buf[0] = pq_unzigzag64(first);
    d->mb_have = 1;
  }
  d->miniblock_index = (uint32_t)mbs; /* no block yet: the next miniblock needs a header */
  d->mb_data = p;
  return 0;
}

uint64_t pq_dbp_total(const pq_dbp_decoder *d) { return d->total_values; }

/* Start the next miniblock, reading a block header first when the current
 * block is used up. mb_data must be just past the previous miniblock. */
static int dbp_next_miniblock(pq_dbp_decoder *d) {
  if (d->miniblock_index >= d->miniblocks_per_block) {
    const uint8_t *p = d->mb_data;
    uint64_t md;
    if (pq_uleb64(&p, d->end, &md))
      return err_set(DELTA_ECORRUPT, DBP ": truncated block header");
    /* The widths must all be there: the miniblock bodies follow them. */
    if ((uint64_t)(d->end - p) < d->miniblocks_per_block)
      return err_set(DELTA_ECORRUPT, DBP ": block lacks its %llu miniblock widths",
                             (unsigned long long)d->miniblocks_per_block);
    d->min_delta = (int64_t)pq_unzigzag64(md);
    d->bit_widths = p;
    d->mb_data = p + d->miniblocks_per_block;
    d->miniblock_index = 0;
  }
  int w = d->bit_widths[d->miniblock_index++];
  if (w > 64) return err_set(DELTA_ECORRUPT, DBP ": miniblock bit width %d exceeds 64", w);
  d->cur_width = w;
  d->miniblock_left = (uint32_t)d->values_per_miniblock;
  return 0;
}

/* Decode the next 32 deltas into values (mb_buf is used up and values remain). */
static int dbp_refill(pq_dbp_decoder *d) {
  if (d->miniblock_left == 0) {
    int rc = dbp_next_miniblock(d);
    if (rc) return rc;
  }
  const size_t w = (size_t)d->cur_width, full = 4 * w;
  const size_t avail = (size_t)(d->end - d->mb_data);
  uint64_t left = d->total_values - d->values_read;
  uint32_t need = left < 32 ? (uint32_t)left : 32;
  if (avail >= full) {
    pq_unpack64(d->mb_data, d->mb_buf, 32, (int)w);
    d->mb_data += full;
  } else {
    /* A final miniblock without its padding: fine if the wanted values are
     * all there. mb_data moves to the end so nothing can follow it. */
    if (((size_t)need * w + 7) / 8 > avail)
      return err_set(DELTA_ECORRUPT, DBP ": miniblock truncated (%zu of %zu bytes)", avail,
                             full);
    uint8_t tmp[32 * 8] = {0};
    memcpy(tmp, d->mb_data, avail);
    pq_unpack64(tmp, d->mb_buf, 32, (int)w);
    d->mb_data = d->end;
  }
  d->miniblock_left -= 32;
  uint64_t v = (uint64_t)d->last_value, md = (uint64_t)d->min_delta;
  for (int i = 0; i < 32; i++) {
    v += md + d->mb_buf[i];
    d->mb_buf[i] = v;
  }
  d->last_value = (int64_t)d->mb_buf[need - 1];
  d->mb_pos = 0;
  d->mb_have = need;
  return 0;
}

static PQ_ALWAYS_INLINE int dbp_get(pq_dbp_decoder *d, void *out, size_t n, bool wide) {
  if (n > d->total_values - d->values_read)
    return err_set(DELTA_ECORRUPT, DBP ": %zu values wanted but only %llu left", n,
                           (unsigned long long)(d->total_values - d->values_read));
  size_t i = 0;
  while (i < n) {
    if (d->mb_pos == d->mb_have) {
      int rc = dbp_refill(d);
      if (rc) return rc;
    }
    size_t k = d->mb_have - d->mb_pos;
    if (k > n - i) k = n - i;
    const uint64_t *src = d->mb_buf + d->mb_pos;
    if (wide) {
      memcpy((int64_t *)out + i, src, k * sizeof *src);
    } else {
      int32_t *o = (int32_t *)out + i;
      for (size_t j = 0; j < k; j++) o[j] = (int32_t)(uint32_t)src[j];
    }
    d->mb_pos += (uint32_t)k;
    d->values_read += k;
    i += k;
  }
  if (n) d->first_pending = false;
  return 0;
}

int pq_dbp_get_i64(pq_dbp_decoder *d, int64_t *out, size_t n) { return dbp_get(d, out, n, true); }

int pq_dbp_get_i32(pq_dbp_decoder *d, int32_t *out, size_t n) { return dbp_get(d, out, n, false); }

/* Skip the rest of the current miniblock's body, which writers pad to full
 * size even when it holds the last value. */
static int dbp_skip_body(pq_dbp_decoder *d) {
  uint64_t body = (uint64_t)d->miniblock_left / 8 * (uint64_t)d->cur_width;
  if (body > (uint64_t)(d->end - d->mb_data))
    return err_set(DELTA_ECORRUPT, DBP ": miniblock runs past the end of the data");
  d->mb_data += body;
  d->miniblock_left = 0;
  return 0;
}

int pq_dbp_skip_to_end(pq_dbp_decoder *d, const uint8_t **end_out) {
  /* Values not yet decoded into mb_buf. Whole miniblocks are skipped without
   * unpacking, so this costs O(blocks + miniblocks), which the width bytes
   * bound by the data length, not by the (untrusted) total count. */
  uint64_t left = d->total_values - d->values_read - (d->mb_have - d->mb_pos);
  *end_out = d->mb_data;
  d->values_read = d->total_values;
  d->mb_pos = d->mb_have;
  d->first_pending = false;
  int rc = 0;
  if (d->miniblock_left) {
    uint64_t k = left < d->miniblock_left ? left : d->miniblock_left;
    left -= k;
    if ((rc = dbp_skip_body(d))) return rc;
  }
  while (left) {
    if ((rc = dbp_next_miniblock(d))) return rc;
    uint64_t k = left < d->miniblock_left ? left : d->miniblock_left;
    left -= k;
    if ((rc = dbp_skip_body(d))) return rc;
  }
  *end_out = d->mb_data;
  return 0;
}
