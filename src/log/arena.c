#include "log/arena.h"

#include <string.h>

#include "util/alloc_internal.h"

struct delta_arena_chunk {
  delta_arena_chunk *next;
  size_t cap;
  /* then cap bytes, 8-byte aligned after the header */
};

#define HEADER ((sizeof(delta_arena_chunk) + 7) & ~(size_t)7)
#define FIRST_CHUNK 4096
#define MAX_CHUNK ((size_t)8 << 20)

void *delta_arena_alloc(delta_arena *a, size_t n) {
  n = (n + 7) & ~(size_t)7;
  if (!a->head || a->cap - a->used < n) {
    size_t cap = a->head ? a->head->cap * 2 : FIRST_CHUNK;
    if (cap > MAX_CHUNK) cap = MAX_CHUNK;
    if (cap < n) cap = n;
    delta_arena_chunk *c = delta_malloc(HEADER + cap);
    if (!c) return NULL;
    c->next = a->head;
    c->cap = cap;
    a->head = c;
    a->used = 0;
    a->cap = cap;
    a->total += HEADER + cap;
  }
  void *p = (char *)a->head + HEADER + a->used;
  a->used += n;
  return p;
}

void *delta_arena_calloc(delta_arena *a, size_t n) {
  void *p = delta_arena_alloc(a, n);
  if (p) memset(p, 0, n);
  return p;
}

char *delta_arena_strndup(delta_arena *a, const char *s, size_t n) {
  char *p = delta_arena_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *delta_arena_strdup(delta_arena *a, const char *s) { return delta_arena_strndup(a, s, strlen(s)); }

void delta_arena_dispose(delta_arena *a) {
  delta_arena_chunk *c = a->head;
  while (c) {
    delta_arena_chunk *n = c->next;
    delta_free(c);
    c = n;
  }
  a->head = NULL;
  a->used = a->cap = a->total = 0;
}
