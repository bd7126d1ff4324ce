/*
 * Shredding Arrow batches into leaf columns: definition and repetition
 * levels plus the non-null values of every leaf.
 *
 * Columns without lists or maps (plain leaves and structs of them) go
 * column by column: a leaf's definition level per row counts the present
 * nullable nodes on its path, and its values are copied in runs of present
 * slots. Columns with a list or map somewhere go row by row down the tree:
 * a null or empty node gives one level to every leaf below it, a list's
 * first element inherits the repetition level of its row and the others
 * take the list's own.
 */
#include <string.h>

#include "arrow/array.h"
#include "parquet/write_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MAX_CHAIN 66

typedef struct {
  const pqw_node *node;
  const struct ArrowArray *arr;
  int64_t base;  /* logical index in arr of the slice's first row */
} chain_entry;

static int64_t slice_rows(const pqw_writer *w, const pqw_leaf *l, int64_t left) {
  int64_t k = left;
  int64_t rows_room = w->opts.page_rows - l->page_rows;
  if (rows_room < 1) rows_room = 1;
  if (k > rows_room) k = rows_room;
  int64_t est = pqw_leaf_page_estimate(l);
  int64_t per_row = l->page_rows > 0 ? est / l->page_rows : 8;
  if (per_row < 1) per_row = 1;
  int64_t room = (w->opts.page_bytes - est) / per_row;
  if (room < 1) room = 1;
  if (k > room) k = room;
  if (k > 65536) k = 65536;
  return k;
}

static int grow_def_tmp(pqw_writer *w, size_t n) {
  if (n <= w->cap_def_tmp) return 0;
  uint16_t *p = mem_realloc(w->def_tmp, n * sizeof *p);
  if (!p) return DELTA_NOMEM();
  w->def_tmp = p;
  w->cap_def_tmp = n;
  return 0;
}

/* One leaf of a list-free column: rows [0, n) of the slice. */
static int flat_leaf(pqw_writer *w, const chain_entry *chain, int depth, int64_t n) {
  const chain_entry *le = &chain[depth - 1];
  pqw_leaf *l = le->node->leaf;
  bool any_null = false;
  for (int i = 0; i < depth; i++)
    if (chain[i].node->nullable && chain[i].arr->null_count != 0 && chain[i].arr->buffers[0]) any_null = true;
  int64_t done = 0;
  while (done < n) {
    int64_t k = slice_rows(w, l, n - done);
    int rc;
    if (!any_null) {
      if ((rc = pqw_leaf_levels(l, NULL, NULL, (size_t)k)) != 0) return rc;
      if ((rc = pqw_leaf_values(w, l, le->arr, le->base + done, k)) != 0) return rc;
    } else {
      if ((rc = grow_def_tmp(w, (size_t)k)) != 0) return rc;
      uint16_t *def = w->def_tmp;
      for (int64_t r = 0; r < k; r++) {
        uint16_t d = 0;
        for (int i = 0; i < depth; i++) {
          if (!chain[i].node->nullable) continue;
          if (!arrow_is_valid(chain[i].arr, chain[i].base + done + r)) break;
          d++;
        }
        def[r] = d;
      }
      if ((rc = pqw_leaf_levels(l, def, NULL, (size_t)k)) != 0) return rc;
      uint16_t max = (uint16_t)l->max_def;
      for (int64_t r = 0; r < k;) {
        if (def[r] != max) {
          r++;
          continue;
        }
        int64_t s = r;
        while (r < k && def[r] == max) r++;
        if ((rc = pqw_leaf_values(w, l, le->arr, le->base + done + s, r - s)) != 0) return rc;
      }
    }
    if ((rc = pqw_leaf_rows_done(w, l, k)) != 0) return rc;
    done += k;
  }
  return 0;
}

static int flat_node(pqw_writer *w, chain_entry *chain, int depth, int64_t n) {
  const chain_entry *e = &chain[depth - 1];
  if (e->node->kind == PQW_N_LEAF) return flat_leaf(w, chain, depth, n);
  for (int c = 0; c < e->node->n_children; c++) {
    if (depth >= MAX_CHAIN) return err_set(DELTA_EUNSUPPORTED, "parquet writer: nesting too deep");
    chain[depth].node = e->node->children[c];
    chain[depth].arr = e->arr->children[c];
    chain[depth].base = e->arr->offset + e->base;
    int rc = flat_node(w, chain, depth + 1, n);
    if (rc) return rc;
  }
  return 0;
}

static int emit_nulls(pqw_writer *w, const pqw_node *n, int16_t def, int16_t rep) {
  for (int i = 0; i < n->n_leaves; i++) {
    int rc = pqw_leaf_level1(w->leaves[n->first_leaf + i], (uint16_t)def, (uint16_t)rep);
    if (rc) return rc;
  }
  return 0;
}

/* Slot i (logical) of `a`, the array of node n, whose ancestors are present. */
static int emit(pqw_writer *w, const pqw_node *n, const struct ArrowArray *a, int64_t i, int16_t rep) {
  if (n->nullable && !arrow_is_valid(a, i)) return emit_nulls(w, n, (int16_t)(n->def - 1), rep);
  switch (n->kind) {
  case PQW_N_LEAF: {
    int rc = pqw_leaf_level1(n->leaf, (uint16_t)n->def, (uint16_t)rep);
    return rc ? rc : pqw_leaf_values(w, n->leaf, a, i, 1);
  }
  case PQW_N_STRUCT:
    for (int c = 0; c < n->n_children; c++) {
      int rc = emit(w, n->children[c], a->children[c], a->offset + i, rep);
      if (rc) return rc;
    }
    return 0;
  case PQW_N_LIST:
  case PQW_N_MAP: {
    int64_t j0, j1;
    if (n->large_offsets) {
      const int64_t *o = a->buffers[1];
      j0 = o[a->offset + i], j1 = o[a->offset + i + 1];
    } else {
      const int32_t *o = a->buffers[1];
      j0 = o[a->offset + i], j1 = o[a->offset + i + 1];
    }
    if (j1 <= j0) return emit_nulls(w, n, n->def, rep);
    const struct ArrowArray *child = a->children[0];
    for (int64_t j = j0; j < j1; j++) {
      int rc = emit(w, n->children[0], child, j, j == j0 ? rep : n->rep);
      if (rc) return rc;
    }
    return 0;
  }
  }
  return 0;
}

int pqw_shred(pqw_writer *w, const struct ArrowArray *batch, int64_t start, int64_t n) {
  chain_entry chain[MAX_CHAIN];
  for (int c = 0; c < w->root->n_children; c++) {
    const pqw_node *col = w->root->children[c];
    const struct ArrowArray *arr = batch->children[c];
    int64_t base = batch->offset + start;
    int rc;
    if (!col->has_list) {
      chain[0].node = col;
      chain[0].arr = arr;
      chain[0].base = base;
      if ((rc = flat_node(w, chain, 1, n)) != 0) return rc;
    } else {
      for (int64_t r = 0; r < n; r++) {
        if ((rc = emit(w, col, arr, base + r, 0)) != 0) return rc;
        for (int i = 0; i < col->n_leaves; i++)
          if ((rc = pqw_leaf_rows_done(w, w->leaves[col->first_leaf + i], 1)) != 0) return rc;
      }
    }
  }
  return 0;
}

/* ---- checking a batch against the schema before touching it ---- */

static int check(const pqw_node *n, const struct ArrowArray *a, int64_t need, const char *what) {
  if (!a || !a->release) return err_set(DELTA_EINVAL, "parquet writer: column %s: no array", what);
  if (a->length < 0 || a->offset < 0 || a->length < need)
    return err_set(DELTA_EINVAL, "parquet writer: column %s: %lld rows, need %lld", what,
                           (long long)a->length, (long long)need);
  switch (n->kind) {
  case PQW_N_LEAF: {
    int want = (n->leaf->conv == PQW_BA32 || n->leaf->conv == PQW_BA64) ? 3 : 2;
    if (a->n_buffers < want) return err_set(DELTA_EINVAL, "parquet writer: column %s: %lld buffers, need %d", what, (long long)a->n_buffers, want);
    if (a->length > 0 && !a->buffers[1])
      return err_set(DELTA_EINVAL, "parquet writer: column %s: missing data buffer", what);
    if (want == 3 && a->length > 0) {
      int64_t first, last;
      if (n->leaf->conv == PQW_BA32) {
        first = ((const int32_t *)a->buffers[1])[a->offset];
        last = ((const int32_t *)a->buffers[1])[a->offset + a->length];
      } else {
        first = ((const int64_t *)a->buffers[1])[a->offset];
        last = ((const int64_t *)a->buffers[1])[a->offset + a->length];
      }
      if (first < 0 || last < first || (last > first && !a->buffers[2]))
        return err_set(DELTA_EINVAL, "parquet writer: column %s: bad string offsets", what);
    }
    return 0;
  }
  case PQW_N_STRUCT:
    if (a->n_children != n->n_children)
      return err_set(DELTA_EINVAL, "parquet writer: column %s: %lld children, schema has %d", what,
                             (long long)a->n_children, n->n_children);
    for (int c = 0; c < n->n_children; c++) {
      int rc = check(n->children[c], a->children[c], a->length ? a->offset + a->length : 0, n->children[c]->name);
      if (rc) return rc;
    }
    return 0;
  case PQW_N_LIST:
  case PQW_N_MAP:
    if (a->n_children != 1 || a->n_buffers < 2 || (a->length > 0 && !a->buffers[1]))
      return err_set(DELTA_EINVAL, "parquet writer: column %s: not a list array", what);
    {
      /* The child must hold every element the offsets reach. */
      int64_t end = 0;
      if (a->length > 0) {
        end = n->large_offsets ? ((const int64_t *)a->buffers[1])[a->offset + a->length]
                               : ((const int32_t *)a->buffers[1])[a->offset + a->length];
      }
      return check(n->children[0], a->children[0], end, n->children[0]->name);
    }
  }
  return 0;
}

int pqw_check_batch(const pqw_writer *w, const struct ArrowArray *batch) {
  if (!batch || !batch->release) return err_set(DELTA_EINVAL, "parquet writer: a released batch");
  if (batch->n_children != w->root->n_children)
    return err_set(DELTA_EINVAL, "parquet writer: the batch has %lld columns, the schema %d",
                           (long long)batch->n_children, w->root->n_children);
  for (int c = 0; c < w->root->n_children; c++) {
    int rc = check(w->root->children[c], batch->children[c], batch->offset + batch->length,
                   w->root->children[c]->name);
    if (rc) return rc;
  }
  return 0;
}
