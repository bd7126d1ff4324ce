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

#ifdef __cplusplus
}
#endif

#endif
