/*
 * Text input for writes: NDJSON (one JSON object per line) and CSV (RFC
 * 4180 with a header line) as an Arrow stream. Columns the table has get
 * the table's types (values are converted and checked); other columns get
 * types inferred from all their values (NDJSON: long, double, boolean,
 * string, struct, array; CSV: long, double, boolean, date, timestamp,
 * string), so that a new table or --schema-mode merge can take them.
 * In CSV an empty unquoted cell is null and "" is the empty string.
 */
#ifndef DELTAC_WRITE_INPUT_TEXT_H
#define DELTAC_WRITE_INPUT_TEXT_H

#include "deltac/arrow_abi.h"
#include "log/table_schema.h"

typedef enum { INPUT_NDJSON, INPUT_CSV } input_text_format;

/* `text` is taken (freed with mem_free by the stream). `table` may be
 * NULL and is copied. */
int input_text_stream(char *text, size_t len, input_text_format fmt, const delta_type *table, int64_t batch_rows,
                      struct ArrowArrayStream *out);

#endif
