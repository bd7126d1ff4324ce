/*
 * Reading one column chunk, page by page, as levels and dense values.
 *
 * pq_colreader_read returns whole records (top-level rows): a record that
 * spans pages is finished before the call returns. Memory held is one page
 * (decompressed), its levels, and the dictionary.
 */
#ifndef DELTAC_PARQUET_COLUMN_READER_H
#define DELTAC_PARQUET_COLUMN_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "parquet/bigbuf.h"
#include "parquet/encoding.h"
#include "parquet/file.h"
#include "parquet/schema.h"
#include "util/buf.h"

/* What one read produced, appended to by the reader.
 *
 * Levels and dense values in general; record assembly places the values.
 * Flat leaves (pq_leaf_is_flat) are read straight into Arrow layout instead,
 * as there is nothing to assemble: one slot per record, `values` holding a
 * value per slot (zero bytes where null; booleans as a bitmap), `bin` an
 * offset per slot, `valid` the validity bitmap (nullable leaves), no levels. */
typedef struct {
  bool flat;                /* Arrow layout, as above */
  delta_buf def;            /* uint16 per level entry (only when max_def > 0) */
  delta_buf rep;            /* uint16 per level entry (only when max_rep > 0) */
  delta_buf values;         /* dense non-null values: bool as uint8, others by physical width */
  pq_binary_builder bin;    /* dense BYTE_ARRAY values */
  delta_buf valid;          /* flat: bits.h bitmap, a bit per slot */
  int64_t n_levels;         /* level entries (== slots of the leaf's top-level records...) */
  int64_t n_values;         /* dense values */
  int64_t n_records;
} pq_col_batch;

int pq_col_batch_reset(pq_col_batch *b); /* empty it, keep capacity */
void pq_col_batch_dispose(pq_col_batch *b);

/* Whether a leaf is read in Arrow layout: no list above it, no optional node
 * but itself (so its slots are its records and its definition level says
 * null or not), and its physical values already its Arrow values. */
bool pq_leaf_is_flat(const pq_node *leaf);

typedef struct pq_column_reader pq_column_reader;

/* Data pages a reader decoded and passed over undecoded, over its life. */
typedef struct {
  int64_t read, skipped;
} pq_page_counts;

/* Position a reader at a column chunk. *out may hold a reader from an
 * earlier row group, which is reused (with its buffers); NULL makes one.
 * `chunk`: the chunk's bytes already in memory (valid while the reader is
 * on it), or NULL to read them from the file. */
int pq_colreader_open(pq_column_reader **out, const pq_file *f, int row_group, const pq_node *leaf,
                      const uint8_t *chunk);
/* Append up to max_records whole records to `out`. Fewer only at the end of
 * the chunk. */
int pq_colreader_read(pq_column_reader *cr, int64_t max_records, pq_col_batch *out);
/* Pass over the next n_records records. Lazy: the skip happens at the next
 * read, so that skips in a row add up and whole pages are passed over
 * without being decompressed (leaves without repetition); the rest is
 * decoded and dropped. Skipping past the chunk's end is an error at that
 * read. */
void pq_colreader_skip(pq_column_reader *cr, int64_t n_records);
/* Let readers share the buffer compressed page bodies are read into (from
 * a file, they are read a page at a time and decompressed at once); the
 * buffer must outlive them. NULL: the reader's own. */
void pq_colreader_share_body_buffer(pq_column_reader *cr, pq_bigbuf *buf);
void pq_colreader_page_counts(const pq_column_reader *cr, pq_page_counts *out);
void pq_colreader_free(pq_column_reader *cr);

#endif
