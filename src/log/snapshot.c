/* Tables, snapshots, time travel. */
#include "log/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdatomic.h>

#include "json/json.h"
#include "log/crc.h"
#include "log/last_checkpoint.h"
#include "log/replay.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

static void free_strings(char **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) mem_free(v[i]);
  mem_free(v);
}

static int copy_strings(char ***out, const char *const *v, size_t n) {
  *out = NULL;
  if (!n) return 0;
  char **c = mem_calloc(n, sizeof *c);
  if (!c) return DELTA_NOMEM();
  for (size_t i = 0; i < n; i++)
    if (!(c[i] = mem_strdup(v[i] ? v[i] : ""))) {
      free_strings(c, n);
      return DELTA_NOMEM();
    }
  *out = c;
  return 0;
}

/* A table around an open storage (owned from here on only on success). */
static int table_new(delta_table **out, delta_storage *storage) {
  delta_table *t = mem_calloc(1, sizeof *t);
  if (!t) return DELTA_NOMEM();
  if (!(t->location = mem_strdup(delta_storage_location(storage)))) {
    mem_free(t);
    return DELTA_NOMEM();
  }
  t->storage = storage;
  *out = t;
  return 0;
}

int delta_table_open_options(delta_table **out, const char *location, const char *const *keys,
                             const char *const *values, size_t n) {
  if (!out) return err_set(DELTA_EINVAL, "delta_table_open: NULL out");
  *out = NULL;
  delta_storage *st = NULL;
  delta_table *t = NULL;
  int rc;
  if ((rc = delta_storage_open_options(&st, location, keys, values, n)) != 0) goto fail;
  if ((rc = table_new(&t, st)) != 0) goto fail;
  st = NULL;
  if ((rc = copy_strings(&t->opt_keys, keys, n)) != 0) goto fail;
  if ((rc = copy_strings(&t->opt_values, values, n)) != 0) goto fail;
  t->n_opts = n;
  *out = t;
  return 0;
fail:
  delta_storage_free(st);
  delta_table_free(t);
  return rc;
}

int delta_table_open(delta_table **out, const char *location) {
  return delta_table_open_options(out, location, NULL, NULL, 0);
}

int delta_table_open_storage(delta_table **out, delta_storage *storage) {
  if (!out || !storage) return err_set(DELTA_EINVAL, "delta_table_open_storage: NULL argument");
  *out = NULL;
  return table_new(out, storage);
}

int table_open_other_storage(const delta_table *t, const char *location, delta_storage **out) {
  return delta_storage_open_options(out, location, (const char *const *)t->opt_keys,
                                    (const char *const *)t->opt_values, t->n_opts);
}

void delta_table_free(delta_table *t) {
  if (!t) return;
  delta_storage_free(t->storage);
  free_strings(t->opt_keys, t->n_opts);
  /* values may hold secrets: wipe before freeing */
  for (size_t i = 0; t->opt_values && i < t->n_opts; i++)
    if (t->opt_values[i]) explicit_bzero(t->opt_values[i], strlen(t->opt_values[i]));
  free_strings(t->opt_values, t->n_opts);
  mem_free(t->location);
  mem_free(t);
}

const char *delta_table_location(const delta_table *t) { return t->location; }

delta_storage *delta_table_storage(const delta_table *t) { return t ? t->storage : NULL; }

void delta_snapshot_free(delta_snapshot *s) {
  /* Snapshots made by delta_snapshot_update share memory with their base,
   * which therefore lives until the last of them is freed. */
  if (!s || atomic_fetch_sub(&s->refs, 1) > 1) return;
  delta_snapshot_free(s->base);
  log_type_free(s->schema);
  log_listing_dispose(&s->listing);
  log_arena_dispose(&s->arena);
  log_bigbuf_dispose(&s->files_mem);
  mem_free(s);
}

int64_t delta_snapshot_version(const delta_snapshot *s) { return s->version; }
int64_t delta_snapshot_timestamp_ms(const delta_snapshot *s) { return s->timestamp_ms; }
int64_t delta_snapshot_num_files(const delta_snapshot *s) { return s->n_files; }

const char *snapshot_config(const delta_snapshot *s, const char *key) {
  for (int i = 0; i < s->metadata.n_configuration; i++)
    if (strcmp(s->metadata.configuration[i].key, key) == 0) return s->metadata.configuration[i].value;
  return NULL;
}

static bool config_true(const delta_snapshot *s, const char *key) {
  const char *v = snapshot_config(s, key);
  return v && strcasecmp(v, "true") == 0;
}

/* The in-commit timestamp: commitInfo.inCommitTimestamp of the commit's
 * first action. */
static int read_ict(delta_table *t, const log_entry *e, int64_t *out) {
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%s", e->name);
  delta_buf text = DELTA_BUF_INIT;
  delta_json_doc *doc = NULL;
  int rc;
  if ((rc = storage_read_all(t->storage, key, &text)) != 0) goto done;
  if ((rc = json_doc_new(&doc)) != 0) goto done;
  const char *p = (const char *)text.data;
  const char *nl = memchr(p, '\n', text.len);
  size_t len = nl ? (size_t)(nl - p) : text.len;
  if ((rc = json_parse(doc, p, len)) != 0) goto done;
  delta_json_val ts = json_get(json_get(json_root(doc), "commitInfo"), "inCommitTimestamp");
  if (json_typeof(ts) != DELTA_JSON_NUMBER) {
    rc = err_set(DELTA_ECORRUPT, "%s: in-commit timestamps are enabled but the first action has none",
                         e->name);
    goto done;
  }
  rc = json_int64(ts, out);
done:
  json_doc_free(doc);
  buf_dispose(&text);
  return rc;
}

int snapshot_commit_timestamp(delta_table *t, const log_entry *commit, bool use_ict, int64_t *out_ms) {
  if (use_ict) return read_ict(t, commit, out_ms);
  *out_ms = commit->mtime_ms;
  return 0;
}

/* Replay `version` from the listing, falling back to older checkpoints when
 * the newest one cannot be read. */
static int finish(delta_table *t, log_listing *listing, delta_snapshot *s);

static int load_mode(delta_table *t, log_listing *listing, int64_t version, int64_t max_cp_in, bool records_only,
                     delta_snapshot **out);

int snapshot_load(delta_table *t, log_listing *listing, int64_t version, int64_t max_cp_in,
                        delta_snapshot **out) {
  return load_mode(t, listing, version, max_cp_in, false, out);
}

static int load_mode(delta_table *t, log_listing *listing, int64_t version, int64_t max_cp_in, bool records_only,
                     delta_snapshot **out) {
  delta_snapshot *s = mem_calloc(1, sizeof *s);
  if (!s) return DELTA_NOMEM();
  s->refs = 1;
  s->stats_records_only = records_only;
  s->table = t;
  s->version = version;
  int64_t max_cp = max_cp_in;
  int rc;
  bool compactions = true; /* until a compaction file fails to read */
  for (;;) {
    log_segment seg;
    rc = log_segment_build(listing, version, max_cp, &seg);
    if (rc) break;
    int used_compactions = compactions ? log_segment_use_compactions(listing, &seg) : 0;
    int failed_cp = 0;
    log_arena_dispose(&s->arena);
    log_bigbuf_dispose(&s->files_mem);
    s->files = NULL;
    s->n_files = 0;
    memset(&s->protocol, 0, sizeof s->protocol);
    memset(&s->metadata, 0, sizeof s->metadata);
    s->commit_info = NULL;
    rc = log_replay(s, &seg, &failed_cp);
    s->cp_version = seg.cp_version;
    int64_t cp = seg.cp_version;
    /* A commit file for the version gives its timestamp; a checkpoint-only
     * version takes the checkpoint file's. */
    const log_entry *c = log_find_commit(listing, version);
    s->timestamp_ms = c ? c->mtime_ms : (seg.n_cp ? seg.cp_files[0]->mtime_ms : 0);
    log_segment_dispose(&seg);
    if (rc && !failed_cp && used_compactions) {
      compactions = false; /* an optional file that is broken: replay the commits it stands for */
      continue;
    }
    if (rc && failed_cp && (rc == DELTA_ECORRUPT || rc == DELTA_ENOTFOUND)) {
      max_cp = cp - 1; /* a broken or half-written checkpoint: try an older one or the commits */
      continue;
    }
    break;
  }
  /* rc: the last attempt's, after the retries above */
  if (rc || (rc = finish(t, listing, s)) != 0) {
    delta_snapshot_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

/* What every replayed snapshot needs after its actions: the protocol check,
 * the parsed schema and the commit timestamp. */
static int finish(delta_table *t, log_listing *listing, delta_snapshot *s) {
  int64_t version = s->version;
  int rc;
  if ((rc = snapshot_protocol_check_read(&s->protocol)) != 0) return rc;
  if (!s->metadata.schema_string) s->metadata.schema_string = "{\"type\":\"struct\",\"fields\":[]}";
  if ((rc = log_schema_parse(s->metadata.schema_string, strlen(s->metadata.schema_string), &s->schema)) != 0) {
    err_prefix("metaData.schemaString");
    return rc;
  }
  s->ict_enabled = config_true(s, "delta.enableInCommitTimestamps");
  const log_entry *c = log_find_commit(listing, version);
  if (s->ict_enabled && c) {
    const char *ev = snapshot_config(s, "delta.inCommitTimestampEnablementVersion");
    if (!ev || strtoll(ev, NULL, 10) <= version) return read_ict(t, c, &s->timestamp_ms);
  }
  return 0;
}

/* Timestamps of commits lo..hi by modification time, made strictly
 * increasing the way Delta does (a commit never predates the one before). */
static int mtime_search(const log_listing *l, int64_t lo, int64_t hi, int64_t ts, int64_t *found) {
  int64_t prev = INT64_MIN, best = -1;
  for (int64_t v = lo; v <= hi; v++) {
    const log_entry *e = log_find_commit(l, v);
    if (!e) continue;
    int64_t t = e->mtime_ms;
    if (prev != INT64_MIN && t <= prev) t = prev + 1;
    prev = t;
    if (t <= ts) best = v;
    else break;
  }
  *found = best;
  return 0;
}

/* What time travel needs of the latest version: its in-commit timestamp
 * settings and its commit time. */
typedef struct {
  bool ict_enabled;
  int64_t ict_version, ict_timestamp; /* enablement; -1 / INT64_MIN when not set */
  int64_t timestamp_ms;
} latest_times;

static const char *kv_get(const delta_kv *kv, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (strcmp(kv[i].key, key) == 0) return kv[i].value;
  return NULL;
}

static void times_from_config(const delta_kv *kv, int n, latest_times *lt) {
  const char *on = kv_get(kv, n, "delta.enableInCommitTimestamps");
  const char *ev = kv_get(kv, n, "delta.inCommitTimestampEnablementVersion");
  const char *et = kv_get(kv, n, "delta.inCommitTimestampEnablementTimestamp");
  lt->ict_enabled = on && strcasecmp(on, "true") == 0;
  lt->ict_version = ev ? strtoll(ev, NULL, 10) : -1;
  lt->ict_timestamp = et ? strtoll(et, NULL, 10) : INT64_MIN;
}

/* From the latest version's checksum file when it has the metadata (one
 * small read), else by replaying the latest version. */
static int latest_times_of(delta_table *t, log_listing *l, latest_times *lt) {
  const log_entry *c = log_find_commit(l, l->latest);
  delta_arena arena = {0};
  log_crc crc;
  int rc = 0;
  if (c && log_crc_read(t->storage, l, l->latest, &arena, &crc) == 0 && crc.has_metadata) {
    times_from_config(crc.metadata.configuration, crc.metadata.n_configuration, lt);
    bool ict_now = lt->ict_enabled && (lt->ict_version < 0 || lt->ict_version <= l->latest);
    if (!ict_now) lt->timestamp_ms = c->mtime_ms;
    else if (crc.has_ict) lt->timestamp_ms = crc.ict_ms;
    else rc = read_ict(t, c, &lt->timestamp_ms);
    log_arena_dispose(&arena);
    return rc;
  }
  log_arena_dispose(&arena);
  delta_error_clear(); /* no usable checksum file: replay instead */
  delta_snapshot *latest = NULL;
  /* Only its configuration and commit time are needed. */
  if ((rc = load_mode(t, l, l->latest, INT64_MAX, true, &latest)) != 0) return rc;
  times_from_config(latest->metadata.configuration, latest->metadata.n_configuration, lt);
  lt->timestamp_ms = latest->timestamp_ms;
  delta_snapshot_free(latest);
  return 0;
}

static int version_at(delta_table *t, log_listing *l, int64_t ts, int64_t *out) {
  latest_times latest;
  int rc = latest_times_of(t, l, &latest);
  if (rc) return rc;
  int64_t earliest = l->earliest_commit > 0 ? l->earliest_commit : 0;
  int64_t ict_from = -1, ict_ts = INT64_MIN;
  if (latest.ict_enabled) {
    ict_from = latest.ict_version >= 0 ? latest.ict_version : earliest;
    ict_ts = latest.ict_timestamp;
    if (ict_from < earliest) ict_from = earliest;
  }
  int64_t found = -1;
  char a[40], b[40];
  if (ict_from >= 0 && (ict_ts == INT64_MIN || ts >= ict_ts)) {
    /* Binary search over in-commit timestamps, which only grow. */
    int64_t lo = ict_from, hi = l->latest;
    while (lo <= hi) {
      int64_t mid = lo + (hi - lo) / 2, mts;
      const log_entry *e = log_find_commit(l, mid);
      if (!e) return err_set(DELTA_ECORRUPT, "commit %lld is missing", (long long)mid);
      if ((rc = read_ict(t, e, &mts)) != 0) return rc;
      if (mts <= ts) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0 && ict_ts != INT64_MIN && ict_from > earliest)
      mtime_search(l, earliest, ict_from - 1, ts, &found);
  } else {
    mtime_search(l, earliest, ict_from >= 0 ? ict_from - 1 : l->latest, ts, &found);
  }
  if (found < 0) {
    const log_entry *e = log_find_commit(l, earliest);
    time_format_ms(ts, a);
    time_format_ms(e ? e->mtime_ms : 0, b);
    return err_set(DELTA_ENOTFOUND,
                           "timestamp %s is before the earliest available version %lld (committed at %s)", a,
                           (long long)earliest, b);
  }
  /* After the last commit: Spark refuses rather than silently reading the latest. */
  if (found == l->latest && ts > latest.timestamp_ms) {
    time_format_ms(ts, a);
    time_format_ms(latest.timestamp_ms, b);
    return err_set(DELTA_ENOTFOUND, "timestamp %s is after the latest version %lld (committed at %s)", a,
                           (long long)l->latest, b);
  }
  *out = found;
  return 0;
}

/* The latest snapshot listed from the _last_checkpoint hint; non-zero (and
 * no error kept) when the hint is absent or does not hold, so that the
 * caller lists the whole log: a stale, corrupt or half-written checkpoint
 * never makes the table unreadable. */
static int open_hinted(delta_table *t, bool records_only, delta_snapshot **out) {
  int64_t hint = log_last_checkpoint_hint(t->storage);
  if (hint <= 0) return -1;
  log_listing l;
  if (log_list_from(t->storage, hint, &l) != 0) {
    delta_error_clear();
    return -1;
  }
  delta_snapshot *s = NULL;
  if (load_mode(t, &l, l.latest, INT64_MAX, records_only, &s) != 0 || s->cp_version < hint) {
    delta_snapshot_free(s);
    log_listing_dispose(&l);
    delta_error_clear();
    return -1;
  }
  s->listing = l;
  *out = s;
  return 0;
}

int snapshot_open_listed(delta_snapshot **out, delta_table *t, const delta_snapshot_options *opts,
                               bool whole_listing) {
  *out = NULL;
  delta_snapshot_options defaults = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (!opts) opts = &defaults;
  if (opts->version != DELTA_SNAPSHOT_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "snapshot options: unknown version %u", opts->version);
  if (opts->at_version && opts->at_timestamp)
    return err_set(DELTA_EINVAL, "give a version or a timestamp, not both");
  if (!opts->at_version && !opts->at_timestamp && !whole_listing &&
      open_hinted(t, opts->stats_records_only, out) == 0)
    return 0;
  log_listing l;
  int rc = log_list(t->storage, &l);
  if (rc) return rc;
  int64_t version = l.latest;
  if (opts->at_version) version = opts->table_version;
  delta_snapshot *s = NULL;
  if (opts->at_timestamp && (rc = version_at(t, &l, opts->timestamp_ms, &version)) != 0) goto fail;
  if ((rc = load_mode(t, &l, version, INT64_MAX, opts->stats_records_only, &s)) != 0) goto fail;
  s->listing = l;
  *out = s;
  return 0;
fail:
  log_listing_dispose(&l);
  return rc;
}

int delta_snapshot_open(delta_snapshot **out, delta_table *t, const delta_snapshot_options *opts) {
  return snapshot_open_listed(out, t, opts, false);
}

int delta_snapshot_update(delta_snapshot **out, const delta_snapshot *old) {
  *out = NULL;
  log_listing l;
  int rc = log_list_refresh(old->table->storage, &old->listing, &l);
  if (rc) return rc;
  delta_snapshot *s = NULL;
  log_segment seg;
  rc = log_segment_build(&l, l.latest, INT64_MAX, &seg);
  if (rc) goto fail;
  if (seg.cp_version > old->version || l.latest < old->version) {
    /* A newer checkpoint than our version (or a table that went back in
     * time, e.g. recreated): a fresh replay is the right thing. */
    log_segment_dispose(&seg);
    rc = load_mode(old->table, &l, l.latest, INT64_MAX, old->stats_records_only, &s);
    if (rc) goto fail;
  } else {
    /* Only the commits after the old version are read; the old snapshot's
     * reconciled state takes the checkpoint's place. */
    int skip = 0;
    while (skip < seg.n_commits && seg.commits[skip]->info.version <= old->version) skip++;
    log_segment tail = seg;
    tail.commits = seg.commits + skip;
    tail.n_commits = seg.n_commits - skip;
    tail.n_cp = 0;
    s = mem_calloc(1, sizeof *s);
    if (!s) {
      log_segment_dispose(&seg);
      rc = DELTA_NOMEM();
      goto fail;
    }
    s->refs = 1;
    s->table = old->table;
    s->version = l.latest;
    s->cp_version = old->cp_version;
    s->stats_records_only = old->stats_records_only;
    s->base = (delta_snapshot *)old;
    atomic_fetch_add(&s->base->refs, 1);
    rc = log_replay_incremental(s, old, &tail);
    log_segment_dispose(&seg);
    if (rc) goto fail;
    const log_entry *c = log_find_commit(&l, l.latest);
    s->timestamp_ms = c ? c->mtime_ms : old->timestamp_ms;
    if ((rc = finish(old->table, &l, s)) != 0) goto fail;
  }
  s->listing = l;
  *out = s;
  return 0;
fail:
  delta_snapshot_free(s);
  log_listing_dispose(&l);
  return rc;
}
