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
  int rc = maint_path_key(c->s, r->path, &c->tmp);
  if (rc == 0) rc = c->fn(c->ctx, (const char *)c->tmp.data);
  if (rc < 0) return rc;
  rc = maint_dv_key(c->s, &r->dv, &c->tmp);
  if (rc == 0) rc = c->fn(c->ctx, (const char *)c->tmp.data);
  return rc < 0 ? rc : 0;
}

static int on_action(const delta_action *a, void *payload) {
  return a->kind == DELTA_ACTION_REMOVE ? expired_remove(payload, &a->u.remove) : 0;
}

int vacuum_lite_keys(const delta_snapshot *s, int64_t cutoff, lite_key_fn fn, void *ctx, int64_t *first_commit) {
  lite_ctx c = {s, cutoff, fn, ctx, DELTA_BUF_INIT};
  *first_commit = -1;
  int rc = 0;
  for (int64_t i = 0; !rc && i < s->n_tombstones; i++) rc = expired_remove(&c, &s->tombstones[i]);
  log_listing l;
  if (!rc) rc = log_list(s->table->storage, &l);
  if (rc) {
    buf_dispose(&c.tmp);
    return rc;
  }
  delta_buf text = DELTA_BUF_INIT;
  char key[64];
  for (int i = 0; !rc && i < l.n; i++) {
    const log_entry *e = &l.entries[i];
    if (e->info.kind != LOG_COMMIT || e->info.version > s->version) continue;
    if (*first_commit < 0 || e->info.version < *first_commit) *first_commit = e->info.version;
    snprintf(key, sizeof key, "_delta_log/%s", e->name);
    delta_arena arena = DELTA_ARENA_INIT;
    delta_json_doc *doc = NULL;
    rc = storage_read_all(s->table->storage, key, &text);
    if (!rc) rc = json_doc_new(&doc);
    if (!rc) rc = log_actions_parse_json(e->name, (const char *)text.data, text.len, &arena, doc, on_action, &c);
    json_doc_free(doc);
    log_arena_dispose(&arena);
  }
  buf_dispose(&text);
  buf_dispose(&c.tmp);
  log_listing_dispose(&l);
  return rc;
}
