/* The standard post-commit steps; see hooks.h. */
#include "txn/hooks.h"

#include <stdio.h>
#include <stdlib.h>

#include "deltac/error.h"
#include "log/snapshot.h"
#include "log/table_setup.h"
#include "txn/checkpoint_write.h"
#include "txn/crc_write.h"
#include "txn/log_cleanup.h"

int txn_hook_crc(txn_ctx *tx) {
  crc_write_after_commit(tx->req.table, tx->req.read_snapshot, tx->version);
  return 0;
}

int txn_hook_checkpoint(txn_ctx *tx) {
  const char *iv = table_prop(tx->config, tx->n_config, "delta.checkpointInterval");
  int64_t interval = iv ? strtoll(iv, NULL, 10) : 100;
  if (interval <= 0)
    interval = 100;
  if (tx->version <= 0 || tx->version % interval != 0)
    return 0;
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  so.at_version = true;
  so.table_version = tx->version;
  int rc;
  if ((rc = delta_snapshot_open(&tx->committed, tx->table, &so)) != 0)
    goto done;
  if ((rc = checkpoint_write_snapshot(tx->table, tx->committed)) != 0)
    goto done;
  tx->checkpointed = true;
done:
  /* a missing checkpoint only costs readers time: say so, and go on */
  if (rc)
    fprintf(stderr, "deltac: warning: %s\n", delta_error_last());
  return rc;
}

int txn_hook_log_cleanup(txn_ctx *tx) {
  if (!tx->checkpointed)
    return 0;
  return log_cleanup_after_checkpoint(tx->table, tx->committed);
}

int txn_checkpoint_on_interval(txn_ctx *tx) {
  int rc;
  if ((rc = txn_add_hook(tx, "checkpoint", txn_hook_checkpoint)) != 0)
    return rc;
  return txn_add_hook(tx, "log cleanup", txn_hook_log_cleanup);
}
