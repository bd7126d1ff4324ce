/* An expression back as text, fully parenthesised, in the syntax the
 * parser reads (so plans can be re-run and tests can compare trees). */
#include <string.h>
#include <strings.h>

#include "expr/expr.h"
#include "util/error_internal.h"

static int quoted(delta_buf *b, const char *s, size_t n, char q) {
  int rc = delta_buf_putc(b, q);
  for (size_t i = 0; !rc && i < n; i++) {
    if (s[i] == q) rc = delta_buf_putc(b, q);
    if (!rc) rc = delta_buf_putc(b, s[i]);
  }
  return rc ? rc : delta_buf_putc(b, q);
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

static int literal(const expr_node *e, delta_buf *b) {
  static const char hex[] = "0123456789abcdef";
  switch (e->lit) {
  case LIT_NULL: return delta_buf_puts(b, "NULL");
  case LIT_BOOL: case LIT_NUMBER: return delta_buf_puts(b, e->text);
  case LIT_STRING: return quoted(b, e->text, e->text_len, '\'');
  case LIT_DATE: return delta_buf_puts(b, "DATE ") || quoted(b, e->text, e->text_len, '\'');
  case LIT_TIMESTAMP: return delta_buf_puts(b, "TIMESTAMP ") || quoted(b, e->text, e->text_len, '\'');
  case LIT_TIMESTAMP_NTZ: return delta_buf_puts(b, "TIMESTAMP_NTZ ") || quoted(b, e->text, e->text_len, '\'');
  case LIT_INTERVAL: {
    int rc = delta_buf_puts(b, "INTERVAL");
    if (!rc && e->iv_months) rc = delta_buf_printf(b, " '%lld' MONTH", (long long)e->iv_months);
    if (!rc && e->iv_days) rc = delta_buf_printf(b, " '%lld' DAY", (long long)e->iv_days);
    if (!rc && (e->iv_us || (!e->iv_months && !e->iv_days)))
      rc = delta_buf_printf(b, " '%lld' MICROSECOND", (long long)e->iv_us);
    return rc;
  }
  case LIT_BINARY: {
    int rc = delta_buf_puts(b, "X'");
    for (size_t i = 0; !rc && i < e->text_len; i++) {
      rc = delta_buf_putc(b, hex[(unsigned char)e->text[i] >> 4]);
      if (!rc) rc = delta_buf_putc(b, hex[(unsigned char)e->text[i] & 15]);
    }
    return rc ? rc : delta_buf_putc(b, '\'');
  }
  }
  return 0;
}

static int cast_type(const expr_node *e, delta_buf *b) {
  switch (e->cast_to) {
  case VT_INT:
    return delta_buf_puts(b, e->cast_prec == 3 ? "TINYINT" : e->cast_prec == 5 ? "SMALLINT"
                             : e->cast_prec == 10 ? "INT" : "BIGINT");
  case VT_FLOAT: return delta_buf_puts(b, "DOUBLE");
  case VT_STRING: return delta_buf_puts(b, "STRING");
  case VT_BOOL: return delta_buf_puts(b, "BOOLEAN");
  case VT_DATE: return delta_buf_puts(b, "DATE");
  case VT_TIMESTAMP: return delta_buf_puts(b, "TIMESTAMP");
  case VT_TIMESTAMP_NTZ: return delta_buf_puts(b, "TIMESTAMP_NTZ");
  case VT_DECIMAL: return delta_buf_printf(b, "DECIMAL(%d,%d)", e->cast_prec, e->cast_scale);
  default: return delta_buf_puts(b, "?");
  }
}

/* f(a, b, ...) */
static int call(const expr_node *e, const char *name, delta_buf *b) {
  int rc = delta_buf_puts(b, name);
  if (!rc) rc = delta_buf_putc(b, '(');
  for (int i = 0; !rc && i < e->n_args; i++) {
    if (i) rc = delta_buf_puts(b, ", ");
    if (!rc) rc = expr_to_text(e->args[i], b);
  }
  return rc ? rc : delta_buf_putc(b, ')');
}

static int value_text(const expr_node *e, delta_buf *b) {
  int rc = 0;
  switch (e->kind) {
  case EX_ARITH:
    rc = delta_buf_putc(b, '(');
    if (!rc) rc = expr_to_text(e->args[0], b);
    if (!rc) rc = e->arith == '|' ? delta_buf_puts(b, " || ") : delta_buf_printf(b, " %c ", e->arith);
    if (!rc) rc = expr_to_text(e->args[1], b);
    return rc ? rc : delta_buf_putc(b, ')');
  case EX_NEG:
    /* -(x), so that -(5) does not read back as the literal -5 */
    rc = delta_buf_puts(b, "(-(");
    if (!rc) rc = expr_to_text(e->args[0], b);
    return rc ? rc : delta_buf_puts(b, "))");
  case EX_CASE:
    rc = delta_buf_puts(b, "CASE");
    for (int i = 0; !rc && i + 1 < e->n_args; i += 2) {
      rc = delta_buf_puts(b, " WHEN ");
      if (!rc) rc = expr_to_text(e->args[i], b);
      if (!rc) rc = delta_buf_puts(b, " THEN ");
      if (!rc) rc = expr_to_text(e->args[i + 1], b);
    }
    if (!rc) rc = delta_buf_puts(b, " ELSE ");
    if (!rc) rc = expr_to_text(e->args[e->n_args - 1], b);
    return rc ? rc : delta_buf_puts(b, " END");
  case EX_COALESCE: return call(e, "coalesce", b);
  case EX_CAST:
    rc = delta_buf_puts(b, "CAST(");
    if (!rc) rc = expr_to_text(e->args[0], b);
    if (!rc) rc = delta_buf_puts(b, " AS ");
    if (!rc) rc = cast_type(e, b);
    return rc ? rc : delta_buf_putc(b, ')');
  case EX_FUNC: return call(e, e->text, b);
  default: return 0;
  }
}

int expr_to_text(const expr_node *e, delta_buf *b) {
  static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">=", "<=>"};
  int rc = 0;
  switch (e->kind) {
  case EX_LITERAL: return literal(e, b) ? DELTA_NOMEM() : 0;
  case EX_COLUMN:
    for (int i = 0; !rc && i < e->depth; i++) {
      if (i) rc = delta_buf_putc(b, '.');
      if (!rc) rc = plain_name(e->path[i]) ? delta_buf_puts(b, e->path[i]) : quoted(b, e->path[i], strlen(e->path[i]), '`');
    }
    return rc;
  case EX_CMP:
    rc = delta_buf_putc(b, '(');
    if (!rc) rc = expr_to_text(e->args[0], b);
    if (!rc) rc = delta_buf_printf(b, " %s ", ops[e->op]);
    if (!rc) rc = expr_to_text(e->args[1], b);
    return rc ? rc : delta_buf_putc(b, ')');
  case EX_AND: case EX_OR:
    rc = delta_buf_putc(b, '(');
    for (int i = 0; !rc && i < e->n_args; i++) {
      if (i) rc = delta_buf_puts(b, e->kind == EX_AND ? " AND " : " OR ");
      if (!rc) rc = expr_to_text(e->args[i], b);
    }
    return rc ? rc : delta_buf_putc(b, ')');
  case EX_NOT:
    rc = delta_buf_puts(b, "(NOT ");
    if (!rc) rc = expr_to_text(e->args[0], b);
    return rc ? rc : delta_buf_putc(b, ')');
  case EX_IN:
    rc = delta_buf_putc(b, '(');
    if (!rc) rc = expr_to_text(e->args[0], b);
    if (!rc) rc = delta_buf_puts(b, " IN (");
    for (int i = 1; !rc && i < e->n_args; i++) {
      if (i > 1) rc = delta_buf_puts(b, ", ");
      if (!rc) rc = expr_to_text(e->args[i], b);
    }
    return rc ? rc : delta_buf_puts(b, "))");
  case EX_IS_NULL:
    rc = delta_buf_putc(b, '(');
    if (!rc) rc = expr_to_text(e->args[0], b);
    if (!rc) rc = delta_buf_puts(b, e->negated ? " IS NOT NULL)" : " IS NULL)");
    return rc;
  case EX_LIKE:
    rc = delta_buf_putc(b, '(');
    if (!rc) rc = expr_to_text(e->args[0], b);
    if (!rc) rc = delta_buf_puts(b, e->negated ? " NOT LIKE " : " LIKE ");
    if (!rc) rc = expr_to_text(e->args[1], b);
    return rc ? rc : delta_buf_putc(b, ')');
  default:
    return value_text(e, b);
  }
}
