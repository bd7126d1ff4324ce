/* Binding a value expression: columns resolved, literals typed by their
 * syntax, and each operator's result type by Spark SQL's rules (decimal
 * precision and scale, date and interval arithmetic, the common type of
 * CASE and COALESCE branches). Then, for SET and generation expressions,
 * whether the result can be stored into the target column. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expr/date_math.h"
#include "expr/dec_math.h"
#include "expr/expr_internal.h"
#include "expr/value_eval.h"
#include "expr/value_funcs.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static bool numeric_t(value_type t) { return expr_vtype_numeric(t); }
static bool datetime_t(value_type t) { return expr_vtype_datetime(t); }
static const char *tname(value_type t) { return expr_vtype_name(t); }

/* NULL written as a literal (a column of a type the evaluator does not
 * know is VT_NULL too, and is no operand) */
static bool null_lit(const expr_node *e) { return e->type == VT_NULL && e->kind != EX_COLUMN; }

/* An integer or decimal operand's decimal(p, s) (Spark: an integer column
 * by its width, an integer literal by its digits). */
static void dec_type_of(const expr_node *e, int *p, int *s) {
  if (e->type == VT_DECIMAL) {
    *p = e->prec;
    *s = e->scale;
  } else {
    *p = e->prec > 0 ? e->prec : 20;
    *s = 0;
  }
}

int expr_interval_misuse(void) {
  return err_set(DELTA_EINVAL,
                         "expression: an INTERVAL can only be added to or subtracted from a date or timestamp");
}

/* A literal typed by its own syntax: 1.5 is a decimal(2,1), 1e3 a double,
 * 7 an integer that meets decimals as decimal(1,0), as in Spark. */
static int bind_literal(expr_node *e) {
  e->int_lit = false;
  e->prec = e->scale = 0;
  switch (e->lit) {
  case LIT_NULL: e->type = VT_NULL; return 0;
  case LIT_BOOL:
    e->type = VT_BOOL;
    e->li = e->text[0] == 't' || e->text[0] == 'T';
    return 0;
  case LIT_STRING: e->type = VT_STRING; return 0;
  case LIT_INTERVAL: e->type = VT_INTERVAL; return 0;
  case LIT_BINARY:
    return err_set(DELTA_EINVAL, "expression: binary literals are not supported in value expressions");
  case LIT_DATE: case LIT_TIMESTAMP: case LIT_TIMESTAMP_NTZ: {
    expr_value v;
    value_type vt = e->lit == LIT_DATE ? VT_DATE : e->lit == LIT_TIMESTAMP ? VT_TIMESTAMP : VT_TIMESTAMP_NTZ;
    if (value_parse(vt, 0, e->text, e->text_len, &v) != 0)
      return err_set(DELTA_EINVAL, "expression: not a %s literal: '%s'", e->lit == LIT_DATE ? "DATE" : "TIMESTAMP",
                             e->text);
    e->type = vt;
    e->li = v.u.i;
    return 0;
  }
  case LIT_NUMBER: break;
  }
  const char *t = e->text, *dot = strchr(t, '.');
  bool exp = strpbrk(t, "eE") != NULL;
  if (dot && !exp && dec_parse(t, e->text_len, DEC_MAX_PRECISION, (int)strlen(dot + 1), &e->ldec) == 0) {
    e->type = VT_DECIMAL;
    e->scale = (int)strlen(dot + 1);
    int digits = e->ldec == 0 ? 1 : dec_digits(e->ldec);
    e->prec = digits > e->scale ? digits : e->scale;
    if (e->prec == 0) e->prec = 1;
    e->ld = strtod(t, NULL);
    return 0;
  }
  if (dot || exp) {
    e->type = VT_FLOAT;
    e->ld = strtod(t, NULL);
    return 0;
  }
  errno = 0;
  e->li = strtoll(t, NULL, 10);
  if (errno) return err_set(DELTA_EINVAL, "expression: integer out of range: %s", t);
  e->type = VT_INT;
  e->int_lit = true;
  e->prec = e->li == 0 ? 1 : dec_digits(e->li);
  return 0;
}

static int bind_arith(expr_node *e) {
  const expr_node *x = e->args[0], *y = e->args[1];
  value_type a = x->type, b = y->type;
  if (e->arith == '|') {
    if (a == VT_INTERVAL || b == VT_INTERVAL) return expr_interval_misuse();
    e->type = VT_STRING;
    return 0;
  }
  if (a == VT_INTERVAL || b == VT_INTERVAL || datetime_t(a) || datetime_t(b)) return expr_date_arith_bind(e);
  bool an = numeric_t(a) || null_lit(x), bn = numeric_t(b) || null_lit(y);
  if (!an || !bn)
    return err_set(DELTA_EINVAL, "expression: '%c' needs numbers, not %s and %s", e->arith, tname(a), tname(b));
  if (a == VT_FLOAT || b == VT_FLOAT) {
    e->type = VT_FLOAT; /* decimal with double is double, as in Spark */
    return 0;
  }
  if (a == VT_DECIMAL || b == VT_DECIMAL) {
    int p1, s1, p2, s2;
    dec_type_of(a == VT_NULL ? y : x, &p1, &s1);
    dec_type_of(b == VT_NULL ? x : y, &p2, &s2);
    dec_result_type(e->arith, p1, s1, p2, s2, &e->prec, &e->scale);
    e->type = VT_DECIMAL;
    return 0;
  }
  /* As in Spark, '/' divides as double even for integers (CAST the
   * result, or assign it to an integer column, to truncate). */
  e->type = e->arith == '/' ? VT_FLOAT : VT_INT;
  int wx = x->int_lit ? (x->li == (int32_t)x->li ? 10 : 20) : x->prec;
  int wy = y->int_lit ? (y->li == (int32_t)y->li ? 10 : 20) : y->prec;
  e->prec = wx > wy ? wx : wy;
  return 0;
}

/* The common type of CASE's or COALESCE's values (Spark's wider type:
 * numbers widen to decimal or double, a date to a timestamp). */
static int bind_branches(expr_node *e) {
  value_type t = VT_NULL;
  int int_digits = 0, scale = 0, iprec = 0;
  for (int i = 0; i < e->n_args; i++) {
    if (e->kind == EX_CASE && i % 2 == 0 && i < e->n_args - 1) continue; /* a condition */
    const expr_node *x = e->args[i];
    value_type a = x->type;
    if (a == VT_INTERVAL) return expr_interval_misuse();
    if (a == VT_INT || a == VT_DECIMAL) {
      int p, sc;
      dec_type_of(x, &p, &sc);
      if (a == VT_INT && x->int_lit) p = x->li == (int32_t)x->li ? 10 : 20; /* an int, not the literal's digits */
      if (p - sc > int_digits) int_digits = p - sc;
      if (sc > scale) scale = sc;
      if (a == VT_INT && x->prec > iprec) iprec = x->int_lit ? 20 : x->prec;
    }
    if (a == VT_NULL) continue;
    if (t == VT_NULL) t = a;
    else if (t != a) {
      if (numeric_t(t) && numeric_t(a)) t = t == VT_FLOAT || a == VT_FLOAT ? VT_FLOAT : VT_DECIMAL;
      else if ((t == VT_DATE && (a == VT_TIMESTAMP || a == VT_TIMESTAMP_NTZ)) ||
               (a == VT_DATE && (t == VT_TIMESTAMP || t == VT_TIMESTAMP_NTZ)))
        t = t == VT_DATE ? a : t; /* a date widens to the timestamp */
      else
        return err_set(DELTA_EINVAL, "expression: %s mixes %s and %s", e->kind == EX_CASE ? "CASE" : "COALESCE",
                               tname(t), tname(a));
    }
  }
  e->type = t;
  if (t == VT_DECIMAL) {
    /* Spark's wider decimal: the most integral digits and the largest scale */
    e->scale = scale;
    e->prec = int_digits + scale > DEC_MAX_PRECISION ? DEC_MAX_PRECISION : int_digits + scale;
  } else if (t == VT_INT) {
    e->prec = iprec ? iprec : 20;
  }
  return 0;
}

static int bind_cast(expr_node *e) {
  value_type from = e->args[0]->type, to = e->cast_to;
  bool ok = from == to || from == VT_NULL || from == VT_STRING || (to == VT_STRING && from != VT_INTERVAL) ||
            ((numeric_t(from) || from == VT_BOOL) && (numeric_t(to) || to == VT_BOOL)) ||
            (datetime_t(from) && datetime_t(to));
  if (!ok) return err_set(DELTA_EINVAL, "expression: cannot CAST a %s AS %s", tname(from), tname(to));
  e->type = to;
  e->prec = e->cast_prec;
  e->scale = e->cast_scale;
  return 0;
}

/* value_funcs.h's functions (calendar fields, strings). */
static int bind_xfunc(expr_node *e) {
  value_type at[e->n_args + 1];
  for (int i = 0; i < e->n_args; i++) {
    at[i] = e->args[i]->type == VT_TIMESTAMP_NTZ ? VT_TIMESTAMP : e->args[i]->type;
    if (at[i] == VT_DECIMAL || at[i] == VT_INTERVAL || !(at[i] <= VT_TIMESTAMP))
      return err_set(DELTA_EINVAL, "expression: %s does not take a %s", e->text, tname(at[i]));
  }
  int rc = vfunc_bind(e->xfn, at, e->n_args, &e->type);
  if (rc) return rc;
  if (e->type == VT_INT) e->prec = 20;
  return 0;
}

int expr_bind_value(expr_node *e, const struct ArrowSchema *s) {
  int rc;
  if (expr_is_predicate(e->kind) || e->kind == EX_AND || e->kind == EX_OR || e->kind == EX_NOT) {
    /* a condition as a boolean value, bound as a filter is */
    if ((rc = expr_bind(e, s)) != 0) return rc;
    e->type = VT_BOOL;
    return 0;
  }
  if (e->kind == EX_LITERAL) return bind_literal(e);
  if (e->kind == EX_COLUMN) {
    if ((rc = expr_resolve_column(e, s, true)) != 0) return rc;
    e->type = expr_vtype_of_format(e->format, &e->prec, &e->scale);
    return 0;
  }
  for (int i = 0; i < e->n_args; i++) {
    if (e->kind == EX_CASE && i % 2 == 0 && i < e->n_args - 1) continue; /* conditions: below */
    if ((rc = expr_bind_value(e->args[i], s)) != 0) return rc;
  }
  switch (e->kind) {
  case EX_NEG: {
    const expr_node *a = e->args[0];
    if (!numeric_t(a->type) && a->type != VT_INTERVAL && !null_lit(a))
      return err_set(DELTA_EINVAL, "expression: cannot negate a %s", tname(a->type));
    e->type = a->type;
    e->prec = a->prec;
    e->scale = a->scale;
    e->int_lit = a->int_lit;
    return 0;
  }
  case EX_ARITH: return bind_arith(e);
  case EX_CASE:
    if ((rc = bind_branches(e)) != 0) return rc;
    for (int i = 0; i + 1 < e->n_args; i += 2)
      if ((rc = expr_bind(e->args[i], s)) != 0) return rc;
    return 0;
  case EX_COALESCE: return bind_branches(e);
  case EX_CAST: return bind_cast(e);
  case EX_FUNC: return e->fn >= 0 ? expr_date_func_bind(e) : bind_xfunc(e);
  default: return 0;
  }
}

int expr_bind_natural(expr_node *e, const struct ArrowSchema *s) {
  int rc = expr_bind_value(e, s);
  if (rc) return rc;
  delta_buf b = DELTA_BUF_INIT;
  if (expr_to_text(e, &b) || buf_putc(&b, '\0')) {
    buf_dispose(&b);
    return DELTA_NOMEM();
  }
  mem_free(e->target_name);
  e->target_name = (char *)buf_detach(&b);
  e->has_const = false;
  if (e->type == VT_DECIMAL) {
    snprintf(e->nat_format, sizeof e->nat_format, "d:%d,%d", e->prec, e->scale);
    e->target_format = e->nat_format;
  } else {
    e->target_format = expr_vtype_format(e->type);
  }
  return 0;
}

/* ------------------------------------------------------------ vexpr API */

int vexpr_parse(const char *text, vexpr **out) { return expr_parse_mode(text, true, out); }
void vexpr_free(vexpr *e) { expr_free(e); }
int vexpr_qualify(vexpr *e, expr_qualify_fn fn, void *ctx) { return expr_qualify(e, fn, ctx); }

int vexpr_natural_type(vexpr *e, const struct ArrowSchema *schema, const struct ArrowSchema **column,
                       const char **format) {
  *column = NULL;
  *format = NULL;
  int rc = expr_bind_value(e, schema);
  if (rc) return rc;
  if (e->kind == EX_COLUMN) {
    *column = e->schema;
    *format = e->format;
    return 0;
  }
  if (e->type == VT_INTERVAL) return expr_interval_misuse();
  if (e->type == VT_DECIMAL) {
    /* the expression's own decimal(p, s), kept with it for the caller */
    snprintf(e->nat_format, sizeof e->nat_format, "d:%d,%d", e->prec, e->scale);
    *format = e->nat_format;
    return 0;
  }
  *format = expr_vtype_format(e->type);
  return 0;
}

const struct ArrowSchema *vexpr_column_schema(const vexpr *e) { return e->kind == EX_COLUMN ? e->schema : NULL; }
bool vexpr_is_null(const vexpr *e) { return e->kind == EX_LITERAL && e->lit == LIT_NULL; }

/* A literal's text as a value of the column's class. Decimals with more
 * fractional digits than the column are rounded half up (Spark's store
 * assignment); ones that do not fit the precision fail. */
static int parse_const(value_type vt, const char *format, int scale, const char *text, size_t len, expr_value *out) {
  if (vt != VT_DECIMAL) return value_parse(vt, scale, text, len, out);
  int precision = 0;
  value_type_of_arrow(format, &precision, NULL);
  if (memchr(text, 'e', len) || memchr(text, 'E', len)) return -1;
  out->type = VT_DECIMAL;
  out->is_null = false;
  out->scale = scale;
  return dec_parse(text, len, precision, scale, &out->u.dec) == DEC_OK ? 0 : -1;
}

/* A literal alone for a date, timestamp or decimal column (DATE '..', a
 * string in those forms, a number, -number): parsed once as the column's
 * type, or the one-line error naming column and literal. *done false when
 * e is no such literal. */
static int bind_const(expr_node *e, value_type vt, int scale, const char *target_format, const char *target_name,
                      bool *done) {
  *done = false;
  bool neg = e->kind == EX_NEG && e->args[0]->kind == EX_LITERAL && e->args[0]->lit == LIT_NUMBER &&
             e->args[0]->text[0] != '-';
  const expr_node *lit = neg ? e->args[0] : e;
  if (lit->kind != EX_LITERAL || lit->lit == LIT_NULL || lit->lit == LIT_BOOL || lit->lit == LIT_INTERVAL ||
      lit->lit == LIT_BINARY)
    return 0;
  bool typed = lit->lit == LIT_DATE || lit->lit == LIT_TIMESTAMP || lit->lit == LIT_TIMESTAMP_NTZ;
  bool stringish = typed || lit->lit == LIT_STRING;
  bool temporal = vt != VT_DECIMAL;
  bool ok_kind = temporal ? stringish : !typed;
  char *text = mem_malloc(lit->text_len + 2);
  if (!text) return DELTA_NOMEM();
  size_t len = 0;
  if (neg) text[len++] = '-';
  memcpy(text + len, lit->text, lit->text_len);
  len += lit->text_len;
  text[len] = '\0';
  int rc = 0;
  *done = true;
  if (ok_kind && parse_const(vt, target_format, scale, text, len, &e->konst) == 0) e->has_const = true;
  else
    rc = err_set(DELTA_EINVAL, "column %s is %s: cannot assign %s%.*s%s", target_name, value_type_name(vt),
                         stringish ? "'" : "", (int)len, text, stringish ? "'" : "");
  mem_free(text);
  return rc;
}

int vexpr_bind(vexpr *e, const struct ArrowSchema *schema, const char *target_format, const char *target_name) {
  int rc = expr_bind_value(e, schema);
  if (rc) return rc;
  e->target_format = target_format;
  e->has_const = false;
  mem_free(e->target_name);
  if (!(e->target_name = mem_strdup(target_name))) return DELTA_NOMEM();
  int tp, tscale;
  value_type want = expr_vtype_of_format(target_format, &tp, &tscale);
  /* the same column's type (copied as is), or NULL */
  if ((e->kind == EX_COLUMN && strcmp(e->format, target_format) == 0) || vexpr_is_null(e)) return 0;
  int scale = 0;
  value_type vt = value_type_of_arrow(target_format, NULL, &scale);
  if (vt == VT_DATE || vt == VT_TIMESTAMP || vt == VT_TIMESTAMP_NTZ || vt == VT_DECIMAL) {
    bool done;
    if ((rc = bind_const(e, vt, scale, target_format, target_name, &done)) != 0 || done) return rc;
  }
  if (want == VT_NULL)
    return err_set(DELTA_EINVAL, "column %s: only a column of the same type or NULL can be assigned to it",
                           target_name);
  value_type got = e->type;
  if (got == VT_INTERVAL) return expr_interval_misuse();
  /* Spark's ANSI store assignment: numbers convert either way (a double
   * into an integer column truncates; out of range is an error), dates and
   * timestamps into one another, anything into a string. */
  bool ok = got == VT_NULL || got == want || (numeric_t(want) && numeric_t(got)) || want == VT_STRING ||
            (datetime_t(want) && (datetime_t(got) || got == VT_STRING)) || (want == VT_DECIMAL && got == VT_STRING);
  if (ok) return 0;
  return err_set(DELTA_EINVAL, "column %s is %s: cannot assign a %s (use CAST)", target_name, tname(want),
                         tname(got));
}
