/* Actions to JSON; see action_write.h. */
#include "log/action_write.h"

#include <string.h>

static void dv_json(delta_json_writer *w, const delta_dv *dv) {
  delta_json_write_key(w, "deletionVector");
  delta_json_write_object_begin(w);
  char st[2] = {dv->storage_type, 0};
  delta_json_write_key(w, "storageType");
  delta_json_write_string(w, st);
  delta_json_write_key(w, "pathOrInlineDv");
  delta_json_write_string(w, dv->path_or_inline);
  if (dv->has_offset) {
    delta_json_write_key(w, "offset");
    delta_json_write_int64(w, dv->offset);
  }
  delta_json_write_key(w, "sizeInBytes");
  delta_json_write_int64(w, dv->size_in_bytes);
  delta_json_write_key(w, "cardinality");
  delta_json_write_int64(w, dv->cardinality);
  delta_json_write_object_end(w);
}

static void raw_obj(delta_json_writer *w, const char *key, const char *json) {
  if (!json) return;
  delta_json_write_key(w, key);
  delta_json_write_raw(w, json, strlen(json));
}

int action_add_json(delta_json_writer *w, const delta_add *a, bool data_change) {
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "add");
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "path");
  delta_json_write_string(w, a->path);
  delta_json_write_key(w, "partitionValues");
  delta_kv_write_json(w, a->partition_values, a->n_partition_values);
  delta_json_write_key(w, "size");
  delta_json_write_int64(w, a->size);
  delta_json_write_key(w, "modificationTime");
  delta_json_write_int64(w, a->modification_time);
  delta_json_write_key(w, "dataChange");
  delta_json_write_bool(w, data_change);
  if (a->stats) {
    delta_json_write_key(w, "stats");
    delta_json_write_string(w, a->stats);
  }
  raw_obj(w, "tags", a->tags);
  if (a->dv.present) dv_json(w, &a->dv);
  if (a->has_base_row_id) {
    delta_json_write_key(w, "baseRowId");
    delta_json_write_int64(w, a->base_row_id);
  }
  if (a->has_default_row_commit_version) {
    delta_json_write_key(w, "defaultRowCommitVersion");
    delta_json_write_int64(w, a->default_row_commit_version);
  }
  if (a->clustering_provider) {
    delta_json_write_key(w, "clusteringProvider");
    delta_json_write_string(w, a->clustering_provider);
  }
  delta_json_write_object_end(w);
  return delta_json_write_object_end(w);
}

int action_remove_json(delta_json_writer *w, const delta_remove *r) {
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "remove");
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "path");
  delta_json_write_string(w, r->path);
  if (r->has_deletion_timestamp) {
    delta_json_write_key(w, "deletionTimestamp");
    delta_json_write_int64(w, r->deletion_timestamp);
  }
  delta_json_write_key(w, "dataChange");
  delta_json_write_bool(w, r->data_change);
  if (r->extended_file_metadata) {
    delta_json_write_key(w, "extendedFileMetadata");
    delta_json_write_bool(w, true);
    delta_json_write_key(w, "partitionValues");
    delta_kv_write_json(w, r->partition_values, r->n_partition_values);
  }
  if (r->has_size) {
    delta_json_write_key(w, "size");
    delta_json_write_int64(w, r->size);
  }
  if (r->dv.present) dv_json(w, &r->dv);
  if (r->has_base_row_id) {
    delta_json_write_key(w, "baseRowId");
    delta_json_write_int64(w, r->base_row_id);
  }
  if (r->has_default_row_commit_version) {
    delta_json_write_key(w, "defaultRowCommitVersion");
    delta_json_write_int64(w, r->default_row_commit_version);
  }
  delta_json_write_object_end(w);
  return delta_json_write_object_end(w);
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
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "metaData");
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "id");
  delta_json_write_string(w, m->id);
  if (m->name) {
    delta_json_write_key(w, "name");
    delta_json_write_string(w, m->name);
  }
  if (m->description) {
    delta_json_write_key(w, "description");
    delta_json_write_string(w, m->description);
  }
  delta_json_write_key(w, "format");
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "provider");
  delta_json_write_string(w, m->format_provider ? m->format_provider : "parquet");
  delta_json_write_key(w, "options");
  delta_kv_write_json(w, m->format_options, m->n_format_options);
  delta_json_write_object_end(w);
  delta_json_write_key(w, "schemaString");
  delta_json_write_string(w, m->schema_string ? m->schema_string : "");
  delta_json_write_key(w, "partitionColumns");
  delta_json_write_array_begin(w);
  for (int i = 0; i < m->n_partition_columns; i++) delta_json_write_string(w, m->partition_columns[i]);
  delta_json_write_array_end(w);
  delta_json_write_key(w, "configuration");
  delta_kv_write_json(w, m->configuration, m->n_configuration);
  if (m->has_created_time) {
    delta_json_write_key(w, "createdTime");
    delta_json_write_int64(w, m->created_time);
  }
  delta_json_write_object_end(w);
  return delta_json_write_object_end(w);
}

int action_protocol_json(delta_json_writer *w, const delta_protocol *p) {
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "protocol");
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "minReaderVersion");
  delta_json_write_int64(w, p->min_reader_version);
  delta_json_write_key(w, "minWriterVersion");
  delta_json_write_int64(w, p->min_writer_version);
  if (p->has_reader_features) {
    delta_json_write_key(w, "readerFeatures");
    delta_json_write_array_begin(w);
    for (int i = 0; i < p->n_reader_features; i++) delta_json_write_string(w, p->reader_features[i]);
    delta_json_write_array_end(w);
  }
  if (p->has_writer_features) {
    delta_json_write_key(w, "writerFeatures");
    delta_json_write_array_begin(w);
    for (int i = 0; i < p->n_writer_features; i++) delta_json_write_string(w, p->writer_features[i]);
    delta_json_write_array_end(w);
  }
  delta_json_write_object_end(w);
  return delta_json_write_object_end(w);
}

int action_txn_json(delta_json_writer *w, const delta_txn *t) {
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "txn");
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "appId");
  delta_json_write_string(w, t->app_id);
  delta_json_write_key(w, "version");
  delta_json_write_int64(w, t->version);
  if (t->has_last_updated) {
    delta_json_write_key(w, "lastUpdated");
    delta_json_write_int64(w, t->last_updated);
  }
  delta_json_write_object_end(w);
  return delta_json_write_object_end(w);
}

int action_domain_json(delta_json_writer *w, const delta_domain_metadata *d) {
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "domainMetadata");
  delta_json_write_object_begin(w);
  delta_json_write_key(w, "domain");
  delta_json_write_string(w, d->domain);
  delta_json_write_key(w, "configuration");
  delta_json_write_string(w, d->configuration ? d->configuration : "");
  delta_json_write_key(w, "removed");
  delta_json_write_bool(w, d->removed);
  delta_json_write_object_end(w);
  return delta_json_write_object_end(w);
}
