/*
 * OPTIMIZE; see include/deltac/maintenance.h. The selected files are
 * grouped by partition and sorted by size; bin-packing cuts each group
 * into bins of about the target size and rewrites every bin of two or more
 * files (or with a DV) through one data writer. Z-order reads a whole
 * group into memory, computes each row's curve key, and writes the rows of
 * each run of the sorted keys (a file's worth) to a file of their own.
 */
#include "deltac/maintenance.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "dv/dv.h"
#include "log/clustering.h"
#include "log/commit_params.h"
#include "maint/maint_internal.h"
#include "maint/zorder.h"
#include "rewrite/file_writers.h"
#include "rewrite/live_rows.h"
#include "scan/prune.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "log/clustering.h"
#include "log/table_setup.h"
#include "txn/txn.h"

#define DEFAULT_TARGET (128LL << 20)

typedef struct {
  const delta_add *a;
  size_t key_off;  /* partition key in opt_ctx.keys */
  const char *key;
} opt_file;

typedef struct {
  delta_snapshot *s;
  const delta_optimize_options *o;
  delta_optimize_result *res;
  rewrite_writers *wr;             /* config and logical schema */
  int64_t target;
  int zcols[8];                /* indexes of the Z-order columns in the logical schema */
  delta_buf actions;
  const char **removed;
  int64_t n_removed;
  int64_t now;
  delta_progress prog;
  int64_t *added_sizes;        /* for the size metrics */
  int64_t n_added, cap_added;
  bool clustered;              /* liquid clustering: Z-order by the clustering columns */
} opt_ctx;

static int cmp_file(const void *x, const void *y) {
  const opt_file *a = x, *b = y;
  int c = strcmp(a->key, b->key);
  if (c) return c;
  return a->a->size < b->a->size ? -1 : a->a->size > b->a->size;
}

/* The file's partition values in the table's column order, as one string.
 * Under column mapping the log's keys are physical names. */
static int partition_key(const delta_snapshot *s, const delta_add *a, delta_buf *keys) {
  int rc;
  for (int i = 0; i < s->metadata.n_partition_columns; i++) {
    const char *col = s->metadata.partition_columns[i], *phys = col, *v = NULL;
    for (int k = 0; k < s->schema->n_fields; k++)
      if (strcmp(s->schema->fields[k].name, col) == 0 && s->schema->fields[k].physical_name)
        phys = s->schema->fields[k].physical_name;
    for (int k = 0; k < a->n_partition_values; k++)
      if (strcmp(a->partition_values[k].key, col) == 0 || strcmp(a->partition_values[k].key, phys) == 0)
        v = a->partition_values[k].value;
    if ((rc = v ? buf_printf(keys, "v%s\x1f", v) : buf_puts(keys, "n\x1f")) != 0)
      return rc;
  }
  return buf_putc(keys, 0);
}

/* ---- reading a file's live rows ---- */

typedef int (*rows_cb)(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *rows, bool owned);

typedef struct {
  const delta_dv_bitmap *dv;
  int64_t pos;
  rows_cb cb;
  void *ctx;
  bool need_copy;              /* the callback keeps the rows: hand it a copy */
} live_state;

static int live_batch(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  live_state *st = ctx;
  int64_t n = batch->length;
  int rc;
  if (!st->dv && !st->need_copy) {
    st->pos += n;
    return st->cb(st->ctx, schema, batch, false);
  }
  uint8_t *keep = mem_malloc((size_t)n + 1);
  if (!keep) return DELTA_NOMEM();
  struct ArrowArray rows = {0};
  rc = dv_bitmap64_keep(st->dv, (uint64_t)st->pos, (uint64_t)n, keep);
  st->pos += n; /* the rows are passed, kept or not */
  if (rc) goto done;
  if ((rc = arrow_filter(schema, batch, keep, &rows)) != 0)
    goto done;
  mem_free(keep);
  keep = NULL;
  rc = st->cb(st->ctx, schema, &rows, true);
done:
  mem_free(keep);
  if (rows.release) arrow_array_release(&rows);
  return rc;
}

/* Every live row of f (its DV applied) to cb; progress after the file. */
static int read_live(opt_ctx *c, const delta_add *a, rows_cb cb, void *ctx, bool need_copy) {
  delta_dv_bitmap *dv = NULL;
  int rc = 0;
  if (a->dv.present && (rc = dv_load(c->s->table->storage, &a->dv, &dv)) != 0) return rc;
  live_state st = {dv, 0, cb, ctx, need_copy};
  rc = rewrite_read_file_tracked(c->wr, a, live_batch, &st); /* rows keep their row ids */
  dv_bitmap_free(dv);
  if (rc) return rc;
  if (a->dv.present) c->res->dvs_purged++;
  c->prog.files_done++;
  c->prog.bytes_done += a->size;
  maint_progress(c->o->progress, c->o->progress_ctx, &c->prog);
  return 0;
}

static int remove_file(opt_ctx *c, const delta_add *a) {
  delta_json_writer w;
  json_writer_init(&w, &c->actions, 0);
  int rc = maint_line_end(&c->actions, action_remove_of_add_json(&w, a, c->now, false), &w);
  if (rc) return rc;
  c->removed[c->n_removed++] = a->path;
  c->res->files_removed++;
  c->res->bytes_removed += a->size;
  return 0;
}

/* Mark the add lines from `start` on as clustered: each line of the data
 * writer ends in "}}"; clusteringProvider goes into the inner object. */
static int mark_clustered(delta_buf *actions, size_t start) {
  static const char field[] = ",\"clusteringProvider\":\"" CLUSTERING_PROVIDER "\"";
  delta_buf out = DELTA_BUF_INIT;
  const char *p = (const char *)actions->data + start, *end = (const char *)actions->data + actions->len;
  int rc;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (n < 2 || memcmp(p + n - 2, "}}", 2) != 0) {
      rc = err_set(DELTA_EINVAL, "internal: unexpected add line from the data writer");
      goto done;
    }
    if ((rc = buf_append(&out, p, n - 2)) != 0)
      goto done;
    if ((rc = buf_append(&out, field, sizeof field - 1)) != 0)
      goto done;
    if ((rc = buf_puts(&out, "}}\n")) != 0)
      goto done;
    p += n + 1;
  }
  actions->len = start;
  rc = buf_append(actions, out.data, out.len);
done:
  buf_dispose(&out);
  return rc;
}

/* The add lines of a finished writer into the actions, their sizes kept. */
static int take_adds(opt_ctx *c, data_writer *dw) {
  size_t start = c->actions.len;
  int rc;
  if ((rc = data_writer_finish(dw, &c->actions)) != 0) return rc;
  if (c->clustered && (rc = mark_clustered(&c->actions, start)) != 0) return rc;
  c->res->files_added += data_writer_files(dw);
  c->res->bytes_added += data_writer_bytes(dw);
  c->res->rows_written += data_writer_rows(dw);
  /* the writer puts size right after the partitionValues object */
  static const char size_key[] = "},\"size\":";
  for (size_t p = start; p < c->actions.len; p++) {
    if (c->actions.data[p] != '}' || c->actions.len - p < sizeof size_key ||
        memcmp(c->actions.data + p, size_key, sizeof size_key - 1) != 0)
      continue;
    if (c->n_added == c->cap_added) {
      int64_t cap = c->cap_added ? c->cap_added * 2 : 64;
      int64_t *n = mem_realloc(c->added_sizes, (size_t)cap * sizeof *n);
      if (!n) return DELTA_NOMEM();
      c->added_sizes = n;
      c->cap_added = cap;
    }
    c->added_sizes[c->n_added++] = strtoll((const char *)c->actions.data + p + sizeof size_key - 1, NULL, 10);
  }
  return 0;
}

/* ---- bin-packing ---- */

static int write_rows(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *rows, bool owned) {
  (void)schema;
  (void)owned;
  return data_writer_write(ctx, rows);
}

static int compact_bin(opt_ctx *c, opt_file *files, int64_t n) {
  data_write_config cfg = c->wr->cfg;
  cfg.target_file_size = c->target;
  cfg.no_data_change = true;
  data_writer *dw = NULL;
  int rc;
  if ((rc = data_writer_new(&dw, &cfg, &c->wr->logical)) != 0)
    goto done;
  for (int64_t i = 0; i < n; i++)
    if ((rc = read_live(c, files[i].a, write_rows, dw, false)) != 0)
      goto done;
  for (int64_t i = 0; i < n; i++)
    if ((rc = remove_file(c, files[i].a)) != 0)
      goto done;
  rc = take_adds(c, dw);
done:
  data_writer_free(dw);
  return rc;
}

static int binpack_group(opt_ctx *c, opt_file *files, int64_t n) {
  int rc = 0;
  bool any = false;
  for (int64_t i = 0; i < n;) {
    int64_t j = i, bytes = 0;
    bool dv = false;
    while (j < n && (j == i || bytes + files[j].a->size <= c->target)) {
      bytes += files[j].a->size;
      dv = dv || files[j].a->dv.present;
      j++;
    }
    if (j - i >= 2 || dv) {
      any = true;
      if ((rc = compact_bin(c, files + i, j - i)) != 0)
        goto done;
    }
    i = j;
  }
done:
  /* a partition counts once it was worked on, even when that failed */
  if (any) c->res->partitions_optimized++;
  return rc;
}

/* ---- Z-order ---- */

typedef struct {
  struct ArrowArray *batches;
  int64_t n, cap;
} batch_list;

static int keep_rows(void *ctx, const struct ArrowSchema *schema, const struct ArrowArray *rows, bool owned) {
  (void)schema; /* the logical schema, as c->wr->logical */
  batch_list *bl = ctx;
  if (!owned) return err_set(DELTA_EINVAL, "internal: Z-order rows not copied");
  if (bl->n == bl->cap) {
    int64_t cap = bl->cap ? bl->cap * 2 : 16;
    struct ArrowArray *nb = mem_realloc(bl->batches, (size_t)cap * sizeof *nb);
    if (!nb) return DELTA_NOMEM();
    bl->batches = nb;
    bl->cap = cap;
  }
  bl->batches[bl->n++] = *rows;
  ((struct ArrowArray *)rows)->release = NULL; /* moved into the list */
  return 0;
}

typedef struct {
  zorder_key k;
  int64_t row;
} zrow;

static int cmp_zrow(const void *x, const void *y) {
  const zrow *a = x, *b = y;
  int c = zorder_key_cmp(&a->k, &b->k);
  return c ? c : (a->row < b->row ? -1 : a->row > b->row);
}

/* Each row's output file, from the curve. */
static int zorder_buckets(opt_ctx *c, const batch_list *bl, int64_t rows, int64_t bytes, int32_t *bucket) {
  int nz = c->o->n_zorder_by, bits = 128 / nz > 64 ? 64 : 128 / nz;
  uint64_t *keys = mem_malloc((size_t)rows * (size_t)nz * sizeof *keys + 1);
  uint64_t *col = mem_malloc((size_t)rows * sizeof *col + 1);
  zrow *zr = mem_malloc((size_t)rows * sizeof *zr + 1);
  int rc = 0;
  if (!keys || !col || !zr) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int z = 0; z < nz; z++) {
    const struct ArrowSchema *fs = c->wr->logical.children[c->zcols[z]];
    int scale = 0;
    value_type vt = value_type_of_arrow(fs->format, NULL, &scale);
    int64_t r = 0;
    for (int64_t b = 0; b < bl->n; b++) {
      const struct ArrowArray *arr = bl->batches[b].children[c->zcols[z]];
      for (int64_t i = 0; i < bl->batches[b].length; i++) {
        expr_value v;
        value_from_array(arr, fs->format, vt, scale, i, &v);
        col[r++] = zorder_value_key(&v);
      }
    }
    if ((rc = zorder_rank(col, rows, bits)) != 0)
      goto done;
    for (int64_t i = 0; i < rows; i++) keys[i * nz + z] = col[i];
  }
  for (int64_t i = 0; i < rows; i++) {
    zr[i].k = zorder_interleave(keys + i * nz, nz, bits);
    zr[i].row = i;
  }
  qsort(zr, (size_t)rows, sizeof *zr, cmp_zrow);
  /* rows per file from the input's bytes per row (compressed sizes of the
   * same rows, so about what the output will take) */
  int64_t per_file = bytes > 0 ? (int64_t)((double)c->target * (double)rows / (double)bytes) : rows;
  if (per_file < 1) per_file = 1;
  for (int64_t i = 0; i < rows; i++) bucket[zr[i].row] = (int32_t)(i / per_file);
done:
  mem_free(keys);
  mem_free(col);
  mem_free(zr);
  return rc;
}

/* The rows of bucket k (those of the batches whose range holds k) into
 * one new file; *mask is scratch space kept across calls. */
static int write_bucket(opt_ctx *c, const batch_list *bl, const int32_t *bucket, const int32_t *bmin,
                        const int32_t *bmax, int32_t k, const data_write_config *cfg, uint8_t **mask) {
  data_writer *dw = NULL;
  int rc;
  if ((rc = data_writer_new(&dw, cfg, &c->wr->logical)) != 0)
    return rc;
  for (int64_t b = 0, r = 0; b < bl->n; r += bl->batches[b].length, b++) {
    if (k < bmin[b] || k > bmax[b]) continue;
    int64_t len = bl->batches[b].length;
    uint8_t *m = mem_realloc(*mask, (size_t)len + 1);
    if (!m) {
      rc = DELTA_NOMEM();
      goto done;
    }
    *mask = m;
    for (int64_t i = 0; i < len; i++) m[i] = bucket[r + i] == k;
    struct ArrowArray part;
    if ((rc = arrow_filter(&c->wr->logical, &bl->batches[b], m, &part)) != 0)
      goto done;
    rc = data_writer_write(dw, &part);
    arrow_array_release(&part);
    if (rc) goto done;
  }
  rc = take_adds(c, dw);
done:
  data_writer_free(dw);
  return rc;
}

static int zorder_group(opt_ctx *c, opt_file *files, int64_t n) {
  batch_list bl = {0};
  int32_t *bucket = NULL;
  int32_t *bmin = NULL, *bmax = NULL;
  uint8_t *mask = NULL;
  int64_t rows = 0, bytes = 0;
  int rc;
  for (int64_t i = 0; i < n; i++) {
    if ((rc = read_live(c, files[i].a, keep_rows, &bl, true)) != 0)
      goto done;
    bytes += files[i].a->size;
  }
  for (int64_t b = 0; b < bl.n; b++) rows += bl.batches[b].length;
  bucket = mem_malloc((size_t)rows * sizeof *bucket + 1);
  bmin = mem_malloc((size_t)bl.n * sizeof *bmin + 1);
  bmax = mem_malloc((size_t)bl.n * sizeof *bmax + 1);
  if (!bucket || !bmin || !bmax) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if (rows && (rc = zorder_buckets(c, &bl, rows, bytes, bucket)) != 0) goto done;
  int32_t n_buckets = 0;
  for (int64_t b = 0, r = 0; b < bl.n; b++) {
    bmin[b] = INT32_MAX;
    bmax[b] = -1;
    for (int64_t i = 0; i < bl.batches[b].length; i++, r++) {
      if (bucket[r] < bmin[b]) bmin[b] = bucket[r];
      if (bucket[r] > bmax[b]) bmax[b] = bucket[r];
      if (bucket[r] + 1 > n_buckets) n_buckets = bucket[r] + 1;
    }
  }
  data_write_config cfg = c->wr->cfg;
  cfg.target_file_size = INT64_MAX / 4; /* one file per run of the curve */
  cfg.no_data_change = true;
  for (int32_t k = 0; k < n_buckets; k++)
    if ((rc = write_bucket(c, &bl, bucket, bmin, bmax, k, &cfg, &mask)) != 0)
      goto done;
  for (int64_t i = 0; i < n; i++)
    if ((rc = remove_file(c, files[i].a)) != 0)
      goto done;
  c->res->partitions_optimized++;
done:
  for (int64_t b = 0; b < bl.n; b++) arrow_array_release(&bl.batches[b]);
  mem_free(bl.batches);
  mem_free(bucket);
  mem_free(bmin);
  mem_free(bmax);
  mem_free(mask);
  return rc;
}

/* ---- the operation ---- */

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

static int write_commit_json(opt_ctx *c, delta_buf *params, delta_buf *metrics) {
  const delta_optimize_options *o = c->o;
  delta_json_writer w;
  delta_buf z = DELTA_BUF_INIT, cb = DELTA_BUF_INIT;
  int rc;
  json_writer_init(&w, params, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "predicate");
  if ((rc = log_predicate_param(o->where, &w)) != 0)
    goto done;
  delta_json_writer zw;
  json_writer_init(&zw, &z, 0);
  /* a clustered table's OPTIMIZE is not a Z-order one to readers of the history */
  json_write_string_array(&zw, o->zorder_by, o->zorder_by && !c->clustered ? o->n_zorder_by : 0);
  if ((rc = json_writer_finish(&zw)) != 0)
    goto done;
  json_write_key(&w, "zOrderBy");
  if ((rc = json_write_string_n(&w, (const char *)z.data, z.len)) != 0)
    goto done;
  if (c->clustered) {
    delta_json_writer cw;
    json_writer_init(&cw, &cb, 0);
    json_write_string_array(&cw, o->zorder_by, o->n_zorder_by);
    if ((rc = json_writer_finish(&cw)) != 0)
      goto done;
    json_write_key(&w, "clusterBy");
    if ((rc = json_write_string_n(&w, (const char *)cb.data, cb.len)) != 0)
      goto done;
  }
  json_write_key(&w, "auto");
  json_write_bool(&w, false);
  json_write_object_end(&w);
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_putc(params, 0)) != 0)
    goto done;
  int64_t *sz = c->added_sizes, n = c->n_added;
  if (n) qsort(sz, (size_t)n, sizeof *sz, cmp_i64);
#define PCT(p) (n ? sz[(n - 1) * (p) / 100] : 0)
  rc = buf_printf(metrics,
                        "{\"numRemovedFiles\":\"%lld\",\"numAddedFiles\":\"%lld\",\"numRemovedBytes\":\"%lld\","
                        "\"numAddedBytes\":\"%lld\",\"minFileSize\":\"%lld\",\"p25FileSize\":\"%lld\","
                        "\"p50FileSize\":\"%lld\",\"p75FileSize\":\"%lld\",\"maxFileSize\":\"%lld\","
                        "\"numDeletionVectorsRemoved\":\"%lld\",\"totalConsideredFiles\":\"%lld\","
                        "\"numPartitionsOptimized\":\"%lld\"}",
                        (long long)c->res->files_removed, (long long)c->res->files_added,
                        (long long)c->res->bytes_removed, (long long)c->res->bytes_added, (long long)PCT(0),
                        (long long)PCT(25), (long long)PCT(50), (long long)PCT(75), (long long)PCT(100),
                        (long long)c->res->dvs_purged, (long long)c->res->files_considered,
                        (long long)c->res->partitions_optimized);
#undef PCT
  if (rc) goto done;
  rc = buf_putc(metrics, 0);
done:
  buf_dispose(&z);
  buf_dispose(&cb);
  return rc;
}

/* The Z-order columns: existing, not partition columns, no repeats. */
static int resolve_zorder(opt_ctx *c) {
  const delta_optimize_options *o = c->o;
  if (!o->zorder_by || o->n_zorder_by == 0) return 0;
  if (o->n_zorder_by > 8) return err_set(DELTA_EINVAL, "--zorder-by: at most 8 columns");
  const struct ArrowSchema *lg = &c->wr->logical;
  for (int z = 0; z < o->n_zorder_by; z++) {
    const char *name = o->zorder_by[z];
    c->zcols[z] = -1;
    for (int64_t i = 0; i < lg->n_children; i++)
      if (strcasecmp(lg->children[i]->name, name) == 0) c->zcols[z] = (int)i;
    if (c->zcols[z] < 0) return err_set(DELTA_ENOTFOUND, "--zorder-by: no column %s in the table", name);
    for (int i = 0; i < c->s->metadata.n_partition_columns; i++)
      if (strcasecmp(c->s->metadata.partition_columns[i], name) == 0)
        return err_set(DELTA_EINVAL, "--zorder-by: %s is a partition column (files are already split by it)",
                               name);
    for (int y = 0; y < z; y++)
      if (c->zcols[y] == c->zcols[z]) return err_set(DELTA_EINVAL, "--zorder-by: %s given twice", name);
    value_type vt = value_type_of_arrow(lg->children[c->zcols[z]]->format, NULL, NULL);
    if (vt == VT_STRUCT || vt == VT_OTHER)
      return err_set(DELTA_EINVAL, "--zorder-by: %s is not of an ordered type", name);
  }
  return 0;
}

static int64_t target_size(const delta_snapshot *s, int64_t asked) {
  if (asked > 0) return asked;
  const char *v = snapshot_config(s, "delta.targetFileSize");
  long long t = v ? strtoll(v, NULL, 10) : 0;
  return t > 0 ? t : DEFAULT_TARGET;
}

int delta_optimize(delta_table *table, const delta_optimize_options *o, delta_optimize_result *result) {
  if (!o || o->version != DELTA_OPTIMIZE_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "optimize options: unknown version");
  delta_optimize_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->version = -1;
  opt_ctx c;
  memset(&c, 0, sizeof c);
  c.o = o;
  c.res = result;
  delta_table *t = table; /* the caller's */
  expr_node *pred = NULL;
  opt_file *files = NULL;
  int64_t n_files = 0;
  char **ccols = NULL;
  int n_ccols = 0;
  delta_optimize_options clustered_opts;
  delta_buf keys = DELTA_BUF_INIT, params = DELTA_BUF_INIT, metrics = DELTA_BUF_INIT;
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (o->read_version >= 0) {
    so.at_version = true;
    so.table_version = o->read_version;
  }
  int rc;
  if ((rc = txn_open(t, &so, &c.s)) != 0)
    goto done;
  if ((rc = rewrite_writers_new(&c.wr, c.s, false)) != 0) goto done;
  if ((rc = rewrite_writers_track_rows(c.wr)) != 0) goto done;
  /* a clustered table is Z-ordered by its clustering columns, and only by them */
  if (clustering_supported(&c.s->protocol) && (rc = clustering_columns(c.s, &ccols, &n_ccols)) != 0) goto done;
  if (n_ccols) {
    if (o->n_zorder_by) {
      rc = err_set(DELTA_EINVAL, "--zorder-by: the table is clustered (liquid clustering); OPTIMIZE clusters "
                                         "it by its clustering columns");
      goto done;
    }
    clustered_opts = *o;
    clustered_opts.zorder_by = (const char *const *)ccols;
    clustered_opts.n_zorder_by = n_ccols;
    c.o = &clustered_opts;
    c.clustered = true;
  }
  if ((rc = resolve_zorder(&c)) != 0) goto done;
  c.target = target_size(c.s, o->target_file_size);
  if (o->where && ((rc = expr_parse(o->where, &pred)) != 0 || (rc = expr_bind(pred, &c.wr->logical)) != 0)) {
    err_prefix("--where");
    goto done;
  }
  bool zorder = c.o->n_zorder_by > 0, unclustered = false;
  files = mem_calloc((size_t)c.s->n_files + 1, sizeof *files);
  c.removed = mem_calloc((size_t)c.s->n_files + 1, sizeof *c.removed);
  if (!files || !c.removed) {
    rc = DELTA_NOMEM();
    goto done;
  }
  scan_pruner pruner = {c.s->schema, (const char *const *)c.s->metadata.partition_columns,
                        c.s->metadata.n_partition_columns, scan_mapping_mode(c.s), pred};
  result->files_considered = c.s->n_files;
  for (int64_t i = 0; i < c.s->n_files; i++) {
    const delta_add *a = &c.s->files[i];
    if (!zorder && a->size >= c.target && !a->dv.present) continue;
    scan_prune_input in = {a->partition_values, a->n_partition_values, a->stats, false, NULL, 0, 0};
    int may = scan_prune_file(&pruner, &in);
    if (may < 0) {
      rc = may;
      goto done;
    }
    if (may == 0) continue;
    unclustered |= a->dv.present || !a->clustering_provider || strcmp(a->clustering_provider, CLUSTERING_PROVIDER) != 0;
    files[n_files].a = a;
    files[n_files].key_off = keys.len;
    if ((rc = partition_key(c.s, a, &keys)) != 0)
      goto done;
    n_files++;
  }
  /* clustered files are reclustered only together with new (or changed) ones */
  if (c.clustered && !unclustered) n_files = 0;
  for (int64_t i = 0; i < n_files; i++) files[i].key = (const char *)keys.data + files[i].key_off;
  qsort(files, (size_t)n_files, sizeof *files, cmp_file);
  c.now = write_now_ms();
  c.prog.phase = "rewrite";
  for (int64_t i = 0; i < n_files; i++) {
    c.prog.files_total++;
    c.prog.bytes_total += files[i].a->size;
  }
  for (int64_t i = 0; i < n_files;) {
    int64_t j = i;
    while (j < n_files && strcmp(files[j].key, files[i].key) == 0) j++;
    if ((rc = zorder ? zorder_group(&c, files + i, j - i) : binpack_group(&c, files + i, j - i)) != 0)
      goto done;
    i = j;
  }
  if (c.n_removed == 0) {
    result->noop = true;
    result->version = c.s->version;
    goto done;
  }
  if ((rc = write_commit_json(&c, &params, &metrics)) != 0) goto done;
  txn_ctx tx;
  txn_begin(&tx, t, c.s, "OPTIMIZE");
  txn_set_info(&tx, (const char *)params.data, (const char *)metrics.data);
  txn_removes(&tx, c.removed, c.n_removed);
  tx.req.max_attempts = o->max_attempts;
  rc = txn_commit_actions(&tx, (const char *)c.actions.data, c.actions.len);
  if (rc == 0)
    result->version = tx.version;
  txn_dispose(&tx);
done:
  rewrite_writers_free(c.wr);
  mem_free(ccols);
  expr_free(pred);
  mem_free(files);
  mem_free(c.removed);
  mem_free(c.added_sizes);
  buf_dispose(&keys);
  buf_dispose(&params);
  buf_dispose(&metrics);
  buf_dispose(&c.actions);
  delta_snapshot_free(c.s);
  return rc;
}
