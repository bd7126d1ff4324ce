/*
 * Skipping data a predicate rules out, before reading it: whole files by
 * their partition values and the statistics in their add actions, then row
 * groups of the files that remain by their Parquet statistics.
 *
 * The predicate is bound to the table's logical schema (every column, in
 * schema order), so a column node's first child index is the field's index
 * in the table schema.
 */
#ifndef DELTAC_SCAN_PRUNE_H
#define DELTAC_SCAN_PRUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/parquet.h"
#include "expr/expr.h"
#include "expr/skip.h"
#include "log/actions.h"
#include "log/table_schema.h"
#include "scan/conform.h"

typedef struct {
  const delta_type *schema;      /* the table's struct type */
  const char *const *partition_columns;
  int n_partition_columns;
  column_mapping_mode mode;
  const expr_node *pred;         /* bound to the logical schema; NULL: keep everything */
} scan_pruner;

/* What the pruner knows of a file: its partition values, its add
 * action's stats JSON (NULL: none), and in a change feed the constant
 * change columns of its rows (the predicate's columns after the table's:
 * _change_type, _commit_version, _commit_timestamp). */
typedef struct {
  const delta_kv *partition_values;
  int n_partition_values;
  const char *stats;
  bool changes;
  const char *change_type;  /* NULL: read from the file (cdc files) */
  int64_t version, timestamp_us;
} scan_prune_input;

/* 1 when the file may hold matching rows, 0 when it cannot, <0 on error. */
int scan_prune_file(const scan_pruner *p, const scan_prune_input *in);

/* fn's result for what a file's partition values or stats say of
 * `column` (a column node bound like the predicate; p->pred is not used):
 * for tests a predicate cannot express, e.g. MERGE's "some source key lies
 * in [min, max]". The stats' strings live only during the call. */
typedef int (*scan_stats_check)(void *ctx, const expr_col_stats *st);
int scan_file_column_check(const scan_pruner *p, const scan_prune_input *in, const expr_node *column,
                           scan_stats_check fn, void *ctx);

/* The row groups of an open data file that may hold matching rows, in file
 * order, into rgs (room for every row group); their count in *n. */
int scan_prune_row_groups(const scan_pruner *p, const delta_parquet_file *pf, const struct ArrowSchema *file_schema,
                          int *rgs, int *n);

#endif
