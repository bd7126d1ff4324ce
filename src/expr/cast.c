/* Runtime values of value expressions (value_funcs.h's sval): their text
 * and conversions between classes (CAST, store assignment, the common
 * type of CASE and COALESCE branches), with Spark SQL's rules. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/date_math.h"
#include "expr/dec_math.h"
#include "expr/expr_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* A string value's bytes (the scratch buffer is unallocated while every
 * string so far was empty). */
const char *expr_sval_data(const delta_buf *scratch, const sval *v) {
  return v->s_len ? (const char *)scratch->data + v->s_off : "";
}

/* A non-string value as text (Spark's CAST AS STRING forms). */
int expr_sval_text(const sval *v, char *b, size_t cap) {
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

int expr_sval_to_string(delta_buf *scratch, sval *v) {
  if (v->t == VT_STRING || v->t == VT_NULL) return 0;
  char b[64];
  int n = expr_sval_text(v, b, sizeof b);
  v->s_off = scratch->len;
  v->s_len = (size_t)n;
  v->t = VT_STRING;
  return buf_append(scratch, b, (size_t)n);
}

double expr_sval_double(const sval *v) {
  return v->t == VT_INT ? (double)v->i : v->t == VT_DECIMAL ? dec_to_double(v->dec, v->scale) : v->d;
}

/* Convert v to class `to` (decimals to decimal(p, s), HALF_UP). A value
 * that has no form there (text that is no number or date, out of range)
 * becomes NULL; the caller decides whether that is an error. */
int expr_sval_cast(delta_buf *scratch, sval *v, value_type to, int p, int s) {
  if (v->t == VT_NULL || (v->t == to && to != VT_DECIMAL)) return 0;
  if (to == VT_STRING) return expr_sval_to_string(scratch, v);
  if (v->t == VT_STRING) {
    char *tmp = mem_malloc(v->s_len + 1);
    if (!tmp) return DELTA_NOMEM();
    memcpy(tmp, expr_sval_data(scratch, v), v->s_len);
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
    mem_free(tmp);
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
    v->d = v->t == VT_BOOL ? v->b : expr_sval_double(v);
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

