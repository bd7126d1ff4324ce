/*
 * GCS streaming uploads (the vtable's upload_* members), from Google's
 * "Perform resumable uploads" guide: bytes are buffered to CHUNK_SIZE (a
 * multiple of 256 KiB, as GCS requires of every chunk but the last). A file
 * that never fills more than one chunk goes up at finish in one media upload
 * (gcs_put). A larger one starts a session (POST uploadType=resumable; the
 * session URI comes back in Location), PUTs each chunk with a Content-Range
 * whose total is '*' (unknown yet; 308 + "Range: bytes=0-N" = what the server
 * kept) and the last with the total (200/201 = the object exists). Nothing is
 * visible before that; abort, or a failed finish, DELETEs the session.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "storage/gcs_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define CHUNK_SIZE ((size_t)8 << 20) /* a multiple of 256 KiB */
#define META_MAX (1 << 20)           /* largest answer document accepted */

typedef struct {
  char *key;      /* the table key (for a media upload at finish) */
  char *label;    /* gs://bucket/name */
  char *session;  /* the session URI; NULL until the first chunk goes */
  delta_buf pending;
  uint64_t sent;  /* bytes the server has */
} gcs_upload;

static void upload_free(gcs_upload *u) {
  if (!u) return;
  mem_free(u->key);
  mem_free(u->label);
  if (u->session) memset(u->session, 0, strlen(u->session)); /* the URI is the upload's credential */
  mem_free(u->session);
  buf_dispose(&u->pending);
  mem_free(u);
}

int gcs_upload_open(void *impl, const char *key, void **out) {
  gcs_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  gcs_upload *u = NULL;
  int rc;
  if ((rc = gcs_full_key(&k, s, key)) != 0 || (rc = gcs_label(&label, s, (const char *)k.data)) != 0) goto fail;
  if (!(u = mem_calloc(1, sizeof *u)) || !(u->key = mem_strdup(key))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  u->label = (char *)buf_detach(&label);
  buf_dispose(&k);
  *out = u;
  return 0;
fail:
  upload_free(u);
  buf_dispose(&k);
  buf_dispose(&label);
  return rc;
}

static int start_session(gcs_store *s, gcs_upload *u) {
  delta_buf url = DELTA_BUF_INIT, name = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = gcs_full_key(&name, s, u->key)) != 0 || (rc = gcs_upload_url(&url, s, "resumable", (const char *)name.data)) != 0 ||
      (rc = gcs_str_end(&url)) != 0)
    goto done;
  gcs_req r = {"POST", (const char *)url.data, {"X-Upload-Content-Type: application/octet-stream", NULL},
               NULL, 0, NULL, u->label, "location"};
  resp.body.limit = META_MAX;
  if ((rc = gcs_send(s, &r, &resp)) != 0) goto done;
  if (resp.status != 200 && resp.status != 201) {
    rc = gcs_status_error(u->label, &resp, DELTA_EIO);
    goto done;
  }
  if (strncasecmp(resp.captured, "https://", 8) != 0 && strncasecmp(resp.captured, "http://", 7) != 0) {
    rc = err_set(DELTA_EIO, "%s: resumable upload started without a session URI", u->label);
    goto done;
  }
  if (!(u->session = mem_strdup(resp.captured))) rc = DELTA_NOMEM();
done:
  memset(resp.captured, 0, sizeof resp.captured);
  gcs_resp_dispose(&resp);
  buf_dispose(&url);
  buf_dispose(&name);
  return rc;
}

/* The end of a 308's "Range: bytes=0-N" (the server has N + 1 bytes);
 * 0 when the header is absent (nothing persisted). */
static int persisted(const char *range, uint64_t *have) {
  *have = 0;
  if (!*range) return 0;
  unsigned long long a, b;
  char tail;
  if (sscanf(range, "bytes=%llu-%llu%c", &a, &b, &tail) != 2 || a != 0) return -1;
  *have = (uint64_t)b + 1;
  return 0;
}

/* Send pending[0, n) at offset u->sent; `total` is the object's size when
 * this is the last piece, else UINT64_MAX. Resends what the server says it
 * did not keep. */
static int send_piece(gcs_store *s, gcs_upload *u, size_t n, uint64_t total) {
  int rc = 0;
  size_t off = 0;
  for (int round = 0;; round++) {
    http_response resp = {0};
    char cr[128];
    uint64_t from = u->sent;
    size_t len = n - off;
    if (len == 0)
      snprintf(cr, sizeof cr, "Content-Range: bytes */%llu", (unsigned long long)total);
    else if (total == UINT64_MAX)
      snprintf(cr, sizeof cr, "Content-Range: bytes %llu-%llu/*", (unsigned long long)from,
               (unsigned long long)(from + len - 1));
    else
      snprintf(cr, sizeof cr, "Content-Range: bytes %llu-%llu/%llu", (unsigned long long)from,
               (unsigned long long)(from + len - 1), (unsigned long long)total);
    gcs_req r = {"PUT", u->session, {cr, NULL}, u->pending.data + off, len, NULL, u->label, "range"};
    resp.body.limit = META_MAX;
    if ((rc = gcs_send(s, &r, &resp)) != 0) {
      gcs_resp_dispose(&resp);
      return rc;
    }
    long st = resp.status;
    uint64_t have = 0;
    if (st == 200 || st == 201) {
      gcs_resp_dispose(&resp);
      if (total == UINT64_MAX)
        return err_set(DELTA_EIO, "%s: the upload completed before its last piece", u->label);
      u->sent = total;
      return 0;
    }
    if (st != 308) {
      rc = gcs_status_error(u->label, &resp, DELTA_EIO);
      gcs_resp_dispose(&resp);
      return rc;
    }
    int prc = persisted(resp.captured, &have);
    gcs_resp_dispose(&resp);
    if (prc != 0 || have < from || have > from + len)
      return err_set(DELTA_EIO, "%s: resumable upload: the server reports an unexpected size", u->label);
    off += (size_t)(have - from);
    u->sent = have;
    if (off == n && total == UINT64_MAX) return 0;
    if (round >= 3)
      return err_set(DELTA_EIO, "%s: resumable upload: the server keeps dropping data", u->label);
  }
}

int gcs_upload_write(void *impl, void *upload, const void *data, size_t len) {
  gcs_store *s = impl;
  gcs_upload *u = upload;
  int rc;
  if ((rc = buf_append(&u->pending, data, len)) != 0) return rc;
  /* A chunk goes only when more follows it: the last piece must carry the
   * total size, which is known only at finish. */
  while (u->pending.len > CHUNK_SIZE) {
    if (!u->session && (rc = start_session(s, u)) != 0) return rc;
    uint64_t before = u->sent;
    if ((rc = send_piece(s, u, CHUNK_SIZE, UINT64_MAX)) != 0) return rc;
    size_t done = (size_t)(u->sent - before);
    memmove(u->pending.data, u->pending.data + done, u->pending.len - done);
    u->pending.len -= done;
  }
  return 0;
}

int gcs_upload_finish(void *impl, void *upload) {
  gcs_store *s = impl;
  gcs_upload *u = upload;
  int rc;
  if (!u->session) rc = gcs_put(s, u->key, u->pending.data, u->pending.len, true);
  else rc = send_piece(s, u, u->pending.len, u->sent + u->pending.len);
  if (rc && u->session) {
    /* Nothing may become visible later: drop the session. */
    gcs_req r = {"DELETE", u->session, {NULL}, NULL, 0, NULL, u->label, NULL};
    http_response resp = {0};
    char saved[512];
    snprintf(saved, sizeof saved, "%s", delta_error_last());
    (void)gcs_send(s, &r, &resp);
    gcs_resp_dispose(&resp);
    err_set(rc, "%s", saved);
  }
  upload_free(u);
  return rc;
}

void gcs_upload_abort(void *impl, void *upload) {
  gcs_store *s = impl;
  gcs_upload *u = upload;
  if (u->session) {
    /* GCS answers 499 to a cancelled session; whatever it says, nothing was
     * finalised, so nothing is visible. */
    gcs_req r = {"DELETE", u->session, {NULL}, NULL, 0, NULL, u->label, NULL};
    http_response resp = {0};
    if (gcs_send(s, &r, &resp) != 0) delta_error_clear();
    gcs_resp_dispose(&resp);
  }
  upload_free(u);
}

