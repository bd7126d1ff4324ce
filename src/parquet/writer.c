/*
 * The Parquet file writer: "PAR1", row groups (each column chunk written
 * whole when its group is full), then the footer (FileMetaData, its length,
 * "PAR1"). See include/deltac/parquet_writer.h and
 * docs/internals/parquet_writer.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "parquet/metadata.h"
#include "parquet/write_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static int fd_write(void *ctx, const void *data, size_t len) {
  int fd = *(int *)ctx;
  const uint8_t *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return err_set(DELTA_EIO, "write: %s", strerror(errno));
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int pqw_sink_write(pqw_writer *w, const void *p, size_t n) {
  if (n == 0) return 0;
  if (w->sink.write(w->sink.ctx, p, n) != 0) {
    if (delta_error_last_code() != DELTA_EIO) err_set(DELTA_EIO, "parquet writer: the sink failed");
    return DELTA_EIO;
  }
  w->offset += (int64_t)n;
  return 0;
}

static int codec_id(delta_parquet_codec c, int *out) {
  switch (c) {
  case DELTA_PARQUET_CODEC_DEFAULT:
  case DELTA_PARQUET_SNAPPY: *out = CODEC_SNAPPY; return 0;
  case DELTA_PARQUET_UNCOMPRESSED: *out = CODEC_UNCOMPRESSED; return 0;
  case DELTA_PARQUET_GZIP: *out = CODEC_GZIP; return 0;
  case DELTA_PARQUET_ZSTD: *out = CODEC_ZSTD; return 0;
  case DELTA_PARQUET_LZ4_RAW: *out = CODEC_LZ4_RAW; return 0;
  }
  return err_set(DELTA_EINVAL, "parquet writer: unknown codec %d", (int)c);
}

static int set_options(pqw_writer *w, const delta_parquet_write_options *o) {
  delta_parquet_write_options d = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  if (o && o->version != DELTA_PARQUET_WRITE_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "parquet writer: options version %u, expected %d", o->version,
                           DELTA_PARQUET_WRITE_OPTIONS_VERSION);
  w->opts = o ? *o : d;
  delta_parquet_write_options *p = &w->opts;
  if (p->row_group_rows <= 0) p->row_group_rows = 1 << 20;
  if (p->row_group_bytes <= 0) p->row_group_bytes = (int64_t)128 << 20;
  if (p->page_bytes <= 0) p->page_bytes = 1 << 20;
  if (p->page_rows <= 0) p->page_rows = 20000;
  if (p->dictionary_bytes <= 0) p->dictionary_bytes = 1 << 20;
  if (p->stats_max_bytes == 0) p->stats_max_bytes = 64;
  int codec = 0, rc;
  if ((rc = codec_id(p->codec, &codec))) return rc;
  if ((rc = pqw_codec_init(&w->codec, codec, p->compression_level))) return rc;
  w->created_by = mem_strdup(p->created_by ? p->created_by : "deltac version " DELTAC_VERSION);
  if (!w->created_by) return DELTA_NOMEM();
  p->created_by = NULL;
  /* Key/value metadata is serialized now so the caller's strings need not
   * outlive this call. */
  pq_tw t;
  pq_tw_init(&t, &w->kv);
  for (size_t i = 0; i < p->n_kv; i++) {
    if (!p->kv_keys || !p->kv_keys[i]) return err_set(DELTA_EINVAL, "parquet writer: a NULL metadata key");
    pq_tw_elem_struct_begin(&t);
    pq_tw_string(&t, 1, p->kv_keys[i]);
    if (p->kv_values && p->kv_values[i]) pq_tw_string(&t, 2, p->kv_values[i]);
    pq_tw_struct_end(&t);
  }
  w->n_kv = (int)p->n_kv;
  p->kv_keys = p->kv_values = NULL;
  return pq_tw_finish(&t);
}

int delta_parquet_writer_open_sink(delta_parquet_writer **out, const delta_parquet_sink *sink,
                                   const struct ArrowSchema *schema, const delta_parquet_write_options *opts) {
  *out = NULL;
  if (!sink || !sink->write) return err_set(DELTA_EINVAL, "parquet writer: no sink");
  pqw_writer *w = mem_calloc(1, sizeof *w);
  if (!w) return DELTA_NOMEM();
  w->fd = -1;
  w->sink = *sink;
  int rc;
  if ((rc = set_options(w, opts)) != 0) goto fail;
  if ((rc = pqw_schema_build(w, schema)) != 0) goto fail;
  for (int i = 0; i < w->n_leaves; i++) {
    pqw_leaf *l = w->leaves[i];
    l->dict_on = l->can_dict && !w->opts.no_dictionary;
  }
  if ((rc = pqw_sink_write(w, "PAR1", 4)) != 0) goto fail;
  *out = w;
  return 0;
fail:
  delta_parquet_writer_free(w);
  return rc;
}

int delta_parquet_writer_open(delta_parquet_writer **out, const char *path, const struct ArrowSchema *schema,
                              const delta_parquet_write_options *opts) {
  *out = NULL;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return err_set(errno == ENOENT ? DELTA_ENOTFOUND : DELTA_EIO, "%s: %s", path, strerror(errno));
  pqw_writer *w;
  /* The sink's context is this fd until the writer holds its own copy. */
  int rc = delta_parquet_writer_open_sink(&w, &(delta_parquet_sink){fd_write, &fd}, schema, opts);
  if (rc) {
    close(fd);
    return err_prefix("%s", path);
  }
  w->fd = fd;
  w->sink.ctx = &w->fd;
  *out = w;
  return 0;
}

static int64_t group_estimate(const pqw_writer *w) {
  int64_t n = 0;
  for (int i = 0; i < w->n_leaves; i++) {
    const pqw_leaf *l = w->leaves[i];
    n += (int64_t)l->chunk.len + pqw_leaf_page_estimate(l) + (int64_t)l->dict.plain.len;
  }
  return n;
}

static int flush_row_group(pqw_writer *w) {
  if (w->rg_rows == 0) return 0;
  int64_t start = w->offset, total_unc = 0;
  pq_tw t;
  pq_tw_init(&t, &w->row_groups);
  pq_tw_list_begin(&t, 1, PQ_TT_STRUCT, (uint32_t)w->n_leaves);
  for (int i = 0; i < w->n_leaves; i++) {
    int64_t bytes, unc;
    int rc = pqw_leaf_flush_chunk(w, w->leaves[i], &t, &bytes, &unc);
    if (rc) return rc;
    total_unc += unc;
  }
  pq_tw_i64(&t, 2, total_unc);
  pq_tw_i64(&t, 3, w->rg_rows);
  pq_tw_i64(&t, 5, start);
  pq_tw_i64(&t, 6, w->offset - start);
  pq_tw_struct_end(&t);
  int rc = pq_tw_finish(&t);
  if (rc) return rc;
  w->n_row_groups++;
  w->rg_rows = 0;
  return 0;
}

int delta_parquet_writer_write(delta_parquet_writer *w, const struct ArrowArray *batch) {
  if (!w) return err_set(DELTA_EINVAL, "parquet writer: NULL writer");
  if (w->failed) return err_set(w->failed, "parquet writer: an earlier write failed");
  if (w->closed) return err_set(DELTA_EINVAL, "parquet writer: already closed");
  int rc;
  if ((rc = pqw_check_batch(w, batch)) != 0) return rc; /* nothing was written: the writer stays usable */
  int64_t pos = 0;
  while (pos < batch->length) {
    int64_t k = batch->length - pos;
    if (k > w->opts.row_group_rows - w->rg_rows) k = w->opts.row_group_rows - w->rg_rows;
    if (k > 65536) k = 65536;
    if ((rc = pqw_shred(w, batch, pos, k)) != 0) goto done;
    pos += k;
    w->rg_rows += k;
    w->num_rows += k;
    if (w->rg_rows >= w->opts.row_group_rows || group_estimate(w) >= w->opts.row_group_bytes) {
      if ((rc = flush_row_group(w)) != 0) goto done;
    }
  }
done:
  if (rc) w->failed = rc;
  return rc;
}

static char *dup_str(const char *s) { return mem_strdup(s ? s : ""); }

static int make_result(const pqw_writer *w, delta_parquet_write_result **out) {
  delta_parquet_write_result *r = mem_calloc(1, sizeof *r);
  if (!r) return DELTA_NOMEM();
  *out = r;
  r->file_size = w->offset;
  r->num_rows = w->num_rows;
  r->num_row_groups = w->n_row_groups;
  r->columns = mem_calloc((size_t)w->n_leaves + 1, sizeof *r->columns);
  if (!r->columns) return DELTA_NOMEM();
  for (int i = 0; i < w->n_leaves; i++) {
    const pqw_leaf *l = w->leaves[i];
    delta_parquet_column_result *c = &r->columns[i];
    r->n_columns = i + 1;
    c->path = dup_str(l->path_str);
    c->format = dup_str(l->format);
    char **parts = mem_calloc((size_t)l->path_len + 1, sizeof *parts);
    c->path_parts = (const char *const *)parts;
    if (!c->path || !c->format || !parts) return DELTA_NOMEM();
    c->path_len = l->path_len;
    for (int k = 0; k < l->path_len; k++)
      if (!(parts[k] = dup_str(l->path[k]))) return DELTA_NOMEM();
    c->repeated = l->max_rep > 0;
    c->num_values = l->file_stats.num_values;
    c->null_count = l->file_stats.null_count;
    if (l->file_stats.has && l->order != PQW_ORD_NONE) {
      pqw_stats_value(l, &l->file_stats.min, &c->min);
      pqw_stats_value(l, &l->file_stats.max, &c->max);
      delta_parquet_value *v[2] = {&c->min, &c->max};
      for (int k = 0; k < 2; k++) {
        if (v[k]->kind != DELTA_PARQUET_VALUE_BYTES) continue;
        uint8_t *copy = mem_malloc(v[k]->v.bytes.len + 1);
        if (!copy) {
          if (k == 1) mem_free((void *)c->min.v.bytes.data);
          return DELTA_NOMEM();
        }
        if (v[k]->v.bytes.len) memcpy(copy, v[k]->v.bytes.data, v[k]->v.bytes.len);
        copy[v[k]->v.bytes.len] = '\0';
        v[k]->v.bytes.data = copy;
      }
      c->has_min_max = true; /* only now does the result own the bytes */
    }
  }
  return 0;
}

int delta_parquet_writer_close(delta_parquet_writer *w, delta_parquet_write_result **out) {
  if (out) *out = NULL;
  if (!w) return err_set(DELTA_EINVAL, "parquet writer: NULL writer");
  if (w->failed) return err_set(w->failed, "parquet writer: an earlier write failed");
  if (w->closed) return err_set(DELTA_EINVAL, "parquet writer: already closed");
  delta_buf f = DELTA_BUF_INIT;
  int rc;
  if ((rc = flush_row_group(w)) != 0) goto done;
  {
    pq_tw t;
    pq_tw_init(&t, &f);
    pq_tw_i32(&t, 1, 1);
    pqw_schema_write(w, &t);
    pq_tw_i64(&t, 3, w->num_rows);
    pq_tw_list_begin(&t, 4, PQ_TT_STRUCT, (uint32_t)w->n_row_groups);
    if (buf_append(&f, w->row_groups.data, w->row_groups.len)) t.err = DELTA_ENOMEM;
    if (w->n_kv) {
      pq_tw_list_begin(&t, 5, PQ_TT_STRUCT, (uint32_t)w->n_kv);
      if (buf_append(&f, w->kv.data, w->kv.len)) t.err = DELTA_ENOMEM;
    }
    pq_tw_string(&t, 6, w->created_by);
    pq_tw_list_begin(&t, 7, PQ_TT_STRUCT, (uint32_t)w->n_leaves);
    for (int i = 0; i < w->n_leaves; i++) {
      pq_tw_elem_struct_begin(&t);
      pq_tw_struct_begin(&t, 1); /* TYPE_ORDER: TypeDefinedOrder */
      pq_tw_struct_end(&t);
      pq_tw_struct_end(&t);
    }
    pq_tw_struct_end(&t);
    if ((rc = pq_tw_finish(&t)) != 0) goto done;
  }
  if (f.len > UINT32_MAX) {
    rc = err_set(DELTA_ELIMIT, "parquet writer: footer over 4 GiB");
    goto done;
  }
  uint8_t tail[8];
  uint32_t len = (uint32_t)f.len;
  memcpy(tail, &len, 4);
  memcpy(tail + 4, "PAR1", 4);
  if ((rc = pqw_sink_write(w, f.data, f.len)) != 0) goto done;
  if ((rc = pqw_sink_write(w, tail, 8)) != 0) goto done;
  if (w->fd >= 0) {
    if (close(w->fd) != 0) rc = err_set(DELTA_EIO, "close: %s", strerror(errno));
    w->fd = -1;
    if (rc) goto done;
  }
  if (out && (rc = make_result(w, out)) != 0) {
    delta_parquet_write_result_free(*out);
    *out = NULL;
  }
done:
  buf_dispose(&f);
  if (rc) w->failed = rc;
  w->closed = true;
  return rc;
}

void delta_parquet_writer_free(delta_parquet_writer *w) {
  if (!w) return;
  if (w->fd >= 0) close(w->fd);
  for (int i = 0; i < w->n_leaves; i++) pqw_leaf_free(w->leaves[i]);
  mem_free(w->leaves);
  pqw_node_free(w->root);
  pqw_codec_dispose(&w->codec);
  buf_dispose(&w->row_groups);
  buf_dispose(&w->page);
  buf_dispose(&w->vals);
  buf_dispose(&w->packed);
  buf_dispose(&w->compressed);
  buf_dispose(&w->header);
  buf_dispose(&w->kv);
  mem_free(w->def_tmp);
  mem_free(w->created_by);
  mem_free(w);
}

void delta_parquet_write_result_free(delta_parquet_write_result *r) {
  if (!r) return;
  for (int i = 0; i < r->n_columns; i++) {
    delta_parquet_column_result *c = &r->columns[i];
    mem_free((void *)c->path);
    mem_free((void *)c->format);
    if (c->path_parts)
      for (int k = 0; k < c->path_len; k++) mem_free((void *)c->path_parts[k]);
    mem_free((void *)c->path_parts);
    if (c->has_min_max && c->min.kind == DELTA_PARQUET_VALUE_BYTES) mem_free((void *)c->min.v.bytes.data);
    if (c->has_min_max && c->max.kind == DELTA_PARQUET_VALUE_BYTES) mem_free((void *)c->max.v.bytes.data);
  }
  mem_free(r->columns);
  mem_free(r);
}
