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

#include "arrow/array.h"
#include "arrow/filter.h"
#include "expr/expr.h"
#include "expr/value.h"
#include "expr/value_funcs.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

#define MAX_DEPTH 100

typedef enum { V_LIT, V_COL, V_BIN, V_NEG, V_CASE, V_COALESCE, V_CAST, V_FUNC } vkind;

struct vexpr {
  vkind kind;
  char op;                 /* V_BIN: + - * / and '|' for || */
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
  /* V_FUNC: value_funcs.h's id; arguments in args (name in name) */
  int fn;
  /* bound */
  rtype type;
  rtype want;              /* the value type evaluated into the target */
  const char *target_format;
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

static int p_type(vparser *p, rtype *t) {
  static const struct { const char *n; rtype t; } types[] = {
      {"bigint", R_INT}, {"long", R_INT}, {"integer", R_INT}, {"int", R_INT}, {"smallint", R_INT},
      {"short", R_INT}, {"tinyint", R_INT}, {"byte", R_INT}, {"double", R_FLOAT}, {"float", R_FLOAT},
      {"string", R_STRING}, {"boolean", R_BOOL}, {"date", R_DATE}, {"timestamp_ntz", R_TS}, {"timestamp", R_TS}};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (kw(p, types[i].n)) {
      *t = types[i].t;
      return 0;
    }
  return verr(p, "CAST to an unsupported type");
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
    if (!punct(p, ")")) return verr(p, "expected ')'");
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
    if (flt) {
      e->lt = R_FLOAT;
      e->ld = strtod(buf, NULL);
    } else {
      e->lt = R_INT;
      e->li = strtoll(buf, NULL, 10);
      if (errno) {
        vexpr_free(e);
        return verr(p, "integer out of range");
      }
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
        if ((rc = p_primary(p, out))) return rc;
        (*out)->ltyped = typed;
        return 0;
      }
      p->pos = at; /* a column of that name */
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
      if (!rc) rc = p_type(p, &e->cast_to);
      if (!rc && !punct(p, ")")) rc = verr(p, "expected ')'");
      if (rc) {
        vexpr_free(e);
        return rc;
      }
      *out = e;
      return 0;
    }
    p->pos = save;
    /* name(args): a function (value_funcs.h) */
    size_t fn_len = 0;
    while (isalnum((unsigned char)s[fn_len]) || s[fn_len] == '_') fn_len++;
    const char *after = s + fn_len;
    while (isspace((unsigned char)*after)) after++;
    if (fn_len && *after == '(') {
      vexpr *e = vnew(V_FUNC);
      if (!e || !(e->name = delta_malloc(fn_len + 1))) {
        vexpr_free(e);
        return DELTA_NOMEM();
      }
      memcpy(e->name, s, fn_len);
      e->name[fn_len] = 0;
      p->pos = (size_t)(after - p->s) + 1;
      bool no_args = punct(p, ")");
      while (!no_args && !rc) {
        vexpr *v = NULL;
        if (!(rc = p_concat(p, &v))) rc = push(e, v);
        if (!rc && !punct(p, ",")) break;
      }
      if (!rc && !no_args && !punct(p, ")")) rc = verr(p, "expected ')'");
      if (!rc) rc = vfunc_find(e->name, e->n_args, &e->fn);
      if (rc) {
        vexpr_free(e);
        return rc;
      }
      *out = e;
      return 0;
    }
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
    else if (level == 2 && (s[0] == '*' || s[0] == '/')) op = s[0];
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

static rtype rtype_of_format(const char *f) {
  switch (f[0]) {
  case 'c': case 's': case 'i': case 'l': case 'C': case 'S': case 'I': return R_INT;
  case 'f': case 'g': return R_FLOAT;
  case 'u': case 'U': return R_STRING;
  case 'b': return R_BOOL;
  case 't': return strcmp(f, "tdD") == 0 ? R_DATE : strncmp(f, "tsu:", 4) == 0 ? R_TS : R_NULL;
  default: return R_NULL; /* other: only copied as is */
  }
}

static const char *rtype_name(rtype t) {
  static const char *const n[] = {"null", "long", "double", "string", "boolean", "date", "timestamp"};
  return n[t];
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
    e->type = rtype_of_format(e->col_format);
    return 0;
  }
  case V_NEG:
    if (e->args[0]->type != R_INT && e->args[0]->type != R_FLOAT && e->args[0]->type != R_NULL)
      return delta_error_set(DELTA_EINVAL, "expression: cannot negate a %s", rtype_name(e->args[0]->type));
    e->type = e->args[0]->type;
    return 0;
  case V_BIN: {
    rtype a = e->args[0]->type, b = e->args[1]->type;
    if (e->op == '|') {
      e->type = R_STRING;
      return 0;
    }
    bool an = a == R_INT || a == R_FLOAT || a == R_NULL, bn = b == R_INT || b == R_FLOAT || b == R_NULL;
    if ((a == R_NULL && e->args[0]->kind == V_COL) || (b == R_NULL && e->args[1]->kind == V_COL) || !an || !bn)
      return delta_error_set(DELTA_EINVAL, "expression: '%c' needs numbers, not %s and %s", e->op,
                             rtype_name(a), rtype_name(b));
    /* As in Spark, '/' divides as double even for integers (CAST the
     * result, or assign it to an integer column, to truncate). */
    e->type = (a == R_FLOAT || b == R_FLOAT || e->op == '/') ? R_FLOAT : R_INT;
    return 0;
  }
  case V_COALESCE:
  case V_CASE: {
    rtype t = R_NULL;
    for (int i = 0; i < e->n_args; i++) {
      rtype a = e->args[i]->type;
      if (a == R_NULL) continue;
      if (t == R_NULL) t = a;
      else if (t != a) {
        if ((t == R_INT || t == R_FLOAT) && (a == R_INT || a == R_FLOAT)) t = R_FLOAT;
        else
          return delta_error_set(DELTA_EINVAL, "expression: %s mixes %s and %s",
                                 e->kind == V_CASE ? "CASE" : "COALESCE", rtype_name(t), rtype_name(a));
      }
    }
    for (int i = 0; i < e->n_conds && !rc; i++) rc = expr_bind(e->conds[i], s);
    if (rc) return rc;
    if (e->n_conds && !(e->masks = delta_calloc((size_t)e->n_conds, sizeof *e->masks))) return DELTA_NOMEM();
    e->type = t;
    return 0;
  }
  case V_CAST:
    if (!vfunc_castable(e->args[0]->type, e->cast_to))
      return delta_error_set(DELTA_EINVAL, "expression: cannot CAST a %s to %s", rtype_name(e->args[0]->type),
                             rtype_name(e->cast_to));
    e->type = e->cast_to;
    return 0;
  case V_FUNC: {
    rtype at[e->n_args + 1];
    for (int i = 0; i < e->n_args; i++) at[i] = e->args[i]->type;
    return vfunc_bind(e->fn, at, e->n_args, &e->type);
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
  const char *dot = memchr(text, '.', len);
  int digits = dot ? (int)(len - (size_t)(dot - text) - 1) : 0;
  if (digits > 38 || memchr(text, 'e', len) || memchr(text, 'E', len)) return -1;
  int at = digits > scale ? digits : scale;
  if (value_parse(VT_DECIMAL, at, text, len, out) != 0) return -1;
  __int128 v = out->u.dec;
  for (int i = at; i > scale; i--) {
    __int128 q = v / 10, rem = v % 10;
    if (i == scale + 1 && (rem >= 5 || rem <= -5)) q += v < 0 ? -1 : 1;
    v = q;
  }
  __int128 limit = 1;
  for (int i = 0; i < precision; i++) limit *= 10;
  if (v >= limit || v <= -limit) return -1;
  out->u.dec = v;
  out->scale = scale;
  return 0;
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
  static const char *const formats[] = {[R_NULL] = NULL, [R_INT] = "l", [R_FLOAT] = "g", [R_STRING] = "u",
                                        [R_BOOL] = "b", [R_DATE] = "tdD", [R_TS] = "tsu:UTC"};
  *format = formats[e->type];
  return 0;
}

const struct ArrowSchema *vexpr_column_schema(const vexpr *e) { return e->kind == V_COL ? e->col_schema : NULL; }
bool vexpr_is_null(const vexpr *e) { return e->kind == V_LIT && e->lt == R_NULL; }

int vexpr_bind(vexpr *e, const struct ArrowSchema *schema, const char *target_format, const char *target_name) {
  int rc = bind_rec(e, schema);
  if (rc) return rc;
  e->target_format = target_format;
  rtype want = rtype_of_format(target_format);
  /* a date or timestamp column takes computed dates and timestamps; other
   * values (literals, a copy of the column) as before */
  if ((want == R_DATE || want == R_TS) && e->type != R_DATE && e->type != R_TS && !(e->kind == V_LIT && e->lt == R_NULL))
    want = R_NULL;
  e->want = want;
  if (want == R_NULL) {
    /* other types: the same column's type, NULL, or a literal of the
     * column's type (a date, timestamp or exact decimal), parsed once */
    if ((e->kind == V_COL && strcmp(e->col_format, target_format) == 0) || (e->kind == V_LIT && e->lt == R_NULL))
      return 0;
    int scale = 0;
    value_type vt = value_type_of_arrow(target_format, NULL, &scale);
    bool temporal = vt == VT_DATE || vt == VT_TIMESTAMP || vt == VT_TIMESTAMP_NTZ;
    /* -literal: a negative number */
    vexpr *lit = e->kind == V_NEG && e->args[0]->kind == V_LIT && e->args[0]->lt != R_STRING ? e->args[0] : e;
    if (lit->kind == V_LIT && (temporal || vt == VT_DECIMAL) && lit->lt != R_BOOL) {
      bool ok_kind = temporal ? lit->lt == R_STRING : lit->lt != R_STRING || !lit->ltyped;
      char neg[80];
      const char *text = lit->lt == R_STRING ? lit->ls : lit->ltext;
      size_t len = lit->lt == R_STRING ? lit->ls_len : strlen(lit->ltext);
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
                             value_type_name(vt), e->lt == R_STRING ? "'" : "", (int)len, text,
                             e->lt == R_STRING ? "'" : "");
    }
    return delta_error_set(DELTA_EINVAL, "column %s: only a column of the same type or NULL can be assigned to it",
                           target_name);
  }
  rtype got = e->type;
  /* Spark's ANSI store assignment: numbers convert either way (a double
   * into an integer column truncates; out of range is an error). */
  bool numbers = (want == R_INT || want == R_FLOAT) && (got == R_INT || got == R_FLOAT);
  bool temporal = (want == R_DATE || want == R_TS) && (got == R_DATE || got == R_TS);
  if (got == R_NULL || got == want || numbers || temporal || (want == R_STRING)) return 0;
  return delta_error_set(DELTA_EINVAL, "column %s is %s: cannot assign a %s (use CAST)", target_name,
                         rtype_name(want), rtype_name(got));
}

/* ------------------------------------------------------------------- eval */

typedef struct {
  const struct ArrowArray *batch;
  delta_buf scratch;
} ectx;

static int to_string(ectx *c, sval *v) {
  if (v->t == R_STRING || v->t == R_NULL) return 0;
  if (v->t == R_DATE || v->t == R_TS) return vfunc_cast_temporal(v, R_STRING, &c->scratch);
  char b[64];
  int n;
  if (v->t == R_INT) n = snprintf(b, sizeof b, "%lld", (long long)v->i);
  else if (v->t == R_FLOAT) n = vfunc_double_text(v->d, b); /* as Spark prints it */
  else n = snprintf(b, sizeof b, "%s", v->b ? "true" : "false");
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

static int cast_value(ectx *c, sval *v, rtype to) {
  if (v->t == R_NULL || v->t == to) return 0;
  if (to == R_DATE || to == R_TS || v->t == R_DATE || v->t == R_TS) return vfunc_cast_temporal(v, to, &c->scratch);
  if (to == R_STRING) return to_string(c, v);
  if (v->t == R_STRING) {
    char *tmp = delta_malloc(v->s_len + 1);
    if (!tmp) return DELTA_NOMEM();
    memcpy(tmp, c->scratch.data + v->s_off, v->s_len);
    tmp[v->s_len] = 0;
    char *end;
    errno = 0;
    if (to == R_INT) {
      long long x = strtoll(tmp, &end, 10);
      if (*tmp && !*end && !errno) v->i = x, v->t = R_INT;
      else v->t = R_NULL;
    } else if (to == R_FLOAT) {
      double x = strtod(tmp, &end);
      if (*tmp && !*end) v->d = x, v->t = R_FLOAT;
      else v->t = R_NULL;
    } else {
      if (strcasecmp(tmp, "true") == 0) v->b = true, v->t = R_BOOL;
      else if (strcasecmp(tmp, "false") == 0) v->b = false, v->t = R_BOOL;
      else v->t = R_NULL;
    }
    delta_free(tmp);
    return 0;
  }
  if (to == R_INT) {
    if (v->t == R_FLOAT) {
      if (isnan(v->d) || v->d >= 9.2233720368547758e18 || v->d < -9.2233720368547758e18) v->t = R_NULL;
      else v->i = (int64_t)v->d, v->t = R_INT;
    } else v->i = v->b, v->t = R_INT;
  } else if (to == R_FLOAT) {
    v->d = v->t == R_INT ? (double)v->i : v->b;
    v->t = R_FLOAT;
  } else {
    v->b = v->t == R_INT ? v->i != 0 : v->d != 0;
    v->t = R_BOOL;
  }
  return 0;
}

static int eval_row(ectx *c, const vexpr *e, int64_t r, sval *out) {
  memset(out, 0, sizeof *out);
  int rc = 0;
  switch (e->kind) {
  case V_LIT:
    out->t = e->lt;
    out->i = e->li;
    out->d = e->ld;
    out->b = e->lb;
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
    value_from_array(a, e->col_format, vt, 0, row, &v);
    if (v.is_null) return 0;
    out->t = e->type;
    if (e->type == R_INT || e->type == R_DATE || e->type == R_TS) out->i = v.u.i;
    else if (e->type == R_FLOAT) out->d = v.u.d;
    else if (e->type == R_BOOL) out->b = v.u.b;
    else if (e->type == R_STRING) {
      out->s_off = c->scratch.len;
      out->s_len = v.u.s.n;
      rc = delta_buf_append(&c->scratch, v.u.s.p, v.u.s.n);
    }
    return rc;
  }
  case V_NEG:
    if ((rc = eval_row(c, e->args[0], r, out))) return rc;
    if (out->t == R_INT) out->i = (int64_t)(0 - (uint64_t)out->i);
    else if (out->t == R_FLOAT) out->d = -out->d;
    return 0;
  case V_BIN: {
    sval a, b;
    if ((rc = eval_row(c, e->args[0], r, &a)) || (rc = eval_row(c, e->args[1], r, &b))) return rc;
    if (a.t == R_NULL || b.t == R_NULL) return 0;
    if (e->op == '|') {
      if ((rc = to_string(c, &a)) || (rc = to_string(c, &b))) return rc;
      size_t at = c->scratch.len;
      if ((rc = delta_buf_reserve(&c->scratch, a.s_len + b.s_len))) return rc;
      memcpy(c->scratch.data + at, c->scratch.data + a.s_off, a.s_len);
      memcpy(c->scratch.data + at + a.s_len, c->scratch.data + b.s_off, b.s_len);
      c->scratch.len += a.s_len + b.s_len;
      out->t = R_STRING;
      out->s_off = at;
      out->s_len = a.s_len + b.s_len;
      return 0;
    }
    if (e->type == R_FLOAT) {
      double x = a.t == R_INT ? (double)a.i : a.d, y = b.t == R_INT ? (double)b.i : b.d;
      out->t = R_FLOAT;
      switch (e->op) {
      case '+': out->d = x + y; break;
      case '-': out->d = x - y; break;
      case '*': out->d = x * y; break;
      default:
        if (y == 0) out->t = R_NULL; /* Spark: division by zero is null */
        else out->d = x / y;
      }
      return 0;
    }
    int64_t x = a.i, y = b.i, z = 0;
    bool ovf = false;
    switch (e->op) {
    case '+': ovf = __builtin_add_overflow(x, y, &z); break;
    case '-': ovf = __builtin_sub_overflow(x, y, &z); break;
    case '*': ovf = __builtin_mul_overflow(x, y, &z); break;
    default:
      if (y == 0) return 0;
      if (x == INT64_MIN && y == -1) ovf = true;
      else z = x / y;
    }
    if (ovf) return delta_error_set(DELTA_EINVAL, "expression: integer overflow in '%c'", e->op);
    out->t = R_INT;
    out->i = z;
    return 0;
  }
  case V_COALESCE:
    for (int i = 0; i < e->n_args; i++) {
      if ((rc = eval_row(c, e->args[i], r, out))) return rc;
      if (out->t != R_NULL) return e->type == R_FLOAT ? cast_value(c, out, R_FLOAT) : 0;
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
    return e->type == R_FLOAT ? cast_value(c, out, R_FLOAT) : 0;
  }
  case V_CAST:
    if ((rc = eval_row(c, e->args[0], r, out))) return rc;
    return cast_value(c, out, e->cast_to);
  case V_FUNC: {
    sval a[e->n_args + 1];
    for (int i = 0; i < e->n_args; i++)
      if ((rc = eval_row(c, e->args[i], r, &a[i]))) return rc;
    return vfunc_eval(e->fn, a, e->n_args, &c->scratch, out);
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
  rtype want = e->want;
  memset(out, 0, sizeof *out);
  if (want == R_NULL && e->kind == V_COL) {
    /* the same type: a copy of the column */
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
  if (want == R_NULL && e->has_const) return const_array(e, f, n, out);
  if (want == R_NULL) return delta_error_set(DELTA_EUNSUPPORTED, "assigning NULL to a column of Arrow type %s", f);
  int rc = prepare(e, batch);
  if (rc) return rc;
  ectx c = {batch, DELTA_BUF_INIT};
  uint8_t *valid = delta_calloc((size_t)(n + 7) / 8 + 1, 1);
  size_t w = strcmp(f, "tdD") == 0 ? 4 : width_of(f[0]);
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
    if (had_value && (rc = cast_value(&c, &v, want))) break;
    if (had_value && v.t == R_NULL) {
      rc = delta_error_set(DELTA_EINVAL, "expression: a value does not fit the column (NaN or out of range)");
      break;
    }
    if (v.t == R_NULL) nulls++;
    else arrow_bit_set(valid, r);
    if (want == R_STRING) {
      if (v.t != R_NULL) rc = delta_buf_append(&chars, c.scratch.data + v.s_off, v.s_len);
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
    case 't':
      if (w == 4) {
        if (v.i < INT32_MIN || v.i > INT32_MAX) rc = delta_error_set(DELTA_EINVAL, "expression: date out of range");
        else ((int32_t *)vals)[r] = (int32_t)v.i;
      } else {
        ((int64_t *)vals)[r] = v.i;
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
      rc = delta_error_set(DELTA_EINVAL, "--set: expected 'column = expression' at position %zu", i + 1);
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
      if (rc) delta_error_prefix("--set %s", name);
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
