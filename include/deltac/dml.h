/*
 * Row-level changes to a Delta table: DELETE, UPDATE and MERGE.
 *
 *   delta_delete_options o = DELTA_DELETE_OPTIONS_INIT;
 *   o.where = "country = 'NL' AND amount < 0";
 *   delta_dml_result r;
 *   delta_table *t;
 *   if (delta_table_open(&t, "/data/events") != 0 || delta_delete(t, &o, &r) != 0)
 *     puts(delta_error_last());
 *   delta_table_free(t);
 *
 * Every operation takes a table the caller opened (delta_table_open,
 * delta_table_open_options for storage options, delta_table_open_storage
 * for an embedder's store) and still owns afterwards; it reads the
 * table's latest version itself.
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

#include "deltac/arrow_abi.h"
#include "deltac/table.h"

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

int delta_delete(delta_table *table, const delta_delete_options *opts, delta_dml_result *result);

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

int delta_update(delta_table *table, const delta_update_options *opts, delta_dml_result *result);

/*
 * MERGE INTO target t USING source s ON cond WHEN ... (Spark's semantics).
 *
 * The source is an Arrow stream (read whole into memory: it is assumed to
 * fit) and is hashed on the ON condition's equalities t.col = s.col (the
 * rest of the condition is checked per pair). ON may have no equality
 * (ranges, BETWEEN, OR of equalities, constants): then every live target
 * row is paired with every source row and ON decides (a nested loop, in
 * blocks). A target file is read only when each key's source values meet
 * its min/max or partition value, and each range conjunct (t.col >= s.x,
 * t.col < s.y, ...) the source's min/max (unless a not-matched-by-source
 * clause needs every row); candidates are read one by one, so memory is
 * the source plus one file.
 * Clauses are tried in order per group, the first whose condition holds
 * wins; a target row matched by several source rows is DELTA_EINVAL (unless
 * the only matched clause is an unconditional delete). Conditions and SET
 * expressions are the filter/value-expression languages with columns
 * qualified by the aliases: t.col, s.col. Changed rows are rewritten
 * copy-on-write or, with deletion vectors, the old file gets a DV; with
 * CDF, cdc files hold delete, update_preimage/postimage and insert rows.
 * Nothing matched, updated, deleted or inserted: nothing is committed.
 * A concurrent commit removing a file MERGE rewrites is DELTA_ECONFLICT; a
 * MERGE with insert or not-matched-by-source clauses also conflicts with
 * concurrent appends (they could hold rows it should have matched).
 */
typedef enum { DELTA_MERGE_MATCHED, DELTA_MERGE_NOT_MATCHED, DELTA_MERGE_NOT_MATCHED_BY_SOURCE } delta_merge_when;
typedef enum { DELTA_MERGE_UPDATE, DELTA_MERGE_DELETE, DELTA_MERGE_INSERT } delta_merge_action;

typedef struct {
  delta_merge_when when;
  delta_merge_action action;  /* MATCHED, NOT_MATCHED_BY_SOURCE: update/delete; NOT_MATCHED: insert */
  const char *condition;      /* NULL: always */
  const char *set;            /* "col = expr, ..."; NULL for update/insert: every column from the source
                               * by name (UPDATE SET * / INSERT *) */
} delta_merge_clause;

#define DELTA_MERGE_OPTIONS_VERSION 2
typedef struct {
  unsigned int version;              /* DELTA_MERGE_OPTIONS_VERSION (1: without schema_merge) */
  struct ArrowArrayStream *source;   /* required; read to the end (not released) */
  const char *on;                    /* required */
  const char *target_alias;          /* NULL: "t" */
  const char *source_alias;          /* NULL: "s" */
  const delta_merge_clause *clauses;
  int n_clauses;
  bool no_deletion_vectors;
  int max_attempts;
  int64_t read_version;              /* -1: latest */
  /* Schema evolution (Spark's MERGE WITH SCHEMA EVOLUTION): UPDATE SET *
   * and INSERT * add the source's columns (and struct fields) the target
   * lacks, nullable, at the end; an explicit SET may assign a new column
   * (typed by its value). Rows already in the table read NULL for them;
   * the commit carries the new metaData. A source type wider than the
   * table's is refused (no type widening). Without it, source columns
   * the target lacks are ignored by * clauses, as in Spark. */
  bool schema_merge;
} delta_merge_options;
#define DELTA_MERGE_OPTIONS_INIT {DELTA_MERGE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0, false, 0, -1, false}

typedef struct {
  int64_t version;             /* committed; the table's when noop */
  bool noop;
  int64_t source_rows;
  int64_t rows_inserted, rows_updated, rows_deleted, rows_copied;
  int64_t files_considered, files_skipped;
  int64_t files_removed, files_added, dvs_added, cdc_files;
} delta_merge_result;

int delta_merge(delta_table *table, const delta_merge_options *opts, delta_merge_result *result);

#ifdef __cplusplus
}
#endif

#endif
