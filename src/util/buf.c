#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

int buf_grow(delta_buf *b, size_t extra) {
  size_t limit = b->limit ? b->limit : DELTA_BUF_DEFAULT_LIMIT;
  if (extra > limit || b->len > limit - extra)
    return err_set(DELTA_ELIMIT, "buffer would exceed its limit of %zu bytes", limit);
  size_t need = b->len + extra;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  if (cap > limit) cap = limit;
  uint8_t *p = mem_realloc(b->data, cap);
  if (!p) return DELTA_NOMEM();
  b->data = p;
  b->cap = cap;
  return 0;
}

int buf_puts(delta_buf *b, const char *s) { return buf_append(b, s, strlen(s)); }

int buf_printf(delta_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return err_set(DELTA_EINVAL, "bad format string");
  if ((size_t)n < sizeof small) return buf_append(b, small, (size_t)n);
  int rc = buf_reserve(b, (size_t)n + 1);
  if (rc) return rc;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return 0;
}

uint8_t *buf_detach(delta_buf *b) {
  uint8_t *p = b->data;
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

void buf_reset(delta_buf *b) { b->len = 0; }

void buf_dispose(delta_buf *b) {
  mem_free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}
