/*
 * Reading the rows of one data file for a rewrite: DELETE, UPDATE and
 * MERGE read a file whole to write the rows they keep, OPTIMIZE reads the
 * live rows of the files it compacts, replace-where the live rows it
 * deletes (for their change data). Reads go through the scan (scan/), so
 * partition values, column mapping, type widening and row tracking come
 * out the way a query sees them.
 */
#ifndef DELTAC_REWRITE_LIVE_ROWS_H
#define DELTAC_REWRITE_LIVE_ROWS_H

#include "deltac/arrow_abi.h"
#include "deltac/table.h"
#include "log/actions.h"

/* Called with each batch read; a non-zero return stops the read and is
 * returned. The batch and schema are valid during the call only. */
typedef int (*rewrite_batch_cb)(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch);

/* Every physical row of the file of `a` (its DV not applied: the k-th row
 * given is row index k), as batches of the table's logical columns. */
int rewrite_read_file(delta_snapshot *s, const delta_add *a, rewrite_batch_cb cb, void *ctx);
/* The same, with the file's DV applied: only the rows a scan returns. */
int rewrite_read_live_rows(delta_snapshot *s, const delta_add *a, rewrite_batch_cb cb, void *ctx);
/* rewrite_read_file for writers that keep row ids (rewrite_writers_track_rows
 * in file_writers.h): with `w` tracking rows, each batch also has the rows'
 * stable _row_id and _row_commit_version after the logical columns. */
struct rewrite_writers;
int rewrite_read_file_tracked(struct rewrite_writers *w, const delta_add *a, rewrite_batch_cb cb, void *ctx);

#endif
