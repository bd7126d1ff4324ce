/* deltac serve: the Delta Sharing protocol (delta-io/delta-sharing
 * PROTOCOL.md) under /delta-sharing, responseformat=parquet.
 *
 * Shares come from the config ("share NAME = t1, t2"); each has one schema,
 * "default". Data files are handed out as expiring signed links to this
 * same server (signed_url.c). The parquet response format cannot express
 * deletion vectors or column mapping, so in that format tables (or change
 * ranges) that need them are refused with a clear error instead of served
 * wrongly; responseformat=delta carries them. */
#include <microhttpd.h>
#include <nettle/sha2.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/changes.h"
#include "json/json.h"
#include "serve/sharing_hints.h"
#include "serve/commit_info.h"
#include "serve/serve.h"
#include "serve/sharing.h"
#include "serve/signed_url.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

#define SCHEMA "default"

int sharing_error(serve_request *r, struct MHD_Connection *c, int status, const char *msg) {
  const char *code = status == 400   ? "INVALID_PARAMETER_VALUE"
                     : status == 401 ? "UNAUTHENTICATED"
                     : status == 403 ? "PERMISSION_DENIED"
                     : status == 404 ? "RESOURCE_DOES_NOT_EXIST"
                     : status == 405 ? "METHOD_NOT_ALLOWED"
                                     : "INTERNAL_ERROR";
  delta_buf b = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "errorCode");
  json_write_string(&w, code);
  json_write_key(&w, "message");
  json_write_string(&w, msg);
  json_write_object_end(&w);
  json_writer_finish(&w);
  int ok = serve_reply_json(r, c, status, &b);
  buf_dispose(&b);
  return ok;
}

/* Where clients reach this server: the configured public URL, else the
 * Host the client used (checked to be a plain host[:port]). */
int sharing_base_url(const serve_config *cfg, struct MHD_Connection *c, delta_buf *out) {
  if (cfg->public_url) return buf_puts(out, cfg->public_url);
  const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
  bool ok = host && *host && strlen(host) < 256;
  for (const char *p = host; ok && *p; p++)
    ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr(".-:[]", *p);
  if (ok) return buf_printf(out, "http://%s", host);
  return buf_printf(out, "http://%s:%d", cfg->host, cfg->port);
}

/* -------------------------------------------------------------- listings */

static int list_reply(serve_request *r, struct MHD_Connection *c, delta_buf *b) {
  int ok = serve_reply_bytes(r, c, 200, "application/json; charset=utf-8", b->data, b->len, NULL);
  buf_dispose(b);
  return ok;
}

/* A listing's page (the protocol's maxResults / pageToken): items
 * [start, start + max) of the listing, then nextPageToken when more are
 * left. The token is the next item's index, written "p<index>"; clients
 * treat it as opaque, and one that is not ours is a 400. */
typedef struct {
  int64_t start, max, seen, emitted;
  delta_buf b;
} list_page;

static const char *page_begin(list_page *pg, struct MHD_Connection *c) {
  memset(pg, 0, sizeof *pg);
  pg->max = INT64_MAX;
  bool has;
  if (serve_arg_int(c, "maxResults", &pg->max, &has) || (has && pg->max < 0))
    return "maxResults must be a non-negative integer";
  const char *tok = serve_arg(c, "pageToken");
  if (tok && *tok) {
    char *end;
    if (tok[0] != 'p' || !isdigit((unsigned char)tok[1])) return "pageToken is not one this server gave";
    pg->start = strtoll(tok + 1, &end, 10);
    if (*end || pg->start < 0 || pg->start > INT32_MAX) return "pageToken is not one this server gave";
  }
  buf_puts(&pg->b, "{\"items\":[");
  return NULL;
}

/* Whether the next item of the listing goes on this page (then the
 * caller appends it, with a comma when pg->emitted > 0 before the call). */
static bool page_take(list_page *pg) {
  int64_t k = pg->seen++;
  return k >= pg->start && pg->emitted < pg->max;
}

static int page_reply(serve_request *r, struct MHD_Connection *c, list_page *pg) {
  buf_putc(&pg->b, ']');
  if (pg->start + pg->emitted < pg->seen)
    buf_printf(&pg->b, ",\"nextPageToken\":\"p%lld\"", (long long)(pg->start + pg->emitted));
  buf_puts(&pg->b, "}\n");
  return list_reply(r, c, &pg->b);
}

static int list_shares(serve_request *r, struct MHD_Connection *c) {
  const serve_config *cfg = r->srv->cfg;
  bool presented;
  const serve_token *tok = cfg->n_tokens ? serve_auth_token(cfg, c, &presented) : NULL;
  list_page pg;
  const char *bad = page_begin(&pg, c);
  if (bad) return sharing_error(r, c, 400, bad);
  for (int i = 0; i < cfg->n_shares; i++) {
    char scope[160];
    snprintf(scope, sizeof scope, "share:%s", cfg->shares[i].name);
    if (tok && !serve_token_allows(tok, scope)) continue;
    if (!page_take(&pg)) continue;
    buf_printf(&pg.b, "%s{\"name\":\"%s\",\"id\":\"%s\"}", pg.emitted++ ? "," : "", cfg->shares[i].name,
                     cfg->shares[i].name);
  }
  return page_reply(r, c, &pg);
}

static void table_item(delta_buf *b, const serve_share *sh, const char *table, bool comma) {
  buf_printf(b, "%s{\"name\":\"%s\",\"schema\":\"" SCHEMA "\",\"share\":\"%s\",\"shareId\":\"%s\",\"id\":\"%s.%s\"}",
                   comma ? "," : "", table, sh->name, sh->name, sh->name, table);
}

static int list_tables(serve_request *r, struct MHD_Connection *c, const serve_share *sh) {
  list_page pg;
  const char *bad = page_begin(&pg, c);
  if (bad) return sharing_error(r, c, 400, bad);
  for (int i = 0; i < sh->n_tables; i++) {
    if (!page_take(&pg)) continue;
    table_item(&pg.b, sh, sh->tables[i], pg.emitted++ > 0);
  }
  return page_reply(r, c, &pg);
}

/* ----------------------------------------------------------- table calls */

int sharing_parquet_check_mapping(const delta_snapshot *s) {
  const char *cm = snapshot_config(s, "delta.columnMapping.mode");
  if (cm && strcmp(cm, "none") != 0)
    return err_set(DELTA_EUNSUPPORTED, "the table uses column mapping, which responseformat=parquet cannot "
                                               "express; ask for responseformat=delta");
  return 0;
}

/* Tables the parquet format cannot carry faithfully. */
static int check_parquet_format(const delta_snapshot *s) {
  int rc = sharing_parquet_check_mapping(s);
  if (rc) return rc;
  for (int64_t i = 0; i < s->n_files; i++)
    if (s->files[i].dv.present)
      return err_set(DELTA_EUNSUPPORTED, "the table has deletion vectors, which responseformat=parquet cannot "
                                                 "express; ask for responseformat=delta");
  return 0;
}

void sharing_protocol_line(delta_buf *b) { buf_puts(b, "{\"protocol\":{\"minReaderVersion\":1}}\n"); }

void sharing_version_members(delta_json_writer *w, int64_t version, const delta_snapshot *counts) {
  json_write_key(w, "version");
  json_write_int64(w, version);
  if (!counts) return;
  int64_t size = 0;
  for (int64_t i = 0; i < counts->n_files; i++) size += counts->files[i].size;
  json_write_key(w, "size");
  json_write_int64(w, size);
  json_write_key(w, "numFiles");
  json_write_int64(w, counts->n_files);
}

void sharing_metadata_line(delta_buf *b, const delta_metadata *m, int64_t version, const delta_snapshot *counts) {
  delta_json_writer w;
  json_writer_init(&w, b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "metaData");
  json_write_object_begin(&w);
  json_write_key(&w, "id");
  json_write_string(&w, m->id);
  if (m->name) {
    json_write_key(&w, "name");
    json_write_string(&w, m->name);
  }
  if (m->description) {
    json_write_key(&w, "description");
    json_write_string(&w, m->description);
  }
  json_write_key(&w, "format");
  json_write_raw(&w, "{\"provider\":\"parquet\"}", 22);
  json_write_key(&w, "schemaString");
  json_write_string(&w, m->schema_string);
  json_write_key(&w, "partitionColumns");
  json_write_string_array(&w, m->partition_columns, m->n_partition_columns);
  json_write_key(&w, "configuration");
  log_kv_write_json(&w, m->configuration, m->n_configuration);
  sharing_version_members(&w, version, counts);
  json_write_object_end(&w);
  json_write_object_end(&w);
  json_writer_finish(&w);
  buf_putc(b, '\n');
}

/* A stable file id: the first 16 bytes of SHA-256(path), in hex. */
void sharing_file_id(const char *path, char hex[33]) {
  struct sha256_ctx ctx;
  uint8_t d[SHA256_DIGEST_SIZE];
  sha256_init(&ctx);
  sha256_update(&ctx, strlen(path), (const uint8_t *)path);
  sha256_digest(&ctx, sizeof d, d);
  for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* The members every file action shares: url, id, size, expirationTimestamp
 * (the caller adds partitionValues). */
void sharing_file_members(delta_json_writer *w, const sharing_ctx *sc, const char *path, int64_t size) {
  char id[33];
  sharing_file_id(path, id);
  delta_buf url = DELTA_BUF_INIT;
  signed_url_make(&url, sc->cfg, sc->base, sc->table->name, path, sc->expires_ms);
  json_write_key(w, "url");
  json_write_string_n(w, (const char *)url.data, url.len);
  buf_dispose(&url);
  json_write_key(w, "id");
  json_write_string(w, id);
  json_write_key(w, "size");
  json_write_int64(w, size < 0 ? 0 : size);
  json_write_key(w, "expirationTimestamp");
  json_write_int64(w, sc->expires_ms);
}

int sharing_parquet_dv_error(int64_t version) {
  return err_set(DELTA_EUNSUPPORTED,
                         "version %lld has deletion vectors, which responseformat=parquet cannot express; "
                         "ask for responseformat=delta",
                         (long long)version);
}

int sharing_change_line(delta_buf *out, const sharing_ctx *sc, const char *kind, const char *path, int64_t size,
                        const delta_kv *pv, int n_pv, const char *stats, int64_t version, int64_t timestamp_ms) {
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  json_write_object_begin(&w);
  json_write_key(&w, kind);
  json_write_object_begin(&w);
  sharing_file_members(&w, sc, path, size);
  json_write_key(&w, "partitionValues");
  log_kv_write_json(&w, pv, n_pv);
  if (stats) {
    json_write_key(&w, "stats");
    json_write_string(&w, stats);
  }
  json_write_key(&w, "timestamp");
  json_write_int64(&w, timestamp_ms);
  json_write_key(&w, "version");
  json_write_int64(&w, version);
  json_write_object_end(&w);
  json_write_object_end(&w);
  int rc = json_writer_finish(&w);
  return rc ? rc : buf_putc(out, '\n');
}

static void version_header(char *buf, size_t n, int64_t v) { snprintf(buf, n, "%lld", (long long)v); }

static int reply_ndjson(serve_request *r, struct MHD_Connection *c, delta_buf *b, int64_t version, bool delta) {
  char v[24];
  version_header(v, sizeof v, version);
  const char *const h[] = {"Delta-Table-Version", v, "delta-sharing-capabilities", sharing_format_header(delta), NULL};
  int ok = serve_reply_bytes(r, c, 200, "application/x-ndjson; charset=utf-8", b->data, b->len, h);
  buf_dispose(b);
  return ok;
}

static int table_version(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  const char *ts = serve_arg(c, "startingTimestamp");
  int64_t ms = 0;
  if (ts && time_parse_ms(ts, &ms)) return sharing_error(r, c, 400, "startingTimestamp is not a timestamp");
  delta_snapshot *s;
  int rc = serve_table_snapshot(t, &s);
  int64_t v = rc ? 0 : s->version;
  if (!rc && ts) {
    /* The earliest version committed at or after the timestamp. */
    delta_changes_options co = DELTA_CHANGES_OPTIONS_INIT;
    co.start_is_timestamp = true;
    co.start_timestamp_ms = ms;
    delta_changes_plan *p;
    rc = delta_changes_plan_open(&p, t->table, &co);
    if (!rc) v = delta_changes_plan_start_version(p);
    delta_changes_plan_free(p);
  }
  delta_snapshot_free(rc ? NULL : s);
  if (rc) return sharing_error(r, c, serve_status_for(rc), delta_error_last());
  char vs[24];
  version_header(vs, sizeof vs, v);
  const char *const h[] = {"Delta-Table-Version", vs, NULL};
  int ok = serve_reply_bytes(r, c, 200, "application/json", "", 0, h);
  return ok;
}

/* The protocol and metaData lines of snapshot s in the chosen format. */
static void head_lines(delta_buf *b, const delta_snapshot *s, bool delta) {
  if (delta) {
    sharing_delta_protocol_line(b, &s->protocol);
    sharing_delta_metadata_line(b, &s->metadata, s->version, s);
  } else {
    sharing_protocol_line(b);
    sharing_metadata_line(b, &s->metadata, s->version, s);
  }
}

static int table_metadata(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  delta_snapshot *s = NULL;
  bool delta = false;
  int rc;
  if ((rc = serve_table_snapshot(t, &s)) != 0) goto done;
  rc = sharing_format_choose(c, s, &delta);
done:
  if (rc) {
    if (s) delta_snapshot_free(s);
    return sharing_error(r, c, serve_status_for(rc), delta_error_last());
  }
  delta_buf b = DELTA_BUF_INIT;
  head_lines(&b, s, delta);
  int64_t v = s->version;
  delta_snapshot_free(s);
  return reply_ndjson(r, c, &b, v, delta);
}

/* The query body's optional members. */
typedef struct {
  bool at_v, at_ts, since, has_end;
  int64_t version, ts, start, end;
  delta_json_doc *doc; /* the body, for the hints (NULL: no body) */
} query_body;

/* A non-negative integer member; 1 when absent, -1 when bad. */
static int body_version(delta_json_val root, const char *key, int64_t *out) {
  delta_json_val v = json_get(root, key);
  if (!json_present(v)) return 1;
  return json_int64(v, out) || *out < 0 ? -1 : 0;
}

static const char *parse_query_body(const delta_buf *body, query_body *q) {
  if (!body->len) return NULL;
  delta_json_doc *doc = NULL;
  const char *bad = NULL;
  if (json_doc_new(&doc)) return "out of memory";
  if (json_parse(doc, (const char *)body->data, body->len) ||
      json_typeof(json_root(doc)) != DELTA_JSON_OBJECT) {
    json_doc_free(doc);
    return "the request body must be a JSON object";
  }
  delta_json_val root = json_root(doc), tsv = json_get(root, "timestamp");
  int v = body_version(root, "version", &q->version), sv = body_version(root, "startingVersion", &q->start),
      ev = body_version(root, "endingVersion", &q->end);
  q->at_v = v == 0;
  q->since = sv == 0;
  q->has_end = ev == 0;
  q->at_ts = json_present(tsv);
  delta_buf tmp = DELTA_BUF_INIT;
  if (v < 0) bad = "version must be a non-negative integer";
  else if (sv < 0) bad = "startingVersion must be a non-negative integer";
  else if (ev < 0) bad = "endingVersion must be a non-negative integer";
  else if (q->at_ts && (json_string(tsv, &tmp) || buf_putc(&tmp, 0) ||
                        time_parse_ms((const char *)tmp.data, &q->ts)))
    bad = "timestamp must be an ISO-8601 timestamp";
  else if (q->at_v + q->at_ts + q->since > 1) bad = "give one of version, timestamp and startingVersion";
  else if (q->has_end && !q->since) bad = "endingVersion needs startingVersion";
  else if (q->has_end && q->end < q->start) bad = "endingVersion is before startingVersion";
  buf_dispose(&tmp);
  if (bad) json_doc_free(doc);
  else q->doc = doc;
  return bad;
}

/* One {"file":{...}} line of a snapshot file in parquet format. */
static void parquet_file_line(delta_buf *b, const sharing_ctx *sc, const delta_add *a) {
  delta_json_writer w;
  json_writer_init(&w, b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "file");
  json_write_object_begin(&w);
  sharing_file_members(&w, sc, a->path, a->size);
  json_write_key(&w, "partitionValues");
  log_kv_write_json(&w, a->partition_values, a->n_partition_values);
  if (a->stats) {
    json_write_key(&w, "stats");
    json_write_string(&w, a->stats);
  }
  json_write_object_end(&w);
  json_write_object_end(&w);
  json_writer_finish(&w);
  buf_putc(b, '\n');
}

static int table_query_body(serve_request *r, struct MHD_Connection *c, serve_table *t, const query_body *q) {
  delta_snapshot *s = NULL;
  bool delta = false;
  sharing_hints hints = {0};
  int rc;
  if ((rc = serve_table_snapshot_at(t, q->at_v, q->version, q->at_ts, q->ts, &s)) != 0) goto fail;
  if ((rc = sharing_format_choose(c, s, &delta)) != 0) goto fail;
  if (!delta && (rc = sharing_parquet_check_mapping(s)) != 0) goto fail;
  if (q->since) {
    if (q->start > s->version) {
      rc = err_set(DELTA_EINVAL, "startingVersion %lld is after the latest version %lld", (long long)q->start,
                   (long long)s->version);
      goto fail;
    }
    sharing_walk_options o = {WALK_DATA_CHANGES, delta, true, q->start,
                              q->has_end && q->end < s->version ? q->end : s->version};
    int ok = sharing_walk_reply(r, c, t, s, &o);
    delta_snapshot_free(s);
    return ok;
  }
  if (!delta && (rc = check_parquet_format(s)) != 0) goto fail;
  if (q->doc && (rc = sharing_hints_read(&hints, json_root(q->doc), s)) != 0) goto fail;
  sharing_ctx sc = {r->srv->cfg, t, NULL, serve_wall_ms() + r->srv->cfg->url_expiry_s * 1000};
  delta_buf base = DELTA_BUF_INIT, b = DELTA_BUF_INIT;
  sharing_base_url(r->srv->cfg, c, &base);
  buf_putc(&base, 0);
  sc.base = (const char *)base.data;
  head_lines(&b, s, delta);
  for (int64_t i = 0; !rc && i < s->n_files; i++) {
    int keep = sharing_hints_keep(&hints, &s->files[i]);
    if (keep <= 0) {
      rc = keep;
      continue;
    }
    if (!delta) {
      parquet_file_line(&b, &sc, &s->files[i]);
    } else {
      delta_action a = {.kind = DELTA_ACTION_ADD};
      a.u.add = s->files[i];
      rc = sharing_delta_file_line(&b, &sc, &a, false, 0, 0);
    }
    if (sharing_hints_limit_reached(&hints, &s->files[i])) break;
  }
  sharing_hints_free(&hints);
  int64_t v = s->version;
  buf_dispose(&base);
  delta_snapshot_free(s);
  if (rc) {
    buf_dispose(&b);
    return sharing_error(r, c, serve_status_for(rc), delta_error_last());
  }
  return reply_ndjson(r, c, &b, v, delta);
fail:
  sharing_hints_free(&hints);
  delta_snapshot_free(s);
  return sharing_error(r, c, serve_status_for(rc), delta_error_last());
}

/* POST .../query: the files of the latest snapshot, or of body's "version"
 * or "timestamp"; with "startingVersion" (and "endingVersion") the data
 * change files of those versions instead (sharing_log.c). A snapshot's
 * files are narrowed by the predicate and limit hints (sharing_hints.c);
 * the version-range form returns every data change file. */
static int table_query(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  query_body q = {0};
  const char *bad = parse_query_body(&r->body, &q);
  if (bad) return sharing_error(r, c, 400, bad);
  int ok = table_query_body(r, c, t, &q);
  json_doc_free(q.doc);
  return ok;
}

/* .../shares/{share}/schemas/{schema}/tables/{table}/{what} */
static int table_call(serve_request *r, struct MHD_Connection *c, const char *method, const serve_share *sh,
                      char **segs, int n) {
  if (strcmp(segs[0], SCHEMA) != 0) return sharing_error(r, c, 404, "no such schema");
  if (n < 3 || strcmp(segs[1], "tables") != 0) return sharing_error(r, c, 404, "no such endpoint");
  bool in_share = false;
  for (int i = 0; i < sh->n_tables; i++) in_share |= strcmp(sh->tables[i], segs[2]) == 0;
  serve_table *t = in_share ? serve_table_find(r->srv->cfg, segs[2]) : NULL;
  if (!t) return sharing_error(r, c, 404, "no such table in this share");
  bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
  if (n == 4 && strcmp(segs[3], "version") == 0 && get) return table_version(r, c, t);
  if (n == 4 && strcmp(segs[3], "metadata") == 0 && get) return table_metadata(r, c, t);
  if (n == 4 && strcmp(segs[3], "query") == 0 && strcmp(method, "POST") == 0) return table_query(r, c, t);
  if (n == 4 && strcmp(segs[3], "changes") == 0 && get) return sharing_changes(r, c, t);
  return sharing_error(r, c, n == 4 ? 405 : 404, n == 4 ? "method not allowed here" : "no such endpoint");
}

int sharing_route(serve_request *r, struct MHD_Connection *c, const char *method, char **segs, int n) {
  const serve_config *cfg = r->srv->cfg;
  if (serve_auth_any(cfg, c) != AUTH_OK) return sharing_error(r, c, 401, "a valid bearer token is required");
  bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
  if (n < 1 || strcmp(segs[0], "shares") != 0) return sharing_error(r, c, 404, "no such endpoint");
  if (n == 1) return get ? list_shares(r, c) : sharing_error(r, c, 405, "method not allowed here");
  const serve_share *sh = serve_share_find(cfg, segs[1]);
  if (!sh) return sharing_error(r, c, 404, "no such share");
  char scope[160];
  snprintf(scope, sizeof scope, "share:%s", sh->name);
  if (serve_auth_check(cfg, c, scope) != AUTH_OK) return sharing_error(r, c, 403, "this token may not read this share");
  if (n == 2 && get) {
    delta_buf b = DELTA_BUF_INIT;
    buf_printf(&b, "{\"share\":{\"name\":\"%s\",\"id\":\"%s\"}}\n", sh->name, sh->name);
    return list_reply(r, c, &b);
  }
  if (n == 3 && get && strcmp(segs[2], "schemas") == 0) {
    list_page pg;
    const char *bad = page_begin(&pg, c);
    if (bad) return sharing_error(r, c, 400, bad);
    if (page_take(&pg)) {
      buf_printf(&pg.b, "{\"name\":\"" SCHEMA "\",\"share\":\"%s\"}", sh->name);
      pg.emitted++;
    }
    return page_reply(r, c, &pg);
  }
  if (n == 3 && get && strcmp(segs[2], "all-tables") == 0) return list_tables(r, c, sh);
  if (n >= 5 && strcmp(segs[2], "schemas") == 0) {
    if (n == 5 && get && strcmp(segs[4], "tables") == 0 && strcmp(segs[3], SCHEMA) == 0) return list_tables(r, c, sh);
    return table_call(r, c, method, sh, segs + 3, n - 3);
  }
  return sharing_error(r, c, 404, "no such endpoint");
}
