/* The scan: a snapshot's live files read one after another, each batch
 * turned into the table's logical columns, deleted rows dropped. */
#include "deltac/scan.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/nulls.h"
#include "arrow/filter.h"
#include "deltac/parquet.h"
#include "dv/dv.h"
#include "log/file_open.h"
#include "log/snapshot.h"
#include "parquet/stream.h"
#include "scan/columns.h"
#include "scan/conform.h"
#include "scan/gen_prune.h"
#include "scan/prune.h"
#include "scan/scan_internal.h"
#include "storage/path.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define DEFAULT_BATCH_ROWS 65536
/* Files read ahead at most (each holds its footer and first row group). */
#define READ_AHEAD 4
#define LATE_BATCH_ROWS 4096

typedef struct {
  delta_snapshot *snap;
  column_mapping_mode mode;
  bool changes;                /* change feed: three extra columns */
  bool row_tracking;           /* _row_id, _row_commit_version after those */
  const char *mat_id_col, *mat_version_col; /* materialized columns (NULL: none) */
  scan_task_source src;
  int n_cols;                  /* selected columns, then those only the filter needs */
  int n_selected;
  const delta_field **fields;  /* the logical columns read */
  bool *is_partition;
  struct ArrowSchema schema;   /* struct of the columns read (+ change columns) */
  struct ArrowSchema out_schema; /* struct of the columns returned */
  /* the filter */
  struct ArrowSchema logical;  /* every table column (+ change columns): what prune_pred is bound to */
  expr_node *prune_pred, *row_pred; /* row_pred is bound to `schema` */
  /* Late materialization: the filter's columns are read first (stream fs),
   * the others (fs_rest) only for batches where a row passes. */
  bool late;
  bool *in_filter;             /* by column: the filter refers to it */
  struct ArrowSchema pre_schema; /* struct of the filter's columns */
  int *pre_cols;               /* pre_schema child k is column pre_cols[k] */
  expr_node *pre_pred;         /* bound to pre_schema */
  bool page_metrics;           /* the caller's metrics have the page counts (options v3) */
  scan_pruner pruner;
  delta_scan_metrics own_metrics, *metrics;
  int64_t batch_rows;
  bool tasks_done;
  /* the file being read */
  scan_task task;              /* valid until the next src.next() */
  const scan_task *file;       /* &task while a file is open */
  delta_parquet_file *pf;
  struct ArrowArrayStream fs;
  struct ArrowSchema file_schema;
  struct ArrowArrayStream fs_rest; /* late: the columns the filter does not need */
  struct ArrowSchema rest_schema;
  int64_t file_row;            /* rows of this file already read */
  delta_dv_bitmap *dv, *dv2;
  delta_buf mask, mask2, mask3;
  log_storages storages;       /* the table's, and any other locations its paths name */
  /* Read-ahead (stores without local paths, stable task sources): the next
   * files' footers and first row groups are read by threads while the
   * current file is decoded; ahead[] is a ring of the pulled tasks. */
  bool read_ahead;
  struct ahead_job *ahead[READ_AHEAD];
  int ahead_head, n_ahead;
  int pending_rc;              /* a task source error met while pulling ahead */
  char pending_error[1024];
  delta_parquet_file *taken_pf; /* the file a job opened, for open_file */
  bool storages_live;
  char error[1024];
} scan_state;


static void ahead_free_all(scan_state *st);

static void count_pages(scan_state *st, struct ArrowArrayStream *s) {
  if (!s->release || !st->page_metrics) return;
  pq_page_counts c;
  pq_stream_page_counts(s, &c);
  st->metrics->pages_read += c.read;
  st->metrics->pages_skipped += c.skipped;
}

static void close_file(scan_state *st) {
  count_pages(st, &st->fs);
  count_pages(st, &st->fs_rest);
  if (st->fs.release) st->fs.release(&st->fs);
  if (st->file_schema.release) st->file_schema.release(&st->file_schema);
  if (st->fs_rest.release) st->fs_rest.release(&st->fs_rest);
  if (st->rest_schema.release) st->rest_schema.release(&st->rest_schema);
  delta_parquet_free(st->pf);
  dv_bitmap_free(st->dv);
  dv_bitmap_free(st->dv2);
  st->pf = NULL;
  st->dv = st->dv2 = NULL;
  st->file = NULL;
}

static void scan_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  scan_state *st = s->private_data;
  close_file(st);
  ahead_free_all(st); /* joins the read-ahead threads before what they use goes */
  if (st->schema.release) st->schema.release(&st->schema);
  if (st->out_schema.release) st->out_schema.release(&st->out_schema);
  if (st->logical.release) st->logical.release(&st->logical);
  expr_free(st->prune_pred);
  expr_free(st->row_pred);
  expr_free(st->pre_pred);
  if (st->pre_schema.release) st->pre_schema.release(&st->pre_schema);
  mem_free(st->pre_cols);
  mem_free(st->in_filter);
  buf_dispose(&st->mask);
  buf_dispose(&st->mask2);
  buf_dispose(&st->mask3);
  if (st->src.release) st->src.release(st->src.ctx);
  if (st->storages_live) log_storages_dispose(&st->storages);
  mem_free(st->fields);
  mem_free(st->is_partition);
  delta_snapshot_free(st->snap);
  mem_free(st);
  s->release = NULL;
}

static int fail(scan_state *st, int rc) {
  snprintf(st->error, sizeof st->error, "%s", delta_error_last());
  return rc == DELTA_ENOMEM ? ENOMEM : rc == DELTA_ENOTFOUND ? ENOENT : EINVAL;
}

static int scan_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  scan_state *st = s->private_data;
  return arrow_schema_copy(out, &st->out_schema) ? ENOMEM : 0;
}

static const char *scan_last_error(struct ArrowArrayStream *s) {
  scan_state *st = s->private_data;
  return st->error[0] ? st->error : NULL;
}

static const char *partition_value(const scan_state *st, const scan_task *a, const delta_field *f, bool *found) {
  const char *names[2] = {st->mode != MAP_NONE ? f->physical_name : NULL, f->name};
  for (int k = 0; k < 2; k++) {
    if (!names[k]) continue;
    for (int i = 0; i < a->n_partition_values; i++)
      if (strcmp(a->partition_values[i].key, names[k]) == 0) {
        *found = true;
        return a->partition_values[i].value;
      }
  }
  *found = false;
  return NULL;
}

/* The data file of a task, through the table's storage (or, for an
 * absolute path elsewhere, a storage on its directory kept for the scan). */
static int open_data_file(scan_state *st, const scan_task *a, delta_parquet_file **out) {
  delta_buf key = DELTA_BUF_INIT;
  delta_storage *storage;
  int rc;
  if ((rc = log_storages_resolve(&st->storages, a->path, &storage, &key)) != 0) goto done;
  rc = log_parquet_open(storage, (const char *)key.data, a->size > 0 ? a->size : -1, out);
done:
  buf_dispose(&key);
  return rc;
}

/* The file columns to read for task `a` (file schema `all`): cols (room
 * for n_cols + 3) and, in late mode, the rest (room for n_cols). Reads only
 * what does not change during the scan, so read-ahead threads use it too. */
static int file_columns(const scan_state *st, const scan_task *a, const struct ArrowSchema *all, const char **cols,
                        size_t *n_out, const char **rest, size_t *n_rest_out) {
  int rc = 0;
  size_t n = 0, n_rest = 0;
  /* Read only the physical columns the selected logical ones need; in
   * late mode those the filter needs (cols) apart from the rest. */
  for (int i = 0; i < st->n_cols; i++) {
    if (st->is_partition[i]) continue;
    int c = conform_find_child(all, st->fields[i], st->mode);
    if (c < 0) continue;
    if (st->late && !st->in_filter[i]) rest[n_rest++] = all->children[c]->name;
    else cols[n++] = all->children[c]->name;
  }
  if (st->changes && !a->change_type) {
    delta_field ct = {0};
    ct.name = "_change_type";
    int c = conform_find_child(all, &ct, MAP_NONE);
    if (c < 0) rc = err_set(DELTA_ECORRUPT, "change data file %s has no _change_type column", a->path);
    else cols[n++] = all->children[c]->name;
  }
  /* the materialized row tracking columns, hidden from the table's schema
   * (never in late mode: row tracking turns it off) */
  const char *mat[2] = {st->mat_id_col, st->mat_version_col};
  for (int k = 0; !rc && st->row_tracking && k < 2; k++) {
    if (!mat[k]) continue;
    delta_field mf = {0};
    mf.name = (char *)mat[k];
    int c = conform_find_child(all, &mf, MAP_NONE);
    if (c >= 0) cols[n++] = all->children[c]->name;
  }
  /* A file that has none of them still has rows: read its first column for the count. */
  if (!rc && n == 0 && all->n_children > 0) cols[n++] = all->children[0]->name;
  *n_out = n;
  *n_rest_out = n_rest;
  return rc;
}

static int open_file(scan_state *st) {
  const scan_task *a = &st->task;
  st->file = a;
  st->file_row = 0;
  int rc = 0;
  if (st->taken_pf) {
    st->pf = st->taken_pf; /* opened (and its first row group read) ahead */
    st->taken_pf = NULL;
  } else if ((rc = open_data_file(st, a, &st->pf)) != 0) {
    return rc;
  }
  struct ArrowSchema all;
  rc = delta_parquet_schema(st->pf, &all);
  if (rc) return rc;
  /* Row groups the filter rules out are not read. Not with a deletion
   * vector: its row numbers count every row group of the file. */
  int n_rg = delta_parquet_num_row_groups(st->pf), n_keep = n_rg;
  int *rgs = mem_calloc((size_t)n_rg + 1, sizeof *rgs);
  if (!rgs) rc = DELTA_NOMEM();
  bool has_dv = (a->dv && a->dv->present) || (a->dv2 && a->dv2->present);
  if (!rc && st->prune_pred && !has_dv) rc = scan_prune_row_groups(&st->pruner, st->pf, &all, rgs, &n_keep);
  st->metrics->row_groups_total += n_rg;
  st->metrics->row_groups_skipped += n_rg - n_keep;
  if (!rc && n_keep == 0 && n_rg > 0) {
    mem_free(rgs);
    all.release(&all);
    close_file(st);
    return 0;
  }
  st->metrics->files_read++;
  if (!rc && a->dv && a->dv->present) rc = dv_load_in(&st->storages, a->dv, &st->dv);
  if (!rc && a->dv2 && a->dv2->present) rc = dv_load_in(&st->storages, a->dv2, &st->dv2);
  if (rc) {
    mem_free(rgs);
    all.release(&all);
    return rc;
  }
  const char **cols = mem_calloc((size_t)st->n_cols + 4, sizeof *cols);
  const char **rest = mem_calloc((size_t)st->n_cols + 1, sizeof *rest);
  size_t n = 0, n_rest = 0;
  if (!cols || !rest) rc = DELTA_NOMEM();
  if (!rc) rc = file_columns(st, a, &all, cols, &n, rest, &n_rest);
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  ro.columns = cols;
  ro.n_columns = n;
  /* Late mode decides per batch whether the other columns are read: small
   * batches let it pass over more of them. */
  ro.batch_rows = st->late && st->batch_rows > LATE_BATCH_ROWS ? LATE_BATCH_ROWS : st->batch_rows;
  if (n_keep < n_rg) {
    ro.row_groups = rgs;
    ro.n_row_groups = (size_t)n_keep;
  }
  if (!rc) rc = delta_parquet_read(st->pf, &ro, &st->fs);
  if (!rc && n_rest > 0) {
    ro.columns = rest;
    ro.n_columns = n_rest;
    rc = delta_parquet_read(st->pf, &ro, &st->fs_rest);
    if (!rc && st->fs_rest.get_schema(&st->fs_rest, &st->rest_schema) != 0)
      rc = err_set(DELTA_ERROR, "%s", st->fs_rest.get_last_error(&st->fs_rest));
  }
  mem_free(rgs);
  mem_free(cols);
  mem_free(rest);
  all.release(&all);
  if (!rc && st->fs.get_schema(&st->fs, &st->file_schema) != 0)
    rc = err_set(DELTA_ERROR, "%s", st->fs.get_last_error(&st->fs));
  return rc;
}

/* One file batch → one output batch of the logical columns. */
static int constant_i64(int64_t v, int64_t n, struct ArrowArray *out) {
  int rc = arrow_array_new(out, 2, 0);
  if (rc) return rc;
  int64_t *d = mem_malloc((size_t)n * 8 + 8);
  if (!d) {
    arrow_array_release(out);
    return DELTA_NOMEM();
  }
  for (int64_t i = 0; i < n; i++) d[i] = v;
  arrow_array_set_buffer(out, 1, d);
  out->length = n;
  return 0;
}

/* _change_type, _commit_version, _commit_timestamp of a change-feed batch. */
static int change_columns(scan_state *st, struct ArrowArray *in, struct ArrowArray *out) {
  const scan_task *t = st->file;
  int base = st->n_cols, rc;
  if (t->change_type) {
    delta_type str = {0};
    str.kind = DT_STRING;
    rc = scan_partition_array(&str, "_change_type", t->change_type, in->length, out->children[base]);
  } else {
    delta_field ct = {0};
    ct.name = "_change_type";
    int c = conform_find_child(&st->file_schema, &ct, MAP_NONE);
    struct ArrowArray child = *in->children[c];
    in->children[c]->release = NULL;
    delta_type str = {0};
    str.kind = DT_STRING;
    rc = conform_array(&str, st->schema.children[base], st->file_schema.children[c], &child, MAP_NONE,
                       "_change_type", out->children[base]);
  }
  if (!rc) rc = constant_i64(t->version, in->length, out->children[base + 1]);
  if (!rc) rc = constant_i64(t->timestamp_us, in->length, out->children[base + 2]);
  return rc;
}

/* Logical column i of a file batch `in` (of file schema `fsch`): its
 * partition value, its conformed file column (moved out of `in`), or nulls. */
static int conform_column(scan_state *st, int i, struct ArrowArray *in, const struct ArrowSchema *fsch,
                          struct ArrowArray *out) {
  const delta_field *f = st->fields[i];
  if (st->is_partition[i]) {
    bool found;
    const char *v = partition_value(st, st->file, f, &found);
    return scan_partition_array(f->type, f->name, v, in->length, out);
  }
  int c = fsch->release ? conform_find_child(fsch, f, st->mode) : -1;
  if (c < 0) return arrow_array_nulls(st->schema.children[i], in->length, out);
  struct ArrowArray child = *in->children[c];
  in->children[c]->release = NULL; /* moved out of the file batch */
  return conform_array(f->type, st->schema.children[i], fsch->children[c], &child, st->mode, f->name, out);
}

/* _row_id or _row_commit_version of rows start.. of the file: the
 * materialized value where the file has a non-null one, else the add's
 * default (baseRowId + row index, or defaultRowCommitVersion); null when
 * neither exists. */
static int row_tracking_column(scan_state *st, struct ArrowArray *in, int64_t start, const char *mat, bool is_id,
                               struct ArrowArray *out) {
  const scan_task *t = st->file;
  const struct ArrowArray *m = NULL;
  if (mat) {
    delta_field mf = {0};
    mf.name = (char *)mat;
    int c = conform_find_child(&st->file_schema, &mf, MAP_NONE);
    if (c >= 0) {
      if (strcmp(st->file_schema.children[c]->format, "l") != 0)
        return err_set(DELTA_ECORRUPT, "materialized row tracking column %s is not a long column", mat);
      m = in->children[c];
    }
  }
  bool has_default = is_id ? t->has_base_row_id : t->has_default_row_commit_version;
  int64_t n = in->length;
  int rc = arrow_array_new(out, 2, 0);
  if (rc) return rc;
  int64_t *d = mem_malloc((size_t)n * 8 + 8);
  uint8_t *valid = mem_calloc((size_t)n / 8 + 1, 1);
  if (!d || !valid) {
    mem_free(d);
    mem_free(valid);
    arrow_array_release(out);
    return DELTA_NOMEM();
  }
  int64_t nulls = 0;
  const int64_t *mv = m ? (const int64_t *)m->buffers[1] : NULL;
  for (int64_t i = 0; i < n; i++) {
    if (m && arrow_is_valid(m, i)) {
      d[i] = mv[m->offset + i];
    } else if (has_default) {
      d[i] = is_id ? t->base_row_id + start + i : t->default_row_commit_version;
    } else {
      d[i] = 0;
      nulls++;
      continue;
    }
    arrow_bit_set(valid, i);
  }
  arrow_array_set_buffer(out, 1, d);
  if (nulls) arrow_array_set_buffer(out, 0, valid);
  else mem_free(valid);
  out->length = n;
  out->null_count = nulls;
  return 0;
}

static int conform_batch(scan_state *st, struct ArrowArray *in, int64_t start, struct ArrowArray *out) {
  int rc = arrow_array_new(out, 1, st->n_cols + (st->changes ? 3 : 0) + (st->row_tracking ? 2 : 0));
  if (rc) return rc;
  out->length = in->length;
  for (int i = 0; !rc && i < st->n_cols; i++) rc = conform_column(st, i, in, &st->file_schema, out->children[i]);
  if (!rc && st->changes) rc = change_columns(st, in, out);
  if (!rc && st->row_tracking) {
    int base = st->n_cols + (st->changes ? 3 : 0);
    rc = row_tracking_column(st, in, start, st->mat_id_col, true, out->children[base]);
    if (!rc) rc = row_tracking_column(st, in, start, st->mat_version_col, false, out->children[base + 1]);
  }
  if (rc) arrow_array_release(out);
  return rc;
}

/* Whether the task selects only some rows of the file (see row_selection). */
static bool selects_rows(const scan_state *st) {
  return st->file->rows != ROWS_LIVE || st->dv;
}

/* keep[i] = whether the task selects row start + i of the file; `other` is
 * scratch of n bytes. */
static int row_mask(scan_state *st, int64_t start, int64_t n, uint8_t *keep, uint8_t *other) {
  const scan_task *t = st->file;
  int rc = 0;
  if (t->rows == ROWS_LIVE) {
    rc = dv_bitmap_mask(st->dv, (uint64_t)start, (uint64_t)n, keep);
    for (int64_t i = 0; !rc && i < n; i++) keep[i] = !keep[i];
  } else {
    /* rows in dv and not in dv2 */
    if (st->dv) rc = dv_bitmap_mask(st->dv, (uint64_t)start, (uint64_t)n, keep);
    else memset(keep, 0, (size_t)n);
    if (!rc && st->dv2) rc = dv_bitmap_mask(st->dv2, (uint64_t)start, (uint64_t)n, other);
    else if (!rc) memset(other, 0, (size_t)n);
    for (int64_t i = 0; !rc && i < n; i++) keep[i] = keep[i] && !other[i];
  }
  return rc;
}

/* Keep the rows the task selects. */
static int select_rows(scan_state *st, int64_t start, struct ArrowArray *batch) {
  if (!selects_rows(st)) return 0;
  int rc = buf_reserve(&st->mask, (size_t)batch->length);
  if (!rc) rc = buf_reserve(&st->mask2, (size_t)batch->length);
  if (rc) return rc;
  uint8_t *keep = st->mask.data;
  int64_t n = batch->length, kept = 0;
  rc = row_mask(st, start, n, keep, st->mask2.data);
  if (rc) return rc;
  for (int64_t i = 0; i < n; i++) kept += keep[i];
  if (kept == n) return 0;
  struct ArrowArray filtered;
  rc = arrow_filter(&st->schema, batch, keep, &filtered);
  if (rc) return rc;
  batch->release(batch);
  *batch = filtered;
  return 0;
}

/* Keep the rows the filter holds for. */
static int filter_rows(scan_state *st, struct ArrowArray *batch) {
  int rc = buf_reserve(&st->mask, (size_t)batch->length);
  if (!rc) rc = expr_eval_batch(st->row_pred, batch, st->mask.data);
  if (rc) return rc;
  int64_t kept = 0;
  for (int64_t i = 0; i < batch->length; i++) kept += st->mask.data[i];
  if (kept == batch->length) return 0;
  struct ArrowArray filtered;
  rc = arrow_filter(&st->schema, batch, st->mask.data, &filtered);
  if (rc) return rc;
  batch->release(batch);
  *batch = filtered;
  return 0;
}

/* Drop the columns only the filter needed: [selected][filter-only][change]
 * becomes [selected][change]. */
static int drop_filter_columns(scan_state *st, struct ArrowArray *batch) {
  int n_out = (int)st->out_schema.n_children;
  struct ArrowArray out;
  int rc = arrow_array_new(&out, 1, n_out);
  if (rc) return rc;
  out.length = batch->length;
  for (int i = 0; i < n_out; i++) {
    int from = i < st->n_selected ? i : st->n_cols + (i - st->n_selected);
    *out.children[i] = *batch->children[from];
    batch->children[from]->release = NULL; /* moved */
  }
  batch->release(batch);
  *batch = out;
  return 0;
}

/* Late materialization, one batch: the filter's columns are read and the
 * filter and the task's row selection evaluated on them; the other columns
 * are read only when some row passes, else passed over undecoded (whole
 * pages skipped). Returns 0 with *out the kept rows of every column read,
 * LATE_EMPTY when no row passed, LATE_DONE at the end of the file. */
enum { LATE_DONE = 1, LATE_EMPTY = 2 };

static int late_batch(scan_state *st, struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  struct ArrowArray in, pre = {0}, rest = {0};
  if (st->fs.get_next(&st->fs, &in) != 0)
    return err_set(DELTA_ECORRUPT, "%s", st->fs.get_last_error(&st->fs));
  if (!in.release) return LATE_DONE;
  int64_t n = in.length, start = st->file_row;
  st->file_row += n;
  st->metrics->rows_read += n;
  int n_pre = (int)st->pre_schema.n_children;
  int rc = arrow_array_new(&pre, 1, n_pre);
  if (!rc) pre.length = n;
  for (int k = 0; !rc && k < n_pre; k++)
    rc = conform_column(st, st->pre_cols[k], &in, &st->file_schema, pre.children[k]);
  in.release(&in);
  if (!rc) rc = buf_reserve(&st->mask, (size_t)n);
  if (!rc) rc = buf_reserve(&st->mask2, (size_t)n);
  if (!rc) rc = buf_reserve(&st->mask3, (size_t)n);
  uint8_t *keep = st->mask.data, *sel = st->mask2.data;
  if (!rc) rc = expr_eval_batch(st->pre_pred, &pre, keep);
  if (!rc && selects_rows(st)) {
    rc = row_mask(st, start, n, sel, st->mask3.data);
    for (int64_t i = 0; !rc && i < n; i++) keep[i] &= sel[i];
  }
  int64_t kept = 0;
  for (int64_t i = 0; !rc && i < n; i++) kept += keep[i];
  if (!rc && kept == 0) {
    if (st->page_metrics) st->metrics->rows_skipped += n;
    if (st->fs_rest.release) rc = pq_stream_skip(&st->fs_rest, n);
    arrow_array_release(&pre);
    return rc ? rc : LATE_EMPTY;
  }
  if (!rc && st->fs_rest.release) {
    if (st->fs_rest.get_next(&st->fs_rest, &rest) != 0)
      rc = err_set(DELTA_ECORRUPT, "%s", st->fs_rest.get_last_error(&st->fs_rest));
    else if (!rest.release || rest.length != n)
      rc = err_set(DELTA_ECORRUPT, "the file's columns have different row counts");
  }
  struct ArrowArray full = {0};
  if (!rc) rc = arrow_array_new(&full, 1, st->n_cols);
  if (!rc) full.length = n;
  for (int i = 0, k = 0; !rc && i < st->n_cols; i++) {
    if (k < n_pre && st->pre_cols[k] == i) {
      *full.children[i] = *pre.children[k]; /* moved */
      pre.children[k++]->release = NULL;
    } else {
      struct ArrowArray none = {0};
      none.length = n;
      rc = conform_column(st, i, rest.release ? &rest : &none, &st->rest_schema, full.children[i]);
    }
  }
  arrow_array_release(&pre);
  arrow_array_release(&rest);
  if (!rc && kept < n) {
    struct ArrowArray filtered;
    rc = arrow_filter(&st->schema, &full, keep, &filtered);
    if (!rc) {
      full.release(&full);
      full = filtered;
    }
  }
  if (rc) {
    arrow_array_release(&full);
    return rc;
  }
  *out = full;
  return 0;
}

/* The end of a batch (rc: how making it went): the filter-only columns
 * dropped, then 0 to return it, 1 when no row is left (read on), or the
 * stream's failure. */
static int finish_batch(scan_state *st, struct ArrowArray *out, int rc) {
  if (!rc && st->n_cols > st->n_selected) rc = drop_filter_columns(st, out);
  if (rc) {
    err_prefix("%s", st->file->path);
    if (out->release) out->release(out);
    close_file(st);
    return fail(st, rc);
  }
  if (out->length == 0) {
    out->release(out);
    return 1;
  }
  st->metrics->rows_returned += out->length;
  return 0;
}

/* ---- read-ahead ---- */

typedef struct ahead_job {
  const scan_state *st;        /* only what file_columns reads, which no one changes */
  scan_task task;
  pthread_t thread;
  bool threaded;
  delta_parquet_file *pf;
  int rc;
  char error[1024];
} ahead_job;

/* Open the job's file and read its first row group's columns (all the
 * scan may read: the filter's and the rest). A failed read-ahead of the
 * row group is left to the stream, which reads it again and reports. */
static void *ahead_run(void *arg) {
  ahead_job *j = arg;
  const scan_state *st = j->st;
  /* the storages are the one shared thing it changes, under their lock */
  int rc = open_data_file((scan_state *)st, &j->task, &j->pf);
  if (rc) {
    j->rc = rc;
    snprintf(j->error, sizeof j->error, "%s", delta_error_last());
    return NULL;
  }
  struct ArrowSchema all;
  if (delta_parquet_schema(j->pf, &all) != 0) return NULL;
  const char **cols = mem_calloc((size_t)st->n_cols * 2 + 4, sizeof *cols);
  size_t n = 0, n_rest = 0;
  if (cols && file_columns(st, &j->task, &all, cols, &n, cols + st->n_cols + 3, &n_rest) == 0) {
    memmove(cols + n, cols + st->n_cols + 3, n_rest * sizeof *cols);
    delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
    ro.columns = cols;
    ro.n_columns = n + n_rest;
    (void)delta_parquet_prefetch(j->pf, &ro);
  }
  delta_error_clear();
  mem_free(cols);
  all.release(&all);
  return NULL;
}

static void ahead_finish(ahead_job *j) {
  if (j->threaded) pthread_join(j->thread, NULL);
  j->threaded = false;
}

static void ahead_free_all(scan_state *st) {
  for (int k = 0; k < st->n_ahead; k++) {
    ahead_job *j = st->ahead[(st->ahead_head + k) % READ_AHEAD];
    ahead_finish(j);
    delta_parquet_free(j->pf);
    mem_free(j);
  }
  st->n_ahead = 0;
  delta_parquet_free(st->taken_pf);
  st->taken_pf = NULL;
}

/* The next task that file pruning keeps: 0, 1 at the end, or an error. */
static int next_task(scan_state *st, scan_task *task) {
  for (;;) {
    int rc = st->src.next(st->src.ctx, task);
    if (rc) return rc;
    st->metrics->files_total++;
    if (!st->prune_pred) return 0;
    scan_prune_input in = {task->partition_values, task->n_partition_values, task->stats, st->changes,
                           task->change_type, task->version, task->timestamp_us};
    rc = scan_prune_file(&st->pruner, &in);
    if (rc < 0) return rc;
    if (rc > 0) return 0;
    st->metrics->files_skipped++;
  }
}

/* Pull tasks until READ_AHEAD files are being read ahead. A source error
 * is kept for when the files before it are done. */
static void fill_ahead(scan_state *st) {
  while (st->n_ahead < READ_AHEAD && !st->tasks_done && !st->pending_rc) {
    ahead_job *j = mem_calloc(1, sizeof *j);
    if (!j) {
      st->pending_rc = DELTA_NOMEM();
      snprintf(st->pending_error, sizeof st->pending_error, "%s", delta_error_last());
      return;
    }
    int rc = next_task(st, &j->task);
    if (rc) {
      mem_free(j);
      if (rc == 1) st->tasks_done = true;
      else {
        st->pending_rc = rc;
        snprintf(st->pending_error, sizeof st->pending_error, "%s", delta_error_last());
      }
      return;
    }
    j->st = st;
    j->threaded = pthread_create(&j->thread, NULL, ahead_run, j) == 0;
    if (!j->threaded) ahead_run(j); /* no thread to spare: read it now */
    st->ahead[(st->ahead_head + st->n_ahead) % READ_AHEAD] = j;
    st->n_ahead++;
  }
}

/* The next file read ahead: its task in st->task and its file in
 * st->taken_pf. 1 at the end of the tasks. */
static int take_ahead(scan_state *st) {
  fill_ahead(st);
  if (st->n_ahead == 0) {
    if (st->pending_rc) {
      int rc = st->pending_rc;
      st->pending_rc = 0;
      st->tasks_done = true;
      return err_set(rc, "%s", st->pending_error);
    }
    return 1;
  }
  ahead_job *j = st->ahead[st->ahead_head];
  st->ahead_head = (st->ahead_head + 1) % READ_AHEAD;
  st->n_ahead--;
  ahead_finish(j);
  st->task = j->task;
  st->taken_pf = j->pf;
  int rc = j->rc;
  if (rc) err_set(rc, "%s", j->error);
  mem_free(j);
  fill_ahead(st); /* the next ones start while this one is decoded */
  return rc;
}

static int scan_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  scan_state *st = s->private_data;
  memset(out, 0, sizeof *out);
  if (st->error[0]) return EINVAL;
  for (;;) {
    if (!st->pf) {
      int rc;
      if (st->read_ahead) {
        if ((rc = take_ahead(st)) == 1) return 0;
        if (rc) {
          err_prefix("%s", st->task.path);
          return fail(st, rc);
        }
      } else {
        if (st->tasks_done) return 0;
        if ((rc = next_task(st, &st->task)) == 1) {
          st->tasks_done = true;
          return 0;
        }
        if (rc) return fail(st, rc);
      }
      rc = open_file(st);
      if (rc) {
        if (st->file) err_prefix("%s", st->file->path);
        close_file(st);
        return fail(st, rc);
      }
      if (!st->pf) continue; /* every row group ruled out */
    }
    if (st->late) {
      int rc = late_batch(st, out);
      if (rc == LATE_DONE) {
        close_file(st);
        continue;
      }
      if (rc == LATE_EMPTY) continue;
      if ((rc = finish_batch(st, out, rc)) == 1) continue;
      return rc;
    }
    struct ArrowArray in;
    if (st->fs.get_next(&st->fs, &in) != 0) {
      err_set(DELTA_ECORRUPT, "%s", st->fs.get_last_error(&st->fs));
      close_file(st);
      return fail(st, DELTA_ECORRUPT);
    }
    if (!in.release) {
      close_file(st);
      continue;
    }
    int64_t start = st->file_row;
    st->file_row += in.length;
    st->metrics->rows_read += in.length;
    int rc = conform_batch(st, &in, start, out);
    in.release(&in);
    if (!rc) rc = select_rows(st, start, out);
    if (!rc && st->row_pred) rc = filter_rows(st, out);
    if ((rc = finish_batch(st, out, rc)) == 1) continue;
    return rc;
  }
}

typedef struct {
  scan_task *tasks;
  int64_t n, next;
} task_array;

static int task_array_next(void *ctx, scan_task *task) {
  task_array *a = ctx;
  if (a->next >= a->n) return 1;
  *task = a->tasks[a->next++];
  return 0;
}

static void task_array_release(void *ctx) {
  task_array *a = ctx;
  if (a) mem_free(a->tasks);
  mem_free(a);
}

int scan_task_array_source(scan_task *tasks, int64_t n_tasks, scan_task_source *out) {
  task_array *a = mem_calloc(1, sizeof *a);
  if (!a) {
    mem_free(tasks);
    return DELTA_NOMEM();
  }
  *a = (task_array){tasks, n_tasks, 0};
  *out = (scan_task_source){task_array_next, task_array_release, a, true};
  return 0;
}

/* The change columns' Arrow types, appended to a struct schema at i. */
static int change_schemas(struct ArrowSchema *s, int i) {
  int rc = arrow_schema_new(s->children[i], "u", "_change_type", 0, 0);
  if (!rc) rc = arrow_schema_new(s->children[i + 1], "l", "_commit_version", 0, 0);
  if (!rc) rc = arrow_schema_new(s->children[i + 2], "tsu:UTC", "_commit_timestamp", 0, 0);
  return rc;
}

static int add_field(scan_state *st, const delta_field *f) {
  st->fields[st->n_cols] = f;
  for (int p = 0; p < st->snap->metadata.n_partition_columns; p++)
    if (strcasecmp(st->snap->metadata.partition_columns[p], f->name) == 0) st->is_partition[st->n_cols] = true;
  st->n_cols++;
  return 0;
}

/* Parse the filter, bind it to every column of the table (for pruning),
 * and add the columns it needs that the projection lacks. */
static int setup_filter(scan_state *st, const char *filter) {
  const delta_type *t = st->snap->schema;
  char *derived = NULL; /* with bounds on generated partition columns */
  int rc = gen_prune_filter(st->snap, filter, &derived);
  if (!rc) rc = expr_parse(derived ? derived : filter, &st->prune_pred);
  mem_free(derived);
  if (rc) return rc;
  rc = log_schema_to_arrow(t, &st->logical);
  if (!rc && st->changes) {
    /* a wider copy with the change columns after the table's */
    struct ArrowSchema wide;
    rc = arrow_schema_new(&wide, "+s", "", 0, t->n_fields + 3);
    for (int i = 0; !rc && i < t->n_fields; i++) rc = arrow_schema_copy(wide.children[i], st->logical.children[i]);
    if (!rc) rc = change_schemas(&wide, t->n_fields);
    st->logical.release(&st->logical);
    st->logical = wide;
  }
  if (!rc) rc = expr_bind(st->prune_pred, &st->logical);
  const char *names[256];
  int n = rc ? 0 : expr_top_columns(st->prune_pred, &st->logical, names, 256);
  for (int k = 0; !rc && k < n; k++) {
    int idx = -1;
    for (int i = 0; i < t->n_fields; i++)
      if (st->logical.children[i]->name == names[k]) idx = i;
    if (idx < 0) continue; /* a change column: always read */
    bool have = false;
    for (int i = 0; i < st->n_cols; i++) have |= st->fields[i] == &t->fields[idx];
    if (!have) rc = add_field(st, &t->fields[idx]);
  }
  st->pruner = (scan_pruner){t, (const char *const *)st->snap->metadata.partition_columns,
                             st->snap->metadata.n_partition_columns, st->mode, st->prune_pred};
  return rc;
}

/* Late materialization pays when the filter leaves some file column out:
 * those are read only for batches where a row passes. */
static int setup_late(scan_state *st) {
  st->in_filter = mem_calloc((size_t)st->n_cols + 1, sizeof *st->in_filter);
  st->pre_cols = mem_calloc((size_t)st->n_cols + 1, sizeof *st->pre_cols);
  if (!st->in_filter || !st->pre_cols) return DELTA_NOMEM();
  const char *names[256];
  int n = expr_top_columns(st->row_pred, &st->schema, names, 256);
  int n_pre = 0;
  bool other = false;
  for (int i = 0; i < st->n_cols; i++) {
    for (int k = 0; k < n; k++) st->in_filter[i] |= st->schema.children[i]->name == names[k];
    if (st->in_filter[i]) st->pre_cols[n_pre++] = i;
    else other |= !st->is_partition[i];
  }
  if (!other || n >= 256) return 0;
  int rc = arrow_schema_new(&st->pre_schema, "+s", "", 0, n_pre);
  for (int k = 0; !rc && k < n_pre; k++)
    rc = arrow_schema_copy(st->pre_schema.children[k], st->schema.children[st->pre_cols[k]]);
  if (!rc) rc = expr_copy(st->prune_pred, &st->pre_pred);
  if (!rc) rc = expr_bind(st->pre_pred, &st->pre_schema);
  if (!rc) st->late = true;
  return rc;
}

/* The stream over the tasks of `src` (taken over) with the columns `opts`
 * selects from snap's schema, plus the change columns when `changes`. */
int scan_stream_new(delta_snapshot *snap, const delta_scan_options *opts_in, scan_task_source src, bool changes,
                    struct ArrowArrayStream *out) {
  memset(out, 0, sizeof *out);
  delta_scan_options opts = DELTA_SCAN_OPTIONS_INIT;
  /* version 3 added row_tracking to the options and the page counts to
   * the metrics: older callers' structs end before them */
  if (opts_in && opts_in->version == 1) {
    memcpy(&opts, opts_in, offsetof(delta_scan_options, filter)); /* a caller built against the first layout */
    opts.version = DELTA_SCAN_OPTIONS_VERSION;
  } else if (opts_in && opts_in->version == 2) {
    memcpy(&opts, opts_in, offsetof(delta_scan_options, row_tracking)); /* the second layout */
    opts.version = DELTA_SCAN_OPTIONS_VERSION;
  } else if (opts_in) {
    opts = *opts_in;
  }
  bool page_metrics = !opts_in || opts_in->version >= 3;
  if (opts.version != DELTA_SCAN_OPTIONS_VERSION) {
    if (src.release) src.release(src.ctx);
    return err_set(DELTA_EINVAL, "scan options: unknown version %u", opts.version);
  }
  scan_state *st = mem_calloc(1, sizeof *st);
  if (!st) {
    if (src.release) src.release(src.ctx);
    return DELTA_NOMEM();
  }
  atomic_fetch_add(&snap->refs, 1);
  st->snap = snap;
  st->src = src;
  log_storages_init(&st->storages, snap->table);
  st->storages_live = true;
  /* Local files are read with pread as decoded: read-ahead would only add
   * threads. Stores where each read is a round trip get it. */
  st->read_ahead = src.stable && !log_storage_is_local(snap->table->storage);
  st->changes = changes;
  st->row_tracking = opts.row_tracking && !changes;
  if (st->row_tracking) {
    st->mat_id_col = snapshot_config(snap, "delta.rowTracking.materializedRowIdColumnName");
    st->mat_version_col = snapshot_config(snap, "delta.rowTracking.materializedRowCommitVersionColumnName");
  }
  st->mode = scan_mapping_mode(snap);
  st->metrics = opts.metrics ? opts.metrics : &st->own_metrics;
  st->page_metrics = page_metrics || !opts.metrics;
  st->batch_rows = opts.batch_rows > 0 ? opts.batch_rows : DEFAULT_BATCH_ROWS;
  const delta_type *t = snap->schema;
  int n = opts.n_columns ? (int)opts.n_columns : t->n_fields;
  /* room for the filter's columns too: at most every column once more */
  st->fields = mem_calloc((size_t)(n + t->n_fields) + 1, sizeof *st->fields);
  st->is_partition = mem_calloc((size_t)(n + t->n_fields) + 1, sizeof *st->is_partition);
  struct ArrowSchema full = {0};
  int rc = st->fields && st->is_partition ? 0 : DELTA_NOMEM();
  for (int i = 0; !rc && i < n; i++) {
    const delta_field *f = opts.n_columns ? log_schema_find(t, opts.columns[i]) : &t->fields[i];
    if (!f) {
      rc = err_set(DELTA_ENOTFOUND, "the table has no column named %s", opts.columns[i]);
      break;
    }
    rc = add_field(st, f);
  }
  st->n_selected = st->n_cols;
  if (!rc && opts.filter) rc = setup_filter(st, opts.filter);
  int nc = st->n_cols, extra = (changes ? 3 : 0) + (st->row_tracking ? 2 : 0);
  if (!rc) rc = log_schema_to_arrow(t, &full);
  if (!rc) rc = arrow_schema_new(&st->schema, "+s", "", 0, nc + extra);
  if (!rc) rc = arrow_schema_new(&st->out_schema, "+s", "", 0, st->n_selected + extra);
  for (int i = 0; !rc && i < nc; i++) {
    int idx = (int)(st->fields[i] - t->fields);
    rc = arrow_schema_copy(st->schema.children[i], full.children[idx]);
    if (!rc && i < st->n_selected) rc = arrow_schema_copy(st->out_schema.children[i], full.children[idx]);
  }
  if (!rc && changes) rc = change_schemas(&st->schema, nc);
  if (!rc && changes) rc = change_schemas(&st->out_schema, st->n_selected);
  if (!rc && st->row_tracking) {
    struct ArrowSchema *ss[2] = {&st->schema, &st->out_schema};
    int at[2] = {nc, st->n_selected};
    for (int k = 0; !rc && k < 2; k++) {
      rc = arrow_schema_new(ss[k]->children[at[k]], "l", "_row_id", ARROW_FLAG_NULLABLE, 0);
      if (!rc) rc = arrow_schema_new(ss[k]->children[at[k] + 1], "l", "_row_commit_version", ARROW_FLAG_NULLABLE, 0);
    }
  }
  if (!rc && st->prune_pred) rc = expr_copy(st->prune_pred, &st->row_pred);
  if (!rc && st->row_pred) rc = expr_bind(st->row_pred, &st->schema);
  /* late mode reads only the table's columns: not with the change or
   * row tracking columns after them */
  if (!rc && st->row_pred && !changes && !st->row_tracking) rc = setup_late(st);
  if (full.release) full.release(&full);
  out->get_schema = scan_get_schema;
  out->get_next = scan_get_next;
  out->get_last_error = scan_last_error;
  out->release = scan_release;
  out->private_data = st;
  if (rc) scan_release(out);
  return rc;
}

int delta_scan_read(delta_snapshot *snap, const delta_scan_options *opts, struct ArrowArrayStream *out) {
  scan_task *tasks = mem_calloc((size_t)snap->n_files + 1, sizeof *tasks);
  if (!tasks) return DELTA_NOMEM();
  for (int64_t i = 0; i < snap->n_files; i++) {
    const delta_add *a = &snap->files[i];
    tasks[i] = (scan_task){a->path, a->partition_values, a->n_partition_values, &a->dv, NULL, ROWS_LIVE, NULL, 0, 0,
                           a->stats, a->has_base_row_id, a->has_default_row_commit_version, a->base_row_id,
                           a->default_row_commit_version, a->size};
  }
  scan_task_source src;
  int rc = scan_task_array_source(tasks, snap->n_files, &src);
  return rc ? rc : scan_stream_new(snap, opts, src, false, out);
}
