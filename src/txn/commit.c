/* The commit loop; see commit.h and docs/internals/transactions.md. */
#include "txn/commit.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "json/json_writer.h"
#include "log/action_json.h"
#include "log/log_files.h"
#include "log/schema_build.h"
#include "txn/row_tracking.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

int64_t write_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int build(const commit_request *req, int64_t ict, const char *txn_id, int64_t version, int64_t hwm,
                 delta_buf *out) {
  buf_reset(out);
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "commitInfo");
  json_write_object_begin(&w);
  /* the spec wants inCommitTimestamp in the first action; put it first too */
  if (req->ict) {
    json_write_key(&w, "inCommitTimestamp");
    json_write_int64(&w, ict);
  }
  json_write_key(&w, "timestamp");
  json_write_int64(&w, req->ict ? ict : write_now_ms());
  json_write_key(&w, "operation");
  json_write_string(&w, req->operation);
  json_write_key(&w, "operationParameters");
  json_write_raw(&w, req->params_json, strlen(req->params_json));
  if (req->read_version >= 0) {
    json_write_key(&w, "readVersion");
    json_write_int64(&w, req->read_version);
  }
  json_write_key(&w, "isolationLevel");
  json_write_string(&w, "Serializable");
  json_write_key(&w, "isBlindAppend");
  json_write_bool(&w, req->blind_append);
  if (req->metrics_json) {
    json_write_key(&w, "operationMetrics");
    json_write_raw(&w, req->metrics_json, strlen(req->metrics_json));
  }
  if (req->row_tracking_enabled) {
    json_write_key(&w, "tags");
    json_write_object_begin(&w);
    json_write_key(&w, "delta.rowTracking.preserved");
    json_write_string(&w, req->row_ids_not_preserved ? "false" : "true");
    json_write_object_end(&w);
  }
  json_write_key(&w, "engineInfo");
  json_write_string(&w, "deltac/" DELTAC_VERSION);
  json_write_key(&w, "txnId");
  json_write_string(&w, txn_id);
  json_write_object_end(&w);
  json_write_object_end(&w);
  int rc;
  if ((rc = json_writer_finish(&w)) != 0)
    return rc;
  if ((rc = buf_putc(out, '\n')) != 0)
    return rc;
  /* row ids are assigned here, where the version (and after a lost race
   * the winner's high-water mark) is known */
  if (req->row_tracking)
    return row_tracking_stamp(req->actions, req->actions_len, version, &hwm, out);
  if (req->actions_len)
    return buf_append(out, req->actions, req->actions_len);
  return 0;
}

typedef struct {
  const commit_request *req;
  int64_t version;
  int conflict;          /* 0 or DELTA_ECONFLICT */
  bool done_by_app;      /* txn for our app id at our version or later */
  int64_t winner_ict;
  int64_t winner_hwm;    /* the row-id high-water mark the winner recorded, or -1 */
  delta_buf msg;
} check_state;

static int check_action(const delta_action *a, void *payload) {
  check_state *cs = payload;
  const commit_request *req = cs->req;
  if (cs->conflict) return 0;
  switch (a->kind) {
  case DELTA_ACTION_METADATA:
  case DELTA_ACTION_PROTOCOL:
    cs->conflict = DELTA_ECONFLICT;
    buf_printf(&cs->msg, req->read_version < 0 ? "the table was created concurrently (version %lld)"
                                                     : "a concurrent commit (version %lld) changed the table's %s",
                     (long long)cs->version, a->kind == DELTA_ACTION_METADATA ? "metadata" : "protocol");
    break;
  case DELTA_ACTION_TXN:
    if (req->app_id && strcmp(a->u.txn.app_id, req->app_id) == 0 && a->u.txn.version >= req->app_version)
      cs->done_by_app = true;
    break;
  case DELTA_ACTION_REMOVE:
    for (int64_t i = 0; i < req->n_removed; i++)
      if (strcmp(req->removed[i], a->u.remove.path) == 0) {
        cs->conflict = DELTA_ECONFLICT;
        buf_printf(&cs->msg, "a concurrent commit (version %lld) removed file %s that this transaction removes",
                         (long long)cs->version, a->u.remove.path);
        break;
      }
    break;
  case DELTA_ACTION_ADD:
    if (req->reads_table && a->u.add.data_change) {
      cs->conflict = DELTA_ECONFLICT;
      buf_printf(&cs->msg, "a concurrent commit (version %lld) added files to data this transaction replaces",
                       (long long)cs->version);
    }
    break;
  case DELTA_ACTION_DOMAIN_METADATA:
    if (strcmp(a->u.domain.domain, ROW_TRACKING_DOMAIN) == 0 && !a->u.domain.removed) {
      int64_t h = row_tracking_hwm_of(a->u.domain.configuration);
      if (h > cs->winner_hwm) cs->winner_hwm = h;
    }
    break;
  case DELTA_ACTION_COMMIT_INFO: {
    delta_json_doc *d = NULL;
    if (json_doc_new(&d) == 0 && json_parse(d, a->u.commit_info, strlen(a->u.commit_info)) == 0) {
      int64_t t;
      if (json_int64(json_get(json_root(d), "inCommitTimestamp"), &t) == 0 && t > cs->winner_ict)
        cs->winner_ict = t;
    }
    json_doc_free(d);
    break;
  }
  default: break;
  }
  return 0;
}

/* Read the commit that won `version` and decide. */
static int check_winner(const txn_coordinator *co, int64_t version, check_state *cs) {
  char name[32];
  log_commit_name(version, name);
  delta_buf text = DELTA_BUF_INIT;
  delta_arena arena = DELTA_ARENA_INIT;
  delta_json_doc *doc = NULL;
  int rc;
  if ((rc = co->read(co->self, version, &text)) != 0)
    goto done;
  if ((rc = json_doc_new(&doc)) != 0)
    goto done;
  cs->version = version;
  rc = log_actions_parse_json(name, (const char *)text.data, text.len, &arena, doc, check_action, cs);
done:
  json_doc_free(doc);
  log_arena_dispose(&arena);
  buf_dispose(&text);
  return rc;
}

int commit_run(const commit_request *req, commit_outcome *out) {
  memset(out, 0, sizeof *out);
  int64_t version = req->read_version + 1;
  int64_t last_ts = req->read_timestamp_ms;
  int64_t hwm = req->row_id_high_water_mark;
  int max = req->max_attempts > 0 ? req->max_attempts : 1000;
  char txn_id[37];
  write_uuid(txn_id);
  delta_buf bytes = DELTA_BUF_INIT;
  txn_coordinator own = txn_coordinator_storage(req->storage);
  const txn_coordinator *co = req->coordinator ? req->coordinator : &own;
  int rc = 0;
  check_state cs = {0};
  for (int attempt = 1;; attempt++) {
    out->attempts = attempt;
    int64_t now = write_now_ms();
    int64_t ict = now > last_ts ? now : last_ts + 1;
    if ((rc = build(req, ict, txn_id, version, hwm, &bytes))) break;
    rc = co->publish(co->self, version, bytes.data, bytes.len);
    if (rc == 0) {
      out->version = version;
      break;
    }
    if (rc != DELTA_EEXISTS) break;
    if (attempt >= max) {
      rc = err_set(DELTA_ECONFLICT, "gave up after %d attempts: other writers kept winning", attempt);
      break;
    }
    memset(&cs, 0, sizeof cs);
    cs.req = req;
    cs.winner_ict = last_ts;
    cs.winner_hwm = -1;
    if ((rc = check_winner(co, version, &cs))) break;
    if (cs.conflict) {
      rc = err_set(DELTA_ECONFLICT, "%.*s", (int)cs.msg.len, (const char *)cs.msg.data);
      break;
    }
    if (cs.done_by_app) {
      out->skipped = true;
      out->version = version;
      break;
    }
    buf_dispose(&cs.msg);
    last_ts = cs.winner_ict;
    if (cs.winner_hwm > hwm) hwm = cs.winner_hwm; /* our ids go above the winner's */
    version++;
  }
  buf_dispose(&cs.msg);
  buf_dispose(&bytes);
  return rc;
}
