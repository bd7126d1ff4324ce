#include "arrow/ipc_reader.h"

#include <stdio.h>
#include <string.h>

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

typedef struct lnode {
  layout kind;
  int64_t width;
  int64_t n_children;
  struct lnode *children;
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
  if (fb_ref(r, f, FIELD_DICTIONARY))
    return unsupported(p->name, "a dictionary-encoded field");
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

typedef struct {
  fbr *r;
  size_t nodes, n_nodes, bufs, n_bufs, next_node, next_buf;
  const uint8_t *body;
  uint64_t body_len;
} batch_ctx;

/* Copy the next body buffer (at least `need` bytes, else corrupt) into
 * fresh memory; zero-length buffers become an 8-byte zeroed block. */
static int take_buffer(batch_ctx *c, uint64_t need, void **out, uint64_t *got) {
  if (c->next_buf >= c->n_bufs) return corrupt("too few buffers");
  size_t at = c->bufs + 16 * c->next_buf++;
  uint64_t off = rd(c->r, at, 8), len = rd(c->r, at + 8, 8);
  if (c->r->bad || off > c->body_len || len > c->body_len - off) return corrupt("buffer outside the message body");
  if (len < need) return corrupt("buffer too short");
  size_t alloc = (size_t)(len ? (len + 7) & ~(uint64_t)7 : 8);
  uint8_t *m = delta_malloc(alloc);
  if (!m) return DELTA_NOMEM();
  memset(m + alloc - 8, 0, 8);
  if (len) memcpy(m, c->body + off, (size_t)len);
  *out = m;
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

static int read_array(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t min_len, int depth);

static int read_kids(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t min_len, int depth) {
  array_priv *p = a->private_data;
  if (!n->n_children) return 0;
  if (!(p->kids = delta_calloc((size_t)n->n_children, sizeof *p->kids))) return DELTA_NOMEM();
  a->children = p->kids;
  for (int64_t i = 0; i < n->n_children; i++) {
    if (!(p->kids[i] = delta_calloc(1, sizeof **p->kids))) return DELTA_NOMEM();
    a->n_children = i + 1;
    int rc = read_array(c, &n->children[i], p->kids[i], min_len, depth + 1);
    if (rc) return rc;
  }
  return 0;
}

/* Decode the next FieldNode and its buffers into `a` (zeroed; released by
 * the caller also on failure); it must hold at least `min_len` values. */
static int read_array(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t min_len, int depth) {
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
  if (too_many_rows(length, c->body_len))
    return delta_error_set(DELTA_ELIMIT, "arrow ipc: an array claims %lld rows in a %llu-byte body",
                           (long long)length, (unsigned long long)c->body_len);
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
    if ((uint64_t)length > c->body_len / (uint64_t)n->width) return corrupt("buffer too short");
    rc = take_buffer(c, (uint64_t)length * (uint64_t)n->width, &p->bufs[1], NULL);
    break;
  case L_BINARY:
  case L_LARGE_BINARY:
  case L_LIST:
  case L_LARGE_LIST: {
    int large = n->kind == L_LARGE_BINARY || n->kind == L_LARGE_LIST;
    uint64_t w = large ? 8 : 4;
    if ((uint64_t)length >= c->body_len && length) return corrupt("buffer too short");
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
/* The stream: framing, and handing out the decoded batches.           */

typedef struct {
  struct ArrowSchema schema;
  lnode root;
  struct ArrowArray *batches;
  size_t n_batches, cap_batches, next;
} stream_priv;

static void stream_release(struct ArrowArrayStream *st) {
  stream_priv *p = st->private_data;
  if (p) {
    if (p->schema.release) p->schema.release(&p->schema);
    lnode_free(&p->root);
    for (size_t i = p->next; i < p->n_batches; i++)
      if (p->batches[i].release) p->batches[i].release(&p->batches[i]);
    delta_free(p->batches);
    delta_free(p);
  }
  st->release = NULL;
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
  return rc ? 12 /* ENOMEM */ : 0;
}

static int stream_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  stream_priv *p = st->private_data;
  if (p->next < p->n_batches) {
    *out = p->batches[p->next++];
  } else {
    memset(out, 0, sizeof *out);
  }
  return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *st) {
  (void)st;
  return NULL;
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
  return rc;
}

static int read_batch(stream_priv *p, fbr *r, const fbt *rb, const uint8_t *body, uint64_t body_len) {
  if (fb_ref(r, rb, RB_COMPRESSION))
    return delta_error_set(DELTA_EUNSUPPORTED, "arrow ipc: compressed record batch bodies are not supported");
  batch_ctx c = {.r = r, .body = body, .body_len = body_len};
  c.n_nodes = fb_vector(r, rb, RB_NODES, 16, &c.nodes);
  c.n_bufs = fb_vector(r, rb, RB_BUFFERS, 16, &c.bufs);
  int64_t length = fb_int(r, rb, RB_LENGTH, 8, 0);
  if (r->bad || length < 0) return corrupt("bad record batch");
  if (too_many_rows(length, body_len))
    return delta_error_set(DELTA_ELIMIT, "arrow ipc: a batch claims %lld rows in a %llu-byte body",
                           (long long)length, (unsigned long long)body_len);
  if (p->n_batches == p->cap_batches) {
    size_t cap = p->cap_batches ? 2 * p->cap_batches : 8;
    struct ArrowArray *b = delta_realloc(p->batches, cap * sizeof *b);
    if (!b) return DELTA_NOMEM();
    p->batches = b;
    p->cap_batches = cap;
  }
  struct ArrowArray *a = &p->batches[p->n_batches++];
  memset(a, 0, sizeof *a);
  array_priv *ap = delta_calloc(1, sizeof *ap);
  if (!ap) return DELTA_NOMEM();
  a->private_data = ap;
  a->release = array_release;
  a->length = length;
  a->n_buffers = 1;
  if (!(a->buffers = delta_calloc(1, sizeof *a->buffers))) return DELTA_NOMEM();
  return read_kids(&c, &p->root, a, length, 0);
}

int arrow_ipc_read(const uint8_t *data, size_t len, struct ArrowArrayStream *out) {
  stream_priv *p = delta_calloc(1, sizeof *p);
  int rc = 0, have_schema = 0;
  memset(out, 0, sizeof *out);
  if (!p) return DELTA_NOMEM();
  size_t pos = 0;
  while (!rc) {
    if (len - pos == 0 && have_schema) break; /* EOF between messages */
    if (len - pos < 4) {
      rc = corrupt(pos ? "truncated message" : "empty input");
      break;
    }
    uint32_t meta = (uint32_t)le(data + pos, 4);
    pos += 4;
    if (meta == 0xFFFFFFFFu) {
      if (len - pos < 4) {
        rc = corrupt("truncated message");
        break;
      }
      meta = (uint32_t)le(data + pos, 4);
      pos += 4;
    }
    if (meta == 0) {
      if (!have_schema) rc = corrupt("stream ends before its schema");
      break;
    }
    if (meta > len - pos) {
      rc = corrupt("truncated message");
      break;
    }
    fbr r = {data + pos, meta, 0};
    pos += meta;
    fbt msg = fb_table_at(&r, (size_t)rd(&r, 0, 4));
    int64_t type = fb_int(&r, &msg, MSG_HEADER_TYPE, 1, 0);
    int64_t body_len = fb_int(&r, &msg, MSG_BODY_LENGTH, 8, 0);
    size_t hpos = fb_ref(&r, &msg, MSG_HEADER);
    fbt header = hpos ? fb_table_at(&r, hpos) : msg;
    if (r.bad || !hpos || body_len < 0 || (uint64_t)body_len > len - pos) {
      rc = corrupt(r.bad || !hpos ? "bad message header" : "truncated message body");
      break;
    }
    const uint8_t *body = data + pos;
    pos += (size_t)body_len;
    if (type == H_SCHEMA && !have_schema) {
      rc = read_schema(p, &r, &header);
      have_schema = 1;
    } else if (type == H_RECORD_BATCH && have_schema) {
      rc = read_batch(p, &r, &header, body, (uint64_t)body_len);
    } else if (type == H_DICTIONARY) {
      rc = delta_error_set(DELTA_EUNSUPPORTED, "arrow ipc: dictionary batches are not supported");
    } else {
      rc = corrupt(have_schema ? "unexpected message" : "stream does not start with a schema");
    }
  }
  if (rc) {
    out->private_data = p;
    stream_release(out);
    return rc;
  }
  out->private_data = p;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  return 0;
}
