/* NOT NULL and CHECK constraints of writes; see constraints.h. */
#include "rewrite/constraints.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/format.h"
#include "expr/expr.h"
#include "json/json.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* One step down from a value to the ones it holds. */
typedef enum {
  STEP_FIELD,   /* struct child `child` */
  STEP_LIST,    /* list ("+l", int32 offsets): the elements */
  STEP_LARGE,   /* large list ("+L", int64 offsets) */
  STEP_FIXED,   /* fixed-size list ("+w:N"): `child` elements each */
  STEP_MAP      /* map ("+m"): the entries' key (child 0) or value (child 1) */
} step_kind;

typedef struct {
  step_kind kind;
  int child;
} step;

#define MAX_STEPS 64

typedef struct {
  char *name;        /* "a.b.c", "tags.element", "attrs.value" */
  step *path;        /* from the batch down to the values that must not be null */
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

static int find_input(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (strcasecmp(s->children[i]->name, name) == 0) return (int)i;
  return -1;
}

static int add_check(write_constraints *c, char *name, char *text);

/* A column invariant (legacy writer 2: field metadata "delta.invariants" =
 * "{\"expression\":{\"expression\":\"x > 3\"}}"): a CHECK on that column. */
/* The expression text of fd's invariant into `expr`; *d and `inv` are the
 * caller's to release. */
static int read_invariant(const delta_field *fd, delta_json_doc **d, delta_buf *inv, delta_buf *expr) {
  int rc;
  if ((rc = json_doc_new(d)) != 0)
    return rc;
  if ((rc = json_parse(*d, fd->metadata, strlen(fd->metadata))) != 0)
    return rc;
  if ((rc = json_string(json_get(json_root(*d), "delta.invariants"), inv)) != 0)
    return rc;
  if ((rc = json_parse(*d, (const char *)inv->data, inv->len)) != 0)
    return rc;
  return json_string(json_get(json_get(json_root(*d), "expression"), "expression"), expr);
}

static int add_invariant(write_constraints *c, const delta_field *fd, const char *path) {
  delta_json_doc *d = NULL;
  delta_buf inv = DELTA_BUF_INIT, expr = DELTA_BUF_INIT, name = DELTA_BUF_INIT;
  int rc;
  if (read_invariant(fd, &d, &inv, &expr) != 0) {
    rc = err_set(DELTA_EUNSUPPORTED, "column %s: cannot read its invariant", path);
    goto done;
  }
  if ((rc = buf_printf(&name, "invariant of column %s", path)) != 0)
    goto done;
  if ((rc = buf_putc(&name, 0)) != 0)
    goto done;
  if ((rc = buf_putc(&expr, 0)) != 0)
    goto done;
  if ((rc = add_check(c, (char *)buf_detach(&name), (char *)buf_detach(&expr))) != 0)
    goto done;
done:
  buf_dispose(&inv);
  buf_dispose(&expr);
  buf_dispose(&name);
  json_doc_free(d);
  return rc;
}

/* The path being walked while collecting rules. */
typedef struct {
  step steps[MAX_STEPS];
  int depth;
  bool through_fields; /* only struct fields so far: invariants can name the column */
  delta_buf name;
} walk;

static int add_rule(write_constraints *c, const walk *w) {
  not_null_rule *r = mem_realloc(c->nn, (size_t)(c->n_nn + 1) * sizeof *r);
  if (!r) return DELTA_NOMEM();
  c->nn = r;
  r = &c->nn[c->n_nn];
  r->name = mem_strdup((const char *)w->name.data);
  r->path = mem_malloc((size_t)w->depth * sizeof *r->path);
  r->depth = w->depth;
  if (r->path) memcpy(r->path, w->steps, (size_t)w->depth * sizeof *r->path);
  c->n_nn++;
  return r->name && r->path ? 0 : DELTA_NOMEM();
}

/* Append ".part" (or "part" at the top) to the walk's name, NUL-terminated;
 * returns the length to restore. */
static int push_name(walk *w, const char *part, size_t *at) {
  *at = w->name.len;
  if ((*at && buf_putc(&w->name, '.')) || buf_puts(&w->name, part) || buf_putc(&w->name, 0))
    return DELTA_NOMEM();
  w->name.len--;
  return 0;
}

static int visit(write_constraints *c, walk *w, const delta_type *t, const struct ArrowSchema *in, bool nullable);

/* Go one step down into a value of `t` (at in) and visit what it holds. */
static int descend(write_constraints *c, walk *w, step st, const char *part, const delta_type *t,
                   const struct ArrowSchema *in, bool nullable) {
  if (w->depth == MAX_STEPS) return 0; /* deeper than any real schema: not checked */
  size_t at;
  int rc = push_name(w, part, &at);
  if (rc) return rc;
  bool save = w->through_fields;
  w->steps[w->depth++] = st;
  if (st.kind != STEP_FIELD) w->through_fields = false;
  rc = visit(c, w, t, in, nullable);
  w->through_fields = save;
  w->depth--;
  w->name.len = at;
  return rc;
}

/* The struct fields of `t` under the input struct `in`. */
static int visit_fields(write_constraints *c, walk *w, const delta_type *t, const struct ArrowSchema *in) {
  for (int f = 0; f < t->n_fields; f++) {
    const delta_field *fd = &t->fields[f];
    int k = find_input(in, fd->name);
    if (k < 0) {
      /* a missing top-level column is the data writer's to report; a field
       * missing inside a struct given is null in every value of it */
      if (!fd->nullable && w->depth > 0) {
        size_t at;
        int rc;
        if ((rc = push_name(w, fd->name, &at)) != 0)
          return rc;
        return err_set(DELTA_EINVAL, "NOT NULL field %s is missing from the input", (const char *)w->name.data);
      }
      continue;
    }
    if (fd->metadata && strstr(fd->metadata, "\"delta.invariants\"") && w->through_fields) {
      size_t at;
      int rc;
      if ((rc = push_name(w, fd->name, &at)) != 0) {
        w->name.len = at;
        return rc;
      }
      rc = add_invariant(c, fd, (const char *)w->name.data);
      w->name.len = at; /* the name is popped on both paths */
      if (rc != 0)
        return rc;
    }
    int rc = descend(c, w, (step){STEP_FIELD, k}, fd->name, fd->type, in->children[k], fd->nullable);
    if (rc) return rc;
  }
  return 0;
}

/* A value of type `t` (input type `in`) the walk has reached: a rule when it
 * must not be null, then the values it holds. Input types that do not match
 * the table's are the data writer's to report: nothing below them is checked. */
static int visit(write_constraints *c, walk *w, const delta_type *t, const struct ArrowSchema *in, bool nullable) {
  int rc = nullable ? 0 : add_rule(c, w);
  if (rc) return rc;
  const char *f = in->format;
  switch (t->kind) {
  case DT_STRUCT:
    return strcmp(f, "+s") == 0 ? visit_fields(c, w, t, in) : 0;
  case DT_ARRAY: {
    step st = {STEP_LIST, 0};
    if (in->n_children != 1) return 0;
    if (strcmp(f, "+L") == 0) st.kind = STEP_LARGE;
    else if (strncmp(f, "+w:", 3) == 0) {
      st.kind = STEP_FIXED;
      st.child = atoi(f + 3);
    } else if (strcmp(f, "+l") != 0)
      return 0;
    return descend(c, w, st, "element", t->element, in->children[0], t->contains_null);
  }
  case DT_MAP: {
    if (strcmp(f, "+m") != 0 || in->n_children != 1 || in->children[0]->n_children != 2) return 0;
    const struct ArrowSchema *e = in->children[0];
    /* keys are never null, whatever the schema says */
    if ((rc = descend(c, w, (step){STEP_MAP, 0}, "key", t->key, e->children[0], false)) != 0)
      return rc;
    return descend(c, w, (step){STEP_MAP, 1}, "value", t->value, e->children[1], t->value_contains_null);
  }
  default:
    return 0;
  }
}

/* Columns the input lacks become NULL literals: what the row will hold. */
static void null_missing(expr_node *e, const struct ArrowSchema *input) {
  if (e->kind == EX_COLUMN && find_input(input, e->path[0]) < 0) {
    for (int i = 0; i < e->depth; i++) mem_free(e->path[i]);
    mem_free(e->path);
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
  int rc;
  if ((rc = expr_parse(text, &e)) != 0) {
    err_prefix("%s", name);
    *out = NULL;
    return rc;
  }
  not = mem_calloc(1, sizeof *not);
  expr_node **args = mem_malloc(sizeof *args);
  if (!not || !args) {
    mem_free(not);
    mem_free(args);
    expr_free(e);
    return DELTA_NOMEM();
  }
  not->kind = EX_NOT;
  not->args = args;
  not->args[0] = e;
  not->n_args = 1;
  *out = not;
  return 0;
}

/* The CHECK constraint a table property `kv` (pl: the prefix's length) declares. */
static int add_config_check(write_constraints *c, const delta_kv *kv, size_t pl) {
  delta_buf what = DELTA_BUF_INIT;
  int rc;
  if ((rc = buf_printf(&what, "CHECK constraint %s", kv->key + pl)) != 0)
    goto done;
  if ((rc = buf_putc(&what, 0)) != 0)
    goto done;
  if ((rc = add_check(c, (char *)buf_detach(&what), mem_strdup(kv->value))) != 0)
    goto done;
done:
  buf_dispose(&what);
  return rc;
}

int constraints_new(write_constraints **out, const delta_type *schema, const delta_kv *config, int n_config,
                    const struct ArrowSchema *input) {
  *out = NULL;
  write_constraints *c = mem_calloc(1, sizeof *c);
  if (!c) return DELTA_NOMEM();
  c->input = input;
  walk *w = mem_calloc(1, sizeof *w);
  if (!w) {
    constraints_free(c);
    return DELTA_NOMEM();
  }
  w->through_fields = true;
  int rc = visit_fields(c, w, schema, input);
  buf_dispose(&w->name);
  mem_free(w);
  if (rc != 0)
    goto fail;
  size_t pl = strlen(CONSTRAINT_PREFIX);
  for (int i = 0; i < n_config; i++) {
    if (strncmp(config[i].key, CONSTRAINT_PREFIX, pl) != 0) continue;
    if ((rc = add_config_check(c, &config[i], pl)) != 0)
      goto fail;
  }
  if (!c->n_nn && !c->n_checks) { /* nothing to check: no object */
    constraints_free(c);
    return 0;
  }
  if ((rc = arrow_type_parse(input, &c->row_type)) != 0)
    goto fail;
  *out = c;
  return 0;
fail:
  constraints_free(c);
  return rc;
}

/* Add a rule (taking `name` and `text`), bound to c->input. */
static int add_check(write_constraints *c, char *name, char *text) {
  check_rule *r = name && text ? mem_realloc(c->checks, (size_t)(c->n_checks + 1) * sizeof *r) : NULL;
  if (!r) {
    mem_free(name);
    mem_free(text);
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
  if ((rc = expr_bind(r->violated, c->input))) err_prefix("%s (%s)", r->name, r->text);
  return rc;
}

/* The values one step below value i of `a` (offset not yet applied): the
 * array holding them and their range in it (its own offset not applied). */
static const struct ArrowArray *step_range(const step *st, const struct ArrowArray *a, int64_t i, int64_t *lo,
                                           int64_t *hi) {
  int64_t k = a->offset + i;
  switch (st->kind) {
  case STEP_FIELD:
    *lo = k;
    *hi = k + 1;
    return a->children[st->child];
  case STEP_LIST:
    *lo = ((const int32_t *)a->buffers[1])[k];
    *hi = ((const int32_t *)a->buffers[1])[k + 1];
    return a->children[0];
  case STEP_LARGE:
    *lo = ((const int64_t *)a->buffers[1])[k];
    *hi = ((const int64_t *)a->buffers[1])[k + 1];
    return a->children[0];
  case STEP_FIXED:
    *lo = k * st->child;
    *hi = *lo + st->child;
    return a->children[0];
  case STEP_MAP: {
    const struct ArrowArray *e = a->children[0];
    *lo = ((const int32_t *)a->buffers[1])[k] + e->offset;
    *hi = ((const int32_t *)a->buffers[1])[k + 1] + e->offset;
    return e->children[st->child];
  }
  }
  *lo = *hi = 0;
  return a;
}

/* Whether a value the rule covers is null below value i of `a` (reached by
 * the rule's first d steps, and not null), while every value above it is
 * not: a null struct, list or map holds nothing to violate. */
static bool nn_violated(const not_null_rule *r, int d, const struct ArrowArray *a, int64_t i) {
  int64_t lo, hi;
  const struct ArrowArray *child = step_range(&r->path[d], a, i, &lo, &hi);
  bool last = d == r->depth - 1;
  for (int64_t j = lo; j < hi; j++) {
    if (!arrow_is_valid(child, j)) {
      if (last) return true;
    } else if (!last && nn_violated(r, d + 1, child, j))
      return true;
  }
  return false;
}

/* The array of the values the rule covers, for its null count. */
static const struct ArrowArray *rule_leaf(const not_null_rule *r, const struct ArrowArray *batch) {
  const struct ArrowArray *a = batch;
  for (int d = 0; d < r->depth; d++) {
    const step *st = &r->path[d];
    if (st->kind == STEP_FIELD) a = a->children[st->child];
    else if (st->kind == STEP_MAP) a = a->children[0]->children[st->child];
    else a = a->children[0];
  }
  return a;
}

static int row_error(write_constraints *c, const struct ArrowArray *batch, int64_t i, const char *what) {
  delta_buf row = DELTA_BUF_INIT;
  int rc;
  if ((rc = arrow_value_json(&row, c->row_type, batch, i)) != 0)
    goto done;
  if ((rc = buf_putc(&row, 0)) != 0)
    goto done;
  rc = err_set(DELTA_EINVAL, "%s violated by row %s", what, (const char *)row.data);
done:
  buf_dispose(&row);
  return rc;
}

int constraints_check(write_constraints *c, const struct ArrowArray *batch) {
  if (!c || batch->length == 0) return 0;
  int64_t n = batch->length;
  delta_buf what = DELTA_BUF_INIT; /* the violated constraint, for the error */
  int rc = 0;
  for (int k = 0; k < c->n_nn; k++) {
    const not_null_rule *r = &c->nn[k];
    if (rule_leaf(r, batch)->null_count == 0) continue;
    for (int64_t i = 0; i < n; i++)
      if (nn_violated(r, 0, batch, i)) {
        if ((rc = buf_printf(&what, "NOT NULL constraint on %s", r->name)) != 0)
          goto done;
        if ((rc = buf_putc(&what, 0)) != 0)
          goto done;
        rc = row_error(c, batch, i, (const char *)what.data);
        goto done;
      }
  }
  if (!c->n_checks)
    goto done;
  if (n > c->cap_keep) {
    uint8_t *k = mem_realloc(c->keep, (size_t)n);
    if (!k) {
      rc = DELTA_NOMEM();
      goto done;
    }
    c->keep = k;
    c->cap_keep = n;
  }
  for (int k = 0; k < c->n_checks; k++) {
    const check_rule *r = &c->checks[k];
    if ((rc = expr_eval_batch(r->violated, batch, c->keep)) != 0)
      goto done;
    const uint8_t *hit = memchr(c->keep, 1, (size_t)n);
    if (!hit) continue;
    if ((rc = buf_printf(&what, "%s (%s)", r->name, r->text)) != 0)
      goto done;
    if ((rc = buf_putc(&what, 0)) != 0)
      goto done;
    rc = row_error(c, batch, hit - c->keep, (const char *)what.data);
    goto done;
  }
done:
  buf_dispose(&what);
  return rc;
}

void constraints_free(write_constraints *c) {
  if (!c) return;
  for (int i = 0; i < c->n_nn; i++) {
    mem_free(c->nn[i].name);
    mem_free(c->nn[i].path);
  }
  mem_free(c->nn);
  for (int i = 0; i < c->n_checks; i++) {
    expr_free(c->checks[i].violated);
    mem_free(c->checks[i].name);
    mem_free(c->checks[i].text);
  }
  mem_free(c->checks);
  arrow_type_free(c->row_type);
  mem_free(c->keep);
  mem_free(c);
}

int constraint_validate(const char *name, const char *text, const delta_type *schema) {
  if (!*name) return err_set(DELTA_EINVAL, "a CHECK constraint needs a name");
  struct ArrowSchema s = {0};
  expr_node *e = NULL;
  delta_buf what = DELTA_BUF_INIT;
  int rc;
  if ((rc = buf_printf(&what, "CHECK constraint %s", name)) != 0)
    goto done;
  if ((rc = buf_putc(&what, 0)) != 0)
    goto done;
  if ((rc = log_schema_to_arrow(schema, &s)) != 0)
    goto done;
  if ((rc = parse_violation((const char *)what.data, text, &e)) != 0)
    goto done;
  if ((rc = expr_bind(e, &s)) != 0) {
    err_prefix("%s (%s)", (const char *)what.data, text);
    goto done;
  }
done:
  buf_dispose(&what);
  expr_free(e);
  if (s.release) s.release(&s);
  return rc;
}
