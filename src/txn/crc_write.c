/* Writing version checksum files; see crc_write.h. */
#include "txn/crc_write.h"

#include <stdio.h>
#include <string.h>

#include "deltac/error.h"
#include "json/json.h"
#include "json/json_writer.h"
#include "log/action_write.h"
#include "log/crc.h"
#include "log/log_files.h"
#include "storage/storage_internal.h"

enum { INNER_METADATA, INNER_PROTOCOL, INNER_TXN, INNER_DOMAIN };

/* Write the object inside an action ({"metaData":{...}} -> {...}), reusing
 * the commit writers so a checksum says exactly what a commit would. */
static int write_inner(delta_json_writer *w, int kind, const void *x) {
  delta_buf tmp = DELTA_BUF_INIT;
  delta_json_writer aw;
  json_writer_init(&aw, &tmp, 0);
  delta_json_doc *doc = NULL;
  int rc = kind == INNER_METADATA ? action_metadata_json(&aw, x)
           : kind == INNER_PROTOCOL ? action_protocol_json(&aw, x)
           : kind == INNER_TXN      ? action_txn_json(&aw, x)
                                    : action_domain_json(&aw, x);
  if (rc) goto done;
  if ((rc = json_writer_finish(&aw)) != 0)
    goto done;
  if ((rc = json_doc_new(&doc)) != 0)
    goto done;
  if ((rc = json_parse(doc, (const char *)tmp.data, tmp.len)) != 0)
    goto done;
  const char *p;
  size_t n;
  json_raw(json_first(json_root(doc)), &p, &n);
  rc = json_write_raw(w, p, n);
done:
  json_doc_free(doc);
  buf_dispose(&tmp);
  return rc;
}

int crc_render(const delta_snapshot *s, delta_buf *out) {
  int64_t bytes, dvs, deleted;
  log_crc_totals(s, &bytes, &dvs, &deleted);
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "tableSizeBytes");
  json_write_int64(&w, bytes);
  json_write_key(&w, "numFiles");
  json_write_int64(&w, s->n_files);
  json_write_key(&w, "numMetadata");
  json_write_int64(&w, 1);
  json_write_key(&w, "numProtocol");
  json_write_int64(&w, 1);
  if (s->ict_enabled) {
    json_write_key(&w, "inCommitTimestampOpt");
    json_write_int64(&w, s->timestamp_ms);
  }
  int rc = 0;
  json_write_key(&w, "setTransactions");
  json_write_array_begin(&w);
  for (int i = 0; !rc && i < s->n_txns; i++) rc = write_inner(&w, INNER_TXN, &s->txns[i]);
  json_write_array_end(&w);
  json_write_key(&w, "domainMetadata");
  json_write_array_begin(&w);
  for (int i = 0; !rc && i < s->n_domains; i++) rc = write_inner(&w, INNER_DOMAIN, &s->domains[i]);
  json_write_array_end(&w);
  json_write_key(&w, "metadata");
  if (!rc) rc = write_inner(&w, INNER_METADATA, &s->metadata);
  json_write_key(&w, "protocol");
  if (!rc) rc = write_inner(&w, INNER_PROTOCOL, &s->protocol);
  json_write_key(&w, "numDeletedRecordsOpt");
  json_write_int64(&w, deleted);
  json_write_key(&w, "numDeletionVectorsOpt");
  json_write_int64(&w, dvs);
  json_write_object_end(&w);
  int frc = json_writer_finish(&w);
  return rc ? rc : frc;
}

void crc_write_after_commit(delta_table *table, const delta_snapshot *read, int64_t version) {
  delta_snapshot *s = NULL;
  delta_buf text = DELTA_BUF_INIT;
  int rc;
  if (read) {
    rc = delta_snapshot_update(&s, read);
  } else {
    delta_snapshot_options o = DELTA_SNAPSHOT_OPTIONS_INIT;
    o.at_version = true;
    o.table_version = version;
    rc = table ? delta_snapshot_open(&s, table, &o) : DELTA_EINVAL;
  }
  if (rc || s->version != version)
    goto done;
  if ((rc = crc_render(s, &text)) != 0)
    goto done;
  char key[48] = "_delta_log/";
  snprintf(key + 11, sizeof key - 11, "%020lld.crc", (long long)version);
  (void)delta_storage_put(s->table->storage, key, text.data, text.len, false);
done:
  buf_dispose(&text);
  delta_snapshot_free(s);
  delta_error_clear();
}
