/* The expression language's tokenizer: names, `quoted names`, 'strings',
 * numbers, operators and punctuation. One for predicates and values. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

int expr_lex_error(const expr_lexer *p, const char *what) {
  if (p->value_mode) {
    if (p->kind == T_END) return err_set(DELTA_EINVAL, "expression: %s at the end", what);
    return err_set(DELTA_EINVAL, "expression: %s at position %zu ('%.*s')", what, p->start + 1,
                           (int)(p->len > 20 ? 20 : p->len), p->src + p->start);
  }
  if (p->kind == T_END) return err_set(DELTA_EINVAL, "filter: %s at the end of the expression", what);
  return err_set(DELTA_EINVAL, "filter: %s at position %zu ('%.*s')", what, p->start + 1,
                         (int)(p->len > 20 ? 20 : p->len), p->src + p->start);
}

/* A number: digits[.digits][e[+-]digits], or .digits. A letter right after
 * it is an error rather than a number followed by a name. */
static int number(expr_lexer *p, size_t *at) {
  const char *s = p->src;
  size_t i = *at;
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
    return expr_lex_error(p, "malformed number");
  }
  p->kind = T_NUMBER;
  *at = i;
  return 0;
}

static int quoted(expr_lexer *p, size_t *at) {
  const char *s = p->src;
  char c = s[*at];
  size_t i;
  for (i = *at + 1;; i++) {
    if (s[i] == '\0') {
      p->len = i - p->start;
      p->kind = T_STRING;
      return expr_lex_error(p, c == '\'' ? "unterminated string" : "unterminated quoted name");
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
  *at = i;
  return 0;
}

/* Operators: = == != <> < <= > >= <=> + - * / % || */
static int operator(expr_lexer *p, size_t *at) {
  const char *s = p->src;
  size_t i = *at;
  char c = s[i++];
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
      return expr_lex_error(p, "unexpected character");
    }
    i++;
    break;
  case '<':
    if (s[i] == '=' || s[i] == '>') i++;
    if (s[i - 1] == '=' && s[i] == '>') i++;
    break;
  case '>': if (s[i] == '=') i++; break;
  case '|':
    if (s[i] != '|') {
      p->len = 1;
      return expr_lex_error(p, "unexpected character");
    }
    i++;
    break;
  case '-': case '+': case '*': case '/': case '%': break;
  default:
    p->len = 1;
    return expr_lex_error(p, "unexpected character");
  }
  *at = i;
  return 0;
}

int expr_lex_next(expr_lexer *p) {
  const char *s = p->src;
  size_t i = p->pos;
  int rc;
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
    if ((rc = number(p, &i)) != 0) return rc;
  } else if (c == '\'' || c == '`') {
    if ((rc = quoted(p, &i)) != 0) return rc;
  } else if ((rc = operator(p, &i)) != 0) {
    return rc;
  }
  p->len = i - p->start;
  p->pos = i;
  if (p->kind == T_OP) {
    memset(p->op, 0, sizeof p->op);
    memcpy(p->op, s + p->start, p->len < 3 ? p->len : 3);
  }
  return 0;
}

bool expr_lex_kw(const expr_lexer *p, const char *kw) {
  return p->kind == T_NAME && strlen(kw) == p->len && strncasecmp(p->src + p->start, kw, p->len) == 0;
}

bool expr_lex_op(const expr_lexer *p, const char *op) {
  return p->kind == T_OP && strlen(op) == p->len && strncmp(p->op, op, p->len) == 0;
}

char *expr_lex_text(const expr_lexer *p, size_t *len) {
  const char *s = p->src + p->start;
  size_t n = p->len;
  char *out = mem_malloc(n + 1);
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
