/*
 * Turning a data file's physical columns into the table's logical ones:
 * fields matched by physical name or field id (column mapping), missing
 * fields as nulls, and the casts type widening and writers' choices need
 * (narrow integers, float to double, timestamp units, dates to
 * timestamp_ntz, decimal rescaling, integers to decimals or doubles,
 * binary labelled as string).
 */
#ifndef DELTAC_SCAN_CONFORM_H
#define DELTAC_SCAN_CONFORM_H

#include "deltac/arrow_abi.h"
#include "log/table_schema.h"

typedef enum { MAP_NONE, MAP_NAME, MAP_ID } column_mapping_mode;

struct delta_snapshot;
/* The table's delta.columnMapping.mode. */
column_mapping_mode scan_mapping_mode(const struct delta_snapshot *s);

/* The physical child of `phys` (a struct schema) that holds logical field
 * `f`, or -1. */
int conform_find_child(const struct ArrowSchema *phys, const delta_field *f, column_mapping_mode mode);

/* Make `out` (of Arrow type `want`, built from Delta type `t`) from `in`
 * (of Arrow type `have`). `in` is consumed: moved into out or released. */
int conform_array(const delta_type *t, const struct ArrowSchema *want, const struct ArrowSchema *have,
                  struct ArrowArray *in, column_mapping_mode mode, const char *column, struct ArrowArray *out);

#endif
