/* Unit test for src/rewrite/dv_update.c: the stats of a file with a new DV
 * (moved here from test_delete.c), the add line of a file with a new DV
 * inline in the log or in the commit's DV file, the old DV's rows kept,
 * and the remove line of a rewritten file. */
#include <string.h>

#include "rewrite/dv_update.h"
#include "test.h"

static void test_stats(void) {
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(rewrite_stats_loose("{\"numRecords\":3}", &b), 0);
  CHECK_EQ_INT(buf_putc(&b, 0), 0);
  CHECK_STR((const char *)b.data, "{\"tightBounds\":false,\"numRecords\":3}");
  buf_reset(&b);
  CHECK_EQ_INT(rewrite_stats_loose("{\"numRecords\":3,\"tightBounds\":true}", &b), 0);
  CHECK_EQ_INT(buf_putc(&b, 0), 0);
  CHECK_STR((const char *)b.data, "{\"numRecords\":3,\"tightBounds\":false}");
  buf_reset(&b);
  CHECK_EQ_INT(rewrite_stats_loose("{}", &b), 0);
  CHECK_EQ_INT(buf_putc(&b, 0), 0);
  CHECK_STR((const char *)b.data, "{\"tightBounds\":false}");
  buf_reset(&b);
  /* no stats: nothing */
  CHECK_EQ_INT(rewrite_stats_loose(NULL, &b), 0);
  CHECK_EQ_INT(b.len, 0);
  buf_dispose(&b);
}

static delta_add file_a(void) {
  delta_add a;
  memset(&a, 0, sizeof a);
  a.path = "part-00000.parquet";
  a.size = 1234;
  a.num_records = 10;
  a.stats = "{\"numRecords\":10}";
  return a;
}

static void test_add_with_dv(void) {
  delta_add a = file_a();
  delta_bitmap64 *fresh = NULL, *old = NULL;
  delta_buf dv_file = DELTA_BUF_INIT, dv_path = DELTA_BUF_INIT, actions = DELTA_BUF_INIT;
  CHECK_EQ_INT(dv_bitmap64_new(&fresh), 0);
  CHECK_EQ_INT(dv_bitmap64_new(&old), 0);
  CHECK_EQ_INT(dv_bitmap64_add(fresh, 3), 0);
  CHECK_EQ_INT(dv_bitmap64_add(old, 1), 0);
  CHECK_EQ_INT(buf_puts(&dv_path, "deletion_vector_test.bin"), 0);
  /* two rows: small, inline in the log; the old DV's row is kept */
  CHECK_EQ_INT(rewrite_add_with_dv(&a, old, fresh, true, &dv_file, &dv_path, 1000, &actions), 0);
  CHECK_EQ_INT(dv_bitmap64_cardinality(fresh), 2);
  CHECK_EQ_INT(dv_file.len, 0);
  CHECK_EQ_INT(buf_putc(&actions, 0), 0);
  const char *line = (const char *)actions.data;
  CHECK(strncmp(line, "{\"add\":{", 8) == 0);
  CHECK(strstr(line, "\"storageType\":\"i\"") != NULL);
  CHECK(strstr(line, "\"cardinality\":2") != NULL);
  CHECK(strstr(line, "tightBounds\\\":false") != NULL);
  CHECK(strstr(line, "\"dataChange\":true") != NULL);
  CHECK(actions.len >= 2 && actions.data[actions.len - 2] == '\n');
  /* inline not allowed: the bitmap goes to the commit's DV file */
  buf_reset(&actions);
  CHECK_EQ_INT(rewrite_add_with_dv(&a, NULL, fresh, false, &dv_file, &dv_path, 1000, &actions), 0);
  CHECK(dv_file.len > 0);
  CHECK_EQ_INT(buf_putc(&actions, 0), 0);
  line = (const char *)actions.data;
  CHECK(strstr(line, "\"storageType\":\"u\"") != NULL);
  CHECK(strstr(line, "deletion_vector_test.bin") != NULL);
  CHECK(strstr(line, "\"offset\":") != NULL);
  dv_bitmap64_free(fresh);
  dv_bitmap64_free(old);
  buf_dispose(&dv_file);
  buf_dispose(&dv_path);
  buf_dispose(&actions);
}

static void test_remove(void) {
  delta_add a = file_a();
  delta_buf actions = DELTA_BUF_INIT;
  CHECK_EQ_INT(rewrite_remove_action(&actions, &a, 2000), 0);
  CHECK_EQ_INT(buf_putc(&actions, 0), 0);
  const char *line = (const char *)actions.data;
  CHECK(strncmp(line, "{\"remove\":{\"path\":\"part-00000.parquet\"", 38) == 0);
  CHECK(strstr(line, "\"deletionTimestamp\":2000") != NULL);
  CHECK(strstr(line, "\"dataChange\":true") != NULL);
  buf_dispose(&actions);
}

int main(void) {
  test_stats();
  test_add_with_dv();
  test_remove();
  TEST_MAIN_END();
}
