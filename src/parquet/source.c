/* Where a Parquet file's bytes come from: the local-file source (pread on
 * an fd) and the row-group loads for sources where each read costs a
 * round trip (column chunks read whole, nearby ones merged). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parquet/file.h"
#include "parquet/local_source.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

int pq_file_read(const pq_file *f, uint64_t offset, size_t len, uint8_t *dst) {
  if (len == 0) return 0;
  int rc = f->src.read_at(f->src.ctx, offset, len, dst);
  /* Name the file unless the source's message does already (a storage's
   * names the object); the source's own code is what counts. */
  if (rc && !strstr(delta_error_last(), f->name)) err_prefix("%s", f->name);
  return rc;
}

/* ---- the local file ---- */

typedef struct {
  int fd;
} fd_source;

static int fd_read_at(void *ctx, uint64_t offset, size_t len, void *dst) {
  fd_source *s = ctx;
  uint8_t *d = dst;
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(s->fd, d + got, len - got, (off_t)(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return err_set(DELTA_EIO, "read failed: %s", strerror(errno));
    if (n == 0) return err_set(DELTA_ECORRUPT, "file ended early (was it truncated?)");
    got += (size_t)n;
  }
  return 0;
}

static void fd_close(void *ctx) {
  fd_source *s = ctx;
  close(s->fd);
  mem_free(s);
}

int pq_local_source(int fd, uint64_t size, delta_parquet_source *out) {
  fd_source *s = mem_malloc(sizeof *s);
  if (!s) return DELTA_NOMEM();
  s->fd = fd;
  *out = (delta_parquet_source){DELTA_PARQUET_SOURCE_VERSION, size, fd_read_at, fd_close, s, true};
  return 0;
}

/* ---- row groups read at once ---- */

int pq_chunk_range(const pq_file *f, int rg, int leaf, uint64_t *start_out, uint64_t *len_out) {
  const pq_column_chunk *cc = &f->md->row_groups[rg].columns[leaf];
  if (!cc->has_meta_data) return err_set(DELTA_ECORRUPT, "column %s: chunk without metadata", f->leaf_paths[leaf]);
  const pq_column_meta *m = &cc->meta_data;
  int64_t start = m->data_page_offset;
  if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
    start = m->dictionary_page_offset;
  int64_t len = m->total_compressed_size;
  if (start < 4 || len < 0 || (uint64_t)start > f->size || (uint64_t)len > f->size - (uint64_t)start)
    return err_set(DELTA_ECORRUPT, "column %s: chunk at offset %lld, %lld bytes, lies outside the file (%zu bytes)",
                   f->leaf_paths[leaf], (long long)start, (long long)len, f->size);
  *start_out = (uint64_t)start;
  *len_out = (uint64_t)len;
  return 0;
}

typedef struct {
  uint64_t start, end;
} byte_range;

static int by_start(const void *a, const void *b) {
  const byte_range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

void pq_rg_bytes_unref(pq_rg_bytes *b) {
  if (!b || --b->refs > 0) return;
  for (size_t i = 0; i < b->n_ranges; i++) mem_free(b->data[i]);
  mem_free(b->data);
  mem_free(b->start);
  mem_free(b->len);
  mem_free(b->have);
  mem_free(b);
}

int pq_rg_bytes_load(const pq_file *f, int rg, const bool *selected, pq_rg_bytes **out) {
  *out = NULL;
  int n_leaves = f->schema->n_leaves;
  int rc = 0;
  byte_range *r = mem_calloc((size_t)n_leaves + 1, sizeof *r);
  pq_rg_bytes *b = mem_calloc(1, sizeof *b);
  if (!r || !b) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  b->refs = 1;
  b->row_group = rg;
  if (!(b->have = mem_calloc((size_t)n_leaves + 1, sizeof(bool)))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  size_t n = 0;
  for (int i = 0; i < n_leaves; i++) {
    if (selected && !selected[i]) continue;
    uint64_t start, len;
    if ((rc = pq_chunk_range(f, rg, i, &start, &len)) != 0) goto fail;
    b->have[i] = true;
    if (len == 0 || pq_file_tail_bytes(f, start, len)) continue;
    r[n++] = (byte_range){start, start + len};
  }
  qsort(r, n, sizeof *r, by_start);
  /* Merge ranges that overlap or lie closer than the gap: reading the gap
   * costs less than another round trip. */
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m > 0 && r[i].start <= r[m - 1].end + PQ_COALESCE_GAP) {
      if (r[i].end > r[m - 1].end) r[m - 1].end = r[i].end;
    } else {
      r[m++] = r[i];
    }
  }
  b->start = mem_calloc(m + 1, sizeof *b->start);
  b->len = mem_calloc(m + 1, sizeof *b->len);
  b->data = mem_calloc(m + 1, sizeof *b->data);
  if (!b->start || !b->len || !b->data) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  for (size_t i = 0; i < m; i++) {
    size_t len = (size_t)(r[i].end - r[i].start);
    /* 8 spare bytes: decoders may load whole words at the end. */
    if (!(b->data[i] = mem_malloc(len + 8))) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    b->n_ranges = i + 1;
    b->start[i] = r[i].start;
    b->len[i] = len;
    memset(b->data[i] + len, 0, 8);
    if ((rc = pq_file_read(f, r[i].start, len, b->data[i])) != 0) goto fail;
  }
  mem_free(r);
  *out = b;
  return 0;
fail:
  mem_free(r);
  pq_rg_bytes_unref(b);
  return rc;
}

const uint8_t *pq_file_tail_bytes(const pq_file *f, uint64_t start, uint64_t len) {
  /* bytes after the chunk: the footer and the trailer, more than the 8
   * spare bytes decoders may load */
  if (f->tail_len == 0 || start < f->tail_at || len > f->size - start) return NULL;
  return f->footer + (start - f->tail_at);
}

const uint8_t *pq_rg_bytes_find(const pq_rg_bytes *b, uint64_t start, uint64_t len) {
  if (!b) return NULL;
  for (size_t i = 0; i < b->n_ranges; i++)
    if (start >= b->start[i] && start - b->start[i] <= b->len[i] && len <= b->len[i] - (start - b->start[i]))
      return b->data[i] + (start - b->start[i]);
  return NULL;
}
