/* CHECK constraints in a table's configuration; see table_constraints.h. */
#include "log/table_constraints.h"

#include <string.h>

bool constraints_any(const delta_kv *config, int n_config) {
  for (int i = 0; i < n_config; i++)
    if (strncmp(config[i].key, CONSTRAINT_PREFIX, strlen(CONSTRAINT_PREFIX)) == 0) return true;
  return false;
}
