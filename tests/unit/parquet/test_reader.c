/* The Parquet reader's public API: opening, projection, row-group selection,
 * batch boundaries inside nested records, statistics, errors, and failing
 * allocations. Data comes from ../shared/parquet/files. */
#include <stdlib.h>
#include <string.h>

#include "arrow/format.h"
#include "deltac/alloc.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "test.h"
#include "util/buf.h"

static char path_buf[1024];

static const char *shared_file(const char *name) {
  const char *root = getenv("DELTAC_SHARED");
  snprintf(path_buf, sizeof path_buf, "%s/parquet/files/%s.parquet", root ? root : "../shared", name);
  return path_buf;
}

/* Render a whole file as NDJSON text with the given options. Returns the
 * text (caller frees) or NULL with *rc set. */
static char *render(const char *name, const delta_parquet_read_options *ro, int *rc, int64_t *rows) {
  delta_parquet_file *f = NULL;
  *rc = delta_parquet_open(&f, shared_file(name));
  if (*rc) return NULL;
  struct ArrowArrayStream s;
  *rc = delta_parquet_read(f, ro, &s);
  if (*rc) {
    delta_parquet_free(f);
    return NULL;
  }
  /* The stream must keep working after the file handle is freed. */
  delta_parquet_free(f);
  struct ArrowSchema schema;
  if (s.get_schema(&s, &schema) != 0) {
    *rc = -1;
    s.release(&s);
    return NULL;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  arrow_text_writer *w = NULL;
  *rc = arrow_text_writer_new(&w, ARROW_FMT_NDJSON, &schema, mem);
  *rows = 0;
  while (!*rc) {
    struct ArrowArray a;
    if (s.get_next(&s, &a) != 0) {
      *rc = -1;
      break;
    }
    if (!a.release) break;
    *rows += a.length;
    *rc = arrow_text_writer_write(w, &a, -1);
    a.release(&a);
  }
  if (!*rc) *rc = arrow_text_writer_finish(w);
  arrow_text_writer_free(w);
  schema.release(&schema);
  s.release(&s);
  fclose(mem);
  if (*rc) {
    free(text);
    return NULL;
  }
  return text;
}

static void test_batches_do_not_change_rows(const char *name) {
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  int rc;
  int64_t rows_all, rows;
  char *all = render(name, &ro, &rc, &rows_all);
  CHECK(all != NULL);
  static const int64_t sizes[] = {1, 2, 7, 100};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    ro.batch_rows = sizes[i];
    char *part = render(name, &ro, &rc, &rows);
    CHECK(part != NULL);
    CHECK_EQ_INT(rows, rows_all);
    CHECK(all && part && strcmp(all, part) == 0);
    free(part);
  }
  free(all);
}

static void test_open_and_counts(void) {
  delta_parquet_file *f = NULL;
  CHECK_EQ_INT(delta_parquet_open(&f, shared_file("arrow_many_rowgroups_v1_zstd")), 0);
  CHECK_EQ_INT(delta_parquet_num_rows(f), 640);
  CHECK_EQ_INT(delta_parquet_num_row_groups(f), 10);
  int64_t sum = 0;
  for (int g = 0; g < 10; g++) sum += delta_parquet_row_group_num_rows(f, g);
  CHECK_EQ_INT(sum, 640);
  CHECK_EQ_INT(delta_parquet_row_group_num_rows(f, 10), -1);
  struct ArrowSchema schema;
  CHECK_EQ_INT(delta_parquet_schema(f, &schema), 0);
  CHECK_STR(schema.format, "+s");
  CHECK(schema.n_children > 0);
  schema.release(&schema);
  delta_parquet_free(f);

  CHECK_EQ_INT(delta_parquet_open(&f, "/nonexistent/file.parquet"), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "/nonexistent/file.parquet") != NULL);
  static const char junk[] = "PAR1 this is not a parquet file at all PAR1";
  CHECK_EQ_INT(delta_parquet_open_memory(&f, junk, sizeof junk - 1, "junk"), DELTA_ECORRUPT);
  CHECK_EQ_INT(delta_parquet_open_memory(&f, "PAR1", 4, "tiny"), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "tiny") != NULL);
}

static void test_projection(void) {
  delta_parquet_file *f = NULL;
  CHECK_EQ_INT(delta_parquet_open(&f, shared_file("duck_nested_v1_snappy")), 0);
  int n = delta_parquet_num_leaves(f);
  CHECK(n > 3);
  /* Select the first top-level column by name and a nested leaf by path. */
  const char *first = delta_parquet_leaf_path(f, 0);
  char top[256];
  snprintf(top, sizeof top, "%s", first);
  char *dot = strchr(top, '.');
  if (dot) *dot = '\0';
  const char *cols[] = {top};
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  ro.columns = cols;
  ro.n_columns = 1;
  struct ArrowArrayStream s;
  CHECK_EQ_INT(delta_parquet_read(f, &ro, &s), 0);
  struct ArrowSchema schema;
  CHECK_EQ_INT(s.get_schema(&s, &schema), 0);
  CHECK_EQ_INT(schema.n_children, 1);
  CHECK_STR(schema.children[0]->name, top);
  schema.release(&schema);
  struct ArrowArray a;
  CHECK_EQ_INT(s.get_next(&s, &a), 0);
  CHECK(a.release != NULL);
  CHECK_EQ_INT(a.n_children, 1);
  CHECK_EQ_INT(a.length, 400);
  a.release(&a);
  s.release(&s);

  const char *bad[] = {"no_such_column"};
  ro.columns = bad;
  CHECK_EQ_INT(delta_parquet_read(f, &ro, &s), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "no_such_column") != NULL);
  delta_parquet_free(f);
}

static void test_row_group_selection(void) {
  delta_parquet_file *f = NULL;
  CHECK_EQ_INT(delta_parquet_open(&f, shared_file("arrow_many_rowgroups_v1_zstd")), 0);
  int groups[] = {3, 1};
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  ro.row_groups = groups;
  ro.n_row_groups = 2;
  struct ArrowArrayStream s;
  CHECK_EQ_INT(delta_parquet_read(f, &ro, &s), 0);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    CHECK_EQ_INT(s.get_next(&s, &a), 0);
    if (!a.release) break;
    rows += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(rows, delta_parquet_row_group_num_rows(f, 3) + delta_parquet_row_group_num_rows(f, 1));
  s.release(&s);
  int bad[] = {10};
  ro.row_groups = bad;
  ro.n_row_groups = 1;
  CHECK_EQ_INT(delta_parquet_read(f, &ro, &s), DELTA_ENOTFOUND);
  delta_parquet_free(f);
}

static void test_stats(void) {
  delta_parquet_file *f = NULL;
  CHECK_EQ_INT(delta_parquet_open(&f, shared_file("duck_rowgroups_v1_snappy")), 0);
  int found = 0;
  for (int c = 0; c < delta_parquet_num_leaves(f); c++) {
    delta_parquet_stats st;
    CHECK_EQ_INT(delta_parquet_column_stats(f, 0, c, &st), 0);
    if (st.has_min_max && st.physical_type == 2 /* INT64 */ && st.min_len == 8) {
      int64_t mn, mx;
      memcpy(&mn, st.min, 8);
      memcpy(&mx, st.max, 8);
      CHECK(mn <= mx);
      found++;
    }
  }
  CHECK(found > 0);
  delta_parquet_stats st;
  CHECK_EQ_INT(delta_parquet_column_stats(f, 99, 0, &st), DELTA_EINVAL);
  delta_parquet_free(f);
}

/* ---- failing allocations: every failure point gives an error, never a crash ---- */

static long alloc_budget = -1;
static void *fail_malloc(size_t n, void *ctx) {
  (void)ctx;
  if (alloc_budget == 0) return NULL;
  if (alloc_budget > 0) alloc_budget--;
  return malloc(n);
}
static void *fail_realloc(void *p, size_t n, void *ctx) {
  (void)ctx;
  if (alloc_budget == 0) return NULL;
  if (alloc_budget > 0) alloc_budget--;
  return realloc(p, n);
}
static void fail_free(void *p, void *ctx) {
  (void)ctx;
  free(p);
}

static void test_failing_allocations(void) {
  delta_allocator a = {DELTA_ALLOCATOR_VERSION, fail_malloc, fail_realloc, fail_free, NULL};
  CHECK_EQ_INT(delta_allocator_set(&a), 0);
  int succeeded = 0;
  for (long budget = 0; budget < 5000 && !succeeded; budget++) {
    alloc_budget = budget;
    delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
    int rc;
    int64_t rows;
    char *text = render("duck_allnull_v1_snappy", &ro, &rc, &rows);
    if (text) {
      succeeded = 1;
      CHECK_EQ_INT(rows, 64);
    } else {
      CHECK(rc != 0);
    }
    free(text);
  }
  alloc_budget = -1;
  CHECK(succeeded);
  CHECK_EQ_INT(delta_allocator_set(NULL), 0);
}

int main(void) {
  test_open_and_counts();
  test_projection();
  test_row_group_selection();
  test_stats();
  test_batches_do_not_change_rows("arrow_nested_v1_snappy");
  test_batches_do_not_change_rows("duck_nested_v1_snappy");
  test_batches_do_not_change_rows("arrow_nulls_v2_snappy");
  test_batches_do_not_change_rows("duck_allnull_v1_snappy");
  test_failing_allocations();
  TEST_MAIN_END();
}
