#include "log/arena.h"

#include <string.h>
#if defined(__linux__)
#include <stdint.h>
#include <sys/mman.h>
#endif

#include "util/alloc_internal.h"
#include "util/error_internal.h"

struct delta_arena_chunk {
  delta_arena_chunk *next;
  size_t cap;
  size_t mapped; /* bytes of its own 2 MB-aligned mapping, 0 when malloc'd */
  /* then cap bytes, 8-byte aligned after the header */
};

#define HEADER ((sizeof(delta_arena_chunk) + 7) & ~(size_t)7)
#define FIRST_CHUNK 4096
#define MAX_CHUNK ((size_t)8 << 20)
#define HUGE_CHUNK ((size_t)2 << 20)

/* Big buffers are filled front to back: huge pages turn ~2,000 page faults
 * per 8 MB into ~4 (the faults, not the copying, dominated reading a
 * million-file checkpoint). */
void log_huge_pages(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (n < 2 * huge) return;
  uintptr_t b = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);
  if (e > b) (void)madvise((void *)b, e - b, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define HUGE_CHUNKS 1
/* A chunk of `size` bytes (a multiple of 2 MB) in its own 2 MB-aligned
 * mapping backed by huge pages, or NULL. */
static void *map_huge(size_t size) {
  const size_t huge = (size_t)2 << 20;
  char *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  char *b = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
  if (b > p) munmap(p, (size_t)(b - p));
  if (b + size < p + size + huge) munmap(b + size, (size_t)(p + size + huge - (b + size)));
  (void)madvise(b, size, MADV_HUGEPAGE);
  return b;
}
#endif

/* n bytes at the given alignment (1 or 8). */
static void *arena_take(delta_arena *a, size_t n, size_t align) {
  size_t at = (a->used + align - 1) & ~(align - 1);
  if (!a->head || at > a->cap || a->cap - at < n) {
    size_t cap = a->head ? (a->head->cap + HEADER) * 2 - HEADER : FIRST_CHUNK - HEADER;
    if (cap > MAX_CHUNK - HEADER) cap = MAX_CHUNK - HEADER;
    if (cap < n) cap = n;
    delta_arena_chunk *c = NULL;
    size_t mapped = 0;
#ifdef HUGE_CHUNKS
    /* Chunks of 2 MB and up (a big snapshot's strings) get huge pages: the
     * kernel zeroing fresh 4 KiB pages one fault at a time costs ~2.5x more
     * per byte, and by then the arena is big enough to fill them. */
    size_t whole = HEADER + cap;
    if (whole >= HUGE_CHUNK && whole % HUGE_CHUNK == 0 && (c = map_huge(whole)) != NULL) mapped = whole;
#endif
    if (!c && !(c = mem_malloc(HEADER + cap))) return NULL;
    c->mapped = mapped;
    c->next = a->head;
    c->cap = cap;
    a->head = c;
    a->used = 0;
    a->cap = cap;
    a->total += HEADER + cap;
    at = 0;
  }
  void *p = (char *)a->head + HEADER + at;
  a->used = at + n;
  return p;
}

void *log_arena_alloc(delta_arena *a, size_t n) {
  if (n > SIZE_MAX - 7) return NULL;
  return arena_take(a, n, 8);
}

void *log_arena_calloc(delta_arena *a, size_t n) {
  void *p = log_arena_alloc(a, n);
  if (p) memset(p, 0, n);
  return p;
}

char *log_arena_strndup(delta_arena *a, const char *s, size_t n) {
  /* Strings need no alignment: packing them saves ~4 bytes each. */
  char *p = n < SIZE_MAX ? arena_take(a, n + 1, 1) : NULL;
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *log_arena_strdup(delta_arena *a, const char *s) { return log_arena_strndup(a, s, strlen(s)); }

void log_arena_dispose(delta_arena *a) {
  delta_arena_chunk *c = a->head;
  while (c) {
    delta_arena_chunk *n = c->next;
#ifdef HUGE_CHUNKS
    if (c->mapped) munmap(c, c->mapped);
    else
#endif
      mem_free(c);
    c = n;
  }
  a->head = NULL;
  a->used = a->cap = a->total = 0;
}

#if defined(__linux__) && defined(MREMAP_MAYMOVE)
#define BIGBUF_MAPPED 1
#endif

static int bigbuf_grow(delta_bigbuf *b, size_t need) {
  size_t cap = b->cap ? b->cap : (size_t)1 << 20;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) return DELTA_NOMEM();
    cap *= 2;
  }
#ifdef BIGBUF_MAPPED
  void *p = b->data ? mremap(b->data, b->cap, cap, MREMAP_MAYMOVE)
                    : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return DELTA_NOMEM();
  log_huge_pages(p, cap);
#else
  void *p = mem_realloc(b->data, cap);
  if (!p) return DELTA_NOMEM();
#endif
  b->data = p;
  b->cap = cap;
  return 0;
}

int log_bigbuf_append(delta_bigbuf *b, const void *p, size_t n) {
  if (n > SIZE_MAX - b->len) return DELTA_NOMEM();
  if (b->len + n > b->cap) {
    int rc = bigbuf_grow(b, b->len + n);
    if (rc) return rc;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
  return 0;
}

void log_bigbuf_dispose(delta_bigbuf *b) {
#ifdef BIGBUF_MAPPED
  if (b->data) munmap(b->data, b->cap);
#else
  mem_free(b->data);
#endif
  b->data = NULL;
  b->len = b->cap = 0;
}
