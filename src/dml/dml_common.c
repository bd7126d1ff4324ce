/* Shared DML pieces; see dml_internal.h. */
#include "dml/dml_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "arrow/array.h"
#include "deltac/storage.h"
#include "log/snapshot.h"
#include "scan/scan_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "dv/dv.h"
#include "json/json.h"
#include "log/action_write.h"
#include "log/schema_build.h"
#include "txn/row_tracking.h"
#include "write/gen_columns.h"
#include "log/table_setup.h"

static int read_file(delta_snapshot *s, const delta_add *a, bool live, bool row_ids, dml_batch_cb cb, void *ctx) {
  scan_task *task = delta_calloc(1, sizeof *task);
  if (!task) return DELTA_NOMEM();
  task->path = a->path;
  task->partition_values = a->partition_values;
  task->n_partition_values = a->n_partition_values;
  task->dv = live && a->dv.present ? &a->dv : NULL;
  task->rows = ROWS_LIVE;
  task->has_base_row_id = a->has_base_row_id;
  task->base_row_id = a->base_row_id;
  task->has_default_row_commit_version = a->has_default_row_commit_version;
  task->default_row_commit_version = a->default_row_commit_version;
  scan_task_source src;
  struct ArrowArrayStream st = {0};
  struct ArrowSchema schema = {0};
  struct ArrowArray batch = {0};
  int rc = scan_task_array_source(task, 1, &src);
  if (rc) return rc;
  delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
  so.row_tracking = row_ids;
  if ((rc = scan_stream_new(s, &so, src, false, &st))) return rc;
  if (st.get_schema(&st, &schema)) {
    rc = delta_error_set(DELTA_EIO, "%s", st.get_last_error(&st));
    goto done;
  }
  for (;;) {
    if (st.get_next(&st, &batch)) {
      const char *m = st.get_last_error(&st);
      rc = delta_error_set(DELTA_EIO, "%s", m ? m : "reading a data file failed");
      goto done;
    }
    if (!batch.release) break;
    rc = cb(ctx, &schema, &batch);
    batch.release(&batch);
    if (rc) goto done;
  }
done:
  if (batch.release) batch.release(&batch);
  if (schema.release) schema.release(&schema);
  if (st.release) st.release(&st);
  return rc;
}

int dml_read_file(delta_snapshot *s, const delta_add *a, dml_batch_cb cb, void *ctx) {
  return read_file(s, a, false, false, cb, ctx);
}

int dml_read_file_tracked(dml_writers *w, const delta_add *a, dml_batch_cb cb, void *ctx) {
  return read_file(w->s, a, false, w->track_rows, cb, ctx);
}

int dml_read_live_rows(delta_snapshot *s, const delta_add *a, dml_batch_cb cb, void *ctx) {
  return read_file(s, a, true, false, cb, ctx);
}

int dml_check_table(const delta_snapshot *s) {
  if (table_prop_true(s->metadata.configuration, s->metadata.n_configuration, "delta.appendOnly"))
    return delta_error_set(DELTA_EINVAL, "the table is append-only (delta.appendOnly): rows cannot be deleted or updated");
  return 0;
}

bool dml_dv_enabled(const delta_snapshot *s) {
  if (!table_prop_true(s->metadata.configuration, s->metadata.n_configuration, "delta.enableDeletionVectors"))
    return false;
  for (int i = 0; i < s->protocol.n_writer_features; i++)
    if (strcmp(s->protocol.writer_features[i], "deletionVectors") == 0) return true;
  return false;
}

bool dml_dv_inline(const delta_snapshot *s) {
  const char *v = NULL;
  for (int i = 0; i < s->metadata.n_configuration; i++)
    if (strcmp(s->metadata.configuration[i].key, DML_DV_INLINE_PROPERTY) == 0) v = s->metadata.configuration[i].value;
  return !v || strcasecmp(v, "false") != 0;
}

int dml_writers_new(dml_writers **out, delta_snapshot *s, bool cdc) {
  dml_writers *w = delta_calloc(1, sizeof *w);
  if (!w) return DELTA_NOMEM();
  *out = w;
  w->s = s;
  int rc = delta_schema_to_arrow(s->schema, &w->logical);
  if (rc) return rc;
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
  /* generated and identity columns of new rows: dml_fill_generated */
  struct ArrowSchema eff;
  rc = gen_columns_new(&w->gen, s->schema, &s->protocol, true, &w->logical, &eff);
  if (eff.release) eff.release(&eff);
  if (rc) return rc;
  /* rewritten files are buffered whole until put: delta.targetFileSize
   * (bytes) bounds them, and with them the memory of a rewrite */
  const char *tfs = table_prop(s->metadata.configuration, s->metadata.n_configuration, "delta.targetFileSize");
  if (tfs) {
    char *end = NULL;
    long long v = strtoll(tfs, &end, 10);
    if (end != tfs && *end == 0 && v > 0) w->cfg.target_file_size = v;
  }
  if (!cdc) return 0;
  /* the change data schema: the table's columns and _change_type */
  delta_buf j = DELTA_BUF_INIT, loc = DELTA_BUF_INIT;
  if ((rc = schema_to_json(s->schema, &j))) goto cdc_done;
  if (j.len < 2 || memcmp(j.data + j.len - 2, "]}", 2) != 0) {
    rc = delta_error_set(DELTA_EINVAL, "unexpected schema JSON");
    goto cdc_done;
  }
  j.len -= 2;
  rc = delta_buf_printf(&j, "%s{\"name\":\"_change_type\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}",
                        s->schema->n_fields ? "," : "");
  if (!rc) rc = delta_schema_parse((const char *)j.data, j.len, &w->cdc_schema);
  if (rc) goto cdc_done;
  rc = arrow_schema_new(&w->cdc_input, "+s", "", 0, (int)w->logical.n_children + 1);
  for (int64_t i = 0; !rc && i < w->logical.n_children; i++) {
    arrow_schema_release(w->cdc_input.children[i]);
    rc = arrow_schema_copy(w->cdc_input.children[i], w->logical.children[i]);
  }
  if (!rc) {
    arrow_schema_release(w->cdc_input.children[w->logical.n_children]);
    rc = arrow_schema_new(w->cdc_input.children[w->logical.n_children], "u", "_change_type", 2, 0);
  }
  if (!rc) rc = delta_buf_printf(&loc, "%s/_change_data", delta_storage_location(s->table->storage));
  if (!rc) rc = delta_buf_putc(&loc, 0);
  if (!rc) rc = delta_storage_open(&w->cdc_storage, (const char *)loc.data);
  if (rc) goto cdc_done;
  data_write_config cc = w->cfg;
  cc.storage = w->cdc_storage;
  cc.schema = w->cdc_schema;
  rc = data_writer_new(&w->cdc, &cc, &w->cdc_input);
cdc_done:
  delta_buf_dispose(&j);
  delta_buf_dispose(&loc);
  return rc;
}

int dml_writers_track_rows(dml_writers *w) {
  if (w->track_rows || !row_tracking_enabled(&w->s->protocol, &w->s->metadata)) return 0;
  if (w->data) return delta_error_set(DELTA_EINVAL, "internal: row tracking set up after the data writer");
  int rc = row_tracking_write_schema(w->s->schema, &w->s->metadata, &w->rt_schema);
  if (rc) return rc;
  struct ArrowSchema wide = {0};
  if ((rc = delta_schema_to_arrow(w->rt_schema, &wide))) return rc;
  if (w->logical.release) w->logical.release(&w->logical);
  w->logical = wide;
  w->cfg.schema = w->rt_schema;
  w->track_rows = true;
  return 0;
}

int dml_rows_updated(dml_writers *w, struct ArrowArray *rows) {
  if (!w->track_rows || rows->n_children < 1) return 0;
  struct ArrowArray *v = rows->children[rows->n_children - 1];
  int64_t n = rows->length;
  struct ArrowArray nulls;
  int rc = arrow_array_new(&nulls, 2, 0);
  if (rc) return rc;
  int64_t *d = delta_calloc((size_t)n + 1, 8);
  uint8_t *valid = delta_calloc((size_t)n / 8 + 1, 1);
  if (!d || !valid) {
    delta_free(d);
    delta_free(valid);
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

int dml_writers_data(dml_writers *w, data_writer **out) {
  int rc = 0;
  if (!w->data) rc = data_writer_new(&w->data, &w->cfg, &w->logical);
  *out = w->data;
  return rc;
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }

int dml_cdc_write(dml_writers *w, const struct ArrowArray *rows, const char *change_type) {
  if (!w->cdc || rows->length == 0) return 0;
  int64_t n = rows->length;
  size_t tl = strlen(change_type);
  struct ArrowArray ct;
  int rc = arrow_array_new(&ct, 3, 0);
  if (rc) return rc;
  int32_t *offs = delta_malloc((size_t)(n + 1) * sizeof *offs);
  char *chars = delta_malloc((size_t)n * tl + 1);
  if (!offs || !chars) {
    delta_free(offs);
    delta_free(chars);
    arrow_array_release(&ct);
    return DELTA_NOMEM();
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
    arrow_array_release(&ct);
    return delta_error_set(DELTA_EINVAL, "internal: change data batch with too few columns");
  }
  struct ArrowArray *kids[nc + 1];
  for (int64_t i = 0; i < nc; i++) kids[i] = rows->children[i];
  kids[nc] = &ct;
  const void *bufs[1] = {NULL};
  /* the children are used from offset 0 of rows: rows must have offset 0 */
  struct ArrowArray b = {.length = n, .null_count = 0, .offset = 0, .n_buffers = 1, .n_children = nc + 1,
                         .buffers = bufs, .children = kids, .release = no_release};
  if (rows->offset != 0) rc = delta_error_set(DELTA_EINVAL, "change data batch with an offset");
  else rc = data_writer_write(w->cdc, &b);
  arrow_array_release(&ct);
  return rc;
}

/* {"add":{"path":"P","partitionValues":{..},"size":N,"modificationTime":...}}
 * -> {"cdc":{"path":"_change_data/P","partitionValues":{..},"size":N,"dataChange":false}} */
static int adds_to_cdc(const delta_buf *adds, delta_buf *actions, int64_t *n) {
  static const char head[] = "{\"add\":{\"path\":\"", mt[] = ",\"modificationTime\":";
  const char *p = (const char *)adds->data, *end = p + adds->len;
  int rc = 0;
  while (p < end && !rc) {
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
      return delta_error_set(DELTA_EINVAL, "internal: unexpected add action from the data writer");
    rc = delta_buf_puts(actions, "{\"cdc\":{\"path\":\"_change_data/");
    if (!rc) rc = delta_buf_append(actions, p + sizeof head - 1, (size_t)(cut - (p + sizeof head - 1)));
    if (!rc) rc = delta_buf_puts(actions, ",\"dataChange\":false}}\n");
    (*n)++;
    p = nl + 1;
  }
  return rc;
}

static int line_end(delta_buf *b, int rc, delta_json_writer *w);

/* The commit's metaData with schema `schema_json`: a metaData line already
 * in `actions` (MERGE's schema evolution puts one first) gets the new
 * schemaString, as a commit carries one metaData at most; otherwise one
 * is added from the snapshot's. */
static int put_schema_metadata(const delta_snapshot *s, const char *schema_json, delta_buf *actions) {
  static const char head[] = "{\"metaData\":";
  const char *text = (const char *)actions->data;
  size_t at = 0, len = actions->len;
  while (at < len && !(len - at >= sizeof head - 1 && memcmp(text + at, head, sizeof head - 1) == 0)) {
    const char *nl = memchr(text + at, '\n', len - at);
    at = nl ? (size_t)(nl - text) + 1 : len;
  }
  if (at >= len) {
    delta_metadata m = s->metadata;
    m.schema_string = schema_json;
    delta_json_writer jw;
    delta_json_writer_init(&jw, actions, 0);
    return line_end(actions, action_metadata_json(&jw, &m), &jw);
  }
  const char *nl = memchr(text + at, '\n', len - at);
  size_t end = nl ? (size_t)(nl - text) : len;
  delta_json_doc *d = NULL;
  delta_buf out = DELTA_BUF_INIT;
  int rc = delta_json_doc_new(&d);
  if (!rc) rc = delta_json_parse(d, text + at, end - at);
  const char *p = NULL;
  size_t n = 0;
  if (!rc) delta_json_raw(delta_json_get(delta_json_get(delta_json_root(d), "metaData"), "schemaString"), &p, &n);
  if (!rc && !p) rc = delta_error_set(DELTA_EINVAL, "internal: a metaData action without a schemaString");
  if (!rc) rc = delta_buf_append(&out, text, (size_t)(p - text));
  if (!rc) rc = delta_json_append_string(&out, schema_json, strlen(schema_json));
  if (!rc) rc = delta_buf_append(&out, p + n, len - (size_t)(p + n - text));
  delta_json_doc_free(d);
  if (!rc) {
    delta_buf_dispose(actions);
    *actions = out;
  } else {
    delta_buf_dispose(&out);
  }
  return rc;
}

int dml_writers_finish(dml_writers *w, delta_buf *actions, int64_t *files_added, int64_t *cdc_files) {
  int rc = 0;
  if (w->data) {
    rc = data_writer_finish(w->data, actions);
    *files_added += data_writer_files(w->data);
  }
  bool moved = false;
  delta_type *schema = NULL;
  if (!rc && w->gen && !(schema = schema_copy(w->s->schema))) rc = DELTA_NOMEM();
  if (!rc && w->gen) rc = gen_columns_update_schema(w->gen, schema, &moved);
  if (!rc && moved) {
    /* identity values given: the new high-water marks in a metaData */
    delta_buf js = DELTA_BUF_INIT;
    if (!(rc = schema_to_json(schema, &js)) && !(rc = delta_buf_putc(&js, 0)))
      rc = put_schema_metadata(w->s, (const char *)js.data, actions);
    delta_buf_dispose(&js);
  }
  delta_type_free(schema);
  if (!rc && w->cdc) {
    delta_buf adds = DELTA_BUF_INIT;
    rc = data_writer_finish(w->cdc, &adds);
    if (!rc) rc = adds_to_cdc(&adds, actions, cdc_files);
    delta_buf_dispose(&adds);
  }
  return rc;
}

int64_t dml_writers_bytes(const dml_writers *w) { return w->data ? data_writer_bytes(w->data) : 0; }

int64_t dml_clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void dml_writers_free(dml_writers *w) {
  if (!w) return;
  data_writer_free(w->data);
  data_writer_free(w->cdc);
  delta_storage_free(w->cdc_storage);
  if (w->logical.release) w->logical.release(&w->logical);
  if (w->cdc_input.release) w->cdc_input.release(&w->cdc_input);
  delta_type_free(w->cdc_schema);
  delta_type_free(w->rt_schema);
  gen_columns_free(w->gen);
  delta_free(w);
}

int dml_stats_loose(const char *stats, delta_buf *out) {
  if (!stats) return 0;
  const char *tb = strstr(stats, "\"tightBounds\":");
  if (tb) {
    const char *v = tb + strlen("\"tightBounds\":");
    size_t skip = strncmp(v, "true", 4) == 0 ? 4 : strncmp(v, "false", 5) == 0 ? 5 : 0;
    int rc = delta_buf_append(out, stats, (size_t)(v - stats));
    if (!rc) rc = delta_buf_puts(out, "false");
    if (!rc) rc = delta_buf_puts(out, v + skip);
    if (!rc) rc = delta_buf_putc(out, 0);
    if (!rc) out->len--;
    return rc;
  }
  const char *brace = strchr(stats, '{');
  if (!brace) return 0;
  int rc = delta_buf_append(out, stats, (size_t)(brace + 1 - stats));
  if (!rc) rc = delta_buf_puts(out, "\"tightBounds\":false");
  const char *rest = brace + 1;
  while (*rest == ' ') rest++;
  if (!rc && *rest != '}') rc = delta_buf_putc(out, ',');
  if (!rc) rc = delta_buf_puts(out, rest);
  if (!rc) rc = delta_buf_putc(out, 0);
  if (!rc) out->len--;
  return rc;
}

void dml_random_uuid(uint8_t out[16]) {
  char text[37];
  write_uuid(text);
  int k = 0;
  for (int i = 0; text[i] && k < 16; i++) {
    if (text[i] == '-') continue;
    unsigned v;
    sscanf(text + i, "%2x", &v);
    out[k++] = (uint8_t)v;
    i++;
  }
}

int dml_predicate_param(const char *where, delta_json_writer *w) {
  delta_buf arr = DELTA_BUF_INIT;
  delta_json_writer aw;
  delta_json_writer_init(&aw, &arr, 0);
  delta_json_write_array_begin(&aw);
  if (where) delta_json_write_string(&aw, where);
  delta_json_write_array_end(&aw);
  int rc = delta_json_writer_finish(&aw);
  if (!rc) rc = delta_json_write_string_n(w, (const char *)arr.data, arr.len);
  delta_buf_dispose(&arr);
  return rc;
}

static int line_end(delta_buf *b, int rc, delta_json_writer *w) {
  if (!rc) rc = delta_json_writer_finish(w);
  if (!rc) rc = delta_buf_putc(b, '\n');
  return rc;
}

int dml_remove_action(delta_buf *actions, const delta_add *a, int64_t now) {
  delta_json_writer w;
  delta_json_writer_init(&w, actions, 0);
  return line_end(actions, action_remove_of_add_json(&w, a, now, true), &w);
}

static int add_row(uint64_t row, void *b) { return delta_bitmap64_add(b, row); }

int dml_add_with_dv(const delta_add *a, const delta_dv_bitmap *old, delta_bitmap64 *fresh, bool inline_ok,
                    delta_buf *dv_file, delta_buf *dv_path, int64_t now, delta_buf *actions) {
  /* the new DV: the old one's rows and the fresh ones */
  int rc = 0;
  if (old && (rc = delta_bitmap64_iterate(old, add_row, fresh))) return rc;
  delta_bitmap64_optimize(fresh);
  delta_add na = *a;
  memset(&na.dv, 0, sizeof na.dv);
  na.dv.present = true;
  delta_buf stats = DELTA_BUF_INIT, inline_dv = DELTA_BUF_INIT;
  /* A few deleted rows fit in the log itself (storageType 'i'): no DV file
   * to write, read or vacuum. Bigger bitmaps go to the commit's DV file. */
  int32_t size;
  int64_t card;
  if ((rc = delta_dv_encode_inline(fresh, &inline_dv, &size, &card))) goto done;
  if (inline_ok && size <= DML_INLINE_DV_MAX_BYTES) {
    if ((rc = delta_buf_putc(&inline_dv, 0))) goto done;
    na.dv.storage_type = 'i';
    na.dv.size_in_bytes = size;
    na.dv.cardinality = card;
    na.dv.path_or_inline = (const char *)inline_dv.data;
  } else {
    na.dv.storage_type = 'u';
    na.dv.has_offset = true;
    na.dv.cardinality = (int64_t)delta_bitmap64_cardinality(fresh);
    if ((rc = delta_dv_file_append(dv_file, fresh, &na.dv.offset, &na.dv.size_in_bytes))) goto done;
    if ((rc = delta_buf_putc(dv_path, 0))) goto done;
    dv_path->len--;
    na.dv.path_or_inline = (const char *)dv_path->data;
  }
  if ((rc = dml_stats_loose(a->stats, &stats))) goto done;
  na.stats = stats.len ? (const char *)stats.data : NULL;
  na.modification_time = now;
  na.data_change = true;
  delta_json_writer w;
  delta_json_writer_init(&w, actions, 0);
  rc = line_end(actions, action_add_json(&w, &na, true), &w);
done:
  delta_buf_dispose(&stats);
  delta_buf_dispose(&inline_dv);
  return rc;
}

int dml_dv_file_put(delta_storage *storage, const delta_buf *dv_path, const delta_buf *dv_file) {
  if (!dv_file->len) return 0;
  delta_dv dv = {0};
  dv.present = true;
  dv.storage_type = 'u';
  dv.path_or_inline = (const char *)dv_path->data;
  delta_path_kind kind;
  delta_buf key = DELTA_BUF_INIT;
  int rc = delta_dv_file_key(&dv, delta_storage_location(storage), &kind, &key);
  if (!rc) rc = delta_buf_putc(&key, 0);
  if (!rc) rc = delta_storage_put(storage, (const char *)key.data, dv_file->data, dv_file->len, false);
  delta_buf_dispose(&key);
  return rc;
}
