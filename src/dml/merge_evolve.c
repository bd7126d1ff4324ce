/* MERGE WITH SCHEMA EVOLUTION (Spark's autoMerge): the columns the clauses
 * bring into the target, merged into its schema the way write's
 * --schema-mode merge does (schema_add_fields). See merge_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "dml/merge_internal.h"
#include "expr/value_eval.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/schema_build.h"

static bool has_name(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (strcasecmp(s->children[i]->name, name) == 0) return true;
  return false;
}

/* Add column `name` of Arrow type `col` (or flat `format`) to `want`
 * unless it has one by that name (the first mention decides). */
static int want_column(delta_type *want, const struct ArrowSchema *col, const char *format, const char *name) {
  for (int i = 0; i < want->n_fields; i++)
    if (strcasecmp(want->fields[i].name, name) == 0) return 0;
  struct ArrowSchema one = col ? *col : (struct ArrowSchema){.format = format};
  one.name = name;
  one.flags |= ARROW_FLAG_NULLABLE;
  one.release = NULL;
  struct ArrowSchema *ptr = &one;
  struct ArrowSchema wrap = {.format = "+s", .name = "", .n_children = 1, .children = &ptr};
  delta_type *t = NULL;
  int added = 0, rc;
  if ((rc = schema_from_arrow(&wrap, &t)) != 0)
    goto done;
  rc = schema_add_fields(want, t, &added);
done:
  log_type_free(t);
  return rc;
}

/* New columns an explicit SET assigns: typed by their values. */
static int explicit_columns(const merge_evolve_input *in, const delta_merge_clause *sp, delta_type *want) {
  char **names = NULL;
  vexpr **exprs = NULL;
  int n = 0, rc;
  size_t pl = strlen(in->talias);
  const struct ArrowSchema *bind = sp->when == DELTA_MERGE_MATCHED ? in->j_both
                                   : sp->when == DELTA_MERGE_NOT_MATCHED ? in->j_s : in->j_t;
  if ((rc = vexpr_parse_set(sp->set, &names, &exprs, &n)) != 0)
    goto done;
  for (int i = 0; i < n; i++) {
    const char *name = names[i];
    if (sp->action == DELTA_MERGE_UPDATE && strncasecmp(name, in->talias, pl) == 0 && name[pl] == '.')
      name += pl + 1;
    if (has_name(in->tlogical, name)) continue;
    if (strchr(name, '.')) {
      rc = err_set(DELTA_EINVAL, "schema evolution: %s: new nested fields come only from the source's "
                                         "structs (UPDATE SET * / INSERT *)", names[i]);
      goto done;
    }
    const struct ArrowSchema *col;
    const char *format;
    if ((rc = vexpr_qualify(exprs[i], in->qualify, in->qctx[sp->when])) != 0 ||
        (rc = vexpr_natural_type(exprs[i], bind, &col, &format)) != 0) {
      err_prefix("schema evolution: new column %s", name);
      goto done;
    }
    if (!col && !format) {
      rc = err_set(DELTA_EINVAL, "schema evolution: new column %s: a NULL has no type (CAST it)", name);
      goto done;
    }
    if ((rc = want_column(want, col, format, name)) != 0)
      goto done;
  }
done:
  vexpr_set_free(names, exprs, n);
  return rc;
}

/* Types both have: the same, or the source narrower (converted as it is
 * written). A wider source type would need type widening: refused. */
static int check_types(const delta_type *t, const delta_type *s, delta_buf *path) {
  if (t->kind == DT_STRUCT && s->kind == DT_STRUCT) {
    size_t at = path->len;
    for (int i = 0; i < s->n_fields; i++) {
      const delta_field *sf = &s->fields[i];
      for (int k = 0; k < t->n_fields; k++) {
        if (strcasecmp(t->fields[k].name, sf->name) != 0) continue;
        path->len = at;
        int rc;
        if ((rc = buf_printf(path, "%s%s", at ? "." : "", sf->name)) != 0) return rc;
        if ((rc = check_types(t->fields[k].type, sf->type, path)) != 0) return rc;
      }
    }
    path->len = at;
    return 0;
  }
  if (t->kind == DT_ARRAY && s->kind == DT_ARRAY) return check_types(t->element, s->element, path);
  if (t->kind == DT_MAP && s->kind == DT_MAP) return check_types(t->value, s->value, path);
  if (schema_type_equal(t, s) || !schema_safe_widening(s, t)) return 0;
  delta_buf tn = DELTA_BUF_INIT, sn = DELTA_BUF_INIT;
  int rc;
  if ((rc = log_type_name(t, &tn)) != 0)
    goto done;
  if ((rc = log_type_name(s, &sn)) != 0)
    goto done;
  if ((rc = buf_putc(&tn, 0)) != 0)
    goto done;
  if ((rc = buf_putc(&sn, 0)) != 0)
    goto done;
  if ((rc = buf_putc(path, 0)) != 0)
    goto done;
  rc = err_set(DELTA_EUNSUPPORTED,
                         "schema evolution: column %s is %s in the table and %s in the source: widening a "
                         "column's type is not supported (CAST the source column to %s)",
                         (const char *)path->data, (const char *)tn.data, (const char *)sn.data,
                         (const char *)tn.data);
done:
  buf_dispose(&tn);
  buf_dispose(&sn);
  return rc;
}

int merge_evolve_schema(const merge_evolve_input *in, const delta_merge_clause *cl, int n, delta_type **merged) {
  *merged = NULL;
  delta_type *want = mem_calloc(1, sizeof *want), *src = NULL;
  if (!want) return DELTA_NOMEM();
  want->kind = DT_STRUCT;
  delta_type *m = NULL;
  int rc;
  bool star = false;
  for (int i = 0; i < n; i++) {
    if (cl[i].action == DELTA_MERGE_DELETE) continue;
    if (!cl[i].set) star = true;
    else if ((rc = explicit_columns(in, &cl[i], want)) != 0) goto done;
  }
  /* UPDATE SET * / INSERT *: every source column, nested fields too */
  if (star) {
    if ((rc = schema_from_arrow(in->source, &src)) != 0)
      goto done;
    delta_buf path = DELTA_BUF_INIT;
    rc = check_types(in->target, src, &path);
    buf_dispose(&path);
    if (rc) goto done;
    int added = 0;
    if ((rc = schema_add_fields(want, src, &added)) != 0)
      goto done;
  }
  int added = 0;
  if (!(m = schema_copy(in->target))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = schema_add_fields(m, want, &added)) != 0)
    goto done;
  if (added) {
    *merged = m;
    m = NULL;
  }
done:
  log_type_free(m);
  log_type_free(src);
  log_type_free(want);
  return rc;
}
