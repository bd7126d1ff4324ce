/* The scan's file-task stream, shared by the plain scan and the change feed. */
#ifndef DELTAC_SCAN_SCAN_INTERNAL_H
#define DELTAC_SCAN_SCAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/scan.h"
#include "log/actions.h"

/* One data file to read and which of its rows to return. The plain scan
 * has one task per live file; the change feed builds tasks from commits. */
typedef enum {
  ROWS_LIVE,      /* rows not deleted by dv */
  ROWS_IN_DV      /* rows in dv and not in dv2 (NULL dv2: not in nothing) */
} row_selection;

typedef struct {
  const char *path;
  const delta_kv *partition_values;
  int n_partition_values;
  const delta_dv *dv, *dv2;
  row_selection rows;
  const char *change_type;     /* change feed: the constant _change_type, or NULL for cdc files */
  int64_t version, timestamp_us;
  const char *stats;           /* the file's stats JSON for pruning, or NULL */
  /* row tracking: the add's baseRowId / defaultRowCommitVersion */
  bool has_base_row_id, has_default_row_commit_version;
  int64_t base_row_id, default_row_commit_version;
  int64_t size;                /* the file's size as the log says, <= 0 when it does not */
} scan_task;

/* Where a stream's tasks come from, one at a time, so that a long change
 * feed never holds the tasks of its whole range. next() fills *task and
 * returns 0, returns 1 at the end, or a negative DELTA_E... code with the
 * last error set. The strings and DVs a task points to must stay valid
 * until the following next() call: the scan finishes a file before it
 * asks for the next one. release() frees ctx (also when next() never ran). */
typedef struct {
  int (*next)(void *ctx, scan_task *task);
  void (*release)(void *ctx);
  void *ctx;
  /* The tasks' strings and DVs stay valid until release(), not just until
   * the next call: the scan may then pull tasks ahead and read their files
   * ahead (on stores without local paths). */
  bool stable;
} scan_task_source;

/* A source over an array of tasks (taken over, freed by release). */
int scan_task_array_source(scan_task *tasks, int64_t n_tasks, scan_task_source *out);

/* A stream over the tasks of `src` (taken over, released with the stream or
 * on failure) with the columns `opts` selects from snap's schema, plus
 * _change_type, _commit_version and _commit_timestamp when `changes`. */
int scan_stream_new(delta_snapshot *snap, const delta_scan_options *opts, scan_task_source src, bool changes,
                    struct ArrowArrayStream *out);

#endif
