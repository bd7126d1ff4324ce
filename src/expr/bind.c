/* Binding a predicate: columns resolved against a schema, literals typed
 * by the column (or value expression) they are compared with; value
 * expressions among the operands are typed by bind_value.c. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static int find_child(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (s->children[i]->name && strcmp(s->children[i]->name, name) == 0) return (int)i;
  for (int64_t i = 0; i < s->n_children; i++)
    if (s->children[i]->name && strcasecmp(s->children[i]->name, name) == 0) return (int)i;
  return -1;
}

int expr_resolve_column(expr_node *c, const struct ArrowSchema *schema, bool value_msgs) {
  delta_buf b = DELTA_BUF_INIT;
  int rc = 0;
  mem_free(c->child_index);
  c->child_index = mem_calloc((size_t)c->depth + 1, sizeof *c->child_index);
  if (!c->child_index) return DELTA_NOMEM();
  const struct ArrowSchema *s = schema;
  for (int d = 0; d < c->depth; d++) {
    bool is_struct = s->format[0] == '+' && s->format[1] == 's' && s->format[2] == '\0';
    int k = is_struct ? find_child(s, c->path[d]) : -1;
    if (k >= 0) {
      c->child_index[d] = k;
      s = s->children[k];
      continue;
    }
    if ((rc = expr_column_name(c, &b)) != 0) goto done;
    if (value_msgs && !is_struct)
      rc = err_set(DELTA_EINVAL, "expression: %s: %s is not a struct", (const char *)b.data, c->path[d - 1]);
    else if (value_msgs)
      rc = err_set(DELTA_EINVAL, "expression: no column named %s", (const char *)b.data);
    else if (d == 0)
      rc = err_set(DELTA_EINVAL, "filter: no column named %s", (const char *)b.data);
    else
      rc = err_set(DELTA_EINVAL, "filter: %s has no field %s", (const char *)b.data, c->path[d]);
    goto done;
  }
  c->format = s->format;
  c->schema = s;
done:
  buf_dispose(&b);
  return rc;
}

static int bind_column(expr_node *c, const struct ArrowSchema *schema) {
  int rc = expr_resolve_column(c, schema, false);
  if (rc) return rc;
  c->type = value_type_of_arrow(c->format, NULL, &c->scale);
  return 0;
}

/* How a message names an operand: a column by its name, anything else as
 * its text. */
static int operand_name(const expr_node *c, delta_buf *b) {
  if (c->kind == EX_COLUMN) return expr_column_name(c, b);
  if (expr_to_text(c, b) || buf_putc(b, '\0')) return DELTA_NOMEM();
  return 0;
}

/* A value expression (not a column, literal or predicate). */
static bool is_value(const expr_node *e) { return e->kind >= EX_ARITH; }

/* A number literal's own type: an integer when it is one, an exact
 * decimal when it has a point, a double with an exponent. */
static int number_value(expr_node *l) {
  if (value_parse(VT_INT, 0, l->text, l->text_len, &l->value) == 0) return 0;
  if (!strpbrk(l->text, "eE") && value_parse(VT_DECIMAL, -1, l->text, l->text_len, &l->value) == 0) return 0;
  if (value_parse(VT_FLOAT, 0, l->text, l->text_len, &l->value) == 0) return 0;
  return err_set(DELTA_EINVAL, "filter: '%s' is not a number", l->text);
}

/* Type a literal as its own syntax says. */
static int literal_self(expr_node *l) {
  int rc = 0;
  switch (l->lit) {
  case LIT_NULL:
    memset(&l->value, 0, sizeof l->value);
    l->value.type = VT_NULL;
    l->value.is_null = true;
    break;
  case LIT_BOOL: rc = value_parse(VT_BOOL, 0, l->text, l->text_len, &l->value); break;
  case LIT_NUMBER: return number_value(l);
  case LIT_STRING: rc = value_parse(VT_STRING, 0, l->text, l->text_len, &l->value); break;
  case LIT_BINARY: rc = value_parse(VT_BINARY, 0, l->text, l->text_len, &l->value); break;
  case LIT_DATE: rc = value_parse(VT_DATE, 0, l->text, l->text_len, &l->value); break;
  case LIT_TIMESTAMP: rc = value_parse(VT_TIMESTAMP, 0, l->text, l->text_len, &l->value); break;
  case LIT_TIMESTAMP_NTZ: rc = value_parse(VT_TIMESTAMP_NTZ, 0, l->text, l->text_len, &l->value); break;
  case LIT_INTERVAL: return expr_interval_misuse();
  }
  if (rc) return err_set(DELTA_EINVAL, "filter: '%s' is not a valid %s literal", l->text,
                                 l->lit == LIT_DATE ? "DATE" : l->lit == LIT_BOOL ? "boolean" : "TIMESTAMP");
  return 0;
}

/* A one-line binding error naming an operand (fmt has one %s for it,
 * then a and b). */
static int named_error(const expr_node *c, const char *fmt, const char *a, const char *b) {
  delta_buf n = DELTA_BUF_INIT;
  int rc;
  if (c->kind == EX_LITERAL) rc = buf_puts(&n, c->text ? c->text : "a literal") || buf_putc(&n, 0)
                                      ? DELTA_NOMEM() : 0;
  else rc = operand_name(c, &n);
  if (rc) goto done;
  rc = err_set(DELTA_EINVAL, fmt, (const char *)n.data, a, b);
done:
  buf_dispose(&n);
  return rc;
}

/* Type a literal for comparison with a value of class `t`: a string
 * literal against a date column is a date, '42' against a number is 42. */
static int literal_for(expr_node *l, value_type t, const expr_node *col) {
  int rc = literal_self(l);
  if (rc) return rc;
  bool ok = true;
  if (l->lit == LIT_STRING) {
    switch (t) {
    case VT_INT: case VT_FLOAT: case VT_DECIMAL: ok = number_value(l) == 0; break;
    case VT_BOOL: case VT_DATE: case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ:
      ok = value_parse(t, 0, l->text, l->text_len, &l->value) == 0;
      break;
    case VT_BINARY: l->value.type = VT_BINARY; break;
    default: break;
    }
  }
  if (!ok) {
    /* the column's name comes last in the message */
    delta_buf n = DELTA_BUF_INIT;
    if ((rc = operand_name(col, &n)) == 0)
      rc = err_set(DELTA_EINVAL, "filter: '%s' is not a valid %s for column %s", l->text, value_type_name(t),
                           (const char *)n.data);
    buf_dispose(&n);
    return rc;
  }
  l->type = l->value.type;
  l->scale = l->value.scale;
  return 0;
}

static bool comparable_type(value_type t) { return t != VT_STRUCT && t != VT_OTHER; }

static int type_error(const expr_node *a, const expr_node *b) {
  const expr_node *c = a->kind == EX_COLUMN ? a : b->kind == EX_COLUMN ? b : is_value(a) ? a : is_value(b) ? b : NULL;
  if (!c)
    return err_set(DELTA_EINVAL, "filter: cannot compare a literal (%s) with %s", value_type_name(a->type),
                           value_type_name(b->type));
  return named_error(c, "filter: cannot compare %s (%s) with %s", value_type_name(a->type), value_type_name(b->type));
}

static int bind_value(expr_node *e, const struct ArrowSchema *s);

/* Operands of a comparison or IN list: columns (and value expressions)
 * first, then literals typed by the first of them. */
static int bind_operands(expr_node **args, int n, const struct ArrowSchema *s) {
  const expr_node *col = NULL;
  int rc;
  for (int i = 0; i < n; i++) {
    if (args[i]->kind == EX_LITERAL) continue;
    if ((rc = bind_value(args[i], s)) != 0) return rc;
    if (!col && (args[i]->kind == EX_COLUMN || (is_value(args[i]) && args[i]->type != VT_NULL))) col = args[i];
  }
  for (int i = 0; i < n; i++) {
    if (args[i]->kind != EX_LITERAL) continue;
    if ((rc = col ? literal_for(args[i], col->type, col) : literal_for(args[i], VT_NULL, NULL)) != 0) return rc;
  }
  for (int i = 0; i < n; i++) {
    if (!comparable_type(args[i]->type) || !value_comparable(args[0]->type, args[i]->type))
      return type_error(args[0], args[i]);
  }
  return 0;
}

/* Columns and literals in value position; a value expression is typed by
 * the value binder (and evaluated into its own type); anything boolean is
 * bound as a predicate and typed VT_BOOL. */
static int bind_value(expr_node *e, const struct ArrowSchema *s) {
  int rc;
  if (e->kind == EX_COLUMN) return bind_column(e, s);
  if (e->kind == EX_LITERAL) return literal_for(e, VT_NULL, NULL);
  if (is_value(e)) {
    if ((rc = expr_bind_natural(e, s)) != 0) return rc;
    return e->type == VT_INTERVAL ? expr_interval_misuse() : 0;
  }
  if ((rc = expr_bind(e, s)) != 0) return rc;
  e->type = VT_BOOL;
  return 0;
}

int expr_bind(expr_node *e, const struct ArrowSchema *s) {
  int rc = 0;
  switch (e->kind) {
  case EX_COLUMN: case EX_LITERAL: case EX_ARITH: case EX_NEG: case EX_CASE: case EX_COALESCE: case EX_CAST:
  case EX_FUNC:
    if ((rc = bind_value(e, s)) != 0) return rc;
    if (e->type == VT_BOOL || e->type == VT_NULL) return 0;
    return named_error(e, "filter: %s is a %s, not a condition", value_type_name(e->type), NULL);
  case EX_CMP: case EX_IN:
    if ((rc = bind_operands(e->args, e->n_args, s)) != 0) return rc;
    break;
  case EX_IS_NULL:
    if ((rc = bind_value(e->args[0], s)) != 0) return rc;
    break;
  case EX_LIKE:
    if ((rc = bind_value(e->args[0], s)) != 0 || (rc = literal_for(e->args[1], VT_STRING, NULL)) != 0) return rc;
    if (e->args[0]->type != VT_STRING && e->args[0]->type != VT_NULL)
      return err_set(DELTA_EINVAL, "filter: LIKE needs a string, not a %s", value_type_name(e->args[0]->type));
    break;
  case EX_AND: case EX_OR: case EX_NOT:
    for (int i = 0; i < e->n_args; i++)
      if ((rc = expr_bind(e->args[i], s)) != 0) return rc;
    break;
  }
  e->type = VT_BOOL;
  return 0;
}

static void collect_top(const expr_node *e, const struct ArrowSchema *schema, const char **names, int *n, int max) {
  if (e->kind == EX_COLUMN) {
    if (!e->child_index) return;
    const char *name = schema->children[e->child_index[0]]->name;
    for (int i = 0; i < *n; i++)
      if (names[i] == name) return;
    if (*n < max) names[(*n)++] = name;
    return;
  }
  for (int i = 0; i < e->n_args; i++) collect_top(e->args[i], schema, names, n, max);
}

int expr_top_columns(const expr_node *e, const struct ArrowSchema *schema, const char **names, int max) {
  int n = 0;
  collect_top(e, schema, names, &n, max);
  return n;
}
