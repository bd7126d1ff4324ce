/* Reusable big buffers; see bigbuf.h. */
#include "parquet/bigbuf.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* Mappings given back are kept for the next reader (up to a bound), not
 * unmapped: a fresh mapping's pages are zeroed by the kernel as they are
 * first touched, which costs more than decoding when a scan opens file
 * after file and every column reader wants its page buffers anew. */
#define CACHE_SLOTS 16
#define CACHE_BYTES ((size_t)128 << 20)
static pq_bigbuf cache[CACHE_SLOTS];
static int n_cache;
static size_t cache_bytes;
static atomic_flag cache_lock = ATOMIC_FLAG_INIT;

static void lock(void) {
  while (atomic_flag_test_and_set_explicit(&cache_lock, memory_order_acquire)) {
  }
}
static void unlock(void) { atomic_flag_clear_explicit(&cache_lock, memory_order_release); }

static bool cache_put(const pq_bigbuf *b) {
  bool kept = false;
  lock();
  if (n_cache < CACHE_SLOTS && cache_bytes + b->map_len <= CACHE_BYTES) {
    cache[n_cache++] = *b;
    cache_bytes += b->map_len;
    kept = true;
  }
  unlock();
  return kept;
}

/* The smallest kept mapping of at least n bytes. */
static bool cache_take(pq_bigbuf *b, size_t n) {
  bool found = false;
  lock();
  int best = -1;
  for (int i = 0; i < n_cache; i++)
    if (cache[i].cap >= n && (best < 0 || cache[i].cap < cache[best].cap)) best = i;
  if (best >= 0) {
    *b = cache[best];
    cache_bytes -= b->map_len;
    cache[best] = cache[--n_cache];
    found = true;
  }
  unlock();
  return found;
}

void pq_bigbuf_dispose(pq_bigbuf *b) {
  if (b->map) {
    if (!cache_put(b)) munmap(b->map, b->map_len);
  } else {
    mem_free(b->data);
  }
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
  if (n >= HUGE_PAGE && (cache_take(b, n) || map_huge(b, n) == 0)) return 0;
  /* Small (or mapping refused): the heap, with some slack for the next page. */
  size_t cap = n + n / 4 + 64;
  if (!(b->data = mem_malloc(cap))) return DELTA_NOMEM();
  b->cap = cap;
  return 0;
}
