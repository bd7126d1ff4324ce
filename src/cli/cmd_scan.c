/* deltac scan and deltac plan: a snapshot's rows, or the files a scan
 * would read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/table_args.h"
#include "deltac/error.h"
#include "deltac/scan.h"
#include "json/json_writer.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

int cmd_scan(int argc, char **argv) {
  cli_opt opts[] = {TABLE_OPTS, {"limit", true, NULL}, {"columns", true, NULL}, {"filter", true, NULL},
                    {"stats", false, NULL}, {"row-tracking", false, NULL}};
  const int n_opts = 8;
  const char *pos[1];
  int fmt;
  int64_t limit;
  int rc = cli_listing_args("scan", argc, argv, opts, n_opts, pos, &fmt, &limit);
  if (rc) return rc;
  delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
  delta_scan_metrics metrics = {0};
  so.filter = cli_get(opts, n_opts, "filter");
  so.metrics = &metrics;
  so.row_tracking = cli_get(opts, n_opts, "row-tracking") != NULL;
  char **cols = NULL;
  if (cli_get(opts, n_opts, "columns")) {
    cols = cli_split_list(cli_get(opts, n_opts, "columns"), &so.n_columns);
    if (!cols) return cli_fail("scan");
    so.columns = (const char *const *)cols;
  }
  delta_table *t;
  delta_snapshot *s;
  if ((rc = cli_open_snapshot("scan", opts, n_opts, pos[0], &t, &s)) != 0) {
    mem_free(cols);
    return rc;
  }
  struct ArrowArrayStream st = {0};
  rc = delta_scan_read(s, &so, &st);
  if (!rc) rc = cli_write_stream(&st, (cli_format)fmt, limit, stdout);
  if (st.release) st.release(&st);
  if (!rc && cli_get(opts, n_opts, "stats")) cli_print_scan_metrics(&metrics);
  delta_snapshot_free(s);
  delta_table_free(t);
  mem_free(cols);
  return rc ? cli_fail("scan") : 0;
}

/* plan: the files a scan would read, as NDJSON: a "scan" line (columns,
 * column mapping, filter) then one "file" line per file. */
static int plan_header(delta_json_writer *w, delta_scan_plan *p, const delta_snapshot *s, const delta_table *t) {
  json_write_object_begin(w);
  json_write_key(w, "kind");
  json_write_string(w, "scan");
  json_write_key(w, "table");
  json_write_string(w, delta_table_location(t));
  json_write_key(w, "version");
  json_write_int64(w, delta_snapshot_version(s));
  json_write_key(w, "column_mapping");
  json_write_string(w, delta_scan_plan_column_mapping(p));
  json_write_key(w, "filter");
  if (delta_scan_plan_filter(p)) json_write_string(w, delta_scan_plan_filter(p));
  else json_write_null(w);
  json_write_key(w, "columns");
  json_write_array_begin(w);
  for (int i = 0; i < delta_scan_plan_num_columns(p); i++) {
    delta_scan_column c;
    delta_scan_plan_column(p, i, &c);
    json_write_object_begin(w);
    json_write_key(w, "name");
    json_write_string(w, c.name);
    json_write_key(w, "type");
    json_write_string(w, c.type);
    json_write_key(w, "physical_name");
    json_write_string(w, c.physical_name);
    json_write_key(w, "field_id");
    if (c.field_id >= 0) json_write_int64(w, c.field_id);
    else json_write_null(w);
    json_write_key(w, "partition");
    json_write_bool(w, c.is_partition);
    json_write_object_end(w);
  }
  json_write_array_end(w);
  return json_write_object_end(w);
}

static int plan_file(delta_json_writer *w, const delta_scan_file *f) {
  json_write_object_begin(w);
  json_write_key(w, "kind");
  json_write_string(w, "file");
  json_write_key(w, "path");
  json_write_string(w, f->path);
  json_write_key(w, "location");
  json_write_string(w, f->location);
  json_write_key(w, "size");
  json_write_int64(w, f->size);
  json_write_key(w, "num_records");
  if (f->num_records >= 0) json_write_int64(w, f->num_records);
  else json_write_null(w);
  json_write_key(w, "modification_time");
  json_write_int64(w, f->modification_time);
  json_write_key(w, "partition_values");
  json_write_object_begin(w);
  for (size_t i = 0; i < f->n_partition_values; i++) {
    json_write_key(w, f->partition_columns[i]);
    if (f->partition_values[i]) json_write_string(w, f->partition_values[i]);
    else json_write_null(w);
  }
  json_write_object_end(w);
  json_write_key(w, "stats");
  if (f->stats && f->stats[0]) json_write_raw(w, f->stats, strlen(f->stats));
  else json_write_null(w);
  json_write_key(w, "deletion_vector");
  if (f->has_deletion_vector) {
    char st[2] = {f->dv_storage_type, 0};
    json_write_object_begin(w);
    json_write_key(w, "storage_type");
    json_write_string(w, st);
    json_write_key(w, "path_or_inline_dv");
    json_write_string(w, f->dv_path_or_inline);
    json_write_key(w, "offset");
    if (f->dv_offset >= 0) json_write_int64(w, f->dv_offset);
    else json_write_null(w);
    json_write_key(w, "size_in_bytes");
    json_write_int64(w, f->dv_size_in_bytes);
    json_write_key(w, "cardinality");
    json_write_int64(w, f->dv_cardinality);
    json_write_key(w, "location");
    if (f->dv_location) json_write_string(w, f->dv_location);
    else json_write_null(w);
    json_write_object_end(w);
  } else {
    json_write_null(w);
  }
  return json_write_object_end(w);
}

int cmd_plan(int argc, char **argv) {
  cli_opt opts[] = {{"version", true, NULL}, {"timestamp", true, NULL}, {"filter", true, NULL},
                    {"stats", false, NULL}};
  const int n_opts = 4;
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, n_opts, pos, 1, &n_pos, "plan");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("plan", "expects one TABLE");
  delta_table *t;
  delta_snapshot *s;
  if ((rc = cli_open_snapshot("plan", opts, n_opts, pos[0], &t, &s)) != 0) return rc;
  delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
  delta_scan_metrics metrics = {0};
  so.filter = cli_get(opts, n_opts, "filter");
  so.metrics = &metrics;
  delta_scan_plan *p = NULL;
  delta_buf line = DELTA_BUF_INIT;
  delta_json_writer w;
  rc = delta_scan_plan_open(&p, s, &so);
  for (bool header = true; !rc; header = false) {
    delta_scan_file f;
    if (!header) {
      rc = delta_scan_plan_next(p, &f);
      if (rc == DELTA_ITEROVER) {
        rc = 0;
        break;
      }
      if (rc) break;
    }
    line.len = 0;
    json_writer_init(&w, &line, 0);
    rc = header ? plan_header(&w, p, s, t) : plan_file(&w, &f);
    if (!rc) rc = json_writer_finish(&w);
    if (!rc) rc = buf_putc(&line, '\n');
    if (!rc && fwrite(line.data, 1, line.len, stdout) != line.len)
      rc = err_set(DELTA_EIO, "writing the plan failed");
  }
  if (!rc && cli_get(opts, n_opts, "stats")) cli_print_scan_metrics(&metrics);
  buf_dispose(&line);
  delta_scan_plan_free(p);
  delta_snapshot_free(s);
  delta_table_free(t);
  return rc ? cli_fail("plan") : 0;
}
