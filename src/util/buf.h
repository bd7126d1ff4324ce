/* Growable byte buffers with an upper bound. Growth past `limit` fails with
 * DELTA_ELIMIT rather than letting a corrupt length exhaust memory. */
#ifndef DELTAC_UTIL_BUF_H
#define DELTAC_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  uint8_t *data;
  size_t len;
  size_t cap;
  size_t limit; /* 0: DELTA_BUF_DEFAULT_LIMIT */
} delta_buf;

#define DELTA_BUF_DEFAULT_LIMIT ((size_t)1 << 34) /* 16 GiB */
#define DELTA_BUF_INIT {NULL, 0, 0, 0}

/* Make room for `extra` more bytes. 0 or DELTA_ENOMEM / DELTA_ELIMIT. */
int buf_grow(delta_buf *b, size_t extra);

static inline int buf_reserve(delta_buf *b, size_t extra) {
  return (b->cap - b->len >= extra) ? 0 : buf_grow(b, extra);
}

static inline int buf_append(delta_buf *b, const void *p, size_t n) {
  int rc = buf_reserve(b, n);
  if (rc) return rc;
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  return 0;
}

static inline int buf_putc(delta_buf *b, char c) {
  if (b->len == b->cap) {
    int rc = buf_grow(b, 1);
    if (rc) return rc;
  }
  b->data[b->len++] = (uint8_t)c;
  return 0;
}

int buf_puts(delta_buf *b, const char *s);
int buf_printf(delta_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Hand the bytes to the caller (who frees them with mem_free) and reset. */
uint8_t *buf_detach(delta_buf *b);
void buf_reset(delta_buf *b); /* len = 0, keep capacity */
void buf_dispose(delta_buf *b);

#endif
