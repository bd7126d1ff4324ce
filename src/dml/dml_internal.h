/* What DELETE (and later UPDATE/MERGE) share: reading one file's physical
 * rows, the writers of rewritten data and change data, table checks. */
#ifndef DELTAC_DML_DML_INTERNAL_H
#define DELTAC_DML_DML_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/dml.h"
#include "deltac/storage.h"
#include "deltac/table.h"
#include "dv/dv.h"
#include "expr/expr.h"
#include "json/json_writer.h"
#include "log/actions.h"
#include "util/buf.h"
#include "write/data_write.h"

/* Every physical row of the file of `a` (its DV not applied: the k-th row
 * given is row index k), as batches of the table's logical columns. */
typedef int (*dml_batch_cb)(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch);
int dml_read_file(delta_snapshot *s, const delta_add *a, dml_batch_cb cb, void *ctx);
/* The same, with the file's DV applied: only the rows a scan returns. */
int dml_read_live_rows(delta_snapshot *s, const delta_add *a, dml_batch_cb cb, void *ctx);
/* dml_read_file for a writer that keeps row ids (dml_writers_track_rows):
 * with `w` tracking rows, each batch also has the rows' stable _row_id and
 * _row_commit_version after the logical columns. */
struct dml_writers;
int dml_read_file_tracked(struct dml_writers *w, const delta_add *a, dml_batch_cb cb, void *ctx);

/* DELTA_EINVAL when the table's rows may not change (delta.appendOnly);
 * whether deltac may write it at all is txn_open's check. */
int dml_check_table(const delta_snapshot *s);
/* delta.enableDeletionVectors on and the deletionVectors feature present. */
bool dml_dv_enabled(const delta_snapshot *s);

typedef struct dml_writers {
  delta_snapshot *s;
  struct ArrowSchema logical;
  data_write_config cfg;
  data_writer *data;           /* rewritten rows, created on first use */
  data_writer *cdc;            /* change data (NULL when CDF is off) */
  delta_storage *cdc_storage;  /* rooted at <table>/_change_data */
  struct ArrowSchema cdc_input;
  delta_type *cdc_schema;
  bool track_rows;             /* logical/cfg have the materialized row tracking columns */
  delta_type *rt_schema;       /* the table's schema + those columns (cfg.schema then) */
  struct gen_columns *gen;     /* generated/identity columns of new rows; NULL: none */
} dml_writers;

int dml_writers_new(dml_writers **out, delta_snapshot *s, bool cdc);
/* With row tracking enabled on the table: rows copied or updated keep
 * their row ids. The logical schema (and the writer's input) gets the two
 * materialized columns after the table's; batches read with
 * dml_read_file_tracked have them in that place. Call before the data
 * writer is made. No-op on other tables. */
int dml_writers_track_rows(dml_writers *w);
/* Updated rows: their commit version is the new one (the materialized
 * column, the last child of `rows`, set to null). No-op unless tracking. */
int dml_rows_updated(dml_writers *w, struct ArrowArray *rows);
/* The writer of rewritten rows (input: the logical schema). */
int dml_writers_data(dml_writers *w, data_writer **out);
/* Write `rows` (logical columns) as change data of type `change_type`. */
int dml_cdc_write(dml_writers *w, const struct ArrowArray *rows, const char *change_type);
/* Close the files: add lines and cdc lines appended to actions. */
int dml_writers_finish(dml_writers *w, delta_buf *actions, int64_t *files_added, int64_t *cdc_files);
/* Bytes of the data files written (the sizes in their add lines; change
 * data not included). */
int64_t dml_writers_bytes(const dml_writers *w);
void dml_writers_free(dml_writers *w);

/* stats JSON with "tightBounds":false (for a file with a new DV); empty
 * out when stats is NULL. */
int dml_stats_loose(const char *stats, delta_buf *out);
void dml_random_uuid(uint8_t out[16]);
/* A monotonic clock in milliseconds, for executionTimeMs and friends. */
int64_t dml_clock_ms(void);
/* operationParameters.predicate as Spark writes it: a JSON array in a string. */
int dml_predicate_param(const char *where, delta_json_writer *w);

/* A remove line for `a` (dataChange true) appended to actions. */
int dml_remove_action(delta_buf *actions, const delta_add *a, int64_t now);
/* DVs whose serialized bitmap is at most this many bytes (a handful of
 * deleted rows) are written inline in the log, unless the table property
 * below is "false" (for readers without inline-DV support). */
#define DML_INLINE_DV_MAX_BYTES 64
#define DML_DV_INLINE_PROPERTY "deltac.deletionVectors.inline"
bool dml_dv_inline(const delta_snapshot *s);
/* The add line of `a` with a new deletion vector: `fresh` (this
 * transaction's rows; the old DV's rows are added to it), inline when it is
 * small, else appended to the commit's DV file `dv_file` named by
 * `dv_path`; stats get tightBounds false. */
int dml_add_with_dv(const delta_add *a, const delta_dv_bitmap *old, delta_bitmap64 *fresh, bool inline_ok,
                    delta_buf *dv_file, delta_buf *dv_path, int64_t now, delta_buf *actions);
/* Put the commit's DV file (nothing when it is empty). */
int dml_dv_file_put(delta_storage *storage, const delta_buf *dv_path, const delta_buf *dv_file);

/* Assignments "col = expr, ..." to the columns of `logical` (UPDATE's SET,
 * MERGE's clauses), the expressions bound to `bind` (UPDATE: the logical
 * schema; MERGE: the joined row {t, s}). `prefix`: a qualifier the assigned
 * names may carry (MERGE's target alias). `fill_nulls`: unassigned columns
 * are NULL (INSERT) instead of copied. `what` names the option in errors.
 * `qualify` (may be NULL) rewrites the expressions' references first. */
typedef struct dml_set dml_set;
int dml_set_new(dml_set **out, const char *text, const char *what, const struct ArrowSchema *logical,
                const struct ArrowSchema *bind, const char *prefix, bool fill_nulls, expr_qualify_fn qualify,
                void *qctx);
/* A new array of logical rows: the unassigned columns copied from `copy`
 * (logical rows; NULL with fill_nulls), the assigned ones evaluated over
 * `eval` (rows of `bind`, as many). */
int dml_set_apply(dml_set *s, const struct ArrowArray *copy, const struct ArrowArray *eval, struct ArrowArray *out);
void dml_set_free(dml_set *s);
/* From now on nested values (structs, lists, maps copied from a column)
 * are matched to `table`'s field types by name, fields they lack null:
 * MERGE's source structs need not have the target's shape. `table`
 * (the logical schema's Delta type) must outlive s. */
void dml_set_conform(dml_set *s, const delta_type *table);
/* Generated and identity columns of rows dml_set_apply made (gen_columns.h,
 * fill mode): generated columns the set does not assign are computed (in
 * `update` rows recomputed), assigned ones checked; identity columns of
 * inserts are filled, and assigning one is refused (in updates always,
 * in inserts unless it allows explicit values). */
int dml_fill_generated(dml_writers *w, const dml_set *s, struct ArrowArray *rows, bool update);

/* DELETE (set_text NULL) or UPDATE of the rows matching `where`. */
int dml_run(const char *location, const char *where, const char *set_text, bool no_dv, int max_attempts,
            int64_t read_version, delta_dml_result *result);

#endif
