/* The requests opening a checkpointed table costs on a store without local
 * paths (an object store): _last_checkpoint, ONE listing of _delta_log that
 * starts after the checkpoint's older names, the checkpoint read with
 * ranged reads (footer in one read), and only the commits after it; the
 * whole log is never listed. Then a scan reads each data file with ranged
 * reads and gives the same rows as the local table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/error.h"
#include "deltac/scan.h"
#include "log/snapshot.h"
#include "test.h"

#define TABLE "delta.kernel-defaults.basic-dv-with-checkpoint" /* checkpoints at 10, 20, 30, 40; commits to 46 */

/* Passes everything to the local storage but has no local_path, and counts. */
typedef struct {
  delta_storage *inner;
  int log_lists, other_lists, listed;
  char start_after[64];
  int last_cp_calls;       /* head/read of _delta_log/_last_checkpoint */
  int commit_reads;        /* commit files under _delta_log */
  int checkpoint_reads;    /* checkpoint files under _delta_log */
  int other_log_calls;     /* anything else under _delta_log (.crc, heads) */
  int data_reads, data_heads;
} counter;

typedef struct {
  counter *s;
  delta_storage_list_cb cb;
  void *payload;
} list_ctx;

static int on_entry(const delta_storage_entry *e, void *p) {
  list_ctx *c = p;
  c->s->listed++;
  return c->cb(e, c->payload);
}

static int c_list(void *impl, const char *dir, const char *start_after, delta_storage_list_cb cb, void *payload) {
  counter *s = impl;
  if (strcmp(dir, "_delta_log") != 0) {
    s->other_lists++;
    return delta_storage_list(s->inner, dir, start_after, cb, payload);
  }
  list_ctx c = {s, cb, payload};
  s->log_lists++;
  snprintf(s->start_after, sizeof s->start_after, "%s", start_after ? start_after : "");
  return delta_storage_list(s->inner, dir, start_after, on_entry, &c);
}

static void count(counter *s, const char *key, bool head) {
  if (strcmp(key, "_delta_log/_last_checkpoint") == 0) s->last_cp_calls++;
  else if (strncmp(key, "_delta_log/", 11) == 0 && strstr(key, ".checkpoint.") && !head) s->checkpoint_reads++;
  else if (strncmp(key, "_delta_log/", 11) == 0 && strlen(key) > 5 && !head &&
           strcmp(key + strlen(key) - 5, ".json") == 0)
    s->commit_reads++;
  else if (strncmp(key, "_delta_log/", 11) == 0) s->other_log_calls++;
  else if (head) s->data_heads++;
  else s->data_reads++;
}

static int c_read(void *impl, const char *key, uint64_t off, uint64_t len, delta_storage_sink *sink) {
  count(impl, key, false);
  return delta_storage_read_into(((counter *)impl)->inner, key, off, len, sink);
}
static int c_head(void *impl, const char *key, delta_file_info *out) {
  count(impl, key, true);
  return delta_storage_head(((counter *)impl)->inner, key, out);
}
static void c_free(void *impl) {
  delta_storage_free(((counter *)impl)->inner);
  free(impl);
}

static delta_table *open_counted(const char *dir, counter **out) {
  delta_table *t;
  if (delta_table_open(&t, dir)) return NULL;
  counter *s = calloc(1, sizeof *s);
  s->inner = t->storage;
  delta_storage_vtable vt = {.version = DELTA_STORAGE_VTABLE_VERSION, .list = c_list, .read = c_read,
                             .head = c_head, .free = c_free};
  delta_storage *w;
  CHECK(delta_storage_new(&w, &vt, s, t->location) == 0);
  t->storage = w;
  *out = s;
  return t;
}

/* All rows of the latest snapshot as text (order as read). */
static char *scan_text(delta_table *t, int64_t *rows) {
  delta_snapshot *snap = NULL;
  if (delta_snapshot_open(&snap, t, NULL) != 0) return NULL;
  struct ArrowArrayStream s;
  if (delta_scan_read(snap, NULL, &s) != 0) {
    delta_snapshot_free(snap);
    return NULL;
  }
  *rows = 0;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  for (;;) {
    struct ArrowArray a;
    if (s.get_next(&s, &a) != 0) {
      fprintf(stderr, "scan: %s\n", s.get_last_error(&s));
      break;
    }
    if (!a.release) break;
    *rows += a.length;
    /* the first column is an int: enough to compare the rows */
    const struct ArrowArray *c0 = a.children[0];
    const int64_t *v = c0->buffers[1];
    for (int64_t i = 0; i < a.length; i++) fprintf(mem, "%lld\n", (long long)v[c0->offset + i]);
    a.release(&a);
  }
  s.release(&s);
  fclose(mem);
  delta_snapshot_free(snap);
  return text;
}

int main(void) {
  const char *root = getenv("DELTAC_SHARED");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/conformance/tables/%s", root ? root : "../shared", TABLE);
  counter *s = NULL;
  delta_table *t = open_counted(dir, &s);
  CHECK(t != NULL);
  if (!t) TEST_MAIN_END();
  delta_snapshot *snap = NULL;
  CHECK_EQ_INT(delta_snapshot_open(&snap, t, NULL), 0);
  CHECK_EQ_INT(delta_snapshot_version(snap), 46);
  fprintf(stderr, "lists %d (after '%s', %d names), _last_checkpoint %d, commits %d, checkpoint %d, other %d\n",
          s->log_lists, s->start_after, s->listed, s->last_cp_calls, s->commit_reads, s->checkpoint_reads,
          s->other_log_calls);
  /* ≤ 3 list/get calls for the log: _last_checkpoint (head + get) and one listing */
  CHECK_EQ_INT(s->log_lists, 1);
  CHECK(s->last_cp_calls + s->log_lists <= 3);
  CHECK(strncmp(s->start_after, "00000000000000000040", 20) == 0 ||
        strncmp(s->start_after, "00000000000000000039", 20) == 0);
  CHECK(s->listed <= 16); /* the checkpoint, commits 40..46, their .crc files: never all 47 commits */
  CHECK_EQ_INT(s->commit_reads, 6); /* 41..46 */
  /* the checkpoint: its footer in one read, then its row groups' chunks */
  CHECK(s->checkpoint_reads >= 1 && s->checkpoint_reads <= 4); /* one when the tail held it all */
  CHECK_EQ_INT(s->other_lists, 0);
  delta_snapshot_free(snap);

  /* a scan through ranged reads equals the local one */
  int64_t rows = 0, local_rows = 0;
  char *remote = scan_text(t, &rows);
  fprintf(stderr, "scan: %d data reads, %d heads, %lld rows\n", s->data_reads, s->data_heads, (long long)rows);
  CHECK_EQ_INT(s->data_heads, 0); /* add.size gives the size */
  CHECK(s->data_reads >= 2);
  delta_table *lt = NULL;
  CHECK_EQ_INT(delta_table_open(&lt, dir), 0);
  char *local = scan_text(lt, &local_rows);
  CHECK(rows > 0);
  CHECK_EQ_INT(rows, local_rows);
  CHECK(remote && local && strcmp(remote, local) == 0);
  free(remote);
  free(local);
  delta_table_free(lt);
  delta_table_free(t);
  TEST_MAIN_END();
}
