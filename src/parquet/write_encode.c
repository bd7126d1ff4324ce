/* Encoders for the Parquet writer (see write_encode.h). */
#include "parquet/write_encode.h"

#include <string.h>

#include "deltac/error.h"

int pq_bit_width(uint64_t max) { return max ? 64 - __builtin_clzll(max) : 0; }

static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

/* Pack `n` values (n a multiple of 8) of `width` bits LSB-first at p;
 * returns the bytes written (n * width / 8). */
static size_t bitpack32(uint8_t *p, const uint32_t *v, size_t n, int width) {
  uint64_t acc = 0;
  int bits = 0;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    acc |= (uint64_t)v[i] << bits;
    bits += width;
    while (bits >= 8) {
      p[o++] = (uint8_t)acc;
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) p[o++] = (uint8_t)acc;
  return o;
}

static size_t bitpack64(uint8_t *p, const uint64_t *v, size_t n, int width) {
  /* width up to 64: keep a 128-bit window as two words. */
  size_t o = 0;
  uint64_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = width == 64 ? v[i] : v[i] & ((UINT64_C(1) << width) - 1);
    int w = width;
    while (w > 0) {
      int take = 64 - bits < w ? 64 - bits : w;
      uint64_t part = take == 64 ? x : x & ((UINT64_C(1) << take) - 1);
      acc |= part << bits;
      bits += take;
      x = take == 64 ? 0 : x >> take;
      w -= take;
      while (bits >= 8) {
        p[o++] = (uint8_t)acc;
        acc >>= 8;
        bits -= 8;
      }
    }
  }
  if (bits > 0) p[o++] = (uint8_t)acc;
  return o;
}

/* The hybrid encoder over values widened to uint32 in chunks. */
typedef struct {
  delta_buf *out;
  int width;
  uint32_t bp[512];   /* pending bit-packed values (a multiple of 8 is flushed) */
  size_t n_bp;
  int rc;
} rle_state;

static void flush_bp(rle_state *s, int final) {
  if (s->n_bp == 0 || s->rc) return;
  size_t n = s->n_bp;
  if (final) {
    while (n % 8) s->bp[n++] = 0;
  }
  size_t groups = n / 8;
  if (buf_reserve(s->out, 10 + groups * (size_t)s->width)) {
    s->rc = DELTA_ENOMEM;
    return;
  }
  uint8_t *p = s->out->data + s->out->len;
  size_t o = put_varint(p, (uint64_t)groups << 1 | 1);
  o += bitpack32(p + o, s->bp, groups * 8, s->width);
  s->out->len += o;
  s->n_bp = 0; /* only called with a multiple of 8 pending, or at the end */
}

static void put_bp(rle_state *s, uint32_t v, size_t count) {
  while (count--) {
    s->bp[s->n_bp++] = v;
    if (s->n_bp == sizeof s->bp / sizeof s->bp[0]) flush_bp(s, 0);
  }
}

static void put_rle(rle_state *s, uint32_t v, size_t count) {
  if (s->rc) return;
  if (buf_reserve(s->out, 16)) {
    s->rc = DELTA_ENOMEM;
    return;
  }
  uint8_t *p = s->out->data + s->out->len;
  size_t o = put_varint(p, (uint64_t)count << 1);
  int bytes = (s->width + 7) / 8;
  for (int i = 0; i < bytes; i++) p[o++] = (uint8_t)(v >> (8 * i));
  s->out->len += o;
}

/* One run of `count` equal values. */
static void run(rle_state *s, uint32_t v, size_t count) {
  if (count >= 8) {
    size_t need = (8 - s->n_bp % 8) % 8;
    if (need) {
      put_bp(s, v, need);
      count -= need;
    }
    flush_bp(s, 0);
    if (count >= 8) {
      put_rle(s, v, count);
      return;
    }
  }
  put_bp(s, v, count);
}

#define RLE_ENCODE(NAME, T)                                                      \
  int NAME(delta_buf *out, const T *v, size_t n, int width) {                  \
    rle_state s;                                                                 \
    s.out = out;                                                                 \
    s.width = width;                                                             \
    s.n_bp = 0;                                                                  \
    s.rc = 0;                                                                    \
    if (width == 0) {                                                            \
      /* every value is 0: one RLE run with no value bytes */                    \
      if (n) put_rle(&s, 0, n);                                                  \
      return s.rc;                                                               \
    }                                                                            \
    size_t i = 0;                                                                \
    while (i < n && !s.rc) {                                                     \
      size_t j = i + 1;                                                          \
      while (j < n && v[j] == v[i]) j++;                                         \
      run(&s, (uint32_t)v[i], j - i);                                            \
      i = j;                                                                     \
    }                                                                            \
    flush_bp(&s, 1);                                                             \
    return s.rc;                                                                 \
  }

RLE_ENCODE(pq_rle_encode_u16, uint16_t)
RLE_ENCODE(pq_rle_encode_u32, uint32_t)
RLE_ENCODE(pq_rle_encode_u8, uint8_t)

int pq_plain_bool_encode(delta_buf *out, const uint8_t *v, size_t n) {
  size_t bytes = (n + 7) / 8;
  if (buf_reserve(out, bytes)) return DELTA_ENOMEM;
  uint8_t *p = out->data + out->len;
  memset(p, 0, bytes);
  for (size_t i = 0; i < n; i++) p[i >> 3] |= (uint8_t)((v[i] & 1) << (i & 7));
  out->len += bytes;
  return 0;
}

/* ---- DELTA_BINARY_PACKED ---- */

#define DBP_BLOCK 128
#define DBP_MINI 4
#define DBP_MINI_VALUES (DBP_BLOCK / DBP_MINI)

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* Deltas (already wrapped to the column width, as uint64 two's complement
 * in that width) of one block: write min delta, widths, miniblocks. `bits`
 * is 32 or 64. */
static int dbp_block(delta_buf *out, const uint64_t *d, size_t n, int bits) {
  uint64_t mask = bits == 64 ? UINT64_MAX : UINT32_MAX;
  /* min delta as a signed value of the column width */
  int64_t min = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t x = bits == 64 ? (int64_t)d[i] : (int64_t)(int32_t)(uint32_t)d[i];
    if (i == 0 || x < min) min = x;
  }
  uint64_t rel[DBP_BLOCK];
  for (size_t i = 0; i < DBP_BLOCK; i++) rel[i] = i < n ? (d[i] - (uint64_t)min) & mask : 0;
  size_t minis = (n + DBP_MINI_VALUES - 1) / DBP_MINI_VALUES;
  uint8_t widths[DBP_MINI] = {0};
  for (size_t m = 0; m < minis; m++) {
    uint64_t mx = 0;
    for (size_t i = m * DBP_MINI_VALUES; i < (m + 1) * DBP_MINI_VALUES; i++) mx |= rel[i];
    widths[m] = (uint8_t)pq_bit_width(mx);
  }
  if (buf_reserve(out, 10 + DBP_MINI + DBP_BLOCK * 8)) return DELTA_ENOMEM;
  uint8_t *p = out->data + out->len;
  size_t o = put_varint(p, zigzag(min));
  memcpy(p + o, widths, DBP_MINI);
  o += DBP_MINI;
  for (size_t m = 0; m < minis; m++) {
    if (widths[m] <= 32) {
      uint32_t tmp[DBP_MINI_VALUES];
      for (int i = 0; i < DBP_MINI_VALUES; i++) tmp[i] = (uint32_t)rel[m * DBP_MINI_VALUES + i];
      o += bitpack32(p + o, tmp, DBP_MINI_VALUES, widths[m]);
    } else {
      o += bitpack64(p + o, rel + m * DBP_MINI_VALUES, DBP_MINI_VALUES, widths[m]);
    }
  }
  out->len += o;
  return 0;
}

static int dbp_header(delta_buf *out, size_t n, int64_t first) {
  if (buf_reserve(out, 40)) return DELTA_ENOMEM;
  uint8_t *p = out->data + out->len;
  size_t o = put_varint(p, DBP_BLOCK);
  o += put_varint(p + o, DBP_MINI);
  o += put_varint(p + o, n);
  o += put_varint(p + o, zigzag(first));
  out->len += o;
  return 0;
}

int pq_delta_encode_i32(delta_buf *out, const int32_t *v, size_t n) {
  if (dbp_header(out, n, n ? v[0] : 0)) return DELTA_ENOMEM;
  uint64_t d[DBP_BLOCK];
  size_t i = 1;
  while (i < n) {
    size_t k = 0;
    for (; k < DBP_BLOCK && i < n; k++, i++) d[k] = (uint32_t)v[i] - (uint32_t)v[i - 1];
    if (dbp_block(out, d, k, 32)) return DELTA_ENOMEM;
  }
  return 0;
}

int pq_delta_encode_i64(delta_buf *out, const int64_t *v, size_t n) {
  if (dbp_header(out, n, n ? v[0] : 0)) return DELTA_ENOMEM;
  uint64_t d[DBP_BLOCK];
  size_t i = 1;
  while (i < n) {
    size_t k = 0;
    for (; k < DBP_BLOCK && i < n; k++, i++) d[k] = (uint64_t)v[i] - (uint64_t)v[i - 1];
    if (dbp_block(out, d, k, 64)) return DELTA_ENOMEM;
  }
  return 0;
}
