/*
 * CHECK constraints as the protocol stores them: metaData.configuration
 * "delta.constraints.<name>" = a boolean SQL expression. Checking rows
 * against them is the data writer's (rewrite/constraints.h); this is what
 * table setup and protocol checks need to know without binding anything.
 */
#ifndef DELTAC_LOG_TABLE_CONSTRAINTS_H
#define DELTAC_LOG_TABLE_CONSTRAINTS_H

#include <stdbool.h>

#include "log/actions.h"

#define CONSTRAINT_PREFIX "delta.constraints."

/* Whether a configuration has CHECK constraints. */
bool constraints_any(const delta_kv *config, int n_config);

#endif
