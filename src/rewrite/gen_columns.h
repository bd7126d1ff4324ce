/*
 * Generated and identity columns on the write path (the spec's "Generated
 * Columns" and "Identity Columns"), used by the data writer on every batch.
 *
 * Generated columns (delta.generationExpression, a Spark SQL expression
 * evaluated with value_eval.h) are computed when the input lacks them or
 * holds null (NDJSON rows leave keys out); every non-null value given must
 * equal the expression's, or the batch fails naming the column and a row. Identity columns
 * (delta.identity.start/step/highWaterMark/allowExplicitInsert) get
 * highWaterMark + step, row after row (start for the first value ever),
 * wherever the input lacks them or has a null; a given value is refused
 * unless allowExplicitInsert is true (and then does not move the high-
 * water mark, as in Spark). The new high-water marks are written into the
 * schema by gen_columns_update_schema, for the commit's metaData.
 *
 * In fill mode (UPDATE's and MERGE's new rows, dml_fill_generated) the
 * identity values already in a row are kept, and an assignment list says
 * which columns the user gave (gen_columns_apply).
 */
#ifndef DELTAC_REWRITE_GEN_COLUMNS_H
#define DELTAC_REWRITE_GEN_COLUMNS_H

#include <stdbool.h>

#include "deltac/arrow_abi.h"
#include "log/actions.h"
#include "log/features.h"
#include "log/table_schema.h"

/* Whether the schema has a top-level generated (identity) column. */
bool gen_schema_has(const delta_type *schema, bool identity);

typedef struct gen_columns gen_columns;

/* Set up for batches of schema `input`: *effective gets the schema of the
 * batches gen_columns_apply gives (the input's columns, the handled ones in
 * the table's type, the missing ones added at the end). *out is NULL when
 * there is nothing to do (then *effective is a copy of the input).
 * DELTA_EUNSUPPORTED naming the column and expression when deltac cannot
 * evaluate a generation expression. */
int gen_columns_new(gen_columns **out, const delta_type *schema, const delta_protocol *protocol, bool fill,
                    const struct ArrowSchema *input, struct ArrowSchema *effective);
/* The batch with the columns filled and checked, in *out: it borrows the
 * input's arrays and g's, valid until the next call or gen_columns_free.
 * `assigned` (per table field, or NULL) says which columns an assignment
 * list gave (fill mode: UPDATE's SET, MERGE's clauses): a generated column
 * not assigned is recomputed, an assigned one checked; an assigned identity
 * column is refused in `update` rows and, without allowExplicitInsert, in
 * inserts. Without it every column the input has counts as given (in fill
 * mode: existing identity values are kept). */
int gen_columns_apply(gen_columns *g, const struct ArrowArray *batch, const bool *assigned, bool update,
                      struct ArrowArray *out);
/* The same on rows of exactly the table's columns (offset 0, children
 * owned by rows): the filled columns replace rows' children. */
int gen_columns_fill_in_place(gen_columns *g, struct ArrowArray *rows, const bool *assigned, bool update);
/* Record the identity columns' new high-water marks in `schema`'s field
 * metadata; *changed set when one moved (left alone otherwise). */
int gen_columns_update_schema(const gen_columns *g, delta_type *schema, bool *changed);
void gen_columns_free(gen_columns *g);

/* Parsed delta.identity.* of a field; false when it has none. */
typedef struct {
  int64_t start, step, high_water_mark;
  bool has_high_water_mark, allow_explicit_insert;
} gen_identity;
int gen_identity_parse(const delta_field *f, gen_identity *out);
/* Rewrite the field's metadata with delta.identity.highWaterMark = hwm. */
int gen_identity_set_hwm(delta_field *f, int64_t hwm);

#endif
