/* Allocation through the installed hook (see include/deltac/alloc.h). */
#ifndef DELTAC_UTIL_ALLOC_INTERNAL_H
#define DELTAC_UTIL_ALLOC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/alloc.h"

void *delta_malloc(size_t n);
void *delta_calloc(size_t count, size_t size);
void *delta_realloc(void *p, size_t n);
void delta_free(void *p);
char *delta_strdup(const char *s);
char *delta_strndup(const char *s, size_t n);

#endif
