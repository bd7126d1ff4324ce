/* Unit test for the commit loop (src/txn/commit.c): the conflict rules
 * after a lost put-if-absent race, checked by committing "behind" another
 * writer's commit on a real table in a temporary directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac.h"
#include "json/json.h"
#include "log/snapshot.h"
#include "storage/storage_internal.h"
#include "test.h"
#include "util/alloc_internal.h"
#include "txn/commit.h"
#include "write/input_text.h"

/* The operations take an open table: open `loc`, run, free. */
static int write_at(const char *loc, struct ArrowArrayStream *in, const delta_write_options *o,
                    delta_write_result *r) {
  delta_table *t = NULL;
  int rc = delta_table_open(&t, loc);
  if (rc) {
    if (in && in->release) in->release(in);
    return rc;
  }
  rc = delta_write(t, in, o, r);
  delta_table_free(t);
  return rc;
}

static char root[256];

/* Write NDJSON rows through the public API. */
static int write_rows(const char *table, const char *ndjson, delta_write_mode mode, bool merge, const char *app,
                      int64_t app_version, delta_write_result *r) {
  struct ArrowArrayStream s;
  delta_table *t = NULL;
  delta_snapshot *snap = NULL;
  const delta_type *schema = NULL;
  if (delta_table_open(&t, table) == 0 && delta_snapshot_open(&snap, t, NULL) == 0) schema = snap->schema;
  char *text = mem_strdup(ndjson);
  int rc = input_text_stream(text, strlen(text), INPUT_NDJSON, schema, 0, &s);
  delta_snapshot_free(snap);
  delta_table_free(t);
  if (rc) return rc;
  delta_write_options o = DELTA_WRITE_OPTIONS_INIT;
  o.mode = mode;
  o.schema_merge = merge;
  o.app_id = app;
  o.app_version = app_version;
  return write_at(table, &s, &o, r);
}

static commit_request base_request(delta_storage *st, int64_t read_version, const char *actions) {
  commit_request req;
  memset(&req, 0, sizeof req);
  req.storage = st;
  req.read_version = read_version;
  req.operation = "WRITE";
  req.params_json = "{\"mode\":\"Append\"}";
  req.blind_append = true;
  req.actions = actions;
  req.actions_len = strlen(actions);
  return req;
}

static const char add_line[] =
    "{\"add\":{\"path\":\"x.parquet\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n";

static void test_blind_append_retries(const char *table, delta_storage *st) {
  delta_write_result r;
  CHECK_EQ_INT(write_rows(table, "{\"a\":1}\n", DELTA_WRITE_APPEND, false, NULL, 0, &r), 0); /* v0 */
  CHECK_EQ_INT(write_rows(table, "{\"a\":2}\n", DELTA_WRITE_APPEND, false, NULL, 0, &r), 0); /* v1 */
  commit_request req = base_request(st, 0, add_line); /* read v0, v1 won the race */
  commit_outcome out;
  CHECK_EQ_INT(commit_run(&req, &out), 0);
  CHECK_EQ_INT(out.version, 2);
  CHECK_EQ_INT(out.attempts, 2);
  CHECK(!out.skipped);
}

static void test_metadata_conflict(const char *table, delta_storage *st) {
  delta_write_result r;
  /* v3: a schema change (merge adds column b) */
  CHECK_EQ_INT(write_rows(table, "{\"a\":3,\"b\":\"x\"}\n", DELTA_WRITE_APPEND, true, NULL, 0, &r), 0);
  CHECK_EQ_INT(r.version, 3);
  commit_request req = base_request(st, 2, add_line);
  commit_outcome out;
  CHECK_EQ_INT(commit_run(&req, &out), DELTA_ECONFLICT);
  CHECK(strstr(delta_error_last(), "version 3") && strstr(delta_error_last(), "metadata"));
  /* the conflict left nothing behind */
  delta_file_info fi;
  CHECK_EQ_INT(delta_storage_head(st, "_delta_log/00000000000000000004.json", &fi), DELTA_ENOTFOUND);
}

static void test_overwrite_conflicts_with_append(const char *table, delta_storage *st) {
  delta_write_result r;
  CHECK_EQ_INT(write_rows(table, "{\"a\":4}\n", DELTA_WRITE_APPEND, false, NULL, 0, &r), 0); /* v4 */
  commit_request req = base_request(st, 3, "");
  req.blind_append = false;
  req.reads_table = true;
  commit_outcome out;
  CHECK_EQ_INT(commit_run(&req, &out), DELTA_ECONFLICT);
  CHECK(strstr(delta_error_last(), "added files") != NULL);
}

static void test_concurrent_delete(const char *table, delta_storage *st) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(delta_table_open(&t, table), 0);
  CHECK_EQ_INT(delta_snapshot_open(&s, t, NULL), 0);
  int64_t v = s->version;
  char *path = mem_strdup(s->files[0].path);
  delta_snapshot_free(s);
  delta_table_free(t);
  /* the winner overwrites (removes every file), we remove one of them too */
  delta_write_result r;
  CHECK_EQ_INT(write_rows(table, "{\"a\":5}\n", DELTA_WRITE_OVERWRITE, false, NULL, 0, &r), 0);
  const char *removed[1] = {path};
  commit_request req = base_request(st, v, "");
  req.blind_append = false;
  req.removed = removed;
  req.n_removed = 1;
  commit_outcome out;
  CHECK_EQ_INT(commit_run(&req, &out), DELTA_ECONFLICT);
  CHECK(strstr(delta_error_last(), "removed file") != NULL);
  mem_free(path);
}

static void test_app_id_race(const char *table, delta_storage *st) {
  delta_write_result r;
  CHECK_EQ_INT(write_rows(table, "{\"a\":6}\n", DELTA_WRITE_APPEND, false, "job", 5, &r), 0);
  int64_t v = r.version;
  /* a replay of app version 5 that read the version before: skipped */
  commit_request req = base_request(st, v - 1, add_line);
  req.app_id = "job";
  req.app_version = 5;
  commit_outcome out;
  CHECK_EQ_INT(commit_run(&req, &out), 0);
  CHECK(out.skipped);
  /* and through the API, from the latest snapshot */
  CHECK_EQ_INT(write_rows(table, "{\"a\":6}\n", DELTA_WRITE_APPEND, false, "job", 4, &r), 0);
  CHECK(r.skipped);
  CHECK_EQ_INT(r.version, v);
  /* another app id is not affected */
  req.app_id = "other";
  CHECK_EQ_INT(commit_run(&req, &out), 0);
  CHECK(!out.skipped);
  CHECK_EQ_INT(out.version, v + 1);
}

static void test_ict_moves_past_winner(delta_storage *st) {
  /* a winner whose in-commit timestamp lies in the future */
  const char *winner = "{\"commitInfo\":{\"inCommitTimestamp\":4102444800000}}\n";
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%020d.json", 1);
  const char *v0 =
      "{\"commitInfo\":{\"inCommitTimestamp\":1}}\n"
      "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":[\"inCommitTimestamp\"]}}\n";
  CHECK_EQ_INT(delta_storage_put(st, "_delta_log/00000000000000000000.json", v0, strlen(v0), false), 0);
  CHECK_EQ_INT(delta_storage_put(st, key, winner, strlen(winner), false), 0);
  commit_request req = base_request(st, 0, add_line);
  req.ict = true;
  req.read_timestamp_ms = 1;
  commit_outcome out;
  CHECK_EQ_INT(commit_run(&req, &out), 0);
  CHECK_EQ_INT(out.version, 2);
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(st, "_delta_log/00000000000000000002.json", &b), 0);
  delta_json_doc *d = NULL;
  json_doc_new(&d);
  const char *nl = memchr(b.data, '\n', b.len);
  CHECK(nl != NULL);
  int64_t ict = 0;
  if (nl && json_parse(d, (const char *)b.data, (size_t)(nl - (const char *)b.data)) == 0)
    json_int64(json_get(json_get(json_root(d), "commitInfo"), "inCommitTimestamp"), &ict);
  CHECK_EQ_INT(ict, 4102444800001LL);
  json_doc_free(d);
  buf_dispose(&b);
}

/* Row ids: a retry reassigns them above the winner's high-water mark and
 * stamps the version actually committed; adds that carry ids keep them. */
static void test_row_ids_after_lost_race(delta_storage *st) {
  const char *v0 =
      "{\"commitInfo\":{}}\n"
      "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":[\"domainMetadata\","
      "\"rowTracking\"]}}\n"
      "{\"domainMetadata\":{\"domain\":\"delta.rowTracking\",\"configuration\":\"{\\\"rowIdHighWaterMark\\\":4}\","
      "\"removed\":false}}\n";
  const char *winner =
      "{\"commitInfo\":{}}\n"
      "{\"domainMetadata\":{\"domain\":\"delta.rowTracking\",\"configuration\":\"{\\\"rowIdHighWaterMark\\\":7}\","
      "\"removed\":false}}\n";
  CHECK_EQ_INT(delta_storage_put(st, "_delta_log/00000000000000000000.json", v0, strlen(v0), false), 0);
  CHECK_EQ_INT(delta_storage_put(st, "_delta_log/00000000000000000001.json", winner, strlen(winner), false), 0);
  const char *actions =
      "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,"
      "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":2}\"}}\n"
      "{\"add\":{\"path\":\"b.parquet\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,"
      "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":3}\",\"baseRowId\":1,\"defaultRowCommitVersion\":0}}\n";
  commit_request req = base_request(st, 0, actions);
  req.row_tracking = true;
  req.row_id_high_water_mark = 4;
  commit_outcome out;
  CHECK_EQ_INT(commit_run(&req, &out), 0);
  CHECK_EQ_INT(out.version, 2);
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(st, "_delta_log/00000000000000000002.json", &b), 0);
  CHECK_EQ_INT(buf_putc(&b, 0), 0);
  const char *text = (const char *)b.data;
  const char *a = strstr(text, "a.parquet"), *bb = strstr(text, "b.parquet");
  CHECK(a && strstr(a, "\"baseRowId\":8,\"defaultRowCommitVersion\":2"));
  CHECK(bb && strstr(bb, "\"baseRowId\":1,\"defaultRowCommitVersion\":0"));
  CHECK(strstr(text, "rowIdHighWaterMark\\\":9") != NULL);
  buf_dispose(&b);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/deltac-commit-XXXXXX");
  if (!mkdtemp(root)) return 1;
  char table[300], ict_table[300], rt_table[300];
  snprintf(rt_table, sizeof rt_table, "%s/rt", root);
  snprintf(table, sizeof table, "%s/t", root);
  snprintf(ict_table, sizeof ict_table, "%s/ict", root);
  delta_storage *st = NULL, *st2 = NULL;
  CHECK_EQ_INT(delta_storage_open(&st, table), 0);
  CHECK_EQ_INT(delta_storage_open(&st2, ict_table), 0);
  test_blind_append_retries(table, st);
  test_metadata_conflict(table, st);
  test_overwrite_conflicts_with_append(table, st);
  test_concurrent_delete(table, st);
  test_app_id_race(table, st);
  test_ict_moves_past_winner(st2);
  delta_storage *st3 = NULL;
  CHECK_EQ_INT(delta_storage_open(&st3, rt_table), 0);
  test_row_ids_after_lost_race(st3);
  delta_storage_free(st3);
  delta_storage_free(st);
  delta_storage_free(st2);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  TEST_MAIN_END();
}
