/* Log replay and snapshots: synthetic logs for each reconciliation rule and
 * segment shape, and the shared conformance tables read through their
 * checkpoints and again through their commits alone, which must agree. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "deltac/error.h"
#include "log/snapshot.h"
#include "test.h"
#include "util/alloc_internal.h"

static char root[256];

static void write_file(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + strlen(root) + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(dir, 0755);
      *p = '/';
    }
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void set_mtime(const char *rel, long long ms) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  struct timeval tv[2] = {{ms / 1000, (ms % 1000) * 1000}, {ms / 1000, (ms % 1000) * 1000}};
  utimes(path, tv);
}

static void fresh_table(const char *name) {
  snprintf(root, sizeof root, "%s/%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/_delta_log'", root, root);
  CHECK(system(cmd) == 0);
}

#define PROTO "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
#define META(cfg)                                                                                   \
  "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":" \
  "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"x\\\",\\\"type\\\":\\\"long\\\","   \
  "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{" cfg     \
  "}}}\n"
#define ADD(p) "{\"add\":{\"path\":\"" p "\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n"
#define REMOVE(p) "{\"remove\":{\"path\":\"" p "\",\"deletionTimestamp\":5,\"dataChange\":true}}\n"
#define DV "\"deletionVector\":{\"storageType\":\"i\",\"pathOrInlineDv\":\"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L\",\"sizeInBytes\":40,\"cardinality\":6}"

static int open_at(delta_snapshot **s, int64_t version, bool at_version, int64_t ts, bool at_ts) {
  delta_table *t = NULL;
  int rc = delta_table_open(&t, root);
  if (rc) return rc;
  delta_snapshot_options o = DELTA_SNAPSHOT_OPTIONS_INIT;
  o.at_version = at_version;
  o.table_version = version;
  o.at_timestamp = at_ts;
  o.timestamp_ms = ts;
  rc = delta_snapshot_open(s, t, &o);
  if (rc) delta_table_free(t);
  return rc;
}

static void close_snap(delta_snapshot *s) {
  if (!s) return;
  delta_table *t = s->table;
  delta_snapshot_free(s);
  delta_table_free(t);
}

static bool has_file(const delta_snapshot *s, const char *path, bool with_dv) {
  for (int64_t i = 0; i < s->n_files; i++)
    if (strcmp(s->files[i].path, path) == 0 && s->files[i].dv.present == with_dv) return true;
  return false;
}

static void test_reconciliation(void) {
  fresh_table("deltac-test-recon");
  write_file("_delta_log/00000000000000000000.json",
             "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n" PROTO META("") ADD("a") ADD("b")
             "{\"txn\":{\"appId\":\"app\",\"version\":3}}\n"
             "{\"domainMetadata\":{\"domain\":\"d1\",\"configuration\":\"{}\",\"removed\":false}}\n"
             "{\"domainMetadata\":{\"domain\":\"d2\",\"configuration\":\"{}\",\"removed\":false}}\n"
             "{\"someFutureAction\":{\"x\":1}}\n");
  write_file("_delta_log/00000000000000000001.json",
             REMOVE("a") ADD("c") "{\"txn\":{\"appId\":\"app\",\"version\":2}}\n"
             "{\"domainMetadata\":{\"domain\":\"d2\",\"configuration\":\"{}\",\"removed\":true}}\n");
  /* The same path with a deletion vector is a different logical file. */
  write_file("_delta_log/00000000000000000002.json",
             "{\"add\":{\"path\":\"c\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true," DV
             "}}\n" REMOVE("c") "{\"add\":{\"path\":\"b\",\"partitionValues\":{},\"size\":7,\"modificationTime\":1,"
             "\"dataChange\":false,\"unknownField\":[1,2]}}\n");
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(open_at(&s, 0, false, 0, false), 0);
  if (!s) return;
  CHECK_EQ_INT(s->version, 2);
  CHECK_EQ_INT(s->n_files, 2);
  CHECK(has_file(s, "b", false));
  CHECK(has_file(s, "c", true));
  for (int64_t i = 0; i < s->n_files; i++)
    if (strcmp(s->files[i].path, "b") == 0) CHECK_EQ_INT(s->files[i].size, 7); /* re-added: newest stats win */
  CHECK_EQ_INT(s->n_tombstones, 2); /* a, and c without DV */
  CHECK_EQ_INT(s->n_txns, 1);
  CHECK_EQ_INT(s->txns[0].version, 2); /* latest, even though smaller */
  CHECK_EQ_INT(s->n_domains, 1);
  CHECK_STR(s->domains[0].domain, "d1");
  close_snap(s);
  /* Time travel by version. */
  CHECK_EQ_INT(open_at(&s, 1, true, 0, false), 0);
  if (s) {
    CHECK_EQ_INT(s->n_files, 2);
    CHECK(has_file(s, "b", false) && has_file(s, "c", false));
    close_snap(s);
  }
  CHECK_EQ_INT(open_at(&s, 0, true, 0, false), 0);
  if (s) {
    CHECK_EQ_INT(s->n_files, 2);
    CHECK(s->commit_info && strstr(s->commit_info, "WRITE"));
    close_snap(s);
  }
  CHECK_EQ_INT(open_at(&s, 3, true, 0, false), DELTA_ENOTFOUND);
}

static void test_gap_and_corruption(void) {
  fresh_table("deltac-test-gap");
  write_file("_delta_log/00000000000000000000.json", PROTO META("") ADD("a"));
  write_file("_delta_log/00000000000000000002.json", ADD("b"));
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(open_at(&s, 0, false, 0, false), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "version 1") != NULL);
  CHECK_EQ_INT(open_at(&s, 0, true, 0, false), 0); /* before the gap is fine */
  close_snap(s);

  fresh_table("deltac-test-badjson");
  write_file("_delta_log/00000000000000000000.json", PROTO META("") ADD("a"));
  write_file("_delta_log/00000000000000000001.json", ADD("b") "{\"add\":{\"path\":\"c\",\"size\":}}\n");
  CHECK_EQ_INT(open_at(&s, 0, false, 0, false), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "00000000000000000001.json line 2") != NULL);

  /* A stale or corrupt _last_checkpoint hint never matters: the listing decides. */
  fresh_table("deltac-test-hint");
  write_file("_delta_log/00000000000000000000.json", PROTO META("") ADD("a"));
  write_file("_delta_log/_last_checkpoint", "{\"version\":7,\"size\":3}garbage");
  CHECK_EQ_INT(open_at(&s, 0, false, 0, false), 0);
  if (s) CHECK_EQ_INT(s->n_files, 1);
  close_snap(s);

  /* History cleaned up with no checkpoint to start from. */
  fresh_table("deltac-test-cleaned");
  write_file("_delta_log/00000000000000000003.json", PROTO META("") ADD("a"));
  CHECK_EQ_INT(open_at(&s, 0, false, 0, false), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "starts at version 3") != NULL);

  /* Unsupported reader features are named. */
  fresh_table("deltac-test-feature");
  write_file("_delta_log/00000000000000000000.json",
             "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\","
             "\"fancyNewThing\"],\"writerFeatures\":[\"deletionVectors\",\"fancyNewThing\"]}}\n" META(""));
  CHECK_EQ_INT(open_at(&s, 0, false, 0, false), DELTA_EUNSUPPORTED);
  CHECK(strstr(delta_error_last(), "fancyNewThing") != NULL);
  CHECK(strstr(delta_error_last(), "deletionVectors") == NULL);
}

static void test_in_commit_timestamps(void) {
  /* v0 and v1 without ICT (file times decide), ICT enabled at v2 with
   * in-commit timestamps far from the file times. */
  fresh_table("deltac-test-ict");
  write_file("_delta_log/00000000000000000000.json", PROTO META("") ADD("a"));
  write_file("_delta_log/00000000000000000001.json", ADD("b"));
  write_file("_delta_log/00000000000000000002.json",
             "{\"commitInfo\":{\"inCommitTimestamp\":5000000}}\n" META(
                 "\"delta.enableInCommitTimestamps\":\"true\",\"delta.inCommitTimestampEnablementVersion\":\"2\","
                 "\"delta.inCommitTimestampEnablementTimestamp\":\"5000000\"") ADD("c"));
  write_file("_delta_log/00000000000000000003.json", "{\"commitInfo\":{\"inCommitTimestamp\":6000000}}\n" ADD("d"));
  set_mtime("_delta_log/00000000000000000000.json", 1000000);
  set_mtime("_delta_log/00000000000000000001.json", 2000000);
  set_mtime("_delta_log/00000000000000000002.json", 9000000); /* file times after enablement do not count */
  set_mtime("_delta_log/00000000000000000003.json", 100);
  delta_snapshot *s = NULL;
  static const struct { long long ts; int64_t version; } cases[] = {
      {1000000, 0}, {1500000, 0}, {2000000, 1}, {4999999, 1}, {5000000, 2}, {5999999, 2}, {6000000, 3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int rc = open_at(&s, 0, false, cases[i].ts, true);
    CHECK_EQ_INT(rc, 0);
    if (!rc) {
      CHECK_EQ_INT(s->version, cases[i].version);
      close_snap(s);
    }
  }
  CHECK_EQ_INT(open_at(&s, 0, false, 999999, true), DELTA_ENOTFOUND);
  CHECK_EQ_INT(open_at(&s, 0, false, 6000001, true), DELTA_ENOTFOUND);
  CHECK_EQ_INT(open_at(&s, 0, false, 0, false), 0);
  if (s) {
    CHECK_EQ_INT(s->timestamp_ms, 6000000);
    close_snap(s);
  }
}

/* Every shared table whose history starts at 0 and has a checkpoint: the
 * live files through the checkpoint equal those through the commits alone. */
static int compare_keys(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char **file_keys(const delta_snapshot *s) {
  char **k = calloc((size_t)s->n_files + 1, sizeof *k);
  for (int64_t i = 0; i < s->n_files; i++) {
    const delta_add *a = &s->files[i];
    size_t n = strlen(a->path) + (a->dv.present ? strlen(a->dv.unique_id) : 0) + 2;
    k[i] = malloc(n);
    snprintf(k[i], n, "%s|%s", a->path, a->dv.present ? a->dv.unique_id : "");
  }
  qsort(k, (size_t)s->n_files, sizeof *k, compare_keys);
  return k;
}

static void test_checkpoints_agree_with_commits(void) {
  const char *sh = getenv("DELTAC_SHARED");
  char dir[512];
  snprintf(dir, sizeof dir, "%s/conformance/tables", sh ? sh : "../shared");
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  if (!d) return;
  int compared = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    delta_table *t = NULL;
    if (delta_table_open(&t, path)) continue;
    log_listing l;
    if (log_list(t->storage, &l)) {
      delta_table_free(t);
      continue;
    }
    delta_snapshot *a = NULL, *b = NULL;
    bool has_cp = false;
    int64_t commits = 0;
    for (int i = 0; i < l.n; i++) commits += l.entries[i].info.kind == LOG_COMMIT;
    for (int i = 0; i < l.n; i++) has_cp |= l.entries[i].info.kind != LOG_COMMIT && l.entries[i].info.kind != LOG_CRC &&
                                            l.entries[i].info.kind != LOG_COMPACTION;
    /* Only tables with every commit from 0 can be replayed without checkpoints. */
    if (has_cp && l.earliest_commit == 0 && commits == l.latest + 1 && snapshot_load(t, &l, l.latest, INT64_MAX, &a) == 0 &&
        a->cp_version >= 0) {
      int rc = snapshot_load(t, &l, l.latest, -1, &b);
      if (rc) fprintf(stderr, "table %s: commits alone: %s\n", e->d_name, delta_error_last());
      CHECK_EQ_INT(rc, 0);
      if (!rc) {
        compared++;
        CHECK_EQ_INT(a->n_files, b->n_files);
        /* kernel-rs.parquet_row_group_skipping's checkpoint was written with another
         * table id than its commit 0 (a test-data artifact); its files agree. */
        if (strcmp(e->d_name, "kernel-rs.parquet_row_group_skipping") != 0) CHECK_STR(a->metadata.id, b->metadata.id);
        CHECK_EQ_INT(a->protocol.min_reader_version, b->protocol.min_reader_version);
        CHECK_EQ_INT(a->n_txns, b->n_txns);
        if (a->n_files == b->n_files) {
          char **ka = file_keys(a), **kb = file_keys(b);
          int diff = 0;
          for (int64_t i = 0; i < a->n_files; i++) diff += strcmp(ka[i], kb[i]) != 0;
          if (diff) fprintf(stderr, "table %s: %d files differ between checkpoint and commits\n", e->d_name, diff);
          CHECK_EQ_INT(diff, 0);
          for (int64_t i = 0; i < a->n_files; i++) free(ka[i]), free(kb[i]);
          free(ka);
          free(kb);
        } else {
          fprintf(stderr, "table %s: %lld files via checkpoint, %lld via commits\n", e->d_name,
                  (long long)a->n_files, (long long)b->n_files);
        }
      }
    }
    delta_snapshot_free(a);
    delta_snapshot_free(b);
    log_listing_dispose(&l);
    delta_table_free(t);
  }
  closedir(d);
  printf("compared %d tables with checkpoints against their commits\n", compared);
  CHECK(compared >= 10);
}

static void test_incremental_update(void) {
  fresh_table("deltac-test-update");
  write_file("_delta_log/00000000000000000000.json", PROTO META("") ADD("a") ADD("b"));
  delta_snapshot *old = NULL, *upd = NULL, *again = NULL, *fresh = NULL;
  CHECK_EQ_INT(open_at(&old, 0, false, 0, false), 0);
  if (!old) return;
  /* Nothing new: the same state. */
  CHECK_EQ_INT(delta_snapshot_update(&again, old), 0);
  if (again) {
    CHECK_EQ_INT(again->version, 0);
    CHECK_EQ_INT(again->n_files, 2);
    delta_snapshot_free(again);
  }
  write_file("_delta_log/00000000000000000001.json", REMOVE("a") ADD("c") "{\"txn\":{\"appId\":\"x\",\"version\":9}}\n");
  write_file("_delta_log/00000000000000000002.json",
             "{\"add\":{\"path\":\"b\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,\"dataChange\":true," DV
             "}}\n" REMOVE("b"));
  CHECK_EQ_INT(delta_snapshot_update(&upd, old), 0);
  delta_table *t = old->table;
  delta_snapshot_free(old); /* the update keeps what it shares with old alive */
  if (upd) {
    CHECK_EQ_INT(upd->version, 2);
    CHECK_EQ_INT(upd->n_files, 2);
    CHECK(has_file(upd, "b", true) && has_file(upd, "c", false) && !has_file(upd, "a", false));
    CHECK_EQ_INT(upd->n_txns, 1);
    CHECK_EQ_INT(delta_snapshot_open(&fresh, t, NULL), 0);
    if (fresh) {
      CHECK_EQ_INT(fresh->n_files, upd->n_files);
      CHECK_EQ_INT(fresh->n_tombstones, upd->n_tombstones);
      delta_snapshot_free(fresh);
    }
    delta_snapshot_free(upd);
  }
  delta_table_free(t);
}

static void test_num_records(void) {
  static const struct { const char *s; long long want; } cases[] = {
      {"{\"numRecords\":3,\"minValues\":{}}", 3},
      {"{\"minValues\":{\"numRecords\":5},\"numRecords\":7}", 7},
      {"{\"minValues\":{\"a\":\"\\\"numRecords\\\":9\"},\"numRecords\": 11}", 11},
      {"{}", -1},
      {"{\"numRecords\":\"x\"}", -1},
      {"", -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK_EQ_INT(log_stats_num_records(cases[i].s, strlen(cases[i].s)), cases[i].want);
  /* A snapshot that keeps only record counts agrees with the full one. */
  const char *sh = getenv("DELTAC_SHARED");
  char path[512];
  snprintf(path, sizeof path, "%s/conformance/tables/kernel-rs.v1-single-part-struct-stats-only", sh ? sh : "../shared");
  delta_table *t = NULL;
  if (delta_table_open(&t, "tests/resources") == 0) delta_table_free(t);
  snprintf(path, sizeof path, "%s/conformance/tables/kernel-rs-golden.checkpoint", sh ? sh : "../shared");
  CHECK_EQ_INT(delta_table_open(&t, path), 0);
  if (!t) return;
  delta_snapshot *full = NULL, *light = NULL;
  delta_snapshot_options o = DELTA_SNAPSHOT_OPTIONS_INIT;
  CHECK_EQ_INT(delta_snapshot_open(&full, t, &o), 0);
  o.stats_records_only = true;
  CHECK_EQ_INT(delta_snapshot_open(&light, t, &o), 0);
  if (full && light) {
    CHECK_EQ_INT(full->n_files, light->n_files);
    for (int64_t i = 0; i < full->n_files && i < light->n_files; i++)
      CHECK_EQ_INT(full->files[i].num_records, light->files[i].num_records);
  }
  delta_snapshot_free(full);
  delta_snapshot_free(light);
  delta_table_free(t);
}

/* Opening with options: unknown keys fail naming the key (never the value),
 * the table keeps its options for other locations, and a table can sit on an
 * embedder's storage handle. */
static void test_open_forms(void) {
  const char *sh = getenv("DELTAC_SHARED");
  char path[512];
  snprintf(path, sizeof path, "%s/conformance/tables/kernel-rs-golden.checkpoint", sh ? sh : "../shared");
  delta_table *t = NULL;
  const char *bad_k[] = {"aws_region", "no_such_option"}, *bad_v[] = {"eu-west-1", "s3cr3t"};
  CHECK(delta_table_open_options(&t, path, bad_k, bad_v, 2) == DELTA_EINVAL);
  CHECK(t == NULL);
  CHECK(strstr(delta_error_last(), "no_such_option") != NULL);
  CHECK(strstr(delta_error_last(), "s3cr3t") == NULL);

  const char *k[] = {"timeout"}, *v[] = {"5s"};
  CHECK_EQ_INT(delta_table_open_options(&t, path, k, v, 1), 0);
  if (t) {
    CHECK_EQ_INT((int)t->n_opts, 1);
    delta_storage *other = NULL;
    CHECK_EQ_INT(table_open_other_storage(t, "/tmp", &other), 0);
    delta_storage_free(other);
    delta_snapshot *s = NULL;
    CHECK_EQ_INT(delta_snapshot_open(&s, t, NULL), 0);
    delta_snapshot_free(s);
    delta_table_free(t);
  }

  delta_storage *st = NULL;
  CHECK_EQ_INT(delta_storage_open(&st, path), 0);
  CHECK_EQ_INT(delta_table_open_storage(&t, st), 0);
  if (t) {
    CHECK_STR(delta_table_location(t), delta_storage_location(st));
    delta_snapshot *s = NULL;
    CHECK_EQ_INT(delta_snapshot_open(&s, t, NULL), 0);
    if (s) CHECK(delta_snapshot_version(s) >= 0);
    delta_snapshot_free(s);
    delta_table_free(t); /* frees st too */
  } else {
    delta_storage_free(st);
  }
  CHECK_EQ_INT(delta_table_open_storage(&t, NULL), DELTA_EINVAL);
}

int main(void) {
  test_open_forms();
  test_num_records();
  test_incremental_update();
  test_reconciliation();
  test_gap_and_corruption();
  test_in_commit_timestamps();
  test_checkpoints_agree_with_commits();
  TEST_MAIN_END();
}
