/* Data files streamed through the table's storage; see file_out.h. */
#include "rewrite/file_out.h"

#include <string.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Pieces smaller than this are gathered before they reach the storage: one
 * write(2) or one buffered copy per MiB instead of one per page header. */
#define WRITE_CHUNK ((size_t)1 << 20)

int file_out_open(file_out *f, delta_storage *storage, const char *key) {
  int rc;
  memset(f, 0, sizeof *f);
  if (!(f->key = mem_strdup(key))) return DELTA_NOMEM();
  if ((rc = delta_storage_upload_open(storage, key, &f->up)) != 0) {
    mem_free(f->key);
    f->key = NULL;
  }
  return rc;
}

int file_out_write(void *ctx, const void *data, size_t len) {
  file_out *f = ctx;
  int rc;
  f->size += (int64_t)len;
  if (f->buf.len + len > WRITE_CHUNK && f->buf.len) {
    if ((rc = delta_storage_upload_write(f->up, f->buf.data, f->buf.len)) != 0) return rc;
    buf_reset(&f->buf);
  }
  if (len >= WRITE_CHUNK) return delta_storage_upload_write(f->up, data, len);
  return buf_append(&f->buf, data, len);
}

int file_out_close(file_out *f) {
  int rc = 0;
  if (f->buf.len && (rc = delta_storage_upload_write(f->up, f->buf.data, f->buf.len)) != 0) {
    delta_storage_upload_abort(f->up);
    goto done;
  }
  rc = delta_storage_upload_finish(f->up);
done:
  f->up = NULL; /* finish and abort both free it */
  buf_dispose(&f->buf);
  return rc;
}

void file_out_abort(file_out *f) {
  delta_storage_upload_abort(f->up);
  f->up = NULL;
  buf_dispose(&f->buf);
  mem_free(f->key);
  f->key = NULL;
}
