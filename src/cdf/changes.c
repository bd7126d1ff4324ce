/* The change data feed. Each commit of the range becomes scan tasks: its
 * cdc files when it has any, otherwise its data-changing adds (inserts) and
 * removes (deletes), with a file removed and re-added under another
 * deletion vector giving only the rows whose state changed. The rows are
 * then read by the scan, with the table schema of the end version.
 *
 * The tasks are made commit by commit as the stream reaches them, so memory
 * is bounded by one commit's actions and one batch, not by the range. Range
 * errors still come up front, before the first row: the range is resolved
 * from the listing, and a first pass over the range's commit texts looks
 * only at their metaData lines (found with memmem, parsed alone) for a
 * version that turns the feed off. */
#include "deltac/changes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdf/schema_compat.h"
#include "arrow/array.h"
#include "expr/expr.h"
#include "expr/skip.h"
#include "json/json.h"
#include "log/action_json.h"
#include "log/snapshot.h"
#include "scan/scan_internal.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

typedef struct {
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
  case DELTA_ACTION_CDC: return buf_append(&c->cdcs, &a->u.cdc, sizeof a->u.cdc);
  case DELTA_ACTION_ADD:
    return a->u.add.data_change ? buf_append(&c->adds, &a->u.add, sizeof a->u.add) : 0;
  case DELTA_ACTION_REMOVE:
    return a->u.remove.data_change ? buf_append(&c->removes, &a->u.remove, sizeof a->u.remove) : 0;
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
  if (!ci || json_parse(doc, ci, strlen(ci))) return false;
  delta_json_val root = json_root(doc);
  if (!json_string_eq(json_get(root, "operation"), "MERGE")) return false;
  delta_json_val m = json_get(root, "operationMetrics");
  static const char *const keys[] = {"numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted"};
  for (int i = 0; i < 3; i++)
    if (!json_string_eq(json_get(m, keys[i]), "0")) return false;
  return true;
}

/* A task and the size of its file (-1 when the log does not say), which
 * the plan reports. */
typedef struct {
  scan_task task;
  int64_t size;
} change_file;

static int push_task(delta_buf *tasks, scan_task t, int64_t size) {
  t.size = size; /* saves the reader asking the store */
  change_file f = {t, size};
  return buf_append(tasks, &f, sizeof f);
}

static int remove_path_cmp(const void *a, const void *b) {
  const delta_remove *x = *(const delta_remove *const *)a, *y = *(const delta_remove *const *)b;
  int c = strcmp(x->path, y->path);
  return c ? c : (x < y ? -1 : x > y); /* stable: the first remove of a path pairs */
}

/* The first remove of `path` in `sorted`, or NULL; every remove of that
 * path is marked paired (an add of the path covers them all). */
static const delta_remove *find_remove(const delta_remove **sorted, size_t n, const char *path,
                                       const delta_remove *rms, bool *paired) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(sorted[mid]->path, path) < 0) lo = mid + 1;
    else hi = mid;
  }
  for (size_t k = lo; k < n && strcmp(sorted[k]->path, path) == 0; k++) paired[sorted[k] - rms] = true;
  return lo < n && strcmp(sorted[lo]->path, path) == 0 ? sorted[lo] : NULL;
}

/* The scan tasks of one commit. */
static int commit_tasks(commit_actions *c, int64_t version, int64_t ts_us, delta_json_doc *doc, delta_buf *tasks) {
  int rc = 0;
  size_t n_cdc = c->cdcs.len / sizeof(delta_cdc);
  if (n_cdc) {
    const delta_cdc *cd = (const delta_cdc *)(const void *)c->cdcs.data;
    for (size_t i = 0; i < n_cdc; i++)
      if ((rc = push_task(tasks, (scan_task){cd[i].path, cd[i].partition_values, cd[i].n_partition_values, NULL, NULL,
                                             ROWS_LIVE, NULL, version, ts_us, NULL, false, false, 0, 0, 0}, cd[i].size)) != 0)
        return rc;
    return 0;
  }
  if (noop_merge(doc, c->commit_info)) return 0;
  const delta_add *adds = (const delta_add *)(const void *)c->adds.data;
  const delta_remove *rms = (const delta_remove *)(const void *)c->removes.data;
  size_t na = c->adds.len / sizeof(delta_add), nr = c->removes.len / sizeof(delta_remove);
  /* Removes sorted by path, so pairing an add is a binary search: a big
   * MERGE or DELETE rewrites thousands of files in one commit. */
  const delta_remove **sorted = mem_malloc((nr + 1) * sizeof *sorted);
  bool *paired = mem_calloc(nr + 1, sizeof *paired);
  if (!sorted || !paired) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (size_t j = 0; j < nr; j++) sorted[j] = &rms[j];
  if (nr > 1) qsort(sorted, nr, sizeof *sorted, remove_path_cmp);
  /* A path both removed and added in the commit is the same file under a
   * new deletion vector: inserted rows are in the old DV only, deleted rows
   * in the new DV only. */
  for (size_t i = 0; i < na; i++) {
    const delta_remove *pair = find_remove(sorted, nr, adds[i].path, rms, paired);
    if (!pair) {
      if ((rc = push_task(tasks, (scan_task){adds[i].path, adds[i].partition_values, adds[i].n_partition_values,
                                             &adds[i].dv, NULL, ROWS_LIVE, "insert", version, ts_us, adds[i].stats, false, false, 0, 0, 0}, adds[i].size)) != 0)
        goto done;
      continue;
    }
    /* Rows in no DV: no task, rather than a read that keeps nothing. */
    if (pair->dv.present &&
        (rc = push_task(tasks, (scan_task){adds[i].path, adds[i].partition_values, adds[i].n_partition_values,
                                           &pair->dv, &adds[i].dv, ROWS_IN_DV, "insert", version, ts_us, adds[i].stats, false, false, 0, 0, 0},
                        adds[i].size)) != 0)
      goto done;
    if (adds[i].dv.present &&
        (rc = push_task(tasks, (scan_task){adds[i].path, adds[i].partition_values, adds[i].n_partition_values,
                                           &adds[i].dv, &pair->dv, ROWS_IN_DV, "delete", version, ts_us, adds[i].stats, false, false, 0, 0, 0}, adds[i].size)) != 0)
      goto done;
  }
  for (size_t j = 0; j < nr; j++)
    if (!paired[j] &&
        (rc = push_task(tasks, (scan_task){rms[j].path, rms[j].partition_values, rms[j].n_partition_values, &rms[j].dv,
                                           NULL, ROWS_LIVE, "delete", version, ts_us, rms[j].stats, false, false, 0, 0, 0},
                        rms[j].has_size ? rms[j].size : -1)) != 0)
      goto done;
done:
  mem_free(sorted);
  mem_free(paired);
  return rc;
}

/* Commit times for mapping a timestamp range to versions, as the stream
 * stamps rows: in-commit timestamps from the version that enabled them on
 * (read from the commit, only for the few versions a binary search
 * visits), file times made strictly increasing before that. */
typedef struct {
  delta_table *t;
  const log_listing *l;
  int64_t *versions, *mono_ms; /* the listing's commits, ascending */
  int64_t n;
  int64_t ict_from;            /* first version with in-commit timestamps; INT64_MAX: none */
} commit_times;

static int times_init(commit_times *ct, delta_table *t, const log_listing *l, delta_snapshot *latest) {
  memset(ct, 0, sizeof *ct);
  ct->t = t;
  ct->l = l;
  ct->ict_from = INT64_MAX;
  ct->versions = mem_calloc((size_t)l->n + 1, sizeof *ct->versions);
  ct->mono_ms = mem_calloc((size_t)l->n + 1, sizeof *ct->mono_ms);
  if (!ct->versions || !ct->mono_ms) return DELTA_NOMEM();
  int64_t prev = INT64_MIN;
  for (int i = 0; i < l->n; i++) {
    if (l->entries[i].info.kind != LOG_COMMIT) continue;
    int64_t ms = l->entries[i].mtime_ms;
    if (prev != INT64_MIN && ms <= prev) ms = prev + 1;
    prev = ms;
    ct->versions[ct->n] = l->entries[i].info.version;
    ct->mono_ms[ct->n++] = ms;
  }
  if (latest->ict_enabled) {
    const char *ev = snapshot_config(latest, "delta.inCommitTimestampEnablementVersion");
    ct->ict_from = ev ? strtoll(ev, NULL, 10) : 0;
  }
  return 0;
}

static void times_dispose(commit_times *ct) {
  mem_free(ct->versions);
  mem_free(ct->mono_ms);
}

static int time_at(commit_times *ct, int64_t i, int64_t *out_ms) {
  if (ct->versions[i] < ct->ict_from) {
    *out_ms = ct->mono_ms[i];
    return 0;
  }
  return snapshot_commit_timestamp(ct->t, log_find_commit(ct->l, ct->versions[i]), true, out_ms);
}

/* The first commit index whose time is > ts (after = true) or >= ts;
 * times only grow, so a binary search. */
static int search_time(commit_times *ct, int64_t ts, bool after, int64_t *out) {
  int64_t lo = 0, hi = ct->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2, ms;
    int rc = time_at(ct, mid, &ms);
    if (rc) return rc;
    if (after ? ms > ts : ms >= ts) hi = mid;
    else lo = mid + 1;
  }
  *out = lo;
  return 0;
}

/* start → the first commit at or after ts (latest + 1 when none). */
static int first_at_or_after(commit_times *ct, int64_t ts, int64_t *out) {
  int64_t i;
  int rc;
  if ((rc = search_time(ct, ts, false, &i)) != 0)
    return rc;
  *out = i < ct->n ? ct->versions[i] : ct->l->latest + 1;
  return 0;
}

/* end → the last commit at or before ts (-1 when none). */
static int last_at_or_before(commit_times *ct, int64_t ts, int64_t *out) {
  int64_t i;
  int rc;
  if ((rc = search_time(ct, ts, true, &i)) != 0)
    return rc;
  *out = i > 0 ? ct->versions[i - 1] : -1;
  return 0;
}

/* The versions `opts` asks for; timestamps resolved against the latest
 * snapshot's in-commit timestamp settings. */
static int resolve_range(delta_table *t, log_listing *l, const delta_changes_options *opts, int64_t *start,
                         int64_t *end) {
  *start = opts->start_version;
  *end = !opts->has_end ? l->latest : opts->end_version;
  if (!opts->start_is_timestamp && !(opts->has_end && opts->end_is_timestamp)) return 0;
  delta_snapshot *latest = NULL;
  commit_times ct;
  memset(&ct, 0, sizeof ct);
  int rc;
  if ((rc = snapshot_load(t, l, l->latest, INT64_MAX, &latest)) != 0)
    goto done;
  if ((rc = times_init(&ct, t, l, latest)) != 0)
    goto done;
  if (opts->start_is_timestamp && (rc = first_at_or_after(&ct, opts->start_timestamp_ms, start)) != 0)
    goto done;
  if (opts->has_end && opts->end_is_timestamp && (rc = last_at_or_before(&ct, opts->end_timestamp_ms, end)) != 0)
    goto done;
done:
  times_dispose(&ct);
  delta_snapshot_free(latest);
  return rc;
}

/* The feed of one range, produced commit by commit. Only the current
 * commit's text, actions and tasks are held; the next commit replaces them. */
typedef struct {
  delta_table *t;
  log_listing l;
  int64_t start, end;          /* the range */
  int64_t next_version;        /* the next commit to read */
  bool ict;                    /* in-commit timestamps at the end version */
  int64_t prev_ms;             /* monotonised file time of the previous commit */
  delta_json_doc *doc;
  delta_buf text;              /* the current commit's text */
  delta_arena arena;           /* the current commit's action strings */
  commit_actions c;
  delta_buf files;             /* the current commit's change_file array */
  size_t next_file;
  /* The filter, bound to the table's columns and the change columns, to
   * skip whole commits by _commit_version (and _commit_timestamp when it
   * is a file time) without reading them; NULL without a filter. */
  expr_node *pred;
  struct ArrowSchema wide;
  int n_table_columns;
} change_source;

static void source_free(change_source *s) {
  if (!s) return;
  log_listing_dispose(&s->l);
  json_doc_free(s->doc);
  buf_dispose(&s->text);
  log_arena_dispose(&s->arena);
  buf_dispose(&s->c.cdcs);
  buf_dispose(&s->c.adds);
  buf_dispose(&s->c.removes);
  buf_dispose(&s->files);
  expr_free(s->pred);
  if (s->wide.release) s->wide.release(&s->wide);
  mem_free(s);
}

static int read_commit_text(delta_table *t, const log_listing *l, int64_t v, delta_buf *text, const log_entry **e) {
  *e = log_find_commit(l, v);
  if (!*e) return err_set(DELTA_ECORRUPT, "the log has no commit file for version %lld", (long long)v);
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%s", (*e)->name);
  text->len = 0;
  return storage_read_all(t->storage, key, text);
}

/* The commit's timestamp as Delta defines it: its in-commit timestamp
 * where the table has them, else the file time made strictly increasing
 * from the oldest commit on (so every commit keeps advancing prev_ms). */
static int64_t file_time_ms(change_source *s, const log_entry *e) {
  int64_t ms = e->mtime_ms;
  if (s->prev_ms != INT64_MIN && ms <= s->prev_ms) ms = s->prev_ms + 1;
  s->prev_ms = ms;
  return ms;
}

static int commit_time_us(change_source *s, const log_entry *e, int64_t *out_us) {
  int64_t ms = file_time_ms(s, e);
  const char *ci = s->c.commit_info;
  if (s->ict && ci && json_parse(s->doc, ci, strlen(ci)) == 0) {
    delta_json_val ts = json_get(json_root(s->doc), "inCommitTimestamp");
    int64_t ict;
    if (json_typeof(ts) == DELTA_JSON_NUMBER && json_int64(ts, &ict) == 0) ms = ict;
  }
  *out_us = ms * 1000;
  return 0;
}

/* Read commit next_version and make its tasks. The previous commit's
 * strings and tasks are dropped first: the scan is done with them. */
static int load_next_commit(change_source *s) {
  int64_t v = s->next_version++;
  log_arena_dispose(&s->arena);
  s->c.cdcs.len = s->c.adds.len = s->c.removes.len = 0;
  s->c.commit_info = NULL;
  s->c.cdf_disabled = false;
  s->files.len = 0;
  s->next_file = 0;
  const log_entry *e;
  int rc;
  if ((rc = read_commit_text(s->t, &s->l, v, &s->text, &e)) != 0)
    return rc;
  if ((rc = log_actions_parse_json(e->name, (const char *)s->text.data, s->text.len, &s->arena, s->doc, collect,
                                   &s->c)) != 0)
    return rc;
  /* The first pass checked this already; a log changed since is still caught. */
  if (s->c.cdf_disabled)
    return err_set(DELTA_EUNSUPPORTED, "change data feed is not enabled at version %lld", (long long)v);
  int64_t ts_us = 0;
  if ((rc = commit_time_us(s, e, &ts_us)) != 0)
    return rc;
  return commit_tasks(&s->c, v, ts_us, s->doc, &s->files);
}

typedef struct {
  const change_source *s;
  int64_t version, ts_us;
  bool ts_known;
} version_ctx;

/* _commit_version (and a file-time _commit_timestamp) of a commit not yet
 * read; nothing else is known. */
static int version_stats(void *ctx, const expr_node *c, expr_col_stats *out) {
  const version_ctx *vc = ctx;
  int which = c->child_index[0] - vc->s->n_table_columns;
  if (which != 1 && !(which == 2 && vc->ts_known)) return 0;
  expr_value v = {0};
  v.type = which == 1 ? VT_INT : VT_TIMESTAMP;
  v.u.i = which == 1 ? vc->version : vc->ts_us;
  out->has_min = out->has_max = true;
  out->min = out->max = v;
  out->has_nulls = 0;
  out->has_values = 1;
  return 0;
}

/* Skip commit next_version when the filter rules out every row of it.
 * Returns 1 when skipped, 0 when it must be read, or an error. */
static int skip_commit(change_source *s) {
  if (!s->pred) return 0;
  int64_t v = s->next_version;
  const log_entry *e = log_find_commit(&s->l, v);
  if (!e) return 0;
  int64_t saved = s->prev_ms, ms = file_time_ms(s, e);
  version_ctx vc = {s, v, ms * 1000, !s->ict};
  int rc = expr_may_match(s->pred, version_stats, &vc);
  if (rc < 0) return rc;
  if (rc == 1) {
    s->prev_ms = saved; /* load_next_commit takes the time again */
    return 0;
  }
  s->next_version++;
  return 1;
}

/* The next file of the feed: 0, 1 at the end, or an error. */
static int source_next(change_source *s, const change_file **out) {
  while (s->next_file >= s->files.len / sizeof(change_file)) {
    if (s->next_version > s->end) return 1;
    int rc = skip_commit(s);
    if (rc < 0) return rc;
    if (rc == 1) {
      s->files.len = 0;
      s->next_file = 0;
      continue;
    }
    rc = load_next_commit(s);
    if (rc) return rc;
  }
  *out = (const change_file *)(const void *)s->files.data + s->next_file++;
  return 0;
}

static int scan_source_next(void *ctx, scan_task *task) {
  const change_file *f;
  int rc;
  if ((rc = source_next(ctx, &f)) != 0)
    return rc;
  *task = f->task;
  return 0;
}

static void scan_source_release(void *ctx) { source_free(ctx); }

typedef struct {
  int64_t version;
  bool disabled;
  const delta_snapshot *end; /* its schema must read this version's rows */
} metadata_check;

static int check_metadata(const delta_action *a, void *payload) {
  metadata_check *m = payload;
  if (a->kind != DELTA_ACTION_METADATA) return 0;
  if (!cdf_enabled_in(a->u.metadata.configuration, a->u.metadata.n_configuration)) m->disabled = true;
  const char *schema = a->u.metadata.schema_string;
  if (!schema || !m->end) return 0;
  delta_type *t;
  int rc = log_schema_parse(schema, strlen(schema), &t);
  if (rc) return rc;
  rc = cdf_schema_compatible(t, m->end->schema, scan_mapping_mode(m->end), m->version);
  log_type_free(t);
  return rc;
}

/* The first pass: a version of the range whose metaData turns the feed off.
 * Only lines that mention metaData are parsed, so this costs one read and
 * one memmem per commit. */
static int check_range_enabled(change_source *s, int64_t start, const delta_snapshot *end_snap) {
  int rc = 0;
  static const char needle[] = "\"metaData\"";
  for (int64_t v = start; v <= s->end; v++) {
    const log_entry *e;
    if ((rc = read_commit_text(s->t, &s->l, v, &s->text, &e)) != 0)
      goto done;
    const char *p = (const char *)s->text.data, *end = p + s->text.len;
    metadata_check m = {v, false, end_snap};
    while (p < end) {
      const char *hit = memmem(p, (size_t)(end - p), needle, sizeof needle - 1);
      if (!hit) break;
      const char *line = hit;
      while (line > (const char *)s->text.data && line[-1] != '\n') line--;
      const char *nl = memchr(hit, '\n', (size_t)(end - hit));
      const char *stop = nl ? nl : end;
      if ((rc = log_actions_parse_json(e->name, line, (size_t)(stop - line), &s->arena, s->doc, check_metadata,
                                       &m)) != 0)
        goto done;
      p = stop;
    }
    log_arena_dispose(&s->arena);
    if (m.disabled) {
      rc = err_set(DELTA_EUNSUPPORTED, "change data feed is not enabled at version %lld", (long long)v);
      goto done;
    }
  }
done:
  log_arena_dispose(&s->arena); /* what a failed parse left; already empty otherwise */
  s->text.len = 0;
  return rc;
}

/* Resolve the range of `opts`, check it, and make the source of its files
 * and the end version's snapshot (whose schema the rows take). Every range
 * error is reported here, before any row is read. */
static int changes_open(delta_table *t, const delta_changes_options *opts, change_source **src_out,
                        delta_snapshot **snap_out) {
  *src_out = NULL;
  *snap_out = NULL;
  if (!opts || opts->version < 1 || opts->version > DELTA_CHANGES_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "changes: bad options");
  change_source *s = mem_calloc(1, sizeof *s);
  if (!s) return DELTA_NOMEM();
  s->t = t;
  s->prev_ms = INT64_MIN;
  delta_snapshot *end_snap = NULL;
  int rc;
  if ((rc = log_list(t->storage, &s->l)) != 0)
    goto done;
  if ((rc = json_doc_new(&s->doc)) != 0)
    goto done;
  const log_listing *l = &s->l;
  int64_t start, end;
  rc = resolve_range(t, &s->l, opts, &start, &end);
  if (rc) goto done;
  bool empty = false;
  if (start > l->latest) {
    if (opts->start_is_timestamp) {
      rc = err_set(DELTA_EINVAL, "the start timestamp is after the latest commit (version %lld)",
                           (long long)l->latest);
    } else {
      rc = err_set(DELTA_EINVAL, "start version %lld is after the latest version %lld", (long long)start,
                           (long long)l->latest);
    }
    goto done;
  }
  if (start < 0) {
    rc = err_set(DELTA_EINVAL, "start version %lld is negative", (long long)start);
    goto done;
  }
  if (end > l->latest) end = l->latest;
  if (end < start) {
    /* Two timestamps between the same two commits select nothing; a
     * backwards version range is a mistake. */
    if (opts->start_is_timestamp || opts->end_is_timestamp) {
      empty = true;
    } else {
      rc = err_set(DELTA_EINVAL, "end version %lld is before start version %lld", (long long)end,
                           (long long)start);
      goto done;
    }
  }
  /* The schema and reader checks of the end version govern the feed. */
  rc = snapshot_load(t, &s->l, empty ? start : end, INT64_MAX, &end_snap);
  if (rc) goto done;
  {
    delta_snapshot *start_snap = NULL;
    rc = snapshot_load(t, &s->l, start, INT64_MAX, &start_snap);
    if (rc) goto done;
    bool on = cdf_enabled_in(start_snap->metadata.configuration, start_snap->metadata.n_configuration);
    /* rows of the start version are read with the end version's schema */
    if (on) rc = cdf_schema_compatible(start_snap->schema, end_snap->schema, scan_mapping_mode(end_snap), start);
    delta_snapshot_free(start_snap);
    if (!on) {
      rc = err_set(DELTA_EUNSUPPORTED, "change data feed is not enabled at version %lld", (long long)start);
      goto done;
    }
    if (rc) goto done;
  }
  s->ict = end_snap->ict_enabled;
  s->start = s->next_version = start;
  s->end = empty ? start - 1 : end;
  if ((rc = check_range_enabled(s, start, end_snap)) != 0)
    goto done;
  /* File times are monotonised from the oldest commit on, so walk the
   * listing's times (no reads) up to the start. */
  for (int64_t v = l->earliest_commit; v >= 0 && v < start; v++) {
    const log_entry *e = log_find_commit(l, v);
    if (!e) continue;
    int64_t ms = e->mtime_ms;
    if (s->prev_ms != INT64_MIN && ms <= s->prev_ms) ms = s->prev_ms + 1;
    s->prev_ms = ms;
  }
done:
  if (rc) {
    delta_snapshot_free(end_snap);
    source_free(s);
    return rc;
  }
  *src_out = s;
  *snap_out = end_snap;
  return 0;
}

/* The filter bound to [table columns][_change_type, _commit_version,
 * _commit_timestamp], for skip_commit. */
static int bind_version_filter(change_source *s, const delta_snapshot *end_snap, const char *filter) {
  struct ArrowSchema table;
  int rc;
  if ((rc = log_schema_to_arrow(end_snap->schema, &table)) != 0)
    return rc;
  int n = (int)table.n_children;
  if ((rc = arrow_schema_new(&s->wide, "+s", "", 0, n + 3)) != 0)
    goto done;
  for (int i = 0; i < n; i++)
    if ((rc = arrow_schema_copy(s->wide.children[i], table.children[i])) != 0)
      goto done;
  if ((rc = arrow_schema_new(s->wide.children[n], "u", "_change_type", 0, 0)) != 0)
    goto done;
  if ((rc = arrow_schema_new(s->wide.children[n + 1], "l", "_commit_version", 0, 0)) != 0)
    goto done;
  if ((rc = arrow_schema_new(s->wide.children[n + 2], "tsu:UTC", "_commit_timestamp", 0, 0)) != 0)
    goto done;
  if ((rc = expr_parse(filter, &s->pred)) != 0)
    goto done;
  if ((rc = expr_bind(s->pred, &s->wide)) != 0)
    goto done;
done:
  table.release(&table);
  s->n_table_columns = n;
  return rc;
}

int delta_changes_read(delta_table *t, const delta_changes_options *opts, struct ArrowArrayStream *out) {
  memset(out, 0, sizeof *out);
  change_source *s;
  delta_snapshot *end_snap;
  int rc = changes_open(t, opts, &s, &end_snap);
  if (rc) return rc;
  delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
  so.columns = opts->columns;
  so.n_columns = opts->n_columns;
  if (opts->version >= 2) {
    so.filter = opts->filter;
    so.metrics = opts->metrics;
  }
  if (so.filter) rc = bind_version_filter(s, end_snap, so.filter);
  if (rc) {
    source_free(s);
    delta_snapshot_free(end_snap);
    return rc;
  }
  scan_task_source src = {scan_source_next, scan_source_release, s, false};
  rc = scan_stream_new(end_snap, &so, src, true, out);
  delta_snapshot_free(end_snap); /* the stream holds its own reference */
  return rc;
}

struct delta_changes_plan {
  change_source *src;
  delta_buf values;            /* the current file's delta_partition_value array */
  delta_dv_descriptor dv, dv2;
};

int delta_changes_plan_open(delta_changes_plan **out, delta_table *t, const delta_changes_options *opts) {
  *out = NULL;
  delta_changes_plan *p = mem_calloc(1, sizeof *p);
  if (!p) return DELTA_NOMEM();
  delta_snapshot *end_snap;
  int rc = changes_open(t, opts, &p->src, &end_snap);
  if (rc) {
    mem_free(p);
    return rc;
  }
  delta_snapshot_free(end_snap); /* the plan only names files; the engine reads them */
  *out = p;
  return 0;
}

static const delta_dv_descriptor *dv_descriptor(const delta_dv *in, delta_dv_descriptor *out) {
  if (!in || !in->present) return NULL;
  *out = (delta_dv_descriptor){in->storage_type, in->path_or_inline, in->has_offset, in->offset,
                               in->size_in_bytes, in->cardinality};
  return out;
}

int delta_changes_plan_next(delta_changes_plan *p, delta_change_file *out) {
  memset(out, 0, sizeof *out);
  const change_file *f;
  int rc = source_next(p->src, &f);
  if (rc) return rc;
  const scan_task *t = &f->task;
  p->values.len = 0;
  for (int i = 0; i < t->n_partition_values; i++) {
    delta_partition_value v = {t->partition_values[i].key, t->partition_values[i].value};
    if ((rc = buf_append(&p->values, &v, sizeof v)) != 0)
      return rc;
  }
  out->version = t->version;
  out->timestamp_ms = t->timestamp_us / 1000;
  out->path = t->path;
  out->size = f->size;
  out->partition_values = (const delta_partition_value *)(const void *)p->values.data;
  out->n_partition_values = t->n_partition_values;
  out->rows = !t->change_type ? DELTA_CHANGE_ROWS_CDC : t->rows == ROWS_IN_DV ? DELTA_CHANGE_ROWS_DV_DIFF
                                                                            : DELTA_CHANGE_ROWS_LIVE;
  out->change_type = t->change_type;
  out->dv = dv_descriptor(t->dv, &p->dv);
  out->dv2 = dv_descriptor(t->dv2, &p->dv2);
  return 0;
}

int64_t delta_changes_plan_start_version(const delta_changes_plan *p) { return p->src->start; }
int64_t delta_changes_plan_end_version(const delta_changes_plan *p) { return p->src->end; }

void delta_changes_plan_free(delta_changes_plan *p) {
  if (!p) return;
  source_free(p->src);
  buf_dispose(&p->values);
  mem_free(p);
}
