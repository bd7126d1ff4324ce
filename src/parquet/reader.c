/* Opening Parquet files and streaming them as Arrow batches. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrow/array.h"
#include "parquet/assemble.h"
#include "parquet/column_reader.h"
#include "parquet/file.h"
#include "parquet/local_source.h"
#include "parquet/stream.h"
#include "util/alloc_internal.h"
#include "util/bytes.h"
#include "util/error_internal.h"

#define DEFAULT_BATCH_ROWS 65536

/* The footer is read with one guess at its size: most footers are far
 * smaller, and on an object store every read is a round trip. */
#define FOOTER_GUESS ((size_t)64 * 1024)

static int open_common(pq_file *f) {
  if (f->size < 12)
    return err_set(DELTA_ECORRUPT, "%s: not a Parquet file (only %zu bytes)", f->name, f->size);
  int rc = 0;
  const uint8_t *tail;
  size_t tail_len;
  if (f->data) {
    tail = f->data;
    tail_len = f->size;
  } else {
    tail_len = f->size < FOOTER_GUESS ? f->size : FOOTER_GUESS;
    if (!(f->footer = mem_malloc(tail_len))) return DELTA_NOMEM();
    if ((rc = pq_file_read(f, f->size - tail_len, tail_len, f->footer)) != 0) return rc;
    tail = f->footer;
  }
  const uint8_t *end = tail + tail_len - 8;
  if (memcmp(end + 4, "PAR1", 4) != 0) {
    if (memcmp(end + 4, "PARE", 4) == 0)
      return err_set(DELTA_EUNSUPPORTED, "%s: encrypted Parquet files are not supported", f->name);
    return err_set(DELTA_ECORRUPT, "%s: not a Parquet file (no PAR1 magic at the end)", f->name);
  }
  /* The leading magic: in the tail when the file is small; a read of its
   * own only where reads are cheap (remote files are checked by their
   * trailing magic and footer alone). */
  uint8_t head4[4];
  bool have_head = true;
  if (tail_len == f->size)
    memcpy(head4, tail, 4);
  else if (f->src.cheap_reads) {
    if ((rc = pq_file_read(f, 0, 4, head4)) != 0) return rc;
  } else
    have_head = false;
  if (have_head && memcmp(head4, "PAR1", 4) != 0)
    return err_set(DELTA_ECORRUPT, "%s: not a Parquet file (no PAR1 magic at the start)", f->name);
  uint32_t flen = bytes_load_le32(end);
  if ((uint64_t)flen > f->size - 12)
    return err_set(DELTA_ECORRUPT, "%s: footer length %u is larger than the file (%zu bytes)", f->name, flen,
                   f->size);
  const uint8_t *footer;
  if ((size_t)flen + 8 <= tail_len) {
    footer = end - flen;
    if (!f->data) {
      f->tail_at = f->size - tail_len;
      f->tail_len = tail_len;
    }
  } else {
    /* a footer larger than the guess: one more read for all of it */
    mem_free(f->footer);
    if (!(f->footer = mem_malloc(flen))) return DELTA_NOMEM();
    if ((rc = pq_file_read(f, f->size - 8 - flen, flen, f->footer)) != 0) return rc;
    footer = f->footer;
  }
  /* metadata byte strings point into the footer bytes, kept with the file */
  rc = pq_metadata_parse(footer, flen, &f->md);
  if (rc) return err_prefix("%s: footer", f->name);
  rc = pq_schema_build(f->md, &f->schema);
  if (rc) return err_prefix("%s", f->name);
  for (int g = 0; g < f->md->num_row_groups; g++) {
    if (f->md->row_groups[g].num_columns != f->schema->n_leaves)
      return err_set(DELTA_ECORRUPT, "%s: row group %d has %d columns, the schema %d", f->name, g,
                             (int)f->md->row_groups[g].num_columns, f->schema->n_leaves);
    if (f->md->row_groups[g].num_rows < 0)
      return err_set(DELTA_ECORRUPT, "%s: row group %d has a negative row count", f->name, g);
  }
  f->leaf_paths = mem_calloc((size_t)f->schema->n_leaves + 1, sizeof(char *));
  if (!f->leaf_paths) return DELTA_NOMEM();
  for (int i = 0; i < f->schema->n_leaves; i++)
    if (!(f->leaf_paths[i] = pq_node_path(f->schema->leaves[i]))) return DELTA_NOMEM();
  return 0;
}

void pq_file_unref(pq_file *f) {
  if (!f || --f->refs > 0) return;
  if (f->leaf_paths)
    for (int i = 0; f->leaf_paths[i]; i++) mem_free(f->leaf_paths[i]);
  mem_free(f->leaf_paths);
  pq_rg_bytes_unref(f->preloaded);
  pq_schema_free(f->schema);
  pq_metadata_free(f->md);
  if (f->has_src && f->src.close) f->src.close(f->src.ctx);
  mem_free(f->footer);
  mem_free(f->name);
  mem_free(f);
}

void delta_parquet_free(delta_parquet_file *f) { pq_file_unref(f); }

int delta_parquet_open_memory(delta_parquet_file **out, const void *data, size_t len, const char *name) {
  *out = NULL;
  pq_file *f = mem_calloc(1, sizeof *f);
  if (!f) return DELTA_NOMEM();
  f->refs = 1;
  f->name = mem_strdup(name ? name : "<memory>");
  f->data = data;
  f->size = len;
  int rc = f->name ? open_common(f) : DELTA_NOMEM();
  if (rc) {
    pq_file_unref(f);
    return rc;
  }
  *out = f;
  return 0;
}

int delta_parquet_open_source(delta_parquet_file **out, const delta_parquet_source *src, const char *name) {
  *out = NULL;
  if (!src || src->version != DELTA_PARQUET_SOURCE_VERSION || !src->read_at) {
    if (src && src->close) src->close(src->ctx);
    return err_set(DELTA_EINVAL, "%s: not a Parquet source (version or read_at)", name ? name : "<source>");
  }
  if (src->size > SIZE_MAX) {
    if (src->close) src->close(src->ctx);
    return err_set(DELTA_ELIMIT, "%s: too large for this platform", name ? name : "<source>");
  }
  pq_file *f = mem_calloc(1, sizeof *f);
  if (!f) {
    if (src->close) src->close(src->ctx);
    return DELTA_NOMEM();
  }
  f->refs = 1;
  f->src = *src;
  f->has_src = true; /* closed by pq_file_unref from here on */
  f->size = (size_t)src->size;
  f->name = mem_strdup(name ? name : "<source>");
  int rc = f->name ? open_common(f) : DELTA_NOMEM();
  if (rc) {
    pq_file_unref(f);
    return rc;
  }
  *out = f;
  return 0;
}

int delta_parquet_open(delta_parquet_file **out, const char *path) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return err_set(errno == ENOENT ? DELTA_ENOTFOUND : DELTA_EIO, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return err_set(DELTA_EIO, "%s: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return err_set(DELTA_EINVAL, "%s: not a regular file", path);
  }
  delta_parquet_source src;
  int rc = pq_local_source(fd, (uint64_t)st.st_size, &src);
  if (rc) {
    close(fd);
    return rc;
  }
  return delta_parquet_open_source(out, &src, path);
}

int64_t delta_parquet_num_rows(const delta_parquet_file *f) { return f->md->num_rows; }
int delta_parquet_num_row_groups(const delta_parquet_file *f) { return f->md->num_row_groups; }
int64_t delta_parquet_row_group_num_rows(const delta_parquet_file *f, int rg) {
  return (rg >= 0 && rg < f->md->num_row_groups) ? f->md->row_groups[rg].num_rows : -1;
}
int delta_parquet_num_leaves(const delta_parquet_file *f) { return f->schema->n_leaves; }
const char *delta_parquet_leaf_path(const delta_parquet_file *f, int leaf) {
  return (leaf >= 0 && leaf < f->schema->n_leaves) ? f->leaf_paths[leaf] : NULL;
}

int delta_parquet_schema(const delta_parquet_file *f, struct ArrowSchema *out) {
  return pq_schema_to_arrow(f->schema, NULL, out);
}

/* ---- statistics ---- */

static bool signed_order_ok(const pq_node *leaf) {
  /* The deprecated min/max were written with signed comparison; that is the
   * right order for signed integers, floats and booleans only. */
  switch (leaf->physical) {
  case PQ_BOOLEAN: case PQ_FLOAT: case PQ_DOUBLE: return true;
  case PQ_INT32: case PQ_INT64:
    return strcmp(leaf->format, "I") != 0 && strcmp(leaf->format, "L") != 0 &&
           strcmp(leaf->format, "C") != 0 && strcmp(leaf->format, "S") != 0;
  default: return false;
  }
}

static bool is_nan_bound(int physical, const uint8_t *p, uint32_t len) {
  if (physical == PQ_FLOAT && len == 4) {
    uint32_t v = bytes_load_le32(p);
    return (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu);
  }
  if (physical == PQ_DOUBLE && len == 8) {
    uint64_t v = bytes_load_le64(p);
    return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v & 0x000fffffffffffffull);
  }
  return false;
}

int delta_parquet_column_stats(const delta_parquet_file *f, int rg, int leaf, delta_parquet_stats *out) {
  memset(out, 0, sizeof *out);
  if (rg < 0 || rg >= f->md->num_row_groups || leaf < 0 || leaf >= f->schema->n_leaves)
    return err_set(DELTA_EINVAL, "no row group %d / column %d", rg, leaf);
  const pq_column_chunk *cc = &f->md->row_groups[rg].columns[leaf];
  const pq_node *n = f->schema->leaves[leaf];
  out->physical_type = n->physical;
  if (!cc->has_meta_data) return 0;
  out->num_values = cc->meta_data.num_values;
  if (!cc->meta_data.has_statistics) return 0;
  const pq_statistics *s = &cc->meta_data.statistics;
  out->has_null_count = s->has_null_count;
  out->null_count = s->null_count;
  pq_bytes mn = {0}, mx = {0};
  bool typed_order = f->md->column_orders && leaf < f->md->num_column_orders && f->md->column_orders[leaf];
  if (s->min_value.ptr && s->max_value.ptr && (typed_order || !f->md->column_orders)) {
    mn = s->min_value;
    mx = s->max_value;
    out->min_exact = !s->has_is_min_value_exact || s->is_min_value_exact;
    out->max_exact = !s->has_is_max_value_exact || s->is_max_value_exact;
  } else if (s->min.ptr && s->max.ptr && signed_order_ok(n)) {
    mn = s->min;
    mx = s->max;
    out->min_exact = out->max_exact = true;
  }
  if (mn.ptr && mx.ptr && !is_nan_bound(n->physical, mn.ptr, mn.len) &&
      !is_nan_bound(n->physical, mx.ptr, mx.len)) {
    out->has_min_max = true;
    out->min = mn.ptr;
    out->min_len = mn.len;
    out->max = mx.ptr;
    out->max_len = mx.len;
  }
  return 0;
}

/* ---- the stream ---- */

typedef struct {
  pq_file *f;
  bool *selected;             /* by leaf index */
  int *row_groups;
  size_t n_row_groups, next_rg;
  int64_t batch_rows;
  int cur_rg;
  int64_t rg_rows_left;
  pq_column_reader **readers; /* by leaf index, for the current row group */
  pq_col_batch *batches;      /* by leaf index */
  pq_assembler *asm_;
  pq_page_counts pages;       /* of readers already freed */
  pq_bigbuf body_buf;         /* compressed page bodies, shared by the readers */
  /* Sources without cheap reads: the current row group's chunks, from the
   * file's read-ahead ([0]) and read by this stream ([1]). */
  pq_rg_bytes *rg_bytes[2];
  struct ArrowSchema schema;
  char last_error[1024];
  bool failed;
} stream_state;

static void close_readers(stream_state *st) {
  if (!st->readers) return;
  for (int i = 0; i < st->f->schema->n_leaves; i++) {
    if (st->readers[i]) {
      pq_page_counts c;
      pq_colreader_page_counts(st->readers[i], &c);
      st->pages.read += c.read;
      st->pages.skipped += c.skipped;
    }
    pq_colreader_free(st->readers[i]);
    st->readers[i] = NULL;
  }
}

static void drop_rg_bytes(stream_state *st) {
  for (int k = 0; k < 2; k++) {
    pq_rg_bytes_unref(st->rg_bytes[k]);
    st->rg_bytes[k] = NULL;
  }
}

static void stream_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  stream_state *st = s->private_data;
  close_readers(st);
  drop_rg_bytes(st);
  for (int i = 0; st->batches && i < st->f->schema->n_leaves; i++) pq_col_batch_dispose(&st->batches[i]);
  mem_free(st->batches);
  mem_free(st->readers);
  pq_bigbuf_dispose(&st->body_buf);
  pq_assembler_free(st->asm_);
  arrow_schema_release(&st->schema);
  mem_free(st->selected);
  mem_free(st->row_groups);
  pq_file_unref(st->f);
  mem_free(st);
  s->release = NULL;
}

static int stream_fail(stream_state *st, int rc) {
  snprintf(st->last_error, sizeof st->last_error, "%s", delta_error_last());
  st->failed = true;
  return rc;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  stream_state *st = s->private_data;
  int rc = arrow_schema_copy(out, &st->schema);
  return rc ? stream_fail(st, rc) : 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s) {
  stream_state *st = s->private_data;
  return st->last_error[0] ? st->last_error : NULL;
}

/* The Arrow stream contract wants errno-style positive codes from callbacks. */
static int to_errno(int rc) {
  switch (rc) {
  case DELTA_ENOMEM: return ENOMEM;
  case DELTA_EINVAL: return EINVAL;
  case DELTA_EIO: return EIO;
  case DELTA_ENOTFOUND: return ENOENT;
  case DELTA_EUNSUPPORTED: return ENOTSUP;
  default: return EINVAL;
  }
}

/* For a source where reads are round trips: have the current row group's
 * selected chunks in memory, taking what the file read ahead and reading
 * the rest at once. */
static int load_row_group(stream_state *st) {
  pq_file *f = st->f;
  drop_rg_bytes(st);
  if (f->data || f->src.cheap_reads) return 0;
  if (f->preloaded && f->preloaded->row_group != st->cur_rg) {
    /* the read-ahead was for a row group this file's streams have left */
    pq_rg_bytes_unref(f->preloaded);
    f->preloaded = NULL;
  }
  int n_leaves = f->schema->n_leaves;
  bool *need = mem_calloc((size_t)n_leaves + 1, sizeof(bool));
  if (!need) return DELTA_NOMEM();
  bool any = false;
  for (int i = 0; i < n_leaves; i++) {
    need[i] = st->selected[i] && !(f->preloaded && f->preloaded->have[i]);
    any |= need[i];
  }
  if (f->preloaded) {
    st->rg_bytes[0] = f->preloaded;
    f->preloaded->refs++;
  }
  int rc = any ? pq_rg_bytes_load(f, st->cur_rg, need, &st->rg_bytes[1]) : 0;
  mem_free(need);
  return rc;
}

static const uint8_t *chunk_in_memory(const stream_state *st, int leaf) {
  uint64_t start, len;
  if (st->f->data || st->f->src.cheap_reads) return NULL;
  if (pq_chunk_range(st->f, st->cur_rg, leaf, &start, &len) != 0) {
    delta_error_clear(); /* pq_colreader_open reports it */
    return NULL;
  }
  const uint8_t *p = pq_rg_bytes_find(st->rg_bytes[0], start, len);
  if (!p) p = pq_rg_bytes_find(st->rg_bytes[1], start, len);
  return p ? p : pq_file_tail_bytes(st->f, start, len);
}

/* Make sure a row group with rows left is open: DELTA_ITEROVER when none. */
static int next_row_group(stream_state *st) {
  pq_file *f = st->f;
  while (st->rg_rows_left == 0) {
    if (st->next_rg >= st->n_row_groups) {
      close_readers(st);
      drop_rg_bytes(st);
      return DELTA_ITEROVER;
    }
    st->cur_rg = st->row_groups[st->next_rg++];
    st->rg_rows_left = f->md->row_groups[st->cur_rg].num_rows;
    if (st->rg_rows_left == 0) continue;
    int rc = load_row_group(st);
    if (rc) return rc;
    for (int i = 0; i < f->schema->n_leaves; i++) {
      if (!st->selected[i]) continue;
      rc = pq_colreader_open(&st->readers[i], f, st->cur_rg, f->schema->leaves[i], chunk_in_memory(st, i));
      if (rc) return rc;
      pq_colreader_share_body_buffer(st->readers[i], &st->body_buf);
    }
  }
  return 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  stream_state *st = s->private_data;
  memset(out, 0, sizeof *out);
  if (st->failed) return EINVAL;
  pq_file *f = st->f;
  int n_leaves = f->schema->n_leaves;
  int rc = next_row_group(st);
  if (rc == DELTA_ITEROVER) return 0; /* end of stream: out stays released */
  if (rc) goto fail;
  int64_t want = st->rg_rows_left < st->batch_rows ? st->rg_rows_left : st->batch_rows;
  for (int i = 0; i < n_leaves; i++) {
    if (!st->selected[i]) continue;
    rc = pq_col_batch_reset(&st->batches[i]);
    if (rc) goto fail;
    rc = pq_colreader_read(st->readers[i], want, &st->batches[i]);
    if (rc) goto fail;
    if (st->batches[i].n_records != want) {
      rc = err_set(DELTA_ECORRUPT, "column %s: row group %d ends after %lld fewer rows than it says",
                           f->leaf_paths[i], st->cur_rg, (long long)(want - st->batches[i].n_records));
      goto fail;
    }
  }
  rc = pq_assemble(st->asm_, st->batches, want, out);
  if (rc) goto fail;
  st->rg_rows_left -= want;
  return 0;
fail:
  err_prefix("%s: row group %d", f->name, st->cur_rg);
  stream_fail(st, rc);
  return to_errno(rc);
}

/* Mark the leaves under the node named by a dotted path. */
static void select_subtree(const pq_schema *s, const pq_node *n, bool *selected) {
  for (int i = 0; i < s->n_leaves; i++)
    for (const pq_node *q = s->leaves[i]; q; q = q->parent)
      if (q == n) {
        selected[i] = true;
        break;
      }
}

static bool select_path(const pq_schema *s, const char *path, bool *selected) {
  const pq_node *n = s->root;
  /* A top-level column whose own name has dots ("id.num") wins over the path reading. */
  for (int i = 0; i < n->n_children; i++)
    if (strcmp(n->children[i]->name, path) == 0) {
      select_subtree(s, n->children[i], selected);
      return true;
    }
  const char *p = path;
  while (*p) {
    const char *dot = strchr(p, '.');
    size_t len = dot ? (size_t)(dot - p) : strlen(p);
    const pq_node *next = NULL;
    /* Lists and maps are looked through: "a.b" may name a field of a list's struct elements. */
    while (n->kind == PQN_LIST || n->kind == PQN_MAP) n = n->children[0];
    for (int i = 0; i < n->n_children; i++) {
      if (strlen(n->children[i]->name) == len && memcmp(n->children[i]->name, p, len) == 0) {
        next = n->children[i];
        break;
      }
    }
    if (!next) return false;
    n = next;
    p = dot ? dot + 1 : p + len;
  }
  if (n == s->root) return false;
  select_subtree(s, n, selected);
  return true;
}

int delta_parquet_read(delta_parquet_file *f, const delta_parquet_read_options *opts,
                       struct ArrowArrayStream *out) {
  memset(out, 0, sizeof *out);
  delta_parquet_read_options defaults = DELTA_PARQUET_READ_OPTIONS_INIT;
  if (!opts) opts = &defaults;
  if (opts->version != DELTA_PARQUET_READ_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "read options: unknown version %u", opts->version);
  int n_leaves = f->schema->n_leaves;
  stream_state *st = mem_calloc(1, sizeof *st);
  if (!st) return DELTA_NOMEM();
  st->f = f;
  f->refs++;
  int rc = 0;
  st->selected = mem_calloc((size_t)n_leaves + 1, sizeof(bool));
  st->readers = mem_calloc((size_t)n_leaves + 1, sizeof *st->readers);
  st->batches = mem_calloc((size_t)n_leaves + 1, sizeof *st->batches);
  if (!st->selected || !st->readers || !st->batches) { rc = DELTA_NOMEM(); goto fail; }
  if (opts->n_columns == 0) {
    for (int i = 0; i < n_leaves; i++) st->selected[i] = true;
  } else {
    for (size_t i = 0; i < opts->n_columns; i++)
      if (!select_path(f->schema, opts->columns[i], st->selected)) {
        rc = err_set(DELTA_ENOTFOUND, "%s: no column named %s", f->name, opts->columns[i]);
        goto fail;
      }
  }
  if (opts->n_row_groups == 0) {
    st->n_row_groups = (size_t)f->md->num_row_groups;
    st->row_groups = mem_calloc(st->n_row_groups + 1, sizeof(int));
    if (!st->row_groups) { rc = DELTA_NOMEM(); goto fail; }
    for (size_t i = 0; i < st->n_row_groups; i++) st->row_groups[i] = (int)i;
  } else {
    st->n_row_groups = opts->n_row_groups;
    st->row_groups = mem_calloc(st->n_row_groups, sizeof(int));
    if (!st->row_groups) { rc = DELTA_NOMEM(); goto fail; }
    for (size_t i = 0; i < st->n_row_groups; i++) {
      if (opts->row_groups[i] < 0 || opts->row_groups[i] >= f->md->num_row_groups) {
        rc = err_set(DELTA_ENOTFOUND, "%s: no row group %d", f->name, opts->row_groups[i]);
        goto fail;
      }
      st->row_groups[i] = opts->row_groups[i];
    }
  }
  st->batch_rows = opts->batch_rows > 0 ? opts->batch_rows : DEFAULT_BATCH_ROWS;
  rc = pq_schema_to_arrow(f->schema, st->selected, &st->schema);
  if (rc) goto fail;
  rc = pq_assembler_new(&st->asm_, f->schema, st->selected);
  if (rc) goto fail;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = st;
  return 0;
fail:
  {
    struct ArrowArrayStream tmp = {.release = stream_release, .private_data = st};
    stream_release(&tmp);
  }
  return rc;
}

int delta_parquet_prefetch(delta_parquet_file *f, const delta_parquet_read_options *opts) {
  if (f->data || f->src.cheap_reads) return 0;
  delta_parquet_read_options defaults = DELTA_PARQUET_READ_OPTIONS_INIT;
  if (!opts) opts = &defaults;
  if (opts->version != DELTA_PARQUET_READ_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "read options: unknown version %u", opts->version);
  int rg = opts->n_row_groups > 0 ? opts->row_groups[0] : 0;
  if (rg < 0 || rg >= f->md->num_row_groups) return 0; /* nothing to read ahead; the read reports it */
  if (f->preloaded && f->preloaded->row_group == rg) return 0;
  int n_leaves = f->schema->n_leaves;
  bool *selected = mem_calloc((size_t)n_leaves + 1, sizeof(bool));
  if (!selected) return DELTA_NOMEM();
  int rc = 0;
  if (opts->n_columns == 0) {
    for (int i = 0; i < n_leaves; i++) selected[i] = true;
  } else {
    for (size_t i = 0; i < opts->n_columns; i++)
      if (!select_path(f->schema, opts->columns[i], selected)) {
        rc = err_set(DELTA_ENOTFOUND, "%s: no column named %s", f->name, opts->columns[i]);
        goto done;
      }
  }
  pq_rg_bytes *b = NULL;
  if ((rc = pq_rg_bytes_load(f, rg, selected, &b)) != 0) goto done;
  pq_rg_bytes_unref(f->preloaded);
  f->preloaded = b;
done:
  mem_free(selected);
  return rc;
}

/* ---- skipping rows (for the scan's late materialization) ---- */

int pq_stream_skip(struct ArrowArrayStream *s, int64_t n_rows) {
  if (!s->release || s->get_next != stream_get_next)
    return err_set(DELTA_EINVAL, "pq_stream_skip: not a Parquet read stream");
  stream_state *st = s->private_data;
  if (st->failed) return err_set(DELTA_ERROR, "%s", st->last_error);
  while (n_rows > 0) {
    int rc = next_row_group(st);
    if (rc == DELTA_ITEROVER)
      return err_set(DELTA_EINVAL, "%s: skipping %lld rows past the end", st->f->name, (long long)n_rows);
    if (rc) {
      err_prefix("%s: row group %d", st->f->name, st->cur_rg);
      return stream_fail(st, rc);
    }
    int64_t take = n_rows < st->rg_rows_left ? n_rows : st->rg_rows_left;
    for (int i = 0; i < st->f->schema->n_leaves; i++)
      if (st->selected[i]) pq_colreader_skip(st->readers[i], take);
    st->rg_rows_left -= take;
    n_rows -= take;
  }
  return 0;
}

void pq_stream_page_counts(struct ArrowArrayStream *s, pq_page_counts *out) {
  *out = (pq_page_counts){0, 0};
  if (!s->release || s->get_next != stream_get_next) return;
  stream_state *st = s->private_data;
  *out = st->pages;
  for (int i = 0; st->readers && i < st->f->schema->n_leaves; i++) {
    if (!st->readers[i]) continue;
    pq_page_counts c;
    pq_colreader_page_counts(st->readers[i], &c);
    out->read += c.read;
    out->skipped += c.skipped;
  }
}
