/* deltac changes --plan: the change feed's file tasks as NDJSON. */
#ifndef DELTAC_CLI_CHANGES_PLAN_H
#define DELTAC_CLI_CHANGES_PLAN_H

#include "deltac/changes.h"

/* One JSON line per file task on stdout; 0 or an error code. */
int changes_plan_print(delta_table *t, const delta_changes_options *opts);

#endif
