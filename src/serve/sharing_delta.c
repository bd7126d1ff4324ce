/* deltac serve: Delta Sharing responseformat=delta (delta-io/delta-sharing
 * PROTOCOL.md, "Delta Sharing Capabilities Header" and "API Response Format
 * in Delta").
 *
 * The client asks with `delta-sharing-capabilities:
 * responseformat=delta;readerfeatures=deletionvectors,columnmapping`. Lines
 * then wrap Delta log actions as the table's log has them, so the client
 * can put them in a local log and read it with a Delta library:
 *
 *   {"protocol":{"deltaProtocol":{...}}}
 *   {"metaData":{"version","size","numFiles","deltaMetadata":{...}}}
 *   {"file":{"id","deletionVectorFileId","version","timestamp","expirationTimestamp",
 *            "deltaSingleAction":{"add":{"path":"<signed url>",...,"deletionVector":{...}}}}}
 *
 * Data file paths become signed links to this server; so do the deletion
 * vector files: a 'u' or 'p' descriptor becomes storageType 'p' with the
 * link as pathOrInlineDv (offset, size and cardinality unchanged), which any
 * Delta reader resolves as an absolute path. Inline DVs stay as they are. */
#include <microhttpd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dv/dv.h"
#include "serve/sharing.h"
#include "serve/signed_url.h"
#include "util/error_internal.h"
#include "log/action_write.h"

/* ------------------------------------------------------ the capabilities */

/* Does the comma-separated list [p, end) hold `word` (case-insensitive)? */
static bool list_has(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  while (p < end) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    const char *a = p, *b = stop;
    while (a < b && *a == ' ') a++;
    while (b > a && b[-1] == ' ') b--;
    if ((size_t)(b - a) == n && strncasecmp(a, word, n) == 0) return true;
    p = stop + 1;
  }
  return false;
}

/* The value [*v, *end) of `key` in "k1=a,b;k2=c" (keys case-insensitive). */
static bool cap_value(const char *h, const char *key, const char **v, const char **end) {
  size_t kn = strlen(key);
  for (const char *p = h; *p;) {
    size_t len = strcspn(p, ";");
    size_t lead = strspn(p, " ");
    const char *k = p + (lead < len ? lead : len);
    size_t klen = strcspn(k, "=;");
    const char *eq = k + klen;
    while (klen && k[klen - 1] == ' ') klen--;
    if (*eq == '=' && klen == kn && strncasecmp(k, key, kn) == 0) {
      *v = eq + 1;
      *end = p + len;
      return true;
    }
    p += len;
    if (*p) p++;
  }
  return false;
}

/* Reader features that change how the shared files are read; a client must
 * list each one the table uses. (Log-only features such as v2Checkpoint do
 * not matter to a client that gets the actions.) */
static const char *const file_features[] = {"deletionVectors", "columnMapping", "timestampNtz", "typeWidening",
                                            "typeWidening-preview", "variantType", "variantType-preview", NULL};

int sharing_format_choose(struct MHD_Connection *c, const delta_snapshot *s, bool *delta) {
  const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "delta-sharing-capabilities");
  const char *v, *end;
  bool has_rf = h && cap_value(h, "responseformat", &v, &end);
  bool want_delta = has_rf && list_has(v, end, "delta");
  bool want_parquet = !has_rf || list_has(v, end, "parquet");
  if (!want_delta && !want_parquet)
    return err_set(DELTA_EINVAL, "responseformat must be parquet or delta");
  /* Both offered: parquet while the table needs no reader features. */
  *delta = want_delta && (!want_parquet || s->protocol.min_reader_version > 1);
  if (!*delta) return 0;
  const char *fv = "", *fend = fv;
  if (h && !cap_value(h, "readerfeatures", &fv, &fend)) fv = fend = "";
  const char *cm = snapshot_config(s, "delta.columnMapping.mode");
  if (cm && strcmp(cm, "none") != 0 && !list_has(fv, fend, "columnMapping"))
    return err_set(DELTA_EUNSUPPORTED,
                           "the table uses column mapping: the client must list columnmapping in readerfeatures");
  for (int i = 0; i < s->protocol.n_reader_features; i++)
    for (int k = 0; file_features[k]; k++)
      if (strcmp(s->protocol.reader_features[i], file_features[k]) == 0 && !list_has(fv, fend, file_features[k]))
        return err_set(DELTA_EUNSUPPORTED,
                               "the table uses the reader feature %s: the client must list it in readerfeatures",
                               file_features[k]);
  return 0;
}

const char *sharing_format_header(bool delta) { return delta ? "responseformat=delta" : "responseformat=parquet"; }

/* -------------------------------------------------------------- the lines */

/* `{"key":` + the inner object of the action JSON {"<action>":{...}} + `}`:
 * the log's own action writers give the Delta form of each action. */
static int wrap_inner(delta_json_writer *w, const char *key, const delta_buf *action) {
  const char *p = memchr(action->data, ':', action->len);
  if (!p || action->len < 2) return err_set(DELTA_ERROR, "internal: action JSON");
  const char *start = p + 1, *stop = (const char *)action->data + action->len - 1; /* drop the outer '}' */
  json_write_key(w, key);
  return json_write_raw(w, start, (size_t)(stop - start));
}

void sharing_delta_protocol_line(delta_buf *b, const delta_protocol *p) {
  delta_buf a = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &a, 0);
  action_protocol_json(&w, p);
  json_writer_finish(&w);
  json_writer_init(&w, b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "protocol");
  json_write_object_begin(&w);
  wrap_inner(&w, "deltaProtocol", &a);
  json_write_object_end(&w);
  json_write_object_end(&w);
  json_writer_finish(&w);
  buf_putc(b, '\n');
  buf_dispose(&a);
}

void sharing_delta_metadata_line(delta_buf *b, const delta_metadata *m, int64_t version, const delta_snapshot *counts) {
  delta_buf a = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &a, 0);
  action_metadata_json(&w, m);
  json_writer_finish(&w);
  json_writer_init(&w, b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "metaData");
  json_write_object_begin(&w);
  sharing_version_members(&w, version, counts);
  wrap_inner(&w, "deltaMetadata", &a);
  json_write_object_end(&w);
  json_write_object_end(&w);
  json_writer_finish(&w);
  buf_putc(b, '\n');
  buf_dispose(&a);
}

/* A DV descriptor with its file turned into a signed link (storageType
 * 'p'); `url` holds the link, `id` the DV file's id. Inline DVs unchanged. */
static int share_dv(const sharing_ctx *sc, const delta_dv *in, delta_dv *out, delta_buf *url, char id[33]) {
  *out = *in;
  id[0] = 0;
  if (!in->present || in->storage_type == 'i') return 0;
  delta_buf key = DELTA_BUF_INIT;
  delta_path_kind kind;
  int rc;
  if ((rc = dv_file_key(in, delta_table_location(sc->table->table), &kind, &key)) != 0) goto done;
  if (kind != DELTA_PATH_KEY) {
    rc = err_set(DELTA_EUNSUPPORTED, "a deletion vector file outside the table root cannot be shared");
    goto done;
  }
  if ((rc = buf_putc(&key, 0)) != 0) goto done;
  if ((rc = signed_url_make(url, sc->cfg, sc->base, sc->table->name, (const char *)key.data, sc->expires_ms)) != 0)
    goto done;
  if ((rc = buf_putc(url, 0)) != 0) goto done;
  sharing_file_id((const char *)key.data, id);
  out->storage_type = 'p';
  out->path_or_inline = (const char *)url->data;
done:
  buf_dispose(&key);
  return rc;
}

static void cdc_json(delta_json_writer *w, const delta_cdc *c, const char *path) {
  json_write_object_begin(w);
  json_write_key(w, "cdc");
  json_write_object_begin(w);
  json_write_key(w, "path");
  json_write_string(w, path);
  json_write_key(w, "partitionValues");
  log_kv_write_json(w, c->partition_values, c->n_partition_values);
  json_write_key(w, "size");
  json_write_int64(w, c->size);
  json_write_key(w, "dataChange");
  json_write_bool(w, c->data_change);
  if (c->tags) {
    json_write_key(w, "tags");
    json_write_raw(w, c->tags, strlen(c->tags));
  }
  json_write_object_end(w);
  json_write_object_end(w);
}

int sharing_delta_file_line(delta_buf *b, const sharing_ctx *sc, const delta_action *a, bool with_version,
                            int64_t version, int64_t timestamp_ms) {
  const char *path = a->kind == DELTA_ACTION_ADD      ? a->u.add.path
                     : a->kind == DELTA_ACTION_REMOVE ? a->u.remove.path
                                                      : a->u.cdc.path;
  const delta_dv *dv_in = a->kind == DELTA_ACTION_ADD      ? &a->u.add.dv
                          : a->kind == DELTA_ACTION_REMOVE ? &a->u.remove.dv
                                                           : NULL;
  delta_buf url = DELTA_BUF_INIT, dv_url = DELTA_BUF_INIT, action = DELTA_BUF_INIT;
  delta_dv dv = {0};
  char id[33], dv_id[33] = "";
  int rc;
  if ((rc = signed_url_make(&url, sc->cfg, sc->base, sc->table->name, path, sc->expires_ms)) != 0) goto done;
  if ((rc = buf_putc(&url, 0)) != 0) goto done;
  if (dv_in && (rc = share_dv(sc, dv_in, &dv, &dv_url, dv_id)) != 0) goto done;
  sharing_file_id(path, id);
  delta_json_writer w;
  json_writer_init(&w, &action, 0);
  if (a->kind == DELTA_ACTION_ADD) {
    delta_add add = a->u.add;
    add.path = (const char *)url.data;
    add.dv = dv;
    action_add_json(&w, &add, add.data_change);
  } else if (a->kind == DELTA_ACTION_REMOVE) {
    delta_remove rm = a->u.remove;
    rm.path = (const char *)url.data;
    rm.dv = dv;
    action_remove_json(&w, &rm);
  } else {
    cdc_json(&w, &a->u.cdc, (const char *)url.data);
  }
  if ((rc = json_writer_finish(&w))) goto done;
  json_writer_init(&w, b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "file");
  json_write_object_begin(&w);
  json_write_key(&w, "id");
  json_write_string(&w, id);
  if (dv_id[0]) {
    json_write_key(&w, "deletionVectorFileId");
    json_write_string(&w, dv_id);
  }
  if (with_version) {
    json_write_key(&w, "version");
    json_write_int64(&w, version);
    json_write_key(&w, "timestamp");
    json_write_int64(&w, timestamp_ms);
  }
  json_write_key(&w, "expirationTimestamp");
  json_write_int64(&w, sc->expires_ms);
  json_write_key(&w, "deltaSingleAction");
  json_write_raw(&w, (const char *)action.data, action.len);
  json_write_object_end(&w);
  json_write_object_end(&w);
  if ((rc = json_writer_finish(&w)) != 0) goto done;
  rc = buf_putc(b, '\n');
done:
  buf_dispose(&url);
  buf_dispose(&dv_url);
  buf_dispose(&action);
  return rc;
}
