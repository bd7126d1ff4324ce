/*
 * A small FlatBuffers *builder* (writing only), enough for Arrow IPC metadata.
 *
 * FlatBuffers require every offset to point forward, so objects must be
 * written after (at higher addresses than) whatever refers to them. Like the
 * reference implementation, the builder therefore grows the buffer downward:
 * children are built first, and a reference to an object (fb_ref) is its
 * distance from the end of the buffer, which stays valid as the front grows.
 *
 * Usage: build strings, vectors and child tables first, then the table that
 * refers to them:
 *
 *   fb_ref name = fb_string(b, "x", 1);
 *   fb_table_start(b);
 *   fb_add_offset(b, 0, name);
 *   fb_add_bool(b, 1, 1);
 *   fb_ref field = fb_table_end(b);
 *   ...
 *   fb_finish(b, root, &data, &len);
 *
 * Errors are sticky: after the first failure every call is a no-op returning
 * 0, and fb_finish() returns the error code (set with err_set).
 * Only one table can be open at a time; nested tables are built beforehand.
 * Scalars are written little-endian, as the FlatBuffers format requires.
 */
#ifndef DELTAC_ARROW_FLATBUF_H
#define DELTAC_ARROW_FLATBUF_H

#include <stddef.h>
#include <stdint.h>

/* Distance in bytes from the end of the buffer to an object; 0 = none. */
typedef uint32_t fb_ref;

/* Field ids of one table are below this (Arrow tables use at most 7). */
#define FB_MAX_FIELDS 16

typedef struct {
  uint8_t *buf;   /* bytes live at buf[cap - len .. cap) */
  size_t cap;
  size_t len;
  size_t minalign;              /* largest alignment used so far */
  int err;                      /* first error, sticky */
  int in_table;                 /* a table is open */
  size_t table_start;           /* len when the open table started */
  int max_field;                /* highest field id added, -1 none */
  uint32_t field_pos[FB_MAX_FIELDS]; /* len after each field was pushed, 0 = absent */
} fb_builder;

void fb_init(fb_builder *b);
void fb_dispose(fb_builder *b);
void fb_reset(fb_builder *b); /* forget the contents and the error, keep memory */

/* A string (UTF-8 or any bytes; NUL-terminated in the buffer as required). */
fb_ref fb_string(fb_builder *b, const char *s, size_t n);

/* A vector of references to tables or strings, in the given order. */
fb_ref fb_offset_vector(fb_builder *b, const fb_ref *refs, size_t n);

/* A vector of structs: `data` holds n * elem_size bytes already laid out in
 * little-endian order; `align` is the struct's alignment (a power of two). */
fb_ref fb_struct_vector(fb_builder *b, const void *data, size_t elem_size, size_t n,
                        size_t align);

/* Tables: start, add fields by id (any order), end. */
void fb_table_start(fb_builder *b);
void fb_add_u8(fb_builder *b, int field, uint8_t v);
void fb_add_bool(fb_builder *b, int field, int v);
void fb_add_i16(fb_builder *b, int field, int16_t v);
void fb_add_i32(fb_builder *b, int field, int32_t v);
void fb_add_i64(fb_builder *b, int field, int64_t v);
void fb_add_offset(fb_builder *b, int field, fb_ref ref); /* ref 0: not added */
fb_ref fb_table_end(fb_builder *b);

/* Write the root offset and give the finished bytes: *data points into the
 * builder (valid until the next call on it), *len is a multiple of 8. */
int fb_finish(fb_builder *b, fb_ref root, const uint8_t **data, size_t *len);

#endif
