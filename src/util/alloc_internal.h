/* Allocation through the installed hook (see include/deltac/alloc.h). */
#ifndef DELTAC_UTIL_ALLOC_INTERNAL_H
#define DELTAC_UTIL_ALLOC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/alloc.h"

void *mem_malloc(size_t n);
void *mem_calloc(size_t count, size_t size);
void *mem_realloc(void *p, size_t n);
void mem_free(void *p);
char *mem_strdup(const char *s);
char *mem_strndup(const char *s, size_t n);

#endif
