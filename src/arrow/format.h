/*
 * Rendering Arrow batches as text for people and programs: NDJSON (the
 * conformance contract in DESIGN.md), a JSON array, CSV (RFC 4180) and an
 * aligned table. Batches are struct arrays whose children are the columns.
 */
#ifndef DELTAC_ARROW_FORMAT_H
#define DELTAC_ARROW_FORMAT_H

#include <stdint.h>
#include <stdio.h>

#include "deltac/arrow_abi.h"
#include "util/buf.h"

typedef enum { ARROW_FMT_NDJSON, ARROW_FMT_JSON, ARROW_FMT_CSV, ARROW_FMT_TABLE } arrow_text_format;

/* A parsed Arrow type: what the formatters switch on. */
typedef struct arrow_type arrow_type;

int arrow_type_parse(const struct ArrowSchema *schema, arrow_type **out);
void arrow_type_free(arrow_type *t);

/* Append the JSON form of value i of `a` (of type t) to out. */
int arrow_value_json(delta_buf *out, const arrow_type *t, const struct ArrowArray *a, int64_t i);

typedef struct arrow_text_writer arrow_text_writer;

int arrow_text_writer_new(arrow_text_writer **out, arrow_text_format fmt,
                          const struct ArrowSchema *schema, FILE *fp);
/* Write up to max_rows rows of batch (all when max_rows < 0). */
int arrow_text_writer_write(arrow_text_writer *w, const struct ArrowArray *batch, int64_t max_rows);
/* Close the output (e.g. the JSON array, the table's last line). */
int arrow_text_writer_finish(arrow_text_writer *w);
void arrow_text_writer_free(arrow_text_writer *w);

#endif
