/*
 * Delta tables and their snapshots.
 *
 *   delta_table *t;  delta_snapshot *s;
 *   delta_table_open(&t, "/data/events");            // path or file:// URI
 *   delta_snapshot_open(&s, t, NULL);                 // latest version
 *   printf("%lld\n", (long long)delta_snapshot_version(s));
 *   delta_snapshot_free(s); delta_table_free(t);
 *
 * A snapshot is immutable and may be shared by threads. The table must
 * outlive its snapshots.
 */
#ifndef DELTAC_TABLE_H
#define DELTAC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct delta_table delta_table;
typedef struct delta_snapshot delta_snapshot;

/* Open the table at `location` (a path, file://, s3://, ...; see
 * delta_storage_open). Reads nothing yet. */
int delta_table_open(delta_table **out, const char *location);
/* The same with storage options (credentials, endpoint, timeouts: the keys
 * of delta_storage_open_options). The table keeps a copy of the options and
 * uses them for every location it reaches, including absolute paths in the
 * log that point outside the table root. */
int delta_table_open_options(delta_table **out, const char *location, const char *const *keys,
                             const char *const *values, size_t n);
/* A table on an embedder's own storage. The table takes ownership of
 * `storage` on success (freed with the table); on failure the caller keeps
 * it. Absolute paths outside the root are opened with delta_storage_open. */
struct delta_storage;
int delta_table_open_storage(delta_table **out, struct delta_storage *storage);
void delta_table_free(delta_table *t);
/* The table root as a URI. */
const char *delta_table_location(const delta_table *t);
/* The table's storage handle (borrowed: valid as long as the table), e.g.
 * for delta_storage_stats_get. */
struct delta_storage *delta_table_storage(const delta_table *t);

#define DELTA_SNAPSHOT_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;      /* DELTA_SNAPSHOT_OPTIONS_VERSION */
  bool at_version;           /* time travel to table_version */
  int64_t table_version;
  bool at_timestamp;         /* time travel to the latest version committed at or before */
  int64_t timestamp_ms;      /* ms since the epoch (UTC) */
  /* Keep only each file's record count from the statistics in checkpoints,
   * not the statistics themselves: much less memory for callers that do
   * not prune files on column values (listings, counts). */
  bool stats_records_only;
} delta_snapshot_options;
#define DELTA_SNAPSHOT_OPTIONS_INIT {DELTA_SNAPSHOT_OPTIONS_VERSION, false, 0, false, 0, false}

/* Replays the log. Errors: DELTA_ENOTFOUND (no table, no such version, a
 * timestamp outside the history), DELTA_EUNSUPPORTED (a reader feature deltac
 * lacks; the message names it), DELTA_ECORRUPT (a broken log). */
int delta_snapshot_open(delta_snapshot **out, delta_table *t, const delta_snapshot_options *opts);
/* Bring a snapshot to the latest version, reading only the new commits
 * (falls back to a full replay when a newer checkpoint makes that cheaper).
 * *out is a new snapshot; `s` stays valid. */
int delta_snapshot_update(delta_snapshot **out, const delta_snapshot *s);
void delta_snapshot_free(delta_snapshot *s);

int64_t delta_snapshot_version(const delta_snapshot *s);
/* Commit timestamp of the snapshot's version (in-commit timestamp when
 * enabled, else the commit file's modification time). */
int64_t delta_snapshot_timestamp_ms(const delta_snapshot *s);
int64_t delta_snapshot_num_files(const delta_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif
