/*
 * Internals of the Arrow IPC reader shared by its two files:
 * ipc_reader.c (framing, the schema, the stream) and ipc_batch.c (decoding
 * a RecordBatch body into arrays: buffers, decompression, dictionaries).
 * Holds a bounds-checked flatbuffer reader over one message's metadata.
 */
#ifndef DELTAC_ARROW_IPC_READ_INTERNAL_H
#define DELTAC_ARROW_IPC_READ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

/* Union members and field ids of Schema.fbs / Message.fbs (declaration
 * order; a union field takes two ids: its type, then its value). */
enum {
  T_NULL = 1, T_INT = 2, T_FLOAT = 3, T_BINARY = 4, T_UTF8 = 5, T_BOOL = 6,
  T_DECIMAL = 7, T_DATE = 8, T_TIME = 9, T_TIMESTAMP = 10, T_INTERVAL = 11,
  T_LIST = 12, T_STRUCT = 13, T_UNION = 14, T_FSB = 15, T_FSL = 16, T_MAP = 17,
  T_DURATION = 18, T_LARGE_BINARY = 19, T_LARGE_UTF8 = 20, T_LARGE_LIST = 21
};
enum { H_SCHEMA = 1, H_DICTIONARY = 2, H_RECORD_BATCH = 3 };
enum { FIELD_NAME = 0, FIELD_NULLABLE = 1, FIELD_TYPE_TYPE = 2, FIELD_TYPE = 3,
       FIELD_DICTIONARY = 4, FIELD_CHILDREN = 5, FIELD_METADATA = 6 };
enum { SCHEMA_ENDIANNESS = 0, SCHEMA_FIELDS = 1, SCHEMA_METADATA = 2 };
enum { MSG_HEADER_TYPE = 1, MSG_HEADER = 2, MSG_BODY_LENGTH = 3 };
enum { RB_LENGTH = 0, RB_NODES = 1, RB_BUFFERS = 2, RB_COMPRESSION = 3 };
enum { DB_ID = 0, DB_DATA = 1, DB_IS_DELTA = 2 };
enum { DE_ID = 0, DE_INDEX_TYPE = 1 };
enum { BC_CODEC = 0, BC_METHOD = 1 };
enum { IPC_CODEC_LZ4_FRAME = 0, IPC_CODEC_ZSTD = 1 };

#define MAX_DEPTH 64

/* Rows a batch may claim beyond one bit of body per row: only null-typed
 * (or childless struct) columns take no body, and a tiny message claiming
 * 2^62 such rows would have consumers loop for ages. */
#define FREE_ROWS 65536

static inline int too_many_rows(int64_t rows, uint64_t body_len) {
  return (uint64_t)rows > FREE_ROWS + (body_len > UINT64_MAX / 16 ? UINT64_MAX / 2 : 8 * body_len);
}

/* A bounds-checked flatbuffer reader over one message's metadata. */

typedef struct {
  const uint8_t *p;
  size_t n;
  int bad; /* set by any out-of-bounds access; results are then 0 */
} fbr;

typedef struct {
  size_t pos, vt;
  uint16_t vt_len;
} fbt;

static inline uint64_t le(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static inline uint64_t rd(fbr *r, size_t pos, int bytes) {
  if (r->bad || pos > r->n || r->n - pos < (size_t)bytes) {
    r->bad = 1;
    return 0;
  }
  return le(r->p + pos, bytes);
}

static inline fbt fb_table_at(fbr *r, size_t pos) {
  fbt t = {0, 0, 0};
  int64_t vt = (int64_t)pos - (int32_t)(uint32_t)rd(r, pos, 4);
  if (r->bad || vt < 0 || (uint64_t)vt > r->n) {
    r->bad = 1;
    return t;
  }
  uint16_t vt_len = (uint16_t)rd(r, (size_t)vt, 2);
  uint16_t tbl_len = (uint16_t)rd(r, (size_t)vt + 2, 2);
  if (r->bad || vt_len < 4 || (vt_len & 1) || (size_t)vt + vt_len > r->n || tbl_len < 4 ||
      pos + tbl_len > r->n) {
    r->bad = 1;
    return t;
  }
  t.pos = pos;
  t.vt = (size_t)vt;
  t.vt_len = vt_len;
  return t;
}

/* Position of field `id` of `t`, or 0 when absent. */
static inline size_t fb_field(fbr *r, const fbt *t, int id) {
  if (r->bad || (size_t)(4 + 2 * id) + 2 > t->vt_len) return 0;
  uint16_t off = (uint16_t)rd(r, t->vt + 4 + 2 * (size_t)id, 2);
  return off ? t->pos + off : 0;
}

static inline int64_t fb_int(fbr *r, const fbt *t, int id, int bytes, int64_t dflt) {
  size_t f = fb_field(r, t, id);
  if (!f) return dflt;
  uint64_t v = rd(r, f, bytes);
  int shift = 64 - 8 * bytes;
  return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

/* Where the offset stored in field `id` points, or 0 when absent. */
static inline size_t fb_ref(fbr *r, const fbt *t, int id) {
  size_t f = fb_field(r, t, id);
  if (!f) return 0;
  uint64_t target = f + rd(r, f, 4);
  if (r->bad || target >= r->n) {
    r->bad = 1;
    return 0;
  }
  return (size_t)target;
}

/* A vector of `elem`-byte items: its count and first item, or 0 items. */
static inline size_t fb_vector(fbr *r, const fbt *t, int id, size_t elem, size_t *start) {
  size_t v = fb_ref(r, t, id);
  *start = 0;
  if (!v) return 0;
  uint64_t count = rd(r, v, 4);
  if (r->bad || count > (r->n - v - 4) / elem) {
    r->bad = 1;
    return 0;
  }
  *start = v + 4;
  return (size_t)count;
}

static inline fbt fb_vector_table(fbr *r, size_t start, size_t i) {
  size_t at = start + 4 * i;
  return fb_table_at(r, at + (size_t)rd(r, at, 4));
}

/* ------------------------------------------------------------------ */
/* Field layouts and dictionaries.                                     */

typedef enum { L_NULL, L_BOOL, L_FIXED, L_BINARY, L_LARGE_BINARY, L_LIST, L_LARGE_LIST, L_FSL,
               L_STRUCT } layout;

/* A field's layout. A dictionary-encoded field (dict) is sent as indices of
 * index_width bytes, but `kind` and the children describe its values: the
 * layout of its dictionary batches, and of what the reader hands out. */
typedef struct lnode {
  layout kind;
  int64_t width;
  int64_t n_children;
  struct lnode *children;
  int dict, index_width, index_signed;
  int64_t dict_id;
  const struct ArrowSchema *schema; /* the field's (value) type, for take */
} lnode;

/* One dictionary id: its value layout and the batches that make it up (the
 * first, then any deltas), already decoded to plain arrays. */
typedef struct {
  int64_t id;
  const lnode *node;
  struct ArrowArray *chunks;
  int64_t *starts; /* row of the whole dictionary where each chunk starts */
  int n_chunks, cap;
  int64_t rows;
} dict_entry;

typedef struct {
  dict_entry *dicts;
  int n_dicts;
} dict_set;

/* Decoding one message body. */
typedef struct {
  fbr *r;
  size_t nodes, n_nodes, bufs, n_bufs, next_node, next_buf;
  const uint8_t *body;
  uint64_t body_len;
  uint64_t size;       /* the body's size once decompressed: the bound of row counts */
  void **dec;          /* compressed bodies: each buffer decompressed, taken by take_buffer */
  uint64_t *dec_len;
  uint64_t expand_left; /* what dictionary indices may still expand to */
  dict_set *dicts;
} batch_ctx;

/* "arrow ipc: malformed stream: WHAT" as DELTA_ECORRUPT. */
int ipc_corrupt(const char *what);

dict_entry *ipc_dict_find(dict_set *d, int64_t id);
/* Drop a dictionary's chunks (a replacement, or the stream's end). */
void ipc_dict_clear(dict_entry *e);

/* Start decoding RecordBatch table `rb` (also a DictionaryBatch's data) of
 * a message with `body`: checks it, decompresses a compressed body, and
 * gives its row count. ipc_batch_dispose afterwards, also on failure. */
int ipc_batch_begin(batch_ctx *c, fbr *r, const fbt *rb, const uint8_t *body, uint64_t body_len, dict_set *dicts,
                    int64_t *length);
void ipc_batch_dispose(batch_ctx *c);

/* The batch's columns (the children of `root`) as a struct array of
 * `length` rows; `a` is zeroed, and released by the caller also on failure. */
int ipc_read_struct(batch_ctx *c, const lnode *root, struct ArrowArray *a, int64_t length);

/* The values of dictionary field `n`: the one column of a DictionaryBatch. */
int ipc_read_values(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t length);

#endif
