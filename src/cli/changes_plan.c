/* deltac changes --plan: what an engine that reads files itself needs,
 * one JSON object a line, each naming one file and how its rows become
 * change rows (see delta_changes_plan in deltac/changes.h):
 *
 *   {"version":2,"commit_timestamp":"2024-05-01T12:00:00.000Z","commit_timestamp_ms":1714564800000,
 *    "path":"part-0.parquet","size":1234,"partition_values":{"p":"1"},"rows":"dv_diff",
 *    "change_type":"delete","dv":{...},"dv2":{...}}
 *
 * rows is "live" (rows not in dv), "cdc" (the file's own _change_type;
 * change_type null) or "dv_diff" (rows in dv and not in dv2). DVs use the
 * log's descriptor field names. */
#include "cli/changes_plan.h"

#include <stdio.h>

#include "json/json_writer.h"
#include "util/buf.h"
#include "util/time_parse.h"

static void dv_json(delta_json_writer *w, const delta_dv_descriptor *dv) {
  if (!dv) {
    delta_json_write_null(w);
    return;
  }
  char type[2] = {dv->storage_type, '\0'};
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "storageType");
  delta_json_write_string(w, type);
  delta_json_write_key(w, "pathOrInlineDv");
  delta_json_write_string(w, dv->path_or_inline);
  if (dv->has_offset) {
    delta_json_write_key(w, "offset");
    delta_json_write_int64(w, dv->offset);
  }
  delta_json_write_key(w, "sizeInBytes");
  delta_json_write_int64(w, dv->size_in_bytes);
  delta_json_write_key(w, "cardinality");
  delta_json_write_int64(w, dv->cardinality);
  delta_json_write_object_end(w);
}

static int file_json(const delta_change_file *f, delta_buf *out) {
  static const char *const rows[] = {"live", "cdc", "dv_diff"};
  char ts[64];
  delta_time_format_ms(f->timestamp_ms, ts);
  delta_json_writer w;
  delta_json_writer_init(&w, out, 0);
  delta_json_write_object_begin(&w);
  delta_json_write_key(&w, "version");
  delta_json_write_int64(&w, f->version);
  delta_json_write_key(&w, "commit_timestamp");
  delta_json_write_string(&w, ts);
  delta_json_write_key(&w, "commit_timestamp_ms");
  delta_json_write_int64(&w, f->timestamp_ms);
  delta_json_write_key(&w, "path");
  delta_json_write_string(&w, f->path);
  delta_json_write_key(&w, "size");
  if (f->size >= 0) delta_json_write_int64(&w, f->size);
  else delta_json_write_null(&w);
  delta_json_write_key(&w, "partition_values");
  delta_json_write_object_begin(&w);
  for (int i = 0; i < f->n_partition_values; i++) {
    delta_json_write_key(&w, f->partition_values[i].key);
    if (f->partition_values[i].value) delta_json_write_string(&w, f->partition_values[i].value);
    else delta_json_write_null(&w);
  }
  delta_json_write_object_end(&w);
  delta_json_write_key(&w, "rows");
  delta_json_write_string(&w, rows[f->rows]);
  delta_json_write_key(&w, "change_type");
  if (f->change_type) delta_json_write_string(&w, f->change_type);
  else delta_json_write_null(&w);
  delta_json_write_key(&w, "dv");
  dv_json(&w, f->dv);
  delta_json_write_key(&w, "dv2");
  dv_json(&w, f->dv2);
  delta_json_write_object_end(&w);
  return delta_json_writer_finish(&w);
}

int changes_plan_print(delta_table *t, const delta_changes_options *opts) {
  delta_changes_plan *p;
  int rc = delta_changes_plan_open(&p, t, opts);
  if (rc) return rc;
  delta_buf line = DELTA_BUF_INIT;
  delta_change_file f;
  while ((rc = delta_changes_plan_next(p, &f)) == 0) {
    line.len = 0;
    rc = file_json(&f, &line);
    if (!rc) rc = delta_buf_putc(&line, '\n');
    if (rc) break;
    fwrite(line.data, 1, line.len, stdout);
  }
  if (rc == 1) rc = 0;
  delta_buf_dispose(&line);
  delta_changes_plan_free(p);
  return rc;
}
