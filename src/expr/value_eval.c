/* Value expressions for UPDATE's SET; see value_eval.h. Evaluated row by
 * row over a batch (CASE conditions once per batch through expr_eval_batch). */
#include "expr/value_eval.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "expr/date_math.h"
#include "expr/dec_math.h"
#include "expr/expr.h"
#include "expr/value.h"
#include "expr/value_funcs.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

#define MAX_DEPTH 100

/* V_FUNC: the date and time functions below; V_XFUNC: value_funcs.h's
 * (calendar fields, strings), by id. */
typedef enum { V_LIT, V_COL, V_BIN, V_NEG, V_CASE, V_COALESCE, V_CAST, V_FUNC, V_XFUNC } vkind;
typedef enum {
  F_DATE_ADD, F_DATE_SUB, F_ADD_MONTHS, F_DATEDIFF, F_CURRENT_DATE, F_CURRENT_TIMESTAMP, F_DATE_TRUNC,
  F_TO_DATE, F_UNIX_MICROS, F_UNIX_SECONDS, F_TIMESTAMP_MICROS, F_TIMESTAMP_SECONDS
} vfunc;

struct vexpr {
  vkind kind;
  char op;                 /* V_BIN: + - * / % and '|' for || */
  vexpr **args;            /* V_CASE: value per WHEN, then ELSE (or NULL) */
  int n_args;
  /* V_LIT */
  rtype lt;
  int64_t li;
  double ld;
  bool lb;
  char *ls;
  size_t ls_len;
  char ltext[64];          /* a number literal as written (exact decimals) */
  char ltyped;             /* 'd' DATE '..', 't' TIMESTAMP '..', 'n' TIMESTAMP_NTZ '..', else 0 */
  __int128 ldec;           /* R_DEC literal (prec, scale below) */
  int64_t iv_months, iv_days, iv_us; /* R_IVL literal */
  bool has_const;          /* bound to a date/timestamp/decimal column: the value, parsed once */
  expr_value konst;
  /* V_COL: name(.name)* */
  char *name;              /* as written, for messages */
  char **path;             /* the parts */
  int depth;
  int *cols;               /* child index at each depth */
  int col;                 /* cols[0]; >= 0 once bound */
  const char *col_format;
  const struct ArrowSchema *col_schema;
  /* V_CASE */
  expr_node **conds;
  int n_conds;
  uint8_t **masks;         /* per condition, this batch */
  /* V_CAST */
  rtype cast_to;
  int cast_prec, cast_scale;
  /* V_FUNC */
  vfunc fn;
  int trunc_unit;          /* date_trunc's unit, known at parse time */
  int xfn;                 /* V_XFUNC: value_funcs.h's id */
  /* bound */
  rtype type;
  /* R_DEC: the value's decimal(prec, scale). R_INT: the digits of its
   * decimal form when it meets a decimal (Spark: byte 3, short 5, int 10,
   * long 20; an integer literal only its own digits) */
  int prec, scale;
  bool int_lit;
  const char *target_format;
  char *target_name;
  char nat_format[24];     /* vexpr_natural_type's decimal format */
};


/* ------------------------------------------------------------------ parse */

typedef struct {
  const char *s;
  size_t pos;
  int depth;
} vparser;

static void ws(vparser *p) {
  while (isspace((unsigned char)p->s[p->pos])) p->pos++;
}

static int verr(vparser *p, const char *what) {
  return delta_error_set(DELTA_EINVAL, "expression: %s at position %zu", what, p->pos + 1);
}

static bool kw(vparser *p, const char *k) {
  ws(p);
  size_t n = strlen(k);
  if (strncasecmp(p->s + p->pos, k, n) != 0) return false;
  char c = p->s[p->pos + n];
  if (isalnum((unsigned char)c) || c == '_') return false;
  p->pos += n;
  return true;
}

static bool punct(vparser *p, const char *t) {
  ws(p);
  size_t n = strlen(t);
  if (strncmp(p->s + p->pos, t, n) != 0) return false;
  p->pos += n;
  return true;
}

static vexpr *vnew(vkind k) {
  vexpr *e = delta_calloc(1, sizeof *e);
  if (e) {
    e->kind = k;
    e->col = -1;
  }
  return e;
}

void vexpr_free(vexpr *e) {
  if (!e) return;
  for (int i = 0; i < e->n_args; i++) vexpr_free(e->args[i]);
  delta_free(e->args);
  for (int i = 0; i < e->n_conds; i++) {
    expr_free(e->conds[i]);
    if (e->masks) delta_free(e->masks[i]);
  }
  delta_free(e->conds);
  delta_free(e->masks);
  delta_free(e->ls);
  delta_free(e->name);
  for (int i = 0; i < e->depth; i++) delta_free(e->path[i]);
  delta_free(e->path);
  delta_free(e->cols);
  delta_free(e->target_name);
  delta_free(e);
}

static int push(vexpr *e, vexpr *a) {
  if (!a) return DELTA_NOMEM();
  vexpr **n = delta_realloc(e->args, (size_t)(e->n_args + 1) * sizeof *n);
  if (!n) {
    vexpr_free(a);
    return DELTA_NOMEM();
  }
  e->args = n;
  e->args[e->n_args++] = a;
  return 0;
}

static int p_concat(vparser *p, vexpr **out);

/* The text of a CASE condition: up to the THEN at nesting depth 0. */
static int cond_text(vparser *p, char **out) {
  size_t start = p->pos;
  int depth = 0;
  for (size_t i = p->pos; p->s[i]; i++) {
    char c = p->s[i];
    if (c == '\'' || c == '`') {
      for (i++; p->s[i] && !(p->s[i] == c && p->s[i + 1] != c); i++)
        if (p->s[i] == c) i++;
      if (!p->s[i]) break;
      continue;
    }
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (depth == 0 && (i == 0 || !(isalnum((unsigned char)p->s[i - 1]) || p->s[i - 1] == '_')) &&
        strncasecmp(p->s + i, "then", 4) == 0 && !(isalnum((unsigned char)p->s[i + 4]) || p->s[i + 4] == '_')) {
      *out = delta_malloc(i - start + 1);
      if (!*out) return DELTA_NOMEM();
      memcpy(*out, p->s + start, i - start);
      (*out)[i - start] = 0;
      p->pos = i + 4;
      return 0;
    }
  }
  return verr(p, "CASE WHEN without THEN");
}

/* CAST's target type into e->cast_to (and the decimal's precision and scale,
 * or an integer type's digits). */
static int p_type(vparser *p, vexpr *e) {
  static const struct { const char *n; rtype t; int prec; } types[] = {
      {"bigint", R_INT, 20}, {"long", R_INT, 20}, {"integer", R_INT, 10}, {"int", R_INT, 10},
      {"smallint", R_INT, 5}, {"short", R_INT, 5}, {"tinyint", R_INT, 3}, {"byte", R_INT, 3},
      {"double", R_FLOAT, 0}, {"float", R_FLOAT, 0}, {"string", R_STRING, 0}, {"boolean", R_BOOL, 0},
      {"date", R_DATE, 0}, {"timestamp_ntz", R_TSNTZ, 0}, {"timestamp_ltz", R_TS, 0}, {"timestamp", R_TS, 0},
      {"decimal", R_DEC, 10}, {"numeric", R_DEC, 10}, {"dec", R_DEC, 10}};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (kw(p, types[i].n)) {
      e->cast_to = types[i].t;
      e->cast_prec = types[i].prec;
      e->cast_scale = 0;
      if (types[i].t == R_DEC && punct(p, "(")) {
        ws(p);
        char *end;
        long pr = strtol(p->s + p->pos, &end, 10), sc = 0;
        if (end == p->s + p->pos) return verr(p, "expected DECIMAL(precision, scale)");
        p->pos = (size_t)(end - p->s);
        if (punct(p, ",")) {
          ws(p);
          sc = strtol(p->s + p->pos, &end, 10);
          if (end == p->s + p->pos) return verr(p, "expected DECIMAL(precision, scale)");
          p->pos = (size_t)(end - p->s);
        }
        if (!punct(p, ")")) return verr(p, "expected ')'");
        if (pr < 1 || pr > DEC_MAX_PRECISION || sc < 0 || sc > pr)
          return verr(p, "DECIMAL needs 1 <= precision <= 38 and 0 <= scale <= precision");
        e->cast_prec = (int)pr;
        e->cast_scale = (int)sc;
      }
      return 0;
    }
  return verr(p, "CAST to an unsupported type");
}

/* INTERVAL value unit [value unit ...]: value an integer, bare or quoted
 * ('-3'); units YEAR MONTH WEEK DAY HOUR MINUTE SECOND MILLISECOND
 * MICROSECOND, singular or plural. */
static int p_interval(vparser *p, vexpr *e) {
  static const struct { const char *n; int64_t months, days, us; } units[] = {
      {"years", 12, 0, 0}, {"year", 12, 0, 0}, {"months", 1, 0, 0}, {"month", 1, 0, 0},
      {"weeks", 0, 7, 0}, {"week", 0, 7, 0}, {"days", 0, 1, 0}, {"day", 0, 1, 0},
      {"hours", 0, 0, 3600000000LL}, {"hour", 0, 0, 3600000000LL}, {"minutes", 0, 0, 60000000LL},
      {"minute", 0, 0, 60000000LL}, {"seconds", 0, 0, 1000000LL}, {"second", 0, 0, 1000000LL},
      {"milliseconds", 0, 0, 1000LL}, {"millisecond", 0, 0, 1000LL}, {"microseconds", 0, 0, 1LL},
      {"microsecond", 0, 0, 1LL}};
  e->lt = R_IVL;
  int parts = 0;
  for (;;) {
    ws(p);
    const char *s = p->s + p->pos;
    bool quoted = *s == '\'';
    size_t i = quoted ? 1 : 0;
    while (s[i] == ' ') i++;
    bool neg = s[i] == '-';
    if (s[i] == '-' || s[i] == '+') i++;
    if (!isdigit((unsigned char)s[i])) {
      if (parts) return 0;
      return verr(p, "INTERVAL needs a number");
    }
    int64_t v = 0;
    for (; isdigit((unsigned char)s[i]); i++) {
      if (v > 100000000000LL) return verr(p, "INTERVAL value out of range");
      v = v * 10 + (s[i] - '0');
    }
    while (quoted && s[i] == ' ') i++;
    if (quoted && s[i] != '\'') return verr(p, "INTERVAL value must be a whole number");
    if (quoted) i++;
    if (neg) v = -v;
    p->pos += i;
    size_t k;
    for (k = 0; k < sizeof units / sizeof *units; k++)
      if (kw(p, units[k].n)) break;
    if (k == sizeof units / sizeof *units) {
      ws(p);
      size_t n = 0;
      while (isalnum((unsigned char)p->s[p->pos + n])) n++;
      return delta_error_set(DELTA_EINVAL, "expression: unknown INTERVAL unit '%.*s' at position %zu "
                             "(YEAR, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND)",
                             (int)n, p->s + p->pos, p->pos + 1);
    }
    int64_t m, d, us;
    if (__builtin_mul_overflow(v, units[k].months, &m) || __builtin_mul_overflow(v, units[k].days, &d) ||
        __builtin_mul_overflow(v, units[k].us, &us) || __builtin_add_overflow(e->iv_months, m, &e->iv_months) ||
        __builtin_add_overflow(e->iv_days, d, &e->iv_days) || __builtin_add_overflow(e->iv_us, us, &e->iv_us) ||
        e->iv_months == INT64_MIN || e->iv_days == INT64_MIN || e->iv_us == INT64_MIN)
      return verr(p, "INTERVAL out of range");
    parts++;
  }
}

/* One part of a column name: [A-Za-z0-9_]+ or `quoted` (`` escapes `). */
static int p_name(vparser *p, char **out) {
  ws(p);
  const char *s = p->s + p->pos;
  delta_buf b = DELTA_BUF_INIT;
  size_t i = 0;
  int rc = 0;
  if (*s == '`') {
    for (i = 1;; i++) {
      if (!s[i]) {
        rc = verr(p, "unterminated quoted name");
        break;
      }
      if (s[i] == '`') {
        if (s[i + 1] != '`') {
          i++;
          break;
        }
        i++;
      }
      if ((rc = delta_buf_putc(&b, s[i]))) break;
    }
  } else {
    while (isalnum((unsigned char)s[i]) || s[i] == '_') i++;
    if (i == 0) rc = verr(p, "expected a column name");
    else rc = delta_buf_append(&b, s, i);
  }
  if (!rc) rc = delta_buf_putc(&b, 0);
  if (rc) {
    delta_buf_dispose(&b);
    return rc;
  }
  *out = (char *)delta_buf_detach(&b);
  p->pos += i;
  return 0;
}

static int p_primary(vparser *p, vexpr **out) {
  *out = NULL;
  ws(p);
  const char *s = p->s + p->pos;
  int rc = 0;
  if (*s == '(') {
    p->pos++;
    if ((rc = p_concat(p, out))) return rc;
    if (!punct(p, ")")) {
      vexpr_free(*out);
      *out = NULL;
      return verr(p, "expected ')'");
    }
    return 0;
  }
  if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
    vexpr *e = vnew(V_LIT);
    if (!e) return DELTA_NOMEM();
    size_t n = 0;
    bool flt = false;
    while (isdigit((unsigned char)s[n])) n++;
    if (s[n] == '.') {
      flt = true;
      n++;
      while (isdigit((unsigned char)s[n])) n++;
    }
    if ((s[n] == 'e' || s[n] == 'E') && (isdigit((unsigned char)s[n + 1]) ||
                                          ((s[n + 1] == '-' || s[n + 1] == '+') && isdigit((unsigned char)s[n + 2])))) {
      flt = true;
      n += 2;
      while (isdigit((unsigned char)s[n])) n++;
    }
    char buf[64];
    if (n >= sizeof buf) {
      vexpr_free(e);
      return verr(p, "number too long");
    }
    memcpy(buf, s, n);
    buf[n] = 0;
    memcpy(e->ltext, buf, n + 1);
    errno = 0;
    /* As in Spark, 1.5 is a decimal(2,1) literal and 1e3 a double; 7 an
     * integer that meets decimals as decimal(1,0). */
    const char *dot = strchr(buf, '.');
    if (flt && !strpbrk(buf, "eE") && dec_parse(buf, n, DEC_MAX_PRECISION, (int)strlen(dot + 1), &e->ldec) == 0) {
      e->lt = R_DEC;
      e->scale = (int)strlen(dot + 1);
      int digits = e->ldec == 0 ? 1 : dec_digits(e->ldec);
      e->prec = digits > e->scale ? digits : e->scale;
      if (e->prec == 0) e->prec = 1;
      e->ld = strtod(buf, NULL);
    } else if (flt) {
      e->lt = R_FLOAT;
      e->ld = strtod(buf, NULL);
    } else {
      e->lt = R_INT;
      e->li = strtoll(buf, NULL, 10);
      if (errno) {
        vexpr_free(e);
        return verr(p, "integer out of range");
      }
      e->int_lit = true;
      e->prec = e->li == 0 ? 1 : dec_digits(e->li);
    }
    p->pos += n;
    *out = e;
    return 0;
  }
  if (*s == '\'') {
    vexpr *e = vnew(V_LIT);
    delta_buf b = DELTA_BUF_INIT;
    if (!e) return DELTA_NOMEM();
    size_t i = 1;
    for (;; i++) {
      if (!s[i]) {
        vexpr_free(e);
        delta_buf_dispose(&b);
        return verr(p, "unterminated string");
      }
      if (s[i] == '\'') {
        if (s[i + 1] != '\'') break;
        i++;
      }
      if ((rc = delta_buf_putc(&b, s[i]))) break;
    }
    if (!rc) rc = delta_buf_putc(&b, 0);
    if (rc) {
      vexpr_free(e);
      delta_buf_dispose(&b);
      return rc;
    }
    e->lt = R_STRING;
    e->ls_len = b.len - 1;
    e->ls = (char *)delta_buf_detach(&b);
    p->pos += i + 1;
    *out = e;
    return 0;
  }
  if (*s == '`' || isalpha((unsigned char)*s) || *s == '_') {
    /* DATE '...', TIMESTAMP '...', TIMESTAMP_NTZ '...': typed literals */
    size_t at = p->pos;
    char typed = kw(p, "date") ? 'd' : kw(p, "timestamp_ntz") ? 'n' : kw(p, "timestamp") ? 't' : 0;
    if (typed) {
      ws(p);
      if (p->s[p->pos] == '\'') {
        size_t lit_at = p->pos;
        if ((rc = p_primary(p, out))) return rc;
        vexpr *l = *out;
        l->ltyped = typed;
        expr_value v;
        value_type vt = typed == 'd' ? VT_DATE : typed == 't' ? VT_TIMESTAMP : VT_TIMESTAMP_NTZ;
        if (value_parse(vt, 0, l->ls, l->ls_len, &v) != 0) {
          vexpr_free(l);
          *out = NULL;
          p->pos = lit_at;
          return verr(p, typed == 'd' ? "not a DATE literal" : "not a TIMESTAMP literal");
        }
        l->lt = typed == 'd' ? R_DATE : typed == 't' ? R_TS : R_TSNTZ;
        l->li = v.u.i;
        return 0;
      }
      p->pos = at; /* a column of that name */
    }
    if (kw(p, "interval")) {
      ws(p);
      char c = p->s[p->pos];
      if (c == '\'' || c == '-' || isdigit((unsigned char)c)) {
        vexpr *e = vnew(V_LIT);
        if (!e) return DELTA_NOMEM();
        if ((rc = p_interval(p, e))) {
          vexpr_free(e);
          return rc;
        }
        *out = e;
        return 0;
      }
      p->pos = at;
    }
    if (kw(p, "null") || kw(p, "true") || kw(p, "false")) {
      vexpr *e = vnew(V_LIT);
      if (!e) return DELTA_NOMEM();
      char c = tolower((unsigned char)*s);
      e->lt = c == 'n' ? R_NULL : R_BOOL;
      e->lb = c == 't';
      *out = e;
      return 0;
    }
    if (kw(p, "case")) {
      vexpr *e = vnew(V_CASE);
      if (!e) return DELTA_NOMEM();
      while (!rc && kw(p, "when")) {
        char *ct = NULL;
        expr_node *cond = NULL;
        if ((rc = cond_text(p, &ct))) break;
        rc = expr_parse(ct, &cond);
        delta_free(ct);
        if (rc) break;
        expr_node **nc = delta_realloc(e->conds, (size_t)(e->n_conds + 1) * sizeof *nc);
        if (!nc) {
          expr_free(cond);
          rc = DELTA_NOMEM();
          break;
        }
        e->conds = nc;
        e->conds[e->n_conds++] = cond;
        vexpr *v = NULL;
        if ((rc = p_concat(p, &v))) break;
        rc = push(e, v);
      }
      if (!rc && e->n_conds == 0) rc = verr(p, "CASE needs WHEN");
      if (!rc) {
        vexpr *v = NULL;
        if (kw(p, "else")) rc = p_concat(p, &v);
        else if (!(v = vnew(V_LIT))) rc = DELTA_NOMEM();
        else v->lt = R_NULL;
        if (!rc) rc = push(e, v);
      }
      if (!rc && !kw(p, "end")) rc = verr(p, "expected END");
      if (rc) {
        vexpr_free(e);
        return rc;
      }
      *out = e;
      return 0;
    }
    size_t save = p->pos;
    if (kw(p, "coalesce") && punct(p, "(")) {
      vexpr *e = vnew(V_COALESCE);
      if (!e) return DELTA_NOMEM();
      do {
        vexpr *v = NULL;
        if (!(rc = p_concat(p, &v))) rc = push(e, v);
      } while (!rc && punct(p, ","));
      if (!rc && !punct(p, ")")) rc = verr(p, "expected ')'");
      if (rc) {
        vexpr_free(e);
        return rc;
      }
      *out = e;
      return 0;
    }
    p->pos = save;
    if (kw(p, "cast") && punct(p, "(")) {
      vexpr *e = vnew(V_CAST), *v = NULL;
      if (!e) return DELTA_NOMEM();
      if (!(rc = p_concat(p, &v))) rc = push(e, v);
      if (!rc && !kw(p, "as")) rc = verr(p, "expected AS");
      if (!rc) rc = p_type(p, e);
      if (!rc && !punct(p, ")")) rc = verr(p, "expected ')'");
      if (rc) {
        vexpr_free(e);
        return rc;
      }
      *out = e;
      return 0;
    }
    p->pos = save;
    static const struct { const char *n; vfunc f; int nargs; } fns[] = {
        {"date_add", F_DATE_ADD, 2}, {"date_sub", F_DATE_SUB, 2}, {"add_months", F_ADD_MONTHS, 2},
        {"datediff", F_DATEDIFF, 2}, {"current_date", F_CURRENT_DATE, 0},
        {"current_timestamp", F_CURRENT_TIMESTAMP, 0}, {"now", F_CURRENT_TIMESTAMP, 0},
        {"date_trunc", F_DATE_TRUNC, 2}, {"to_date", F_TO_DATE, 1}, {"unix_micros", F_UNIX_MICROS, 1},
        {"unix_seconds", F_UNIX_SECONDS, 1}, {"timestamp_micros", F_TIMESTAMP_MICROS, 1},
        {"timestamp_seconds", F_TIMESTAMP_SECONDS, 1}};
    for (size_t k = 0; k < sizeof fns / sizeof *fns; k++) {
      if (!kw(p, fns[k].n)) continue;
      bool paren = punct(p, "(");
      if (!paren && (fns[k].nargs > 0 || strcmp(fns[k].n, "now") == 0)) {
        p->pos = save; /* a column of that name */
        break;
      }
      vexpr *e = vnew(V_FUNC);
      if (!e) return DELTA_NOMEM();
      e->fn = fns[k].f;
      if (paren && !punct(p, ")")) {
        do {
          vexpr *v = NULL;
          if (!(rc = p_concat(p, &v))) rc = push(e, v);
        } while (!rc && punct(p, ","));
        if (!rc && !punct(p, ")")) rc = verr(p, "expected ')'");
      }
      if (!rc && e->n_args != fns[k].nargs)
        rc = delta_error_set(DELTA_EINVAL, "expression: %s takes %d argument%s, not %d", fns[k].n, fns[k].nargs,
                             fns[k].nargs == 1 ? "" : "s", e->n_args);
      if (!rc && e->fn == F_DATE_TRUNC) {
        const vexpr *u = e->args[0];
        e->trunc_unit = u->kind == V_LIT && u->lt == R_STRING ? dm_trunc_unit(u->ls, (int)u->ls_len) : -1;
        if (e->trunc_unit < 0)
          rc = delta_error_set(DELTA_EINVAL, "expression: date_trunc's unit must be one of 'year', 'quarter', "
                               "'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond'");
      }
      if (rc) {
        vexpr_free(e);
        return rc;
      }
      *out = e;
      return 0;
    }
    p->pos = save;
    /* name(args): value_funcs.h's functions (calendar fields, strings) */
    ws(p);
    const char *fs = p->s + p->pos;
    size_t fn_len = 0;
    while (isalnum((unsigned char)fs[fn_len]) || fs[fn_len] == '_') fn_len++;
    const char *after = fs + fn_len;
    while (isspace((unsigned char)*after)) after++;
    if (fn_len && *after == '(') {
      vexpr *e = vnew(V_XFUNC);
      if (!e || !(e->name = delta_malloc(fn_len + 1))) {
        vexpr_free(e);
        return DELTA_NOMEM();
      }
      memcpy(e->name, fs, fn_len);
      e->name[fn_len] = 0;
      p->pos = (size_t)(after - p->s) + 1;
      bool no_args = punct(p, ")");
      while (!no_args && !rc) {
        vexpr *v = NULL;
        if (!(rc = p_concat(p, &v))) rc = push(e, v);
        if (!rc && !punct(p, ",")) break;
      }
      if (!rc && !no_args && !punct(p, ")")) rc = verr(p, "expected ')'");
      if (!rc) rc = vfunc_find(e->name, e->n_args, &e->xfn);
      if (rc) {
        vexpr_free(e);
        return rc;
      }
      *out = e;
      return 0;
    }
    p->pos = save;
    vexpr *e = vnew(V_COL);
    if (!e) return DELTA_NOMEM();
    delta_buf full = DELTA_BUF_INIT;
    /* name(.name)*: a nested field, or in MERGE a column of t or s */
    do {
      char *part = NULL;
      if (!(rc = p_name(p, &part))) {
        char **np = delta_realloc(e->path, (size_t)(e->depth + 1) * sizeof *np);
        if (!np) {
          delta_free(part);
          rc = DELTA_NOMEM();
        } else {
          e->path = np;
          e->path[e->depth++] = part;
          rc = delta_buf_printf(&full, "%s%s", e->depth > 1 ? "." : "", part);
        }
      }
    } while (!rc && p->s[p->pos] == '.' && (p->pos++, true));
    if (!rc) rc = delta_buf_putc(&full, 0);
    if (rc) {
      vexpr_free(e);
      delta_buf_dispose(&full);
      return rc;
    }
    e->name = (char *)delta_buf_detach(&full);
    *out = e;
    return 0;
  }
  return verr(p, *s ? "expected a value or a column" : "expected a value at the end");
}

static int p_unary(vparser *p, vexpr **out) {
  if (++p->depth > MAX_DEPTH) return verr(p, "expression nested too deeply");
  int rc;
  if (punct(p, "-")) {
    vexpr *e = vnew(V_NEG), *a = NULL;
    if (!e) return DELTA_NOMEM();
    if (!(rc = p_unary(p, &a))) rc = push(e, a);
    if (rc) vexpr_free(e);
    else *out = e;
  } else {
    rc = p_primary(p, out);
  }
  p->depth--;
  return rc;
}

static int p_binary_level(vparser *p, vexpr **out, int level);

static int p_sub(vparser *p, vexpr **out, int level) {
  return level == 2 ? p_unary(p, out) : p_binary_level(p, out, level + 1);
}

/* level 0: ||; 1: + -; 2: * / */
static int p_binary_level(vparser *p, vexpr **out, int level) {
  vexpr *left = NULL;
  int rc = p_sub(p, &left, level);
  if (rc) return rc;
  for (;;) {
    char op = 0;
    ws(p);
    const char *s = p->s + p->pos;
    if (level == 0 && s[0] == '|' && s[1] == '|') op = '|';
    else if (level == 1 && (s[0] == '+' || s[0] == '-')) op = s[0];
    else if (level == 2 && (s[0] == '*' || s[0] == '/' || s[0] == '%')) op = s[0];
    if (!op) break;
    p->pos += op == '|' ? 2 : 1;
    vexpr *right = NULL, *b = vnew(V_BIN);
    if (!b) rc = DELTA_NOMEM();
    else {
      b->op = op;
      if (!(rc = push(b, left))) {
        left = NULL;
        if (!(rc = p_sub(p, &right, level))) rc = push(b, right);
      }
    }
    if (rc) {
      vexpr_free(left);
      vexpr_free(b);
      return rc;
    }
    left = b;
  }
  *out = left;
  return 0;
}

static int p_concat(vparser *p, vexpr **out) {
  if (++p->depth > MAX_DEPTH) return verr(p, "expression nested too deeply");
  int rc = p_binary_level(p, out, 0);
  p->depth--;
  return rc;
}

int vexpr_parse(const char *text, vexpr **out) {
  *out = NULL;
  vparser p = {text, 0, 0};
  vexpr *e = NULL;
  int rc = p_concat(&p, &e);
  if (!rc) {
    ws(&p);
    if (p.s[p.pos]) rc = verr(&p, "unexpected text");
  }
  if (rc) {
    vexpr_free(e);
    return rc;
  }
  *out = e;
  return 0;
}

int vexpr_qualify(vexpr *e, expr_qualify_fn fn, void *ctx) {
  int rc = 0;
  for (int i = 0; i < e->n_args && !rc; i++) rc = vexpr_qualify(e->args[i], fn, ctx);
  for (int i = 0; i < e->n_conds && !rc; i++) rc = expr_qualify(e->conds[i], fn, ctx);
  if (rc || e->kind != V_COL) return rc;
  const char *prefix = NULL;
  if ((rc = fn(ctx, e->path[0], &prefix)) || !prefix) return rc;
  if ((rc = expr_path_prepend(&e->path, &e->depth, prefix))) return rc;
  delta_buf b = DELTA_BUF_INIT;
  if (!(rc = delta_buf_printf(&b, "%s.%s", prefix, e->name)) && !(rc = delta_buf_putc(&b, 0))) {
    delta_free(e->name);
    e->name = (char *)delta_buf_detach(&b);
  }
  delta_buf_dispose(&b);
  return rc;
}

/* ------------------------------------------------------------------- bind */

/* The value class of a column's Arrow format, with a decimal's precision
 * and scale (an integer's digits in *prec); R_NULL for types that are only
 * copied as they are. */
static rtype rtype_of_format(const char *f, int *prec, int *scale) {
  *prec = 0;
  *scale = 0;
  switch (f[0]) {
  case 'c': case 'C': *prec = 3; return R_INT;
  case 's': case 'S': *prec = 5; return R_INT;
  case 'i': case 'I': *prec = 10; return R_INT;
  case 'l': *prec = 20; return R_INT;
  case 'f': case 'g': return R_FLOAT;
  case 'u': case 'U': return R_STRING;
  case 'b': return R_BOOL;
  default: break;
  }
  switch (value_type_of_arrow(f, prec, scale)) {
  case VT_DECIMAL: return R_DEC;
  case VT_DATE: return R_DATE;
  case VT_TIMESTAMP: return R_TS;
  case VT_TIMESTAMP_NTZ: return R_TSNTZ;
  default:
    *prec = *scale = 0;
    return R_NULL;
  }
}

static const char *rtype_name(rtype t) {
  static const char *const n[] = {"null", "long",      "double",        "string",  "boolean",
                                  "decimal", "date", "timestamp", "timestamp_ntz", "interval"};
  return n[t];
}

static bool numeric_t(rtype t) { return t == R_INT || t == R_FLOAT || t == R_DEC; }
static bool datetime_t(rtype t) { return t == R_DATE || t == R_TS || t == R_TSNTZ; }
/* NULL written as a literal (a column of a type the evaluator does not
 * know is R_NULL too, and is no operand) */
static bool null_lit(const vexpr *e) { return e->type == R_NULL && e->kind != V_COL; }
static bool dateish(const vexpr *e) { return datetime_t(e->type) || e->type == R_STRING || null_lit(e); }

/* An integer or decimal operand's decimal(p, s) (Spark: an integer column
 * by its width, an integer literal by its digits). */
static void dec_type_of(const vexpr *e, int *p, int *s) {
  if (e->type == R_DEC) {
    *p = e->prec;
    *s = e->scale;
  } else {
    *p = e->prec > 0 ? e->prec : 20;
    *s = 0;
  }
}

/* The INTERVAL literal under any unary minus. */
static const vexpr *ivl_lit(const vexpr *e) {
  while (e->kind == V_NEG) e = e->args[0];
  return e;
}

static int ivl_misuse(void) {
  return delta_error_set(DELTA_EINVAL,
                         "expression: an INTERVAL can only be added to or subtracted from a date or timestamp");
}

/* + and - with a date, a timestamp or an interval (Spark's rules: date +
 * integer is date_add, a timestamp takes only intervals, and a date plus
 * an interval with hours or less becomes a timestamp). */
static int bind_datetime_op(vexpr *e, rtype a, rtype b) {
  char op = e->op;
  bool addsub = op == '+' || op == '-';
  if (addsub && null_lit(e->args[0]) && (datetime_t(b) || b == R_IVL)) a = b == R_IVL ? R_TS : b;
  if (addsub && null_lit(e->args[1]) && (datetime_t(a) || a == R_IVL)) b = R_INT;
  if (addsub && a == R_DATE && b == R_INT) e->type = R_DATE;
  else if (op == '+' && a == R_INT && b == R_DATE) e->type = R_DATE;
  else if (addsub && datetime_t(a) && b == R_IVL)
    e->type = a == R_DATE ? (ivl_lit(e->args[1])->iv_us ? R_TS : R_DATE) : a;
  else if (op == '+' && a == R_IVL && datetime_t(b))
    e->type = b == R_DATE ? (ivl_lit(e->args[0])->iv_us ? R_TS : R_DATE) : b;
  else if (op == '-' && datetime_t(a) && datetime_t(b))
    return delta_error_set(DELTA_EINVAL, "expression: %s - %s is not supported: use datediff(end, start)",
                           rtype_name(a), rtype_name(b));
  else if (addsub && ((a == R_INT && (b == R_TS || b == R_TSNTZ)) || ((a == R_TS || a == R_TSNTZ) && b == R_INT)))
    return delta_error_set(DELTA_EINVAL, "expression: %s %c integer is not defined (as in Spark): "
                           "add an INTERVAL instead, e.g. ts + INTERVAL 1 HOUR", "timestamp", op);
  else if (a == R_IVL || b == R_IVL) return ivl_misuse();
  else
    return delta_error_set(DELTA_EINVAL, "expression: '%c' cannot be applied to %s and %s", op, rtype_name(a),
                           rtype_name(b));
  return 0;
}

static int bind_rec(vexpr *e, const struct ArrowSchema *s) {
  int rc = 0;
  for (int i = 0; i < e->n_args && !rc; i++) rc = bind_rec(e->args[i], s);
  if (rc) return rc;
  switch (e->kind) {
  case V_LIT: e->type = e->lt; return 0;
  case V_COL: {
    delta_free(e->cols);
    if (!(e->cols = delta_calloc((size_t)e->depth, sizeof *e->cols))) return DELTA_NOMEM();
    const struct ArrowSchema *at = s;
    for (int d = 0; d < e->depth; d++) {
      int k = -1;
      if (strcmp(at->format, "+s") != 0)
        return delta_error_set(DELTA_EINVAL, "expression: %s: %s is not a struct", e->name, e->path[d - 1]);
      for (int64_t i = 0; i < at->n_children && k < 0; i++)
        if (strcmp(at->children[i]->name, e->path[d]) == 0) k = (int)i;
      for (int64_t i = 0; i < at->n_children && k < 0; i++)
        if (strcasecmp(at->children[i]->name, e->path[d]) == 0) k = (int)i;
      if (k < 0) return delta_error_set(DELTA_EINVAL, "expression: no column named %s", e->name);
      e->cols[d] = k;
      at = at->children[k];
    }
    e->col = e->cols[0];
    e->col_format = at->format;
    e->col_schema = at;
    e->type = rtype_of_format(e->col_format, &e->prec, &e->scale);
    return 0;
  }
  case V_NEG: {
    const vexpr *a = e->args[0];
    if (!numeric_t(a->type) && a->type != R_IVL && !null_lit(a))
      return delta_error_set(DELTA_EINVAL, "expression: cannot negate a %s", rtype_name(a->type));
    e->type = a->type;
    e->prec = a->prec;
    e->scale = a->scale;
    e->int_lit = a->int_lit;
    return 0;
  }
  case V_BIN: {
    const vexpr *x = e->args[0], *y = e->args[1];
    rtype a = x->type, b = y->type;
    if (e->op == '|') {
      if (a == R_IVL || b == R_IVL) return ivl_misuse();
      e->type = R_STRING;
      return 0;
    }
    if (a == R_IVL || b == R_IVL || datetime_t(a) || datetime_t(b)) return bind_datetime_op(e, a, b);
    bool an = numeric_t(a) || null_lit(x), bn = numeric_t(b) || null_lit(y);
    if (!an || !bn)
      return delta_error_set(DELTA_EINVAL, "expression: '%c' needs numbers, not %s and %s", e->op,
                             rtype_name(a), rtype_name(b));
    if (a == R_FLOAT || b == R_FLOAT) {
      e->type = R_FLOAT; /* decimal with double is double, as in Spark */
      return 0;
    }
    if (a == R_DEC || b == R_DEC) {
      int p1, s1, p2, s2;
      dec_type_of(a == R_NULL ? y : x, &p1, &s1);
      dec_type_of(b == R_NULL ? x : y, &p2, &s2);
      dec_result_type(e->op, p1, s1, p2, s2, &e->prec, &e->scale);
      e->type = R_DEC;
      return 0;
    }
    /* As in Spark, '/' divides as double even for integers (CAST the
     * result, or assign it to an integer column, to truncate). */
    e->type = e->op == '/' ? R_FLOAT : R_INT;
    int wx = x->int_lit ? (x->li == (int32_t)x->li ? 10 : 20) : x->prec;
    int wy = y->int_lit ? (y->li == (int32_t)y->li ? 10 : 20) : y->prec;
    e->prec = wx > wy ? wx : wy;
    return 0;
  }
  case V_COALESCE:
  case V_CASE: {
    rtype t = R_NULL;
    int int_digits = 0, scale = 0, iprec = 0;
    for (int i = 0; i < e->n_args; i++) {
      const vexpr *x = e->args[i];
      rtype a = x->type;
      if (a == R_IVL) return ivl_misuse();
      if (a == R_INT || a == R_DEC) {
        int p, sc;
        dec_type_of(x, &p, &sc);
        if (a == R_INT && x->int_lit) p = x->li == (int32_t)x->li ? 10 : 20; /* an int, not the literal's digits */
        if (p - sc > int_digits) int_digits = p - sc;
        if (sc > scale) scale = sc;
        if (a == R_INT && x->prec > iprec) iprec = x->int_lit ? 20 : x->prec;
      }
      if (a == R_NULL) continue;
      if (t == R_NULL) t = a;
      else if (t != a) {
        if (numeric_t(t) && numeric_t(a)) t = t == R_FLOAT || a == R_FLOAT ? R_FLOAT : R_DEC;
        else if ((t == R_DATE && (a == R_TS || a == R_TSNTZ)) || (a == R_DATE && (t == R_TS || t == R_TSNTZ)))
          t = t == R_DATE ? a : t; /* a date widens to the timestamp */
        else
          return delta_error_set(DELTA_EINVAL, "expression: %s mixes %s and %s",
                                 e->kind == V_CASE ? "CASE" : "COALESCE", rtype_name(t), rtype_name(a));
      }
    }
    for (int i = 0; i < e->n_conds && !rc; i++) rc = expr_bind(e->conds[i], s);
    if (rc) return rc;
    if (e->masks) { /* bound before (one expression bound for several columns) */
      for (int i = 0; i < e->n_conds; i++) delta_free(e->masks[i]);
      delta_free(e->masks);
      e->masks = NULL;
    }
    if (e->n_conds && !(e->masks = delta_calloc((size_t)e->n_conds, sizeof *e->masks))) return DELTA_NOMEM();
    e->type = t;
    if (t == R_DEC) {
      /* Spark's wider decimal: the most integral digits and the largest scale */
      e->scale = scale;
      e->prec = int_digits + scale > DEC_MAX_PRECISION ? DEC_MAX_PRECISION : int_digits + scale;
    } else if (t == R_INT) {
      e->prec = iprec ? iprec : 20;
    }
    return 0;
  }
  case V_CAST: {
    rtype from = e->args[0]->type, to = e->cast_to;
    bool ok = from == to || from == R_NULL || from == R_STRING || (to == R_STRING && from != R_IVL) ||
              ((numeric_t(from) || from == R_BOOL) && (numeric_t(to) || to == R_BOOL)) ||
              (datetime_t(from) && datetime_t(to));
    if (!ok) return delta_error_set(DELTA_EINVAL, "expression: cannot CAST a %s AS %s", rtype_name(from), rtype_name(to));
    e->type = to;
    e->prec = e->cast_prec;
    e->scale = e->cast_scale;
    return 0;
  }
  case V_XFUNC: {
    rtype at[e->n_args + 1];
    for (int i = 0; i < e->n_args; i++) {
      at[i] = e->args[i]->type == R_TSNTZ ? R_TS : e->args[i]->type;
      if (at[i] == R_DEC || at[i] == R_IVL)
        return delta_error_set(DELTA_EINVAL, "expression: %s does not take a %s", e->name, rtype_name(at[i]));
    }
    if ((rc = vfunc_bind(e->xfn, at, e->n_args, &e->type))) return rc;
    if (e->type == R_INT) e->prec = 20;
    return 0;
  }
  case V_FUNC: {
    static const char *const names[] = {"date_add", "date_sub", "add_months", "datediff", "current_date",
                                        "current_timestamp", "date_trunc", "to_date", "unix_micros",
                                        "unix_seconds", "timestamp_micros", "timestamp_seconds"};
    const char *fname = names[e->fn];
    const vexpr *a0 = e->n_args > 0 ? e->args[0] : NULL, *a1 = e->n_args > 1 ? e->args[1] : NULL;
    switch (e->fn) {
    case F_DATE_ADD: case F_DATE_SUB: case F_ADD_MONTHS:
      if (!dateish(a0) || (a1->type != R_INT && !null_lit(a1)))
        return delta_error_set(DELTA_EINVAL, "expression: %s needs a date and an integer, not %s and %s", fname,
                               rtype_name(a0->type), rtype_name(a1->type));
      e->type = R_DATE;
      return 0;
    case F_DATEDIFF:
      if (!dateish(a0) || !dateish(a1))
        return delta_error_set(DELTA_EINVAL, "expression: datediff needs two dates, not %s and %s",
                               rtype_name(a0->type), rtype_name(a1->type));
      e->type = R_INT;
      e->prec = 10;
      return 0;
    case F_CURRENT_DATE: case F_CURRENT_TIMESTAMP: {
      /* once per statement, as Spark evaluates them once per query */
      struct timespec now;
      clock_gettime(CLOCK_REALTIME, &now);
      int64_t us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
      e->type = e->fn == F_CURRENT_DATE ? R_DATE : R_TS;
      e->li = e->fn == F_CURRENT_DATE ? dm_floor_div(us, DM_US_PER_DAY) : us;
      return 0;
    }
    case F_DATE_TRUNC:
      if (!dateish(a1))
        return delta_error_set(DELTA_EINVAL, "expression: date_trunc needs a timestamp, not %s", rtype_name(a1->type));
      e->type = a1->type == R_TSNTZ ? R_TSNTZ : R_TS;
      return 0;
    case F_TO_DATE: case F_UNIX_MICROS: case F_UNIX_SECONDS:
      if (!dateish(a0))
        return delta_error_set(DELTA_EINVAL, "expression: %s needs a date or timestamp, not %s", fname,
                               rtype_name(a0->type));
      e->type = e->fn == F_TO_DATE ? R_DATE : R_INT;
      e->prec = 20;
      return 0;
    case F_TIMESTAMP_MICROS: case F_TIMESTAMP_SECONDS:
      if (a0->type != R_INT && !null_lit(a0))
        return delta_error_set(DELTA_EINVAL, "expression: %s needs an integer, not %s", fname, rtype_name(a0->type));
      e->type = R_TS;
      return 0;
    }
    return 0;
  }
  }
  return 0;
}

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

int vexpr_natural_type(vexpr *e, const struct ArrowSchema *schema, const struct ArrowSchema **column,
                       const char **format) {
  *column = NULL;
  *format = NULL;
  int rc = bind_rec(e, schema);
  if (rc) return rc;
  if (e->kind == V_COL) {
    *column = e->col_schema;
    *format = e->col_format;
    return 0;
  }
  static const char *const formats[] = {[R_NULL] = NULL, [R_INT] = "l",        [R_FLOAT] = "g",
                                        [R_STRING] = "u", [R_BOOL] = "b",       [R_DEC] = NULL,
                                        [R_DATE] = "tdD", [R_TS] = "tsu:UTC",   [R_TSNTZ] = "tsu:",
                                        [R_IVL] = NULL};
  if (e->type == R_IVL) return ivl_misuse();
  if (e->type == R_DEC) {
    /* the expression's own decimal(p, s), kept with it for the caller */
    snprintf(e->nat_format, sizeof e->nat_format, "d:%d,%d", e->prec, e->scale);
    *format = e->nat_format;
    return 0;
  }
  *format = formats[e->type];
  return 0;
}

const struct ArrowSchema *vexpr_column_schema(const vexpr *e) { return e->kind == V_COL ? e->col_schema : NULL; }
bool vexpr_is_null(const vexpr *e) { return e->kind == V_LIT && e->lt == R_NULL; }

int vexpr_bind(vexpr *e, const struct ArrowSchema *schema, const char *target_format, const char *target_name) {
  int rc = bind_rec(e, schema);
  if (rc) return rc;
  e->target_format = target_format;
  delta_free(e->target_name);
  if (!(e->target_name = delta_strdup(target_name))) return DELTA_NOMEM();
  int tp, tscale;
  rtype want = rtype_of_format(target_format, &tp, &tscale);
  /* the same column's type (copied as is), or NULL */
  if ((e->kind == V_COL && strcmp(e->col_format, target_format) == 0) || (e->kind == V_LIT && e->lt == R_NULL))
    return 0;
  int scale = 0;
  value_type vt = value_type_of_arrow(target_format, NULL, &scale);
  bool temporal = vt == VT_DATE || vt == VT_TIMESTAMP || vt == VT_TIMESTAMP_NTZ;
  /* a literal into a date, timestamp or decimal column: parsed once as the
   * column's type (-literal: a negative number) */
  bool num_lit = e->kind == V_NEG && e->args[0]->kind == V_LIT &&
                 (e->args[0]->lt == R_INT || e->args[0]->lt == R_FLOAT || e->args[0]->lt == R_DEC);
  vexpr *lit = num_lit ? e->args[0] : e;
  if (lit->kind == V_LIT && (temporal || vt == VT_DECIMAL) && lit->lt != R_BOOL && lit->lt != R_IVL) {
    bool ok_kind = temporal ? lit->ls != NULL : !lit->ltyped;
    char neg[80];
    const char *text = lit->ls ? lit->ls : lit->ltext;
    size_t len = lit->ls ? lit->ls_len : strlen(lit->ltext);
    if (lit != e) {
      snprintf(neg, sizeof neg, "-%s", lit->ltext);
      text = neg;
      len = strlen(neg);
    }
    if (ok_kind && parse_const(vt, target_format, scale, text, len, &e->konst) == 0) {
      e->has_const = true;
      return 0;
    }
    return delta_error_set(DELTA_EINVAL, "column %s is %s: cannot assign %s%.*s%s", target_name,
                           value_type_name(vt), lit->ls ? "'" : "", (int)len, text, lit->ls ? "'" : "");
  }
  if (want == R_NULL)
    return delta_error_set(DELTA_EINVAL, "column %s: only a column of the same type or NULL can be assigned to it",
                           target_name);
  rtype got = e->type;
  if (got == R_IVL) return ivl_misuse();
  /* Spark's ANSI store assignment: numbers convert either way (a double
   * into an integer column truncates; out of range is an error), dates and
   * timestamps into one another, anything into a string. */
  bool ok = got == R_NULL || got == want || (numeric_t(want) && numeric_t(got)) || want == R_STRING ||
            (datetime_t(want) && (datetime_t(got) || got == R_STRING)) || (want == R_DEC && got == R_STRING);
  if (ok) return 0;
  return delta_error_set(DELTA_EINVAL, "column %s is %s: cannot assign a %s (use CAST)", target_name,
                         rtype_name(want), rtype_name(got));
}

/* ------------------------------------------------------------------- eval */

typedef struct {
  const struct ArrowArray *batch;
  delta_buf scratch;
} ectx;

/* A string value's bytes (the scratch buffer is unallocated while every
 * string so far was empty). */
static const char *sdata(const ectx *c, const sval *v) {
  return v->s_len ? (const char *)c->scratch.data + v->s_off : "";
}

/* A non-string value as text (Spark's CAST AS STRING forms). */
static int value_text(const sval *v, char *b, size_t cap) {
  switch (v->t) {
  case R_INT: return snprintf(b, cap, "%lld", (long long)v->i);
  case R_FLOAT: return snprintf(b, cap, "%.17g", v->d);
  case R_BOOL: return snprintf(b, cap, "%s", v->b ? "true" : "false");
  case R_DEC: return dec_format(v->dec, v->scale, b);
  case R_DATE: return dm_format_date(v->i, b);
  case R_TS: case R_TSNTZ: return dm_format_ts(v->i, b);
  default: return snprintf(b, cap, "NULL");
  }
}

static int to_string(ectx *c, sval *v) {
  if (v->t == R_STRING || v->t == R_NULL) return 0;
  char b[64];
  int n = value_text(v, b, sizeof b);
  v->s_off = c->scratch.len;
  v->s_len = (size_t)n;
  v->t = R_STRING;
  return delta_buf_append(&c->scratch, b, (size_t)n);
}

/* The leaf array of a column reference and the row of it that row *row of
 * the batch is (a struct child's row i is the struct's slot offset + i);
 * a null struct on the way is a null value (*row = -1). */
static const struct ArrowArray *col_array(const vexpr *e, const struct ArrowArray *batch, int64_t *row) {
  const struct ArrowArray *a = batch->children[e->cols[0]];
  for (int d = 1; d < e->depth; d++) {
    if (*row >= 0 && !arrow_is_valid(a, *row)) *row = -1;
    if (*row >= 0) *row += a->offset;
    a = a->children[e->cols[d]];
  }
  return a;
}

static int eval_row(ectx *c, const vexpr *e, int64_t r, sval *out);

static double num_double(const sval *v) {
  return v->t == R_INT ? (double)v->i : v->t == R_DEC ? dec_to_double(v->dec, v->scale) : v->d;
}

/* Convert v to class `to` (decimals to decimal(p, s), HALF_UP). A value
 * that has no form there (text that is no number or date, out of range)
 * becomes NULL; the caller decides whether that is an error. */
static int cast_value(ectx *c, sval *v, rtype to, int p, int s) {
  if (v->t == R_NULL || (v->t == to && to != R_DEC)) return 0;
  if (to == R_STRING) return to_string(c, v);
  if (v->t == R_STRING) {
    char *tmp = delta_malloc(v->s_len + 1);
    if (!tmp) return DELTA_NOMEM();
    memcpy(tmp, sdata(c, v), v->s_len);
    tmp[v->s_len] = 0;
    char *end;
    errno = 0;
    expr_value ev;
    v->t = R_NULL;
    switch (to) {
    case R_INT: {
      long long x = strtoll(tmp, &end, 10);
      if (*tmp && !*end && !errno) v->i = x, v->t = R_INT;
      break;
    }
    case R_FLOAT: {
      double x = strtod(tmp, &end);
      if (*tmp && !*end) v->d = x, v->t = R_FLOAT;
      break;
    }
    case R_DEC:
      if (dec_parse(tmp, v->s_len, p, s, &v->dec) == DEC_OK) v->t = R_DEC, v->scale = s;
      break;
    case R_DATE:
      if (value_parse(VT_DATE, 0, tmp, v->s_len, &ev) == 0) v->i = ev.u.i, v->t = R_DATE;
      else if (value_parse(VT_TIMESTAMP_NTZ, 0, tmp, v->s_len, &ev) == 0)
        v->i = dm_floor_div(ev.u.i, DM_US_PER_DAY), v->t = R_DATE;
      break;
    case R_TS: case R_TSNTZ:
      if (value_parse(to == R_TS ? VT_TIMESTAMP : VT_TIMESTAMP_NTZ, 0, tmp, v->s_len, &ev) == 0) v->i = ev.u.i, v->t = to;
      break;
    default:
      if (strcasecmp(tmp, "true") == 0) v->b = true, v->t = R_BOOL;
      else if (strcasecmp(tmp, "false") == 0) v->b = false, v->t = R_BOOL;
    }
    delta_free(tmp);
    return 0;
  }
  if (datetime_t(to)) {
    if (v->t == R_DATE) {
      if (v->i > 106751991 || v->i < -106751991) v->t = R_NULL;
      else v->i *= DM_US_PER_DAY, v->t = to;
    } else if (to == R_DATE) {
      v->i = dm_floor_div(v->i, DM_US_PER_DAY), v->t = R_DATE;
    } else {
      v->t = to; /* timestamp <-> timestamp_ntz: the same instant, read as UTC */
    }
    return 0;
  }
  switch (to) {
  case R_INT:
    if (v->t == R_FLOAT) {
      if (isnan(v->d) || v->d >= 9.2233720368547758e18 || v->d < -9.2233720368547758e18) v->t = R_NULL;
      else v->i = (int64_t)v->d, v->t = R_INT;
    } else if (v->t == R_DEC) {
      long long x;
      if (dec_to_int64(v->dec, v->scale, &x)) v->i = x, v->t = R_INT;
      else v->t = R_NULL;
    } else {
      v->i = v->b, v->t = R_INT;
    }
    return 0;
  case R_FLOAT:
    v->d = v->t == R_BOOL ? v->b : num_double(v);
    v->t = R_FLOAT;
    return 0;
  case R_DEC: {
    int rc = v->t == R_DEC ? dec_rescale(v->dec, v->scale, p, s, &v->dec)
             : v->t == R_INT ? dec_rescale(v->i, 0, p, s, &v->dec)
             : v->t == R_FLOAT ? dec_from_double(v->d, p, s, &v->dec)
                               : dec_rescale(v->b ? 1 : 0, 0, p, s, &v->dec);
    v->t = rc == DEC_OK ? R_DEC : R_NULL;
    v->scale = s;
    return 0;
  }
  default:
    v->b = v->t == R_INT ? v->i != 0 : v->t == R_DEC ? v->dec != 0 : v->d != 0;
    v->t = R_BOOL;
    return 0;
  }
}

/* A function's date (or timestamp) argument: strings are parsed, and
 * text that is no date is an error (Spark's ANSI casts). */
static int as_temporal(ectx *c, sval *v, rtype to) {
  if (v->t == R_NULL) return 0;
  char text[64];
  int n = 0;
  if (v->t == R_STRING) n = snprintf(text, sizeof text, "%.*s", (int)(v->s_len > 60 ? 60 : v->s_len),
                                     sdata(c, v));
  int rc = cast_value(c, v, to, 0, 0);
  if (!rc && v->t == R_NULL)
    rc = delta_error_set(DELTA_EINVAL, "expression: '%.*s' is not a %s", n, text, to == R_DATE ? "date" : "timestamp");
  return rc;
}

static int date_result(sval *out, int64_t days) {
  if (days > INT32_MAX || days < INT32_MIN) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
  out->t = R_DATE;
  out->i = days;
  return 0;
}

/* date or timestamp +/- interval (months first, then days, then time, as
 * Spark adds a calendar interval; a timestamp's months move its UTC date). */
static int add_interval(const vexpr *e, const sval *base, const sval *iv, int sign, sval *out) {
  int64_t months = sign * iv->iv_months, days = sign * iv->iv_days, us = sign * iv->i;
  if (e->type == R_DATE) {
    int64_t d = base->i;
    if (months && !dm_add_months(d, months, &d)) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, d + days);
  }
  int64_t t = base->t == R_DATE ? base->i * DM_US_PER_DAY : base->i;
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

static int eval_bin(ectx *c, const vexpr *e, sval *a, sval *b, sval *out) {
  int rc = 0;
  if (e->op == '|') {
    if ((rc = to_string(c, a)) || (rc = to_string(c, b))) return rc;
    size_t at = c->scratch.len;
    if (a->s_len + b->s_len) {
      if ((rc = delta_buf_reserve(&c->scratch, a->s_len + b->s_len))) return rc;
      if (a->s_len) memcpy(c->scratch.data + at, c->scratch.data + a->s_off, a->s_len);
      if (b->s_len) memcpy(c->scratch.data + at + a->s_len, c->scratch.data + b->s_off, b->s_len);
      c->scratch.len += a->s_len + b->s_len;
    }
    out->t = R_STRING;
    out->s_off = at;
    out->s_len = a->s_len + b->s_len;
    return 0;
  }
  switch (e->type) {
  case R_FLOAT: {
    double x = num_double(a), y = num_double(b);
    out->t = R_FLOAT;
    switch (e->op) {
    case '+': out->d = x + y; break;
    case '-': out->d = x - y; break;
    case '*': out->d = x * y; break;
    case '%':
      if (y == 0) out->t = R_NULL;
      else out->d = fmod(x, y);
      break;
    default:
      if (y == 0) out->t = R_NULL; /* Spark (non-ANSI): division by zero is null */
      else out->d = x / y;
    }
    return 0;
  }
  case R_DEC: {
    __int128 x = a->t == R_DEC ? a->dec : a->i, y = b->t == R_DEC ? b->dec : b->i;
    int sx = a->t == R_DEC ? a->scale : 0, sy = b->t == R_DEC ? b->scale : 0;
    int drc = dec_apply(e->op, x, sx, y, sy, e->prec, e->scale, &out->dec);
    if (drc != DEC_OK) {
      char ta[48], tb[48];
      dec_format(x, sx, ta);
      dec_format(y, sy, tb);
      if (drc == DEC_DIVZERO) return delta_error_set(DELTA_EINVAL, "expression: division by zero in %s %c %s", ta, e->op, tb);
      return delta_error_set(DELTA_EINVAL, "expression: decimal overflow: %s %c %s does not fit decimal(%d,%d)", ta,
                             e->op, tb, e->prec, e->scale);
    }
    out->t = R_DEC;
    out->scale = e->scale;
    return 0;
  }
  case R_DATE: case R_TS: case R_TSNTZ: {
    int sign = e->op == '-' ? -1 : 1;
    if (b->t == R_IVL) return add_interval(e, a, b, sign, out);
    if (a->t == R_IVL) return add_interval(e, b, a, 1, out);
    /* date +/- days */
    int64_t days = a->t == R_DATE ? a->i : b->i, n = a->t == R_DATE ? b->i : a->i;
    if (n > INT32_MAX || n < -(int64_t)INT32_MAX) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, days + sign * n);
  }
  default: break;
  }
  int64_t x = a->i, y = b->i, z = 0;
  bool ovf = false;
  switch (e->op) {
  case '+': ovf = __builtin_add_overflow(x, y, &z); break;
  case '-': ovf = __builtin_sub_overflow(x, y, &z); break;
  case '*': ovf = __builtin_mul_overflow(x, y, &z); break;
  default:
    if (y == 0) return 0;
    if (x == INT64_MIN && y == -1) z = e->op == '%' ? 0 : (ovf = true, 0);
    else z = e->op == '%' ? x % y : x / y;
  }
  if (ovf) return delta_error_set(DELTA_EINVAL, "expression: integer overflow in '%c'", e->op);
  out->t = R_INT;
  out->i = z;
  return 0;
}

static int eval_func(ectx *c, const vexpr *e, int64_t r, sval *out) {
  sval a, b;
  int rc = 0;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  if (e->n_args > 0 && (rc = eval_row(c, e->args[0], r, &a))) return rc;
  if (e->n_args > 1 && (rc = eval_row(c, e->args[1], r, &b))) return rc;
  switch (e->fn) {
  case F_CURRENT_DATE: case F_CURRENT_TIMESTAMP:
    out->t = e->type;
    out->i = e->li;
    return 0;
  case F_DATE_ADD: case F_DATE_SUB: case F_ADD_MONTHS:
    if (a.t == R_NULL || b.t == R_NULL) return 0;
    if ((rc = as_temporal(c, &a, R_DATE))) return rc;
    if (e->fn == F_ADD_MONTHS) {
      int64_t d;
      if (!dm_add_months(a.i, b.i, &d)) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
      return date_result(out, d);
    }
    if (b.i > INT32_MAX || b.i < -(int64_t)INT32_MAX) return delta_error_set(DELTA_EINVAL, "expression: date out of range");
    return date_result(out, e->fn == F_DATE_ADD ? a.i + b.i : a.i - b.i);
  case F_DATEDIFF:
    if (a.t == R_NULL || b.t == R_NULL) return 0;
    if ((rc = as_temporal(c, &a, R_DATE)) || (rc = as_temporal(c, &b, R_DATE))) return rc;
    out->t = R_INT;
    out->i = a.i - b.i;
    return 0;
  case F_DATE_TRUNC:
    if (b.t == R_NULL) return 0;
    if ((rc = as_temporal(c, &b, e->type))) return rc;
    out->t = e->type;
    out->i = dm_trunc(b.i, e->trunc_unit);
    return 0;
  case F_TO_DATE:
    if ((rc = as_temporal(c, &a, R_DATE))) return rc;
    *out = a;
    return 0;
  case F_UNIX_MICROS: case F_UNIX_SECONDS:
    if ((rc = as_temporal(c, &a, a.t == R_TSNTZ ? R_TSNTZ : R_TS)) || a.t == R_NULL) return rc;
    out->t = R_INT;
    out->i = e->fn == F_UNIX_MICROS ? a.i : dm_floor_div(a.i, 1000000);
    return 0;
  case F_TIMESTAMP_MICROS: case F_TIMESTAMP_SECONDS:
    if (a.t == R_NULL) return 0;
    out->t = R_TS;
    out->i = a.i;
    if (e->fn == F_TIMESTAMP_SECONDS && __builtin_mul_overflow(a.i, (int64_t)1000000, &out->i))
      return delta_error_set(DELTA_EINVAL, "expression: timestamp out of range");
    return 0;
  }
  return 0;
}

/* A CASE or COALESCE branch's value in the expression's type (a decimal
 * widened to the common scale, a date to a timestamp...). */
static int coerce(ectx *c, const vexpr *e, sval *out) {
  if (out->t == R_NULL || (out->t == e->type && e->type != R_DEC)) return 0;
  if (e->type == R_INT || e->type == R_NULL) return 0;
  int rc = cast_value(c, out, e->type, e->prec, e->scale);
  if (!rc && out->t == R_NULL)
    rc = delta_error_set(DELTA_EINVAL, "expression: decimal overflow: a value does not fit decimal(%d,%d)", e->prec,
                         e->scale);
  return rc;
}

static int eval_row(ectx *c, const vexpr *e, int64_t r, sval *out) {
  memset(out, 0, sizeof *out);
  int rc = 0;
  switch (e->kind) {
  case V_LIT:
    out->t = e->lt;
    out->i = e->lt == R_IVL ? e->iv_us : e->li;
    out->d = e->ld;
    out->b = e->lb;
    out->dec = e->ldec;
    out->scale = e->scale;
    out->iv_months = e->iv_months;
    out->iv_days = e->iv_days;
    if (e->lt == R_STRING) {
      out->s_off = c->scratch.len;
      out->s_len = e->ls_len;
      rc = delta_buf_append(&c->scratch, e->ls, e->ls_len);
    }
    return rc;
  case V_COL: {
    expr_value v;
    value_type vt = value_type_of_arrow(e->col_format, NULL, NULL);
    int64_t row = r;
    const struct ArrowArray *a = col_array(e, c->batch, &row);
    if (row < 0) return 0;
    value_from_array(a, e->col_format, vt, e->scale, row, &v);
    if (v.is_null) return 0;
    out->t = e->type;
    switch (e->type) {
    case R_INT: case R_DATE: case R_TS: case R_TSNTZ: out->i = v.u.i; break;
    case R_FLOAT: out->d = v.u.d; break;
    case R_BOOL: out->b = v.u.b; break;
    case R_DEC:
      out->dec = v.u.dec;
      out->scale = e->scale;
      break;
    case R_STRING:
      out->s_off = c->scratch.len;
      out->s_len = v.u.s.n;
      rc = delta_buf_append(&c->scratch, v.u.s.p, v.u.s.n);
      break;
    default: out->t = R_NULL;
    }
    return rc;
  }
  case V_NEG:
    if ((rc = eval_row(c, e->args[0], r, out))) return rc;
    if (out->t == R_INT) out->i = (int64_t)(0 - (uint64_t)out->i);
    else if (out->t == R_FLOAT) out->d = -out->d;
    else if (out->t == R_DEC) out->dec = -out->dec;
    else if (out->t == R_IVL) {
      out->i = -out->i;
      out->iv_months = -out->iv_months;
      out->iv_days = -out->iv_days;
    }
    return 0;
  case V_BIN: {
    sval a, b;
    if ((rc = eval_row(c, e->args[0], r, &a)) || (rc = eval_row(c, e->args[1], r, &b))) return rc;
    if (a.t == R_NULL || b.t == R_NULL) return 0;
    return eval_bin(c, e, &a, &b, out);
  }
  case V_COALESCE:
    for (int i = 0; i < e->n_args; i++) {
      if ((rc = eval_row(c, e->args[i], r, out))) return rc;
      if (out->t != R_NULL) return coerce(c, e, out);
    }
    return 0;
  case V_CASE: {
    int pick = e->n_args - 1;
    for (int i = 0; i < e->n_conds; i++)
      if (e->masks[i][r]) {
        pick = i;
        break;
      }
    if ((rc = eval_row(c, e->args[pick], r, out))) return rc;
    return coerce(c, e, out);
  }
  case V_CAST:
    if ((rc = eval_row(c, e->args[0], r, out))) return rc;
    return cast_value(c, out, e->cast_to, e->cast_prec, e->cast_scale);
  case V_FUNC:
    return eval_func(c, e, r, out);
  case V_XFUNC: {
    sval a[e->n_args + 1];
    for (int i = 0; i < e->n_args; i++) {
      if ((rc = eval_row(c, e->args[i], r, &a[i]))) return rc;
      if (a[i].t == R_TSNTZ) a[i].t = R_TS;
    }
    return vfunc_eval(e->xfn, a, e->n_args, &c->scratch, out);
  }
  }
  return 0;
}

static int prepare(vexpr *e, const struct ArrowArray *batch) {
  int rc = 0;
  for (int i = 0; i < e->n_args && !rc; i++) rc = prepare(e->args[i], batch);
  for (int i = 0; i < e->n_conds && !rc; i++) {
    delta_free(e->masks[i]);
    if (!(e->masks[i] = delta_malloc((size_t)batch->length + 1))) return DELTA_NOMEM();
    rc = expr_eval_batch(e->conds[i], batch, e->masks[i]);
  }
  return rc;
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
static int const_array(const vexpr *e, const char *f, int64_t n, struct ArrowArray *out) {
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
  const char *f = e->target_format;
  int64_t n = batch->length;
  int tp, tscale;
  rtype want = rtype_of_format(f, &tp, &tscale);
  memset(out, 0, sizeof *out);
  if (want == R_NULL && e->kind == V_COL) {
    /* a type only copied (bound to the same type): a copy of the column;
     * the others go row by row, which also reads through null structs
     * (MERGE's source side of a target-only row) */
    uint8_t *all = delta_malloc((size_t)n + 1);
    if (!all) return DELTA_NOMEM();
    memset(all, 1, (size_t)n + 1);
    /* a nested leaf lines up with the batch when the structs above it have
     * no offset and no nulls */
    const struct ArrowArray *a = batch->children[e->cols[0]];
    int rc = 0;
    for (int d = 1; d < e->depth && !rc; d++) {
      if (a->offset || a->null_count)
        rc = delta_error_set(DELTA_EUNSUPPORTED, "copying %s: a struct with an offset or nulls", e->name);
      a = a->children[e->cols[d]];
    }
    if (!rc) rc = arrow_filter(e->col_schema, a, all, out);
    delta_free(all);
    return rc;
  }
  if (e->has_const) return const_array(e, f, n, out);
  if (want == R_NULL) return delta_error_set(DELTA_EUNSUPPORTED, "assigning NULL to a column of Arrow type %s", f);
  int rc = prepare(e, batch);
  if (rc) return rc;
  ectx c = {batch, DELTA_BUF_INIT};
  uint8_t *valid = delta_calloc((size_t)(n + 7) / 8 + 1, 1);
  size_t w = want == R_DEC ? 16 : want == R_DATE && f[2] == 'D' ? 4 : width_of(f[0]);
  void *vals = NULL;
  int32_t *offs = NULL;
  delta_buf chars = DELTA_BUF_INIT;
  if (want == R_STRING) offs = delta_calloc((size_t)n + 1, sizeof *offs);
  else if (want == R_BOOL) vals = delta_calloc((size_t)(n + 7) / 8 + 1, 1);
  else vals = delta_calloc((size_t)n + 1, w);
  if (!valid || (!vals && !offs)) rc = DELTA_NOMEM();
  int64_t nulls = 0;
  for (int64_t r = 0; r < n && !rc; r++) {
    delta_buf_reset(&c.scratch);
    sval v;
    if ((rc = eval_row(&c, e, r, &v))) break;
    bool had_value = v.t != R_NULL;
    sval before = v;
    if (had_value && (rc = cast_value(&c, &v, want, tp, tscale))) break;
    if (had_value && want == R_DATE && v.t == R_DATE && (v.i > INT32_MAX || v.i < INT32_MIN)) v.t = R_NULL;
    if (had_value && v.t == R_NULL) {
      /* Spark's ANSI store assignment: an error naming the column and value */
      char text[64];
      if (before.t == R_STRING)
        snprintf(text, sizeof text, "'%.*s'", (int)(before.s_len > 40 ? 40 : before.s_len), sdata(&c, &before));
      else value_text(&before, text, sizeof text);
      if (want == R_DEC)
        rc = delta_error_set(DELTA_EINVAL, "expression: %s does not fit column %s decimal(%d,%d)", text,
                             e->target_name, tp, tscale);
      else if (before.t == R_STRING && datetime_t(want))
        rc = delta_error_set(DELTA_EINVAL, "expression: %s is not a %s for column %s", text, rtype_name(want),
                             e->target_name);
      else
        rc = delta_error_set(DELTA_EINVAL, "expression: a value does not fit the column %s (NaN or out of range: %s)",
                             e->target_name, text);
      break;
    }
    if (v.t == R_NULL) nulls++;
    else arrow_bit_set(valid, r);
    if (want == R_STRING) {
      if (v.t != R_NULL && v.s_len) rc = delta_buf_append(&chars, sdata(&c, &v), v.s_len);
      if (chars.len > INT32_MAX) rc = delta_error_set(DELTA_ELIMIT, "string column over 2 GiB");
      offs[r + 1] = (int32_t)chars.len;
      continue;
    }
    if (v.t == R_NULL) continue;
    if (want == R_BOOL) {
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
      if (want == R_DATE) {
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
  if (!rc && want == R_STRING && f[0] != 'u')
    rc = delta_error_set(DELTA_EUNSUPPORTED, "large string columns are not supported in SET");
  if (!rc) rc = arrow_array_new(out, want == R_STRING ? 3 : 2, 0);
  if (!rc) {
    out->length = n;
    out->null_count = nulls;
    arrow_array_set_buffer(out, 0, valid);
    valid = NULL;
    if (want == R_STRING) {
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
  delta_buf_dispose(&c.scratch);
  return rc;
}

/* ---------------------------------------------------------------- SET list */

void vexpr_set_free(char **names, vexpr **exprs, int n) {
  for (int i = 0; i < n; i++) {
    if (names) delta_free(names[i]);
    if (exprs) vexpr_free(exprs[i]);
  }
  delta_free(names);
  delta_free(exprs);
}

int vexpr_parse_set(const char *text, char ***names_out, vexpr ***exprs_out, int *n_out) {
  *names_out = NULL;
  *exprs_out = NULL;
  *n_out = 0;
  char **names = NULL;
  vexpr **exprs = NULL;
  int n = 0, rc = 0;
  size_t i = 0, len = strlen(text);
  while (!rc) {
    /* the name */
    while (isspace((unsigned char)text[i])) i++;
    size_t ns = i;
    char *name = NULL;
    if (text[i] == '`') {
      i++;
      ns = i;
      while (text[i] && text[i] != '`') i++;
      name = text[i] ? delta_malloc(i - ns + 1) : NULL;
      if (name) {
        memcpy(name, text + ns, i - ns);
        name[i - ns] = 0;
        i++;
      }
    } else {
      /* a.b stays whole: MERGE takes "t.col" for its target's column */
      while (isalnum((unsigned char)text[i]) || text[i] == '_' ||
             (text[i] == '.' && i > ns && (isalpha((unsigned char)text[i + 1]) || text[i + 1] == '_')))
        i++;
      if (i > ns && (name = delta_malloc(i - ns + 1))) {
        memcpy(name, text + ns, i - ns);
        name[i - ns] = 0;
      }
    }
    while (isspace((unsigned char)text[i])) i++;
    if (!name || text[i] != '=') {
      delta_free(name);
      rc = delta_error_set(DELTA_EINVAL, "expected 'column = expression' at position %zu", i + 1);
      break;
    }
    i++;
    /* the expression: up to a comma at depth 0 outside strings and CASE */
    size_t es = i;
    int depth = 0, cases = 0;
    for (; i < len; i++) {
      char c = text[i];
      if (c == '\'' || c == '`') {
        for (i++; i < len && !(text[i] == c && text[i + 1] != c); i++)
          if (text[i] == c) i++;
        continue;
      }
      bool word_start = i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
      if (word_start && strncasecmp(text + i, "case", 4) == 0 && !isalnum((unsigned char)text[i + 4]) &&
          text[i + 4] != '_')
        cases++;
      if (word_start && strncasecmp(text + i, "end", 3) == 0 && !isalnum((unsigned char)text[i + 3]) &&
          text[i + 3] != '_' && cases > 0)
        cases--;
      if (c == '(') depth++;
      if (c == ')') depth--;
      if (c == ',' && depth == 0 && cases == 0) break;
    }
    char *et = delta_malloc(i - es + 1);
    vexpr *e = NULL;
    if (!et) rc = DELTA_NOMEM();
    else {
      memcpy(et, text + es, i - es);
      et[i - es] = 0;
      rc = vexpr_parse(et, &e);
      if (rc) delta_error_prefix("%s", name);
      delta_free(et);
    }
    char **nn = rc ? NULL : delta_realloc(names, (size_t)(n + 1) * sizeof *nn);
    if (nn) names = nn;
    vexpr **ne = rc || !nn ? NULL : delta_realloc(exprs, (size_t)(n + 1) * sizeof *ne);
    if (ne) exprs = ne;
    if (!rc && (!nn || !ne)) rc = DELTA_NOMEM();
    if (rc) {
      delta_free(name);
      vexpr_free(e);
      break;
    }
    names[n] = name;
    exprs[n] = e;
    n++;
    if (i >= len) break;
    i++; /* the comma */
  }
  if (rc) {
    vexpr_set_free(names, exprs, n);
    return rc;
  }
  *names_out = names;
  *exprs_out = exprs;
  *n_out = n;
  return 0;
}
