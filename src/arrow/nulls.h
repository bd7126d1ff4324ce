/* An Arrow array of n nulls of any type: columns a file or an input lacks
 * (scans, generated-column inputs), and SQL's NULL for a struct, list or
 * map column (UPDATE ... SET m = NULL, MERGE inserts of a source that lacks
 * a nested column). */
#ifndef DELTAC_ARROW_NULLS_H
#define DELTAC_ARROW_NULLS_H

#include <stdint.h>

#include "deltac/arrow_abi.h"

/* n null slots of schema `s`'s type into `out` (structs with null
 * children of the same length, lists and maps with empty children).
 * DELTA_EUNSUPPORTED for types deltac does not produce (unions, views,
 * run-end and dictionary encodings). */
int arrow_array_nulls(const struct ArrowSchema *s, int64_t n, struct ArrowArray *out);

#endif
