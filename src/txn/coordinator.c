/* The storage coordinator; see coordinator.h. */
#include "txn/coordinator.h"

#include <string.h>

#include "log/log_files.h"
#include "storage/storage_internal.h"

/* "_delta_log/" + 20 digits + ".json" */
static void commit_key(int64_t version, char key[40]) {
  memcpy(key, "_delta_log/", 11);
  log_commit_name(version, key + 11);
}

static int storage_publish(void *self, int64_t version, const void *bytes, size_t len) {
  char key[40];
  commit_key(version, key);
  return delta_storage_put(self, key, bytes, len, false);
}

static int storage_read(void *self, int64_t version, delta_buf *out) {
  char key[40];
  commit_key(version, key);
  buf_reset(out);
  return storage_read_all(self, key, out);
}

txn_coordinator txn_coordinator_storage(delta_storage *storage) {
  txn_coordinator c = {storage_publish, storage_read, storage};
  return c;
}
