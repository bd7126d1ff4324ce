/* Unit test for the transaction object (src/txn/txn.c): staging and
 * committing, a lost put-if-absent race that retries, a conflict that does
 * not, post-commit hooks in order (a failing one does not fail the commit),
 * a coordinator of the test's own, the retry helper and the prologue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac.h"
#include "log/snapshot.h"
#include "storage/storage_internal.h"
#include "test.h"
#include "txn/hooks.h"
#include "txn/txn.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
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

/* Append NDJSON rows through the public API (creating the table). */
static int write_rows(const char *table, const char *ndjson) {
  struct ArrowArrayStream s;
  delta_table *t = NULL;
  delta_snapshot *snap = NULL;
  const delta_type *schema = NULL;
  if (delta_table_open(&t, table) == 0 && delta_snapshot_open(&snap, t, NULL) == 0) schema = snap->schema;
  delta_error_clear();
  char *text = mem_strdup(ndjson);
  int rc = input_text_stream(text, strlen(text), INPUT_NDJSON, schema, 0, &s);
  delta_snapshot_free(snap);
  delta_table_free(t);
  if (rc) return rc;
  delta_write_options o = DELTA_WRITE_OPTIONS_INIT;
  delta_write_result r;
  return write_at(table, &s, &o, &r);
}

/* The text of commit `version` of the table at `st`, NUL-terminated. */
static char *read_commit(delta_storage *st, int64_t version) {
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%020lld.json", (long long)version);
  delta_buf b = DELTA_BUF_INIT;
  if (storage_read_all(st, key, &b) != 0 || buf_putc(&b, 0) != 0) {
    buf_dispose(&b);
    return NULL;
  }
  return (char *)b.data;
}

static bool exists(delta_storage *st, const char *key) {
  delta_buf b = DELTA_BUF_INIT;
  int rc = storage_read_all(st, key, &b);
  buf_dispose(&b);
  delta_error_clear();
  return rc == 0;
}

static delta_add an_add(const char *path) {
  delta_add a;
  memset(&a, 0, sizeof a);
  a.path = path;
  a.size = 1;
  a.modification_time = 1;
  a.data_change = true;
  return a;
}

/* Stage an add, commit: the next version, commitInfo with the operation,
 * parameters and metrics, and the checksum hook's .crc. */
static void test_stage_commit(const char *table) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(delta_table_open(&t, table), 0);
  CHECK_EQ_INT(txn_open(t, NULL, &s), 0);
  if (!s) {
    delta_table_free(t);
    return;
  }
  txn_ctx tx;
  txn_begin(&tx, t, s, "WRITE");
  txn_set_info(&tx, "{\"mode\":\"Append\"}", "{\"numFiles\":\"1\"}");
  tx.req.blind_append = true;
  delta_add a = an_add("staged.parquet");
  CHECK_EQ_INT(txn_stage_add(&tx, &a, true), 0);
  CHECK_EQ_INT(txn_commit(&tx), 0);
  CHECK_EQ_INT(tx.version, s->version + 1);
  CHECK_EQ_INT(tx.attempts, 1);
  CHECK(!tx.skipped);
  char *text = read_commit(t->storage, tx.version);
  CHECK(text && strncmp(text, "{\"commitInfo\":{", 15) == 0);
  CHECK(text && strstr(text, "\"operation\":\"WRITE\""));
  CHECK(text && strstr(text, "\"operationParameters\":{\"mode\":\"Append\"}"));
  CHECK(text && strstr(text, "\"operationMetrics\":{\"numFiles\":\"1\"}"));
  CHECK(text && strstr(text, "{\"add\":{\"path\":\"staged.parquet\""));
  mem_free(text);
  char crc[64];
  snprintf(crc, sizeof crc, "_delta_log/%020lld.crc", (long long)tx.version);
  CHECK(exists(t->storage, crc));
  txn_dispose(&tx);
  delta_snapshot_free(s);
  delta_table_free(t);
}

/* Read an old snapshot while another writer commits: a blind append
 * retries on the next version; replacing data (reads_table) conflicts. */
static void test_race(const char *table) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(delta_table_open(&t, table), 0);
  CHECK_EQ_INT(txn_open(t, NULL, &s), 0);
  if (!s) {
    delta_table_free(t);
    return;
  }
  CHECK_EQ_INT(write_rows(table, "{\"a\":5}\n"), 0); /* the winner */
  txn_ctx tx;
  txn_begin(&tx, t, s, "WRITE");
  tx.req.blind_append = true;
  delta_add a = an_add("late.parquet");
  CHECK_EQ_INT(txn_stage_add(&tx, &a, true), 0);
  CHECK_EQ_INT(txn_commit(&tx), 0);
  CHECK_EQ_INT(tx.version, s->version + 2);
  CHECK_EQ_INT(tx.attempts, 2);
  txn_dispose(&tx);

  txn_begin(&tx, t, s, "WRITE");
  tx.req.reads_table = true;
  CHECK_EQ_INT(txn_stage_add(&tx, &a, true), 0);
  CHECK_EQ_INT(txn_commit(&tx), DELTA_ECONFLICT);
  CHECK(strstr(delta_error_last(), "added files") != NULL);
  CHECK_EQ_INT(tx.version, -1);
  txn_dispose(&tx);
  delta_error_clear();
  delta_snapshot_free(s);
  delta_table_free(t);
}

static char order[16];

static int hook_a(txn_ctx *tx) {
  (void)tx;
  strcat(order, "a");
  return err_set(DELTA_EIO, "hook a failed");
}

static int hook_b(txn_ctx *tx) {
  strcat(order, tx->version >= 0 ? "b" : "?");
  return 0;
}

static void test_hooks(const char *table) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(delta_table_open(&t, table), 0);
  CHECK_EQ_INT(txn_open(t, NULL, &s), 0);
  if (!s) {
    delta_table_free(t);
    return;
  }
  txn_ctx tx;
  txn_begin(&tx, t, s, "WRITE");
  CHECK_EQ_INT(tx.n_hooks, 1); /* the checksum */
  CHECK_EQ_INT(txn_add_hook(&tx, "a", hook_a), 0);
  CHECK_EQ_INT(txn_add_hook(&tx, "b", hook_b), 0);
  for (int i = tx.n_hooks; i < TXN_MAX_HOOKS; i++) CHECK_EQ_INT(txn_add_hook(&tx, "b", hook_b), 0);
  CHECK_EQ_INT(txn_add_hook(&tx, "too many", hook_b), DELTA_EINVAL);
  tx.n_hooks = 3;
  order[0] = 0;
  CHECK_EQ_INT(txn_commit(&tx), 0);
  CHECK_STR(order, "ab");
  CHECK_EQ_INT(delta_error_last_code(), 0);
  txn_dispose(&tx);
  /* a skipped commit (its app id's work done already) runs no hooks */
  txn_begin(&tx, t, s, "WRITE");
  CHECK_EQ_INT(txn_stage_app(&tx, "app", 3, 1), 0);
  CHECK_EQ_INT(txn_commit(&tx), 0);
  txn_dispose(&tx);
  txn_begin(&tx, t, s, "WRITE");
  CHECK_EQ_INT(txn_add_hook(&tx, "b", hook_b), 0);
  CHECK_EQ_INT(txn_stage_app(&tx, "app", 2, 1), 0);
  order[0] = 0;
  CHECK_EQ_INT(txn_commit(&tx), 0);
  CHECK(tx.skipped);
  CHECK_STR(order, "");
  txn_dispose(&tx);
  delta_snapshot_free(s);
  delta_table_free(t);
}

/* A coordinator of the test's own: version 100 is taken by a blind append
 * it hands out as the winner; it keeps what it is asked to publish. */
typedef struct {
  int64_t taken;
  int publishes;
  int64_t published_version;
  delta_buf published;
} memory_coordinator;

static int mem_publish(void *self, int64_t version, const void *bytes, size_t len) {
  memory_coordinator *m = self;
  m->publishes++;
  if (version <= m->taken) return err_set(DELTA_EEXISTS, "version %lld exists", (long long)version);
  m->published_version = version;
  buf_reset(&m->published);
  return buf_append(&m->published, bytes, len);
}

static int mem_read(void *self, int64_t version, delta_buf *out) {
  (void)self;
  (void)version;
  static const char winner[] = "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n";
  buf_reset(out);
  return buf_append(out, winner, strlen(winner));
}

static void test_custom_coordinator(const char *table) {
  delta_table *t = NULL;
  CHECK_EQ_INT(delta_table_open(&t, table), 0);
  if (!t) return;
  memory_coordinator m = {100, 0, -1, DELTA_BUF_INIT};
  txn_coordinator co = {mem_publish, mem_read, &m};
  txn_ctx tx;
  txn_begin(&tx, t, NULL, "CREATE TABLE");
  tx.req.read_version = 99; /* pretend version 99 was read */
  tx.n_hooks = 0;          /* nothing in storage to check a checksum against */
  txn_set_coordinator(&tx, &co);
  delta_add a = an_add("elsewhere.parquet");
  CHECK_EQ_INT(txn_stage_add(&tx, &a, true), 0);
  CHECK_EQ_INT(txn_commit(&tx), 0);
  CHECK_EQ_INT(tx.version, 101);
  CHECK_EQ_INT(m.publishes, 2);
  CHECK_EQ_INT(m.published_version, 101);
  CHECK(buf_putc(&m.published, 0) == 0 && strstr((const char *)m.published.data, "elsewhere.parquet"));
  /* nothing went to the table's storage */
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%020d.json", 101);
  CHECK(!exists(t->storage, key));
  buf_dispose(&m.published);
  txn_dispose(&tx);
  delta_table_free(t);
}

static int conflicts_twice(void *ctx, int round) {
  int *calls = ctx;
  (*calls)++;
  return round < 3 ? err_set(DELTA_ECONFLICT, "round %d lost", round) : 0;
}

static void test_retry(void) {
  int calls = 0;
  CHECK_EQ_INT(txn_retry(5, conflicts_twice, &calls), 0);
  CHECK_EQ_INT(calls, 3);
  calls = 0;
  CHECK_EQ_INT(txn_retry(2, conflicts_twice, &calls), DELTA_ECONFLICT);
  CHECK_EQ_INT(calls, 2);
  calls = 0;
  CHECK_EQ_INT(txn_retry(0, conflicts_twice, &calls), DELTA_ECONFLICT);
  CHECK_EQ_INT(calls, 1);
  delta_error_clear();
}

static void test_open_missing(void) {
  char missing[300];
  snprintf(missing, sizeof missing, "%s/none", root);
  delta_table *t = NULL;
  delta_snapshot *s = (delta_snapshot *)1;
  CHECK_EQ_INT(delta_table_open(&t, missing), 0);
  CHECK(txn_open(t, NULL, &s) != 0);
  CHECK(s == NULL);
  CHECK(txn_open(NULL, NULL, &s) == DELTA_EINVAL);
  delta_table_free(t);
  delta_error_clear();
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/deltac-txn-XXXXXX");
  if (!mkdtemp(root)) return 1;
  char table[300];
  snprintf(table, sizeof table, "%s/t", root);
  CHECK_EQ_INT(write_rows(table, "{\"a\":1}\n"), 0); /* v0 */
  test_stage_commit(table);
  test_race(table);
  test_hooks(table);
  test_custom_coordinator(table);
  test_retry();
  test_open_missing();
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  TEST_MAIN_END();
}
