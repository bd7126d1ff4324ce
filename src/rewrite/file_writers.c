/* The data and change data writers of a rewrite; see file_writers.h. */
#include "rewrite/file_writers.h"

#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "json/json.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "txn/row_tracking.h"
#include "log/schema_build.h"
#include "log/table_setup.h"

/* The logical schema and the data writer's configuration from the snapshot. */
static int writers_init(rewrite_writers *w, delta_snapshot *s) {
  int rc;
  w->s = s;
  if ((rc = log_schema_to_arrow(s->schema, &w->logical)) != 0) return rc;
  w->cfg.storage = s->table->storage;
  w->cfg.schema = s->schema;
  w->cfg.partition_columns = (const char *const *)s->metadata.partition_columns;
  w->cfg.n_partition_columns = s->metadata.n_partition_columns;
  w->cfg.column_mapping = table_cm_mode(s->metadata.configuration, s->metadata.n_configuration) != CM_NONE;
  w->cfg.codec = DELTA_PARQUET_CODEC_DEFAULT;
  /* the snapshot's constraints, so that the writer needs no replay of its own */
  w->cfg.configuration = s->metadata.configuration;
  w->cfg.n_configuration = s->metadata.n_configuration;
  w->cfg.has_configuration = true;
  /* rewritten files are buffered whole until put: delta.targetFileSize
   * (bytes) bounds them, and with them the memory of a rewrite */
  const char *tfs = table_prop(s->metadata.configuration, s->metadata.n_configuration, "delta.targetFileSize");
  if (tfs) {
    char *end = NULL;
    long long v = strtoll(tfs, &end, 10);
    if (end != tfs && *end == 0 && v > 0) w->cfg.target_file_size = v;
  }
  return 0;
}

/* The change data writer for batches of `rows`' columns and _change_type;
 * its files have the table's schema and _change_type. */
static int cdc_open(rewrite_writers *w, const struct ArrowSchema *rows) {
  const delta_snapshot *s = w->s;
  delta_buf j = DELTA_BUF_INIT, loc = DELTA_BUF_INIT;
  int rc;
  if ((rc = schema_to_json(s->schema, &j)) != 0) goto done;
  if (j.len < 2 || memcmp(j.data + j.len - 2, "]}", 2) != 0) {
    rc = err_set(DELTA_EINVAL, "unexpected schema JSON");
    goto done;
  }
  j.len -= 2;
  if ((rc = buf_printf(&j, "%s{\"name\":\"_change_type\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}",
                             s->schema->n_fields ? "," : "")) != 0)
    goto done;
  if ((rc = log_schema_parse((const char *)j.data, j.len, &w->cdc_schema)) != 0) goto done;
  int64_t n = rows->n_children;
  if ((rc = arrow_schema_new(&w->cdc_input, "+s", "", 0, (int)n + 1)) != 0) goto done;
  for (int64_t i = 0; i < n; i++) {
    arrow_schema_release(w->cdc_input.children[i]);
    if ((rc = arrow_schema_copy(w->cdc_input.children[i], rows->children[i])) != 0) goto done;
  }
  arrow_schema_release(w->cdc_input.children[n]);
  if ((rc = arrow_schema_new(w->cdc_input.children[n], "u", "_change_type", 2, 0)) != 0) goto done;
  if ((rc = buf_printf(&loc, "%s/_change_data", delta_storage_location(s->table->storage))) != 0) goto done;
  if ((rc = buf_putc(&loc, 0)) != 0) goto done;
  /* with the table's storage options (credentials, endpoint) */
  if ((rc = table_open_other_storage(s->table, (const char *)loc.data, &w->cdc_storage)) != 0) goto done;
  data_write_config cc = w->cfg;
  cc.storage = w->cdc_storage;
  cc.schema = w->cdc_schema;
  rc = data_writer_new(&w->cdc, &cc, &w->cdc_input);
done:
  buf_dispose(&j);
  buf_dispose(&loc);
  return rc;
}

int rewrite_writers_new(rewrite_writers **out, delta_snapshot *s, bool cdc) {
  /* *out is set first: the caller frees a half-made one with rewrite_writers_free */
  rewrite_writers *w = *out = mem_calloc(1, sizeof *w);
  if (!w) return DELTA_NOMEM();
  int rc;
  if ((rc = writers_init(w, s)) != 0) return rc;
  /* generated and identity columns of new rows: dml_fill_generated */
  struct ArrowSchema eff;
  rc = gen_columns_new(&w->gen, s->schema, &s->protocol, true, &w->logical, &eff);
  if (eff.release) eff.release(&eff);
  if (rc != 0) return rc;
  return cdc ? cdc_open(w, &w->logical) : 0;
}

int rewrite_writers_new_cdc(rewrite_writers **out, delta_snapshot *s, const struct ArrowSchema *input) {
  rewrite_writers *w = *out = mem_calloc(1, sizeof *w);
  if (!w) return DELTA_NOMEM();
  int rc;
  if ((rc = writers_init(w, s)) != 0) return rc;
  return cdc_open(w, input);
}

int rewrite_writers_track_rows(rewrite_writers *w) {
  if (w->track_rows || !row_tracking_enabled(&w->s->protocol, &w->s->metadata)) return 0;
  if (w->data) return err_set(DELTA_EINVAL, "internal: row tracking set up after the data writer");
  int rc;
  if ((rc = row_tracking_write_schema(w->s->schema, &w->s->metadata, &w->rt_schema)) != 0) return rc;
  struct ArrowSchema wide = {0};
  if ((rc = log_schema_to_arrow(w->rt_schema, &wide)) != 0) return rc;
  if (w->logical.release) w->logical.release(&w->logical);
  w->logical = wide;
  w->cfg.schema = w->rt_schema;
  w->track_rows = true;
  return 0;
}

int rewrite_rows_updated(rewrite_writers *w, struct ArrowArray *rows) {
  if (!w->track_rows || rows->n_children < 1) return 0;
  struct ArrowArray *v = rows->children[rows->n_children - 1];
  int64_t n = rows->length;
  struct ArrowArray nulls;
  int rc;
  if ((rc = arrow_array_new(&nulls, 2, 0)) != 0) return rc;
  int64_t *d = mem_calloc((size_t)n + 1, 8);
  uint8_t *valid = mem_calloc((size_t)n / 8 + 1, 1);
  if (!d || !valid) {
    mem_free(d);
    mem_free(valid);
    arrow_array_release(&nulls);
    return DELTA_NOMEM();
  }
  arrow_array_set_buffer(&nulls, 0, valid);
  arrow_array_set_buffer(&nulls, 1, d);
  nulls.length = n;
  nulls.null_count = n;
  arrow_array_release(v);
  *v = nulls;
  return 0;
}

int rewrite_writers_data(rewrite_writers *w, data_writer **out) {
  int rc = 0;
  if (!w->data) rc = data_writer_new(&w->data, &w->cfg, &w->logical);
  *out = w->data;
  return rc;
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }

int rewrite_cdc_write(rewrite_writers *w, const struct ArrowArray *rows, const char *change_type) {
  if (!w->cdc || rows->length == 0) return 0;
  int64_t n = rows->length;
  size_t tl = strlen(change_type);
  struct ArrowArray ct;
  int rc;
  if ((rc = arrow_array_new(&ct, 3, 0)) != 0) return rc;
  int32_t *offs = mem_malloc((size_t)(n + 1) * sizeof *offs);
  char *chars = mem_malloc((size_t)n * tl + 1);
  if (!offs || !chars) {
    mem_free(offs);
    mem_free(chars);
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int64_t i = 0; i <= n; i++) offs[i] = (int32_t)((size_t)i * tl);
  for (int64_t i = 0; i < n; i++) memcpy(chars + (size_t)i * tl, change_type, tl);
  ct.length = n;
  ct.null_count = 0;
  arrow_array_set_buffer(&ct, 1, offs);
  arrow_array_set_buffer(&ct, 2, chars);
  /* the table's columns only (not the row tracking ones after them) */
  int64_t nc = rows->n_children - (w->track_rows ? 2 : 0);
  if (nc < 0) {
    rc = err_set(DELTA_EINVAL, "internal: change data batch with too few columns");
    goto done;
  }
  /* the children are used from offset 0 of rows: rows must have offset 0 */
  if (rows->offset != 0) {
    rc = err_set(DELTA_EINVAL, "change data batch with an offset");
    goto done;
  }
  {
    /* a block of its own: no goto may jump into the scope of the VLA */
    struct ArrowArray *kids[nc + 1];
    for (int64_t i = 0; i < nc; i++) kids[i] = rows->children[i];
    kids[nc] = &ct;
    const void *bufs[1] = {NULL};
    struct ArrowArray b = {.length = n, .null_count = 0, .offset = 0, .n_buffers = 1, .n_children = nc + 1,
                           .buffers = bufs, .children = kids, .release = no_release};
    rc = data_writer_write(w->cdc, &b);
  }
done:
  arrow_array_release(&ct);
  return rc;
}

/* {"add":{"path":"P","partitionValues":{..},"size":N,"modificationTime":...}}
 * -> {"cdc":{"path":"_change_data/P","partitionValues":{..},"size":N,"dataChange":false}} */
static int adds_to_cdc(const delta_buf *adds, delta_buf *actions, int64_t *n) {
  static const char head[] = "{\"add\":{\"path\":\"", mt[] = ",\"modificationTime\":";
  const char *p = (const char *)adds->data, *end = p + adds->len;
  int rc;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) nl = end;
    size_t len = (size_t)(nl - p);
    const char *cut = NULL;
    for (const char *q = p; q + sizeof mt - 1 <= nl; q++)
      if (memcmp(q, mt, sizeof mt - 1) == 0) {
        cut = q;
        break;
      }
    if (len < sizeof head || memcmp(p, head, sizeof head - 1) != 0 || !cut)
      return err_set(DELTA_EINVAL, "internal: unexpected add action from the data writer");
    if ((rc = buf_puts(actions, "{\"cdc\":{\"path\":\"_change_data/")) != 0) return rc;
    if ((rc = buf_append(actions, p + sizeof head - 1, (size_t)(cut - (p + sizeof head - 1)))) != 0) return rc;
    if ((rc = buf_puts(actions, ",\"dataChange\":false}}\n")) != 0) return rc;
    (*n)++;
    p = nl + 1;
  }
  return 0;
}

/* The commit's metaData with schema `schema_json`: a metaData line already
 * in `actions` (MERGE's schema evolution puts one first) gets the new
 * schemaString, as a commit carries one metaData at most; otherwise one
 * is added from the snapshot's. */
static int put_schema_metadata(const delta_snapshot *s, const char *schema_json, delta_buf *actions) {
  static const char head[] = "{\"metaData\":";
  const char *text = (const char *)actions->data;
  size_t at = 0, len = actions->len;
  int rc;
  while (at < len && !(len - at >= sizeof head - 1 && memcmp(text + at, head, sizeof head - 1) == 0)) {
    const char *nl = memchr(text + at, '\n', len - at);
    at = nl ? (size_t)(nl - text) + 1 : len;
  }
  if (at >= len) {
    delta_metadata m = s->metadata;
    m.schema_string = schema_json;
    delta_json_writer jw;
    json_writer_init(&jw, actions, 0);
    if ((rc = action_metadata_json(&jw, &m)) != 0) return rc;
    if ((rc = json_writer_finish(&jw)) != 0) return rc;
    return buf_putc(actions, '\n');
  }
  const char *nl = memchr(text + at, '\n', len - at);
  size_t end = nl ? (size_t)(nl - text) : len;
  delta_json_doc *d = NULL;
  delta_buf out = DELTA_BUF_INIT;
  const char *p = NULL;
  size_t n = 0;
  if ((rc = json_doc_new(&d)) != 0) goto done;
  if ((rc = json_parse(d, text + at, end - at)) != 0) goto done;
  json_raw(json_get(json_get(json_root(d), "metaData"), "schemaString"), &p, &n);
  if (!p) {
    rc = err_set(DELTA_EINVAL, "internal: a metaData action without a schemaString");
    goto done;
  }
  if ((rc = buf_append(&out, text, (size_t)(p - text))) != 0) goto done;
  if ((rc = json_append_string(&out, schema_json, strlen(schema_json))) != 0) goto done;
  if ((rc = buf_append(&out, p + n, len - (size_t)(p + n - text))) != 0) goto done;
  buf_dispose(actions);
  *actions = out;
  out = (delta_buf)DELTA_BUF_INIT;
done:
  json_doc_free(d);
  buf_dispose(&out);
  return rc;
}

/* The identity columns' new high-water marks in a metaData line, when
 * identity values were generated. */
static int put_identity_marks(rewrite_writers *w, delta_buf *actions) {
  bool moved = false;
  delta_buf js = DELTA_BUF_INIT;
  delta_type *schema = schema_copy(w->s->schema);
  int rc;
  if (!schema) return DELTA_NOMEM();
  if ((rc = gen_columns_update_schema(w->gen, schema, &moved)) != 0 || !moved) goto done;
  if ((rc = schema_to_json(schema, &js)) != 0) goto done;
  if ((rc = buf_putc(&js, 0)) != 0) goto done;
  rc = put_schema_metadata(w->s, (const char *)js.data, actions);
done:
  buf_dispose(&js);
  log_type_free(schema);
  return rc;
}

int rewrite_writers_finish(rewrite_writers *w, delta_buf *actions, int64_t *files_added, int64_t *cdc_files) {
  delta_buf adds = DELTA_BUF_INIT;
  int rc;
  if (w->data) {
    if ((rc = data_writer_finish(w->data, actions)) != 0) return rc;
    *files_added += data_writer_files(w->data);
  }
  if (w->gen && (rc = put_identity_marks(w, actions)) != 0) return rc;
  if (!w->cdc) return 0;
  if ((rc = data_writer_finish(w->cdc, &adds)) != 0) goto done;
  rc = adds_to_cdc(&adds, actions, cdc_files);
done:
  buf_dispose(&adds);
  return rc;
}

int64_t rewrite_writers_bytes(const rewrite_writers *w) { return w->data ? data_writer_bytes(w->data) : 0; }

void rewrite_writers_free(rewrite_writers *w) {
  if (!w) return;
  data_writer_free(w->data);
  data_writer_free(w->cdc);
  delta_storage_free(w->cdc_storage);
  if (w->logical.release) w->logical.release(&w->logical);
  if (w->cdc_input.release) w->cdc_input.release(&w->cdc_input);
  log_type_free(w->cdc_schema);
  log_type_free(w->rt_schema);
  gen_columns_free(w->gen);
  mem_free(w);
}
