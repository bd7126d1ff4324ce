/* Protocol and properties for writes; see table_setup.h. */
#include "log/table_setup.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/error_internal.h"
#include "log/table_constraints.h"

static bool is_bool(const char *v) { return strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0; }

int table_check_properties(const char *const *keys, const char *const *values, int n) {
  static const char *const booleans[] = {"delta.enableChangeDataFeed", "delta.enableDeletionVectors",
                                         "delta.enableInCommitTimestamps", "delta.appendOnly",
                                         "delta.checkpoint.writeStatsAsJson", "delta.enableExpiredLogCleanup",
                                         "delta.checkpoint.writeStatsAsStruct", "delta.enableRowTracking", NULL};
  static const char *const free_form[] = {"delta.logRetentionDuration", "delta.deletedFileRetentionDuration",
                                          "delta.dataSkippingNumIndexedCols", "delta.parquet.compression.codec",
                                          "delta.targetFileSize", NULL};
  for (int i = 0; i < n; i++) {
    const char *k = keys[i], *v = values[i];
    if (strncmp(k, "delta.", 6) != 0) continue; /* user properties are kept as they are */
    bool known = false;
    for (int b = 0; booleans[b]; b++)
      if (strcmp(k, booleans[b]) == 0) {
        known = true;
        if (!is_bool(v)) return err_set(DELTA_EINVAL, "property %s must be true or false, not '%s'", k, v);
      }
    for (int f = 0; free_form[f]; f++) known |= strcmp(k, free_form[f]) == 0;
    if (strcmp(k, "delta.columnMapping.mode") == 0) {
      known = true;
      if (strcmp(v, "none") && strcmp(v, "name") && strcmp(v, "id"))
        return err_set(DELTA_EINVAL, "property %s must be none, name or id, not '%s'", k, v);
    }
    if (strcmp(k, "delta.checkpointPolicy") == 0) {
      known = true;
      if (strcmp(v, "classic") && strcmp(v, "v2"))
        return err_set(DELTA_EINVAL, "property %s must be classic or v2, not '%s'", k, v);
    }
    if (strcmp(k, "delta.checkpointInterval") == 0) {
      known = true;
      char *end;
      long x = strtol(v, &end, 10);
      if (*v == 0 || *end || x <= 0) return err_set(DELTA_EINVAL, "property %s must be a positive integer", k);
    }
    if (strcmp(k, "delta.enableTypeWidening") == 0 ||
        strncmp(k, "delta.enableIcebergCompat", 25) == 0)
      return err_set(DELTA_EUNSUPPORTED, "property %s: deltac cannot write tables that use it yet", k);
    if (strncmp(k, CONSTRAINT_PREFIX, strlen(CONSTRAINT_PREFIX)) == 0) {
      /* the expression is checked against the schema when the table is set up */
      known = true;
      if (!k[strlen(CONSTRAINT_PREFIX)]) return err_set(DELTA_EINVAL, "property %s: a constraint needs a name", k);
    }
    if (!known) return err_set(DELTA_EINVAL, "unknown table property %s", k);
  }
  return 0;
}

const char *table_prop(const delta_kv *kv, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (strcmp(kv[i].key, key) == 0) return kv[i].value;
  return NULL;
}

bool table_prop_true(const delta_kv *kv, int n, const char *key) {
  const char *v = table_prop(kv, n, key);
  return v && strcasecmp(v, "true") == 0;
}

cm_mode table_cm_mode(const delta_kv *kv, int n) {
  const char *v = table_prop(kv, n, "delta.columnMapping.mode");
  if (v && strcmp(v, "name") == 0) return CM_NAME;
  if (v && strcmp(v, "id") == 0) return CM_ID;
  return CM_NONE;
}

static bool uses_kind(const delta_type *t, delta_type_kind k) {
  if (!t) return false;
  if (t->kind == k) return true;
  for (int i = 0; i < t->n_fields; i++)
    if (uses_kind(t->fields[i].type, k)) return true;
  return uses_kind(t->element, k) || uses_kind(t->key, k) || uses_kind(t->value, k);
}

static bool has_not_null(const delta_type *t) {
  for (int i = 0; t && i < t->n_fields; i++)
    if (!t->fields[i].nullable || has_not_null(t->fields[i].type)) return true;
  return false;
}

static bool has_generated(const delta_type *t, bool identity) {
  if (!t) return false;
  for (int i = 0; i < t->n_fields; i++)
    if ((identity ? t->fields[i].is_identity : t->fields[i].generation_expression != NULL) ||
        has_generated(t->fields[i].type, identity))
      return true;
  return false;
}

int table_derive_protocol(const delta_type *schema, const delta_kv *config, int n_config, delta_arena *arena,
                          delta_protocol *out) {
  return table_derive_protocol_ex(schema, config, n_config, false, arena, out);
}

int table_derive_protocol_ex(const delta_type *schema, const delta_kv *config, int n_config, bool clustered,
                             delta_arena *arena, delta_protocol *out) {
  memset(out, 0, sizeof *out);
  bool append_only = table_prop_true(config, n_config, "delta.appendOnly");
  bool cdf = table_prop_true(config, n_config, "delta.enableChangeDataFeed");
  bool cm = table_cm_mode(config, n_config) != CM_NONE;
  bool dv = table_prop_true(config, n_config, "delta.enableDeletionVectors");
  bool ict = table_prop_true(config, n_config, "delta.enableInCommitTimestamps");
  bool ntz = uses_kind(schema, DT_TIMESTAMP_NTZ);
  bool rows = table_prop_true(config, n_config, "delta.enableRowTracking");
  bool checks = constraints_any(config, n_config);
  const char *policy = table_prop(config, n_config, "delta.checkpointPolicy");
  bool v2 = policy && strcmp(policy, "v2") == 0;
  /* writer 3 is where the checkpoint stats properties start to bind */
  bool stats_props = table_prop(config, n_config, "delta.checkpoint.writeStatsAsJson") ||
                     table_prop(config, n_config, "delta.checkpoint.writeStatsAsStruct");
  /* legacy versions while they suffice (every reader knows them) */
  int reader = cm ? 2 : 1;
  bool gen = has_generated(schema, false), ident = has_generated(schema, true);
  int writer = ident ? 6 : cm ? 5 : cdf || gen ? 4 : checks || stats_props ? 3 : 2;
  (void)append_only; /* writer 2 covers appendOnly */
  if (!dv && !ict && !ntz && !v2 && !rows && !clustered) {
    out->min_reader_version = reader;
    out->min_writer_version = writer;
    return 0;
  }
  /* table features: list exactly what is used */
  const char **rf = log_arena_alloc(arena, 10 * sizeof *rf), **wf = log_arena_alloc(arena, 16 * sizeof *wf);
  if (!rf || !wf) return DELTA_NOMEM();
  int nr = 0, nw = 0;
  if (append_only) wf[nw++] = "appendOnly";
  if (has_not_null(schema)) wf[nw++] = "invariants"; /* NOT NULL columns are invariants to Spark */
  if (checks) wf[nw++] = "checkConstraints";
  if (cdf) wf[nw++] = "changeDataFeed";
  if (gen) wf[nw++] = "generatedColumns";
  if (ident) wf[nw++] = "identityColumns";
  if (cm) wf[nw++] = "columnMapping", rf[nr++] = "columnMapping";
  if (dv) wf[nw++] = "deletionVectors", rf[nr++] = "deletionVectors";
  if (ict) wf[nw++] = "inCommitTimestamp";
  if (ntz) wf[nw++] = "timestampNtz", rf[nr++] = "timestampNtz";
  if (v2) wf[nw++] = "v2Checkpoint", rf[nr++] = "v2Checkpoint";
  /* the row-id high-water mark and the clustering columns are domains */
  if (rows || clustered) wf[nw++] = "domainMetadata";
  if (rows) wf[nw++] = "rowTracking";
  if (clustered) wf[nw++] = "clustering";
  out->min_writer_version = 7;
  out->writer_features = wf;
  out->n_writer_features = nw;
  out->has_writer_features = true;
  /* reader features need reader 3; column mapping alone is reader 2 */
  bool need_r3 = dv || ntz || v2;
  if (need_r3) {
    out->min_reader_version = 3;
    out->reader_features = rf;
    out->n_reader_features = nr;
    out->has_reader_features = true;
  } else {
    out->min_reader_version = reader;
  }
  return 0;
}


int table_check_writable(const delta_protocol *p, const delta_metadata *m, const delta_type *schema) {
  static const char *const ok[] = {"appendOnly", "changeDataFeed", "columnMapping", "deletionVectors",
                                   "inCommitTimestamp", "timestampNtz", "domainMetadata", "vacuumProtocolCheck",
                                   "invariants", "checkConstraints", "generatedColumns", "identityColumns",
                                   "v2Checkpoint", "rowTracking", "clustering", NULL};
  if (p->min_writer_version > 7)
    return err_set(DELTA_EUNSUPPORTED, "table needs writer version %d; deltac writes up to 7",
                           p->min_writer_version);
  if (p->min_writer_version == 7)
    for (int i = 0; i < p->n_writer_features; i++) {
      bool known = false;
      for (int k = 0; ok[k]; k++) known |= strcmp(ok[k], p->writer_features[i]) == 0;
      if (!known && strcmp(p->writer_features[i], "liquid") == 0)
        return err_set(DELTA_EUNSUPPORTED, "table uses writer feature liquid (a Databricks preview of "
                                                   "clustering), which deltac does not write");
      if (!known)
        return err_set(DELTA_EUNSUPPORTED, "table uses writer feature %s, which deltac cannot write yet",
                               p->writer_features[i]);
    }
  /* generated and identity columns are computed and filled by the data
   * writer (gen_columns.h); only nested ones are out of reach */
  for (int i = 0; schema && i < schema->n_fields; i++)
    if (has_generated(schema->fields[i].type, false) || has_generated(schema->fields[i].type, true))
      return err_set(DELTA_EUNSUPPORTED, "column %s has a nested generated or identity column, which deltac "
                             "cannot fill", schema->fields[i].name);
  if (table_prop_true(m->configuration, m->n_configuration, "delta.enableRowTracking") &&
      (!table_prop(m->configuration, m->n_configuration, "delta.rowTracking.materializedRowIdColumnName") ||
       !table_prop(m->configuration, m->n_configuration, "delta.rowTracking.materializedRowCommitVersionColumnName")))
    return err_set(DELTA_ECORRUPT, "table enables row tracking without naming its materialized columns");
  return 0;
}

int64_t table_interval_ms(const char *v, int64_t default_ms) {
  if (!v) return default_ms;
  const char *p = v;
  while (isspace((unsigned char)*p)) p++;
  if (strncasecmp(p, "interval", 8) == 0) p += 8;
  char *end;
  double n = strtod(p, &end);
  while (isspace((unsigned char)*end)) end++;
  static const struct { const char *u; int64_t ms; } units[] = {
      {"week", 7LL * 86400000}, {"day", 86400000}, {"hour", 3600000}, {"minute", 60000}, {"second", 1000},
      {"millisecond", 1}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strncasecmp(end, units[i].u, strlen(units[i].u)) == 0) return (int64_t)(n * (double)units[i].ms);
  return default_ms;
}
