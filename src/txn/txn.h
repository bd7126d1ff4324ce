/*
 * The transaction every operation commits through (docs/internals/
 * transactions.md tells its life). An operation
 *
 *   1. opens the table and the snapshot it reads and checks deltac may
 *      write it (txn_open, or its own snapshot and txn_check_writable);
 *   2. txn_begin(&tx, table, snapshot, "DELETE"): the commit request is
 *      filled from the snapshot (read version and timestamp, in-commit
 *      timestamps, row tracking) and the checksum hook registered;
 *   3. stages its actions (txn_stage_* or rendered NDJSON with txn_stage),
 *      says what it read and removed (tx.req.reads_table, txn_removes) and
 *      sets commitInfo's parameters and metrics (txn_set_info);
 *   4. txn_commit(&tx): commit_run publishes the next version through the
 *      coordinator, retrying past winners that do not conflict; then the
 *      registered hooks run in order (checksum, checkpoint, log cleanup),
 *      whose failures never fail the commit;
 *   5. reads tx.version / tx.skipped / tx.attempts, and txn_dispose(&tx).
 *
 * Fields of tx.req may be adjusted between txn_begin and txn_commit (an
 * operation that changes the metadata knows better whether in-commit
 * timestamps are on afterwards).
 */
#ifndef DELTAC_TXN_TXN_H
#define DELTAC_TXN_TXN_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/table.h"
#include "log/actions.h"
#include "txn/commit.h"
#include "txn/coordinator.h"
#include "util/buf.h"

typedef struct txn_ctx txn_ctx;

/* A post-commit step: 0 or an error code, which is cleared and otherwise
 * ignored (the commit stands; the next hook runs). */
typedef int (*txn_hook_fn)(txn_ctx *tx);

#define TXN_MAX_HOOKS 8

struct txn_ctx {
  delta_table *table;            /* borrowed */
  const delta_snapshot *read;    /* borrowed; NULL when creating the table */
  commit_request req;
  txn_coordinator coordinator;   /* the table's storage unless replaced */
  delta_buf actions;             /* staged NDJSON (when req.actions is not set) */
  /* the table's properties after the commit (the checkpoint interval);
   * borrowed, the read snapshot's unless the operation sets them */
  const delta_kv *config;
  int n_config;
  struct {
    const char *name;
    txn_hook_fn fn;
  } hooks[TXN_MAX_HOOKS];
  int n_hooks;
  /* after txn_commit */
  int64_t version;
  bool skipped;                  /* the app id's txn was already there */
  int attempts;
  bool checkpointed;
  delta_snapshot *committed;     /* the snapshot at `version`, when a hook opened it */
};

/* Prologue: open the snapshot of table `t` (the caller's; `so` may be NULL:
 * the latest) and check that deltac may write it. On failure nothing is
 * left open. */
int txn_open(delta_table *t, const delta_snapshot_options *so, delta_snapshot **s);
/* DELTA_EUNSUPPORTED naming what deltac cannot honour writing snapshot s. */
int txn_check_writable(const delta_snapshot *s);

/* Start a transaction reading `s` of `t` (s NULL: the commit creates the
 * table). Registers the checksum hook. No allocation: cannot fail. */
void txn_begin(txn_ctx *tx, delta_table *t, const delta_snapshot *s, const char *operation);
/* Commit through `co` instead of put-if-absent on the table's storage. */
void txn_set_coordinator(txn_ctx *tx, const txn_coordinator *co);
/* commitInfo's operationParameters and operationMetrics (JSON objects,
 * borrowed until txn_commit; metrics may be NULL). */
void txn_set_info(txn_ctx *tx, const char *params_json, const char *metrics_json);
/* The paths of the files this transaction removes (borrowed): a winner
 * removing one of them conflicts. */
void txn_removes(txn_ctx *tx, const char *const *paths, int64_t n);

/* Stage actions: rendered NDJSON lines (each ending in '\n'), or one
 * action from its struct. */
int txn_stage(txn_ctx *tx, const char *ndjson, size_t len);
int txn_stage_add(txn_ctx *tx, const delta_add *a, bool data_change);
int txn_stage_remove(txn_ctx *tx, const delta_add *a, int64_t deletion_ts, bool data_change);
int txn_stage_metadata(txn_ctx *tx, const delta_metadata *m);
int txn_stage_protocol(txn_ctx *tx, const delta_protocol *p);
int txn_stage_domain(txn_ctx *tx, const delta_domain_metadata *d);
/* A txn action for app_id, which also makes the commit idempotent: a
 * winner with the same app id at this version or later means the work is
 * done (tx.skipped). */
int txn_stage_app(txn_ctx *tx, const char *app_id, int64_t app_version, int64_t last_updated_ms);

/* Register a post-commit step (run in registration order). DELTA_EINVAL
 * when TXN_MAX_HOOKS are registered already. */
int txn_add_hook(txn_ctx *tx, const char *name, txn_hook_fn fn);

/* Publish the staged actions, then run the hooks (unless skipped). */
int txn_commit(txn_ctx *tx);
/* Stage `ndjson` (rendered lines) and commit. */
int txn_commit_actions(txn_ctx *tx, const char *ndjson, size_t len);
void txn_dispose(txn_ctx *tx);

/* Run `attempt` until it returns something other than DELTA_ECONFLICT, at
 * most `max_rounds` times (<= 0: 1): for operations whose actions depend
 * on what they read, so that a conflict means reading again and building
 * the actions anew. The last code is returned. */
typedef int (*txn_attempt_fn)(void *ctx, int round);
int txn_retry(int max_rounds, txn_attempt_fn attempt, void *ctx);

#endif
