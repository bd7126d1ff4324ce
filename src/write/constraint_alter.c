/* Adding and dropping CHECK constraints (ALTER TABLE ADD/DROP CONSTRAINT):
 * a metadata commit. Adding first checks every live row, as Spark does, and
 * raises the protocol to where CHECK constraints are known (writer 3, or the
 * checkConstraints feature on a table-features protocol); the commit then
 * conflicts with any concurrent change of the rows it checked. */
#include <string.h>
#include <strings.h>

#include "deltac/scan.h"
#include "deltac/write.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "txn/txn.h"
#include "rewrite/constraints.h"
#include "log/table_setup.h"
#include "txn/commit.h"

/* Every live row against the one constraint `kv`. */
static int check_rows(delta_snapshot *s, const delta_kv *kv) {
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  struct ArrowArray batch = {0};
  write_constraints *c = NULL;
  delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
  int rc;
  if ((rc = delta_scan_read(s, &so, &st)) != 0)
    return rc;
  if (st.get_schema(&st, &schema)) {
    rc = err_set(DELTA_EIO, "%s", st.get_last_error(&st));
    goto done;
  }
  /* NOT NULL is the table's already: only the new CHECK is looked at */
  delta_type none = {.kind = DT_STRUCT};
  if ((rc = constraints_new(&c, &none, kv, 1, &schema)) != 0)
    goto done;
  for (;;) {
    if (st.get_next(&st, &batch)) {
      const char *m = st.get_last_error(&st);
      rc = err_set(DELTA_EIO, "%s", m ? m : "reading the table failed");
      goto done;
    }
    if (!batch.release) break;
    rc = constraints_check(c, &batch);
    batch.release(&batch);
    if (rc) {
      err_prefix("existing rows");
      goto done;
    }
  }
done:
  constraints_free(c);
  if (batch.release) batch.release(&batch);
  if (schema.release) schema.release(&schema);
  if (st.release) st.release(&st);
  return rc;
}

/* The protocol with CHECK constraints known; *changed when it differs. */
static int protocol_with_checks(const delta_protocol *p, delta_arena *a, delta_protocol *out, bool *changed) {
  *out = *p;
  *changed = false;
  if (p->min_writer_version < 7) {
    if (p->min_writer_version < 3) out->min_writer_version = 3, *changed = true;
    return 0;
  }
  for (int i = 0; i < p->n_writer_features; i++)
    if (strcmp(p->writer_features[i], "checkConstraints") == 0) return 0;
  const char **wf = log_arena_alloc(a, (size_t)(p->n_writer_features + 1) * sizeof *wf);
  if (!wf) return DELTA_NOMEM();
  for (int i = 0; i < p->n_writer_features; i++) wf[i] = p->writer_features[i];
  wf[p->n_writer_features] = "checkConstraints";
  out->writer_features = wf;
  out->n_writer_features = p->n_writer_features + 1;
  out->has_writer_features = true;
  *changed = true;
  return 0;
}

static int alter(delta_table *t, const char *name, const char *expr, bool if_exists, int64_t *version_out) {
  delta_snapshot *s = NULL;
  delta_arena arena = {0};
  delta_buf key = DELTA_BUF_INIT, actions = DELTA_BUF_INIT, params = DELTA_BUF_INIT;
  int rc;
  if ((rc = txn_open(t, NULL, &s)) != 0)
    goto done;
  if (!*name) {
    rc = err_set(DELTA_EINVAL, "a constraint needs a name");
    goto done;
  }
  if ((rc = buf_printf(&key, "%s%s", CONSTRAINT_PREFIX, name)) != 0)
    goto done;
  if ((rc = buf_putc(&key, 0)) != 0)
    goto done;
  /* constraint names are case-insensitive in Spark */
  const delta_metadata *m = &s->metadata;
  int found = -1;
  for (int i = 0; i < m->n_configuration; i++)
    if (strcasecmp(m->configuration[i].key, (const char *)key.data) == 0) found = i;
  if (expr && found >= 0) {
    rc = err_set(DELTA_EEXISTS, "constraint %s already exists (%s)", name, m->configuration[found].value);
    goto done;
  }
  if (!expr && found < 0) {
    if (if_exists) {
      if (version_out) *version_out = -1;
    } else {
      rc = err_set(DELTA_ENOTFOUND, "the table has no constraint %s", name);
    }
    goto done;
  }
  delta_metadata meta = *m;
  delta_protocol proto = s->protocol;
  bool new_protocol = false;
  delta_kv *kv = log_arena_alloc(&arena, (size_t)(m->n_configuration + 1) * sizeof *kv);
  if (!kv) {
    rc = DELTA_NOMEM();
    goto done;
  }
  int n = 0;
  for (int i = 0; i < m->n_configuration; i++)
    if (i != found) kv[n++] = m->configuration[i];
  if (expr) {
    kv[n].key = (const char *)key.data;
    kv[n].value = expr;
    if ((rc = constraint_validate(name, expr, s->schema)) != 0)
      goto done;
    if ((rc = check_rows(s, &kv[n])) != 0)
      goto done;
    n++;
    if ((rc = protocol_with_checks(&s->protocol, &arena, &proto, &new_protocol)) != 0)
      goto done;
  }
  meta.configuration = kv;
  meta.n_configuration = n;
  delta_json_writer w;
  if (new_protocol) {
    json_writer_init(&w, &actions, 0);
    if ((rc = action_protocol_json(&w, &proto)) != 0)
      goto done;
    if ((rc = json_writer_finish(&w)) != 0)
      goto done;
    if ((rc = buf_putc(&actions, '\n')) != 0)
      goto done;
  }
  json_writer_init(&w, &actions, 0);
  if ((rc = action_metadata_json(&w, &meta)) != 0)
    goto done;
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_putc(&actions, '\n')) != 0)
    goto done;
  json_writer_init(&w, &params, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "name");
  json_write_string(&w, name);
  if (expr) {
    json_write_key(&w, "expr");
    json_write_string(&w, expr);
  }
  json_write_object_end(&w);
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_putc(&params, 0)) != 0)
    goto done;
  txn_ctx tx;
  txn_begin(&tx, t, s, expr ? "ADD CONSTRAINT" : "DROP CONSTRAINT");
  txn_set_info(&tx, (const char *)params.data, NULL);
  /* the properties after this commit */
  tx.req.ict = table_prop_true(kv, n, "delta.enableInCommitTimestamps");
  /* a metadata-only commit: no row ids to assign, no preserved-ids tag */
  tx.req.row_tracking = false;
  tx.req.row_id_high_water_mark = -1;
  tx.req.row_tracking_enabled = false;
  /* rows appended meanwhile were not checked: they conflict */
  tx.req.reads_table = expr != NULL;
  tx.req.changes_metadata = true;
  rc = txn_commit_actions(&tx, (const char *)actions.data, actions.len);
  if (rc == 0 && version_out)
    *version_out = tx.version;
  txn_dispose(&tx); /* before done: tx exists only from txn_begin on */
done:
  buf_dispose(&key);
  buf_dispose(&actions);
  buf_dispose(&params);
  log_arena_dispose(&arena);
  delta_snapshot_free(s);
  return rc;
}

int delta_constraint_add(delta_table *table, const char *name, const char *expr, int64_t *version_out) {
  if (!expr) return err_set(DELTA_EINVAL, "a CHECK constraint needs an expression");
  return alter(table, name, expr, false, version_out);
}

int delta_constraint_drop(delta_table *table, const char *name, bool if_exists, int64_t *version_out) {
  return alter(table, name, NULL, if_exists, version_out);
}
