#include "arrow/ipc_reader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arrow/filter.h"
#include "parquet/codec.h"
#include "parquet/metadata.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Union members and field ids of Schema.fbs / Message.fbs (declaration
 * order; a union field takes two ids: its type, then its value). */
enum {
  T_NULL = 1, T_INT = 2, T_FLOAT = 3, T_BINARY = 4, T_UTF8 = 5, T_BOOL = 6,
  T_DECIMAL = 7, T_DATE = 8, T_TIME = 9, T_TIMESTAMP = 10, T_INTERVAL = 11,
  T_LIST = 12, T_STRUCT = 13, T_UNION = 14, T_FSB = 15, T_FSL = 16, T_MAP = 17,
  T_DURATION = 18, T_LARGE_BINARY = 19, T_LARGE_UTF8 = 20, T_LARGE_LIST = 21
};
enum { H_SCHEMA = 1, H_DICTIONARY = 2, H_RECORD_BATCH = 3 };
enum { FIELD_NAME = 0, FIELD_NULLABLE = 1, FIELD_TYPE_TYPE = 2, FIELD_TYPE = 3,
       FIELD_DICTIONARY = 4, FIELD_CHILDREN = 5, FIELD_METADATA = 6 };
enum { SCHEMA_ENDIANNESS = 0, SCHEMA_FIELDS = 1, SCHEMA_METADATA = 2 };
enum { MSG_HEADER_TYPE = 1, MSG_HEADER = 2, MSG_BODY_LENGTH = 3 };
enum { RB_LENGTH = 0, RB_NODES = 1, RB_BUFFERS = 2, RB_COMPRESSION = 3 };
enum { DB_ID = 0, DB_DATA = 1, DB_IS_DELTA = 2 };
enum { DE_ID = 0, DE_INDEX_TYPE = 1 };
enum { BC_CODEC = 0, BC_METHOD = 1 };
enum { CODEC_LZ4_FRAME = 0, CODEC_ZSTD = 1 };

#define MAX_DEPTH 64

/* Rows a batch may claim beyond one bit of body per row: only null-typed
 * (or childless struct) columns take no body, and a tiny message claiming
 * 2^62 such rows would have consumers loop for ages. */
#define FREE_ROWS 65536

static int too_many_rows(int64_t rows, uint64_t body_len) {
  return (uint64_t)rows > FREE_ROWS + (body_len > UINT64_MAX / 16 ? UINT64_MAX / 2 : 8 * body_len);
}

/* ------------------------------------------------------------------ */
/* A bounds-checked flatbuffer reader over one message's metadata.     */

typedef struct {
  const uint8_t *p;
  size_t n;
  int bad; /* set by any out-of-bounds access; results are then 0 */
} fbr;

typedef struct {
  size_t pos, vt;
  uint16_t vt_len;
} fbt;

static uint64_t le(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static uint64_t rd(fbr *r, size_t pos, int bytes) {
  if (r->bad || pos > r->n || r->n - pos < (size_t)bytes) {
    r->bad = 1;
    return 0;
  }
  return le(r->p + pos, bytes);
}

static fbt fb_table_at(fbr *r, size_t pos) {
  fbt t = {0, 0, 0};
  int64_t vt = (int64_t)pos - (int32_t)(uint32_t)rd(r, pos, 4);
  if (r->bad || vt < 0 || (uint64_t)vt > r->n) {
    r->bad = 1;
    return t;
  }
  uint16_t vt_len = (uint16_t)rd(r, (size_t)vt, 2);
  uint16_t tbl_len = (uint16_t)rd(r, (size_t)vt + 2, 2);
  if (r->bad || vt_len < 4 || (vt_len & 1) || (size_t)vt + vt_len > r->n || tbl_len < 4 ||
      pos + tbl_len > r->n) {
    r->bad = 1;
    return t;
  }
  t.pos = pos;
  t.vt = (size_t)vt;
  t.vt_len = vt_len;
  return t;
}

/* Position of field `id` of `t`, or 0 when absent. */
static size_t fb_field(fbr *r, const fbt *t, int id) {
  if (r->bad || (size_t)(4 + 2 * id) + 2 > t->vt_len) return 0;
  uint16_t off = (uint16_t)rd(r, t->vt + 4 + 2 * (size_t)id, 2);
  return off ? t->pos + off : 0;
}

static int64_t fb_int(fbr *r, const fbt *t, int id, int bytes, int64_t dflt) {
  size_t f = fb_field(r, t, id);
  if (!f) return dflt;
  uint64_t v = rd(r, f, bytes);
  int shift = 64 - 8 * bytes;
  return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

/* Where the offset stored in field `id` points, or 0 when absent. */
static size_t fb_ref(fbr *r, const fbt *t, int id) {
  size_t f = fb_field(r, t, id);
  if (!f) return 0;
  uint64_t target = f + rd(r, f, 4);
  if (r->bad || target >= r->n) {
    r->bad = 1;
    return 0;
  }
  return (size_t)target;
}

/* A vector of `elem`-byte items: its count and first item, or 0 items. */
static size_t fb_vector(fbr *r, const fbt *t, int id, size_t elem, size_t *start) {
  size_t v = fb_ref(r, t, id);
  *start = 0;
  if (!v) return 0;
  uint64_t count = rd(r, v, 4);
  if (r->bad || count > (r->n - v - 4) / elem) {
    r->bad = 1;
    return 0;
  }
  *start = v + 4;
  return (size_t)count;
}

static fbt fb_vector_table(fbr *r, size_t start, size_t i) {
  size_t at = start + 4 * i;
  return fb_table_at(r, at + (size_t)rd(r, at, 4));
}

/* ------------------------------------------------------------------ */
/* Schema → ArrowSchema, with a layout tree for decoding batches.      */

typedef enum { L_NULL, L_BOOL, L_FIXED, L_BINARY, L_LARGE_BINARY, L_LIST, L_LARGE_LIST, L_FSL,
               L_STRUCT } layout;

/* A field's layout. A dictionary-encoded field (dict) is sent as indices of
 * index_width bytes, but `kind` and the children describe its values: the
 * layout of its dictionary batches, and of what the reader hands out. */
typedef struct lnode {
  layout kind;
  int64_t width;
  int64_t n_children;
  struct lnode *children;
  int dict, index_width, index_signed;
  int64_t dict_id;
  const struct ArrowSchema *schema; /* the field's (value) type, for take */
} lnode;

/* One ArrowSchema node's memory: the strings and the children arrays. */
typedef struct {
  char *format, *name, *metadata;
  struct ArrowSchema **kids;
} schema_priv;

static void schema_release(struct ArrowSchema *s) {
  schema_priv *p = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    if (s->children[i]->release) s->children[i]->release(s->children[i]);
    delta_free(s->children[i]);
  }
  if (p) {
    delta_free(p->format);
    delta_free(p->name);
    delta_free(p->metadata);
    delta_free(p->kids);
    delta_free(p);
  }
  s->release = NULL;
}

static void lnode_free(lnode *n) {
  for (int64_t i = 0; i < n->n_children; i++) lnode_free(&n->children[i]);
  delta_free(n->children);
  memset(n, 0, sizeof *n);
}

static int corrupt(const char *what) {
  return delta_error_set(DELTA_ECORRUPT, "arrow ipc: malformed stream: %s", what);
}

static char *fb_strdup(fbr *r, const fbt *t, int id) {
  size_t start, n = fb_vector(r, t, id, 1, &start);
  if (r->bad) return NULL;
  return delta_strndup(n ? (const char *)r->p + start : "", n);
}

/* custom_metadata → the C Data Interface's length-prefixed pairs. */
static int read_metadata(fbr *r, const fbt *t, int id, char **out) {
  size_t start, n = fb_vector(r, t, id, 4, &start);
  *out = NULL;
  if (!n) return r->bad ? corrupt("bad metadata vector") : 0;
  size_t total = 4;
  for (int pass = 0; pass < 2; pass++) {
    uint8_t *o = pass ? (uint8_t *)*out : NULL;
    size_t at = 0;
    if (o) {
      int32_t c = (int32_t)n;
      memcpy(o, &c, 4);
      at = 4;
    }
    for (size_t i = 0; i < n; i++) {
      fbt kv = fb_vector_table(r, start, i);
      for (int k = 0; k < 2; k++) {
        size_t s, len = fb_vector(r, &kv, k, 1, &s);
        if (r->bad || len > INT32_MAX) return corrupt("bad metadata entry");
        if (o) {
          int32_t l = (int32_t)len;
          memcpy(o + at, &l, 4);
          if (len) memcpy(o + at + 4, r->p + s, len);
          at += 4 + len;
        } else {
          total += 4 + len;
        }
      }
    }
    if (!pass && !(*out = delta_malloc(total))) return DELTA_NOMEM();
  }
  return 0;
}

static const char *unit_char(int64_t unit) {
  switch (unit) {
  case 0: return "s";
  case 1: return "m";
  case 2: return "u";
  case 3: return "n";
  default: return NULL;
  }
}

static int unsupported(const char *name, const char *type) {
  return delta_error_set(DELTA_EUNSUPPORTED, "arrow ipc: field \"%s\": %s is not supported", name,
                         type);
}

/* The Type union member of field `f` → a C format string in `fmt` and the
 * layout `n`; `want` gets the number of children the type needs (-1: any). */
static int read_type(fbr *r, const fbt *f, const char *name, char *fmt, size_t cap, lnode *n,
                     int64_t *want) {
  int64_t type = fb_int(r, f, FIELD_TYPE_TYPE, 1, 0);
  size_t tpos = fb_ref(r, f, FIELD_TYPE);
  if (r->bad || !tpos) return corrupt("field without a type");
  fbt t = fb_table_at(r, tpos);
  if (r->bad) return corrupt("bad type table");
  const char *u;
  *want = 0;
  n->kind = L_FIXED;
  switch (type) {
  case T_NULL: n->kind = L_NULL; snprintf(fmt, cap, "n"); break;
  case T_BOOL: n->kind = L_BOOL; snprintf(fmt, cap, "b"); break;
  case T_INT: {
    int64_t bits = fb_int(r, &t, 0, 4, 0), sgn = fb_int(r, &t, 1, 1, 0);
    const char *c = bits == 8 ? "cC" : bits == 16 ? "sS" : bits == 32 ? "iI" : bits == 64 ? "lL" : NULL;
    if (!c) return corrupt("bad integer width");
    snprintf(fmt, cap, "%c", c[sgn ? 0 : 1]);
    n->width = bits / 8;
    break;
  }
  case T_FLOAT: {
    int64_t prec = fb_int(r, &t, 0, 2, 0);
    if (prec < 0 || prec > 2) return corrupt("bad floating point precision");
    snprintf(fmt, cap, "%c", "efg"[prec]);
    n->width = 2 << prec;
    break;
  }
  case T_BINARY: n->kind = L_BINARY; snprintf(fmt, cap, "z"); break;
  case T_UTF8: n->kind = L_BINARY; snprintf(fmt, cap, "u"); break;
  case T_LARGE_BINARY: n->kind = L_LARGE_BINARY; snprintf(fmt, cap, "Z"); break;
  case T_LARGE_UTF8: n->kind = L_LARGE_BINARY; snprintf(fmt, cap, "U"); break;
  case T_DECIMAL: {
    int64_t p = fb_int(r, &t, 0, 4, 0), s = fb_int(r, &t, 1, 4, 0), bits = fb_int(r, &t, 2, 4, 128);
    if (bits != 128 && bits != 256) return corrupt("bad decimal width");
    if (p < 1 || p > (bits == 128 ? 38 : 76) || s > p || s < -p) return corrupt("bad decimal precision or scale");
    snprintf(fmt, cap, bits == 128 ? "d:%lld,%lld" : "d:%lld,%lld,256", (long long)p, (long long)s);
    n->width = bits / 8;
    break;
  }
  case T_DATE: {
    int64_t unit = fb_int(r, &t, 0, 2, 1);
    if (unit != 0 && unit != 1) return corrupt("bad date unit");
    snprintf(fmt, cap, unit ? "tdm" : "tdD");
    n->width = unit ? 8 : 4;
    break;
  }
  case T_TIME: {
    int64_t unit = fb_int(r, &t, 0, 2, 1);
    if (!(u = unit_char(unit))) return corrupt("bad time unit");
    snprintf(fmt, cap, "tt%s", u);
    n->width = unit <= 1 ? 4 : 8;
    break;
  }
  case T_TIMESTAMP: {
    if (!(u = unit_char(fb_int(r, &t, 0, 2, 0)))) return corrupt("bad timestamp unit");
    char *tz = fb_strdup(r, &t, 1);
    if (!tz) return r->bad ? corrupt("bad time zone") : DELTA_NOMEM();
    snprintf(fmt, cap, "ts%s:%s", u, tz);
    delta_free(tz);
    n->width = 8;
    break;
  }
  case T_DURATION:
    if (!(u = unit_char(fb_int(r, &t, 0, 2, 1)))) return corrupt("bad duration unit");
    snprintf(fmt, cap, "tD%s", u);
    n->width = 8;
    break;
  case T_INTERVAL: {
    int64_t unit = fb_int(r, &t, 0, 2, 0);
    if (unit < 0 || unit > 2) return corrupt("bad interval unit");
    snprintf(fmt, cap, "ti%c", "MDn"[unit]);
    n->width = unit == 0 ? 4 : unit == 1 ? 8 : 16;
    break;
  }
  case T_FSB: {
    int64_t w = fb_int(r, &t, 0, 4, 0);
    if (w < 1) return corrupt("bad fixed-size binary width");
    snprintf(fmt, cap, "w:%lld", (long long)w);
    n->width = w;
    break;
  }
  case T_LIST: n->kind = L_LIST; *want = 1; snprintf(fmt, cap, "+l"); break;
  case T_LARGE_LIST: n->kind = L_LARGE_LIST; *want = 1; snprintf(fmt, cap, "+L"); break;
  case T_MAP: n->kind = L_LIST; *want = 1; snprintf(fmt, cap, "+m"); break;
  case T_FSL: {
    int64_t w = fb_int(r, &t, 0, 4, 0);
    if (w < 0) return corrupt("bad fixed-size list size");
    snprintf(fmt, cap, "+w:%lld", (long long)w);
    n->kind = L_FSL;
    n->width = w;
    *want = 1;
    break;
  }
  case T_STRUCT: n->kind = L_STRUCT; *want = -1; snprintf(fmt, cap, "+s"); break;
  case T_UNION: return unsupported(name, "a union");
  case 22: return unsupported(name, "run-end encoding");
  case 23: case 24: case 25: case 26: return unsupported(name, "a view type");
  default: return corrupt("unknown type");
  }
  return 0;
}

static int read_field(fbr *r, const fbt *f, struct ArrowSchema *s, lnode *n, int depth);

/* The children of `parent` (a Field or the Schema: vector field `id`). */
static int read_children(fbr *r, const fbt *parent, int id, struct ArrowSchema *s, lnode *n,
                         int depth) {
  size_t start, count = fb_vector(r, parent, id, 4, &start);
  schema_priv *p = s->private_data;
  if (r->bad) return corrupt("bad children vector");
  if (!count) return 0;
  p->kids = delta_calloc(count, sizeof *p->kids);
  n->children = delta_calloc(count, sizeof *n->children);
  if (!p->kids || !n->children) return DELTA_NOMEM();
  s->children = p->kids;
  n->n_children = (int64_t)count;
  for (size_t i = 0; i < count; i++) {
    if (!(p->kids[i] = delta_calloc(1, sizeof **p->kids))) return DELTA_NOMEM();
    s->n_children = (int64_t)i + 1;
    fbt c = fb_vector_table(r, start, i);
    if (r->bad) return corrupt("bad field table");
    int rc = read_field(r, &c, p->kids[i], &n->children[i], depth + 1);
    if (rc) return rc;
  }
  return 0;
}

/* Fill `s` (zeroed; released by the caller also on failure) from Field `f`. */
static int read_field(fbr *r, const fbt *f, struct ArrowSchema *s, lnode *n, int depth) {
  char fmt[160];
  int64_t want;
  schema_priv *p = delta_calloc(1, sizeof *p);
  if (!p) return DELTA_NOMEM();
  s->private_data = p;
  s->release = schema_release;
  if (depth > MAX_DEPTH) return delta_error_set(DELTA_ELIMIT, "arrow ipc: schema nested deeper than %d", MAX_DEPTH);
  if (!(p->name = fb_strdup(r, f, FIELD_NAME))) return r->bad ? corrupt("bad field name") : DELTA_NOMEM();
  s->name = p->name;
  size_t dpos = fb_ref(r, f, FIELD_DICTIONARY);
  if (dpos) { /* DictionaryEncoding: the Type is the values' type */
    fbt de = fb_table_at(r, dpos);
    size_t ipos = fb_ref(r, &de, DE_INDEX_TYPE);
    n->dict = 1;
    n->dict_id = fb_int(r, &de, DE_ID, 8, 0);
    n->index_width = 4; /* an omitted index type is int32 */
    n->index_signed = 1;
    if (ipos) {
      fbt it = fb_table_at(r, ipos);
      int64_t bits = fb_int(r, &it, 0, 4, 0);
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return corrupt("bad dictionary index width");
      n->index_width = (int)(bits / 8);
      n->index_signed = fb_int(r, &it, 1, 1, 0) != 0;
    }
    if (r->bad) return corrupt("bad dictionary encoding");
  }
  n->schema = s;
  int rc = read_type(r, f, p->name, fmt, sizeof fmt, n, &want);
  if (!rc) rc = read_children(r, f, FIELD_CHILDREN, s, n, depth);
  if (!rc) rc = read_metadata(r, f, FIELD_METADATA, &p->metadata);
  if (rc) return rc;
  if (!(p->format = delta_strdup(fmt))) return DELTA_NOMEM();
  s->format = p->format;
  s->metadata = p->metadata;
  if (fb_int(r, f, FIELD_NULLABLE, 1, 0)) s->flags |= ARROW_FLAG_NULLABLE;
  if (want >= 0 && s->n_children != want) return corrupt("wrong number of child fields");
  if (strcmp(fmt, "+m") == 0) {
    const struct ArrowSchema *e = s->children[0];
    if (strcmp(e->format, "+s") != 0 || e->n_children != 2) return corrupt("map entries are not a key/value struct");
    fbt t = fb_table_at(r, fb_ref(r, f, FIELD_TYPE));
    if (fb_int(r, &t, 0, 1, 0)) s->flags |= ARROW_FLAG_MAP_KEYS_SORTED;
  }
  return r->bad ? corrupt("bad field") : 0;
}

/* ------------------------------------------------------------------ */
/* Record batches → struct arrays owning copies of their buffers.       */

/* Bounds on what a message may make us allocate beyond its own size: a
 * compressed buffer's stated length, and what dictionary indices expand to
 * (a one-byte index can stand for a long string). Both allow a floor plus a
 * multiple of the message, so a tiny hostile message cannot claim gigabytes. */
#define INFLATE_FLOOR ((uint64_t)256 << 20)
#define INFLATE_RATIO 4096
#define EXPAND_FLOOR ((uint64_t)256 << 20)
#define EXPAND_RATIO 64

typedef struct {
  void *bufs[3];
  struct ArrowArray **kids;
} array_priv;

static void array_release(struct ArrowArray *a) {
  array_priv *p = a->private_data;
  for (int64_t i = 0; i < a->n_children; i++) {
    if (a->children[i]->release) a->children[i]->release(a->children[i]);
    delta_free(a->children[i]);
  }
  if (p) {
    for (int i = 0; i < 3; i++) delta_free(p->bufs[i]);
    delta_free(p->kids);
    delta_free(p);
  }
  delta_free((void *)a->buffers);
  a->release = NULL;
}

/* One dictionary id: its value layout and the batches that make it up (the
 * first, then any deltas), already decoded to plain arrays. */
typedef struct {
  int64_t id;
  const lnode *node;
  struct ArrowArray *chunks;
  int64_t *starts; /* row of the whole dictionary where each chunk starts */
  int n_chunks, cap;
  int64_t rows;
} dict_entry;

typedef struct {
  dict_entry *dicts;
  int n_dicts;
} dict_set;

static dict_entry *dict_find(dict_set *d, int64_t id) {
  for (int i = 0; i < d->n_dicts; i++)
    if (d->dicts[i].id == id) return &d->dicts[i];
  return NULL;
}

static void dict_clear(dict_entry *e) {
  for (int i = 0; i < e->n_chunks; i++)
    if (e->chunks[i].release) e->chunks[i].release(&e->chunks[i]);
  e->n_chunks = 0;
  e->rows = 0;
}

typedef struct {
  fbr *r;
  size_t nodes, n_nodes, bufs, n_bufs, next_node, next_buf;
  const uint8_t *body;
  uint64_t body_len;
  uint64_t size;       /* the body's size once decompressed: the bound of row counts */
  void **dec;          /* compressed bodies: each buffer decompressed, taken by take_buffer */
  uint64_t *dec_len;
  uint64_t expand_left; /* what dictionary indices may still expand to */
  dict_set *dicts;
} batch_ctx;

static void batch_ctx_dispose(batch_ctx *c) {
  if (c->dec)
    for (size_t i = 0; i < c->n_bufs; i++) delta_free(c->dec[i]);
  delta_free(c->dec);
  delta_free(c->dec_len);
}

/* 8-aligned memory holding `len` bytes, its tail zeroed. */
static uint8_t *buffer_alloc(uint64_t len) {
  size_t alloc = (size_t)(len ? (len + 7) & ~(uint64_t)7 : 8);
  uint8_t *m = delta_malloc(alloc);
  if (m) memset(m + alloc - 8, 0, 8);
  return m;
}

/* BodyCompression: every non-empty buffer is an int64 uncompressed length
 * (-1: the rest is not compressed) then the codec's frame. All buffers are
 * decompressed before the batch is decoded, so the decoder sees their real
 * sizes. */
static int decompress_body(batch_ctx *c, const fbt *rb) {
  fbt bc = fb_table_at(c->r, fb_ref(c->r, rb, RB_COMPRESSION));
  int64_t codec = fb_int(c->r, &bc, BC_CODEC, 1, 0), method = fb_int(c->r, &bc, BC_METHOD, 1, 0);
  if (c->r->bad) return corrupt("bad body compression");
  if (codec != CODEC_LZ4_FRAME && codec != CODEC_ZSTD)
    return delta_error_set(DELTA_EUNSUPPORTED, "arrow ipc: body compression codec %lld is not supported", (long long)codec);
  if (method != 0)
    return delta_error_set(DELTA_EUNSUPPORTED, "arrow ipc: body compression method %lld is not supported", (long long)method);
  c->dec = delta_calloc(c->n_bufs + 1, sizeof *c->dec);
  c->dec_len = delta_calloc(c->n_bufs + 1, sizeof *c->dec_len);
  if (!c->dec || !c->dec_len) return DELTA_NOMEM();
  c->size = 0;
  uint64_t limit = INFLATE_FLOOR + (INFLATE_RATIO + 1) * c->body_len;
  for (size_t i = 0; i < c->n_bufs; i++) {
    size_t at = c->bufs + 16 * i;
    uint64_t off = rd(c->r, at, 8), len = rd(c->r, at + 8, 8);
    if (c->r->bad || off > c->body_len || len > c->body_len - off) return corrupt("buffer outside the message body");
    if (len == 0) continue; /* an empty buffer has no length prefix */
    if (len < 8) return corrupt("compressed buffer without its length");
    const uint8_t *src = c->body + off + 8;
    int64_t want = (int64_t)le(c->body + off, 8);
    uint64_t n = len - 8, out = want == -1 ? n : (uint64_t)want;
    if (want < -1) return corrupt("bad uncompressed buffer length");
    /* the whole message together: many buffers may not each claim the floor */
    if (want != -1 && (out > INFLATE_FLOOR + INFLATE_RATIO * n || out > limit || c->size > limit - out))
      return delta_error_set(DELTA_ELIMIT, "arrow ipc: a %llu-byte compressed buffer claims %llu bytes",
                             (unsigned long long)n, (unsigned long long)out);
    if (!(c->dec[i] = buffer_alloc(out))) return DELTA_NOMEM();
    c->dec_len[i] = out;
    c->size += out;
    int rc = 0;
    if (want == -1) memcpy(c->dec[i], src, (size_t)n);
    else if (codec == CODEC_ZSTD) rc = pq_decompress(PQ_CODEC_ZSTD, src, (size_t)n, c->dec[i], (size_t)out);
    else rc = pq_lz4_frame_decompress(src, (size_t)n, c->dec[i], (size_t)out);
    if (rc == DELTA_ECORRUPT) return corrupt(codec == CODEC_ZSTD ? "a ZSTD buffer does not decompress to its stated length"
                                                                  : "an LZ4 buffer does not decompress to its stated length");
    if (rc) return rc;
  }
  return 0;
}

/* Take the next body buffer (at least `need` bytes, else corrupt) as fresh
 * memory; zero-length buffers become an 8-byte zeroed block. */
static int take_buffer(batch_ctx *c, uint64_t need, void **out, uint64_t *got) {
  if (c->next_buf >= c->n_bufs) return corrupt("too few buffers");
  size_t i = c->next_buf++;
  uint64_t len;
  if (c->dec) {
    len = c->dec_len[i];
    if (len < need) return corrupt("buffer too short");
    if (c->dec[i]) {
      *out = c->dec[i];
      c->dec[i] = NULL;
    } else if (!(*out = buffer_alloc(0))) {
      return DELTA_NOMEM();
    }
  } else {
    size_t at = c->bufs + 16 * i;
    uint64_t off = rd(c->r, at, 8);
    len = rd(c->r, at + 8, 8);
    if (c->r->bad || off > c->body_len || len > c->body_len - off) return corrupt("buffer outside the message body");
    if (len < need) return corrupt("buffer too short");
    uint8_t *m = buffer_alloc(len);
    if (!m) return DELTA_NOMEM();
    if (len) memcpy(m, c->body + off, (size_t)len);
    *out = m;
  }
  if (got) *got = len;
  return 0;
}

/* Offsets [0..length] must start at >= 0, never decrease and end at most at
 * `limit`; *end gets the last one. */
static int check_offsets(const void *buf, int large, int64_t length, uint64_t limit, int64_t *end) {
  int64_t prev = 0;
  for (int64_t i = 0; i <= length; i++) {
    int64_t v;
    if (large) memcpy(&v, (const uint8_t *)buf + 8 * i, 8);
    else {
      int32_t v32;
      memcpy(&v32, (const uint8_t *)buf + 4 * i, 4);
      v = v32;
    }
    if (v < prev || (uint64_t)v > limit) return corrupt("bad offsets");
    prev = v;
  }
  *end = prev;
  return 0;
}

static int64_t offset_at(const void *buf, int large, int64_t i) {
  return large ? ((const int64_t *)buf)[i] : ((const int32_t *)buf)[i];
}

/* Roughly the bytes row `slot` of `a` (a decoded array of layout `n`, offset
 * 0) takes when copied; adds to *cost and stops early once past `limit`. */
static void row_cost(const lnode *n, const struct ArrowArray *a, int64_t slot, uint64_t limit, uint64_t *cost) {
  if (*cost > limit) return;
  *cost += 1;
  switch (n->kind) {
  case L_FIXED: *cost += (uint64_t)n->width; break;
  case L_BINARY:
  case L_LARGE_BINARY: {
    int large = n->kind == L_LARGE_BINARY;
    *cost += (uint64_t)(offset_at(a->buffers[1], large, slot + 1) - offset_at(a->buffers[1], large, slot)) + 8;
    break;
  }
  case L_LIST:
  case L_LARGE_LIST: {
    int large = n->kind == L_LARGE_LIST;
    *cost += 8;
    for (int64_t e = offset_at(a->buffers[1], large, slot); e < offset_at(a->buffers[1], large, slot + 1) && *cost <= limit; e++)
      row_cost(&n->children[0], a->children[0], e, limit, cost);
    break;
  }
  case L_FSL:
    for (int64_t e = 0; e < n->width && *cost <= limit; e++)
      row_cost(&n->children[0], a->children[0], slot * n->width + e, limit, cost);
    break;
  case L_STRUCT:
    for (int64_t k = 0; k < n->n_children; k++) row_cost(&n->children[k], a->children[k], slot, limit, cost);
    break;
  default: break;
  }
}

static int read_array(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t min_len, int depth, int as_values);

static int read_kids(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t min_len, int depth) {
  array_priv *p = a->private_data;
  if (!n->n_children) return 0;
  if (!(p->kids = delta_calloc((size_t)n->n_children, sizeof *p->kids))) return DELTA_NOMEM();
  a->children = p->kids;
  for (int64_t i = 0; i < n->n_children; i++) {
    if (!(p->kids[i] = delta_calloc(1, sizeof **p->kids))) return DELTA_NOMEM();
    a->n_children = i + 1;
    int rc = read_array(c, &n->children[i], p->kids[i], min_len, depth + 1, 0);
    if (rc) return rc;
  }
  return 0;
}

/* A dictionary-encoded array: its indices (validity + index_width bytes
 * each) taken through the dictionary into a plain array of the values'
 * type. A null index is a null value. */
static int read_dict_indices(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t length, int64_t nulls) {
  void *valid = NULL, *idx = NULL;
  arrow_row_ref *refs = NULL;
  int rc = take_buffer(c, nulls ? ((uint64_t)length + 7) / 8 : 0, &valid, NULL);
  if (!rc && (uint64_t)length > c->size / (uint64_t)n->index_width) rc = corrupt("buffer too short");
  if (!rc) rc = take_buffer(c, (uint64_t)length * (uint64_t)n->index_width, &idx, NULL);
  dict_entry *e = rc ? NULL : dict_find(c->dicts, n->dict_id);
  if (!rc && !e) rc = corrupt("dictionary id not in the schema");
  if (!rc && length && !e->n_chunks) rc = corrupt("dictionary used before its DictionaryBatch");
  if (!rc && !(refs = delta_malloc((size_t)length * sizeof *refs + 1))) rc = DELTA_NOMEM();
  uint64_t cost = 0;
  for (int64_t i = 0; !rc && i < length; i++) {
    if (nulls && !((((const uint8_t *)valid)[i >> 3] >> (i & 7)) & 1)) {
      refs[i] = (arrow_row_ref){-1, 0};
      continue;
    }
    const uint8_t *q = (const uint8_t *)idx + (size_t)i * (size_t)n->index_width;
    uint64_t u = le(q, n->index_width);
    int shift = 64 - 8 * n->index_width;
    int64_t v = n->index_signed ? (shift ? (int64_t)(u << shift) >> shift : (int64_t)u) : (int64_t)u;
    if (v < 0 || v >= e->rows) {
      rc = corrupt("dictionary index out of range");
      break;
    }
    int k = e->n_chunks - 1;
    while (e->starts[k] > v) k--; /* deltas are few: a linear walk back */
    refs[i] = (arrow_row_ref){k, v - e->starts[k]};
    row_cost(n, &e->chunks[k], refs[i].row, c->expand_left, &cost);
    if (cost > c->expand_left)
      rc = delta_error_set(DELTA_ELIMIT, "arrow ipc: dictionary indices expand past %llu bytes",
                           (unsigned long long)(cost));
  }
  if (!rc) {
    c->expand_left -= cost;
    const struct ArrowArray *ins[1];
    const struct ArrowArray **chunks = e->n_chunks > 1 ? delta_malloc((size_t)e->n_chunks * sizeof *chunks) : ins;
    if (!chunks) rc = DELTA_NOMEM();
    for (int k = 0; !rc && k < e->n_chunks; k++) chunks[k] = &e->chunks[k];
    /* arrow_take makes a fresh array: drop the placeholder the caller set */
    if (!rc) {
      array_release(a);
      memset(a, 0, sizeof *a);
      rc = arrow_take(n->schema, chunks, e->n_chunks, refs, length, a);
    }
    if (chunks != ins) delta_free(chunks);
  }
  delta_free(refs);
  delta_free(valid);
  delta_free(idx);
  return rc;
}

/* Decode the next FieldNode and its buffers into `a` (zeroed; released by
 * the caller also on failure); it must hold at least `min_len` values.
 * as_values: a dictionary field's own values (in a DictionaryBatch). */
static int read_array(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t min_len, int depth, int as_values) {
  array_priv *p = delta_calloc(1, sizeof *p);
  int rc;
  if (!p) return DELTA_NOMEM();
  a->private_data = p;
  a->release = array_release;
  if (depth > MAX_DEPTH) return corrupt("nested too deep");
  if (c->next_node >= c->n_nodes) return corrupt("too few field nodes");
  size_t at = c->nodes + 16 * c->next_node++;
  int64_t length = (int64_t)rd(c->r, at, 8), nulls = (int64_t)rd(c->r, at + 8, 8);
  if (c->r->bad || length < 0 || nulls < 0 || nulls > length || length < min_len)
    return corrupt("bad field node");
  if (too_many_rows(length, c->size))
    return delta_error_set(DELTA_ELIMIT, "arrow ipc: an array claims %lld rows in a %llu-byte body",
                           (long long)length, (unsigned long long)c->size);
  if (n->dict && !as_values) return read_dict_indices(c, n, a, length, nulls);
  a->length = length;
  a->null_count = nulls;
  int nb = n->kind == L_NULL ? 0 : n->kind == L_FSL || n->kind == L_STRUCT ? 1
         : n->kind == L_BINARY || n->kind == L_LARGE_BINARY ? 3 : 2;
  a->n_buffers = nb;
  if (!(a->buffers = delta_calloc(3, sizeof *a->buffers))) return DELTA_NOMEM();
  if (n->kind == L_NULL) {
    a->null_count = length;
    return 0;
  }
  uint64_t bitmap = ((uint64_t)length + 7) / 8;
  if ((rc = take_buffer(c, nulls ? bitmap : 0, &p->bufs[0], NULL))) return rc;
  if (nulls) a->buffers[0] = p->bufs[0];
  int64_t end = 0;
  uint64_t got;
  switch (n->kind) {
  case L_BOOL:
    rc = take_buffer(c, bitmap, &p->bufs[1], NULL);
    break;
  case L_FIXED:
    if ((uint64_t)length > c->size / (uint64_t)n->width) return corrupt("buffer too short");
    rc = take_buffer(c, (uint64_t)length * (uint64_t)n->width, &p->bufs[1], NULL);
    break;
  case L_BINARY:
  case L_LARGE_BINARY:
  case L_LIST:
  case L_LARGE_LIST: {
    int large = n->kind == L_LARGE_BINARY || n->kind == L_LARGE_LIST;
    uint64_t w = large ? 8 : 4;
    if ((uint64_t)length >= c->size && length) return corrupt("buffer too short");
    if ((rc = take_buffer(c, length ? ((uint64_t)length + 1) * w : 0, &p->bufs[1], &got))) return rc;
    if (!got) { /* an empty array may leave its offsets out */
      delta_free(p->bufs[1]);
      if (!(p->bufs[1] = delta_calloc(1, 8))) return DELTA_NOMEM();
    }
    if (n->kind == L_BINARY || n->kind == L_LARGE_BINARY) {
      if ((rc = take_buffer(c, 0, &p->bufs[2], &got))) return rc;
      rc = check_offsets(p->bufs[1], large, length, got, &end);
    } else {
      if ((rc = check_offsets(p->bufs[1], large, length, INT64_MAX, &end))) return rc;
      rc = read_kids(c, n, a, end, depth);
    }
    break;
  }
  case L_FSL:
    if (n->width && length > INT64_MAX / n->width) return corrupt("list too long");
    rc = read_kids(c, n, a, length * n->width, depth);
    break;
  case L_STRUCT:
    rc = read_kids(c, n, a, length, depth);
    break;
  default:
    rc = corrupt("bad layout");
  }
  for (int i = 0; i < 3; i++) if (i && p->bufs[i]) a->buffers[i] = p->bufs[i];
  return rc;
}

/* ------------------------------------------------------------------ */
/* The stream: framing messages off the source one at a time.         */

typedef struct {
  arrow_ipc_read_fn read;
  void *ctx;
  void (*close_ctx)(void *ctx);
  char *name;          /* put in front of errors from get_next */
  struct ArrowSchema schema;
  lnode root;
  dict_set dicts;
  uint8_t *meta, *body; /* the current message, reused: they grow to the largest */
  size_t meta_cap, body_cap;
  int done, failed;
  char err[1024];
} stream_priv;

static void stream_release(struct ArrowArrayStream *st) {
  stream_priv *p = st->private_data;
  if (p) {
    if (p->schema.release) p->schema.release(&p->schema);
    lnode_free(&p->root);
    for (int i = 0; i < p->dicts.n_dicts; i++) {
      dict_clear(&p->dicts.dicts[i]);
      delta_free(p->dicts.dicts[i].chunks);
      delta_free(p->dicts.dicts[i].starts);
    }
    delta_free(p->dicts.dicts);
    delta_free(p->meta);
    delta_free(p->body);
    if (p->close_ctx) p->close_ctx(p->ctx);
    delta_free(p->name);
    delta_free(p);
  }
  st->release = NULL;
}

/* Read up to n bytes (fewer only at EOF); the count, or an error code. */
static int64_t read_full(stream_priv *p, uint8_t *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    int64_t k = p->read(p->ctx, buf + got, n - got);
    if (k < 0) return k;
    if (k == 0) break;
    got += (size_t)k;
  }
  return (int64_t)got;
}

/* Read exactly `need` bytes into *buf, growing it with the data that
 * arrives (a message claiming more than the stream holds costs only what
 * the stream holds). */
static int read_grow(stream_priv *p, uint8_t **buf, size_t *cap, uint64_t need) {
  uint64_t have = 0;
  if (need > SIZE_MAX - 8) return corrupt("message too large");
  while (have < need) {
    if (*cap < need && *cap <= have) {
      uint64_t want = have < ((uint64_t)1 << 20) ? (uint64_t)1 << 20 : 2 * have;
      if (want > need) want = need;
      uint8_t *m = delta_realloc(*buf, (size_t)want + 8);
      if (!m) return DELTA_NOMEM();
      *buf = m;
      *cap = (size_t)want;
    }
    uint64_t chunk = (*cap < need ? *cap : need) - have;
    int64_t k = read_full(p, *buf + have, (size_t)chunk);
    if (k < 0) return (int)k;
    have += (uint64_t)k;
    if ((uint64_t)k < chunk) return corrupt("truncated message");
  }
  return 0;
}

typedef struct {
  int64_t type; /* H_*, 0 = end of stream */
  fbr r;
  fbt header;
  const uint8_t *body;
  uint64_t body_len;
} message;

static int next_message(stream_priv *p, int have_schema, message *m) {
  uint8_t pre[4];
  memset(m, 0, sizeof *m);
  int64_t k = read_full(p, pre, 4);
  if (k < 0) return (int)k;
  if (k == 0 && have_schema) return 0; /* EOF between messages */
  if (k < 4) return corrupt(k || have_schema ? "truncated message" : "empty input");
  uint32_t meta = (uint32_t)le(pre, 4);
  if (meta == 0xFFFFFFFFu) {
    if ((k = read_full(p, pre, 4)) < 0) return (int)k;
    if (k < 4) return corrupt("truncated message");
    meta = (uint32_t)le(pre, 4);
  }
  if (meta == 0) return have_schema ? 0 : corrupt("stream ends before its schema");
  int rc = read_grow(p, &p->meta, &p->meta_cap, meta);
  if (rc) return rc;
  fbr r = {p->meta, meta, 0};
  fbt msg = fb_table_at(&r, (size_t)rd(&r, 0, 4));
  int64_t type = fb_int(&r, &msg, MSG_HEADER_TYPE, 1, 0);
  int64_t body_len = fb_int(&r, &msg, MSG_BODY_LENGTH, 8, 0);
  size_t hpos = fb_ref(&r, &msg, MSG_HEADER);
  fbt header = hpos ? fb_table_at(&r, hpos) : msg;
  if (r.bad || !hpos || body_len < 0) return corrupt(r.bad || !hpos ? "bad message header" : "bad body length");
  if ((rc = read_grow(p, &p->body, &p->body_cap, (uint64_t)body_len))) return rc;
  if (type != H_SCHEMA && type != H_DICTIONARY && type != H_RECORD_BATCH) return corrupt("unknown message type");
  m->type = type;
  m->r = r;
  m->header = header;
  m->body = p->body;
  m->body_len = (uint64_t)body_len;
  return 0;
}

/* Deep-copy a schema tree (get_schema hands the consumer its own). */
static int schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst) {
  schema_priv *p = delta_calloc(1, sizeof *p);
  memset(dst, 0, sizeof *dst);
  if (!p) return DELTA_NOMEM();
  dst->private_data = p;
  dst->release = schema_release;
  dst->flags = src->flags;
  if (!(dst->format = p->format = delta_strdup(src->format))) return DELTA_NOMEM();
  if (src->name && !(dst->name = p->name = delta_strdup(src->name))) return DELTA_NOMEM();
  if (src->metadata) {
    int32_t count;
    size_t len = 4;
    memcpy(&count, src->metadata, 4);
    for (int32_t i = 0; i < 2 * count; i++) {
      int32_t l;
      memcpy(&l, src->metadata + len, 4);
      len += 4 + (size_t)l;
    }
    if (!(p->metadata = delta_malloc(len))) return DELTA_NOMEM();
    memcpy(p->metadata, src->metadata, len);
    dst->metadata = p->metadata;
  }
  if (src->n_children) {
    if (!(p->kids = delta_calloc((size_t)src->n_children, sizeof *p->kids))) return DELTA_NOMEM();
    dst->children = p->kids;
    for (int64_t i = 0; i < src->n_children; i++) {
      if (!(p->kids[i] = delta_calloc(1, sizeof **p->kids))) return DELTA_NOMEM();
      dst->n_children = i + 1;
      int rc = schema_copy(src->children[i], p->kids[i]);
      if (rc) return rc;
    }
  }
  return 0;
}

static int stream_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  stream_priv *p = st->private_data;
  int rc = schema_copy(&p->schema, out);
  if (rc && out->release) out->release(out);
  return rc ? ENOMEM : 0;
}

/* Every dictionary-encoded field of the schema, at any depth. */
static int collect_dicts(stream_priv *p, const lnode *n) {
  if (n->dict) {
    if (dict_find(&p->dicts, n->dict_id)) return corrupt("two fields share a dictionary id");
    dict_entry *d = delta_realloc(p->dicts.dicts, (size_t)(p->dicts.n_dicts + 1) * sizeof *d);
    if (!d) return DELTA_NOMEM();
    p->dicts.dicts = d;
    memset(&d[p->dicts.n_dicts], 0, sizeof *d);
    d[p->dicts.n_dicts].id = n->dict_id;
    d[p->dicts.n_dicts++].node = n;
  }
  for (int64_t i = 0; i < n->n_children; i++) {
    int rc = collect_dicts(p, &n->children[i]);
    if (rc) return rc;
  }
  return 0;
}

static int read_schema(stream_priv *p, fbr *r, const fbt *schema) {
  if (fb_int(r, schema, SCHEMA_ENDIANNESS, 2, 0) != 0)
    return delta_error_set(DELTA_EUNSUPPORTED, "arrow ipc: big-endian streams are not supported");
  schema_priv *sp = delta_calloc(1, sizeof *sp);
  if (!sp) return DELTA_NOMEM();
  p->schema.private_data = sp;
  p->schema.release = schema_release;
  if (!(sp->format = delta_strdup("+s")) || !(sp->name = delta_strdup(""))) return DELTA_NOMEM();
  p->schema.format = sp->format;
  p->schema.name = sp->name;
  p->root.kind = L_STRUCT;
  int rc = read_children(r, schema, SCHEMA_FIELDS, &p->schema, &p->root, 0);
  if (!rc) rc = read_metadata(r, schema, SCHEMA_METADATA, &sp->metadata);
  p->schema.metadata = sp->metadata;
  if (!rc) rc = collect_dicts(p, &p->root);
  return rc;
}

/* The parts of a RecordBatch table (also a DictionaryBatch's data) that
 * come before its columns; *length gets its row count. */
static int batch_begin(stream_priv *p, message *m, const fbt *rb, batch_ctx *c, int64_t *length) {
  memset(c, 0, sizeof *c);
  c->r = &m->r;
  c->body = m->body;
  c->body_len = c->size = m->body_len;
  c->dicts = &p->dicts;
  c->n_nodes = fb_vector(c->r, rb, RB_NODES, 16, &c->nodes);
  c->n_bufs = fb_vector(c->r, rb, RB_BUFFERS, 16, &c->bufs);
  *length = fb_int(c->r, rb, RB_LENGTH, 8, 0);
  if (c->r->bad || *length < 0) return corrupt("bad record batch");
  if (fb_ref(c->r, rb, RB_COMPRESSION)) {
    int rc = decompress_body(c, rb);
    if (rc) return rc;
  }
  c->expand_left = EXPAND_FLOOR + (c->size > UINT64_MAX / 2 / EXPAND_RATIO ? UINT64_MAX / 2 : EXPAND_RATIO * c->size);
  if (too_many_rows(*length, c->size))
    return delta_error_set(DELTA_ELIMIT, "arrow ipc: a batch claims %lld rows in a %llu-byte body",
                           (long long)*length, (unsigned long long)c->size);
  return 0;
}

static int read_batch(stream_priv *p, message *m, struct ArrowArray *a) {
  batch_ctx c;
  int64_t length;
  int rc = batch_begin(p, m, &m->header, &c, &length);
  array_priv *ap = rc ? NULL : delta_calloc(1, sizeof *ap);
  if (!rc && !ap) rc = DELTA_NOMEM();
  if (!rc) {
    a->private_data = ap;
    a->release = array_release;
    a->length = length;
    a->n_buffers = 1;
    if (!(a->buffers = delta_calloc(1, sizeof *a->buffers))) rc = DELTA_NOMEM();
  }
  if (!rc) rc = read_kids(&c, &p->root, a, length, 0);
  batch_ctx_dispose(&c);
  return rc;
}

/* A DictionaryBatch: one column of the dictionary's value type, which
 * replaces the dictionary or (isDelta) is appended to it. */
static int read_dictionary(stream_priv *p, message *m) {
  fbr *r = &m->r;
  int64_t id = fb_int(r, &m->header, DB_ID, 8, 0);
  int delta = fb_int(r, &m->header, DB_IS_DELTA, 1, 0) != 0;
  size_t dpos = fb_ref(r, &m->header, DB_DATA);
  if (r->bad || !dpos) return corrupt("bad dictionary batch");
  fbt rb = fb_table_at(r, dpos);
  if (r->bad) return corrupt("bad dictionary batch");
  dict_entry *e = dict_find(&p->dicts, id);
  if (!e) return corrupt("dictionary batch for an id not in the schema");
  batch_ctx c;
  int64_t length;
  struct ArrowArray col;
  memset(&col, 0, sizeof col);
  int rc = batch_begin(p, m, &rb, &c, &length);
  if (!rc) rc = read_array(&c, e->node, &col, length, 0, 1);
  batch_ctx_dispose(&c);
  if (!rc && delta && e->rows > INT64_MAX - col.length) rc = corrupt("dictionary too long");
  if (!rc && e->n_chunks == e->cap) {
    int cap = e->cap ? 2 * e->cap : 2;
    struct ArrowArray *ch = delta_realloc(e->chunks, (size_t)cap * sizeof *ch);
    int64_t *st = ch ? delta_realloc(e->starts, (size_t)cap * sizeof *st) : NULL;
    if (ch) e->chunks = ch;
    if (st) e->starts = st;
    if (!ch || !st) rc = DELTA_NOMEM();
    else e->cap = cap;
  }
  if (rc) {
    if (col.release) col.release(&col);
    return rc;
  }
  if (!delta) dict_clear(e); /* a replacement dictionary (stream format only) */
  e->starts[e->n_chunks] = e->rows;
  e->chunks[e->n_chunks++] = col;
  e->rows += col.length;
  return 0;
}

static int to_errno(int rc) {
  switch (rc) {
  case DELTA_ENOMEM: return ENOMEM;
  case DELTA_EIO: return EIO;
  case DELTA_EUNSUPPORTED: return ENOTSUP;
  case DELTA_ELIMIT: return EOVERFLOW;
  default: return EINVAL;
  }
}

static int stream_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  stream_priv *p = st->private_data;
  memset(out, 0, sizeof *out);
  if (p->failed) return p->failed;
  if (p->done) return 0;
  int rc;
  for (;;) {
    message m;
    if ((rc = next_message(p, 1, &m))) break;
    if (m.type == 0) {
      p->done = 1;
      return 0;
    }
    if (m.type == H_DICTIONARY) {
      if ((rc = read_dictionary(p, &m))) break;
      continue;
    }
    if (m.type != H_RECORD_BATCH) {
      rc = corrupt("unexpected message");
      break;
    }
    if (!(rc = read_batch(p, &m, out))) return 0;
    break;
  }
  if (out->release) out->release(out);
  memset(out, 0, sizeof *out);
  snprintf(p->err, sizeof p->err, "%s%s%s", p->name ? p->name : "", p->name ? ": " : "", delta_error_last());
  p->failed = to_errno(rc);
  return p->failed;
}

static const char *stream_last_error(struct ArrowArrayStream *st) {
  stream_priv *p = st->private_data;
  return p->failed ? p->err : NULL;
}

int arrow_ipc_open(arrow_ipc_read_fn read, void *ctx, void (*close_ctx)(void *ctx), const char *name,
                   struct ArrowArrayStream *out) {
  stream_priv *p = delta_calloc(1, sizeof *p);
  memset(out, 0, sizeof *out);
  if (!p) {
    if (close_ctx) close_ctx(ctx);
    return DELTA_NOMEM();
  }
  p->read = read;
  p->ctx = ctx;
  p->close_ctx = close_ctx;
  out->private_data = p;
  out->release = stream_release;
  int rc = 0;
  if (name && !(p->name = delta_strdup(name))) rc = DELTA_NOMEM();
  message m;
  if (!rc) rc = next_message(p, 0, &m);
  if (!rc && m.type != H_SCHEMA) rc = corrupt("stream does not start with a schema");
  if (!rc) rc = read_schema(p, &m.r, &m.header);
  if (rc) {
    stream_release(out);
    return rc;
  }
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  return 0;
}

/* ---- sources: memory and file descriptors ---- */

typedef struct {
  const uint8_t *data;
  size_t len, pos;
} mem_src;

static int64_t mem_read(void *ctx, void *buf, size_t n) {
  mem_src *m = ctx;
  if (n > m->len - m->pos) n = m->len - m->pos;
  if (n) memcpy(buf, m->data + m->pos, n);
  m->pos += n;
  return (int64_t)n;
}

static void mem_close(void *ctx) { delta_free(ctx); }

int arrow_ipc_read(const uint8_t *data, size_t len, struct ArrowArrayStream *out) {
  mem_src *m = delta_calloc(1, sizeof *m);
  if (!m) return DELTA_NOMEM();
  m->data = data;
  m->len = len;
  return arrow_ipc_open(mem_read, m, mem_close, NULL, out);
}

typedef struct {
  int fd, own;
  char *name;
} fd_src;

static int64_t fd_read(void *ctx, void *buf, size_t n) {
  fd_src *f = ctx;
  for (;;) {
    ssize_t k = read(f->fd, buf, n > ((size_t)1 << 30) ? (size_t)1 << 30 : n);
    if (k >= 0) return k;
    if (errno != EINTR) return delta_error_set(DELTA_EIO, "reading %s failed: %s", f->name, strerror(errno));
  }
}

static void fd_close(void *ctx) {
  fd_src *f = ctx;
  if (f->own) close(f->fd);
  delta_free(f->name);
  delta_free(f);
}

int arrow_ipc_open_fd(int fd, int own_fd, const char *name, struct ArrowArrayStream *out) {
  fd_src *f = delta_calloc(1, sizeof *f);
  if (!f || !(f->name = delta_strdup(name ? name : "input"))) {
    delta_free(f);
    if (own_fd) close(fd);
    return DELTA_NOMEM();
  }
  f->fd = fd;
  f->own = own_fd;
  return arrow_ipc_open(fd_read, f, fd_close, name, out);
}
