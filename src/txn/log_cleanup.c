/*
 * Expired-log cleanup. The cut is a checkpoint version V such that every
 * log file of a version below V is older than the retention; everything
 * below V goes (commits, checkpoints, checksums, compactions ending below
 * V), oldest first, so that an interrupted cleanup still leaves a
 * contiguous history. Versions V and later read from the checkpoint at V
 * and the commits after it, which all stay. Modification times decide, as
 * in Delta Spark; a single young file below a checkpoint holds the cut
 * back to an older checkpoint (or none), so no version is left half there.
 *
 * Then, as the protocol's Metadata Cleanup asks (step 5), V2 checkpoint
 * sidecars in _delta_log/_sidecars that no remaining checkpoint references
 * go too, but only old ones: a checkpoint being written puts its sidecars
 * before the checkpoint file that names them. The spec keeps sidecars less
 * than a day old as of midnight UTC; we also keep those younger than the
 * log retention cutoff, whichever protects more.
 */
#include "txn/log_cleanup.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log/action_json.h"
#include "log/arena.h"
#include "log/checkpoint_read.h"
#include "log/file_open.h"
#include "log/segment.h"
#include "log/snapshot.h"
#include "log/table_setup.h"
#include "storage/path.h"
#include "storage/storage_internal.h"
#include "txn/commit.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MONTH_MS (30LL * 86400 * 1000)

static bool is_checkpoint(log_file_kind k) {
  return k == LOG_CHECKPOINT || k == LOG_CHECKPOINT_PART || k == LOG_CHECKPOINT_V2_JSON ||
         k == LOG_CHECKPOINT_V2_PARQUET;
}

/* The version a file belongs to for the cut: a compaction by its last. */
static int64_t file_version(const log_entry *e) {
  return e->info.kind == LOG_COMPACTION ? e->info.end_version : e->info.version;
}

/* Whether the checkpoint at `version` is complete (every part present). */
static bool checkpoint_complete(const log_listing *l, int64_t version) {
  int parts = 0, want = 0;
  for (int i = 0; i < l->n; i++) {
    const log_entry *e = &l->entries[i];
    if (e->info.version != version || !is_checkpoint(e->info.kind)) continue;
    if (e->info.kind != LOG_CHECKPOINT_PART) return true;
    parts++;
    want = e->info.parts;
  }
  return want > 0 && parts == want;
}

#define DAY_MS (86400LL * 1000)

typedef struct {
  char **names;      /* candidate sidecar file names (decoded), NULL once referenced */
  int64_t *sizes;
  int n, cap;
  int64_t before;    /* candidates were last modified before this (ms) */
} sidecar_set;

static int on_sidecar_entry(const delta_storage_entry *e, void *payload) {
  sidecar_set *set = payload;
  /* hidden names are a writer's temporaries, not sidecars */
  if (e->is_dir || e->name[0] == '.' || e->mtime_ms >= set->before) return 0;
  if (set->n == set->cap) {
    int cap = set->cap ? set->cap * 2 : 16;
    char **nn = mem_realloc(set->names, (size_t)cap * sizeof *nn);
    if (!nn) return DELTA_NOMEM();
    set->names = nn;
    int64_t *ns = mem_realloc(set->sizes, (size_t)cap * sizeof *ns);
    if (!ns) return DELTA_NOMEM();
    set->sizes = ns;
    set->cap = cap;
  }
  set->names[set->n] = mem_strdup(e->name);
  if (!set->names[set->n]) return DELTA_NOMEM();
  set->sizes[set->n++] = (int64_t)e->size;
  return 0;
}

/* A sidecar action of a remaining checkpoint: its file is not a candidate. */
static int on_checkpoint_action(const delta_action *a, void *payload) {
  if (a->kind != DELTA_ACTION_SIDECAR) return 0;
  sidecar_set *set = payload;
  const char *base = strrchr(a->u.sidecar.path, '/') ? strrchr(a->u.sidecar.path, '/') + 1 : a->u.sidecar.path;
  delta_buf name = DELTA_BUF_INIT;
  int rc;
  if ((rc = storage_path_decode(&name, base, strlen(base))) != 0)
    goto done;
  if ((rc = buf_putc(&name, 0)) != 0)
    goto done;
  for (int i = 0; i < set->n; i++)
    if (set->names[i] && strcmp(set->names[i], (const char *)name.data) == 0) {
      mem_free(set->names[i]);
      set->names[i] = NULL;
    }
done:
  buf_dispose(&name);
  return rc;
}

/* The sidecars named by one checkpoint file (multi-part ones are V1: none). */
static int read_sidecar_refs(delta_storage *st, const log_entry *e, sidecar_set *set) {
  if (e->info.kind == LOG_CHECKPOINT_PART) return 0;
  char key[160];
  snprintf(key, sizeof key, "_delta_log/%s", e->name);
  delta_arena arena = DELTA_ARENA_INIT;
  delta_buf buf = DELTA_BUF_INIT;
  delta_json_doc *doc = NULL;
  delta_parquet_file *f = NULL;
  int rc;
  if (e->info.kind == LOG_CHECKPOINT_V2_JSON) {
    if ((rc = json_doc_new(&doc)) != 0)
      goto done;
    if ((rc = storage_read_all(st, key, &buf)) != 0)
      goto done;
    rc = log_actions_parse_json(e->name, (const char *)buf.data, buf.len, &arena, doc, on_checkpoint_action, set);
  } else {
    if ((rc = log_parquet_open(st, key, (int64_t)e->size, &f)) != 0)
      goto done;
    rc = log_checkpoint_read_file(f, key, &arena, DELTA_CKPT_STATS_NONE, on_checkpoint_action, set);
  }
done:
  delta_parquet_free(f);
  json_doc_free(doc);
  buf_dispose(&buf);
  log_arena_dispose(&arena);
  return rc;
}

/* Delete (or, dry run, list) the old sidecars no checkpoint from `cut` on
 * references. */
static int cleanup_sidecars(delta_table *t, const log_listing *l, int64_t cut, int64_t before,
                            const delta_log_cleanup_options *o, delta_log_cleanup_result *result) {
  sidecar_set set = {0};
  set.before = before;
  delta_buf key = DELTA_BUF_INIT;
  int rc = delta_storage_list(t->storage, "_delta_log/_sidecars", NULL, on_sidecar_entry, &set);
  if (rc == DELTA_ENOTFOUND) {
    delta_error_clear();
    rc = 0;
  }
  if (rc) goto done;
  /* only when there is something old to delete are the checkpoints read */
  for (int i = 0; set.n && i < l->n; i++) {
    const log_entry *e = &l->entries[i];
    if (is_checkpoint(e->info.kind) && e->info.version >= cut && (rc = read_sidecar_refs(t->storage, e, &set)) != 0)
      goto done;
  }
  for (int i = 0; i < set.n; i++) {
    if (!set.names[i]) continue;
    key.len = 0;
    if ((rc = buf_printf(&key, "_delta_log/_sidecars/%s", set.names[i])) != 0)
      goto done;
    if ((rc = buf_putc(&key, 0)) != 0)
      goto done;
    if (!o->dry_run && (rc = delta_storage_delete(t->storage, (const char *)key.data)) != 0)
      goto done;
    result->files_deleted++;
    if (o->on_file && (rc = o->on_file(o->on_file_ctx, (const char *)key.data, set.sizes[i])) != 0)
      goto done;
  }
done:
  buf_dispose(&key);
  for (int i = 0; i < set.n; i++) mem_free(set.names[i]);
  mem_free(set.names);
  mem_free(set.sizes);
  return rc;
}

int log_cleanup_run(delta_table *t, const delta_snapshot *s, const delta_log_cleanup_options *o,
                    delta_log_cleanup_result *result) {
  delta_log_cleanup_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->oldest_version = -1;
  int64_t retain = table_interval_ms(snapshot_config(s, "delta.logRetentionDuration"), MONTH_MS);
  int64_t cutoff = write_now_ms() - retain;
  log_listing l;
  int rc;
  if ((rc = log_list(t->storage, &l)) != 0) return rc;
  /* young: the oldest version with a file newer than the cutoff */
  int64_t young = INT64_MAX, cut = -1;
  for (int i = 0; i < l.n; i++)
    if (l.entries[i].mtime_ms > cutoff && file_version(&l.entries[i]) < young) young = file_version(&l.entries[i]);
  for (int i = 0; i < l.n; i++) {
    const log_entry *e = &l.entries[i];
    if (is_checkpoint(e->info.kind) && e->info.version <= young && e->info.version > cut &&
        e->info.version <= s->version && checkpoint_complete(&l, e->info.version))
      cut = e->info.version;
  }
  result->oldest_version = cut >= 0 ? cut : l.earliest_commit;
  delta_buf key = DELTA_BUF_INIT;
  for (int i = 0; cut > 0 && i < l.n; i++) {
    const log_entry *e = &l.entries[i];
    if (file_version(e) >= cut) continue;
    key.len = 0;
    if ((rc = buf_printf(&key, "_delta_log/%s", e->name)) != 0)
      goto done;
    if ((rc = buf_putc(&key, 0)) != 0)
      goto done;
    if (!o->dry_run && (rc = delta_storage_delete(t->storage, (const char *)key.data)) != 0)
      goto done;
    result->files_deleted++;
    if (o->on_file && (rc = o->on_file(o->on_file_ctx, (const char *)key.data, (int64_t)e->size)) != 0)
      goto done;
  }
  /* as the spec: no cut checkpoint, no cleanup */
  if (cut >= 0) {
    int64_t now = write_now_ms();
    int64_t day = now - now % DAY_MS - DAY_MS; /* a day before midnight UTC */
    rc = cleanup_sidecars(t, &l, cut, day < cutoff ? day : cutoff, o, result);
  }
done:
  buf_dispose(&key);
  log_listing_dispose(&l);
  return rc;
}

int log_cleanup_after_checkpoint(delta_table *t, const delta_snapshot *s) {
  const char *v = snapshot_config(s, "delta.enableExpiredLogCleanup");
  if (v && strcasecmp(v, "false") == 0) return 0;
  delta_log_cleanup_options o = DELTA_LOG_CLEANUP_OPTIONS_INIT;
  return log_cleanup_run(t, s, &o, NULL);
}
