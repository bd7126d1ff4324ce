/* The snapshot's insides, for the library's other layers (scan, CLI). */
#ifndef DELTAC_LOG_SNAPSHOT_H
#define DELTAC_LOG_SNAPSHOT_H

#include "deltac/storage.h"
#include "deltac/table.h"
#include "log/actions.h"
#include "log/arena.h"
#include "log/segment.h"
#include "log/table_schema.h"

struct delta_table {
  delta_storage *storage;
  char *location;
  /* The storage options the table was opened with (copies), for opening
   * other locations the log points to (absolute add/DV/cdc paths). */
  char **opt_keys, **opt_values;
  size_t n_opts;
};

/* Open storage for `location` (a URI outside the table root) with the
 * table's own storage options. *out belongs to the caller. */
int table_open_other_storage(const delta_table *t, const char *location, delta_storage **out);

struct delta_snapshot {
  _Atomic int refs;            /* 1 + snapshots updated from this one */
  struct delta_snapshot *base; /* the snapshot this one was updated from, or NULL */
  delta_table *table;
  int64_t version;
  int64_t timestamp_ms;
  log_listing listing;         /* of _delta_log when the snapshot was made: the whole log, or from
                                * the _last_checkpoint hint on (listing.listed_from) */
  int64_t cp_version;          /* checkpoint the replay started from, -1 for none */
  delta_arena arena;           /* every string below */
  delta_protocol protocol;
  delta_metadata metadata;
  delta_type *schema;
  delta_add *files;            /* live files, newest commits first, then the checkpoint's */
  delta_bigbuf files_mem;      /* holds `files` when not in the arena (freed with the snapshot) */
  int64_t n_files;
  delta_remove *tombstones;
  int64_t n_tombstones;
  delta_txn *txns;
  int n_txns;
  delta_domain_metadata *domains; /* without removed ones */
  int n_domains;
  const char *commit_info;     /* commitInfo of the snapshot version (raw JSON), or NULL */
  bool ict_enabled;            /* delta.enableInCommitTimestamps */
  bool stats_records_only;     /* checkpoint files kept only numRecords of their stats */
};

/* Replay `version` using only checkpoints at or below max_cp (-1: commits
 * only), falling back to older checkpoints when one cannot be read. The
 * snapshot does not take the listing (its own listing stays empty). */
int snapshot_load(delta_table *t, log_listing *listing, int64_t version, int64_t max_cp,
                        delta_snapshot **out);

/* delta_snapshot_open, where `whole_listing` makes the snapshot's listing
 * cover the whole log even for the latest version (for callers that show
 * history from it), instead of starting at the _last_checkpoint hint. */
int snapshot_open_listed(delta_snapshot **out, delta_table *t, const delta_snapshot_options *opts,
                               bool whole_listing);

/* Value of a metaData.configuration key, or NULL. */
const char *snapshot_config(const delta_snapshot *s, const char *key);

/* Timestamp of one commit: its in-commit timestamp when `use_ict`, else the
 * file's modification time. */
int snapshot_commit_timestamp(delta_table *t, const log_entry *commit, bool use_ict, int64_t *out_ms);

/* Reader features deltac supports, for `deltac --features`. NULL-terminated. */
extern const char *const delta_supported_reader_features[];
extern const char *const delta_known_writer_features[];

/* DELTA_EUNSUPPORTED naming every reader feature (or version) the table
 * needs that deltac does not support. */
int snapshot_protocol_check_read(const delta_protocol *p);

#endif
