/* deltac serve: each table's shared, incrementally refreshed snapshot.
 *
 * Every request that reads the latest version asks serve_table_snapshot,
 * which lists _delta_log and replays only the commits newer than the cached
 * snapshot (delta_snapshot_update). Requests share one snapshot by
 * reference count; a refresh never changes a snapshot a request holds. */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "deltac/error.h"
#include "log/snapshot.h"
#include "serve/serve.h"

/* Each incremental update keeps its base alive (they share memory), so the
 * chain grows by one snapshot per new version; a full replay every so often
 * bounds it. */
#define MAX_CHAIN 64

int64_t serve_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t serve_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int full_load(serve_table *t, delta_snapshot **out) {
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  /* History, summaries and the live tail read old commits from the listing. */
  return snapshot_open_listed(out, t->table, &so, true);
}

int serve_tables_open(serve_config *cfg) {
  for (int i = 0; i < cfg->n_tables; i++) {
    serve_table *t = &cfg->tables[i];
    if (delta_table_open_options(&t->table, t->location, (const char *const *)t->opt_keys,
                                 (const char *const *)t->opt_values, (size_t)t->n_opts)) {
      fprintf(stderr, "deltac: serve: table '%s': %s\n", t->name, delta_error_last());
      return 1;
    }
    pthread_mutex_init(&t->lock, NULL);
    t->opened = true;
    /* Load now so that a broken table fails at start, not on a request. */
    if (full_load(t, &t->snap)) {
      fprintf(stderr, "deltac: serve: table '%s': %s\n", t->name, delta_error_last());
      return 1;
    }
    t->refreshed_us = serve_now_us();
  }
  return 0;
}

void serve_tables_close(serve_config *cfg) {
  for (int i = 0; i < cfg->n_tables; i++) {
    serve_table *t = &cfg->tables[i];
    delta_snapshot_free(t->snap);
    t->snap = NULL;
    delta_table_free(t->table);
    t->table = NULL;
    if (t->opened) pthread_mutex_destroy(&t->lock);
    t->opened = false;
  }
}

/* With t->lock held: bring t->snap to the latest version. */
static int refresh_locked(serve_table *t) {
  t->refreshed_us = serve_now_us();
  delta_snapshot *next = NULL;
  int rc = t->chain >= MAX_CHAIN ? full_load(t, &next) : delta_snapshot_update(&next, t->snap);
  if (rc) return rc;
  if (next->version == t->snap->version && t->chain < MAX_CHAIN) {
    /* Nothing new: keep the old snapshot rather than lengthen the chain. */
    delta_snapshot_free(next);
    return 0;
  }
  t->chain = t->chain >= MAX_CHAIN ? 0 : t->chain + 1;
  delta_snapshot_free(t->snap);
  t->snap = next;
  return 0;
}

int serve_table_snapshot(serve_table *t, delta_snapshot **out) {
  int64_t arrived = serve_now_us();
  pthread_mutex_lock(&t->lock);
  /* A refresh that started after this request arrived has seen every commit
   * the request could expect to see: share its result. */
  int rc = t->refreshed_us >= arrived ? 0 : refresh_locked(t);
  if (!rc) {
    atomic_fetch_add(&t->snap->refs, 1);
    *out = t->snap;
  }
  pthread_mutex_unlock(&t->lock);
  return rc;
}

int serve_table_snapshot_at(serve_table *t, bool at_version, int64_t version, bool at_ts, int64_t ts_ms,
                            delta_snapshot **out) {
  if (!at_version && !at_ts) return serve_table_snapshot(t, out);
  delta_snapshot *latest;
  int rc = serve_table_snapshot(t, &latest);
  if (rc) return rc;
  if (at_version && version == latest->version) {
    *out = latest;
    return 0;
  }
  delta_snapshot_free(latest);
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  so.at_version = at_version;
  so.table_version = version;
  so.at_timestamp = at_ts;
  so.timestamp_ms = ts_ms;
  return delta_snapshot_open(out, t->table, &so);
}
