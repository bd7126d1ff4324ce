/* The storage handle and the local back end: opening locations and file://
 * URIs, list order, read/range/head, missing files, keys that try to leave
 * the root, put-if-absent races between processes and threads, overwrite,
 * idempotent delete, local paths, custom back ends, read-only tables, and
 * the add.path values of real tables in $DELTAC_SHARED/conformance/tables.
 * Everything written goes to a mkdtemp directory removed at the end. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "deltac/error.h"
#include "deltac/storage.h"
#include "storage/path.h"
#include "storage/storage_internal.h"
#include "test.h"
#include "util/buf.h"

static char tmp_root[256];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  chmod(p, 0700); /* undo the read-only test's chmod before removal */
  return remove(p);
}

static int chmod_writable(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)ftw;
  chmod(p, flag == FTW_D || S_ISDIR(st->st_mode) ? 0755 : 0644);
  return 0;
}

static void rm_rf(const char *p) {
  nftw(p, chmod_writable, 16, FTW_PHYS);
  nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh sub-directory of the temp root for one test. */
static const char *subdir(const char *name) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/%s", tmp_root, name);
  mkdir(buf, 0755);
  return buf;
}

static delta_storage *open_sub(const char *name) {
  delta_storage *s = NULL;
  int rc = delta_storage_open(&s, subdir(name));
  CHECK_EQ_INT(rc, 0);
  return s;
}

static int put_str(delta_storage *s, const char *key, const char *text, bool overwrite) {
  return delta_storage_put(s, key, text, strlen(text), overwrite);
}

/* Whole file as a NUL-terminated string in a static buffer ("" on error). */
static const char *read_str(delta_storage *s, const char *key, int *rc_out) {
  static char out[4096];
  delta_buf b = DELTA_BUF_INIT;
  int rc = storage_read_all(s, key, &b);
  if (rc_out) *rc_out = rc;
  out[0] = '\0';
  if (!rc) {
    size_t n = b.len < sizeof out - 1 ? b.len : sizeof out - 1;
    memcpy(out, b.data, n);
    out[n] = '\0';
  }
  buf_dispose(&b);
  return out;
}

/* ---- listing ---- */

typedef struct {
  char names[32][64];
  bool dirs[32];
  uint64_t sizes[32];
  int64_t mtimes[32];
  int n;
  int stop_after; /* 0: never */
} collected;

static int collect(const delta_storage_entry *e, void *payload) {
  collected *c = payload;
  if (c->n < 32) {
    snprintf(c->names[c->n], sizeof c->names[0], "%s", e->name);
    c->dirs[c->n] = e->is_dir;
    c->sizes[c->n] = e->size;
    c->mtimes[c->n] = e->mtime_ms;
    CHECK_EQ_INT(e->name_len, strlen(e->name));
  }
  c->n++;
  if (c->stop_after && c->n == c->stop_after) return 7;
  return 0;
}

static void test_list(void) {
  delta_storage *s = open_sub("list");
  /* Inserted out of order; expected in byte order (0xC3 of "é" sorts after
   * every ASCII letter, '_' (0x5F) after upper-case, before lower-case). */
  const char *files[] = {"_delta_log/zzz", "_delta_log/00000000000000000010.checkpoint.parquet",
                         "_delta_log/00000000000000000001.json",
                         "_delta_log/00000000000000000000.json", "_delta_log/_last_checkpoint",
                         "_delta_log/\xc3\xa9t\xc3\xa9", "_delta_log/Zed",
                         "_delta_log/_sidecars/a.parquet", "_delta_log/~tilde",
                         "_delta_log/00000000000000000002.crc"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    CHECK_EQ_INT(put_str(s, files[i], files[i], false), 0);
  const char *want[] = {"00000000000000000000.json",
                        "00000000000000000001.json",
                        "00000000000000000002.crc",
                        "00000000000000000010.checkpoint.parquet",
                        "Zed",
                        "_last_checkpoint",
                        "_sidecars",
                        "zzz",
                        "~tilde",
                        "\xc3\xa9t\xc3\xa9"};
  size_t nwant = sizeof want / sizeof *want;
  collected c = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, nwant);
  int64_t now = (int64_t)time(NULL) * 1000;
  for (size_t i = 0; i < nwant && i < (size_t)c.n; i++) {
    CHECK_STR(c.names[i], want[i]);
    bool dir = strcmp(want[i], "_sidecars") == 0;
    CHECK_EQ_INT(c.dirs[i], dir);
    if (!dir) CHECK_EQ_INT(c.sizes[i], strlen("_delta_log/") + strlen(want[i]));
    CHECK(c.mtimes[i] > now - 86400000 && c.mtimes[i] < now + 86400000);
  }

  /* start_after is exclusive and need not exist itself. */
  collected c2 = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", "00000000000000000001.json", collect, &c2), 0);
  CHECK_EQ_INT(c2.n, nwant - 2);
  CHECK_STR(c2.names[0], "00000000000000000002.crc");
  collected c3 = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", "00000000000000000001.zzz", collect, &c3), 0);
  CHECK_STR(c3.names[0], "00000000000000000002.crc");
  collected c4 = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", "\xc3\xa9t\xc3\xa9", collect, &c4), 0);
  CHECK_EQ_INT(c4.n, 0);
  collected c5 = {0}; /* "" means no lower bound, like NULL */
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", "", collect, &c5), 0);
  CHECK_EQ_INT(c5.n, nwant);

  /* The callback's non-zero value stops the listing and comes back as-is. */
  collected c6 = {0};
  c6.stop_after = 2;
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, collect, &c6), 7);
  CHECK_EQ_INT(c6.n, 2);

  /* Sub-directories, the root, missing directories, files as directories. */
  collected c7 = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log/_sidecars", NULL, collect, &c7), 0);
  CHECK_EQ_INT(c7.n, 1);
  CHECK_STR(c7.names[0], "a.parquet");
  collected c8 = {0};
  CHECK_EQ_INT(delta_storage_list(s, "", NULL, collect, &c8), 0);
  CHECK_EQ_INT(c8.n, 1);
  CHECK_STR(c8.names[0], "_delta_log");
  CHECK(c8.dirs[0]);
  collected c9 = {0};
  CHECK_EQ_INT(delta_storage_list(s, "nope", NULL, collect, &c9), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "nope") != NULL);
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log/zzz", NULL, collect, &c9), DELTA_ENOTFOUND);
  CHECK_EQ_INT(c9.n, 0);
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, NULL, NULL), DELTA_EINVAL);

  /* An empty directory lists nothing. */
  mkdir(subdir("list/empty"), 0755);
  collected c10 = {0};
  CHECK_EQ_INT(delta_storage_list(s, "empty", NULL, collect, &c10), 0);
  CHECK_EQ_INT(c10.n, 0);
  delta_storage_free(s);
}

/* ---- read, range, head ---- */

static void test_read_head(void) {
  delta_storage *s = open_sub("read");
  const char *text = "0123456789";
  CHECK_EQ_INT(put_str(s, "dir/f.bin", text, false), 0);
  int rc;
  CHECK_STR(read_str(s, "dir/f.bin", &rc), text);
  CHECK_EQ_INT(rc, 0);

  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(buf_append(&b, "xy", 2), 0); /* reads append */
  CHECK_EQ_INT(storage_read_range(s, "dir/f.bin", 3, 4, &b), 0);
  CHECK_EQ_INT(b.len, 6);
  CHECK(memcmp(b.data, "xy3456", 6) == 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_range(s, "dir/f.bin", 8, 100, &b), 0); /* short at EOF */
  CHECK_EQ_INT(b.len, 2);
  CHECK(memcmp(b.data, "89", 2) == 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_range(s, "dir/f.bin", 10, 5, &b), 0); /* at the end: empty */
  CHECK_EQ_INT(b.len, 0);
  CHECK_EQ_INT(storage_read_range(s, "dir/f.bin", 11, 1, &b), DELTA_EINVAL);
  CHECK_EQ_INT(storage_read_range(s, "dir/f.bin", 2, 0, &b), 0);
  CHECK_EQ_INT(b.len, 0);

  /* The buffer's limit bounds a read before anything is read; the key is
   * named and the buffer is left as it was. */
  delta_buf small = DELTA_BUF_INIT;
  small.limit = 4;
  CHECK_EQ_INT(buf_append(&small, "ab", 2), 0);
  CHECK_EQ_INT(storage_read_all(s, "dir/f.bin", &small), DELTA_ELIMIT);
  CHECK(strstr(delta_error_last(), "dir/f.bin") != NULL);
  CHECK_EQ_INT(small.len, 2);
  buf_dispose(&small);

  /* Missing files, directories. */
  CHECK_EQ_INT(storage_read_all(s, "dir/missing.json", &b), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "dir/missing.json") != NULL);
  CHECK_EQ_INT(storage_read_all(s, "nodir/missing.json", &b), DELTA_ENOTFOUND);
  CHECK_EQ_INT(storage_read_all(s, "dir/f.bin/under-a-file", &b), DELTA_ENOTFOUND);
  CHECK_EQ_INT(storage_read_all(s, "dir", &b), DELTA_ENOTFOUND);
  CHECK_EQ_INT(b.len, 0);

  delta_file_info fi = {0};
  CHECK_EQ_INT(delta_storage_head(s, "dir/f.bin", &fi), 0);
  CHECK_EQ_INT(fi.size, 10);
  int64_t now = (int64_t)time(NULL) * 1000;
  CHECK(fi.mtime_ms > now - 86400000 && fi.mtime_ms < now + 86400000);
  CHECK_EQ_INT(delta_storage_head(s, "dir/nope", &fi), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "dir/nope") != NULL);
  CHECK_EQ_INT(delta_storage_head(s, "dir", &fi), DELTA_ENOTFOUND);

  /* A sink that is not a delta_buf gets the bytes in chunks. */
  delta_buf big = DELTA_BUF_INIT;
  for (int i = 0; i < 300000; i++) buf_putc(&big, (char)('a' + i % 26));
  CHECK_EQ_INT(delta_storage_put(s, "big", big.data, big.len, false), 0);
  delta_buf back = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(s, "big", &back), 0);
  CHECK(back.len == big.len && memcmp(back.data, big.data, big.len) == 0);
  buf_dispose(&back);
  buf_dispose(&big);
  buf_dispose(&b);
  delta_storage_free(s);
}

typedef struct {
  delta_storage_sink sink;
  uint64_t expected, total;
  int writes;
} counting_sink;

static int count_write(delta_storage_sink *sink, const void *data, size_t len) {
  counting_sink *c = (counting_sink *)sink;
  (void)data;
  c->total += len;
  c->writes++;
  return 0;
}

static int count_expect(delta_storage_sink *sink, uint64_t total) {
  ((counting_sink *)sink)->expected = total;
  return 0;
}

static void test_custom_sink(void) {
  delta_storage *s = open_sub("read");
  counting_sink c = {{count_write, count_expect, NULL}, 0, 0, 0};
  CHECK_EQ_INT(delta_storage_read_into(s, "big", 0, DELTA_STORAGE_TO_END, &c.sink), 0);
  CHECK_EQ_INT(c.expected, 300000);
  CHECK_EQ_INT(c.total, 300000);
  CHECK(c.writes >= 1);
  counting_sink c2 = {{count_write, NULL, NULL}, 0, 0, 0};
  CHECK_EQ_INT(delta_storage_read_into(s, "big", 100, 1000, &c2.sink), 0);
  CHECK_EQ_INT(c2.total, 1000);
  delta_storage_free(s);
}

/* ---- keys that try to leave the root ---- */

static void test_bad_keys(void) {
  delta_storage *s = open_sub("keys");
  const char *bad[] = {"",    "/etc/passwd", "../escape", "..",    "a/..",   "a/../../x",
                       "./a", "a/./b",       "a//b",      "a/",    "/",      ".",
                       "x/.", "_delta_log/../../escape"};
  delta_buf b = DELTA_BUF_INIT;
  delta_file_info fi;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK_EQ_INT(storage_read_all(s, bad[i], &b), DELTA_EINVAL);
    CHECK_EQ_INT(storage_read_range(s, bad[i], 0, 1, &b), DELTA_EINVAL);
    CHECK_EQ_INT(delta_storage_head(s, bad[i], &fi), DELTA_EINVAL);
    CHECK_EQ_INT(put_str(s, bad[i], "x", false), DELTA_EINVAL);
    CHECK_EQ_INT(put_str(s, bad[i], "x", true), DELTA_EINVAL);
    CHECK_EQ_INT(delta_storage_delete(s, bad[i]), DELTA_EINVAL);
    CHECK_EQ_INT(storage_local_path(s, bad[i], &b), DELTA_EINVAL);
    if (*bad[i]) {
      collected c = {0};
      CHECK_EQ_INT(delta_storage_list(s, bad[i], NULL, collect, &c), DELTA_EINVAL);
    }
  }
  CHECK_EQ_INT(storage_read_all(s, NULL, &b), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_put(s, NULL, "x", 1, false), DELTA_EINVAL);
  /* Nothing was created next to the root. */
  char p[600];
  snprintf(p, sizeof p, "%s/escape", tmp_root);
  CHECK(access(p, F_OK) != 0);
  /* Names that merely contain dots are fine. */
  CHECK_EQ_INT(put_str(s, "..a/b..", "ok", false), 0);
  CHECK_EQ_INT(put_str(s, ".hidden", "ok", false), 0);
  CHECK_STR(read_str(s, "..a/b..", NULL), "ok");
  buf_dispose(&b);
  delta_storage_free(s);
}

/* ---- put, overwrite, delete ---- */

static void test_put_delete(void) {
  delta_storage *s = open_sub("put");
  CHECK_EQ_INT(put_str(s, "_delta_log/00000000000000000000.json", "v0", false), 0);
  CHECK_EQ_INT(put_str(s, "_delta_log/00000000000000000000.json", "other", false),
               DELTA_EEXISTS);
  CHECK(strstr(delta_error_last(), "_delta_log/00000000000000000000.json") != NULL);
  CHECK_STR(read_str(s, "_delta_log/00000000000000000000.json", NULL), "v0");
  CHECK_EQ_INT(put_str(s, "_delta_log/_last_checkpoint", "a", true), 0);
  CHECK_EQ_INT(put_str(s, "_delta_log/_last_checkpoint", "bb", true), 0);
  CHECK_STR(read_str(s, "_delta_log/_last_checkpoint", NULL), "bb");
  CHECK_EQ_INT(delta_storage_put(s, "empty", NULL, 0, false), 0);
  delta_file_info fi = {99, 0};
  CHECK_EQ_INT(delta_storage_head(s, "empty", &fi), 0);
  CHECK_EQ_INT(fi.size, 0);
  /* Deep parents are created. */
  CHECK_EQ_INT(put_str(s, "a=1/b=2/c=3/part-0.parquet", "p", false), 0);
  CHECK_STR(read_str(s, "a=1/b=2/c=3/part-0.parquet", NULL), "p");
  /* A put where a directory stands, or under a file, fails cleanly. */
  CHECK(put_str(s, "a=1", "x", true) < 0);
  CHECK(put_str(s, "empty/x", "x", false) < 0);

  /* No temporary files are left behind. */
  collected c = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, 2);
  for (int i = 0; i < c.n && i < 32; i++) CHECK(c.names[i][0] != '.');

  CHECK_EQ_INT(delta_storage_delete(s, "_delta_log/_last_checkpoint"), 0);
  CHECK_EQ_INT(delta_storage_head(s, "_delta_log/_last_checkpoint", &fi), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_delete(s, "_delta_log/_last_checkpoint"), 0);
  CHECK_EQ_INT(delta_storage_delete(s, "no/such/dir/file"), 0);
  CHECK_EQ_INT(delta_storage_delete(s, "empty/under-a-file"), 0);
  CHECK_EQ_INT(delta_storage_delete(s, "a=1"), DELTA_EINVAL);
  /* remove_dir: only empty directories; missing is fine; never the root */
  CHECK_EQ_INT(delta_storage_remove_dir(s, "a=1/b=2"), DELTA_EEXISTS);
  CHECK(strstr(delta_error_last(), "not empty") != NULL);
  CHECK_EQ_INT(put_str(s, "a=1/b=2/c=4/.hidden", "h", false), 0);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "a=1/b=2/c=4"), DELTA_EEXISTS);
  CHECK_EQ_INT(delta_storage_delete(s, "a=1/b=2/c=4/.hidden"), 0);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "a=1/b=2/c=4"), 0);
  collected gone = {0};
  CHECK_EQ_INT(delta_storage_list(s, "a=1/b=2/c=4", NULL, collect, &gone), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "a=1/b=2/c=4"), 0);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "no/such"), 0);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "empty"), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_remove_dir(s, ""), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "../put"), DELTA_EINVAL);
  CHECK_STR(read_str(s, "a=1/b=2/c=3/part-0.parquet", NULL), "p");
  /* After a delete, put-if-absent succeeds again. */
  CHECK_EQ_INT(put_str(s, "_delta_log/_last_checkpoint", "c", false), 0);

  delta_buf lp = DELTA_BUF_INIT;
  CHECK_EQ_INT(buf_append(&lp, "#", 1), 0);
  CHECK_EQ_INT(storage_local_path(s, "a=1/b=2/c=3/part-0.parquet", &lp), 0);
  char want[600];
  snprintf(want, sizeof want, "#%s/put/a=1/b=2/c=3/part-0.parquet", tmp_root);
  CHECK_STR((const char *)lp.data, want); /* NUL-terminated behind len */
  CHECK_EQ_INT(lp.len, strlen(want));
  CHECK(access((const char *)lp.data + 1, R_OK) == 0);
  buf_dispose(&lp);
  delta_storage_free(s);
}

/* ---- put-if-absent races ---- */

#define RACE_ROUNDS 150
#define RACE_WRITERS 5
#define RACE_SIZE 65536

/* Content of writer `w`: a header line naming it, then its letter repeated,
 * so a reader can tell a complete file from a partial or mixed one. */
static void race_content(uint8_t *buf, int w) {
  int n = snprintf((char *)buf, 32, "writer %d\n", w);
  memset(buf + n, 'A' + w, RACE_SIZE - (size_t)n);
}

/* 1 if `data` is exactly one writer's complete content, writer in *w. */
static int race_check(const uint8_t *data, size_t len, int *w_out) {
  int w;
  char head[32]; /* the data has no NUL: scan a terminated copy */
  if (len != RACE_SIZE) return 0;
  memcpy(head, data, sizeof head - 1);
  head[sizeof head - 1] = '\0';
  if (sscanf(head, "writer %d\n", &w) != 1 || w < 0 || w >= RACE_WRITERS) return 0;
  static _Thread_local uint8_t want[RACE_SIZE];
  race_content(want, w);
  if (memcmp(want, data, RACE_SIZE) != 0) return 0;
  *w_out = w;
  return 1;
}

static void test_race_processes(void) {
  delta_storage *s = open_sub("race");
  /* results[round][writer]: the put's return code, in shared memory. */
  int(*results)[RACE_WRITERS] = mmap(NULL, sizeof(int) * RACE_ROUNDS * RACE_WRITERS,
                                     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int *bad_reads = mmap(NULL, sizeof(int) * 2, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
  CHECK(results != MAP_FAILED && bad_reads != MAP_FAILED);
  if (results == MAP_FAILED || bad_reads == MAP_FAILED) return;
  int go[2];
  CHECK_EQ_INT(pipe(go), 0);
  pid_t pids[RACE_WRITERS + 1];
  for (int w = 0; w <= RACE_WRITERS; w++) {
    pids[w] = fork();
    if (pids[w] == 0) {
      char c;
      close(go[1]);
      if (read(go[0], &c, 1) < 0) _exit(2); /* start together */
      char key[64];
      if (w == RACE_WRITERS) {
        /* The reader: any file it manages to read is complete. */
        delta_buf b = DELTA_BUF_INIT;
        for (int i = 0; i < RACE_ROUNDS * 4; i++) {
          snprintf(key, sizeof key, "_delta_log/%020d.json", i / 4);
          b.len = 0;
          int rc = storage_read_all(s, key, &b), who;
          if (rc == 0 && !race_check(b.data, b.len, &who)) bad_reads[0]++;
          if (rc != 0 && rc != DELTA_ENOTFOUND) bad_reads[1]++;
        }
        buf_dispose(&b);
        _exit(0);
      }
      static uint8_t content[RACE_SIZE];
      race_content(content, w);
      for (int r = 0; r < RACE_ROUNDS; r++) {
        snprintf(key, sizeof key, "_delta_log/%020d.json", r);
        results[r][w] = delta_storage_put(s, key, content, RACE_SIZE, false);
      }
      _exit(0);
    }
  }
  close(go[0]);
  close(go[1]); /* EOF releases every child at once */
  for (int w = 0; w <= RACE_WRITERS; w++) {
    int st = 0;
    waitpid(pids[w], &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  int one_winner = 0, others_exist = 0, content_ok = 0;
  delta_buf b = DELTA_BUF_INIT;
  for (int r = 0; r < RACE_ROUNDS; r++) {
    int winner = -1, wins = 0, exists = 0;
    for (int w = 0; w < RACE_WRITERS; w++) {
      if (results[r][w] == 0) wins++, winner = w;
      if (results[r][w] == DELTA_EEXISTS) exists++;
    }
    one_winner += wins == 1;
    others_exist += exists == RACE_WRITERS - 1;
    char key[64];
    snprintf(key, sizeof key, "_delta_log/%020d.json", r);
    b.len = 0;
    int who = -2;
    if (storage_read_all(s, key, &b) == 0 && race_check(b.data, b.len, &who) && who == winner)
      content_ok++;
  }
  CHECK_EQ_INT(one_winner, RACE_ROUNDS);
  CHECK_EQ_INT(others_exist, RACE_ROUNDS);
  CHECK_EQ_INT(content_ok, RACE_ROUNDS);
  CHECK_EQ_INT(bad_reads[0], 0);
  CHECK_EQ_INT(bad_reads[1], 0);
  collected c = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, RACE_ROUNDS); /* no temporaries left */
  buf_dispose(&b);
  munmap(results, sizeof(int) * RACE_ROUNDS * RACE_WRITERS);
  munmap(bad_reads, sizeof(int) * 2);
  delta_storage_free(s);
}

/* The same race between threads sharing one handle. */
typedef struct {
  delta_storage *s;
  int w;
  int results[RACE_ROUNDS];
} thread_arg;

static pthread_barrier_t barrier;

static void *race_thread(void *p) {
  thread_arg *a = p;
  static uint8_t contents[RACE_WRITERS][RACE_SIZE];
  race_content(contents[a->w], a->w);
  pthread_barrier_wait(&barrier);
  for (int r = 0; r < RACE_ROUNDS; r++) {
    char key[64];
    snprintf(key, sizeof key, "t/%05d", r);
    a->results[r] = delta_storage_put(a->s, key, contents[a->w], RACE_SIZE, false);
  }
  return NULL;
}

static void test_race_threads(void) {
  delta_storage *s = open_sub("race-threads");
  thread_arg args[RACE_WRITERS];
  pthread_t th[RACE_WRITERS];
  pthread_barrier_init(&barrier, NULL, RACE_WRITERS);
  for (int w = 0; w < RACE_WRITERS; w++) {
    args[w].s = s;
    args[w].w = w;
    pthread_create(&th[w], NULL, race_thread, &args[w]);
  }
  for (int w = 0; w < RACE_WRITERS; w++) pthread_join(th[w], NULL);
  pthread_barrier_destroy(&barrier);
  int ok = 0;
  delta_buf b = DELTA_BUF_INIT;
  for (int r = 0; r < RACE_ROUNDS; r++) {
    int wins = 0, exists = 0, winner = -1, who = -2;
    for (int w = 0; w < RACE_WRITERS; w++) {
      if (args[w].results[r] == 0) wins++, winner = w;
      if (args[w].results[r] == DELTA_EEXISTS) exists++;
    }
    char key[64];
    snprintf(key, sizeof key, "t/%05d", r);
    b.len = 0;
    if (wins == 1 && exists == RACE_WRITERS - 1 && storage_read_all(s, key, &b) == 0 &&
        race_check(b.data, b.len, &who) && who == winner)
      ok++;
  }
  CHECK_EQ_INT(ok, RACE_ROUNDS);
  buf_dispose(&b);
  delta_storage_free(s);
}

/* ---- locations and file:// URIs ---- */

static void test_open_forms(void) {
  const char *dir = subdir("my table");
  char buf[1200];
  delta_storage *s = NULL;
  CHECK_EQ_INT(delta_storage_open(&s, dir), 0);
  CHECK_EQ_INT(put_str(s, "f", "in my table", false), 0);
  char want_loc[1200];
  snprintf(want_loc, sizeof want_loc, "file://%s/my%%20table", tmp_root);
  CHECK_STR(delta_storage_location(s), want_loc);
  delta_storage_free(s);

  const char *forms[] = {"file://%s/my%%20table", "file:%s/my%%20table",
                         "file://localhost%s/my%%20table", "FILE://%s/my%%20table/",
                         "%s/my table/", "%s//my table/./", "file:%s/my%%20tabl%%65"};
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
    snprintf(buf, sizeof buf, forms[i], tmp_root);
    s = NULL;
    int rc = delta_storage_open(&s, buf);
    CHECK_EQ_INT(rc, 0);
    if (rc) {
      fprintf(stderr, "  form %s: %s\n", buf, delta_error_last());
      continue;
    }
    CHECK_STR(read_str(s, "f", NULL), "in my table");
    CHECK_STR(delta_storage_location(s), want_loc);
    delta_storage_free(s);
  }

  /* Relative to the current directory, resolved at open time. */
  char cwd[1024];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK_EQ_INT(chdir(tmp_root), 0);
  s = NULL;
  CHECK_EQ_INT(delta_storage_open(&s, "my table"), 0);
  CHECK_EQ_INT(chdir(cwd), 0);
  CHECK_STR(read_str(s, "f", NULL), "in my table");
  CHECK_STR(delta_storage_location(s), want_loc);
  delta_storage_free(s);
  CHECK_EQ_INT(chdir(tmp_root), 0);
  s = NULL;
  CHECK_EQ_INT(delta_storage_open(&s, "./my table/"), 0);
  CHECK_EQ_INT(chdir(cwd), 0);
  CHECK_STR(delta_storage_location(s), want_loc);
  delta_storage_free(s);

  /* A location that does not exist yet is fine: put creates it. */
  snprintf(buf, sizeof buf, "%s/new/deep/table", tmp_root);
  s = NULL;
  CHECK_EQ_INT(delta_storage_open(&s, buf), 0);
  CHECK_EQ_INT(put_str(s, "_delta_log/00000000000000000000.json", "{}", false), 0);
  delta_storage_free(s);

  /* Refusals. */
  /* (s3://, s3a:// and gs:// open their back ends now: test_s3.c, test_gcs.c;
   * az://, azure:// and abfs[s]:// the Azure one: test_azure_auth.c.) */
  s = (delta_storage *)1;
  CHECK_EQ_INT(delta_storage_open(&s, "hdfs://namenode/table"), DELTA_EUNSUPPORTED);
  CHECK(strstr(delta_error_last(), "'hdfs'") != NULL);
  CHECK(s == NULL);
  CHECK_EQ_INT(delta_storage_open(&s, "hdfs://b/t"), DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(delta_storage_open(&s, "file://otherhost/tmp/x"), DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(delta_storage_open(&s, "file:relative/x"), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_open(&s, "file:///tmp/x%00y"), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_open(&s, "file:///tmp/x?y=1"), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_open(&s, ""), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_open(&s, NULL), DELTA_EINVAL);
  snprintf(buf, sizeof buf, "%s/my table/f", tmp_root); /* a file, not a directory */
  CHECK_EQ_INT(delta_storage_open(&s, buf), DELTA_EINVAL);
  snprintf(buf, sizeof buf, "%s/my table/f/below", tmp_root);
  CHECK_EQ_INT(delta_storage_open(&s, buf), DELTA_EINVAL);
  CHECK(s == NULL);

  /* Root "/" itself maps keys without a double slash. */
  s = NULL;
  CHECK_EQ_INT(delta_storage_open(&s, "file:///"), 0);
  CHECK_STR(delta_storage_location(s), "file:///");
  delta_buf lp = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_local_path(s, "tmp", &lp), 0);
  CHECK_STR((const char *)lp.data, "/tmp");
  buf_dispose(&lp);
  delta_storage_free(s);
  delta_storage_free(NULL);
}

/* ---- a custom back end ---- */

static int frees;
static int mem_list(void *impl, const char *dir, const char *after, delta_storage_list_cb cb,
                    void *payload) {
  (void)impl, (void)after;
  if (*dir) return DELTA_ENOTFOUND;
  delta_storage_entry e = {"only", 4, 3, 0, false};
  return cb(&e, payload);
}
static int mem_read(void *impl, const char *key, uint64_t off, uint64_t len,
                    delta_storage_sink *sink) {
  (void)impl, (void)len;
  if (strcmp(key, "only") != 0) return DELTA_ENOTFOUND;
  static const char text[] = "abc";
  return sink->write(sink, &text[off], 3 - (size_t)off);
}
static int mem_head(void *impl, const char *key, delta_file_info *out) {
  (void)impl, (void)key;
  out->size = 3;
  out->mtime_ms = 0;
  return 0;
}
static void mem_storage_free(void *impl) {
  (void)impl;
  frees++;
}

static void test_custom_backend(void) {
  delta_storage_vtable vt = {.version = DELTA_STORAGE_VTABLE_VERSION,
                             .list = mem_list,
                             .read = mem_read,
                             .head = mem_head,
                             .free = mem_storage_free};
  delta_storage *s = NULL;
  CHECK_EQ_INT(delta_storage_new(&s, &vt, NULL, "mem://x"), 0);
  vt.read = NULL; /* the handle kept its own copy */
  CHECK_STR(read_str(s, "only", NULL), "abc");
  CHECK_STR(delta_storage_location(s), "mem://x");
  collected c = {0};
  CHECK_EQ_INT(delta_storage_list(s, NULL, NULL, collect, &c), 0);
  CHECK_STR(c.names[0], "only");
  CHECK_EQ_INT(put_str(s, "k", "v", false), DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(delta_storage_delete(s, "k"), DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "k"), DELTA_EUNSUPPORTED);
  delta_buf lp = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_local_path(s, "only", &lp), DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(lp.len, 0);
  buf_dispose(&lp);
  delta_storage_free(s);
  CHECK_EQ_INT(frees, 1);

  vt.read = mem_read;
  vt.version = 0;
  CHECK_EQ_INT(delta_storage_new(&s, &vt, NULL, NULL), DELTA_EINVAL);
  vt.version = DELTA_STORAGE_VTABLE_VERSION + 1;
  CHECK_EQ_INT(delta_storage_new(&s, &vt, NULL, NULL), DELTA_EINVAL);
  vt.version = DELTA_STORAGE_VTABLE_VERSION;
  vt.list = NULL;
  CHECK_EQ_INT(delta_storage_new(&s, &vt, NULL, NULL), DELTA_EINVAL);
  CHECK(s == NULL);
  CHECK_EQ_INT(frees, 1); /* a failed new leaves impl to the caller */
  vt.list = mem_list;
  CHECK_EQ_INT(delta_storage_new(&s, &vt, NULL, NULL), 0);
  CHECK_STR(delta_storage_location(s), "");
  delta_storage_free(s);

  /* a version-1 table ends before remove_dir: whatever lies behind it in
   * the caller's memory is not taken for one */
  struct {
    delta_storage_vtable vt;
  } v1;
  memset(&v1, 0xff, sizeof v1);
  memcpy(&v1.vt, &vt, offsetof(delta_storage_vtable, remove_dir));
  v1.vt.version = 1;
  CHECK_EQ_INT(delta_storage_new(&s, &v1.vt, NULL, NULL), 0);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "k"), DELTA_EUNSUPPORTED);
  delta_storage_free(s);
}

/* ---- percent-encoded names, and real tables ---- */

static void test_special_names(void) {
  delta_storage *s = open_sub("special");
  /* Partition values with space, '%', '=', ':' and non-ASCII, through the
   * whole chain: Hive-escape into a directory name, URI-encode into an
   * add.path, resolve back into a key, read the file. */
  const char *values[] = {"a b", "100%", "x=y", "2021-09-08 11:11:11", "M\xc3\xbcnchen",
                          "\xe6\x9d\xb1\xe4\xba\xac #?[]", "+ =%0", "tab\there"};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    delta_buf key = DELTA_BUF_INIT, enc = DELTA_BUF_INIT, back = DELTA_BUF_INIT,
              val = DELTA_BUF_INIT;
    buf_puts(&key, "p=");
    CHECK_EQ_INT(storage_path_escape_partition(&key, values[i], strlen(values[i])), 0);
    buf_puts(&key, "/part-0.parquet");
    buf_putc(&key, '\0');
    key.len--;
    CHECK_EQ_INT(put_str(s, (const char *)key.data, values[i], false), 0);
    CHECK_EQ_INT(storage_path_encode(&enc, (const char *)key.data, key.len), 0);
    for (size_t j = 0; j < enc.len; j++) CHECK(enc.data[j] > 0x20 && enc.data[j] < 0x7F);
    delta_path_kind kind = 0;
    CHECK_EQ_INT(storage_path_resolve(&kind, &back, (const char *)enc.data, enc.len,
                                    delta_storage_location(s)),
                 0);
    CHECK_EQ_INT(kind, DELTA_PATH_KEY);
    buf_putc(&back, '\0');
    CHECK_STR((const char *)back.data, (const char *)key.data);
    CHECK_STR(read_str(s, (const char *)back.data, NULL), values[i]);
    /* The directory name un-escapes to the value. */
    const char *dname = (const char *)key.data + 2;
    size_t dlen = (size_t)(strchr(dname, '/') - dname);
    CHECK_EQ_INT(storage_path_unescape_partition(&val, dname, dlen), 0);
    CHECK(val.len == strlen(values[i]) && memcmp(val.data, values[i], val.len) == 0);
    buf_dispose(&key);
    buf_dispose(&enc);
    buf_dispose(&back);
    buf_dispose(&val);
  }
  collected c = {0};
  CHECK_EQ_INT(delta_storage_list(s, "", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, sizeof values / sizeof *values);
  delta_storage_free(s);
}

/* Scan a commit's text for add actions and check that each add.path, resolved
 * against the table, names an existing file of the logged size. A tiny ad-hoc
 * scan: these logs have one action per line and no escapes in the paths. */
static int check_table_adds(const char *table, int *adds_out) {
  const char *shared = getenv("DELTAC_SHARED");
  char loc[1024];
  snprintf(loc, sizeof loc, "%s/conformance/tables/%s", shared ? shared : "../shared", table);
  delta_storage *s = NULL;
  int rc = delta_storage_open(&s, loc), checked = 0;
  CHECK_EQ_INT(rc, 0);
  if (rc) return 0;
  collected logs = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, collect, &logs), 0);
  for (int li = 0; li < logs.n && li < 32; li++) {
    if (!strstr(logs.names[li], ".json") || logs.dirs[li]) continue;
    char key[128];
    snprintf(key, sizeof key, "_delta_log/%s", logs.names[li]);
    delta_buf text = DELTA_BUF_INIT;
    CHECK_EQ_INT(storage_read_all(s, key, &text), 0);
    buf_putc(&text, '\0');
    for (char *line = (char *)text.data; line && *line;) {
      char *nl = strchr(line, '\n');
      if (nl) *nl = '\0';
      if (strncmp(line, "{\"add\":", 7) == 0) {
        char *p = strstr(line, "\"path\":\""), *sz = strstr(line, "\"size\":");
        CHECK(p != NULL && sz != NULL);
        if (p && sz) {
          p += 8;
          char *end = strchr(p, '"');
          delta_buf k = DELTA_BUF_INIT;
          delta_path_kind kind = 0;
          CHECK(memchr(p, '\\', (size_t)(end - p)) == NULL);
          CHECK_EQ_INT(storage_path_resolve(&kind, &k, p, (size_t)(end - p),
                                          delta_storage_location(s)),
                       0);
          CHECK_EQ_INT(kind, DELTA_PATH_KEY);
          buf_putc(&k, '\0');
          delta_file_info fi = {0};
          int hrc = delta_storage_head(s, (const char *)k.data, &fi);
          CHECK_EQ_INT(hrc, 0);
          if (hrc) fprintf(stderr, "  %s: %s\n", table, delta_error_last());
          CHECK_EQ_INT(fi.size, strtoull(sz + 7, NULL, 10));
          /* And the same key through the local path. */
          delta_buf lp = DELTA_BUF_INIT;
          CHECK_EQ_INT(storage_local_path(s, (const char *)k.data, &lp), 0);
          CHECK(access((const char *)lp.data, R_OK) == 0);
          buf_dispose(&lp);
          buf_dispose(&k);
          checked++;
        }
      }
      line = nl ? nl + 1 : NULL;
    }
    buf_dispose(&text);
  }
  delta_storage_free(s);
  *adds_out = checked;
  return checked;
}

static void test_real_tables(void) {
  const char *tables[] = {"kernel-rs-golden.hive.deltatbl-special-chars-in-partition-column",
                          "delta-golden.data-reader-partition-values",
                          "delta-golden.data-reader-escaped-chars",
                          "delta-rs.delta-0.8.0-special-partition"};
  int want[] = {4, 3, 3, 2};
  for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
    int n = 0;
    check_table_adds(tables[i], &n);
    CHECK_EQ_INT(n, want[i]);
  }
}

/* ---- reading never writes ---- */

typedef struct {
  char snapshot[8192];
  size_t len;
} tree_state;

static tree_state *cur_state;

static int record(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)flag, (void)ftw;
  cur_state->len += (size_t)snprintf(cur_state->snapshot + cur_state->len,
                                     sizeof cur_state->snapshot - cur_state->len, "%s %lld %ld.%ld\n",
                                     p, (long long)st->st_size, (long)st->st_mtim.tv_sec,
                                     (long)st->st_mtim.tv_nsec);
  if (cur_state->len >= sizeof cur_state->snapshot) cur_state->len = sizeof cur_state->snapshot - 1;
  return 0;
}

static int make_read_only(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)ftw;
  chmod(p, flag == FTW_DP || S_ISDIR(st->st_mode) ? 0555 : 0444);
  return 0;
}

static void test_read_only(void) {
  delta_storage *s = open_sub("ro");
  CHECK_EQ_INT(put_str(s, "_delta_log/00000000000000000000.json", "{\"add\":{}}\n", false), 0);
  CHECK_EQ_INT(put_str(s, "part-0.parquet", "PAR1....PAR1", false), 0);
  delta_storage_free(s);
  const char *dir = subdir("ro");
  nftw(dir, make_read_only, 16, FTW_DEPTH | FTW_PHYS);

  static tree_state before, after;
  cur_state = &before;
  nftw(dir, record, 16, FTW_PHYS);
  sleep(0); /* mtimes have ns resolution: a write now would show */

  s = NULL;
  CHECK_EQ_INT(delta_storage_open(&s, dir), 0);
  collected c = {0};
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, 1);
  CHECK_STR(read_str(s, "_delta_log/00000000000000000000.json", NULL), "{\"add\":{}}\n");
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_range(s, "part-0.parquet", 8, 4, &b), 0);
  CHECK(b.len == 4 && memcmp(b.data, "PAR1", 4) == 0);
  delta_file_info fi;
  CHECK_EQ_INT(delta_storage_head(s, "part-0.parquet", &fi), 0);
  CHECK_EQ_INT(storage_read_all(s, "_delta_log/missing.json", &b), DELTA_ENOTFOUND);
  b.len = 0;
  CHECK_EQ_INT(storage_local_path(s, "part-0.parquet", &b), 0);
  if (geteuid() != 0) {
    /* Only a non-root user is refused writing; root writes anyway. */
    CHECK_EQ_INT(put_str(s, "_delta_log/00000000000000000001.json", "{}", false), DELTA_EIO);
    CHECK(strstr(delta_error_last(), "00000000000000000001.json") != NULL);
  }
  buf_dispose(&b);
  delta_storage_free(s);

  cur_state = &after;
  nftw(dir, record, 16, FTW_PHYS);
  CHECK_EQ_INT(after.len, before.len);
  CHECK(strcmp(before.snapshot, after.snapshot) == 0);
}

/* Streaming uploads: written in pieces, visible only after finish, nothing
 * after abort; an upload over an existing file replaces it. */
static void test_upload(void) {
  delta_storage *s = open_sub("upload");
  delta_storage_upload *up = NULL;
  CHECK_EQ_INT(delta_storage_upload_open(s, "p=1/part-0.parquet", &up), 0);
  CHECK_EQ_INT(delta_storage_upload_write(up, "abc", 3), 0);
  CHECK_EQ_INT(delta_storage_upload_write(up, NULL, 0), 0);
  CHECK_EQ_INT(delta_storage_upload_write(up, "def", 3), 0);
  delta_file_info fi;
  CHECK_EQ_INT(delta_storage_head(s, "p=1/part-0.parquet", &fi), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_upload_finish(up), 0);
  CHECK_STR(read_str(s, "p=1/part-0.parquet", NULL), "abcdef");

  CHECK_EQ_INT(delta_storage_upload_open(s, "p=1/part-0.parquet", &up), 0);
  CHECK_EQ_INT(delta_storage_upload_write(up, "x", 1), 0);
  CHECK_EQ_INT(delta_storage_upload_finish(up), 0);
  CHECK_STR(read_str(s, "p=1/part-0.parquet", NULL), "x");

  CHECK_EQ_INT(delta_storage_upload_open(s, "p=2/part-1.parquet", &up), 0);
  CHECK_EQ_INT(delta_storage_upload_write(up, "lost", 4), 0);
  delta_storage_upload_abort(up);
  CHECK_EQ_INT(delta_storage_head(s, "p=2/part-1.parquet", &fi), DELTA_ENOTFOUND);
  delta_storage_upload_abort(NULL);

  CHECK_EQ_INT(delta_storage_upload_open(s, "../escape", &up), DELTA_EINVAL);
  CHECK(up == NULL);
  delta_storage_free(s);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/deltac-storage-XXXXXX");
  if (!mkdtemp(tmp_root)) {
    perror("mkdtemp");
    return 1;
  }
  test_list();
  test_read_head();
  test_custom_sink();
  test_bad_keys();
  test_put_delete();
  test_race_processes();
  test_race_threads();
  test_open_forms();
  test_custom_backend();
  test_special_names();
  test_real_tables();
  test_read_only();
  test_upload();
  rm_rf(tmp_root);
  TEST_MAIN_END();
}
