/* Reading the _last_checkpoint hint. Writers replace the file after the
 * checkpoint is complete, but a crash, a stale copy or an older writer can
 * leave anything in it, so every failure just means "no hint". */
#include "log/last_checkpoint.h"

#include "deltac/error.h"
#include "json/json.h"
#include "storage/storage_internal.h"
#include "util/buf.h"

/* The file is a few hundred bytes (a V2 checkpoint's may hold its sidecar
 * list); anything far larger is not one. */
#define LAST_CHECKPOINT_MAX (1u << 20)

int64_t log_last_checkpoint_parse(const char *text, size_t len) {
  delta_json_doc *doc = NULL;
  int64_t version = -1, v;
  if (json_doc_new(&doc) == 0 && json_parse(doc, text, len) == 0 &&
      json_int64(json_get(json_root(doc), "version"), &v) == 0 && v >= 0)
    version = v;
  json_doc_free(doc);
  delta_error_clear();
  return version;
}

int64_t log_last_checkpoint_hint(delta_storage *s) {
  delta_file_info st;
  if (delta_storage_head(s, "_delta_log/_last_checkpoint", &st) != 0 || st.size > LAST_CHECKPOINT_MAX) {
    delta_error_clear();
    return -1;
  }
  delta_buf text = DELTA_BUF_INIT;
  int64_t version = -1;
  if (storage_read_all(s, "_delta_log/_last_checkpoint", &text) == 0)
    version = log_last_checkpoint_parse((const char *)text.data, text.len);
  buf_dispose(&text);
  delta_error_clear();
  return version;
}
