/* The change data feed, one rule at a time: cdc files over adds/removes,
 * dataChange=false, deletion-vector differences (inline and file DVs),
 * in-commit timestamps vs file times, range errors (reported up front, by
 * the stream and the plan alike), empty timestamp ranges and column
 * mapping. Shared conformance tables where they have the case; otherwise
 * small tables in a temp dir: hand-written _delta_log JSON over Parquet
 * files copied from the shared tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/stat.h>

#include "deltac/changes.h"
#include "deltac/error.h"
#include "test.h"

static char shared[512];
static char root[512];

/* ---- tables on disk ---- */

static void table_path(char *out, size_t n, const char *name) { snprintf(out, n, "%s/conformance/tables/%s", shared, name); }

static void fresh_table(const char *name) {
  snprintf(root, sizeof root, "%s/deltac-test-cdf-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/_delta_log'", root, root);
  CHECK(system(cmd) == 0);
}

/* A copy of a shared table to change. */
static void copy_table(const char *name) {
  fresh_table(name);
  char src[600], cmd[1800];
  table_path(src, sizeof src, name);
  snprintf(cmd, sizeof cmd, "cp -r '%s/.' '%s/'", src, root);
  CHECK(system(cmd) == 0);
}

/* Copy one file of a shared table into the temp table as `to`. */
static void copy_file(const char *table, const char *file, const char *to) {
  char src[600], cmd[1800];
  table_path(src, sizeof src, table);
  snprintf(cmd, sizeof cmd, "cp '%s/%s' '%s/%s'", src, file, root, to);
  CHECK(system(cmd) == 0);
}

static void write_commit(int64_t v, const char *text, long long mtime_ms) {
  char path[700];
  snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", root, (long long)v);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
  if (mtime_ms >= 0) {
    struct timeval tv[2] = {{mtime_ms / 1000, (mtime_ms % 1000) * 1000}, {mtime_ms / 1000, (mtime_ms % 1000) * 1000}};
    utimes(path, tv);
  }
}

/* ---- reading the feed ---- */

typedef struct {
  int64_t version, ts_us, id;
  char type[20];
} change_row;

typedef struct {
  change_row rows[256];
  int n;
  int rc;              /* of delta_changes_read */
  int stream_rc;       /* of the first failing get_next, 0 if none */
  int n_columns;
  char names[8][40];
} feed;

static int64_t int_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i) {
  if (strcmp(s->format, "l") == 0) return ((const int64_t *)a->buffers[1])[a->offset + i];
  if (strcmp(s->format, "i") == 0) return ((const int32_t *)a->buffers[1])[a->offset + i];
  return -1;
}

/* Every row of the feed of `dir` (a full path) over opts, the first column
 * read as an integer. */
static void read_feed(const char *dir, delta_changes_options *opts, feed *out) {
  memset(out, 0, sizeof *out);
  delta_table *t = NULL;
  out->rc = delta_table_open(&t, dir);
  struct ArrowArrayStream st = {0};
  if (!out->rc) out->rc = delta_changes_read(t, opts, &st);
  if (out->rc) {
    delta_table_free(t);
    return;
  }
  struct ArrowSchema schema;
  CHECK(st.get_schema(&st, &schema) == 0);
  out->n_columns = (int)schema.n_children;
  for (int i = 0; i < out->n_columns && i < 8; i++) snprintf(out->names[i], sizeof out->names[i], "%s", schema.children[i]->name);
  int ct = out->n_columns - 3;
  for (;;) {
    struct ArrowArray b;
    if (st.get_next(&st, &b) != 0) {
      out->stream_rc = -1;
      break;
    }
    if (!b.release) break;
    const struct ArrowArray *ca = b.children[ct], *va = b.children[ct + 1], *ta = b.children[ct + 2];
    const int32_t *off = ca->buffers[1];
    const char *bytes = ca->buffers[2];
    for (int64_t i = 0; i < b.length && out->n < 256; i++) {
      change_row *r = &out->rows[out->n++];
      r->version = ((const int64_t *)va->buffers[1])[va->offset + i];
      r->ts_us = ((const int64_t *)ta->buffers[1])[ta->offset + i];
      r->id = ct > 0 ? int_at(schema.children[0], b.children[0], i) : -1;
      int64_t j = ca->offset + i;
      snprintf(r->type, sizeof r->type, "%.*s", (int)(off[j + 1] - off[j]), bytes + off[j]);
    }
    b.release(&b);
  }
  schema.release(&schema);
  st.release(&st);
  delta_table_free(t);
}

static int count(const feed *f, int64_t version, const char *type) {
  int n = 0;
  for (int i = 0; i < f->n; i++)
    if ((version < 0 || f->rows[i].version == version) && (!type || strcmp(f->rows[i].type, type) == 0)) n++;
  return n;
}

static bool has_row(const feed *f, int64_t version, const char *type, int64_t id) {
  for (int i = 0; i < f->n; i++)
    if (f->rows[i].version == version && strcmp(f->rows[i].type, type) == 0 && f->rows[i].id == id) return true;
  return false;
}

static delta_changes_options versions(int64_t from, int64_t to) {
  delta_changes_options o = DELTA_CHANGES_OPTIONS_INIT;
  o.start_version = from;
  if (to >= 0) {
    o.has_end = true;
    o.end_version = to;
  }
  return o;
}

static delta_changes_options timestamps(int64_t from_ms, int64_t to_ms) {
  delta_changes_options o = DELTA_CHANGES_OPTIONS_INIT;
  o.start_is_timestamp = true;
  o.start_timestamp_ms = from_ms;
  if (to_ms >= 0) o.has_end = o.end_is_timestamp = true;
  o.end_timestamp_ms = to_ms;
  return o;
}

/* The plan's open result for the same options (range errors must agree). */
static int plan_rc(const char *dir, const delta_changes_options *o, int *n_files) {
  delta_table *t = NULL;
  int rc = delta_table_open(&t, dir);
  delta_changes_plan *p = NULL;
  if (!rc) rc = delta_changes_plan_open(&p, t, o);
  *n_files = 0;
  delta_change_file f;
  int r;
  while (!rc && (r = delta_changes_plan_next(p, &f)) == 0) (*n_files)++;
  delta_changes_plan_free(p);
  delta_table_free(t);
  return rc;
}

/* ---- the rules ---- */

#define PROTO "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":4}}\n"
#define META(cfg)                                                                                   \
  "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":" \
  "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","  \
  "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{" cfg      \
  "}}}\n"
#define CDF_ON "\"delta.enableChangeDataFeed\":\"true\""
#define ADD(p, dc) "{\"add\":{\"path\":\"" p "\",\"partitionValues\":{},\"size\":500,\"modificationTime\":1,\"dataChange\":" dc "}}\n"
#define REMOVE(p, dc) "{\"remove\":{\"path\":\"" p "\",\"deletionTimestamp\":5,\"dataChange\":" dc "}}\n"
#define SIMPLE "kernel-rs.cdf-table-simple"
#define SIMPLE_A "test%file%prefix-part-00000-1b5eb6e2-b114-483c-9770-a8158a8bcd17-c000.snappy.parquet" /* ids 0-4 */
#define SIMPLE_B "test%file%prefix-part-00001-a185e696-a4bb-478d-b718-3e6d8879431d-c000.snappy.parquet" /* ids 5-9 */

/* A commit with cdc files gives only their rows, typed by their own
 * _change_type column, never its adds and removes. */
static void test_cdc_priority(void) {
  char dir[600];
  table_path(dir, sizeof dir, "delta-rs.cdf-table-with-cdc-and-dvs");
  delta_changes_options o = versions(9, 9); /* remove + add + cdc */
  feed f;
  read_feed(dir, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(f.n, 6);
  CHECK_EQ_INT(count(&f, 9, "update_preimage"), 3);
  CHECK_EQ_INT(count(&f, 9, "update_postimage"), 3);

  /* The same cdc file next to an add of 5 rows and a remove of 5 in a commit
   * of our own: still only the cdc rows. */
  copy_table("delta-rs.cdf-table-with-cdc-and-dvs");
  char log9[700], cmd[1600];
  snprintf(log9, sizeof log9, "%s/_delta_log/00000000000000000009.json", root);
  snprintf(cmd, sizeof cmd, "grep '\"cdc\"' '%s' > '%s/cdc.line'", log9, root);
  CHECK(system(cmd) == 0);
  char line[2048] = "", text[4096];
  snprintf(cmd, sizeof cmd, "%s/cdc.line", root);
  FILE *fl = fopen(cmd, "r");
  CHECK(fl && fgets(line, sizeof line, fl));
  if (fl) fclose(fl);
  snprintf(text, sizeof text,
           "{\"commitInfo\":{\"operation\":\"UPDATE\"}}\n"
           "{\"add\":{\"path\":\"part-00000-30ed8a79-9431-403a-a4c9-21c4c421b59d.c000.snappy.parquet\","
           "\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n%s", line);
  write_commit(26, text, -1);
  o = versions(26, 26);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(f.n, 6);
  CHECK_EQ_INT(count(&f, 26, "insert"), 0);
}

/* dataChange=false adds and removes (OPTIMIZE) give nothing. */
static void test_data_change_false(void) {
  char dir[600];
  table_path(dir, sizeof dir, "kernel-rs.cdf-table-data-change");
  delta_changes_options o = versions(0, -1);
  feed f;
  read_feed(dir, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(count(&f, 0, "insert"), 10);
  CHECK_EQ_INT(count(&f, 1, NULL), 0);

  /* Ours: a commit mixing dataChange=false actions with one real add. */
  fresh_table("datachange");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  copy_file(SIMPLE, SIMPLE_B, "b.parquet");
  write_commit(0, PROTO META(CDF_ON) ADD("a.parquet", "true"), 1000000);
  write_commit(1, REMOVE("a.parquet", "false") ADD("b.parquet", "false"), 2000000);
  write_commit(2, REMOVE("b.parquet", "false") REMOVE("a.parquet", "true"), 3000000);
  o = versions(0, -1);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(count(&f, 0, "insert"), 5);
  CHECK_EQ_INT(count(&f, 1, NULL), 0);
  CHECK_EQ_INT(count(&f, 2, "delete"), 5);
  CHECK(has_row(&f, 2, "delete", 4) && !has_row(&f, 2, "delete", 5));
}

/* A file removed and re-added under another DV: rows newly deleted are
 * deletes, rows no longer deleted are inserts; the DVs are on disk (v1) and
 * inline (v3-v5). A removed file with a DV gives only its live rows. */
static void test_dv_differences(void) {
  char dir[600];
  table_path(dir, sizeof dir, "kernel-rs.cdf-table-with-dv");
  delta_changes_options o = versions(0, -1);
  feed f;
  read_feed(dir, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  static const int want[7][2] = {{10, 0}, {0, 2}, {2, 0}, {0, 4}, {2, 0}, {2, 1}, {1, 0}}; /* insert, delete */
  for (int v = 0; v < 7; v++) {
    CHECK_EQ_INT(count(&f, v, "insert"), want[v][0]);
    CHECK_EQ_INT(count(&f, v, "delete"), want[v][1]);
  }
  CHECK_EQ_INT(f.n, 24);
  /* v1 deletes (file DV) are re-inserted by v2: the same rows. */
  for (int i = 0; i < f.n; i++)
    if (f.rows[i].version == 1) CHECK(has_row(&f, 2, "insert", f.rows[i].id));

  /* Ours: remove the file under v5's inline DV (1 row deleted): 9 deletes. */
  copy_table("kernel-rs.cdf-table-with-dv");
  write_commit(7,
               "{\"remove\":{\"path\":\"part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet\","
               "\"deletionTimestamp\":5,\"dataChange\":true,\"deletionVector\":{\"storageType\":\"i\","
               "\"pathOrInlineDv\":\"^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093\",\"sizeInBytes\":34,"
               "\"cardinality\":1}}}\n",
               -1);
  o = versions(7, 7);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(count(&f, 7, "delete"), 9);
  CHECK_EQ_INT(f.n, 9);
  /* The plan says the same: one live-rows task with the DV. */
  int n_files;
  CHECK_EQ_INT(plan_rc(root, &o, &n_files), 0);
  CHECK_EQ_INT(n_files, 1);

  /* Pairing is by path among many: b removed and re-added (no DV either
   * side) changes nothing; a and c, removed alone, are deleted. */
  fresh_table("pairs");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  copy_file(SIMPLE, SIMPLE_B, "b.parquet");
  copy_file(SIMPLE, SIMPLE_A, "c.parquet");
  write_commit(0, PROTO META(CDF_ON) ADD("a.parquet", "true") ADD("b.parquet", "true") ADD("c.parquet", "true"), -1);
  write_commit(1, REMOVE("c.parquet", "true") REMOVE("b.parquet", "true") ADD("b.parquet", "true")
                      REMOVE("a.parquet", "true"), -1);
  o = versions(1, 1);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(count(&f, 1, "delete"), 10);
  CHECK_EQ_INT(f.n, 10);
  CHECK(!has_row(&f, 1, "delete", 5));
}

/* _commit_timestamp: the in-commit timestamp where enabled, whatever the
 * file time; else file times, made strictly increasing. Timestamp ranges
 * resolve on the same times. */
static void test_commit_timestamps(void) {
  fresh_table("ict");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  write_commit(0,
               "{\"commitInfo\":{\"inCommitTimestamp\":5000000}}\n"
               "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":"
               "[\"inCommitTimestamp\",\"changeDataFeed\"]}}\n" META(CDF_ON ",\"delta.enableInCommitTimestamps\":\"true\"")
                   ADD("a.parquet", "true"),
               9000000);
  write_commit(1, "{\"commitInfo\":{\"inCommitTimestamp\":6000000}}\n" REMOVE("a.parquet", "true"), 100);
  delta_changes_options o = versions(0, -1);
  feed f;
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(f.n, 10);
  for (int i = 0; i < f.n; i++) CHECK_EQ_INT(f.rows[i].ts_us, f.rows[i].version == 0 ? 5000000000LL : 6000000000LL);
  o = timestamps(5000001, -1); /* ICT, not the file times (9000000, 100) */
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(count(&f, 0, NULL), 0);
  CHECK_EQ_INT(count(&f, 1, "delete"), 5);
  o = timestamps(0, 5500000);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(count(&f, 0, "insert"), 5);
  CHECK_EQ_INT(count(&f, 1, NULL), 0);

  /* No ICT: file times, the second pushed past the first. */
  fresh_table("mtime");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  write_commit(0, "{\"commitInfo\":{\"timestamp\":1}}\n" PROTO META(CDF_ON) ADD("a.parquet", "true"), 3000000);
  write_commit(1, "{\"commitInfo\":{\"timestamp\":2}}\n" REMOVE("a.parquet", "true"), 2000000);
  o = versions(0, -1);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(f.n, 10);
  for (int i = 0; i < f.n; i++) CHECK_EQ_INT(f.rows[i].ts_us, f.rows[i].version == 0 ? 3000000000LL : 3000001000LL);
}

/* Range errors come from delta_changes_read (and the plan's open), before
 * any row, naming what is wrong. */
static void test_range_errors(void) {
  fresh_table("ranges");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  copy_file(SIMPLE, SIMPLE_B, "b.parquet");
  write_commit(0, PROTO META(CDF_ON) ADD("a.parquet", "true"), -1);
  write_commit(1, ADD("b.parquet", "true"), -1);
  write_commit(2, META("\"delta.enableChangeDataFeed\":\"false\""), -1);
  write_commit(3, REMOVE("b.parquet", "true"), -1);
  write_commit(4, META(CDF_ON), -1);
  write_commit(5, REMOVE("a.parquet", "true"), -1);
  static const struct {
    int64_t from, to;
    int rc;
    const char *msg;
  } cases[] = {
      {0, -1, DELTA_EUNSUPPORTED, "not enabled at version 2"}, /* disabled inside the range */
      {0, 1, 0, NULL},
      {3, 3, DELTA_EUNSUPPORTED, "not enabled at version 3"}, /* disabled at the start */
      {4, 5, 0, NULL},                                        /* re-enabled: fine from there */
      {6, -1, DELTA_EINVAL, "start version 6 is after the latest version 5"},
      {1, 0, DELTA_EINVAL, "end version 0 is before start version 1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    delta_changes_options o = versions(cases[i].from, cases[i].to);
    feed f;
    read_feed(root, &o, &f);
    CHECK_EQ_INT(f.rc, cases[i].rc);
    if (cases[i].msg && !strstr(delta_error_last(), cases[i].msg))
      CHECK_STR(delta_error_last(), cases[i].msg);
    int n_files;
    CHECK_EQ_INT(plan_rc(root, &o, &n_files), cases[i].rc);
    if (!cases[i].rc) CHECK_EQ_INT(f.stream_rc, 0);
  }
  delta_changes_options o = versions(0, 1);
  feed f;
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.n, 10);
  o = timestamps(INT64_MAX / 2, -1);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "after the latest commit") != NULL);

  /* A data file that is missing fails the stream when it gets there, after
   * the rows of the commits before it. */
  fresh_table("missing");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  write_commit(0, PROTO META(CDF_ON) ADD("a.parquet", "true"), -1);
  write_commit(1, ADD("gone.parquet", "true"), -1);
  o = versions(0, -1);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(f.n, 5);
  CHECK(f.stream_rc != 0);
}

/* Two timestamps between the same two commits: no rows, no error. */
static void test_empty_timestamp_range(void) {
  fresh_table("empty");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  write_commit(0, PROTO META(CDF_ON) ADD("a.parquet", "true"), 1000000);
  write_commit(1, REMOVE("a.parquet", "true"), 2000000);
  delta_changes_options o = timestamps(1200000, 1800000);
  feed f;
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(f.stream_rc, 0);
  CHECK_EQ_INT(f.n, 0);
  CHECK_EQ_INT(f.n_columns, 4);
  int n_files;
  CHECK_EQ_INT(plan_rc(root, &o, &n_files), 0);
  CHECK_EQ_INT(n_files, 0);
  o = timestamps(1000000, 1000000); /* exactly one commit */
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.n, 5);
  o = timestamps(1000001, 2000000);
  read_feed(root, &o, &f);
  CHECK_EQ_INT(count(&f, 1, "delete"), 5);
  CHECK_EQ_INT(f.n, 5);
}

/* Column mapping (name mode): logical names, values through physical ones. */
static void test_column_mapping(void) {
  char dir[600];
  table_path(dir, sizeof dir, "kernel-rs.cdf-column-mapping-name-mode");
  delta_changes_options o = versions(1, -1);
  feed f;
  read_feed(dir, &o, &f);
  CHECK_EQ_INT(f.rc, 0);
  CHECK_EQ_INT(f.n_columns, 6);
  CHECK_STR(f.names[0], "id");
  CHECK_STR(f.names[1], "name");
  CHECK_STR(f.names[2], "value");
  CHECK_STR(f.names[3], "_change_type");
  CHECK_STR(f.names[4], "_commit_version");
  CHECK_STR(f.names[5], "_commit_timestamp");
  CHECK(has_row(&f, 2, "update_preimage", 2));
  CHECK(has_row(&f, 2, "update_postimage", 2));
  CHECK(has_row(&f, 3, "insert", 4));
  CHECK_EQ_INT(count(&f, 4, "delete"), 1);
  CHECK_EQ_INT(f.n, 4);
  /* CDF was enabled at version 1, not 0. */
  o = versions(0, -1);
  read_feed(dir, &o, &f);
  CHECK_EQ_INT(f.rc, DELTA_EUNSUPPORTED);
}

/* Schema changes inside the range: the end version's schema must read
 * every version's rows (added columns and widened types yes; a dropped
 * column or a narrowed type no, with the column and version named). */
#define FIELD(name, type) "{\\\"name\\\":\\\"" name "\\\",\\\"type\\\":\\\"" type "\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}"
#define META_FIELDS(fields)                                                                          \
  "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":" \
  "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[" fields "]}\",\"partitionColumns\":[],"                 \
  "\"configuration\":{" CDF_ON "}}}\n"

static void test_schema_changes(void) {
  fresh_table("schema");
  copy_file(SIMPLE, SIMPLE_A, "a.parquet");
  write_commit(0, PROTO META_FIELDS(FIELD("id", "integer")) ADD("a.parquet", "true"), -1);
  write_commit(1, META_FIELDS(FIELD("id", "long") "," FIELD("extra", "string")), -1); /* widened + added */
  write_commit(2, META_FIELDS(FIELD("id", "short") "," FIELD("extra", "string")), -1); /* narrowed */
  write_commit(3, META_FIELDS(FIELD("id", "short")), -1);                            /* extra dropped */
  static const struct {
    int64_t from, to;
    int rc;
    const char *msg;
  } cases[] = {
      {0, 1, 0, NULL},
      {0, 2, DELTA_EUNSUPPORTED, "column id changed type from integer (version 0) to short"},
      {1, 2, DELTA_EUNSUPPORTED, "column id changed type from long (version 1) to short"},
      {2, 2, 0, NULL},
      {2, 3, DELTA_EUNSUPPORTED, "column extra of version 2 was dropped later in the range"},
      {3, 3, 0, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    delta_changes_options o = versions(cases[i].from, cases[i].to);
    feed f;
    read_feed(root, &o, &f);
    CHECK_EQ_INT(f.rc, cases[i].rc);
    if (cases[i].msg && !strstr(delta_error_last(), cases[i].msg)) CHECK_STR(delta_error_last(), cases[i].msg);
  }
  delta_changes_options o = versions(0, 1);
  feed f;
  read_feed(root, &o, &f);
  CHECK_EQ_INT(f.n, 5); /* v0's rows, read with v1's schema */
  CHECK_EQ_INT(f.n_columns, 5);
}

int main(void) {
  snprintf(shared, sizeof shared, "%s", getenv("DELTAC_SHARED") ? getenv("DELTAC_SHARED") : "../shared");
  struct stat st;
  char probe[600];
  table_path(probe, sizeof probe, SIMPLE);
  if (stat(probe, &st) != 0) TEST_MISSING("no shared conformance tables at %s", shared);
  test_cdc_priority();
  test_data_change_false();
  test_dv_differences();
  test_commit_timestamps();
  test_range_errors();
  test_empty_timestamp_range();
  test_column_mapping();
  test_schema_changes();
  TEST_MAIN_END();
}
