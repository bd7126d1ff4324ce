/* The filter language's tokenizer and recursive-descent parser. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/expr.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MAX_DEPTH 200 /* nesting bound: a hostile filter must not exhaust the stack */

typedef enum { T_END, T_NAME, T_QNAME, T_STRING, T_NUMBER, T_OP, T_LPAREN, T_RPAREN, T_COMMA, T_DOT } tok_kind;

typedef struct {
  const char *src;
  size_t pos;
  /* current token */
  tok_kind kind;
  size_t start, len;
  char op[3];
  int depth;
} parser;

static int syntax(parser *p, const char *what) {
  if (p->kind == T_END)
    return delta_error_set(DELTA_EINVAL, "filter: %s at the end of the expression", what);
  return delta_error_set(DELTA_EINVAL, "filter: %s at position %zu ('%.*s')", what, p->start + 1,
                         (int)(p->len > 20 ? 20 : p->len), p->src + p->start);
}

static int next(parser *p) {
  const char *s = p->src;
  size_t i = p->pos;
  while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') i++;
  p->start = i;
  char c = s[i];
  if (c == '\0') {
    p->kind = T_END;
    p->len = 0;
    p->pos = i;
    return 0;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    while (isalnum((unsigned char)s[i]) || s[i] == '_') i++;
    p->kind = T_NAME;
  } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[i + 1]))) {
    while (isdigit((unsigned char)s[i])) i++;
    if (s[i] == '.') i++;
    while (isdigit((unsigned char)s[i])) i++;
    if ((s[i] == 'e' || s[i] == 'E') &&
        (isdigit((unsigned char)s[i + 1]) || ((s[i + 1] == '-' || s[i + 1] == '+') && isdigit((unsigned char)s[i + 2])))) {
      i += 2;
      while (isdigit((unsigned char)s[i])) i++;
    }
    if (isalpha((unsigned char)s[i]) || s[i] == '_') {
      while (isalnum((unsigned char)s[i]) || s[i] == '_') i++;
      p->len = i - p->start;
      return syntax(p, "malformed number");
    }
    p->kind = T_NUMBER;
  } else if (c == '\'' || c == '`') {
    for (i++;; i++) {
      if (s[i] == '\0') {
        p->len = i - p->start;
        p->kind = T_STRING;
        return syntax(p, c == '\'' ? "unterminated string" : "unterminated quoted name");
      }
      if (s[i] == c) {
        if (s[i + 1] == c) {
          i++;
          continue;
        }
        i++;
        break;
      }
    }
    p->kind = c == '\'' ? T_STRING : T_QNAME;
  } else {
    i++;
    p->kind = T_OP;
    switch (c) {
    case '(': p->kind = T_LPAREN; break;
    case ')': p->kind = T_RPAREN; break;
    case ',': p->kind = T_COMMA; break;
    case '.': p->kind = T_DOT; break;
    case '=': if (s[i] == '=') i++; break;
    case '!':
      if (s[i] != '=') {
        p->len = 1;
        return syntax(p, "unexpected character");
      }
      i++;
      break;
    case '<':
      if (s[i] == '=' || s[i] == '>') i++;
      if (s[i - 1] == '=' && s[i] == '>') i++;
      break;
    case '>': if (s[i] == '=') i++; break;
    case '-': break;
    default:
      p->len = 1;
      return syntax(p, "unexpected character");
    }
  }
  p->len = i - p->start;
  p->pos = i;
  if (p->kind == T_OP) {
    memset(p->op, 0, sizeof p->op);
    memcpy(p->op, s + p->start, p->len < 3 ? p->len : 3);
    if (p->len == 3) memcpy(p->op, "<=>", 3); /* the only three-character operator */
  }
  return 0;
}

static bool is_kw(const parser *p, const char *kw) {
  return p->kind == T_NAME && strlen(kw) == p->len && strncasecmp(p->src + p->start, kw, p->len) == 0;
}

static bool is_op(const parser *p, const char *op) {
  return p->kind == T_OP && strncmp(p->op, op, 3) == 0 && strlen(op) == p->len;
}

static expr_node *node_new(expr_kind k) {
  expr_node *n = delta_calloc(1, sizeof *n);
  if (n) n->kind = k;
  return n;
}

void expr_free(expr_node *e) {
  if (!e) return;
  for (int i = 0; i < e->n_args; i++) expr_free(e->args[i]);
  delta_free(e->args);
  delta_free(e->text);
  for (int i = 0; i < e->depth; i++) delta_free(e->path[i]);
  delta_free(e->path);
  delta_free(e->child_index);
  delta_free(e);
}

static int add_arg(expr_node *n, expr_node *a) {
  if (!a) return DELTA_NOMEM();
  expr_node **args = delta_realloc(n->args, (size_t)(n->n_args + 1) * sizeof *args);
  if (!args) {
    expr_free(a);
    return DELTA_NOMEM();
  }
  n->args = args;
  n->args[n->n_args++] = a;
  return 0;
}

/* The token's text with its quotes removed and doubled quotes undone. */
static char *token_text(const parser *p, size_t *len) {
  const char *s = p->src + p->start;
  size_t n = p->len;
  char *out = delta_malloc(n + 1);
  if (!out) return NULL;
  size_t k = 0;
  if (p->kind == T_STRING || p->kind == T_QNAME) {
    for (size_t i = 1; i + 1 < n; i++) {
      out[k++] = s[i];
      if (s[i] == s[0]) i++;
    }
  } else {
    memcpy(out, s, n);
    k = n;
  }
  out[k] = '\0';
  if (len) *len = k;
  return out;
}

static int parse_or(parser *p, expr_node **out);

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int literal(parser *p, literal_kind k, expr_node **out) {
  expr_node *n = node_new(EX_LITERAL);
  if (!n) return DELTA_NOMEM();
  n->lit = k;
  if (k == LIT_NUMBER || k == LIT_STRING || k == LIT_BOOL || k == LIT_DATE || k == LIT_TIMESTAMP ||
      k == LIT_TIMESTAMP_NTZ || k == LIT_BINARY) {
    n->text = token_text(p, &n->text_len);
    if (!n->text) {
      expr_free(n);
      return DELTA_NOMEM();
    }
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
      expr_free(n);
      return syntax(p, "a binary literal needs an even number of hex digits");
    }
    for (size_t i = 0; i < n->text_len; i += 2) {
      int hi = hex_value(n->text[i]), lo = hex_value(n->text[i + 1]);
      if (hi < 0 || lo < 0) {
        expr_free(n);
        return syntax(p, "bad hex digit in binary literal");
      }
      n->text[i / 2] = (char)(hi * 16 + lo);
    }
    n->text_len /= 2;
  }
  int rc = next(p);
  if (rc) {
    expr_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

static int column(parser *p, expr_node **out) {
  expr_node *n = node_new(EX_COLUMN);
  if (!n) return DELTA_NOMEM();
  int rc = 0;
  for (;;) {
    if (p->kind != T_NAME && p->kind != T_QNAME) {
      rc = syntax(p, "expected a column name");
      break;
    }
    char **path = delta_realloc(n->path, (size_t)(n->depth + 1) * sizeof *path);
    if (!path) {
      rc = DELTA_NOMEM();
      break;
    }
    n->path = path;
    if (!(n->path[n->depth] = token_text(p, NULL))) {
      rc = DELTA_NOMEM();
      break;
    }
    n->depth++;
    if ((rc = next(p)) || p->kind != T_DOT) break;
    if ((rc = next(p))) break;
  }
  if (rc) {
    expr_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

static int operand(parser *p, expr_node **out) {
  *out = NULL;
  if (p->kind == T_LPAREN) {
    if (++p->depth > MAX_DEPTH) return syntax(p, "expression nested too deeply");
    int rc = next(p);
    if (!rc) rc = parse_or(p, out);
    if (!rc && p->kind != T_RPAREN) rc = syntax(p, "expected ')'");
    if (!rc) rc = next(p);
    if (rc) {
      expr_free(*out);
      *out = NULL;
    }
    p->depth--;
    return rc;
  }
  if (p->kind == T_STRING) return literal(p, LIT_STRING, out);
  if (p->kind == T_NUMBER) return literal(p, LIT_NUMBER, out);
  if (is_op(p, "-")) {
    size_t minus = p->start;
    int rc = next(p);
    if (rc) return rc;
    if (p->kind != T_NUMBER) return syntax(p, "expected a number after '-'");
    p->len += p->start - minus; /* the literal's text includes the sign */
    p->start = minus;
    return literal(p, LIT_NUMBER, out);
  }
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
    int rc = next(p);
    if (rc) return rc;
    return literal(p, typed[i].k, out);
  }
  static const char *const reserved[] = {"and", "or", "not", "in", "is", "between", "like"};
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
    if (is_kw(p, reserved[i])) return syntax(p, "expected a value or a column");
  return column(p, out);
}

static int binary(expr_kind k, expr_node *a, expr_node *b, expr_node **out) {
  expr_node *n = node_new(k);
  int rc = n ? add_arg(n, a) : DELTA_NOMEM();
  if (rc) {
    if (!n) expr_free(a);
    expr_free(b);
    expr_free(n);
    return rc;
  }
  if ((rc = add_arg(n, b))) {
    expr_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

static int negate(expr_node **e) {
  expr_node *n = node_new(EX_NOT);
  int rc = n ? add_arg(n, *e) : DELTA_NOMEM();
  if (rc) {
    if (!n) expr_free(*e);
    *e = NULL;
    delta_free(n);
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

static int predicate(parser *p, expr_node **out) {
  expr_node *left;
  int rc = operand(p, &left);
  if (rc) return rc;
  cmp_op op;
  if (cmp(p, &op)) {
    expr_node *right;
    if ((rc = next(p)) || (rc = operand(p, &right))) {
      expr_free(left);
      return rc;
    }
    if ((rc = binary(EX_CMP, left, right, out))) return rc;
    (*out)->op = op;
    return 0;
  }
  if (is_kw(p, "is")) {
    expr_node *n = node_new(EX_IS_NULL);
    if (!n || (rc = add_arg(n, left))) {
      if (!n) expr_free(left);
      delta_free(n);
      return rc ? rc : DELTA_NOMEM();
    }
    if (!(rc = next(p)) && is_kw(p, "not")) {
      n->negated = true;
      rc = next(p);
    }
    if (!rc && !is_kw(p, "null")) rc = syntax(p, "expected NULL after IS");
    if (!rc) rc = next(p);
    if (rc) expr_free(n);
    else *out = n;
    return rc;
  }
  bool negated = false;
  if (is_kw(p, "not")) {
    negated = true;
    if ((rc = next(p))) goto fail;
    if (!is_kw(p, "in") && !is_kw(p, "between") && !is_kw(p, "like")) {
      rc = syntax(p, "expected IN, BETWEEN or LIKE after NOT");
      goto fail;
    }
  }
  if (is_kw(p, "in")) {
    expr_node *n = node_new(EX_IN);
    if (!n || (rc = add_arg(n, left))) {
      if (!n) expr_free(left);
      delta_free(n);
      return rc ? rc : DELTA_NOMEM();
    }
    if (!(rc = next(p)) && p->kind != T_LPAREN) rc = syntax(p, "expected '(' after IN");
    if (!rc) rc = next(p);
    while (!rc) {
      expr_node *v;
      if ((rc = operand(p, &v)) || (rc = add_arg(n, v))) break;
      if (p->kind == T_RPAREN) break;
      if (p->kind != T_COMMA) rc = syntax(p, "expected ',' or ')' in the IN list");
      else rc = next(p);
    }
    if (!rc) rc = next(p);
    if (!rc && negated) rc = negate(&n);
    if (rc) expr_free(n);
    else *out = n;
    return rc;
  }
  if (is_kw(p, "between")) {
    expr_node *lo = NULL, *hi = NULL, *ge = NULL, *le = NULL, *copy = NULL;
    if (!(rc = next(p))) rc = operand(p, &lo);
    if (!rc && !is_kw(p, "and")) rc = syntax(p, "expected AND in BETWEEN");
    if (!rc) rc = next(p);
    if (!rc) rc = operand(p, &hi);
    /* x BETWEEN a AND b is x >= a AND x <= b. */
    if (rc) {
      expr_free(lo);
      expr_free(hi);
      goto fail;
    }
    rc = expr_copy(left, &copy);
    if (!rc) rc = binary(EX_CMP, left, lo, &ge);
    else expr_free(left), expr_free(lo);
    left = NULL;
    if (!rc) ge->op = CMP_GE;
    if (!rc) rc = binary(EX_CMP, copy, hi, &le);
    else expr_free(copy), expr_free(hi);
    if (!rc) le->op = CMP_LE;
    if (!rc) rc = binary(EX_AND, ge, le, out);
    else expr_free(ge);
    if (!rc && negated) rc = negate(out);
    return rc;
  }
  if (is_kw(p, "like")) {
    if ((rc = next(p))) goto fail;
    if (p->kind != T_STRING) {
      rc = syntax(p, "expected a string pattern after LIKE");
      goto fail;
    }
    expr_node *pat;
    if ((rc = literal(p, LIT_STRING, &pat))) goto fail;
    if ((rc = binary(EX_LIKE, left, pat, out))) return rc;
    (*out)->negated = negated;
    return 0;
  }
  *out = left;
  return 0;
fail:
  expr_free(left);
  return rc;
}

static int parse_not(parser *p, expr_node **out) {
  if (!is_kw(p, "not")) return predicate(p, out);
  if (++p->depth > MAX_DEPTH) return syntax(p, "expression nested too deeply");
  int rc = next(p);
  if (!rc) rc = parse_not(p, out);
  if (!rc) rc = negate(out);
  p->depth--;
  return rc;
}

/* a AND b AND c becomes one node with three arguments. */
static int chain(parser *p, const char *kw, expr_kind k, int (*sub)(parser *, expr_node **), expr_node **out) {
  expr_node *first;
  int rc = sub(p, &first);
  if (rc) return rc;
  if (!is_kw(p, kw)) {
    *out = first;
    return 0;
  }
  expr_node *n = node_new(k);
  if (!n || (rc = add_arg(n, first))) {
    if (!n) expr_free(first);
    delta_free(n);
    return rc ? rc : DELTA_NOMEM();
  }
  while (!rc && is_kw(p, kw)) {
    expr_node *e;
    if (!(rc = next(p)) && !(rc = sub(p, &e))) rc = add_arg(n, e);
  }
  if (rc) expr_free(n);
  else *out = n;
  return rc;
}

static int parse_and(parser *p, expr_node **out) { return chain(p, "and", EX_AND, parse_not, out); }
static int parse_or(parser *p, expr_node **out) { return chain(p, "or", EX_OR, parse_and, out); }

int expr_parse(const char *text, expr_node **out) {
  *out = NULL;
  parser p = {0};
  p.src = text;
  int rc = next(&p);
  if (rc) return rc;
  if (p.kind == T_END) return delta_error_set(DELTA_EINVAL, "filter: the expression is empty");
  expr_node *e;
  if ((rc = parse_or(&p, &e))) return rc;
  if (p.kind != T_END) {
    expr_free(e);
    return syntax(&p, "unexpected text after the expression");
  }
  *out = e;
  return 0;
}

static char *dup_bytes(const char *s, size_t n) {
  char *d = delta_malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

int expr_copy(const expr_node *e, expr_node **out) {
  expr_node *n = node_new(e->kind);
  if (!n) return DELTA_NOMEM();
  n->op = e->op;
  n->negated = e->negated;
  n->lit = e->lit;
  n->text_len = e->text_len;
  int rc = 0;
  if (e->text && !(n->text = dup_bytes(e->text, e->text_len))) rc = DELTA_NOMEM();
  if (!rc && e->depth) {
    n->path = delta_calloc((size_t)e->depth, sizeof *n->path);
    if (!n->path) rc = DELTA_NOMEM();
    for (int i = 0; !rc && i < e->depth; i++, n->depth++)
      if (!(n->path[i] = dup_bytes(e->path[i], strlen(e->path[i])))) rc = DELTA_NOMEM();
  }
  for (int i = 0; !rc && i < e->n_args; i++) {
    expr_node *a;
    if (!(rc = expr_copy(e->args[i], &a))) rc = add_arg(n, a);
  }
  if (rc) {
    expr_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

int expr_path_prepend(char ***path, int *depth, const char *prefix) {
  char *first = delta_strdup(prefix);
  char **np = first ? delta_realloc(*path, (size_t)(*depth + 1) * sizeof *np) : NULL;
  if (!np) {
    delta_free(first);
    return DELTA_NOMEM();
  }
  memmove(np + 1, np, (size_t)*depth * sizeof *np);
  np[0] = first;
  *path = np;
  (*depth)++;
  return 0;
}

int expr_qualify(expr_node *e, expr_qualify_fn fn, void *ctx) {
  int rc = 0;
  for (int i = 0; i < e->n_args && !rc; i++) rc = expr_qualify(e->args[i], fn, ctx);
  if (rc || e->kind != EX_COLUMN || e->depth == 0) return rc;
  const char *prefix = NULL;
  if ((rc = fn(ctx, e->path[0], &prefix)) || !prefix) return rc;
  return expr_path_prepend(&e->path, &e->depth, prefix);
}
