/* The process-wide allocation hook. Every allocation in the library goes
 * through mem_malloc/mem_realloc/mem_free so an embedder can account
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
    return err_set(DELTA_EINVAL, "allocator: bad version or missing function");
  current = *a;
  return 0;
}

void *mem_malloc(size_t n) { return current.malloc_fn(n ? n : 1, current.ctx); }

void *mem_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = mem_malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void *mem_realloc(void *p, size_t n) { return current.realloc_fn(p, n ? n : 1, current.ctx); }

void mem_free(void *p) {
  if (p) current.free_fn(p, current.ctx);
}

char *mem_strdup(const char *s) { return s ? mem_strndup(s, strlen(s)) : NULL; }

char *mem_strndup(const char *s, size_t n) {
  char *p = mem_malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}
