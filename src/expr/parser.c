/* The expression language's recursive-descent parser (the grammar is in
 * expr.h): one parser for predicates and value expressions. The two
 * entry points differ only in how errors begin ("filter:" or
 * "expression:") and in that a value may call current_date without
 * parentheses. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/date_math.h"
#include "expr/dec_math.h"
#include "expr/expr_internal.h"
#include "expr/value_funcs.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MAX_DEPTH 200 /* nesting bound: a hostile expression must not exhaust the stack */

typedef expr_lexer parser;

static int parse_or(parser *p, expr_node **out);
static int parse_value(parser *p, expr_node **out);

static int syntax(const parser *p, const char *what) { return expr_lex_error(p, what); }
static int next(parser *p) { return expr_lex_next(p); }
static bool is_kw(const parser *p, const char *kw) { return expr_lex_kw(p, kw); }
static bool is_op(const parser *p, const char *op) { return expr_lex_op(p, op); }
static const char *prefix(const parser *p) { return p->value_mode ? "expression" : "filter"; }

static int nest(parser *p) {
  if (++p->depth > MAX_DEPTH) return syntax(p, "expression nested too deeply");
  return 0;
}

/* The kind of the token after the current one. */
static tok_kind peek(const parser *p) {
  parser q = *p;
  return expr_lex_next(&q) == 0 ? q.kind : T_END;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The current token as a literal of kind k. */
static int literal(parser *p, literal_kind k, expr_node **out) {
  int rc = 0;
  expr_node *n = expr_node_new(EX_LITERAL);
  if (!n) return DELTA_NOMEM();
  n->lit = k;
  if (k != LIT_NULL && !(n->text = expr_lex_text(p, &n->text_len))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if (k == LIT_NUMBER) { /* "- 5": drop the blanks after a sign */
    size_t w = 0;
    for (size_t r = 0; r < n->text_len; r++)
      if (n->text[r] != ' ' && n->text[r] != '\t' && n->text[r] != '\n' && n->text[r] != '\r') n->text[w++] = n->text[r];
    n->text[w] = '\0';
    n->text_len = w;
  }
  if (k == LIT_BINARY) {
    if (n->text_len % 2) {
      rc = syntax(p, "a binary literal needs an even number of hex digits");
      goto done;
    }
    for (size_t i = 0; i < n->text_len; i += 2) {
      int hi = hex_value(n->text[i]), lo = hex_value(n->text[i + 1]);
      if (hi < 0 || lo < 0) {
        rc = syntax(p, "bad hex digit in binary literal");
        goto done;
      }
      n->text[i / 2] = (char)(hi * 16 + lo);
    }
    n->text_len /= 2;
  }
  rc = next(p);
done:
  if (rc) expr_free(n);
  else *out = n;
  return rc;
}

static int column(parser *p, expr_node **out) {
  int rc = 0;
  expr_node *n = expr_node_new(EX_COLUMN);
  if (!n) return DELTA_NOMEM();
  for (;;) {
    if (p->kind != T_NAME && p->kind != T_QNAME) {
      rc = syntax(p, "expected a column name");
      goto done;
    }
    char **path = mem_realloc(n->path, (size_t)(n->depth + 1) * sizeof *path);
    if (!path) {
      rc = DELTA_NOMEM();
      goto done;
    }
    n->path = path;
    if (!(n->path[n->depth] = expr_lex_text(p, NULL))) {
      rc = DELTA_NOMEM();
      goto done;
    }
    n->depth++;
    if ((rc = next(p)) != 0 || p->kind != T_DOT) goto done;
    if ((rc = next(p)) != 0) goto done;
  }
done:
  if (rc) expr_free(n);
  else *out = n;
  return rc;
}

/* ------------------------------------------------------------ INTERVAL */

/* One INTERVAL amount at the current token: 3, -3 (no blank after the
 * sign) or '-3'. *found false when the token is none (the literal ends). */
static int interval_amount(parser *p, int64_t *v, bool *found) {
  *found = false;
  const char *s = p->src + p->start;
  size_t n = p->len, i = 0;
  bool quoted = p->kind == T_STRING, neg = false;
  if (quoted) {
    s++;
    n -= 2;
    while (i < n && s[i] == ' ') i++;
  } else if ((is_op(p, "-") || is_op(p, "+")) && isdigit((unsigned char)p->src[p->pos])) {
    neg = is_op(p, "-");
    int rc = next(p); /* the digits */
    if (rc) return rc;
    s = p->src + p->start;
    n = p->len;
  } else if (p->kind != T_NUMBER) {
    return 0;
  }
  if (quoted && i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i >= n || !isdigit((unsigned char)s[i])) return quoted ? syntax(p, "INTERVAL needs a number") : 0;
  int64_t x = 0;
  for (; i < n && isdigit((unsigned char)s[i]); i++)
    if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, s[i] - '0', &x))
      return syntax(p, "INTERVAL value out of range");
  while (quoted && i < n && s[i] == ' ') i++;
  if (i != n) return syntax(p, "INTERVAL value must be a whole number");
  *v = neg ? -x : x;
  *found = true;
  return next(p);
}

/* INTERVAL value unit [value unit ...]; units YEAR MONTH WEEK DAY HOUR
 * MINUTE SECOND MILLISECOND MICROSECOND, singular or plural. The current
 * token is the first value. */
static int interval(parser *p, expr_node **out) {
  static const struct { const char *n; int64_t months, days, us; } units[] = {
      {"years", 12, 0, 0}, {"year", 12, 0, 0}, {"months", 1, 0, 0}, {"month", 1, 0, 0},
      {"weeks", 0, 7, 0}, {"week", 0, 7, 0}, {"days", 0, 1, 0}, {"day", 0, 1, 0},
      {"hours", 0, 0, 3600000000LL}, {"hour", 0, 0, 3600000000LL}, {"minutes", 0, 0, 60000000LL},
      {"minute", 0, 0, 60000000LL}, {"seconds", 0, 0, 1000000LL}, {"second", 0, 0, 1000000LL},
      {"milliseconds", 0, 0, 1000LL}, {"millisecond", 0, 0, 1000LL}, {"microseconds", 0, 0, 1LL},
      {"microsecond", 0, 0, 1LL}};
  int rc = 0;
  expr_node *e = expr_node_new(EX_LITERAL);
  if (!e) return DELTA_NOMEM();
  e->lit = LIT_INTERVAL;
  for (int parts = 0;; parts++) {
    int64_t v;
    bool found;
    if ((rc = interval_amount(p, &v, &found)) != 0) goto done;
    if (!found) {
      if (!parts) rc = syntax(p, "INTERVAL needs a number");
      goto done;
    }
    size_t k;
    for (k = 0; k < sizeof units / sizeof *units; k++)
      if (is_kw(p, units[k].n)) break;
    if (k == sizeof units / sizeof *units) {
      rc = err_set(DELTA_EINVAL, "%s: unknown INTERVAL unit '%.*s' at position %zu "
                           "(YEAR, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND)",
                           prefix(p), p->kind == T_NAME ? (int)p->len : 0, p->src + p->start, p->start + 1);
      goto done;
    }
    int64_t m, d, us;
    if (__builtin_mul_overflow(v, units[k].months, &m) || __builtin_mul_overflow(v, units[k].days, &d) ||
        __builtin_mul_overflow(v, units[k].us, &us) || __builtin_add_overflow(e->iv_months, m, &e->iv_months) ||
        __builtin_add_overflow(e->iv_days, d, &e->iv_days) || __builtin_add_overflow(e->iv_us, us, &e->iv_us) ||
        e->iv_months == INT64_MIN || e->iv_days == INT64_MIN || e->iv_us == INT64_MIN) {
      rc = syntax(p, "INTERVAL out of range");
      goto done;
    }
    if ((rc = next(p)) != 0) goto done;
  }
done:
  if (rc) expr_free(e);
  else *out = e;
  return rc;
}

/* ----------------------------------------------------------- CAST type */

static int int_token(parser *p, long *v) {
  if (p->kind != T_NUMBER || strspn(p->src + p->start, "0123456789") < p->len || p->len > 3)
    return syntax(p, "expected DECIMAL(precision, scale)");
  *v = strtol(p->src + p->start, NULL, 10);
  return next(p);
}

/* CAST's target type into e (the decimal's precision and scale, or an
 * integer type's digits). The current token is the type's name. */
static int cast_type(parser *p, expr_node *e) {
  static const struct { const char *n; value_type t; int prec; } types[] = {
      {"bigint", VT_INT, 20}, {"long", VT_INT, 20}, {"integer", VT_INT, 10}, {"int", VT_INT, 10},
      {"smallint", VT_INT, 5}, {"short", VT_INT, 5}, {"tinyint", VT_INT, 3}, {"byte", VT_INT, 3},
      {"double", VT_FLOAT, 0}, {"float", VT_FLOAT, 0}, {"string", VT_STRING, 0}, {"boolean", VT_BOOL, 0},
      {"date", VT_DATE, 0}, {"timestamp_ntz", VT_TIMESTAMP_NTZ, 0}, {"timestamp_ltz", VT_TIMESTAMP, 0},
      {"timestamp", VT_TIMESTAMP, 0}, {"decimal", VT_DECIMAL, 10}, {"numeric", VT_DECIMAL, 10},
      {"dec", VT_DECIMAL, 10}};
  int rc;
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
    if (!is_kw(p, types[i].n)) continue;
    e->cast_to = types[i].t;
    e->cast_prec = types[i].prec;
    e->cast_scale = 0;
    if ((rc = next(p)) != 0) return rc;
    if (types[i].t != VT_DECIMAL || p->kind != T_LPAREN) return 0;
    long pr, sc = 0;
    if ((rc = next(p)) != 0 || (rc = int_token(p, &pr)) != 0) return rc;
    if (p->kind == T_COMMA && ((rc = next(p)) != 0 || (rc = int_token(p, &sc)) != 0)) return rc;
    if (p->kind != T_RPAREN) return syntax(p, "expected ')'");
    if (pr < 1 || pr > DEC_MAX_PRECISION || sc < 0 || sc > pr)
      return syntax(p, "DECIMAL needs 1 <= precision <= 38 and 0 <= scale <= precision");
    e->cast_prec = (int)pr;
    e->cast_scale = (int)sc;
    return next(p);
  }
  return syntax(p, "CAST to an unsupported type");
}

/* ------------------------------------------------------------ calls */

/* The date functions bind_value.c types and eval_value.c applies (by
 * index); value_funcs.h has the others. */
static const struct { const char *n; int nargs; } date_fns[] = {
    {"date_add", 2}, {"date_sub", 2}, {"add_months", 2}, {"datediff", 2}, {"current_date", 0},
    {"current_timestamp", 0}, {"date_trunc", 2}, {"to_date", 1}, {"unix_micros", 1}, {"unix_seconds", 1},
    {"timestamp_micros", 1}, {"timestamp_seconds", 1}, {"now", 0}};

static int date_fn(const char *name) {
  for (size_t k = 0; k < sizeof date_fns / sizeof *date_fns; k++)
    if (strcasecmp(name, date_fns[k].n) == 0) return k == 12 ? 5 : (int)k; /* now() is current_timestamp() */
  return -1;
}

/* name(args...), COALESCE(args...) or CAST(x AS type); the current token
 * is the name, followed by '(' unless `bare` (current_date). */
static int call(parser *p, bool bare, expr_node **out) {
  int rc;
  bool is_cast = is_kw(p, "cast");
  expr_node *e = expr_node_new(is_cast ? EX_CAST : is_kw(p, "coalesce") ? EX_COALESCE : EX_FUNC);
  if (!e) return DELTA_NOMEM();
  if ((rc = nest(p)) != 0) goto done;
  if (!(e->text = expr_lex_text(p, &e->text_len))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = next(p)) != 0) goto done;
  if (!bare) {
    if ((rc = next(p)) != 0) goto done; /* the '(' */
    while (p->kind != T_RPAREN || e->n_args == 0) {
      if (p->kind == T_RPAREN && e->kind == EX_FUNC) break; /* f() */
      expr_node *a = NULL;
      if ((rc = parse_or(p, &a)) != 0 || (rc = expr_node_add(e, a)) != 0) goto done;
      if (is_cast) {
        if (!is_kw(p, "as")) {
          rc = syntax(p, "expected AS");
          goto done;
        }
        if ((rc = next(p)) != 0 || (rc = cast_type(p, e)) != 0) goto done;
        break;
      }
      if (p->kind != T_COMMA) break;
      if ((rc = next(p)) != 0) goto done;
    }
    if (p->kind != T_RPAREN) {
      rc = syntax(p, "expected ')'");
      goto done;
    }
    if ((rc = next(p)) != 0) goto done;
  }
  if (e->kind == EX_FUNC) {
    e->fn = date_fn(e->text);
    if (e->fn < 0) {
      rc = vfunc_find(e->text, e->n_args, &e->xfn);
      goto done;
    }
    if (e->n_args != date_fns[e->fn].nargs) {
      rc = err_set(DELTA_EINVAL, "expression: %s takes %d argument%s, not %d", date_fns[e->fn].n,
                           date_fns[e->fn].nargs, date_fns[e->fn].nargs == 1 ? "" : "s", e->n_args);
      goto done;
    }
    if (strcasecmp(date_fns[e->fn].n, "date_trunc") == 0) {
      const expr_node *u = e->args[0];
      e->trunc_unit = u->kind == EX_LITERAL && u->lit == LIT_STRING ? dm_trunc_unit(u->text, (int)u->text_len) : -1;
      if (e->trunc_unit < 0)
        rc = err_set(DELTA_EINVAL, "expression: date_trunc's unit must be one of 'year', 'quarter', "
                             "'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond'");
    }
  }
done:
  p->depth--;
  if (rc) expr_free(e);
  else *out = e;
  return rc;
}

/* WHEN's condition (the current token is WHEN), parsed as a filter is:
 * its errors say "filter:" and current_date there is a column, as before
 * values and predicates shared a parser. */
static int condition(parser *p, expr_node **out) {
  int rc;
  bool mode = p->value_mode;
  p->value_mode = false;
  if ((rc = next(p)) != 0) goto done;
  rc = parse_or(p, out);
done:
  p->value_mode = mode;
  return rc;
}

/* CASE WHEN cond THEN value [WHEN ...] [ELSE value] END; the current token
 * is CASE, followed by WHEN. Conditions are predicates, parsed (and later
 * bound) as a filter is. */
static int case_when(parser *p, expr_node **out) {
  int rc;
  expr_node *e = expr_node_new(EX_CASE), *x = NULL;
  if (!e) return DELTA_NOMEM();
  if ((rc = nest(p)) != 0 || (rc = next(p)) != 0) goto done;
  while (is_kw(p, "when")) {
    if ((rc = condition(p, &x)) != 0 || (rc = expr_node_add(e, x)) != 0) goto done;
    if (!is_kw(p, "then")) {
      rc = syntax(p, "CASE WHEN without THEN");
      goto done;
    }
    if ((rc = next(p)) != 0 || (rc = parse_or(p, &x)) != 0 || (rc = expr_node_add(e, x)) != 0) goto done;
  }
  if (is_kw(p, "else")) {
    if ((rc = next(p)) != 0 || (rc = parse_or(p, &x)) != 0) goto done;
  } else if ((x = expr_node_new(EX_LITERAL)) != NULL) {
    x->lit = LIT_NULL;
  }
  if ((rc = expr_node_add(e, x)) != 0) goto done;
  if (!is_kw(p, "end")) {
    rc = syntax(p, "expected END");
    goto done;
  }
  rc = next(p);
done:
  p->depth--;
  if (rc) expr_free(e);
  else *out = e;
  return rc;
}

/* ---------------------------------------------------------- primaries */

static int primary(parser *p, expr_node **out) {
  int rc;
  *out = NULL;
  if (p->kind == T_LPAREN) {
    if ((rc = nest(p)) != 0) return rc;
    if ((rc = next(p)) != 0 || (rc = parse_or(p, out)) != 0) return rc;
    if (p->kind != T_RPAREN) rc = syntax(p, "expected ')'");
    else rc = next(p);
    if (rc) {
      expr_free(*out);
      *out = NULL;
    }
    p->depth--;
    return rc;
  }
  if (p->kind == T_STRING) return literal(p, LIT_STRING, out);
  if (p->kind == T_NUMBER) return literal(p, LIT_NUMBER, out);
  if (p->kind == T_QNAME) return column(p, out);
  if (p->kind != T_NAME) return syntax(p, "expected a value or a column");
  if (is_kw(p, "true") || is_kw(p, "false")) return literal(p, LIT_BOOL, out);
  if (is_kw(p, "null")) return literal(p, LIT_NULL, out);
  static const struct { const char *kw; literal_kind k; } typed[] = {
      {"date", LIT_DATE}, {"timestamp", LIT_TIMESTAMP}, {"timestamp_ntz", LIT_TIMESTAMP_NTZ}, {"x", LIT_BINARY}};
  for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
    if (!is_kw(p, typed[i].kw)) continue;
    /* DATE '...' is a literal; a column named date is still a column. */
    const char *s = p->src + p->pos;
    while (*s == ' ' || *s == '\t') s++;
    if (*s != '\'' || (typed[i].k == LIT_BINARY && s != p->src + p->pos)) break;
    if ((rc = next(p)) != 0) return rc;
    return literal(p, typed[i].k, out);
  }
  tok_kind after = peek(p);
  if (is_kw(p, "case") && after == T_NAME) {
    parser q = *p;
    if (next(&q) == 0 && is_kw(&q, "when")) return case_when(p, out);
  }
  if (is_kw(p, "interval") && (after == T_STRING || after == T_NUMBER || after == T_OP)) {
    const char *s = p->src + p->pos;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '\'' || *s == '-' || *s == '+' || isdigit((unsigned char)*s)) {
      if ((rc = next(p)) != 0) return rc;
      return interval(p, out);
    }
  }
  static const char *const reserved[] = {"and", "or", "not", "in", "is", "between", "like"};
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
    if (is_kw(p, reserved[i])) return syntax(p, "expected a value or a column");
  if (after == T_LPAREN) return call(p, false, out);
  if (p->value_mode && (is_kw(p, "current_date") || is_kw(p, "current_timestamp"))) return call(p, true, out);
  return column(p, out);
}

/* -x; a minus right before a number is part of the number (-1 is a literal). */
static int unary(parser *p, expr_node **out) {
  if (!is_op(p, "-")) return primary(p, out);
  int rc;
  size_t minus = p->start;
  expr_node *n = NULL, *a = NULL;
  if ((rc = nest(p)) != 0 || (rc = next(p)) != 0) goto done;
  if (p->kind == T_NUMBER) {
    p->len += p->start - minus; /* the literal's text includes the sign */
    p->start = minus;
    rc = literal(p, LIT_NUMBER, out);
    goto done;
  }
  if (!(n = expr_node_new(EX_NEG))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = unary(p, &a)) != 0 || (rc = expr_node_add(n, a)) != 0) goto done;
  *out = n;
  n = NULL;
done:
  expr_free(n);
  p->depth--;
  return rc;
}

/* level 0: ||; 1: + -; 2: * / % */
static char arith_op(const parser *p, int level) {
  if (level == 0) return is_op(p, "||") ? '|' : 0;
  if (level == 1) return is_op(p, "+") ? '+' : is_op(p, "-") ? '-' : 0;
  return is_op(p, "*") ? '*' : is_op(p, "/") ? '/' : is_op(p, "%") ? '%' : 0;
}

static int arith_level(parser *p, int level, expr_node **out) {
  expr_node *left = NULL, *right = NULL, *b = NULL;
  int rc = level == 2 ? unary(p, &left) : arith_level(p, level + 1, &left);
  if (rc) return rc;
  for (char op; (op = arith_op(p, level)) != 0;) {
    if (!(b = expr_node_new(EX_ARITH))) {
      rc = DELTA_NOMEM();
      goto done;
    }
    b->arith = op;
    rc = expr_node_add(b, left);
    left = NULL;
    if (rc || (rc = next(p)) != 0) goto done;
    if ((rc = level == 2 ? unary(p, &right) : arith_level(p, level + 1, &right)) != 0) goto done;
    if ((rc = expr_node_add(b, right)) != 0) goto done;
    left = b;
    b = NULL;
  }
done:
  expr_free(b);
  if (rc) expr_free(left);
  else *out = left;
  return rc;
}

static int parse_value(parser *p, expr_node **out) { return arith_level(p, 0, out); }

/* ---------------------------------------------------------- predicates */

static int binary(expr_kind k, expr_node *a, expr_node *b, expr_node **out) {
  expr_node *n = expr_node_new(k);
  int rc = n ? expr_node_add(n, a) : DELTA_NOMEM();
  if (rc) {
    if (!n) expr_free(a);
    expr_free(b);
    expr_free(n);
    return rc;
  }
  if ((rc = expr_node_add(n, b)) != 0) {
    expr_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

static int negate(expr_node **e) {
  expr_node *n = expr_node_new(EX_NOT);
  int rc = n ? expr_node_add(n, *e) : DELTA_NOMEM();
  if (rc) {
    if (!n) expr_free(*e);
    *e = NULL;
    mem_free(n);
    return rc;
  }
  *e = n;
  return 0;
}

static int cmp(parser *p, cmp_op *op) {
  static const struct { const char *s; cmp_op op; } ops[] = {
      {"=", CMP_EQ}, {"==", CMP_EQ}, {"!=", CMP_NE}, {"<>", CMP_NE}, {"<", CMP_LT},
      {"<=", CMP_LE}, {">", CMP_GT}, {">=", CMP_GE}, {"<=>", CMP_NULL_SAFE_EQ}};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (is_op(p, ops[i].s)) {
      *op = ops[i].op;
      return 1;
    }
  return 0;
}

static int in_list(parser *p, expr_node *left, bool negated, expr_node **out) {
  int rc;
  expr_node *n = expr_node_new(EX_IN), *v;
  if (!n) {
    expr_free(left);
    return DELTA_NOMEM();
  }
  if ((rc = expr_node_add(n, left)) != 0) goto done;
  if ((rc = next(p)) != 0) goto done;
  if (p->kind != T_LPAREN) {
    rc = syntax(p, "expected '(' after IN");
    goto done;
  }
  if ((rc = next(p)) != 0) goto done;
  for (;;) {
    if ((rc = parse_value(p, &v)) != 0 || (rc = expr_node_add(n, v)) != 0) goto done;
    if (p->kind == T_RPAREN) break;
    if (p->kind != T_COMMA) {
      rc = syntax(p, "expected ',' or ')' in the IN list");
      goto done;
    }
    if ((rc = next(p)) != 0) goto done;
  }
  if ((rc = next(p)) != 0) goto done;
  if (negated) rc = negate(&n);
done:
  if (rc) expr_free(n);
  else *out = n;
  return rc;
}

/* x BETWEEN a AND b is x >= a AND x <= b. */
static int between(parser *p, expr_node *left, bool negated, expr_node **out) {
  expr_node *lo = NULL, *hi = NULL, *ge = NULL, *le = NULL, *copy = NULL;
  int rc;
  if ((rc = next(p)) != 0 || (rc = parse_value(p, &lo)) != 0) goto done;
  if (!is_kw(p, "and")) {
    rc = syntax(p, "expected AND in BETWEEN");
    goto done;
  }
  if ((rc = next(p)) != 0 || (rc = parse_value(p, &hi)) != 0) goto done;
  if ((rc = expr_copy(left, &copy)) != 0) goto done;
  rc = binary(EX_CMP, left, lo, &ge);
  left = lo = NULL;
  if (rc) goto done;
  ge->op = CMP_GE;
  rc = binary(EX_CMP, copy, hi, &le);
  copy = hi = NULL;
  if (rc) goto done;
  le->op = CMP_LE;
  rc = binary(EX_AND, ge, le, out);
  ge = le = NULL;
  if (rc) goto done;
  if (negated) rc = negate(out);
done:
  expr_free(left);
  expr_free(lo);
  expr_free(hi);
  expr_free(copy);
  expr_free(ge);
  return rc;
}

static int is_null(parser *p, expr_node *left, expr_node **out) {
  int rc;
  expr_node *n = expr_node_new(EX_IS_NULL);
  if (!n) {
    expr_free(left);
    return DELTA_NOMEM();
  }
  if ((rc = expr_node_add(n, left)) != 0 || (rc = next(p)) != 0) goto done;
  if (is_kw(p, "not")) {
    n->negated = true;
    if ((rc = next(p)) != 0) goto done;
  }
  if (!is_kw(p, "null")) {
    rc = syntax(p, "expected NULL after IS");
    goto done;
  }
  rc = next(p);
done:
  if (rc) expr_free(n);
  else *out = n;
  return rc;
}

static int predicate(parser *p, expr_node **out) {
  expr_node *left = NULL, *right = NULL;
  int rc = parse_value(p, &left);
  if (rc) return rc;
  cmp_op op;
  if (cmp(p, &op)) {
    if ((rc = next(p)) != 0 || (rc = parse_value(p, &right)) != 0) goto done;
    rc = binary(EX_CMP, left, right, out);
    left = NULL;
    if (rc) goto done;
    (*out)->op = op;
    return 0;
  }
  if (is_kw(p, "is")) return is_null(p, left, out);
  bool negated = false;
  if (is_kw(p, "not")) {
    negated = true;
    if ((rc = next(p)) != 0) goto done;
    if (!is_kw(p, "in") && !is_kw(p, "between") && !is_kw(p, "like")) {
      rc = syntax(p, "expected IN, BETWEEN or LIKE after NOT");
      goto done;
    }
  }
  if (is_kw(p, "in")) return in_list(p, left, negated, out);
  if (is_kw(p, "between")) return between(p, left, negated, out);
  if (is_kw(p, "like")) {
    if ((rc = next(p)) != 0) goto done;
    if (p->kind != T_STRING) {
      rc = syntax(p, "expected a string pattern after LIKE");
      goto done;
    }
    if ((rc = literal(p, LIT_STRING, &right)) != 0) goto done;
    rc = binary(EX_LIKE, left, right, out);
    left = NULL;
    if (rc) goto done;
    (*out)->negated = negated;
    return 0;
  }
  *out = left;
  return 0;
done:
  expr_free(left);
  return rc;
}

static int parse_not(parser *p, expr_node **out) {
  if (!is_kw(p, "not")) return predicate(p, out);
  int rc;
  if ((rc = nest(p)) != 0) return rc;
  if ((rc = next(p)) == 0 && (rc = parse_not(p, out)) == 0) rc = negate(out);
  p->depth--;
  return rc;
}

/* a AND b AND c becomes one node with three arguments. */
static int chain(parser *p, const char *kw, expr_kind k, int (*sub)(parser *, expr_node **), expr_node **out) {
  expr_node *first, *n = NULL, *e;
  int rc = sub(p, &first);
  if (rc) return rc;
  if (!is_kw(p, kw)) {
    *out = first;
    return 0;
  }
  if (!(n = expr_node_new(k))) {
    expr_free(first);
    return DELTA_NOMEM();
  }
  if ((rc = expr_node_add(n, first)) != 0) goto done;
  while (is_kw(p, kw)) {
    if ((rc = next(p)) != 0 || (rc = sub(p, &e)) != 0 || (rc = expr_node_add(n, e)) != 0) goto done;
  }
done:
  if (rc) expr_free(n);
  else *out = n;
  return rc;
}

static int parse_and(parser *p, expr_node **out) { return chain(p, "and", EX_AND, parse_not, out); }
static int parse_or(parser *p, expr_node **out) { return chain(p, "or", EX_OR, parse_and, out); }

int expr_parse_mode(const char *text, bool value_mode, expr_node **out) {
  *out = NULL;
  parser p = {0};
  p.src = text;
  p.value_mode = value_mode;
  expr_node *e;
  int rc = next(&p);
  if (rc) return rc;
  if (p.kind == T_END) return err_set(DELTA_EINVAL, "%s: the expression is empty", prefix(&p));
  if ((rc = parse_or(&p, &e)) != 0) return rc;
  if (p.kind != T_END) {
    expr_free(e);
    return syntax(&p, "unexpected text after the expression");
  }
  *out = e;
  return 0;
}

int expr_parse(const char *text, expr_node **out) { return expr_parse_mode(text, false, out); }
