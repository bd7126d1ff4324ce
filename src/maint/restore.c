/*
 * RESTORE; see include/deltac/maintenance.h. The live files of the latest
 * and the target version are matched by (path, deletion vector): a file
 * whose DV changed since counts as another file, so its old DV comes back
 * with it. Every file to add back (and its DV file) is checked to exist
 * before anything is committed. The commit reads the whole table: a
 * concurrent append conflicts with it (its rows would survive the restore).
 */
#include "deltac/maintenance.h"

#include <stdlib.h>
#include <string.h>

#include "json/json_writer.h"
#include "maint/maint_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "log/table_setup.h"
#include "txn/txn.h"

typedef struct {
  const delta_add *a;
  const char *id;              /* path + '\x1f' + DV unique id */
} file_ref;

static int cmp_ref(const void *x, const void *y) {
  return strcmp(((const file_ref *)x)->id, ((const file_ref *)y)->id);
}

/* The snapshot's files with their ids, sorted; ids in `ids`. */
static int refs_of(const delta_snapshot *s, delta_buf *ids, file_ref **out) {
  file_ref *r = mem_calloc((size_t)s->n_files + 1, sizeof *r);
  size_t *off = mem_calloc((size_t)s->n_files + 1, sizeof *off);
  int rc = 0;
  if (!r || !off) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int64_t i = 0; i < s->n_files; i++) {
    const delta_add *a = &s->files[i];
    off[i] = ids->len;
    if ((rc = buf_printf(ids, "%s\x1f%s", a->path, a->dv.present && a->dv.unique_id ? a->dv.unique_id : "")) != 0)
      goto done;
    if ((rc = buf_putc(ids, 0)) != 0)
      goto done;
    r[i].a = a;
  }
  for (int64_t i = 0; i < s->n_files; i++) r[i].id = (const char *)ids->data + off[i];
  qsort(r, (size_t)s->n_files, sizeof *r, cmp_ref);
  *out = r;
  r = NULL; /* the caller's now */
done:
  mem_free(off);
  mem_free(r);
  return rc;
}

/* DELTA_ENOTFOUND when the file of a, or its DV file, is gone. */
static int check_present(const delta_snapshot *s, const delta_add *a, int64_t version, delta_buf *tmp) {
  delta_file_info fi;
  for (int k = 0; k < 2; k++) {
    int rc = k == 0 ? maint_path_key(s, a->path, tmp) : maint_dv_key(s, &a->dv, tmp);
    if (rc < 0) return rc;
    if (rc == 1) continue; /* outside the table or inline: not ours to check */
    rc = delta_storage_head(s->table->storage, (const char *)tmp->data, &fi);
    if (rc == DELTA_ENOTFOUND)
      return err_set(DELTA_ENOTFOUND,
                             "version %lld cannot be restored: its %s %s no longer exists (removed by vacuum?)",
                             (long long)version, k ? "deletion vector file" : "data file", (const char *)tmp->data);
    if (rc) return rc;
  }
  return 0;
}

static int metadata_json(const delta_metadata *m, delta_buf *out) {
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  int rc;
  if ((rc = action_metadata_json(&w, m)) != 0)
    return rc;
  if ((rc = json_writer_finish(&w)) != 0)
    return rc;
  return buf_putc(out, '\n');
}

/* commitInfo's parameters and metrics (as Spark names them) and the commit
 * of the restoring actions on snapshot `now`; result->version is the
 * version committed. */
static int commit_restore(delta_table *t, const delta_snapshot *now, int64_t restored,
                          const delta_restore_options *o, bool meta, const char *const *removed, int64_t n_removed,
                          const delta_buf *actions, delta_restore_result *result) {
  delta_buf params = DELTA_BUF_INIT, metrics = DELTA_BUF_INIT;
  delta_json_writer w;
  int rc;
  json_writer_init(&w, &params, 0);
  json_write_object_begin(&w);
  if (o->at_timestamp) {
    json_write_key(&w, "timestamp");
    json_write_int64(&w, o->timestamp_ms);
  } else {
    json_write_key(&w, "version");
    json_write_int64(&w, restored);
  }
  json_write_object_end(&w);
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_putc(&params, 0)) != 0)
    goto done;
  rc = buf_printf(&metrics,
                        "{\"tableSizeAfterRestore\":\"%lld\",\"numOfFilesAfterRestore\":\"%lld\","
                        "\"numRemovedFiles\":\"%lld\",\"numRestoredFiles\":\"%lld\",\"removedFilesSize\":\"%lld\","
                        "\"restoredFilesSize\":\"%lld\"}",
                        (long long)result->bytes_after, (long long)result->files_after,
                        (long long)result->files_removed, (long long)result->files_restored,
                        (long long)result->bytes_removed, (long long)result->bytes_restored);
  if (rc != 0)
    goto done;
  if ((rc = buf_putc(&metrics, 0)) != 0)
    goto done;
  txn_ctx tx;
  txn_begin(&tx, t, now, "RESTORE");
  txn_set_info(&tx, (const char *)params.data, (const char *)metrics.data);
  txn_removes(&tx, removed, n_removed);
  tx.req.reads_table = true;
  tx.req.changes_metadata = meta;
  tx.req.max_attempts = o->max_attempts;
  rc = txn_commit_actions(&tx, (const char *)actions->data, actions->len);
  if (rc == 0)
    result->version = tx.version;
  txn_dispose(&tx);
done:
  buf_dispose(&params);
  buf_dispose(&metrics);
  return rc;
}

int delta_restore(delta_table *table, const delta_restore_options *o, delta_restore_result *result) {
  if (!o || o->version != DELTA_RESTORE_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "restore options: unknown version");
  delta_restore_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->version = -1;
  delta_table *t = table; /* the caller's */
  delta_snapshot *now = NULL, *old = NULL;
  file_ref *cur = NULL, *then = NULL;
  const char **removed = NULL;
  int64_t n_removed = 0;
  delta_buf ids_now = DELTA_BUF_INIT, ids_old = DELTA_BUF_INIT, actions = DELTA_BUF_INIT, tmp = DELTA_BUF_INIT;
  delta_buf m_now = DELTA_BUF_INIT, m_old = DELTA_BUF_INIT;
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (o->at_timestamp) {
    so.at_timestamp = true;
    so.timestamp_ms = o->timestamp_ms;
  } else {
    so.at_version = true;
    so.table_version = o->table_version;
  }
  int rc;
  if (!t) {
    rc = err_set(DELTA_EINVAL, "restore: NULL table");
    goto done;
  }
  if ((rc = delta_snapshot_open(&now, t, NULL)) != 0)
    goto done;
  if ((rc = delta_snapshot_open(&old, t, &so)) != 0) {
    err_prefix("the version to restore");
    goto done;
  }
  if ((rc = txn_check_writable(now)) != 0)
    goto done;
  result->restored_version = old->version;
  if ((rc = refs_of(now, &ids_now, &cur)) != 0)
    goto done;
  if ((rc = refs_of(old, &ids_old, &then)) != 0)
    goto done;
  removed = mem_calloc((size_t)now->n_files + 1, sizeof *removed);
  if (!removed) {
    rc = DELTA_NOMEM();
    goto done;
  }
  int64_t ts = write_now_ms();
  if ((rc = metadata_json(&now->metadata, &m_now)) != 0)
    goto done;
  if ((rc = metadata_json(&old->metadata, &m_old)) != 0)
    goto done;
  bool meta = m_now.len != m_old.len || memcmp(m_now.data, m_old.data, m_now.len) != 0;
  if (meta && (rc = buf_append(&actions, m_old.data, m_old.len)) != 0) goto done;
  /* merge the two sorted lists */
  int64_t i = 0, j = 0;
  delta_json_writer w;
  while (i < now->n_files || j < old->n_files) {
    int c = i == now->n_files ? 1 : j == old->n_files ? -1 : strcmp(cur[i].id, then[j].id);
    if (c == 0) {
      i++;
      j++;
    } else if (c < 0) { /* live now, not then: remove */
      const delta_add *a = cur[i++].a;
      json_writer_init(&w, &actions, 0);
      rc = maint_line_end(&actions, action_remove_of_add_json(&w, a, ts, true), &w);
      /* counted even when the line failed, as the result reports it */
      removed[n_removed++] = a->path;
      result->files_removed++;
      result->bytes_removed += a->size;
      if (rc) goto done;
    } else { /* live then, not now: add back */
      const delta_add *a = then[j++].a;
      if ((rc = check_present(now, a, old->version, &tmp)) != 0) goto done;
      json_writer_init(&w, &actions, 0);
      rc = maint_line_end(&actions, action_add_json(&w, a, true), &w);
      result->files_restored++;
      result->bytes_restored += a->size;
      if (rc) goto done;
    }
  }
  if (n_removed && table_prop_true(now->metadata.configuration, now->metadata.n_configuration, "delta.appendOnly")) {
    rc = err_set(DELTA_EINVAL, "the table is append-only (delta.appendOnly): restoring version %lld would "
                         "remove %lld files", (long long)old->version, (long long)n_removed);
    goto done;
  }
  result->files_after = old->n_files;
  for (int64_t k = 0; k < old->n_files; k++) result->bytes_after += old->files[k].size;
  rc = commit_restore(t, now, old->version, o, meta, removed, n_removed, &actions, result);
done:
  mem_free(cur);
  mem_free(then);
  mem_free(removed);
  buf_dispose(&ids_now);
  buf_dispose(&ids_old);
  buf_dispose(&actions);
  buf_dispose(&tmp);
  buf_dispose(&m_now);
  buf_dispose(&m_old);
  delta_snapshot_free(old);
  delta_snapshot_free(now);
  return rc;
}
