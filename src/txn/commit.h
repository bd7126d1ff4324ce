/*
 * The commit engine under txn_commit (txn.h): commitInfo first, then the
 * transaction's actions, published as the next version by the commit
 * coordinator (coordinator.h). When another writer got that
 * version first, its commit is read and checked against what this
 * transaction did (the spec's conflict rules, as Delta Spark applies them):
 *   - metaData or protocol in the winner: conflict (our data was written
 *     against the old schema/protocol);
 *   - the table was created by the winner while we created it: conflict;
 *   - a remove of a file we remove: conflict (concurrent delete);
 *   - an add while we read the table (overwrite): conflict (concurrent
 *     append into data we replace);
 *   - a txn for our app id with our version or newer: the work is done
 *     (result.skipped), nothing is committed;
 *   - anything else (blind appends): retry on the next version, with the
 *     in-commit timestamp moved past the winner's and, with row tracking,
 *     the row ids reassigned above the winner's high-water mark.
 */
#ifndef DELTAC_TXN_COMMIT_H
#define DELTAC_TXN_COMMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "deltac/table.h"
#include "txn/coordinator.h"
#include "util/buf.h"

typedef struct {
  delta_storage *storage;
  /* who publishes the version; NULL: put-if-absent on `storage` */
  const txn_coordinator *coordinator;
  int64_t read_version;        /* snapshot the transaction read; -1 for a new table */
  int64_t read_timestamp_ms;   /* its commit timestamp (ICT when enabled) */
  bool ict;                    /* in-commit timestamps on (after this commit) */
  const char *operation;       /* "WRITE", "CREATE TABLE", ... */
  const char *params_json;     /* operationParameters object */
  const char *metrics_json;    /* operationMetrics object, or NULL */
  bool blind_append;           /* only adds, nothing read */
  bool reads_table;            /* overwrite: concurrent adds conflict */
  bool changes_metadata;       /* informational: our commit has metaData/protocol */
  const char *const *removed;  /* paths of files this transaction removes */
  int64_t n_removed;
  const char *app_id;          /* NULL: none */
  int64_t app_version;
  const char *actions;         /* NDJSON lines, each ending in '\n' */
  size_t actions_len;
  int max_attempts;
  /* For the post-commit hooks (txn.h; the checksum of crc_write.h): the
   * snapshot the transaction read, or for a new table the table. */
  const struct delta_snapshot *read_snapshot;
  delta_table *table;
  /* rowTracking supported: adds get baseRowId/defaultRowCommitVersion and
   * the commit the new high-water mark (row_tracking.h) */
  bool row_tracking;
  int64_t row_id_high_water_mark; /* of the snapshot read; -1: none yet */
  /* row tracking enabled: commitInfo.tags["delta.rowTracking.preserved"]
   * says whether every copied or updated row kept its stable id */
  bool row_tracking_enabled;
  bool row_ids_not_preserved;
} commit_request;

struct delta_snapshot;
/* Set req's row tracking fields from the snapshot read (nothing when the
 * table does not support row tracking). */
void commit_row_tracking_from(commit_request *req, const struct delta_snapshot *s);

typedef struct {
  int64_t version;
  bool skipped;
  int attempts;
} commit_outcome;

/* Publish the commit, retrying past winners that do not conflict.
 * DELTA_ECONFLICT when one does (or after max_attempts lost races). Runs no
 * post-commit step: those are txn_commit's hooks (txn.h). */
int commit_run(const commit_request *req, commit_outcome *out);

int64_t write_now_ms(void);

#endif
