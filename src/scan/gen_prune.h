/*
 * Partition pruning through generated partition columns (Spark's
 * "partition filters from generated columns"): a filter on a source column,
 * `eventTime >= '2024-03-01'`, also bounds a partition column generated
 * from it (`eventDate` as CAST(eventTime AS DATE)), so files of other
 * partitions are skipped. Only for expressions that never decrease as the
 * source grows: the column itself, CAST(c AS DATE), to_date(c), year(c),
 * date_format(c, 'yyyy-MM'...) with year-first patterns, and prefixes
 * substring(c, 1, n). Bounds from timestamps are widened by a day each way,
 * as the column may have been computed in another session time zone. The
 * derived predicates are implied by the filter, so rows are unchanged.
 */
#ifndef DELTAC_SCAN_GEN_PRUNE_H
#define DELTAC_SCAN_GEN_PRUNE_H

#include "log/snapshot.h"

/* *out: `filter` with derived conjuncts added ("(filter) AND eventDate >=
 * DATE '2024-02-29'"), to free with mem_free; NULL when there are none.
 * A filter that does not parse or bind is left to the caller to report. */
int gen_prune_filter(const delta_snapshot *snap, const char *filter, char **out);

#endif
