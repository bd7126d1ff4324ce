/* The process-wide allocation hook. Every allocation in the library goes
 * through delta_malloc/delta_realloc/delta_free so an embedder can account
 * for or limit deltac's memory, and so tests can inject failures. */
#include "util/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"

static void *std_malloc(size_t n, void *ctx) { (void)ctx; return malloc(n); }
static void *std_realloc(void *p, size_t n, void *ctx) { (void)ctx; return realloc(p, n); }
static void std_free(void *p, void *ctx) { (void)ctx; free(p); }

static delta_allocator current = {DELTA_ALLOCATOR_VERSION, std_malloc, std_realloc, std_free,
                                  NULL};

int delta_allocator_set(const delta_allocator *a) {
  if (!a) {
    current = (delta_allocator){DELTA_ALLOCATOR_VERSION, std_malloc, std_realloc, std_free, NULL};
    return 0;
  }
  if (a->version != DELTA_ALLOCATOR_VERSION || !a->malloc_fn || !a->realloc_fn || !a->free_fn)
    return delta_error_set(DELTA_EINVAL, "allocator: bad version or missing function");
  current = *a;
  return 0;
}

void *delta_malloc(size_t n) { return current.malloc_fn(n ? n : 1, current.ctx); }

void *delta_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = delta_malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void *delta_realloc(void *p, size_t n) { return current.realloc_fn(p, n ? n : 1, current.ctx); }

void delta_free(void *p) {
  if (p) current.free_fn(p, current.ctx);
}

char *delta_strdup(const char *s) { return s ? delta_strndup(s, strlen(s)) : NULL; }

char *delta_strndup(const char *s, size_t n) {
  char *p = delta_malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}
