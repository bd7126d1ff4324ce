/* MERGE's hash join; see merge_internal.h. Keys are compared with the
 * filter language's value_cmp, so a pair found here is a pair the ON
 * equalities accept; hashing only has to agree on equal values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "dml/merge_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static void collect_eqs(const expr_node *e, const expr_node **eqs, int *n, int max, bool *other) {
  if (e->kind == EX_AND) {
    for (int i = 0; i < e->n_args; i++) collect_eqs(e->args[i], eqs, n, max, other);
    return;
  }
  if (e->kind == EX_CMP && e->op == CMP_EQ && e->args[0]->kind == EX_COLUMN && e->args[1]->kind == EX_COLUMN &&
      e->args[0]->depth == 2 && e->args[1]->depth == 2 &&
      e->args[0]->child_index[0] != e->args[1]->child_index[0] && *n < max) {
    eqs[(*n)++] = e;
    return;
  }
  *other = true;
}

int merge_join_keys(merge_join *j, const expr_node *on, const struct ArrowSchema *joined) {
  enum { MAX_KEYS = 64 };
  const expr_node *eqs[MAX_KEYS];
  int n = 0;
  bool other = false;
  collect_eqs(on, eqs, &n, MAX_KEYS, &other);
  j->residual = other;
  if (n == 0) { /* nothing to hash on: a nested loop tests ON for every pair */
    j->nested = true;
    j->residual = true;
    return 0;
  }
  if (!(j->keys = mem_calloc((size_t)n, sizeof *j->keys))) return DELTA_NOMEM();
  j->n_keys = n;
  for (int i = 0; i < n; i++) {
    const expr_node *a = eqs[i]->args[0], *b = eqs[i]->args[1];
    if (a->child_index[0] != 0) {
      const expr_node *x = a;
      a = b;
      b = x;
    }
    merge_key *k = &j->keys[i];
    k->t_col = a->child_index[1];
    k->s_col = b->child_index[1];
    k->t_fmt = joined->children[0]->children[k->t_col]->format;
    k->s_fmt = joined->children[1]->children[k->s_col]->format;
    k->t_type = value_type_of_arrow(k->t_fmt, NULL, &k->t_scale);
    k->s_type = value_type_of_arrow(k->s_fmt, NULL, &k->s_scale);
    if (!value_comparable(k->t_type, k->s_type) || k->t_type == VT_STRUCT || k->t_type == VT_OTHER)
      return err_set(DELTA_EINVAL, "--on: %s and %s cannot be compared", value_type_name(k->t_type),
                             value_type_name(k->s_type));
    if (k->t_type == k->s_type && (k->t_type != VT_DECIMAL || k->t_scale == k->s_scale)) k->mode = KEY_HASH_EXACT;
    else if ((k->t_type == VT_INT || k->t_type == VT_FLOAT) && (k->s_type == VT_INT || k->s_type == VT_FLOAT))
      k->mode = KEY_HASH_DOUBLE;
    else k->mode = KEY_HASH_NONE; /* e.g. a date against a timestamp: compared, not hashed */
  }
  return 0;
}

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

static uint64_t double_bits(double d) {
  if (d == 0) d = 0; /* -0.0 equals 0.0 */
  if (isnan(d)) d = NAN;
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static uint64_t value_hash(key_hash_mode mode, const expr_value *v) {
  if (mode == KEY_HASH_NONE) return 0;
  if (mode == KEY_HASH_DOUBLE) return mix64(double_bits(v->type == VT_INT ? (double)v->u.i : v->u.d));
  switch (v->type) {
  case VT_BOOL: return v->u.b ? 1 : 2;
  case VT_FLOAT: return mix64(double_bits(v->u.d));
  case VT_DECIMAL: return mix64((uint64_t)v->u.dec ^ mix64((uint64_t)(v->u.dec >> 64)));
  case VT_STRING:
  case VT_BINARY: {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < v->u.s.n; i++) h = (h ^ (uint8_t)v->u.s.p[i]) * 1099511628211ULL;
    return mix64(h);
  }
  default: return mix64((uint64_t)v->u.i);
  }
}

/* Key i of row `row`: false when null. */
static bool key_value(const merge_key *k, bool target, const struct ArrowArray *rows, int64_t row, expr_value *v) {
  if (target) value_from_array(rows->children[k->t_col], k->t_fmt, k->t_type, k->t_scale, row, v);
  else value_from_array(rows->children[k->s_col], k->s_fmt, k->s_type, k->s_scale, row, v);
  return !v->is_null;
}

static bool row_hash(const merge_join *j, bool target, const struct ArrowArray *rows, int64_t row, uint64_t *h) {
  uint64_t x = 0x243f6a8885a308d3ULL;
  for (int i = 0; i < j->n_keys; i++) {
    expr_value v;
    if (!key_value(&j->keys[i], target, rows, row, &v)) return false;
    x = mix64(x ^ value_hash(j->keys[i].mode, &v)) + (uint64_t)i;
  }
  *h = x;
  return true;
}

int merge_join_build(merge_join *j) {
  int64_t n = j->source->length;
  if (j->nested) { /* no keys: any source row may match */
    j->n_keyed = n;
    return 0;
  }
  uint64_t cap = 16;
  while (cap < (uint64_t)n * 2) cap <<= 1;
  j->mask = cap - 1;
  j->hashes = mem_malloc((size_t)n * sizeof *j->hashes + 1);
  j->next = mem_malloc((size_t)n * sizeof *j->next + 1);
  j->head = mem_malloc((size_t)cap * sizeof *j->head);
  if (!j->hashes || !j->next || !j->head) return DELTA_NOMEM();
  memset(j->head, 0xff, (size_t)cap * sizeof *j->head);
  /* inserted backwards so that chains list rows in source order */
  for (int64_t g = n - 1; g >= 0; g--) {
    j->next[g] = -1;
    if (!row_hash(j, false, j->source, g, &j->hashes[g])) continue;
    j->n_keyed++;
    uint64_t b = j->hashes[g] & j->mask;
    j->next[g] = j->head[b];
    j->head[b] = g;
  }
  return 0;
}

void merge_join_free(merge_join *j) {
  for (int i = 0; i < j->n_keys; i++) {
    mem_free(j->keys[i].set);
    expr_free(j->keys[i].column);
  }
  mem_free(j->keys);
  for (int i = 0; i < j->n_ranges; i++) expr_free(j->ranges[i].column);
  mem_free(j->ranges);
  mem_free(j->hashes);
  mem_free(j->head);
  mem_free(j->next);
  memset(j, 0, sizeof *j);
}

int merge_join_probe(const merge_join *j, const struct ArrowArray *batch, int64_t row, int64_t **pairs_t,
                     int64_t **pairs_s, int64_t *n, int64_t *cap) {
  uint64_t h;
  if (!row_hash(j, true, batch, row, &h)) return 0;
  for (int64_t g = j->head[h & j->mask]; g >= 0; g = j->next[g]) {
    if (j->hashes[g] != h) continue;
    bool eq = true;
    for (int i = 0; i < j->n_keys && eq; i++) {
      expr_value a, b;
      key_value(&j->keys[i], true, batch, row, &a);
      key_value(&j->keys[i], false, j->source, g, &b);
      eq = value_cmp(&a, &b) == 0;
    }
    if (!eq) continue;
    int rc = merge_pairs_push(pairs_t, pairs_s, n, cap, row, g);
    if (rc) return rc;
  }
  return 0;
}

int merge_pairs_push(int64_t **pairs_t, int64_t **pairs_s, int64_t *n, int64_t *cap, int64_t t, int64_t s) {
  if (*n == *cap) {
    int64_t nc = *cap ? *cap * 2 : 1024;
    int64_t *a = mem_realloc(*pairs_t, (size_t)nc * sizeof *a);
    if (a) *pairs_t = a;
    int64_t *b = a ? mem_realloc(*pairs_s, (size_t)nc * sizeof *b) : NULL;
    if (b) *pairs_s = b;
    if (!a || !b) return DELTA_NOMEM();
    *cap = nc;
  }
  (*pairs_t)[*n] = t;
  (*pairs_s)[*n] = s;
  (*n)++;
  return 0;
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }

const struct ArrowArray *merge_join_rows(merge_joined *j, struct ArrowArray *a, struct ArrowArray *b, int64_t n) {
  memset(j, 0, sizeof *j);
  j->kids[0] = a;
  j->kids[1] = b;
  j->arr = (struct ArrowArray){.length = n, .n_buffers = 1, .n_children = b ? 2 : 1, .buffers = j->bufs,
                               .children = j->kids, .release = no_release};
  return &j->arr;
}

static int quoted_name(const char *name, delta_buf *out) {
  int rc;
  if ((rc = buf_putc(out, '`')) != 0) return rc;
  for (const char *p = name; *p; p++)
    if ((rc = *p == '`' ? buf_puts(out, "``") : buf_putc(out, *p)) != 0) return rc;
  return buf_putc(out, '`');
}

int merge_read_source(struct ArrowArrayStream *in, struct ArrowSchema *schema, struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  struct ArrowArray *chunks = NULL;
  const struct ArrowArray **ins = NULL;
  arrow_row_ref *refs = NULL;
  int n = 0, rc = 0;
  int64_t total = 0;
  if (in->get_schema(in, schema)) {
    const char *m = in->get_last_error(in);
    return err_set(DELTA_EIO, "%s", m ? m : "reading the source failed");
  }
  if (strcmp(schema->format, "+s") != 0) {
    rc = err_set(DELTA_EINVAL, "the source is not a stream of record batches");
    goto done;
  }
  for (;;) {
    struct ArrowArray b;
    if (in->get_next(in, &b)) {
      const char *m = in->get_last_error(in);
      rc = err_set(DELTA_EIO, "%s", m ? m : "reading the source failed");
      goto done;
    }
    if (!b.release) break;
    struct ArrowArray *nc = mem_realloc(chunks, (size_t)(n + 1) * sizeof *nc);
    if (!nc) {
      b.release(&b);
      rc = DELTA_NOMEM();
      goto done;
    }
    chunks = nc;
    chunks[n++] = b;
    total += b.length;
  }
  /* one array: source rows are addressed by a single index */
  ins = mem_malloc((size_t)n * sizeof *ins + 1);
  refs = mem_malloc((size_t)total * sizeof *refs + 1);
  if (!ins || !refs) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int c = 0, k = 0; c < n; c++) {
    ins[c] = &chunks[c];
    for (int64_t r = 0; r < chunks[c].length; r++) refs[k++] = (arrow_row_ref){c, r};
  }
  rc = arrow_take(schema, ins, n, refs, total, out);
done:
  mem_free(ins);
  mem_free(refs);
  for (int c = 0; c < n; c++) chunks[c].release(&chunks[c]);
  mem_free(chunks);
  return rc;
}

static int cmp_values(const void *a, const void *b) { return value_cmp(a, b); }

int merge_column_is_null(const char *name, const struct ArrowSchema *logical, expr_node **out) {
  delta_buf text = DELTA_BUF_INIT;
  int rc;
  if ((rc = quoted_name(name, &text)) != 0)
    goto done;
  if ((rc = buf_puts(&text, " IS NULL")) != 0)
    goto done;
  if ((rc = buf_putc(&text, 0)) != 0)
    goto done;
  if ((rc = expr_parse((const char *)text.data, out)) != 0)
    goto done;
  rc = expr_bind(*out, logical);
done:
  buf_dispose(&text);
  return rc;
}

int merge_join_keysets(merge_join *j, const struct ArrowSchema *logical) {
  int64_t n = j->source->length;
  int rc;
  for (int i = 0; i < j->n_keys; i++) {
    merge_key *k = &j->keys[i];
    value_type t = k->t_type;
    if (t != k->s_type || !(t == VT_INT || t == VT_STRING || t == VT_DATE || t == VT_TIMESTAMP || t == VT_TIMESTAMP_NTZ))
      continue;
    if (!(k->set = mem_malloc((size_t)n * sizeof *k->set + 1))) return DELTA_NOMEM();
    k->n_set = 0;
    for (int64_t g = 0; g < n; g++)
      if (key_value(k, false, j->source, g, &k->set[k->n_set])) k->n_set++;
    qsort(k->set, (size_t)k->n_set, sizeof *k->set, cmp_values);
    int64_t m = 0;
    for (int64_t r = 0; r < k->n_set; r++)
      if (m == 0 || value_cmp(&k->set[r], &k->set[m - 1]) != 0) k->set[m++] = k->set[r];
    k->n_set = m;
    if ((rc = merge_column_is_null(logical->children[k->t_col]->name, logical, &k->column)) != 0) return rc;
  }
  return 0;
}

/* 1 when some source value of the key lies within the file's [min, max]. */
static int keyset_check(void *ctx, const expr_col_stats *st) {
  const merge_key *k = ctx;
  if (st->has_values == 0) return 0; /* the key is null in every row */
  int64_t lo = 0, hi = k->n_set;
  if (st->has_min) /* the first value >= min */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (value_cmp(&k->set[mid], &st->min) < 0) lo = mid + 1;
      else hi = mid;
    }
  if (lo >= k->n_set) return 0;
  return !st->has_max || value_cmp(&k->set[lo], &st->max) <= 0;
}

/* 1 when the file's [min, max] of t.col can meet the range conjunct. */
static int range_check(void *ctx, const expr_col_stats *st) {
  const merge_range *r = ctx;
  if (st->has_values == 0) return 0;
  switch (r->op) {
  case CMP_GT: return !st->has_max || value_cmp(&st->max, &r->lo) > 0;
  case CMP_GE: return !st->has_max || value_cmp(&st->max, &r->lo) >= 0;
  case CMP_LT: return !st->has_min || value_cmp(&st->min, &r->hi) < 0;
  case CMP_LE: return !st->has_min || value_cmp(&st->min, &r->hi) <= 0;
  default: return 1;
  }
}

int merge_join_file_may_match(const merge_join *j, const scan_pruner *p, const scan_prune_input *in) {
  for (int i = 0; i < j->n_ranges; i++) {
    const merge_range *r = &j->ranges[i];
    if (!r->any) return 0; /* every s.x is null: the conjunct holds for no pair */
    int may = scan_file_column_check(p, in, r->column->args[0], range_check, (void *)r);
    if (may <= 0) return may;
  }
  for (int i = 0; i < j->n_keys; i++) {
    const merge_key *k = &j->keys[i];
    if (!k->column) continue;
    int may = scan_file_column_check(p, in, k->column->args[0], keyset_check, (void *)k);
    if (may <= 0) return may;
  }
  return 1;
}
