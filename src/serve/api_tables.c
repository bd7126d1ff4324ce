/* deltac serve: GET /api/tables, /api/tables/{t}, /api/tables/{t}/history.
 *
 * Table locations are never shown: they are the server's business. */
#include <microhttpd.h>
#include <string.h>

#include "serve/commit_info.h"
#include "serve/serve.h"

#define HISTORY_DEFAULT_LIMIT 1000

static bool cdf_enabled(const delta_snapshot *s) {
  const char *v = snapshot_config(s, "delta.enableChangeDataFeed");
  return v && strcmp(v, "true") == 0;
}

/* The members shared by the listing and the detail view. */
static void table_summary(delta_json_writer *w, const serve_table *t, const delta_snapshot *s) {
  char when[40];
  time_format_ms(s->timestamp_ms, when);
  json_write_key(w, "name");
  json_write_string(w, t->name);
  json_write_key(w, "version");
  json_write_int64(w, s->version);
  json_write_key(w, "timestamp");
  json_write_string(w, when);
  json_write_key(w, "change_data_feed");
  json_write_bool(w, cdf_enabled(s));
}

int api_tables_list(serve_request *r, struct MHD_Connection *c) {
  const serve_config *cfg = r->srv->cfg;
  bool presented;
  const serve_token *tok = cfg->n_tokens ? serve_auth_token(cfg, c, &presented) : NULL;
  delta_buf b = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "tables");
  json_write_array_begin(&w);
  for (int i = 0; i < cfg->n_tables; i++) {
    serve_table *t = &cfg->tables[i];
    if (tok && !serve_token_allows(tok, t->name)) continue; /* list only what the token may read */
    delta_snapshot *s;
    json_write_object_begin(&w);
    if (serve_table_snapshot(t, &s) == 0) {
      table_summary(&w, t, s);
      delta_snapshot_free(s);
    } else {
      json_write_key(&w, "name");
      json_write_string(&w, t->name);
      json_write_key(&w, "error");
      json_write_string(&w, delta_error_last());
    }
    json_write_object_end(&w);
  }
  json_write_array_end(&w);
  json_write_object_end(&w);
  int ok = json_writer_finish(&w) == 0 ? serve_reply_json(r, c, 200, &b)
                                              : serve_reply_error(r, c, 500, "%s", delta_error_last());
  buf_dispose(&b);
  return ok;
}

/* Files, bytes and rows (deletion vectors subtracted; null when some file
 * has no record count in its statistics). */
static void table_counts(delta_json_writer *w, const delta_snapshot *s) {
  int64_t bytes = 0, records = 0, dv_rows = 0;
  bool all = true;
  for (int64_t i = 0; i < s->n_files; i++) {
    bytes += s->files[i].size;
    if (s->files[i].num_records < 0) all = false;
    else records += s->files[i].num_records;
    if (s->files[i].dv.present) dv_rows += s->files[i].dv.cardinality;
  }
  json_write_key(w, "num_files");
  json_write_int64(w, s->n_files);
  json_write_key(w, "size_bytes");
  json_write_int64(w, bytes);
  json_write_key(w, "num_rows");
  if (all) json_write_int64(w, records - dv_rows);
  else json_write_null(w);
}

int api_table_info(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  delta_snapshot *s;
  int rc = serve_table_snapshot(t, &s);
  if (rc) return serve_reply_delta_error(r, c, rc);
  const delta_metadata *m = &s->metadata;
  const delta_protocol *p = &s->protocol;
  delta_buf b = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &b, 0);
  json_write_object_begin(&w);
  table_summary(&w, t, s);
  json_write_key(&w, "id");
  json_write_string(&w, m->id);
  json_write_key(&w, "description");
  if (m->description) json_write_string(&w, m->description);
  else json_write_null(&w);
  json_write_key(&w, "schema");
  json_write_raw(&w, m->schema_string, strlen(m->schema_string));
  json_write_key(&w, "partition_columns");
  json_write_string_array(&w, (const char *const *)m->partition_columns, m->n_partition_columns);
  json_write_key(&w, "properties");
  log_kv_write_json(&w, m->configuration, m->n_configuration);
  json_write_key(&w, "protocol");
  json_write_object_begin(&w);
  json_write_key(&w, "min_reader_version");
  json_write_int64(&w, p->min_reader_version);
  json_write_key(&w, "min_writer_version");
  json_write_int64(&w, p->min_writer_version);
  json_write_key(&w, "reader_features");
  json_write_string_array(&w, (const char *const *)p->reader_features, p->n_reader_features);
  json_write_key(&w, "writer_features");
  json_write_string_array(&w, (const char *const *)p->writer_features, p->n_writer_features);
  json_write_object_end(&w);
  table_counts(&w, s);
  json_write_object_end(&w);
  int ok = json_writer_finish(&w) == 0 ? serve_reply_json(r, c, 200, &b)
                                              : serve_reply_error(r, c, 500, "%s", delta_error_last());
  buf_dispose(&b);
  delta_snapshot_free(s);
  return ok;
}

int api_table_history(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  int64_t limit = HISTORY_DEFAULT_LIMIT;
  bool has;
  if (serve_arg_int(c, "limit", &limit, &has)) return serve_reply_error(r, c, 400, "limit needs a non-negative integer");
  delta_snapshot *s;
  int rc = serve_table_snapshot(t, &s);
  if (rc) return serve_reply_delta_error(r, c, rc);
  serve_commit_info info;
  delta_buf b = DELTA_BUF_INIT, tmp = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &b, 0);
  rc = serve_commit_info_init(&info);
  json_write_object_begin(&w);
  json_write_key(&w, "commits");
  json_write_array_begin(&w);
  /* The snapshot's own listing: the history it was built from, newest first. */
  const log_listing *l = &s->listing;
  int64_t shown = 0;
  for (int i = l->n - 1; !rc && i >= 0 && shown < limit; i--) {
    const log_entry *e = &l->entries[i];
    if (e->info.kind != LOG_COMMIT || e->info.version > s->version) continue;
    if ((rc = serve_commit_info_read(t->table, e, &info)) != 0) break;
    json_write_object_begin(&w);
    serve_commit_info_json(&w, &info, e->info.version, true, &tmp);
    json_write_object_end(&w);
    shown++;
  }
  json_write_array_end(&w);
  json_write_object_end(&w);
  if (rc == 0) rc = json_writer_finish(&w); /* the writer's own error comes second */
  int ok = rc ? serve_reply_delta_error(r, c, rc) : serve_reply_json(r, c, 200, &b);
  serve_commit_info_dispose(&info);
  buf_dispose(&b);
  buf_dispose(&tmp);
  delta_snapshot_free(s);
  return ok;
}
