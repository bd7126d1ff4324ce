/*
 * Reading a Delta table with libdeltac: open the table, take a snapshot
 * (latest, or the version given as the second argument), and stream its
 * rows as Arrow batches — only those matching a filter when a third
 * argument gives one, with files and row groups it rules out skipped.
 *
 *   cc read_table.c -ldeltac ... && ./read_table /path/to/table [version [filter]]
 */
#include <stdio.h>
#include <stdlib.h>

#include <deltac.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s TABLE [VERSION [FILTER]]\n", argv[0]);
    return 2;
  }
  delta_table *table = NULL;
  delta_snapshot *snap = NULL;
  struct ArrowArrayStream stream = {0};
  int status = 1;
  if (delta_table_open(&table, argv[1]) != 0) goto fail;
  delta_snapshot_options opts = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (argc > 2 && argv[2][0]) {
    opts.at_version = true;
    opts.table_version = atoll(argv[2]);
  }
  if (delta_snapshot_open(&snap, table, &opts) != 0) goto fail;
  printf("version %lld, %lld live files\n", (long long)delta_snapshot_version(snap),
         (long long)delta_snapshot_num_files(snap));
  delta_scan_options scan = DELTA_SCAN_OPTIONS_INIT;
  delta_scan_metrics metrics = {0};
  scan.filter = argc > 3 ? argv[3] : NULL; /* e.g. "value > 5 AND value IS NOT NULL" */
  scan.metrics = &metrics;
  if (delta_scan_read(snap, &scan, &stream) != 0) goto fail;
  struct ArrowSchema schema;
  if (stream.get_schema(&stream, &schema) != 0) goto fail_stream;
  printf("%lld columns:", (long long)schema.n_children);
  for (int64_t i = 0; i < schema.n_children; i++) printf(" %s", schema.children[i]->name);
  printf("\n");
  schema.release(&schema);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray batch;
    if (stream.get_next(&stream, &batch) != 0) goto fail_stream;
    if (!batch.release) break; /* end of the stream */
    rows += batch.length;
    batch.release(&batch);
  }
  printf("%lld rows (%lld of %lld files read)\n", (long long)rows, (long long)metrics.files_read,
         (long long)metrics.files_total);
  status = 0;
  goto done;
fail_stream:
  fprintf(stderr, "error: %s\n", stream.get_last_error(&stream));
  goto done;
fail:
  fprintf(stderr, "error: %s\n", delta_error_last());
done:
  if (stream.release) stream.release(&stream);
  delta_snapshot_free(snap);
  delta_table_free(table);
  return status;
}
