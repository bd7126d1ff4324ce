/* Partition filters derived from generated partition columns; see gen_prune.h. */
#include "scan/gen_prune.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "expr/expr.h"
#include "expr/value_eval.h"
#include "log/features.h"
#include "log/partition_text.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

#define US_PER_DAY 86400000000LL

/* The expression's text lowercased outside quotes, without spaces and
 * backquotes: "CAST(`ts` AS DATE)" -> "cast(tsasdate)". */
static void squeeze(const char *s, char *out, size_t cap) {
  size_t k = 0;
  char q = 0;
  for (; *s && k + 1 < cap; s++) {
    if (q) {
      out[k++] = *s;
      if (*s == q) q = 0;
      continue;
    }
    if (*s == '\'') q = *s;
    if (isspace((unsigned char)*s) || *s == '`') continue;
    out[k++] = (char)tolower((unsigned char)*s);
  }
  out[k] = 0;
}

/* Whether `expr` is a non-decreasing function of column `col` alone (so a
 * range on col bounds the generated column): the column itself, a cast to
 * date, to_date, year, a date_format whose text sorts as time does, or a
 * prefix. */
static bool monotonic_in(const char *expr, const char *col) {
  char e[512], c[200], want[512];
  squeeze(expr, e, sizeof e);
  squeeze(col, c, sizeof c);
  static const char *const forms[] = {"%s", "cast(%sasdate)", "to_date(%s)", "year(%s)", NULL};
  for (int i = 0; forms[i]; i++) {
    snprintf(want, sizeof want, forms[i], c);
    if (strcmp(e, want) == 0) return true;
  }
  static const char *const patterns[] = {"yyyy", "yyyy-MM", "yyyy-MM-dd", "yyyyMM", "yyyyMMdd", "yyyy-MM-dd HH", NULL};
  for (int i = 0; patterns[i]; i++) {
    snprintf(want, sizeof want, "date_format(%s,'%s')", c, patterns[i]);
    if (strcmp(e, want) == 0) return true;
  }
  for (int i = 0; i < 2; i++) {
    snprintf(want, sizeof want, "%s(%s,1,", i ? "substr" : "substring", c);
    size_t n = strlen(want);
    if (strncmp(e, want, n) != 0) continue;
    const char *p = e + n;
    while (isdigit((unsigned char)*p)) p++;
    if (p > e + n && strcmp(p, ")") == 0) return true;
  }
  return false;
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }

/* The generated column's value for a row whose column `src` (Arrow format
 * `fmt`) is v, as a filter literal ("DATE '2024-01-02'", "2024", "'ab'")
 * in *out; nonzero when it cannot be had. */
static int value_for(const char *expr, const char *src, const char *fmt, const expr_value *v, const char *target_fmt,
                     delta_buf *out) {
  struct ArrowSchema s;
  if (arrow_schema_new(&s, "+s", "", 0, 1)) return -1;
  arrow_schema_release(s.children[0]);
  int rc = arrow_schema_new(s.children[0], fmt, src, 2, 0);
  int64_t i64 = v->u.i;
  int32_t i32 = (int32_t)v->u.i, offs[2] = {0, 0};
  uint8_t valid = 1;
  const void *bufs[3] = {&valid, NULL, NULL};
  struct ArrowArray col = {.length = 1, .n_buffers = 2, .buffers = bufs, .release = no_release};
  if (strcmp(fmt, "tdD") == 0) bufs[1] = &i32;
  else if (strncmp(fmt, "tsu:", 4) == 0) bufs[1] = &i64;
  else if (strcmp(fmt, "u") == 0 && v->u.s.n < INT32_MAX) {
    offs[1] = (int32_t)v->u.s.n;
    bufs[1] = offs;
    bufs[2] = v->u.s.p;
    col.n_buffers = 3;
  } else rc = -1;
  struct ArrowArray *kids[1] = {&col};
  const void *sb[1] = {NULL};
  struct ArrowArray batch = {.length = 1, .n_buffers = 1, .buffers = sb, .n_children = 1, .children = kids,
                             .release = no_release};
  vexpr *e = NULL;
  struct ArrowArray r = {0};
  if (!rc) rc = vexpr_parse(expr, &e);
  if (!rc) rc = vexpr_bind(e, &s, target_fmt, "partition");
  if (!rc) rc = vexpr_eval(e, &batch, &r);
  bool is_null = true;
  delta_buf text = DELTA_BUF_INIT;
  if (!rc) rc = log_partition_value_text(target_fmt, &r, 0, &text, &is_null);
  if (!rc && (is_null || !text.len)) rc = -1;
  if (!rc) {
    const char *t = (const char *)text.data;
    if (strcmp(target_fmt, "tdD") == 0) rc = buf_printf(out, "DATE '%.*s'", (int)text.len, t);
    else if (strlen(target_fmt) == 1 && strchr("csil", target_fmt[0])) rc = buf_append(out, t, text.len);
    else if (strcmp(target_fmt, "u") == 0) {
      rc = buf_putc(out, '\'');
      for (size_t k = 0; k < text.len && !rc; k++) rc = t[k] == '\'' ? buf_puts(out, "''") : buf_putc(out, t[k]);
      if (!rc) rc = buf_putc(out, '\'');
    } else rc = -1;
  }
  buf_dispose(&text);
  arrow_array_release(&r);
  vexpr_free(e);
  arrow_schema_release(&s);
  delta_error_clear();
  return rc;
}

/* Derived bounds for one comparison `col op literal`. */
static int derive(const delta_snapshot *snap, const struct ArrowSchema *logical, const expr_node *cmp, delta_buf *out) {
  const expr_node *a = cmp->args[0], *b = cmp->args[1];
  cmp_op op = cmp->op;
  if (a->kind == EX_LITERAL && b->kind == EX_COLUMN) {
    const expr_node *t = a;
    a = b;
    b = t;
    op = cmp_op_swap(op);
  }
  if (a->kind != EX_COLUMN || a->depth != 1 || b->kind != EX_LITERAL || b->value.is_null) return 0;
  if (op == CMP_NE || op == CMP_NULL_SAFE_EQ) return 0;
  const delta_type *st = snap->schema;
  int src = a->child_index[0];
  if (src < 0 || src >= st->n_fields) return 0;
  const char *fmt = logical->children[src]->format;
  bool ts = strncmp(fmt, "tsu:", 4) == 0;
  for (int p = 0; p < snap->metadata.n_partition_columns; p++) {
    const delta_field *pf = log_schema_find(st, snap->metadata.partition_columns[p]);
    if (!pf || !pf->generation_expression || pf == &st->fields[src]) continue;
    if (!monotonic_in(pf->generation_expression, st->fields[src].name)) continue;
    int pi = (int)(pf - st->fields);
    const char *pfmt = logical->children[pi]->format;
    /* timestamps: a day either way, for the session time zone Spark may
     * have computed the column in */
    expr_value lo = b->value, hi = b->value;
    if (ts) {
      lo.u.i -= US_PER_DAY;
      hi.u.i += US_PER_DAY;
    }
    delta_buf lt = DELTA_BUF_INIT, ht = DELTA_BUF_INIT;
    bool want_lo = op == CMP_EQ || op == CMP_GT || op == CMP_GE, want_hi = op == CMP_EQ || op == CMP_LT || op == CMP_LE;
    int rc = 0;
    if (want_lo && value_for(pf->generation_expression, st->fields[src].name, fmt, &lo, pfmt, &lt)) want_lo = false;
    if (want_hi && value_for(pf->generation_expression, st->fields[src].name, fmt, &hi, pfmt, &ht)) want_hi = false;
    char q[300];
    snprintf(q, sizeof q, "`%s`", pf->name); /* names with ` are left alone below */
    if (!strchr(pf->name, '`')) {
      if (want_lo) rc = buf_printf(out, " AND %s >= %.*s", q, (int)lt.len, (const char *)lt.data);
      if (!rc && want_hi) rc = buf_printf(out, " AND %s <= %.*s", q, (int)ht.len, (const char *)ht.data);
    }
    buf_dispose(&lt);
    buf_dispose(&ht);
    if (rc) return rc;
  }
  return 0;
}

int gen_prune_filter(const delta_snapshot *snap, const char *filter, char **out) {
  *out = NULL;
  bool any = false;
  for (int p = 0; p < snap->metadata.n_partition_columns && !any; p++) {
    const delta_field *f = log_schema_find(snap->schema, snap->metadata.partition_columns[p]);
    any = f && f->generation_expression;
  }
  if (!any || !log_generated_enabled(&snap->protocol)) return 0;
  expr_node *e = NULL;
  struct ArrowSchema logical = {0};
  delta_buf extra = DELTA_BUF_INIT;
  int rc = expr_parse(filter, &e);
  if (!rc) rc = log_schema_to_arrow(snap->schema, &logical);
  if (!rc) rc = expr_bind(e, &logical);
  if (!rc) {
    /* the top-level conjuncts */
    const expr_node *const *parts = e->kind == EX_AND ? (const expr_node *const *)e->args : (const expr_node *const *)&e;
    int n = e->kind == EX_AND ? e->n_args : 1;
    for (int i = 0; i < n && !rc; i++)
      if (parts[i]->kind == EX_CMP) rc = derive(snap, &logical, parts[i], &extra);
  }
  if (!rc && extra.len) {
    delta_buf t = DELTA_BUF_INIT;
    rc = buf_printf(&t, "(%s)%.*s", filter, (int)extra.len, (const char *)extra.data);
    if (!rc) rc = buf_putc(&t, 0);
    if (!rc) *out = (char *)buf_detach(&t);
    buf_dispose(&t);
  }
  buf_dispose(&extra);
  expr_free(e);
  if (logical.release) logical.release(&logical);
  /* a filter that does not parse or bind is reported by the scan itself */
  if (rc) delta_error_clear();
  return rc == DELTA_ENOMEM ? rc : 0;
}
