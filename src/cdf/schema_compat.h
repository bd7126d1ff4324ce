/* Whether rows written under an older table schema can be read with the
 * schema of a change feed's end version (as Spark requires for a batch
 * change-feed read across schema changes): columns may be added, types
 * widened and NOT NULL relaxed; a dropped or renamed column, a narrowed or
 * unrelated type, or NOT NULL added is an incompatible change. */
#ifndef DELTAC_CDF_SCHEMA_COMPAT_H
#define DELTAC_CDF_SCHEMA_COMPAT_H

#include <stdint.h>

#include "log/table_schema.h"
#include "scan/conform.h"

/* 0, or DELTA_EUNSUPPORTED with a message naming the column, the change and
 * `version` (the version whose schema is `older`). */
int cdf_schema_compatible(const delta_type *older, const delta_type *end, column_mapping_mode mode, int64_t version);

#endif
