/*
 * delta_write: one transaction from Arrow data to a commit. The steps: read
 * the latest snapshot (or none: a new table), settle the schema (the
 * table's, merged with new input columns when asked, or a new table's from
 * the options or the data), write the data files, add removes for an
 * overwrite and a txn for an app id, commit (txn/txn.h), and checkpoint when
 * the version is a multiple of delta.checkpointInterval (a commit hook).
 */
#include "deltac/write.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "log/clustering.h"
#include "txn/hooks.h"
#include "txn/txn.h"
#include "rewrite/constraints.h"
#include "rewrite/data_write.h"
#include "rewrite/gen_columns.h"
#include "txn/checkpoint_write.h"
#include "txn/commit.h"
#include "write/replace_where.h"
#include "txn/row_tracking.h"
#include "log/schema_build.h"
#include "log/table_setup.h"

typedef struct {
  const delta_write_options *o;
  delta_table *table;
  delta_snapshot *snap;        /* NULL for a new table */
  delta_arena arena;           /* strings of the new metadata/protocol */
  delta_type *schema;          /* the schema the data is written with (owned) */
  delta_metadata meta;         /* new or current metadata */
  delta_protocol protocol;
  bool new_metadata, new_protocol;
  const char **partition_cols;
  int n_partition_cols;
  delta_buf actions;
  delta_buf tmp;
  struct ArrowSchema in_schema;
  delta_type *in_type;
  delta_buf cluster_conf;      /* a new clustered table's delta.clustering configuration */
} write_ctx;

static char *arena_printf_i64(delta_arena *a, int64_t v) {
  char b[24];
  snprintf(b, sizeof b, "%lld", (long long)v);
  return log_arena_strdup(a, b);
}

static int schema_string(write_ctx *c) {
  buf_reset(&c->tmp);
  int rc = schema_to_json(c->schema, &c->tmp);
  if (rc) return rc;
  c->meta.schema_string = log_arena_strndup(&c->arena, (const char *)c->tmp.data, c->tmp.len);
  return c->meta.schema_string ? 0 : DELTA_NOMEM();
}

/* Set (or add) one configuration entry of c->meta, copying the array. */
static int set_config(write_ctx *c, const char *key, const char *value) {
  int n = c->meta.n_configuration;
  delta_kv *kv = log_arena_alloc(&c->arena, (size_t)(n + 1) * sizeof *kv);
  if (!kv) return DELTA_NOMEM();
  int k = 0;
  for (int i = 0; i < n; i++)
    if (strcmp(c->meta.configuration[i].key, key) != 0) kv[k++] = c->meta.configuration[i];
  kv[k].key = log_arena_strdup(&c->arena, key);
  kv[k].value = log_arena_strdup(&c->arena, value);
  if (!kv[k].key || !kv[k].value) return DELTA_NOMEM();
  c->meta.configuration = kv;
  c->meta.n_configuration = k + 1;
  return 0;
}

static int setup_new_table(write_ctx *c) {
  const delta_write_options *o = c->o;
  int rc;
  if (o->schema) {
    if ((rc = schema_parse_text(o->schema, &c->schema))) return rc;
  } else if (c->in_type) {
    if (!(c->schema = schema_copy(c->in_type))) return DELTA_NOMEM();
  } else {
    return err_set(DELTA_EINVAL, "a new table needs a schema (--schema) or input data");
  }
  if (c->schema->n_fields == 0) return err_set(DELTA_EINVAL, "a table needs at least one column");
  for (int i = 0; i < c->schema->n_fields; i++) {
    for (int j = 0; j < i; j++)
      if (strcasecmp(c->schema->fields[i].name, c->schema->fields[j].name) == 0)
        return err_set(DELTA_EINVAL, "column %s appears twice (names are case-insensitive)",
                               c->schema->fields[i].name);
    if (c->schema->fields[i].type->kind == DT_NULL || c->schema->fields[i].type->kind == DT_VARIANT)
      return err_set(DELTA_EUNSUPPORTED, "column %s: deltac cannot write this type", c->schema->fields[i].name);
  }
  if ((rc = table_check_properties(o->property_keys, o->property_values, (int)o->n_properties))) return rc;
  delta_metadata *m = &c->meta;
  memset(m, 0, sizeof *m);
  char uuid[37];
  write_uuid(uuid);
  m->id = log_arena_strdup(&c->arena, uuid);
  m->name = o->name ? log_arena_strdup(&c->arena, o->name) : NULL;
  m->description = o->description ? log_arena_strdup(&c->arena, o->description) : NULL;
  m->format_provider = "parquet";
  m->has_created_time = true;
  m->created_time = write_now_ms();
  for (size_t i = 0; i < o->n_properties; i++)
    if ((rc = set_config(c, o->property_keys[i], o->property_values[i]))) return rc;
  if (table_prop_true(m->configuration, m->n_configuration, "delta.enableRowTracking")) {
    /* hidden columns that keep the ids of rows copied by DML and OPTIMIZE */
    char idc[64], vc[64];
    row_tracking_new_column_names(idc, vc);
    if ((rc = set_config(c, ROW_TRACKING_ID_COL_KEY, idc)) || (rc = set_config(c, ROW_TRACKING_VERSION_COL_KEY, vc)))
      return rc;
  }
  cm_mode cm = table_cm_mode(m->configuration, m->n_configuration);
  if (cm != CM_NONE) {
    int64_t max_id = 0;
    if ((rc = schema_assign_column_mapping(c->schema, &max_id))) return rc;
    char *v = arena_printf_i64(&c->arena, max_id);
    if (!v || (rc = set_config(c, "delta.columnMapping.maxColumnId", v))) return v ? rc : DELTA_NOMEM();
  }
  /* partition columns by the schema's spelling */
  c->partition_cols = log_arena_alloc(&c->arena, (o->n_partition_by + 1) * sizeof(char *));
  if (!c->partition_cols) return DELTA_NOMEM();
  for (size_t i = 0; i < o->n_partition_by; i++) {
    const delta_field *f = log_schema_find(c->schema, o->partition_by[i]);
    if (!f) return err_set(DELTA_EINVAL, "partition column %s is not in the schema", o->partition_by[i]);
    for (size_t j = 0; j < i; j++)
      if (strcmp(c->partition_cols[j], f->name) == 0)
        return err_set(DELTA_EINVAL, "partition column %s given twice", f->name);
    delta_type_kind k = f->type->kind;
    if (k == DT_STRUCT || k == DT_ARRAY || k == DT_MAP)
      return err_set(DELTA_EINVAL, "cannot partition on column %s: nested types cannot be partition columns",
                             f->name);
    c->partition_cols[i] = f->name;
  }
  c->n_partition_cols = (int)o->n_partition_by;
  if (c->n_partition_cols == c->schema->n_fields)
    return err_set(DELTA_EINVAL, "every column is a partition column; a table needs one data column");
  m->partition_columns = c->partition_cols;
  m->n_partition_columns = c->n_partition_cols;
  for (int i = 0; i < m->n_configuration; i++) {
    const char *k = m->configuration[i].key;
    if (strncmp(k, CONSTRAINT_PREFIX, strlen(CONSTRAINT_PREFIX)) == 0 &&
        (rc = constraint_validate(k + strlen(CONSTRAINT_PREFIX), m->configuration[i].value, c->schema)))
      return rc;
  }
  if (o->n_cluster_by) {
    if (c->n_partition_cols)
      return err_set(DELTA_EINVAL, "a table is either partitioned or clustered, not both");
    if ((rc = clustering_new_domain(c->schema, o->cluster_by, (int)o->n_cluster_by, cm != CM_NONE, &c->cluster_conf)) ||
        (rc = buf_putc(&c->cluster_conf, 0)))
      return rc;
  }
  if ((rc = schema_string(c))) return rc;
  if ((rc = table_derive_protocol_ex(c->schema, m->configuration, m->n_configuration, o->n_cluster_by > 0, &c->arena,
                                     &c->protocol)))
    return rc;
  c->new_metadata = c->new_protocol = true;
  if (!m->id) return DELTA_NOMEM();
  /* a generation expression deltac cannot evaluate (or bad identity
   * settings) is refused now rather than at the first write */
  struct ArrowSchema full = {0}, eff = {0};
  gen_columns *g = NULL;
  if (!(rc = log_schema_to_arrow(c->schema, &full))) rc = gen_columns_new(&g, c->schema, &c->protocol, false, &full, &eff);
  gen_columns_free(g);
  if (eff.release) eff.release(&eff);
  if (full.release) full.release(&full);
  if (rc) return rc;
  /* the input must fit the declared schema */
  if (c->in_type) {
    delta_type *merged = NULL;
    if ((rc = schema_check_input(c->schema, c->in_type, false, &merged))) return rc;
  }
  return 0;
}

static int setup_existing_table(write_ctx *c) {
  const delta_write_options *o = c->o;
  delta_snapshot *s = c->snap;
  int rc = table_check_writable(&s->protocol, &s->metadata, s->schema);
  if (rc) return rc;
  if (o->n_properties)
    return err_set(DELTA_EINVAL, "table properties can only be given when the table is created");
  c->meta = s->metadata;
  c->protocol = s->protocol;
  c->partition_cols = s->metadata.partition_columns;
  c->n_partition_cols = s->metadata.n_partition_columns;
  if (o->n_partition_by) {
    bool same = (int)o->n_partition_by == c->n_partition_cols;
    for (int i = 0; same && i < c->n_partition_cols; i++)
      same = strcasecmp(o->partition_by[i], c->partition_cols[i]) == 0;
    if (!same) return err_set(DELTA_EINVAL, "the table is partitioned differently; partitioning cannot change");
  }
  if (o->n_cluster_by) {
    char **have = NULL;
    int n_have = 0;
    if ((rc = clustering_columns(s, &have, &n_have))) return rc;
    bool same = n_have == (int)o->n_cluster_by;
    for (int i = 0; same && i < n_have; i++) same = strcasecmp(o->cluster_by[i], have[i]) == 0;
    mem_free(have);
    if (!same)
      return err_set(DELTA_EINVAL, "the table is clustered differently (or not at all); --cluster-by cannot "
                                           "change it");
  }
  if (o->schema) {
    delta_type *given = NULL;
    if ((rc = schema_parse_text(o->schema, &given))) return rc;
    bool eq = schema_type_equal(given, s->schema);
    log_type_free(given);
    if (!eq) return err_set(DELTA_EINVAL, "--schema differs from the table's schema");
  }
  if (o->mode == DELTA_WRITE_OVERWRITE && table_prop_true(s->metadata.configuration, s->metadata.n_configuration,
                                                          "delta.appendOnly"))
    return err_set(DELTA_EINVAL, "the table is append-only (delta.appendOnly): overwrite is not allowed");
  delta_type *merged = NULL;
  if (c->in_type && (rc = schema_check_input(s->schema, c->in_type, o->schema_merge, &merged))) return rc;
  if (merged) {
    c->schema = merged;
    cm_mode cm = table_cm_mode(c->meta.configuration, c->meta.n_configuration);
    if (cm != CM_NONE) {
      const char *mx = snapshot_config(s, "delta.columnMapping.maxColumnId");
      int64_t max_id = mx ? strtoll(mx, NULL, 10) : 0;
      if ((rc = schema_assign_column_mapping(c->schema, &max_id))) return rc;
      char *v = arena_printf_i64(&c->arena, max_id);
      if (!v || (rc = set_config(c, "delta.columnMapping.maxColumnId", v))) return v ? rc : DELTA_NOMEM();
    }
    if ((rc = schema_string(c))) return rc;
    c->new_metadata = true;
  } else if (!(c->schema = schema_copy(s->schema))) {
    return DELTA_NOMEM();
  }
  return 0;
}

/* Ends the action `w` wrote (rc is what writing it returned) as one line of the commit. */
static int line(write_ctx *c, int rc, delta_json_writer *w) {
  if (rc != 0)
    return rc;
  if ((rc = json_writer_finish(w)) != 0)
    return rc;
  return buf_putc(&c->actions, '\n');
}

static int params_json(write_ctx *c, delta_buf *out, const char *mode) {
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "mode");
  json_write_string(&w, mode);
  /* Spark writes partitionBy as a JSON array inside a string */
  delta_buf pb = DELTA_BUF_INIT;
  delta_json_writer pw;
  json_writer_init(&pw, &pb, 0);
  json_write_array_begin(&pw);
  for (int i = 0; i < c->n_partition_cols; i++) json_write_string(&pw, c->partition_cols[i]);
  json_write_array_end(&pw);
  int rc = json_writer_finish(&pw);
  json_write_key(&w, "partitionBy");
  json_write_string_n(&w, (const char *)pb.data, pb.len);
  buf_dispose(&pb);
  if (c->o->n_cluster_by) {
    /* as partitionBy: a JSON array in a string */
    delta_buf cb = DELTA_BUF_INIT;
    delta_json_writer cw;
    json_writer_init(&cw, &cb, 0);
    json_write_string_array(&cw, c->o->cluster_by, (int)c->o->n_cluster_by);
    if (rc == 0) /* keeps the partitionBy failure, but cb is still written and released */
      rc = json_writer_finish(&cw);
    json_write_key(&w, "clusterBy");
    json_write_string_n(&w, (const char *)cb.data, cb.len);
    buf_dispose(&cb);
  }
  if (c->o->replace_where) {
    json_write_key(&w, "predicate");
    json_write_string(&w, c->o->replace_where);
  }
  json_write_object_end(&w);
  return rc ? rc : json_writer_finish(&w);
}

/* An input stream's errno-style failure as our code (its message comes
 * from get_last_error): a malformed Arrow stream stays DELTA_ECORRUPT. */
static int input_errno_code(int e) {
  switch (e) {
  case EBADMSG: return DELTA_ECORRUPT;
  case ENOTSUP: return DELTA_EUNSUPPORTED;
  case EOVERFLOW: return DELTA_ELIMIT;
  case ENOMEM: return DELTA_ENOMEM;
  default: return DELTA_EIO;
  }
}

/* Open the table and its latest snapshot (none: the write creates the
 * table) and check the options against it. An app version committed
 * already sets result->skipped: exactly-once, nothing is written again. */
static int write_prologue(write_ctx *c, delta_write_result *result) {
  const delta_write_options *opts = c->o;
  int rc;
  if (opts->app_id && opts->app_version < 0)
    return err_set(DELTA_EINVAL, "--app-version must be >= 0");
  if (opts->replace_where && opts->mode != DELTA_WRITE_OVERWRITE)
    return err_set(DELTA_EINVAL, "--replace-where needs --mode overwrite");
  rc = delta_snapshot_open(&c->snap, c->table, NULL);
  if (rc == DELTA_ENOTFOUND) {
    c->snap = NULL;
    delta_error_clear();
    return 0;
  }
  if (rc != 0)
    return rc;
  if (opts->mode == DELTA_WRITE_CREATE)
    return err_set(DELTA_EEXISTS, "table %s already exists (version %lld)", delta_table_location(c->table),
                           (long long)c->snap->version);
  if (opts->app_id)
    for (int i = 0; i < c->snap->n_txns; i++)
      if (strcmp(c->snap->txns[i].app_id, opts->app_id) == 0 && c->snap->txns[i].version >= opts->app_version) {
        result->skipped = true;
        result->version = c->snap->version;
        return 0;
      }
  return 0;
}

/* Commit c's actions: a new table's first version or the next one of the
 * snapshot read, with a checkpoint when the version is due for one. */
static int commit_write(write_ctx *c, const char *params, const char *metrics, const char **removed,
                        int64_t n_removed, bool ctas, bool ids_not_preserved, delta_write_result *result) {
  const delta_write_options *opts = c->o;
  txn_ctx tx;
  txn_begin(&tx, c->table, c->snap, c->snap ? "WRITE" : ctas ? "CREATE TABLE AS SELECT" : "CREATE TABLE");
  txn_set_info(&tx, params, metrics);
  txn_removes(&tx, removed, n_removed);
  /* the properties, protocol and metadata after this commit, which may
   * create the table or change them */
  tx.config = c->meta.configuration;
  tx.n_config = c->meta.n_configuration;
  tx.req.ict = table_prop_true(c->meta.configuration, c->meta.n_configuration, "delta.enableInCommitTimestamps");
  tx.req.blind_append = opts->mode != DELTA_WRITE_OVERWRITE && !c->new_metadata;
  tx.req.reads_table = opts->mode == DELTA_WRITE_OVERWRITE;
  tx.req.changes_metadata = c->new_metadata || c->new_protocol;
  /* the txn action is among c's actions already */
  tx.req.app_id = opts->app_id;
  tx.req.app_version = opts->app_version;
  tx.req.max_attempts = opts->max_attempts;
  tx.req.row_tracking = row_tracking_supported(&c->protocol);
  tx.req.row_id_high_water_mark = c->snap && tx.req.row_tracking ? row_tracking_snapshot_hwm(c->snap) : -1;
  tx.req.row_tracking_enabled = row_tracking_enabled(&c->protocol, &c->meta);
  /* rows --replace-where copies get fresh ids */
  tx.req.row_ids_not_preserved = ids_not_preserved;
  int rc;
  if ((rc = txn_stage(&tx, (const char *)c->actions.data, c->actions.len)) != 0)
    goto done;
  if ((rc = txn_checkpoint_on_interval(&tx)) != 0)
    goto done;
  if ((rc = txn_commit(&tx)) != 0)
    goto done;
  result->version = tx.version;
  result->skipped = tx.skipped;
  result->attempts = tx.attempts;
  result->checkpointed = tx.checkpointed;
done:
  txn_dispose(&tx);
  return rc;
}

int delta_write(delta_table *table, struct ArrowArrayStream *data, const delta_write_options *opts,
                delta_write_result *result) {
  delta_write_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->version = -1;
  delta_write_options v1;
  if (opts && opts->version == 1) {
    /* a caller built against the first layout (no cluster_by) */
    memset(&v1, 0, sizeof v1);
    memcpy(&v1, opts, offsetof(delta_write_options, cluster_by));
    v1.version = DELTA_WRITE_OPTIONS_VERSION;
    opts = &v1;
  }
  if (!opts || opts->version != DELTA_WRITE_OPTIONS_VERSION || !table) {
    if (data && data->release) data->release(data);
    return err_set(DELTA_EINVAL, !table ? "write: NULL table" : "write options: unknown version");
  }
  write_ctx c;
  memset(&c, 0, sizeof c);
  c.o = opts;
  c.table = table; /* the caller's: not freed here */
  data_writer *dw = NULL;
  delta_buf params = DELTA_BUF_INIT, metrics = DELTA_BUF_INIT;
  const char **removed = NULL;
  int64_t n_removed = 0;
  struct ArrowArray batch = {0};
  expr_node *where = NULL;
  replace_where_outcome rw = {0};
  replace_where_cdc *cdc = NULL;
  int64_t cdc_files = 0;
  int rc;
  if ((rc = write_prologue(&c, result)) != 0 || result->skipped)
    goto done;
  if (data) {
    if ((rc = data->get_schema(data, &c.in_schema))) {
      rc = err_set(DELTA_EIO, "input: %s", data->get_last_error(data) ? data->get_last_error(data) : "no schema");
      goto done;
    }
    if ((rc = schema_from_arrow(&c.in_schema, &c.in_type))) goto done;
  }
  rc = c.snap ? setup_existing_table(&c) : setup_new_table(&c);
  if (rc) goto done;

  /* data files */
  data_write_config dc = {c.table->storage, c.schema, c.partition_cols, c.n_partition_cols,
                          table_cm_mode(c.meta.configuration, c.meta.n_configuration) != CM_NONE,
                          opts->target_file_size, opts->codec, false, c.meta.configuration, c.meta.n_configuration,
                          true, &c.protocol};
  if (data && opts->replace_where) {
    /* every row written must fall inside what is replaced */
    if ((rc = expr_parse(opts->replace_where, &where))) goto done;
    if ((rc = expr_bind(where, &c.in_schema))) {
      err_prefix("--replace-where");
      goto done;
    }
  }
  if (opts->replace_where && c.snap &&
      table_prop_true(c.meta.configuration, c.meta.n_configuration, "delta.enableChangeDataFeed")) {
    if (c.new_metadata) {
      rc = err_set(DELTA_EUNSUPPORTED, "--replace-where with a schema change on a change-data-feed table");
      goto done;
    }
    /* the change rows are the input's, before generated and identity columns are filled */
    if ((log_generated_enabled(&c.protocol) && gen_schema_has(c.schema, false)) ||
        (log_identity_enabled(&c.protocol) && gen_schema_has(c.schema, true))) {
      rc = err_set(DELTA_EUNSUPPORTED, "--replace-where on a change-data-feed table with generated or "
                           "identity columns is not supported yet");
      goto done;
    }
    if ((rc = replace_where_cdc_new(&cdc, c.snap, data ? &c.in_schema : NULL))) goto done;
  }
  if (data) {
    if ((rc = data_writer_new(&dw, &dc, &c.in_schema))) goto done;
    for (;;) {
      if ((rc = data->get_next(data, &batch))) {
        const char *e = data->get_last_error(data);
        rc = err_set(rc < 0 ? rc : input_errno_code(rc), "input: %s", e ? e : "read failed");
        goto done;
      }
      if (!batch.release) break;
      /* on failure, done: releases the batch */
      if (where && (rc = replace_where_check(where, &batch, opts->replace_where)) != 0)
        goto done;
      if ((rc = data_writer_write(dw, &batch)) != 0)
        goto done;
      if (cdc && (rc = replace_where_cdc_insert(cdc, &batch)) != 0)
        goto done;
      batch.release(&batch);
    }
  }

  /* identity values given: the new high-water marks go into the metaData */
  bool hwm_moved = false;
  if (dw && (rc = data_writer_update_schema(dw, c.schema, &hwm_moved))) goto done;
  if (hwm_moved) {
    if ((rc = schema_string(&c))) goto done;
    c.new_metadata = true;
  }
  dc.protocol = NULL; /* replace-where's copies of rows that stay: the table's own values */

  /* actions after commitInfo: protocol, metaData, txn, removes, adds */
  delta_json_writer w;
  if (c.new_protocol) {
    json_writer_init(&w, &c.actions, 0);
    if ((rc = line(&c, action_protocol_json(&w, &c.protocol), &w))) goto done;
  }
  if (c.new_metadata) {
    json_writer_init(&w, &c.actions, 0);
    if ((rc = line(&c, action_metadata_json(&w, &c.meta), &w))) goto done;
  }
  if (c.cluster_conf.len) {
    delta_domain_metadata d = {CLUSTERING_DOMAIN, (const char *)c.cluster_conf.data, false};
    json_writer_init(&w, &c.actions, 0);
    if ((rc = line(&c, action_domain_json(&w, &d), &w))) goto done;
  }
  int64_t now = write_now_ms();
  if (opts->app_id) {
    delta_txn t = {opts->app_id, opts->app_version, true, now};
    json_writer_init(&w, &c.actions, 0);
    if ((rc = line(&c, action_txn_json(&w, &t), &w))) goto done;
  }
  int64_t removed_rows = 0, removed_bytes = 0;
  if (opts->replace_where && c.snap) {
    if ((rc = replace_where_apply(c.snap, opts->replace_where, &dc, now, cdc, &c.actions, &rw))) goto done;
    removed = rw.removed;
    rw.removed = NULL;
    n_removed = rw.n_removed;
    removed_bytes = rw.removed_bytes;
    removed_rows = rw.rows_deleted;
  } else if (opts->mode == DELTA_WRITE_OVERWRITE && c.snap) {
    removed = mem_calloc((size_t)c.snap->n_files + 1, sizeof *removed);
    if (!removed) {
      rc = DELTA_NOMEM();
      goto done;
    }
    for (int64_t i = 0; i < c.snap->n_files; i++) {
      const delta_add *a = &c.snap->files[i];
      json_writer_init(&w, &c.actions, 0);
      if ((rc = line(&c, action_remove_of_add_json(&w, a, now, true), &w))) goto done;
      removed[n_removed++] = a->path;
      if (a->num_records > 0) removed_rows += a->num_records;
      removed_bytes += a->size;
    }
  }
  if (dw && (rc = data_writer_finish(dw, &c.actions))) goto done;
  if (cdc && (rc = replace_where_cdc_finish(cdc, &c.actions, &cdc_files))) goto done;

  /* commit */
  const char *mode_name = opts->mode == DELTA_WRITE_OVERWRITE ? "Overwrite" : opts->mode == DELTA_WRITE_CREATE ? "ErrorIfExists" : "Append";
  if ((rc = params_json(&c, &params, mode_name))) goto done;
  int64_t files = dw ? data_writer_files(dw) : 0, rows = dw ? data_writer_rows(dw) : 0,
          bytes = dw ? data_writer_bytes(dw) : 0;
  if ((rc = buf_printf(&metrics, "{\"numFiles\":\"%lld\",\"numOutputRows\":\"%lld\",\"numOutputBytes\":\"%lld\"",
                       (long long)files, (long long)rows, (long long)bytes)) != 0)
    goto done;
  if (n_removed &&
      (rc = buf_printf(&metrics, ",\"numRemovedFiles\":\"%lld\",\"numRemovedBytes\":\"%lld\"", (long long)n_removed,
                       (long long)removed_bytes)) != 0)
    goto done;
  if (opts->replace_where &&
      (rc = buf_printf(&metrics, ",\"numDeletedRows\":\"%lld\",\"numCopiedRows\":\"%lld\"", (long long)removed_rows,
                       (long long)rw.rows_copied)) != 0)
    goto done;
  if (cdc && (rc = buf_printf(&metrics, ",\"numAddedChangeFiles\":\"%lld\"", (long long)cdc_files)) != 0)
    goto done;
  if ((rc = buf_puts(&metrics, "}")) != 0)
    goto done;
  if ((rc = buf_putc(&params, 0)) != 0)
    goto done;
  if ((rc = buf_putc(&metrics, 0)) != 0)
    goto done;
  if ((rc = commit_write(&c, (const char *)params.data, (const char *)metrics.data, removed, n_removed,
                         data != NULL && c.snap == NULL, opts->replace_where && rw.rows_copied > 0, result)))
    goto done;
  if (!result->skipped) {
    result->files_added = files;
    result->files_removed = n_removed;
    result->rows_written = rows;
    result->bytes_written = bytes;
  }
done:
  if (batch.release) batch.release(&batch);
  if (data && data->release) data->release(data);
  data_writer_free(dw);
  replace_where_cdc_free(cdc);
  expr_free(where);
  mem_free(rw.removed);
  mem_free(removed);
  buf_dispose(&params);
  buf_dispose(&metrics);
  buf_dispose(&c.actions);
  buf_dispose(&c.tmp);
  buf_dispose(&c.cluster_conf);
  if (c.in_schema.release) c.in_schema.release(&c.in_schema);
  log_type_free(c.in_type);
  log_type_free(c.schema);
  log_arena_dispose(&c.arena);
  delta_snapshot_free(c.snap);
  return rc;
}
