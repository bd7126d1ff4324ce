/* commitInfo.operationParameters values; see commit_params.h. */
#include "log/commit_params.h"

#include "util/buf.h"

int log_predicate_param(const char *where, delta_json_writer *w) {
  delta_buf arr = DELTA_BUF_INIT;
  delta_json_writer aw;
  int rc;
  json_writer_init(&aw, &arr, 0);
  json_write_array_begin(&aw);
  if (where) json_write_string(&aw, where);
  json_write_array_end(&aw);
  if ((rc = json_writer_finish(&aw)) != 0) goto done;
  rc = json_write_string_n(w, (const char *)arr.data, arr.len);
done:
  buf_dispose(&arr);
  return rc;
}
