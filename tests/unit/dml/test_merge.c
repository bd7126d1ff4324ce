/* Unit test for src/dml/merge.c through the C API: conflicts with
 * concurrent commits (a file removed twice; appends against a MERGE with
 * an insert clause, not against a matched-only one), option checks, the
 * multiple-match error leaving the table alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac.h"
#include "deltac/dml.h"
#include "test.h"
#include "log/snapshot.h"
#include "util/alloc_internal.h"
#include "write/input_text.h"

/* The operations take an open table: open `loc`, run, free. */
static int merge_at(const char *loc, const delta_merge_options *o, delta_merge_result *r) {
  delta_table *t = NULL;
  int rc;
  if ((rc = delta_table_open(&t, loc)) != 0) return rc;
  rc = delta_merge(t, o, r);
  delta_table_free(t);
  return rc;
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

/* MERGE of the NDJSON rows `src` (types inferred: integers are long) ON
 * `on` with `clauses`, options of `version`. */
static int merge_with(const char *tbl, const char *src, const char *on, const delta_merge_clause *cl, int n,
                      bool schema_merge, unsigned version, delta_merge_result *r) {
  size_t len = strlen(src);
  char *text = mem_malloc(len + 1);
  memcpy(text, src, len + 1);
  struct ArrowArrayStream st = {0};
  CHECK_EQ_INT(input_text_stream(text, len, INPUT_NDJSON, NULL, 0, &st), 0);
  delta_merge_options o = DELTA_MERGE_OPTIONS_INIT;
  o.version = version;
  o.source = &st;
  o.on = on;
  o.clauses = cl;
  o.n_clauses = n;
  o.schema_merge = schema_merge;
  int rc = merge_at(tbl, &o, r);
  st.release(&st);
  return rc;
}

/* MERGE of the NDJSON rows `src` with `clauses`, having read `read_version`. */
static int merge(const char *tbl, const char *src, const delta_merge_clause *cl, int n, int64_t read_version,
                 delta_merge_result *r) {
  size_t len = strlen(src);
  char *text = mem_malloc(len + 1);
  memcpy(text, src, len + 1);
  struct ArrowArrayStream st = {0};
  CHECK_EQ_INT(input_text_stream(text, len, INPUT_NDJSON, NULL, 0, &st), 0);
  delta_merge_options o = DELTA_MERGE_OPTIONS_INIT;
  o.source = &st;
  o.on = "t.id = s.id";
  o.clauses = cl;
  o.n_clauses = n;
  o.read_version = read_version;
  int rc = merge_at(tbl, &o, r);
  st.release(&st);
  return rc;
}

/* The table's column names, comma-separated, into buf. */
static void column_names(const char *loc, char *buf, size_t n) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  buf[0] = 0;
  if (delta_table_open(&t, loc) == 0 && delta_snapshot_open(&s, t, NULL) == 0)
    for (int i = 0; i < s->schema->n_fields; i++)
      snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? "," : "", s->schema->fields[i].name);
  delta_snapshot_free(s);
  delta_table_free(t);
}

/* Without an equality in ON: the nested loop, pruned by the ranges. */
static void test_nonequi(const char *bin, const char *dir) {
  char tbl[1024], cmd[4096];
  snprintf(tbl, sizeof tbl, "%s/ne", dir);
  for (int k = 0; k < 3; k++) { /* three files: ids 1-3, 4-6, 7-9 */
    snprintf(cmd, sizeof cmd,
             "printf '{\"id\":%d}\\n{\"id\":%d}\\n{\"id\":%d}\\n' | '%s' write --schema 'id long, v long' "
             "--format ndjson --input - '%s' >/dev/null",
             3 * k + 1, 3 * k + 2, 3 * k + 3, bin, tbl);
    CHECK_EQ_INT(system(cmd), 0);
  }
  delta_merge_clause upd = {DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, NULL, "v = s.lo"};
  delta_merge_result r;
  CHECK_EQ_INT(merge_with(tbl, "{\"lo\":4,\"hi\":5}", "t.id BETWEEN s.lo AND s.hi", &upd, 1, false,
                          DELTA_MERGE_OPTIONS_VERSION, &r),
               0);
  CHECK_EQ_INT(r.rows_updated, 2);
  CHECK_EQ_INT(r.files_considered, 3);
  CHECK_EQ_INT(r.files_skipped, 2);
  /* s.lo > t.id flips to t.id < s.lo: only the first file can hold id < 2 */
  CHECK_EQ_INT(merge_with(tbl, "{\"lo\":2}", "s.lo > t.id", &upd, 1, false, DELTA_MERGE_OPTIONS_VERSION, &r), 0);
  CHECK_EQ_INT(r.rows_updated, 1);
  CHECK_EQ_INT(r.files_skipped, 2);
  /* the smallest lo above every file's max: no file read */
  CHECK_EQ_INT(merge_with(tbl, "{\"lo\":100}\n{\"lo\":50}", "t.id >= s.lo", &upd, 1, false,
                          DELTA_MERGE_OPTIONS_VERSION, &r),
               0);
  CHECK(r.noop);
  CHECK_EQ_INT(r.files_skipped, 3);
  /* OR of equalities: no pruning, both sides match */
  delta_merge_clause upd0 = {DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, NULL, "v = 0"};
  CHECK_EQ_INT(merge_with(tbl, "{\"a\":1,\"b\":9}", "t.id = s.a OR t.id = s.b", &upd0, 1, false,
                          DELTA_MERGE_OPTIONS_VERSION, &r),
               0);
  CHECK_EQ_INT(r.rows_updated, 2);
  CHECK_EQ_INT(r.files_skipped, 0);
}

static void test_evolution(const char *bin, const char *dir) {
  char tbl[1024], cmd[4096], names[256];
  snprintf(tbl, sizeof tbl, "%s/ev", dir);
  snprintf(cmd, sizeof cmd,
           "printf '{\"id\":1,\"n\":1}\\n' | '%s' write --schema 'id long, n integer' --format ndjson --input - '%s' "
           ">/dev/null",
           bin, tbl);
  CHECK_EQ_INT(system(cmd), 0);
  delta_merge_clause all[2] = {{DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, NULL, NULL},
                               {DELTA_MERGE_NOT_MATCHED, DELTA_MERGE_INSERT, NULL, NULL}};
  delta_merge_result r;
  /* the source's n is long: widening is refused, nothing committed */
  CHECK_EQ_INT(merge_with(tbl, "{\"id\":1,\"n\":2,\"x\":\"a\"}", "t.id = s.id", all, 2, true,
                          DELTA_MERGE_OPTIONS_VERSION, &r),
               DELTA_EUNSUPPORTED);
  CHECK(strstr(delta_error_last(), "column n is integer in the table and long in the source") != NULL);
  CHECK_EQ_INT(latest(tbl), 0);
  /* version 1 options have no schema_merge: x is ignored (Spark without evolution) */
  CHECK_EQ_INT(merge_with(tbl, "{\"id\":1,\"x\":\"a\"}", "t.id = s.id", all, 2, true, 1, &r), 0);
  column_names(tbl, names, sizeof names);
  CHECK_STR(names, "id,n");
  /* with it: x appended */
  CHECK_EQ_INT(merge_with(tbl, "{\"id\":2,\"x\":\"b\"}", "t.id = s.id", all, 2, true,
                          DELTA_MERGE_OPTIONS_VERSION, &r),
               0);
  CHECK_EQ_INT(r.rows_inserted, 1);
  column_names(tbl, names, sizeof names);
  CHECK_STR(names, "id,n,x");
  /* a SET naming a new column without evolution: no such column */
  delta_merge_clause newcol = {DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, NULL, "y = s.id * 2"};
  CHECK_EQ_INT(merge_with(tbl, "{\"id\":2}", "t.id = s.id", &newcol, 1, false, DELTA_MERGE_OPTIONS_VERSION, &r),
               DELTA_EINVAL);
  CHECK_EQ_INT(merge_with(tbl, "{\"id\":2}", "t.id = s.id", &newcol, 1, true, DELTA_MERGE_OPTIONS_VERSION, &r), 0);
  column_names(tbl, names, sizeof names);
  CHECK_STR(names, "id,n,x,y");
}

static void test_conflicts(const char *bin, const char *dir, bool dv) {
  char tbl[1024], cmd[4096];
  snprintf(tbl, sizeof tbl, "%s/t%d", dir, dv);
  snprintf(cmd, sizeof cmd,
           "'%s' write --schema 'id long, p string, v long' --partition-by p %s --input '%s/in.ndjson' '%s' >/dev/null",
           bin, dv ? "--property delta.enableDeletionVectors=true" : "", dir, tbl);
  CHECK_EQ_INT(system(cmd), 0);
  delta_merge_clause upd = {DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, NULL, "v = s.v"};
  delta_merge_clause both[2] = {upd, {DELTA_MERGE_NOT_MATCHED, DELTA_MERGE_INSERT, NULL, NULL}};
  delta_merge_result r;
  CHECK_EQ_INT(merge(tbl, "{\"id\":1,\"p\":\"a\",\"v\":10}", &upd, 1, -1, &r), 0);
  CHECK_EQ_INT(r.version, 1);
  CHECK_EQ_INT(r.rows_updated, 1);
  /* read version 0, rewrites the file version 1 removed */
  CHECK_EQ_INT(merge(tbl, "{\"id\":2,\"p\":\"a\",\"v\":20}", &upd, 1, 0, &r), DELTA_ECONFLICT);
  CHECK_EQ_INT(latest(tbl), 1);
  /* read version 0, only the other partition's file: commits */
  CHECK_EQ_INT(merge(tbl, "{\"id\":3,\"p\":\"b\",\"v\":30}", &upd, 1, 0, &r), 0);
  CHECK_EQ_INT(r.version, 2);
  /* a concurrent append (version 3) */
  snprintf(cmd, sizeof cmd, "echo '{\"id\":5,\"p\":\"b\",\"v\":5}' | '%s' write --input - --format ndjson '%s' >/dev/null",
           bin, tbl);
  CHECK_EQ_INT(system(cmd), 0);
  CHECK_EQ_INT(latest(tbl), 3);
  /* with an insert clause it conflicts (the appended rows could have matched) */
  CHECK_EQ_INT(merge(tbl, "{\"id\":5,\"p\":\"b\",\"v\":50}", both, 2, 2, &r), DELTA_ECONFLICT);
  CHECK_EQ_INT(latest(tbl), 3);
  /* matched-only: serializable after the append */
  CHECK_EQ_INT(merge(tbl, "{\"id\":4,\"p\":\"b\",\"v\":40}", &upd, 1, 2, &r), 0);
  CHECK_EQ_INT(r.version, 4);
  /* two source rows for one target row: error, nothing committed */
  CHECK_EQ_INT(merge(tbl, "{\"id\":4,\"v\":1}\n{\"id\":4,\"v\":2}", &upd, 1, -1, &r), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "matched 2 source rows") != NULL);
  CHECK_EQ_INT(latest(tbl), 4);
  /* ... unless all it can do is delete the row */
  delta_merge_clause del = {DELTA_MERGE_MATCHED, DELTA_MERGE_DELETE, NULL, NULL};
  CHECK_EQ_INT(merge(tbl, "{\"id\":4,\"v\":1}\n{\"id\":4,\"v\":2}", &del, 1, -1, &r), 0);
  CHECK_EQ_INT(r.rows_deleted, 1);
  CHECK_EQ_INT(r.version, 5);
  /* nothing matches: no commit */
  CHECK_EQ_INT(merge(tbl, "{\"id\":99,\"v\":1}", &del, 1, -1, &r), 0);
  CHECK(r.noop);
  CHECK_EQ_INT(latest(tbl), 5);
}

static void test_options(const char *dir) {
  char tbl[1024];
  snprintf(tbl, sizeof tbl, "%s/t0", dir);
  delta_merge_options o = DELTA_MERGE_OPTIONS_INIT;
  delta_merge_result r;
  CHECK_EQ_INT(merge_at(tbl, &o, &r), DELTA_EINVAL); /* no source */
  o.version = 99;
  CHECK_EQ_INT(merge_at(tbl, &o, &r), DELTA_EINVAL);
  /* an insert in the matched group, an unconditional clause before another */
  delta_merge_clause bad1 = {DELTA_MERGE_MATCHED, DELTA_MERGE_INSERT, NULL, NULL};
  CHECK_EQ_INT(merge(tbl, "{\"id\":1}", &bad1, 1, -1, &r), DELTA_EINVAL);
  delta_merge_clause bad2[2] = {{DELTA_MERGE_MATCHED, DELTA_MERGE_DELETE, NULL, NULL},
                                {DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, "s.id > 0", "v = 1"}};
  CHECK_EQ_INT(merge(tbl, "{\"id\":1}", bad2, 2, -1, &r), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "only the last clause") != NULL);
  /* an insert may not read the target */
  delta_merge_clause bad3 = {DELTA_MERGE_NOT_MATCHED, DELTA_MERGE_INSERT, NULL, "id = t.id"};
  CHECK_EQ_INT(merge(tbl, "{\"id\":1}", &bad3, 1, -1, &r), DELTA_EINVAL);
}

int main(void) {
  const char *bin = getenv("DELTAC_BIN");
  if (!bin || access(bin, X_OK) != 0) TEST_MISSING("DELTAC_BIN is not set to a built deltac");
  char dir[] = "/tmp/deltac-merge-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char in[1024];
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  FILE *f = fopen(in, "w");
  fputs("{\"id\":1,\"p\":\"a\",\"v\":1}\n{\"id\":2,\"p\":\"a\",\"v\":2}\n{\"id\":3,\"p\":\"b\",\"v\":3}\n"
        "{\"id\":4,\"p\":\"b\",\"v\":4}\n",
        f);
  fclose(f);
  test_conflicts(bin, dir, false);
  test_conflicts(bin, dir, true);
  test_options(dir);
  test_nonequi(bin, dir);
  test_evolution(bin, dir);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK_EQ_INT(system(cmd), 0);
  TEST_MAIN_END();
}
