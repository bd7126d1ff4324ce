/* Reusable big buffers; see bigbuf.h. */
#include "parquet/bigbuf.h"

#include <sys/mman.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define HUGE_PAGE ((size_t)2 << 20)

void pq_bigbuf_dispose(pq_bigbuf *b) {
  if (b->map) munmap(b->map, b->map_len);
  else delta_free(b->data);
  b->data = NULL;
  b->map = NULL;
  b->cap = b->map_len = 0;
}

/* A mapping of at least n bytes whose start is huge-page aligned (a huge
 * page more is mapped so that an aligned start lies inside). */
static int map_huge(pq_bigbuf *b, size_t n) {
  size_t cap = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  size_t len = cap + HUGE_PAGE;
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return 1;
  uint8_t *data = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
  (void)madvise(data, cap, MADV_HUGEPAGE); /* a hint: without it, plain pages */
#endif
  b->map = m;
  b->map_len = len;
  b->data = data;
  b->cap = cap;
  return 0;
}

int pq_bigbuf_reserve(pq_bigbuf *b, size_t n) {
  if (n <= b->cap && b->data) return 0;
  pq_bigbuf_dispose(b);
  if (n >= HUGE_PAGE && map_huge(b, n) == 0) return 0;
  /* Small (or mapping refused): the heap, with some slack for the next page. */
  size_t cap = n + n / 4 + 64;
  if (!(b->data = delta_malloc(cap))) return DELTA_NOMEM();
  b->cap = cap;
  return 0;
}
