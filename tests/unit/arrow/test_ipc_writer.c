/*
 * Arrow IPC stream writer: builds schemas and arrays by hand for every
 * supported type (nested, nulls, slices), writes streams into memory and
 * checks the framing and the buffers with a small independent reader.
 *
 * With DELTAC_IPC_OUT=<dir> each case is also written to <dir>/<case>.arrows;
 * tests/interop/arrow_ipc.sh reads those with the npm apache-arrow package
 * and checks every value (tests/interop/arrow_ipc_read.mjs holds the same
 * data, so change both together).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/ipc_writer.h"
#include "deltac/arrow_abi.h"
#include "deltac/error.h"
#include "test.h"

/* ---------- scratch memory for hand-built schemas and arrays ---------- */

static void **arena;
static size_t n_arena, cap_arena;

static void *keep(void *p) {
  if (n_arena == cap_arena) {
    cap_arena = cap_arena ? cap_arena * 2 : 256;
    arena = realloc(arena, cap_arena * sizeof *arena);
    if (!arena) abort();
  }
  arena[n_arena++] = p;
  return p;
}

static void *tcalloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) abort();
  return keep(p);
}

static void arena_free(void) {
  for (size_t i = 0; i < n_arena; i++) free(arena[i]);
  free(arena);
  arena = NULL;
  n_arena = cap_arena = 0;
}

/* A schema node; varargs are `n` child schemas. */
static struct ArrowSchema *S(const char *fmt, const char *name, int64_t flags, int n, ...) {
  struct ArrowSchema *s = tcalloc(sizeof *s);
  s->format = fmt;
  s->name = name;
  s->flags = flags;
  s->n_children = n;
  if (n) {
    s->children = tcalloc((size_t)n * sizeof *s->children);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) s->children[i] = va_arg(ap, struct ArrowSchema *);
    va_end(ap);
  }
  return s;
}

/* An array node; varargs are `nbuf` buffer pointers, then `n` children. */
static struct ArrowArray *A(int64_t len, int64_t nulls, int64_t off, int nbuf, int n, ...) {
  struct ArrowArray *a = tcalloc(sizeof *a);
  a->length = len;
  a->null_count = nulls;
  a->offset = off;
  a->n_buffers = nbuf;
  a->n_children = n;
  a->buffers = tcalloc((size_t)(nbuf ? nbuf : 1) * sizeof *a->buffers);
  a->children = n ? tcalloc((size_t)n * sizeof *a->children) : NULL;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < nbuf; i++) a->buffers[i] = va_arg(ap, const void *);
  for (int i = 0; i < n; i++) a->children[i] = va_arg(ap, struct ArrowArray *);
  va_end(ap);
  return a;
}

/* ArrowSchema.metadata from `n` key/value string pairs. */
static const char *meta(int n, ...) {
  va_list ap;
  size_t total = 4;
  va_start(ap, n);
  for (int i = 0; i < 2 * n; i++) total += 4 + strlen(va_arg(ap, const char *));
  va_end(ap);
  char *m = tcalloc(total), *p = m;
  int32_t count = n;
  memcpy(p, &count, 4);
  p += 4;
  va_start(ap, n);
  for (int i = 0; i < 2 * n; i++) {
    const char *s = va_arg(ap, const char *);
    int32_t len = (int32_t)strlen(s);
    memcpy(p, &len, 4);
    memcpy(p + 4, s, (size_t)len);
    p += 4 + len;
  }
  va_end(ap);
  return m;
}

/* A bitmap from "1101..." (row 0 first). */
static const uint8_t *bits(const char *s) {
  size_t n = strlen(s);
  uint8_t *b = tcalloc(n / 8 + 8);
  for (size_t i = 0; i < n; i++)
    if (s[i] == '1') b[i / 8] |= (uint8_t)(1u << (i % 8));
  return b;
}

/* ---------- sinks ---------- */

typedef struct {
  uint8_t *data;
  size_t len, cap;
  int fail_after; /* fail the call after this many; -1 never */
  int calls;
} mem_sink;

static int sink_mem(void *ctx, const void *data, size_t len) {
  mem_sink *m = ctx;
  if (m->fail_after >= 0 && m->calls++ >= m->fail_after) return DELTA_EIO;
  if (m->len + len > m->cap) {
    size_t cap = m->cap ? m->cap : 1024;
    while (cap < m->len + len) cap *= 2;
    m->data = realloc(m->data, cap);
    if (!m->data) abort();
    m->cap = cap;
  }
  memcpy(m->data + m->len, data, len);
  m->len += len;
  return 0;
}

/* ---------- an independent reader for checking what was written ---------- */

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static int64_t rd64(const uint8_t *p) { return (int64_t)((uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32); }

typedef struct {
  const uint8_t *base; /* flatbuffer start */
  size_t len;
  size_t pos; /* table position */
} fbt;

/* Pointer to field `id` of a table, or NULL if absent (bounds-checked). */
static const uint8_t *fld(const fbt *t, int id) {
  if (t->pos + 4 > t->len) return NULL;
  int32_t soff = (int32_t)rd32(t->base + t->pos);
  int64_t vt = (int64_t)t->pos - soff;
  if (vt < 0 || (size_t)vt + 4 > t->len || vt % 2) return NULL;
  uint16_t vsize = rd16(t->base + vt), tsize = rd16(t->base + vt + 2);
  if ((size_t)vt + vsize > t->len || t->pos + tsize > t->len) return NULL;
  if (4 + 2 * (size_t)id + 2 > vsize) return NULL;
  uint16_t o = rd16(t->base + vt + 4 + 2 * id);
  if (!o || o >= tsize) return NULL;
  return t->base + t->pos + o;
}

static int follow(const fbt *t, const uint8_t *at, size_t *out) {
  size_t p = (size_t)(at - t->base);
  if (p % 4) return -1;
  size_t target = p + rd32(at);
  if (target + 4 > t->len) return -1;
  *out = target;
  return 0;
}

static int sub_table(const fbt *t, int id, fbt *out) {
  const uint8_t *f = fld(t, id);
  size_t pos;
  if (!f || follow(t, f, &pos) || pos % 4) return -1;
  *out = *t;
  out->pos = pos;
  return 0;
}

/* A vector's elements and count; elements must be `align`-aligned. */
static const uint8_t *vec(const fbt *t, int id, size_t elem, size_t align, uint32_t *n) {
  const uint8_t *f = fld(t, id);
  size_t pos;
  *n = 0;
  if (!f || follow(t, f, &pos)) return NULL;
  uint32_t count = rd32(t->base + pos);
  if ((pos + 4) % align || pos + 4 + (size_t)count * elem > t->len) return NULL;
  *n = count;
  return t->base + pos + 4;
}

static int64_t i64_field(const fbt *t, int id, int64_t def) {
  const uint8_t *f = fld(t, id);
  if (!f) return def;
  CHECK((f - t->base) % 8 == 0);
  return rd64(f);
}

static int u8_field(const fbt *t, int id) {
  const uint8_t *f = fld(t, id);
  return f ? *f : 0;
}

#define MAX_BATCHES 8
typedef struct {
  int n_batches;
  int64_t rows[MAX_BATCHES];
  const uint8_t *nodes[MAX_BATCHES];
  uint32_t n_nodes[MAX_BATCHES];
  const uint8_t *bufs[MAX_BATCHES];
  uint32_t n_bufs[MAX_BATCHES];
  const uint8_t *body[MAX_BATCHES];
  fbt schema;
} stream_info;

/* Walk a whole stream, checking the framing invariants. 0 if well-formed. */
static int walk(const uint8_t *s, size_t len, stream_info *info) {
  size_t pos = 0;
  int saw_schema = 0;
  memset(info, 0, sizeof *info);
  for (;;) {
    if (pos % 8 || pos + 8 > len) return -1;
    if (rd32(s + pos) != 0xFFFFFFFFu) return -2;
    uint32_t mlen = rd32(s + pos + 4);
    pos += 8;
    if (mlen == 0) break; /* end of stream */
    if (mlen % 8 || pos + mlen > len) return -3;
    fbt msg = {s + pos, mlen, 0};
    msg.pos = rd32(s + pos);
    if (msg.pos % 4 || msg.pos + 4 > mlen) return -4;
    const uint8_t *ver = fld(&msg, 0);
    if (!ver || rd16(ver) != 4) return -5; /* MetadataVersion V5 */
    int htype = u8_field(&msg, 1);
    int64_t body_len = i64_field(&msg, 3, 0);
    fbt header;
    if (sub_table(&msg, 2, &header)) return -6;
    pos += mlen;
    if (body_len < 0 || body_len % 8 || pos + (size_t)body_len > len) return -7;
    if (htype == 1) {
      if (saw_schema || body_len) return -8;
      saw_schema = 1;
      info->schema = header;
    } else if (htype == 3) {
      if (!saw_schema || info->n_batches == MAX_BATCHES) return -9;
      int b = info->n_batches++;
      info->rows[b] = i64_field(&header, 0, -1);
      info->nodes[b] = vec(&header, 1, 16, 8, &info->n_nodes[b]);
      info->bufs[b] = vec(&header, 2, 16, 8, &info->n_bufs[b]);
      info->body[b] = s + pos;
      if (!info->nodes[b] && info->n_nodes[b]) return -10;
      int64_t end = 0;
      for (uint32_t i = 0; i < info->n_bufs[b]; i++) {
        int64_t off = rd64(info->bufs[b] + 16 * i), blen = rd64(info->bufs[b] + 16 * i + 8);
        if (off % 8 || off < end || blen < 0 || off + blen > body_len) return -11;
        end = off + blen;
      }
    } else {
      return -12;
    }
    pos += (size_t)body_len;
  }
  if (pos != len) return -13; /* nothing after the end-of-stream marker */
  return saw_schema ? 0 : -14;
}

static void node_at(const stream_info *in, int b, int i, int64_t *len, int64_t *nulls) {
  *len = *nulls = -1;
  if (i < 0 || (uint32_t)i >= in->n_nodes[b]) return;
  *len = rd64(in->nodes[b] + 16 * i);
  *nulls = rd64(in->nodes[b] + 16 * i + 8);
}

static const uint8_t *buf_at(const stream_info *in, int b, int i, int64_t *len) {
  *len = -1;
  if (i < 0 || (uint32_t)i >= in->n_bufs[b]) return NULL;
  *len = rd64(in->bufs[b] + 16 * i + 8);
  return in->body[b] + rd64(in->bufs[b] + 16 * i);
}

static int bit(const uint8_t *b, int64_t i) { return (b[i / 8] >> (i % 8)) & 1; }

/* ---------- writing a case ---------- */

/* Write schema + batches + EOS into `m`, and to $DELTAC_IPC_OUT/<name>.arrows. */
static int write_case(const char *name, const struct ArrowSchema *schema,
                      struct ArrowArray **batches, int n, mem_sink *m) {
  arrow_ipc_writer *w = NULL;
  memset(m, 0, sizeof *m);
  m->fail_after = -1;
  int rc = arrow_ipc_writer_open(&w, schema, sink_mem, m);
  for (int i = 0; !rc && i < n; i++) rc = arrow_ipc_writer_write(w, batches[i]);
  if (!rc) rc = arrow_ipc_writer_close(w);
  arrow_ipc_writer_free(w);
  if (rc) fprintf(stderr, "%s: %s\n", name, delta_error_last());
  const char *dir = getenv("DELTAC_IPC_OUT");
  if (!rc && dir && *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.arrows", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
      CHECK(fwrite(m->data, 1, m->len, f) == m->len);
      fclose(f);
    }
  }
  return rc;
}

/* ---------- cases ---------- */

/* Every flat type, 4 rows, row 2 null in nullable columns. Keep in sync with
 * arrow_ipc_read.mjs ("primitives"). */
static void test_primitives(void) {
  static const int8_t c[] = {-1, 2, 0, 127};
  static const uint8_t C[] = {255, 0, 0, 7};
  static const int16_t s[] = {-300, 300, 0, 32767};
  static const uint16_t Su[] = {65535, 1, 0, 2};
  static const int32_t i[] = {INT32_MIN, 5, 0, INT32_MAX};
  static const uint32_t I[] = {UINT32_MAX, 0, 0, 3};
  static const int64_t l[] = {INT64_MIN, 1, 0, INT64_MAX};
  static const uint64_t L[] = {UINT64_MAX, 0, 0, 42};
  static const uint16_t e[] = {0x3C00, 0xC000, 0, 0x3800}; /* 1, -2, -, 0.5 */
  static const float f[] = {1.5f, -0.25f, 0, 3.0f};
  static const double g[] = {3.141592653589793, -1e300, 0, 0};
  static const int32_t u_off[] = {0, 6, 6, 6, 12};
  static const char u_dat[] = "h\xc3\xa9llow\xc3\xb6rld";
  static const int64_t U_off[] = {0, 1, 3, 3, 6};
  static const int32_t z_off[] = {0, 2, 2, 2, 3};
  static const uint8_t z_dat[] = {1, 2, 0xff};
  static const int64_t Z_off[] = {0, 1, 4, 4, 4};
  static const uint8_t Z_dat[] = {0, 1, 2, 3};
  static const char w_dat[] = "abcdef???ghi";
  static const uint8_t uuid[] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                                 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00};
  uint8_t d128[4 * 16] = {0}, d256[4 * 32] = {0};
  /* little-endian two's complement: 12345, -1, (null), 0 */
  d128[0] = 0x39;
  d128[1] = 0x30;
  memset(d128 + 16, 0xff, 16);
  d256[0] = 1;
  memset(d256 + 32, 0xff, 32);
  d256[96] = 2;
  static const int32_t date32[] = {0, 19000, 0, -1};
  static const int64_t date64[] = {0, 86400000, 0, 1641600000000};
  static const int32_t t32s[] = {0, 3600, 0, 86399};
  static const int32_t t32m[] = {1, 2, 0, 3};
  static const int64_t t64[] = {1, 2, 0, 3};
  static const int64_t ts[] = {0, 1, 0, 1700000000};
  static const int64_t dur[] = {-5, 0, 0, 7};
  const uint8_t *v = bits("1101");
  const uint8_t *bool_data = bits("1001");
  int64_t NUL = ARROW_FLAG_NULLABLE;

  struct {
    const char *fmt, *name;
    const void *data;
  } fixed[] = {
      {"c", "int8", c},       {"C", "uint8", C},     {"s", "int16", s},
      {"S", "uint16", Su},    {"i", "int32", i},     {"I", "uint32", I},
      {"l", "int64", l},      {"L", "uint64", L},    {"e", "float16", e},
      {"f", "float32", f},    {"g", "float64", g},   {"w:3", "fsb3", w_dat},
      {"d:10,2", "dec128", d128}, {"d:40,5,256", "dec256", d256},
      {"tdD", "date32", date32},  {"tdm", "date64", date64},
      {"tts", "time_s", t32s},    {"ttm", "time_ms", t32m},
      {"ttu", "time_us", t64},    {"ttn", "time_ns", t64},
      {"tss:", "ts_s", ts},       {"tsm:UTC", "ts_ms_utc", ts},
      {"tsu:America/New_York", "ts_us_ny", ts}, {"tsn:", "ts_ns", ts},
      {"tDs", "dur_s", dur},      {"tDm", "dur_ms", dur},
      {"tDu", "dur_us", dur},     {"tDn", "dur_ns", dur},
  };
  enum { NF = sizeof fixed / sizeof fixed[0] };
  enum { NCOLS = NF + 11 };
  struct ArrowSchema *root = S("+s", "", 0, 0);
  struct ArrowArray *batch = A(4, 0, 0, 1, 0, NULL);
  root->n_children = batch->n_children = NCOLS;
  root->children = tcalloc(NCOLS * sizeof *root->children);
  batch->children = tcalloc(NCOLS * sizeof *batch->children);
  int k = 0;
  root->children[k] = S("n", "null", NUL, 0);
  batch->children[k++] = A(4, 4, 0, 0, 0);
  root->children[k] = S("b", "bool", NUL, 0);
  batch->children[k++] = A(4, 1, 0, 2, 0, v, bool_data);
  for (int j = 0; j < NF; j++) {
    root->children[k] = S(fixed[j].fmt, fixed[j].name, NUL, 0);
    batch->children[k++] = A(4, 1, 0, 2, 0, v, fixed[j].data);
  }
  root->children[k] = S("u", "utf8", NUL, 0);
  batch->children[k++] = A(4, 1, 0, 3, 0, v, u_off, u_dat);
  root->children[k] = S("U", "large_utf8", NUL, 0);
  batch->children[k++] = A(4, 1, 0, 3, 0, v, U_off, "abcdef");
  root->children[k] = S("z", "binary", NUL, 0);
  batch->children[k++] = A(4, 1, 0, 3, 0, v, z_off, z_dat);
  root->children[k] = S("Z", "large_binary", NUL, 0);
  batch->children[k++] = A(4, 1, 0, 3, 0, v, Z_off, Z_dat);
  /* Not nullable, no validity buffer at all. */
  root->children[k] = S("i", "required", 0, 0);
  batch->children[k++] = A(4, 0, 0, 2, 0, NULL, i);
  /* Validity present but no nulls: written as an empty buffer. */
  root->children[k] = S("l", "no_nulls", NUL, 0);
  batch->children[k++] = A(4, 0, 0, 2, 0, bits("1111"), l);
  /* Extension types pass through as field metadata. */
  root->children[k] = S("w:16", "uuid", NUL, 0);
  root->children[k]->metadata =
      meta(2, "ARROW:extension:name", "arrow.uuid", "ARROW:extension:metadata", "");
  uint8_t *uuids = tcalloc(64);
  for (int r = 0; r < 4; r++) memcpy(uuids + 16 * r, uuid, 16);
  batch->children[k++] = A(4, 1, 0, 2, 0, v, uuids);
  root->children[k] = S("u", "json", NUL, 0);
  root->children[k]->metadata = meta(1, "ARROW:extension:name", "arrow.json");
  static const int32_t j_off[] = {0, 8, 10, 10, 14};
  batch->children[k++] = A(4, 1, 0, 3, 0, v, j_off, "{\"a\": 1}[]null");
  root->children[k] = S("s", "required16", 0, 0);
  batch->children[k++] = A(4, 0, 0, 2, 0, NULL, s);
  CHECK_EQ_INT(k, NCOLS);
  root->metadata = meta(1, "deltac.version", "1");

  mem_sink m;
  stream_info in;
  CHECK_EQ_INT(write_case("primitives", root, &batch, 1, &m), 0);
  CHECK_EQ_INT(walk(m.data, m.len, &in), 0);
  CHECK_EQ_INT(in.n_batches, 1);
  CHECK_EQ_INT(in.rows[0], 4);
  CHECK_EQ_INT(in.n_nodes[0], NCOLS);
  /* null: no buffers; bool 2; fixed 2 each; 4 binaries x3; 5 more x2 + 1 x3 */
  CHECK_EQ_INT(in.n_bufs[0], 2 + 2 * NF + 4 * 3 + 2 + 2 + 2 + 3 + 2);
  int64_t len, nulls;
  node_at(&in, 0, 0, &len, &nulls);
  CHECK_EQ_INT(len, 4);
  CHECK_EQ_INT(nulls, 4);
  node_at(&in, 0, 1, &len, &nulls);
  CHECK_EQ_INT(nulls, 1);
  const uint8_t *b = buf_at(&in, 0, 0, &len); /* bool validity */
  CHECK_EQ_INT(len, 1);
  CHECK(b && (b[0] & 0xF) == 0xB);
  b = buf_at(&in, 0, 2 + 2 * 4 + 1, &len); /* int32 data (column 6) */
  CHECK_EQ_INT(len, 16);
  CHECK(b && memcmp(b, i, 16) == 0);
  int req = 2 + 2 * NF + 4 * 3; /* "required": first buffer index */
  buf_at(&in, 0, req, &len);
  CHECK_EQ_INT(len, 0);
  buf_at(&in, 0, req + 2, &len); /* "no_nulls" validity */
  CHECK_EQ_INT(len, 0);
  /* Schema: fields with names, nullability and metadata. */
  uint32_t nf;
  const uint8_t *fields = vec(&in.schema, 1, 4, 4, &nf);
  CHECK_EQ_INT(nf, NCOLS);
  uint32_t nmd;
  CHECK(vec(&in.schema, 2, 4, 4, &nmd) != NULL);
  CHECK_EQ_INT(nmd, 1);
  if (fields && nf == NCOLS) {
    fbt field = in.schema;
    size_t pos = 0;
    CHECK(follow(&in.schema, fields + 4 * (NCOLS - 3), &pos) == 0);
    field.pos = pos;
    CHECK_EQ_INT(u8_field(&field, 1), 1);  /* nullable */
    CHECK_EQ_INT(u8_field(&field, 2), 15); /* FixedSizeBinary */
    CHECK(vec(&field, 6, 4, 4, &nmd) != NULL);
    CHECK_EQ_INT(nmd, 2);
    CHECK(vec(&field, 5, 4, 4, &nmd) != NULL); /* children present, empty */
    CHECK_EQ_INT(nmd, 0);
  }
  free(m.data);
}

/* Nested types. Keep in sync with arrow_ipc_read.mjs ("nested"). */
static struct ArrowSchema *nested_schema(void) {
  int64_t N = ARROW_FLAG_NULLABLE;
  struct ArrowSchema *entries =
      S("+s", "entries", 0, 2, S("u", "key", 0, 0), S("i", "value", N, 0));
  return S("+s", "", 0, 5,
           S("+l", "list_struct", N, 1,
             S("+s", "item", N, 2, S("i", "a", N, 0), S("u", "b", N, 0))),
           S("+L", "large_list", N, 1, S("l", "item", N, 0)),
           S("+w:2", "fixed_list", N, 1, S("f", "item", N, 0)),
           S("+s", "struct", N, 2, S("+s", "x", N, 1, S("b", "y", N, 0)), S("s", "z", N, 0)),
           S("+m", "map", N | ARROW_FLAG_MAP_KEYS_SORTED, 1, entries));
}

static void test_nested(void) {
  /* list<struct<a,b>>: [[{1,"x"},{2,null}], null, [], [{null,"z"}]] */
  static const int32_t lo[] = {0, 2, 2, 2, 3};
  static const int32_t a[] = {1, 2, 0};
  static const int32_t b_off[] = {0, 1, 1, 2};
  struct ArrowArray *item = A(3, 0, 0, 1, 2, NULL, A(3, 1, 0, 2, 0, bits("110"), a),
                              A(3, 1, 0, 3, 0, bits("101"), b_off, "xz"));
  struct ArrowArray *list_struct = A(4, 1, 0, 2, 1, bits("1011"), lo, item);
  /* large_list<int64>: [[1,2,3], [], null, [4]] */
  static const int64_t llo[] = {0, 3, 3, 3, 4};
  static const int64_t lv[] = {1, 2, 3, 4};
  struct ArrowArray *large_list =
      A(4, 1, 0, 2, 1, bits("1101"), llo, A(4, 0, 0, 2, 0, NULL, lv));
  /* fixed_size_list<float>[2]: [[1,2], null, [3,4], [5,6]] */
  static const float fv[] = {1, 2, 0, 0, 3, 4, 5, 6};
  struct ArrowArray *fixed_list =
      A(4, 1, 0, 1, 1, bits("1011"), A(8, 0, 0, 2, 0, NULL, fv));
  /* struct<x: struct<y: bool>, z: int16>:
   * [{x:{y:true},z:1}, {x:null,z:2}, null, {x:{y:false},z:null}] */
  static const int16_t z[] = {1, 2, 0, 0};
  struct ArrowArray *x = A(4, 1, 0, 1, 1, bits("1011"),
                           A(4, 0, 0, 2, 0, NULL, bits("1000")));
  struct ArrowArray *st =
      A(4, 1, 0, 1, 2, bits("1101"), x, A(4, 2, 0, 2, 0, bits("1100"), z));
  /* map<utf8,int32>: [{a:1,b:2}, null, {}, {c:null}] */
  static const int32_t mo[] = {0, 2, 2, 2, 3};
  static const int32_t k_off[] = {0, 1, 2, 3};
  static const int32_t mv[] = {1, 2, 0};
  struct ArrowArray *ent = A(3, 0, 0, 1, 2, NULL, A(3, 0, 0, 3, 0, NULL, k_off, "abc"),
                             A(3, 1, 0, 2, 0, bits("110"), mv));
  struct ArrowArray *map = A(4, 1, 0, 2, 1, bits("1011"), mo, ent);
  struct ArrowArray *batch =
      A(4, 0, 0, 1, 5, NULL, list_struct, large_list, fixed_list, st, map);

  mem_sink m;
  stream_info in;
  CHECK_EQ_INT(write_case("nested", nested_schema(), &batch, 1, &m), 0);
  CHECK_EQ_INT(walk(m.data, m.len, &in), 0);
  CHECK_EQ_INT(in.n_batches, 1);
  /* Nodes depth-first: list, struct, a, b, large_list, item, fixed_list,
   * item, struct, x, y, z, map, entries, key, value. */
  CHECK_EQ_INT(in.n_nodes[0], 16);
  static const int64_t want_len[] = {4, 3, 3, 3, 4, 4, 4, 8, 4, 4, 4, 4, 4, 3, 3, 3};
  static const int64_t want_nulls[] = {1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 2, 1, 0, 0, 1};
  for (int i = 0; i < 16; i++) {
    int64_t len, nulls;
    node_at(&in, 0, i, &len, &nulls);
    CHECK_EQ_INT(len, want_len[i]);
    CHECK_EQ_INT(nulls, want_nulls[i]);
  }
  /* Buffers: 2+1+2+3 + 2+2 + 1+2 + 1+1+2+2 + 2+1+3+2 */
  CHECK_EQ_INT(in.n_bufs[0], 29);
  free(m.data);
}

/* Slices at every level, including the batch. Base data follows formulas
 * that arrow_ipc_read.mjs ("sliced") recomputes. Returns the batch. */
#define SL_BASE 40
#define SL_BATCH_OFF 2
#define SL_ROWS 13

static struct ArrowArray *sliced_batch(void) {
  /* i32: offset 3; value k*10, null when k%3==0 (k = physical index) */
  int32_t *iv = tcalloc(SL_BASE * 4);
  char vb[SL_BASE + 1] = {0};
  for (int k = 0; k < SL_BASE; k++) {
    iv[k] = k * 10;
    vb[k] = k % 3 ? '1' : '0';
  }
  struct ArrowArray *i32 = A(20, -1, 3, 2, 0, bits(vb), iv);
  /* flag: offset 5; value k%2==1, null when k%5==0 */
  char fb[SL_BASE + 1] = {0}, fvb[SL_BASE + 1] = {0};
  for (int k = 0; k < SL_BASE; k++) {
    fb[k] = k % 2 ? '1' : '0';
    fvb[k] = k % 5 ? '1' : '0';
  }
  struct ArrowArray *flag = A(20, -1, 5, 2, 0, bits(fvb), bits(fb));
  /* str: offset 6; value "s<k>", null when k%4==0 (null slots empty) */
  int32_t *so = tcalloc((SL_BASE + 1) * 4);
  char *sd = tcalloc(SL_BASE * 4);
  char svb[SL_BASE + 1] = {0};
  for (int k = 0; k < SL_BASE; k++) {
    int n = 0;
    if (k % 4) n = sprintf(sd + so[k], "s%d", k);
    so[k + 1] = so[k] + n;
    svb[k] = k % 4 ? '1' : '0';
  }
  struct ArrowArray *str = A(20, -1, 6, 3, 0, bits(svb), so, sd);
  /* lst: offset 1; slot p has p%3 items, null when p%7==0; the child has
   * offset 2 and child logical j holds 1002+j */
  int32_t *lo = tcalloc((SL_BASE + 1) * 4);
  char lvb[SL_BASE + 1] = {0};
  for (int p = 0; p < SL_BASE; p++) {
    lo[p + 1] = lo[p] + p % 3;
    lvb[p] = p % 7 ? '1' : '0';
  }
  int32_t *cv = tcalloc((size_t)(lo[SL_BASE] + 2) * 4);
  for (int q = 0; q < lo[SL_BASE] + 2; q++) cv[q] = 1000 + q;
  struct ArrowArray *lst = A(20, -1, 1, 2, 1, bits(lvb), lo,
                             A(lo[SL_BASE], 0, 2, 2, 0, NULL, cv));
  /* st: offset 4, null when p%6==0; child a has offset 1 and physical q
   * holds q*7, null when q%5==0 */
  char stvb[SL_BASE + 1] = {0}, avb[SL_BASE + 2] = {0};
  int32_t *av = tcalloc((SL_BASE + 1) * 4);
  for (int p = 0; p < SL_BASE; p++) stvb[p] = p % 6 ? '1' : '0';
  for (int q = 0; q < SL_BASE + 1; q++) {
    av[q] = q * 7;
    avb[q] = q % 5 ? '1' : '0';
  }
  struct ArrowArray *st = A(20, -1, 4, 1, 1, bits(stvb), A(SL_BASE, -1, 1, 2, 0, bits(avb), av));
  return A(SL_ROWS, 0, SL_BATCH_OFF, 1, 5, NULL, i32, flag, str, lst, st);
}

static void test_sliced(void) {
  int64_t N = ARROW_FLAG_NULLABLE;
  struct ArrowSchema *schema =
      S("+s", "", 0, 5, S("i", "i32", N, 0), S("b", "flag", N, 0), S("u", "str", N, 0),
        S("+l", "lst", N, 1, S("i", "item", N, 0)), S("+s", "st", N, 1, S("i", "a", N, 0)));
  struct ArrowArray *batch = sliced_batch();
  mem_sink m;
  stream_info in;
  CHECK_EQ_INT(write_case("sliced", schema, &batch, 1, &m), 0);
  CHECK_EQ_INT(walk(m.data, m.len, &in), 0);
  CHECK_EQ_INT(in.rows[0], SL_ROWS);
  int64_t len, nulls;
  /* i32: rows k = 5..17; nulls at 6, 9, 12, 15 */
  node_at(&in, 0, 0, &len, &nulls);
  CHECK_EQ_INT(len, SL_ROWS);
  CHECK_EQ_INT(nulls, 4);
  const uint8_t *valid = buf_at(&in, 0, 0, &len);
  CHECK_EQ_INT(len, 2);
  const uint8_t *data = buf_at(&in, 0, 1, &len);
  CHECK_EQ_INT(len, SL_ROWS * 4);
  for (int r = 0; valid && data && r < SL_ROWS; r++) {
    int k = 3 + SL_BATCH_OFF + r;
    CHECK_EQ_INT(bit(valid, r), k % 3 != 0);
    CHECK_EQ_INT((int32_t)rd32(data + 4 * r), k * 10);
  }
  /* Shifted bitmaps have their tail bits cleared. */
  if (valid) CHECK_EQ_INT(valid[1] >> (SL_ROWS - 8), 0);
  /* flag: k = 7..19, shifted by 7 bits */
  node_at(&in, 0, 1, &len, &nulls);
  CHECK_EQ_INT(nulls, 2); /* 10 and 15 */
  valid = buf_at(&in, 0, 2, &len);
  data = buf_at(&in, 0, 3, &len);
  CHECK_EQ_INT(len, 2);
  for (int r = 0; valid && data && r < SL_ROWS; r++) {
    int k = 5 + SL_BATCH_OFF + r;
    CHECK_EQ_INT(bit(valid, r), k % 5 != 0);
    CHECK_EQ_INT(bit(data, r), k % 2);
  }
  /* str: offsets rebased to 0 */
  const uint8_t *offs = buf_at(&in, 0, 5, &len);
  CHECK_EQ_INT(len, (SL_ROWS + 1) * 4);
  if (offs) CHECK_EQ_INT(rd32(offs), 0);
  const uint8_t *chars = buf_at(&in, 0, 6, &len);
  if (offs && chars) {
    CHECK_EQ_INT(len, (int64_t)rd32(offs + 4 * SL_ROWS));
    /* first row: k = 8 → null (empty); second: k = 9 → "s9" */
    CHECK_EQ_INT(rd32(offs + 4), 0);
    CHECK_EQ_INT(rd32(offs + 8), 2);
    CHECK(memcmp(chars, "s9", 2) == 0);
  }
  free(m.data);
}

/* Several batches, one of them empty. ("batches" in arrow_ipc_read.mjs) */
static void test_batches(void) {
  struct ArrowSchema *schema = S("+s", "", 0, 2, S("l", "n", ARROW_FLAG_NULLABLE, 0),
                                 S("u", "s", ARROW_FLAG_NULLABLE, 0));
  static const int64_t n1[] = {1, 2, 3};
  static const int32_t o1[] = {0, 1, 2, 3};
  static const int64_t n2[] = {4, 5};
  static const int32_t o2[] = {0, 2, 5};
  struct ArrowArray *b[3];
  b[0] = A(3, 0, 0, 1, 2, NULL, A(3, 0, 0, 2, 0, NULL, n1), A(3, 0, 0, 3, 0, NULL, o1, "abc"));
  b[1] = A(0, 0, 0, 1, 2, NULL, A(0, 0, 0, 2, 0, NULL, NULL), A(0, 0, 0, 3, 0, NULL, NULL, NULL));
  b[2] = A(2, 0, 0, 1, 2, NULL, A(2, 1, 0, 2, 0, bits("01"), n2),
           A(2, 0, 0, 3, 0, NULL, o2, "dd\xe2\x82\xac"));
  mem_sink m;
  stream_info in;
  CHECK_EQ_INT(write_case("batches", schema, b, 3, &m), 0);
  CHECK_EQ_INT(walk(m.data, m.len, &in), 0);
  CHECK_EQ_INT(in.n_batches, 3);
  CHECK_EQ_INT(in.rows[0], 3);
  CHECK_EQ_INT(in.rows[1], 0);
  CHECK_EQ_INT(in.rows[2], 2);
  /* EOS is the last 8 bytes */
  CHECK(m.len >= 8 && rd32(m.data + m.len - 8) == 0xFFFFFFFFu && rd32(m.data + m.len - 4) == 0);
  /* An empty batch still has offsets [0] for its string column. */
  int64_t len;
  buf_at(&in, 1, 3, &len);
  CHECK_EQ_INT(len, 4);
  free(m.data);
}

static void test_errors(void) {
  arrow_ipc_writer *w = (arrow_ipc_writer *)1;
  mem_sink m = {0};
  m.fail_after = -1;
  /* top level must be a struct */
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("i", "x", 0, 0), sink_mem, &m), DELTA_EINVAL);
  CHECK(w == NULL);
  /* unsupported types */
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("+s", "", 0, 1, S("vu", "x", 0, 0)), sink_mem, &m),
               DELTA_EUNSUPPORTED);
  CHECK(strstr(delta_error_last(), "vu") != NULL);
  struct ArrowSchema *dict = S("i", "x", 0, 0);
  dict->dictionary = S("u", "", 0, 0);
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("+s", "", 0, 1, dict), sink_mem, &m),
               DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("+s", "", 0, 1, S("d:1", "x", 0, 0)), sink_mem, &m),
               DELTA_EINVAL);
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("+s", "", 0, 1, S("w:", "x", 0, 0)), sink_mem, &m),
               DELTA_EINVAL);
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("+s", "", 0, 1, S("t", "x", 0, 0)), sink_mem, &m),
               DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("+s", "", 0, 1, S("+l", "x", 0, 0)), sink_mem, &m),
               DELTA_EINVAL);
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, S("+s", "", 0, 1, S("+m", "x", 0, 1, S("i", "", 0, 0))),
                                     sink_mem, &m),
               DELTA_EINVAL);
  CHECK_EQ_INT(m.len, 0); /* nothing written on a failed open */

  /* batch mismatches */
  static const int32_t iv[] = {1, 2, 3};
  struct ArrowSchema *schema = S("+s", "", 0, 1, S("i", "x", ARROW_FLAG_NULLABLE, 0));
  CHECK_EQ_INT(arrow_ipc_writer_open(&w, schema, sink_mem, &m), 0);
  size_t after_schema = m.len;
  CHECK(after_schema > 0);
  CHECK_EQ_INT(arrow_ipc_writer_write(w, A(3, 0, 0, 1, 0, NULL)), DELTA_EINVAL);
  CHECK_EQ_INT(arrow_ipc_writer_write(w, A(3, 0, 0, 1, 1, NULL, A(3, 0, 0, 3, 0, NULL, iv, iv))),
               DELTA_EINVAL);
  CHECK_EQ_INT(arrow_ipc_writer_write(w, A(4, 0, 0, 1, 1, NULL, A(3, 0, 0, 2, 0, NULL, iv))),
               DELTA_EINVAL); /* child too short */
  CHECK_EQ_INT(arrow_ipc_writer_write(w, A(3, 0, 0, 1, 1, NULL, A(3, 1, 0, 2, 0, NULL, iv))),
               DELTA_EINVAL); /* nulls without validity */
  CHECK_EQ_INT(m.len, after_schema); /* rejected batches write nothing */
  CHECK_EQ_INT(arrow_ipc_writer_write(w, A(3, 0, 0, 1, 1, NULL, A(3, 0, 0, 2, 0, NULL, iv))), 0);
  CHECK_EQ_INT(arrow_ipc_writer_close(w), 0);
  CHECK_EQ_INT(arrow_ipc_writer_write(w, A(3, 0, 0, 1, 1, NULL, A(3, 0, 0, 2, 0, NULL, iv))),
               DELTA_EINVAL);
  CHECK_EQ_INT(arrow_ipc_writer_close(w), DELTA_EINVAL);
  arrow_ipc_writer_free(w);
  stream_info in;
  CHECK_EQ_INT(walk(m.data, m.len, &in), 0);
  free(m.data);

  /* sink failures propagate, at every call */
  for (int fail = 0; fail < 40; fail++) {
    mem_sink f = {0};
    f.fail_after = fail;
    w = NULL;
    int rc = arrow_ipc_writer_open(&w, nested_schema(), sink_mem, &f);
    if (!rc) rc = arrow_ipc_writer_write(w, sliced_batch() /* wrong shape: EINVAL */);
    if (rc == DELTA_EINVAL) rc = 0;
    CHECK(rc == 0 || rc == DELTA_EIO);
    arrow_ipc_writer_free(w);
    free(f.data);
  }
  for (int fail = 0; fail < 20; fail++) {
    mem_sink f = {0};
    f.fail_after = fail;
    w = NULL;
    int rc = arrow_ipc_writer_open(&w, S("+s", "", 0, 1, S("i", "x", 0, 0)), sink_mem, &f);
    if (!rc) rc = arrow_ipc_writer_write(w, A(3, 0, 0, 1, 1, NULL, A(3, 0, 0, 2, 0, NULL, iv)));
    if (!rc) rc = arrow_ipc_writer_close(w);
    CHECK(rc == 0 || rc == DELTA_EIO);
    if (rc == DELTA_EIO && w) CHECK_EQ_INT(arrow_ipc_writer_close(w), DELTA_EIO);
    arrow_ipc_writer_free(w);
    free(f.data);
  }
  arrow_ipc_writer_free(NULL);
}

int main(void) {
  test_primitives();
  test_nested();
  test_sliced();
  test_batches();
  test_errors();
  arena_free();
  TEST_MAIN_END();
}
