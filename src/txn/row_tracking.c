/* Row ids for commits; see row_tracking.h. */
#include "txn/row_tracking.h"

#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "json/json_writer.h"
#include "log/action_json.h"
#include "log/action_write.h"
#include "log/schema_build.h"
#include "log/snapshot.h"
#include "log/table_setup.h"
#include "txn/commit.h"
#include "util/error_internal.h"

bool row_tracking_supported(const delta_protocol *p) {
  for (int i = 0; i < p->n_writer_features; i++)
    if (strcmp(p->writer_features[i], "rowTracking") == 0) return true;
  return false;
}

bool row_tracking_enabled(const delta_protocol *p, const delta_metadata *m) {
  return row_tracking_supported(p) &&
         table_prop_true(m->configuration, m->n_configuration, "delta.enableRowTracking") &&
         !table_prop_true(m->configuration, m->n_configuration, "delta.rowTrackingSuspended");
}

int64_t row_tracking_hwm_of(const char *configuration) {
  int64_t v = -1;
  delta_json_doc *d = NULL;
  if (configuration && json_doc_new(&d) == 0 &&
      json_parse(d, configuration, strlen(configuration)) == 0) {
    /* Spark writes rowIdHighWaterMark; the spec's text says highWaterMark */
    delta_json_val root = json_root(d);
    if (json_int64(json_get(root, "rowIdHighWaterMark"), &v) != 0 &&
        json_int64(json_get(root, "highWaterMark"), &v) != 0)
      v = -1;
  }
  json_doc_free(d);
  return v;
}

int64_t row_tracking_hwm(const delta_domain_metadata *domains, int n) {
  for (int i = 0; i < n; i++)
    if (!domains[i].removed && strcmp(domains[i].domain, ROW_TRACKING_DOMAIN) == 0)
      return row_tracking_hwm_of(domains[i].configuration);
  return -1;
}

typedef struct {
  delta_add add;
  bool got;
} one_add;

static int take_add(const delta_action *a, void *payload) {
  one_add *o = payload;
  if (a->kind == DELTA_ACTION_ADD) {
    o->add = a->u.add;
    o->got = true;
  }
  return 0;
}

static int stamp_add(const char *line, size_t len, int64_t version, int64_t *hwm, delta_buf *out) {
  delta_arena arena = DELTA_ARENA_INIT;
  delta_json_doc *doc = NULL;
  one_add o = {0};
  int rc;
  if ((rc = json_doc_new(&doc)) != 0)
    goto done;
  if ((rc = log_actions_parse_json("commit", line, len, &arena, doc, take_add, &o)) != 0)
    goto done;
  if (!o.got) {
    rc = err_set(DELTA_EINVAL, "internal: an add line without an add");
    goto done;
  }
  if (!o.add.has_base_row_id) {
    if (o.add.num_records < 0) {
      rc = err_set(DELTA_EINVAL, "row tracking: file %s has no numRecords to assign row ids for",
                           o.add.path);
      goto done;
    }
    o.add.has_base_row_id = true;
    o.add.base_row_id = *hwm + 1;
    /* an empty file still gets a (zero-width) base above the mark */
    if (o.add.num_records > 0) *hwm += o.add.num_records;
  }
  if (!o.add.has_default_row_commit_version) {
    o.add.has_default_row_commit_version = true;
    o.add.default_row_commit_version = version;
  }
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  if ((rc = action_add_json(&w, &o.add, o.add.data_change)) != 0)
    goto done;
  if ((rc = json_writer_finish(&w)) != 0)
    goto done;
  rc = buf_putc(out, '\n');
done:
  json_doc_free(doc);
  log_arena_dispose(&arena);
  return rc;
}

int row_tracking_stamp(const char *actions, size_t len, int64_t version, int64_t *hwm, delta_buf *out) {
  static const char add_head[] = "{\"add\":";
  const char *p = actions, *end = actions + len;
  int64_t start = *hwm;
  int rc;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (n >= sizeof add_head - 1 && memcmp(p, add_head, sizeof add_head - 1) == 0) {
      if ((rc = stamp_add(p, n, version, hwm, out)) != 0) return rc;
    } else if (n) {
      if ((rc = buf_append(out, p, n)) != 0) return rc;
      if ((rc = buf_putc(out, '\n')) != 0) return rc;
    }
    p += n + 1;
  }
  if (*hwm != start) {
    char conf[64];
    snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld,\"domainName\":\"%s\"}", (long long)*hwm,
             ROW_TRACKING_DOMAIN);
    delta_domain_metadata d = {ROW_TRACKING_DOMAIN, conf, false};
    delta_json_writer w;
    json_writer_init(&w, out, 0);
    if ((rc = action_domain_json(&w, &d)) != 0) return rc;
    if ((rc = json_writer_finish(&w)) != 0) return rc;
    if ((rc = buf_putc(out, '\n')) != 0) return rc;
  }
  return 0;
}

int row_tracking_write_schema(const delta_type *table, const delta_metadata *m, delta_type **out) {
  *out = NULL;
  const char *idc = table_prop(m->configuration, m->n_configuration, ROW_TRACKING_ID_COL_KEY);
  const char *vc = table_prop(m->configuration, m->n_configuration, ROW_TRACKING_VERSION_COL_KEY);
  if (!idc || !vc)
    return err_set(DELTA_ECORRUPT, "row tracking is on but the materialized column names are not set");
  delta_buf j = DELTA_BUF_INIT;
  int rc;
  if ((rc = schema_to_json(table, &j)) != 0)
    goto done;
  if (j.len < 2 || memcmp(j.data + j.len - 2, "]}", 2) != 0) {
    rc = err_set(DELTA_EINVAL, "unexpected schema JSON");
    goto done;
  }
  j.len -= 2;
  const char *names[2] = {idc, vc};
  for (int k = 0; k < 2; k++) {
    if ((rc = buf_puts(&j, table->n_fields || k ? ",{\"name\":" : "{\"name\":")) != 0)
      goto done;
    if ((rc = json_append_string(&j, names[k], strlen(names[k]))) != 0)
      goto done;
    if ((rc = buf_puts(&j, ",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}")) != 0)
      goto done;
  }
  if ((rc = buf_puts(&j, "]}")) != 0)
    goto done;
  rc = log_schema_parse((const char *)j.data, j.len, out);
done:
  buf_dispose(&j);
  return rc;
}

void row_tracking_new_column_names(char id_col[64], char version_col[64]) {
  char u1[37], u2[37];
  write_uuid(u1);
  write_uuid(u2);
  snprintf(id_col, 64, "_row-id-col-%s", u1);
  snprintf(version_col, 64, "_row-commit-version-col-%s", u2);
}

int64_t row_tracking_snapshot_hwm(const struct delta_snapshot *s) {
  int64_t h = row_tracking_hwm(s->domains, s->n_domains);
  /* the domain must cover every live file's ids; should a writer have left
   * it behind, the files still keep new ids from colliding with theirs */
  for (int64_t i = 0; i < s->n_files; i++) {
    const delta_add *a = &s->files[i];
    if (a->has_base_row_id && a->num_records > 0 && a->base_row_id + a->num_records - 1 > h)
      h = a->base_row_id + a->num_records - 1;
  }
  return h;
}

void commit_row_tracking_from(commit_request *req, const struct delta_snapshot *s) {
  req->row_tracking = row_tracking_supported(&s->protocol);
  req->row_id_high_water_mark = req->row_tracking ? row_tracking_snapshot_hwm(s) : -1;
  req->row_tracking_enabled = row_tracking_enabled(&s->protocol, &s->metadata);
}
