/* Data skipping by interval reasoning. Every boolean node gets three
 * possibilities over the row set — some row TRUE, some FALSE, some NULL —
 * from the column bounds; the set is skipped when no row can be TRUE.
 * Tracking FALSE separately is what makes NOT exact (NOT x can be true
 * only where x can be false).
 *
 * Only a column compared with a literal is reasoned about. An operand that
 * is a value expression (a + 1 > 5, lower(s) = 'x', CASE ... END = 3) says
 * nothing the bounds can prove, so its comparison may be anything: TRUE,
 * FALSE or NULL. That keeps AND, OR and NOT around it sound (NOT of
 * "anything" is still anything), and skipping conservative. */
#include "expr/skip.h"

#include <string.h>

#include "expr/like.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

typedef struct {
  bool t, f, n;
} maybe;

static const maybe ANYTHING = {true, true, true};

typedef struct {
  expr_stats_fn fn;
  void *ctx;
  int rc;
} skipper;

static maybe eval(const expr_node *e, skipper *s);

/* Comparison results of bound b against literal v: b < v, b <= v... */
static bool lt(const expr_value *b, const expr_value *v) { return value_cmp(b, v) < 0; }
static bool gt(const expr_value *b, const expr_value *v) { return value_cmp(b, v) > 0; }
static bool eq(const expr_value *b, const expr_value *v) { return value_cmp(b, v) == 0; }

/* column op literal over stats st. */
static maybe cmp_stats(cmp_op op, const expr_col_stats *st, const expr_value *v) {
  maybe m = {false, false, st->has_nulls != 0};
  if (op == CMP_NULL_SAFE_EQ) {
    if (v->is_null) return (maybe){st->has_nulls != 0, st->has_values != 0, false};
    m.n = false;
    op = CMP_EQ;
    if (st->has_nulls != 0) m.f = true; /* null <=> v is false */
  }
  if (v->is_null) return (maybe){false, false, true};
  if (st->has_values == 0) return m;
  const expr_value *lo = st->has_min ? &st->min : NULL, *hi = st->has_max ? &st->max : NULL;
  bool single = lo && hi && eq(lo, v) && eq(hi, v); /* every value equals v */
  switch (op) {
  case CMP_EQ: case CMP_NULL_SAFE_EQ:
    m.t |= !(lo && gt(lo, v)) && !(hi && lt(hi, v));
    m.f |= !single;
    break;
  case CMP_NE:
    m.t |= !single;
    m.f |= !(lo && gt(lo, v)) && !(hi && lt(hi, v));
    break;
  case CMP_LT:
    m.t |= !(lo && !lt(lo, v));
    m.f |= !(hi && lt(hi, v));
    break;
  case CMP_LE:
    m.t |= !(lo && gt(lo, v));
    m.f |= !(hi && !gt(hi, v));
    break;
  case CMP_GT:
    m.t |= !(hi && !gt(hi, v));
    m.f |= !(lo && gt(lo, v));
    break;
  case CMP_GE:
    m.t |= !(hi && lt(hi, v));
    m.f |= !(lo && !lt(lo, v));
    break;
  }
  return m;
}

static bool column_stats(const expr_node *c, skipper *s, expr_col_stats *st) {
  *st = (expr_col_stats)EXPR_COL_STATS_UNKNOWN;
  if (c->kind != EX_COLUMN || s->rc) return false;
  int rc = s->fn(s->ctx, c, st);
  if (rc) s->rc = rc;
  /* bounds of another class than the column (an old file's type) are not used */
  if (st->has_min && !value_comparable(st->min.type, c->type)) st->has_min = false;
  if (st->has_max && !value_comparable(st->max.type, c->type)) st->has_max = false;
  return !rc;
}

static maybe eval_cmp(const expr_node *e, skipper *s) {
  const expr_node *a = e->args[0], *b = e->args[1];
  cmp_op op = e->op;
  if (a->kind == EX_LITERAL && b->kind == EX_COLUMN) {
    const expr_node *t = a;
    a = b;
    b = t;
    op = cmp_op_swap(op);
  }
  if (a->kind == EX_LITERAL && b->kind == EX_LITERAL) {
    const expr_value *x = &a->value, *y = &b->value;
    if (x->is_null || y->is_null) {
      if (op == CMP_NULL_SAFE_EQ) return (maybe){x->is_null && y->is_null, !(x->is_null && y->is_null), false};
      return (maybe){false, false, true};
    }
    int c = value_cmp(x, y);
    bool r = op == CMP_EQ || op == CMP_NULL_SAFE_EQ ? c == 0 : op == CMP_NE ? c != 0 : op == CMP_LT ? c < 0
           : op == CMP_LE ? c <= 0 : op == CMP_GT ? c > 0 : c >= 0;
    return (maybe){r, !r, false};
  }
  expr_col_stats st;
  if (a->kind != EX_COLUMN || b->kind != EX_LITERAL || !column_stats(a, s, &st)) return ANYTHING;
  return cmp_stats(op, &st, &b->value);
}

static maybe any_of(maybe acc, maybe m) { return (maybe){acc.t || m.t, acc.f && m.f, acc.n || m.n}; }
static maybe all_of(maybe acc, maybe m) { return (maybe){acc.t && m.t, acc.f || m.f, acc.n || m.n}; }

static maybe eval_in(const expr_node *e, skipper *s) {
  const expr_node *c = e->args[0];
  expr_col_stats st;
  if (c->kind != EX_COLUMN || !column_stats(c, s, &st)) return ANYTHING;
  maybe acc = {false, true, false};
  for (int k = 1; k < e->n_args; k++) {
    if (e->args[k]->kind != EX_LITERAL) return ANYTHING;
    acc = any_of(acc, cmp_stats(CMP_EQ, &st, &e->args[k]->value));
  }
  return acc;
}

static maybe eval_like(const expr_node *e, skipper *s) {
  const expr_node *c = e->args[0];
  const expr_value *pat = &e->args[1]->value;
  expr_col_stats st;
  if (e->negated || c->kind != EX_COLUMN || pat->is_null || !column_stats(c, s, &st)) return ANYTHING;
  maybe m = {st.has_values != 0, st.has_values != 0, st.has_nulls != 0};
  char *prefix = mem_malloc(pat->u.s.n + 1);
  if (!prefix) return ANYTHING;
  size_t n = like_prefix(pat->u.s.p, pat->u.s.n, prefix);
  if (n > 0) {
    expr_value p = {0};
    p.type = VT_STRING;
    p.u.s.p = prefix;
    p.u.s.n = n;
    /* every match is >= prefix and starts with it */
    if (st.has_max && lt(&st.max, &p)) m.t = false;
    if (st.has_min && gt(&st.min, &p) && !(st.min.u.s.n >= n && memcmp(st.min.u.s.p, prefix, n) == 0)) m.t = false;
  }
  mem_free(prefix);
  return m;
}

static maybe eval(const expr_node *e, skipper *s) {
  switch (e->kind) {
  case EX_CMP: return eval_cmp(e, s);
  case EX_IN: return eval_in(e, s);
  case EX_LIKE: return eval_like(e, s);
  case EX_IS_NULL: {
    expr_col_stats st;
    if (e->args[0]->kind != EX_COLUMN || !column_stats(e->args[0], s, &st)) return ANYTHING;
    maybe m = {st.has_nulls != 0, st.has_values != 0, false};
    if (e->negated) m = (maybe){m.f, m.t, false};
    return m;
  }
  case EX_NOT: {
    maybe m = eval(e->args[0], s);
    return (maybe){m.f, m.t, m.n};
  }
  case EX_AND: case EX_OR: {
    bool and = e->kind == EX_AND;
    maybe acc = and ? (maybe){true, false, false} : (maybe){false, true, false};
    for (int k = 0; k < e->n_args; k++) acc = and ? all_of(acc, eval(e->args[k], s)) : any_of(acc, eval(e->args[k], s));
    return acc;
  }
  case EX_LITERAL:
    if (e->value.is_null) return (maybe){false, false, true};
    return (maybe){e->value.u.b, !e->value.u.b, false};
  case EX_COLUMN: {
    expr_col_stats st;
    expr_value t = {0};
    t.type = VT_BOOL;
    t.u.b = true;
    if (!column_stats(e, s, &st)) return ANYTHING;
    return cmp_stats(CMP_EQ, &st, &t);
  }
  default:
    /* a value expression used as a condition (CASE ... END, coalesce(flag,
     * false)): nothing is known about it from column bounds */
    return ANYTHING;
  }
}

int expr_may_match(const expr_node *e, expr_stats_fn fn, void *ctx) {
  skipper s = {fn, ctx, 0};
  maybe m = eval(e, &s);
  if (s.rc) return s.rc;
  return m.t ? 1 : 0;
}
