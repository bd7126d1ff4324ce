/*
 * The writers of a rewrite: the data writer of the rows an operation keeps
 * or changes (rewritten files, new rows of UPDATE and MERGE, OPTIMIZE's
 * compacted files) and the change data writer (cdc files under
 * _change_data when the table has the change data feed on), set up from
 * the snapshot so that every rewrite writes files the same way: the
 * table's partitioning, column mapping, constraints, target file size,
 * generated and identity columns, and row tracking.
 *
 * An operation makes one rewrite_writers, feeds it batches of the table's
 * logical columns (read with live_rows.h), and calls rewrite_writers_finish
 * to get the add and cdc lines for its commit.
 */
#ifndef DELTAC_REWRITE_FILE_WRITERS_H
#define DELTAC_REWRITE_FILE_WRITERS_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/storage.h"
#include "deltac/table.h"
#include "rewrite/data_write.h"
#include "rewrite/gen_columns.h"
#include "util/buf.h"

typedef struct rewrite_writers {
  delta_snapshot *s;
  struct ArrowSchema logical;
  data_write_config cfg;
  data_writer *data;           /* rewritten rows, created on first use */
  data_writer *cdc;            /* change data (NULL when CDF is off) */
  delta_storage *cdc_storage;  /* rooted at <table>/_change_data */
  struct ArrowSchema cdc_input;
  delta_type *cdc_schema;
  bool track_rows;             /* logical/cfg have the materialized row tracking columns */
  delta_type *rt_schema;       /* the table's schema + those columns (cfg.schema then) */
  gen_columns *gen;            /* generated/identity columns of new rows; NULL: none */
} rewrite_writers;

/* Writers for rows of the table's logical schema; with `cdc` also the
 * change data writer (rows of the logical schema and _change_type). */
int rewrite_writers_new(rewrite_writers **out, delta_snapshot *s, bool cdc);
/* Writers with a change data writer only, for rows of `input` (a write's
 * own input columns, e.g. replace-where's inserted rows): their cdc files
 * have the table's schema and _change_type. */
int rewrite_writers_new_cdc(rewrite_writers **out, delta_snapshot *s, const struct ArrowSchema *input);
/* With row tracking enabled on the table: rows copied or updated keep
 * their row ids. The logical schema (and the writer's input) gets the two
 * materialized columns after the table's; batches read with
 * rewrite_read_file_tracked have them in that place. Call before the data
 * writer is made. No-op on other tables. */
int rewrite_writers_track_rows(rewrite_writers *w);
/* Updated rows: their commit version is the new one (the materialized
 * column, the last child of `rows`, set to null). No-op unless tracking. */
int rewrite_rows_updated(rewrite_writers *w, struct ArrowArray *rows);
/* The writer of rewritten rows (input: the logical schema). */
int rewrite_writers_data(rewrite_writers *w, data_writer **out);
/* Write `rows` (logical columns, offset 0) as change data of type
 * `change_type`. No-op without a change data writer. */
int rewrite_cdc_write(rewrite_writers *w, const struct ArrowArray *rows, const char *change_type);
/* Close the files: add lines and cdc lines appended to actions (and a
 * metaData line with the identity columns' new high-water marks when
 * one moved). */
int rewrite_writers_finish(rewrite_writers *w, delta_buf *actions, int64_t *files_added, int64_t *cdc_files);
/* Bytes of the data files written (the sizes in their add lines; change
 * data not included). */
int64_t rewrite_writers_bytes(const rewrite_writers *w);
void rewrite_writers_free(rewrite_writers *w);

#endif
