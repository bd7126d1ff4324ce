/* Keeping a subset of an array's rows: the "filter" kernel, for any nesting
 * of the types the Parquet reader and the scan produce. */
#ifndef DELTAC_ARROW_FILTER_H
#define DELTAC_ARROW_FILTER_H

#include <stdint.h>

#include "deltac/arrow_abi.h"

/* New array (owned by the caller) with the rows i of `in` (of Arrow type
 * `schema`) where keep[i] != 0. `in` is not modified. */
int arrow_filter(const struct ArrowSchema *schema, const struct ArrowArray *in, const uint8_t *keep,
                 struct ArrowArray *out);

#endif
