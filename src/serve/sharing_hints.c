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
  int rc = delta_buf_putc(out, q);
  for (; !rc && *s; s++) {
    if (*s == q) rc = delta_buf_putc(out, q); /* '' and `` escape themselves */
    if (!rc) rc = delta_buf_putc(out, *s);
  }
  return rc ? rc : delta_buf_putc(out, q);
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
  delta_json_val vv = delta_json_get(n, "value");
  int rc = 0;
  if (delta_json_typeof(vv) == DELTA_JSON_STRING) {
    rc = delta_json_string(vv, &v);
  } else if (delta_json_typeof(vv) == DELTA_JSON_NUMBER || delta_json_typeof(vv) == DELTA_JSON_BOOL) {
    const char *p;
    size_t len;
    delta_json_raw(vv, &p, &len);
    rc = delta_buf_append(&v, p, len);
    if (!rc) rc = delta_buf_putc(&v, 0);
  } else {
    rc = delta_error_set(DELTA_EINVAL, "a literal needs a value");
  }
  if (!rc && delta_json_string(delta_json_get(n, "valueType"), &t))
    rc = delta_error_set(DELTA_EINVAL, "a literal needs a valueType");
  if (rc) goto done;
  const char *val = v.len ? (const char *)v.data : "", *type = (const char *)t.data;
  if (strlen(val) != v.len - (v.len && v.data[v.len - 1] == 0)) { /* an embedded NUL */
    rc = delta_error_set(DELTA_EINVAL, "a literal holds a NUL character");
  } else if (strcmp(type, "bool") == 0 || strcmp(type, "boolean") == 0) {
    if (strcasecmp(val, "true") && strcasecmp(val, "false")) rc = delta_error_set(DELTA_EINVAL, "not a bool: %s", val);
    else rc = delta_buf_puts(out, val);
  } else if (strcmp(type, "int") == 0 || strcmp(type, "long") == 0) {
    if (!all_digits(val)) rc = delta_error_set(DELTA_EINVAL, "not an integer: %s", val);
    else rc = delta_buf_puts(out, val);
  } else if (strcmp(type, "float") == 0 || strcmp(type, "double") == 0) {
    if (!is_number(val)) rc = delta_error_set(DELTA_EINVAL, "not a number: %s", val);
    else rc = delta_buf_puts(out, val);
  } else if (strcmp(type, "string") == 0) {
    rc = put_quoted(out, val, '\'');
  } else if (strcmp(type, "date") == 0 || strcmp(type, "timestamp") == 0) {
    rc = delta_buf_puts(out, type[0] == 'd' ? "DATE " : "TIMESTAMP ");
    if (!rc) rc = put_quoted(out, val, '\'');
  } else {
    rc = delta_error_set(DELTA_EINVAL, "unknown valueType %s", type);
  }
done:
  delta_buf_dispose(&v);
  delta_buf_dispose(&t);
  return rc;
}

static int leaf_text(delta_json_val n, delta_buf *out) {
  if (delta_json_string_eq(delta_json_get(n, "op"), "literal")) return literal_text(n, out);
  if (!delta_json_string_eq(delta_json_get(n, "op"), "column"))
    return delta_error_set(DELTA_EINVAL, "a comparison compares columns and literals");
  delta_buf name = DELTA_BUF_INIT;
  int rc = delta_json_string(delta_json_get(n, "name"), &name);
  if (rc || !name.len || strlen((const char *)name.data) != name.len) rc = delta_error_set(DELTA_EINVAL, "a column needs a name");
  else rc = put_quoted(out, (const char *)name.data, '`');
  delta_buf_dispose(&name);
  return rc;
}

static int node_text(delta_json_val n, delta_buf *out, int depth) {
  static const struct { const char *op, *sql; } cmp[] = {
      {"equal", " = "}, {"lessThan", " < "}, {"lessThanOrEqual", " <= "},
      {"greaterThan", " > "}, {"greaterThanOrEqual", " >= "}};
  if (depth > MAX_DEPTH) return delta_error_set(DELTA_EINVAL, "the predicate is nested too deeply");
  if (delta_json_typeof(n) != DELTA_JSON_OBJECT) return delta_error_set(DELTA_EINVAL, "a predicate node is an object");
  delta_buf op = DELTA_BUF_INIT;
  if (delta_json_string(delta_json_get(n, "op"), &op)) return delta_error_set(DELTA_EINVAL, "a node needs an op");
  delta_json_val kids = delta_json_get(n, "children");
  int nk = delta_json_typeof(kids) == DELTA_JSON_ARRAY ? delta_json_len(kids) : 0, rc = 0;
  delta_json_val k0 = delta_json_first(kids), k1 = delta_json_next(k0);
  const char *o = (const char *)op.data;
  const char *sql = NULL;
  for (size_t i = 0; i < sizeof cmp / sizeof cmp[0]; i++)
    if (strcmp(o, cmp[i].op) == 0) sql = cmp[i].sql;
  if (sql) {
    if (nk != 2) rc = delta_error_set(DELTA_EINVAL, "%s needs two children", o);
    if (!rc) rc = leaf_text(k0, out);
    if (!rc) rc = delta_buf_puts(out, sql);
    if (!rc) rc = leaf_text(k1, out);
  } else if (strcmp(o, "isNull") == 0) {
    if (nk != 1 || !delta_json_string_eq(delta_json_get(k0, "op"), "column"))
      rc = delta_error_set(DELTA_EINVAL, "isNull needs one column");
    if (!rc) rc = leaf_text(k0, out);
    if (!rc) rc = delta_buf_puts(out, " IS NULL");
  } else if (strcmp(o, "not") == 0) {
    if (nk != 1) rc = delta_error_set(DELTA_EINVAL, "not needs one child");
    if (!rc) rc = delta_buf_puts(out, "NOT (");
    if (!rc) rc = node_text(k0, out, depth + 1);
    if (!rc) rc = delta_buf_putc(out, ')');
  } else if (strcmp(o, "and") == 0 || strcmp(o, "or") == 0) {
    if (nk < 2) rc = delta_error_set(DELTA_EINVAL, "%s needs at least two children", o);
    int i = 0;
    for (delta_json_val k = k0; !rc && delta_json_present(k); k = delta_json_next(k), i++) {
      if (i) rc = delta_buf_puts(out, o[0] == 'a' ? " AND " : " OR ");
      if (!rc) rc = delta_buf_putc(out, '(');
      if (!rc) rc = node_text(k, out, depth + 1);
      if (!rc) rc = delta_buf_putc(out, ')');
    }
  } else {
    rc = delta_error_set(DELTA_EINVAL, "unknown op %s", o);
  }
  delta_buf_dispose(&op);
  return rc;
}

int sharing_json_predicate_text(delta_json_val pred, delta_buf *out) {
  out->len = 0;
  int rc = node_text(pred, out, 0);
  return rc ? rc : delta_buf_putc(out, 0);
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
  if ((rc = all->len ? delta_buf_puts(all, " AND (") : delta_buf_putc(all, '(')) != 0) return rc;
  if ((rc = delta_buf_puts(all, text)) != 0) return rc;
  return delta_buf_putc(all, ')');
}

int sharing_hints_read(sharing_hints *h, delta_json_val root, const delta_snapshot *s) {
  memset(h, 0, sizeof *h);
  h->limit = -1;
  delta_json_val lim = delta_json_get(root, "limitHint"), sql = delta_json_get(root, "predicateHints"),
                 js = delta_json_get(root, "jsonPredicateHints");
  if (delta_json_present(lim) && delta_json_typeof(lim) != DELTA_JSON_NULL &&
      (delta_json_int64(lim, &h->limit) || h->limit < 0))
    return delta_error_set(DELTA_EINVAL, "limitHint must be a non-negative integer");
  bool has_sql = delta_json_present(sql) && delta_json_typeof(sql) != DELTA_JSON_NULL;
  bool has_js = delta_json_present(js) && delta_json_typeof(js) != DELTA_JSON_NULL;
  if (has_sql && delta_json_typeof(sql) != DELTA_JSON_ARRAY)
    return delta_error_set(DELTA_EINVAL, "predicateHints must be an array of strings");
  if (has_js && delta_json_typeof(js) != DELTA_JSON_STRING)
    return delta_error_set(DELTA_EINVAL, "jsonPredicateHints must be a string holding a JSON predicate");
  if (!has_sql && !has_js) return 0;
  int rc = delta_schema_to_arrow(s->schema, &h->logical);
  delta_buf text = DELTA_BUF_INIT, all = DELTA_BUF_INIT;
  for (delta_json_val p = delta_json_first(sql); !rc && has_sql && delta_json_present(p); p = delta_json_next(p)) {
    if (delta_json_string(p, &text)) rc = delta_error_set(DELTA_EINVAL, "predicateHints must be an array of strings");
    else if (strlen((const char *)text.data) != text.len) h->n_ignored++;
    else rc = add_predicate(h, (const char *)text.data, &all);
  }
  if (!rc && has_js) {
    delta_json_doc *doc = NULL;
    rc = delta_json_string(js, &text) || delta_json_doc_new(&doc) ? DELTA_NOMEM() : 0;
    if (!rc) {
      if (delta_json_parse(doc, (const char *)text.data, text.len) ||
          sharing_json_predicate_text(delta_json_root(doc), &text))
        h->n_ignored++;
      else
        rc = add_predicate(h, (const char *)text.data, &all);
    }
    delta_json_doc_free(doc);
  }
  /* the usable ones together, checked one by one above */
  if (!rc && all.len && !(rc = delta_buf_putc(&all, 0)) &&
      (expr_parse((const char *)all.data, &h->pred) || expr_bind(h->pred, &h->logical))) {
    expr_free(h->pred);
    h->pred = NULL;
    h->n_ignored++;
  }
  delta_buf_dispose(&text);
  delta_buf_dispose(&all);
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
