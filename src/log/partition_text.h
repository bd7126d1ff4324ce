/*
 * The text of a partition value as the protocol stores it in an add's
 * partitionValues (and in Hive-style directory names before escaping):
 * integers and booleans as written by Spark, dates YYYY-MM-DD, timestamps
 * with microseconds and a zone (timestamp_ntz with a space and no zone).
 * The data writer uses it to name partitions; the scan uses it to turn a
 * computed generation expression into the value to compare partition
 * values with (scan/gen_prune.c).
 */
#ifndef DELTAC_LOG_PARTITION_TEXT_H
#define DELTAC_LOG_PARTITION_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "util/buf.h"

/* The partitionValues text of value i of array `a` (Arrow format `fmt`):
 * *is_null set for nulls. Appends to out. DELTA_EUNSUPPORTED for a type
 * that cannot be a partition column. */
int log_partition_value_text(const char *fmt, const struct ArrowArray *a, int64_t i, delta_buf *out, bool *is_null);

#endif
