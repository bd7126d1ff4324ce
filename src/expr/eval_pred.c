/* Exact evaluation of a bound predicate over an Arrow batch, with SQL's
 * three-valued logic: every boolean node yields one byte per row, TRI_F,
 * TRI_T or TRI_N (unknown, from nulls), and a row is kept when the whole
 * predicate is TRI_T. */
#include <string.h>

#include "arrow/array.h"
#include "expr/expr_internal.h"
#include "expr/like.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Where an operand's values live in this batch. */
typedef struct {
  const expr_node *node;
  const struct ArrowArray *leaf;
  const uint8_t *tri;       /* a predicate in value position */
  bool simple;              /* a top-level column: no struct parents to check */
  /* a value expression, evaluated into its own type (computed.release
   * set), or all null (an untyped NULL) */
  struct ArrowArray computed;
  const char *format;
  value_type type;
  int scale;
  bool all_null;
} operand;

static int eval_tri(const expr_node *e, const struct ArrowArray *batch, uint8_t *out);

static bool is_value(const expr_node *e) { return e->kind >= EX_ARITH; }

static int operand_open(const expr_node *e, const struct ArrowArray *batch, operand *o, uint8_t **scratch) {
  memset(o, 0, sizeof *o);
  o->node = e;
  if (e->kind == EX_COLUMN) {
    const struct ArrowArray *a = batch;
    for (int d = 0; d < e->depth; d++) a = a->children[e->child_index[d]];
    o->leaf = a;
    o->simple = e->depth == 1;
    return 0;
  }
  if (e->kind == EX_LITERAL) return 0;
  if (is_value(e)) {
    if (!e->target_format) {
      o->all_null = true;
      return 0;
    }
    o->format = e->target_format;
    o->type = value_type_of_arrow(o->format, NULL, &o->scale);
    return expr_eval_value(e, batch, &o->computed);
  }
  *scratch = mem_malloc((size_t)batch->length + 1);
  if (!*scratch) return DELTA_NOMEM();
  o->tri = *scratch;
  return eval_tri(e, batch, *scratch);
}

static void operand_close(operand *o) {
  if (o->computed.release) o->computed.release(&o->computed);
}

static void operand_value(const operand *o, const struct ArrowArray *batch, int64_t i, expr_value *v) {
  const expr_node *e = o->node;
  if (e->kind == EX_LITERAL) {
    *v = e->value;
    return;
  }
  if (o->all_null) {
    memset(v, 0, sizeof *v);
    v->is_null = true;
    return;
  }
  if (o->computed.release) { /* computed for this batch: row i is slot i */
    value_from_array(&o->computed, o->format, o->type, o->scale, i, v);
    return;
  }
  if (o->tri) {
    memset(v, 0, sizeof *v);
    v->type = VT_BOOL;
    v->is_null = o->tri[i] == TRI_N;
    v->u.b = o->tri[i] == TRI_T;
    return;
  }
  int64_t idx = i;
  if (!o->simple) {
    const struct ArrowArray *a = batch;
    for (int d = 0; d < e->depth; d++) {
      if (!arrow_is_valid(a, idx)) {
        memset(v, 0, sizeof *v);
        v->is_null = true;
        return;
      }
      idx += a->offset;
      a = a->children[e->child_index[d]];
    }
  } else {
    idx += batch->offset;
  }
  value_from_array(o->leaf, e->format, e->type, e->scale, idx, v);
}

static bool cmp_holds(cmp_op op, int c) {
  switch (op) {
  case CMP_EQ: case CMP_NULL_SAFE_EQ: return c == 0;
  case CMP_NE: return c != 0;
  case CMP_LT: return c < 0;
  case CMP_LE: return c <= 0;
  case CMP_GT: return c > 0;
  case CMP_GE: return c >= 0;
  }
  return false;
}

/* column op literal over a top-level fixed-width column of 64-bit values
 * (long, timestamp) or 32-bit ones (int, date) with a literal of its own
 * class: the common filter, done without per-row dispatch. */
static bool fast_cmp(const expr_node *e, const operand *col, const struct ArrowArray *batch, uint8_t *out) {
  const expr_node *c = e->args[0], *l = e->args[1];
  cmp_op op = e->op;
  if (op == CMP_NULL_SAFE_EQ || !col->simple || c->kind != EX_COLUMN || l->kind != EX_LITERAL || l->value.is_null)
    return false;
  if (c->type != l->value.type || (c->type != VT_INT && c->type != VT_DATE && c->type != VT_TIMESTAMP &&
                                    c->type != VT_TIMESTAMP_NTZ))
    return false;
  const char *f = c->format;
  bool wide = f[0] == 'l' || (f[0] == 't' && f[1] == 's' && f[2] == 'u');
  bool narrow = f[0] == 'i' || (f[0] == 't' && f[1] == 'd' && f[2] == 'D');
  if (!wide && !narrow) return false;
  const struct ArrowArray *a = col->leaf;
  int64_t n = batch->length, off = a->offset + batch->offset, L = l->value.u.i;
  /* One loop per operator and width, so that each is a plain compare the
   * compiler vectorizes (TRI_T is 1, TRI_F 0). */
#define CMP_LOOPS(T)                                                   \
  do {                                                                 \
    const T *x = (const T *)a->buffers[1] + off;                       \
    switch (op) {                                                      \
    case CMP_EQ: for (int64_t i = 0; i < n; i++) out[i] = x[i] == L; break; \
    case CMP_NE: for (int64_t i = 0; i < n; i++) out[i] = x[i] != L; break; \
    case CMP_LT: for (int64_t i = 0; i < n; i++) out[i] = x[i] < L; break;  \
    case CMP_LE: for (int64_t i = 0; i < n; i++) out[i] = x[i] <= L; break; \
    case CMP_GT: for (int64_t i = 0; i < n; i++) out[i] = x[i] > L; break;  \
    case CMP_GE: for (int64_t i = 0; i < n; i++) out[i] = x[i] >= L; break; \
    default: return false;                                             \
    }                                                                  \
  } while (0)
  if (wide) CMP_LOOPS(int64_t);
  else CMP_LOOPS(int32_t);
#undef CMP_LOOPS
  if (a->null_count != 0 && a->buffers[0])
    for (int64_t i = 0; i < n; i++)
      if (!arrow_bit_get(a->buffers[0], a->offset + batch->offset + i)) out[i] = TRI_N;
  return true;
}

static int eval_cmp(const expr_node *e, const struct ArrowArray *batch, uint8_t *out) {
  operand a = {0}, b = {0};
  uint8_t *sa = NULL, *sb = NULL;
  int rc;
  if ((rc = operand_open(e->args[0], batch, &a, &sa)) != 0 || (rc = operand_open(e->args[1], batch, &b, &sb)) != 0)
    goto done;
  if (!fast_cmp(e, &a, batch, out)) {
    for (int64_t i = 0; i < batch->length; i++) {
      expr_value x, y;
      operand_value(&a, batch, i, &x);
      operand_value(&b, batch, i, &y);
      if (x.is_null || y.is_null) {
        if (e->op == CMP_NULL_SAFE_EQ) out[i] = x.is_null && y.is_null ? TRI_T : TRI_F;
        else out[i] = TRI_N;
        continue;
      }
      out[i] = cmp_holds(e->op, value_cmp(&x, &y)) ? TRI_T : TRI_F;
    }
  }
done:
  operand_close(&a);
  operand_close(&b);
  mem_free(sa);
  mem_free(sb);
  return rc;
}

static int eval_in(const expr_node *e, const struct ArrowArray *batch, uint8_t *out) {
  operand *ops = mem_calloc((size_t)e->n_args, sizeof *ops);
  uint8_t **scratch = mem_calloc((size_t)e->n_args, sizeof *scratch);
  int rc = 0;
  if (!ops || !scratch) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int k = 0; k < e->n_args; k++)
    if ((rc = operand_open(e->args[k], batch, &ops[k], &scratch[k])) != 0) goto done;
  for (int64_t i = 0; i < batch->length; i++) {
    expr_value x, y;
    operand_value(&ops[0], batch, i, &x);
    if (x.is_null) {
      out[i] = TRI_N;
      continue;
    }
    uint8_t r = TRI_F;
    for (int k = 1; k < e->n_args && r != TRI_T; k++) {
      operand_value(&ops[k], batch, i, &y);
      if (y.is_null) r = TRI_N;
      else if (value_cmp(&x, &y) == 0) r = TRI_T;
    }
    out[i] = r;
  }
done:
  for (int k = 0; ops && k < e->n_args; k++) operand_close(&ops[k]);
  for (int k = 0; scratch && k < e->n_args; k++) mem_free(scratch[k]);
  mem_free(scratch);
  mem_free(ops);
  return rc;
}

static int eval_is_null(const expr_node *e, const struct ArrowArray *batch, uint8_t *out) {
  operand a;
  uint8_t *sa = NULL;
  int rc = operand_open(e->args[0], batch, &a, &sa);
  for (int64_t i = 0; !rc && i < batch->length; i++) {
    expr_value x;
    if (e->args[0]->kind == EX_COLUMN && (e->args[0]->type == VT_STRUCT || e->args[0]->type == VT_OTHER)) {
      /* a nested value: null when it or a parent is */
      const struct ArrowArray *arr = batch;
      int64_t idx = i;
      x.is_null = false;
      for (int d = 0; d < e->args[0]->depth && !x.is_null; d++) {
        if (d && !arrow_is_valid(arr, idx)) x.is_null = true;
        idx += arr->offset;
        arr = arr->children[e->args[0]->child_index[d]];
      }
      if (!x.is_null && !arrow_is_valid(arr, idx)) x.is_null = true;
    } else {
      operand_value(&a, batch, i, &x);
    }
    out[i] = x.is_null != e->negated ? TRI_T : TRI_F;
  }
  operand_close(&a);
  mem_free(sa);
  return rc;
}

static int eval_like(const expr_node *e, const struct ArrowArray *batch, uint8_t *out) {
  operand a;
  uint8_t *sa = NULL;
  const expr_value *pat = &e->args[1]->value;
  int rc = operand_open(e->args[0], batch, &a, &sa);
  for (int64_t i = 0; !rc && i < batch->length; i++) {
    expr_value x;
    operand_value(&a, batch, i, &x);
    if (x.is_null || pat->is_null) {
      out[i] = TRI_N;
      continue;
    }
    out[i] = like_match(x.u.s.p, x.u.s.n, pat->u.s.p, pat->u.s.n) != e->negated ? TRI_T : TRI_F;
  }
  operand_close(&a);
  mem_free(sa);
  return rc;
}

static int eval_logic(const expr_node *e, const struct ArrowArray *batch, uint8_t *out) {
  int64_t n = batch->length;
  int rc = eval_tri(e->args[0], batch, out);
  if (rc) return rc;
  if (e->kind == EX_NOT) {
    for (int64_t i = 0; i < n; i++) out[i] = out[i] == TRI_N ? TRI_N : (uint8_t)(out[i] ^ 1);
    return 0;
  }
  uint8_t *tmp = mem_malloc((size_t)n + 1);
  if (!tmp) return DELTA_NOMEM();
  /* AND: false wins, then unknown; OR: true wins, then unknown. */
  uint8_t win = e->kind == EX_AND ? TRI_F : TRI_T;
  for (int k = 1; k < e->n_args; k++) {
    if ((rc = eval_tri(e->args[k], batch, tmp)) != 0) goto done;
    for (int64_t i = 0; i < n; i++) {
      uint8_t a = out[i], b = tmp[i];
      out[i] = a == win || b == win ? win : (a == TRI_N || b == TRI_N) ? TRI_N : a;
    }
  }
done:
  mem_free(tmp);
  return rc;
}

static int eval_tri(const expr_node *e, const struct ArrowArray *batch, uint8_t *out) {
  switch (e->kind) {
  case EX_CMP: return eval_cmp(e, batch, out);
  case EX_IN: return eval_in(e, batch, out);
  case EX_IS_NULL: return eval_is_null(e, batch, out);
  case EX_LIKE: return eval_like(e, batch, out);
  case EX_AND: case EX_OR: case EX_NOT: return eval_logic(e, batch, out);
  default: { /* a boolean column, literal or value expression */
    operand a;
    uint8_t *unused = NULL;
    int rc = operand_open(e, batch, &a, &unused);
    for (int64_t i = 0; !rc && i < batch->length; i++) {
      expr_value x;
      operand_value(&a, batch, i, &x);
      out[i] = x.is_null ? TRI_N : x.u.b ? TRI_T : TRI_F;
    }
    operand_close(&a);
    return rc;
  }
  }
}

int expr_eval_tri(const expr_node *e, const struct ArrowArray *batch, uint8_t *out) {
  return eval_tri(e, batch, out);
}

int expr_eval_batch(const expr_node *e, const struct ArrowArray *batch, uint8_t *keep) {
  int rc = eval_tri(e, batch, keep);
  if (rc) return rc;
  for (int64_t i = 0; i < batch->length; i++) keep[i] = keep[i] == TRI_T;
  return 0;
}
