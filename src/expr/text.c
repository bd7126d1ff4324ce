/* An expression back as text, fully parenthesised, in the syntax the
 * parser reads (so plans can be re-run and tests can compare trees):
 * print(parse(print(e))) == print(e). Every failure here is an allocation
 * failure, so each case is one chain of appends. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/expr.h"
#include "util/error_internal.h"

static int quoted(delta_buf *b, const char *s, size_t n, char q) {
  if (buf_putc(b, q)) return DELTA_NOMEM();
  for (size_t i = 0; i < n; i++)
    if ((s[i] == q && buf_putc(b, q)) || buf_putc(b, s[i])) return DELTA_NOMEM();
  return buf_putc(b, q) ? DELTA_NOMEM() : 0;
}

static bool plain_name(const char *s) {
  /* the keywords, and names that read back as something else in a value
   * (current_date is a call there, case and interval may start one) */
  static const char *const reserved[] = {"and", "or", "not", "in", "is", "between", "like", "true", "false", "null",
                                         "case", "interval", "current_date", "current_timestamp"};
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
    if (strcasecmp(s, reserved[i]) == 0) return false;
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

static int binary_literal(const expr_node *e, delta_buf *b) {
  static const char hex[] = "0123456789abcdef";
  if (buf_puts(b, "X'")) return DELTA_NOMEM();
  for (size_t i = 0; i < e->text_len; i++)
    if (buf_putc(b, hex[(unsigned char)e->text[i] >> 4]) || buf_putc(b, hex[(unsigned char)e->text[i] & 15]))
      return DELTA_NOMEM();
  return buf_putc(b, '\'') ? DELTA_NOMEM() : 0;
}

static int interval_literal(const expr_node *e, delta_buf *b) {
  if (buf_puts(b, "INTERVAL") ||
      (e->iv_months && buf_printf(b, " '%lld' MONTH", (long long)e->iv_months)) ||
      (e->iv_days && buf_printf(b, " '%lld' DAY", (long long)e->iv_days)) ||
      ((e->iv_us || (!e->iv_months && !e->iv_days)) && buf_printf(b, " '%lld' MICROSECOND", (long long)e->iv_us)))
    return DELTA_NOMEM();
  return 0;
}

static int literal(const expr_node *e, delta_buf *b) {
  int fail = 0;
  switch (e->lit) {
  case LIT_NULL: fail = buf_puts(b, "NULL"); break;
  case LIT_BOOL: case LIT_NUMBER: fail = buf_puts(b, e->text); break;
  case LIT_STRING: return quoted(b, e->text, e->text_len, '\'');
  case LIT_DATE: fail = buf_puts(b, "DATE ") || quoted(b, e->text, e->text_len, '\''); break;
  case LIT_TIMESTAMP: fail = buf_puts(b, "TIMESTAMP ") || quoted(b, e->text, e->text_len, '\''); break;
  case LIT_TIMESTAMP_NTZ: fail = buf_puts(b, "TIMESTAMP_NTZ ") || quoted(b, e->text, e->text_len, '\''); break;
  case LIT_BINARY: return binary_literal(e, b);
  case LIT_INTERVAL: return interval_literal(e, b);
  }
  return fail ? DELTA_NOMEM() : 0;
}

static int column(const expr_node *e, delta_buf *b) {
  for (int i = 0; i < e->depth; i++) {
    if (i && buf_putc(b, '.')) return DELTA_NOMEM();
    if (plain_name(e->path[i]) ? buf_puts(b, e->path[i]) != 0
                               : quoted(b, e->path[i], strlen(e->path[i]), '`') != 0)
      return DELTA_NOMEM();
  }
  return 0;
}

static const char *cast_type(const expr_node *e, char *buf, size_t cap) {
  switch (e->cast_to) {
  case VT_INT:
    return e->cast_prec == 3 ? "TINYINT" : e->cast_prec == 5 ? "SMALLINT" : e->cast_prec == 10 ? "INT" : "BIGINT";
  case VT_FLOAT: return "DOUBLE";
  case VT_STRING: return "STRING";
  case VT_BOOL: return "BOOLEAN";
  case VT_DATE: return "DATE";
  case VT_TIMESTAMP: return "TIMESTAMP";
  case VT_TIMESTAMP_NTZ: return "TIMESTAMP_NTZ";
  case VT_DECIMAL: snprintf(buf, cap, "DECIMAL(%d,%d)", e->cast_prec, e->cast_scale); return buf;
  default: return "?";
  }
}

/* The arguments from `from` on, each after `sep` but the first. */
static int list(const expr_node *e, int from, const char *sep, delta_buf *b) {
  for (int i = from; i < e->n_args; i++)
    if ((i > from && buf_puts(b, sep)) || expr_to_text(e->args[i], b)) return DELTA_NOMEM();
  return 0;
}

/* f(a, b, ...) */
static int call(const expr_node *e, const char *name, delta_buf *b) {
  if (buf_puts(b, name) || buf_putc(b, '(') || list(e, 0, ", ", b) || buf_putc(b, ')'))
    return DELTA_NOMEM();
  return 0;
}

static int case_when(const expr_node *e, delta_buf *b) {
  if (buf_puts(b, "CASE")) return DELTA_NOMEM();
  for (int i = 0; i + 1 < e->n_args; i += 2)
    if (buf_puts(b, " WHEN ") || expr_to_text(e->args[i], b) || buf_puts(b, " THEN ") ||
        expr_to_text(e->args[i + 1], b))
      return DELTA_NOMEM();
  if (buf_puts(b, " ELSE ") || expr_to_text(e->args[e->n_args - 1], b) || buf_puts(b, " END"))
    return DELTA_NOMEM();
  return 0;
}

int expr_to_text(const expr_node *e, delta_buf *b) {
  static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">=", "<=>"};
  char arith[5] = {' ', e->arith, ' ', 0, 0}, type[32];
  int fail = 0;
  switch (e->kind) {
  case EX_LITERAL: return literal(e, b);
  case EX_COLUMN: return column(e, b);
  case EX_CMP:
    fail = buf_putc(b, '(') || expr_to_text(e->args[0], b) || buf_printf(b, " %s ", ops[e->op]) ||
           expr_to_text(e->args[1], b) || buf_putc(b, ')');
    break;
  case EX_AND: case EX_OR:
    fail = buf_putc(b, '(') || list(e, 0, e->kind == EX_AND ? " AND " : " OR ", b) || buf_putc(b, ')');
    break;
  case EX_NOT:
    fail = buf_puts(b, "(NOT ") || expr_to_text(e->args[0], b) || buf_putc(b, ')');
    break;
  case EX_IN:
    fail = buf_putc(b, '(') || expr_to_text(e->args[0], b) || buf_puts(b, " IN (") || list(e, 1, ", ", b) ||
           buf_puts(b, "))");
    break;
  case EX_IS_NULL:
    fail = buf_putc(b, '(') || expr_to_text(e->args[0], b) ||
           buf_puts(b, e->negated ? " IS NOT NULL)" : " IS NULL)");
    break;
  case EX_LIKE:
    fail = buf_putc(b, '(') || expr_to_text(e->args[0], b) ||
           buf_puts(b, e->negated ? " NOT LIKE " : " LIKE ") || expr_to_text(e->args[1], b) ||
           buf_putc(b, ')');
    break;
  case EX_ARITH:
    if (e->arith == '|') memcpy(arith, " || ", 5);
    fail = buf_putc(b, '(') || expr_to_text(e->args[0], b) || buf_puts(b, arith) ||
           expr_to_text(e->args[1], b) || buf_putc(b, ')');
    break;
  case EX_NEG: /* -(x), so that -(5) does not read back as the literal -5 */
    fail = buf_puts(b, "(-(") || expr_to_text(e->args[0], b) || buf_puts(b, "))");
    break;
  case EX_CASE: return case_when(e, b);
  case EX_COALESCE: return call(e, "coalesce", b);
  case EX_CAST:
    fail = buf_puts(b, "CAST(") || expr_to_text(e->args[0], b) || buf_puts(b, " AS ") ||
           buf_puts(b, cast_type(e, type, sizeof type)) || buf_putc(b, ')');
    break;
  case EX_FUNC: return call(e, e->text, b);
  }
  return fail ? DELTA_NOMEM() : 0;
}
