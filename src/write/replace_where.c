/* --replace-where; see replace_where.h. */
#include "write/replace_where.h"

#include <string.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "log/snapshot.h"
#include "rewrite/file_writers.h"
#include "rewrite/live_rows.h"
#include "scan/prune.h"
#include "scan/scan_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"

int replace_where_check(const expr_node *e, const struct ArrowArray *batch, const char *predicate) {
  if (batch->length == 0) return 0;
  uint8_t *keep = mem_malloc((size_t)batch->length);
  if (!keep) return DELTA_NOMEM();
  int rc;
  if ((rc = expr_eval_batch(e, batch, keep)) != 0)
    goto done;
  for (int64_t i = 0; i < batch->length; i++)
    if (!keep[i]) {
      rc = err_set(DELTA_EINVAL, "written data does not match --replace-where %s (a batch's row %lld)",
                   predicate, (long long)i);
      goto done;
    }
done:
  mem_free(keep);
  return rc;
}

/* The change data writers of a rewrite (rewrite/file_writers.h):
 * `deletes` takes rows of the table's logical schema, `inserts` rows of
 * the input's. */
struct replace_where_cdc {
  rewrite_writers *deletes;
  rewrite_writers *inserts;
};

int replace_where_cdc_new(replace_where_cdc **out, delta_snapshot *s, const struct ArrowSchema *input) {
  replace_where_cdc *c = *out = mem_calloc(1, sizeof *c);
  if (!c) return DELTA_NOMEM();
  int rc;
  if ((rc = rewrite_writers_new(&c->deletes, s, true)) != 0 || !input) return rc;
  return rewrite_writers_new_cdc(&c->inserts, s, input);
}

int replace_where_cdc_insert(replace_where_cdc *c, const struct ArrowArray *batch) {
  return c->inserts ? rewrite_cdc_write(c->inserts, batch, "insert") : 0;
}

int replace_where_cdc_finish(replace_where_cdc *c, delta_buf *actions, int64_t *n_files) {
  int64_t ignored = 0;
  int rc;
  *n_files = 0;
  if ((rc = rewrite_writers_finish(c->deletes, actions, &ignored, n_files)) != 0) return rc;
  return c->inserts ? rewrite_writers_finish(c->inserts, actions, &ignored, n_files) : 0;
}

void replace_where_cdc_free(replace_where_cdc *c) {
  if (!c) return;
  rewrite_writers_free(c->deletes);
  rewrite_writers_free(c->inserts);
  mem_free(c);
}

typedef struct {
  const char *predicate;
  expr_node *e;            /* bound to the first batch's schema */
  uint8_t *keep;
  data_writer **dw;
  const data_write_config *cfg;
  replace_where_cdc *cdc;
  int64_t *matched, *kept;
} split_ctx;

static int split_batch(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  split_ctx *c = ctx;
  int rc = 0;
  if (!c->e && ((rc = expr_parse(c->predicate, &c->e)) || (rc = expr_bind(c->e, schema)))) return rc;
  uint8_t *keep = mem_realloc(c->keep, (size_t)batch->length + 1);
  if (!keep) return DELTA_NOMEM();
  c->keep = keep;
  if ((rc = expr_eval_batch(c->e, batch, keep))) return rc;
  int64_t m = 0;
  for (int64_t i = 0; i < batch->length; i++) m += keep[i] != 0;
  if (c->dw && c->cdc && m > 0) {
    struct ArrowArray gone;
    if ((rc = arrow_filter(schema, batch, keep, &gone))) return rc;
    rc = rewrite_cdc_write(c->cdc->deletes, &gone, "delete");
    gone.release(&gone);
    if (rc) return rc;
  }
  for (int64_t i = 0; i < batch->length; i++) keep[i] = !keep[i];
  *c->matched += m;
  if (c->dw && m < batch->length) {
    /* the rows that stay: written again (the file goes if any row matched) */
    if (!*c->dw && (rc = data_writer_new(c->dw, c->cfg, schema))) return rc;
    struct ArrowArray rest;
    if ((rc = arrow_filter(schema, batch, keep, &rest))) return rc;
    rc = data_writer_write(*c->dw, &rest);
    *c->kept += rest.length;
    rest.release(&rest);
  }
  return rc;
}

/* Read one live file's rows and count those matching the predicate; with
 * `dw` non-NULL, also write the others through *dw (made on first use) and
 * the matching ones to `cdc` as deletes. */
static int split_file(delta_snapshot *s, const delta_add *a, const char *predicate, data_writer **dw,
                      const data_write_config *cfg, replace_where_cdc *cdc, int64_t *matched, int64_t *kept) {
  split_ctx c = {predicate, NULL, NULL, dw, cfg, cdc, matched, kept};
  int rc = rewrite_read_live_rows(s, a, split_batch, &c);
  mem_free(c.keep);
  expr_free(c.e);
  return rc;
}

int replace_where_apply(delta_snapshot *s, const char *predicate, const data_write_config *cfg, int64_t now,
                        replace_where_cdc *cdc, delta_buf *actions, replace_where_outcome *out) {
  memset(out, 0, sizeof *out);
  expr_node *pred = NULL;
  struct ArrowSchema logical = {0};
  data_writer *keep_dw = NULL;
  int rc;
  if ((rc = expr_parse(predicate, &pred)) != 0)
    goto done;
  if ((rc = log_schema_to_arrow(s->schema, &logical)) != 0)
    goto done;
  if ((rc = expr_bind(pred, &logical)) != 0) {
    err_prefix("--replace-where");
    goto done;
  }
  scan_pruner pruner = {s->schema, (const char *const *)s->metadata.partition_columns,
                        s->metadata.n_partition_columns, scan_mapping_mode(s), pred};
  out->removed = mem_calloc((size_t)s->n_files + 1, sizeof *out->removed);
  if (!out->removed) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int64_t i = 0; i < s->n_files; i++) {
    const delta_add *a = &s->files[i];
    scan_prune_input in = {a->partition_values, a->n_partition_values, a->stats, false, NULL, 0, 0};
    int may = scan_prune_file(&pruner, &in);
    if (may < 0) {
      rc = may;
      goto done;
    }
    if (!may) continue;
    /* count first: a file without matching rows stays and nothing of it is
     * written; one with matches is read again to copy its other rows */
    int64_t matched = 0, ignored = 0;
    if ((rc = split_file(s, a, predicate, NULL, cfg, NULL, &matched, &ignored)) != 0)
      goto done;
    if (matched == 0) continue;
    matched = 0;
    if ((rc = split_file(s, a, predicate, &keep_dw, cfg, cdc, &matched, &out->rows_copied)) != 0)
      goto done;
    /* counted before its remove action is written: a failed write still counts it */
    out->removed[out->n_removed++] = a->path;
    out->removed_bytes += a->size;
    out->rows_deleted += matched;
    delta_json_writer w;
    json_writer_init(&w, actions, 0);
    action_remove_of_add_json(&w, a, now, true);
    if ((rc = json_writer_finish(&w)) != 0)
      goto done;
    if ((rc = buf_putc(actions, '\n')) != 0)
      goto done;
  }
  if (keep_dw && (rc = data_writer_finish(keep_dw, actions)) != 0)
    goto done;
done:
  data_writer_free(keep_dw);
  if (logical.release) logical.release(&logical);
  expr_free(pred);
  return rc;
}
