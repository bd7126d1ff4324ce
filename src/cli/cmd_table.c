/* deltac info / schema / files / history: a table's log, read and shown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table_open.h"
#include "cli/output.h"
#include "cli/table_args.h"
#include "deltac/error.h"
#include "json/json.h"
#include "json/json_writer.h"
#include "log/crc.h"
#include "log/snapshot.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"
#include "log/clustering.h"

/* "1.2 MiB": a byte count for people. */
static void human_bytes(uint64_t n, char *out, size_t size) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) {
    snprintf(out, size, "%llu B", (unsigned long long)n);
    return;
  }
  double v = (double)n / 1024;
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    u++;
  }
  snprintf(out, size, "%.1f %s", v, units[u]);
}

/* --stats: what the command cost the store, one line on stderr:
 * "storage: list 2 req, get 3 req 1.2 MiB, head 0, put 0, delete 0, retries 0". */
static void print_storage_stats(const delta_table *t) {
  delta_storage_stats st;
  delta_storage_stats_get(delta_table_storage(t), &st);
  const struct {
    const char *name;
    delta_storage_count c;
  } kinds[] = {{"list", st.list}, {"get", st.get}, {"head", st.head}, {"put", st.put}, {"delete", st.del}};
  fprintf(stderr, "storage:");
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    char b[32] = "";
    if (kinds[i].c.bytes) {
      b[0] = ' ';
      human_bytes(kinds[i].c.bytes, b + 1, sizeof b - 1);
    }
    if (kinds[i].c.requests)
      fprintf(stderr, " %s %llu req%s,", kinds[i].name, (unsigned long long)kinds[i].c.requests, b);
    else
      fprintf(stderr, " %s 0,", kinds[i].name);
  }
  fprintf(stderr, " retries %llu\n", (unsigned long long)st.retries);
}

static int cmd_info(int argc, char **argv) {
  cli_opt opts[] = {TABLE_OPTS, {"stats", false, NULL}};
  const int n_opts = 4;
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, n_opts, pos, 1, &n_pos, "info");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("info", "expects one TABLE");
  const char *fmt = cli_get(opts, n_opts, "format");
  if (fmt && strcmp(fmt, "json") && strcmp(fmt, "ndjson") && strcmp(fmt, "table"))
    return cli_usage_error("info", "--format must be table, json or ndjson");
  delta_table *t;
  delta_snapshot *s;
  if ((rc = cli_open_snapshot_mode("info", opts, n_opts, pos[0], true, &t, &s)) != 0) return rc;
  int64_t bytes = 0, records = 0, dv_files = 0, dv_rows = 0;
  bool all_records = true;
  for (int64_t i = 0; i < s->n_files; i++) {
    bytes += s->files[i].size;
    int64_t r = s->files[i].num_records;
    if (r < 0) all_records = false;
    else records += r;
    if (s->files[i].dv.present) {
      dv_files++;
      dv_rows += s->files[i].dv.cardinality;
    }
  }
  /* The writer's own summary of this version, when it left one, cross-checks the replay. */
  log_crc_check crc;
  if ((rc = log_crc_verify(s, &crc)) != 0) {
    delta_snapshot_free(s);
    delta_table_free(t);
    return cli_fail("info");
  }
  static const char *const crc_status[] = {"absent", "verified", "mismatch", "unreadable"};
  if (crc.status == LOG_CRC_MISMATCH || crc.status == LOG_CRC_UNREADABLE)
    fprintf(stderr, "deltac: warning: checksum %s %s: %s\n", crc.file,
            crc.status == LOG_CRC_MISMATCH ? "does not match the replayed state" : "cannot be read", crc.detail);
  char when[40];
  time_format_ms(s->timestamp_ms, when);
  const delta_protocol *p = &s->protocol;
  const delta_metadata *m = &s->metadata;
  /* liquid clustering columns (also the preview's delta.liquid domain) */
  char **ccols = NULL;
  int n_ccols = 0;
  if (clustering_columns(s, &ccols, &n_ccols)) {
    fprintf(stderr, "deltac: warning: %s\n", delta_error_last());
    delta_error_clear();
  }
  if (fmt && strcmp(fmt, "table") != 0) {
    delta_buf out = DELTA_BUF_INIT;
    delta_json_writer w;
    json_writer_init(&w, &out, 0);
    json_write_object_begin(&w);
    json_write_key(&w, "location"); json_write_string(&w, delta_table_location(t));
    json_write_key(&w, "version"); json_write_int64(&w, s->version);
    json_write_key(&w, "timestamp"); json_write_string(&w, when);
    json_write_key(&w, "id"); json_write_string(&w, m->id);
    json_write_key(&w, "name"); if (m->name) json_write_string(&w, m->name); else json_write_null(&w);
    json_write_key(&w, "description"); if (m->description) json_write_string(&w, m->description); else json_write_null(&w);
    json_write_key(&w, "min_reader_version"); json_write_int64(&w, p->min_reader_version);
    json_write_key(&w, "min_writer_version"); json_write_int64(&w, p->min_writer_version);
    json_write_key(&w, "reader_features"); json_write_string_array(&w, (const char *const *)p->reader_features, p->n_reader_features);
    json_write_key(&w, "writer_features"); json_write_string_array(&w, (const char *const *)p->writer_features, p->n_writer_features);
    json_write_key(&w, "partition_columns"); json_write_string_array(&w, (const char *const *)m->partition_columns, m->n_partition_columns);
    json_write_key(&w, "clustering_columns"); json_write_string_array(&w, (const char *const *)ccols, n_ccols);
    json_write_key(&w, "properties"); log_kv_write_json(&w, m->configuration, m->n_configuration);
    json_write_key(&w, "num_files"); json_write_int64(&w, s->n_files);
    json_write_key(&w, "size_bytes"); json_write_int64(&w, bytes);
    json_write_key(&w, "num_records"); if (all_records) json_write_int64(&w, records - dv_rows); else json_write_null(&w);
    json_write_key(&w, "files_with_deletion_vectors"); json_write_int64(&w, dv_files);
    json_write_key(&w, "deleted_rows"); json_write_int64(&w, dv_rows);
    json_write_key(&w, "checkpoint_version"); if (s->cp_version >= 0) json_write_int64(&w, s->cp_version); else json_write_null(&w);
    json_write_key(&w, "checksum");
    if (crc.status == LOG_CRC_ABSENT) {
      json_write_null(&w);
    } else {
      json_write_object_begin(&w);
      json_write_key(&w, "file"); json_write_string(&w, crc.file);
      json_write_key(&w, "status"); json_write_string(&w, crc_status[crc.status]);
      if (crc.detail[0]) { json_write_key(&w, "detail"); json_write_string(&w, crc.detail); }
      json_write_object_end(&w);
    }
    json_write_object_end(&w);
    rc = json_writer_finish(&w);
    if (!rc) {
      fwrite(out.data, 1, out.len, stdout);
      putchar('\n');
    }
    buf_dispose(&out);
  } else {
    printf("location:           %s\n", delta_table_location(t));
    printf("version:            %lld (committed %s)\n", (long long)s->version, when);
    printf("id:                 %s\n", m->id);
    if (m->name) printf("name:               %s\n", m->name);
    if (m->description) printf("description:        %s\n", m->description);
    printf("protocol:           reader %d, writer %d\n", (int)p->min_reader_version, (int)p->min_writer_version);
    if (p->has_reader_features) {
      printf("reader features:   ");
      for (int i = 0; i < p->n_reader_features; i++) printf(" %s", p->reader_features[i]);
      printf("\n");
    }
    if (p->has_writer_features) {
      printf("writer features:   ");
      for (int i = 0; i < p->n_writer_features; i++) printf(" %s", p->writer_features[i]);
      printf("\n");
    }
    printf("partition columns: ");
    for (int i = 0; i < m->n_partition_columns; i++) printf(" %s", m->partition_columns[i]);
    printf("%s\n", m->n_partition_columns ? "" : " (none)");
    if (n_ccols) {
      printf("clustering columns:");
      for (int i = 0; i < n_ccols; i++) printf(" %s", ccols[i]);
      printf("\n");
    }
    printf("files:              %lld (%lld bytes)\n", (long long)s->n_files, (long long)bytes);
    if (all_records) printf("records:            %lld\n", (long long)(records - dv_rows));
    else printf("records:            unknown (some files have no statistics)\n");
    if (dv_files) printf("deletion vectors:   %lld files, %lld rows deleted\n", (long long)dv_files, (long long)dv_rows);
    if (s->cp_version >= 0) printf("checkpoint:         version %lld\n", (long long)s->cp_version);
    if (crc.status != LOG_CRC_ABSENT)
      printf("checksum:           %s (%s)%s%s\n", crc_status[crc.status], crc.file, crc.detail[0] ? ": " : "", crc.detail);
    if (m->n_configuration) {
      printf("properties:\n");
      for (int i = 0; i < m->n_configuration; i++)
        printf("  %s = %s\n", m->configuration[i].key, m->configuration[i].value ? m->configuration[i].value : "null");
    }
  }
  mem_free(ccols);
  delta_snapshot_free(s);
  fflush(stdout);
  if (cli_get(opts, n_opts, "stats")) print_storage_stats(t);
  delta_table_free(t);
  return rc ? cli_fail("info") : 0;
}

static int cmd_schema(int argc, char **argv) {
  cli_opt opts[] = {TABLE_OPTS};
  const int n_opts = 3;
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, n_opts, pos, 1, &n_pos, "schema");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("schema", "expects one TABLE");
  const char *fmt = cli_get(opts, n_opts, "format");
  if (fmt && strcmp(fmt, "json") && strcmp(fmt, "table"))
    return cli_usage_error("schema", "--format must be table or json");
  delta_table *t;
  delta_snapshot *s;
  if ((rc = cli_open_snapshot("schema", opts, n_opts, pos[0], &t, &s)) != 0) return rc;
  if (fmt && strcmp(fmt, "json") == 0) {
    printf("%s\n", s->metadata.schema_string);
  } else {
    delta_buf out = DELTA_BUF_INIT;
    rc = log_schema_tree(s->schema, &out);
    if (!rc) fwrite(out.data, 1, out.len, stdout);
    buf_dispose(&out);
    if (s->metadata.n_partition_columns) {
      printf("partitioned by:");
      for (int i = 0; i < s->metadata.n_partition_columns; i++) printf(" %s", s->metadata.partition_columns[i]);
      printf("\n");
    }
  }
  delta_snapshot_free(s);
  delta_table_free(t);
  return rc ? cli_fail("schema") : 0;
}

static int cmd_files(int argc, char **argv) {
  cli_opt opts[] = {TABLE_OPTS, {"limit", true, NULL}};
  const int n_opts = 4;
  const char *pos[1];
  int fmt;
  int64_t limit;
  int rc = cli_listing_args("files", argc, argv, opts, n_opts, pos, &fmt, &limit);
  if (rc) return rc;
  delta_table *t;
  delta_snapshot *s;
  if ((rc = cli_open_snapshot("files", opts, n_opts, pos[0], &t, &s)) != 0) return rc;
  static const char *const names[] = {"path", "partition_values", "size", "num_records", "modification_time",
                                      "deletion_vector", "deleted_rows", "base_row_id", "default_row_commit_version"};
  static const arrow_builder_type types[] = {AB_UTF8,  AB_JSON,  AB_INT64, AB_INT64, AB_TIMESTAMP_MS,
                                             AB_UTF8,  AB_INT64, AB_INT64, AB_INT64};
  arrow_batch_builder *b = NULL;
  delta_buf json = DELTA_BUF_INIT;
  rc = arrow_batch_builder_new(&b, 9, names, types);
  for (int64_t i = 0; !rc && i < s->n_files && (limit < 0 || i < limit); i++) {
    const delta_add *a = &s->files[i];
    json.len = 0;
    delta_json_writer w;
    json_writer_init(&w, &json, 0);
    log_kv_write_json(&w, a->partition_values, a->n_partition_values);
    rc = json_writer_finish(&w);
    int64_t recs = a->num_records;
    if (!rc) rc = arrow_builder_str(b, 0, a->path);
    if (!rc) rc = arrow_builder_strn(b, 1, (const char *)json.data, json.len);
    if (!rc) rc = arrow_builder_i64(b, 2, a->size);
    if (!rc) rc = recs >= 0 ? arrow_builder_i64(b, 3, recs) : arrow_builder_null(b, 3);
    if (!rc) rc = arrow_builder_i64(b, 4, a->modification_time);
    if (!rc) rc = a->dv.present ? arrow_builder_str(b, 5, a->dv.unique_id) : arrow_builder_null(b, 5);
    if (!rc) rc = a->dv.present ? arrow_builder_i64(b, 6, a->dv.cardinality) : arrow_builder_null(b, 6);
    /* row tracking: what outside readers need to compute row ids */
    if (!rc) rc = a->has_base_row_id ? arrow_builder_i64(b, 7, a->base_row_id) : arrow_builder_null(b, 7);
    if (!rc)
      rc = a->has_default_row_commit_version ? arrow_builder_i64(b, 8, a->default_row_commit_version)
                                             : arrow_builder_null(b, 8);
  }
  struct ArrowArrayStream st = {0};
  if (!rc) rc = arrow_builder_finish(b, &st);
  if (!rc) rc = cli_write_stream(&st, (cli_format)fmt, -1, stdout);
  if (st.release) st.release(&st);
  arrow_batch_builder_free(b);
  buf_dispose(&json);
  delta_snapshot_free(s);
  delta_table_free(t);
  return rc ? cli_fail("files") : 0;
}

/* One history row from a commit file's commitInfo. */
static int history_row(arrow_batch_builder *b, delta_table *t, const log_entry *e, delta_json_doc *doc,
                       delta_buf *text, delta_buf *tmp) {
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%s", e->name);
  text->len = 0;
  int rc = storage_read_all(t->storage, key, text);
  if (rc) return rc;
  delta_json_val ci = {doc, -1};
  const char *p = (const char *)text->data, *end = p + text->len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (len && memmem(p, len, "\"commitInfo\"", 12)) {
      rc = json_parse(doc, p, len);
      if (rc) return err_prefix("%s", e->name);
      ci = json_get(json_root(doc), "commitInfo");
      if (json_typeof(ci) == DELTA_JSON_OBJECT) break;
    }
    p += len + 1;
  }
  int64_t ts = e->mtime_ms, ict;
  bool has_ci = json_typeof(ci) == DELTA_JSON_OBJECT;
  if (has_ci && json_int64(json_get(ci, "inCommitTimestamp"), &ict) == 0) ts = ict;
  rc = arrow_builder_i64(b, 0, e->info.version);
  if (!rc) rc = arrow_builder_i64(b, 1, ts);
  static const char *const str_fields[] = {"operation", "engineInfo", "userName"};
  static const int str_cols[] = {2, 5, 6};
  for (int i = 0; !rc && i < 3; i++) {
    delta_json_val v = has_ci ? json_get(ci, str_fields[i]) : ci;
    if (json_typeof(v) == DELTA_JSON_STRING && json_string(v, tmp) == 0)
      rc = arrow_builder_strn(b, str_cols[i], (const char *)tmp->data, tmp->len);
    else
      rc = arrow_builder_null(b, str_cols[i]);
  }
  static const char *const obj_fields[] = {"operationParameters", "operationMetrics"};
  for (int i = 0; !rc && i < 2; i++) {
    delta_json_val v = has_ci ? json_get(ci, obj_fields[i]) : ci;
    if (json_typeof(v) == DELTA_JSON_OBJECT) {
      const char *raw;
      size_t n;
      json_raw(v, &raw, &n);
      rc = arrow_builder_strn(b, 3 + i, raw, n);
    } else {
      rc = arrow_builder_null(b, 3 + i);
    }
  }
  return rc;
}

static int cmd_history(int argc, char **argv) {
  cli_opt opts[] = {{"format", true, NULL}, {"limit", true, NULL}};
  const int n_opts = 2;
  const char *pos[1];
  int fmt;
  int64_t limit;
  int rc = cli_listing_args("history", argc, argv, opts, n_opts, pos, &fmt, &limit);
  if (rc) return rc;
  delta_table *t;
  if (cli_table_open(&t, pos[0])) return cli_fail("history");
  log_listing l;
  if (log_list(t->storage, &l)) {
    delta_table_free(t);
    return cli_fail("history");
  }
  static const char *const names[] = {"version", "timestamp", "operation", "parameters", "metrics", "engine_info",
                                      "user_name"};
  static const arrow_builder_type types[] = {AB_INT64, AB_TIMESTAMP_MS, AB_UTF8, AB_JSON, AB_JSON, AB_UTF8, AB_UTF8};
  arrow_batch_builder *b = NULL;
  delta_json_doc *doc = NULL;
  delta_buf text = DELTA_BUF_INIT, tmp = DELTA_BUF_INIT;
  rc = arrow_batch_builder_new(&b, 7, names, types);
  if (!rc) rc = json_doc_new(&doc);
  int64_t shown = 0;
  for (int i = l.n - 1; !rc && i >= 0 && (limit < 0 || shown < limit); i--) {
    if (l.entries[i].info.kind != LOG_COMMIT) continue;
    rc = history_row(b, t, &l.entries[i], doc, &text, &tmp);
    shown++;
  }
  struct ArrowArrayStream st = {0};
  if (!rc) rc = arrow_builder_finish(b, &st);
  if (!rc) rc = cli_write_stream(&st, (cli_format)fmt, -1, stdout);
  if (st.release) st.release(&st);
  arrow_batch_builder_free(b);
  json_doc_free(doc);
  buf_dispose(&text);
  buf_dispose(&tmp);
  log_listing_dispose(&l);
  delta_table_free(t);
  return rc ? cli_fail("history") : 0;
}

int cmd_table(const char *name, int argc, char **argv) {
  if (strcmp(name, "plan") == 0) return cmd_plan(argc, argv);
  if (strcmp(name, "changes") == 0) return cmd_changes(argc, argv);
  if (strcmp(name, "scan") == 0) return cmd_scan(argc, argv);
  if (strcmp(name, "info") == 0) return cmd_info(argc, argv);
  if (strcmp(name, "schema") == 0) return cmd_schema(argc, argv);
  if (strcmp(name, "files") == 0) return cmd_files(argc, argv);
  if (strcmp(name, "history") == 0) return cmd_history(argc, argv);
  return -1;
}
