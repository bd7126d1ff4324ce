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
    json_write_null(w);
    return;
  }
  char type[2] = {dv->storage_type, '\0'};
  json_write_object_begin(w);
  json_write_key(w, "storageType");
  json_write_string(w, type);
  json_write_key(w, "pathOrInlineDv");
  json_write_string(w, dv->path_or_inline);
  if (dv->has_offset) {
    json_write_key(w, "offset");
    json_write_int64(w, dv->offset);
  }
  json_write_key(w, "sizeInBytes");
  json_write_int64(w, dv->size_in_bytes);
  json_write_key(w, "cardinality");
  json_write_int64(w, dv->cardinality);
  json_write_object_end(w);
}

static int file_json(const delta_change_file *f, delta_buf *out) {
  static const char *const rows[] = {"live", "cdc", "dv_diff"};
  char ts[64];
  time_format_ms(f->timestamp_ms, ts);
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "version");
  json_write_int64(&w, f->version);
  json_write_key(&w, "commit_timestamp");
  json_write_string(&w, ts);
  json_write_key(&w, "commit_timestamp_ms");
  json_write_int64(&w, f->timestamp_ms);
  json_write_key(&w, "path");
  json_write_string(&w, f->path);
  json_write_key(&w, "size");
  if (f->size >= 0) json_write_int64(&w, f->size);
  else json_write_null(&w);
  json_write_key(&w, "partition_values");
  json_write_object_begin(&w);
  for (int i = 0; i < f->n_partition_values; i++) {
    json_write_key(&w, f->partition_values[i].key);
    if (f->partition_values[i].value) json_write_string(&w, f->partition_values[i].value);
    else json_write_null(&w);
  }
  json_write_object_end(&w);
  json_write_key(&w, "rows");
  json_write_string(&w, rows[f->rows]);
  json_write_key(&w, "change_type");
  if (f->change_type) json_write_string(&w, f->change_type);
  else json_write_null(&w);
  json_write_key(&w, "dv");
  dv_json(&w, f->dv);
  json_write_key(&w, "dv2");
  dv_json(&w, f->dv2);
  json_write_object_end(&w);
  return json_writer_finish(&w);
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
    if (!rc) rc = buf_putc(&line, '\n');
    if (rc) break;
    fwrite(line.data, 1, line.len, stdout);
  }
  if (rc == 1) rc = 0;
  buf_dispose(&line);
  delta_changes_plan_free(p);
  return rc;
}
