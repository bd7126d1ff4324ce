/*
 * Inside the GCS back end: the store and the request helpers that gcs.c
 * (list, read, head, put, remove, opening) and gcs_upload.c (resumable
 * uploads) share.
 */
#ifndef DELTAC_STORAGE_GCS_INTERNAL_H
#define DELTAC_STORAGE_GCS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "deltac/storage.h"
#include "storage/gcs_auth.h"
#include "storage/http.h"
#include "util/buf.h"

/* An opened store (the vtable's impl). Immutable after gcs_open but for
 * `auth`, which locks itself. */
typedef struct {
  http_client *http;
  gcs_auth auth;
  char *bucket;
  char *prefix;   /* decoded, no leading or trailing '/'; "" for the bucket root */
  char *endpoint; /* scheme://host[:port][/path], no trailing '/' */
  char *label;    /* "gs://bucket" */
  bool auth_ready; /* `auth` initialised */
} gcs_store;

/* One request: gcs_send adds the Authorization header. */
typedef struct {
  const char *method;
  const char *url;
  const char *extra[3]; /* header lines, NULL-ended */
  const void *body;
  size_t body_len;
  delta_storage_sink *sink;
  const char *label;
  const char *capture;
} gcs_req;

/* NUL-end `out` without counting the NUL, so that it reads as a C string
 * and can still be appended to. */
int gcs_str_end(delta_buf *out);
/* The object name of table key `key` (NULL or "" = the prefix itself),
 * NUL-ended. */
int gcs_full_key(delta_buf *out, const gcs_store *s, const char *key);
/* "gs://bucket/<name>" for messages, NUL-ended. */
int gcs_label(delta_buf *out, const gcs_store *s, const char *name);
/* `s` percent-encoded for a URL path segment or query value. */
int gcs_enc(delta_buf *out, const char *s);
/* <endpoint>/upload/storage/v1/b/<bucket>/o?uploadType=<type>&name=<name> */
int gcs_upload_url(delta_buf *out, const gcs_store *s, const char *type, const char *name);

/* Send `r` with the Authorization header (a 401 with a service-account
 * token fetches a new token once). As http_send: 0 when a response arrived. */
int gcs_send(gcs_store *s, const gcs_req *r, http_response *resp);
void gcs_resp_dispose(http_response *r);
/* The one-line error for an unexpected status: label, status, reason and
 * GCS's message; returns `code` (a missing bucket turns DELTA_ENOTFOUND
 * into DELTA_EIO). */
int gcs_status_error(const char *label, const http_response *resp, int code);

/* The vtable's put (a media upload), and the streaming upload members
 * (gcs_upload.c). */
int gcs_put(void *impl, const char *key, const void *data, size_t len, bool overwrite);
int gcs_upload_open(void *impl, const char *key, void **upload);
int gcs_upload_write(void *impl, void *upload, const void *data, size_t len);
int gcs_upload_finish(void *impl, void *upload);
void gcs_upload_abort(void *impl, void *upload);

#endif
