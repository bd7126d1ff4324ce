/* The transaction object; see txn.h. */
#include "txn/txn.h"

#include <string.h>

#include "json/json_writer.h"
#include "log/action_write.h"
#include "log/snapshot.h"
#include "log/table_setup.h"
#include "txn/hooks.h"
#include "txn/row_tracking.h"
#include "util/error_internal.h"

int txn_check_writable(const delta_snapshot *s) {
  return table_check_writable(&s->protocol, &s->metadata, s->schema);
}

int txn_open(delta_table *t, const delta_snapshot_options *so, delta_snapshot **s) {
  int rc;
  *s = NULL;
  if (!t)
    return err_set(DELTA_EINVAL, "NULL table");
  if ((rc = delta_snapshot_open(s, t, so)) != 0)
    goto fail;
  if ((rc = txn_check_writable(*s)) != 0)
    goto fail;
  return 0;
fail:
  delta_snapshot_free(*s);
  *s = NULL;
  return rc;
}

void txn_begin(txn_ctx *tx, delta_table *t, const delta_snapshot *s, const char *operation) {
  memset(tx, 0, sizeof *tx);
  tx->table = t;
  tx->read = s;
  tx->coordinator = txn_coordinator_storage(t->storage);
  commit_request *req = &tx->req;
  req->storage = t->storage;
  req->operation = operation;
  req->params_json = "{}";
  req->table = t;
  if (s) {
    req->read_version = s->version;
    req->read_snapshot = s;
    req->read_timestamp_ms = s->timestamp_ms;
    tx->config = s->metadata.configuration;
    tx->n_config = s->metadata.n_configuration;
    req->ict = table_prop_true(tx->config, tx->n_config, "delta.enableInCommitTimestamps");
    commit_row_tracking_from(req, s);
  } else {
    req->read_version = -1;
    req->row_id_high_water_mark = -1;
  }
  tx->version = -1;
  /* registration into an empty list cannot fail */
  (void)txn_add_hook(tx, "checksum", txn_hook_crc);
}

void txn_set_coordinator(txn_ctx *tx, const txn_coordinator *co) { tx->coordinator = *co; }

void txn_set_info(txn_ctx *tx, const char *params_json, const char *metrics_json) {
  tx->req.params_json = params_json ? params_json : "{}";
  tx->req.metrics_json = metrics_json;
}

void txn_removes(txn_ctx *tx, const char *const *paths, int64_t n) {
  tx->req.removed = paths;
  tx->req.n_removed = n;
}

int txn_stage(txn_ctx *tx, const char *ndjson, size_t len) { return buf_append(&tx->actions, ndjson, len); }

/* Finish the action w rendered (rc: the renderer's code) and end its line. */
static int end_line(txn_ctx *tx, int rc, delta_json_writer *w) {
  if (rc != 0)
    return rc;
  if ((rc = json_writer_finish(w)) != 0)
    return rc;
  return buf_putc(&tx->actions, '\n');
}

int txn_stage_add(txn_ctx *tx, const delta_add *a, bool data_change) {
  delta_json_writer w;
  json_writer_init(&w, &tx->actions, 0);
  int rc = action_add_json(&w, a, data_change);
  return end_line(tx, rc, &w);
}

int txn_stage_remove(txn_ctx *tx, const delta_add *a, int64_t deletion_ts, bool data_change) {
  delta_json_writer w;
  json_writer_init(&w, &tx->actions, 0);
  int rc = action_remove_of_add_json(&w, a, deletion_ts, data_change);
  return end_line(tx, rc, &w);
}

int txn_stage_metadata(txn_ctx *tx, const delta_metadata *m) {
  delta_json_writer w;
  json_writer_init(&w, &tx->actions, 0);
  int rc = action_metadata_json(&w, m);
  tx->req.changes_metadata = true;
  return end_line(tx, rc, &w);
}

int txn_stage_protocol(txn_ctx *tx, const delta_protocol *p) {
  delta_json_writer w;
  json_writer_init(&w, &tx->actions, 0);
  int rc = action_protocol_json(&w, p);
  tx->req.changes_metadata = true;
  return end_line(tx, rc, &w);
}

int txn_stage_domain(txn_ctx *tx, const delta_domain_metadata *d) {
  delta_json_writer w;
  json_writer_init(&w, &tx->actions, 0);
  int rc = action_domain_json(&w, d);
  return end_line(tx, rc, &w);
}

int txn_stage_app(txn_ctx *tx, const char *app_id, int64_t app_version, int64_t last_updated_ms) {
  delta_txn t = {app_id, app_version, true, last_updated_ms};
  delta_json_writer w;
  json_writer_init(&w, &tx->actions, 0);
  int rc = action_txn_json(&w, &t);
  tx->req.app_id = app_id;
  tx->req.app_version = app_version;
  return end_line(tx, rc, &w);
}

int txn_add_hook(txn_ctx *tx, const char *name, txn_hook_fn fn) {
  if (tx->n_hooks == TXN_MAX_HOOKS)
    return err_set(DELTA_EINVAL, "transaction: more than %d post-commit hooks", TXN_MAX_HOOKS);
  tx->hooks[tx->n_hooks].name = name;
  tx->hooks[tx->n_hooks].fn = fn;
  tx->n_hooks++;
  return 0;
}

int txn_commit(txn_ctx *tx) {
  commit_request req = tx->req;
  /* actions set on the request directly (a buffer the operation built)
   * take the place of staged ones */
  if (!req.actions) {
    req.actions = tx->actions.len ? (const char *)tx->actions.data : "";
    req.actions_len = tx->actions.len;
  }
  req.coordinator = &tx->coordinator;
  commit_outcome out;
  int rc;
  if ((rc = commit_run(&req, &out)) != 0)
    return rc;
  tx->version = out.version;
  tx->skipped = out.skipped;
  tx->attempts = out.attempts;
  if (tx->skipped)
    return 0;
  /* each hook's failure is its own: the next still runs, the commit
   * stands, and the caller sees no error from after its commit */
  for (int i = 0; i < tx->n_hooks; i++) {
    (void)tx->hooks[i].fn(tx);
    delta_error_clear();
  }
  return 0;
}

int txn_commit_actions(txn_ctx *tx, const char *ndjson, size_t len) {
  int rc;
  if ((rc = txn_stage(tx, ndjson, len)) != 0)
    return rc;
  return txn_commit(tx);
}

void txn_dispose(txn_ctx *tx) {
  buf_dispose(&tx->actions);
  delta_snapshot_free(tx->committed);
  tx->committed = NULL;
}

int txn_retry(int max_rounds, txn_attempt_fn attempt, void *ctx) {
  if (max_rounds <= 0)
    max_rounds = 1;
  int rc = 0;
  for (int round = 1; round <= max_rounds; round++) {
    if ((rc = attempt(ctx, round)) != DELTA_ECONFLICT)
      return rc;
  }
  return rc;
}
