/*
 * Writing Delta tables: create, append, overwrite, checkpoint, constraints.
 *
 *   delta_write_options o = DELTA_WRITE_OPTIONS_INIT;
 *   o.mode = DELTA_WRITE_APPEND;
 *   delta_write_result r;
 *   delta_table *t;
 *   if (delta_table_open(&t, "/data/events") != 0 || delta_write(t, &stream, &o, &r) != 0)
 *     puts(delta_error_last());
 *   delta_table_free(t);
 *
 * The stream's batches are struct arrays whose children are the columns
 * (matched to the table's by name). A table that does not exist yet is
 * created from the stream's schema, or from `schema` when given, with
 * `partition_by` and `properties`; the protocol is the smallest one that
 * covers what the table uses. Each call is one transaction, one commit:
 * data files first, then the commit file put-if-absent. When another writer
 * wins the race for a version, the commit is checked against what won
 * (appends retry on the next version by themselves; a concurrent change of
 * metadata or protocol, a concurrent removal of a file this transaction
 * removes, or a concurrent append during an overwrite fails with
 * DELTA_ECONFLICT and a message naming the version). After the commit a
 * checkpoint is written every delta.checkpointInterval versions (100).
 */
#ifndef DELTAC_WRITE_H
#define DELTAC_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/parquet_writer.h"
#include "deltac/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  DELTA_WRITE_APPEND = 0,    /* add the rows */
  DELTA_WRITE_OVERWRITE = 1, /* replace every row (or those matching replace_where) */
  DELTA_WRITE_CREATE = 2     /* create the table; DELTA_EEXISTS when it exists */
} delta_write_mode;

#define DELTA_WRITE_OPTIONS_VERSION 2
typedef struct {
  unsigned int version;             /* DELTA_WRITE_OPTIONS_VERSION (1: without cluster_by) */
  delta_write_mode mode;
  /* For a new table: */
  const char *schema;               /* Delta JSON or "a long, b string"; NULL: the stream's */
  const char *const *partition_by;  /* column names */
  size_t n_partition_by;
  const char *const *property_keys; /* delta.enableChangeDataFeed, delta.columnMapping.mode, ... */
  const char *const *property_values;
  size_t n_properties;
  const char *name;                 /* metaData.name, or NULL */
  const char *description;
  /* For every write: */
  const char *replace_where;        /* overwrite only rows matching this predicate */
  bool schema_merge;                /* add input columns the table lacks (nullable) */
  const char *app_id;               /* with app_version: exactly-once writes (txn action) */
  int64_t app_version;
  int64_t target_file_size;         /* bytes per data file; 0: 128 MiB */
  delta_parquet_codec codec;        /* DEFAULT: SNAPPY */
  int max_attempts;                 /* commit attempts when racing appenders; 0: 1000 */
  /* For a new table: liquid clustering columns (not with partition_by):
   * the clustering feature and the delta.clustering domain; OPTIMIZE then
   * clusters by them. For an existing table they must be its own. */
  const char *const *cluster_by;
  size_t n_cluster_by;
} delta_write_options;
#define DELTA_WRITE_OPTIONS_INIT                                                                     \
  {DELTA_WRITE_OPTIONS_VERSION, DELTA_WRITE_APPEND, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, \
   false, NULL, 0, 0, DELTA_PARQUET_CODEC_DEFAULT, 0, NULL, 0}

typedef struct {
  int64_t version;        /* the version committed; the table's version when skipped */
  bool skipped;           /* app_id already had app_version (or newer): nothing written */
  int attempts;           /* commit attempts (1 without a race) */
  int64_t files_added, files_removed, rows_written, bytes_written;
  bool checkpointed;      /* a checkpoint was written after the commit */
} delta_write_result;

/* Write to `table` (opened by the caller with delta_table_open,
 * delta_table_open_options or delta_table_open_storage; it need not exist
 * yet: the first write creates it; the caller frees it). `data` may be NULL
 * (no rows: only meaningful for creating a table); the stream is consumed
 * and released. `result` may be NULL. */
int delta_write(delta_table *table, struct ArrowArrayStream *data, const delta_write_options *opts,
                delta_write_result *result);

/* Write a classic checkpoint of the latest version (or `version` >= 0) and
 * then _last_checkpoint. *version_out (may be NULL) gets the version. */
int delta_checkpoint_create(delta_table *table, int64_t version, int64_t *version_out);

/* ALTER TABLE ADD CONSTRAINT name CHECK (expr): `expr` in the filter
 * language. Every live row is checked first (DELTA_EINVAL naming a row that
 * violates it); DELTA_EEXISTS when the name is taken. The protocol is raised
 * to writer 3 (or gets the checkConstraints feature) when needed. Every
 * later write enforces it. *version_out (may be NULL) gets the version. */
int delta_constraint_add(delta_table *table, const char *name, const char *expr, int64_t *version_out);
/* DROP CONSTRAINT: DELTA_ENOTFOUND when there is none of that name, unless
 * `if_exists` (then nothing is committed and *version_out is -1). */
int delta_constraint_drop(delta_table *table, const char *name, bool if_exists, int64_t *version_out);

#ifdef __cplusplus
}
#endif

#endif
