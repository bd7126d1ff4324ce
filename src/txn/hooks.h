/*
 * The post-commit steps an operation registers on its transaction
 * (txn_add_hook). They run after the version is published, in order, and
 * a failing one never fails the commit (the version exists whatever
 * happens next):
 *   - txn_hook_crc: the version checksum (<v>.crc, crc_write.h);
 *   - txn_hook_checkpoint: a checkpoint when the version is a multiple of
 *     delta.checkpointInterval (default 100), with a warning on stderr
 *     when it cannot be written;
 *   - txn_hook_log_cleanup: after that checkpoint, expired-log cleanup
 *     unless delta.enableExpiredLogCleanup is false (log_cleanup.h).
 */
#ifndef DELTAC_TXN_HOOKS_H
#define DELTAC_TXN_HOOKS_H

#include "txn/txn.h"

int txn_hook_crc(txn_ctx *tx);
int txn_hook_checkpoint(txn_ctx *tx);
int txn_hook_log_cleanup(txn_ctx *tx);

/* Register txn_hook_checkpoint and txn_hook_log_cleanup. */
int txn_checkpoint_on_interval(txn_ctx *tx);

#endif
