/*
 * Writing a table's data files: Arrow batches in, Parquet files out under
 * Hive-style partition directories, one `add` action (with stats) per file.
 *
 * Input columns are matched to the table's by name; partition columns go
 * to the directory names and partitionValues, the others to the file in the
 * table's column order under their physical names (with field ids) when
 * the table uses column mapping. A file is closed once it reaches the
 * target size. Each file has a fresh UUID name and appears whole (on local
 * storage renamed from a hidden temporary, elsewhere put whole: file_out.h);
 * data_writer_finish makes them durable before the caller commits.
 */
#ifndef DELTAC_REWRITE_DATA_WRITE_H
#define DELTAC_REWRITE_DATA_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/parquet_writer.h"
#include "deltac/storage.h"
#include "log/actions.h"
#include "log/table_schema.h"
#include "util/buf.h"

typedef struct {
  delta_storage *storage;
  const delta_type *schema;             /* the table's (logical) schema */
  const char *const *partition_columns; /* logical names */
  int n_partition_columns;
  bool column_mapping;                  /* mode name or id: physical names + field ids */
  int64_t target_file_size;             /* bytes; 0: 128 MiB */
  delta_parquet_codec codec;
  bool no_data_change;                  /* dataChange false on the adds (OPTIMIZE rearranges rows) */
  /* The table's metaData.configuration: its CHECK constraints (and the
   * schema's NOT NULL fields) are checked on every batch written. When
   * has_configuration is false the writer reads the configuration of the
   * latest version of the table at `storage` itself (none when there is no
   * table there), so that no writer skips the checks by leaving it out. */
  const delta_kv *configuration;
  int n_configuration;
  bool has_configuration;
  /* The table's protocol: when set, generated and identity columns are
   * computed, checked and filled (gen_columns.h); NULL for writers of rows
   * that need none of it or had it done (change data, OPTIMIZE, the rows
   * DML and replace-where copy, DML's new rows: dml_fill_generated). */
  const delta_protocol *protocol;
} data_write_config;

typedef struct data_writer data_writer;

/* `input` is the schema of the batches (copied). DELTA_EINVAL when a
 * non-nullable table column is missing, a partition column has a type
 * that cannot be partitioned on or a constraint does not bind to the input. */
int data_writer_new(data_writer **out, const data_write_config *cfg, const struct ArrowSchema *input);
/* DELTA_EINVAL naming the constraint and a row when the batch violates one
 * (constraints.h); nothing of that batch is written then. */
int data_writer_write(data_writer *dw, const struct ArrowArray *batch);
/* Close every open file, fsync the files written, and append one
 * {"add":...} line per file to `adds`. */
int data_writer_finish(data_writer *dw, delta_buf *adds);
void data_writer_free(data_writer *dw);

/* Write the identity columns' new high-water marks into `schema` (a copy
 * of the table's, for the commit's metaData); *changed when one moved. */
int data_writer_update_schema(const data_writer *dw, delta_type *schema, bool *changed);

int64_t data_writer_files(const data_writer *dw);
int64_t data_writer_rows(const data_writer *dw);
int64_t data_writer_bytes(const data_writer *dw);

#endif
