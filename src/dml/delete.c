/*
 * DELETE; see include/deltac/dml.h. Per candidate file (after pruning):
 * pass 1 reads every physical row (no DV applied, so a row's position is its
 * row index) and marks the rows the predicate holds for that the old DV has
 * not deleted yet. Then the file is left alone (nothing new), removed whole
 * (every live row matched), given a new DV (old DV + new rows), or copied
 * (pass 2 writes the rows that stay, and with CDF the deleted rows to
 * _change_data/).
 */
#include "deltac/dml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "dml/dml_internal.h"
#include "dv/dv.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "scan/prune.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "txn/txn.h"
#include "rewrite/data_write.h"
#include "log/table_setup.h"
#include "txn/commit.h"

typedef struct {
  delta_snapshot *s;
  const char *predicate;
  expr_node *pred;             /* bound to the stream schema */
  bool use_dv, cdf;
  rewrite_writers *wr;
  delta_buf dv_file;           /* the commit's DV file being built */
  delta_buf dv_path;           /* its pathOrInlineDv ('u') */
  delta_buf actions;
  delta_dml_result *res;
  const char **removed;
  int64_t n_removed;
  int64_t now;
  int64_t dvs_removed, dvs_updated;
  dml_set *set;                /* UPDATE */
  int64_t bytes_removed, bytes_readded; /* removed files; files added back with a DV */
  int64_t scan_ms, rewrite_ms;          /* finding the rows (pass 1), writing (pass 2 and finishing) */
} delete_ctx;

typedef struct {
  const delta_dv_bitmap *old;
  delta_bitmap64 *fresh;       /* rows this delete removes */
  int64_t pos;
  int64_t n_new;
  const expr_node *pred;
} pass1_state;

static int pass1_batch(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  (void)schema;
  pass1_state *st = ctx;
  int rc = 0;
  uint8_t *m = mem_malloc((size_t)batch->length + 1);
  if (!m) return DELTA_NOMEM();
  if (st->pred) {
    if ((rc = expr_eval_batch(st->pred, batch, m)) != 0)
      goto done;
  } else {
    memset(m, 1, (size_t)batch->length);
  }
  for (int64_t i = 0; i < batch->length; i++) {
    uint64_t row = (uint64_t)(st->pos + i);
    if (m[i] && !(st->old && dv_bitmap_contains(st->old, row))) {
      rc = dv_bitmap64_add(st->fresh, row);
      st->n_new++;
      if (rc) goto done;
    }
  }
done:
  st->pos += batch->length;
  mem_free(m);
  return rc;
}

typedef struct {
  const delta_dv_bitmap *old;
  const delta_bitmap64 *fresh;
  int64_t pos;
  data_writer *keep_w;          /* NULL: the rows that stay are not copied */
  rewrite_writers *wr;              /* cdc */
  int64_t copied;
  dml_set *set;                 /* UPDATE: the assignments; NULL for DELETE */
} pass2_state;

/* UPDATE: the deleted rows `gone` updated into *upd and written, and
 * (change data feed) their pre- and post-images. */
static int update_rows(pass2_state *st, struct ArrowArray *gone, struct ArrowArray *upd) {
  if (!gone->length) return 0;
  data_writer *uw = NULL;
  int rc;
  if ((rc = dml_set_apply(st->set, gone, gone, upd)) != 0) return rc;
  if ((rc = dml_fill_generated(st->wr, st->set, upd, true)) != 0) return rc;
  if ((rc = rewrite_rows_updated(st->wr, upd)) != 0) return rc;
  if ((rc = rewrite_writers_data(st->wr, &uw)) != 0) return rc;
  if ((rc = data_writer_write(uw, upd)) != 0) return rc;
  if (!st->wr->cdc) return 0;
  if ((rc = rewrite_cdc_write(st->wr, gone, "update_preimage")) != 0) return rc;
  return rewrite_cdc_write(st->wr, upd, "update_postimage");
}

static int pass2_batch(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  pass2_state *st = ctx;
  int64_t n = batch->length;
  uint8_t *keep = mem_malloc((size_t)n + 1), *del = mem_malloc((size_t)n + 1);
  int rc = 0;
  if (!keep || !del) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = dv_bitmap64_mask(st->fresh, (uint64_t)st->pos, (uint64_t)n, del)) != 0) goto done;
  if ((rc = dv_bitmap64_keep(st->old, (uint64_t)st->pos, (uint64_t)n, keep)) != 0) goto done;
  /* A row the old DV already deleted is never deleted or updated again
   * (`fresh` may hold the old DV's rows too: it becomes the new DV). */
  for (int64_t i = 0; i < n; i++) {
    del[i] = del[i] && keep[i];
    keep[i] = keep[i] && !del[i];
  }
  if (st->keep_w) {
    struct ArrowArray rest;
    if ((rc = arrow_filter(schema, batch, keep, &rest)) != 0) goto done;
    st->copied += rest.length;
    rc = data_writer_write(st->keep_w, &rest);
    arrow_array_release(&rest);
    if (rc) goto done;
  }
  if (st->set) {
    struct ArrowArray gone, upd = {0};
    if ((rc = arrow_filter(schema, batch, del, &gone)) != 0) goto done;
    rc = update_rows(st, &gone, &upd);
    arrow_array_release(&upd);
    arrow_array_release(&gone);
  } else if (st->wr && st->wr->cdc) {
    struct ArrowArray gone;
    if ((rc = arrow_filter(schema, batch, del, &gone)) != 0) goto done;
    rc = rewrite_cdc_write(st->wr, &gone, "delete");
    arrow_array_release(&gone);
  }
done:
  st->pos += n;
  mem_free(keep);
  mem_free(del);
  return rc;
}

static int delete_file(delete_ctx *c, const delta_add *a) {
  delta_dv_bitmap *old = NULL;
  delta_bitmap64 *fresh = NULL;
  int rc = 0;
  int64_t t1 = -1; /* set when the file changes: the rest is rewriting */
  if (a->dv.present && (rc = dv_load(c->s->table->storage, &a->dv, &old)) != 0) return rc;
  if ((rc = dv_bitmap64_new(&fresh)) != 0) goto done;
  pass1_state p1 = {old, fresh, 0, 0, c->pred};
  int64_t t0 = dml_clock_ms();
  rc = rewrite_read_file(c->s, a, pass1_batch, &p1);
  c->scan_ms += dml_clock_ms() - t0;
  if (rc) goto done;
  if (p1.n_new == 0) goto done; /* untouched */
  t1 = dml_clock_ms();
  int64_t live = p1.pos - (int64_t)(old ? dv_bitmap_cardinality(old) : 0);
  bool whole = p1.n_new >= live;
  c->res->rows_deleted += p1.n_new;
  if ((rc = rewrite_remove_action(&c->actions, a, c->now)) != 0) goto done;
  c->removed[c->n_removed++] = a->path;
  c->res->files_removed++;
  c->bytes_removed += a->size;
  if (whole) {
    if (a->dv.present) c->dvs_removed++;
    if (c->set || (!c->use_dv && c->cdf)) {
      pass2_state p2 = {old, fresh, 0, NULL, c->wr, 0, c->set};
      rc = rewrite_read_file_tracked(c->wr, a, pass2_batch, &p2);
    }
    goto done;
  }
  if (c->use_dv) {
    if ((rc = rewrite_add_with_dv(a, old, fresh, rewrite_dv_inline(c->s), &c->dv_file, &c->dv_path, c->now, &c->actions)) != 0)
      goto done;
    c->res->dvs_added++;
    c->bytes_readded += a->size;
    if (a->dv.present) c->dvs_updated++;
    if (c->set) {
      /* the updated rows go to a new file */
      pass2_state p2 = {old, fresh, 0, NULL, c->wr, 0, c->set};
      rc = rewrite_read_file_tracked(c->wr, a, pass2_batch, &p2);
    }
    goto done;
  }
  /* copy-on-write */
  pass2_state p2 = {old, fresh, 0, NULL, c->cdf || c->set ? c->wr : NULL, 0, c->set};
  if ((rc = rewrite_writers_data(c->wr, &p2.keep_w)) != 0) goto done;
  rc = rewrite_read_file_tracked(c->wr, a, pass2_batch, &p2);
  c->res->rows_copied += p2.copied;
done:
  if (t1 >= 0) c->rewrite_ms += dml_clock_ms() - t1;
  dv_bitmap_free(old);
  dv_bitmap64_free(fresh);
  return rc;
}

/* commitInfo's parameters and metrics (as Spark names them) and the commit
 * of c's actions; r->version is the version committed. */
static int commit_dml(delete_ctx *c, delta_table *t, const char *where, int max_attempts, int64_t t_start) {
  delta_dml_result *r = c->res;
  delta_buf params = DELTA_BUF_INIT, metrics = DELTA_BUF_INIT;
  int rc;
  delta_json_writer w;
  json_writer_init(&w, &params, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "predicate");
  rc = log_predicate_param(where, &w);
  json_write_object_end(&w);
  if (rc != 0)
    goto done;
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if (c->set)
    rc = buf_printf(&metrics,
                          "{\"numRemovedFiles\":\"%lld\",\"numAddedFiles\":\"%lld\",\"numUpdatedRows\":\"%lld\","
                          "\"numCopiedRows\":\"%lld\",\"numDeletionVectorsAdded\":\"%lld\","
                          "\"numDeletionVectorsRemoved\":\"%lld\",\"numDeletionVectorsUpdated\":\"%lld\","
                          "\"numAddedChangeFiles\":\"%lld\"",
                          (long long)(r->files_removed - r->dvs_added), (long long)r->files_added,
                          (long long)r->rows_deleted, (long long)r->rows_copied,
                          (long long)(r->dvs_added - c->dvs_updated), (long long)c->dvs_removed,
                          (long long)c->dvs_updated, (long long)r->cdc_files);
  else
    rc = buf_printf(&metrics,
                          "{\"numRemovedFiles\":\"%lld\",\"numAddedFiles\":\"%lld\",\"numDeletedRows\":\"%lld\","
                          "\"numCopiedRows\":\"%lld\",\"numDeletionVectorsAdded\":\"%lld\","
                          "\"numDeletionVectorsRemoved\":\"%lld\",\"numDeletionVectorsUpdated\":\"%lld\","
                          "\"numAddedChangeFiles\":\"%lld\",\"numFilesBeforeSkipping\":\"%lld\","
                          "\"numFilesAfterSkipping\":\"%lld\"",
                          (long long)(r->files_removed - r->dvs_added), (long long)r->files_added,
                          (long long)r->rows_deleted, (long long)r->rows_copied,
                          (long long)(r->dvs_added - c->dvs_updated), (long long)c->dvs_removed, (long long)c->dvs_updated,
                          (long long)r->cdc_files, (long long)r->files_considered,
                          (long long)(r->files_considered - r->files_skipped));
  if (rc != 0)
    goto done;
  /* bytes: the sizes in the commit's add and remove lines (a file given a
   * DV is removed and added back, as Spark counts it) */
  rc = buf_printf(&metrics,
                        ",\"numAddedBytes\":\"%lld\",\"numRemovedBytes\":\"%lld\",\"executionTimeMs\":\"%lld\","
                        "\"scanTimeMs\":\"%lld\",\"rewriteTimeMs\":\"%lld\"}",
                        (long long)(rewrite_writers_bytes(c->wr) + c->bytes_readded), (long long)c->bytes_removed,
                        (long long)(dml_clock_ms() - t_start), (long long)c->scan_ms, (long long)c->rewrite_ms);
  if (rc != 0)
    goto done;
  if ((rc = buf_putc(&params, 0)) != 0)
    goto done;
  if ((rc = buf_putc(&metrics, 0)) != 0)
    goto done;
  txn_ctx tx;
  txn_begin(&tx, t, c->s, c->set ? "UPDATE" : "DELETE");
  txn_set_info(&tx, (const char *)params.data, (const char *)metrics.data);
  txn_removes(&tx, c->removed, c->n_removed);
  tx.req.max_attempts = max_attempts;
  rc = txn_commit_actions(&tx, (const char *)c->actions.data, c->actions.len);
  if (rc == 0)
    r->version = tx.version;
  txn_dispose(&tx);
done:
  buf_dispose(&params);
  buf_dispose(&metrics);
  return rc;
}

int dml_run(delta_table *table, const char *where, const char *set_text, bool no_dv, int max_attempts,
            int64_t read_version, delta_dml_result *result) {
  delta_dml_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->version = -1;
  delete_ctx c;
  memset(&c, 0, sizeof c);
  c.res = result;
  c.predicate = where;
  delta_table *t = table; /* the caller's */
  expr_node *prune_pred = NULL;
  struct ArrowSchema logical = {0};
  int64_t t_start = dml_clock_ms();
  int rc;
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (read_version >= 0) {
    so.at_version = true;
    so.table_version = read_version;
  }
  if ((rc = txn_open(t, &so, &c.s)) != 0)
    goto done;
  if ((rc = dml_check_table(c.s)) != 0) goto done;
  if ((rc = log_schema_to_arrow(c.s->schema, &logical)) != 0) goto done;
  if (where) {
    if ((rc = expr_parse(where, &prune_pred)) != 0 || (rc = expr_bind(prune_pred, &logical)) != 0) {
      err_prefix("--where");
      goto done;
    }
    if ((rc = expr_parse(where, &c.pred)) != 0 || (rc = expr_bind(c.pred, &logical)) != 0) goto done;
  }
  c.use_dv = !no_dv && rewrite_dv_enabled(c.s);
  c.cdf = table_prop_true(c.s->metadata.configuration, c.s->metadata.n_configuration, "delta.enableChangeDataFeed");
  c.now = write_now_ms();
  if ((rc = rewrite_writers_new(&c.wr, c.s, c.cdf && (!c.use_dv || set_text))) != 0) goto done;
  if ((rc = rewrite_writers_track_rows(c.wr)) != 0) goto done; /* rewritten rows keep their row ids */
  if (set_text && (rc = dml_set_new(&c.set, set_text, "--set", &c.wr->logical, &c.wr->logical, NULL, false, NULL, NULL)) != 0) goto done;
  if (c.use_dv) {
    uint8_t uuid[16];
    dml_random_uuid(uuid);
    if ((rc = dv_uuid_path("", uuid, &c.dv_path)) != 0) goto done;
  }
  c.removed = mem_calloc((size_t)c.s->n_files + 1, sizeof *c.removed);
  if (!c.removed) {
    rc = DELTA_NOMEM();
    goto done;
  }
  scan_pruner pruner = {c.s->schema, (const char *const *)c.s->metadata.partition_columns,
                        c.s->metadata.n_partition_columns, scan_mapping_mode(c.s), prune_pred};
  result->files_considered = c.s->n_files;
  for (int64_t i = 0; i < c.s->n_files; i++) {
    const delta_add *a = &c.s->files[i];
    scan_prune_input in = {a->partition_values, a->n_partition_values, a->stats, false, NULL, 0, 0};
    int may = scan_prune_file(&pruner, &in);
    if (may < 0) {
      rc = may;
      goto done;
    }
    if (!may) result->files_skipped++;
    else if ((rc = delete_file(&c, a)) != 0) goto done;
  }
  if (result->rows_deleted == 0) {
    result->noop = true;
    result->version = c.s->version;
    goto done;
  }
  /* files first: the DV file, the rewritten data, the change data */
  int64_t t_fin = dml_clock_ms();
  if ((rc = rewrite_dv_file_put(t->storage, &c.dv_path, &c.dv_file)) != 0) goto done;
  if ((rc = rewrite_writers_finish(c.wr, &c.actions, &result->files_added, &result->cdc_files)) != 0) goto done;
  c.rewrite_ms += dml_clock_ms() - t_fin;

  rc = commit_dml(&c, t, where, max_attempts, t_start);
done:
  if (c.set) {
    result->rows_updated = result->rows_deleted;
    result->rows_deleted = 0;
  }
  dml_set_free(c.set);
  rewrite_writers_free(c.wr);
  expr_free(prune_pred);
  expr_free(c.pred);
  if (logical.release) logical.release(&logical);
  mem_free(c.removed);
  buf_dispose(&c.dv_file);
  buf_dispose(&c.dv_path);
  buf_dispose(&c.actions);
  delta_snapshot_free(c.s);
  return rc;
}

int delta_delete(delta_table *table, const delta_delete_options *opts, delta_dml_result *result) {
  if (!opts || opts->version != DELTA_DELETE_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "delete options: unknown version");
  return dml_run(table, opts->where, NULL, opts->no_deletion_vectors, opts->max_attempts, opts->read_version,
                 result);
}
