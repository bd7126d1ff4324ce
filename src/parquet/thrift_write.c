/* Thrift compact protocol encoder (see thrift_write.h). */
#include "parquet/thrift_write.h"

#include <string.h>

#include "util/error_internal.h"

void pq_tw_init(pq_tw *t, delta_buf *b) {
  memset(t, 0, sizeof *t);
  t->b = b;
}

int pq_tw_finish(pq_tw *t) { return t->err; }

static void put_bytes(pq_tw *t, const void *p, size_t n) {
  if (t->err) return;
  int rc = buf_append(t->b, p, n);
  if (rc) t->err = rc;
}

static void put_byte(pq_tw *t, uint8_t v) { put_bytes(t, &v, 1); }

static void put_varint(pq_tw *t, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  put_bytes(t, tmp, n);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

static void field_header(pq_tw *t, int16_t id, int type) {
  int16_t *last = &t->last[t->depth];
  int delta = id - *last;
  if (delta > 0 && delta <= 15) {
    put_byte(t, (uint8_t)(delta << 4 | type));
  } else {
    put_byte(t, (uint8_t)type);
    put_varint(t, zigzag(id));
  }
  *last = id;
}

void pq_tw_bool(pq_tw *t, int16_t id, bool v) { field_header(t, id, v ? PQ_TT_BOOL : PQ_TT_BOOL_FALSE); }

void pq_tw_i8(pq_tw *t, int16_t id, int8_t v) {
  field_header(t, id, PQ_TT_I8);
  put_byte(t, (uint8_t)v);
}

void pq_tw_i32(pq_tw *t, int16_t id, int32_t v) {
  field_header(t, id, PQ_TT_I32);
  put_varint(t, zigzag(v));
}

void pq_tw_i64(pq_tw *t, int16_t id, int64_t v) {
  field_header(t, id, PQ_TT_I64);
  put_varint(t, zigzag(v));
}

void pq_tw_binary(pq_tw *t, int16_t id, const void *p, size_t len) {
  field_header(t, id, PQ_TT_BINARY);
  put_varint(t, len);
  put_bytes(t, p, len);
}

void pq_tw_string(pq_tw *t, int16_t id, const char *s) { pq_tw_binary(t, id, s, strlen(s)); }

static void push(pq_tw *t) {
  if (t->depth + 1 >= PQ_TW_MAX_DEPTH) {
    if (!t->err) t->err = err_set(DELTA_ERROR, "thrift writer: structs nested too deep");
    return;
  }
  t->last[++t->depth] = 0;
}

void pq_tw_struct_begin(pq_tw *t, int16_t id) {
  field_header(t, id, PQ_TT_STRUCT);
  push(t);
}

void pq_tw_struct_end(pq_tw *t) {
  put_byte(t, PQ_TT_STOP);
  if (t->depth > 0) t->depth--;
}

void pq_tw_list_begin(pq_tw *t, int16_t id, int elem_type, uint32_t n) {
  field_header(t, id, PQ_TT_LIST);
  if (n < 15) {
    put_byte(t, (uint8_t)(n << 4 | (uint32_t)elem_type));
  } else {
    put_byte(t, (uint8_t)(0xF0 | elem_type));
    put_varint(t, n);
  }
}

void pq_tw_elem_i32(pq_tw *t, int32_t v) { put_varint(t, zigzag(v)); }

void pq_tw_elem_binary(pq_tw *t, const void *p, size_t len) {
  put_varint(t, len);
  put_bytes(t, p, len);
}

void pq_tw_elem_struct_begin(pq_tw *t) { push(t); }
