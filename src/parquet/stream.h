/*
 * What the scan needs from a Parquet read stream (delta_parquet_read)
 * beyond the Arrow stream interface: passing over rows without decoding
 * them, for late materialization (the filter's columns are read first, the
 * others only for batches where some row passes), and page counts for
 * `--stats`.
 */
#ifndef DELTAC_PARQUET_STREAM_H
#define DELTAC_PARQUET_STREAM_H

#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "parquet/column_reader.h"

/* Pass over the stream's next n_rows rows (across row groups) as if they had
 * been read: the next get_next starts after them. Whole data pages inside
 * them are not decompressed. n_rows must not pass the end of the stream. */
int pq_stream_skip(struct ArrowArrayStream *s, int64_t n_rows);
/* Data pages decoded and passed over so far; zeros for other streams. */
void pq_stream_page_counts(struct ArrowArrayStream *s, pq_page_counts *out);

#endif
