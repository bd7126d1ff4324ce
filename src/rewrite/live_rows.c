/* Reading one data file's rows through the scan; see live_rows.h. */
#include "rewrite/live_rows.h"

#include "log/snapshot.h"
#include "rewrite/file_writers.h"
#include "scan/scan_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* One file as a scan of one task: `live` applies its DV, `row_ids` adds
 * the row tracking columns. */
static int read_file(delta_snapshot *s, const delta_add *a, bool live, bool row_ids, rewrite_batch_cb cb, void *ctx) {
  scan_task *task = mem_calloc(1, sizeof *task);
  if (!task) return DELTA_NOMEM();
  task->path = a->path;
  task->partition_values = a->partition_values;
  task->n_partition_values = a->n_partition_values;
  task->dv = live && a->dv.present ? &a->dv : NULL;
  task->rows = ROWS_LIVE;
  task->has_base_row_id = a->has_base_row_id;
  task->base_row_id = a->base_row_id;
  task->has_default_row_commit_version = a->has_default_row_commit_version;
  task->default_row_commit_version = a->default_row_commit_version;
  scan_task_source src;
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  struct ArrowArray batch = {0};
  int rc;
  /* the source takes the task over, and the stream the source */
  if ((rc = scan_task_array_source(task, 1, &src)) != 0) return rc;
  delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
  so.row_tracking = row_ids;
  if ((rc = scan_stream_new(s, &so, src, false, &st)) != 0) return rc;
  if (st.get_schema(&st, &schema)) {
    rc = err_set(DELTA_EIO, "%s", st.get_last_error(&st));
    goto done;
  }
  for (;;) {
    if (st.get_next(&st, &batch)) {
      const char *m = st.get_last_error(&st);
      rc = err_set(DELTA_EIO, "%s", m ? m : "reading a data file failed");
      goto done;
    }
    if (!batch.release) break;
    rc = cb(ctx, &schema, &batch);
    batch.release(&batch);
    if (rc != 0) goto done;
  }
done:
  if (batch.release) batch.release(&batch);
  if (schema.release) schema.release(&schema);
  if (st.release) st.release(&st);
  return rc;
}

int rewrite_read_file(delta_snapshot *s, const delta_add *a, rewrite_batch_cb cb, void *ctx) {
  return read_file(s, a, false, false, cb, ctx);
}

int rewrite_read_file_tracked(rewrite_writers *w, const delta_add *a, rewrite_batch_cb cb, void *ctx) {
  return read_file(w->s, a, false, w->track_rows, cb, ctx);
}

int rewrite_read_live_rows(delta_snapshot *s, const delta_add *a, rewrite_batch_cb cb, void *ctx) {
  return read_file(s, a, true, false, cb, ctx);
}
