/* Request counters (delta_storage_stats_get) and settling an unanswered
 * put-if-absent (storage_settle_put), over a one-file in-memory back end:
 * the dispatcher counts one request per operation with its bytes (also for
 * an embedder's own sink), a back end that takes its counters stops the
 * dispatcher's counting, counters are exact under threads, and a read-back
 * decides won (same bytes) / lost (other bytes, also a different length) /
 * not there. The local back end counts through the same dispatcher. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac/error.h"
#include "deltac/storage.h"
#include "storage/storage_internal.h"
#include "test.h"
#include "util/buf.h"
#include "util/error_internal.h"

/* One file "k" (or none), delivered in 3-byte pieces. */
typedef struct {
  char data[64];
  size_t len;
  bool exists;
} mem;

static int mem_list(void *impl, const char *dir, const char *after, delta_storage_list_cb cb, void *p) {
  mem *m = impl;
  (void)dir;
  (void)after;
  if (!m->exists) return 0;
  delta_storage_entry e = {"k", 1, m->len, 0, false};
  return cb(&e, p);
}

static int mem_read(void *impl, const char *key, uint64_t off, uint64_t len, delta_storage_sink *sink) {
  mem *m = impl;
  int rc;
  if (!m->exists || strcmp(key, "k") != 0) return err_set(DELTA_ENOTFOUND, "'%s': not found", key);
  if (off > m->len) return err_set(DELTA_EINVAL, "offset past the end");
  uint64_t n = m->len - off;
  if (len < n) n = len;
  if (sink->expect && (rc = sink->expect(sink, n)) != 0) return rc;
  for (uint64_t i = 0; i < n; i += 3) {
    size_t k = n - i < 3 ? (size_t)(n - i) : 3;
    if ((rc = sink->write(sink, m->data + off + i, k)) != 0) return rc;
  }
  return 0;
}

static int mem_head(void *impl, const char *key, delta_file_info *out) {
  mem *m = impl;
  if (!m->exists || strcmp(key, "k") != 0) return err_set(DELTA_ENOTFOUND, "'%s': not found", key);
  out->size = m->len;
  out->mtime_ms = 0;
  return 0;
}

static int mem_put(void *impl, const char *key, const void *data, size_t len, bool overwrite) {
  mem *m = impl;
  (void)key;
  if (m->exists && !overwrite) return err_set(DELTA_EEXISTS, "exists");
  if (len > sizeof m->data) return err_set(DELTA_EINVAL, "too big");
  memcpy(m->data, data, len);
  m->len = len;
  m->exists = true;
  return 0;
}

static int mem_remove(void *impl, const char *key) {
  (void)key;
  ((mem *)impl)->exists = false;
  return 0;
}

static const delta_storage_vtable MEM_VT = {.version = DELTA_STORAGE_VTABLE_VERSION,
                                            .list = mem_list,
                                            .read = mem_read,
                                            .head = mem_head,
                                            .put = mem_put,
                                            .remove = mem_remove};

static int count_entry(const delta_storage_entry *e, void *p) {
  (void)e;
  (*(int *)p)++;
  return 0;
}

typedef struct {
  delta_storage_sink sink;
  size_t got;
} user_sink;

static int user_write(delta_storage_sink *s, const void *d, size_t n) {
  (void)d;
  ((user_sink *)s)->got += n;
  return 0;
}

static void test_dispatch_counts(void) {
  mem m = {{0}, 0, false};
  delta_storage *s = NULL;
  delta_storage_stats st;
  CHECK_EQ_INT(delta_storage_new(&s, &MEM_VT, &m, "mem://x"), 0);
  delta_storage_stats_get(s, &st);
  CHECK_EQ_INT(st.list.requests + st.get.requests + st.head.requests + st.put.requests + st.del.requests, 0);

  CHECK_EQ_INT(delta_storage_put(s, "k", "hello world", 11, false), 0);
  CHECK_EQ_INT(delta_storage_put(s, "k", "again", 5, false), DELTA_EEXISTS);
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(s, "k", &b), 0);
  CHECK_EQ_INT(storage_read_range(s, "k", 6, 3, &b), 0);
  CHECK_EQ_INT(b.len, 14);
  buf_dispose(&b);
  user_sink us = {{user_write, NULL, NULL}, 0};
  CHECK_EQ_INT(delta_storage_read_into(s, "k", 0, DELTA_STORAGE_TO_END, &us.sink), 0);
  CHECK_EQ_INT(us.got, 11);
  delta_file_info fi;
  CHECK_EQ_INT(delta_storage_head(s, "k", &fi), 0);
  int n = 0;
  CHECK_EQ_INT(delta_storage_list(s, "", NULL, count_entry, &n), 0);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(delta_storage_delete(s, "k"), 0);
  /* A key refused before the back end sees it is no request. */
  CHECK_EQ_INT(delta_storage_head(s, "../k", &fi), DELTA_EINVAL);

  delta_storage_stats_get(s, &st);
  CHECK_EQ_INT(st.put.requests, 2);
  CHECK_EQ_INT(st.put.bytes, 16);
  CHECK_EQ_INT(st.get.requests, 3);
  CHECK_EQ_INT(st.get.bytes, 11 + 3 + 11);
  CHECK_EQ_INT(st.head.requests, 1);
  CHECK_EQ_INT(st.list.requests, 1);
  CHECK_EQ_INT(st.del.requests, 1);
  CHECK_EQ_INT(st.retries, 0);

  /* A streaming upload through the buffered fallback: one put. */
  delta_storage_upload *up = NULL;
  CHECK_EQ_INT(delta_storage_upload_open(s, "k", &up), 0);
  CHECK_EQ_INT(delta_storage_upload_write(up, "abc", 3), 0);
  CHECK_EQ_INT(delta_storage_upload_write(up, "defg", 4), 0);
  CHECK_EQ_INT(delta_storage_upload_finish(up), 0);
  delta_storage_stats_get(s, &st);
  CHECK_EQ_INT(st.put.requests, 3);
  CHECK_EQ_INT(st.put.bytes, 23);

  /* A back end that counts itself: the dispatcher stops counting. */
  storage_counters *c = storage_counters_of(s);
  CHECK_EQ_INT(delta_storage_head(s, "k", &fi), 0);
  storage_count(c, STORAGE_COUNT_LIST, 100);
  storage_count(c, STORAGE_COUNT_LIST, 50);
  storage_count_retry(c);
  storage_count(c, STORAGE_COUNT_AUTO, 7); /* not a kind: ignored */
  storage_count(NULL, STORAGE_COUNT_GET, 1);
  delta_storage_stats_get(s, &st);
  CHECK_EQ_INT(st.head.requests, 1);
  CHECK_EQ_INT(st.list.requests, 3);
  CHECK_EQ_INT(st.list.bytes, 150);
  CHECK_EQ_INT(st.retries, 1);
  delta_storage_stats_get(NULL, &st);
  CHECK_EQ_INT(st.get.requests, 0);
  delta_storage_free(s);
}

static void *hammer(void *p) {
  storage_counters *c = p;
  for (int i = 0; i < 100000; i++) storage_count(c, STORAGE_COUNT_GET, 2);
  return NULL;
}

static void test_threads(void) {
  mem m = {{0}, 0, false};
  delta_storage *s = NULL;
  CHECK_EQ_INT(delta_storage_new(&s, &MEM_VT, &m, NULL), 0);
  storage_counters *c = storage_counters_of(s);
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, hammer, c);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  delta_storage_stats st;
  delta_storage_stats_get(s, &st);
  CHECK_EQ_INT(st.get.requests, 400000);
  CHECK_EQ_INT(st.get.bytes, 800000);
  delta_storage_free(s);
}

static void test_settle(void) {
  mem m = {{0}, 0, false};
  static const char body[] = "{\"commitInfo\":{}}\n";
  size_t n = sizeof body - 1;
  /* Not there: the put did not happen. */
  CHECK_EQ_INT(storage_settle_put(mem_read, &m, "k", "mem://x/k", body, n), DELTA_ENOTFOUND);
  /* Our bytes: won. */
  mem_put(&m, "k", body, n, true);
  CHECK_EQ_INT(storage_settle_put(mem_read, &m, "k", "mem://x/k", body, n), 0);
  CHECK_EQ_INT(delta_error_last_code(), 0);
  /* Other bytes of the same length, a longer and a shorter file: lost. */
  char other[sizeof body];
  memcpy(other, body, sizeof body);
  other[n - 3] = 'X';
  mem_put(&m, "k", other, n, true);
  CHECK_EQ_INT(storage_settle_put(mem_read, &m, "k", "mem://x/k", body, n), DELTA_EEXISTS);
  CHECK(strstr(delta_error_last(), "mem://x/k") != NULL);
  mem_put(&m, "k", body, n - 1, true);
  CHECK_EQ_INT(storage_settle_put(mem_read, &m, "k", "mem://x/k", body, n), DELTA_EEXISTS);
  char longer[64];
  memcpy(longer, body, n);
  memcpy(longer + n, "more", 4);
  mem_put(&m, "k", longer, n + 4, true);
  CHECK_EQ_INT(storage_settle_put(mem_read, &m, "k", "mem://x/k", body, n), DELTA_EEXISTS);
  /* An empty body against an empty file: won. */
  mem_put(&m, "k", "", 0, true);
  CHECK_EQ_INT(storage_settle_put(mem_read, &m, "k", "mem://x/k", "", 0), 0);
}

static void test_local(void) {
  char dir[] = "/tmp/deltac-stats-XXXXXX";
  if (!mkdtemp(dir)) return;
  delta_storage *s = NULL;
  CHECK_EQ_INT(delta_storage_open(&s, dir), 0);
  CHECK_EQ_INT(delta_storage_put(s, "_delta_log/00000000000000000000.json", "{}\n", 3, false), 0);
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(s, "_delta_log/00000000000000000000.json", &b), 0);
  buf_dispose(&b);
  int n = 0;
  CHECK_EQ_INT(delta_storage_list(s, "_delta_log", NULL, count_entry, &n), 0);
  CHECK_EQ_INT(delta_storage_delete(s, "_delta_log/00000000000000000000.json"), 0);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "_delta_log"), 0);
  delta_storage_stats st;
  delta_storage_stats_get(s, &st);
  CHECK_EQ_INT(st.put.requests, 1);
  CHECK_EQ_INT(st.put.bytes, 3);
  CHECK_EQ_INT(st.get.requests, 1);
  CHECK_EQ_INT(st.get.bytes, 3);
  CHECK_EQ_INT(st.list.requests, 1);
  CHECK_EQ_INT(st.del.requests, 2);
  delta_storage_free(s);
  rmdir(dir);
}

int main(void) {
  test_dispatch_counts();
  test_threads();
  test_settle();
  test_local();
  TEST_MAIN_END();
}
