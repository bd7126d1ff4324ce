/* Unit test for src/rewrite/live_rows.c and file_writers.c: a file with a
 * DV read whole (every physical row) and live (the DV applied); its live
 * rows written again through the writers of a rewrite on a table with the
 * change data feed, giving an add line and a cdc line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac.h"
#include "log/snapshot.h"
#include "rewrite/file_writers.h"
#include "rewrite/live_rows.h"
#include "test.h"

static int count_rows(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  (void)schema;
  *(int64_t *)ctx += batch->length;
  return 0;
}

static int stop_at_first(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  (void)ctx, (void)schema, (void)batch;
  return -99;
}

static int open_latest(const char *loc, delta_table **t, delta_snapshot **s) {
  int rc = delta_table_open(t, loc);
  return rc ? rc : delta_snapshot_open(s, *t, NULL);
}

static void test_read(const char *shared) {
  char loc[1024];
  snprintf(loc, sizeof loc, "%s/conformance/tables/kernel-rs.table-with-dv-small", shared);
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(open_latest(loc, &t, &s), 0);
  if (!s) goto done;
  CHECK_EQ_INT(s->n_files, 1);
  CHECK(s->files[0].dv.present);
  int64_t all = 0, live = 0;
  CHECK_EQ_INT(rewrite_read_file(s, &s->files[0], count_rows, &all), 0);
  CHECK_EQ_INT(rewrite_read_live_rows(s, &s->files[0], count_rows, &live), 0);
  CHECK_EQ_INT(all, 10);
  CHECK_EQ_INT(live, 8);
  /* the callback's code ends the read and comes back */
  CHECK_EQ_INT(rewrite_read_file(s, &s->files[0], stop_at_first, NULL), -99);
done:
  delta_snapshot_free(s);
  delta_table_free(t);
}

typedef struct {
  rewrite_writers *w;
  int rc;
} copy_ctx;

static int copy_rows(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  (void)schema;
  copy_ctx *c = ctx;
  data_writer *dw = NULL;
  int rc = rewrite_writers_data(c->w, &dw);
  if (rc) return rc;
  if ((rc = data_writer_write(dw, batch))) return rc;
  return rewrite_cdc_write(c->w, batch, "delete");
}

static void test_rewrite(const char *bin) {
  char dir[] = "/tmp/deltac-rewrite-XXXXXX";
  if (!mkdtemp(dir)) return;
  char in[1024], tbl[1024], cmd[4096];
  snprintf(in, sizeof in, "%s/in.ndjson", dir);
  snprintf(tbl, sizeof tbl, "%s/t", dir);
  FILE *f = fopen(in, "w");
  fputs("{\"id\":1,\"p\":\"a\"}\n{\"id\":2,\"p\":\"a\"}\n{\"id\":3,\"p\":\"b\"}\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "'%s' write --schema 'id long, p string' --partition-by p "
           "--property delta.enableChangeDataFeed=true --input '%s' '%s' >/dev/null",
           bin, in, tbl);
  CHECK_EQ_INT(system(cmd), 0);
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  rewrite_writers *w = NULL;
  delta_buf actions = DELTA_BUF_INIT;
  CHECK_EQ_INT(open_latest(tbl, &t, &s), 0);
  if (!s) goto done;
  CHECK_EQ_INT(rewrite_writers_new(&w, s, true), 0);
  CHECK(w && w->cdc != NULL);
  copy_ctx c = {w, 0};
  for (int64_t i = 0; w && i < s->n_files; i++)
    CHECK_EQ_INT(rewrite_read_live_rows(s, &s->files[i], copy_rows, &c), 0);
  int64_t files = 0, cdc_files = 0;
  CHECK_EQ_INT(rewrite_writers_finish(w, &actions, &files, &cdc_files), 0);
  CHECK_EQ_INT(files, 2);      /* one per partition */
  CHECK_EQ_INT(cdc_files, 2);
  CHECK(rewrite_writers_bytes(w) > 0);
  CHECK_EQ_INT(buf_putc(&actions, 0), 0);
  const char *text = (const char *)actions.data;
  CHECK(strstr(text, "{\"add\":{\"path\":\"p=a/") != NULL);
  CHECK(strstr(text, "{\"cdc\":{\"path\":\"_change_data/p=a/") != NULL);
  CHECK(strstr(text, "\"dataChange\":false}}") != NULL);
done:
  buf_dispose(&actions);
  rewrite_writers_free(w);
  delta_snapshot_free(s);
  delta_table_free(t);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
  const char *shared = getenv("DELTAC_SHARED") ? getenv("DELTAC_SHARED") : "../shared";
  test_read(shared);
  const char *bin = getenv("DELTAC_BIN");
  if (!bin || access(bin, X_OK) != 0) TEST_MISSING("DELTAC_BIN is not set to a built deltac");
  test_rewrite(bin);
  TEST_MAIN_END();
}
