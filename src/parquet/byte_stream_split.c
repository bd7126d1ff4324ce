/* BYTE_STREAM_SPLIT: byte k of value i sits at data[k * total + i]. */
#include <string.h>

#include "deltac/error.h"
#include "parquet/encoding.h"
#include "util/error_internal.h"

/* Constant widths let the compiler keep the per-stream pointers in registers. */
static inline void gather(const uint8_t *data, uint64_t total, uint64_t start, uint8_t *out,
                          size_t n, size_t w) {
  for (size_t k = 0; k < w; k++) {
    const uint8_t *s = data + k * total + start;
    for (size_t i = 0; i < n; i++) out[i * w + k] = s[i];
  }
}

int pq_bss_get(const uint8_t *data, size_t len, int32_t width, uint64_t total, uint64_t start,
               uint8_t *out, size_t n) {
  if (width <= 0)
    return err_set(DELTA_ECORRUPT, "BYTE_STREAM_SPLIT: value width %d", (int)width);
  const uint64_t w = (uint64_t)width;
  if (total > len / w)
    return err_set(DELTA_ECORRUPT,
                           "BYTE_STREAM_SPLIT: %llu values of %d bytes need more than %zu bytes",
                           (unsigned long long)total, (int)width, len);
  if (start > total || n > total - start)
    return err_set(DELTA_ECORRUPT, "BYTE_STREAM_SPLIT: values %llu..+%zu past the %llu in the page",
                           (unsigned long long)start, n, (unsigned long long)total);
  if (n == 0) return 0;
  switch (width) {
    case 4: gather(data, total, start, out, n, 4); break;
    case 8: gather(data, total, start, out, n, 8); break;
    case 2: gather(data, total, start, out, n, 2); break;
    case 16: gather(data, total, start, out, n, 16); break;
    default: gather(data, total, start, out, n, (size_t)w); break;
  }
  return 0;
}
