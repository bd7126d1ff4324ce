/*
 * The `stats` JSON of an add action from what the Parquet writer measured:
 * numRecords, and minValues / maxValues / nullCount nested like the
 * schema, keyed by the names written in the file (physical names under
 * column mapping). As Delta Spark does: strings cut to their first 32
 * characters (a cut maximum gets U+10FFFF appended so it still bounds),
 * timestamps truncated to milliseconds, no min/max for booleans, binary,
 * non-finite floats, or anything inside lists and maps.
 */
#ifndef DELTAC_REWRITE_FILE_STATS_H
#define DELTAC_REWRITE_FILE_STATS_H

#include "deltac/parquet_writer.h"
#include "util/buf.h"

#define DELTA_STATS_STRING_PREFIX 32

int file_stats_json(const delta_parquet_write_result *r, delta_buf *out);

#endif
