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

#define DELTA_SCAN_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;            /* DELTA_SCAN_OPTIONS_VERSION */
  const char *const *columns;      /* top-level column names; NULL / 0: all */
  size_t n_columns;
  int64_t batch_rows;              /* 0: 65536 */
} delta_scan_options;
#define DELTA_SCAN_OPTIONS_INIT {DELTA_SCAN_OPTIONS_VERSION, NULL, 0, 0}

int delta_scan_read(delta_snapshot *s, const delta_scan_options *opts, struct ArrowArrayStream *out);

#ifdef __cplusplus
}
#endif

#endif
