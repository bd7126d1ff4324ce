/*
 * Value expressions (UPDATE's SET): parsed, bound to a batch schema and
 * evaluated into an Arrow array of a target column's type.
 *
 *   vexpr    := concat
 *   concat   := additive ('||' additive)*
 *   additive := term (('+' | '-') term)*
 *   term     := unary (('*' | '/') unary)*
 *   unary    := '-' unary | primary
 *   primary  := number | 'text' | TRUE | FALSE | NULL | column | ( vexpr )
 *             | CASE WHEN predicate THEN vexpr [WHEN ...] [ELSE vexpr] END
 *             | COALESCE(vexpr, ...) | CAST(vexpr AS type)
 *   column   := name(.name)*   (a nested field; MERGE's t.col / s.col)
 * predicate is the filter language (expr.h); type one of byte, short, int,
 * long, float, double, string, boolean. Values are computed as long,
 * double, string or boolean with SQL null propagation; '/' gives a double
 * (as in Spark) and division by zero gives null. Results convert to
 * integer, float, string and boolean columns (a double into an integer
 * column truncates toward zero; NaN or out of range is an error); date,
 * timestamp and decimal columns take a literal of their type (DATE '..',
 * TIMESTAMP '..', a string in those forms, a number rounded half up to the
 * decimal's scale), parsed once at bind time; any other column type takes only a column of that same type or
 * NULL.
 *
 * An assignment list "a = expr, b = expr" is split by vexpr_parse_set.
 */
#ifndef DELTAC_EXPR_VALUE_EVAL_H
#define DELTAC_EXPR_VALUE_EVAL_H

#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "expr/expr.h"

typedef struct vexpr vexpr;

int vexpr_parse(const char *text, vexpr **out);
void vexpr_free(vexpr *e);
/* expr_qualify for value expressions (CASE conditions included). */
int vexpr_qualify(vexpr *e, expr_qualify_fn fn, void *ctx);

/* Resolve columns (through struct fields, case-insensitive fallback) against `schema`
 * (borrowed, must outlive e) and check the result fits `target_format`. */
int vexpr_bind(vexpr *e, const struct ArrowSchema *schema, const char *target_format, const char *target_name);
/* Evaluate over a batch of the bound schema into *out (a new array of the
 * target format, batch->length rows). */
int vexpr_eval(vexpr *e, const struct ArrowArray *batch, struct ArrowArray *out);

/* The column a value naturally has, for a column that does not exist yet
 * (MERGE's schema evolution): resolves e against `schema` like vexpr_bind
 * and gives, for a plain column reference, that column's schema in
 * *column; otherwise *column is NULL and *format is the computed type
 * ("l" long, "g" double, "u" string, "b" boolean; NULL for an untyped
 * NULL). */
int vexpr_natural_type(vexpr *e, const struct ArrowSchema *schema, const struct ArrowSchema **column,
                       const char **format);
/* For a bound plain column reference: the column's schema; else NULL. */
const struct ArrowSchema *vexpr_column_schema(const vexpr *e);
/* True for the literal NULL (assignable to any column, nested ones too:
 * the caller builds those with arrow_array_nulls). */
bool vexpr_is_null(const vexpr *e);

/* "a = 1, b = c || 'x'": n assignments; names[i] and exprs[i] are owned by
 * the caller (free with vexpr_set_free). Commas inside parentheses, CASE or
 * strings do not split. */
int vexpr_parse_set(const char *text, char ***names, vexpr ***exprs, int *n);
void vexpr_set_free(char **names, vexpr **exprs, int n);

#endif
