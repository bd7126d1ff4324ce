/*
 * Row tracking (writer side): every add a commit makes gets fresh row ids
 * (baseRowId, numRecords of them above the table's high-water mark) and
 * defaultRowCommitVersion = the commit's version, and the commit records the
 * new high-water mark in the `delta.rowTracking` domain. This is done on the
 * finished action text at commit time (commit.c), so that every writer
 * (write, DML, OPTIMIZE) gets it and an optimistic-concurrency retry can
 * reassign ids above the winner's mark. Adds that already carry a baseRowId
 * (a DV-only change re-adding a file) keep theirs.
 *
 * Rows copied from an existing file keep their stable ids through the
 * hidden materialized columns named by the table's configuration
 * (row_tracking_write_schema); the scan exposes _row_id/_row_commit_version.
 */
#ifndef DELTAC_TXN_ROW_TRACKING_H
#define DELTAC_TXN_ROW_TRACKING_H

#include <stdbool.h>
#include <stdint.h>

#include "log/actions.h"
#include "log/table_schema.h"
#include "util/buf.h"

#define ROW_TRACKING_DOMAIN "delta.rowTracking"
#define ROW_TRACKING_ID_COL_KEY "delta.rowTracking.materializedRowIdColumnName"
#define ROW_TRACKING_VERSION_COL_KEY "delta.rowTracking.materializedRowCommitVersionColumnName"

struct delta_snapshot;

/* `rowTracking` in the writer features: adds must carry row ids. */
bool row_tracking_supported(const delta_protocol *p);
/* Supported, delta.enableRowTracking true and not suspended: stable ids
 * must be preserved (materialized columns). */
bool row_tracking_enabled(const delta_protocol *p, const delta_metadata *m);
/* The rowIdHighWaterMark of a delta.rowTracking domain configuration; -1
 * when there is none (no id assigned yet). */
int64_t row_tracking_hwm_of(const char *configuration);
int64_t row_tracking_hwm(const delta_domain_metadata *domains, int n);
/* The mark new ids of a commit on snapshot s go above: the domain's, or
 * higher when a live file's ids reach past it. */
int64_t row_tracking_snapshot_hwm(const struct delta_snapshot *s);

/* Copy `actions` (NDJSON) to `out`, giving every add without baseRowId
 * fresh ids above *hwm and every add without defaultRowCommitVersion
 * `version`; *hwm is moved up and, when it moved, a domainMetadata line for
 * delta.rowTracking is appended. DELTA_EINVAL for an add without
 * numRecords. */
int row_tracking_stamp(const char *actions, size_t len, int64_t version, int64_t *hwm, delta_buf *out);

/* The schema rewritten rows are written with: the table's and the two
 * materialized columns (long, nullable) at the end. */
int row_tracking_write_schema(const delta_type *table, const delta_metadata *m, delta_type **out);

/* The configuration keys a new table with delta.enableRowTracking gets:
 * fresh materialized column names (into the given 64-byte buffers). */
void row_tracking_new_column_names(char id_col[64], char version_col[64]);

#endif
