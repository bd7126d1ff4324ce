/*
 * Arrow IPC stream reader: batches of many types (made from NDJSON by the
 * write path's text input) go through ipc_writer and back through
 * ipc_reader; the schemas must match node for node and the batches render
 * to the same NDJSON. The legacy framing reads the same; every truncation
 * and every flipped byte of the stream fails cleanly (at open, or from a
 * later get_next with one line) or reads (ASan watches).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/format.h"
#include "arrow/ipc_reader.h"
#include "arrow/ipc_writer.h"
#include "deltac/error.h"
#include "util/alloc_internal.h"
#include "write/input_text.h"
#include "log/schema_build.h"
#include "test.h"

static int sink_buf(void *ctx, const void *data, size_t len) { return buf_append(ctx, data, len); }

/* Drops the continuation marker of each message prefix: pre-0.15 framing. */
static int sink_legacy(void *ctx, const void *data, size_t len) {
  if (len == 8 && memcmp(data, "\xff\xff\xff\xff", 4) == 0) return buf_append(ctx, (const uint8_t *)data + 4, 4);
  return buf_append(ctx, data, len);
}

/* Render every batch of `st` as NDJSON; also checks alignment. */
static char *render(struct ArrowArrayStream *st, delta_buf *ipc, int64_t *rows) {
  struct ArrowSchema schema;
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  arrow_text_writer *tw = NULL;
  arrow_ipc_writer *iw = NULL;
  *rows = 0;
  CHECK(st->get_schema(st, &schema) == 0);
  CHECK(arrow_text_writer_new(&tw, ARROW_FMT_NDJSON, &schema, fp) == 0);
  if (ipc) CHECK(arrow_ipc_writer_open(&iw, &schema, sink_buf, ipc) == 0);
  for (;;) {
    struct ArrowArray b;
    CHECK(st->get_next(st, &b) == 0);
    if (!b.release) break;
    *rows += b.length;
    for (int64_t c = 0; c < b.n_children; c++)
      for (int64_t k = 0; k < b.children[c]->n_buffers; k++)
        CHECK(((uintptr_t)b.children[c]->buffers[k] & 7) == 0);
    CHECK(arrow_text_writer_write(tw, &b, -1) == 0);
    if (iw) CHECK(arrow_ipc_writer_write(iw, &b) == 0);
    b.release(&b);
  }
  if (iw) CHECK(arrow_ipc_writer_close(iw) == 0);
  arrow_ipc_writer_free(iw);
  CHECK(arrow_text_writer_finish(tw) == 0);
  arrow_text_writer_free(tw);
  schema.release(&schema);
  fclose(fp);
  return text;
}

static void same_schema(const struct ArrowSchema *a, const struct ArrowSchema *b) {
  CHECK_STR(a->format, b->format);
  CHECK_STR(a->name ? a->name : "", b->name ? b->name : "");
  CHECK_EQ_INT(a->flags & ARROW_FLAG_NULLABLE, b->flags & ARROW_FLAG_NULLABLE);
  CHECK_EQ_INT(a->n_children, b->n_children);
  for (int64_t i = 0; i < a->n_children && i < b->n_children; i++) same_schema(a->children[i], b->children[i]);
}

static const char *SCHEMA =
    "b byte, sh short, i int not null, l long, f float, d double, ok boolean, s string, bin binary, "
    "day date, ts timestamp, ntz timestamp_ntz, dec decimal(10,2), big decimal(38,0), "
    "arr array<int>, st struct<x: long, y: array<string>>, m map<string, struct<q: double>>";

static const char *ROWS =
    "{\"b\":1,\"sh\":-2,\"i\":3,\"l\":4000000000,\"f\":1.5,\"d\":-2.25,\"ok\":true,\"s\":\"héllo\","
    "\"bin\":\"AAE=\",\"day\":\"2024-02-29\",\"ts\":\"2024-01-01T00:00:00.123456Z\","
    "\"ntz\":\"2024-01-01T10:00:00\",\"dec\":\"12.34\",\"big\":\"123456789012345678901234567890\","
    "\"arr\":[1,null,3],\"st\":{\"x\":7,\"y\":[\"a\",null]},\"m\":{\"k\":{\"q\":0.5},\"z\":null}}\n"
    "{\"i\":0}\n"
    "{\"b\":-128,\"sh\":32767,\"i\":-3,\"l\":-2,\"f\":0,\"d\":1e300,\"ok\":false,\"s\":\"\",\"arr\":[],"
    "\"st\":{\"x\":null,\"y\":[]},\"m\":{}}\n"
    "{\"i\":5,\"s\":\"last\",\"st\":null,\"arr\":null}\n"
    "{\"i\":6,\"dec\":\"-0.01\"}\n";

static struct ArrowArrayStream source(void) {
  struct ArrowArrayStream st;
  delta_type *t = NULL;
  CHECK(schema_parse_text(SCHEMA, &t) == 0);
  char *text = mem_strdup(ROWS);
  CHECK(input_text_stream(text, strlen(text), INPUT_NDJSON, t, 2, &st) == 0);
  log_type_free(t);
  return st;
}

static void test_round_trip(delta_buf *ipc) {
  struct ArrowArrayStream src = source(), back;
  int64_t rows_in, rows_out;
  char *want = render(&src, ipc, &rows_in);
  CHECK_EQ_INT(rows_in, 5);
  CHECK(arrow_ipc_read(ipc->data, ipc->len, &back) == 0);
  if (!back.release) return;
  struct ArrowSchema a, b;
  src.get_schema(&src, &a);
  back.get_schema(&back, &b);
  same_schema(&a, &b);
  a.release(&a);
  b.release(&b);
  char *got = render(&back, NULL, &rows_out);
  CHECK_EQ_INT(rows_out, 5);
  CHECK_STR(got, want);
  back.release(&back);
  src.release(&src);
  free(got);

  /* legacy framing: the same messages without the 0xFFFFFFFF markers (the
   * writer hands each 8-byte prefix to the sink alone; no body buffer of
   * this data is 8 bytes starting with 0xFFFFFFFF) */
  delta_buf legacy = DELTA_BUF_INIT;
  src = source();
  free(render(&src, NULL, &rows_in));
  src.release(&src);
  src = source();
  struct ArrowSchema s;
  src.get_schema(&src, &s);
  arrow_ipc_writer *w = NULL;
  CHECK(arrow_ipc_writer_open(&w, &s, sink_legacy, &legacy) == 0);
  s.release(&s);
  for (;;) {
    struct ArrowArray batch;
    CHECK(src.get_next(&src, &batch) == 0);
    if (!batch.release) break;
    CHECK(arrow_ipc_writer_write(w, &batch) == 0);
    batch.release(&batch);
  }
  CHECK(arrow_ipc_writer_close(w) == 0);
  arrow_ipc_writer_free(w);
  src.release(&src);
  CHECK(legacy.len % 4 == 0 && legacy.len < ipc->len);
  CHECK(arrow_ipc_read(legacy.data, legacy.len, &back) == 0);
  if (!back.release) fprintf(stderr, "legacy: %s\n", delta_error_last());
  if (back.release) {
    got = render(&back, NULL, &rows_out);
    CHECK_STR(got, want);
    free(got);
    back.release(&back);
  }
  buf_dispose(&legacy);
  free(want);
}

static int clean(int rc) {
  return rc == 0 || rc == DELTA_ECORRUPT || rc == DELTA_EUNSUPPORTED || rc == DELTA_ELIMIT;
}

/* Read every batch; a failing get_next must give one line from the reader.
 * Returns 1 when that is not so. */
static int drain(struct ArrowArrayStream *st) {
  int bad = 0;
  for (;;) {
    struct ArrowArray b;
    if (st->get_next(st, &b)) {
      const char *m = st->get_last_error(st);
      bad = !m || !strstr(m, "arrow ipc: ") || strchr(m, '\n') || b.release;
      break;
    }
    if (!b.release) break;
    b.release(&b);
  }
  st->release(st);
  return bad;
}

static void test_damage(const delta_buf *ipc) {
  struct ArrowArrayStream st;
  int bad = 0;
  for (size_t n = 0; n < ipc->len; n++) {
    int rc = arrow_ipc_read(ipc->data, n, &st);
    if (rc && rc != DELTA_ECORRUPT) bad++;
    if (!rc) bad += drain(&st);
  }
  CHECK_EQ_INT(bad, 0);
  uint8_t *copy = malloc(ipc->len);
  for (size_t i = 0; i < ipc->len; i++) {
    memcpy(copy, ipc->data, ipc->len);
    copy[i] ^= (uint8_t)(0x5a + i);
    int rc = arrow_ipc_read(copy, ipc->len, &st);
    if (!clean(rc)) bad++;
    if (!rc) bad += drain(&st);
  }
  free(copy);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(arrow_ipc_read((const uint8_t *)"", 0, &st), DELTA_ECORRUPT);
  CHECK_EQ_INT(arrow_ipc_read((const uint8_t *)"\xff\xff\xff\xff\0\0\0\0", 8, &st), DELTA_ECORRUPT);
}

int main(void) {
  delta_buf ipc = DELTA_BUF_INIT;
  test_round_trip(&ipc);
  test_damage(&ipc);
  buf_dispose(&ipc);
  TEST_MAIN_END();
}
