/* Z85 encoding and decoding (ZeroMQ RFC 32), written from the RFC. */
#include "dv/z85.h"

#include "util/error_internal.h"

static const char z85_alphabet[86] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/* Reverse table: character → digit + 1, and 0 for characters outside the
 * alphabet, so that the zero-initialised rest of the table rejects them.
 * Spelled out by code point (C11 cannot derive it from the alphabet at
 * compile time); the unit tests check that encode and decode agree. */
static const uint8_t z85_digit[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,
    ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
    ['e'] = 15, ['f'] = 16, ['g'] = 17, ['h'] = 18, ['i'] = 19, ['j'] = 20, ['k'] = 21,
    ['l'] = 22, ['m'] = 23, ['n'] = 24, ['o'] = 25, ['p'] = 26, ['q'] = 27, ['r'] = 28,
    ['s'] = 29, ['t'] = 30, ['u'] = 31, ['v'] = 32, ['w'] = 33, ['x'] = 34, ['y'] = 35,
    ['z'] = 36, ['A'] = 37, ['B'] = 38, ['C'] = 39, ['D'] = 40, ['E'] = 41, ['F'] = 42,
    ['G'] = 43, ['H'] = 44, ['I'] = 45, ['J'] = 46, ['K'] = 47, ['L'] = 48, ['M'] = 49,
    ['N'] = 50, ['O'] = 51, ['P'] = 52, ['Q'] = 53, ['R'] = 54, ['S'] = 55, ['T'] = 56,
    ['U'] = 57, ['V'] = 58, ['W'] = 59, ['X'] = 60, ['Y'] = 61, ['Z'] = 62, ['.'] = 63,
    ['-'] = 64, [':'] = 65, ['+'] = 66, ['='] = 67, ['^'] = 68, ['!'] = 69, ['/'] = 70,
    ['*'] = 71, ['?'] = 72, ['&'] = 73, ['<'] = 74, ['>'] = 75, ['('] = 76, [')'] = 77,
    ['['] = 78, [']'] = 79, ['{'] = 80, ['}'] = 81, ['@'] = 82, ['%'] = 83, ['$'] = 84,
    ['#'] = 85,
};

/* Value of the n digits at s[at..at+n), or -1 for a character outside the
 * alphabet (reported with its position). */
static int64_t digits_value(const char *s, size_t at, size_t n) {
  int64_t v = 0;
  for (size_t k = 0; k < n; k++) {
    uint8_t d = z85_digit[(uint8_t)s[at + k]];
    if (!d) {
      err_set(DELTA_ECORRUPT, "invalid Z85 character 0x%02x at position %zu",
                      (unsigned)(uint8_t)s[at + k], at + k);
      return -1;
    }
    v = v * 85 + (d - 1); /* five digits fit: 85^5 < 2^33 */
  }
  return v;
}

int dv_z85_decode(delta_buf *out, const char *s, size_t len) {
  if (len % 5 != 0)
    return err_set(DELTA_ECORRUPT, "invalid Z85: length %zu is not a multiple of 5", len);
  if (len == 0) return 0; /* out->data may still be NULL */
  int rc = buf_reserve(out, len / 5 * 4);
  if (rc) return rc;
  uint8_t *dst = out->data + out->len;
  for (size_t i = 0; i < len; i += 5) {
    /* A padded tail (see z85.h): k '#' then the 5 - k digits of 4 - k bytes.
     * A plain group cannot start with '#' (84 * 85^4 > 2^32 - 1), so this
     * reading is unambiguous. */
    size_t pads = 0;
    if (i + 5 == len)
      while (pads < 5 && s[i + pads] == '#') pads++;
    if (pads > 3)
      return err_set(DELTA_ECORRUPT, "invalid Z85 group at position %zu", i);
    int64_t v = digits_value(s, i + pads, 5 - pads);
    if (v < 0) return DELTA_ECORRUPT;
    size_t nbytes = 4 - pads;
    if ((uint64_t)v >> (8 * nbytes))
      return err_set(DELTA_ECORRUPT, "invalid Z85 group at position %zu: value too large",
                             i);
    for (size_t k = 0; k < nbytes; k++) dst[k] = (uint8_t)((uint64_t)v >> (8 * (nbytes - 1 - k)));
    dst += nbytes;
  }
  out->len = (size_t)(dst - out->data);
  return 0;
}

int dv_z85_encode(delta_buf *out, const uint8_t *data, size_t len) {
  size_t groups = len / 4 + (len % 4 != 0);
  if (groups > SIZE_MAX / 5) return err_set(DELTA_ELIMIT, "Z85: input too large");
  if (groups == 0) return 0; /* out->data may still be NULL */
  int rc = buf_reserve(out, groups * 5);
  if (rc) return rc;
  char *dst = (char *)out->data + out->len;
  for (size_t g = 0; g < groups; g++) {
    uint32_t v = 0;
    for (size_t k = 0; k < 4; k++) {
      size_t i = g * 4 + k;
      v = v << 8 | (i < len ? data[i] : 0u); /* zero padding of a partial tail */
    }
    for (int k = 4; k >= 0; k--) {
      dst[k] = z85_alphabet[v % 85];
      v /= 85;
    }
    dst += 5;
  }
  out->len += groups * 5;
  return 0;
}
