/* UPDATE's assignments (the rest of UPDATE is delete.c's dml_run). */
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "dml/dml_internal.h"
#include "expr/value_eval.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

struct dml_set {
  int n;
  char **names;
  vexpr **exprs;
  int *target;          /* column index in the logical schema */
  int n_columns;
  const struct ArrowSchema *logical;
};

void dml_set_free(dml_set *s) {
  if (!s) return;
  vexpr_set_free(s->names, s->exprs, s->n);
  delta_free(s->target);
  delta_free(s);
}

int dml_set_new(dml_set **out, const char *text, const struct ArrowSchema *logical) {
  *out = NULL;
  dml_set *s = delta_calloc(1, sizeof *s);
  if (!s) return DELTA_NOMEM();
  int rc = vexpr_parse_set(text, &s->names, &s->exprs, &s->n);
  if (!rc && !(s->target = delta_calloc((size_t)s->n + 1, sizeof *s->target))) rc = DELTA_NOMEM();
  s->n_columns = (int)logical->n_children;
  s->logical = logical;
  for (int i = 0; i < s->n && !rc; i++) {
    int t = -1;
    for (int64_t c = 0; c < logical->n_children && t < 0; c++)
      if (strcmp(logical->children[c]->name, s->names[i]) == 0) t = (int)c;
    for (int64_t c = 0; c < logical->n_children && t < 0; c++)
      if (strcasecmp(logical->children[c]->name, s->names[i]) == 0) t = (int)c;
    if (t < 0) {
      rc = delta_error_set(DELTA_EINVAL, "--set: no column named %s", s->names[i]);
      break;
    }
    for (int j = 0; j < i; j++)
      if (s->target[j] == t) rc = delta_error_set(DELTA_EINVAL, "--set: column %s is assigned twice", s->names[i]);
    s->target[i] = t;
    if (!rc && (rc = vexpr_bind(s->exprs[i], logical, logical->children[t]->format, logical->children[t]->name)))
      delta_error_prefix("--set %s", s->names[i]);
  }
  if (rc) {
    dml_set_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

int dml_set_apply(dml_set *s, const struct ArrowArray *rows, struct ArrowArray *out) {
  /* a copy of the rows, with the assigned columns replaced */
  memset(out, 0, sizeof *out);
  uint8_t *all = delta_malloc((size_t)rows->length + 1);
  if (!all) return DELTA_NOMEM();
  memset(all, 1, (size_t)rows->length + 1);
  int rc = arrow_filter(s->logical, rows, all, out);
  delta_free(all);
  for (int i = 0; i < s->n && !rc; i++) {
    struct ArrowArray v;
    if ((rc = vexpr_eval(s->exprs[i], rows, &v))) break;
    struct ArrowArray *slot = out->children[s->target[i]];
    arrow_array_release(slot);
    *slot = v;
  }
  if (rc) arrow_array_release(out);
  return rc;
}

int delta_update(const char *location, const delta_update_options *opts, delta_dml_result *result) {
  if (!opts || opts->version != DELTA_UPDATE_OPTIONS_VERSION)
    return delta_error_set(DELTA_EINVAL, "update options: unknown version");
  if (!opts->set || !*opts->set) return delta_error_set(DELTA_EINVAL, "update: --set is required");
  return dml_run(location, opts->where, opts->set, opts->no_deletion_vectors, opts->max_attempts, opts->read_version,
                 result);
}
