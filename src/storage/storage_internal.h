/*
 * Storage inside the library: the delta_buf forms of the operations that the
 * protocol layer (log replay, checkpoints, the Parquet reader) uses, and the
 * seam between the dispatcher (storage.c) and the local back end (local.c).
 * The full contract is in include/deltac/storage.h.
 */
#ifndef DELTAC_STORAGE_INTERNAL_H
#define DELTAC_STORAGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "util/buf.h"

/* Append the whole file `key` to `out`. The size is checked against out's
 * limit before anything is read (DELTA_ELIMIT, message naming the key).
 * DELTA_ENOTFOUND when missing. On failure out->len is restored. */
int storage_read_all(delta_storage *storage, const char *key, delta_buf *out);

/* Append bytes [offset, offset + len) of `key` to `out`; fewer only when the
 * file ends first (check out->len when exact bytes are needed). offset past
 * the end is DELTA_EINVAL. On failure out->len is restored. */
int storage_read_range(delta_storage *storage, const char *key, uint64_t offset,
                             uint64_t len, delta_buf *out);

/* Append the local filesystem path of `key` to `out`, followed by a NUL that
 * is not counted in out->len, so (char *)out->data + old_len is a C string
 * to open()/mmap(). DELTA_EUNSUPPORTED when the back end is not local. */
int storage_local_path(delta_storage *storage, const char *key, delta_buf *out);

/* For back ends: the delta_buf behind `sink` when it is one of the library's
 * own buffer sinks (so a back end may read straight into it after `expect`
 * reserved the room), else NULL. */
delta_buf *storage_sink_buf(delta_storage_sink *sink);

/*
 * Request counters (delta_storage_stats_get). Every handle owns a
 * storage_counters. By default the dispatcher (storage.c) counts one request
 * per operation it passes to the back end, which is right for the local back
 * end and for embedders' back ends. A back end that sends real requests
 * (HTTP) counts them itself instead, so that retries and listing pages show:
 * after delta_storage_new it calls storage_counters_of(handle), which hands
 * out the handle's counters and turns the dispatcher's counting off for that
 * handle. The HTTP back ends pass that pointer to http_client_set_counters
 * (storage/http.h) and then every request http_send makes is counted with
 * its kind (from the method; listings use http_send_as with
 * STORAGE_COUNT_LIST) and body bytes.
 */
typedef enum {
  STORAGE_COUNT_AUTO = 0, /* http_send_as only: by method (GET = get, HEAD = head,
                             PUT/POST = put, DELETE = del) */
  STORAGE_COUNT_LIST,
  STORAGE_COUNT_GET,
  STORAGE_COUNT_HEAD,
  STORAGE_COUNT_PUT,
  STORAGE_COUNT_DEL,
  STORAGE_COUNT_KINDS
} storage_count_kind;

typedef struct storage_counters {
  _Atomic uint64_t requests[STORAGE_COUNT_KINDS], bytes[STORAGE_COUNT_KINDS];
  _Atomic uint64_t retries;
} storage_counters;

/* One request of `kind` (not AUTO) that moved `bytes` of body. NULL = no-op. */
void storage_count(storage_counters *c, storage_count_kind kind, uint64_t bytes);
/* One request that was a retry (also counted with storage_count). */
void storage_count_retry(storage_counters *c);
/* The handle's counters, for its back end; the dispatcher stops counting
 * this handle's operations from now on (see above). */
storage_counters *storage_counters_of(delta_storage *storage);

/*
 * Settling a put-if-absent whose outcome is unknown (the connection broke or
 * a 5xx came back after the body may have reached the store, or a retried
 * conditional PUT answered "exists" and the first attempt may have been
 * ours). Any back end calls it with its own read function: the object is
 * read back and compared with what was sent.
 *   0              the object holds exactly `data`: our put won
 *   DELTA_EEXISTS  the object holds something else: another writer won
 *   DELTA_ENOTFOUND  there is no object: the put did not happen (the caller
 *                  may send it again or report `cause`)
 *   other codes    the read-back failed too; the outcome stays unknown
 * `read` has the vtable's read signature; `label` names the object in the
 * DELTA_EEXISTS message.
 */
typedef int (*storage_read_fn)(void *impl, const char *key, uint64_t offset, uint64_t len,
                               delta_storage_sink *sink);
int storage_settle_put(storage_read_fn read, void *impl, const char *key, const char *label,
                       const void *data, size_t len);

/* The local back end (local.c), rooted at the normalised absolute path
 * `root` (no trailing '/' unless it is "/"). */
extern const delta_storage_vtable delta_storage__local_vtable;
int storage_local_new(void **impl_out, const char *root);

#endif
