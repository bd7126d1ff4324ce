/*
 * Reading a snapshot's rows as Arrow data.
 *
 *   struct ArrowArrayStream s;
 *   delta_scan_read(snapshot, NULL, &s);   // every column, deleted rows skipped
 *
 * Each batch is a struct array of the table's logical columns (partition
 * columns included, column mapping resolved, types as the table declares
 * them). The stream holds a reference on the snapshot; the table must
 * outlive the stream.
 */
#ifndef DELTAC_SCAN_H
#define DELTAC_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a scan skipped and read, for `--stats` and tuning: filled in as
 * the stream is consumed. */
typedef struct {
  int64_t files_total;         /* files the scan considered */
  int64_t files_skipped;       /* ruled out by partition values or file statistics */
  int64_t files_read;
  int64_t row_groups_total;    /* row groups of the files opened */
  int64_t row_groups_skipped;  /* ruled out by row-group statistics */
  int64_t rows_read;           /* rows decoded, before deletion vectors and the filter */
  int64_t rows_returned;
  /* Filled in only for options of version 3 and later (the fields below
   * were added then; a version 2 caller's struct ends above). */
  int64_t pages_read;          /* Parquet data pages decompressed and decoded */
  int64_t pages_skipped;       /* data pages passed over undecoded (late materialization) */
  int64_t rows_skipped;        /* of rows_read, rows whose other columns were never decoded: the
                                  filter's columns ruled them out first */
} delta_scan_metrics;

#define DELTA_SCAN_OPTIONS_VERSION 3
typedef struct {
  unsigned int version;            /* DELTA_SCAN_OPTIONS_VERSION (1: without filter and metrics;
                                      2: without row_tracking, and metrics without the page counts) */
  const char *const *columns;      /* top-level column names; NULL / 0: all */
  size_t n_columns;
  int64_t batch_rows;              /* 0: 65536 */
  /* A predicate in deltac's filter language ("country = 'NL' AND amount >
   * 100", see docs/filters.md), or NULL. It prunes files by partition
   * values and statistics, row groups by their statistics, and finally
   * filters rows exactly. Syntax and binding errors: DELTA_EINVAL. */
  const char *filter;
  delta_scan_metrics *metrics;     /* optional; must outlive the stream */
  /* Append _row_id and _row_commit_version (both int64) to every batch:
   * the rows' stable row ids and commit versions as the row tracking spec
   * defines them (null where the table never assigned any). */
  bool row_tracking;
} delta_scan_options;
#define DELTA_SCAN_OPTIONS_INIT {DELTA_SCAN_OPTIONS_VERSION, NULL, 0, 0, NULL, NULL, false}

int delta_scan_read(delta_snapshot *s, const delta_scan_options *opts, struct ArrowArrayStream *out);

/*
 * The scan plan: the files a scan would read, after pruning, for engines
 * that read Parquet themselves. Apply each file's deletion vector and turn
 * its physical columns into the table's logical ones (column mapping:
 * delta_scan_plan_column; partition values: the file's own) to get the
 * scan's rows; the filter must still be applied to them exactly.
 *
 *   delta_scan_plan *p;  delta_scan_file f;
 *   delta_scan_plan_open(&p, snapshot, &opts);        // opts.filter prunes
 *   while (delta_scan_plan_next(p, &f) == 0) ...      // DELTA_ITEROVER at the end
 *   delta_scan_plan_free(p);
 */
typedef struct delta_scan_plan delta_scan_plan;

typedef struct {
  const char *path;            /* as the log writes it (URI-encoded, maybe relative) */
  const char *location;        /* absolute URI of the data file */
  int64_t size;
  int64_t num_records;         /* -1 when unknown */
  int64_t modification_time;   /* ms since the epoch */
  const char *stats;           /* the add action's stats JSON, or NULL */
  size_t n_partition_values;
  const char *const *partition_columns; /* logical names */
  const char *const *partition_values;  /* serialized as the spec says; NULL for null */
  /* deletion vector (has_deletion_vector false: none) */
  bool has_deletion_vector;
  char dv_storage_type;        /* 'u', 'p' or 'i' */
  const char *dv_path_or_inline;
  int32_t dv_offset;           /* -1 when absent */
  int32_t dv_size_in_bytes;
  int64_t dv_cardinality;
  const char *dv_location;     /* absolute URI of the DV file; NULL for inline */
} delta_scan_file;

/* One logical column of the table and where files store it. */
typedef struct {
  const char *name;
  const char *type;            /* Delta type name, e.g. "decimal(10,2)" */
  const char *physical_name;   /* the column name in data files */
  int64_t field_id;            /* Parquet field id (column mapping "id"), -1 if none */
  bool is_partition;
} delta_scan_column;

/* `opts` may be NULL; its columns and batch size are ignored (a plan is
 * per file), its filter prunes and its metrics count what was pruned. The
 * plan holds a reference on the snapshot. */
int delta_scan_plan_open(delta_scan_plan **out, delta_snapshot *s, const delta_scan_options *opts);
/* The next file: 0, DELTA_ITEROVER after the last, or an error. The
 * strings stay valid until the next call. */
int delta_scan_plan_next(delta_scan_plan *p, delta_scan_file *f);
/* The table's columns (in schema order) and the column mapping mode
 * ("none", "name" or "id"). */
int delta_scan_plan_num_columns(const delta_scan_plan *p);
void delta_scan_plan_column(const delta_scan_plan *p, int i, delta_scan_column *out);
const char *delta_scan_plan_column_mapping(const delta_scan_plan *p);
/* The filter as the plan understood it (canonical text), or NULL. */
const char *delta_scan_plan_filter(const delta_scan_plan *p);
void delta_scan_plan_free(delta_scan_plan *p);

#ifdef __cplusplus
}
#endif

#endif
