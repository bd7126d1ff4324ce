/* commitInfo.operationParameters values; see commit_params.h. */
#include "log/commit_params.h"

#include "util/buf.h"

int log_predicate_param(const char *where, delta_json_writer *w) {
  delta_buf arr = DELTA_BUF_INIT;
  delta_json_writer aw;
  int rc;
  delta_json_writer_init(&aw, &arr, 0);
  delta_json_write_array_begin(&aw);
  if (where) delta_json_write_string(&aw, where);
  delta_json_write_array_end(&aw);
  if ((rc = delta_json_writer_finish(&aw)) != 0) goto done;
  rc = delta_json_write_string_n(w, (const char *)arr.data, arr.len);
done:
  delta_buf_dispose(&arr);
  return rc;
}
