/* Little- and big-endian loads and stores that are safe on unaligned memory. */
#ifndef DELTAC_UTIL_BYTES_H
#define DELTAC_UTIL_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t bytes_load_le32(const void *p) {
  uint32_t v;
  memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

static inline uint64_t bytes_load_le64(const void *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint32_t bytes_load_be32(const void *p) {
  const uint8_t *b = p;
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline void bytes_store_be32(void *p, uint32_t v) {
  uint8_t *b = p;
  b[0] = (uint8_t)(v >> 24); b[1] = (uint8_t)(v >> 16); b[2] = (uint8_t)(v >> 8); b[3] = (uint8_t)v;
}

#endif
