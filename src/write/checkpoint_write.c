/* Writing checkpoints; see checkpoint_write.h. */
#include "write/checkpoint_write.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deltac/parquet_writer.h"
#include "json/json.h"
#include "log/snapshot.h"
#include "maint/log_cleanup.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "write/action_write.h"
#include "write/column_builder.h"
#include "write/commit.h"
#include "write/schema_build.h"
#include "write/table_setup.h"

#define BATCH_ROWS 8192

/* The checkpoint's columns, as Delta Spark lays them out. */
static const char checkpoint_schema[] =
    "txn struct<appId: string, version: long, lastUpdated: long>,"
    "add struct<path: string, partitionValues: map<string, string>, size: long, modificationTime: long,"
    " dataChange: boolean, tags: map<string, string>,"
    " deletionVector: struct<storageType: string, pathOrInlineDv: string, offset: int, sizeInBytes: int,"
    " cardinality: long>, baseRowId: long, defaultRowCommitVersion: long, clusteringProvider: string,"
    " stats: string>,"
    "remove struct<path: string, deletionTimestamp: long, dataChange: boolean, extendedFileMetadata: boolean,"
    " partitionValues: map<string, string>, size: long,"
    " deletionVector: struct<storageType: string, pathOrInlineDv: string, offset: int, sizeInBytes: int,"
    " cardinality: long>, baseRowId: long, defaultRowCommitVersion: long>,"
    "metaData struct<id: string, name: string, description: string,"
    " format: struct<provider: string, options: map<string, string>>, schemaString: string,"
    " partitionColumns: array<string>, configuration: map<string, string>, createdTime: long>,"
    "protocol struct<minReaderVersion: int, minWriterVersion: int, readerFeatures: array<string>,"
    " writerFeatures: array<string>>,"
    "domainMetadata struct<domain: string, configuration: string, removed: boolean>";

/* delta.deletedFileRetentionDuration in ms (default a week). */
static int64_t retention_ms(const delta_snapshot *s) {
  return table_interval_ms(delta_snapshot_config(s, "delta.deletedFileRetentionDuration"), 7LL * 86400 * 1000);
}

typedef struct {
  row_builder rb;
  delta_parquet_writer *w;
  delta_buf line;
  delta_json_doc *doc;
  int64_t rows;
} ckpt_state;

static int flush(ckpt_state *cs) {
  if (cs->rb.rows == 0) return 0;
  struct ArrowArray batch;
  int rc = row_builder_finish(&cs->rb, &batch);
  if (rc) return rc;
  rc = delta_parquet_writer_write(cs->w, &batch);
  batch.release(&batch);
  return rc;
}

/* cs->line holds one action as JSON: make it a row. */
static int add_row(ckpt_state *cs, int rc) {
  if (rc) return rc;
  if ((rc = delta_json_parse(cs->doc, (const char *)cs->line.data, cs->line.len))) return rc;
  if ((rc = row_builder_add_json(&cs->rb, delta_json_root(cs->doc)))) return rc;
  cs->rows++;
  delta_buf_reset(&cs->line);
  return cs->rb.rows >= BATCH_ROWS ? flush(cs) : 0;
}

static int sink_write(void *ctx, const void *data, size_t len) { return delta_buf_append(ctx, data, len); }

int checkpoint_write_snapshot(delta_table *t, const delta_snapshot *s) {
  for (int i = 0; i < s->protocol.n_writer_features; i++)
    if (strcmp(s->protocol.writer_features[i], "v2Checkpoint") == 0)
      return delta_error_set(DELTA_EUNSUPPORTED, "checkpoint: V2 checkpoints (v2Checkpoint) are not written yet");
  delta_type *type = NULL;
  struct ArrowSchema schema = {0};
  ckpt_state cs;
  memset(&cs, 0, sizeof cs);
  delta_buf file = DELTA_BUF_INIT, hint = DELTA_BUF_INIT;
  int rc = schema_parse_text(checkpoint_schema, &type);
  if (!rc) rc = delta_schema_to_arrow(type, &schema);
  if (!rc) rc = row_builder_init(&cs.rb, type);
  if (!rc) rc = delta_json_doc_new(&cs.doc);
  delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  delta_parquet_sink sink = {sink_write, &file};
  if (!rc) rc = delta_parquet_writer_open_sink(&cs.w, &sink, &schema, &o);
  if (rc) goto done;

  delta_json_writer w;
#define ROW(call)                                      \
  do {                                                 \
    delta_json_writer_init(&w, &cs.line, 0);           \
    rc = add_row(&cs, (call) ? w.err : delta_json_writer_finish(&w)); \
  } while (0)
  ROW(action_protocol_json(&w, &s->protocol));
  if (!rc) ROW(action_metadata_json(&w, &s->metadata));
  for (int i = 0; !rc && i < s->n_txns; i++) ROW(action_txn_json(&w, &s->txns[i]));
  for (int i = 0; !rc && i < s->n_domains; i++) ROW(action_domain_json(&w, &s->domains[i]));
  int64_t n_adds = 0;
  for (int64_t i = 0; !rc && i < s->n_files; i++, n_adds++) ROW(action_add_json(&w, &s->files[i], false));
  int64_t cutoff = write_now_ms() - retention_ms(s);
  for (int64_t i = 0; !rc && i < s->n_tombstones; i++) {
    const delta_remove *r = &s->tombstones[i];
    if (r->has_deletion_timestamp && r->deletion_timestamp < cutoff) continue;
    delta_remove copy = *r;
    copy.data_change = false;
    ROW(action_remove_json(&w, &copy));
  }
#undef ROW
  if (!rc) rc = flush(&cs);
  if (!rc) rc = delta_parquet_writer_close(cs.w, NULL);
  if (rc) goto done;
  char key[80];
  snprintf(key, sizeof key, "_delta_log/%020lld.checkpoint.parquet", (long long)s->version);
  /* a checkpoint of the same version may exist (another writer): equal content, latest wins */
  if ((rc = delta_storage_put(t->storage, key, file.data, file.len, true))) goto done;
  /* _last_checkpoint only moves forward: a slower writer's older checkpoint
   * must not send readers further back than a newer one already did */
  delta_buf prev = DELTA_BUF_INIT;
  if (delta_storage_read(t->storage, "_delta_log/_last_checkpoint", &prev) == 0) {
    delta_json_doc *d = NULL;
    int64_t pv = -1;
    if (delta_json_doc_new(&d) == 0 && delta_json_parse(d, (const char *)prev.data, prev.len) == 0)
      delta_json_int64(delta_json_get(delta_json_root(d), "version"), &pv);
    delta_json_doc_free(d);
    delta_buf_dispose(&prev);
    if (pv > s->version) goto done;
  }
  delta_error_clear();
  rc = delta_buf_printf(&hint, "{\"version\":%lld,\"size\":%lld,\"sizeInBytes\":%llu,\"numOfAddFiles\":%lld}\n",
                        (long long)s->version, (long long)cs.rows, (unsigned long long)file.len, (long long)n_adds);
  if (!rc) rc = delta_storage_put(t->storage, "_delta_log/_last_checkpoint", hint.data, hint.len, true);
  /* the new checkpoint may let expired commits go; the checkpoint stands
   * whether or not that works */
  if (!rc && log_cleanup_after_checkpoint(t, s) != 0) delta_error_clear();
done:
  if (rc) delta_error_prefix("checkpoint of version %lld", (long long)s->version);
  delta_parquet_writer_free(cs.w);
  row_builder_dispose(&cs.rb);
  delta_json_doc_free(cs.doc);
  delta_buf_dispose(&cs.line);
  delta_buf_dispose(&file);
  delta_buf_dispose(&hint);
  if (schema.release) schema.release(&schema);
  delta_type_free(type);
  return rc;
}

int delta_checkpoint_create(const char *location, int64_t version, int64_t *version_out) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  if (version >= 0) {
    so.at_version = true;
    so.table_version = version;
  }
  int rc = delta_table_open(&t, location);
  if (!rc) rc = delta_snapshot_open(&s, t, &so);
  if (!rc) rc = checkpoint_write_snapshot(t, s);
  if (!rc && version_out) *version_out = s->version;
  delta_snapshot_free(s);
  delta_table_free(t);
  return rc;
}
