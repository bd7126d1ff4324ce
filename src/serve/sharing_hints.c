/* Delta Sharing query hints; see sharing_hints.h. Both kinds of predicate
 * become filter-language text (docs/filters.md), parsed and bound to the
 * table's schema like `deltac scan --filter`, and files are left out with
 * the same pruning as scans: partition values and add statistics. */
#include "serve/sharing_hints.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "deltac/error.h"
#include "log/table_schema.h"
#include "scan/conform.h"
#include "util/error_internal.h"

enum { MAX_DEPTH = 64 };

static int put_quoted(delta_buf *out, const char *s, char q) {
  int rc;
  if ((rc = buf_putc(out, q)) != 0) return rc;
  for (; *s; s++) {
    if (*s == q && (rc = buf_putc(out, q)) != 0) return rc; /* '' and `` escape themselves */
    if ((rc = buf_putc(out, *s)) != 0) return rc;
  }
  return buf_putc(out, q);
}

/* Only plain decimal forms, so the text is a literal of the filter
 * language: -?D+ for integers, -?D+(.D+)?([eE][+-]?D+)? for numbers. */
static const char *digits(const char *s) {
  if (!isdigit((unsigned char)*s)) return NULL;
  while (isdigit((unsigned char)*s)) s++;
  return s;
}

static bool all_digits(const char *s) {
  if (*s == '-') s++;
  s = digits(s);
  return s && !*s;
}

static bool is_number(const char *s) {
  if (*s == '-') s++;
  if (!(s = digits(s))) return false;
  if (*s == '.' && !(s = digits(s + 1))) return false;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(s = digits(s))) return false;
  }
  return !*s;
}

/* A literal: "value" (a JSON string, or a number or boolean) read as "valueType". */
static int literal_text(delta_json_val n, delta_buf *out) {
  delta_buf v = DELTA_BUF_INIT, t = DELTA_BUF_INIT;
  delta_json_val vv = json_get(n, "value");
  int rc = 0;
  if (json_typeof(vv) == DELTA_JSON_STRING) {
    rc = json_string(vv, &v);
  } else if (json_typeof(vv) == DELTA_JSON_NUMBER || json_typeof(vv) == DELTA_JSON_BOOL) {
    const char *p;
    size_t len;
    json_raw(vv, &p, &len);
    if ((rc = buf_append(&v, p, len)) == 0) rc = buf_putc(&v, 0);
  } else {
    rc = err_set(DELTA_EINVAL, "a literal needs a value");
  }
  if (!rc && json_string(json_get(n, "valueType"), &t))
    rc = err_set(DELTA_EINVAL, "a literal needs a valueType");
  if (rc) goto done;
  const char *val = v.len ? (const char *)v.data : "", *type = (const char *)t.data;
  if (strlen(val) != v.len - (v.len && v.data[v.len - 1] == 0)) { /* an embedded NUL */
    rc = err_set(DELTA_EINVAL, "a literal holds a NUL character");
  } else if (strcmp(type, "bool") == 0 || strcmp(type, "boolean") == 0) {
    if (strcasecmp(val, "true") && strcasecmp(val, "false")) rc = err_set(DELTA_EINVAL, "not a bool: %s", val);
    else rc = buf_puts(out, val);
  } else if (strcmp(type, "int") == 0 || strcmp(type, "long") == 0) {
    if (!all_digits(val)) rc = err_set(DELTA_EINVAL, "not an integer: %s", val);
    else rc = buf_puts(out, val);
  } else if (strcmp(type, "float") == 0 || strcmp(type, "double") == 0) {
    if (!is_number(val)) rc = err_set(DELTA_EINVAL, "not a number: %s", val);
    else rc = buf_puts(out, val);
  } else if (strcmp(type, "string") == 0) {
    rc = put_quoted(out, val, '\'');
  } else if (strcmp(type, "date") == 0 || strcmp(type, "timestamp") == 0) {
    if ((rc = buf_puts(out, type[0] == 'd' ? "DATE " : "TIMESTAMP ")) == 0)
      rc = put_quoted(out, val, '\'');
  } else {
    rc = err_set(DELTA_EINVAL, "unknown valueType %s", type);
  }
done:
  buf_dispose(&v);
  buf_dispose(&t);
  return rc;
}

static int leaf_text(delta_json_val n, delta_buf *out) {
  if (json_string_eq(json_get(n, "op"), "literal")) return literal_text(n, out);
  if (!json_string_eq(json_get(n, "op"), "column"))
    return err_set(DELTA_EINVAL, "a comparison compares columns and literals");
  delta_buf name = DELTA_BUF_INIT;
  int rc = json_string(json_get(n, "name"), &name);
  if (rc || !name.len || strlen((const char *)name.data) != name.len) rc = err_set(DELTA_EINVAL, "a column needs a name");
  else rc = put_quoted(out, (const char *)name.data, '`');
  buf_dispose(&name);
  return rc;
}

static int node_text(delta_json_val n, delta_buf *out, int depth) {
  static const struct { const char *op, *sql; } cmp[] = {
      {"equal", " = "}, {"lessThan", " < "}, {"lessThanOrEqual", " <= "},
      {"greaterThan", " > "}, {"greaterThanOrEqual", " >= "}};
  if (depth > MAX_DEPTH) return err_set(DELTA_EINVAL, "the predicate is nested too deeply");
  if (json_typeof(n) != DELTA_JSON_OBJECT) return err_set(DELTA_EINVAL, "a predicate node is an object");
  delta_buf op = DELTA_BUF_INIT;
  if (json_string(json_get(n, "op"), &op)) return err_set(DELTA_EINVAL, "a node needs an op");
  delta_json_val kids = json_get(n, "children");
  int nk = json_typeof(kids) == DELTA_JSON_ARRAY ? json_len(kids) : 0, rc = 0;
  delta_json_val k0 = json_first(kids), k1 = json_next(k0);
  const char *o = (const char *)op.data;
  const char *sql = NULL;
  for (size_t i = 0; i < sizeof cmp / sizeof cmp[0]; i++)
    if (strcmp(o, cmp[i].op) == 0) sql = cmp[i].sql;
  if (sql) {
    if (nk != 2) {
      rc = err_set(DELTA_EINVAL, "%s needs two children", o);
      goto done;
    }
    if ((rc = leaf_text(k0, out)) != 0) goto done;
    if ((rc = buf_puts(out, sql)) != 0) goto done;
    rc = leaf_text(k1, out);
  } else if (strcmp(o, "isNull") == 0) {
    if (nk != 1 || !json_string_eq(json_get(k0, "op"), "column")) {
      rc = err_set(DELTA_EINVAL, "isNull needs one column");
      goto done;
    }
    if ((rc = leaf_text(k0, out)) != 0) goto done;
    rc = buf_puts(out, " IS NULL");
  } else if (strcmp(o, "not") == 0) {
    if (nk != 1) {
      rc = err_set(DELTA_EINVAL, "not needs one child");
      goto done;
    }
    if ((rc = buf_puts(out, "NOT (")) != 0) goto done;
    if ((rc = node_text(k0, out, depth + 1)) != 0) goto done;
    rc = buf_putc(out, ')');
  } else if (strcmp(o, "and") == 0 || strcmp(o, "or") == 0) {
    if (nk < 2) {
      rc = err_set(DELTA_EINVAL, "%s needs at least two children", o);
      goto done;
    }
    int i = 0;
    for (delta_json_val k = k0; json_present(k); k = json_next(k), i++) {
      if (i && (rc = buf_puts(out, o[0] == 'a' ? " AND " : " OR ")) != 0) goto done;
      if ((rc = buf_putc(out, '(')) != 0) goto done;
      if ((rc = node_text(k, out, depth + 1)) != 0) goto done;
      if ((rc = buf_putc(out, ')')) != 0) goto done;
    }
  } else {
    rc = err_set(DELTA_EINVAL, "unknown op %s", o);
  }
done:
  buf_dispose(&op);
  return rc;
}

int sharing_json_predicate_text(delta_json_val pred, delta_buf *out) {
  out->len = 0;
  int rc = node_text(pred, out, 0);
  return rc ? rc : buf_putc(out, 0);
}

/* Check that one predicate parses and binds, and add it to `all` as
 * "(text) AND ..."; one that fails is counted and left out (the protocol:
 * best effort). */
static int add_predicate(sharing_hints *h, const char *text, delta_buf *all) {
  expr_node *e = NULL;
  int bad = expr_parse(text, &e) || expr_bind(e, &h->logical);
  expr_free(e);
  if (bad) {
    h->n_ignored++;
    return 0;
  }
  int rc;
  if ((rc = all->len ? buf_puts(all, " AND (") : buf_putc(all, '(')) != 0) return rc;
  if ((rc = buf_puts(all, text)) != 0) return rc;
  return buf_putc(all, ')');
}

int sharing_hints_read(sharing_hints *h, delta_json_val root, const delta_snapshot *s) {
  memset(h, 0, sizeof *h);
  h->limit = -1;
  delta_json_val lim = json_get(root, "limitHint"), sql = json_get(root, "predicateHints"),
                 js = json_get(root, "jsonPredicateHints");
  if (json_present(lim) && json_typeof(lim) != DELTA_JSON_NULL &&
      (json_int64(lim, &h->limit) || h->limit < 0))
    return err_set(DELTA_EINVAL, "limitHint must be a non-negative integer");
  bool has_sql = json_present(sql) && json_typeof(sql) != DELTA_JSON_NULL;
  bool has_js = json_present(js) && json_typeof(js) != DELTA_JSON_NULL;
  if (has_sql && json_typeof(sql) != DELTA_JSON_ARRAY)
    return err_set(DELTA_EINVAL, "predicateHints must be an array of strings");
  if (has_js && json_typeof(js) != DELTA_JSON_STRING)
    return err_set(DELTA_EINVAL, "jsonPredicateHints must be a string holding a JSON predicate");
  if (!has_sql && !has_js) return 0;
  int rc = log_schema_to_arrow(s->schema, &h->logical);
  delta_buf text = DELTA_BUF_INIT, all = DELTA_BUF_INIT;
  for (delta_json_val p = json_first(sql); !rc && has_sql && json_present(p); p = json_next(p)) {
    if (json_string(p, &text)) rc = err_set(DELTA_EINVAL, "predicateHints must be an array of strings");
    else if (strlen((const char *)text.data) != text.len) h->n_ignored++;
    else rc = add_predicate(h, (const char *)text.data, &all);
  }
  if (!rc && has_js) {
    delta_json_doc *doc = NULL;
    rc = json_string(js, &text) || json_doc_new(&doc) ? DELTA_NOMEM() : 0;
    if (!rc) {
      if (json_parse(doc, (const char *)text.data, text.len) ||
          sharing_json_predicate_text(json_root(doc), &text))
        h->n_ignored++;
      else
        rc = add_predicate(h, (const char *)text.data, &all);
    }
    json_doc_free(doc);
  }
  /* the usable ones together, checked one by one above */
  if (!rc && all.len && !(rc = buf_putc(&all, 0)) &&
      (expr_parse((const char *)all.data, &h->pred) || expr_bind(h->pred, &h->logical))) {
    expr_free(h->pred);
    h->pred = NULL;
    h->n_ignored++;
  }
  buf_dispose(&text);
  buf_dispose(&all);
  delta_error_clear();
  h->pruner = (scan_pruner){s->schema, (const char *const *)s->metadata.partition_columns,
                            s->metadata.n_partition_columns, scan_mapping_mode(s), h->pred};
  return rc;
}

int sharing_hints_keep(sharing_hints *h, const delta_add *a) {
  if (!h->pred) return 1;
  scan_prune_input in = {a->partition_values, a->n_partition_values, a->stats, false, NULL, 0, 0};
  return scan_prune_file(&h->pruner, &in);
}

bool sharing_hints_limit_reached(sharing_hints *h, const delta_add *a) {
  /* With a predicate the kept files' rows need not match it, so their
   * counts say nothing about the rows the client will keep. */
  if (h->limit < 0 || h->pred || h->n_ignored) return false;
  if (a->num_records >= 0) h->limit -= a->num_records - (a->dv.present ? a->dv.cardinality : 0);
  return h->limit <= 0;
}

void sharing_hints_free(sharing_hints *h) {
  expr_free(h->pred);
  if (h->logical.release) h->logical.release(&h->logical);
  memset(h, 0, sizeof *h);
}
