/*
 * Table maintenance: OPTIMIZE (bin-packing and Z-order), VACUUM, RESTORE
 * and expired-log cleanup.
 *
 *   delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
 *   delta_optimize_result r;
 *   delta_table *t;
 *   if (delta_table_open(&t, "/data/events") != 0 || delta_optimize(t, &o, &r) != 0)
 *     puts(delta_error_last());
 *   delta_table_free(t);
 *
 * Each operation takes a table the caller opened and still owns afterwards
 * (see include/deltac/table.h for the ways to open one).
 * The library prints nothing; long operations report through a progress
 * callback (the CLI draws a bar on a terminal).
 */
#ifndef DELTAC_MAINTENANCE_H
#define DELTAC_MAINTENANCE_H

#include <stdbool.h>
#include <stdint.h>
#include "deltac/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a long operation stands: `phase` names the step ("read", "write",
 * "delete"); totals are known up front, done counts grow. */
typedef struct {
  const char *phase;
  int64_t files_done, files_total;
  int64_t bytes_done, bytes_total;
} delta_progress;
typedef void (*delta_progress_cb)(void *ctx, const delta_progress *p);

/*
 * OPTIMIZE: per partition, the files smaller than the target size, and
 * every file with a deletion vector (its deleted rows are purged), are
 * read and written again as few files of about the target size, in one
 * commit with dataChange=false on every add and remove (readers of the
 * change feed see nothing). A partition with a single small file and no DV
 * is left alone. `where` selects files, never splits them: a file is
 * optimized when its partition values and statistics may satisfy the
 * predicate (exact when it uses partition columns only).
 *
 * With zorder_by, every selected file of a partition (whatever its size)
 * is rewritten: the rows are ranked on each column, the ranks' bits
 * interleaved (the Z-order curve) and the rows range-partitioned along the
 * curve into files of about the target size, so that each file covers a
 * small box of the columns' values and filters on them skip more files.
 * The rows of a partition are held in memory while it is Z-ordered.
 *
 * On a clustered table (writer feature `clustering`) the Z-order columns
 * are the clustering columns (zorder_by must be empty: DELTA_EINVAL), the
 * new files carry clusteringProvider "liquid", and nothing is done while
 * every selected file is already clustered and has no DV. With row
 * tracking the rows keep their ids (materialized columns).
 *
 * Conflicts: a concurrent commit that removed (or gave a new DV to) a file
 * this one compacts is DELTA_ECONFLICT; concurrent appends are retried.
 */
#define DELTA_OPTIMIZE_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;          /* DELTA_OPTIMIZE_OPTIONS_VERSION */
  const char *where;             /* NULL: the whole table */
  int64_t target_file_size;      /* bytes; 0: delta.targetFileSize or 128 MiB */
  const char *const *zorder_by;  /* column names (not partition columns); NULL: bin-packing */
  int n_zorder_by;
  int max_attempts;              /* commit attempts against racing appenders; 0: 1000 */
  int64_t read_version;          /* the snapshot to optimize; -1: the latest (an older one makes
                                  * the commit race everything after it, e.g. in tests) */
  delta_progress_cb progress;    /* may be NULL */
  void *progress_ctx;
} delta_optimize_options;
#define DELTA_OPTIMIZE_OPTIONS_INIT {DELTA_OPTIMIZE_OPTIONS_VERSION, NULL, 0, NULL, 0, 0, -1, NULL, NULL}

typedef struct {
  int64_t version;               /* committed; the table's when nothing needed doing */
  bool noop;
  int64_t files_considered;      /* live files */
  int64_t files_removed, files_added;
  int64_t bytes_removed, bytes_added;
  int64_t partitions_optimized;
  int64_t dvs_purged;            /* files whose deletion vector was applied */
  int64_t rows_written;
} delta_optimize_result;

int delta_optimize(delta_table *table, const delta_optimize_options *opts, delta_optimize_result *result);

/*
 * VACUUM: delete the files under the table directory that no version
 * within the retention window needs: neither a live file (or its DV file)
 * nor a file (or DV) removed less than `retain` ago, and last modified
 * before the window. Covers data files in partition directories, DV files
 * and _change_data/ files; never _delta_log, nor other names starting with
 * '_' or '.' (other than partition directories of such columns). A
 * retention below the table's delta.deletedFileRetentionDuration (default
 * 168 hours) is refused (DELTA_EINVAL) unless `force`. Unless a dry run
 * or no_log_commits, the vacuum is logged as Delta Spark does on file
 * systems: a "VACUUM START" commit before deleting (files and bytes to
 * delete) and a "VACUUM END" commit after (files deleted); both hold only
 * commitInfo, so they never conflict with anything.
 *
 * Directories (partition directories, _change_data/, DV prefix
 * directories) left empty by the deletions are then removed, deepest first:
 * only those holding nothing but deleted files and such directories (a
 * hidden or kept file keeps its directory), last modified before the cutoff
 * (a writer may be about to put a file in a younger one), never the table
 * root or _delta_log. As in Delta Spark, the logged numDeletedFiles counts
 * them with the files, and numVacuumedDirectories is the number of
 * directories listed (the root included). A store without directories
 * (remove_dir NULL) has none to remove. Options version 1 callers get no
 * directories reported (on_file, dirs_deleted).
 */
/*
 * LITE (options version 3, `lite`): the candidates are only the data and
 * DV files that remove actions older than the cutoff name, found in the
 * log (every commit still in _delta_log, and the snapshot's tombstones)
 * instead of by listing the table directory, as Delta Spark's VACUUM LITE.
 * Much cheaper on object stores and huge tables; files the log no longer
 * mentions (removes in commits already cleaned up, files never committed,
 * _change_data files) and empty directories are left for a full vacuum.
 * result->first_commit says how far back the log went.
 */
#define DELTA_VACUUM_OPTIONS_VERSION 3
typedef struct {
  unsigned int version;          /* DELTA_VACUUM_OPTIONS_VERSION (1: no directory reports) */
  double retain_hours;           /* < 0: the table's delta.deletedFileRetentionDuration */
  bool dry_run;                  /* only report what would be deleted */
  bool force;                    /* allow a retention below the table's */
  /* Called for every file deleted (or, dry run, to delete); key relative to
   * the table root. Then (version 2) for every directory removed (or, dry
   * run, to remove), with its key ending in '/' and size 0. Non-zero stops
   * the vacuum with that code. May be NULL. */
  int (*on_file)(void *ctx, const char *key, int64_t size);
  void *on_file_ctx;
  delta_progress_cb progress;
  void *progress_ctx;
  bool no_log_commits;           /* skip the VACUUM START / VACUUM END commits */
  bool lite;                     /* (version 3) candidates from the log only, no listing */
} delta_vacuum_options;
#define DELTA_VACUUM_OPTIONS_INIT {DELTA_VACUUM_OPTIONS_VERSION, -1, false, false, NULL, NULL, NULL, NULL, false, false}

typedef struct {
  int64_t files_deleted;         /* or, dry run, to delete */
  int64_t bytes_deleted;
  int64_t files_kept;            /* files listed and kept */
  int64_t cutoff_ms;             /* files older than this (ms since the epoch) were candidates */
  int64_t start_version, end_version; /* the VACUUM START / END commits; -1: none */
  int64_t dirs_deleted;          /* (version 2) empty directories removed (or, dry run, to remove) */
  int64_t first_commit;          /* (version 3, lite) the oldest commit read; -1: none */
} delta_vacuum_result;

int delta_vacuum(delta_table *table, const delta_vacuum_options *opts, delta_vacuum_result *result);

/*
 * RESTORE: one commit (operation "RESTORE") that makes the live files
 * those of an older version: its files missing now are added back
 * (dataChange=true, with their stats and DVs), files it did not have are
 * removed, and its metaData is written when it differs. Refused
 * (DELTA_ENOTFOUND naming the file) when a file it needs was vacuumed.
 */
#define DELTA_RESTORE_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;          /* DELTA_RESTORE_OPTIONS_VERSION */
  bool at_timestamp;             /* restore the version at timestamp_ms, else table_version */
  int64_t table_version;
  int64_t timestamp_ms;
  int max_attempts;
} delta_restore_options;
#define DELTA_RESTORE_OPTIONS_INIT {DELTA_RESTORE_OPTIONS_VERSION, false, 0, 0, 0}

typedef struct {
  int64_t version;               /* the RESTORE commit */
  int64_t restored_version;
  int64_t files_restored, files_removed;
  int64_t bytes_restored, bytes_removed;
  int64_t files_after, bytes_after;
} delta_restore_result;

int delta_restore(delta_table *table, const delta_restore_options *opts, delta_restore_result *result);

/*
 * Expired-log cleanup: delete the commit, checkpoint, checksum and
 * compaction files of versions before the newest checkpoint whose version
 * and every older log file are older than delta.logRetentionDuration
 * (default 30 days), so that every version from that checkpoint on stays
 * readable and nothing is deleted when no such checkpoint exists. Then V2
 * checkpoint sidecars (_delta_log/_sidecars) that no remaining checkpoint
 * references and that were last modified before both a day before
 * midnight UTC and the retention cutoff; they are reported and counted
 * with the log files. Runs after every checkpoint deltac writes unless
 * delta.enableExpiredLogCleanup is false.
 */
#define DELTA_LOG_CLEANUP_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;          /* DELTA_LOG_CLEANUP_OPTIONS_VERSION */
  bool dry_run;
  int (*on_file)(void *ctx, const char *key, int64_t size); /* as for vacuum; may be NULL */
  void *on_file_ctx;
} delta_log_cleanup_options;
#define DELTA_LOG_CLEANUP_OPTIONS_INIT {DELTA_LOG_CLEANUP_OPTIONS_VERSION, false, NULL, NULL}

typedef struct {
  int64_t files_deleted;
  int64_t oldest_version;        /* the oldest version still readable; -1 when none */
} delta_log_cleanup_result;

int delta_log_cleanup(delta_table *table, const delta_log_cleanup_options *opts, delta_log_cleanup_result *result);

#ifdef __cplusplus
}
#endif

#endif
