/* What DELETE (and later UPDATE/MERGE) share: reading one file's physical
 * rows, the writers of rewritten data and change data, table checks. */
#ifndef DELTAC_DML_DML_INTERNAL_H
#define DELTAC_DML_DML_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/dml.h"
#include "deltac/table.h"
#include "json/json_writer.h"
#include "log/actions.h"
#include "util/buf.h"
#include "write/data_write.h"

/* Every physical row of the file of `a` (its DV not applied: the k-th row
 * given is row index k), as batches of the table's logical columns. */
typedef int (*dml_batch_cb)(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch);
int dml_read_file(delta_snapshot *s, const delta_add *a, dml_batch_cb cb, void *ctx);

/* DELTA_EUNSUPPORTED/EINVAL when deltac may not change rows of the table. */
int dml_check_table(const delta_snapshot *s);
/* delta.enableDeletionVectors on and the deletionVectors feature present. */
bool dml_dv_enabled(const delta_snapshot *s);

typedef struct dml_writers {
  delta_snapshot *s;
  struct ArrowSchema logical;
  data_write_config cfg;
  data_writer *data;           /* rewritten rows, created on first use */
  data_writer *cdc;            /* change data (NULL when CDF is off) */
  delta_storage *cdc_storage;  /* rooted at <table>/_change_data */
  struct ArrowSchema cdc_input;
  delta_type *cdc_schema;
} dml_writers;

int dml_writers_new(dml_writers **out, delta_snapshot *s, bool cdc);
/* The writer of rewritten rows (input: the logical schema). */
int dml_writers_data(dml_writers *w, data_writer **out);
/* Write `rows` (logical columns) as change data of type `change_type`. */
int dml_cdc_write(dml_writers *w, const struct ArrowArray *rows, const char *change_type);
/* Close the files: add lines and cdc lines appended to actions. */
int dml_writers_finish(dml_writers *w, delta_buf *actions, int64_t *files_added, int64_t *cdc_files);
void dml_writers_free(dml_writers *w);

/* stats JSON with "tightBounds":false (for a file with a new DV); empty
 * out when stats is NULL. */
int dml_stats_loose(const char *stats, delta_buf *out);
void dml_random_uuid(uint8_t out[16]);
/* operationParameters.predicate as Spark writes it: a JSON array in a string. */
int dml_predicate_param(const char *where, delta_json_writer *w);

/* UPDATE's assignments, bound to the logical schema. */
typedef struct dml_set dml_set;
int dml_set_new(dml_set **out, const char *text, const struct ArrowSchema *logical);
/* rows (logical columns) with the assignments applied: a new array. */
int dml_set_apply(dml_set *s, const struct ArrowArray *rows, struct ArrowArray *out);
void dml_set_free(dml_set *s);

/* DELETE (set_text NULL) or UPDATE of the rows matching `where`. */
int dml_run(const char *location, const char *where, const char *set_text, bool no_dv, int max_attempts,
            int64_t read_version, delta_dml_result *result);

#endif
