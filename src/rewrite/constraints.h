/*
 * The rules every row written to a table must keep: NOT NULL columns and
 * struct fields (nullable:false in the schema) and CHECK constraints
 * (metaData.configuration "delta.constraints.<name>" = a boolean SQL
 * expression, in the filter language of src/expr). The data writer checks
 * them on each batch, so appends, overwrites and the rewrites of DML all
 * fail before anything is committed. Column invariants (field metadata
 * "delta.invariants", legacy writer 2) are checked as CHECKs of their own.
 *
 * NOT NULL holds at every depth: struct fields, array elements
 * (containsNull:false), map values (valueContainsNull:false) and map keys
 * (never null, whatever the schema says), named by their path
 * ("items.element.qty", "attrs.value", "attrs.key").
 *
 * As in Spark: a CHECK constraint is violated only when it is FALSE (NULL
 * passes); a NOT NULL value inside a struct, list or map that is itself
 * null is not violated (there is nothing there). A constraint naming a
 * column the input lacks sees NULL there.
 */
#ifndef DELTAC_REWRITE_CONSTRAINTS_H
#define DELTAC_REWRITE_CONSTRAINTS_H

#include <stdbool.h>

#include "deltac/arrow_abi.h"
#include "log/actions.h"
#include "log/table_constraints.h"
#include "log/table_schema.h"

typedef struct write_constraints write_constraints;

/* Bind the table's constraints to `input`, the schema of the batches to be
 * checked (borrowed: it must outlive the result). *out is NULL when the
 * table has nothing to check. DELTA_EINVAL when a constraint does not
 * parse or bind, or a NOT NULL field of a struct given is missing from it. */
int constraints_new(write_constraints **out, const delta_type *schema, const delta_kv *config, int n_config,
                    const struct ArrowSchema *input);
/* 0, or DELTA_EINVAL naming the constraint and the first row violating it. */
int constraints_check(write_constraints *c, const struct ArrowArray *batch);
void constraints_free(write_constraints *c);

/* Check that a constraint's expression parses and binds to the table's
 * schema (for new tables and `constraint add`). */
int constraint_validate(const char *name, const char *expr, const delta_type *schema);

#endif
