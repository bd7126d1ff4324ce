/* Typed scalar values of the expression language: literals, statistics
 * bounds and partition values, compared with SQL semantics. */
#ifndef DELTAC_EXPR_VALUE_H
#define DELTAC_EXPR_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

/* Value classes. Every Arrow type a Delta table produces maps to one: the
 * integer widths share VT_INT, float and double share VT_FLOAT. */
typedef enum {
  VT_NULL,      /* the untyped NULL literal */
  VT_BOOL,
  VT_INT,
  VT_FLOAT,
  VT_DECIMAL,   /* 128-bit unscaled value with a scale */
  VT_STRING,
  VT_BINARY,
  VT_DATE,      /* days since the epoch */
  VT_TIMESTAMP, /* microseconds since the epoch, UTC */
  VT_TIMESTAMP_NTZ,
  VT_STRUCT,    /* only as a column type: not comparable */
  VT_OTHER,     /* lists, maps, variant: not comparable */
  VT_INTERVAL   /* only in value expressions: an INTERVAL literal, an operand of + and - with dates */
} value_type;

typedef struct {
  value_type type;
  bool is_null;
  int scale;            /* VT_DECIMAL */
  union {
    bool b;
    int64_t i;          /* VT_INT, VT_DATE, VT_TIMESTAMP(_NTZ) */
    double d;
    __int128 dec;
    struct {
      const char *p;    /* borrowed: a literal's text, a stats string, an Arrow buffer */
      size_t n;
    } s;
  } u;
} expr_value;

/* The value class of an Arrow format string; *scale gets a decimal's scale
 * and *precision its precision (both may be NULL). */
value_type value_type_of_arrow(const char *format, int *precision, int *scale);
const char *value_type_name(value_type t);

/* Parse text into a value of class `t` (decimal: at `scale`). The text is
 * what a literal, a partition value or a JSON statistic holds: numbers in
 * decimal notation, dates as YYYY-MM-DD, timestamps in ISO-8601 (UTC when no
 * offset is given), booleans true/false. Strings and binaries borrow `text`.
 * Returns 0, or -1 when the text is not a value of that class. */
int value_parse(value_type t, int scale, const char *text, size_t len, expr_value *out);

/* Whether two classes can be compared (numbers with numbers, dates with
 * timestamps, strings with strings...). */
bool value_comparable(value_type a, value_type b);

/* Three-way comparison of two non-null comparable values: <0, 0, >0.
 * NaN sorts above every other number and equals itself, as in Spark. */
int value_cmp(const expr_value *a, const expr_value *b);

/* Value i of a flat Arrow array of class `t` (out->is_null for null slots).
 * Strings borrow the array's buffers. */
void value_from_array(const struct ArrowArray *a, const char *format, value_type t, int scale, int64_t i,
                      expr_value *out);

#endif
