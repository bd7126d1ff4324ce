/*
 * The allocation hook: an embedder may route every allocation deltac makes
 * (including buffers of Arrow arrays it hands out) through its own functions.
 * Set it once, before any other call; it is process-wide.
 */
#ifndef DELTAC_ALLOC_H
#define DELTAC_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DELTA_ALLOCATOR_VERSION 1

typedef struct {
  unsigned int version; /* DELTA_ALLOCATOR_VERSION */
  void *(*malloc_fn)(size_t size, void *ctx);
  void *(*realloc_fn)(void *ptr, size_t size, void *ctx);
  void (*free_fn)(void *ptr, void *ctx);
  void *ctx;
} delta_allocator;

/* Install `a` (copied), or restore the C library's allocator when `a` is NULL. */
int delta_allocator_set(const delta_allocator *a);

#ifdef __cplusplus
}
#endif

#endif /* DELTAC_ALLOC_H */
