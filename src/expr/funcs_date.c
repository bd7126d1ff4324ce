/* The date and time functions of value expressions (date_add, date_sub,
 * add_months, datediff, date_trunc, current_date, current_timestamp/now,
 * to_date, unix_micros, unix_seconds, timestamp_micros,
 * timestamp_seconds) and date arithmetic (date +/- days, dates and
 * timestamps +/- INTERVALs): their types, by Spark SQL's rules, and their
 * values. value_funcs.c has the calendar fields (year, month...) and
 * date_format. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "expr/date_math.h"
#include "expr/expr_internal.h"
#include "util/error_internal.h"

static const char *tname(value_type t) { return expr_vtype_name(t); }
static bool datetime_t(value_type t) { return expr_vtype_datetime(t); }
static bool null_lit(const expr_node *e) { return e->type == VT_NULL && e->kind != EX_COLUMN; }
static bool dateish(const expr_node *e) { return datetime_t(e->type) || e->type == VT_STRING || null_lit(e); }

/* The INTERVAL literal under any unary minus. */
static const expr_node *ivl_lit(const expr_node *e) {
  while (e->kind == EX_NEG) e = e->args[0];
  return e;
}

/* + and - with a date, a timestamp or an interval (Spark's rules: date +
 * integer is date_add, a timestamp takes only intervals, and a date plus
 * an interval with hours or less becomes a timestamp). */
int expr_date_arith_bind(expr_node *e) {
  value_type a = e->args[0]->type, b = e->args[1]->type;
  char op = e->arith;
  bool addsub = op == '+' || op == '-';
  if (addsub && null_lit(e->args[0]) && (datetime_t(b) || b == VT_INTERVAL)) a = b == VT_INTERVAL ? VT_TIMESTAMP : b;
  if (addsub && null_lit(e->args[1]) && (datetime_t(a) || a == VT_INTERVAL)) b = VT_INT;
  if (addsub && a == VT_DATE && b == VT_INT) e->type = VT_DATE;
  else if (op == '+' && a == VT_INT && b == VT_DATE) e->type = VT_DATE;
  else if (addsub && datetime_t(a) && b == VT_INTERVAL)
    e->type = a == VT_DATE ? (ivl_lit(e->args[1])->iv_us ? VT_TIMESTAMP : VT_DATE) : a;
  else if (op == '+' && a == VT_INTERVAL && datetime_t(b))
    e->type = b == VT_DATE ? (ivl_lit(e->args[0])->iv_us ? VT_TIMESTAMP : VT_DATE) : b;
  else if (op == '-' && datetime_t(a) && datetime_t(b))
    return err_set(DELTA_EINVAL, "expression: %s - %s is not supported: use datediff(end, start)", tname(a),
                           tname(b));
  else if (addsub && ((a == VT_INT && (b == VT_TIMESTAMP || b == VT_TIMESTAMP_NTZ)) ||
                      ((a == VT_TIMESTAMP || a == VT_TIMESTAMP_NTZ) && b == VT_INT)))
    return err_set(DELTA_EINVAL, "expression: %s %c integer is not defined (as in Spark): "
                           "add an INTERVAL instead, e.g. ts + INTERVAL 1 HOUR", "timestamp", op);
  else if (a == VT_INTERVAL || b == VT_INTERVAL) return expr_interval_misuse();
  else
    return err_set(DELTA_EINVAL, "expression: '%c' cannot be applied to %s and %s", op, tname(a), tname(b));
  return 0;
}

int expr_date_func_bind(expr_node *e) {
  static const char *const names[] = {"date_add", "date_sub", "add_months", "datediff", "current_date",
                                      "current_timestamp", "date_trunc", "to_date", "unix_micros",
                                      "unix_seconds", "timestamp_micros", "timestamp_seconds"};
  const char *fname = names[e->fn];
  const expr_node *a0 = e->n_args > 0 ? e->args[0] : NULL, *a1 = e->n_args > 1 ? e->args[1] : NULL;
  switch (e->fn) {
  case DF_DATE_ADD: case DF_DATE_SUB: case DF_ADD_MONTHS:
    if (!dateish(a0) || (a1->type != VT_INT && !null_lit(a1)))
      return err_set(DELTA_EINVAL, "expression: %s needs a date and an integer, not %s and %s", fname,
                             tname(a0->type), tname(a1->type));
    e->type = VT_DATE;
    return 0;
  case DF_DATEDIFF:
    if (!dateish(a0) || !dateish(a1))
      return err_set(DELTA_EINVAL, "expression: datediff needs two dates, not %s and %s", tname(a0->type),
                             tname(a1->type));
    e->type = VT_INT;
    e->prec = 10;
    return 0;
  case DF_CURRENT_DATE: case DF_CURRENT_TIMESTAMP: {
    /* once per statement, as Spark evaluates them once per query */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
    e->type = e->fn == DF_CURRENT_DATE ? VT_DATE : VT_TIMESTAMP;
    e->li = e->fn == DF_CURRENT_DATE ? dm_floor_div(us, DM_US_PER_DAY) : us;
    return 0;
  }
  case DF_DATE_TRUNC:
    if (!dateish(a1))
      return err_set(DELTA_EINVAL, "expression: date_trunc needs a timestamp, not %s", tname(a1->type));
    e->type = a1->type == VT_TIMESTAMP_NTZ ? VT_TIMESTAMP_NTZ : VT_TIMESTAMP;
    return 0;
  case DF_TO_DATE: case DF_UNIX_MICROS: case DF_UNIX_SECONDS:
    if (!dateish(a0))
      return err_set(DELTA_EINVAL, "expression: %s needs a date or timestamp, not %s", fname, tname(a0->type));
    e->type = e->fn == DF_TO_DATE ? VT_DATE : VT_INT;
    e->prec = 20;
    return 0;
  case DF_TIMESTAMP_MICROS: case DF_TIMESTAMP_SECONDS:
    if (a0->type != VT_INT && !null_lit(a0))
      return err_set(DELTA_EINVAL, "expression: %s needs an integer, not %s", fname, tname(a0->type));
    e->type = VT_TIMESTAMP;
    return 0;
  }
  return 0;
}

/* A function's date (or timestamp) argument: strings are parsed, and
 * text that is no date is an error (Spark's ANSI casts). */
static int as_temporal(delta_buf *scratch, sval *v, value_type to) {
  if (v->t == VT_NULL) return 0;
  char text[64];
  int n = 0;
  if (v->t == VT_STRING) n = snprintf(text, sizeof text, "%.*s", (int)(v->s_len > 60 ? 60 : v->s_len),
                                     expr_sval_data(scratch, v));
  int rc = expr_sval_cast(scratch, v, to, 0, 0);
  if (rc) return rc;
  if (v->t == VT_NULL)
    return err_set(DELTA_EINVAL, "expression: '%.*s' is not a %s", n, text, to == VT_DATE ? "date" : "timestamp");
  return 0;
}

static int date_result(sval *out, int64_t days) {
  if (days > INT32_MAX || days < INT32_MIN) return err_set(DELTA_EINVAL, "expression: date out of range");
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
    if (months && !dm_add_months(d, months, &d)) return err_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, d + days);
  }
  int64_t t = base->t == VT_DATE ? base->i * DM_US_PER_DAY : base->i;
  if (months) {
    int64_t d = dm_floor_div(t, DM_US_PER_DAY), tod = t - d * DM_US_PER_DAY;
    if (!dm_add_months(d, months, &d)) return err_set(DELTA_EINVAL, "expression: timestamp out of range");
    t = d * DM_US_PER_DAY + tod;
  }
  int64_t dd;
  if (__builtin_mul_overflow(days, DM_US_PER_DAY, &dd) || __builtin_add_overflow(t, dd, &t) ||
      __builtin_add_overflow(t, us, &t))
    return err_set(DELTA_EINVAL, "expression: timestamp out of range");
  out->t = e->type;
  out->i = t;
  return 0;
}

int expr_date_arith(const expr_node *e, const sval *a, const sval *b, sval *out) {
  int sign = e->arith == '-' ? -1 : 1;
  if (b->t == VT_INTERVAL) return add_interval(e, a, b, sign, out);
  if (a->t == VT_INTERVAL) return add_interval(e, b, a, 1, out);
  /* date +/- days */
  int64_t days = a->t == VT_DATE ? a->i : b->i, n = a->t == VT_DATE ? b->i : a->i;
  if (n > INT32_MAX || n < -(int64_t)INT32_MAX) return err_set(DELTA_EINVAL, "expression: date out of range");
  return date_result(out, days + sign * n);
}

int expr_date_func_eval(const expr_node *e, sval *args, delta_buf *scratch, sval *out) {
  sval a = args[0], b = args[1];
  int rc = 0;
  switch (e->fn) {
  case DF_CURRENT_DATE: case DF_CURRENT_TIMESTAMP:
    out->t = e->type;
    out->i = e->li;
    return 0;
  case DF_DATE_ADD: case DF_DATE_SUB: case DF_ADD_MONTHS:
    if (a.t == VT_NULL || b.t == VT_NULL) return 0;
    if ((rc = as_temporal(scratch, &a, VT_DATE))) return rc;
    if (e->fn == DF_ADD_MONTHS) {
      int64_t d;
      if (!dm_add_months(a.i, b.i, &d)) return err_set(DELTA_EINVAL, "expression: date out of range");
      return date_result(out, d);
    }
    if (b.i > INT32_MAX || b.i < -(int64_t)INT32_MAX) return err_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, e->fn == DF_DATE_ADD ? a.i + b.i : a.i - b.i);
  case DF_DATEDIFF:
    if (a.t == VT_NULL || b.t == VT_NULL) return 0;
    if ((rc = as_temporal(scratch, &a, VT_DATE)) || (rc = as_temporal(scratch, &b, VT_DATE))) return rc;
    out->t = VT_INT;
    out->i = a.i - b.i;
    return 0;
  case DF_DATE_TRUNC:
    if (b.t == VT_NULL) return 0;
    if ((rc = as_temporal(scratch, &b, e->type))) return rc;
    out->t = e->type;
    out->i = dm_trunc(b.i, e->trunc_unit);
    return 0;
  case DF_TO_DATE:
    if ((rc = as_temporal(scratch, &a, VT_DATE))) return rc;
    *out = a;
    return 0;
  case DF_UNIX_MICROS: case DF_UNIX_SECONDS:
    if ((rc = as_temporal(scratch, &a, a.t == VT_TIMESTAMP_NTZ ? VT_TIMESTAMP_NTZ : VT_TIMESTAMP)) || a.t == VT_NULL) return rc;
    out->t = VT_INT;
    out->i = e->fn == DF_UNIX_MICROS ? a.i : dm_floor_div(a.i, 1000000);
    return 0;
  case DF_TIMESTAMP_MICROS: case DF_TIMESTAMP_SECONDS:
    if (a.t == VT_NULL) return 0;
    out->t = VT_TIMESTAMP;
    out->i = a.i;
    if (e->fn == DF_TIMESTAMP_SECONDS && __builtin_mul_overflow(a.i, (int64_t)1000000, &out->i))
      return err_set(DELTA_EINVAL, "expression: timestamp out of range");
    return 0;
  }
  return 0;
}

