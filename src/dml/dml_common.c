/* What DELETE, UPDATE and MERGE share that no other operation needs; see
 * dml_internal.h. (Reading and rewriting files is rewrite/'s.) */
#include "dml/dml_internal.h"

#include <stdio.h>
#include <time.h>

#include "log/snapshot.h"
#include "util/error_internal.h"
#include "dv/dv.h"
#include "json/json.h"
#include "log/action_write.h"
#include "log/schema_build.h"
#include "txn/row_tracking.h"
#include "rewrite/gen_columns.h"
#include "log/table_setup.h"

int dml_check_table(const delta_snapshot *s) {
  if (table_prop_true(s->metadata.configuration, s->metadata.n_configuration, "delta.appendOnly"))
    return err_set(DELTA_EINVAL, "the table is append-only (delta.appendOnly): rows cannot be deleted or updated");
  return 0;
}

int64_t dml_clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void dml_random_uuid(uint8_t out[16]) {
  char text[37];
  write_uuid(text);
  int k = 0;
  for (int i = 0; text[i] && k < 16; i++) {
    if (text[i] == '-') continue;
    unsigned v;
    sscanf(text + i, "%2x", &v);
    out[k++] = (uint8_t)v;
    i++;
  }
}
