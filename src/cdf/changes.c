/* The change data feed. Each commit of the range becomes scan tasks: its
 * cdc files when it has any, otherwise its data-changing adds (inserts) and
 * removes (deletes), with a file removed and re-added under another
 * deletion vector giving only the rows whose state changed. The rows are
 * then read by the scan, with the table schema of the end version. */
#include "deltac/changes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "log/action_json.h"
#include "log/snapshot.h"
#include "scan/scan_internal.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

typedef struct {
  delta_arena *arena;
  delta_buf cdcs, adds, removes; /* arrays of delta_cdc / delta_add / delta_remove */
  const char *commit_info;
  bool cdf_disabled;             /* a metaData in this commit turns the feed off */
} commit_actions;

static bool cdf_enabled_in(const delta_kv *conf, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(conf[i].key, "delta.enableChangeDataFeed") == 0)
      return conf[i].value && strcasecmp(conf[i].value, "true") == 0;
  return false;
}

static int collect(const delta_action *a, void *payload) {
  commit_actions *c = payload;
  switch (a->kind) {
  case DELTA_ACTION_CDC: return delta_buf_append(&c->cdcs, &a->u.cdc, sizeof a->u.cdc);
  case DELTA_ACTION_ADD:
    return a->u.add.data_change ? delta_buf_append(&c->adds, &a->u.add, sizeof a->u.add) : 0;
  case DELTA_ACTION_REMOVE:
    return a->u.remove.data_change ? delta_buf_append(&c->removes, &a->u.remove, sizeof a->u.remove) : 0;
  case DELTA_ACTION_COMMIT_INFO:
    if (!c->commit_info) c->commit_info = a->u.commit_info;
    return 0;
  case DELTA_ACTION_METADATA:
    if (!cdf_enabled_in(a->u.metadata.configuration, a->u.metadata.n_configuration)) c->cdf_disabled = true;
    return 0;
  default:
    return 0;
  }
}

/* A MERGE whose metrics say it changed nothing writes files but no change. */
static bool noop_merge(delta_json_doc *doc, const char *ci) {
  if (!ci || delta_json_parse(doc, ci, strlen(ci))) return false;
  delta_json_val root = delta_json_root(doc);
  if (!delta_json_string_eq(delta_json_get(root, "operation"), "MERGE")) return false;
  delta_json_val m = delta_json_get(root, "operationMetrics");
  static const char *const keys[] = {"numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted"};
  for (int i = 0; i < 3; i++)
    if (!delta_json_string_eq(delta_json_get(m, keys[i]), "0")) return false;
  return true;
}

static int push_task(delta_buf *tasks, scan_task t) { return delta_buf_append(tasks, &t, sizeof t); }

/* The scan tasks of one commit. */
static int commit_tasks(commit_actions *c, int64_t version, int64_t ts_us, delta_json_doc *doc, delta_buf *tasks) {
  int rc = 0;
  size_t n_cdc = c->cdcs.len / sizeof(delta_cdc);
  if (n_cdc) {
    const delta_cdc *cd = (const delta_cdc *)(const void *)c->cdcs.data;
    for (size_t i = 0; !rc && i < n_cdc; i++)
      rc = push_task(tasks, (scan_task){cd[i].path, cd[i].partition_values, cd[i].n_partition_values, NULL, NULL,
                                        ROWS_LIVE, NULL, version, ts_us});
    return rc;
  }
  if (noop_merge(doc, c->commit_info)) return 0;
  const delta_add *adds = (const delta_add *)(const void *)c->adds.data;
  const delta_remove *rms = (const delta_remove *)(const void *)c->removes.data;
  size_t na = c->adds.len / sizeof(delta_add), nr = c->removes.len / sizeof(delta_remove);
  /* A path both removed and added in the commit is the same file under a
   * new deletion vector: inserted rows are in the old DV only, deleted rows
   * in the new DV only. */
  for (size_t i = 0; !rc && i < na; i++) {
    const delta_remove *pair = NULL;
    for (size_t j = 0; j < nr && !pair; j++)
      if (strcmp(rms[j].path, adds[i].path) == 0) pair = &rms[j];
    if (!pair) {
      rc = push_task(tasks, (scan_task){adds[i].path, adds[i].partition_values, adds[i].n_partition_values,
                                        &adds[i].dv, NULL, ROWS_LIVE, "insert", version, ts_us});
      continue;
    }
    rc = push_task(tasks, (scan_task){adds[i].path, adds[i].partition_values, adds[i].n_partition_values,
                                      &pair->dv, &adds[i].dv, ROWS_IN_DV, "insert", version, ts_us});
    if (!rc)
      rc = push_task(tasks, (scan_task){adds[i].path, adds[i].partition_values, adds[i].n_partition_values,
                                        &adds[i].dv, &pair->dv, ROWS_IN_DV, "delete", version, ts_us});
  }
  for (size_t j = 0; !rc && j < nr; j++) {
    bool paired = false;
    for (size_t i = 0; i < na && !paired; i++) paired = strcmp(rms[j].path, adds[i].path) == 0;
    if (!paired)
      rc = push_task(tasks, (scan_task){rms[j].path, rms[j].partition_values, rms[j].n_partition_values, &rms[j].dv,
                                        NULL, ROWS_LIVE, "delete", version, ts_us});
  }
  return rc;
}

/* Commit timestamps as Delta defines them: in-commit timestamps where the
 * table has them, else file times made strictly increasing from the oldest
 * commit on. */
static int commit_time_us(delta_table *t, const log_listing *l, int64_t v, bool ict, int64_t *prev_ms,
                          int64_t *out_us) {
  const log_entry *e = log_find_commit(l, v);
  if (!e) return delta_error_set(DELTA_ECORRUPT, "the log has no commit file for version %lld", (long long)v);
  int64_t ms;
  if (ict && delta_commit_timestamp(t, e, true, &ms) == 0) {
    *out_us = ms * 1000;
    return 0;
  }
  ms = e->mtime_ms;
  if (*prev_ms != INT64_MIN && ms <= *prev_ms) ms = *prev_ms + 1;
  *prev_ms = ms;
  *out_us = ms * 1000;
  return 0;
}

/* Versions for a timestamp range: start → first commit at or after,
 * end → last commit at or before. */
static int64_t first_at_or_after(const log_listing *l, int64_t ts_ms) {
  int64_t prev = INT64_MIN;
  for (int i = 0; i < l->n; i++) {
    if (l->entries[i].info.kind != LOG_COMMIT) continue;
    int64_t t = l->entries[i].mtime_ms;
    if (prev != INT64_MIN && t <= prev) t = prev + 1;
    prev = t;
    if (t >= ts_ms) return l->entries[i].info.version;
  }
  return l->latest + 1;
}

static int64_t last_at_or_before(const log_listing *l, int64_t ts_ms) {
  int64_t prev = INT64_MIN, best = -1;
  for (int i = 0; i < l->n; i++) {
    if (l->entries[i].info.kind != LOG_COMMIT) continue;
    int64_t t = l->entries[i].mtime_ms;
    if (prev != INT64_MIN && t <= prev) t = prev + 1;
    prev = t;
    if (t <= ts_ms) best = l->entries[i].info.version;
  }
  return best;
}

int delta_changes_read(delta_table *t, const delta_changes_options *opts, struct ArrowArrayStream *out) {
  memset(out, 0, sizeof *out);
  if (!opts || opts->version != DELTA_CHANGES_OPTIONS_VERSION)
    return delta_error_set(DELTA_EINVAL, "changes: bad options");
  log_listing l;
  int rc = log_list(t->storage, &l);
  if (rc) return rc;
  delta_snapshot *end_snap = NULL;
  delta_json_doc *doc = NULL;
  delta_buf tasks = DELTA_BUF_INIT, text = DELTA_BUF_INIT;
  commit_actions c;
  memset(&c, 0, sizeof c);
  int64_t start = opts->start_is_timestamp ? first_at_or_after(&l, opts->start_timestamp_ms) : opts->start_version;
  int64_t end = !opts->has_end ? l.latest
                : opts->end_is_timestamp ? last_at_or_before(&l, opts->end_timestamp_ms) : opts->end_version;
  bool empty = false;
  if (start > l.latest) {
    if (opts->start_is_timestamp) {
      rc = delta_error_set(DELTA_EINVAL, "the start timestamp is after the latest commit (version %lld)",
                           (long long)l.latest);
    } else {
      rc = delta_error_set(DELTA_EINVAL, "start version %lld is after the latest version %lld", (long long)start,
                           (long long)l.latest);
    }
    goto done;
  }
  if (start < 0) {
    rc = delta_error_set(DELTA_EINVAL, "start version %lld is negative", (long long)start);
    goto done;
  }
  if (end > l.latest) end = l.latest;
  if (end < start) {
    /* Two timestamps between the same two commits select nothing; a
     * backwards version range is a mistake. */
    if (opts->start_is_timestamp || opts->end_is_timestamp) {
      empty = true;
    } else {
      rc = delta_error_set(DELTA_EINVAL, "end version %lld is before start version %lld", (long long)end,
                           (long long)start);
      goto done;
    }
  }
  /* The schema and reader checks of the end version govern the feed. */
  rc = delta_snapshot_load(t, &l, empty ? start : end, INT64_MAX, &end_snap);
  if (rc) goto done;
  {
    delta_snapshot *start_snap = NULL;
    rc = delta_snapshot_load(t, &l, start, INT64_MAX, &start_snap);
    if (rc) goto done;
    bool on = cdf_enabled_in(start_snap->metadata.configuration, start_snap->metadata.n_configuration);
    delta_snapshot_free(start_snap);
    if (!on) {
      rc = delta_error_set(DELTA_EUNSUPPORTED, "change data feed is not enabled at version %lld", (long long)start);
      goto done;
    }
  }
  /* Commit texts and their actions live in the end snapshot's arena while the stream reads them. */
  rc = delta_json_doc_new(&doc);
  int64_t prev_ms = INT64_MIN;
  for (int64_t v = l.earliest_commit; !rc && !empty && v < start; v++) {
    int64_t ignored;
    if (log_find_commit(&l, v)) rc = commit_time_us(t, &l, v, false, &prev_ms, &ignored);
  }
  for (int64_t v = start; !rc && !empty && v <= end; v++) {
    const log_entry *e = log_find_commit(&l, v);
    if (!e) {
      rc = delta_error_set(DELTA_ECORRUPT, "the log has no commit file for version %lld", (long long)v);
      break;
    }
    char key[64];
    snprintf(key, sizeof key, "_delta_log/%s", e->name);
    text.len = 0;
    rc = delta_storage_read(t->storage, key, &text);
    c.cdcs.len = c.adds.len = c.removes.len = 0;
    c.commit_info = NULL;
    c.cdf_disabled = false;
    c.arena = &end_snap->arena;
    /* The actions must outlive this loop: copy the text into the arena first. */
    char *copy = rc ? NULL : delta_arena_strndup(&end_snap->arena, (const char *)text.data, text.len);
    if (!rc && !copy) rc = DELTA_NOMEM();
    if (!rc) rc = delta_actions_parse_json(e->name, copy, text.len, &end_snap->arena, doc, collect, &c);
    if (!rc && c.cdf_disabled) {
      rc = delta_error_set(DELTA_EUNSUPPORTED, "change data feed is not enabled at version %lld", (long long)v);
      break;
    }
    int64_t ts_us = 0;
    if (!rc) rc = commit_time_us(t, &l, v, end_snap->ict_enabled, &prev_ms, &ts_us);
    if (!rc) {
      /* The per-commit arrays are reused; tasks point into the arena copies. */
      delta_cdc *cd = delta_arena_alloc(&end_snap->arena, c.cdcs.len + 1);
      delta_add *ad = delta_arena_alloc(&end_snap->arena, c.adds.len + 1);
      delta_remove *rm = delta_arena_alloc(&end_snap->arena, c.removes.len + 1);
      if (!cd || !ad || !rm) {
        rc = DELTA_NOMEM();
        break;
      }
      memcpy(cd, c.cdcs.data ? (const void *)c.cdcs.data : "", c.cdcs.len);
      memcpy(ad, c.adds.data ? (const void *)c.adds.data : "", c.adds.len);
      memcpy(rm, c.removes.data ? (const void *)c.removes.data : "", c.removes.len);
      commit_actions stable = c;
      stable.cdcs.data = (uint8_t *)cd;
      stable.adds.data = (uint8_t *)ad;
      stable.removes.data = (uint8_t *)rm;
      rc = commit_tasks(&stable, v, ts_us, doc, &tasks);
    }
  }
  if (rc) goto done;
  {
    delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
    so.columns = opts->columns;
    so.n_columns = opts->n_columns;
    int64_t n_tasks = (int64_t)(tasks.len / sizeof(scan_task));
    rc = scan_stream_new(end_snap, &so, (scan_task *)(void *)delta_buf_detach(&tasks), n_tasks, true, out);
  }
done:
  delta_snapshot_free(end_snap); /* the stream holds its own reference */
  delta_json_doc_free(doc);
  delta_buf_dispose(&tasks);
  delta_buf_dispose(&text);
  delta_buf_dispose(&c.cdcs);
  delta_buf_dispose(&c.adds);
  delta_buf_dispose(&c.removes);
  log_listing_dispose(&l);
  return rc;
}
