/*
 * A reader for the Thrift compact protocol, the encoding of Parquet footers
 * and page headers. Written from the protocol description: integers are
 * ULEB128 varints (i16/i32/i64 zigzag-encoded, i8 a raw byte), a field header
 * carries the field id as a delta from the previous one (or in long form) and
 * the wire type, booleans in fields live in the wire type itself, binary is a
 * varint length plus bytes, lists/sets and maps carry their element types and
 * counts in a short header.
 *
 * Every read is checked against the end of the buffer, nesting is bounded by
 * PQ_THRIFT_MAX_DEPTH, and list/map counts are checked against the bytes left
 * before the caller allocates anything. Errors are DELTA_ECORRUPT with a
 * one-line message naming what was being read and the byte offset.
 *
 * Usage for a struct:
 *
 *   int last = 0, id, type;
 *   if ((rc = pq_thrift_struct_begin(t)) < 0) return rc;
 *   for (;;) {
 *     if ((rc = pq_thrift_field(t, &last, &id, &type)) < 0) return rc;
 *     if (type == PQ_TT_STOP) break;
 *     switch (id) { case 1: ...read with the matching typed reader...; break;
 *                   default: rc = pq_thrift_skip(t, type); }
 *   }
 *   pq_thrift_struct_end(t);
 */
#ifndef DELTAC_PARQUET_THRIFT_H
#define DELTAC_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compact-protocol wire types. In a field header 1 and 2 are a boolean whose
 * value is the type; list headers may use either for bool elements, and
 * pq_thrift_list_begin reports both as PQ_TT_BOOL. */
enum {
  PQ_TT_STOP = 0,
  PQ_TT_BOOL = 1, /* BOOLEAN_TRUE */
  PQ_TT_BOOL_FALSE = 2,
  PQ_TT_I8 = 3,
  PQ_TT_I16 = 4,
  PQ_TT_I32 = 5,
  PQ_TT_I64 = 6,
  PQ_TT_DOUBLE = 7,
  PQ_TT_BINARY = 8,
  PQ_TT_LIST = 9,
  PQ_TT_SET = 10,
  PQ_TT_MAP = 11,
  PQ_TT_STRUCT = 12,
  PQ_TT_UUID = 13 /* 16 raw bytes; newer Thrift versions */
};

/* Nesting limit for structs, lists and maps together. Parquet metadata nests
 * about 6 deep; the limit keeps corrupt input from recursing far. */
#define PQ_THRIFT_MAX_DEPTH 64

typedef struct {
  const uint8_t *start; /* for byte offsets in messages */
  const uint8_t *p;     /* next byte to read */
  const uint8_t *end;
  int depth;
} pq_thrift;

void pq_thrift_init(pq_thrift *t, const uint8_t *buf, size_t len);

/* Bytes read so far and bytes left. */
size_t pq_thrift_offset(const pq_thrift *t);
size_t pq_thrift_remaining(const pq_thrift *t);

/* Enter/leave a struct (counts nesting depth). */
int pq_thrift_struct_begin(pq_thrift *t);
void pq_thrift_struct_end(pq_thrift *t);

/* Read the next field header of the current struct. *last_id is the
 * caller's per-struct state (start at 0). On PQ_TT_STOP the struct is over.
 * For booleans *type is PQ_TT_BOOL or PQ_TT_BOOL_FALSE and the value is
 * already known: use pq_thrift_field_bool. */
int pq_thrift_field(pq_thrift *t, int *last_id, int *id, int *type);

/* Typed readers for a field (or element) of wire type `type`. `what` names
 * the field for error messages ("ColumnMetaData.codec"). The integer readers
 * accept any narrower integer wire type and refuse values out of range. */
int pq_thrift_field_bool(pq_thrift *t, int type, bool *v, const char *what);
int pq_thrift_elem_bool(pq_thrift *t, bool *v, const char *what); /* bool list element */
int pq_thrift_read_i8(pq_thrift *t, int type, int8_t *v, const char *what);
int pq_thrift_read_i16(pq_thrift *t, int type, int16_t *v, const char *what);
int pq_thrift_read_i32(pq_thrift *t, int type, int32_t *v, const char *what);
int pq_thrift_read_i64(pq_thrift *t, int type, int64_t *v, const char *what);
int pq_thrift_read_double(pq_thrift *t, int type, double *v, const char *what);
/* Binary/string: *p points into the buffer, valid as long as it is. */
int pq_thrift_read_binary(pq_thrift *t, int type, const uint8_t **p, uint32_t *len,
                          const char *what);

/* List or set header. *count is at most the bytes left (every element takes
 * at least one byte), so it is safe to allocate for. *elem_type is
 * PQ_TT_BOOL for boolean elements. */
int pq_thrift_list_begin(pq_thrift *t, int type, int *elem_type, uint32_t *count,
                         const char *what);

/* Map header. *count is at most half the bytes left. When *count is 0 the
 * key/value types are PQ_TT_STOP. */
int pq_thrift_map_begin(pq_thrift *t, int type, int *key_type, int *value_type,
                        uint32_t *count, const char *what);

/* Skip one field value of wire type `type` (including nested containers and
 * structs), bounds- and depth-checked. */
int pq_thrift_skip(pq_thrift *t, int type);

/* Skip one list/set/map element of type `type` (booleans take a byte here). */
int pq_thrift_skip_elem(pq_thrift *t, int type);

/* Human name of a wire type, for messages. */
const char *pq_thrift_type_name(int type);

#endif
