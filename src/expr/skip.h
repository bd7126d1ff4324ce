/* Data skipping: deciding from column statistics (a file's min/max/null
 * counts, a row group's, or a partition's exact values) that no row of a
 * set can satisfy a predicate, so the set need not be read. */
#ifndef DELTAC_EXPR_SKIP_H
#define DELTAC_EXPR_SKIP_H

#include <stdbool.h>

#include "expr/expr.h"

/* What is known about one column over a set of rows. Bounds need not be
 * tight (they may be wider than the values, as after deletion vectors),
 * but must bound: min <= every non-null value <= max. */
typedef struct {
  bool has_min, has_max;
  expr_value min, max;
  int has_nulls;   /* 1: some value is null, 0: none is, -1: unknown */
  int has_values;  /* 1: some value is non-null, 0: none is, -1: unknown */
} expr_col_stats;

#define EXPR_COL_STATS_UNKNOWN {false, false, {0}, {0}, -1, -1}

/* Statistics of a bound column node; fill *out (it starts unknown) and
 * return 0, or an error code. */
typedef int (*expr_stats_fn)(void *ctx, const expr_node *column, expr_col_stats *out);

/* 1 when some row might satisfy `e`, 0 when none can, or an error code
 * from `fn`. Conservative: anything it cannot reason about might match. */
int expr_may_match(const expr_node *e, expr_stats_fn fn, void *ctx);

#endif
