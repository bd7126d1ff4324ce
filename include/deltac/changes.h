/*
 * The change data feed: every row inserted, deleted or updated between two
 * versions (both included), with _change_type, _commit_version and
 * _commit_timestamp, as Spark returns it.
 */
#ifndef DELTAC_CHANGES_H
#define DELTAC_CHANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/scan.h"
#include "deltac/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DELTA_CHANGES_OPTIONS_VERSION 2
typedef struct {
  unsigned int version;       /* DELTA_CHANGES_OPTIONS_VERSION (1: without filter and metrics) */
  int64_t start_version;      /* used unless start_is_timestamp */
  bool start_is_timestamp;
  int64_t start_timestamp_ms; /* the first version committed at or after it */
  bool has_end;               /* else: the latest version */
  int64_t end_version;
  bool end_is_timestamp;
  int64_t end_timestamp_ms;   /* the last version committed at or before it */
  const char *const *columns; /* table columns; the change columns always come */
  size_t n_columns;
  /* A predicate in the filter language over the table's columns and
   * _change_type, _commit_version, _commit_timestamp; or NULL. Files are
   * pruned by partition values, statistics and the commit version. */
  const char *filter;
  delta_scan_metrics *metrics; /* optional; must outlive the stream */
} delta_changes_options;
#define DELTA_CHANGES_OPTIONS_INIT {DELTA_CHANGES_OPTIONS_VERSION, 0, false, 0, false, 0, false, 0, NULL, 0, NULL, NULL}

/* The rows stream in version order; each commit's actions are read only
 * when the stream reaches it, so memory is bounded by one commit and one
 * batch, not by the range. Range errors come from this call, before any
 * row: DELTA_EINVAL for a range that is backwards or starts after the
 * latest version; DELTA_EUNSUPPORTED when the change feed is not enabled
 * at a version of the range (named in the message). A timestamp range
 * that falls between two commits is empty, not an error. Data files that
 * cannot be read fail the stream's get_next. */
int delta_changes_read(delta_table *t, const delta_changes_options *opts, struct ArrowArrayStream *out);

/* The plan form, for engines that read the data files themselves: the
 * files of the range, version by version, and how each turns into change
 * rows. Read each file with the schema of the range's end version
 * (delta_changes_plan_end_version; column mapping, partition values and
 * type widening as for a scan), keep the rows `rows` selects, and add the three change columns:
 *
 *   DELTA_CHANGE_ROWS_LIVE  rows not deleted by `dv` (when present) are all
 *                           `change_type` (an added file: insert; a removed
 *                           one: delete).
 *   DELTA_CHANGE_ROWS_CDC   a cdc file: every row, its _change_type read
 *                           from the file's own column (change_type NULL).
 *   DELTA_CHANGE_ROWS_DV_DIFF  a file removed and re-added under another
 *                           deletion vector: rows in `dv` and not in `dv2`
 *                           are `change_type` (dv = old DV, dv2 = new for
 *                           inserts; the other way round for deletes).
 *
 *   delta_changes_plan *p;  delta_change_file f;
 *   delta_changes_plan_open(&p, table, &opts);        // range errors here
 *   while ((rc = delta_changes_plan_next(p, &f)) == 0) { ... }
 *   delta_changes_plan_free(p);                       // rc 1: done; < 0: error
 *
 * Like the stream, the plan reads a commit only when it gets to it. */
typedef enum {
  DELTA_CHANGE_ROWS_LIVE,
  DELTA_CHANGE_ROWS_CDC,
  DELTA_CHANGE_ROWS_DV_DIFF
} delta_change_rows;

typedef struct {
  const char *key;
  const char *value;          /* NULL for a null partition value */
} delta_partition_value;

/* A deletion vector descriptor as the log writes it. */
typedef struct {
  char storage_type;          /* 'u' (relative path), 'p' (absolute path) or 'i' (inline) */
  const char *path_or_inline; /* pathOrInlineDv */
  bool has_offset;
  int32_t offset;
  int32_t size_in_bytes;
  int64_t cardinality;
} delta_dv_descriptor;

typedef struct {
  int64_t version;
  int64_t timestamp_ms;       /* _commit_timestamp */
  const char *path;           /* as in the log: URI-encoded, relative to the table root or absolute */
  int64_t size;               /* bytes; -1 when the log does not say (some removes) */
  const delta_partition_value *partition_values;
  int n_partition_values;
  delta_change_rows rows;
  const char *change_type;    /* "insert" / "delete"; NULL for DELTA_CHANGE_ROWS_CDC */
  const delta_dv_descriptor *dv, *dv2; /* NULL when none */
} delta_change_file;

typedef struct delta_changes_plan delta_changes_plan;

/* The range is resolved and checked as by delta_changes_read (same errors);
 * opts->columns is not used. */
int delta_changes_plan_open(delta_changes_plan **out, delta_table *t, const delta_changes_options *opts);
/* 0 with *out filled (its strings valid until the next call or the free),
 * 1 after the last file, or a negative error code. */
int delta_changes_plan_next(delta_changes_plan *p, delta_change_file *out);
/* The versions the range resolved to; end < start for an empty range. */
int64_t delta_changes_plan_start_version(const delta_changes_plan *p);
int64_t delta_changes_plan_end_version(const delta_changes_plan *p);
void delta_changes_plan_free(delta_changes_plan *p);

#ifdef __cplusplus
}
#endif

#endif
