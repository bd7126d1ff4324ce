/*
 * Writing Parquet files from Arrow data.
 *
 *   delta_parquet_writer *w;
 *   delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
 *   o.codec = DELTA_PARQUET_ZSTD;
 *   if (delta_parquet_writer_open(&w, "x.parquet", &schema, &o) != 0) puts(delta_error_last());
 *   delta_parquet_writer_write(w, &batch);          // any number of batches
 *   delta_parquet_write_result *r;
 *   delta_parquet_writer_close(w, &r);              // footer written; r has stats
 *   delta_parquet_writer_free(w);
 *   delta_parquet_write_result_free(r);
 *
 * The schema is a struct ("+s") whose children are the columns; each batch
 * is a struct array of that schema (its top-level validity is ignored).
 * Types: boolean, int8..64, uint8..64, float16/32/64, decimal128/256,
 * utf8/large utf8 (arrow.json extension: JSON), binary/large binary,
 * fixed-size binary (arrow.uuid extension: UUID), date32, time32[ms],
 * time64[us/ns], timestamp ms/us/ns (with a time zone: adjusted to UTC;
 * without: not adjusted), struct, list/large list and map at any depth.
 * Others (seconds units, views, dictionary arrays, ...) are refused with
 * DELTA_EUNSUPPORTED when the writer is opened. A field whose metadata has
 * PARQUET:field_id gets that field_id.
 *
 * The writer buffers one row group in memory (encoded and compressed) and
 * hands it to the sink when the group is full or the file is closed.
 */
#ifndef DELTAC_PARQUET_WRITER_H
#define DELTAC_PARQUET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct delta_parquet_writer delta_parquet_writer;

/* Page compression. DEFAULT (0) is SNAPPY. */
typedef enum {
  DELTA_PARQUET_CODEC_DEFAULT = 0,
  DELTA_PARQUET_UNCOMPRESSED = 1,
  DELTA_PARQUET_SNAPPY = 2,
  DELTA_PARQUET_GZIP = 3,
  DELTA_PARQUET_ZSTD = 4,
  DELTA_PARQUET_LZ4_RAW = 5
} delta_parquet_codec;

#define DELTA_PARQUET_WRITE_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;          /* DELTA_PARQUET_WRITE_OPTIONS_VERSION */
  delta_parquet_codec codec;     /* DEFAULT: SNAPPY */
  int compression_level;         /* ZSTD/GZIP level; 0: the codec's default */
  int64_t row_group_rows;        /* rows per row group; 0: 1048576 */
  int64_t row_group_bytes;       /* encoded bytes per row group (estimate); 0: 128 MiB */
  int64_t page_bytes;            /* encoded bytes per data page (estimate); 0: 1 MiB */
  int64_t page_rows;             /* rows per data page; 0: 20000 */
  bool no_dictionary;            /* write every column PLAIN (no dictionary pages) */
  int64_t dictionary_bytes;      /* a column chunk's dictionary past this falls back to
                                  * PLAIN for the rest of the chunk; 0: 1 MiB */
  bool data_page_v2;             /* DATA_PAGE_V2 instead of DATA_PAGE */
  bool delta_binary_packed;      /* INT32/INT64 pages not dictionary-encoded use
                                  * DELTA_BINARY_PACKED when it is smaller than PLAIN */
  int32_t stats_max_bytes;       /* byte-array min/max in the file are truncated to
                                  * this many bytes (marked inexact); 0: 64; -1: never */
  const char *created_by;        /* NULL: "deltac version X" */
  const char *const *kv_keys;    /* extra footer key/value metadata */
  const char *const *kv_values;
  size_t n_kv;
} delta_parquet_write_options;
#define DELTA_PARQUET_WRITE_OPTIONS_INIT                                                     \
  {DELTA_PARQUET_WRITE_OPTIONS_VERSION, DELTA_PARQUET_CODEC_DEFAULT, 0, 0, 0, 0, 0, false, 0, false, \
   false, 0, NULL, NULL, NULL, 0}

/* Where the bytes go. write must take all `len` bytes or fail (non-zero
 * return: the writer reports DELTA_EIO). Bytes arrive strictly in file
 * order; the data pointer is valid only during the call. */
typedef struct {
  int (*write)(void *ctx, const void *data, size_t len);
  void *ctx;
} delta_parquet_sink;

/* Create (or truncate) a local file and write to it. */
int delta_parquet_writer_open(delta_parquet_writer **out, const char *path,
                              const struct ArrowSchema *schema,
                              const delta_parquet_write_options *opts);
/* Write to a caller's sink (which must outlive the writer). */
int delta_parquet_writer_open_sink(delta_parquet_writer **out, const delta_parquet_sink *sink,
                                   const struct ArrowSchema *schema,
                                   const delta_parquet_write_options *opts);

/* Append the rows of one batch (borrowed: not released, not kept). A batch
 * of 0 rows is fine. After an error the writer refuses further calls. */
int delta_parquet_writer_write(delta_parquet_writer *w, const struct ArrowArray *batch);

/* A min/max value in the column's logical domain, for stats. */
typedef enum {
  DELTA_PARQUET_VALUE_BOOL,
  DELTA_PARQUET_VALUE_INT64,     /* signed ints, date32 days, time, timestamps */
  DELTA_PARQUET_VALUE_UINT64,    /* unsigned ints */
  DELTA_PARQUET_VALUE_DOUBLE,    /* float and double (float widened exactly) */
  DELTA_PARQUET_VALUE_DECIMAL,   /* unscaled 128-bit integer; scale in the format */
  DELTA_PARQUET_VALUE_BYTES      /* strings (UTF-8), binary, fixed-size binary */
} delta_parquet_value_kind;

typedef struct {
  delta_parquet_value_kind kind;
  union {
    bool b;
    int64_t i64;
    uint64_t u64;
    double f64;
    struct { uint64_t lo; int64_t hi; } dec;
    struct { const uint8_t *data; size_t len; } bytes;
  } v;
} delta_parquet_value;

/* Statistics of one leaf column over the whole file. */
typedef struct {
  const char *path;              /* dotted Parquet path ("a.b", "l.list.element") */
  const char *const *path_parts; /* the same, one name per level */
  int path_len;
  const char *format;            /* Arrow format of the leaf ("l", "u", "d:10,2", "tsu:UTC") */
  bool repeated;                 /* inside a list or map: values are not one per row */
  int64_t num_values;            /* leaf slots, nulls included */
  int64_t null_count;            /* null slots (a null ancestor counts as a null) */
  bool has_min_max;              /* false: all null, all NaN, or a type without order */
  delta_parquet_value min, max;  /* exact (never truncated) */
} delta_parquet_column_result;

typedef struct {
  int64_t file_size;
  int64_t num_rows;
  int num_row_groups;
  int n_columns;                 /* leaf columns, in file order */
  delta_parquet_column_result *columns;
} delta_parquet_write_result;

/* Flush the last row group and write the footer. `out` may be NULL; else
 * *out belongs to the caller (delta_parquet_write_result_free). The writer
 * must still be freed. */
int delta_parquet_writer_close(delta_parquet_writer *w, delta_parquet_write_result **out);
/* Free a writer; one never closed leaves an incomplete file behind. */
void delta_parquet_writer_free(delta_parquet_writer *w);
void delta_parquet_write_result_free(delta_parquet_write_result *r);

#ifdef __cplusplus
}
#endif

#endif
