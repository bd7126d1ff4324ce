/* `deltac cleanup-log`: expired-log cleanup on demand. The cleanup itself
 * is txn/log_cleanup.c, which the checkpoint hook also runs after each
 * checkpoint. */
#include <stddef.h>

#include "deltac/maintenance.h"
#include "deltac/table.h"
#include "txn/log_cleanup.h"
#include "util/error_internal.h"

int delta_log_cleanup(delta_table *t, const delta_log_cleanup_options *o, delta_log_cleanup_result *result) {
  if (!o || o->version != DELTA_LOG_CLEANUP_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "log cleanup options: unknown version");
  delta_snapshot *s = NULL;
  int rc;
  if (!t)
    return err_set(DELTA_EINVAL, "log cleanup: NULL table");
  if ((rc = delta_snapshot_open(&s, t, NULL)) != 0)
    goto done;
  rc = log_cleanup_run(t, s, o, result);
done:
  delta_snapshot_free(s);
  return rc;
}
