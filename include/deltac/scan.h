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
} delta_scan_metrics;

#define DELTA_SCAN_OPTIONS_VERSION 2
typedef struct {
  unsigned int version;            /* DELTA_SCAN_OPTIONS_VERSION (1: without filter and metrics) */
  const char *const *columns;      /* top-level column names; NULL / 0: all */
  size_t n_columns;
  int64_t batch_rows;              /* 0: 65536 */
  /* A predicate in deltac's filter language ("country = 'NL' AND amount >
   * 100", see docs/filters.md), or NULL. It prunes files by partition
   * values and statistics, row groups by their statistics, and finally
   * filters rows exactly. Syntax and binding errors: DELTA_EINVAL. */
  const char *filter;
  delta_scan_metrics *metrics;     /* optional; must outlive the stream */
} delta_scan_options;
#define DELTA_SCAN_OPTIONS_INIT {DELTA_SCAN_OPTIONS_VERSION, NULL, 0, 0, NULL, NULL}

int delta_scan_read(delta_snapshot *s, const delta_scan_options *opts, struct ArrowArrayStream *out);

#ifdef __cplusplus
}
#endif

#endif
