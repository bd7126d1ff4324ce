/*
 * Tests for the Parquet value and level decoders (src/parquet/encoding.h).
 * Every encoder here is written from the spec (Encodings.md) so decoders are
 * checked by round trips over random data, by the spec's own examples and by
 * corrupt inputs. Inputs are copied into exactly-sized heap blocks so that
 * ASan catches any read past the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/error.h"
#include "parquet/encoding.h"
#include "test.h"

/* --- helpers --------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}
static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }
static uint64_t mask_of(int w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
/* Random value of up to w bits, often small or extreme. */
static uint64_t rnd_bits(int w) {
  switch (rnd() % 4) {
    case 0: return mask_of(w);
    case 1: return rnd() & mask_of(w < 3 ? w : 3);
    default: return rnd() & mask_of(w);
  }
}

typedef struct {
  uint8_t *d;
  size_t len, cap;
} vec;
static void vput(vec *v, const void *p, size_t n) {
  if (v->len + n > v->cap) {
    v->cap = (v->len + n) * 2 + 16;
    v->d = realloc(v->d, v->cap);
  }
  if (n) memcpy(v->d + v->len, p, n);
  v->len += n;
}
static void vbyte(vec *v, uint8_t b) { vput(v, &b, 1); }
static void vuleb(vec *v, uint64_t x) {
  do {
    uint8_t b = x & 0x7f;
    x >>= 7;
    vbyte(v, (uint8_t)(b | (x ? 0x80 : 0)));
  } while (x);
}
static void vzig(vec *v, int64_t x) { vuleb(v, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63)); }
/* LSB-first bit packing of n values at width w (bytes: ceil(n*w/8)). */
static void vpack(vec *v, const uint64_t *vals, size_t n, int w) {
  size_t nbytes = (n * (size_t)w + 7) / 8, base = v->len;
  uint8_t zero[64] = {0};
  for (size_t i = 0; i < nbytes; i += 64) vput(v, zero, nbytes - i < 64 ? nbytes - i : 64);
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < w; b++)
      if ((vals[i] >> b) & 1) {
        size_t bit = i * (size_t)w + (size_t)b;
        v->d[base + bit / 8] |= (uint8_t)(1u << (bit % 8));
      }
}
/* An exact-size heap copy (ASan then flags any overread). */
static uint8_t *exact(const vec *v) {
  uint8_t *p = malloc(v->len ? v->len : 1);
  if (v->len) memcpy(p, v->d, v->len);
  return p;
}

/* --- bit unpacking ---------------------------------------------------------- */

static void test_unpack(void) {
  /* Encodings.md: 0..7 at width 3 packs to 10001000 11000110 11111010. */
  const uint8_t ex[3] = {0x88, 0xC6, 0xFA};
  uint32_t o32[8];
  pq_unpack32(ex, o32, 8, 3);
  for (int i = 0; i < 8; i++) CHECK_EQ_INT(o32[i], i);

  int bad = 0;
  for (int w = 0; w <= 64; w++) {
    for (int rep = 0; rep < 30; rep++) {
      size_t n = 8 * (1 + rnd_below(rep < 5 ? 4 : 40));
      uint64_t *vals = malloc(n * 8), *got64 = malloc(n * 8);
      uint32_t *got32 = malloc(n * 4);
      for (size_t i = 0; i < n; i++) vals[i] = rnd_bits(w);
      vec v = {0};
      vpack(&v, vals, n, w);
      uint8_t *in = exact(&v);
      pq_unpack64(in, got64, n, w);
      pq_unpack32(in, got32, n, w);
      for (size_t i = 0; i < n; i++) {
        if (got64[i] != vals[i] || got32[i] != (uint32_t)vals[i]) bad++;
      }
      free(in);
      free(v.d);
      free(vals);
      free(got64);
      free(got32);
    }
  }
  CHECK_EQ_INT(bad, 0);
}

/* --- RLE / bit-packed hybrid ------------------------------------------------ */

/* Append random runs holding `n` values of width w to v and vals. */
static void rle_write(vec *v, uint32_t *vals, size_t n, int w, size_t *trunc_avail) {
  size_t i = 0;
  *trunc_avail = n;
  while (i < n) {
    size_t left = n - i;
    if (rnd() % 2) {
      size_t len = 1 + rnd_below(rnd() % 4 ? 20 : 600);
      if (len > left) len = left;
      uint32_t x = (uint32_t)rnd_bits(w);
      vuleb(v, (uint64_t)len << 1);
      for (int b = 0; b < (w + 7) / 8; b++) vbyte(v, (uint8_t)(x >> (8 * b)));
      for (size_t j = 0; j < len; j++) vals[i + j] = x;
      i += len;
    } else {
      size_t groups = 1 + rnd_below(rnd() % 4 ? 4 : 40);
      uint64_t buf[8 * 40];
      size_t len = groups * 8;
      for (size_t j = 0; j < len; j++) buf[j] = rnd_bits(w);
      vuleb(v, (uint64_t)groups << 1 | 1);
      if (len >= left) {
        /* Last run: the header counts whole groups but only the bytes for
         * the wanted values are written (a page-end truncation). */
        vpack(v, buf, left, w);
        for (size_t j = 0; j < left; j++) vals[i + j] = (uint32_t)buf[j];
        /* Values whose bits are all present, zero padding included. */
        size_t bytes = (left * (size_t)w + 7) / 8;
        size_t present = w ? bytes * 8 / (size_t)w : len;
        *trunc_avail = i + (present < len ? present : len);
        i = n;
      } else {
        vpack(v, buf, len, w);
        for (size_t j = 0; j < len; j++) vals[i + j] = (uint32_t)buf[j];
        i += len;
      }
    }
  }
}

static void test_rle_roundtrip(void) {
  int bad = 0;
  for (int w = 0; w <= 32; w++) {
    for (int rep = 0; rep < 40; rep++) {
      size_t n = 1 + rnd_below(rep < 10 ? 50 : 3000);
      uint32_t *vals = malloc(n * 4), *got = malloc(n * 4);
      vec v = {0};
      size_t avail;
      rle_write(&v, vals, n, w, &avail);
      uint8_t *in = exact(&v);
      pq_rle_decoder d;
      CHECK_EQ_INT(pq_rle_init(&d, in, v.len, w), 0);
      int mode = (int)(rnd() % 4);
      size_t i = 0;
      while (i < n) {
        size_t k = 1 + rnd_below(rnd() % 2 ? 9 : 700);
        if (k > n - i) k = n - i;
        int rc;
        if (mode == 1 && w <= 16) {
          uint16_t t[700];
          rc = pq_rle_get_u16(&d, t, k);
          for (size_t j = 0; j < k; j++) got[i + j] = t[j];
        } else if (mode == 2 && w <= 8) {
          uint8_t t[700];
          rc = pq_rle_get_u8(&d, t, k);
          for (size_t j = 0; j < k; j++) got[i + j] = t[j];
        } else if (mode == 3 && w < 32) {
          rc = pq_rle_get_indices(&d, got + i, k, w == 32 ? UINT32_MAX : (1u << w));
        } else {
          rc = pq_rle_get_u32(&d, got + i, k);
        }
        if (rc) {
          bad++;
          fprintf(stderr, "rle w=%d: %s\n", w, delta_error_last());
          break;
        }
        i += k;
      }
      if (memcmp(vals, got, n * 4)) bad++;
      /* Past the written values: more only if the truncated run has them. */
      uint32_t extra[64];
      size_t more = avail - n;
      if (more > 64) more = 64;
      if (pq_rle_get_u32(&d, extra, more)) bad++;
      if (w > 0 && pq_rle_get_u32(&d, extra, 1) != DELTA_ECORRUPT) bad++;
      free(in);
      free(v.d);
      free(vals);
      free(got);
    }
  }
  CHECK_EQ_INT(bad, 0);
}

static int rle_try(const uint8_t *bytes, size_t len, int w, size_t n) {
  uint8_t *in = malloc(len ? len : 1);
  if (len) memcpy(in, bytes, len);
  uint32_t out[64];
  pq_rle_decoder d;
  int rc = pq_rle_init(&d, in, len, w);
  if (!rc) rc = pq_rle_get_u32(&d, out, n);
  free(in);
  return rc;
}

static void test_rle_vectors(void) {
  /* Spec example as one bit-packed group: header (1 << 1 | 1) = 3. */
  const uint8_t ex[] = {0x03, 0x88, 0xC6, 0xFA};
  pq_rle_decoder d;
  uint32_t out[16];
  CHECK_EQ_INT(pq_rle_init(&d, ex, sizeof ex, 3), 0);
  CHECK_EQ_INT(pq_rle_get_u32(&d, out, 8), 0);
  for (int i = 0; i < 8; i++) CHECK_EQ_INT(out[i], i);
  /* RLE run: 5 copies of 0x0102 at width 10 (2 value bytes), then 3 of 7 at... */
  const uint8_t r[] = {0x0a, 0x02, 0x01, 0x06, 0x07, 0x00};
  CHECK_EQ_INT(pq_rle_init(&d, r, sizeof r, 10), 0);
  CHECK_EQ_INT(pq_rle_get_u32(&d, out, 8), 0);
  CHECK_EQ_INT(out[0], 0x102);
  CHECK_EQ_INT(out[4], 0x102);
  CHECK_EQ_INT(out[5], 7);
  CHECK_EQ_INT(out[7], 7);
  CHECK_EQ_INT(pq_rle_get_u32(&d, out, 1), DELTA_ECORRUPT);
  /* Width 0: zeros without reading anything. */
  CHECK_EQ_INT(pq_rle_init(&d, NULL, 0, 0), 0);
  CHECK_EQ_INT(pq_rle_get_u32(&d, out, 16), 0);
  CHECK_EQ_INT(out[15], 0);
  /* Indices: a 0-bit stream with an empty dictionary is corrupt. */
  CHECK_EQ_INT(pq_rle_get_indices(&d, out, 1, 0), DELTA_ECORRUPT);
  const uint8_t idx[] = {0x08, 0x05}; /* 4 x 5 */
  CHECK_EQ_INT(pq_rle_init(&d, idx, sizeof idx, 3), 0);
  CHECK_EQ_INT(pq_rle_get_indices(&d, out, 4, 5), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "index 5") != NULL);
  CHECK_EQ_INT(pq_rle_init(&d, ex, sizeof ex, 3), 0);
  CHECK_EQ_INT(pq_rle_get_indices(&d, out, 8, 7), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_rle_init(&d, ex, sizeof ex, 3), 0);
  CHECK_EQ_INT(pq_rle_get_indices(&d, out, 8, 8), 0);

  /* Corruption. */
  CHECK_EQ_INT(rle_try(ex, 1, 33, 1), DELTA_ECORRUPT);                  /* width > 32 */
  CHECK_EQ_INT(rle_try(ex, 1, -1, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x80}, 1, 3, 1), DELTA_ECORRUPT); /* cut header */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                         0x01},
                       11, 3, 1),
               DELTA_ECORRUPT);                                            /* overlong varint */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x04}, 1, 9, 1), DELTA_ECORRUPT); /* no run value */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x04, 0x01}, 2, 9, 1), DELTA_ECORRUPT); /* 1 of 2 bytes */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x04, 0x08}, 2, 3, 1), DELTA_ECORRUPT); /* 8 > 3 bits */
  /* Run lengths past 2^31-1. */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x10, 0x01}, 6, 1, 1),
               DELTA_ECORRUPT);
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x81, 0x80, 0x80, 0x80, 0x02, 0x01}, 6, 1, 1),
               DELTA_ECORRUPT);
  /* A huge but legal RLE run decodes only what is asked. */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01}, 6, 1, 64), 0);
  /* Runs end before the values do. */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x04, 0x01}, 2, 1, 3), DELTA_ECORRUPT);
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x03, 0xff}, 2, 3, 3), DELTA_ECORRUPT); /* 2 values here */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x03, 0xff}, 2, 3, 2), 0);
  /* Zero-length runs are skipped, and cannot loop forever. */
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x00, 0x01, 0x00, 0x01, 0x02, 0x01}, 6, 1, 1), 0);
  CHECK_EQ_INT(rle_try((const uint8_t[]){0x00, 0x01, 0x01, 0x01}, 4, 1, 1), DELTA_ECORRUPT);
  /* Narrow outputs refuse wide streams. */
  uint16_t o16[4];
  CHECK_EQ_INT(pq_rle_init(&d, ex, sizeof ex, 17), 0);
  CHECK_EQ_INT(pq_rle_get_u16(&d, o16, 1), DELTA_EINVAL);
}

/* --- legacy BIT_PACKED ------------------------------------------------------ */

static void test_legacy(void) {
  const uint8_t ex[3] = {0x05, 0x39, 0x77};
  uint16_t out[600];
  CHECK_EQ_INT(pq_bitpacked_legacy_get_u16(ex, 3, 3, out, 8), 0);
  for (int i = 0; i < 8; i++) CHECK_EQ_INT(out[i], i);
  CHECK_EQ_INT(pq_bitpacked_legacy_get_u16(ex, 3, 3, out, 9), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_bitpacked_legacy_get_u16(ex, 3, 17, out, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_bitpacked_legacy_get_u16(NULL, 0, 0, out, 5), 0);
  int bad = 0;
  for (int w = 1; w <= 16; w++) {
    for (int rep = 0; rep < 20; rep++) {
      size_t n = 1 + rnd_below(600);
      uint16_t vals[600];
      vec v = {0};
      size_t nbytes = (n * (size_t)w + 7) / 8;
      uint8_t *buf = calloc(nbytes, 1);
      for (size_t i = 0; i < n; i++) {
        vals[i] = (uint16_t)rnd_bits(w);
        for (int b = 0; b < w; b++) /* MSB of each value first */
          if ((vals[i] >> (w - 1 - b)) & 1) {
            size_t bit = i * (size_t)w + (size_t)b;
            buf[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
          }
      }
      vput(&v, buf, nbytes);
      uint8_t *in = exact(&v);
      if (pq_bitpacked_legacy_get_u16(in, nbytes, w, out, n) || memcmp(out, vals, n * 2)) bad++;
      if (pq_bitpacked_legacy_get_u16(in, nbytes, w, out, nbytes * 8 / (size_t)w + 1) !=
          DELTA_ECORRUPT)
        bad++;
      free(in);
      free(buf);
      free(v.d);
    }
  }
  CHECK_EQ_INT(bad, 0);
}

/* --- PLAIN booleans --------------------------------------------------------- */

static void test_plain_bools(void) {
  int bad = 0;
  for (int rep = 0; rep < 300; rep++) {
    size_t len = rnd_below(40);
    vec v = {0};
    for (size_t i = 0; i < len; i++) vbyte(&v, (uint8_t)rnd());
    uint8_t *in = exact(&v);
    size_t off = rnd_below(len * 8 + 1), n = rnd_below(len * 8 - off + 1);
    uint8_t out[320];
    if (pq_plain_bools(in, len, off, out, n)) bad++;
    for (size_t i = 0; i < n; i++)
      if (out[i] != ((in[(off + i) / 8] >> ((off + i) % 8)) & 1)) bad++;
    if (pq_plain_bools(in, len, off, out, len * 8 - off + 1) != DELTA_ECORRUPT) bad++;
    free(in);
    free(v.d);
  }
  CHECK_EQ_INT(bad, 0);
  uint8_t o[1];
  CHECK_EQ_INT(pq_plain_bools((const uint8_t *)"x", 1, SIZE_MAX, o, 1), DELTA_ECORRUPT);
}

/* --- DELTA_BINARY_PACKED ---------------------------------------------------- */

typedef struct {
  uint64_t block, mbs;
  bool arith32;      /* INT32 writer: deltas and min in 32-bit arithmetic */
  bool garbage_tail; /* unused last-block widths are garbage */
  bool short_last;   /* last miniblock without its padding bytes */
} dbp_cfg;

static void dbp_write(vec *v, const int64_t *vals, size_t n, dbp_cfg c) {
  vuleb(v, c.block);
  vuleb(v, c.mbs);
  vuleb(v, n);
  vzig(v, n ? vals[0] : 0);
  size_t vpm = (size_t)(c.block / c.mbs);
  uint64_t *rel = malloc(c.block * 8);
  for (size_t start = 1; start < n; start += (size_t)c.block) {
    size_t cnt = n - start < c.block ? n - start : (size_t)c.block;
    uint64_t min = 0;
    for (size_t i = 0; i < cnt; i++) {
      uint64_t dl = (uint64_t)vals[start + i] - (uint64_t)vals[start + i - 1];
      if (c.arith32) dl = (uint64_t)(int64_t)(int32_t)(uint32_t)dl;
      if (i == 0 || (int64_t)dl < (int64_t)min) min = dl;
      rel[i] = dl;
    }
    for (size_t i = 0; i < cnt; i++) {
      rel[i] -= min;
      if (c.arith32) rel[i] = (uint32_t)rel[i];
    }
    vzig(v, (int64_t)min);
    size_t used = (cnt + vpm - 1) / vpm;
    int widths[4096];
    for (size_t m = 0; m < c.mbs; m++) {
      int w = 0;
      if (m < used) {
        for (size_t i = m * vpm; i < cnt && i < (m + 1) * vpm; i++)
          while (w < 64 && (rel[i] >> w)) w++;
        widths[m] = w;
      } else {
        w = c.garbage_tail ? (int)(rnd() % 256) : 0;
      }
      vbyte(v, (uint8_t)w);
    }
    for (size_t m = 0; m < used; m++) {
      uint64_t buf[4096];
      size_t have = cnt - m * vpm < vpm ? cnt - m * vpm : vpm;
      for (size_t i = 0; i < vpm; i++) /* padding values are arbitrary bits */
        buf[i] = i < have ? rel[m * vpm + i] : rnd() & mask_of(widths[m]);
      bool last = start + (size_t)c.block >= n && m == used - 1;
      vpack(v, buf, c.short_last && last ? have : vpm, widths[m]);
    }
  }
  free(rel);
}

static int64_t rnd_i64_series(int kind, int64_t prev) {
  switch (kind) {
    case 0: return (int64_t)((uint64_t)prev + 1);
    case 1: return (int64_t)((uint64_t)prev + rnd_below(1000) - 500);
    case 2: return (int64_t)rnd();
    case 3: return rnd() % 2 ? INT64_MIN + (int64_t)rnd_below(3) : INT64_MAX - (int64_t)rnd_below(3);
    default: return (int64_t)(rnd() % 2 ? rnd_bits((int)rnd_below(65)) : -rnd_bits((int)rnd_below(64)));
  }
}

static void test_dbp_roundtrip(void) {
  static const uint64_t cfgs[][2] = {{128, 4}, {128, 1}, {256, 8}, {128, 2}, {1024, 32}, {512, 1}};
  int bad = 0;
  for (int rep = 0; rep < 600; rep++) {
    dbp_cfg c = {cfgs[rep % 6][0], cfgs[rep % 6][1], rep % 3 == 1, rnd() % 2, rnd() % 3 == 0};
    size_t n = rnd_below(rep < 100 ? 40 : 3000);
    int kind = (int)rnd_below(5);
    int64_t *vals = malloc((n + 1) * 8), *got = malloc((n + 1) * 8);
    int32_t *got32 = malloc((n + 1) * 4);
    int64_t prev = (int64_t)rnd_bits(40);
    for (size_t i = 0; i < n; i++) {
      prev = rnd() % 8 ? rnd_i64_series(kind, prev) : rnd_i64_series(4, prev);
      if (c.arith32 || rep % 3 == 2) prev = (int32_t)(uint32_t)prev; /* INT32 data */
      vals[i] = prev;
    }
    vec v = {0};
    dbp_write(&v, vals, n, c);
    size_t stream_len = v.len;
    if (!c.short_last) vput(&v, "TAIL", 4);
    uint8_t *in = exact(&v);
    bool int32_data = c.arith32 || rep % 3 == 2;
    pq_dbp_decoder d;
    if (pq_dbp_init(&d, in, v.len)) {
      bad++;
      fprintf(stderr, "dbp init: %s\n", delta_error_last());
    } else {
      if (pq_dbp_total(&d) != n) bad++;
      size_t i = 0;
      while (i < n) {
        size_t k = 1 + rnd_below(rnd() % 2 ? 40 : 500);
        if (k > n - i) k = n - i;
        bool narrow = int32_data && rnd() % 2;
        int rc = narrow ? pq_dbp_get_i32(&d, got32 + i, k) : pq_dbp_get_i64(&d, got + i, k);
        if (rc) {
          bad++;
          fprintf(stderr, "dbp get: %s\n", delta_error_last());
          break;
        }
        if (int32_data) /* the low 32 bits are right either way */
          for (size_t j = i; j < i + k; j++)
            if ((narrow ? got32[j] : (int32_t)got[j]) != (int32_t)vals[j]) bad++;
        i += k;
      }
      if (!int32_data && n && memcmp(got, vals, n * 8)) bad++;
      if (pq_dbp_get_i64(&d, got, 1) != DELTA_ECORRUPT) bad++;
      if (!c.short_last) {
        const uint8_t *e;
        if (pq_dbp_skip_to_end(&d, &e) || e != in + stream_len) bad++;
      }
    }
    /* Skipping from a fresh or half-read decoder finds the same end. */
    if (!c.short_last && !pq_dbp_init(&d, in, v.len)) {
      const uint8_t *e = NULL;
      size_t k = rnd_below(n + 1);
      if (pq_dbp_get_i64(&d, got, k) || pq_dbp_skip_to_end(&d, &e) || e != in + stream_len) {
        bad++;
        fprintf(stderr, "dbp skip after %zu of %zu: %s\n", k, n, delta_error_last());
      }
    }
    /* Cut streams fail cleanly (or hold all values when only padding went). */
    if (n > 1) {
      size_t cut = rnd_below(stream_len);
      pq_dbp_decoder d2;
      if (!pq_dbp_init(&d2, in, cut)) {
        int rc = pq_dbp_get_i64(&d2, got, n);
        if (rc && rc != DELTA_ECORRUPT) bad++;
        if (!rc && memcmp(got, vals, n * 8) && !int32_data) bad++;
      }
    }
    free(in);
    free(v.d);
    free(vals);
    free(got);
    free(got32);
  }
  CHECK_EQ_INT(bad, 0);
}

static int dbp_try(const uint8_t *bytes, size_t len, size_t n) {
  uint8_t *in = malloc(len ? len : 1);
  if (len) memcpy(in, bytes, len);
  int64_t out[256];
  pq_dbp_decoder d;
  int rc = pq_dbp_init(&d, in, len);
  if (!rc) rc = pq_dbp_get_i64(&d, out, n);
  free(in);
  return rc;
}

static void test_dbp_vectors(void) {
  int64_t out[64];
  pq_dbp_decoder d;
  /* Encodings.md example 1 (1..5) with a legal block of 128 / 4 miniblocks. */
  const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, /* min delta 1 */ 0x02, 0, 0, 0, 0};
  CHECK_EQ_INT(pq_dbp_init(&d, ex1, sizeof ex1), 0);
  CHECK_EQ_INT(pq_dbp_get_i64(&d, out, 5), 0);
  for (int i = 0; i < 5; i++) CHECK_EQ_INT(out[i], i + 1);
  /* As printed in the spec (block size 8) it is illegal. */
  const uint8_t ex1s[] = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
  CHECK_EQ_INT(pq_dbp_init(&d, ex1s, sizeof ex1s), DELTA_ECORRUPT);
  /* Example 2: 7,5,3,1,2,3,4,5; min delta -2, relative 0,0,0,3,3,3,3 at width 2. */
  const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 2, 0, 0, 0,
                         0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
  static const int64_t want2[] = {7, 5, 3, 1, 2, 3, 4, 5};
  CHECK_EQ_INT(pq_dbp_init(&d, ex2, sizeof ex2), 0);
  CHECK_EQ_INT(pq_dbp_get_i64(&d, out, 8), 0);
  for (int i = 0; i < 8; i++) CHECK_EQ_INT(out[i], want2[i]);
  const uint8_t *e;
  CHECK_EQ_INT(pq_dbp_skip_to_end(&d, &e), 0);
  CHECK(e == ex2 + sizeof ex2);
  /* A one-value stream has no blocks at all. */
  const uint8_t one[] = {0x80, 0x01, 0x04, 0x01, 0x7f};
  CHECK_EQ_INT(pq_dbp_init(&d, one, sizeof one), 0);
  CHECK_EQ_INT(pq_dbp_skip_to_end(&d, &e), 0);
  CHECK(e == one + sizeof one);
  CHECK_EQ_INT(dbp_try(one, sizeof one, 1), 0);
  /* INT32 written with 64-bit arithmetic: INT32_MIN, INT32_MAX, INT32_MIN has
   * deltas +(2^32-1), -(2^32-1): min delta outside int32 and width 33. */
  {
    vec v = {0};
    int64_t vals[3] = {INT32_MIN, INT32_MAX, INT32_MIN};
    dbp_write(&v, vals, 3, (dbp_cfg){128, 4, false, false, false});
    CHECK_EQ_INT(v.d[v.len - 4 * 33 - 4], 33); /* first width byte */
    int32_t o32[3];
    CHECK_EQ_INT(pq_dbp_init(&d, v.d, v.len), 0);
    CHECK_EQ_INT(pq_dbp_get_i32(&d, o32, 3), 0);
    CHECK_EQ_INT(o32[0], INT32_MIN);
    CHECK_EQ_INT(o32[1], INT32_MAX);
    CHECK_EQ_INT(o32[2], INT32_MIN);
    free(v.d);
  }
  /* Header checks. */
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x03, 0x01, 0x00}, 5, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x08, 0x01, 0x00}, 5, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x00, 0x01, 0x00}, 5, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x00, 0x01, 0x01, 0x00}, 4, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x04}, 3, 0), DELTA_ECORRUPT);
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x10, 0x01, 0x01, 0x00}, 8, 0),
               DELTA_ECORRUPT); /* block 2^32 */
  /* Width 65. */
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 65, 0, 0, 0}, 10, 5),
               DELTA_ECORRUPT);
  /* Garbage widths of unused miniblocks are ignored. */
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 99, 200, 255}, 10, 5),
               0);
  /* Missing width bytes, missing miniblock bodies, more values than total. */
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0}, 8, 5),
               DELTA_ECORRUPT);
  CHECK_EQ_INT(dbp_try((const uint8_t[]){0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 8, 0, 0, 0, 1, 2}, 12, 5),
               DELTA_ECORRUPT);
  CHECK_EQ_INT(dbp_try(ex1, sizeof ex1, 6), DELTA_ECORRUPT);
  /* A huge claimed count of zero-width values: skipping is bounded by the
   * bytes, not the count, and ends in an error when the blocks run out. */
  const uint8_t huge[] = {0x80, 0x80, 0x80, 0x80, 0x08, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff,
                          0xff, 0xff, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00};
  CHECK_EQ_INT(pq_dbp_init(&d, huge, sizeof huge), 0);
  CHECK_EQ_INT(pq_dbp_skip_to_end(&d, &e), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_dbp_init(&d, huge, sizeof huge), 0);
  CHECK_EQ_INT(pq_dbp_get_i64(&d, out, 64), 0);
}

/* --- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY --------------------------- */

static void dlba_write(vec *v, char **strs, const size_t *lens, size_t n) {
  int64_t *l = calloc(n + 1, 8);
  for (size_t i = 0; i < n; i++) l[i] = (int64_t)lens[i];
  dbp_write(v, l, n, (dbp_cfg){128, 4, true, false, false});
  for (size_t i = 0; i < n; i++) vput(v, strs[i], lens[i]);
  free(l);
}

static void dba_write(vec *v, char **strs, const size_t *lens, size_t n) {
  int64_t *pre = calloc(n + 1, 8);
  size_t *sl = malloc((n + 1) * sizeof *sl);
  char **suf = malloc((n + 1) * sizeof *suf);
  for (size_t i = 0; i < n; i++) {
    size_t p = 0;
    if (i)
      while (p < lens[i] && p < lens[i - 1] && strs[i][p] == strs[i - 1][p]) p++;
    if (p && rnd() % 4 == 0) p = rnd_below(p + 1); /* a shorter prefix is legal too */
    pre[i] = (int64_t)p;
    suf[i] = strs[i] + p;
    sl[i] = lens[i] - p;
  }
  dbp_write(v, pre, n, (dbp_cfg){128, 4, false, false, false});
  dlba_write(v, suf, sl, n);
  free(pre);
  free(sl);
  free(suf);
}

static int check_builder(pq_binary_builder *b, char **strs, const size_t *lens, size_t n) {
  const int32_t *off = (const int32_t *)b->offsets.data;
  if (b->offsets.len != (n + 1) * 4) return 1;
  for (size_t i = 0; i < n; i++) {
    if ((size_t)(off[i + 1] - off[i]) != lens[i]) return 1;
    if (lens[i] && memcmp(b->data.data + off[i], strs[i], lens[i])) return 1;
  }
  return 0;
}

static void builder_init(pq_binary_builder *b) {
  memset(b, 0, sizeof *b);
  int32_t z = 0;
  buf_append(&b->offsets, &z, 4);
}

static void builder_free(pq_binary_builder *b) {
  buf_dispose(&b->offsets);
  buf_dispose(&b->data);
}

static void test_byte_arrays_roundtrip(void) {
  int bad = 0;
  for (int rep = 0; rep < 200; rep++) {
    size_t n = rnd_below(rep < 50 ? 10 : 1500);
    char **strs = malloc((n + 1) * sizeof *strs);
    size_t *lens = malloc((n + 1) * sizeof *lens);
    size_t fixed = rnd() % 3 == 0 ? rnd_below(12) : 0;
    for (size_t i = 0; i < n; i++) {
      size_t l = fixed ? fixed : rnd_below(rnd() % 8 ? 12 : 300);
      strs[i] = malloc(l + 1);
      /* Share prefixes with the previous value often. */
      size_t share = i && rnd() % 2 ? rnd_below((l < lens[i - 1] ? l : lens[i - 1]) + 1) : 0;
      if (share) memcpy(strs[i], strs[i - 1], share);
      for (size_t j = share; j < l; j++) strs[i][j] = (char)('a' + rnd_below(3));
      lens[i] = l;
    }
    for (int kind = 0; kind < 2; kind++) {
      vec v = {0};
      if (kind == 0) dlba_write(&v, strs, lens, n);
      else dba_write(&v, strs, lens, n);
      uint8_t *in = exact(&v);
      pq_binary_builder b;
      builder_init(&b);
      int rc = 0;
      if (kind == 0) {
        pq_dlba_decoder d;
        rc = pq_dlba_init(&d, in, v.len);
        for (size_t i = 0; !rc && i < n;) {
          size_t k = 1 + rnd_below(300);
          if (k > n - i) k = n - i;
          rc = pq_dlba_get(&d, &b, k);
          i += k;
        }
        if (!rc && pq_dlba_get(&d, &b, 1) != DELTA_ECORRUPT) bad++;
        pq_dlba_free(&d);
      } else {
        pq_dba_decoder d;
        rc = pq_dba_init(&d, in, v.len);
        if (!rc && fixed) {
          uint8_t *fx = malloc(n * fixed + 1);
          rc = pq_dba_get_fixed(&d, fx, n, (int32_t)fixed);
          for (size_t i = 0; !rc && i < n; i++)
            if (memcmp(fx + i * fixed, strs[i], fixed)) bad++;
          free(fx);
          pq_dba_free(&d);
          rc = rc ? rc : pq_dba_init(&d, in, v.len);
          if (!rc && n && pq_dba_get_fixed(&d, (uint8_t[16]){0}, 1, (int32_t)fixed + 1) != DELTA_ECORRUPT)
            bad++;
          pq_dba_free(&d);
          rc = rc ? rc : pq_dba_init(&d, in, v.len);
        }
        for (size_t i = 0; !rc && i < n;) {
          size_t k = 1 + rnd_below(300);
          if (k > n - i) k = n - i;
          rc = pq_dba_get(&d, &b, k);
          i += k;
        }
        pq_dba_free(&d);
      }
      if (rc) {
        bad++;
        fprintf(stderr, "byte arrays kind %d: %s\n", kind, delta_error_last());
      } else if (check_builder(&b, strs, lens, n)) {
        bad++;
      }
      /* Truncations fail cleanly (ASan watches the reads). */
      for (int t = 0; t < 4 && v.len; t++) {
        size_t cut = rnd_below(v.len);
        uint8_t *c = malloc(cut + 1);
        memcpy(c, in, cut);
        pq_binary_builder b2;
        builder_init(&b2);
        if (kind == 0) {
          pq_dlba_decoder d;
          if (!pq_dlba_init(&d, c, cut)) {
            rc = pq_dlba_get(&d, &b2, n);
            if (rc != DELTA_ECORRUPT && n && lens[n - 1]) bad++;
          }
          pq_dlba_free(&d);
        } else {
          pq_dba_decoder d;
          if (!pq_dba_init(&d, c, cut)) {
            rc = pq_dba_get(&d, &b2, n);
            if (rc && rc != DELTA_ECORRUPT) bad++;
          }
          pq_dba_free(&d);
        }
        builder_free(&b2);
        free(c);
      }
      builder_free(&b);
      free(in);
      free(v.d);
    }
    for (size_t i = 0; i < n; i++) free(strs[i]);
    free(strs);
    free(lens);
  }
  CHECK_EQ_INT(bad, 0);
}

static void test_byte_array_vectors(void) {
  /* Encodings.md DELTA_LENGTH_BYTE_ARRAY example. */
  char *hello[] = {"Hello", "World", "Foobar", "ABCDEF"};
  size_t hl[] = {5, 5, 6, 6};
  vec v = {0};
  dlba_write(&v, hello, hl, 4);
  CHECK(v.len >= 22 && memcmp(v.d + v.len - 22, "HelloWorldFoobarABCDEF", 22) == 0);
  pq_binary_builder b;
  builder_init(&b);
  pq_dlba_decoder dl;
  CHECK_EQ_INT(pq_dlba_init(&dl, v.d, v.len), 0);
  CHECK_EQ_INT(pq_dlba_get(&dl, &b, 4), 0);
  CHECK_EQ_INT(check_builder(&b, hello, hl, 4), 0);
  pq_dlba_free(&dl);
  /* A length past the page end. */
  CHECK_EQ_INT(pq_dlba_init(&dl, v.d, v.len - 1), 0);
  CHECK_EQ_INT(pq_dlba_get(&dl, &b, 4), DELTA_ECORRUPT);
  pq_dlba_free(&dl);
  free(v.d);
  builder_free(&b);

  /* Negative length. */
  {
    vec n = {0};
    int64_t l[2] = {3, -1};
    dbp_write(&n, l, 2, (dbp_cfg){128, 4, false, false, false});
    vput(&n, "abcdef", 6);
    builder_init(&b);
    CHECK_EQ_INT(pq_dlba_init(&dl, n.d, n.len), 0);
    CHECK_EQ_INT(pq_dlba_get(&dl, &b, 2), DELTA_ECORRUPT);
    CHECK(strstr(delta_error_last(), "negative") != NULL);
    builder_free(&b);
    free(n.d);
  }

  /* Encodings.md DELTA_BYTE_ARRAY example: prefixes 0,2,0,3; suffixes. */
  {
    vec s = {0};
    int64_t pre[4] = {0, 2, 0, 3};
    char *suf[] = {"axis", "le", "babble", "yhood"};
    size_t sl[] = {4, 2, 6, 5};
    dbp_write(&s, pre, 4, (dbp_cfg){128, 4, false, false, false});
    dlba_write(&s, suf, sl, 4);
    char *want[] = {"axis", "axle", "babble", "babyhood"};
    size_t wl[] = {4, 4, 6, 8};
    pq_dba_decoder d;
    builder_init(&b);
    CHECK_EQ_INT(pq_dba_init(&d, s.d, s.len), 0);
    CHECK_EQ_INT(pq_dba_get(&d, &b, 4), 0);
    CHECK_EQ_INT(check_builder(&b, want, wl, 4), 0);
    pq_dba_free(&d);
    builder_free(&b);
    free(s.d);
  }
  /* Prefix longer than the previous value; count mismatch. */
  {
    vec s = {0};
    int64_t pre[2] = {0, 3};
    char *suf[] = {"ab", "x"};
    size_t sl[] = {2, 1};
    dbp_write(&s, pre, 2, (dbp_cfg){128, 4, false, false, false});
    dlba_write(&s, suf, sl, 2);
    pq_dba_decoder d;
    builder_init(&b);
    CHECK_EQ_INT(pq_dba_init(&d, s.d, s.len), 0);
    CHECK_EQ_INT(pq_dba_get(&d, &b, 2), DELTA_ECORRUPT);
    CHECK(strstr(delta_error_last(), "prefix length 3") != NULL);
    pq_dba_free(&d);
    builder_free(&b);
    free(s.d);
    s = (vec){0};
    dbp_write(&s, pre, 2, (dbp_cfg){128, 4, false, false, false});
    dlba_write(&s, suf, sl, 1);
    CHECK_EQ_INT(pq_dba_init(&d, s.d, s.len), DELTA_ECORRUPT);
    pq_dba_free(&d);
    free(s.d);
  }
  /* int32 offsets overflow: pretend the column already holds ~2 GiB. */
  {
    vec s = {0};
    dlba_write(&s, hello, hl, 4);
    builder_init(&b);
    b.data.len = (size_t)INT32_MAX - 3;
    CHECK_EQ_INT(pq_dlba_init(&dl, s.d, s.len), 0);
    CHECK_EQ_INT(pq_dlba_get(&dl, &b, 1), DELTA_ELIMIT);
    b.data.len = 0;
    builder_free(&b);
    free(s.d);
  }
}

/* --- BYTE_STREAM_SPLIT ------------------------------------------------------ */

static void test_bss(void) {
  const uint8_t ex[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
  const uint8_t want[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
  uint8_t out[64];
  CHECK_EQ_INT(pq_bss_get(ex, 12, 4, 3, 0, out, 3), 0);
  CHECK(memcmp(out, want, 12) == 0);
  CHECK_EQ_INT(pq_bss_get(ex, 12, 4, 3, 1, out, 2), 0);
  CHECK(memcmp(out, want + 4, 8) == 0);
  CHECK_EQ_INT(pq_bss_get(ex, 12, 4, 3, 2, out, 2), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_bss_get(ex, 12, 4, 4, 0, out, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_bss_get(ex, 12, 0, 3, 0, out, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_bss_get(ex, 12, 4, UINT64_MAX, 0, out, 1), DELTA_ECORRUPT);
  CHECK_EQ_INT(pq_bss_get(ex, 12, 4, 3, UINT64_MAX, out, 2), DELTA_ECORRUPT);
  int bad = 0;
  for (int rep = 0; rep < 200; rep++) {
    int w = 1 + (int)rnd_below(20);
    size_t total = rnd_below(100);
    uint8_t *vals = malloc(total * (size_t)w + 1);
    vec v = {0};
    for (size_t i = 0; i < total * (size_t)w; i++) vals[i] = (uint8_t)rnd();
    for (int k = 0; k < w; k++)
      for (size_t i = 0; i < total; i++) vbyte(&v, vals[i * (size_t)w + (size_t)k]);
    uint8_t *in = exact(&v);
    size_t start = rnd_below(total + 1), n = rnd_below(total - start + 1);
    uint8_t *o = malloc(n * (size_t)w + 1);
    if (pq_bss_get(in, v.len, w, total, start, o, n) ||
        (n && memcmp(o, vals + start * (size_t)w, n * (size_t)w)))
      bad++;
    free(o);
    free(in);
    free(v.d);
    free(vals);
  }
  CHECK_EQ_INT(bad, 0);
}

int main(void) {
  test_unpack();
  test_rle_roundtrip();
  test_rle_vectors();
  test_legacy();
  test_plain_bools();
  test_dbp_roundtrip();
  test_dbp_vectors();
  test_byte_arrays_roundtrip();
  test_byte_array_vectors();
  test_bss();
  TEST_MAIN_END();
}
