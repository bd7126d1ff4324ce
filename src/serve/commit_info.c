/* deltac serve: a commit's commitInfo, for history, summaries and SSE. */
#include <stdio.h>
#include <string.h>

#include "serve/commit_info.h"
#include "storage/storage_internal.h"
#include "util/error_internal.h"

int serve_commit_info_read(delta_table *t, const log_entry *e, serve_commit_info *out) {
  char key[300];
  snprintf(key, sizeof key, "_delta_log/%s", e->name);
  out->text.len = 0;
  out->ci.doc = out->doc;
  out->ci.tok = -1;
  out->timestamp_ms = e->mtime_ms;
  int rc = storage_read_all(t->storage, key, &out->text);
  if (rc) return rc;
  const char *p = (const char *)out->text.data, *end = p + out->text.len;
  /* commitInfo is usually the first line; only lines that mention it are parsed. */
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (len && memmem(p, len, "\"commitInfo\"", 12)) {
      if (json_parse(out->doc, p, len)) return err_prefix("%s", e->name);
      delta_json_val ci = json_get(json_root(out->doc), "commitInfo");
      if (json_typeof(ci) == DELTA_JSON_OBJECT) {
        out->ci = ci;
        int64_t ict;
        if (json_int64(json_get(ci, "inCommitTimestamp"), &ict) == 0) out->timestamp_ms = ict;
        return 0;
      }
    }
    p += len + 1;
  }
  return 0;
}

/* Write `key: value` of commitInfo's member `field` when it is an object or
 * string, null otherwise. */
static void member(delta_json_writer *w, const serve_commit_info *info, const char *key, const char *field,
                   delta_buf *tmp) {
  json_write_key(w, key);
  delta_json_val v = serve_commit_info_has(info) ? json_get(info->ci, field) : info->ci;
  delta_json_type ty = json_typeof(v);
  if (ty == DELTA_JSON_STRING && json_string(v, tmp) == 0) {
    json_write_string_n(w, (const char *)tmp->data, tmp->len);
  } else if (ty == DELTA_JSON_OBJECT) {
    const char *raw;
    size_t n;
    json_raw(v, &raw, &n);
    json_write_raw(w, raw, n);
  } else {
    json_write_null(w);
  }
}

void serve_commit_info_json(delta_json_writer *w, const serve_commit_info *info, int64_t version, bool full,
                            delta_buf *tmp) {
  char when[40];
  time_format_ms(info->timestamp_ms, when);
  json_write_key(w, "version");
  json_write_int64(w, version);
  json_write_key(w, "timestamp");
  json_write_string(w, when);
  member(w, info, "operation", "operation", tmp);
  if (!full) return;
  member(w, info, "parameters", "operationParameters", tmp);
  member(w, info, "metrics", "operationMetrics", tmp);
  member(w, info, "engine_info", "engineInfo", tmp);
  member(w, info, "user_name", "userName", tmp);
}

bool serve_commit_info_has(const serve_commit_info *info) { return json_typeof(info->ci) == DELTA_JSON_OBJECT; }

int serve_commit_info_init(serve_commit_info *info) {
  memset(info, 0, sizeof *info);
  return json_doc_new(&info->doc);
}

void serve_commit_info_dispose(serve_commit_info *info) {
  json_doc_free(info->doc);
  buf_dispose(&info->text);
  memset(info, 0, sizeof *info);
}
