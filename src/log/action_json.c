/* JSON action lines → delta_action. */
#include "log/action_json.h"

#include <string.h>

#include "util/error_internal.h"

typedef struct {
  delta_arena *arena;
  delta_buf tmp;
} ctx;

static const char *str_or_null(ctx *c, delta_json_val v, int *rc) {
  delta_json_type t = json_typeof(v);
  if (t == DELTA_JSON_ABSENT || t == DELTA_JSON_NULL) return NULL;
  if (t != DELTA_JSON_STRING) {
    *rc = err_set(DELTA_ECORRUPT, "expected a string, found %s", json_type_name(t));
    return NULL;
  }
  const char *p;
  size_t n;
  bool esc;
  json_string_raw(v, &p, &n, &esc);
  if (!esc) {
    char *s = log_arena_strndup(c->arena, p, n);
    if (!s) *rc = DELTA_NOMEM();
    return s;
  }
  if ((*rc = json_string(v, &c->tmp)) != 0) return NULL;
  char *s = log_arena_strndup(c->arena, (const char *)c->tmp.data, c->tmp.len);
  if (!s) *rc = DELTA_NOMEM();
  return s;
}

static const char *req_str(ctx *c, delta_json_val obj, const char *action, const char *key, int *rc) {
  if (*rc) return NULL;
  const char *s = str_or_null(c, json_get(obj, key), rc);
  if (!s && !*rc) *rc = err_set(DELTA_ECORRUPT, "%s action without %s", action, key);
  return s;
}

static const char *opt_str(ctx *c, delta_json_val obj, const char *key, int *rc) {
  if (*rc) return NULL;
  int r = 0;
  const char *s = str_or_null(c, json_get(obj, key), &r);
  if (r) *rc = err_prefix("%s", key);
  return s;
}

static bool opt_i64(delta_json_val obj, const char *key, int64_t *out, int *rc) {
  if (*rc) return false;
  delta_json_val v = json_get(obj, key);
  delta_json_type t = json_typeof(v);
  if (t == DELTA_JSON_ABSENT || t == DELTA_JSON_NULL) return false;
  if (json_int64(v, out) != 0) {
    *rc = err_prefix("%s", key);
    return false;
  }
  return true;
}

static void req_i64(delta_json_val obj, const char *action, const char *key, int64_t *out, int *rc) {
  if (!opt_i64(obj, key, out, rc) && !*rc)
    *rc = err_set(DELTA_ECORRUPT, "%s action without %s", action, key);
}

static bool opt_bool(delta_json_val obj, const char *key, bool dflt, int *rc) {
  if (*rc) return dflt;
  delta_json_val v = json_get(obj, key);
  delta_json_type t = json_typeof(v);
  if (t == DELTA_JSON_ABSENT || t == DELTA_JSON_NULL) return dflt;
  bool b = dflt;
  if (json_bool(v, &b) != 0) *rc = err_prefix("%s", key);
  return b;
}

static const char *raw_object(ctx *c, delta_json_val v, int *rc) {
  if (*rc || json_typeof(v) != DELTA_JSON_OBJECT) return NULL;
  const char *p;
  size_t n;
  json_raw(v, &p, &n);
  char *s = log_arena_strndup(c->arena, p, n);
  if (!s) *rc = DELTA_NOMEM();
  return s;
}

/* A string→string map (values may be null). */
static delta_kv *string_map(ctx *c, delta_json_val v, int *n_out, int *rc) {
  *n_out = 0;
  if (*rc) return NULL;
  delta_json_type t = json_typeof(v);
  if (t == DELTA_JSON_ABSENT || t == DELTA_JSON_NULL) return NULL;
  if (t != DELTA_JSON_OBJECT) {
    *rc = err_set(DELTA_ECORRUPT, "expected an object, found %s", json_type_name(t));
    return NULL;
  }
  int n = json_len(v);
  delta_kv *kv = log_arena_alloc(c->arena, sizeof *kv * (size_t)(n ? n : 1));
  if (!kv) {
    *rc = DELTA_NOMEM();
    return NULL;
  }
  int i = 0;
  for (delta_json_val m = json_first(v); i < n; m = json_next(m), i++) {
    if ((*rc = json_key(m, &c->tmp)) != 0) return NULL;
    kv[i].key = log_arena_strndup(c->arena, (const char *)c->tmp.data, c->tmp.len);
    if (!kv[i].key) {
      *rc = DELTA_NOMEM();
      return NULL;
    }
    delta_json_type mt = json_typeof(m);
    if (mt == DELTA_JSON_STRING || mt == DELTA_JSON_NULL) {
      kv[i].value = str_or_null(c, m, rc);
    } else {
      /* Some writers put numbers or booleans in configuration maps: keep their text. */
      const char *p;
      size_t len;
      json_raw(m, &p, &len);
      kv[i].value = log_arena_strndup(c->arena, p, len);
      if (!kv[i].value) *rc = DELTA_NOMEM();
    }
    if (*rc) return NULL;
  }
  *n_out = n;
  return kv;
}

static const char **string_list(ctx *c, delta_json_val v, int *n_out, bool *present, int *rc) {
  *n_out = 0;
  if (present) *present = false;
  if (*rc) return NULL;
  delta_json_type t = json_typeof(v);
  if (t == DELTA_JSON_ABSENT || t == DELTA_JSON_NULL) return NULL;
  if (t != DELTA_JSON_ARRAY) {
    *rc = err_set(DELTA_ECORRUPT, "expected an array, found %s", json_type_name(t));
    return NULL;
  }
  int n = json_len(v);
  const char **out = log_arena_alloc(c->arena, sizeof *out * (size_t)(n ? n : 1));
  if (!out) {
    *rc = DELTA_NOMEM();
    return NULL;
  }
  int i = 0;
  for (delta_json_val e = json_first(v); i < n; e = json_next(e), i++) {
    out[i] = str_or_null(c, e, rc);
    if (*rc) return NULL;
    if (!out[i]) {
      *rc = err_set(DELTA_ECORRUPT, "null in a list of names");
      return NULL;
    }
  }
  *n_out = n;
  if (present) *present = true;
  return out;
}

static void parse_dv(ctx *c, delta_json_val v, delta_dv *dv, int *rc) {
  memset(dv, 0, sizeof *dv);
  if (*rc || json_typeof(v) != DELTA_JSON_OBJECT) return;
  dv->present = true;
  const char *st = req_str(c, v, "deletionVector", "storageType", rc);
  if (*rc) return;
  if (strlen(st) != 1 || (st[0] != 'u' && st[0] != 'p' && st[0] != 'i')) {
    *rc = err_set(DELTA_ECORRUPT, "deletion vector storageType '%s' is not u, p or i", st);
    return;
  }
  dv->storage_type = st[0];
  dv->path_or_inline = req_str(c, v, "deletionVector", "pathOrInlineDv", rc);
  int64_t x;
  if (opt_i64(v, "offset", &x, rc)) {
    dv->has_offset = true;
    dv->offset = (int32_t)x;
  }
  req_i64(v, "deletionVector", "sizeInBytes", &x, rc);
  dv->size_in_bytes = (int32_t)x;
  req_i64(v, "deletionVector", "cardinality", &dv->cardinality, rc);
  if (!*rc) *rc = log_dv_unique_id(c->arena, dv);
}

/* The action `key` (e.g. "add") whose object is v into *a. Returns 0 with
 * *known false for actions deltac does not know. */
static int parse_one(ctx *c, const char *key, size_t klen, delta_json_val v, delta_action *a_out, bool *known) {
  int rc = 0;
  delta_action a;
  memset(&a, 0, sizeof a);
  *known = true;
  {
#define IS(name) (klen == sizeof(name) - 1 && memcmp(key, name, klen) == 0)
    if (IS("add")) {
      delta_add *x = &a.u.add;
      a.kind = DELTA_ACTION_ADD;
      x->path = req_str(c, v, "add", "path", &rc);
      x->partition_values = string_map(c, json_get(v, "partitionValues"), &x->n_partition_values, &rc);
      req_i64(v, "add", "size", &x->size, &rc);
      if (!opt_i64(v, "modificationTime", &x->modification_time, &rc)) x->modification_time = 0;
      x->data_change = opt_bool(v, "dataChange", true, &rc);
      x->stats = opt_str(c, v, "stats", &rc);
      x->num_records = x->stats ? log_stats_num_records(x->stats, strlen(x->stats)) : -1;
      x->tags = raw_object(c, json_get(v, "tags"), &rc);
      parse_dv(c, json_get(v, "deletionVector"), &x->dv, &rc);
      x->has_base_row_id = opt_i64(v, "baseRowId", &x->base_row_id, &rc);
      x->has_default_row_commit_version = opt_i64(v, "defaultRowCommitVersion", &x->default_row_commit_version, &rc);
      x->clustering_provider = opt_str(c, v, "clusteringProvider", &rc);
    } else if (IS("remove")) {
      delta_remove *x = &a.u.remove;
      a.kind = DELTA_ACTION_REMOVE;
      x->path = req_str(c, v, "remove", "path", &rc);
      x->has_deletion_timestamp = opt_i64(v, "deletionTimestamp", &x->deletion_timestamp, &rc);
      x->data_change = opt_bool(v, "dataChange", true, &rc);
      x->extended_file_metadata = opt_bool(v, "extendedFileMetadata", false, &rc);
      x->partition_values = string_map(c, json_get(v, "partitionValues"), &x->n_partition_values, &rc);
      x->has_size = opt_i64(v, "size", &x->size, &rc);
      x->stats = opt_str(c, v, "stats", &rc);
      x->tags = raw_object(c, json_get(v, "tags"), &rc);
      parse_dv(c, json_get(v, "deletionVector"), &x->dv, &rc);
      x->has_base_row_id = opt_i64(v, "baseRowId", &x->base_row_id, &rc);
      x->has_default_row_commit_version = opt_i64(v, "defaultRowCommitVersion", &x->default_row_commit_version, &rc);
    } else if (IS("cdc")) {
      delta_cdc *x = &a.u.cdc;
      a.kind = DELTA_ACTION_CDC;
      x->path = req_str(c, v, "cdc", "path", &rc);
      x->partition_values = string_map(c, json_get(v, "partitionValues"), &x->n_partition_values, &rc);
      if (!opt_i64(v, "size", &x->size, &rc)) x->size = 0;
      x->data_change = opt_bool(v, "dataChange", false, &rc);
      x->tags = raw_object(c, json_get(v, "tags"), &rc);
    } else if (IS("metaData")) {
      delta_metadata *x = &a.u.metadata;
      a.kind = DELTA_ACTION_METADATA;
      x->id = req_str(c, v, "metaData", "id", &rc);
      x->name = opt_str(c, v, "name", &rc);
      x->description = opt_str(c, v, "description", &rc);
      delta_json_val fmt = json_get(v, "format");
      x->format_provider = opt_str(c, fmt, "provider", &rc);
      x->format_options = string_map(c, json_get(fmt, "options"), &x->n_format_options, &rc);
      /* Spark reads a metaData without schemaString as an empty schema. */
      x->schema_string = opt_str(c, v, "schemaString", &rc);
      x->partition_columns = string_list(c, json_get(v, "partitionColumns"), &x->n_partition_columns, NULL, &rc);
      x->has_created_time = opt_i64(v, "createdTime", &x->created_time, &rc);
      x->configuration = string_map(c, json_get(v, "configuration"), &x->n_configuration, &rc);
    } else if (IS("protocol")) {
      delta_protocol *x = &a.u.protocol;
      a.kind = DELTA_ACTION_PROTOCOL;
      int64_t r = 0, w = 0;
      req_i64(v, "protocol", "minReaderVersion", &r, &rc);
      req_i64(v, "protocol", "minWriterVersion", &w, &rc);
      if (!rc && (r < 0 || r > INT32_MAX || w < 0 || w > INT32_MAX))
        rc = err_set(DELTA_ECORRUPT, "protocol versions out of range");
      x->min_reader_version = (int32_t)r;
      x->min_writer_version = (int32_t)w;
      x->reader_features = string_list(c, json_get(v, "readerFeatures"), &x->n_reader_features,
                                       &x->has_reader_features, &rc);
      x->writer_features = string_list(c, json_get(v, "writerFeatures"), &x->n_writer_features,
                                       &x->has_writer_features, &rc);
    } else if (IS("txn")) {
      delta_txn *x = &a.u.txn;
      a.kind = DELTA_ACTION_TXN;
      x->app_id = req_str(c, v, "txn", "appId", &rc);
      req_i64(v, "txn", "version", &x->version, &rc);
      x->has_last_updated = opt_i64(v, "lastUpdated", &x->last_updated, &rc);
    } else if (IS("domainMetadata")) {
      delta_domain_metadata *x = &a.u.domain;
      a.kind = DELTA_ACTION_DOMAIN_METADATA;
      x->domain = req_str(c, v, "domainMetadata", "domain", &rc);
      x->configuration = opt_str(c, v, "configuration", &rc);
      x->removed = opt_bool(v, "removed", false, &rc);
    } else if (IS("commitInfo")) {
      a.kind = DELTA_ACTION_COMMIT_INFO;
      a.u.commit_info = raw_object(c, v, &rc);
      if (!rc && !a.u.commit_info) rc = err_set(DELTA_ECORRUPT, "commitInfo is not an object");
    } else if (IS("sidecar")) {
      delta_sidecar *x = &a.u.sidecar;
      a.kind = DELTA_ACTION_SIDECAR;
      x->path = req_str(c, v, "sidecar", "path", &rc);
      if (!opt_i64(v, "sizeInBytes", &x->size_in_bytes, &rc)) x->size_in_bytes = 0;
      if (!opt_i64(v, "modificationTime", &x->modification_time, &rc)) x->modification_time = 0;
      x->tags = raw_object(c, json_get(v, "tags"), &rc);
    } else if (IS("checkpointMetadata")) {
      a.kind = DELTA_ACTION_CHECKPOINT_METADATA;
      req_i64(v, "checkpointMetadata", "version", &a.u.checkpoint_metadata.version, &rc);
      a.u.checkpoint_metadata.tags = raw_object(c, json_get(v, "tags"), &rc);
    } else {
      *known = false; /* unknown actions are ignored */
    }
#undef IS
  }
  *a_out = a;
  return rc;
}

static int parse_action(ctx *c, delta_json_val root, delta_action_cb cb, void *payload) {
  if (json_typeof(root) != DELTA_JSON_OBJECT)
    return err_set(DELTA_ECORRUPT, "a line is not a JSON object");
  int rc = 0;
  delta_action a;
  /* One action per line; a line naming several is read action by action. */
  int n = json_len(root);
  delta_json_val v = json_first(root);
  for (int i = 0; i < n; i++, v = json_next(v)) {
    const char *key;
    size_t klen;
    bool esc, known;
    json_key_raw(v, &key, &klen, &esc);
    if (json_typeof(v) == DELTA_JSON_NULL) continue;
    if ((rc = parse_one(c, key, klen, v, &a, &known)) != 0) return rc;
    if (known && (rc = cb(&a, payload)) != 0) return rc;
  }
  return 0;
}

int log_action_parse_object(const char *action, delta_json_val v, delta_arena *arena, delta_action *out) {
  ctx c = {arena, DELTA_BUF_INIT};
  bool known;
  int rc = parse_one(&c, action, strlen(action), v, out, &known);
  buf_dispose(&c.tmp);
  if (rc) return rc;
  if (!known) return err_set(DELTA_EINVAL, "unknown action %s", action);
  return 0;
}

int log_actions_parse_json(const char *name, const char *text, size_t len, delta_arena *arena,
                             delta_json_doc *doc, delta_action_cb cb, void *payload) {
  ctx c = {arena, DELTA_BUF_INIT};
  int rc = 0;
  size_t pos = 0;
  int line = 0;
  while (pos < len) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - text) : len;
    line++;
    size_t s = pos;
    while (s < end && (text[s] == ' ' || text[s] == '\t' || text[s] == '\r')) s++;
    if (s < end) {
      if ((rc = json_parse(doc, text + pos, end - pos)) != 0 ||
          (rc = parse_action(&c, json_root(doc), cb, payload)) != 0) {
        /* DELTA_ITEROVER is the callback stopping the read, not an error */
        if (rc != DELTA_ITEROVER) err_prefix("%s line %d", name, line);
        goto done;
      }
    }
    pos = end + 1;
  }
done:
  buf_dispose(&c.tmp);
  return rc;
}
