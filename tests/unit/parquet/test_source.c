/* The Parquet reader over a byte source (delta_parquet_open_source): the
 * footer costs one read (two when it is larger than the 64 KiB guess), a
 * projected read issues one coalesced read per row group, and the rows
 * equal those read from the local file. */
#include <stdlib.h>
#include <string.h>

#include "arrow/format.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "deltac/parquet_writer.h"
#include "test.h"
#include "util/buf.h"

static char path_buf[1024];

static const char *shared_file(const char *name) {
  const char *root = getenv("DELTAC_SHARED");
  snprintf(path_buf, sizeof path_buf, "%s/parquet/files/%s.parquet", root ? root : "../shared", name);
  return path_buf;
}

/* A file in memory that counts the reads made of it. */
typedef struct {
  uint8_t *data;
  size_t size;
  int reads;
  uint64_t bytes;
  uint64_t last_offset;
  int closed;
} counting;

static int counting_read(void *ctx, uint64_t offset, size_t len, void *dst) {
  counting *c = ctx;
  c->reads++;
  c->bytes += len;
  c->last_offset = offset;
  if (offset > c->size || len > c->size - offset) return -3; /* the reader must never ask past the end */
  memcpy(dst, c->data + offset, len);
  return 0;
}

static void counting_close(void *ctx) { ((counting *)ctx)->closed++; }

static int load(const char *path, counting *c) {
  memset(c, 0, sizeof *c);
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  c->size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  c->data = malloc(c->size ? c->size : 1);
  size_t got = fread(c->data, 1, c->size, f);
  fclose(f);
  return got == c->size ? 0 : -1;
}

static int open_counting(counting *c, delta_parquet_file **out) {
  delta_parquet_source src = {DELTA_PARQUET_SOURCE_VERSION, c->size, counting_read, counting_close, c, false};
  return delta_parquet_open_source(out, &src, "counting");
}

/* Every batch of a stream as NDJSON. */
static char *render(delta_parquet_file *f, const delta_parquet_read_options *ro) {
  struct ArrowArrayStream s;
  if (delta_parquet_read(f, ro, &s) != 0) return NULL;
  struct ArrowSchema schema;
  if (s.get_schema(&s, &schema) != 0) {
    s.release(&s);
    return NULL;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  arrow_text_writer *w = NULL;
  int rc = arrow_text_writer_new(&w, ARROW_FMT_NDJSON, &schema, mem);
  while (!rc) {
    struct ArrowArray a;
    if (s.get_next(&s, &a) != 0) {
      rc = -1;
      break;
    }
    if (!a.release) break;
    rc = arrow_text_writer_write(w, &a, -1);
    a.release(&a);
  }
  if (!rc) rc = arrow_text_writer_finish(w);
  arrow_text_writer_free(w);
  schema.release(&schema);
  s.release(&s);
  fclose(mem);
  if (rc) {
    free(text);
    return NULL;
  }
  return text;
}

static char *render_local(const char *path, const delta_parquet_read_options *ro) {
  delta_parquet_file *f = NULL;
  if (delta_parquet_open(&f, path) != 0) return NULL;
  char *t = render(f, ro);
  delta_parquet_free(f);
  return t;
}

static void test_small_footer_one_read(void) {
  counting c, d;
  if (load(shared_file("arrow_big_v2_uncompressed"), &c) != 0 || load(shared_file("arrow_nulls_v2_snappy"), &d) != 0) {
    CHECK(!"the shared Parquet files are missing");
    return;
  }
  delta_parquet_file *f = NULL;
  CHECK_EQ_INT(open_counting(&c, &f), 0);
  CHECK_EQ_INT(c.reads, 1);                      /* the tail: magic, length and footer at once */
  CHECK_EQ_INT(c.bytes, 64 * 1024);
  CHECK_EQ_INT(c.last_offset, c.size - 64 * 1024);
  delta_parquet_free(f);
  CHECK_EQ_INT(c.closed, 1);
  /* a file smaller than the guess is read whole, once */
  CHECK_EQ_INT(open_counting(&d, &f), 0);
  CHECK_EQ_INT(d.reads, 1);
  CHECK_EQ_INT(d.bytes, d.size > 65536 ? 65536 : d.size);
  /* a file that came whole with the footer costs no further read */
  if (d.size <= 65536) {
    char *text = render(f, NULL);
    CHECK(text != NULL);
    free(text);
    CHECK_EQ_INT(d.reads, 1);
  }
  delta_parquet_free(f);
  free(c.data);
  free(d.data);
}

typedef struct {
  delta_buf out;
} mem_sink;

static int mem_write(void *ctx, const void *data, size_t len) { return buf_append(&((mem_sink *)ctx)->out, data, len); }

/* A file with a footer over 64 KiB: a small file rewritten with a row group
 * per 2 rows. */
static void test_big_footer_two_reads(void) {
  delta_parquet_file *f = NULL;
  if (delta_parquet_open(&f, shared_file("duck_prim_v1_snappy")) != 0) {
    CHECK(!"the shared Parquet files are missing");
    return;
  }
  struct ArrowArrayStream s;
  CHECK_EQ_INT(delta_parquet_read(f, NULL, &s), 0);
  struct ArrowSchema schema;
  CHECK_EQ_INT(s.get_schema(&s, &schema), 0);
  mem_sink ms = {DELTA_BUF_INIT};
  ms.out.limit = (size_t)1 << 30;
  delta_parquet_sink sink = {mem_write, &ms};
  delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  o.row_group_rows = 2;
  delta_parquet_writer *w = NULL;
  CHECK_EQ_INT(delta_parquet_writer_open_sink(&w, &sink, &schema, &o), 0);
  for (;;) {
    struct ArrowArray a;
    CHECK_EQ_INT(s.get_next(&s, &a), 0);
    if (!a.release) break;
    CHECK_EQ_INT(delta_parquet_writer_write(w, &a), 0);
    a.release(&a);
  }
  CHECK_EQ_INT(delta_parquet_writer_close(w, NULL), 0);
  delta_parquet_writer_free(w);
  schema.release(&schema);
  s.release(&s);
  delta_parquet_free(f);
  counting c = {ms.out.data, ms.out.len, 0, 0, 0, 0};
  uint32_t flen = (uint32_t)c.data[c.size - 8] | (uint32_t)c.data[c.size - 7] << 8 |
                  (uint32_t)c.data[c.size - 6] << 16 | (uint32_t)c.data[c.size - 5] << 24;
  CHECK(flen + 8 > 64 * 1024);
  CHECK_EQ_INT(open_counting(&c, &f), 0);
  CHECK_EQ_INT(c.reads, 2);
  CHECK_EQ_INT(c.last_offset, c.size - 8 - flen);
  CHECK(delta_parquet_num_row_groups(f) > 100);
  /* rows through the source equal rows from memory */
  delta_parquet_file *m = NULL;
  CHECK_EQ_INT(delta_parquet_open_memory(&m, c.data, c.size, "mem"), 0);
  char *a = render(f, NULL), *b = render(m, NULL);
  CHECK(a && b && strcmp(a, b) == 0);
  free(a);
  free(b);
  delta_parquet_free(m);
  delta_parquet_free(f);
  buf_dispose(&ms.out);
}

/* A projected read: one read per row group for the selected columns
 * (their chunks lie within 1 MiB of each other), the same rows as the fd
 * path, and delta_parquet_prefetch makes the first row group's read happen
 * before the stream starts. */
static void test_projected_reads_coalesced(void) {
  const char *names[] = {"duck_rowgroups_v1_snappy", "arrow_many_rowgroups_v1_zstd", "arrow_prim_v1_snappy",
                         "duck_big_v1_uncompressed"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    counting c;
    delta_parquet_file *f = NULL;
    if (load(shared_file(names[k]), &c) != 0 || open_counting(&c, &f) != 0) {
      CHECK(!"cannot open a shared Parquet file");
      return;
    }
    int n_leaves = delta_parquet_num_leaves(f), n_rg = delta_parquet_num_row_groups(f);
    CHECK(n_leaves >= 2);
    /* the first and the last column */
    const char *cols[2] = {delta_parquet_leaf_path(f, 0), delta_parquet_leaf_path(f, n_leaves - 1)};
    delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
    ro.columns = cols;
    ro.n_columns = 2;
    int before = c.reads;
    char *got = render(f, &ro);
    int non_empty = 0;
    for (int g = 0; g < n_rg; g++) non_empty += delta_parquet_row_group_num_rows(f, g) > 0;
    /* chunks of a row group lie within 1 MiB of each other in these files */
    /* at most one read per row group (none for chunks the footer's tail
     * read already holds) */
    if (strcmp(names[k], "duck_big_v1_uncompressed") != 0) CHECK(c.reads - before <= non_empty);
    else CHECK(c.reads - before <= 2 * non_empty);
    CHECK(c.reads - before >= 1);
    if (n_rg > 4) CHECK(c.reads - before >= non_empty / 2);
    char *want = render_local(shared_file(names[k]), &ro);
    CHECK(got && want && strcmp(got, want) == 0);
    free(got);
    /* read ahead, then stream: the stream's first row group costs nothing more */
    before = c.reads;
    CHECK_EQ_INT(delta_parquet_prefetch(f, &ro), 0);
    int after_prefetch = c.reads;
    CHECK(after_prefetch > before);
    struct ArrowArrayStream s;
    CHECK_EQ_INT(delta_parquet_read(f, &ro, &s), 0);
    struct ArrowArray a;
    CHECK_EQ_INT(s.get_next(&s, &a), 0);
    if (delta_parquet_row_group_num_rows(f, 0) > 0) CHECK_EQ_INT(c.reads, after_prefetch);
    if (a.release) a.release(&a);
    s.release(&s);
    free(want);
    delta_parquet_free(f);
    free(c.data);
  }
}

/* A source that fails: the error comes back from the read, not a crash. */
static int failing_read(void *ctx, uint64_t offset, size_t len, void *dst) {
  (void)ctx, (void)offset, (void)len, (void)dst;
  return DELTA_EIO;
}

static void test_failing_source(void) {
  int closed = 0;
  delta_parquet_source src = {DELTA_PARQUET_SOURCE_VERSION, 1000, failing_read, counting_close, &closed, false};
  (void)src;
  counting c = {0};
  src.ctx = &c;
  delta_parquet_file *f = NULL;
  CHECK_EQ_INT(delta_parquet_open_source(&f, &src, "failing"), DELTA_EIO);
  CHECK(f == NULL);
  CHECK_EQ_INT(c.closed, 1);
  src.version = 99;
  CHECK_EQ_INT(delta_parquet_open_source(&f, &src, "bad version"), DELTA_EINVAL);
  CHECK_EQ_INT(c.closed, 2);
}

int main(void) {
  test_small_footer_one_read();
  test_big_footer_two_reads();
  test_projected_reads_coalesced();
  test_failing_source();
  TEST_MAIN_END();
}
