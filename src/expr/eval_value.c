/* Evaluating a bound value expression over an Arrow batch, row by row,
 * with Spark SQL's semantics (see value_eval.h), into an array of the
 * target's type. Conditions (CASE's, and predicates used as boolean
 * values) are evaluated once per batch by eval_pred.c; the masks live in
 * the evaluation, not in the tree, so one bound expression can be
 * evaluated by several threads at once. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "expr/date_math.h"
#include "expr/dec_math.h"
#include "expr/expr_internal.h"
#include "expr/value_eval.h"
#include "expr/value_funcs.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

/* A condition's three-valued result for this batch. */
typedef struct {
  const expr_node *cond;
  uint8_t *tri;
} cond_mask;

typedef struct {
  const struct ArrowArray *batch;
  delta_buf scratch;
  cond_mask *masks;
  int n_masks;
} ectx;

static const uint8_t *mask_of(const ectx *c, const expr_node *cond) {
  for (int i = 0; i < c->n_masks; i++)
    if (c->masks[i].cond == cond) return c->masks[i].tri;
  return NULL;
}

/* The leaf array of a column reference and the row of it that row *row of
 * the batch is (a struct child's row i is the struct's slot offset + i);
 * a null struct on the way is a null value (*row = -1). */
static const struct ArrowArray *col_array(const expr_node *e, const struct ArrowArray *batch, int64_t *row) {
  const struct ArrowArray *a = batch->children[e->child_index[0]];
  for (int d = 1; d < e->depth; d++) {
    if (*row >= 0 && !arrow_is_valid(a, *row)) *row = -1;
    if (*row >= 0) *row += a->offset;
    a = a->children[e->child_index[d]];
  }
  return a;
}

static int eval_row(ectx *c, const expr_node *e, int64_t r, sval *out);

static int eval_bin(ectx *c, const expr_node *e, sval *a, sval *b, sval *out) {
  int rc = 0;
  if (e->arith == '|') {
    if ((rc = expr_sval_to_string(&c->scratch, a)) || (rc = expr_sval_to_string(&c->scratch, b))) return rc;
    size_t at = c->scratch.len;
    if (a->s_len + b->s_len) {
      if ((rc = buf_reserve(&c->scratch, a->s_len + b->s_len))) return rc;
      if (a->s_len) memcpy(c->scratch.data + at, c->scratch.data + a->s_off, a->s_len);
      if (b->s_len) memcpy(c->scratch.data + at + a->s_len, c->scratch.data + b->s_off, b->s_len);
      c->scratch.len += a->s_len + b->s_len;
    }
    out->t = VT_STRING;
    out->s_off = at;
    out->s_len = a->s_len + b->s_len;
    return 0;
  }
  switch (e->type) {
  case VT_FLOAT: {
    double x = expr_sval_double(a), y = expr_sval_double(b);
    out->t = VT_FLOAT;
    switch (e->arith) {
    case '+': out->d = x + y; break;
    case '-': out->d = x - y; break;
    case '*': out->d = x * y; break;
    case '%':
      if (y == 0) out->t = VT_NULL;
      else out->d = fmod(x, y);
      break;
    default:
      if (y == 0) out->t = VT_NULL; /* Spark (non-ANSI): division by zero is null */
      else out->d = x / y;
    }
    return 0;
  }
  case VT_DECIMAL: {
    __int128 x = a->t == VT_DECIMAL ? a->dec : a->i, y = b->t == VT_DECIMAL ? b->dec : b->i;
    int sx = a->t == VT_DECIMAL ? a->scale : 0, sy = b->t == VT_DECIMAL ? b->scale : 0;
    int drc = dec_apply(e->arith, x, sx, y, sy, e->prec, e->scale, &out->dec);
    if (drc != DEC_OK) {
      char ta[48], tb[48];
      dec_format(x, sx, ta);
      dec_format(y, sy, tb);
      if (drc == DEC_DIVZERO) return err_set(DELTA_EINVAL, "expression: division by zero in %s %c %s", ta, e->arith, tb);
      return err_set(DELTA_EINVAL, "expression: decimal overflow: %s %c %s does not fit decimal(%d,%d)", ta,
                             e->arith, tb, e->prec, e->scale);
    }
    out->t = VT_DECIMAL;
    out->scale = e->scale;
    return 0;
  }
  case VT_DATE: case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: return expr_date_arith(e, a, b, out);
  default: break;
  }
  int64_t x = a->i, y = b->i, z = 0;
  bool ovf = false;
  switch (e->arith) {
  case '+': ovf = __builtin_add_overflow(x, y, &z); break;
  case '-': ovf = __builtin_sub_overflow(x, y, &z); break;
  case '*': ovf = __builtin_mul_overflow(x, y, &z); break;
  default:
    if (y == 0) return 0;
    if (x == INT64_MIN && y == -1) z = e->arith == '%' ? 0 : (ovf = true, 0);
    else z = e->arith == '%' ? x % y : x / y;
  }
  if (ovf) return err_set(DELTA_EINVAL, "expression: integer overflow in '%c'", e->arith);
  out->t = VT_INT;
  out->i = z;
  return 0;
}

/* A CASE or COALESCE branch's value in the expression's type (a decimal
 * widened to the common scale, a date to a timestamp...). */
static int coerce(ectx *c, const expr_node *e, sval *out) {
  if (out->t == VT_NULL || (out->t == e->type && e->type != VT_DECIMAL)) return 0;
  if (e->type == VT_INT || e->type == VT_NULL) return 0;
  int rc = expr_sval_cast(&c->scratch, out, e->type, e->prec, e->scale);
  if (rc) return rc;
  if (out->t == VT_NULL)
    return err_set(DELTA_EINVAL, "expression: decimal overflow: a value does not fit decimal(%d,%d)", e->prec,
                           e->scale);
  return 0;
}

static int eval_row(ectx *c, const expr_node *e, int64_t r, sval *out) {
  memset(out, 0, sizeof *out);
  int rc = 0;
  switch (e->kind) {
  case EX_LITERAL:
    out->t = e->type;
    out->i = e->type == VT_INTERVAL ? e->iv_us : e->li;
    out->d = e->ld;
    out->b = e->li != 0;
    out->dec = e->ldec;
    out->scale = e->scale;
    out->iv_months = e->iv_months;
    out->iv_days = e->iv_days;
    if (e->type == VT_STRING) {
      out->s_off = c->scratch.len;
      out->s_len = e->text_len;
      rc = buf_append(&c->scratch, e->text, e->text_len);
    }
    return rc;
  case EX_COLUMN: {
    expr_value v;
    value_type vt = value_type_of_arrow(e->format, NULL, NULL);
    int64_t row = r;
    const struct ArrowArray *a = col_array(e, c->batch, &row);
    if (row < 0) return 0;
    value_from_array(a, e->format, vt, e->scale, row, &v);
    if (v.is_null) return 0;
    out->t = e->type;
    switch (e->type) {
    case VT_INT: case VT_DATE: case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: out->i = v.u.i; break;
    case VT_FLOAT: out->d = v.u.d; break;
    case VT_BOOL: out->b = v.u.b; break;
    case VT_DECIMAL:
      out->dec = v.u.dec;
      out->scale = e->scale;
      break;
    case VT_STRING:
      out->s_off = c->scratch.len;
      out->s_len = v.u.s.n;
      rc = buf_append(&c->scratch, v.u.s.p, v.u.s.n);
      break;
    default: out->t = VT_NULL;
    }
    return rc;
  }
  case EX_NEG:
    if ((rc = eval_row(c, e->args[0], r, out))) return rc;
    if (out->t == VT_INT) out->i = (int64_t)(0 - (uint64_t)out->i);
    else if (out->t == VT_FLOAT) out->d = -out->d;
    else if (out->t == VT_DECIMAL) out->dec = -out->dec;
    else if (out->t == VT_INTERVAL) {
      out->i = -out->i;
      out->iv_months = -out->iv_months;
      out->iv_days = -out->iv_days;
    }
    return 0;
  case EX_ARITH: {
    sval a, b;
    if ((rc = eval_row(c, e->args[0], r, &a)) || (rc = eval_row(c, e->args[1], r, &b))) return rc;
    if (a.t == VT_NULL || b.t == VT_NULL) return 0;
    return eval_bin(c, e, &a, &b, out);
  }
  case EX_COALESCE:
    for (int i = 0; i < e->n_args; i++) {
      if ((rc = eval_row(c, e->args[i], r, out))) return rc;
      if (out->t != VT_NULL) return coerce(c, e, out);
    }
    return 0;
  case EX_CASE: {
    int pick = e->n_args - 1;
    for (int i = 0; i + 1 < e->n_args; i += 2)
      if (mask_of(c, e->args[i])[r] == TRI_T) {
        pick = i + 1;
        break;
      }
    if ((rc = eval_row(c, e->args[pick], r, out))) return rc;
    return coerce(c, e, out);
  }
  case EX_CAST:
    if ((rc = eval_row(c, e->args[0], r, out))) return rc;
    return expr_sval_cast(&c->scratch, out, e->cast_to, e->cast_prec, e->cast_scale);
  case EX_FUNC: {
    sval a[e->n_args + 2];
    memset(a, 0, sizeof a);
    for (int i = 0; i < e->n_args; i++) {
      if ((rc = eval_row(c, e->args[i], r, &a[i]))) return rc;
      if (e->fn < 0 && a[i].t == VT_TIMESTAMP_NTZ) a[i].t = VT_TIMESTAMP; /* value_funcs.h reads both as one */
    }
    if (e->fn >= 0) return expr_date_func_eval(e, a, &c->scratch, out);
    return vfunc_eval(e->xfn, a, e->n_args, &c->scratch, out);
  }
  default: { /* a predicate as a boolean value */
    const uint8_t *m = mask_of(c, e);
    if (m[r] != TRI_N) {
      out->t = VT_BOOL;
      out->b = m[r] == TRI_T;
    }
    return 0;
  }
  }
  return 0;
}

static int add_mask(ectx *c, const expr_node *cond) {
  cond_mask *m = mem_realloc(c->masks, (size_t)(c->n_masks + 1) * sizeof *m);
  if (!m) return DELTA_NOMEM();
  c->masks = m;
  uint8_t *tri = mem_malloc((size_t)c->batch->length + 1);
  if (!tri) return DELTA_NOMEM();
  c->masks[c->n_masks++] = (cond_mask){cond, tri};
  return expr_eval_tri(cond, c->batch, tri);
}

/* The conditions' masks for this batch: CASE's WHENs and predicates in
 * value position. */
static int prepare(ectx *c, const expr_node *e) {
  int rc;
  if (expr_is_predicate(e->kind) || e->kind == EX_AND || e->kind == EX_OR || e->kind == EX_NOT) return add_mask(c, e);
  for (int i = 0; i < e->n_args; i++) {
    const expr_node *a = e->args[i];
    if ((rc = e->kind == EX_CASE && i % 2 == 0 && i + 1 < e->n_args ? add_mask(c, a) : prepare(c, a)) != 0) return rc;
  }
  return 0;
}

static void ectx_dispose(ectx *c) {
  for (int i = 0; i < c->n_masks; i++) mem_free(c->masks[i].tri);
  mem_free(c->masks);
  buf_dispose(&c->scratch);
}

static size_t width_of(char f) {
  switch (f) {
  case 'c': return 1;
  case 's': return 2;
  case 'i': case 'f': return 4;
  default: return 8;
  }
}

/* n copies of a bound date, timestamp or decimal literal. */
static int const_array(const expr_node *e, const char *f, int64_t n, struct ArrowArray *out) {
  size_t w = f[0] == 'd' ? 16 : (f[0] == 't' && f[1] == 'd' && f[2] == 'D') ? 4 : 8;
  uint8_t *vals = mem_malloc((size_t)n * w + 16);
  if (!vals) return DELTA_NOMEM();
  for (int64_t r = 0; r < n; r++) {
    if (w == 16) memcpy(vals + (size_t)r * 16, &e->konst.u.dec, 16); /* little-endian, as Arrow's decimal128 */
    else if (w == 4) ((int32_t *)vals)[r] = (int32_t)e->konst.u.i;
    else ((int64_t *)vals)[r] = e->konst.u.i;
  }
  int rc = arrow_array_new(out, 2, 0);
  if (rc) {
    mem_free(vals);
    return rc;
  }
  out->length = n;
  out->null_count = 0;
  arrow_array_set_buffer(out, 1, vals);
  return 0;
}

int vexpr_eval(vexpr *e, const struct ArrowArray *batch, struct ArrowArray *out) {
  return expr_eval_value(e, batch, out);
}

/* A nested column copied as it is. */
static int copy_column(const expr_node *e, const struct ArrowArray *batch, struct ArrowArray *out) {
  int64_t n = batch->length;
  uint8_t *all = mem_malloc((size_t)n + 1);
  if (!all) return DELTA_NOMEM();
  memset(all, 1, (size_t)n + 1);
  /* a nested leaf lines up with the batch when the structs above it have
   * no offset and no nulls */
  const struct ArrowArray *a = batch->children[e->child_index[0]];
  int rc = 0;
  for (int d = 1; d < e->depth; d++) {
    if (a->offset || a->null_count) {
      delta_buf b = DELTA_BUF_INIT;
      if ((rc = expr_column_name(e, &b)) == 0)
        rc = err_set(DELTA_EUNSUPPORTED, "copying %s: a struct with an offset or nulls", (const char *)b.data);
      buf_dispose(&b);
      goto done;
    }
    a = a->children[e->child_index[d]];
  }
  rc = arrow_filter(e->schema, a, all, out);
done:
  mem_free(all);
  return rc;
}

/* The column being written: validity, values (or offsets and chars). */
typedef struct {
  value_type want;
  const char *f;
  int tp, tscale;
  uint8_t *valid;
  void *vals;
  int32_t *offs;
  delta_buf chars;
  int64_t nulls;
} column_out;

/* Spark's ANSI store assignment: a value with no form in the column is an
 * error naming the column and the value. */
static int store_error(const expr_node *e, const column_out *o, const delta_buf *scratch, const sval *before) {
  char text[64];
  if (before->t == VT_STRING)
    snprintf(text, sizeof text, "'%.*s'", (int)(before->s_len > 40 ? 40 : before->s_len),
             expr_sval_data(scratch, before));
  else expr_sval_text(before, text, sizeof text);
  if (o->want == VT_DECIMAL)
    return err_set(DELTA_EINVAL, "expression: %s does not fit column %s decimal(%d,%d)", text, e->target_name,
                           o->tp, o->tscale);
  if (before->t == VT_STRING && expr_vtype_datetime(o->want))
    return err_set(DELTA_EINVAL, "expression: %s is not a %s for column %s", text, expr_vtype_name(o->want),
                           e->target_name);
  return err_set(DELTA_EINVAL, "expression: a value does not fit the column %s (NaN or out of range: %s)",
                         e->target_name, text);
}

/* Row r's value (already of the column's class) into the column. */
static int store(column_out *o, int64_t r, const sval *v, const delta_buf *scratch) {
  const char *f = o->f;
  if (v->t == VT_NULL) o->nulls++;
  else arrow_bit_set(o->valid, r);
  if (o->want == VT_STRING) {
    if (v->t != VT_NULL && v->s_len && buf_append(&o->chars, expr_sval_data(scratch, v), v->s_len))
      return DELTA_NOMEM();
    if (o->chars.len > INT32_MAX) return err_set(DELTA_ELIMIT, "string column over 2 GiB");
    o->offs[r + 1] = (int32_t)o->chars.len;
    return 0;
  }
  if (v->t == VT_NULL) return 0;
  if (o->want == VT_BOOL) {
    if (v->b) arrow_bit_set(o->vals, r);
    return 0;
  }
  switch (f[0]) {
  case 'c': case 's': case 'i': {
    int64_t lo = f[0] == 'c' ? INT8_MIN : f[0] == 's' ? INT16_MIN : INT32_MIN;
    int64_t hi = f[0] == 'c' ? INT8_MAX : f[0] == 's' ? INT16_MAX : INT32_MAX;
    if (v->i < lo || v->i > hi)
      return err_set(DELTA_EINVAL, "expression: value %lld does not fit the column", (long long)v->i);
    if (f[0] == 'c') ((int8_t *)o->vals)[r] = (int8_t)v->i;
    else if (f[0] == 's') ((int16_t *)o->vals)[r] = (int16_t)v->i;
    else ((int32_t *)o->vals)[r] = (int32_t)v->i;
    return 0;
  }
  case 'f': ((float *)o->vals)[r] = (float)v->d; return 0;
  case 'g': ((double *)o->vals)[r] = v->d; return 0;
  case 'd': memcpy((uint8_t *)o->vals + (size_t)r * 16, &v->dec, 16); return 0; /* little-endian, as Arrow's */
  case 't':
    if (o->want == VT_DATE) {
      if (f[2] == 'D') ((int32_t *)o->vals)[r] = (int32_t)v->i;
      else ((int64_t *)o->vals)[r] = v->i * 86400000;
    } else {
      int64_t t = v->i;
      if (f[2] == 's') t = dm_floor_div(t, 1000000);
      else if (f[2] == 'm') t = dm_floor_div(t, 1000);
      else if (f[2] == 'n') t *= 1000;
      ((int64_t *)o->vals)[r] = t;
    }
    return 0;
  default: ((int64_t *)o->vals)[r] = v->i; return 0;
  }
}

int expr_eval_value(const expr_node *e, const struct ArrowArray *batch, struct ArrowArray *out) {
  const char *f = e->target_format;
  int64_t n = batch->length;
  column_out o = {.f = f, .chars = DELTA_BUF_INIT};
  o.want = expr_vtype_of_format(f, &o.tp, &o.tscale);
  memset(out, 0, sizeof *out);
  /* a type only copied (bound to the same type): a copy of the column;
   * the others go row by row, which also reads through null structs
   * (MERGE's source side of a target-only row) */
  if (o.want == VT_NULL && e->kind == EX_COLUMN) return copy_column(e, batch, out);
  if (e->has_const) return const_array(e, f, n, out);
  if (o.want == VT_NULL) return err_set(DELTA_EUNSUPPORTED, "assigning NULL to a column of Arrow type %s", f);
  if (o.want == VT_STRING && f[0] != 'u')
    return err_set(DELTA_EUNSUPPORTED, "large string columns are not supported in SET");
  ectx c = {batch, DELTA_BUF_INIT, NULL, 0};
  int rc;
  if ((rc = prepare(&c, e)) != 0) goto done;
  size_t w = o.want == VT_DECIMAL ? 16 : o.want == VT_DATE && f[2] == 'D' ? 4 : width_of(f[0]);
  o.valid = mem_calloc((size_t)(n + 7) / 8 + 1, 1);
  if (o.want == VT_STRING) o.offs = mem_calloc((size_t)n + 1, sizeof *o.offs);
  else if (o.want == VT_BOOL) o.vals = mem_calloc((size_t)(n + 7) / 8 + 1, 1);
  else o.vals = mem_calloc((size_t)n + 1, w);
  if (!o.valid || (!o.vals && !o.offs)) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int64_t r = 0; r < n; r++) {
    buf_reset(&c.scratch);
    sval v;
    if ((rc = eval_row(&c, e, r, &v)) != 0) goto done;
    if (v.t != VT_NULL) {
      sval before = v;
      if ((rc = expr_sval_cast(&c.scratch, &v, o.want, o.tp, o.tscale)) != 0) goto done;
      if (o.want == VT_DATE && v.t == VT_DATE && (v.i > INT32_MAX || v.i < INT32_MIN)) v.t = VT_NULL;
      if (v.t == VT_NULL) {
        rc = store_error(e, &o, &c.scratch, &before);
        goto done;
      }
    }
    if ((rc = store(&o, r, &v, &c.scratch)) != 0) goto done;
  }
  if (o.want == VT_STRING && !o.chars.data && buf_putc(&o.chars, 0)) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = arrow_array_new(out, o.want == VT_STRING ? 3 : 2, 0)) != 0) goto done;
  out->length = n;
  out->null_count = o.nulls;
  arrow_array_set_buffer(out, 0, o.valid);
  o.valid = NULL;
  if (o.want == VT_STRING) {
    arrow_array_set_buffer(out, 1, o.offs);
    o.offs = NULL;
    arrow_array_set_buffer(out, 2, buf_detach(&o.chars));
  } else {
    arrow_array_set_buffer(out, 1, o.vals);
    o.vals = NULL;
  }
done:
  mem_free(o.valid);
  mem_free(o.vals);
  mem_free(o.offs);
  buf_dispose(&o.chars);
  ectx_dispose(&c);
  return rc;
}

