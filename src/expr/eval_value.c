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

/* A string value's bytes (the scratch buffer is unallocated while every
 * string so far was empty). */
static const char *sdata(const ectx *c, const sval *v) {
  return v->s_len ? (const char *)c->scratch.data + v->s_off : "";
}

/* A non-string value as text (Spark's CAST AS STRING forms). */
static int value_text(const sval *v, char *b, size_t cap) {
  switch (v->t) {
  case VT_INT: return snprintf(b, cap, "%lld", (long long)v->i);
  case VT_FLOAT: return snprintf(b, cap, "%.17g", v->d);
  case VT_BOOL: return snprintf(b, cap, "%s", v->b ? "true" : "false");
  case VT_DECIMAL: return dec_format(v->dec, v->scale, b);
  case VT_DATE: return dm_format_date(v->i, b);
  case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: return dm_format_ts(v->i, b);
  default: return snprintf(b, cap, "NULL");
  }
}

static int to_string(ectx *c, sval *v) {
  if (v->t == VT_STRING || v->t == VT_NULL) return 0;
  char b[64];
  int n = value_text(v, b, sizeof b);
  v->s_off = c->scratch.len;
  v->s_len = (size_t)n;
  v->t = VT_STRING;
  return delta_buf_append(&c->scratch, b, (size_t)n);
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

static double num_double(const sval *v) {
  return v->t == VT_INT ? (double)v->i : v->t == VT_DECIMAL ? dec_to_double(v->dec, v->scale) : v->d;
}

/* Convert v to class `to` (decimals to decimal(p, s), HALF_UP). A value
 * that has no form there (text that is no number or date, out of range)
 * becomes NULL; the caller decides whether that is an error. */
static int cast_value(ectx *c, sval *v, value_type to, int p, int s) {
  if (v->t == VT_NULL || (v->t == to && to != VT_DECIMAL)) return 0;
  if (to == VT_STRING) return to_string(c, v);
  if (v->t == VT_STRING) {
    char *tmp = delta_malloc(v->s_len + 1);
    if (!tmp) return DELTA_NOMEM();
    memcpy(tmp, sdata(c, v), v->s_len);
    tmp[v->s_len] = 0;
    char *end;
    errno = 0;
    expr_value ev;
    v->t = VT_NULL;
    switch (to) {
    case VT_INT: {
      long long x = strtoll(tmp, &end, 10);
      if (*tmp && !*end && !errno) v->i = x, v->t = VT_INT;
      break;
    }
    case VT_FLOAT: {
      double x = strtod(tmp, &end);
      if (*tmp && !*end) v->d = x, v->t = VT_FLOAT;
      break;
    }
    case VT_DECIMAL:
      if (dec_parse(tmp, v->s_len, p, s, &v->dec) == DEC_OK) v->t = VT_DECIMAL, v->scale = s;
      break;
    case VT_DATE:
      if (value_parse(VT_DATE, 0, tmp, v->s_len, &ev) == 0) v->i = ev.u.i, v->t = VT_DATE;
      else if (value_parse(VT_TIMESTAMP_NTZ, 0, tmp, v->s_len, &ev) == 0)
        v->i = dm_floor_div(ev.u.i, DM_US_PER_DAY), v->t = VT_DATE;
      break;
    case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ:
      if (value_parse(to == VT_TIMESTAMP ? VT_TIMESTAMP : VT_TIMESTAMP_NTZ, 0, tmp, v->s_len, &ev) == 0) v->i = ev.u.i, v->t = to;
      break;
    default:
      if (strcasecmp(tmp, "true") == 0) v->b = true, v->t = VT_BOOL;
      else if (strcasecmp(tmp, "false") == 0) v->b = false, v->t = VT_BOOL;
    }
    delta_free(tmp);
    return 0;
  }
  if (expr_vtype_datetime(to)) {
    if (v->t == VT_DATE) {
      if (v->i > 106751991 || v->i < -106751991) v->t = VT_NULL;
      else v->i *= DM_US_PER_DAY, v->t = to;
    } else if (to == VT_DATE) {
      v->i = dm_floor_div(v->i, DM_US_PER_DAY), v->t = VT_DATE;
    } else {
      v->t = to; /* timestamp <-> timestamp_ntz: the same instant, read as UTC */
    }
    return 0;
  }
  switch (to) {
  case VT_INT:
    if (v->t == VT_FLOAT) {
      if (isnan(v->d) || v->d >= 9.2233720368547758e18 || v->d < -9.2233720368547758e18) v->t = VT_NULL;
      else v->i = (int64_t)v->d, v->t = VT_INT;
    } else if (v->t == VT_DECIMAL) {
      long long x;
      if (dec_to_int64(v->dec, v->scale, &x)) v->i = x, v->t = VT_INT;
      else v->t = VT_NULL;
    } else {
      v->i = v->b, v->t = VT_INT;
    }
    return 0;
  case VT_FLOAT:
    v->d = v->t == VT_BOOL ? v->b : num_double(v);
    v->t = VT_FLOAT;
    return 0;
  case VT_DECIMAL: {
    int rc = v->t == VT_DECIMAL ? dec_rescale(v->dec, v->scale, p, s, &v->dec)
             : v->t == VT_INT ? dec_rescale(v->i, 0, p, s, &v->dec)
             : v->t == VT_FLOAT ? dec_from_double(v->d, p, s, &v->dec)
                               : dec_rescale(v->b ? 1 : 0, 0, p, s, &v->dec);
    v->t = rc == DEC_OK ? VT_DECIMAL : VT_NULL;
    v->scale = s;
    return 0;
  }
  default:
    v->b = v->t == VT_INT ? v->i != 0 : v->t == VT_DECIMAL ? v->dec != 0 : v->d != 0;
    v->t = VT_BOOL;
    return 0;
  }
}

/* A function's date (or timestamp) argument: strings are parsed, and
 * text that is no date is an error (Spark's ANSI casts). */
static int as_temporal(ectx *c, sval *v, value_type to) {
  if (v->t == VT_NULL) return 0;
  char text[64];
  int n = 0;
  if (v->t == VT_STRING) n = snprintf(text, sizeof text, "%.*s", (int)(v->s_len > 60 ? 60 : v->s_len),
                                     sdata(c, v));
  int rc = cast_value(c, v, to, 0, 0);
  if (!rc && v->t == VT_NULL)
    rc = delta_error_set(DELTA_EINVAL, "expression: '%.*s' is not a %s", n, text, to == VT_DATE ? "date" : "timestamp");
  return rc;
}

static int date_result(sval *out, int64_t days) {
  if (days > INT32_MAX || days < INT32_MIN) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
  out->t = VT_DATE;
  out->i = days;
  return 0;
}

/* date or timestamp +/- interval (months first, then days, then time, as
 * Spark adds a calendar interval; a timestamp's months move its UTC date). */
static int add_interval(const expr_node *e, const sval *base, const sval *iv, int sign, sval *out) {
  int64_t months = sign * iv->iv_months, days = sign * iv->iv_days, us = sign * iv->i;
  if (e->type == VT_DATE) {
    int64_t d = base->i;
    if (months && !dm_add_months(d, months, &d)) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, d + days);
  }
  int64_t t = base->t == VT_DATE ? base->i * DM_US_PER_DAY : base->i;
  if (months) {
    int64_t d = dm_floor_div(t, DM_US_PER_DAY), tod = t - d * DM_US_PER_DAY;
    if (!dm_add_months(d, months, &d)) return delta_error_set(DELTA_EINVAL, "expression: timestamp out of range");
    t = d * DM_US_PER_DAY + tod;
  }
  int64_t dd;
  if (__builtin_mul_overflow(days, DM_US_PER_DAY, &dd) || __builtin_add_overflow(t, dd, &t) ||
      __builtin_add_overflow(t, us, &t))
    return delta_error_set(DELTA_EINVAL, "expression: timestamp out of range");
  out->t = e->type;
  out->i = t;
  return 0;
}

static int eval_bin(ectx *c, const expr_node *e, sval *a, sval *b, sval *out) {
  int rc = 0;
  if (e->arith == '|') {
    if ((rc = to_string(c, a)) || (rc = to_string(c, b))) return rc;
    size_t at = c->scratch.len;
    if (a->s_len + b->s_len) {
      if ((rc = delta_buf_reserve(&c->scratch, a->s_len + b->s_len))) return rc;
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
    double x = num_double(a), y = num_double(b);
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
      if (drc == DEC_DIVZERO) return delta_error_set(DELTA_EINVAL, "expression: division by zero in %s %c %s", ta, e->arith, tb);
      return delta_error_set(DELTA_EINVAL, "expression: decimal overflow: %s %c %s does not fit decimal(%d,%d)", ta,
                             e->arith, tb, e->prec, e->scale);
    }
    out->t = VT_DECIMAL;
    out->scale = e->scale;
    return 0;
  }
  case VT_DATE: case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: {
    int sign = e->arith == '-' ? -1 : 1;
    if (b->t == VT_INTERVAL) return add_interval(e, a, b, sign, out);
    if (a->t == VT_INTERVAL) return add_interval(e, b, a, 1, out);
    /* date +/- days */
    int64_t days = a->t == VT_DATE ? a->i : b->i, n = a->t == VT_DATE ? b->i : a->i;
    if (n > INT32_MAX || n < -(int64_t)INT32_MAX) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, days + sign * n);
  }
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
  if (ovf) return delta_error_set(DELTA_EINVAL, "expression: integer overflow in '%c'", e->arith);
  out->t = VT_INT;
  out->i = z;
  return 0;
}

static int eval_func(ectx *c, const expr_node *e, int64_t r, sval *out) {
  sval a, b;
  int rc = 0;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  if (e->n_args > 0 && (rc = eval_row(c, e->args[0], r, &a))) return rc;
  if (e->n_args > 1 && (rc = eval_row(c, e->args[1], r, &b))) return rc;
  switch (e->fn) {
  case DF_CURRENT_DATE: case DF_CURRENT_TIMESTAMP:
    out->t = e->type;
    out->i = e->li;
    return 0;
  case DF_DATE_ADD: case DF_DATE_SUB: case DF_ADD_MONTHS:
    if (a.t == VT_NULL || b.t == VT_NULL) return 0;
    if ((rc = as_temporal(c, &a, VT_DATE))) return rc;
    if (e->fn == DF_ADD_MONTHS) {
      int64_t d;
      if (!dm_add_months(a.i, b.i, &d)) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
      return date_result(out, d);
    }
    if (b.i > INT32_MAX || b.i < -(int64_t)INT32_MAX) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, e->fn == DF_DATE_ADD ? a.i + b.i : a.i - b.i);
  case DF_DATEDIFF:
    if (a.t == VT_NULL || b.t == VT_NULL) return 0;
    if ((rc = as_temporal(c, &a, VT_DATE)) || (rc = as_temporal(c, &b, VT_DATE))) return rc;
    out->t = VT_INT;
    out->i = a.i - b.i;
    return 0;
  case DF_DATE_TRUNC:
    if (b.t == VT_NULL) return 0;
    if ((rc = as_temporal(c, &b, e->type))) return rc;
    out->t = e->type;
    out->i = dm_trunc(b.i, e->trunc_unit);
    return 0;
  case DF_TO_DATE:
    if ((rc = as_temporal(c, &a, VT_DATE))) return rc;
    *out = a;
    return 0;
  case DF_UNIX_MICROS: case DF_UNIX_SECONDS:
    if ((rc = as_temporal(c, &a, a.t == VT_TIMESTAMP_NTZ ? VT_TIMESTAMP_NTZ : VT_TIMESTAMP)) || a.t == VT_NULL) return rc;
    out->t = VT_INT;
    out->i = e->fn == DF_UNIX_MICROS ? a.i : dm_floor_div(a.i, 1000000);
    return 0;
  case DF_TIMESTAMP_MICROS: case DF_TIMESTAMP_SECONDS:
    if (a.t == VT_NULL) return 0;
    out->t = VT_TIMESTAMP;
    out->i = a.i;
    if (e->fn == DF_TIMESTAMP_SECONDS && __builtin_mul_overflow(a.i, (int64_t)1000000, &out->i))
      return delta_error_set(DELTA_EINVAL, "expression: timestamp out of range");
    return 0;
  }
  return 0;
}

/* A CASE or COALESCE branch's value in the expression's type (a decimal
 * widened to the common scale, a date to a timestamp...). */
static int coerce(ectx *c, const expr_node *e, sval *out) {
  if (out->t == VT_NULL || (out->t == e->type && e->type != VT_DECIMAL)) return 0;
  if (e->type == VT_INT || e->type == VT_NULL) return 0;
  int rc = cast_value(c, out, e->type, e->prec, e->scale);
  if (!rc && out->t == VT_NULL)
    rc = delta_error_set(DELTA_EINVAL, "expression: decimal overflow: a value does not fit decimal(%d,%d)", e->prec,
                         e->scale);
  return rc;
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
      rc = delta_buf_append(&c->scratch, e->text, e->text_len);
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
      rc = delta_buf_append(&c->scratch, v.u.s.p, v.u.s.n);
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
    return cast_value(c, out, e->cast_to, e->cast_prec, e->cast_scale);
  case EX_FUNC: {
    if (e->fn >= 0) return eval_func(c, e, r, out);
    sval a[e->n_args + 1];
    for (int i = 0; i < e->n_args; i++) {
      if ((rc = eval_row(c, e->args[i], r, &a[i]))) return rc;
      if (a[i].t == VT_TIMESTAMP_NTZ) a[i].t = VT_TIMESTAMP;
    }
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
  cond_mask *m = delta_realloc(c->masks, (size_t)(c->n_masks + 1) * sizeof *m);
  if (!m) return DELTA_NOMEM();
  c->masks = m;
  uint8_t *tri = delta_malloc((size_t)c->batch->length + 1);
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
  for (int i = 0; i < c->n_masks; i++) delta_free(c->masks[i].tri);
  delta_free(c->masks);
  delta_buf_dispose(&c->scratch);
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
  uint8_t *vals = delta_malloc((size_t)n * w + 16);
  if (!vals) return DELTA_NOMEM();
  for (int64_t r = 0; r < n; r++) {
    if (w == 16) memcpy(vals + (size_t)r * 16, &e->konst.u.dec, 16); /* little-endian, as Arrow's decimal128 */
    else if (w == 4) ((int32_t *)vals)[r] = (int32_t)e->konst.u.i;
    else ((int64_t *)vals)[r] = e->konst.u.i;
  }
  int rc = arrow_array_new(out, 2, 0);
  if (rc) {
    delta_free(vals);
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
  uint8_t *all = delta_malloc((size_t)n + 1);
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
        rc = delta_error_set(DELTA_EUNSUPPORTED, "copying %s: a struct with an offset or nulls", (const char *)b.data);
      delta_buf_dispose(&b);
      goto done;
    }
    a = a->children[e->child_index[d]];
  }
  rc = arrow_filter(e->schema, a, all, out);
done:
  delta_free(all);
  return rc;
}

int expr_eval_value(const expr_node *e, const struct ArrowArray *batch, struct ArrowArray *out) {
  const char *f = e->target_format;
  int64_t n = batch->length;
  int tp, tscale;
  value_type want = expr_vtype_of_format(f, &tp, &tscale);
  memset(out, 0, sizeof *out);
  /* a type only copied (bound to the same type): a copy of the column;
   * the others go row by row, which also reads through null structs
   * (MERGE's source side of a target-only row) */
  if (want == VT_NULL && e->kind == EX_COLUMN) return copy_column(e, batch, out);
  if (e->has_const) return const_array(e, f, n, out);
  if (want == VT_NULL) return delta_error_set(DELTA_EUNSUPPORTED, "assigning NULL to a column of Arrow type %s", f);
  ectx c = {batch, DELTA_BUF_INIT, NULL, 0};
  int rc = prepare(&c, e);
  uint8_t *valid = delta_calloc((size_t)(n + 7) / 8 + 1, 1);
  size_t w = want == VT_DECIMAL ? 16 : want == VT_DATE && f[2] == 'D' ? 4 : width_of(f[0]);
  void *vals = NULL;
  int32_t *offs = NULL;
  delta_buf chars = DELTA_BUF_INIT;
  if (want == VT_STRING) offs = delta_calloc((size_t)n + 1, sizeof *offs);
  else if (want == VT_BOOL) vals = delta_calloc((size_t)(n + 7) / 8 + 1, 1);
  else vals = delta_calloc((size_t)n + 1, w);
  if (!valid || (!vals && !offs)) rc = DELTA_NOMEM();
  int64_t nulls = 0;
  for (int64_t r = 0; r < n && !rc; r++) {
    delta_buf_reset(&c.scratch);
    sval v;
    if ((rc = eval_row(&c, e, r, &v))) break;
    bool had_value = v.t != VT_NULL;
    sval before = v;
    if (had_value && (rc = cast_value(&c, &v, want, tp, tscale))) break;
    if (had_value && want == VT_DATE && v.t == VT_DATE && (v.i > INT32_MAX || v.i < INT32_MIN)) v.t = VT_NULL;
    if (had_value && v.t == VT_NULL) {
      /* Spark's ANSI store assignment: an error naming the column and value */
      char text[64];
      if (before.t == VT_STRING)
        snprintf(text, sizeof text, "'%.*s'", (int)(before.s_len > 40 ? 40 : before.s_len), sdata(&c, &before));
      else value_text(&before, text, sizeof text);
      if (want == VT_DECIMAL)
        rc = delta_error_set(DELTA_EINVAL, "expression: %s does not fit column %s decimal(%d,%d)", text,
                             e->target_name, tp, tscale);
      else if (before.t == VT_STRING && expr_vtype_datetime(want))
        rc = delta_error_set(DELTA_EINVAL, "expression: %s is not a %s for column %s", text, expr_vtype_name(want),
                             e->target_name);
      else
        rc = delta_error_set(DELTA_EINVAL, "expression: a value does not fit the column %s (NaN or out of range: %s)",
                             e->target_name, text);
      break;
    }
    if (v.t == VT_NULL) nulls++;
    else arrow_bit_set(valid, r);
    if (want == VT_STRING) {
      if (v.t != VT_NULL && v.s_len) rc = delta_buf_append(&chars, sdata(&c, &v), v.s_len);
      if (chars.len > INT32_MAX) rc = delta_error_set(DELTA_ELIMIT, "string column over 2 GiB");
      offs[r + 1] = (int32_t)chars.len;
      continue;
    }
    if (v.t == VT_NULL) continue;
    if (want == VT_BOOL) {
      if (v.b) arrow_bit_set(vals, r);
      continue;
    }
    switch (f[0]) {
    case 'c': case 's': case 'i': {
      int64_t lo = f[0] == 'c' ? INT8_MIN : f[0] == 's' ? INT16_MIN : INT32_MIN;
      int64_t hi = f[0] == 'c' ? INT8_MAX : f[0] == 's' ? INT16_MAX : INT32_MAX;
      if (v.i < lo || v.i > hi) {
        rc = delta_error_set(DELTA_EINVAL, "expression: value %lld does not fit the column", (long long)v.i);
        break;
      }
      if (f[0] == 'c') ((int8_t *)vals)[r] = (int8_t)v.i;
      else if (f[0] == 's') ((int16_t *)vals)[r] = (int16_t)v.i;
      else ((int32_t *)vals)[r] = (int32_t)v.i;
      break;
    }
    case 'f': ((float *)vals)[r] = (float)v.d; break;
    case 'g': ((double *)vals)[r] = v.d; break;
    case 'd': memcpy((uint8_t *)vals + (size_t)r * 16, &v.dec, 16); break; /* little-endian, as Arrow's */
    case 't':
      if (want == VT_DATE) {
        if (f[2] == 'D') ((int32_t *)vals)[r] = (int32_t)v.i;
        else ((int64_t *)vals)[r] = v.i * 86400000;
      } else {
        int64_t t = v.i;
        if (f[2] == 's') t = dm_floor_div(t, 1000000);
        else if (f[2] == 'm') t = dm_floor_div(t, 1000);
        else if (f[2] == 'n') t *= 1000;
        ((int64_t *)vals)[r] = t;
      }
      break;
    default: ((int64_t *)vals)[r] = v.i;
    }
  }
  if (!rc && want == VT_STRING && f[0] != 'u')
    rc = delta_error_set(DELTA_EUNSUPPORTED, "large string columns are not supported in SET");
  if (!rc) rc = arrow_array_new(out, want == VT_STRING ? 3 : 2, 0);
  if (!rc) {
    out->length = n;
    out->null_count = nulls;
    arrow_array_set_buffer(out, 0, valid);
    valid = NULL;
    if (want == VT_STRING) {
      if (!chars.data) rc = delta_buf_putc(&chars, 0);
      arrow_array_set_buffer(out, 1, offs);
      offs = NULL;
      arrow_array_set_buffer(out, 2, delta_buf_detach(&chars));
    } else {
      arrow_array_set_buffer(out, 1, vals);
      vals = NULL;
    }
  }
  delta_free(valid);
  delta_free(vals);
  delta_free(offs);
  delta_buf_dispose(&chars);
  ectx_dispose(&c);
  return rc;
}

