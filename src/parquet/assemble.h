/*
 * Record assembly: turning each leaf column's definition/repetition levels
 * and dense values into nested Arrow arrays (validity bitmaps, list offsets,
 * struct children), for one batch of records.
 */
#ifndef DELTAC_PARQUET_ASSEMBLE_H
#define DELTAC_PARQUET_ASSEMBLE_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "parquet/column_reader.h"
#include "parquet/schema.h"

typedef struct pq_assembler pq_assembler;

/* `selected` (by leaf index, may be NULL for all) must outlive the assembler. */
int pq_assembler_new(pq_assembler **out, const pq_schema *s, const bool *selected);
void pq_assembler_free(pq_assembler *a);

/* Build one batch of n_records rows. batches[leaf_index] holds what the
 * column readers produced for each selected leaf; buffers may be taken over
 * (detached) from them. *out is a struct array ("+s"). */
int pq_assemble(pq_assembler *a, pq_col_batch *batches, int64_t n_records, struct ArrowArray *out);

#endif
