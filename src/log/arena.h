/* A bump allocator for log replay: many small strings and arrays that live
 * and die with a snapshot. Chunks grow geometrically; freeing is one walk. */
#ifndef DELTAC_LOG_ARENA_H
#define DELTAC_LOG_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct delta_arena_chunk delta_arena_chunk;

typedef struct {
  delta_arena_chunk *head;
  size_t used, cap;        /* in the head chunk */
  size_t total;            /* bytes allocated from the system */
} delta_arena;

#define DELTA_ARENA_INIT {NULL, 0, 0, 0}

/* 8-byte aligned memory, or NULL (out of memory). */
void *log_arena_alloc(delta_arena *a, size_t n);
void *log_arena_calloc(delta_arena *a, size_t n);
/* Strings are packed (no alignment). */
char *log_arena_strndup(delta_arena *a, const char *s, size_t n);
char *log_arena_strdup(delta_arena *a, const char *s);
void log_arena_dispose(delta_arena *a);

/* Ask for transparent huge pages over the 2 MB-aligned part of [p, p+n)
 * (Linux MADV_HUGEPAGE; a no-op elsewhere or below 4 MB). For big buffers
 * that are about to be filled. */
void log_huge_pages(void *p, size_t n);

/* A growable array for the few big ones (a snapshot's live files). On Linux
 * it is its own mapping, grown with mremap (no copying, unlike realloc of a
 * heap block) and backed by huge pages once large; elsewhere realloc. */
typedef struct {
  uint8_t *data;
  size_t len, cap;
} delta_bigbuf;

#define DELTA_BIGBUF_INIT {NULL, 0, 0}

int log_bigbuf_append(delta_bigbuf *b, const void *p, size_t n);
void log_bigbuf_dispose(delta_bigbuf *b);

#endif
