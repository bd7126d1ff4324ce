/* Decoding a RecordBatch body into arrays that own 8-aligned copies of its
 * buffers: compressed bodies are decompressed first, dictionary-encoded
 * columns are taken through their dictionaries into plain arrays. */
#include <string.h>

#include "arrow/filter.h"
#include "arrow/ipc_read_internal.h"
#include "util/alloc_internal.h"
#include "util/codec.h"
#include "util/error_internal.h"

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
    mem_free(a->children[i]);
  }
  if (p) {
    for (int i = 0; i < 3; i++) mem_free(p->bufs[i]);
    mem_free(p->kids);
    mem_free(p);
  }
  mem_free((void *)a->buffers);
  a->release = NULL;
}

void ipc_batch_dispose(batch_ctx *c) {
  if (c->dec)
    for (size_t i = 0; i < c->n_bufs; i++) mem_free(c->dec[i]);
  mem_free(c->dec);
  mem_free(c->dec_len);
}

/* 8-aligned memory holding `len` bytes, its tail zeroed. */
static uint8_t *buffer_alloc(uint64_t len) {
  size_t alloc = (size_t)(len ? (len + 7) & ~(uint64_t)7 : 8);
  uint8_t *m = mem_malloc(alloc);
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
  if (c->r->bad) return ipc_corrupt("bad body compression");
  if (codec != IPC_CODEC_LZ4_FRAME && codec != IPC_CODEC_ZSTD)
    return err_set(DELTA_EUNSUPPORTED, "arrow ipc: body compression codec %lld is not supported", (long long)codec);
  if (method != 0)
    return err_set(DELTA_EUNSUPPORTED, "arrow ipc: body compression method %lld is not supported", (long long)method);
  c->dec = mem_calloc(c->n_bufs + 1, sizeof *c->dec);
  c->dec_len = mem_calloc(c->n_bufs + 1, sizeof *c->dec_len);
  if (!c->dec || !c->dec_len) return DELTA_NOMEM();
  c->size = 0;
  uint64_t limit = INFLATE_FLOOR + (INFLATE_RATIO + 1) * c->body_len;
  for (size_t i = 0; i < c->n_bufs; i++) {
    size_t at = c->bufs + 16 * i;
    uint64_t off = rd(c->r, at, 8), len = rd(c->r, at + 8, 8);
    if (c->r->bad || off > c->body_len || len > c->body_len - off) return ipc_corrupt("buffer outside the message body");
    if (len == 0) continue; /* an empty buffer has no length prefix */
    if (len < 8) return ipc_corrupt("compressed buffer without its length");
    const uint8_t *src = c->body + off + 8;
    int64_t want = (int64_t)le(c->body + off, 8);
    uint64_t n = len - 8, out = want == -1 ? n : (uint64_t)want;
    if (want < -1) return ipc_corrupt("bad uncompressed buffer length");
    /* the whole message together: many buffers may not each claim the floor */
    if (want != -1 && (out > INFLATE_FLOOR + INFLATE_RATIO * n || out > limit || c->size > limit - out))
      return err_set(DELTA_ELIMIT, "arrow ipc: a %llu-byte compressed buffer claims %llu bytes",
                             (unsigned long long)n, (unsigned long long)out);
    if (!(c->dec[i] = buffer_alloc(out))) return DELTA_NOMEM();
    c->dec_len[i] = out;
    c->size += out;
    int rc = 0;
    if (want == -1) memcpy(c->dec[i], src, (size_t)n);
    else if (codec == IPC_CODEC_ZSTD) rc = codec_decompress(CODEC_ZSTD, src, (size_t)n, c->dec[i], (size_t)out);
    else rc = codec_lz4_frame_decompress(src, (size_t)n, c->dec[i], (size_t)out);
    if (rc == DELTA_ECORRUPT) return ipc_corrupt(codec == IPC_CODEC_ZSTD ? "a ZSTD buffer does not decompress to its stated length"
                                                                  : "an LZ4 buffer does not decompress to its stated length");
    if (rc) return rc;
  }
  return 0;
}

/* Take the next body buffer (at least `need` bytes, else corrupt) as fresh
 * memory; zero-length buffers become an 8-byte zeroed block. */
static int take_buffer(batch_ctx *c, uint64_t need, void **out, uint64_t *got) {
  if (c->next_buf >= c->n_bufs) return ipc_corrupt("too few buffers");
  size_t i = c->next_buf++;
  uint64_t len;
  if (c->dec) {
    len = c->dec_len[i];
    if (len < need) return ipc_corrupt("buffer too short");
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
    if (c->r->bad || off > c->body_len || len > c->body_len - off) return ipc_corrupt("buffer outside the message body");
    if (len < need) return ipc_corrupt("buffer too short");
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
    if (v < prev || (uint64_t)v > limit) return ipc_corrupt("bad offsets");
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
  if (!(p->kids = mem_calloc((size_t)n->n_children, sizeof *p->kids))) return DELTA_NOMEM();
  a->children = p->kids;
  for (int64_t i = 0; i < n->n_children; i++) {
    if (!(p->kids[i] = mem_calloc(1, sizeof **p->kids))) return DELTA_NOMEM();
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
  dict_entry *e;
  uint64_t cost = 0;
  int rc;
  if ((rc = take_buffer(c, nulls ? ((uint64_t)length + 7) / 8 : 0, &valid, NULL)) != 0) goto done;
  if ((uint64_t)length > c->size / (uint64_t)n->index_width) {
    rc = ipc_corrupt("buffer too short");
    goto done;
  }
  if ((rc = take_buffer(c, (uint64_t)length * (uint64_t)n->index_width, &idx, NULL)) != 0) goto done;
  if (!(e = ipc_dict_find(c->dicts, n->dict_id))) {
    rc = ipc_corrupt("dictionary id not in the schema");
    goto done;
  }
  if (length && !e->n_chunks) {
    rc = ipc_corrupt("dictionary used before its DictionaryBatch");
    goto done;
  }
  if (!(refs = mem_malloc((size_t)length * sizeof *refs + 1))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int64_t i = 0; i < length; i++) {
    if (nulls && !((((const uint8_t *)valid)[i >> 3] >> (i & 7)) & 1)) {
      refs[i] = (arrow_row_ref){-1, 0};
      continue;
    }
    const uint8_t *q = (const uint8_t *)idx + (size_t)i * (size_t)n->index_width;
    uint64_t u = le(q, n->index_width);
    int shift = 64 - 8 * n->index_width;
    int64_t v = n->index_signed ? (shift ? (int64_t)(u << shift) >> shift : (int64_t)u) : (int64_t)u;
    if (v < 0 || v >= e->rows) {
      rc = ipc_corrupt("dictionary index out of range");
      goto done;
    }
    int k = e->n_chunks - 1;
    while (e->starts[k] > v) k--; /* deltas are few: a linear walk back */
    refs[i] = (arrow_row_ref){k, v - e->starts[k]};
    row_cost(n, &e->chunks[k], refs[i].row, c->expand_left, &cost);
    if (cost > c->expand_left) {
      rc = err_set(DELTA_ELIMIT, "arrow ipc: dictionary indices expand past %llu bytes",
                           (unsigned long long)(cost));
      goto done;
    }
  }
  c->expand_left -= cost;
  const struct ArrowArray *ins[1];
  const struct ArrowArray **chunks = e->n_chunks > 1 ? mem_malloc((size_t)e->n_chunks * sizeof *chunks) : ins;
  if (!chunks) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int k = 0; k < e->n_chunks; k++) chunks[k] = &e->chunks[k];
  /* arrow_take makes a fresh array: drop the placeholder the caller set */
  array_release(a);
  memset(a, 0, sizeof *a);
  rc = arrow_take(n->schema, chunks, e->n_chunks, refs, length, a);
  if (chunks != ins) mem_free(chunks);
done:
  mem_free(refs);
  mem_free(valid);
  mem_free(idx);
  return rc;
}

/* Decode the next FieldNode and its buffers into `a` (zeroed; released by
 * the caller also on failure); it must hold at least `min_len` values.
 * as_values: a dictionary field's own values (in a DictionaryBatch). */
static int read_array(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t min_len, int depth, int as_values) {
  array_priv *p = mem_calloc(1, sizeof *p);
  int rc;
  if (!p) return DELTA_NOMEM();
  a->private_data = p;
  a->release = array_release;
  if (depth > MAX_DEPTH) return ipc_corrupt("nested too deep");
  if (c->next_node >= c->n_nodes) return ipc_corrupt("too few field nodes");
  size_t at = c->nodes + 16 * c->next_node++;
  int64_t length = (int64_t)rd(c->r, at, 8), nulls = (int64_t)rd(c->r, at + 8, 8);
  if (c->r->bad || length < 0 || nulls < 0 || nulls > length || length < min_len)
    return ipc_corrupt("bad field node");
  if (too_many_rows(length, c->size))
    return err_set(DELTA_ELIMIT, "arrow ipc: an array claims %lld rows in a %llu-byte body",
                           (long long)length, (unsigned long long)c->size);
  if (n->dict && !as_values) return read_dict_indices(c, n, a, length, nulls);
  a->length = length;
  a->null_count = nulls;
  int nb = n->kind == L_NULL ? 0 : n->kind == L_FSL || n->kind == L_STRUCT ? 1
         : n->kind == L_BINARY || n->kind == L_LARGE_BINARY ? 3 : 2;
  a->n_buffers = nb;
  if (!(a->buffers = mem_calloc(3, sizeof *a->buffers))) return DELTA_NOMEM();
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
    if ((uint64_t)length > c->size / (uint64_t)n->width) return ipc_corrupt("buffer too short");
    rc = take_buffer(c, (uint64_t)length * (uint64_t)n->width, &p->bufs[1], NULL);
    break;
  case L_BINARY:
  case L_LARGE_BINARY:
  case L_LIST:
  case L_LARGE_LIST: {
    int large = n->kind == L_LARGE_BINARY || n->kind == L_LARGE_LIST;
    uint64_t w = large ? 8 : 4;
    if ((uint64_t)length >= c->size && length) return ipc_corrupt("buffer too short");
    if ((rc = take_buffer(c, length ? ((uint64_t)length + 1) * w : 0, &p->bufs[1], &got))) return rc;
    if (!got) { /* an empty array may leave its offsets out */
      mem_free(p->bufs[1]);
      if (!(p->bufs[1] = mem_calloc(1, 8))) return DELTA_NOMEM();
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
    if (n->width && length > INT64_MAX / n->width) return ipc_corrupt("list too long");
    rc = read_kids(c, n, a, length * n->width, depth);
    break;
  case L_STRUCT:
    rc = read_kids(c, n, a, length, depth);
    break;
  default:
    rc = ipc_corrupt("bad layout");
  }
  for (int i = 0; i < 3; i++) if (i && p->bufs[i]) a->buffers[i] = p->bufs[i];
  return rc;
}

dict_entry *ipc_dict_find(dict_set *d, int64_t id) {
  for (int i = 0; i < d->n_dicts; i++)
    if (d->dicts[i].id == id) return &d->dicts[i];
  return NULL;
}

void ipc_dict_clear(dict_entry *e) {
  for (int i = 0; i < e->n_chunks; i++)
    if (e->chunks[i].release) e->chunks[i].release(&e->chunks[i]);
  e->n_chunks = 0;
  e->rows = 0;
}

int ipc_batch_begin(batch_ctx *c, fbr *r, const fbt *rb, const uint8_t *body, uint64_t body_len, dict_set *dicts,
                    int64_t *length) {
  memset(c, 0, sizeof *c);
  c->r = r;
  c->body = body;
  c->body_len = c->size = body_len;
  c->dicts = dicts;
  c->n_nodes = fb_vector(c->r, rb, RB_NODES, 16, &c->nodes);
  c->n_bufs = fb_vector(c->r, rb, RB_BUFFERS, 16, &c->bufs);
  *length = fb_int(c->r, rb, RB_LENGTH, 8, 0);
  if (c->r->bad || *length < 0) return ipc_corrupt("bad record batch");
  if (fb_ref(c->r, rb, RB_COMPRESSION)) {
    int rc = decompress_body(c, rb);
    if (rc) return rc;
  }
  c->expand_left = EXPAND_FLOOR + (c->size > UINT64_MAX / 2 / EXPAND_RATIO ? UINT64_MAX / 2 : EXPAND_RATIO * c->size);
  if (too_many_rows(*length, c->size))
    return err_set(DELTA_ELIMIT, "arrow ipc: a batch claims %lld rows in a %llu-byte body",
                           (long long)*length, (unsigned long long)c->size);
  return 0;
}

int ipc_read_struct(batch_ctx *c, const lnode *root, struct ArrowArray *a, int64_t length) {
  array_priv *ap = mem_calloc(1, sizeof *ap);
  if (!ap) return DELTA_NOMEM();
  a->private_data = ap;
  a->release = array_release;
  a->length = length;
  a->n_buffers = 1;
  if (!(a->buffers = mem_calloc(1, sizeof *a->buffers))) return DELTA_NOMEM();
  return read_kids(c, root, a, length, 0);
}

int ipc_read_values(batch_ctx *c, const lnode *n, struct ArrowArray *a, int64_t length) {
  return read_array(c, n, a, length, 0, 1);
}
