/*
 * libFuzzer target for the Parquet value/level decoders (encoding.h).
 * Byte 0 picks the decoder, byte 1 a parameter (bit width, value width or
 * dictionary size), bytes 2-3 how many values to ask for per call; the rest
 * is the encoded input, copied to an exact-size buffer so sanitizers see
 * any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"

#define MAX_VALUES 4096

static void run(int which, int param, size_t n, const uint8_t *data, size_t len) {
  static uint32_t u32[MAX_VALUES];
  static uint16_t u16[MAX_VALUES];
  static uint8_t u8[MAX_VALUES * 16];
  static int64_t i64[MAX_VALUES];
  static int32_t i32[MAX_VALUES];
  switch (which) {
    case 0: case 1: case 2: case 3: {
      pq_rle_decoder d;
      if (pq_rle_init(&d, data, len, param % 34)) return;
      for (int rep = 0; rep < 4; rep++) {
        int rc = which == 0   ? pq_rle_get_u32(&d, u32, n)
                 : which == 1 ? pq_rle_get_u16(&d, u16, n)
                 : which == 2 ? pq_rle_get_u8(&d, u8, n)
                              : pq_rle_get_indices(&d, u32, n, (uint32_t)param * 37);
        if (rc) return;
      }
      return;
    }
    case 4:
      pq_bitpacked_legacy_get_u16(data, len, param % 18, u16, n);
      return;
    case 5:
      pq_plain_bools(data, len, (size_t)param, u8, n);
      return;
    case 6: case 7: {
      pq_dbp_decoder d;
      if (pq_dbp_init(&d, data, len)) return;
      pq_dbp_decoder copy = d;
      const uint8_t *end;
      if (!pq_dbp_skip_to_end(&copy, &end) && (end < data || end > data + len)) abort();
      for (int rep = 0; rep < 4; rep++) {
        int rc = which == 6 ? pq_dbp_get_i64(&d, i64, n) : pq_dbp_get_i32(&d, i32, n);
        if (rc) break;
      }
      if (!pq_dbp_skip_to_end(&d, &end) && (end < data || end > data + len)) abort();
      return;
    }
    case 8: case 9: case 10: {
      pq_binary_builder b;
      memset(&b, 0, sizeof b);
      b.data.limit = (size_t)1 << 24; /* the decoders amplify (prefixes); keep RSS small */
      b.offsets.limit = (size_t)1 << 20;
      int32_t zero = 0;
      if (buf_append(&b.offsets, &zero, sizeof zero)) return;
      if (which == 8) {
        pq_dlba_decoder d;
        if (!pq_dlba_init(&d, data, len))
          for (int rep = 0; rep < 4 && !pq_dlba_get(&d, &b, n); rep++) {
          }
        pq_dlba_free(&d);
      } else {
        pq_dba_decoder d;
        if (!pq_dba_init(&d, data, len)) {
          for (int rep = 0; rep < 4; rep++) {
            int rc = which == 9 ? pq_dba_get(&d, &b, n)
                                : pq_dba_get_fixed(&d, u8, n < MAX_VALUES ? n : MAX_VALUES, param % 17);
            if (rc) break;
          }
        }
        pq_dba_free(&d);
      }
      buf_dispose(&b.offsets);
      buf_dispose(&b.data);
      return;
    }
    case 11: {
      int32_t w = 1 + param % 16;
      uint64_t total = len / (uint64_t)w;
      size_t k = n < MAX_VALUES ? n : MAX_VALUES;
      pq_bss_get(data, len, w, total + ((param >> 5) & 1), (uint64_t)param % (total + 1), u8, k);
      return;
    }
    default: {
      /* Raw unpacking: as many whole groups as the bytes hold. */
      int w = param % 65;
      size_t groups = w ? len / (size_t)w : 16;
      size_t cnt = groups * 8 < MAX_VALUES ? groups * 8 : MAX_VALUES / 8 * 8;
      pq_unpack32(data, u32, cnt, w);
      pq_unpack64(data, (uint64_t *)i64, cnt, w);
      return;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  int which = data[0] % 13, param = data[1];
  size_t n = ((size_t)data[2] | (size_t)data[3] << 8) % (MAX_VALUES + 1);
  size_t len = size - 4;
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) return 0;
  if (len) memcpy(copy, data + 4, len);
  run(which, param, n, copy, len);
  free(copy);
  return 0;
}
