/* VACUUM LITE's candidates: the files the log itself says were removed.
 * Instead of listing the table directory (slow on object stores and on
 * tables with millions of files), every commit still in _delta_log and the
 * snapshot's tombstones are read for removes older than the cutoff; their
 * data files and DV files are the candidates. vacuum.c then drops the ones
 * still needed (live, or re-added) and the ones already gone. What the log
 * no longer mentions — removes in commits cleaned up by log retention,
 * files never committed, _change_data files — is left for a full vacuum;
 * the caller reports the first commit it read, so users can tell. */
#include <stdio.h>
#include <string.h>

#include "log/action_json.h"
#include "log/arena.h"
#include "maint/maint_internal.h"
#include "storage/storage_internal.h"
#include "util/error_internal.h"

typedef struct {
  const delta_snapshot *s;
  int64_t cutoff;
  lite_key_fn fn;
  void *ctx;
  delta_buf tmp;
} lite_ctx;

/* A remove without a deletion timestamp counts as removed long ago, as
 * in a full vacuum (its tombstone protects nothing). */
static int expired_remove(lite_ctx *c, const delta_remove *r) {
  if (r->has_deletion_timestamp && r->deletion_timestamp > c->cutoff) return 0;
  /* the key functions return 1 for a file outside the table: no key */
  int rc;
  if ((rc = maint_path_key(c->s, r->path, &c->tmp)) < 0) return rc;
  if (rc == 0 && (rc = c->fn(c->ctx, (const char *)c->tmp.data)) < 0) return rc;
  if ((rc = maint_dv_key(c->s, &r->dv, &c->tmp)) < 0) return rc;
  if (rc == 0 && (rc = c->fn(c->ctx, (const char *)c->tmp.data)) < 0) return rc;
  return 0;
}

static int on_action(const delta_action *a, void *payload) {
  return a->kind == DELTA_ACTION_REMOVE ? expired_remove(payload, &a->u.remove) : 0;
}

int vacuum_lite_keys(const delta_snapshot *s, int64_t cutoff, lite_key_fn fn, void *ctx, int64_t *first_commit) {
  lite_ctx c = {s, cutoff, fn, ctx, DELTA_BUF_INIT};
  *first_commit = -1;
  int rc;
  log_listing l = {0};
  bool listed = false;
  delta_buf text = DELTA_BUF_INIT;
  for (int64_t i = 0; i < s->n_tombstones; i++)
    if ((rc = expired_remove(&c, &s->tombstones[i])) != 0) goto done;
  if ((rc = log_list(s->table->storage, &l)) != 0) goto done;
  listed = true;
  char key[64];
  for (int i = 0; i < l.n; i++) {
    const log_entry *e = &l.entries[i];
    if (e->info.kind != LOG_COMMIT || e->info.version > s->version) continue;
    if (*first_commit < 0 || e->info.version < *first_commit) *first_commit = e->info.version;
    snprintf(key, sizeof key, "_delta_log/%s", e->name);
    delta_arena arena = DELTA_ARENA_INIT;
    delta_json_doc *doc = NULL;
    if ((rc = storage_read_all(s->table->storage, key, &text)) == 0 && (rc = json_doc_new(&doc)) == 0)
      rc = log_actions_parse_json(e->name, (const char *)text.data, text.len, &arena, doc, on_action, &c);
    json_doc_free(doc);
    log_arena_dispose(&arena);
    if (rc) goto done;
  }
done:
  buf_dispose(&text);
  buf_dispose(&c.tmp);
  if (listed) log_listing_dispose(&l);
  return rc;
}
