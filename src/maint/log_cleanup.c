/*
 * Expired-log cleanup. The cut is a checkpoint version V such that every
 * log file of a version below V is older than the retention; everything
 * below V goes (commits, checkpoints, checksums, compactions ending below
 * V), oldest first, so that an interrupted cleanup still leaves a
 * contiguous history. Versions V and later read from the checkpoint at V
 * and the commits after it, which all stay. Modification times decide, as
 * in Delta Spark; a single young file below a checkpoint holds the cut
 * back to an older checkpoint (or none), so no version is left half there.
 */
#include "maint/log_cleanup.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log/segment.h"
#include "log/snapshot.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "write/commit.h"
#include "write/table_setup.h"

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

int log_cleanup_run(delta_table *t, const delta_snapshot *s, const delta_log_cleanup_options *o,
                    delta_log_cleanup_result *result) {
  delta_log_cleanup_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->oldest_version = -1;
  int64_t retain = table_interval_ms(delta_snapshot_config(s, "delta.logRetentionDuration"), MONTH_MS);
  int64_t cutoff = write_now_ms() - retain;
  log_listing l;
  int rc = log_list(t->storage, &l);
  if (rc) return rc;
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
  for (int i = 0; !rc && cut > 0 && i < l.n; i++) {
    const log_entry *e = &l.entries[i];
    if (file_version(e) >= cut) continue;
    key.len = 0;
    rc = delta_buf_printf(&key, "_delta_log/%s", e->name);
    if (!rc) rc = delta_buf_putc(&key, 0);
    if (!rc && !o->dry_run) rc = delta_storage_delete(t->storage, (const char *)key.data);
    if (rc) break;
    result->files_deleted++;
    if (o->on_file) rc = o->on_file(o->on_file_ctx, (const char *)key.data, (int64_t)e->size);
  }
  delta_buf_dispose(&key);
  log_listing_dispose(&l);
  return rc;
}

int log_cleanup_after_checkpoint(delta_table *t, const delta_snapshot *s) {
  const char *v = delta_snapshot_config(s, "delta.enableExpiredLogCleanup");
  if (v && strcasecmp(v, "false") == 0) return 0;
  delta_log_cleanup_options o = DELTA_LOG_CLEANUP_OPTIONS_INIT;
  return log_cleanup_run(t, s, &o, NULL);
}

int delta_log_cleanup(const char *location, const delta_log_cleanup_options *o, delta_log_cleanup_result *result) {
  if (!o || o->version != DELTA_LOG_CLEANUP_OPTIONS_VERSION)
    return delta_error_set(DELTA_EINVAL, "log cleanup options: unknown version");
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  int rc = delta_table_open(&t, location);
  if (!rc) rc = delta_snapshot_open(&s, t, NULL);
  if (!rc) rc = log_cleanup_run(t, s, o, result);
  delta_snapshot_free(s);
  delta_table_free(t);
  return rc;
}
