/*
 * The commit coordinator: who decides that a commit is version N. Delta's
 * optimistic concurrency needs one primitive, "publish version N with
 * these bytes unless N exists", and, after a lost race, the winner's bytes
 * to check against. Today the only coordinator is put-if-absent of
 * _delta_log/<N>.json on the table's storage (txn_coordinator_storage);
 * an object store without put-if-absent, or a catalog that owns the
 * commits (catalog-managed tables), plugs in here without any operation
 * knowing.
 */
#ifndef DELTAC_TXN_COORDINATOR_H
#define DELTAC_TXN_COORDINATOR_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "util/buf.h"

typedef struct txn_coordinator {
  /* Make `bytes` version `version`: 0, DELTA_EEXISTS when another commit
   * already is that version (the race is lost; nothing was written), or
   * another error. */
  int (*publish)(void *self, int64_t version, const void *bytes, size_t len);
  /* The bytes of commit `version` (a winner), into out (reset first). */
  int (*read)(void *self, int64_t version, delta_buf *out);
  void *self;
} txn_coordinator;

/* Put-if-absent of _delta_log/<version>.json on `storage` (borrowed). */
txn_coordinator txn_coordinator_storage(delta_storage *storage);

#endif
