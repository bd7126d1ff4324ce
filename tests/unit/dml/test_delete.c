/* Unit test for src/dml/delete.c through the C API: a delete that read an
 * old snapshot and rewrites a file a concurrent delete removed is a
 * conflict, nothing of it becomes visible; deletes of untouched files
 * after a concurrent append commit. (The stats of a file with a new DV:
 * tests/unit/rewrite/test_dv_update.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac.h"
#include "deltac/dml.h"
#include "dml/dml_internal.h"
#include "test.h"

/* The operations take an open table: open `loc`, run, free. */
static int delete_at(const char *loc, const delta_delete_options *o, delta_dml_result *r) {
  delta_table *t = NULL;
  int rc;
  if ((rc = delta_table_open(&t, loc)) != 0) return rc;
  rc = delta_delete(t, o, r);
  delta_table_free(t);
  return rc;
}

static int sh(const char *fmt, const char *a, const char *b) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, fmt, a, b);
  return system(cmd);
}

static int64_t latest(const char *loc) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  int64_t v = -1;
  if (delta_table_open(&t, loc) == 0 && delta_snapshot_open(&s, t, NULL) == 0) v = delta_snapshot_version(s);
  delta_snapshot_free(s);
  delta_table_free(t);
  return v;
}

static void test_conflict(const char *bin, const char *dir, bool dv) {
  char tbl[1024], in[1024];
  snprintf(tbl, sizeof tbl, "%s/t%d", dir, dv);
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "'%s' write --schema 'id long, p string' --partition-by p %s --input '%s' '%s' >/dev/null", bin,
           dv ? "--property delta.enableDeletionVectors=true" : "", in, tbl);
  CHECK_EQ_INT(system(cmd), 0);
  delta_delete_options o = DELTA_DELETE_OPTIONS_INIT;
  delta_dml_result r;
  o.where = "id = 1";
  CHECK_EQ_INT(delete_at(tbl, &o, &r), 0);
  CHECK_EQ_INT(r.version, 1);
  CHECK_EQ_INT(r.rows_deleted, 1);
  /* a transaction that read version 0 and touches the same file */
  o.where = "id = 2";
  o.read_version = 0;
  CHECK_EQ_INT(delete_at(tbl, &o, &r), DELTA_ECONFLICT);
  CHECK(strstr(delta_error_last(), "conflict") != NULL || strstr(delta_error_last(), "concurrent") != NULL);
  CHECK_EQ_INT(latest(tbl), 1);
  /* one that read version 0 and touches only the other partition: commits as version 2 */
  o.where = "p = 'b' AND id = 3";
  CHECK_EQ_INT(delete_at(tbl, &o, &r), 0);
  CHECK_EQ_INT(r.version, 2);
  /* nothing matched: no commit */
  o.read_version = -1;
  o.where = "id = 99";
  CHECK_EQ_INT(delete_at(tbl, &o, &r), 0);
  CHECK(r.noop);
  CHECK_EQ_INT(latest(tbl), 2);
  /* bad predicates */
  o.where = "nope = 1";
  CHECK_EQ_INT(delete_at(tbl, &o, &r), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "--where") != NULL);
  o.where = "id = ";
  CHECK_EQ_INT(delete_at(tbl, &o, &r), DELTA_EINVAL);
}

int main(void) {
  const char *bin = getenv("DELTAC_BIN");
  if (!bin || access(bin, X_OK) != 0) TEST_MISSING("DELTAC_BIN is not set to a built deltac");
  char dir[] = "/tmp/deltac-dml-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char in[1024];
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  FILE *f = fopen(in, "w");
  fputs("{\"id\":1,\"p\":\"a\"}\n{\"id\":2,\"p\":\"a\"}\n{\"id\":3,\"p\":\"b\"}\n{\"id\":4,\"p\":\"b\"}\n", f);
  fclose(f);
  test_conflict(bin, dir, false);
  test_conflict(bin, dir, true);
  sh("rm -rf '%s'%s", dir, "");
  TEST_MAIN_END();
}
