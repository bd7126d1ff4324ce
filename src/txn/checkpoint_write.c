/* Writing checkpoints; see checkpoint_write.h. */
#include "txn/checkpoint_write.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/format_internal.h"
#include "deltac/parquet_writer.h"
#include "json/json.h"
#include "log/action_write.h"
#include "log/schema_build.h"
#include "log/snapshot.h"
#include "log/table_setup.h"
#include "storage/storage_internal.h"
#include "txn/commit.h"
#include "txn/log_cleanup.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/column_builder.h"
#include "log/action_write.h"
#include "txn/commit.h"
#include "log/schema_build.h"
#include "log/table_setup.h"

#define BATCH_ROWS 8192

/* The checkpoint's columns, as Delta Spark lays them out. The add struct is
 * left open: stats_parsed and partitionValues_parsed may follow. */
static const char col_txn[] = "txn struct<appId: string, version: long, lastUpdated: long>";
static const char col_add_open[] =
    "add struct<path: string, partitionValues: map<string, string>, size: long, modificationTime: long,"
    " dataChange: boolean, tags: map<string, string>,"
    " deletionVector: struct<storageType: string, pathOrInlineDv: string, offset: int, sizeInBytes: int,"
    " cardinality: long>, baseRowId: long, defaultRowCommitVersion: long, clusteringProvider: string,"
    " stats: string";
static const char col_remove[] =
    "remove struct<path: string, deletionTimestamp: long, dataChange: boolean, extendedFileMetadata: boolean,"
    " partitionValues: map<string, string>, size: long,"
    " deletionVector: struct<storageType: string, pathOrInlineDv: string, offset: int, sizeInBytes: int,"
    " cardinality: long>, baseRowId: long, defaultRowCommitVersion: long>";
static const char col_rest[] =
    "metaData struct<id: string, name: string, description: string,"
    " format: struct<provider: string, options: map<string, string>>, schemaString: string,"
    " partitionColumns: array<string>, configuration: map<string, string>, createdTime: long>,"
    "protocol struct<minReaderVersion: int, minWriterVersion: int, readerFeatures: array<string>,"
    " writerFeatures: array<string>>,"
    "domainMetadata struct<domain: string, configuration: string, removed: boolean>";
/* V2 checkpoints only */
static const char col_v2[] =
    "checkpointMetadata struct<version: long, tags: map<string, string>>,"
    "sidecar struct<path: string, sizeInBytes: long, modificationTime: long, tags: map<string, string>>";

/* delta.deletedFileRetentionDuration in ms (default a week). */
static int64_t retention_ms(const delta_snapshot *s) {
  return table_interval_ms(snapshot_config(s, "delta.deletedFileRetentionDuration"), 7LL * 86400 * 1000);
}

/* `name` for the compact schema text. */
static int put_name(delta_buf *b, const char *name) {
  if (strchr(name, '`'))
    return err_set(DELTA_EUNSUPPORTED, "column %s: a backquote in a name cannot go into stats_parsed", name);
  return buf_printf(b, "`%s`", name);
}

static bool bounded(delta_type_kind k) {
  switch (k) {
  case DT_BYTE: case DT_SHORT: case DT_INTEGER: case DT_LONG: case DT_FLOAT: case DT_DOUBLE: case DT_DECIMAL:
  case DT_DATE: case DT_TIMESTAMP: case DT_TIMESTAMP_NTZ: case DT_STRING:
    return true;
  default:
    return false;
  }
}

typedef struct {
  const delta_snapshot *s;
  bool cm;            /* physical names */
  bool stats_json;    /* delta.checkpoint.writeStatsAsJson (default true) */
  bool stats_struct;  /* delta.checkpoint.writeStatsAsStruct */
  bool v2;            /* the table has v2Checkpoint */
} ckpt_options;

static const char *phys(const ckpt_options *co, const delta_field *f) {
  return co->cm && f->physical_name ? f->physical_name : f->name;
}

static bool is_partition(const delta_snapshot *s, const char *name) {
  for (int i = 0; i < s->metadata.n_partition_columns; i++)
    if (strcasecmp(s->metadata.partition_columns[i], name) == 0) return true;
  return false;
}

/* The fields of minValues/maxValues (`bounds`: the columns with bounds, in
 * their own types) or nullCount (every column, long) for struct `st`, as
 * "name: type, ..."; *n gets their count. Structs without fields are left out. */
static int stats_fields(const ckpt_options *co, const delta_type *st, bool top, bool bounds, delta_buf *b, int *n) {
  *n = 0;
  int rc = 0;
  for (int i = 0; i < st->n_fields && !rc; i++) {
    const delta_field *f = &st->fields[i];
    if (top && is_partition(co->s, f->name)) continue;
    size_t at = b->len;
    if ((*n && (rc = buf_puts(b, ", "))) || (rc = put_name(b, phys(co, f))) || (rc = buf_puts(b, ": ")))
      break;
    if (f->type->kind == DT_STRUCT) {
      int k = 0;
      if ((rc = buf_puts(b, "struct<")) || (rc = stats_fields(co, f->type, false, bounds, b, &k))) break;
      if (!k) {
        b->len = at;
        continue;
      }
      rc = buf_putc(b, '>');
    } else if (!bounds) {
      rc = buf_puts(b, "long");
    } else if (bounded(f->type->kind)) {
      rc = log_type_name(f->type, b);
    } else {
      b->len = at;
      continue;
    }
    (*n)++;
  }
  return rc;
}

/* ", stats_parsed: struct<...>, partitionValues_parsed: struct<...>" */
static int parsed_columns(const ckpt_options *co, delta_buf *b) {
  const delta_snapshot *s = co->s;
  int rc = buf_puts(b, ", stats_parsed: struct<numRecords: long");
  static const char *const sections[] = {"minValues", "maxValues", "nullCount"};
  for (int k = 0; k < 3 && !rc; k++) {
    size_t at = b->len;
    int n = 0;
    rc = buf_printf(b, ", %s: struct<", sections[k]);
    if (!rc) rc = stats_fields(co, s->schema, true, k < 2, b, &n);
    if (!rc) rc = n ? buf_putc(b, '>') : (b->len = at, 0);
  }
  if (!rc) rc = buf_puts(b, ", tightBounds: boolean>");
  if (rc || s->metadata.n_partition_columns == 0) return rc;
  rc = buf_puts(b, ", partitionValues_parsed: struct<");
  for (int i = 0; i < s->metadata.n_partition_columns && !rc; i++) {
    const delta_field *f = log_schema_find(s->schema, s->metadata.partition_columns[i]);
    if (!f) return err_set(DELTA_ECORRUPT, "partition column %s is not in the schema",
                                   s->metadata.partition_columns[i]);
    if ((i && (rc = buf_puts(b, ", "))) || (rc = put_name(b, phys(co, f))) || (rc = buf_puts(b, ": ")))
      break;
    rc = log_type_name(f->type, b);
  }
  return rc ? rc : buf_putc(b, '>');
}

/* The JSON members stats_parsed and partitionValues_parsed of add `a`
 * (",\"stats_parsed\":..."): the stats object as it is, the partition
 * values typed as JSON (numbers and booleans bare) for the row builder. */
static int parsed_members(const ckpt_options *co, const delta_add *a, delta_buf *b) {
  const delta_snapshot *s = co->s;
  int rc = buf_puts(b, ",\"stats_parsed\":");
  if (!rc) rc = buf_puts(b, a->stats && a->stats[0] == '{' ? a->stats : "null");
  if (rc || s->metadata.n_partition_columns == 0) return rc;
  rc = buf_puts(b, ",\"partitionValues_parsed\":{");
  for (int i = 0; i < s->metadata.n_partition_columns && !rc; i++) {
    const delta_field *f = log_schema_find(s->schema, s->metadata.partition_columns[i]);
    const char *name = f ? phys(co, f) : s->metadata.partition_columns[i], *v = NULL;
    for (int k = 0; k < a->n_partition_values; k++)
      if (strcmp(a->partition_values[k].key, name) == 0) v = a->partition_values[k].value;
    if (i) rc = buf_putc(b, ',');
    if (!rc) rc = fmt_json_string(b, (const uint8_t *)name, strlen(name));
    if (!rc) rc = buf_putc(b, ':');
    if (rc) break;
    delta_type_kind k = f ? f->type->kind : DT_STRING;
    char *end = NULL;
    if (!v || (!*v && k != DT_STRING)) rc = buf_puts(b, "null");
    else if (k == DT_BYTE || k == DT_SHORT || k == DT_INTEGER || k == DT_LONG)
      rc = buf_puts(b, (strtoll(v, &end, 10), *end == 0) ? v : "null");
    else if (k == DT_BOOLEAN)
      rc = buf_puts(b, strcasecmp(v, "true") == 0 ? "true" : strcasecmp(v, "false") == 0 ? "false" : "null");
    else rc = fmt_json_string(b, (const uint8_t *)v, strlen(v));
  }
  return rc ? rc : buf_putc(b, '}');
}

/* One checkpoint Parquet file being built: rows rendered as JSON, built
 * into Arrow batches, streamed through the table's storage (`up`) as the
 * writer produces it, gathered in `file` into pieces of CKPT_CHUNK. */
typedef struct {
  delta_type *type;
  struct ArrowSchema schema;
  row_builder rb;
  delta_parquet_writer *w;
  delta_buf line;
  delta_json_doc *doc;
  delta_storage_upload *up; /* NULL once finished */
  delta_buf file;            /* bytes not handed to the upload yet */
  uint64_t size;             /* bytes written in all */
  int64_t rows;
  bool rb_live;
  bool json;          /* a V2 checkpoint in JSON form: the rows are the lines */
} ckpt_state;

#define CKPT_CHUNK ((size_t)1 << 20)

/* Bytes of the file, in order: to the upload once a chunk has gathered. */
static int emit(ckpt_state *cs, const void *data, size_t len) {
  int rc;
  cs->size += len;
  if ((rc = buf_append(&cs->file, data, len)) != 0) return rc;
  if (cs->file.len < CKPT_CHUNK) return 0;
  rc = delta_storage_upload_write(cs->up, cs->file.data, cs->file.len);
  buf_reset(&cs->file);
  return rc;
}

static int sink_write(void *ctx, const void *data, size_t len) { return emit(ctx, data, len); }

/* Start file `key` (a Parquet file with columns `schema_text`, or, `json`,
 * one action a line). */
static int ckpt_open(ckpt_state *cs, delta_storage *st, const char *key, const char *schema_text, bool json) {
  memset(cs, 0, sizeof *cs);
  cs->json = json;
  /* on failure the caller's ckpt_dispose releases what was made */
  int rc;
  if ((rc = delta_storage_upload_open(st, key, &cs->up)) != 0 || json) return rc;
  if ((rc = schema_parse_text(schema_text, &cs->type)) != 0) return rc;
  if ((rc = log_schema_to_arrow(cs->type, &cs->schema)) != 0) return rc;
  if ((rc = row_builder_init(&cs->rb, cs->type)) != 0) return rc;
  cs->rb_live = true;
  if ((rc = json_doc_new(&cs->doc)) != 0) return rc;
  delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  delta_parquet_sink sink = {sink_write, cs};
  return delta_parquet_writer_open_sink(&cs->w, &sink, &cs->schema, &o);
}

static void ckpt_dispose(ckpt_state *cs) {
  delta_storage_upload_abort(cs->up); /* unfinished: nothing appears */
  delta_parquet_writer_free(cs->w);
  if (cs->rb_live) row_builder_dispose(&cs->rb);
  json_doc_free(cs->doc);
  buf_dispose(&cs->line);
  buf_dispose(&cs->file);
  if (cs->schema.release) cs->schema.release(&cs->schema);
  log_type_free(cs->type);
}

static int flush(ckpt_state *cs) {
  if (cs->json || cs->rb.rows == 0) return 0;
  struct ArrowArray batch;
  int rc = row_builder_finish(&cs->rb, &batch);
  if (rc) return rc;
  rc = delta_parquet_writer_write(cs->w, &batch);
  batch.release(&batch);
  return rc;
}

/* Finish the file: the rest written and the upload made visible. */
static int ckpt_close(ckpt_state *cs) {
  int rc;
  if (!cs->json && ((rc = flush(cs)) != 0 || (rc = delta_parquet_writer_close(cs->w, NULL)) != 0))
    return rc;
  if (cs->file.len && (rc = delta_storage_upload_write(cs->up, cs->file.data, cs->file.len)) != 0)
    return rc;
  buf_reset(&cs->file);
  rc = delta_storage_upload_finish(cs->up);
  cs->up = NULL; /* freed by finish, whatever the result */
  return rc;
}

/* cs->line holds one action as JSON: make it a row. */
static int add_row(ckpt_state *cs, int rc) {
  if (rc) return rc;
  if (cs->json) {
    /* one action a line, as in a commit file */
    if ((rc = emit(cs, cs->line.data, cs->line.len)) || (rc = emit(cs, "\n", 1)))
      return rc;
    cs->rows++;
    buf_reset(&cs->line);
    return 0;
  }
  if ((rc = json_parse(cs->doc, (const char *)cs->line.data, cs->line.len))) return rc;
  if ((rc = row_builder_add_json(&cs->rb, json_root(cs->doc)))) return rc;
  cs->rows++;
  buf_reset(&cs->line);
  return cs->rb.rows >= BATCH_ROWS ? flush(cs) : 0;
}

/* The rendered {"add":{...}} in cs->line with the parsed members put inside. */
static int add_parsed(const ckpt_options *co, ckpt_state *cs, const delta_add *a) {
  if (cs->line.len < 2 || memcmp(cs->line.data + cs->line.len - 2, "}}", 2) != 0)
    return err_set(DELTA_EINVAL, "internal: unexpected add JSON");
  cs->line.len -= 2;
  int rc = parsed_members(co, a, &cs->line);
  return rc ? rc : buf_puts(&cs->line, "}}");
}

#define ROW(cs, call)                                                    \
  do {                                                                   \
    json_writer_init(&w, &(cs)->line, 0);                          \
    rc = add_row((cs), (call) ? w.err : json_writer_finish(&w));   \
  } while (0)

/* The file actions: live adds and unexpired removes. */
static int file_rows(const ckpt_options *co, ckpt_state *cs, int64_t *n_adds) {
  const delta_snapshot *s = co->s;
  delta_json_writer w;
  int rc = 0;
  for (int64_t i = 0; !rc && i < s->n_files; i++, (*n_adds)++) {
    delta_add a = s->files[i];
    if (!co->stats_json) a.stats = NULL;
    json_writer_init(&w, &cs->line, 0);
    rc = action_add_json(&w, &a, false) ? w.err : json_writer_finish(&w);
    if (!rc && co->stats_struct) rc = add_parsed(co, cs, &s->files[i]);
    rc = add_row(cs, rc);
  }
  int64_t cutoff = write_now_ms() - retention_ms(s);
  for (int64_t i = 0; !rc && i < s->n_tombstones; i++) {
    const delta_remove *r = &s->tombstones[i];
    if (r->has_deletion_timestamp && r->deletion_timestamp < cutoff) continue;
    delta_remove copy = *r;
    copy.data_change = false;
    ROW(cs, action_remove_json(&w, &copy));
  }
  return rc;
}

/* The other actions: protocol, metadata, txns, domains. */
static int table_rows(const delta_snapshot *s, ckpt_state *cs) {
  delta_json_writer w;
  int rc = 0;
  ROW(cs, action_protocol_json(&w, &s->protocol));
  if (!rc) ROW(cs, action_metadata_json(&w, &s->metadata));
  for (int i = 0; !rc && i < s->n_txns; i++) ROW(cs, action_txn_json(&w, &s->txns[i]));
  for (int i = 0; !rc && i < s->n_domains; i++) ROW(cs, action_domain_json(&w, &s->domains[i]));
  return rc;
}

/* _last_checkpoint, only ever moved forward: a slower writer's older
 * checkpoint must not send readers further back than a newer one did. */
static int write_hint(delta_table *t, const delta_snapshot *s, int64_t actions, size_t bytes, int64_t n_adds,
                      const char *v2_name, int64_t mtime) {
  delta_buf prev = DELTA_BUF_INIT, hint = DELTA_BUF_INIT;
  if (storage_read_all(t->storage, "_delta_log/_last_checkpoint", &prev) == 0) {
    delta_json_doc *d = NULL;
    int64_t pv = -1;
    if (json_doc_new(&d) == 0 && json_parse(d, (const char *)prev.data, prev.len) == 0)
      json_int64(json_get(json_root(d), "version"), &pv);
    json_doc_free(d);
    buf_dispose(&prev);
    if (pv > s->version) return 0;
  }
  delta_error_clear();
  int rc = buf_printf(&hint, "{\"version\":%lld,\"size\":%lld,\"sizeInBytes\":%llu,\"numOfAddFiles\":%lld",
                            (long long)s->version, (long long)actions, (unsigned long long)bytes, (long long)n_adds);
  if (!rc && v2_name)
    rc = buf_printf(&hint, ",\"v2Checkpoint\":{\"path\":\"%s\",\"sizeInBytes\":%llu,\"modificationTime\":%lld}",
                          v2_name, (unsigned long long)bytes, (long long)mtime);
  if (!rc) rc = buf_puts(&hint, "}\n");
  if (!rc) rc = delta_storage_put(t->storage, "_delta_log/_last_checkpoint", hint.data, hint.len, true);
  buf_dispose(&hint);
  return rc;
}

int checkpoint_write_snapshot(delta_table *t, const delta_snapshot *s) {
  ckpt_options co = {s, false, true, false, false};
  co.cm = table_cm_mode(s->metadata.configuration, s->metadata.n_configuration) != CM_NONE;
  const char *sj = snapshot_config(s, "delta.checkpoint.writeStatsAsJson");
  co.stats_json = !sj || strcasecmp(sj, "false") != 0;
  co.stats_struct = table_prop_true(s->metadata.configuration, s->metadata.n_configuration,
                                    "delta.checkpoint.writeStatsAsStruct");
  for (int i = 0; i < s->protocol.n_writer_features; i++)
    if (strcmp(s->protocol.writer_features[i], "v2Checkpoint") == 0) co.v2 = true;
  /* the spec allows a UUID-named V2 checkpoint in JSON form (sidecars stay Parquet) */
  const char *fmt = snapshot_config(s, "deltac.checkpoint.v2Format");
  bool v2_json = co.v2 && fmt && strcasecmp(fmt, "json") == 0;
  ckpt_state main_cs, side_cs;
  memset(&main_cs, 0, sizeof main_cs);
  memset(&side_cs, 0, sizeof side_cs);
  delta_buf text = DELTA_BUF_INIT, add_col = DELTA_BUF_INIT, key = DELTA_BUF_INIT;
  int64_t n_adds = 0, now = write_now_ms();
  char uuid[37], name[96], side_name[48];
  /* the names first: each file streams to its key as it is built */
  if (co.v2) {
    write_uuid(uuid);
    snprintf(name, sizeof name, "%020lld.checkpoint.%s.%s", (long long)s->version, uuid, v2_json ? "json" : "parquet");
  } else {
    snprintf(name, sizeof name, "%020lld.checkpoint.parquet", (long long)s->version);
  }
  int rc;
  if ((rc = buf_puts(&add_col, col_add_open)) != 0) goto done;
  if (co.stats_struct && (rc = parsed_columns(&co, &add_col)) != 0) goto done;
  if ((rc = buf_puts(&add_col, ">,")) != 0 || (rc = buf_puts(&add_col, col_remove)) != 0 ||
      (rc = buf_putc(&add_col, 0)) != 0)
    goto done;
  /* V1: one file with everything. V2: the file actions in one sidecar
   * (when there are any), the rest and checkpointMetadata in the
   * UUID-named checkpoint. */
  bool sidecar = co.v2 && (s->n_files > 0 || s->n_tombstones > 0);
  if ((rc = buf_printf(&text, "%s,%s%s%s", col_txn, sidecar ? "" : (const char *)add_col.data,
                       sidecar ? "" : ",", col_rest)) != 0)
    goto done;
  if (co.v2 && (rc = buf_printf(&text, ",%s", col_v2)) != 0) goto done;
  if ((rc = buf_putc(&text, 0)) != 0) goto done;
  /* a classic checkpoint of the same version may exist (another writer):
   * equal content, latest wins; UUID names never collide */
  if ((rc = buf_printf(&key, "_delta_log/%s", name)) != 0 || (rc = buf_putc(&key, 0)) != 0) goto done;
  if ((rc = ckpt_open(&main_cs, t->storage, (const char *)key.data, (const char *)text.data, v2_json)) != 0)
    goto done;
  if ((rc = table_rows(s, &main_cs)) != 0) goto done;
  delta_json_writer w;
  if (sidecar) {
    write_uuid(uuid);
    snprintf(side_name, sizeof side_name, "%s.parquet", uuid);
    buf_reset(&key);
    if ((rc = buf_printf(&key, "_delta_log/_sidecars/%s", side_name)) || (rc = buf_putc(&key, 0))) goto done;
    if ((rc = ckpt_open(&side_cs, t->storage, (const char *)key.data, (const char *)add_col.data, false)) != 0 ||
        (rc = file_rows(&co, &side_cs, &n_adds)) != 0 || (rc = ckpt_close(&side_cs)) != 0)
      goto done;
    ROW(&main_cs, (json_write_object_begin(&w), json_write_key(&w, "sidecar"),
                   json_write_object_begin(&w), json_write_key(&w, "path"),
                   json_write_string(&w, side_name), json_write_key(&w, "sizeInBytes"),
                   json_write_int64(&w, (int64_t)side_cs.size), json_write_key(&w, "modificationTime"),
                   json_write_int64(&w, now), json_write_object_end(&w), json_write_object_end(&w)));
  } else {
    rc = file_rows(&co, &main_cs, &n_adds);
  }
  if (rc) goto done;
  if (co.v2) {
    ROW(&main_cs, (json_write_object_begin(&w), json_write_key(&w, "checkpointMetadata"),
                   json_write_object_begin(&w), json_write_key(&w, "version"),
                   json_write_int64(&w, s->version), json_write_object_end(&w),
                   json_write_object_end(&w)));
    if (rc) goto done;
  }
  if ((rc = ckpt_close(&main_cs)) != 0) goto done;
  rc = write_hint(t, s, main_cs.rows + side_cs.rows, main_cs.size, n_adds, co.v2 ? name : NULL, now);
done:
  if (rc) err_prefix("checkpoint of version %lld", (long long)s->version);
  ckpt_dispose(&main_cs);
  ckpt_dispose(&side_cs);
  buf_dispose(&text);
  buf_dispose(&add_col);
  buf_dispose(&key);
  return rc;
}
#undef ROW

int delta_checkpoint_create(delta_table *t, int64_t version, int64_t *version_out) {
  delta_snapshot *s = NULL;
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (version >= 0) {
    so.at_version = true;
    so.table_version = version;
  }
  int rc;
  if (!t)
    return err_set(DELTA_EINVAL, "checkpoint: NULL table");
  if ((rc = delta_snapshot_open(&s, t, &so)) != 0)
    goto done;
  if ((rc = checkpoint_write_snapshot(t, s)) != 0)
    goto done;
  /* the new checkpoint may let expired commits go (as the commit hook
   * txn_hook_log_cleanup does); the checkpoint stands whether or not that
   * works */
  if (log_cleanup_after_checkpoint(t, s) != 0) delta_error_clear();
  if (version_out) *version_out = s->version;
done:
  delta_snapshot_free(s);
  return rc;
}
