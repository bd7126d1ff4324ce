/* Record assembly; see assemble.h.
 *
 * For every level entry of a leaf, each node on the leaf's path either gets
 * a new slot (when the entry's repetition level is at most the level of the
 * list enclosing the node) or continues its current one. A list or map whose
 * element is not defined stops the walk; a null struct does not, because
 * Arrow gives a struct's children a slot for every struct slot. Nodes shared
 * by several leaves (structs, lists of structs) are built from the first
 * selected leaf below them only. */
#include "parquet/assemble.h"

#include <string.h>

#include "arrow/array.h"
#include "util/alloc_internal.h"
#include "util/bytes.h"
#include "util/error_internal.h"

typedef struct {
  delta_buf valid;     /* uint8 per slot, nullable nodes only */
  delta_buf present;   /* leaves: uint8 per slot, 1 when a dense value fills it */
  delta_buf offsets;   /* lists/maps: int32 start per slot */
  int64_t slots, nulls, present_count;
  int owner;           /* leaf index that builds this node, -1 when unselected */
} node_build;

struct pq_assembler {
  const pq_schema *s;
  const bool *selected;
  node_build *nb;      /* by node id */
};

static int first_owner(pq_assembler *a, const pq_node *n) {
  int owner = -1;
  if (n->kind == PQN_LEAF) {
    owner = (!a->selected || a->selected[n->leaf_index]) ? n->leaf_index : -1;
  } else {
    for (int i = 0; i < n->n_children; i++) {
      int o = first_owner(a, n->children[i]);
      if (owner < 0) owner = o;
    }
  }
  a->nb[n->id].owner = owner;
  return owner;
}

int pq_assembler_new(pq_assembler **out, const pq_schema *s, const bool *selected) {
  pq_assembler *a = mem_calloc(1, sizeof *a);
  if (!a) return DELTA_NOMEM();
  a->s = s;
  a->selected = selected;
  a->nb = mem_calloc((size_t)s->n_nodes, sizeof *a->nb);
  if (!a->nb) {
    mem_free(a);
    return DELTA_NOMEM();
  }
  first_owner(a, s->root);
  *out = a;
  return 0;
}

void pq_assembler_free(pq_assembler *a) {
  if (!a) return;
  for (int i = 0; i < a->s->n_nodes; i++) {
    buf_dispose(&a->nb[i].valid);
    buf_dispose(&a->nb[i].present);
    buf_dispose(&a->nb[i].offsets);
  }
  mem_free(a->nb);
  mem_free(a);
}

static void reset_builds(pq_assembler *a) {
  for (int i = 0; i < a->s->n_nodes; i++) {
    node_build *b = &a->nb[i];
    b->valid.len = b->present.len = b->offsets.len = 0;
    b->slots = b->nulls = b->present_count = 0;
  }
}

/* Leaves read in Arrow layout: one slot per record on every node of the
 * path, none of them optional but the leaf. */
static void levels_arrow(pq_assembler *a, const pq_node *leaf, const pq_node **path, int depth,
                         const pq_col_batch *cb) {
  for (int k = 0; k < depth; k++) {
    node_build *b = &a->nb[path[k]->id];
    if (b->owner == leaf->leaf_index) b->slots = cb->n_levels;
  }
  node_build *lb = &a->nb[leaf->id];
  lb->nulls = cb->n_levels - cb->n_values;
  lb->present_count = cb->n_values;
}

/* Leaves without repetition: one slot per entry on every node of the path. */
static int levels_flat(pq_assembler *a, const pq_node *leaf, const pq_node **path, int depth,
                       const pq_col_batch *cb) {
  int64_t n = cb->n_levels;
  const uint16_t *def = leaf->max_def ? (const uint16_t *)(const void *)cb->def.data : NULL;
  for (int k = 0; k < depth; k++) {
    const pq_node *nd = path[k];
    node_build *b = &a->nb[nd->id];
    bool own = b->owner == leaf->leaf_index;
    if (own) {
      b->slots = n;
      if (nd->nullable) {
        int rc = buf_reserve(&b->valid, (size_t)n);
        if (rc) return rc;
        uint8_t *v = b->valid.data;
        uint16_t dn = (uint16_t)nd->def_null;
        int64_t nulls = 0;
        for (int64_t i = 0; i < n; i++) {
          v[i] = def[i] >= dn;
          nulls += !v[i];
        }
        b->valid.len = (size_t)n;
        b->nulls = nulls;
      }
    }
    if (nd->kind == PQN_LEAF) {
      if (!def) {
        b->present_count = n;
      } else if (nd->nullable && nd->def_null == leaf->max_def) {
        /* A nullable leaf is present exactly where it is valid: share the flags. */
        int rc = buf_reserve(&b->present, (size_t)n);
        if (rc) return rc;
        memcpy(b->present.data, b->valid.data, (size_t)n);
        b->present.len = (size_t)n;
        b->present_count = n - b->nulls;
      } else {
        int rc = buf_reserve(&b->present, (size_t)n);
        if (rc) return rc;
        uint8_t *p = b->present.data;
        uint16_t md = (uint16_t)leaf->max_def;
        int64_t cnt = 0;
        for (int64_t i = 0; i < n; i++) {
          p[i] = def[i] >= md;
          cnt += p[i];
        }
        b->present.len = (size_t)n;
        b->present_count = cnt;
      }
    }
  }
  return 0;
}

static int push_u8(delta_buf *b, uint8_t v) { return buf_putc(b, (char)v); }

static int levels_nested(pq_assembler *a, const pq_node *leaf, const pq_node **path, int depth,
                         const pq_col_batch *cb) {
  int64_t n = cb->n_levels;
  const uint16_t *def = leaf->max_def ? (const uint16_t *)(const void *)cb->def.data : NULL;
  const uint16_t *rep = (const uint16_t *)(const void *)cb->rep.data;
  node_build *lb = &a->nb[leaf->id];
  int rc = buf_reserve(&lb->present, (size_t)n);
  if (rc) return rc;
  for (int64_t i = 0; i < n; i++) {
    int d = def ? def[i] : 0, r = rep[i];
    for (int k = 0; k < depth; k++) {
      const pq_node *nd = path[k];
      if (r <= nd->rep_enc) {
        node_build *b = &a->nb[nd->id];
        if (b->owner == leaf->leaf_index) {
          if (nd->nullable) {
            uint8_t v = d >= nd->def_null;
            if ((rc = push_u8(&b->valid, v)) != 0) return rc;
            b->nulls += !v;
          }
          if (nd->kind == PQN_LIST || nd->kind == PQN_MAP) {
            int64_t start = a->nb[nd->children[0]->id].slots;
            if (start > INT32_MAX) return err_set(DELTA_ELIMIT, "list offsets exceed 32 bits in one batch");
            int32_t s32 = (int32_t)start;
            if ((rc = buf_append(&b->offsets, &s32, 4)) != 0) return rc;
          }
          b->slots++;
        }
        if (nd->kind == PQN_LEAF) {
          uint8_t p = d >= leaf->max_def;
          lb->present.data[lb->present.len++] = p;
          lb->present_count += p;
        }
      }
      if ((nd->kind == PQN_LIST || nd->kind == PQN_MAP) && d < nd->def_elem) break;
    }
  }
  return 0;
}

static int leaf_levels(pq_assembler *a, const pq_node *leaf, const pq_col_batch *cb) {
  const pq_node *path[66];
  int depth = 0;
  for (const pq_node *p = leaf; p->parent; p = p->parent) {
    if (depth == 66) return err_set(DELTA_EUNSUPPORTED, "schema too deep");
    path[depth++] = p;
  }
  for (int i = 0; i < depth / 2; i++) {
    const pq_node *t = path[i];
    path[i] = path[depth - 1 - i];
    path[depth - 1 - i] = t;
  }
  if (cb->flat) {
    levels_arrow(a, leaf, path, depth, cb);
    return 0;
  }
  if (leaf->max_rep == 0) return levels_flat(a, leaf, path, depth, cb);
  return levels_nested(a, leaf, path, depth, cb);
}

/* Pack uint8 0/1 flags into an Arrow bitmap (allocated). */
static uint8_t *pack_bits(const uint8_t *flags, int64_t n) {
  size_t bytes = (size_t)(n + 7) / 8;
  uint8_t *bits = mem_malloc(bytes ? bytes : 1);
  if (!bits) return NULL;
  int64_t i = 0;
  size_t o = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, flags + i, 8);
    /* Each byte is 0 or 1: gather the low bits into one byte. */
    bits[o++] = (uint8_t)((w * 0x0102040810204080ULL) >> 56);
  }
  if (i < n) {
    uint8_t b = 0;
    for (int j = 0; i < n; i++, j++) b |= (uint8_t)(flags[i] << j);
    bits[o] = b;
  }
  return bits;
}

/* Sign-extend a big-endian two's complement integer into a little-endian
 * integer of out_w bytes. */
static int decimal_from_be(const uint8_t *src, int32_t len, uint8_t *dst, int out_w) {
  uint8_t fill = (len > 0 && (src[0] & 0x80)) ? 0xff : 0x00;
  if (len > out_w) {
    /* Extra leading bytes must only repeat the sign. */
    for (int32_t i = 0; i < len - out_w; i++)
      if (src[i] != fill) return err_set(DELTA_ECORRUPT, "decimal value wider than its precision");
    src += len - out_w;
    len = out_w;
  }
  for (int32_t i = 0; i < len; i++) dst[i] = src[len - 1 - i];
  memset(dst + len, fill, (size_t)(out_w - len));
  return 0;
}

#define JULIAN_UNIX_EPOCH 2440588LL

/* Convert one dense value (physical form) at src into the Arrow form at dst. */
static int convert_one(const pq_node *leaf, const uint8_t *src, uint8_t *dst) {
  switch (leaf->conv) {
  case PQC_I32_TO_I8: {
    int32_t v;
    memcpy(&v, src, 4);
    dst[0] = (uint8_t)v;
    return 0;
  }
  case PQC_I32_TO_I16: {
    int32_t v;
    memcpy(&v, src, 4);
    int16_t s = (int16_t)v;
    memcpy(dst, &s, 2);
    return 0;
  }
  case PQC_DEC_I32:
  case PQC_DEC_I64: {
    int64_t v;
    if (leaf->conv == PQC_DEC_I32) {
      int32_t v32;
      memcpy(&v32, src, 4);
      v = v32;
    } else {
      memcpy(&v, src, 8);
    }
    memcpy(dst, &v, 8);
    memset(dst + 8, v < 0 ? 0xff : 0, (size_t)leaf->out_width - 8);
    return 0;
  }
  case PQC_DEC_BE:
    return decimal_from_be(src, leaf->type_length, dst, leaf->out_width);
  case PQC_INT96_TS: {
    uint64_t nanos = bytes_load_le64(src);
    int32_t day = (int32_t)bytes_load_le32(src + 8);
    int64_t us = ((int64_t)day - JULIAN_UNIX_EPOCH) * 86400000000LL + (int64_t)(nanos / 1000);
    memcpy(dst, &us, 8);
    return 0;
  }
  default:
    return err_set(DELTA_ERROR, "internal: bad conversion");
  }
}

/* A buffer of a flat batch becomes the array's. */
static int take_buffer(struct ArrowArray *out, int i, delta_buf *b) {
  uint8_t *data = buf_detach(b);
  if (!data && !(data = mem_malloc(1))) return DELTA_NOMEM();
  arrow_array_set_buffer(out, i, data);
  return 0;
}

/* Flat batches are in Arrow layout already: their buffers are handed over. */
static int build_arrow_leaf(const pq_node *leaf, node_build *b, pq_col_batch *cb, struct ArrowArray *out) {
  bool binary = leaf->conv == PQC_BINARY;
  int rc = arrow_array_new(out, binary ? 3 : 2, 0);
  if (rc) return rc;
  out->length = b->slots;
  if (b->nulls > 0) {
    if ((rc = take_buffer(out, 0, &cb->valid)) != 0) goto fail;
    out->null_count = b->nulls;
  }
  if (binary) {
    if ((rc = take_buffer(out, 1, &cb->bin.offsets)) != 0) goto fail;
    rc = take_buffer(out, 2, &cb->bin.data);
  } else {
    rc = take_buffer(out, 1, &cb->values);
  }
  if (rc) goto fail;
  return 0;
fail:
  arrow_array_release(out);
  return rc;
}

static int build_leaf(const pq_node *leaf, node_build *b, pq_col_batch *cb, struct ArrowArray *out) {
  int64_t n = b->slots;
  bool all_present = b->present_count == n;
  const uint8_t *present = b->present.data;
  if (cb->n_values != b->present_count)
    return err_set(DELTA_ECORRUPT, "column has %lld values where its levels say %lld",
                           (long long)cb->n_values, (long long)b->present_count);
  if (cb->flat) return build_arrow_leaf(leaf, b, cb, out);
  bool binary = leaf->conv == PQC_BINARY || (leaf->conv == PQC_DEC_BE && leaf->physical == PQ_BYTE_ARRAY);
  int rc = arrow_array_new(out, (leaf->conv == PQC_BINARY) ? 3 : 2, 0);
  if (rc) return rc;
  out->length = n;
  if (leaf->nullable && b->nulls > 0) {
    uint8_t *bits = pack_bits(b->valid.data, n);
    if (!bits) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    arrow_array_set_buffer(out, 0, bits);
    out->null_count = b->nulls;
  }
  if (leaf->conv == PQC_BINARY) {
    const int32_t *doff = (const int32_t *)(const void *)cb->bin.offsets.data;
    int32_t *off;
    if (all_present) {
      off = (int32_t *)(void *)buf_detach(&cb->bin.offsets);
    } else {
      off = mem_malloc(((size_t)n + 1) * 4);
      if (!off) {
        rc = DELTA_NOMEM();
        goto fail;
      }
      off[0] = 0;
      int64_t j = 0;
      for (int64_t i = 0; i < n; i++) {
        if (present[i]) j++;
        off[i + 1] = doff[j];
      }
    }
    arrow_array_set_buffer(out, 1, off);
    uint8_t *data = buf_detach(&cb->bin.data);
    if (!data && !(data = mem_malloc(1))) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    arrow_array_set_buffer(out, 2, data);
    return 0;
  }
  if (leaf->conv == PQC_BOOL) {
    uint8_t *bits = mem_calloc((size_t)(n + 7) / 8 + 1, 1);
    if (!bits) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    const uint8_t *v = cb->values.data;
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
      if (all_present || present[i]) {
        if (v[j]) arrow_bit_set(bits, i);
        j++;
      }
    }
    arrow_array_set_buffer(out, 1, bits);
    return 0;
  }
  int w = leaf->out_width;
  if (leaf->conv == PQC_COPY || leaf->conv == PQC_FIXED) {
    if (all_present) {
      uint8_t *data = buf_detach(&cb->values);
      if (!data && !(data = mem_malloc(1))) {
        rc = DELTA_NOMEM();
        goto fail;
      }
      arrow_array_set_buffer(out, 1, data);
      return 0;
    }
    uint8_t *data = mem_malloc((size_t)n * (size_t)w + 1);
    if (!data) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    const uint8_t *src = cb->values.data;
    if (w == 4) {
      uint32_t *o = (uint32_t *)(void *)data;
      const uint32_t *s = (const uint32_t *)(const void *)src;
      int64_t j = 0; /* index, not pointer steps: s is NULL when every slot is null */
      for (int64_t i = 0; i < n; i++) {
        o[i] = present[i] ? s[j] : 0;
        j += present[i];
      }
    } else if (w == 8) {
      uint64_t *o = (uint64_t *)(void *)data;
      const uint64_t *s = (const uint64_t *)(const void *)src;
      int64_t j = 0; /* index, not pointer steps: s is NULL when every slot is null */
      for (int64_t i = 0; i < n; i++) {
        o[i] = present[i] ? s[j] : 0;
        j += present[i];
      }
    } else {
      for (int64_t i = 0; i < n; i++) {
        if (present[i]) {
          memcpy(data + i * w, src, (size_t)w);
          src += w;
        } else {
          memset(data + i * w, 0, (size_t)w);
        }
      }
    }
    arrow_array_set_buffer(out, 1, data);
    return 0;
  }
  /* Converting leaves: one value at a time. */
  uint8_t *data = mem_calloc((size_t)n * (size_t)w + 1, 1);
  if (!data) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  arrow_array_set_buffer(out, 1, data);
  if (binary) {
    const int32_t *doff = (const int32_t *)(const void *)cb->bin.offsets.data;
    const uint8_t *bytes = cb->bin.data.data;
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
      if (!all_present && !present[i]) continue;
      rc = decimal_from_be(bytes + doff[j], doff[j + 1] - doff[j], data + i * w, w);
      if (rc) goto fail;
      j++;
    }
    return 0;
  }
  int in_w = leaf->physical == PQ_INT32 ? 4 : leaf->physical == PQ_INT64 ? 8
             : leaf->physical == PQ_INT96 ? 12 : leaf->type_length;
  const uint8_t *src = cb->values.data;
  for (int64_t i = 0; i < n; i++) {
    if (!all_present && !present[i]) continue;
    rc = convert_one(leaf, src, data + i * w);
    if (rc) goto fail;
    src += in_w;
  }
  return 0;
fail:
  arrow_array_release(out);
  return rc;
}

static bool node_selected(const pq_assembler *a, const pq_node *n) { return a->nb[n->id].owner >= 0; }

static int build_node(pq_assembler *a, const pq_node *nd, pq_col_batch *batches, struct ArrowArray *out) {
  node_build *b = &a->nb[nd->id];
  if (nd->kind == PQN_LEAF) return build_leaf(nd, b, &batches[nd->leaf_index], out);
  int kids = 0;
  if (nd->kind == PQN_STRUCT) {
    for (int i = 0; i < nd->n_children; i++) kids += node_selected(a, nd->children[i]);
  } else {
    kids = 1;
  }
  int rc = arrow_array_new(out, nd->kind == PQN_STRUCT ? 1 : 2, kids);
  if (rc) return rc;
  out->length = b->slots;
  if (nd->nullable && b->nulls > 0) {
    uint8_t *bits = pack_bits(b->valid.data, b->slots);
    if (!bits) { rc = DELTA_NOMEM(); goto fail; }
    arrow_array_set_buffer(out, 0, bits);
    out->null_count = b->nulls;
  }
  if (nd->kind == PQN_STRUCT) {
    int j = 0;
    for (int i = 0; i < nd->n_children; i++) {
      const pq_node *c = nd->children[i];
      if (!node_selected(a, c)) continue;
      if (a->nb[c->id].slots != b->slots) {
        rc = err_set(DELTA_ECORRUPT, "columns of struct %s disagree on its length", nd->name);
        goto fail;
      }
      rc = build_node(a, c, batches, out->children[j++]);
      if (rc) goto fail;
    }
    return 0;
  }
  /* list or map: close the offsets with the child's length */
  const pq_node *c = nd->children[0];
  int64_t end = a->nb[c->id].slots;
  if (end > INT32_MAX) { rc = err_set(DELTA_ELIMIT, "list offsets exceed 32 bits in one batch"); goto fail; }
  int32_t e32 = (int32_t)end;
  if ((rc = buf_append(&b->offsets, &e32, 4)) != 0) goto fail;
  if (b->offsets.len != (size_t)(b->slots + 1) * 4) {
    rc = err_set(DELTA_ECORRUPT, "list %s: inconsistent levels", nd->name);
    goto fail;
  }
  void *off = mem_malloc(b->offsets.len);
  if (!off) { rc = DELTA_NOMEM(); goto fail; }
  memcpy(off, b->offsets.data, b->offsets.len);
  arrow_array_set_buffer(out, 1, off);
  rc = build_node(a, c, batches, out->children[0]);
  if (rc) goto fail;
  return 0;
fail:
  arrow_array_release(out);
  return rc;
}

int pq_assemble(pq_assembler *a, pq_col_batch *batches, int64_t n_records, struct ArrowArray *out) {
  const pq_schema *s = a->s;
  reset_builds(a);
  for (int i = 0; i < s->n_leaves; i++) {
    if (a->selected && !a->selected[i]) continue;
    const pq_col_batch *cb = &batches[i];
    if (cb->n_records != n_records)
      return err_set(DELTA_ECORRUPT, "column %s has %lld rows in a batch of %lld",
                             s->leaves[i]->name, (long long)cb->n_records, (long long)n_records);
    int rc = leaf_levels(a, s->leaves[i], cb);
    if (rc) return rc;
  }
  int kids = 0;
  for (int i = 0; i < s->root->n_children; i++) kids += node_selected(a, s->root->children[i]);
  int rc = arrow_array_new(out, 1, kids);
  if (rc) return rc;
  out->length = n_records;
  int j = 0;
  for (int i = 0; i < s->root->n_children; i++) {
    const pq_node *c = s->root->children[i];
    if (!node_selected(a, c)) continue;
    if (a->nb[c->id].slots != n_records) {
      rc = err_set(DELTA_ECORRUPT, "column %s has %lld rows, expected %lld", c->name,
                           (long long)a->nb[c->id].slots, (long long)n_records);
      goto fail;
    }
    rc = build_node(a, c, batches, out->children[j++]);
    if (rc) goto fail;
  }
  return 0;
fail:
  arrow_array_release(out);
  return rc;
}
