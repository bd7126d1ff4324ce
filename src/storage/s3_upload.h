/*
 * Streaming uploads on S3 (the vtable's upload_* members for s3.c): a file
 * smaller than one part is a single PUT at finish; a larger one is a
 * multipart upload (CreateMultipartUpload, UploadPart as each part fills,
 * CompleteMultipartUpload at finish, AbortMultipartUpload on abort or
 * failure), so at most one part is held in memory.
 */
#ifndef DELTAC_STORAGE_S3_UPLOAD_H
#define DELTAC_STORAGE_S3_UPLOAD_H

#include <stddef.h>

#include "storage/http.h"
#include "util/buf.h"

/* Bytes per part: S3 wants at least 5 MiB for every part but the last. */
#define S3_UPLOAD_PART_SIZE ((size_t)8 << 20)

int s3_upload_open(void *impl, const char *key, void **upload);
int s3_upload_write(void *impl, void *upload, const void *data, size_t len);
int s3_upload_finish(void *impl, void *upload);
void s3_upload_abort(void *impl, void *upload);

/* From s3.c: one signed request on table key `key` with query parameters
 * and a body; `label` is reset to "s3://bucket/objectkey" for messages. */
int s3_key_request(void *impl, const char *method, const char *key, const char *const *qnames,
                   const char *const *qvalues, size_t nq, const void *body, size_t body_len,
                   delta_buf *label, http_response *resp);
/* From s3.c: the one-line error for an unexpected status (label, status,
 * S3's error code). */
int s3_status_error(const char *label, http_response *resp, int code);

#endif
