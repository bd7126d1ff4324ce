/*
 * Row-level changes to a Delta table: DELETE and UPDATE.
 *
 *   delta_delete_options o = DELTA_DELETE_OPTIONS_INIT;
 *   o.where = "country = 'NL' AND amount < 0";
 *   delta_dml_result r;
 *   if (delta_delete("/data/events", &o, &r) != 0) puts(delta_error_last());
 *
 * One transaction, one commit. Files are first pruned by partition values
 * and statistics; only the remaining candidates are read. A file whose live
 * rows all match is removed whole. Otherwise, when the table has
 * delta.enableDeletionVectors on (and the deletionVectors feature), the
 * file gets a new deletion vector (remove of the old (path, DV), add of the
 * same path with the new DV, stats marked tightBounds false); without, its
 * remaining rows are copied into a new file (copy-on-write). With
 * delta.enableChangeDataFeed, copy-on-write deletes write the deleted rows
 * to _change_data/ cdc files (_change_type "delete"), as Delta Spark does;
 * deletion-vector deletes need none (readers derive them from the DVs).
 * A concurrent commit that removed a file this one removes or rewrites is
 * DELTA_ECONFLICT; nothing this transaction wrote becomes visible then.
 */
#ifndef DELTAC_DML_H
#define DELTAC_DML_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DELTA_DELETE_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;    /* DELTA_DELETE_OPTIONS_VERSION */
  const char *where;       /* predicate in the filter language; NULL: every row */
  bool no_deletion_vectors; /* copy-on-write even when the table enables DVs */
  int max_attempts;        /* commit attempts against racing appenders; 0: 1000 */
  int64_t read_version;    /* the snapshot the transaction reads; -1: the latest (an older one
                            * makes the commit race everything after it, e.g. in tests) */
} delta_delete_options;
#define DELTA_DELETE_OPTIONS_INIT {DELTA_DELETE_OPTIONS_VERSION, NULL, false, 0, -1}

typedef struct {
  int64_t version;             /* version committed; the table's when nothing matched */
  bool noop;                   /* no row matched: nothing committed */
  int64_t rows_deleted;
  int64_t rows_updated;
  int64_t rows_copied;         /* rows rewritten by copy-on-write */
  int64_t files_considered, files_skipped; /* pruning: live files, ruled out without reading */
  int64_t files_removed, files_added, dvs_added, cdc_files;
} delta_dml_result;

int delta_delete(const char *location, const delta_delete_options *opts, delta_dml_result *result);

/*
 * UPDATE: `set` is "col = expr, ..." (value expressions: arithmetic + - * /,
 * string concatenation ||, CASE WHEN ... THEN ... ELSE ... END, COALESCE,
 * CAST(x AS type), literals, column references; see docs). Matching rows are
 * rewritten into new files; the rest of their file is copied
 * (copy-on-write) or, with deletion vectors, the old file gets a DV for the
 * updated rows. With CDF, cdc files hold update_preimage/update_postimage
 * rows.
 */
#define DELTA_UPDATE_OPTIONS_VERSION 1
typedef struct {
  unsigned int version;    /* DELTA_UPDATE_OPTIONS_VERSION */
  const char *set;         /* required */
  const char *where;       /* NULL: every row */
  bool no_deletion_vectors;
  int max_attempts;
  int64_t read_version;    /* -1: latest */
} delta_update_options;
#define DELTA_UPDATE_OPTIONS_INIT {DELTA_UPDATE_OPTIONS_VERSION, NULL, NULL, false, 0, -1}

int delta_update(const char *location, const delta_update_options *opts, delta_dml_result *result);

#ifdef __cplusplus
}
#endif

#endif
