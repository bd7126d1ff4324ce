/*
 * Delta log actions as C structs, and the sink that log replay feeds them to.
 *
 * Strings are NUL-terminated and owned by an arena (log/arena.h) that lives
 * as long as the snapshot; nothing here is freed one by one. Absent optional
 * fields are NULL / has_* = false. Paths are as written in the log (still
 * URI-encoded); the storage layer decodes them.
 */
#ifndef DELTAC_LOG_ACTIONS_H
#define DELTAC_LOG_ACTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "json/json_writer.h"
#include "log/arena.h"

typedef struct {
  const char *key;
  const char *value; /* NULL for a null value */
} delta_kv;

/* Fields are ordered by size (no padding holes): a snapshot of a million
 * files holds a million delta_add. */
typedef struct {
  const char *path_or_inline; /* pathOrInlineDv */
  const char *unique_id;      /* storageType + pathOrInlineDv [+ "@" + offset]: the file key's second half */
  int64_t cardinality;
  int32_t offset;
  int32_t size_in_bytes;
  bool present;
  char storage_type;          /* 'u', 'p' or 'i' */
  bool has_offset;
} delta_dv;

typedef struct {
  const char *path;
  delta_kv *partition_values;
  const char *stats;          /* the JSON string, or NULL */
  const char *tags;           /* raw JSON object, or NULL */
  const char *clustering_provider;
  int64_t size;
  int64_t modification_time;
  int64_t base_row_id;
  int64_t default_row_commit_version;
  int64_t num_records;        /* numRecords of the stats, -1 when unknown */
  delta_dv dv;
  int n_partition_values;
  bool data_change;
  bool has_base_row_id;
  bool has_default_row_commit_version;
} delta_add;

typedef struct {
  const char *path;
  bool has_deletion_timestamp;
  int64_t deletion_timestamp;
  bool data_change;
  bool extended_file_metadata;
  delta_kv *partition_values;  /* when extendedFileMetadata */
  int n_partition_values;
  bool has_size;
  int64_t size;
  const char *stats;
  const char *tags;
  delta_dv dv;
  bool has_base_row_id;
  int64_t base_row_id;
  bool has_default_row_commit_version;
  int64_t default_row_commit_version;
} delta_remove;

typedef struct {
  const char *path;
  delta_kv *partition_values;
  int n_partition_values;
  int64_t size;
  bool data_change;
  const char *tags;
} delta_cdc;

typedef struct {
  const char *id;
  const char *name;
  const char *description;
  const char *format_provider;
  delta_kv *format_options;
  int n_format_options;
  const char *schema_string;
  const char **partition_columns;
  int n_partition_columns;
  bool has_created_time;
  int64_t created_time;
  delta_kv *configuration;
  int n_configuration;
} delta_metadata;

typedef struct {
  int32_t min_reader_version;
  int32_t min_writer_version;
  const char **reader_features; /* NULL when absent */
  int n_reader_features;
  bool has_reader_features;
  const char **writer_features;
  int n_writer_features;
  bool has_writer_features;
} delta_protocol;

typedef struct {
  const char *app_id;
  int64_t version;
  bool has_last_updated;
  int64_t last_updated;
} delta_txn;

typedef struct {
  const char *domain;
  const char *configuration;
  bool removed;
} delta_domain_metadata;

typedef struct {
  const char *path;
  int64_t size_in_bytes;
  int64_t modification_time;
  const char *tags;
} delta_sidecar;

typedef struct {
  int64_t version;
  const char *tags;
} delta_checkpoint_metadata;

typedef enum {
  DELTA_ACTION_ADD, DELTA_ACTION_REMOVE, DELTA_ACTION_CDC, DELTA_ACTION_METADATA,
  DELTA_ACTION_PROTOCOL, DELTA_ACTION_TXN, DELTA_ACTION_DOMAIN_METADATA,
  DELTA_ACTION_COMMIT_INFO, DELTA_ACTION_SIDECAR, DELTA_ACTION_CHECKPOINT_METADATA
} delta_action_kind;

typedef struct {
  delta_action_kind kind;
  union {
    delta_add add;
    delta_remove remove;
    delta_cdc cdc;
    delta_metadata metadata;
    delta_protocol protocol;
    delta_txn txn;
    delta_domain_metadata domain;
    const char *commit_info;   /* raw JSON object */
    delta_sidecar sidecar;
    delta_checkpoint_metadata checkpoint_metadata;
  } u;
} delta_action;

/* Receives actions during replay; return 0 to go on, non-zero to stop with
 * that code. Action strings live in the arena given to the reader. */
typedef int (*delta_action_cb)(const delta_action *a, void *payload);

/* numRecords from a stats JSON text without parsing all of it (stats
 * strings are long and there is one per file); -1 when absent or odd. */
int64_t log_stats_num_records(const char *stats, size_t len);

/* Fill dv->unique_id from the other fields (allocated in the arena). */
int log_dv_unique_id(delta_arena *arena, delta_dv *dv);

/* A string map (partition values, configuration) as a JSON object; null
 * values as null. */
int log_kv_write_json(delta_json_writer *w, const delta_kv *kv, int n);

#endif
