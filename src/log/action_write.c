/* Actions to JSON; see action_write.h. */
#include "log/action_write.h"

#include <string.h>

static void dv_json(delta_json_writer *w, const delta_dv *dv) {
  json_write_key(w, "deletionVector");
  json_write_object_begin(w);
  char st[2] = {dv->storage_type, 0};
  json_write_key(w, "storageType");
  json_write_string(w, st);
  json_write_key(w, "pathOrInlineDv");
  json_write_string(w, dv->path_or_inline);
  if (dv->has_offset) {
    json_write_key(w, "offset");
    json_write_int64(w, dv->offset);
  }
  json_write_key(w, "sizeInBytes");
  json_write_int64(w, dv->size_in_bytes);
  json_write_key(w, "cardinality");
  json_write_int64(w, dv->cardinality);
  json_write_object_end(w);
}

static void raw_obj(delta_json_writer *w, const char *key, const char *json) {
  if (!json) return;
  json_write_key(w, key);
  json_write_raw(w, json, strlen(json));
}

int action_add_json(delta_json_writer *w, const delta_add *a, bool data_change) {
  json_write_object_begin(w);
  json_write_key(w, "add");
  json_write_object_begin(w);
  json_write_key(w, "path");
  json_write_string(w, a->path);
  json_write_key(w, "partitionValues");
  log_kv_write_json(w, a->partition_values, a->n_partition_values);
  json_write_key(w, "size");
  json_write_int64(w, a->size);
  json_write_key(w, "modificationTime");
  json_write_int64(w, a->modification_time);
  json_write_key(w, "dataChange");
  json_write_bool(w, data_change);
  if (a->stats) {
    json_write_key(w, "stats");
    json_write_string(w, a->stats);
  }
  raw_obj(w, "tags", a->tags);
  if (a->dv.present) dv_json(w, &a->dv);
  if (a->has_base_row_id) {
    json_write_key(w, "baseRowId");
    json_write_int64(w, a->base_row_id);
  }
  if (a->has_default_row_commit_version) {
    json_write_key(w, "defaultRowCommitVersion");
    json_write_int64(w, a->default_row_commit_version);
  }
  if (a->clustering_provider) {
    json_write_key(w, "clusteringProvider");
    json_write_string(w, a->clustering_provider);
  }
  json_write_object_end(w);
  return json_write_object_end(w);
}

int action_remove_json(delta_json_writer *w, const delta_remove *r) {
  json_write_object_begin(w);
  json_write_key(w, "remove");
  json_write_object_begin(w);
  json_write_key(w, "path");
  json_write_string(w, r->path);
  if (r->has_deletion_timestamp) {
    json_write_key(w, "deletionTimestamp");
    json_write_int64(w, r->deletion_timestamp);
  }
  json_write_key(w, "dataChange");
  json_write_bool(w, r->data_change);
  if (r->extended_file_metadata) {
    json_write_key(w, "extendedFileMetadata");
    json_write_bool(w, true);
    json_write_key(w, "partitionValues");
    log_kv_write_json(w, r->partition_values, r->n_partition_values);
  }
  if (r->has_size) {
    json_write_key(w, "size");
    json_write_int64(w, r->size);
  }
  if (r->dv.present) dv_json(w, &r->dv);
  if (r->has_base_row_id) {
    json_write_key(w, "baseRowId");
    json_write_int64(w, r->base_row_id);
  }
  if (r->has_default_row_commit_version) {
    json_write_key(w, "defaultRowCommitVersion");
    json_write_int64(w, r->default_row_commit_version);
  }
  json_write_object_end(w);
  return json_write_object_end(w);
}

int action_remove_of_add_json(delta_json_writer *w, const delta_add *a, int64_t deletion_ts, bool data_change) {
  delta_remove r;
  memset(&r, 0, sizeof r);
  r.path = a->path;
  r.has_deletion_timestamp = true;
  r.deletion_timestamp = deletion_ts;
  r.data_change = data_change;
  r.extended_file_metadata = true;
  r.partition_values = a->partition_values;
  r.n_partition_values = a->n_partition_values;
  r.has_size = true;
  r.size = a->size;
  r.dv = a->dv;
  r.has_base_row_id = a->has_base_row_id;
  r.base_row_id = a->base_row_id;
  r.has_default_row_commit_version = a->has_default_row_commit_version;
  r.default_row_commit_version = a->default_row_commit_version;
  return action_remove_json(w, &r);
}

int action_metadata_json(delta_json_writer *w, const delta_metadata *m) {
  json_write_object_begin(w);
  json_write_key(w, "metaData");
  json_write_object_begin(w);
  json_write_key(w, "id");
  json_write_string(w, m->id);
  if (m->name) {
    json_write_key(w, "name");
    json_write_string(w, m->name);
  }
  if (m->description) {
    json_write_key(w, "description");
    json_write_string(w, m->description);
  }
  json_write_key(w, "format");
  json_write_object_begin(w);
  json_write_key(w, "provider");
  json_write_string(w, m->format_provider ? m->format_provider : "parquet");
  json_write_key(w, "options");
  log_kv_write_json(w, m->format_options, m->n_format_options);
  json_write_object_end(w);
  json_write_key(w, "schemaString");
  json_write_string(w, m->schema_string ? m->schema_string : "");
  json_write_key(w, "partitionColumns");
  json_write_array_begin(w);
  for (int i = 0; i < m->n_partition_columns; i++) json_write_string(w, m->partition_columns[i]);
  json_write_array_end(w);
  json_write_key(w, "configuration");
  log_kv_write_json(w, m->configuration, m->n_configuration);
  if (m->has_created_time) {
    json_write_key(w, "createdTime");
    json_write_int64(w, m->created_time);
  }
  json_write_object_end(w);
  return json_write_object_end(w);
}

int action_protocol_json(delta_json_writer *w, const delta_protocol *p) {
  json_write_object_begin(w);
  json_write_key(w, "protocol");
  json_write_object_begin(w);
  json_write_key(w, "minReaderVersion");
  json_write_int64(w, p->min_reader_version);
  json_write_key(w, "minWriterVersion");
  json_write_int64(w, p->min_writer_version);
  if (p->has_reader_features) {
    json_write_key(w, "readerFeatures");
    json_write_array_begin(w);
    for (int i = 0; i < p->n_reader_features; i++) json_write_string(w, p->reader_features[i]);
    json_write_array_end(w);
  }
  if (p->has_writer_features) {
    json_write_key(w, "writerFeatures");
    json_write_array_begin(w);
    for (int i = 0; i < p->n_writer_features; i++) json_write_string(w, p->writer_features[i]);
    json_write_array_end(w);
  }
  json_write_object_end(w);
  return json_write_object_end(w);
}

int action_txn_json(delta_json_writer *w, const delta_txn *t) {
  json_write_object_begin(w);
  json_write_key(w, "txn");
  json_write_object_begin(w);
  json_write_key(w, "appId");
  json_write_string(w, t->app_id);
  json_write_key(w, "version");
  json_write_int64(w, t->version);
  if (t->has_last_updated) {
    json_write_key(w, "lastUpdated");
    json_write_int64(w, t->last_updated);
  }
  json_write_object_end(w);
  return json_write_object_end(w);
}

int action_domain_json(delta_json_writer *w, const delta_domain_metadata *d) {
  json_write_object_begin(w);
  json_write_key(w, "domainMetadata");
  json_write_object_begin(w);
  json_write_key(w, "domain");
  json_write_string(w, d->domain);
  json_write_key(w, "configuration");
  json_write_string(w, d->configuration ? d->configuration : "");
  json_write_key(w, "removed");
  json_write_bool(w, d->removed);
  json_write_object_end(w);
  return json_write_object_end(w);
}
