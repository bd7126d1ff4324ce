/*
 * The Parquet writer's internal model, shared by its files:
 *
 *   write_schema.c  Arrow schema -> node tree, leaves, Parquet SchemaElements
 *   write_shred.c   Arrow batches -> definition/repetition levels and values per leaf
 *   write_column.c  values -> pages (dictionary or PLAIN / DELTA_BINARY_PACKED) -> chunks
 *   write_dict.c    the dictionary hash table of a column chunk
 *   write_stats.c   min/max/null count by the column's sort order, truncation
 *   codec_write.c   page compression
 *   writer.c        the file: row groups, footer, the public API
 */
#ifndef DELTAC_PARQUET_WRITE_INTERNAL_H
#define DELTAC_PARQUET_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/parquet_writer.h"
#include "parquet/thrift_write.h"
#include "util/buf.h"

/* How an Arrow value becomes a Parquet physical value. */
typedef enum {
  PQW_BOOL,      /* bit -> BOOLEAN */
  PQW_I8,        /* int8 -> INT32 (sign-extended) */
  PQW_U8,        /* uint8 -> INT32 */
  PQW_I16,
  PQW_U16,
  PQW_COPY,      /* same bytes: 4 (INT32/FLOAT), 8 (INT64/DOUBLE) or N (FLBA) */
  PQW_DEC_I32,   /* decimal128 -> INT32 (low 32 bits) */
  PQW_DEC_I64,   /* decimal128 -> INT64 */
  PQW_DEC_FLBA,  /* decimal128/256 -> big-endian FLBA of type_length bytes */
  PQW_BA32,      /* utf8 / binary (int32 offsets) -> BYTE_ARRAY */
  PQW_BA64       /* large utf8 / binary */
} pqw_conv;

/* Sort order of min/max statistics. */
typedef enum {
  PQW_ORD_NONE,  /* no min/max (float16 and the like) */
  PQW_ORD_BOOL,
  PQW_ORD_I32,
  PQW_ORD_U32,
  PQW_ORD_I64,
  PQW_ORD_U64,
  PQW_ORD_F32,
  PQW_ORD_F64,
  PQW_ORD_BYTES, /* unsigned lexicographic */
  PQW_ORD_DEC_BE /* signed big-endian two's complement, fixed length */
} pqw_order;

typedef struct {
  bool has;              /* min/max set */
  delta_buf min, max;    /* physical values (no length prefix) */
  int64_t null_count;
  int64_t num_values;    /* levels, nulls included */
} pqw_stats;

/* Open-addressing hash table mapping values to dictionary indices. The
 * values live PLAIN-encoded in `plain`: byte arrays with their 4-byte
 * length, entry i at offsets[i]; fixed-width entry i at i * width. */
typedef struct {
  uint32_t *slots;       /* entry index + 1; 0 is empty */
  uint32_t *slot_hash;   /* the hash of each slot's entry */
  uint32_t n_slots;      /* a power of two */
  uint32_t n;            /* entries */
  uint32_t *offsets;     /* byte arrays: where entry i starts in plain */
  uint32_t cap_offsets;
  delta_buf plain;
} pqw_dict;

typedef struct pqw_leaf {
  /* schema */
  int index;
  char **path;           /* names from the top-level column down */
  int path_len;
  char *path_str;        /* dotted */
  char format[40];       /* Arrow format */
  int physical;          /* PQ_* */
  int32_t type_length;   /* FLBA */
  int in_width;          /* bytes per Arrow value for fixed-width input */
  pqw_conv conv;
  pqw_order order;
  int16_t max_def, max_rep;
  bool can_dict;         /* dictionary encoding allowed for this type */
  int converted;         /* PQ_CT_*, PQ_CT_NONE */
  int logical;           /* PQ_LT_*, PQ_LT_NONE */
  int unit;              /* TIME/TIMESTAMP: PQ_UNIT_* */
  int bits;              /* INTEGER */
  bool is_signed, utc;
  int32_t scale, precision;
  /* the page being filled */
  uint16_t *def, *rep;
  size_t n_levels, cap_levels;
  delta_buf values;      /* PLAIN physical values; booleans one byte each */
  uint32_t *idx;         /* dictionary indices */
  size_t n_idx, cap_idx;
  int64_t page_nulls, page_rows;
  /* the column chunk being filled */
  pqw_dict dict;
  bool dict_on;          /* values go through the dictionary */
  bool dict_used;        /* some page of the chunk is dictionary-encoded */
  bool dict_fallback;    /* the rest of the chunk is PLAIN (after this page) */
  int64_t chunk_dict_values; /* values dictionary-encoded in the chunk */
  delta_buf chunk;       /* page headers + (compressed) bodies, data pages only */
  int64_t chunk_levels;
  int64_t chunk_uncompressed;
  uint32_t encodings;    /* bit per PQ_ENC_* used in the chunk */
  pqw_stats chunk_stats;
  pqw_stats file_stats;
} pqw_leaf;

typedef enum { PQW_N_LEAF, PQW_N_STRUCT, PQW_N_LIST, PQW_N_MAP } pqw_node_kind;

typedef struct pqw_node {
  pqw_node_kind kind;
  char *name;
  bool nullable;
  bool has_field_id;
  int32_t field_id;
  bool has_list;         /* a LIST/MAP at or below this node */
  bool large_offsets;    /* LIST: 64-bit offsets ("+L") */
  int16_t def;           /* definition level at which this node is non-null */
  int16_t rep;           /* LIST/MAP: repetition level of its repeated group */
  struct pqw_node **children; /* LIST: the element; MAP: a struct of key, value */
  int n_children;
  int first_leaf, n_leaves;
  pqw_leaf *leaf;        /* PQW_N_LEAF */
} pqw_node;

/* Compression state (contexts reused across pages). */
typedef struct {
  int codec;             /* CODEC_* */
  int level;
  void *zstd;            /* ZSTD_CCtx */
  void *gzip;            /* z_stream */
} pqw_codec;

struct delta_parquet_writer {
  delta_parquet_write_options opts;
  delta_parquet_sink sink;
  int fd;                /* opened from a path, else -1 */
  int failed;            /* sticky error code */
  bool closed;
  pqw_node *root;        /* STRUCT of the top-level columns */
  pqw_leaf **leaves;
  int n_leaves;
  int64_t offset;        /* bytes written so far */
  int64_t num_rows;
  int64_t rg_rows;       /* rows in the open row group */
  delta_buf row_groups;  /* serialized RowGroup structs of the footer */
  int n_row_groups;
  pqw_codec codec;
  /* scratch, reused */
  delta_buf page, vals, packed, compressed, header;
  uint16_t *def_tmp;
  size_t cap_def_tmp;
  char *created_by;
  delta_buf kv;          /* serialized KeyValue structs */
  int n_kv;
};

typedef struct delta_parquet_writer pqw_writer;

/* write_schema.c */
int pqw_schema_build(pqw_writer *w, const struct ArrowSchema *schema);
void pqw_node_free(pqw_node *n);
/* Append the footer's schema list (field 2 of FileMetaData) to the writer. */
void pqw_schema_write(const pqw_writer *w, pq_tw *tw);

/* write_stats.c */
void pqw_stats_reset(pqw_stats *s);
void pqw_stats_dispose(pqw_stats *s);
int pqw_stats_update(pqw_stats *s, pqw_order o, const uint8_t *v, size_t len);
int pqw_stats_update_range(pqw_stats *s, pqw_order o, const uint8_t *v, size_t n, size_t width);
int pqw_stats_merge(pqw_stats *into, const pqw_stats *from, pqw_order o);
/* Write a Statistics struct field `id` with bounds truncated to max_bytes
 * (byte orders only; <0: never). */
void pqw_stats_write(const pqw_stats *s, pqw_order o, int32_t max_bytes, pq_tw *tw, int16_t id);
/* The logical value of a physical bound, for the caller's stats. */
void pqw_stats_value(const pqw_leaf *l, const delta_buf *b, delta_parquet_value *out);

/* write_dict.c */
void pqw_dict_reset(pqw_dict *d);
void pqw_dict_dispose(pqw_dict *d);
/* Index of value v (inserted when new; *is_new set). */
int pqw_dict_insert(pqw_dict *d, const uint8_t *v, uint32_t len, bool byte_array, uint32_t *idx,
                    bool *is_new);

/* codec_write.c */
int pqw_codec_init(pqw_codec *c, int codec, int level);
void pqw_codec_dispose(pqw_codec *c);
/* Compress src into out (reset first). UNCOMPRESSED copies. */
int pqw_compress(pqw_codec *c, const uint8_t *src, size_t n, delta_buf *out);

/* write_column.c */
int pqw_leaf_levels(pqw_leaf *l, const uint16_t *def, const uint16_t *rep, size_t n);
int pqw_leaf_level1(pqw_leaf *l, uint16_t def, uint16_t rep);
/* Values of slots [start, start+n) of `a` (all non-null). */
int pqw_leaf_values(pqw_writer *w, pqw_leaf *l, const struct ArrowArray *a, int64_t start, int64_t n);
/* `rows` more rows are complete in the leaf; cuts a page when it is full. */
int pqw_leaf_rows_done(pqw_writer *w, pqw_leaf *l, int64_t rows);
/* Estimated encoded bytes of the open page (levels and values). */
int64_t pqw_leaf_page_estimate(const pqw_leaf *l);
int pqw_leaf_flush_page(pqw_writer *w, pqw_leaf *l);
/* Write the leaf's chunk (dictionary page first) to the sink and append its
 * ColumnChunk struct to `tw`; resets the chunk. */
int pqw_leaf_flush_chunk(pqw_writer *w, pqw_leaf *l, pq_tw *tw, int64_t *chunk_bytes,
                         int64_t *uncompressed);
void pqw_leaf_free(pqw_leaf *l);

/* write_shred.c */
int pqw_shred(pqw_writer *w, const struct ArrowArray *batch, int64_t start, int64_t n);
/* DELTA_EINVAL unless the batch has the schema's shape and enough rows. */
int pqw_check_batch(const pqw_writer *w, const struct ArrowArray *batch);

/* writer.c */
int pqw_sink_write(pqw_writer *w, const void *p, size_t n);

#endif
