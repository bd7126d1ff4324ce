/* Data files of a write; see data_write.h. */
#include "rewrite/data_write.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "arrow/array.h"
#include "arrow/filter.h"
#include "json/json_writer.h"
#include "storage/path.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/partition_text.h"
#include "log/snapshot.h"
#include "rewrite/constraints.h"
#include "rewrite/file_out.h"
#include "rewrite/file_stats.h"
#include "rewrite/gen_columns.h"
#include "log/schema_build.h"

#define DEFAULT_TARGET ((int64_t)128 << 20)

typedef struct {
  char *key;                /* partition key (values joined), owns */
  char *dir;                /* "a=1/b=x/" (Hive-escaped) or "" */
  char *values_json;        /* the partitionValues object */
  file_out out;             /* the open file */
  delta_parquet_writer *w;  /* NULL when no file is open */
} part_file;

struct data_writer {
  data_write_config cfg;
  struct ArrowSchema input;   /* copy */
  int n_fields;
  int *input_of_field;        /* table field -> input column, -1 when missing */
  int *part_fields;           /* table field index of each partition column */
  int n_data;                 /* data columns written to files */
  int *data_inputs;           /* input column of each data column */
  char *cast_to;              /* per data column: Arrow format char to widen to, or 0 */
  struct ArrowSchema file_schema;
  part_file **parts;          /* each allocated alone: the open writer's sink points into it */
  int n_parts, cap_parts;
  delta_buf adds;
  int64_t files, rows, bytes;
  delta_buf tmp;
  write_constraints *constraints; /* NULL: nothing to check */
  int64_t opened;                 /* files opened: their part numbers */
  gen_columns *gen;               /* generated/identity columns; NULL: none */
};

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool partitionable(delta_type_kind k) {
  return k != DT_STRUCT && k != DT_ARRAY && k != DT_MAP && k != DT_VARIANT && k != DT_NULL;
}

static const char *phys_name(const delta_field *f, bool cm) {
  return cm && f->physical_name ? f->physical_name : f->name;
}

/* The file schema of one column: the input's Arrow type, renamed to the
 * physical names, with field ids. */
static int phys_schema(const struct ArrowSchema *in, const delta_type *t, const delta_field *f, bool cm,
                       const char *name, struct ArrowSchema *out) {
  int rc;
  if ((rc = arrow_schema_new(out, in->format, f ? phys_name(f, cm) : name, in->flags, (int)in->n_children)) != 0)
    return rc;
  if (cm && f && f->has_field_id) {
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)f->field_id);
    const char *k = "PARQUET:field_id", *v = id;
    if ((rc = arrow_schema_set_metadata(out, &k, &v, 1))) return rc;
  }
  for (int64_t i = 0; i < in->n_children; i++) {
    const struct ArrowSchema *c = in->children[i];
    const delta_field *tf = NULL;
    /* struct fields by name: the input may lack some or order them otherwise */
    for (int k = 0; t->kind == DT_STRUCT && !tf && k < t->n_fields; k++)
      if (strcasecmp(t->fields[k].name, c->name) == 0) tf = &t->fields[k];
    if (tf) {
      if ((rc = phys_schema(c, tf->type, tf, cm, NULL, out->children[i])) != 0)
        return rc;
    } else if (t->kind == DT_ARRAY) {
      if ((rc = phys_schema(c, t->element, NULL, cm, c->name, out->children[i])) != 0)
        return rc;
    } else if (t->kind == DT_MAP) {
      /* entries struct: key and value */
      if ((rc = arrow_schema_new(out->children[i], c->format, c->name, c->flags, (int)c->n_children)) != 0)
        return rc;
      if (c->n_children == 2) {
        if ((rc = phys_schema(c->children[0], t->key, NULL, cm, c->children[0]->name,
                              out->children[i]->children[0])) != 0)
          return rc;
        if ((rc = phys_schema(c->children[1], t->value, NULL, cm, c->children[1]->name,
                              out->children[i]->children[1])) != 0)
          return rc;
      }
    } else {
      return err_set(DELTA_EINVAL, "column %s: input type does not match the table", name ? name : "?");
    }
  }
  return 0;
}

/* The constraints of the table, from the configuration given or else from
 * the table's latest metadata. */
/* The table at `location` and its latest snapshot (both the caller's to free). */
static int open_latest(const char *location, delta_table **t, delta_snapshot **s) {
  int rc;
  if ((rc = delta_table_open(t, location)) != 0)
    return rc;
  return delta_snapshot_open(s, *t, NULL);
}

static int bind_constraints(data_writer *dw) {
  const data_write_config *cfg = &dw->cfg;
  if (cfg->has_configuration)
    return constraints_new(&dw->constraints, cfg->schema, cfg->configuration, cfg->n_configuration, &dw->input);
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  int rc = open_latest(delta_storage_location(cfg->storage), &t, &s);
  if (rc == DELTA_ENOTFOUND) {
    delta_error_clear();
    rc = constraints_new(&dw->constraints, cfg->schema, NULL, 0, &dw->input);
  } else if (rc == 0) {
    rc = constraints_new(&dw->constraints, cfg->schema, s->metadata.configuration, s->metadata.n_configuration,
                         &dw->input);
  }
  delta_snapshot_free(s);
  delta_table_free(t);
  return rc;
}

int data_writer_new(data_writer **out, const data_write_config *cfg, const struct ArrowSchema *input) {
  *out = NULL;
  data_writer *dw = mem_calloc(1, sizeof *dw);
  if (!dw) return DELTA_NOMEM();
  dw->cfg = *cfg;
  if (dw->cfg.target_file_size <= 0) dw->cfg.target_file_size = DEFAULT_TARGET;
  const delta_type *st = cfg->schema;
  /* dw->input: the input's schema with generated and identity columns
   * added when it lacks them (gen_columns.h) */
  int rc = cfg->no_data_change ? arrow_schema_copy(&dw->input, input)
                               : gen_columns_new(&dw->gen, st, cfg->protocol, false, input, &dw->input);
  if (rc) goto fail;
  input = &dw->input;
  dw->n_fields = st->n_fields;
  dw->input_of_field = mem_calloc((size_t)st->n_fields + 1, sizeof(int));
  dw->part_fields = mem_calloc((size_t)cfg->n_partition_columns + 1, sizeof(int));
  dw->data_inputs = mem_calloc((size_t)st->n_fields + 1, sizeof(int));
  dw->cast_to = mem_calloc((size_t)st->n_fields + 1, 1);
  if (!dw->input_of_field || !dw->part_fields || !dw->data_inputs || !dw->cast_to) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  for (int f = 0; f < st->n_fields; f++) {
    dw->input_of_field[f] = -1;
    for (int64_t c = 0; c < input->n_children; c++)
      if (strcasecmp(input->children[c]->name, st->fields[f].name) == 0) dw->input_of_field[f] = (int)c;
    if (dw->input_of_field[f] < 0 && !st->fields[f].nullable) {
      rc = err_set(DELTA_EINVAL, "column %s is not nullable but the input lacks it", st->fields[f].name);
      goto fail;
    }
  }
  for (int p = 0; p < cfg->n_partition_columns; p++) {
    int fi = -1;
    for (int f = 0; f < st->n_fields; f++)
      if (strcasecmp(st->fields[f].name, cfg->partition_columns[p]) == 0) fi = f;
    if (fi < 0) {
      rc = err_set(DELTA_EINVAL, "partition column %s is not in the schema", cfg->partition_columns[p]);
      goto fail;
    }
    if (!partitionable(st->fields[fi].type->kind)) {
      rc = err_set(DELTA_EINVAL, "cannot partition on column %s: nested types cannot be partition columns",
                           st->fields[fi].name);
      goto fail;
    }
    dw->part_fields[p] = fi;
  }
  /* data columns: table order, present in the input, not partition columns */
  int n = 0;
  for (int f = 0; f < st->n_fields; f++) {
    bool is_part = false;
    for (int p = 0; p < cfg->n_partition_columns; p++) is_part |= dw->part_fields[p] == f;
    if (!is_part && dw->input_of_field[f] >= 0) dw->data_inputs[n++] = f;
  }
  dw->n_data = n;
  if ((rc = arrow_schema_new(&dw->file_schema, "+s", "", 0, n))) goto fail;
  for (int i = 0; i < n; i++) {
    int f = dw->data_inputs[i];
    const struct ArrowSchema *in = input->children[dw->input_of_field[f]];
    if ((rc = phys_schema(in, st->fields[f].type, &st->fields[f], cfg->column_mapping, st->fields[f].name,
                          dw->file_schema.children[i])) != 0)
      goto fail;
    /* a narrower input column (schema_safe_widening) is widened as written */
    char want = 0;
    switch (st->fields[f].type->kind) {
    case DT_BYTE: want = 'c'; break;
    case DT_SHORT: want = 's'; break;
    case DT_INTEGER: want = 'i'; break;
    case DT_LONG: want = 'l'; break;
    case DT_DOUBLE: want = 'g'; break;
    default: break;
    }
    if (want && strcmp(in->format, (char[]){want, 0}) != 0) {
      if (strlen(in->format) != 1 || !strchr("csilf", in->format[0])) {
        rc = err_set(DELTA_EINVAL, "column %s: cannot write Arrow type %s into it", st->fields[f].name, in->format);
        goto fail;
      }
      dw->cast_to[i] = want;
      struct ArrowSchema *fs = dw->file_schema.children[i];
      struct ArrowSchema widened;
      if ((rc = arrow_schema_new(&widened, (char[]){want, 0}, fs->name, fs->flags, 0)) != 0)
        goto fail;
      if (fs->metadata) {
        int32_t len;
        const char *k = "PARQUET:field_id", *v = arrow_schema_metadata_get(fs, k, &len);
        char id[24];
        if (v) {
          snprintf(id, sizeof id, "%.*s", (int)len, v);
          const char *vv = id;
          if ((rc = arrow_schema_set_metadata(&widened, &k, &vv, 1)) != 0)
            goto fail;
        }
      }
      fs->release(fs);
      *fs = widened;
    }
  }
  if ((rc = bind_constraints(dw)) != 0)
    goto fail;
  *out = dw;
  return 0;
fail:
  data_writer_free(dw);
  return rc;
}

static const char *codec_ext(delta_parquet_codec c) {
  switch (c) {
  case DELTA_PARQUET_UNCOMPRESSED: return "";
  case DELTA_PARQUET_GZIP: return ".gz";
  case DELTA_PARQUET_ZSTD: return ".zstd";
  case DELTA_PARQUET_LZ4_RAW: return ".lz4raw";
  default: return ".snappy";
  }
}

static int open_file(data_writer *dw, part_file *pf) {
  delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  o.codec = dw->cfg.codec;
  int64_t rg = dw->cfg.target_file_size / 2;
  o.row_group_bytes = rg < (16 << 10) ? (16 << 10) : rg > ((int64_t)128 << 20) ? ((int64_t)128 << 20) : rg;
  char uuid[37];
  write_uuid(uuid);
  delta_buf key = DELTA_BUF_INIT;
  delta_parquet_sink sink = {file_out_write, &pf->out};
  int rc;
  if ((rc = buf_printf(&key, "%spart-%05lld-%s.c000%s.parquet", pf->dir, (long long)dw->opened++, uuid,
                       codec_ext(dw->cfg.codec))) != 0)
    goto done;
  if ((rc = buf_putc(&key, 0)) != 0)
    goto done;
  if ((rc = file_out_open(&pf->out, dw->cfg.storage, (const char *)key.data)) != 0)
    goto done;
  if ((rc = delta_parquet_writer_open_sink(&pf->w, &sink, &dw->file_schema, &o)) != 0)
    goto done;
done:
  buf_dispose(&key);
  return rc;
}

static int close_file(data_writer *dw, part_file *pf) {
  delta_parquet_write_result *r = NULL;
  delta_buf stats = DELTA_BUF_INIT, line = DELTA_BUF_INIT;
  int rc = delta_parquet_writer_close(pf->w, &r);
  delta_parquet_writer_free(pf->w);
  pf->w = NULL;
  if (rc != 0)
    goto done;
  if ((rc = file_out_close(&pf->out)) != 0)
    goto done;
  if ((rc = file_stats_json(r, &stats)) != 0)
    goto done;
  delta_json_writer w;
  json_writer_init(&w, &line, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "add");
  json_write_object_begin(&w);
  json_write_key(&w, "path");
  delta_buf enc = DELTA_BUF_INIT;
  rc = storage_path_encode(&enc, pf->out.key, strlen(pf->out.key));
  json_write_string_n(&w, (const char *)enc.data, enc.len);
  buf_dispose(&enc);
  if (rc != 0)
    goto done;
  json_write_key(&w, "partitionValues");
  json_write_raw(&w, pf->values_json, strlen(pf->values_json));
  json_write_key(&w, "size");
  json_write_int64(&w, pf->out.size);
  json_write_key(&w, "modificationTime");
  json_write_int64(&w, now_ms());
  json_write_key(&w, "dataChange");
  json_write_bool(&w, !dw->cfg.no_data_change);
  json_write_key(&w, "stats");
  json_write_string_n(&w, (const char *)stats.data, stats.len);
  json_write_object_end(&w);
  json_write_object_end(&w);
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_append(&line, "\n", 1)) != 0)
    goto done;
  if ((rc = buf_append(&dw->adds, line.data, line.len)) != 0)
    goto done;
  dw->files++;
  dw->bytes += pf->out.size;
done:
  file_out_abort(&pf->out); /* closed: only frees */
  buf_dispose(&stats);
  buf_dispose(&line);
  delta_parquet_write_result_free(r);
  return rc;
}

/* The open file of a partition, created on first use. */
static int find_part(data_writer *dw, const struct ArrowArray *batch, int64_t row, const char *key, part_file **out) {
  for (int i = 0; i < dw->n_parts; i++)
    if (strcmp(dw->parts[i]->key, key) == 0) {
      *out = dw->parts[i];
      return 0;
    }
  if (dw->n_parts == dw->cap_parts) {
    int cap = dw->cap_parts ? dw->cap_parts * 2 : 8;
    part_file **p = mem_realloc(dw->parts, (size_t)cap * sizeof *p);
    if (!p) return DELTA_NOMEM();
    dw->parts = p;
    dw->cap_parts = cap;
  }
  part_file *pf = mem_calloc(1, sizeof *pf);
  if (!pf) return DELTA_NOMEM();
  dw->parts[dw->n_parts] = pf;
  delta_buf dir = DELTA_BUF_INIT, vals = DELTA_BUF_INIT, v = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &vals, 0);
  json_write_object_begin(&w);
  int rc = 0;
  for (int p = 0; p < dw->cfg.n_partition_columns; p++) {
    int f = dw->part_fields[p];
    const delta_field *fd = &dw->cfg.schema->fields[f];
    const char *pn = phys_name(fd, dw->cfg.column_mapping);
    bool is_null = true;
    buf_reset(&v);
    if (dw->input_of_field[f] >= 0) {
      int c = dw->input_of_field[f];
      if ((rc = log_partition_value_text(dw->input.children[c]->format, batch->children[c], batch->offset + row, &v,
                                         &is_null)) != 0)
        goto done;
    }
    json_write_key(&w, pn);
    /* an empty string is a null partition value too (the spec's rule) */
    if (is_null || v.len == 0) json_write_null(&w);
    else json_write_string_n(&w, (const char *)v.data, v.len);
    if ((rc = storage_path_escape_partition(&dir, pn, strlen(pn))) != 0)
      goto done;
    if ((rc = buf_putc(&dir, '=')) != 0)
      goto done;
    if (is_null || v.len == 0)
      rc = buf_puts(&dir, DELTA_HIVE_DEFAULT_PARTITION);
    else
      rc = storage_path_escape_partition(&dir, (const char *)v.data, v.len);
    if (rc != 0)
      goto done;
    if ((rc = buf_putc(&dir, '/')) != 0)
      goto done;
  }
  json_write_object_end(&w);
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  if ((rc = buf_putc(&dir, 0)) != 0)
    goto done;
  if ((rc = buf_putc(&vals, 0)) != 0)
    goto done;
  pf->key = mem_strdup(key);
  pf->dir = (char *)buf_detach(&dir);
  pf->values_json = (char *)buf_detach(&vals);
  if (!pf->key || !pf->dir || !pf->values_json) rc = DELTA_NOMEM();
done:
  dw->n_parts++; /* counted even on failure so that free() releases it */
  buf_dispose(&dir);
  buf_dispose(&vals);
  buf_dispose(&v);
  *out = pf;
  return rc;
}

static int write_rows(data_writer *dw, part_file *pf, const struct ArrowArray *data) {
  int rc = 0;
  if (!pf->w && (rc = open_file(dw, pf))) return rc;
  if ((rc = delta_parquet_writer_write(pf->w, data))) return rc;
  dw->rows += data->length;
  if (pf->out.size >= dw->cfg.target_file_size) rc = close_file(dw, pf);
  return rc;
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }

static int64_t int_at(char f, const void *v, int64_t k) {
  switch (f) {
  case 'c': return ((const int8_t *)v)[k];
  case 's': return ((const int16_t *)v)[k];
  case 'i': return ((const int32_t *)v)[k];
  default: return ((const int64_t *)v)[k];
  }
}

/* A widened copy of `a` (Arrow format `from`), same length and validity. */
static int widen(const struct ArrowArray *a, char from, char to, struct ArrowArray *out) {
  int w = to == 'c' ? 1 : to == 's' ? 2 : to == 'i' ? 4 : 8;
  int rc = arrow_array_new(out, 2, 0);
  if (rc) return rc;
  int64_t n = a->length;
  out->length = n;
  out->null_count = a->null_count;
  uint8_t *vals = mem_calloc((size_t)n + 1, (size_t)w);
  uint8_t *valid = a->null_count ? mem_calloc((size_t)n / 8 + 1, 1) : NULL;
  if (!vals || (a->null_count && !valid)) {
    mem_free(vals);
    mem_free(valid);
    arrow_array_release(out);
    return DELTA_NOMEM();
  }
  for (int64_t j = 0; j < n; j++) {
    int64_t k = a->offset + j;
    if (valid && arrow_is_valid(a, j)) arrow_bit_set(valid, j);
    if (to == 'g') {
      double d = from == 'f' ? ((const float *)a->buffers[1])[k] : (double)int_at(from, a->buffers[1], k);
      memcpy(vals + 8 * j, &d, 8);
    } else {
      int64_t x = int_at(from, a->buffers[1], k);
      memcpy(vals + (size_t)w * (size_t)j, &x, (size_t)w); /* little-endian: the low bytes */
    }
  }
  arrow_array_set_buffer(out, 0, valid);
  arrow_array_set_buffer(out, 1, vals);
  return 0;
}

int data_writer_write(data_writer *dw, const struct ArrowArray *batch) {
  if (batch->length == 0) return 0;
  struct ArrowArray filled;
  int rc = dw->gen ? gen_columns_apply(dw->gen, batch, NULL, false, &filled) : 0;
  if (rc) return rc;
  if (dw->gen) batch = &filled;
  rc = constraints_check(dw->constraints, batch);
  if (rc) return rc;
  /* the data columns as a struct array borrowing the input's children */
  struct ArrowArray *kids[dw->n_data + 1];
  struct ArrowArray widened[dw->n_data + 1];
  int64_t n = batch->length;
  int *group = NULL;
  uint8_t *keep = NULL;
  char **keys = NULL;
  int n_keys = 0;
  for (int i = 0; i < dw->n_data; i++) widened[i].release = NULL; /* done: releases them all */
  for (int i = 0; i < dw->n_data; i++) {
    int c = dw->input_of_field[dw->data_inputs[i]];
    kids[i] = batch->children[c];
    if (dw->cast_to[i]) {
      if ((rc = widen(batch->children[c], dw->input.children[c]->format[0], dw->cast_to[i], &widened[i])) != 0)
        goto done;
      kids[i] = &widened[i];
    }
  }
  const void *bufs[1] = {NULL};
  struct ArrowArray data = {.length = batch->length, .null_count = 0, .offset = batch->offset, .n_buffers = 1,
                            .n_children = dw->n_data, .buffers = bufs, .children = kids, .release = no_release};
  if (dw->cfg.n_partition_columns == 0) {
    part_file *pf;
    if ((rc = find_part(dw, batch, 0, "", &pf)) != 0)
      goto done;
    rc = write_rows(dw, pf, &data);
    goto done;
  }
  /* group the rows by partition key */
  group = mem_malloc((size_t)n * sizeof(int));
  keep = mem_malloc((size_t)n);
  if (!group || !keep) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int64_t r = 0; r < n; r++) {
    buf_reset(&dw->tmp);
    for (int p = 0; p < dw->cfg.n_partition_columns; p++) {
      int f = dw->part_fields[p], c = dw->input_of_field[f];
      bool is_null = true;
      if (c >= 0 && (rc = log_partition_value_text(dw->input.children[c]->format, batch->children[c],
                                                   batch->offset + r, &dw->tmp, &is_null)) != 0)
        goto done;
      if ((rc = buf_putc(&dw->tmp, is_null ? '\2' : '\1')) != 0)
        goto done;
    }
    if ((rc = buf_putc(&dw->tmp, 0)) != 0)
      goto done;
    int g = -1;
    /* consecutive rows usually share a partition */
    if (r > 0 && strcmp(keys[group[r - 1]], (const char *)dw->tmp.data) == 0) g = group[r - 1];
    for (int k = 0; g < 0 && k < n_keys; k++)
      if (strcmp(keys[k], (const char *)dw->tmp.data) == 0) g = k;
    if (g < 0) {
      char **nk = mem_realloc(keys, (size_t)(n_keys + 1) * sizeof *nk);
      if (!nk) {
        rc = DELTA_NOMEM();
        goto done;
      }
      keys = nk;
      keys[n_keys] = mem_strdup((const char *)dw->tmp.data);
      if (!keys[n_keys]) {
        rc = DELTA_NOMEM();
        goto done;
      }
      g = n_keys++;
    }
    group[r] = g;
  }
  for (int k = 0; k < n_keys; k++) {
    int64_t first = -1;
    for (int64_t r = 0; r < n; r++) {
      keep[r] = group[r] == k;
      if (keep[r] && first < 0) first = r;
    }
    part_file *pf;
    if ((rc = find_part(dw, batch, first, keys[k], &pf)) != 0)
      goto done;
    if (n_keys == 1) {
      if ((rc = write_rows(dw, pf, &data)) != 0)
        goto done;
    } else {
      struct ArrowArray sub;
      if ((rc = arrow_filter(&dw->file_schema, &data, keep, &sub)) != 0)
        goto done;
      rc = write_rows(dw, pf, &sub);
      arrow_array_release(&sub);
      if (rc != 0)
        goto done;
    }
  }
done:
  for (int i = 0; i < dw->n_data; i++) arrow_array_release(&widened[i]);
  for (int k = 0; k < n_keys; k++) mem_free(keys[k]);
  mem_free(keys);
  mem_free(group);
  mem_free(keep);
  return rc;
}

int data_writer_finish(data_writer *dw, delta_buf *adds) {
  int rc;
  for (int i = 0; i < dw->n_parts; i++)
    if (dw->parts[i]->w && (rc = close_file(dw, dw->parts[i])) != 0)
      return rc;
  return buf_append(adds, dw->adds.data, dw->adds.len);
}

void data_writer_free(data_writer *dw) {
  if (!dw) return;
  for (int i = 0; i < dw->n_parts; i++) {
    part_file *pf = dw->parts[i];
    delta_parquet_writer_free(pf->w);
    file_out_abort(&pf->out);
    mem_free(pf->key);
    mem_free(pf->dir);
    mem_free(pf->values_json);
    mem_free(pf);
  }
  mem_free(dw->parts);
  if (dw->input.release) dw->input.release(&dw->input);
  if (dw->file_schema.release) dw->file_schema.release(&dw->file_schema);
  mem_free(dw->input_of_field);
  mem_free(dw->part_fields);
  mem_free(dw->data_inputs);
  mem_free(dw->cast_to);
  buf_dispose(&dw->adds);
  buf_dispose(&dw->tmp);
  constraints_free(dw->constraints);
  gen_columns_free(dw->gen);
  mem_free(dw);
}

int data_writer_update_schema(const data_writer *dw, delta_type *schema, bool *changed) {
  return gen_columns_update_schema(dw->gen, schema, changed);
}

int64_t data_writer_files(const data_writer *dw) { return dw->files; }
int64_t data_writer_rows(const data_writer *dw) { return dw->rows; }
int64_t data_writer_bytes(const data_writer *dw) { return dw->bytes; }
