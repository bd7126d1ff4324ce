/*
 * Micro-benchmark for the hot decoding loops: pq_unpack32 at every width
 * 1..32 and RLE/bit-packed dictionary-index decoding. Prints throughput only
 * (output MB/s and values/s); it asserts nothing.
 *
 * Build: cc -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Isrc bench/bench_unpack.c
 *        src/parquet/bitunpack.c src/parquet/rle.c src/util/(alloc,buf,error).c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parquet/encoding.h"

/* Values per pass: a page-sized batch whose output (256 KiB) stays in L2, so
 * this measures decoding rather than memory bandwidth. */
#define N (1u << 16)

static uint64_t state = 88172645463325252ull;
static uint64_t rnd(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pack(uint8_t *out, const uint32_t *v, size_t n, int w) {
  memset(out, 0, (n * (size_t)w + 7) / 8);
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < w; b++)
      if ((v[i] >> b) & 1) out[(i * (size_t)w + (size_t)b) / 8] |= (uint8_t)(1u << ((i * (size_t)w + (size_t)b) % 8));
}

/* Repeat f until ~0.2 s have passed; return values per second. */
#define TIME_LOOP(values, body)                                                    \
  do {                                                                             \
    double t0 = now(), t;                                                          \
    size_t reps = 0;                                                               \
    do {                                                                           \
      body;                                                                        \
      reps++;                                                                      \
    } while ((t = now()) - t0 < 0.2);                                              \
    rate = (double)(values) * (double)reps / (t - t0);                             \
  } while (0)

int main(void) {
  uint32_t *vals = malloc(N * 4), *out = malloc(N * 4);
  uint8_t *packed = malloc(N * 4 + 16);
  uint32_t sink = 0;
  double rate;
  printf("pq_unpack32 (%u values per call)\n%5s %12s %12s\n", N, "width", "MB/s out", "Mvalues/s");
  for (int w = 1; w <= 32; w++) {
    uint32_t mask = w == 32 ? 0xffffffffu : ((1u << w) - 1);
    for (size_t i = 0; i < N; i++) vals[i] = (uint32_t)rnd() & mask;
    pack(packed, vals, N, w);
    TIME_LOOP(N, pq_unpack32(packed, out, N, w); sink += out[N - 1]);
    if (memcmp(out, vals, N * 4)) printf("width %d: WRONG RESULT\n", w);
    printf("%5d %12.0f %12.0f\n", w, rate * 4 / 1e6, rate / 1e6);
  }

  /* Dictionary indices: a realistic mix of short RLE runs and bit-packed
   * runs at widths typical of dictionaries (8..16 bits). */
  printf("\nRLE dictionary indices (pq_rle_get_indices)\n%5s %10s %12s %12s\n", "width", "runs",
         "MB/s out", "Mvalues/s");
  for (int w = 1; w <= 20; w += (w < 4 ? 1 : 4)) {
    for (int mix = 0; mix < 2; mix++) {
      /* mix 0: all bit-packed runs of 64 groups; mix 1: ~30% RLE runs. */
      uint8_t *enc = malloc(N * 4 + 1024), *p = enc;
      size_t i = 0;
      uint32_t dict = 1u << w;
      while (i < N) {
        if (mix && rnd() % 10 < 3) {
          size_t len = 8 + rnd() % 40;
          if (len > N - i) len = N - i;
          size_t h = len << 1;
          while (h >= 0x80) { *p++ = (uint8_t)(h | 0x80); h >>= 7; }
          *p++ = (uint8_t)h;
          uint32_t v = (uint32_t)rnd() % dict;
          for (int b = 0; b < (w + 7) / 8; b++) *p++ = (uint8_t)(v >> (8 * b));
          i += len;
        } else {
          size_t groups = 64;
          if (groups * 8 > N - i) groups = (N - i + 7) / 8;
          size_t h = groups << 1 | 1;
          while (h >= 0x80) { *p++ = (uint8_t)(h | 0x80); h >>= 7; }
          *p++ = (uint8_t)h;
          for (size_t j = 0; j < groups * 8; j++) vals[j] = (uint32_t)rnd() % dict;
          pack(p, vals, groups * 8, w);
          p += groups * (size_t)w;
          i += groups * 8;
        }
      }
      size_t len = (size_t)(p - enc);
      TIME_LOOP(N, {
        pq_rle_decoder d;
        pq_rle_init(&d, enc, len, w);
        if (pq_rle_get_indices(&d, out, N, dict)) { printf("decode failed\n"); return 1; }
        sink += out[N - 1];
      });
      printf("%5d %10s %12.0f %12.0f\n", w, mix ? "mixed" : "packed", rate * 4 / 1e6, rate / 1e6);
      free(enc);
    }
  }
  printf("(checksum %u)\n", sink);
  free(vals);
  free(out);
  free(packed);
  return 0;
}
