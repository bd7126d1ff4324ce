/* Protocol versions and table features: what deltac can read. */
#include <string.h>

#include "log/features.h"
#include "log/snapshot.h"
#include "util/buf.h"
#include "util/error_internal.h"

const char *const delta_supported_reader_features[] = {
    "columnMapping", "deletionVectors", "timestampNtz", "v2Checkpoint", "typeWidening",
    "typeWidening-preview", "vacuumProtocolCheck", "variantType", "variantType-preview", NULL};

/* Writer features whose meaning deltac knows (reading never needs them). */
const char *const delta_known_writer_features[] = {
    "appendOnly", "invariants", "checkConstraints", "generatedColumns", "allowColumnDefaults",
    "changeDataFeed", "columnMapping", "identityColumns", "deletionVectors", "rowTracking",
    "timestampNtz", "domainMetadata", "v2Checkpoint", "icebergCompatV1", "icebergCompatV2",
    "clustering", "vacuumProtocolCheck", "inCommitTimestamp", "typeWidening", "typeWidening-preview",
    "variantType", "variantType-preview", NULL};

static bool supported(const char *f) {
  for (int i = 0; delta_supported_reader_features[i]; i++)
    if (strcmp(f, delta_supported_reader_features[i]) == 0) return true;
  return false;
}

int snapshot_protocol_check_read(const delta_protocol *p) {
  if (p->min_reader_version > 3)
    return err_set(DELTA_EUNSUPPORTED,
                           "the table needs reader version %d; deltac reads versions 1 to 3",
                           (int)p->min_reader_version);
  if (p->min_reader_version < 3) return 0; /* 1: plain, 2: column mapping: both readable */
  delta_buf missing = DELTA_BUF_INIT;
  int n = 0;
  for (int i = 0; i < p->n_reader_features; i++) {
    if (supported(p->reader_features[i])) continue;
    buf_puts(&missing, n++ ? ", " : "");
    buf_puts(&missing, p->reader_features[i]);
  }
  int rc = 0;
  if (n) {
    buf_putc(&missing, '\0');
    rc = err_set(DELTA_EUNSUPPORTED, "the table needs reader feature%s deltac does not support: %s",
                         n > 1 ? "s" : "", missing.data ? (const char *)missing.data : "?");
  }
  buf_dispose(&missing);
  return rc;
}

static bool has_writer_feature(const delta_protocol *p, const char *name) {
  for (int i = 0; i < p->n_writer_features; i++)
    if (strcmp(p->writer_features[i], name) == 0) return true;
  return false;
}

bool log_generated_enabled(const delta_protocol *p) {
  if (!p) return false;
  if (p->min_writer_version == 7) return has_writer_feature(p, "generatedColumns");
  return p->min_writer_version >= 4;
}

bool log_identity_enabled(const delta_protocol *p) {
  if (!p) return false;
  if (p->min_writer_version == 7) return has_writer_feature(p, "identityColumns");
  return p->min_writer_version == 6;
}
