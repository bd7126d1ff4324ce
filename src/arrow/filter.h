/* Keeping a subset of an array's rows (the "filter" kernel) or gathering
 * rows in any order ("take"), for any nesting
 * of the types the Parquet reader and the scan produce. */
#ifndef DELTAC_ARROW_FILTER_H
#define DELTAC_ARROW_FILTER_H

#include <stdint.h>

#include "deltac/arrow_abi.h"

/* New array (owned by the caller) with the rows i of `in` (of Arrow type
 * `schema`) where keep[i] != 0. `in` is not modified. */
int arrow_filter(const struct ArrowSchema *schema, const struct ArrowArray *in, const uint8_t *keep,
                 struct ArrowArray *out);

/* Gathering rows from one or more arrays of the same type (the chunks of
 * a stream): out row k is row rows[k].row (logical, 0-based) of
 * in[rows[k].chunk], or null when rows[k].chunk is negative. Any order,
 * repeats allowed. Types: those of `arrow_filter` plus large strings,
 * binaries and lists and fixed-size lists. */
typedef struct {
  int32_t chunk;
  int64_t row;
} arrow_row_ref;

int arrow_take(const struct ArrowSchema *schema, const struct ArrowArray *const *in, int n_in,
               const arrow_row_ref *rows, int64_t m, struct ArrowArray *out);

#endif
