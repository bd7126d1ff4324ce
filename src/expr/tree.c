/* The expression tree: making, copying and freeing nodes, and qualifying
 * column references before binding. */
#include <string.h>

#include "expr/expr_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

expr_node *expr_node_new(expr_kind k) {
  expr_node *n = mem_calloc(1, sizeof *n);
  if (n) {
    n->kind = k;
    n->fn = -1;
    n->xfn = -1;
  }
  return n;
}

void expr_free(expr_node *e) {
  if (!e) return;
  for (int i = 0; i < e->n_args; i++) expr_free(e->args[i]);
  mem_free(e->args);
  mem_free(e->text);
  for (int i = 0; i < e->depth; i++) mem_free(e->path[i]);
  mem_free(e->path);
  mem_free(e->child_index);
  mem_free(e->target_name);
  mem_free(e);
}

int expr_node_add(expr_node *n, expr_node *a) {
  if (!a) return DELTA_NOMEM();
  expr_node **args = mem_realloc(n->args, (size_t)(n->n_args + 1) * sizeof *args);
  if (!args) {
    expr_free(a);
    return DELTA_NOMEM();
  }
  n->args = args;
  n->args[n->n_args++] = a;
  return 0;
}

static char *dup_bytes(const char *s, size_t n) {
  char *d = mem_malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

int expr_copy(const expr_node *e, expr_node **out) {
  expr_node *n = expr_node_new(e->kind);
  if (!n) return DELTA_NOMEM();
  int rc = 0;
  /* what the parser sets; binding is redone on the copy */
  n->op = e->op;
  n->arith = e->arith;
  n->negated = e->negated;
  n->lit = e->lit;
  n->text_len = e->text_len;
  n->iv_months = e->iv_months;
  n->iv_days = e->iv_days;
  n->iv_us = e->iv_us;
  n->cast_to = e->cast_to;
  n->cast_prec = e->cast_prec;
  n->cast_scale = e->cast_scale;
  n->fn = e->fn;
  n->xfn = e->xfn;
  n->trunc_unit = e->trunc_unit;
  if (e->text && !(n->text = dup_bytes(e->text, e->text_len))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if (e->depth) {
    if (!(n->path = mem_calloc((size_t)e->depth, sizeof *n->path))) {
      rc = DELTA_NOMEM();
      goto done;
    }
    for (int i = 0; i < e->depth; i++, n->depth++)
      if (!(n->path[i] = dup_bytes(e->path[i], strlen(e->path[i])))) {
        rc = DELTA_NOMEM();
        goto done;
      }
  }
  for (int i = 0; i < e->n_args; i++) {
    expr_node *a;
    if ((rc = expr_copy(e->args[i], &a)) != 0) goto done;
    if ((rc = expr_node_add(n, a)) != 0) goto done;
  }
done:
  if (rc) {
    expr_free(n);
    return rc;
  }
  *out = n;
  return 0;
}

int expr_path_prepend(char ***path, int *depth, const char *prefix) {
  char *first = mem_strdup(prefix);
  char **np = first ? mem_realloc(*path, (size_t)(*depth + 1) * sizeof *np) : NULL;
  if (!np) {
    mem_free(first);
    return DELTA_NOMEM();
  }
  memmove(np + 1, np, (size_t)*depth * sizeof *np);
  np[0] = first;
  *path = np;
  (*depth)++;
  return 0;
}

int expr_qualify(expr_node *e, expr_qualify_fn fn, void *ctx) {
  int rc;
  for (int i = 0; i < e->n_args; i++)
    if ((rc = expr_qualify(e->args[i], fn, ctx)) != 0) return rc;
  if (e->kind != EX_COLUMN || e->depth == 0) return 0;
  const char *prefix = NULL;
  if ((rc = fn(ctx, e->path[0], &prefix)) != 0 || !prefix) return rc;
  return expr_path_prepend(&e->path, &e->depth, prefix);
}

int expr_column_name(const expr_node *c, delta_buf *b) {
  for (int i = 0; i < c->depth; i++)
    if ((i && buf_putc(b, '.')) || buf_puts(b, c->path[i])) return DELTA_NOMEM();
  return buf_putc(b, '\0') ? DELTA_NOMEM() : 0;
}
