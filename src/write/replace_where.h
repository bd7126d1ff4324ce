/*
 * --replace-where PRED: an overwrite of only the rows matching PRED, as
 * Delta's replaceWhere does it. Every written row must match PRED (else
 * the write fails: it would put rows outside what it replaces). Live files
 * that may hold matching rows (pruned by partition values and stats) are
 * read; a file with matching rows is removed and its other rows written
 * again to new files in the same commit, so rows outside PRED survive.
 */
#ifndef DELTAC_WRITE_REPLACE_WHERE_H
#define DELTAC_WRITE_REPLACE_WHERE_H

#include "deltac/table.h"
#include "expr/expr.h"
#include "util/buf.h"
#include "rewrite/data_write.h"

/* DELTA_EINVAL naming the first row of `batch` (bound schema of `e`) that
 * does not match. */
int replace_where_check(const expr_node *e, const struct ArrowArray *batch, const char *predicate);

typedef struct {
  const char **removed;   /* paths of the removed files (borrowed from the snapshot) */
  int64_t n_removed;
  int64_t removed_bytes;
  int64_t rows_deleted;   /* matching rows of the removed files */
  int64_t rows_copied;    /* their other rows, written again */
} replace_where_outcome;

/* On a change-data-feed table the commit carries cdc files with every
 * change: readers then take the version's changes from those alone, so the
 * rows copied out of partly replaced files do not show as deleted and
 * inserted. `delete` rows are the replaced rows, `insert` rows every row
 * written. */
typedef struct replace_where_cdc replace_where_cdc;
/* `input`: the schema of the written batches (copied), or NULL. */
int replace_where_cdc_new(replace_where_cdc **out, delta_snapshot *s, const struct ArrowSchema *input);
int replace_where_cdc_insert(replace_where_cdc *c, const struct ArrowArray *batch);
/* Append the cdc actions to `actions`; *n_files gets their count. */
int replace_where_cdc_finish(replace_where_cdc *c, delta_buf *actions, int64_t *n_files);
void replace_where_cdc_free(replace_where_cdc *c);

/* Append the removes to `actions` and the rewritten rows' adds via a data
 * writer of its own (its config: `cfg`); with `cdc`, the replaced rows go
 * to it as deletes. out->removed is the caller's to mem_free. */
int replace_where_apply(delta_snapshot *s, const char *predicate, const data_write_config *cfg, int64_t now,
                        replace_where_cdc *cdc, delta_buf *actions, replace_where_outcome *out);

#endif
