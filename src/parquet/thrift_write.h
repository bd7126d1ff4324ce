/*
 * A writer for the Thrift compact protocol (Parquet footers and page
 * headers), the counterpart of thrift.h. Fields are written in increasing id
 * order by the caller; the writer keeps the last field id of every open
 * struct to emit short-form (delta) field headers. Output goes to a
 * delta_buf; an allocation failure is remembered and reported by
 * pq_tw_finish so call sites need no checks.
 *
 *   pq_tw t; pq_tw_init(&t, &buf);
 *   pq_tw_i32(&t, 1, version);
 *   pq_tw_list_begin(&t, 2, PQ_TT_STRUCT, n);
 *   for (...) { pq_tw_elem_struct_begin(&t); ...; pq_tw_struct_end(&t); }
 *   pq_tw_struct_end(&t);     // the outermost struct's STOP
 *   rc = pq_tw_finish(&t);
 */
#ifndef DELTAC_PARQUET_THRIFT_WRITE_H
#define DELTAC_PARQUET_THRIFT_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/thrift.h"
#include "util/buf.h"

#define PQ_TW_MAX_DEPTH 16

typedef struct {
  delta_buf *b;
  int16_t last[PQ_TW_MAX_DEPTH]; /* last field id per open struct */
  int depth;                     /* open structs; the outermost is depth 0 */
  int err;
} pq_tw;

void pq_tw_init(pq_tw *t, delta_buf *b);
/* 0, or the first error seen (DELTA_ENOMEM / DELTA_ELIMIT). */
int pq_tw_finish(pq_tw *t);

void pq_tw_bool(pq_tw *t, int16_t id, bool v);
void pq_tw_i8(pq_tw *t, int16_t id, int8_t v);
void pq_tw_i32(pq_tw *t, int16_t id, int32_t v);
void pq_tw_i64(pq_tw *t, int16_t id, int64_t v);
void pq_tw_binary(pq_tw *t, int16_t id, const void *p, size_t len);
void pq_tw_string(pq_tw *t, int16_t id, const char *s);
/* A struct-valued field; close it with pq_tw_struct_end. */
void pq_tw_struct_begin(pq_tw *t, int16_t id);
/* Write STOP and leave the struct (the outermost one too). */
void pq_tw_struct_end(pq_tw *t);
/* A list-valued field of n elements of wire type elem_type, followed by
 * exactly n elements written with the pq_tw_elem_* calls. */
void pq_tw_list_begin(pq_tw *t, int16_t id, int elem_type, uint32_t n);
void pq_tw_elem_i32(pq_tw *t, int32_t v);
void pq_tw_elem_binary(pq_tw *t, const void *p, size_t len);
void pq_tw_elem_struct_begin(pq_tw *t);

#endif
