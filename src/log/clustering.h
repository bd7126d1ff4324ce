/*
 * Liquid clustering (the `clustering` writer feature, which needs
 * `domainMetadata`): the clustering columns live in the `delta.clustering`
 * domain as physical-name paths, {"clusteringColumns":[["a"],["b"]]}.
 * Writes and DML leave the domain alone (it is carried over by replay);
 * OPTIMIZE clusters the rows by those columns (Z-order, maint/zorder.h) and
 * marks the files it writes with clusteringProvider "liquid".
 *
 * Databricks' preview wrote writer feature `liquid` with domain
 * `delta.liquid` ([{"physicalName":["id"]}]); deltac reads its columns for
 * `info` but does not write such tables (neither does open-source Spark).
 */
#ifndef DELTAC_LOG_CLUSTERING_H
#define DELTAC_LOG_CLUSTERING_H

#include <stdbool.h>

#include "log/actions.h"
#include "log/table_schema.h"
#include "util/buf.h"

#define CLUSTERING_DOMAIN "delta.clustering"
#define CLUSTERING_PROVIDER "liquid"

struct delta_snapshot;

/* `clustering` in the writer features. */
bool clustering_supported(const delta_protocol *p);

/* The clustering columns of a snapshot, as logical top-level names (the
 * domain's physical names mapped back through the schema), or *n = 0 when
 * the table is not clustered. *out is one allocation (free with
 * mem_free). DELTA_EUNSUPPORTED for nested clustering columns. */
int clustering_columns(const struct delta_snapshot *s, char ***out, int *n);

/* Check the --cluster-by columns of a new table against its schema (top
 * level, no repeats, a type with min/max statistics) and write the
 * domain's configuration JSON (physical names) to conf. */
int clustering_new_domain(const delta_type *schema, const char *const *names, int n, bool column_mapping,
                          delta_buf *conf);

#endif
