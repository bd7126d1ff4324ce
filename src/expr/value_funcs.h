/*
 * The value evaluator's runtime values and its named functions (the ones a
 * generated column's expression typically uses): year/month/day/hour/
 * minute/second, to_date, date_format, substring/substr, concat, upper,
 * lower, length, trim, abs; and the casts that involve dates and
 * timestamps. Kept apart from value_eval.c, which parses and binds and
 * calls in here by function id.
 *
 * Dates are days since the epoch, timestamps microseconds since the epoch;
 * calendar fields of a timestamp are taken in UTC (Spark takes them in the
 * session time zone, UTC by default on clusters that generate these
 * columns). Strings are UTF-8; substring and length count characters,
 * upper/lower change ASCII letters only.
 */
#ifndef DELTAC_EXPR_VALUE_FUNCS_H
#define DELTAC_EXPR_VALUE_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expr/value.h"
#include "util/buf.h"

/* The functions here take and give VT_NULL, VT_INT, VT_FLOAT, VT_STRING,
 * VT_BOOL, VT_DATE and VT_TIMESTAMP (VT_TIMESTAMP_NTZ arguments are read as
 * VT_TIMESTAMP: both are microseconds); decimals and intervals are not
 * theirs. */

/* One runtime value; strings live in a scratch buffer (s_off, s_len). */
typedef struct {
  value_type t;            /* VT_NULL: null */
  int64_t i;               /* VT_INT; VT_DATE days; VT_TIMESTAMP(NTZ) microseconds; VT_INTERVAL microseconds */
  double d;
  bool b;
  __int128 dec;            /* VT_DECIMAL, at scale */
  int scale;
  int64_t iv_months, iv_days; /* VT_INTERVAL */
  size_t s_off, s_len;     /* into the scratch buffer */
} sval;

/* The id of function `name` (case-insensitive) taking n_args arguments;
 * DELTA_EINVAL naming it when there is no such function or arity. */
int vfunc_find(const char *name, int n_args, int *id);
/* The result type for these argument types; DELTA_EINVAL when they do not
 * fit (a string where a date is wanted is accepted: it is cast). */
int vfunc_bind(int id, const value_type *args, int n_args, value_type *out);
/* Apply function `id`; a null argument gives null (concat too, as in Spark). */
int vfunc_eval(int id, const sval *args, int n_args, delta_buf *scratch, sval *out);

/* Casts where either side is a date or timestamp (strings parse as
 * YYYY-MM-DD[ hh:mm:ss[.ffffff]] in UTC; text that does not parse is null;
 * timestamp to date floors to the day). DELTA_EINVAL for other kinds. */
int vfunc_cast_temporal(sval *v, value_type to, delta_buf *scratch);

/* A double as Spark's CAST(d AS STRING) writes it (Java's Double.toString:
 * the shortest digits that read back, "0.1", "1.0", "1.0E10", "1.0E-4",
 * "NaN", "Infinity"), into buf (at least 32 bytes); returns its length. */
int vfunc_double_text(double d, char *buf);

/* Calendar helpers (proleptic Gregorian), exposed for tests. */
int64_t vfunc_days_from_civil(int64_t y, int m, int d);
void vfunc_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

#endif
