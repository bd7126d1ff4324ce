/* Expired-log cleanup (see delta_log_cleanup in deltac/maintenance.h), for
 * the checkpoint writer to run after each checkpoint. */
#ifndef DELTAC_TXN_LOG_CLEANUP_H
#define DELTAC_TXN_LOG_CLEANUP_H

#include "deltac/maintenance.h"
#include "deltac/table.h"

/* Clean up t's log under the retention of snapshot s's properties. */
int log_cleanup_run(delta_table *t, const delta_snapshot *s, const delta_log_cleanup_options *o,
                    delta_log_cleanup_result *result);

/* After a checkpoint: log_cleanup_run unless delta.enableExpiredLogCleanup
 * is false. Errors are the caller's to ignore (the checkpoint stands). */
int log_cleanup_after_checkpoint(delta_table *t, const delta_snapshot *s);

#endif
