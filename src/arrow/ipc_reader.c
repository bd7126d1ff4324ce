/* The Arrow IPC stream reader: message framing over a read callback, the
 * Schema message, DictionaryBatch bookkeeping, and the ArrowArrayStream
 * handed out (record batches are decoded in ipc_batch.c). */
#include "arrow/ipc_reader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arrow/ipc_read_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* ------------------------------------------------------------------ */
/* Schema → ArrowSchema, with a layout tree for decoding batches.      */

/* One ArrowSchema node's memory: the strings and the children arrays. */
typedef struct {
  char *format, *name, *metadata;
  struct ArrowSchema **kids;
} schema_priv;

static void schema_release(struct ArrowSchema *s) {
  schema_priv *p = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    if (s->children[i]->release) s->children[i]->release(s->children[i]);
    mem_free(s->children[i]);
  }
  if (p) {
    mem_free(p->format);
    mem_free(p->name);
    mem_free(p->metadata);
    mem_free(p->kids);
    mem_free(p);
  }
  s->release = NULL;
}

static void lnode_free(lnode *n) {
  for (int64_t i = 0; i < n->n_children; i++) lnode_free(&n->children[i]);
  mem_free(n->children);
  memset(n, 0, sizeof *n);
}

int ipc_corrupt(const char *what) {
  return err_set(DELTA_ECORRUPT, "arrow ipc: malformed stream: %s", what);
}

static char *fb_strdup(fbr *r, const fbt *t, int id) {
  size_t start, n = fb_vector(r, t, id, 1, &start);
  if (r->bad) return NULL;
  return mem_strndup(n ? (const char *)r->p + start : "", n);
}

/* custom_metadata → the C Data Interface's length-prefixed pairs. */
static int read_metadata(fbr *r, const fbt *t, int id, char **out) {
  size_t start, n = fb_vector(r, t, id, 4, &start);
  *out = NULL;
  if (!n) return r->bad ? ipc_corrupt("bad metadata vector") : 0;
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
        if (r->bad || len > INT32_MAX) return ipc_corrupt("bad metadata entry");
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
    if (!pass && !(*out = mem_malloc(total))) return DELTA_NOMEM();
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
  return err_set(DELTA_EUNSUPPORTED, "arrow ipc: field \"%s\": %s is not supported", name,
                         type);
}

/* The Type union member of field `f` → a C format string in `fmt` and the
 * layout `n`; `want` gets the number of children the type needs (-1: any). */
static int read_type(fbr *r, const fbt *f, const char *name, char *fmt, size_t cap, lnode *n,
                     int64_t *want) {
  int64_t type = fb_int(r, f, FIELD_TYPE_TYPE, 1, 0);
  size_t tpos = fb_ref(r, f, FIELD_TYPE);
  if (r->bad || !tpos) return ipc_corrupt("field without a type");
  fbt t = fb_table_at(r, tpos);
  if (r->bad) return ipc_corrupt("bad type table");
  const char *u;
  *want = 0;
  n->kind = L_FIXED;
  switch (type) {
  case T_NULL: n->kind = L_NULL; snprintf(fmt, cap, "n"); break;
  case T_BOOL: n->kind = L_BOOL; snprintf(fmt, cap, "b"); break;
  case T_INT: {
    int64_t bits = fb_int(r, &t, 0, 4, 0), sgn = fb_int(r, &t, 1, 1, 0);
    const char *c = bits == 8 ? "cC" : bits == 16 ? "sS" : bits == 32 ? "iI" : bits == 64 ? "lL" : NULL;
    if (!c) return ipc_corrupt("bad integer width");
    snprintf(fmt, cap, "%c", c[sgn ? 0 : 1]);
    n->width = bits / 8;
    break;
  }
  case T_FLOAT: {
    int64_t prec = fb_int(r, &t, 0, 2, 0);
    if (prec < 0 || prec > 2) return ipc_corrupt("bad floating point precision");
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
    if (bits != 128 && bits != 256) return ipc_corrupt("bad decimal width");
    if (p < 1 || p > (bits == 128 ? 38 : 76) || s > p || s < -p) return ipc_corrupt("bad decimal precision or scale");
    snprintf(fmt, cap, bits == 128 ? "d:%lld,%lld" : "d:%lld,%lld,256", (long long)p, (long long)s);
    n->width = bits / 8;
    break;
  }
  case T_DATE: {
    int64_t unit = fb_int(r, &t, 0, 2, 1);
    if (unit != 0 && unit != 1) return ipc_corrupt("bad date unit");
    snprintf(fmt, cap, unit ? "tdm" : "tdD");
    n->width = unit ? 8 : 4;
    break;
  }
  case T_TIME: {
    int64_t unit = fb_int(r, &t, 0, 2, 1);
    if (!(u = unit_char(unit))) return ipc_corrupt("bad time unit");
    snprintf(fmt, cap, "tt%s", u);
    n->width = unit <= 1 ? 4 : 8;
    break;
  }
  case T_TIMESTAMP: {
    if (!(u = unit_char(fb_int(r, &t, 0, 2, 0)))) return ipc_corrupt("bad timestamp unit");
    char *tz = fb_strdup(r, &t, 1);
    if (!tz) return r->bad ? ipc_corrupt("bad time zone") : DELTA_NOMEM();
    snprintf(fmt, cap, "ts%s:%s", u, tz);
    mem_free(tz);
    n->width = 8;
    break;
  }
  case T_DURATION:
    if (!(u = unit_char(fb_int(r, &t, 0, 2, 1)))) return ipc_corrupt("bad duration unit");
    snprintf(fmt, cap, "tD%s", u);
    n->width = 8;
    break;
  case T_INTERVAL: {
    int64_t unit = fb_int(r, &t, 0, 2, 0);
    if (unit < 0 || unit > 2) return ipc_corrupt("bad interval unit");
    snprintf(fmt, cap, "ti%c", "MDn"[unit]);
    n->width = unit == 0 ? 4 : unit == 1 ? 8 : 16;
    break;
  }
  case T_FSB: {
    int64_t w = fb_int(r, &t, 0, 4, 0);
    if (w < 1) return ipc_corrupt("bad fixed-size binary width");
    snprintf(fmt, cap, "w:%lld", (long long)w);
    n->width = w;
    break;
  }
  case T_LIST: n->kind = L_LIST; *want = 1; snprintf(fmt, cap, "+l"); break;
  case T_LARGE_LIST: n->kind = L_LARGE_LIST; *want = 1; snprintf(fmt, cap, "+L"); break;
  case T_MAP: n->kind = L_LIST; *want = 1; snprintf(fmt, cap, "+m"); break;
  case T_FSL: {
    int64_t w = fb_int(r, &t, 0, 4, 0);
    if (w < 0) return ipc_corrupt("bad fixed-size list size");
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
  default: return ipc_corrupt("unknown type");
  }
  return 0;
}

static int read_field(fbr *r, const fbt *f, struct ArrowSchema *s, lnode *n, int depth);

/* The children of `parent` (a Field or the Schema: vector field `id`). */
static int read_children(fbr *r, const fbt *parent, int id, struct ArrowSchema *s, lnode *n,
                         int depth) {
  size_t start, count = fb_vector(r, parent, id, 4, &start);
  schema_priv *p = s->private_data;
  if (r->bad) return ipc_corrupt("bad children vector");
  if (!count) return 0;
  p->kids = mem_calloc(count, sizeof *p->kids);
  n->children = mem_calloc(count, sizeof *n->children);
  if (!p->kids || !n->children) return DELTA_NOMEM();
  s->children = p->kids;
  n->n_children = (int64_t)count;
  for (size_t i = 0; i < count; i++) {
    if (!(p->kids[i] = mem_calloc(1, sizeof **p->kids))) return DELTA_NOMEM();
    s->n_children = (int64_t)i + 1;
    fbt c = fb_vector_table(r, start, i);
    if (r->bad) return ipc_corrupt("bad field table");
    int rc = read_field(r, &c, p->kids[i], &n->children[i], depth + 1);
    if (rc) return rc;
  }
  return 0;
}

/* Fill `s` (zeroed; released by the caller also on failure) from Field `f`. */
static int read_field(fbr *r, const fbt *f, struct ArrowSchema *s, lnode *n, int depth) {
  char fmt[160];
  int64_t want;
  schema_priv *p = mem_calloc(1, sizeof *p);
  if (!p) return DELTA_NOMEM();
  s->private_data = p;
  s->release = schema_release;
  if (depth > MAX_DEPTH) return err_set(DELTA_ELIMIT, "arrow ipc: schema nested deeper than %d", MAX_DEPTH);
  if (!(p->name = fb_strdup(r, f, FIELD_NAME))) return r->bad ? ipc_corrupt("bad field name") : DELTA_NOMEM();
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
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return ipc_corrupt("bad dictionary index width");
      n->index_width = (int)(bits / 8);
      n->index_signed = fb_int(r, &it, 1, 1, 0) != 0;
    }
    if (r->bad) return ipc_corrupt("bad dictionary encoding");
  }
  n->schema = s;
  int rc;
  if ((rc = read_type(r, f, p->name, fmt, sizeof fmt, n, &want)) != 0) return rc;
  if ((rc = read_children(r, f, FIELD_CHILDREN, s, n, depth)) != 0) return rc;
  if ((rc = read_metadata(r, f, FIELD_METADATA, &p->metadata)) != 0) return rc;
  if (!(p->format = mem_strdup(fmt))) return DELTA_NOMEM();
  s->format = p->format;
  s->metadata = p->metadata;
  if (fb_int(r, f, FIELD_NULLABLE, 1, 0)) s->flags |= ARROW_FLAG_NULLABLE;
  if (want >= 0 && s->n_children != want) return ipc_corrupt("wrong number of child fields");
  if (strcmp(fmt, "+m") == 0) {
    const struct ArrowSchema *e = s->children[0];
    if (strcmp(e->format, "+s") != 0 || e->n_children != 2) return ipc_corrupt("map entries are not a key/value struct");
    fbt t = fb_table_at(r, fb_ref(r, f, FIELD_TYPE));
    if (fb_int(r, &t, 0, 1, 0)) s->flags |= ARROW_FLAG_MAP_KEYS_SORTED;
  }
  return r->bad ? ipc_corrupt("bad field") : 0;
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
      ipc_dict_clear(&p->dicts.dicts[i]);
      mem_free(p->dicts.dicts[i].chunks);
      mem_free(p->dicts.dicts[i].starts);
    }
    mem_free(p->dicts.dicts);
    mem_free(p->meta);
    mem_free(p->body);
    if (p->close_ctx) p->close_ctx(p->ctx);
    mem_free(p->name);
    mem_free(p);
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
  if (need > SIZE_MAX - 8) return ipc_corrupt("message too large");
  while (have < need) {
    if (*cap < need && *cap <= have) {
      uint64_t want = have < ((uint64_t)1 << 20) ? (uint64_t)1 << 20 : 2 * have;
      if (want > need) want = need;
      uint8_t *m = mem_realloc(*buf, (size_t)want + 8);
      if (!m) return DELTA_NOMEM();
      *buf = m;
      *cap = (size_t)want;
    }
    uint64_t chunk = (*cap < need ? *cap : need) - have;
    int64_t k = read_full(p, *buf + have, (size_t)chunk);
    if (k < 0) return (int)k;
    have += (uint64_t)k;
    if ((uint64_t)k < chunk) return ipc_corrupt("truncated message");
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
  if (k < 4) return ipc_corrupt(k || have_schema ? "truncated message" : "empty input");
  uint32_t meta = (uint32_t)le(pre, 4);
  if (meta == 0xFFFFFFFFu) {
    if ((k = read_full(p, pre, 4)) < 0) return (int)k;
    if (k < 4) return ipc_corrupt("truncated message");
    meta = (uint32_t)le(pre, 4);
  }
  if (meta == 0) return have_schema ? 0 : ipc_corrupt("stream ends before its schema");
  int rc = read_grow(p, &p->meta, &p->meta_cap, meta);
  if (rc) return rc;
  fbr r = {p->meta, meta, 0};
  fbt msg = fb_table_at(&r, (size_t)rd(&r, 0, 4));
  int64_t type = fb_int(&r, &msg, MSG_HEADER_TYPE, 1, 0);
  int64_t body_len = fb_int(&r, &msg, MSG_BODY_LENGTH, 8, 0);
  size_t hpos = fb_ref(&r, &msg, MSG_HEADER);
  fbt header = hpos ? fb_table_at(&r, hpos) : msg;
  if (r.bad || !hpos || body_len < 0) return ipc_corrupt(r.bad || !hpos ? "bad message header" : "bad body length");
  if ((rc = read_grow(p, &p->body, &p->body_cap, (uint64_t)body_len))) return rc;
  if (type != H_SCHEMA && type != H_DICTIONARY && type != H_RECORD_BATCH) return ipc_corrupt("unknown message type");
  m->type = type;
  m->r = r;
  m->header = header;
  m->body = p->body;
  m->body_len = (uint64_t)body_len;
  return 0;
}

/* Deep-copy a schema tree (get_schema hands the consumer its own). */
static int schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst) {
  schema_priv *p = mem_calloc(1, sizeof *p);
  memset(dst, 0, sizeof *dst);
  if (!p) return DELTA_NOMEM();
  dst->private_data = p;
  dst->release = schema_release;
  dst->flags = src->flags;
  if (!(dst->format = p->format = mem_strdup(src->format))) return DELTA_NOMEM();
  if (src->name && !(dst->name = p->name = mem_strdup(src->name))) return DELTA_NOMEM();
  if (src->metadata) {
    int32_t count;
    size_t len = 4;
    memcpy(&count, src->metadata, 4);
    for (int32_t i = 0; i < 2 * count; i++) {
      int32_t l;
      memcpy(&l, src->metadata + len, 4);
      len += 4 + (size_t)l;
    }
    if (!(p->metadata = mem_malloc(len))) return DELTA_NOMEM();
    memcpy(p->metadata, src->metadata, len);
    dst->metadata = p->metadata;
  }
  if (src->n_children) {
    if (!(p->kids = mem_calloc((size_t)src->n_children, sizeof *p->kids))) return DELTA_NOMEM();
    dst->children = p->kids;
    for (int64_t i = 0; i < src->n_children; i++) {
      if (!(p->kids[i] = mem_calloc(1, sizeof **p->kids))) return DELTA_NOMEM();
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
    if (ipc_dict_find(&p->dicts, n->dict_id)) return ipc_corrupt("two fields share a dictionary id");
    dict_entry *d = mem_realloc(p->dicts.dicts, (size_t)(p->dicts.n_dicts + 1) * sizeof *d);
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
    return err_set(DELTA_EUNSUPPORTED, "arrow ipc: big-endian streams are not supported");
  schema_priv *sp = mem_calloc(1, sizeof *sp);
  if (!sp) return DELTA_NOMEM();
  p->schema.private_data = sp;
  p->schema.release = schema_release;
  if (!(sp->format = mem_strdup("+s")) || !(sp->name = mem_strdup(""))) return DELTA_NOMEM();
  p->schema.format = sp->format;
  p->schema.name = sp->name;
  p->root.kind = L_STRUCT;
  int rc;
  if ((rc = read_children(r, schema, SCHEMA_FIELDS, &p->schema, &p->root, 0)) != 0) return rc;
  rc = read_metadata(r, schema, SCHEMA_METADATA, &sp->metadata);
  p->schema.metadata = sp->metadata; /* whatever was read: the release frees it */
  if (rc) return rc;
  return collect_dicts(p, &p->root);
}

static int read_batch(stream_priv *p, message *m, struct ArrowArray *a) {
  batch_ctx c;
  int64_t length;
  int rc;
  if ((rc = ipc_batch_begin(&c, &m->r, &m->header, m->body, m->body_len, &p->dicts, &length)) != 0) goto done;
  rc = ipc_read_struct(&c, &p->root, a, length);
done:
  ipc_batch_dispose(&c);
  return rc;
}

/* The one column of a DictionaryBatch, read through a batch context of its
 * own. */
static int read_dict_column(stream_priv *p, message *m, const fbt *rb, const lnode *node,
                            struct ArrowArray *col) {
  batch_ctx c;
  int64_t length;
  int rc;
  if ((rc = ipc_batch_begin(&c, &m->r, rb, m->body, m->body_len, &p->dicts, &length)) != 0) goto done;
  rc = ipc_read_values(&c, node, col, length);
done:
  ipc_batch_dispose(&c);
  return rc;
}

/* A DictionaryBatch: one column of the dictionary's value type, which
 * replaces the dictionary or (isDelta) is appended to it. */
static int read_dictionary(stream_priv *p, message *m) {
  fbr *r = &m->r;
  int64_t id = fb_int(r, &m->header, DB_ID, 8, 0);
  int delta = fb_int(r, &m->header, DB_IS_DELTA, 1, 0) != 0;
  size_t dpos = fb_ref(r, &m->header, DB_DATA);
  if (r->bad || !dpos) return ipc_corrupt("bad dictionary batch");
  fbt rb = fb_table_at(r, dpos);
  if (r->bad) return ipc_corrupt("bad dictionary batch");
  dict_entry *e = ipc_dict_find(&p->dicts, id);
  if (!e) return ipc_corrupt("dictionary batch for an id not in the schema");
  struct ArrowArray col;
  memset(&col, 0, sizeof col);
  int rc;
  if ((rc = read_dict_column(p, m, &rb, e->node, &col)) != 0) goto fail;
  if (delta && e->rows > INT64_MAX - col.length) {
    rc = ipc_corrupt("dictionary too long");
    goto fail;
  }
  if (e->n_chunks == e->cap) {
    int cap = e->cap ? 2 * e->cap : 2;
    struct ArrowArray *ch = mem_realloc(e->chunks, (size_t)cap * sizeof *ch);
    int64_t *st = ch ? mem_realloc(e->starts, (size_t)cap * sizeof *st) : NULL;
    if (ch) e->chunks = ch;
    if (st) e->starts = st;
    if (!ch || !st) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    e->cap = cap;
  }
  if (!delta) ipc_dict_clear(e); /* a replacement dictionary (stream format only) */
  e->starts[e->n_chunks] = e->rows;
  e->chunks[e->n_chunks++] = col;
  e->rows += col.length;
  return 0;
fail:
  if (col.release) col.release(&col);
  return rc;
}

/* The stream contract wants errno codes; EBADMSG marks a malformed stream
 * (the write path turns it back into DELTA_ECORRUPT). */
static int to_errno(int rc) {
  switch (rc) {
  case DELTA_ECORRUPT: return EBADMSG;
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
      rc = ipc_corrupt("unexpected message");
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
  stream_priv *p = mem_calloc(1, sizeof *p);
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
  message m;
  int rc;
  if (name && !(p->name = mem_strdup(name))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  if ((rc = next_message(p, 0, &m)) != 0) goto fail;
  if (m.type != H_SCHEMA) {
    rc = ipc_corrupt("stream does not start with a schema");
    goto fail;
  }
  if ((rc = read_schema(p, &m.r, &m.header)) != 0) goto fail;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  return 0;
fail:
  stream_release(out);
  return rc;
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

static void mem_close(void *ctx) { mem_free(ctx); }

int arrow_ipc_read(const uint8_t *data, size_t len, struct ArrowArrayStream *out) {
  mem_src *m = mem_calloc(1, sizeof *m);
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
    if (errno != EINTR) return err_set(DELTA_EIO, "reading %s failed: %s", f->name, strerror(errno));
  }
}

static void fd_close(void *ctx) {
  fd_src *f = ctx;
  if (f->own) close(f->fd);
  mem_free(f->name);
  mem_free(f);
}

int arrow_ipc_open_fd(int fd, int own_fd, const char *name, struct ArrowArrayStream *out) {
  fd_src *f = mem_calloc(1, sizeof *f);
  if (!f || !(f->name = mem_strdup(name ? name : "input"))) {
    mem_free(f);
    if (own_fd) close(fd);
    return DELTA_NOMEM();
  }
  f->fd = fd;
  f->own = own_fd;
  return arrow_ipc_open(fd_read, f, fd_close, name, out);
}
