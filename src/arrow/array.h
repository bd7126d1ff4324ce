/*
 * Producing Arrow C Data Interface structures whose memory deltac owns.
 *
 * arrow_array_new gives an ArrowArray with n_buffers buffer slots and
 * n_children child arrays (zeroed, not yet released-able on their own); the
 * buffers handed to arrow_array_set_buffer are freed by release.
 * arrow_schema_new does the same for ArrowSchema, copying the strings.
 */
#ifndef DELTAC_ARROW_ARRAY_H
#define DELTAC_ARROW_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

int arrow_array_new(struct ArrowArray *out, int n_buffers, int n_children);
/* Take ownership of `mem` (allocated by mem_malloc) as buffer i. */
void arrow_array_set_buffer(struct ArrowArray *a, int i, void *mem);
/* Release an array if it is live, leaving it marked released. */
void arrow_array_release(struct ArrowArray *a);

int arrow_schema_new(struct ArrowSchema *out, const char *format, const char *name, int64_t flags,
                     int n_children);
/* Set custom metadata from key/value pairs (copied into the Arrow binary form). */
int arrow_schema_set_metadata(struct ArrowSchema *s, const char *const *keys,
                              const char *const *values, int n);
void arrow_schema_release(struct ArrowSchema *s);
/* Deep copy (any producer's schema) into one deltac owns. */
int arrow_schema_copy(struct ArrowSchema *out, const struct ArrowSchema *src);
/* Look up a metadata value; returns a pointer into the metadata and its
 * length in *len, or NULL. */
const char *arrow_schema_metadata_get(const struct ArrowSchema *s, const char *key, int32_t *len);

/* Bitmap helpers (Arrow bit order: LSB first). */
static inline int arrow_bit_get(const uint8_t *bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void arrow_bit_set(uint8_t *bits, int64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }

/* True when slot i of `a` is valid (checks the validity buffer, honours offset). */
static inline int arrow_is_valid(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = (const uint8_t *)a->buffers[0];
  return a->null_count == 0 || v == NULL || arrow_bit_get(v, a->offset + i);
}

#endif
