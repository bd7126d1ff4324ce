/* Reading version checksum files and checking a snapshot against one. */
#include "log/crc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "deltac/error.h"
#include "json/json.h"
#include "log/action_json.h"
#include "log/snapshot.h"
#include "storage/storage_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

/* A checksum with allFiles lists every live file; beyond this it is not
 * worth reading for a cross-check. */
#define CRC_MAX_BYTES (64u << 20)

static const log_entry *find_crc(const log_listing *l, int64_t version) {
  for (int i = 0; i < l->n; i++)
    if (l->entries[i].info.kind == LOG_CRC && l->entries[i].info.version == version) return &l->entries[i];
  return NULL;
}

static bool opt_int(delta_json_val o, const char *key, int64_t *out, int *rc) {
  delta_json_val v = json_get(o, key);
  if (!json_present(v) || json_typeof(v) == DELTA_JSON_NULL || *rc) return false;
  *rc = json_int64(v, out);
  if (*rc) err_prefix("%s", key);
  return *rc == 0;
}

static void req_int(delta_json_val o, const char *key, int64_t *out, int *rc) {
  if (!opt_int(o, key, out, rc) && !*rc) *rc = err_set(DELTA_ECORRUPT, "%s is missing", key);
}

int log_crc_parse(const char *name, const char *text, size_t len, delta_arena *arena, log_crc *out) {
  memset(out, 0, sizeof *out);
  delta_json_doc *doc = NULL;
  int rc;
  if ((rc = json_doc_new(&doc)) != 0) goto done;
  if ((rc = json_parse(doc, text, len)) != 0) goto done;
  {
    delta_json_val root = json_root(doc);
    if (json_typeof(root) != DELTA_JSON_OBJECT) rc = err_set(DELTA_ECORRUPT, "not a JSON object");
    req_int(root, "tableSizeBytes", &out->table_size_bytes, &rc);
    req_int(root, "numFiles", &out->num_files, &rc);
    req_int(root, "numMetadata", &out->num_metadata, &rc);
    req_int(root, "numProtocol", &out->num_protocol, &rc);
    out->has_ict = opt_int(root, "inCommitTimestampOpt", &out->ict_ms, &rc);
    out->has_deleted_records = opt_int(root, "numDeletedRecordsOpt", &out->num_deleted_records, &rc);
    out->has_dvs = opt_int(root, "numDeletionVectorsOpt", &out->num_dvs, &rc);
    if (rc) goto done; /* the field readers above keep the first error in rc */
    delta_action a;
    delta_json_val m = json_get(root, "metadata");
    if (json_typeof(m) == DELTA_JSON_OBJECT) {
      if ((rc = log_action_parse_object("metaData", m, arena, &a)) != 0) goto done;
      out->metadata = a.u.metadata, out->has_metadata = true;
    }
    delta_json_val p = json_get(root, "protocol");
    if (json_typeof(p) == DELTA_JSON_OBJECT) {
      if ((rc = log_action_parse_object("protocol", p, arena, &a)) != 0) goto done;
      out->protocol = a.u.protocol, out->has_protocol = true;
    }
  }
done:
  if (rc) err_prefix("%s", name);
  json_doc_free(doc);
  return rc;
}

int log_crc_read(delta_storage *s, const log_listing *l, int64_t version, delta_arena *arena, log_crc *out) {
  memset(out, 0, sizeof *out);
  const log_entry *e = find_crc(l, version);
  if (!e) return err_set(DELTA_ENOTFOUND, "version %lld has no checksum file", (long long)version);
  if (e->size > CRC_MAX_BYTES) return err_set(DELTA_ELIMIT, "%s: over %u bytes", e->name, CRC_MAX_BYTES);
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%s", e->name);
  delta_buf text = DELTA_BUF_INIT;
  int rc = storage_read_all(s, key, &text);
  if (rc) err_prefix("%s", e->name);
  else rc = log_crc_parse(e->name, (const char *)text.data, text.len, arena, out);
  buf_dispose(&text);
  return rc;
}

static bool same_features(const char **a, int na, const char **b, int nb) {
  if (na != nb) return false;
  for (int i = 0; i < na; i++) {
    bool found = false;
    for (int j = 0; j < nb && !found; j++) found = strcmp(a[i], b[j]) == 0;
    if (!found) return false;
  }
  return true;
}

void log_crc_totals(const struct delta_snapshot *s, int64_t *bytes, int64_t *dvs, int64_t *deleted) {
  *bytes = *dvs = *deleted = 0;
  for (int64_t i = 0; i < s->n_files; i++) {
    *bytes += s->files[i].size;
    if (s->files[i].dv.present) {
      (*dvs)++;
      *deleted += s->files[i].dv.cardinality;
    }
  }
}

int log_crc_verify(const delta_snapshot *s, log_crc_check *out) {
  memset(out, 0, sizeof *out);
  const log_entry *e = find_crc(&s->listing, s->version);
  if (!e) {
    out->status = LOG_CRC_ABSENT;
    return 0;
  }
  snprintf(out->file, sizeof out->file, "%s", e->name);
  delta_arena arena = {0};
  log_crc c;
  int rc = log_crc_read(s->table->storage, &s->listing, s->version, &arena, &c);
  if (rc) {
    if (rc == DELTA_ENOMEM) {
      log_arena_dispose(&arena);
      return rc;
    }
    out->status = LOG_CRC_UNREADABLE;
    snprintf(out->detail, sizeof out->detail, "%s", delta_error_last());
    delta_error_clear();
    log_arena_dispose(&arena);
    return 0;
  }
  int64_t bytes, deleted, dvs;
  log_crc_totals(s, &bytes, &dvs, &deleted);
  char *d = out->detail;
  size_t cap = sizeof out->detail;
  if (c.num_files != s->n_files)
    snprintf(d, cap, "numFiles is %" PRId64 " in the checksum, %" PRId64 " replayed", c.num_files, s->n_files);
  else if (c.table_size_bytes != bytes)
    snprintf(d, cap, "tableSizeBytes is %" PRId64 " in the checksum, %" PRId64 " replayed", c.table_size_bytes,
             bytes);
  else if (c.has_dvs && c.num_dvs != dvs)
    snprintf(d, cap, "numDeletionVectorsOpt is %" PRId64 " in the checksum, %" PRId64 " replayed", c.num_dvs, dvs);
  else if (c.has_deleted_records && c.num_deleted_records != deleted)
    snprintf(d, cap, "numDeletedRecordsOpt is %" PRId64 " in the checksum, %" PRId64 " replayed",
             c.num_deleted_records, deleted);
  else if (c.has_metadata && s->metadata.id && c.metadata.id && strcmp(c.metadata.id, s->metadata.id) != 0)
    snprintf(d, cap, "metadata id is %s in the checksum, %s replayed", c.metadata.id, s->metadata.id);
  else if (c.has_protocol && (c.protocol.min_reader_version != s->protocol.min_reader_version ||
                              c.protocol.min_writer_version != s->protocol.min_writer_version ||
                              !same_features(c.protocol.reader_features, c.protocol.n_reader_features,
                                             s->protocol.reader_features, s->protocol.n_reader_features) ||
                              !same_features(c.protocol.writer_features, c.protocol.n_writer_features,
                                             s->protocol.writer_features, s->protocol.n_writer_features)))
    snprintf(d, cap, "the protocol differs from the replayed one");
  out->status = d[0] ? LOG_CRC_MISMATCH : LOG_CRC_VERIFIED;
  log_arena_dispose(&arena);
  return 0;
}
