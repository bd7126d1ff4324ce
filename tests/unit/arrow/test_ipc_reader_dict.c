/*
 * Arrow IPC reader: dictionary-encoded fields and compressed bodies, in
 * streams built message by message here (our writer sends neither).
 *
 * The schema has a dictionary-encoded string column (int8 indices), an int64
 * one inside a struct (uint16 indices) and a string one inside a list (int64
 * indices). The stream sets the dictionaries, sends a batch, extends one
 * dictionary (isDelta), sends a batch using the new entry, replaces it, and
 * sends a batch again; null indices read as nulls. The same batches with
 * ZSTD and LZ4_FRAME bodies (and a buffer left uncompressed, length -1)
 * read the same. Then the failures: an index out of range, a dictionary
 * used before it is sent, a compressed buffer that does not decompress to
 * its stated length, one claiming far more than it could hold, and every
 * truncation of the stream: each fails with one line and nothing crashes.
 * delta_write of a stream that breaks after good batches fails with
 * DELTA_ECORRUPT and leaves the table's version where it was.
 * With DELTAC_IPC_OUT=dir, the good streams are also written to
 * dir/dict-<codec>.arrows (the fuzz seeds fuzz/corpus/ipc/dict-*.arrows).
 */
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "arrow/flatbuf.h"
#include "arrow/format.h"
#include "arrow/ipc_reader.h"
#include "deltac/error.h"
#include "deltac/table.h"
#include "deltac/write.h"
#include "util/buf.h"
#include "test.h"

enum { NONE = -1, LZ4F = 0, ZSTD = 1 };

/* One RecordBatch body under construction. */
typedef struct {
  delta_buf body;
  int64_t nodes[32][2], bufs[32][2];
  int n_nodes, n_bufs;
  int codec;       /* NONE, LZ4F or ZSTD */
  int raw_next;    /* send the next buffer uncompressed (length -1) */
  int lie_next;    /* state a wrong uncompressed length for the next buffer */
  int64_t claim_next; /* state this uncompressed length for the next buffer */
} rbatch;

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

static void rb_init(rbatch *b, int codec) {
  memset(b, 0, sizeof *b);
  b->body = (delta_buf)DELTA_BUF_INIT;
  b->codec = codec;
}

static void rb_node(rbatch *b, int64_t len, int64_t nulls) {
  b->nodes[b->n_nodes][0] = len;
  b->nodes[b->n_nodes++][1] = nulls;
}

static void rb_buf(rbatch *b, const void *data, size_t len) {
  int64_t start = (int64_t)b->body.len;
  if (len && b->codec != NONE) {
    int64_t ulen = b->raw_next ? -1 : b->claim_next ? b->claim_next : (int64_t)len + (b->lie_next ? 1 : 0);
    buf_append(&b->body, &ulen, 8);
    if (b->raw_next) {
      buf_append(&b->body, data, len);
    } else {
      size_t cap = b->codec == ZSTD ? ZSTD_compressBound(len) : LZ4F_compressFrameBound(len, NULL);
      void *out = malloc(cap);
      size_t n = b->codec == ZSTD ? ZSTD_compress(out, cap, data, len, 3) : LZ4F_compressFrame(out, cap, data, len, NULL);
      CHECK(b->codec == ZSTD ? !ZSTD_isError(n) : !LZ4F_isError(n));
      buf_append(&b->body, out, n);
      free(out);
    }
    b->raw_next = b->lie_next = 0;
    b->claim_next = 0;
  } else if (len) {
    buf_append(&b->body, data, len);
  }
  b->bufs[b->n_bufs][0] = start;
  b->bufs[b->n_bufs++][1] = (int64_t)b->body.len - start;
  while (b->body.len % 8) buf_putc(&b->body, 0);
}

static void rb_bits(rbatch *b, const char *valid) { /* "1101": validity of each row; NULL: no nulls */
  uint8_t bits[8] = {0};
  if (!valid) {
    rb_buf(b, NULL, 0);
    return;
  }
  for (size_t i = 0; valid[i]; i++)
    if (valid[i] == '1') bits[i / 8] |= (uint8_t)(1u << (i % 8));
  rb_buf(b, bits, (strlen(valid) + 7) / 8);
}

/* A utf8 array of the given strings (no nulls). */
static void rb_strings(rbatch *b, const char *const *s, int n) {
  int32_t off[16] = {0};
  char data[256];
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    memcpy(data + at, s[i], strlen(s[i]));
    at += strlen(s[i]);
    off[i + 1] = (int32_t)at;
  }
  rb_node(b, n, 0);
  rb_bits(b, NULL);
  rb_buf(b, off, 4 * ((size_t)n + 1));
  rb_buf(b, data, at);
}

static fb_ref rb_table(fb_builder *f, rbatch *b, int64_t length) {
  fb_ref nodes = fb_struct_vector(f, b->nodes, 16, (size_t)b->n_nodes, 8);
  fb_ref bufs = fb_struct_vector(f, b->bufs, 16, (size_t)b->n_bufs, 8);
  fb_ref comp = 0;
  if (b->codec != NONE) {
    fb_table_start(f);
    fb_add_u8(f, 0, (uint8_t)b->codec);
    comp = fb_table_end(f);
  }
  fb_table_start(f);
  fb_add_i64(f, 0, length);
  fb_add_offset(f, 1, nodes);
  fb_add_offset(f, 2, bufs);
  fb_add_offset(f, 3, comp);
  return fb_table_end(f);
}

/* Frame a Message (header type, header table) with `body` into `out`. */
static void emit(delta_buf *out, fb_builder *f, uint8_t type, fb_ref header, const delta_buf *body) {
  fb_table_start(f);
  fb_add_i16(f, 0, 4); /* V5 */
  fb_add_u8(f, 1, type);
  fb_add_offset(f, 2, header);
  fb_add_i64(f, 3, body ? (int64_t)body->len : 0);
  fb_ref msg = fb_table_end(f);
  const uint8_t *data;
  size_t len;
  CHECK(fb_finish(f, msg, &data, &len) == 0);
  uint32_t pre[2] = {0xFFFFFFFFu, (uint32_t)len};
  buf_append(out, pre, 8);
  buf_append(out, data, len);
  if (body && body->len) buf_append(out, body->data, body->len);
  fb_reset(f);
}

static void emit_batch(delta_buf *out, rbatch *b, int64_t length) {
  fb_builder f;
  fb_init(&f);
  emit(out, &f, 3, rb_table(&f, b, length), &b->body);
  fb_dispose(&f);
  buf_dispose(&b->body);
}

static void emit_dict(delta_buf *out, rbatch *b, int64_t id, int64_t length, int delta) {
  fb_builder f;
  fb_init(&f);
  fb_ref data = rb_table(&f, b, length);
  fb_table_start(&f);
  fb_add_i64(&f, 0, id);
  fb_add_offset(&f, 1, data);
  fb_add_bool(&f, 2, delta);
  emit(out, &f, 2, fb_table_end(&f), &b->body);
  fb_dispose(&f);
  buf_dispose(&b->body);
}

/* Field helpers: type ids of Schema.fbs. */
static fb_ref field(fb_builder *f, const char *name, uint8_t type_type, fb_ref type, fb_ref dict, const fb_ref *kids,
                    int n_kids) {
  fb_ref nm = fb_string(f, name, strlen(name));
  fb_ref ch = fb_offset_vector(f, kids, (size_t)n_kids);
  fb_table_start(f);
  fb_add_offset(f, 0, nm);
  fb_add_bool(f, 1, 1);
  fb_add_u8(f, 2, type_type);
  fb_add_offset(f, 3, type);
  fb_add_offset(f, 4, dict);
  fb_add_offset(f, 5, ch);
  return fb_table_end(f);
}

static fb_ref int_type(fb_builder *f, int bits, int sgn) {
  fb_table_start(f);
  fb_add_i32(f, 0, bits);
  fb_add_bool(f, 1, sgn);
  return fb_table_end(f);
}

static fb_ref empty(fb_builder *f) {
  fb_table_start(f);
  return fb_table_end(f);
}

static fb_ref dict_enc(fb_builder *f, int64_t id, int bits, int sgn) {
  fb_ref it = int_type(f, bits, sgn);
  fb_table_start(f);
  fb_add_i64(f, 0, id);
  fb_add_offset(f, 1, it);
  return fb_table_end(f);
}

/* c: dictionary<utf8, int8> (id 0); n: struct<d: dictionary<int64, uint16> (id 1)>;
 * l: list<dictionary<utf8, int64> (id 2)> */
static void emit_schema(delta_buf *out) {
  fb_builder f;
  fb_init(&f);
  fb_ref c = field(&f, "c", 5, empty(&f), dict_enc(&f, 0, 8, 1), NULL, 0);
  fb_ref d = field(&f, "d", 2, int_type(&f, 64, 1), dict_enc(&f, 1, 16, 0), NULL, 0);
  fb_ref n = field(&f, "n", 13, empty(&f), 0, &d, 1);
  fb_ref item = field(&f, "item", 5, empty(&f), dict_enc(&f, 2, 64, 1), NULL, 0);
  fb_ref l = field(&f, "l", 12, empty(&f), 0, &item, 1);
  fb_ref fields[3] = {c, n, l};
  fb_ref fv = fb_offset_vector(&f, fields, 3);
  fb_table_start(&f);
  fb_add_offset(&f, 1, fv);
  emit(out, &f, 1, fb_table_end(&f), NULL);
  fb_dispose(&f);
}

static void dict_strings(delta_buf *out, int codec, int64_t id, const char *const *s, int n, int delta) {
  rbatch b;
  rb_init(&b, codec);
  rb_strings(&b, s, n);
  emit_dict(out, &b, id, n, delta);
}

static void dict_longs(delta_buf *out, int codec, int64_t id, const int64_t *v, int n) {
  rbatch b;
  rb_init(&b, codec);
  rb_node(&b, n, 0);
  rb_bits(&b, NULL);
  rb_buf(&b, v, 8 * (size_t)n);
  emit_dict(out, &b, id, n, 0);
}

/* A batch of 3 rows: c indices (int8, validity), n.d indices (uint16), and
 * l lists of one or two items (int64 indices into dictionary 2). */
static void batch(delta_buf *out, int codec, const int8_t c[3], const char *c_valid, const uint16_t d[3],
                  int64_t item, int raw_indices) {
  rbatch b;
  rb_init(&b, codec);
  rb_node(&b, 3, c_valid ? 1 : 0);
  rb_bits(&b, c_valid);
  b.raw_next = raw_indices;
  rb_buf(&b, c, 3);
  rb_node(&b, 3, 0); /* n */
  rb_bits(&b, NULL);
  rb_node(&b, 3, 0); /* n.d */
  rb_bits(&b, NULL);
  rb_buf(&b, d, 6);
  rb_node(&b, 3, 0); /* l: [item], [], [item, 0] */
  rb_bits(&b, NULL);
  int32_t off[4] = {0, 1, 1, 3};
  rb_buf(&b, off, 16);
  rb_node(&b, 3, 0);
  rb_bits(&b, NULL);
  int64_t items[3] = {item, 0, 0};
  rb_buf(&b, items, 24);
  emit_batch(out, &b, 3);
}

static void eos(delta_buf *out) { buf_append(out, "\xff\xff\xff\xff\0\0\0\0", 8); }

static const char *const AB[] = {"a", "b"}, *const C[] = {"c"}, *const Z[] = {"zz"}, *const XY[] = {"x", "y"};
static const int64_t D[] = {10, 20, 30};

/* The whole good stream, bodies compressed with `codec`. */
static void good_stream(delta_buf *out, int codec) {
  emit_schema(out);
  dict_strings(out, codec, 0, AB, 2, 0);
  dict_longs(out, codec, 1, D, 3);
  dict_strings(out, codec, 2, XY, 2, 0);
  batch(out, codec, (const int8_t[]){0, 1, 0}, "101", (const uint16_t[]){2, 0, 1}, 1, 0);
  dict_strings(out, codec, 0, C, 1, 1); /* delta: c is index 2 */
  batch(out, codec, (const int8_t[]){2, 1, 0}, NULL, (const uint16_t[]){0, 0, 0}, 0, codec != NONE);
  dict_strings(out, codec, 0, Z, 1, 0); /* replacement: only "zz" */
  batch(out, codec, (const int8_t[]){0, 0, 0}, "011", (const uint16_t[]){1, 1, 2}, 1, 0);
  eos(out);
}

static const char *WANT =
    "{\"c\":\"a\",\"n\":{\"d\":30},\"l\":[\"y\"]}\n"
    "{\"c\":null,\"n\":{\"d\":10},\"l\":[]}\n"
    "{\"c\":\"a\",\"n\":{\"d\":20},\"l\":[\"x\",\"x\"]}\n"
    "{\"c\":\"c\",\"n\":{\"d\":10},\"l\":[\"x\"]}\n"
    "{\"c\":\"b\",\"n\":{\"d\":10},\"l\":[]}\n"
    "{\"c\":\"a\",\"n\":{\"d\":10},\"l\":[\"x\",\"x\"]}\n"
    "{\"c\":null,\"n\":{\"d\":20},\"l\":[\"y\"]}\n"
    "{\"c\":\"zz\",\"n\":{\"d\":20},\"l\":[]}\n"
    "{\"c\":\"zz\",\"n\":{\"d\":30},\"l\":[\"x\",\"x\"]}\n";

/* Reads at most 3 bytes at a time: the reader must assemble messages. */
typedef struct {
  const delta_buf *b;
  size_t pos;
} trickle;

static int64_t trickle_read(void *ctx, void *buf, size_t n) {
  trickle *t = ctx;
  if (n > 3) n = 3;
  if (n > t->b->len - t->pos) n = t->b->len - t->pos;
  memcpy(buf, t->b->data + t->pos, n);
  t->pos += n;
  return (int64_t)n;
}

/* Render the stream; *rc gets the first failing get_next (0: none) and
 * *msg its error line. */
static char *render(struct ArrowArrayStream *st, int *rc, char *msg, size_t cap) {
  struct ArrowSchema schema;
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  arrow_text_writer *tw = NULL;
  *rc = 0;
  CHECK(st->get_schema(st, &schema) == 0);
  CHECK(arrow_text_writer_new(&tw, ARROW_FMT_NDJSON, &schema, fp) == 0);
  schema.release(&schema);
  for (;;) {
    struct ArrowArray b;
    if ((*rc = st->get_next(st, &b))) {
      snprintf(msg, cap, "%s", st->get_last_error(st));
      CHECK(b.release == NULL);
      break;
    }
    if (!b.release) break;
    CHECK(arrow_text_writer_write(tw, &b, -1) == 0);
    b.release(&b);
  }
  CHECK(arrow_text_writer_finish(tw) == 0);
  arrow_text_writer_free(tw);
  fclose(fp);
  return text;
}

static void test_good(int codec) {
  delta_buf s = DELTA_BUF_INIT;
  good_stream(&s, codec);
  const char *dir = getenv("DELTAC_IPC_OUT");
  if (dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/dict-%s.arrows", dir, codec == NONE ? "plain" : codec == ZSTD ? "zstd" : "lz4");
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (fp) {
      fwrite(s.data, 1, s.len, fp);
      fclose(fp);
    }
  }
  struct ArrowArrayStream st;
  int rc = arrow_ipc_read(s.data, s.len, &st);
  CHECK_EQ_INT(rc, 0);
  if (rc) {
    fprintf(stderr, "codec %d: %s\n", codec, delta_error_last());
    buf_dispose(&s);
    return;
  }
  struct ArrowSchema schema;
  CHECK(st.get_schema(&st, &schema) == 0);
  CHECK_STR(schema.children[0]->format, "u");
  CHECK_STR(schema.children[1]->children[0]->format, "l");
  CHECK_STR(schema.children[2]->children[0]->format, "u");
  schema.release(&schema);
  char msg[512] = "";
  char *got = render(&st, &rc, msg, sizeof msg);
  CHECK_EQ_INT(rc, 0);
  if (rc) fprintf(stderr, "codec %d: %s\n", codec, msg);
  CHECK_STR(got, WANT);
  free(got);
  st.release(&st);

  /* the same stream, a few bytes per read */
  trickle t = {&s, 0};
  CHECK(arrow_ipc_open(trickle_read, &t, NULL, "trickle", &st) == 0);
  if (st.release) {
    got = render(&st, &rc, msg, sizeof msg);
    CHECK_EQ_INT(rc, 0);
    CHECK_STR(got, WANT);
    free(got);
    st.release(&st);
  }

  /* every truncation: open fails as corrupt, or a get_next fails with one
   * line naming the stream, or (cut between messages) fewer rows read */
  int bad = 0;
  for (size_t n = 0; n < s.len; n++) {
    rc = arrow_ipc_read(s.data, n, &st);
    if (rc) {
      bad += rc != DELTA_ECORRUPT;
      continue;
    }
    got = render(&st, &rc, msg, sizeof msg);
    if (rc && (!strstr(msg, "arrow ipc: malformed stream") || strchr(msg, '\n'))) bad++;
    if (!rc && strncmp(WANT, got, strlen(got)) != 0) bad++;
    free(got);
    st.release(&st);
  }
  CHECK_EQ_INT(bad, 0);
  /* every flipped byte: a clean error or a read */
  uint8_t *copy = malloc(s.len);
  for (size_t i = 0; i < s.len; i++) {
    memcpy(copy, s.data, s.len);
    copy[i] ^= (uint8_t)(0x5a + i);
    rc = arrow_ipc_read(copy, s.len, &st);
    if (rc && rc != DELTA_ECORRUPT && rc != DELTA_EUNSUPPORTED && rc != DELTA_ELIMIT) bad++;
    if (!rc) {
      free(render(&st, &rc, msg, sizeof msg));
      st.release(&st);
    }
  }
  free(copy);
  CHECK_EQ_INT(bad, 0);
  buf_dispose(&s);
}

/* A stream whose last batch (or message) is bad: the good batches read,
 * then get_next fails with `want` in its message. */
static void expect_late_error(const delta_buf *s, const char *want) {
  struct ArrowArrayStream st;
  CHECK(arrow_ipc_read(s->data, s->len, &st) == 0);
  if (!st.release) return;
  int rc;
  char msg[512] = "";
  free(render(&st, &rc, msg, sizeof msg));
  CHECK(rc != 0);
  if (!strstr(msg, want)) fprintf(stderr, "want \"%s\", got \"%s\"\n", want, msg);
  CHECK(strstr(msg, want) != NULL);
  /* the failure sticks */
  struct ArrowArray b;
  CHECK(st.get_next(&st, &b) == rc && b.release == NULL);
  st.release(&st);
}

static void test_bad(void) {
  delta_buf s = DELTA_BUF_INIT;
  /* an index past the dictionary */
  emit_schema(&s);
  dict_strings(&s, NONE, 0, AB, 2, 0);
  dict_longs(&s, NONE, 1, D, 3);
  dict_strings(&s, NONE, 2, XY, 2, 0);
  batch(&s, NONE, (const int8_t[]){0, 1, 0}, NULL, (const uint16_t[]){0, 0, 0}, 0, 0);
  batch(&s, NONE, (const int8_t[]){0, 2, 0}, NULL, (const uint16_t[]){0, 0, 0}, 0, 0);
  expect_late_error(&s, "arrow ipc: malformed stream: dictionary index out of range");
  s.len = 0;
  /* a negative index */
  emit_schema(&s);
  dict_strings(&s, NONE, 0, AB, 2, 0);
  dict_longs(&s, NONE, 1, D, 3);
  dict_strings(&s, NONE, 2, XY, 2, 0);
  batch(&s, NONE, (const int8_t[]){0, -1, 0}, NULL, (const uint16_t[]){0, 0, 0}, 0, 0);
  expect_late_error(&s, "dictionary index out of range");
  s.len = 0;
  /* no dictionary batch for id 2 */
  emit_schema(&s);
  dict_strings(&s, NONE, 0, AB, 2, 0);
  dict_longs(&s, NONE, 1, D, 3);
  batch(&s, NONE, (const int8_t[]){0, 1, 0}, NULL, (const uint16_t[]){0, 0, 0}, 0, 0);
  expect_late_error(&s, "dictionary used before its DictionaryBatch");
  s.len = 0;
  /* a dictionary id the schema does not have */
  emit_schema(&s);
  dict_strings(&s, NONE, 7, AB, 2, 0);
  expect_late_error(&s, "dictionary batch for an id not in the schema");
  s.len = 0;
  /* a ZSTD buffer stating one byte more than it holds, an LZ4 one too */
  for (int codec = LZ4F; codec <= ZSTD; codec++) {
    emit_schema(&s);
    rbatch b;
    rb_init(&b, codec);
    b.lie_next = 1;
    rb_strings(&b, AB, 2);
    emit_dict(&s, &b, 0, 2, 0);
    expect_late_error(&s, codec == ZSTD ? "ZSTD buffer does not decompress" : "LZ4 buffer does not decompress");
    s.len = 0;
  }
  /* a 12-byte buffer claiming a terabyte: refused before allocating */
  emit_schema(&s);
  rbatch b;
  rb_init(&b, ZSTD);
  b.claim_next = (int64_t)1 << 40;
  rb_strings(&b, AB, 2);
  emit_dict(&s, &b, 0, 2, 0);
  expect_late_error(&s, "claims 1099511627776 bytes");
  s.len = 0;
  /* a truncated batch after a good one */
  good_stream(&s, ZSTD);
  s.len -= 30;
  expect_late_error(&s, "arrow ipc: malformed stream: truncated message");
  buf_dispose(&s);
}

/* Value types the take kernel gathers specially: a fixed-size list
 * (dictionary<fixed_size_list<int32, 2>, int32>, null indices) and a large
 * string (dictionary<large_utf8, uint8>). */
static void test_more_types(void) {
  delta_buf s = DELTA_BUF_INIT;
  fb_builder f;
  fb_init(&f);
  fb_ref item = field(&f, "item", 2, int_type(&f, 32, 1), 0, NULL, 0);
  fb_table_start(&f);
  fb_add_i32(&f, 0, 2);
  fb_ref fsl = fb_table_end(&f);
  fb_ref w = field(&f, "w", 16, fsl, dict_enc(&f, 10, 32, 1), &item, 1);
  fb_ref big = field(&f, "L", 20, empty(&f), dict_enc(&f, 11, 8, 0), NULL, 0);
  fb_ref fields[2] = {w, big};
  fb_ref fv = fb_offset_vector(&f, fields, 2);
  fb_table_start(&f);
  fb_add_offset(&f, 1, fv);
  emit(&s, &f, 1, fb_table_end(&f), NULL);
  fb_dispose(&f);
  rbatch b;
  rb_init(&b, NONE);
  rb_node(&b, 2, 0);
  rb_bits(&b, NULL);
  rb_node(&b, 4, 0);
  rb_bits(&b, NULL);
  rb_buf(&b, (const int32_t[]){1, 2, 3, 4}, 16);
  emit_dict(&s, &b, 10, 2, 0);
  rb_init(&b, NONE);
  rb_node(&b, 2, 0);
  rb_bits(&b, NULL);
  rb_buf(&b, (const int64_t[]){0, 3, 4}, 24);
  rb_buf(&b, "bigx", 4);
  emit_dict(&s, &b, 11, 2, 0);
  rb_init(&b, NONE);
  rb_node(&b, 3, 1);
  rb_bits(&b, "101");
  rb_buf(&b, (const int32_t[]){1, 7, 0}, 12); /* the null row's index is never looked at */
  rb_node(&b, 3, 0);
  rb_bits(&b, NULL);
  rb_buf(&b, (const uint8_t[]){0, 1, 1}, 3);
  emit_batch(&s, &b, 3);
  eos(&s);
  struct ArrowArrayStream st;
  CHECK(arrow_ipc_read(s.data, s.len, &st) == 0);
  if (st.release) {
    struct ArrowSchema schema;
    CHECK(st.get_schema(&st, &schema) == 0);
    CHECK_STR(schema.children[0]->format, "+w:2");
    CHECK_STR(schema.children[1]->format, "U");
    schema.release(&schema);
    int rc;
    char msg[512] = "";
    char *got = render(&st, &rc, msg, sizeof msg);
    CHECK_EQ_INT(rc, 0);
    if (rc) fprintf(stderr, "more types: %s\n", msg);
    CHECK_STR(got, "{\"w\":[3,4],\"L\":\"big\"}\n{\"w\":null,\"L\":\"x\"}\n{\"w\":[1,2],\"L\":\"x\"}\n");
    free(got);
    st.release(&st);
  }
  buf_dispose(&s);
}

static int64_t table_version(const char *path) {
  delta_table *t = NULL;
  delta_snapshot *snap = NULL;
  int64_t v = -1;
  if (delta_table_open(&t, path) == 0 && delta_snapshot_open(&snap, t, NULL) == 0) v = delta_snapshot_version(snap);
  delta_snapshot_free(snap);
  delta_table_free(t);
  return v;
}

static void test_write_fails_late(void) {
  char root[] = "/tmp/deltac-ipcdict-XXXXXX";
  if (!mkdtemp(root)) return;
  char table[300];
  snprintf(table, sizeof table, "%s/t", root);
  delta_buf s = DELTA_BUF_INIT;
  good_stream(&s, ZSTD);
  struct ArrowArrayStream st;
  delta_write_options o = DELTA_WRITE_OPTIONS_INIT;
  CHECK(arrow_ipc_read(s.data, s.len, &st) == 0);
  CHECK_EQ_INT(write_at(table, &st, &o, NULL), 0);
  CHECK_EQ_INT(table_version(table), 0);
  /* append the same stream cut in its last batch: two batches arrive first */
  o.mode = DELTA_WRITE_APPEND;
  o.target_file_size = 1;
  CHECK(arrow_ipc_read(s.data, s.len - 40, &st) == 0);
  CHECK_EQ_INT(write_at(table, &st, &o, NULL), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "arrow ipc: malformed stream") != NULL);
  CHECK_EQ_INT(table_version(table), 0);
  buf_dispose(&s);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
}

int main(void) {
  test_write_fails_late();
  test_more_types();
  test_good(NONE);
  test_good(ZSTD);
  test_good(LZ4F);
  test_bad();
  TEST_MAIN_END();
}
