/* MERGE's join when the ON condition has no t.col = s.col equality to hash
 * on (ranges, BETWEEN, OR of equalities, constants): every live target row
 * of a batch is paired with every source row and ON decides, a block of
 * pairs at a time. The range conjuncts (t.col >= s.lo, t.col BETWEEN s.lo
 * AND s.hi, ...) still prune files against the source's min and max. */
#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "dml/merge_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Pairs evaluated at once: bounds the taken rows of both sides. */
#define NESTED_BLOCK 4096

typedef struct {
  const struct ArrowSchema *tschema;
  const struct ArrowArray *batch;
  const merge_join *j;
  const expr_node *on;
  int64_t bt[NESTED_BLOCK], bs[NESTED_BLOCK];
  arrow_row_ref refs[NESTED_BLOCK];
  uint8_t ok[NESTED_BLOCK];
  int64_t n;
} block;

/* Test the block's pairs; the ones ON holds for are appended. */
static int flush(block *b, int64_t **pt, int64_t **ps, int64_t *n, int64_t *cap) {
  if (b->n == 0) return 0;
  struct ArrowArray tr = {0}, sr = {0};
  const struct ArrowArray *src = b->j->source;
  for (int64_t p = 0; p < b->n; p++) b->refs[p] = (arrow_row_ref){0, b->bt[p]};
  int rc;
  if ((rc = arrow_take(b->tschema, &b->batch, 1, b->refs, b->n, &tr)) != 0)
    goto done;
  for (int64_t p = 0; p < b->n; p++) b->refs[p] = (arrow_row_ref){0, b->bs[p]};
  if ((rc = arrow_take(b->j->source_schema, &src, 1, b->refs, b->n, &sr)) != 0)
    goto done;
  merge_joined jw;
  if ((rc = expr_eval_batch(b->on, merge_join_rows(&jw, &tr, &sr, b->n), b->ok)) != 0)
    goto done;
  for (int64_t p = 0; p < b->n; p++)
    if (b->ok[p] && (rc = merge_pairs_push(pt, ps, n, cap, b->bt[p], b->bs[p])) != 0)
      goto done;
done:
  arrow_array_release(&tr);
  arrow_array_release(&sr);
  b->n = 0;
  return rc;
}

int merge_nested_pairs(const merge_join *j, const expr_node *on, const struct ArrowSchema *tschema,
                       const struct ArrowArray *batch, const uint8_t *live, int64_t **pairs_t, int64_t **pairs_s,
                       int64_t *n, int64_t *cap) {
  int64_t ns = j->source->length;
  if (ns == 0 || batch->length == 0) return 0;
  block *b = mem_malloc(sizeof *b);
  if (!b) return DELTA_NOMEM();
  *b = (block){.tschema = tschema, .batch = batch, .j = j, .on = on};
  int rc;
  for (int64_t r = 0; r < batch->length; r++) {
    if (!live[r]) continue;
    for (int64_t g = 0; g < ns; g++) {
      b->bt[b->n] = r;
      b->bs[b->n++] = g;
      if (b->n == NESTED_BLOCK && (rc = flush(b, pairs_t, pairs_s, n, cap)) != 0)
        goto done;
    }
  }
  rc = flush(b, pairs_t, pairs_s, n, cap);
done:
  mem_free(b);
  return rc;
}

/* ------------------------------------------------------------- pruning */

static bool prunable_type(value_type t) {
  return t == VT_INT || t == VT_STRING || t == VT_DATE || t == VT_TIMESTAMP || t == VT_TIMESTAMP_NTZ;
}

static int add_range(merge_join *j, const expr_node *e, const struct ArrowSchema *joined,
                     const struct ArrowSchema *logical) {
  const expr_node *a = e->args[0], *b = e->args[1];
  cmp_op op = e->op;
  if (a->kind != EX_COLUMN || b->kind != EX_COLUMN || a->child_index[0] == b->child_index[0]) return 0;
  if (a->child_index[0] != 0) {
    const expr_node *x = a;
    a = b;
    b = x;
    op = cmp_op_swap(op);
  }
  if (a->depth != 2 || b->depth != 2) return 0; /* nested fields: not pruned on */
  if (!(op == CMP_LT || op == CMP_LE || op == CMP_GT || op == CMP_GE)) return 0;
  int t_scale, s_scale;
  const char *tf = joined->children[0]->children[a->child_index[1]]->format;
  const char *sf = joined->children[1]->children[b->child_index[1]]->format;
  value_type tt = value_type_of_arrow(tf, NULL, &t_scale), st = value_type_of_arrow(sf, NULL, &s_scale);
  if (tt != st || !prunable_type(tt)) return 0;
  merge_range *nr = mem_realloc(j->ranges, (size_t)(j->n_ranges + 1) * sizeof *nr);
  if (!nr) return DELTA_NOMEM();
  j->ranges = nr;
  merge_range *r = &j->ranges[j->n_ranges++];
  memset(r, 0, sizeof *r);
  r->op = op;
  r->s_col = b->child_index[1];
  r->s_type = st;
  r->s_scale = s_scale;
  const struct ArrowArray *col = j->source->children[r->s_col];
  for (int64_t g = 0; g < j->source->length; g++) {
    expr_value v;
    value_from_array(col, sf, st, s_scale, g, &v);
    if (v.is_null) continue;
    if (!r->any || value_cmp(&v, &r->lo) < 0) r->lo = v;
    if (!r->any || value_cmp(&v, &r->hi) > 0) r->hi = v;
    r->any = true;
  }
  return merge_column_is_null(logical->children[a->child_index[1]]->name, logical, &r->column);
}

static int collect(merge_join *j, const expr_node *e, const struct ArrowSchema *joined,
                   const struct ArrowSchema *logical) {
  if (e->kind == EX_AND) {
    int rc;
    for (int i = 0; i < e->n_args; i++)
      if ((rc = collect(j, e->args[i], joined, logical)) != 0) return rc;
    return 0;
  }
  return e->kind == EX_CMP ? add_range(j, e, joined, logical) : 0;
}

int merge_nested_ranges(merge_join *j, const expr_node *on, const struct ArrowSchema *joined,
                        const struct ArrowSchema *logical) {
  return collect(j, on, joined, logical);
}
