/* Arrays the scan makes itself: partition values (one value repeated) and
 * columns a data file lacks (all null). */
#ifndef DELTAC_SCAN_COLUMNS_H
#define DELTAC_SCAN_COLUMNS_H

#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "log/table_schema.h"

/* n rows of a partition value serialized as the Delta spec says (NULL or ""
 * for null), typed as `t`. DELTA_ECORRUPT naming the column when the text
 * does not parse as its type. */
int scan_partition_array(const delta_type *t, const char *column, const char *value, int64_t n,
                         struct ArrowArray *out);

#endif
