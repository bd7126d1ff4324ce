/*
 * Reading single Parquet files into Arrow data.
 *
 *   delta_parquet_file *f;
 *   if (delta_parquet_open(&f, "x.parquet") != 0) puts(delta_error_last());
 *   struct ArrowArrayStream s;
 *   delta_parquet_read(f, NULL, &s);      // every column, every row group
 *   ... s.get_next(&s, &batch) until batch.release == NULL ...
 *   s.release(&s); delta_parquet_free(f);
 *
 * Each batch is a struct array ("+s") whose children are the selected
 * top-level columns. The stream holds a reference to the file's data, so the
 * file may be freed before the stream is released.
 */
#ifndef DELTAC_PARQUET_H
#define DELTAC_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct delta_parquet_file delta_parquet_file;

/* Open a local file (memory-mapped). The footer is read and validated here. */
int delta_parquet_open(delta_parquet_file **out, const char *path);
/* Open a file already in memory; `data` must outlive the file and every
 * stream made from it. `name` is used in error messages. */
int delta_parquet_open_memory(delta_parquet_file **out, const void *data, size_t len,
                              const char *name);

/*
 * Where a file's bytes come from when it is neither a local path nor in
 * memory: an object store, a cache, an embedder's own I/O. The reader asks
 * for the footer with ONE read of the file's last 64 KiB (the whole file if
 * smaller; a second read only when the footer is larger), then, unless
 * `cheap_reads`, for each row group it starts, the column chunks of the
 * projected columns, chunks less than 1 MiB apart merged into one read.
 */
#define DELTA_PARQUET_SOURCE_VERSION 1
typedef struct delta_parquet_source {
  unsigned int version;   /* DELTA_PARQUET_SOURCE_VERSION */
  uint64_t size;          /* the file's size in bytes */
  /* Put exactly `len` bytes from `offset` (offset + len <= size) into dst.
   * 0, or a negative delta_error_code with the message set (a file that
   * turns out shorter is DELTA_ECORRUPT). Called from one thread at a time
   * per file, not necessarily always the same thread. */
  int (*read_at)(void *ctx, uint64_t offset, size_t len, void *dst);
  /* Optional: release ctx. Called once, when the file and its streams are
   * gone, and also when delta_parquet_open_source fails. */
  void (*close)(void *ctx);
  void *ctx;
  /* Small reads cost little (a local file): pages are read one at a time
   * as they are decoded, and pages passed over are never read. false (a
   * remote store): whole column chunks are read per row group, coalesced. */
  bool cheap_reads;
} delta_parquet_source;

/* Open a file through a source (copied; ctx is owned from here on, see
 * close). `name` is used in error messages. */
int delta_parquet_open_source(delta_parquet_file **out, const delta_parquet_source *src,
                              const char *name);
void delta_parquet_free(delta_parquet_file *f);

int64_t delta_parquet_num_rows(const delta_parquet_file *f);
int delta_parquet_num_row_groups(const delta_parquet_file *f);
int64_t delta_parquet_row_group_num_rows(const delta_parquet_file *f, int row_group);
/* Number of leaf (primitive) columns, and the dotted path of one. */
int delta_parquet_num_leaves(const delta_parquet_file *f);
const char *delta_parquet_leaf_path(const delta_parquet_file *f, int leaf);

/* The Arrow schema of every column (a struct "+s"). Caller releases. */
int delta_parquet_schema(const delta_parquet_file *f, struct ArrowSchema *out);

#define DELTA_PARQUET_READ_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;        /* DELTA_PARQUET_READ_OPTIONS_VERSION */
  /* Columns to read, as dotted paths ("a", "a.b"); a path naming a group
   * reads all of it. NULL / 0: every column. Unknown names: DELTA_ENOTFOUND. */
  const char *const *columns;
  size_t n_columns;
  /* Row groups to read, in this order. NULL / 0: all of them. */
  const int *row_groups;
  size_t n_row_groups;
  /* Rows per batch; 0: 65536. */
  int64_t batch_rows;
} delta_parquet_read_options;
#define DELTA_PARQUET_READ_OPTIONS_INIT {DELTA_PARQUET_READ_OPTIONS_VERSION, NULL, 0, NULL, 0, 0}

/* Start reading. `opts` may be NULL. Errors in the data show up from
 * get_next (with get_last_error). */
int delta_parquet_read(delta_parquet_file *f, const delta_parquet_read_options *opts,
                       struct ArrowArrayStream *out);

/* Read ahead the column chunks of the first row group `opts` would read
 * (columns and row_groups are used; NULL: every column of row group 0), so
 * that the next stream started on that row group finds them in memory. For
 * files opened from a source without cheap_reads; a no-op otherwise. Lets a
 * caller overlap I/O with other work (e.g. from another thread, before the
 * file is handed over). */
int delta_parquet_prefetch(delta_parquet_file *f, const delta_parquet_read_options *opts);

/* Row-group statistics of one leaf column, for pruning. min/max are the
 * PLAIN-encoded bytes (little-endian numbers; raw bytes for byte arrays)
 * and are set only when usable under the column's sort order: the modern
 * min_value/max_value fields, or the deprecated min/max fields for types
 * whose signed order is the right one. Floating-point NaN bounds are
 * dropped. */
typedef struct {
  bool has_min_max;
  const uint8_t *min, *max;    /* borrowed from the file */
  uint32_t min_len, max_len;
  bool min_exact, max_exact;   /* false when the writer truncated the bound */
  bool has_null_count;
  int64_t null_count;
  int64_t num_values;          /* values including nulls, from the chunk */
  int physical_type;           /* Parquet physical type id */
} delta_parquet_stats;

int delta_parquet_column_stats(const delta_parquet_file *f, int row_group, int leaf,
                               delta_parquet_stats *out);

#ifdef __cplusplus
}
#endif

#endif
