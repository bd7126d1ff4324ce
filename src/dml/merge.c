/*
 * MERGE; see include/deltac/dml.h. The source is read whole and hashed
 * (merge_join.c), or, with no equality in ON, paired with every target row
 * (merge_nested.c); --schema-mode merge first grows the target's schema
 * (merge_evolve.c) and reads and writes everything with the new one. Each candidate target file is read twice at most: pass 1
 * probes its live rows, marks the source rows they match, applies the
 * clauses and collects the rows that change; when some do, pass 2 reads it
 * again and repeats the same (deterministic) decisions, now writing the
 * updated rows, the change data and, copy-on-write, the rows that stay.
 * Unmatched source rows are inserted at the end. Clause expressions see a
 * joined row {t: target columns, s: source columns} (only t for
 * not-matched-by-source clauses, only s for insert clauses).
 */
#include "deltac/dml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "dml/dml_internal.h"
#include "dml/merge_internal.h"
#include "dv/dv.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "scan/conform.h"
#include "scan/prune.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "txn/txn.h"
#include "log/schema_build.h"
#include "log/table_setup.h"

typedef struct {
  const delta_merge_clause *spec;
  expr_node *cond;             /* NULL: always */
  dml_set *set;                /* update, insert */
} clause;

typedef struct {
  delta_snapshot *s;
  delta_merge_result *res;
  const char *talias, *salias;
  struct ArrowSchema source_schema;
  struct ArrowArray source;
  struct ArrowSchema j_both, j_t, j_s; /* {t, s}, {t}, {s} */
  expr_node *on;               /* bound to j_both */
  merge_join join;
  uint8_t *src_matched;
  clause *cl;
  int n_cl;
  int n_matched, n_insert, n_nmbs;
  bool multi_ok;               /* the only matched clause is an unconditional delete */
  bool use_dv, cdf;
  rewrite_writers *wr;
  delta_buf dv_file, dv_path, actions;
  const char **removed;
  int64_t n_removed;
  int64_t now;
  int64_t dvs_removed, dvs_updated;
  int64_t matched_updated, matched_deleted, nmbs_updated, nmbs_deleted;
  int64_t bytes_removed, bytes_readded; /* removed files; files added back with a DV */
  int64_t t_start, scan_ms, rewrite_ms; /* dml_clock_ms: finding the changed rows, writing them */
  const struct ArrowSchema *tlogical;   /* the target's columns, as clauses resolve names */
  struct ArrowSchema old_logical;       /* the target's columns before schema evolution */
  delta_type *old_schema;               /* evolved: the snapshot's own schema, put back at the end */
} merge_ctx;

/* ------------------------------------------------------------ joined rows */

/* A struct schema named `name` with the columns of `cols`. */
static int struct_of(struct ArrowSchema *slot, const char *name, const struct ArrowSchema *cols) {
  int rc;
  if ((rc = arrow_schema_new(slot, "+s", name, 0, (int)cols->n_children)) != 0) return rc;
  for (int64_t i = 0; i < cols->n_children; i++) {
    arrow_schema_release(slot->children[i]);
    if ((rc = arrow_schema_copy(slot->children[i], cols->children[i])) != 0) return rc;
  }
  return 0;
}

static int joined_schema(struct ArrowSchema *out, const struct ArrowSchema *t, const char *talias,
                         const struct ArrowSchema *s, const char *salias) {
  int rc;
  if ((rc = arrow_schema_new(out, "+s", "", 0, (t && s) ? 2 : 1)) != 0) return rc;
  int k = 0;
  if (t) {
    arrow_schema_release(out->children[k]);
    if ((rc = struct_of(out->children[k++], talias, t)) != 0) return rc;
  }
  if (s) {
    arrow_schema_release(out->children[k]);
    if ((rc = struct_of(out->children[k], salias, s)) != 0) return rc;
  }
  return 0;
}

/* ---------------------------------------------------------------- clauses */

static const char *group_name(delta_merge_when w) {
  return w == DELTA_MERGE_MATCHED ? "when matched" : w == DELTA_MERGE_NOT_MATCHED ? "when not matched"
                                                                                    : "when not matched by source";
}

/* Unqualified references: to t or s, whichever has the column (Spark's
 * resolution); a name both have is ambiguous. */
typedef struct {
  merge_ctx *c;
  bool t, s;                   /* the sides the clause sees */
} qualifier;

static bool has_column(const struct ArrowSchema *s, const char *name) {
  for (int64_t i = 0; i < s->n_children; i++)
    if (strcasecmp(s->children[i]->name, name) == 0) return true;
  return false;
}

static int qualify_name(void *ctx, const char *first, const char **prefix) {
  qualifier *q = ctx;
  merge_ctx *c = q->c;
  *prefix = NULL;
  if ((q->t && strcasecmp(first, c->talias) == 0) || (q->s && strcasecmp(first, c->salias) == 0)) return 0;
  bool in_t = q->t && has_column(c->tlogical, first), in_s = q->s && has_column(&c->source_schema, first);
  if (in_t && in_s)
    return err_set(DELTA_EINVAL, "column %s is ambiguous: write %s.%s or %s.%s", first, c->talias, first,
                           c->salias, first);
  *prefix = in_t ? c->talias : in_s ? c->salias : NULL;
  return 0;
}

/* "`c` = `s`.`c`, ..." for the target columns the source has. */
static int star_text(merge_ctx *c, delta_buf *out) {
  const struct ArrowSchema *l = &c->wr->logical, *src = &c->source_schema;
  int rc;
  for (int64_t i = 0; i < l->n_children; i++) {
    bool has = false;
    for (int64_t k = 0; k < src->n_children && !has; k++) has = strcasecmp(src->children[k]->name, l->children[i]->name) == 0;
    if (!has) continue;
    if ((rc = buf_printf(out, "%s`%s` = `%s`.`%s`", out->len ? ", " : "", l->children[i]->name, c->salias,
                         l->children[i]->name)) != 0)
      return rc;
  }
  if (!out->len)
    return err_set(DELTA_EINVAL, "the source has none of the target's columns (for UPDATE/INSERT *)");
  return buf_putc(out, 0);
}

/* Clause k's SET: its own, or (UPDATE/INSERT *) one from the columns
 * target and source share. */
static int clause_set(merge_ctx *c, clause *k, const char *g, const struct ArrowSchema *bind, qualifier *q) {
  const delta_merge_clause *sp = k->spec;
  delta_buf star = DELTA_BUF_INIT;
  const char *text = sp->set;
  int rc;
  if (!text) {
    if ((rc = star_text(c, &star)) != 0)
      goto done;
    text = (const char *)star.data;
  }
  char what[64];
  snprintf(what, sizeof what, "%s %s", g, sp->action == DELTA_MERGE_INSERT ? "insert" : "update");
  rc = dml_set_new(&k->set, text, what, &c->wr->logical, bind, sp->action == DELTA_MERGE_UPDATE ? c->talias : NULL,
                   sp->action == DELTA_MERGE_INSERT, qualify_name, q);
done:
  buf_dispose(&star);
  return rc;
}

static int clauses_setup(merge_ctx *c, const delta_merge_options *o) {
  if (!(c->cl = mem_calloc((size_t)o->n_clauses + 1, sizeof *c->cl))) return DELTA_NOMEM();
  c->n_cl = o->n_clauses;
  bool open_ended[3] = {false, false, false};
  int rc;
  for (int i = 0; i < o->n_clauses; i++) {
    const delta_merge_clause *sp = &o->clauses[i];
    clause *k = &c->cl[i];
    k->spec = sp;
    const char *g = group_name(sp->when);
    if ((sp->when == DELTA_MERGE_NOT_MATCHED) != (sp->action == DELTA_MERGE_INSERT))
      return err_set(DELTA_EINVAL, "%s: %s", g,
                             sp->action == DELTA_MERGE_INSERT ? "only not-matched rows can be inserted"
                                                              : "not-matched source rows can only be inserted");
    if (open_ended[sp->when])
      return err_set(DELTA_EINVAL, "%s: only the last clause of a group may have no condition", g);
    if (!sp->condition) open_ended[sp->when] = true;
    const struct ArrowSchema *bind = sp->when == DELTA_MERGE_MATCHED ? &c->j_both
                                     : sp->when == DELTA_MERGE_NOT_MATCHED ? &c->j_s : &c->j_t;
    if (sp->when == DELTA_MERGE_MATCHED) c->n_matched++;
    else if (sp->when == DELTA_MERGE_NOT_MATCHED) c->n_insert++;
    else c->n_nmbs++;
    qualifier q = {c, sp->when != DELTA_MERGE_NOT_MATCHED, sp->when != DELTA_MERGE_NOT_MATCHED_BY_SOURCE};
    if (sp->condition && ((rc = expr_parse(sp->condition, &k->cond)) != 0 || (rc = expr_qualify(k->cond, qualify_name, &q)) != 0 ||
                          (rc = expr_bind(k->cond, bind)) != 0)) {
      err_prefix("%s condition", g);
      return rc;
    }
    if (sp->action == DELTA_MERGE_DELETE) continue;
    if (!sp->set && sp->when == DELTA_MERGE_NOT_MATCHED_BY_SOURCE)
      return err_set(DELTA_EINVAL, "%s: update needs its assignments (the source has no row here)", g);
    if ((rc = clause_set(c, k, g, bind, &q)) != 0)
      return rc;
  }
  /* several source rows per target row are fine when all they can do is
   * delete it (Spark's one exception) */
  for (int i = 0; i < c->n_cl; i++)
    if (c->cl[i].spec->when == DELTA_MERGE_MATCHED) {
      c->multi_ok = c->cl[i].spec->action == DELTA_MERGE_DELETE && !c->cl[i].cond && c->n_matched == 1;
      break;
    }
  return 0;
}

/* pick[r] = the first clause of group `when` whose condition holds for row
 * r of `rows` (of the group's joined schema), among rows with eligible[r]. */
static int pick_clauses(merge_ctx *c, delta_merge_when when, const struct ArrowArray *rows, const uint8_t *eligible,
                        int *pick) {
  int64_t n = rows->length;
  for (int64_t r = 0; r < n; r++) pick[r] = -1;
  uint8_t *m = mem_malloc((size_t)n + 1);
  if (!m) return DELTA_NOMEM();
  int rc = 0;
  for (int k = 0; k < c->n_cl; k++) {
    if (c->cl[k].spec->when != when) continue;
    if (c->cl[k].cond) {
      if ((rc = expr_eval_batch(c->cl[k].cond, rows, m)) != 0)
        goto done;
    } else {
      memset(m, 1, (size_t)n);
    }
    for (int64_t r = 0; r < n; r++)
      if (pick[r] < 0 && m[r] && (!eligible || eligible[r])) pick[r] = k;
  }
done:
  mem_free(m);
  return rc;
}

/* Rows of `rows` (schema `schema`) with pick[r] == k, through clause k's
 * SET: written as new data, and with CDF as change data. `pre` (logical
 * rows; none for inserts) is child 0 (t) of the selected rows. */
static int write_clause(merge_ctx *c, int k, const struct ArrowSchema *schema, const struct ArrowArray *rows,
                        const int *pick) {
  int64_t n = rows->length;
  uint8_t *m = mem_malloc((size_t)n + 1);
  if (!m) return DELTA_NOMEM();
  int64_t hits = 0;
  for (int64_t r = 0; r < n; r++) hits += (m[r] = pick[r] == k);
  struct ArrowArray sel = {0}, out = {0};
  data_writer *dw = NULL;
  int rc = 0;
  if (hits == 0) goto done;
  if ((rc = arrow_filter(schema, rows, m, &sel)) != 0) goto done;
  bool insert = c->cl[k].spec->action == DELTA_MERGE_INSERT;
  const struct ArrowArray *pre = insert ? NULL : sel.children[0];
  if ((rc = dml_set_apply(c->cl[k].set, pre, &sel, &out)) != 0) goto done;
  if ((rc = dml_fill_generated(c->wr, c->cl[k].set, &out, !insert)) != 0) goto done;
  if ((rc = rewrite_rows_updated(c->wr, &out)) != 0) goto done;
  if ((rc = rewrite_writers_data(c->wr, &dw)) != 0 || (rc = data_writer_write(dw, &out)) != 0) goto done;
  if (!insert && (rc = rewrite_cdc_write(c->wr, pre, "update_preimage")) != 0) goto done;
  rc = rewrite_cdc_write(c->wr, &out, insert ? "insert" : "update_postimage");
done:
  arrow_array_release(&sel);
  arrow_array_release(&out);
  mem_free(m);
  return rc;
}

/* ------------------------------------------------------------ target files */

typedef struct {
  merge_ctx *c;
  const delta_dv_bitmap *old;
  delta_bitmap64 *fresh;       /* rows this merge changes (updates and deletes) */
  int64_t pos;
  bool write;                  /* pass 2 */
  data_writer *keep_w;         /* copy-on-write: the rows that stay */
  int64_t n_changed, n_updated, copied;
} file_state;

typedef struct {
  int64_t *pt, *ps, n, cap;    /* pairs: target row, source row */
  uint8_t *live, *del, *upd, *keep;
  int32_t *mcount;
  int *pair_pick, *row_pick;
  struct ArrowArray pt_rows, ps_rows; /* the pairs' rows */
} batch_scratch;

static void scratch_free(batch_scratch *b) {
  mem_free(b->pt);
  mem_free(b->ps);
  mem_free(b->live);
  mem_free(b->del);
  mem_free(b->upd);
  mem_free(b->keep);
  mem_free(b->mcount);
  mem_free(b->pair_pick);
  mem_free(b->row_pick);
  arrow_array_release(&b->pt_rows);
  arrow_array_release(&b->ps_rows);
}

/* The pairs' target and source rows. */
static int pair_rows(merge_ctx *c, const struct ArrowSchema *schema, const struct ArrowArray *batch,
                     batch_scratch *b) {
  arrow_array_release(&b->pt_rows);
  arrow_array_release(&b->ps_rows);
  arrow_row_ref *refs = mem_malloc((size_t)b->n * sizeof *refs + 1);
  if (!refs) return DELTA_NOMEM();
  for (int64_t p = 0; p < b->n; p++) refs[p] = (arrow_row_ref){0, b->pt[p]};
  const struct ArrowArray *src = &c->source;
  int rc;
  if ((rc = arrow_take(schema, &batch, 1, refs, b->n, &b->pt_rows)) != 0)
    goto done;
  for (int64_t p = 0; p < b->n; p++) refs[p] = (arrow_row_ref){0, b->ps[p]};
  rc = arrow_take(&c->source_schema, &src, 1, refs, b->n, &b->ps_rows);
done:
  mem_free(refs);
  return rc;
}

static int merge_batch(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  file_state *st = ctx;
  merge_ctx *c = st->c;
  int64_t n = batch->length;
  batch_scratch b;
  memset(&b, 0, sizeof b);
  merge_joined jw;
  int rc = 0;
  if (batch->offset != 0) return err_set(DELTA_EINVAL, "internal: a target batch with an offset");
  b.live = mem_malloc((size_t)n + 1);
  b.del = mem_calloc((size_t)n + 1, 1);
  b.upd = mem_calloc((size_t)n + 1, 1);
  b.keep = mem_malloc((size_t)n + 1);
  b.mcount = mem_calloc((size_t)n + 1, sizeof *b.mcount);
  b.row_pick = mem_malloc(((size_t)n + 1) * sizeof *b.row_pick);
  if (!b.live || !b.del || !b.upd || !b.keep || !b.mcount || !b.row_pick) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = dv_bitmap64_keep(st->old, (uint64_t)st->pos, (uint64_t)n, b.live)) != 0) goto done;
  /* 1. the pairs of equal keys, then the rest of the ON condition; with
   * no keys, every pair against the whole condition */
  if (c->join.nested) {
    if ((rc = merge_nested_pairs(&c->join, c->on, schema, batch, b.live, &b.pt, &b.ps, &b.n, &b.cap)) != 0)
      goto done;
  } else {
    for (int64_t r = 0; r < n; r++)
      if (b.live[r] && (rc = merge_join_probe(&c->join, batch, r, &b.pt, &b.ps, &b.n, &b.cap)) != 0)
        goto done;
  }
  if (b.n && c->join.residual && !c->join.nested) {
    if ((rc = pair_rows(c, schema, batch, &b)) != 0) goto done;
    uint8_t *ok = mem_malloc((size_t)b.n + 1);
    if (!ok) {
      rc = DELTA_NOMEM();
      goto done;
    }
    rc = expr_eval_batch(c->on, merge_join_rows(&jw, &b.pt_rows, &b.ps_rows, b.n), ok);
    int64_t k = 0;
    for (int64_t p = 0; p < b.n; p++)
      if (ok[p]) {
        b.pt[k] = b.pt[p];
        b.ps[k++] = b.ps[p];
      }
    mem_free(ok);
    if (rc) goto done;
    if (k != b.n) {
      b.n = k;
      arrow_array_release(&b.pt_rows);
    }
  }
  for (int64_t p = 0; p < b.n; p++) b.mcount[b.pt[p]]++;
  if (c->n_matched && !c->multi_ok)
    for (int64_t r = 0; r < n; r++)
      if (b.mcount[r] > 1) {
        rc = err_set(DELTA_EINVAL, "a target row matched %d source rows: with update or conditional delete "
                                           "clauses each target row may match one source row at most "
                                           "(DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE)",
                             (int)b.mcount[r]);
        goto done;
      }
  if (!st->write)
    for (int64_t p = 0; p < b.n; p++) c->src_matched[b.ps[p]] = 1;
  /* 2. matched clauses per pair */
  const struct ArrowArray *jp = NULL;
  if (b.n && c->n_matched) {
    if (!b.pt_rows.release && (rc = pair_rows(c, schema, batch, &b)) != 0) goto done;
    jp = merge_join_rows(&jw, &b.pt_rows, &b.ps_rows, b.n);
    if (!(b.pair_pick = mem_malloc((size_t)b.n * sizeof *b.pair_pick + 1))) {
      rc = DELTA_NOMEM();
      goto done;
    }
    if ((rc = pick_clauses(c, DELTA_MERGE_MATCHED, jp, NULL, b.pair_pick)) != 0) goto done;
    for (int64_t p = 0; p < b.n; p++) {
      int k = b.pair_pick[p];
      if (k < 0) continue;
      if (c->cl[k].spec->action == DELTA_MERGE_DELETE) b.del[b.pt[p]] = 1;
      else b.upd[b.pt[p]] = 1;
    }
  }
  /* 3. not matched by source: live rows no pair holds */
  merge_joined jt;
  const struct ArrowArray *tb = merge_join_rows(&jt, (struct ArrowArray *)batch, NULL, n);
  for (int64_t r = 0; r < n; r++) b.keep[r] = b.live[r] && b.mcount[r] == 0;
  if (c->n_nmbs) {
    if ((rc = pick_clauses(c, DELTA_MERGE_NOT_MATCHED_BY_SOURCE, tb, b.keep, b.row_pick)) != 0) goto done;
    for (int64_t r = 0; r < n; r++) {
      int k = b.row_pick[r];
      if (k < 0) continue;
      if (c->cl[k].spec->action == DELTA_MERGE_DELETE) b.del[r] = 1;
      else b.upd[r] = 1;
    }
  } else {
    for (int64_t r = 0; r < n; r++) b.row_pick[r] = -1;
  }
  /* 4. what changes */
  if (!st->write) {
    for (int64_t r = 0; r < n; r++) {
      if (!b.del[r] && !b.upd[r]) continue;
      st->n_changed++;
      st->n_updated += b.upd[r];
      if (b.mcount[r]) (b.del[r] ? c->matched_deleted++ : c->matched_updated++);
      else (b.del[r] ? c->nmbs_deleted++ : c->nmbs_updated++);
      if ((rc = dv_bitmap64_add(st->fresh, (uint64_t)(st->pos + r))) != 0)
        goto done;
    }
    goto done;
  }
  for (int k = 0; k < c->n_cl; k++) {
    if (c->cl[k].spec->action != DELTA_MERGE_UPDATE) continue;
    if (c->cl[k].spec->when == DELTA_MERGE_MATCHED && jp) rc = write_clause(c, k, &c->j_both, jp, b.pair_pick);
    else if (c->cl[k].spec->when == DELTA_MERGE_NOT_MATCHED_BY_SOURCE)
      rc = write_clause(c, k, &c->j_t, tb, b.row_pick);
    if (rc) goto done;
  }
  if (c->wr->cdc) {
    struct ArrowArray gone;
    if ((rc = arrow_filter(schema, batch, b.del, &gone)) != 0)
      goto done;
    rc = rewrite_cdc_write(c->wr, &gone, "delete");
    arrow_array_release(&gone);
    if (rc) goto done;
  }
  if (st->keep_w) {
    struct ArrowArray rest;
    for (int64_t r = 0; r < n; r++) b.keep[r] = b.live[r] && !b.del[r] && !b.upd[r];
    if ((rc = arrow_filter(schema, batch, b.keep, &rest)) != 0)
      goto done;
    st->copied += rest.length;
    rc = data_writer_write(st->keep_w, &rest);
    arrow_array_release(&rest);
  }
done:
  st->pos += n;
  scratch_free(&b);
  return rc;
}

static int merge_file(merge_ctx *c, const delta_add *a) {
  delta_dv_bitmap *old = NULL;
  delta_bitmap64 *fresh = NULL;
  int rc = 0;
  if (a->dv.present && (rc = dv_load(c->s->table->storage, &a->dv, &old)) != 0) return rc;
  if ((rc = dv_bitmap64_new(&fresh)) != 0) goto done;
  file_state st = {c, old, fresh, 0, false, NULL, 0, 0, 0};
  int64_t t0 = dml_clock_ms();
  rc = rewrite_read_file_tracked(c->wr, a, merge_batch, &st);
  c->scan_ms += dml_clock_ms() - t0;
  if (rc) goto done;
  if (st.n_changed == 0) goto done; /* untouched */
  int64_t live = st.pos - (int64_t)(old ? dv_bitmap_cardinality(old) : 0);
  bool whole = st.n_changed >= live;
  if ((rc = rewrite_remove_action(&c->actions, a, c->now)) != 0) goto done;
  c->removed[c->n_removed++] = a->path;
  c->res->files_removed++;
  c->bytes_removed += a->size;
  t0 = dml_clock_ms();
  st.pos = 0;
  st.write = true;
  if (whole) {
    if (a->dv.present) c->dvs_removed++;
  } else if (c->use_dv) {
    if ((rc = rewrite_add_with_dv(a, old, fresh, rewrite_dv_inline(c->s), &c->dv_file, &c->dv_path, c->now, &c->actions)) != 0)
      goto done;
    c->res->dvs_added++;
    c->bytes_readded += a->size;
    if (a->dv.present) c->dvs_updated++;
  } else if ((rc = rewrite_writers_data(c->wr, &st.keep_w)) != 0) {
    goto done;
  }
  /* pass 2 writes updated rows, change data and copied rows */
  if (st.n_updated || c->cdf || st.keep_w) rc = rewrite_read_file_tracked(c->wr, a, merge_batch, &st);
  c->res->rows_copied += st.copied;
  c->rewrite_ms += dml_clock_ms() - t0;
done:
  dv_bitmap_free(old);
  dv_bitmap64_free(fresh);
  return rc;
}

/* Unmatched source rows through the insert clauses. */
static int merge_inserts(merge_ctx *c) {
  int64_t n = c->source.length;
  int *pick = mem_malloc(((size_t)n + 1) * sizeof *pick);
  uint8_t *open = mem_malloc((size_t)n + 1);
  int rc;
  if (!pick || !open) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int64_t r = 0; r < n; r++) open[r] = !c->src_matched[r];
  merge_joined js;
  const struct ArrowArray *rows = merge_join_rows(&js, &c->source, NULL, n);
  if ((rc = pick_clauses(c, DELTA_MERGE_NOT_MATCHED, rows, open, pick)) != 0)
    goto done;
  for (int64_t r = 0; r < n; r++) c->res->rows_inserted += pick[r] >= 0;
  for (int k = 0; k < c->n_cl; k++)
    if (c->cl[k].spec->when == DELTA_MERGE_NOT_MATCHED && (rc = write_clause(c, k, &c->j_s, rows, pick)) != 0)
      goto done;
done:
  mem_free(pick);
  mem_free(open);
  return rc;
}

/* --------------------------------------------------------------- commit */

/* matchedPredicates etc. as Spark writes them: a JSON array in a string,
 * [{"predicate":"...","actionType":"update"}, ...]. */
static int predicates_param(merge_ctx *c, delta_merge_when when, delta_json_writer *w) {
  static const char *const action[] = {"update", "delete", "insert"};
  delta_buf arr = DELTA_BUF_INIT;
  delta_json_writer aw;
  json_writer_init(&aw, &arr, 0);
  json_write_array_begin(&aw);
  for (int k = 0; k < c->n_cl; k++) {
    const delta_merge_clause *sp = c->cl[k].spec;
    if (sp->when != when) continue;
    json_write_object_begin(&aw);
    if (sp->condition) {
      json_write_key(&aw, "predicate");
      json_write_string(&aw, sp->condition);
    }
    json_write_key(&aw, "actionType");
    json_write_string(&aw, action[sp->action]);
    json_write_object_end(&aw);
  }
  json_write_array_end(&aw);
  int rc;
  if ((rc = json_writer_finish(&aw)) != 0)
    goto done;
  rc = json_write_string_n(w, (const char *)arr.data, arr.len);
done:
  buf_dispose(&arr);
  return rc;
}

static int commit_merge(merge_ctx *c, delta_table *t, const delta_merge_options *o) {
  delta_merge_result *r = c->res;
  delta_buf params = DELTA_BUF_INIT, metrics = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &params, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "predicate");
  int rc;
  if ((rc = log_predicate_param(o->on, &w)) != 0)
    goto done;
  json_write_key(&w, "matchedPredicates");
  if ((rc = predicates_param(c, DELTA_MERGE_MATCHED, &w)) != 0)
    goto done;
  json_write_key(&w, "notMatchedPredicates");
  if ((rc = predicates_param(c, DELTA_MERGE_NOT_MATCHED, &w)) != 0)
    goto done;
  json_write_key(&w, "notMatchedBySourcePredicates");
  if ((rc = predicates_param(c, DELTA_MERGE_NOT_MATCHED_BY_SOURCE, &w)) != 0)
    goto done;
  json_write_object_end(&w);
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_putc(&params, 0)) != 0)
    goto done;
  rc = buf_printf(
        &metrics,
        "{\"numSourceRows\":\"%lld\",\"numTargetRowsInserted\":\"%lld\",\"numTargetRowsUpdated\":\"%lld\","
        "\"numTargetRowsMatchedUpdated\":\"%lld\",\"numTargetRowsNotMatchedBySourceUpdated\":\"%lld\","
        "\"numTargetRowsDeleted\":\"%lld\",\"numTargetRowsMatchedDeleted\":\"%lld\","
        "\"numTargetRowsNotMatchedBySourceDeleted\":\"%lld\",\"numTargetRowsCopied\":\"%lld\","
        "\"numOutputRows\":\"%lld\",\"numTargetFilesAdded\":\"%lld\",\"numTargetFilesRemoved\":\"%lld\","
        "\"numTargetChangeFilesAdded\":\"%lld\",\"numTargetDeletionVectorsAdded\":\"%lld\","
        "\"numTargetDeletionVectorsRemoved\":\"%lld\",\"numTargetDeletionVectorsUpdated\":\"%lld\","
        "\"numTargetFilesBeforeSkipping\":\"%lld\",\"numTargetFilesAfterSkipping\":\"%lld\","
        "\"numTargetBytesAdded\":\"%lld\",\"numTargetBytesRemoved\":\"%lld\",\"executionTimeMs\":\"%lld\","
        "\"scanTimeMs\":\"%lld\",\"rewriteTimeMs\":\"%lld\"}",
        (long long)r->source_rows, (long long)r->rows_inserted, (long long)r->rows_updated,
        (long long)c->matched_updated, (long long)c->nmbs_updated, (long long)r->rows_deleted,
        (long long)c->matched_deleted, (long long)c->nmbs_deleted, (long long)r->rows_copied,
        (long long)(r->rows_inserted + r->rows_updated + r->rows_copied), (long long)r->files_added,
        (long long)(r->files_removed - r->dvs_added), (long long)r->cdc_files,
        /* as Spark reports them: added and removed include the replaced DVs */
        (long long)r->dvs_added, (long long)(c->dvs_removed + c->dvs_updated), (long long)c->dvs_updated,
        (long long)r->files_considered, (long long)(r->files_considered - r->files_skipped),
        (long long)(rewrite_writers_bytes(c->wr) + c->bytes_readded), (long long)c->bytes_removed,
        (long long)(dml_clock_ms() - c->t_start), (long long)c->scan_ms, (long long)c->rewrite_ms);
  if (rc) goto done;
  if ((rc = buf_putc(&metrics, 0)) != 0)
    goto done;
  txn_ctx tx;
  txn_begin(&tx, t, c->s, "MERGE");
  txn_set_info(&tx, (const char *)params.data, (const char *)metrics.data);
  txn_removes(&tx, c->removed, c->n_removed);
  /* rows a concurrent append adds could have matched (or been unmatched
   * targets): with insert or not-matched-by-source clauses that changes
   * the outcome, so such appends conflict */
  tx.req.reads_table = c->n_insert > 0 || c->n_nmbs > 0;
  tx.req.changes_metadata = c->old_schema != NULL;
  tx.req.max_attempts = o->max_attempts;
  rc = txn_commit_actions(&tx, (const char *)c->actions.data, c->actions.len);
  if (rc == 0)
    r->version = tx.version;
  txn_dispose(&tx);
done:
  buf_dispose(&params);
  buf_dispose(&metrics);
  return rc;
}

/* ------------------------------------------------------ schema evolution */

/* A copy of `kv` with key set to value (added when missing). */
static int config_with(const delta_kv *kv, int n, const char *key, const char *value, delta_kv **out, int *n_out) {
  delta_kv *c = mem_calloc((size_t)n + 1, sizeof *c);
  if (!c) return DELTA_NOMEM();
  int k = 0;
  for (int i = 0; i < n; i++)
    if (strcmp(kv[i].key, key) != 0) c[k++] = kv[i];
  c[k++] = (delta_kv){key, value};
  *out = c;
  *n_out = k;
  return 0;
}

/* --schema-mode merge: the target's schema grown by what the clauses bring;
 * the snapshot's schema is swapped for it (so the target's files read
 * NULL for the new columns and everything is written with it) and the
 * new metaData action goes first into c->actions. */
static int evolve_schema(merge_ctx *c, const delta_merge_options *o) {
  struct ArrowSchema jb = {0}, jt = {0}, js = {0};
  delta_type *merged = NULL;
  delta_buf schema_json = DELTA_BUF_INIT;
  delta_kv *config = NULL;
  char max_id_text[24];
  int rc;
  if ((rc = joined_schema(&jb, c->tlogical, c->talias, &c->source_schema, c->salias)) != 0)
    goto done;
  if ((rc = joined_schema(&jt, c->tlogical, c->talias, NULL, NULL)) != 0)
    goto done;
  if ((rc = joined_schema(&js, NULL, NULL, &c->source_schema, c->salias)) != 0)
    goto done;
  /* names resolve as clauses_setup resolves them: each group sees its sides */
  qualifier qm = {c, true, true}, qi = {c, false, true}, qn = {c, true, false};
  merge_evolve_input in = {c->s->schema, c->tlogical, &c->source_schema, &jb, &jt, &js, c->talias, qualify_name,
                           {[DELTA_MERGE_MATCHED] = &qm, [DELTA_MERGE_NOT_MATCHED] = &qi,
                            [DELTA_MERGE_NOT_MATCHED_BY_SOURCE] = &qn}};
  if ((rc = merge_evolve_schema(&in, o->clauses, o->n_clauses, &merged)) != 0 || !merged) goto done;
  delta_metadata m = c->s->metadata;
  if (table_cm_mode(m.configuration, m.n_configuration) != CM_NONE) {
    /* new columns get ids and physical names after the table's highest */
    const char *mx = snapshot_config(c->s, "delta.columnMapping.maxColumnId");
    int64_t max_id = mx ? strtoll(mx, NULL, 10) : 0;
    if ((rc = schema_assign_column_mapping(merged, &max_id)) != 0) goto done;
    snprintf(max_id_text, sizeof max_id_text, "%lld", (long long)max_id);
    if ((rc = config_with(m.configuration, m.n_configuration, "delta.columnMapping.maxColumnId", max_id_text, &config,
                          &m.n_configuration)) != 0)
      goto done;
    m.configuration = config;
  }
  if ((rc = table_check_writable(&c->s->protocol, &m, merged)) != 0) goto done;
  if ((rc = schema_to_json(merged, &schema_json)) != 0) goto done;
  if ((rc = buf_putc(&schema_json, 0)) != 0) goto done;
  m.schema_string = (const char *)schema_json.data;
  delta_json_writer w;
  json_writer_init(&w, &c->actions, 0);
  if ((rc = action_metadata_json(&w, &m)) != 0)
    goto done;
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_putc(&c->actions, '\n')) != 0)
    goto done;
  c->old_schema = c->s->schema;
  c->s->schema = merged;
  merged = NULL;
done:
  if (jb.release) jb.release(&jb);
  if (jt.release) jt.release(&jt);
  if (js.release) js.release(&js);
  log_type_free(merged);
  buf_dispose(&schema_json);
  mem_free(config);
  return rc;
}

/* ----------------------------------------------------------------- merge */

static int scan_targets(merge_ctx *c, const struct ArrowSchema *logical) {
  delta_merge_result *r = c->res;
  r->files_considered = c->s->n_files;
  /* pruning by the source's key values, unless a not-matched-by-source
   * clause needs every target row; no source row with a key: no match */
  bool prune = !c->n_nmbs, none = prune && c->join.n_keyed == 0;
  int rc;
  if (prune && (rc = merge_join_keysets(&c->join, logical)) != 0) return rc;
  if (prune && c->join.nested && (rc = merge_nested_ranges(&c->join, c->on, &c->j_both, logical)) != 0) return rc;
  scan_pruner pruner = {c->s->schema, (const char *const *)c->s->metadata.partition_columns,
                        c->s->metadata.n_partition_columns, scan_mapping_mode(c->s), NULL};
  for (int64_t i = 0; i < c->s->n_files; i++) {
    const delta_add *a = &c->s->files[i];
    scan_prune_input in = {a->partition_values, a->n_partition_values, a->stats, false, NULL, 0, 0};
    int may = none ? 0 : prune ? merge_join_file_may_match(&c->join, &pruner, &in) : 1;
    if (may < 0) return may;
    if (!may) r->files_skipped++;
    else if ((rc = merge_file(c, a)) != 0) return rc;
  }
  return 0;
}

int delta_merge(delta_table *table, const delta_merge_options *o, delta_merge_result *result) {
  delta_merge_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->version = -1;
  if (!o || (o->version != DELTA_MERGE_OPTIONS_VERSION && o->version != 1))
    return err_set(DELTA_EINVAL, "merge options: unknown version");
  if (!o->source) return err_set(DELTA_EINVAL, "merge: a source is required");
  if (!o->on || !*o->on) return err_set(DELTA_EINVAL, "merge: an ON condition is required");
  if (o->n_clauses <= 0 || !o->clauses) return err_set(DELTA_EINVAL, "merge: at least one WHEN clause is required");
  merge_ctx c;
  memset(&c, 0, sizeof c);
  c.res = result;
  c.talias = o->target_alias ? o->target_alias : "t";
  c.salias = o->source_alias ? o->source_alias : "s";
  delta_table *t = table; /* the caller's */
  if (strcasecmp(c.talias, c.salias) == 0) return err_set(DELTA_EINVAL, "merge: the aliases must differ");
  int rc;
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (o->read_version >= 0) {
    so.at_version = true;
    so.table_version = o->read_version;
  }
  if ((rc = txn_open(t, &so, &c.s)) != 0)
    goto done;
  if ((rc = dml_check_table(c.s)) != 0)
    goto done;
  c.use_dv = !o->no_deletion_vectors && rewrite_dv_enabled(c.s);
  c.cdf = table_prop_true(c.s->metadata.configuration, c.s->metadata.n_configuration, "delta.enableChangeDataFeed");
  c.now = write_now_ms();
  c.t_start = dml_clock_ms();
  if ((rc = merge_read_source(o->source, &c.source_schema, &c.source)) != 0) {
    err_prefix("source");
    goto done;
  }
  result->source_rows = c.source.length;
  if ((rc = log_schema_to_arrow(c.s->schema, &c.old_logical)) != 0) goto done;
  c.tlogical = &c.old_logical;
  if (o->version >= 2 && o->schema_merge && (rc = evolve_schema(&c, o)) != 0) goto done;
  if ((rc = rewrite_writers_new(&c.wr, c.s, c.cdf)) != 0) goto done;
  if ((rc = rewrite_writers_track_rows(c.wr)) != 0) goto done;
  c.tlogical = &c.wr->logical;
  if ((rc = joined_schema(&c.j_both, &c.wr->logical, c.talias, &c.source_schema, c.salias)) != 0)
    goto done;
  if ((rc = joined_schema(&c.j_t, &c.wr->logical, c.talias, NULL, NULL)) != 0)
    goto done;
  if ((rc = joined_schema(&c.j_s, NULL, NULL, &c.source_schema, c.salias)) != 0)
    goto done;
  qualifier q = {&c, true, true};
  if ((rc = expr_parse(o->on, &c.on)) != 0 || (rc = expr_qualify(c.on, qualify_name, &q)) != 0 ||
      (rc = expr_bind(c.on, &c.j_both)) != 0) {
    err_prefix("--on");
    goto done;
  }
  c.join.source_schema = &c.source_schema;
  c.join.source = &c.source;
  if ((rc = merge_join_keys(&c.join, c.on, &c.j_both)) != 0) goto done;
  if ((rc = merge_join_build(&c.join)) != 0) goto done;
  if ((rc = clauses_setup(&c, o)) != 0) goto done;
  for (int k = 0; k < c.n_cl; k++) /* source structs may be shaped unlike the target's */
    if (c.cl[k].set) dml_set_conform(c.cl[k].set, c.s->schema);
  if (c.use_dv) {
    uint8_t uuid[16];
    dml_random_uuid(uuid);
    if ((rc = dv_uuid_path("", uuid, &c.dv_path)) != 0) goto done;
  }
  c.removed = mem_calloc((size_t)c.s->n_files + 1, sizeof *c.removed);
  c.src_matched = mem_calloc((size_t)c.source.length + 1, 1);
  if (!c.removed || !c.src_matched) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = scan_targets(&c, &c.wr->logical)) != 0) goto done;
  int64_t t0 = dml_clock_ms();
  if (c.n_insert && (rc = merge_inserts(&c)) != 0) goto done;
  result->rows_updated = c.matched_updated + c.nmbs_updated;
  result->rows_deleted = c.matched_deleted + c.nmbs_deleted;
  if (result->rows_updated + result->rows_deleted + result->rows_inserted == 0) {
    result->noop = true;
    result->version = c.s->version;
    goto done;
  }
  if ((rc = rewrite_dv_file_put(t->storage, &c.dv_path, &c.dv_file)) != 0) goto done;
  if ((rc = rewrite_writers_finish(c.wr, &c.actions, &result->files_added, &result->cdc_files)) != 0) goto done;
  c.rewrite_ms += dml_clock_ms() - t0;
  rc = commit_merge(&c, t, o);
done:
  for (int k = 0; k < c.n_cl; k++) {
    expr_free(c.cl[k].cond);
    dml_set_free(c.cl[k].set);
  }
  mem_free(c.cl);
  merge_join_free(&c.join);
  expr_free(c.on);
  arrow_array_release(&c.source);
  if (c.source_schema.release) c.source_schema.release(&c.source_schema);
  if (c.j_both.release) c.j_both.release(&c.j_both);
  if (c.j_t.release) c.j_t.release(&c.j_t);
  if (c.j_s.release) c.j_s.release(&c.j_s);
  rewrite_writers_free(c.wr);
  if (c.old_logical.release) c.old_logical.release(&c.old_logical);
  if (c.old_schema) {
    log_type_free(c.s->schema);
    c.s->schema = c.old_schema;
  }
  mem_free(c.src_matched);
  mem_free(c.removed);
  buf_dispose(&c.dv_file);
  buf_dispose(&c.dv_path);
  buf_dispose(&c.actions);
  delta_snapshot_free(c.s);
  return rc;
}
