/* Assignments of UPDATE and MERGE (the rest of UPDATE is delete.c's dml_run). */
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "arrow/nulls.h"
#include "dml/dml_internal.h"
#include "expr/value_eval.h"
#include "scan/conform.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "rewrite/gen_columns.h"

struct dml_set {
  int n;
  int n_user;           /* the first n_user assignments are the user's (the rest: fill_nulls) */
  char **names;
  vexpr **exprs;
  int *target;          /* column index in the logical schema */
  int n_columns;
  const struct ArrowSchema *logical;
  bool fill;
  const delta_type *table;     /* set: nested values are conformed to it */
};

void dml_set_conform(dml_set *s, const delta_type *table) { s->table = table; }

void dml_set_free(dml_set *s) {
  if (!s) return;
  vexpr_set_free(s->names, s->exprs, s->n);
  mem_free(s->target);
  mem_free(s);
}

int dml_set_new(dml_set **out, const char *text, const char *what, const struct ArrowSchema *logical,
                const struct ArrowSchema *bind, const char *prefix, bool fill_nulls, expr_qualify_fn qualify,
                void *qctx) {
  *out = NULL;
  dml_set *s = mem_calloc(1, sizeof *s);
  if (!s) return DELTA_NOMEM();
  int rc;
  if (text && (rc = vexpr_parse_set(text, &s->names, &s->exprs, &s->n)) != 0) {
    err_prefix("%s", what);
    goto fail;
  }
  int room = s->n + (int)logical->n_children + 1;
  if (!(s->target = mem_calloc((size_t)room, sizeof *s->target))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  s->n_columns = (int)logical->n_children;
  s->logical = logical;
  s->fill = fill_nulls;
  size_t pl = prefix ? strlen(prefix) : 0;
  for (int i = 0; i < s->n; i++) {
    const char *name = s->names[i];
    if (pl && strncasecmp(name, prefix, pl) == 0 && name[pl] == '.') name += pl + 1;
    int t = -1;
    for (int64_t c = 0; c < logical->n_children && t < 0; c++)
      if (strcmp(logical->children[c]->name, name) == 0) t = (int)c;
    for (int64_t c = 0; c < logical->n_children && t < 0; c++)
      if (strcasecmp(logical->children[c]->name, name) == 0) t = (int)c;
    if (t < 0) {
      rc = err_set(DELTA_EINVAL, "%s: no column named %s", what, s->names[i]);
      goto fail;
    }
    for (int j = 0; j < i; j++)
      if (s->target[j] == t) {
        rc = err_set(DELTA_EINVAL, "%s: column %s is assigned twice", what, name);
        goto fail;
      }
    s->target[i] = t;
  }
  s->n_user = s->n;
  /* INSERT: every column not assigned is NULL */
  for (int c = 0; fill_nulls && c < s->n_columns; c++) {
    bool set = false;
    for (int i = 0; i < s->n; i++) set = set || s->target[i] == c;
    if (set) continue;
    char **nn = mem_realloc(s->names, (size_t)(s->n + 1) * sizeof *nn);
    vexpr **ne = nn ? mem_realloc(s->exprs, (size_t)(s->n + 1) * sizeof *ne) : NULL;
    if (nn) s->names = nn;
    if (ne) s->exprs = ne;
    if (!nn || !ne) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    s->names[s->n] = mem_strdup(logical->children[c]->name);
    s->exprs[s->n] = NULL;
    s->target[s->n] = c;
    s->n++;
    if (!s->names[s->n - 1]) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    if ((rc = vexpr_parse("NULL", &s->exprs[s->n - 1])) != 0)
      goto fail;
  }
  for (int i = 0; i < s->n; i++) {
    const struct ArrowSchema *col = logical->children[s->target[i]];
    if (qualify && (rc = vexpr_qualify(s->exprs[i], qualify, qctx)) != 0)
      goto fail;
    if ((rc = vexpr_bind(s->exprs[i], bind, col->format, col->name)) != 0) {
      err_prefix("%s %s", what, s->names[i]);
      goto fail;
    }
  }
  *out = s;
  return 0;
fail:
  dml_set_free(s);
  return rc;
}

int dml_set_apply(dml_set *s, const struct ArrowArray *copy, const struct ArrowArray *eval, struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  int rc;
  if (copy) {
    /* a copy of the rows, with the assigned columns replaced */
    uint8_t *all = mem_malloc((size_t)copy->length + 1);
    if (!all) return DELTA_NOMEM();
    memset(all, 1, (size_t)copy->length + 1);
    rc = arrow_filter(s->logical, copy, all, out);
    mem_free(all);
    if (rc) goto done;
  } else {
    /* every column is assigned (fill_nulls) */
    if ((rc = arrow_array_new(out, 1, s->n_columns)) != 0)
      goto done;
    out->length = eval->length;
  }
  for (int i = 0; i < s->n; i++) {
    struct ArrowArray v;
    const struct ArrowSchema *tcol = s->logical->children[s->target[i]];
    if (tcol->format[0] == '+' && vexpr_is_null(s->exprs[i])) rc = arrow_array_nulls(tcol, eval->length, &v);
    else rc = vexpr_eval(s->exprs[i], eval, &v);
    if (rc) goto done;
    const struct ArrowSchema *have = vexpr_column_schema(s->exprs[i]);
    int t = s->target[i];
    if (s->table && have && s->logical->children[t]->format[0] == '+' && t < s->table->n_fields) {
      /* a struct (list, map) copied from another column: its fields by
       * name, the ones it lacks null (the columns may differ in shape) */
      struct ArrowArray conformed;
      if ((rc = conform_array(s->table->fields[t].type, s->logical->children[t], have, &v, MAP_NONE,
                              s->logical->children[t]->name, &conformed)) != 0)
        goto done;
      v = conformed;
    }
    struct ArrowArray *slot = out->children[t];
    arrow_array_release(slot);
    *slot = v;
  }
done:
  if (rc && out->release) arrow_array_release(out);
  return rc;
}

int dml_fill_generated(rewrite_writers *w, const dml_set *s, struct ArrowArray *rows, bool update) {
  if (!w->gen) return 0;
  bool assigned[s->n_columns + 1];
  memset(assigned, 0, sizeof assigned);
  for (int i = 0; i < s->n_user; i++) assigned[s->target[i]] = true;
  return gen_columns_fill_in_place(w->gen, rows, assigned, update);
}

int delta_update(delta_table *table, const delta_update_options *opts, delta_dml_result *result) {
  if (!opts || opts->version != DELTA_UPDATE_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "update options: unknown version");
  if (!opts->set || !*opts->set) return err_set(DELTA_EINVAL, "update: --set is required");
  return dml_run(table, opts->where, opts->set, opts->no_deletion_vectors, opts->max_attempts, opts->read_version,
                 result);
}
