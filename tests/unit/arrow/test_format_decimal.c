/* Printing decimals (fmt_decimal): 128- and 256-bit values at their scales,
 * and widths or scales no decimal has are an error, never an overrun. */
#include <stdint.h>
#include <string.h>

#include "arrow/format_internal.h"
#include "deltac/error.h"
#include "test.h"
#include "util/buf.h"

static const char *print(const uint8_t *p, int w, int scale, delta_buf *b) {
  buf_reset(b);
  if (fmt_decimal(b, p, w, scale) != 0) return "error";
  buf_putc(b, 0);
  return (const char *)b->data;
}

int main(void) {
  delta_buf b = DELTA_BUF_INIT;
  uint8_t v[32];
  memset(v, 0, sizeof v);
  v[0] = 0x39; v[1] = 0x30; /* 12345 */
  CHECK_STR(print(v, 16, 2, &b), "123.45");
  CHECK_STR(print(v, 16, 0, &b), "12345");
  CHECK_STR(print(v, 32, 7, &b), "0.0012345");
  memset(v, 0xff, sizeof v); /* -1 */
  CHECK_STR(print(v, 16, 3, &b), "-0.001");
  CHECK_STR(print(v, 32, 80, &b),
               "-0.00000000000000000000000000000000000000000000000000000000000000000000000000000001");
  CHECK_STR(print(v, 16, 81, &b), "error");
  CHECK_STR(print(v, 16, 1000000, &b), "error");
  CHECK_STR(print(v, 64, 2, &b), "error");
  CHECK_STR(print(v, 6, 2, &b), "error");
  delta_error_clear();
  buf_dispose(&b);
  TEST_MAIN_END();
}
