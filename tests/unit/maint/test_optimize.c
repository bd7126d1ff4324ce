/* Unit test for src/maint/optimize.c through the C API: the conflict
 * rules (a concurrent append is retried and the compaction commits; a
 * concurrent removal of a file being compacted is DELTA_ECONFLICT with
 * nothing committed), no-ops, bad options. Tables are written with the
 * deltac binary (DELTAC_BIN). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac.h"
#include "deltac/dml.h"
#include "deltac/maintenance.h"
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
static int optimize_at(const char *loc, const delta_optimize_options *o, delta_optimize_result *r) {
  delta_table *t = NULL;
  int rc;
  if ((rc = delta_table_open(&t, loc)) != 0) return rc;
  rc = delta_optimize(t, o, r);
  delta_table_free(t);
  return rc;
}

static int64_t latest(const char *loc, int64_t *n_files) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  int64_t v = -1;
  if (delta_table_open(&t, loc) == 0 && delta_snapshot_open(&s, t, NULL) == 0) {
    v = delta_snapshot_version(s);
    if (n_files) *n_files = delta_snapshot_num_files(s);
  }
  delta_snapshot_free(s);
  delta_table_free(t);
  return v;
}

/* Append `rows` (NDJSON text) to the table with the deltac binary. */
static int append(const char *bin, const char *dir, const char *tbl, const char *rows) {
  char in[1024], cmd[4096];
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  FILE *f = fopen(in, "w");
  if (!f) return -1;
  fputs(rows, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s' write --schema 'id long, p string' --partition-by p --input '%s' '%s' >/dev/null",
           bin, in, tbl);
  return system(cmd);
}

static void test_conflicts(const char *bin, const char *dir) {
  char tbl[1024];
  snprintf(tbl, sizeof tbl, "%s/t", dir);
  CHECK_EQ_INT(append(bin, dir, tbl, "{\"id\":1,\"p\":\"a\"}\n{\"id\":2,\"p\":\"a\"}\n"), 0); /* v0 */
  CHECK_EQ_INT(append(bin, dir, tbl, "{\"id\":3,\"p\":\"a\"}\n"), 0);                      /* v1 */
  CHECK_EQ_INT(append(bin, dir, tbl, "{\"id\":4,\"p\":\"b\"}\n"), 0);                      /* v2 */
  /* read version 1; the append of v2 is no conflict: commits as v3 */
  delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
  delta_optimize_result r;
  o.read_version = 1;
  CHECK_EQ_INT(optimize_at(tbl, &o, &r), 0);
  CHECK_EQ_INT(r.version, 3);
  CHECK_EQ_INT(r.files_removed, 2);
  CHECK_EQ_INT(r.files_added, 1);
  CHECK_EQ_INT(r.rows_written, 3);
  int64_t n = 0;
  CHECK_EQ_INT(latest(tbl, &n), 3);
  CHECK_EQ_INT(n, 2); /* a's compacted file and b's appended one */
  /* nothing left to do */
  o.read_version = -1;
  CHECK_EQ_INT(optimize_at(tbl, &o, &r), 0);
  CHECK(r.noop);
  CHECK_EQ_INT(r.version, 3);
  /* v4 appends to a; v5 deletes that file whole; an optimize that read v4
   * compacts it: conflict, nothing committed */
  CHECK_EQ_INT(append(bin, dir, tbl, "{\"id\":5,\"p\":\"a\"}\n"), 0);
  delta_delete_options d = DELTA_DELETE_OPTIONS_INIT;
  d.where = "id = 5";
  delta_dml_result dr;
  CHECK_EQ_INT(delete_at(tbl, &d, &dr), 0);
  CHECK_EQ_INT(dr.version, 5);
  o.read_version = 4;
  CHECK_EQ_INT(optimize_at(tbl, &o, &r), DELTA_ECONFLICT);
  CHECK_EQ_INT(latest(tbl, NULL), 5);
  /* Z-order errors */
  const char *zp[] = {"p"}, *zn[] = {"nope"}, *zz[] = {"id", "ID"};
  o.read_version = -1;
  o.zorder_by = zp;
  o.n_zorder_by = 1;
  CHECK_EQ_INT(optimize_at(tbl, &o, &r), DELTA_EINVAL);
  o.zorder_by = zn;
  CHECK_EQ_INT(optimize_at(tbl, &o, &r), DELTA_ENOTFOUND);
  o.zorder_by = zz;
  o.n_zorder_by = 2;
  CHECK_EQ_INT(optimize_at(tbl, &o, &r), DELTA_EINVAL);
  o.version = 99;
  CHECK_EQ_INT(optimize_at(tbl, &o, &r), DELTA_EINVAL);
  CHECK_EQ_INT(latest(tbl, NULL), 5);
}

int main(void) {
  const char *bin = getenv("DELTAC_BIN");
  if (!bin || access(bin, X_OK) != 0) TEST_MISSING("DELTAC_BIN is not set to a built deltac");
  char dir[] = "/tmp/deltac-maint-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  test_conflicts(bin, dir);
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK_EQ_INT(system(cmd), 0);
  TEST_MAIN_END();
}
