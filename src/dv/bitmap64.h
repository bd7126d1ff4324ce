/*
 * A set of 64-bit row indexes: Delta's "RoaringBitmapArray", the content of a
 * deletion vector. It is an ascending array of (high 32 bits, CRoaring 32-bit
 * bitmap of the low 32 bits) buckets; CRoaring (libroaring) holds the 32-bit
 * parts, this wrapper is ours.
 *
 * Serialized form (Delta PROTOCOL.md, "Deletion Vector Format"; little
 * endian): 4-byte magic 1681511377, 8-byte bucket count, then per bucket in
 * ascending key order a 4-byte key (most significant bit 0) and the bucket's
 * 32-bit bitmap in the Roaring "portable" format.
 *
 * Row indexes are below 2^63 (the keys' MSB is 0). Read-only functions may be
 * called from several threads at once on the same bitmap.
 *
 * Memory note: CRoaring 0.2 allocates with the C library's malloc, not
 * through deltac's allocator hook.
 */
#ifndef DELTAC_DV_BITMAP64_H
#define DELTAC_DV_BITMAP64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct delta_bitmap64 delta_bitmap64;

/* The magic number in front of the serialized bitmap. */
#define DELTA_BITMAP64_MAGIC 1681511377u
/* Delta's older "native" layout (4-byte count, then per bitmap a 4-byte size
 * and a 32-bit portable bitmap); read, never written. */
#define DELTA_BITMAP64_MAGIC_NATIVE 1681511376u
/* Largest row index a bitmap can hold. */
#define DELTA_BITMAP64_MAX_ROW ((uint64_t)INT64_MAX)

/* An empty bitmap (owned by the caller). */
int dv_bitmap64_new(delta_bitmap64 **out);
void dv_bitmap64_free(delta_bitmap64 *b); /* NULL is a no-op */

/* Add one row / the rows [lo, hi). Rows above DELTA_BITMAP64_MAX_ROW are
 * DELTA_EINVAL; lo >= hi adds nothing. */
int dv_bitmap64_add(delta_bitmap64 *b, uint64_t row);
int dv_bitmap64_add_range(delta_bitmap64 *b, uint64_t lo, uint64_t hi);

bool dv_bitmap64_contains(const delta_bitmap64 *b, uint64_t row);
uint64_t dv_bitmap64_cardinality(const delta_bitmap64 *b);
/* How many members lie in [start, start + n). */
uint64_t dv_bitmap64_count_range(const delta_bitmap64 *b, uint64_t start, uint64_t n);
bool dv_bitmap64_equals(const delta_bitmap64 *a, const delta_bitmap64 *b);

/* Every member in ascending order. The callback returns 0 to go on; any other
 * value stops the iteration and is returned as-is. */
typedef int (*delta_bitmap64_cb)(uint64_t row, void *payload);
int dv_bitmap64_iterate(const delta_bitmap64 *b, delta_bitmap64_cb cb, void *payload);

/*
 * Row masks for one batch of rows [start, start + n): `out` has n bytes and
 * gets, for row start + i, out[i] = 1 if the row is a member, else 0 (mask),
 * or the reverse, 1 if NOT a member (keep; what arrow_filter takes).
 * Cost: O(n) for clearing plus O(members in the range), never a probe per
 * row. start + n must not overflow (DELTA_EINVAL). b may be NULL (no member).
 */
int dv_bitmap64_mask(const delta_bitmap64 *b, uint64_t start, uint64_t n, uint8_t *out);
int dv_bitmap64_keep(const delta_bitmap64 *b, uint64_t start, uint64_t n, uint8_t *out);
/* The same as bits: n bits at `bits`, LSB-first (Arrow's bit order), bit i
 * set iff row start + i is a member; the ceil(n/8) bytes are overwritten. */
int dv_bitmap64_mask_bits(const delta_bitmap64 *b, uint64_t start, uint64_t n, uint8_t *bits);

/* The members of `a` that are not in `b` (e.g. the rows a new DV deletes on
 * top of an older one, for change data feeds). New bitmap owned by the
 * caller. */
int dv_bitmap64_andnot(const delta_bitmap64 *a, const delta_bitmap64 *b, delta_bitmap64 **out);

/* Compact the containers (run-length encoding where smaller) before
 * serializing a bitmap built with add(). */
void dv_bitmap64_optimize(delta_bitmap64 *b);

/* Append the serialized form (magic included) to `out`; empty buckets are
 * not written. On failure out->len is restored. */
int dv_bitmap64_serialize(const delta_bitmap64 *b, delta_buf *out);
/* Its exact size in bytes. */
size_t dv_bitmap64_serialized_size(const delta_bitmap64 *b);

/*
 * Parse `len` bytes of serialized form, all of which must be used. Every
 * structural rule is checked before CRoaring sees the bytes (magic, bucket
 * count, ascending keys with MSB 0, per 32-bit bitmap: cookie, container
 * count, ascending container keys, sorted unique arrays, bitset cardinality
 * = its popcount, sorted non-overlapping in-range runs, lengths), so corrupt
 * input gives DELTA_ECORRUPT "<what>: <why> at byte N" and never a bitmap
 * that breaks CRoaring's invariants. `what` names the source in messages
 * (e.g. "deletion vector file 'x.bin'"). The older native layout (magic
 * DELTA_BITMAP64_MAGIC_NATIVE, integers little endian as Delta Spark writes
 * them, or big endian as in PROTOCOL.md's inline example) is read too.
 */
int dv_bitmap64_deserialize(delta_bitmap64 **out, const uint8_t *data, size_t len,
                               const char *what);

#endif
