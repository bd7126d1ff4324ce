/*
 * Building small Arrow record batches row by row: the CLI's listings (files,
 * history, info) go through the same writers as table rows, so every format
 * works for them too. Columns are utf8, int64, boolean or timestamp[ms, UTC].
 */
#ifndef DELTAC_ARROW_BUILDER_H
#define DELTAC_ARROW_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

/* AB_JSON: utf8 holding JSON text that the text writers embed as JSON
 * (field metadata deltac.raw_json=true), e.g. commit parameters. */
typedef enum { AB_UTF8, AB_INT64, AB_BOOL, AB_TIMESTAMP_MS, AB_JSON } arrow_builder_type;

typedef struct arrow_batch_builder arrow_batch_builder;

int arrow_batch_builder_new(arrow_batch_builder **out, int n_columns, const char *const *names,
                            const arrow_builder_type *types);
void arrow_batch_builder_free(arrow_batch_builder *b);

/* Append a value to column c of the current row; every column must get
 * exactly one value per row (use _null for a missing one). */
int arrow_builder_str(arrow_batch_builder *b, int c, const char *s);   /* NULL: null */
int arrow_builder_strn(arrow_batch_builder *b, int c, const char *s, size_t n);
int arrow_builder_i64(arrow_batch_builder *b, int c, int64_t v);
int arrow_builder_bool(arrow_batch_builder *b, int c, bool v);
int arrow_builder_null(arrow_batch_builder *b, int c);

/* A stream holding the rows built so far as one batch; the builder is
 * emptied (and may be freed). */
int arrow_builder_finish(arrow_batch_builder *b, struct ArrowArrayStream *out);

#endif
