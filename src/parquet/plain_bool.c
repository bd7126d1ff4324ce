/* PLAIN booleans: bits packed LSB first, expanded to one byte (0/1) each. */
#include <string.h>

#include "deltac/error.h"
#include "parquet/encoding.h"
#include "util/error_internal.h"

int pq_plain_bools(const uint8_t *data, size_t len, size_t bit_offset, uint8_t *out, size_t n) {
  /* bit_offset + n <= len * 8, checked without overflow. */
  size_t total_bits = len > SIZE_MAX / 8 ? SIZE_MAX : len * 8;
  if (bit_offset > total_bits || n > total_bits - bit_offset)
    return err_set(DELTA_ECORRUPT, "PLAIN: %zu booleans at bit %zu need more than %zu bytes",
                           n, bit_offset, len);
  const uint8_t *p = data + bit_offset / 8;
  unsigned shift = (unsigned)(bit_offset % 8);
  size_t i = 0;
  /* Leading bits up to a byte boundary. */
  if (shift) {
    for (; i < n && shift < 8; i++, shift++) out[i] = (uint8_t)((*p >> shift) & 1);
    p++;
  }
  /* Whole bytes: eight outputs per input byte, written as one 64-bit store. */
  for (; n - i >= 8; i += 8) {
    uint64_t b = *p++;
    /* Spread bit k of b to byte k: multiply puts copies of b at every byte,
     * the mask keeps bit k in byte k, and the add-and-shift moves it to bit 0. */
    uint64_t spread = (b * 0x0101010101010101ull) & 0x8040201008040201ull;
    spread = ((spread + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    spread = __builtin_bswap64(spread);
#endif
    memcpy(out + i, &spread, 8);
  }
  for (unsigned k = 0; i < n; i++, k++) out[i] = (uint8_t)((*p >> k) & 1);
  return 0;
}
