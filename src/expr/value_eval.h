/*
 * Value expressions (UPDATE's and MERGE's SET, generation expressions):
 * the expression language of expr.h parsed as a value, bound to a batch
 * schema and evaluated into an Arrow array of a target column's type, with
 * Spark SQL's semantics. A vexpr is an expr_node; these are the value
 * entry points of the one parser, binder and evaluator.
 *
 * The grammar is expr.h's (a value may be a condition: `a > 5` is a
 * boolean); types are an integer type, float, double, decimal(p,s),
 * string, boolean, date, timestamp, timestamp_ntz; the functions are
 * date_add, date_sub, add_months, datediff, date_trunc, current_date,
 * current_timestamp, now, to_date, unix_micros, unix_seconds,
 * timestamp_micros, timestamp_seconds and value_funcs.h's.
 *
 * Values are long, double, string, boolean, exact decimal (Spark's result
 * precision and scale, see dec_math.h), date, timestamp or timestamp_ntz,
 * with SQL null propagation. '/' on integers and doubles gives a double
 * and division by zero null; on decimals it is exact and by zero an error.
 * Date +/- integer adds days; dates and timestamps take INTERVALs;
 * timestamp + integer, date * n and the like are bind-time errors. Results
 * are stored as Spark's ANSI store assignment does: numbers convert either
 * way (a double into an integer column truncates; out of range is an
 * error naming the column and value), decimals round HALF_UP to the
 * column's scale, dates and timestamps into one another, anything into a
 * string. A literal alone for a date, timestamp or decimal column (DATE
 * '..', a string in those forms, a number) is parsed once at bind time; a
 * column of the target's own type is copied as is; other column types
 * take only such a column or NULL.
 *
 * An assignment list "a = expr, b = expr" is split by vexpr_parse_set.
 */
#ifndef DELTAC_EXPR_VALUE_EVAL_H
#define DELTAC_EXPR_VALUE_EVAL_H

#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "expr/expr.h"

typedef struct expr_node vexpr;

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
 * ("l" long, "g" double, "u" string, "b" boolean, "d:p,s" the decimal
 * Spark's rules give (valid while e lives), "tdD" date, "tsu:UTC"
 * timestamp, "tsu:" timestamp_ntz; NULL for an untyped NULL). */
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
