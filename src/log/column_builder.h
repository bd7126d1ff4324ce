/*
 * Arrow columns of a Delta type, filled value by value: from JSON values
 * (NDJSON input, checkpoint rows rendered as JSON) or from text (CSV cells).
 * The arrays have exactly the Arrow types log_schema_to_arrow() gives the
 * same Delta type, so a batch built here can go straight to the Parquet
 * writer with that schema.
 */
#ifndef DELTAC_LOG_COLUMN_BUILDER_H
#define DELTAC_LOG_COLUMN_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "json/json.h"
#include "log/table_schema.h"

typedef struct col_builder col_builder;

/* A builder for the columns of struct type `st` (borrowed: must outlive the
 * builder). Rows are added whole with row_builder_add_json / _add_text. */
typedef struct {
  const delta_type *type;
  col_builder *cols;    /* one per field of `type` */
  int64_t rows;
  delta_buf tmp;
} row_builder;

int row_builder_init(row_builder *rb, const delta_type *st);
void row_builder_dispose(row_builder *rb);

/* One row from a JSON object: members are matched to the fields by name
 * (absent members and JSON nulls are nulls). A member the type lacks is
 * ignored here (callers check for unknown columns up front). Errors name the
 * column: "column price: expected a number, got string". After an error the
 * builder holds a partial row: dispose it (a failed input fails the write). */
int row_builder_add_json(row_builder *rb, delta_json_val obj);

/* One row from text cells: field f takes cells[cell_of_field[f]] (-1: null).
 * NULL cells are nulls. Non-string types parse their text; an empty cell is
 * null for every type but string. */
int row_builder_add_text(row_builder *rb, const char *const *cells, const size_t *lens,
                         const int *cell_of_field);

/* Hand the rows built so far to `out` as one struct array (the columns as
 * children) and start over empty. */
int row_builder_finish(row_builder *rb, struct ArrowArray *out);

/* Scalars from text, shared with partition values and inference. */
int cb_parse_decimal(const char *s, size_t n, int precision, int scale, __int128 *out);
int cb_parse_date(const char *s, size_t n, int32_t *days);
int cb_parse_timestamp(const char *s, size_t n, bool ntz, int64_t *us);

#endif
