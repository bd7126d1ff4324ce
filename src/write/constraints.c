/* NOT NULL and CHECK constraints of writes; see constraints.h. */
#include "write/constraints.h"

#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/format.h"
#include "expr/expr.h"
#include "json/json.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

typedef struct {
  char *name;        /* "a.b.c" */
  int *path;         /* child index at each depth in the input schema */
  int depth;
} not_null_rule;

typedef struct {
  char *name;        /* "CHECK constraint positive", "invariant of column a.b" */
  char *text;        /* the expression as the table holds it */
  expr_node *violated; /* NOT (expression), bound: TRUE exactly where the constraint is FALSE */
} check_rule;

struct write_constraints {
  const struct ArrowSchema *input;
  not_null_rule *nn;
  int n_nn;
  check_rule *checks;
  int n_checks;
  arrow_type *row_type; /* for showing a violating row */
  uint8_t *keep;
  int64_t cap_keep;
};

bool constraints_any(const delta_kv *config, int n_config) {
  for (int i = 0; i < n_config; i++)
    if (strncmp(config[i].key, CONSTRAINT_PREFIX, strlen(CONSTRAINT_PREFIX)) == 0) return true;
  return false;
}

static int find_input(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (strcasecmp(s->children[i]->name, name) == 0) return (int)i;
  return -1;
}

static int add_check(write_constraints *c, char *name, char *text);

/* A column invariant (legacy writer 2: field metadata "delta.invariants" =
 * "{\"expression\":{\"expression\":\"x > 3\"}}"): a CHECK on that column. */
static int add_invariant(write_constraints *c, const delta_field *fd, const char *path) {
  delta_json_doc *d = NULL;
  delta_buf inv = DELTA_BUF_INIT, expr = DELTA_BUF_INIT, name = DELTA_BUF_INIT;
  int rc = delta_json_doc_new(&d);
  if (!rc) rc = delta_json_parse(d, fd->metadata, strlen(fd->metadata));
  if (!rc) rc = delta_json_string(delta_json_get(delta_json_root(d), "delta.invariants"), &inv);
  if (!rc) rc = delta_json_parse(d, (const char *)inv.data, inv.len);
  if (!rc) rc = delta_json_string(delta_json_get(delta_json_get(delta_json_root(d), "expression"), "expression"), &expr);
  if (rc) rc = delta_error_set(DELTA_EUNSUPPORTED, "column %s: cannot read its invariant", path);
  if (!rc) rc = delta_buf_printf(&name, "invariant of column %s", path);
  if (!rc) rc = delta_buf_putc(&name, 0);
  if (!rc) rc = delta_buf_putc(&expr, 0);
  if (!rc) rc = add_check(c, (char *)delta_buf_detach(&name), (char *)delta_buf_detach(&expr));
  delta_buf_dispose(&inv);
  delta_buf_dispose(&expr);
  delta_buf_dispose(&name);
  delta_json_doc_free(d);
  return rc;
}

/* The NOT NULL fields of struct `t` under the input struct `in`, depth-first. */
static int collect_not_null(write_constraints *c, const delta_type *t, const struct ArrowSchema *in, int *path,
                            int depth, delta_buf *name) {
  size_t at = name->len;
  for (int f = 0; f < t->n_fields; f++) {
    const delta_field *fd = &t->fields[f];
    int k = find_input(in, fd->name);
    name->len = at;
    int rc = (at ? delta_buf_putc(name, '.') : 0) || delta_buf_puts(name, fd->name) ? DELTA_NOMEM() : 0;
    if (!rc) rc = delta_buf_putc(name, 0);
    if (rc) return rc;
    name->len--;
    if (k < 0) {
      /* a missing top-level column is the data writer's to report; a field
       * missing inside a struct given is null in every row */
      if (!fd->nullable && depth > 0)
        return delta_error_set(DELTA_EINVAL, "NOT NULL field %s is missing from the input", (const char *)name->data);
      continue;
    }
    path[depth] = k;
    if (fd->metadata && strstr(fd->metadata, "\"delta.invariants\"") &&
        (rc = add_invariant(c, fd, (const char *)name->data)))
      return rc;
    if (!fd->nullable) {
      not_null_rule *r = delta_realloc(c->nn, (size_t)(c->n_nn + 1) * sizeof *r);
      if (!r) return DELTA_NOMEM();
      c->nn = r;
      r = &c->nn[c->n_nn];
      r->name = delta_strdup((const char *)name->data);
      r->path = delta_malloc((size_t)(depth + 1) * sizeof(int));
      r->depth = depth + 1;
      if (r->path) memcpy(r->path, path, (size_t)(depth + 1) * sizeof(int));
      c->n_nn++;
      if (!r->name || !r->path) return DELTA_NOMEM();
    }
    const struct ArrowSchema *child = in->children[k];
    if (fd->type->kind == DT_STRUCT && depth + 1 < 64 && strcmp(child->format, "+s") == 0 &&
        (rc = collect_not_null(c, fd->type, child, path, depth + 1, name)))
      return rc;
  }
  name->len = at;
  return 0;
}

/* Columns the input lacks become NULL literals: what the row will hold. */
static void null_missing(expr_node *e, const struct ArrowSchema *input) {
  if (e->kind == EX_COLUMN && find_input(input, e->path[0]) < 0) {
    for (int i = 0; i < e->depth; i++) delta_free(e->path[i]);
    delta_free(e->path);
    e->path = NULL;
    e->depth = 0;
    e->kind = EX_LITERAL;
    e->lit = LIT_NULL;
    return;
  }
  for (int i = 0; i < e->n_args; i++) null_missing(e->args[i], input);
}

/* NOT (text), parsed; the error names the constraint. */
static int parse_violation(const char *name, const char *text, expr_node **out) {
  expr_node *e = NULL, *not = NULL;
  int rc = expr_parse(text, &e);
  if (!rc) {
    not = delta_calloc(1, sizeof *not);
    expr_node **args = delta_malloc(sizeof *args);
    if (!not || !args) {
      delta_free(not);
      delta_free(args);
      expr_free(e);
      return DELTA_NOMEM();
    }
    not->kind = EX_NOT;
    not->args = args;
    not->args[0] = e;
    not->n_args = 1;
  }
  if (rc) delta_error_prefix("%s", name);
  *out = not;
  return rc;
}

int constraints_new(write_constraints **out, const delta_type *schema, const delta_kv *config, int n_config,
                    const struct ArrowSchema *input) {
  *out = NULL;
  write_constraints *c = delta_calloc(1, sizeof *c);
  if (!c) return DELTA_NOMEM();
  c->input = input;
  int path[64];
  delta_buf name = DELTA_BUF_INIT;
  int rc = collect_not_null(c, schema, input, path, 0, &name);
  delta_buf_dispose(&name);
  size_t pl = strlen(CONSTRAINT_PREFIX);
  for (int i = 0; i < n_config && !rc; i++) {
    if (strncmp(config[i].key, CONSTRAINT_PREFIX, pl) != 0) continue;
    delta_buf what = DELTA_BUF_INIT;
    rc = delta_buf_printf(&what, "CHECK constraint %s", config[i].key + pl);
    if (!rc) rc = delta_buf_putc(&what, 0);
    if (!rc) rc = add_check(c, (char *)delta_buf_detach(&what), delta_strdup(config[i].value));
    delta_buf_dispose(&what);
  }
  if (!rc && (c->n_nn || c->n_checks)) rc = arrow_type_parse(input, &c->row_type);
  if (rc || (!c->n_nn && !c->n_checks)) {
    constraints_free(c);
    return rc;
  }
  *out = c;
  return 0;
}

/* Add a rule (taking `name` and `text`), bound to c->input. */
static int add_check(write_constraints *c, char *name, char *text) {
  check_rule *r = name && text ? delta_realloc(c->checks, (size_t)(c->n_checks + 1) * sizeof *r) : NULL;
  if (!r) {
    delta_free(name);
    delta_free(text);
    return DELTA_NOMEM();
  }
  c->checks = r;
  r = &c->checks[c->n_checks++];
  r->name = name;
  r->text = text;
  r->violated = NULL;
  int rc = parse_violation(r->name, r->text, &r->violated);
  if (rc) return rc;
  null_missing(r->violated, c->input);
  if ((rc = expr_bind(r->violated, c->input))) delta_error_prefix("%s (%s)", r->name, r->text);
  return rc;
}

/* Whether value i of the rule's field is null while every struct above it
 * is not (a null struct holds no fields to violate). */
static bool nn_violated(const not_null_rule *r, const struct ArrowArray *batch, int64_t i) {
  const struct ArrowArray *a = batch;
  int64_t idx = i;
  for (int d = 0; d < r->depth; d++) {
    idx += a->offset;
    a = a->children[r->path[d]];
    if (!arrow_is_valid(a, idx)) return d == r->depth - 1;
  }
  return false;
}

static int row_error(write_constraints *c, const struct ArrowArray *batch, int64_t i, const char *what) {
  delta_buf row = DELTA_BUF_INIT;
  int rc = arrow_value_json(&row, c->row_type, batch, i);
  if (!rc) rc = delta_buf_putc(&row, 0);
  if (!rc) rc = delta_error_set(DELTA_EINVAL, "%s violated by row %s", what, (const char *)row.data);
  delta_buf_dispose(&row);
  return rc;
}

int constraints_check(write_constraints *c, const struct ArrowArray *batch) {
  if (!c || batch->length == 0) return 0;
  int64_t n = batch->length;
  for (int k = 0; k < c->n_nn; k++) {
    const not_null_rule *r = &c->nn[k];
    const struct ArrowArray *leaf = batch;
    for (int d = 0; d < r->depth; d++) leaf = leaf->children[r->path[d]];
    if (leaf->null_count == 0) continue;
    for (int64_t i = 0; i < n; i++)
      if (nn_violated(r, batch, i)) {
        delta_buf what = DELTA_BUF_INIT;
        int rc = delta_buf_printf(&what, "NOT NULL constraint on %s", r->name);
        if (!rc) rc = delta_buf_putc(&what, 0);
        if (!rc) rc = row_error(c, batch, i, (const char *)what.data);
        delta_buf_dispose(&what);
        return rc;
      }
  }
  if (!c->n_checks) return 0;
  if (n > c->cap_keep) {
    uint8_t *k = delta_realloc(c->keep, (size_t)n);
    if (!k) return DELTA_NOMEM();
    c->keep = k;
    c->cap_keep = n;
  }
  for (int k = 0; k < c->n_checks; k++) {
    const check_rule *r = &c->checks[k];
    int rc = expr_eval_batch(r->violated, batch, c->keep);
    if (rc) return rc;
    const uint8_t *hit = memchr(c->keep, 1, (size_t)n);
    if (!hit) continue;
    delta_buf what = DELTA_BUF_INIT;
    rc = delta_buf_printf(&what, "%s (%s)", r->name, r->text);
    if (!rc) rc = delta_buf_putc(&what, 0);
    if (!rc) rc = row_error(c, batch, hit - c->keep, (const char *)what.data);
    delta_buf_dispose(&what);
    return rc;
  }
  return 0;
}

void constraints_free(write_constraints *c) {
  if (!c) return;
  for (int i = 0; i < c->n_nn; i++) {
    delta_free(c->nn[i].name);
    delta_free(c->nn[i].path);
  }
  delta_free(c->nn);
  for (int i = 0; i < c->n_checks; i++) {
    expr_free(c->checks[i].violated);
    delta_free(c->checks[i].name);
    delta_free(c->checks[i].text);
  }
  delta_free(c->checks);
  arrow_type_free(c->row_type);
  delta_free(c->keep);
  delta_free(c);
}

int constraint_validate(const char *name, const char *text, const delta_type *schema) {
  if (!*name) return delta_error_set(DELTA_EINVAL, "a CHECK constraint needs a name");
  struct ArrowSchema s = {0};
  expr_node *e = NULL;
  delta_buf what = DELTA_BUF_INIT;
  int rc = delta_buf_printf(&what, "CHECK constraint %s", name);
  if (!rc) rc = delta_buf_putc(&what, 0);
  if (!rc) rc = delta_schema_to_arrow(schema, &s);
  if (!rc) rc = parse_violation((const char *)what.data, text, &e);
  if (!rc && (rc = expr_bind(e, &s))) delta_error_prefix("%s (%s)", (const char *)what.data, text);
  delta_buf_dispose(&what);
  expr_free(e);
  if (s.release) s.release(&s);
  return rc;
}
