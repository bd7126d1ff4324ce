/* A bump allocator for log replay: many small strings and arrays that live
 * and die with a snapshot. Chunks grow geometrically; freeing is one walk. */
#ifndef DELTAC_LOG_ARENA_H
#define DELTAC_LOG_ARENA_H

#include <stddef.h>

typedef struct delta_arena_chunk delta_arena_chunk;

typedef struct {
  delta_arena_chunk *head;
  size_t used, cap;        /* in the head chunk */
  size_t total;            /* bytes allocated from the system */
} delta_arena;

#define DELTA_ARENA_INIT {NULL, 0, 0, 0}

/* 8-byte aligned memory, or NULL (out of memory). */
void *delta_arena_alloc(delta_arena *a, size_t n);
void *delta_arena_calloc(delta_arena *a, size_t n);
char *delta_arena_strndup(delta_arena *a, const char *s, size_t n);
char *delta_arena_strdup(delta_arena *a, const char *s);
void delta_arena_dispose(delta_arena *a);

#endif
