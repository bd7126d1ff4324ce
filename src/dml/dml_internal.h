/* What DELETE, UPDATE and MERGE share: table checks, assignments (SET),
 * generated columns of new rows. Reading files and writing their
 * replacements, change data and DVs is rewrite/'s (live_rows.h,
 * file_writers.h, dv_update.h), shared with OPTIMIZE and replace-where. */
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
#include "log/commit_params.h"
#include "rewrite/dv_update.h"
#include "rewrite/file_writers.h"
#include "rewrite/live_rows.h"

/* DELTA_EINVAL when the table's rows may not change (delta.appendOnly);
 * whether deltac may write it at all is txn_open's check. */
int dml_check_table(const delta_snapshot *s);

void dml_random_uuid(uint8_t out[16]);
/* A monotonic clock in milliseconds, for executionTimeMs and friends. */
int64_t dml_clock_ms(void);

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
int dml_fill_generated(rewrite_writers *w, const dml_set *s, struct ArrowArray *rows, bool update);

/* DELETE (set_text NULL) or UPDATE of the rows matching `where`. */
int dml_run(delta_table *table, const char *where, const char *set_text, bool no_dv, int max_attempts,
            int64_t read_version, delta_dml_result *result);

#endif
