/*
 * Storage inside the library: the delta_buf forms of the operations that the
 * protocol layer (log replay, checkpoints, the Parquet reader) uses, and the
 * seam between the dispatcher (storage.c) and the local back end (local.c).
 * The full contract is in include/deltac/storage.h.
 */
#ifndef DELTAC_STORAGE_INTERNAL_H
#define DELTAC_STORAGE_INTERNAL_H

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

/* The local back end (local.c), rooted at the normalised absolute path
 * `root` (no trailing '/' unless it is "/"). */
extern const delta_storage_vtable delta_storage__local_vtable;
int storage_local_new(void **impl_out, const char *root);

#endif
