/* Streaming uploads on S3; see s3_upload.h. */
#include "storage/s3_upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/s3_xml.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

typedef struct {
  char *key;        /* the table key */
  delta_buf part;   /* bytes of the part being filled (< one part) */
  char *upload_id;  /* NULL until the first full part starts a multipart upload */
  delta_buf etags;  /* the parts' ETags in order, NUL-separated (from ListParts) */
  int n_parts;      /* parts sent */
  size_t last_part; /* size of the last part sent */
  uint64_t total;   /* bytes written */
} s3_upload;

static void upload_free(s3_upload *u) {
  mem_free(u->key);
  buf_dispose(&u->part);
  mem_free(u->upload_id);
  buf_dispose(&u->etags);
  mem_free(u);
}

int s3_upload_open(void *impl, const char *key, void **upload) {
  (void)impl;
  s3_upload *u = mem_calloc(1, sizeof *u);
  if (!u) return DELTA_NOMEM();
  if (!(u->key = mem_strdup(key))) {
    mem_free(u);
    return DELTA_NOMEM();
  }
  /* nothing is sent yet: a small file becomes one PUT at finish */
  *upload = u;
  return 0;
}

/* CreateMultipartUpload: POST ?uploads, the UploadId from the reply. */
static int start_multipart(void *impl, s3_upload *u) {
  static const char *const qn[] = {"uploads"}, *const qv[] = {""};
  delta_buf label = DELTA_BUF_INIT, id = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = s3_key_request(impl, "POST", u->key, qn, qv, 1, NULL, 0, &label, &resp)) != 0) goto done;
  if (resp.status != 200) {
    rc = s3_status_error((const char *)label.data, &resp, DELTA_EIO);
    goto done;
  }
  if (s3_xml_find((const char *)resp.body.data, resp.body.len, "UploadId", &id) != 0 || id.len == 0) {
    delta_error_clear();
    rc = err_set(DELTA_EIO, "%s: CreateMultipartUpload gave no UploadId", (const char *)label.data);
    goto done;
  }
  if (!(u->upload_id = mem_strndup((const char *)id.data, id.len))) rc = DELTA_NOMEM();
done:
  buf_dispose(&resp.body);
  buf_dispose(&label);
  buf_dispose(&id);
  return rc;
}

/* UploadPart: the next part's bytes, signed with their own payload hash.
 * (The ETags the completion needs come from ListParts at the end.) */
static int send_part(void *impl, s3_upload *u, const void *data, size_t len) {
  int rc;
  if (!u->upload_id && (rc = start_multipart(impl, u)) != 0) return rc;
  char number[16];
  snprintf(number, sizeof number, "%d", u->n_parts + 1);
  const char *qn[] = {"partNumber", "uploadId"}, *qv[] = {number, u->upload_id};
  delta_buf label = DELTA_BUF_INIT;
  http_response resp = {0};
  if ((rc = s3_key_request(impl, "PUT", u->key, qn, qv, 2, data, len, &label, &resp)) != 0) goto done;
  if (resp.status != 200) {
    rc = s3_status_error((const char *)label.data, &resp, DELTA_EIO);
    goto done;
  }
  u->n_parts++;
  u->last_part = len;
done:
  buf_dispose(&resp.body);
  buf_dispose(&label);
  return rc;
}

int s3_upload_write(void *impl, void *upload, const void *data, size_t len) {
  s3_upload *u = upload;
  const uint8_t *p = data;
  int rc;
  u->total += len;
  while (len) {
    /* whole parts straight from the caller's bytes when nothing waits */
    if (u->part.len == 0 && len >= S3_UPLOAD_PART_SIZE) {
      if ((rc = send_part(impl, u, p, S3_UPLOAD_PART_SIZE)) != 0) return rc;
      p += S3_UPLOAD_PART_SIZE;
      len -= S3_UPLOAD_PART_SIZE;
      continue;
    }
    size_t take = S3_UPLOAD_PART_SIZE - u->part.len;
    if (take > len) take = len;
    if ((rc = buf_append(&u->part, p, take)) != 0) return rc;
    p += take;
    len -= take;
    if (u->part.len == S3_UPLOAD_PART_SIZE) {
      if ((rc = send_part(impl, u, u->part.data, u->part.len)) != 0) return rc;
      u->part.len = 0;
    }
  }
  return 0;
}

/* Append `s` with the XML special characters escaped. */
static int xml_escape(delta_buf *out, const char *s) {
  int rc = 0;
  for (; *s && rc == 0; s++) {
    switch (*s) {
    case '&': rc = buf_puts(out, "&amp;"); break;
    case '<': rc = buf_puts(out, "&lt;"); break;
    case '>': rc = buf_puts(out, "&gt;"); break;
    default: rc = buf_putc(out, *s);
    }
  }
  return rc;
}

/* Whether the object under u->key has u->total bytes: how a retried
 * CompleteMultipartUpload whose first attempt went through is told apart
 * from one that failed (the second attempt finds no upload any more). */
static int complete_landed(void *impl, s3_upload *u) {
  delta_buf label = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = s3_key_request(impl, "HEAD", u->key, NULL, NULL, 0, NULL, 0, &label, &resp)) != 0) goto done;
  rc = resp.status == 200 && resp.has_length && resp.content_length == u->total;
done:
  buf_dispose(&resp.body);
  buf_dispose(&label);
  return rc;
}

/* The decoded text of an element as a number; -1 when it is not one. */
static long long text_number(const char *s, size_t n) {
  delta_buf b = DELTA_BUF_INIT;
  long long v = -1;
  if (s3_xml_decode(&b, s, n) == 0 && buf_putc(&b, '\0') == 0 && b.len > 1) {
    char *end;
    v = strtoll((const char *)b.data, &end, 10);
    if (*end || v < 0) v = -1;
  }
  delta_error_clear();
  buf_dispose(&b);
  return v;
}

/* One ListParts page: each <Part>'s ETag appended to u->etags, in order,
 * after checking its number and size against what was sent (*seen counts
 * the parts so far); *more and `marker` say where the next page starts. */
static int parts_page(s3_upload *u, const char *label, const char *doc, size_t len, int *seen, bool *more,
                      delta_buf *marker) {
  s3_xml x = S3_XML_INIT(doc, len);
  s3_xml_kind kind;
  const char *s;
  size_t n;
  char elem[32] = "";
  bool in_part = false;
  long long number = -1, size = -1;
  delta_buf etag = DELTA_BUF_INIT;
  int rc;
  *more = false;
  while ((rc = s3_xml_next(&x, &kind, &s, &n)) == 0 && kind != S3_XML_END) {
    if (kind == S3_XML_OPEN) {
      snprintf(elem, sizeof elem, "%.*s", (int)(n < sizeof elem ? n : sizeof elem - 1), s);
      if (strcmp(elem, "Part") == 0) {
        in_part = true;
        number = size = -1;
        etag.len = 0;
      }
      continue;
    }
    if (kind == S3_XML_CLOSE) {
      if (in_part && n == 4 && memcmp(s, "Part", 4) == 0) {
        in_part = false;
        ++*seen;
        long long want = *seen < u->n_parts ? (long long)S3_UPLOAD_PART_SIZE : (long long)u->last_part;
        if (*seen > u->n_parts || number != *seen || size != want || etag.len == 0) {
          rc = err_set(DELTA_EIO, "%s: the store lists part %lld (%lld bytes), not what was sent", label, number,
                       size);
          goto done;
        }
        if ((rc = buf_append(&u->etags, etag.data, etag.len)) != 0 || (rc = buf_putc(&u->etags, '\0')) != 0)
          goto done;
      }
      elem[0] = '\0';
      continue;
    }
    if (in_part && strcmp(elem, "PartNumber") == 0) number = text_number(s, n);
    else if (in_part && strcmp(elem, "Size") == 0) size = text_number(s, n);
    else if (in_part && strcmp(elem, "ETag") == 0 && (rc = s3_xml_decode(&etag, s, n)) != 0) goto done;
    else if (!in_part && strcmp(elem, "IsTruncated") == 0) *more = n == 4 && memcmp(s, "true", 4) == 0;
    else if (!in_part && strcmp(elem, "NextPartNumberMarker") == 0) {
      marker->len = 0;
      if ((rc = s3_xml_decode(marker, s, n)) != 0 || (rc = buf_putc(marker, '\0')) != 0) goto done;
    }
  }
done:
  buf_dispose(&etag);
  return rc;
}

/* ListParts, every page: the ETags of the parts sent, in order. */
static int list_parts(void *impl, s3_upload *u) {
  delta_buf label = DELTA_BUF_INIT, marker = DELTA_BUF_INIT;
  http_response resp = {0};
  int seen = 0, rc;
  bool more = true;
  u->etags.len = 0;
  while (more) {
    const char *qn[] = {"uploadId", "part-number-marker"}, *qv[] = {u->upload_id, (const char *)marker.data};
    resp.body.len = 0;
    if ((rc = s3_key_request(impl, "GET", u->key, qn, qv, marker.len ? 2 : 1, NULL, 0, &label, &resp)) != 0)
      goto done;
    if (resp.status != 200) {
      rc = s3_status_error((const char *)label.data, &resp, DELTA_EIO);
      goto done;
    }
    if ((rc = parts_page(u, (const char *)label.data, (const char *)resp.body.data, resp.body.len, &seen, &more,
                         &marker)) != 0)
      goto done;
    if (more && !marker.len) {
      rc = err_set(DELTA_EIO, "%s: ListParts is truncated without a marker", (const char *)label.data);
      goto done;
    }
  }
  if (seen != u->n_parts)
    rc = err_set(DELTA_EIO, "%s: the store lists %d parts, %d were sent", (const char *)label.data, seen,
                 u->n_parts);
done:
  buf_dispose(&resp.body);
  buf_dispose(&label);
  buf_dispose(&marker);
  return rc;
}

/* CompleteMultipartUpload: the parts in order with their ETags. S3 may
 * answer 200 and still fail (an <Error> document in the body). */
static int complete_multipart(void *impl, s3_upload *u) {
  const char *qn[] = {"uploadId"}, *qv[] = {u->upload_id};
  delta_buf body = DELTA_BUF_INIT, label = DELTA_BUF_INIT, code = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = list_parts(impl, u)) != 0) goto done;
  if ((rc = buf_puts(&body, "<CompleteMultipartUpload>")) != 0) goto done;
  const char *etag = (const char *)u->etags.data;
  for (int i = 0; i < u->n_parts; i++) {
    if ((rc = buf_printf(&body, "<Part><PartNumber>%d</PartNumber><ETag>", i + 1)) != 0 ||
        (rc = xml_escape(&body, etag)) != 0 || (rc = buf_puts(&body, "</ETag></Part>")) != 0)
      goto done;
    etag += strlen(etag) + 1;
  }
  if ((rc = buf_puts(&body, "</CompleteMultipartUpload>")) != 0) goto done;
  if ((rc = s3_key_request(impl, "POST", u->key, qn, qv, 1, body.data, body.len, &label, &resp)) != 0)
    goto done;
  if (resp.status == 200 &&
      s3_xml_find((const char *)resp.body.data, resp.body.len, "Code", &code) != 0)
    goto done; /* no error code: completed */
  delta_error_clear();
  if (resp.status == 404 && resp.attempts > 1) {
    int landed = complete_landed(impl, u);
    if (landed == 1) goto done;
    if (landed < 0) {
      rc = landed;
      goto done;
    }
  }
  rc = s3_status_error((const char *)label.data, &resp, DELTA_EIO);
done:
  buf_dispose(&resp.body);
  buf_dispose(&body);
  buf_dispose(&label);
  buf_dispose(&code);
  return rc;
}

/* A small file: one PUT of everything. */
static int put_whole(void *impl, s3_upload *u) {
  delta_buf label = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = s3_key_request(impl, "PUT", u->key, NULL, NULL, 0, u->part.data ? (const void *)u->part.data : "",
                           u->part.len, &label, &resp)) != 0)
    goto done;
  if (resp.status != 200 && resp.status != 201 && resp.status != 204)
    rc = s3_status_error((const char *)label.data, &resp, DELTA_EIO);
done:
  buf_dispose(&resp.body);
  buf_dispose(&label);
  return rc;
}

/* AbortMultipartUpload: the parts sent are dropped. Best effort: a failure
 * leaves an incomplete upload that the bucket's lifecycle rules remove,
 * never a visible object. The error the caller is handling (why it aborts)
 * stays the one reported. */
static void abort_multipart(void *impl, s3_upload *u) {
  const char *qn[] = {"uploadId"}, *qv[] = {u->upload_id};
  delta_buf label = DELTA_BUF_INIT;
  http_response resp = {0};
  int code = delta_error_last_code();
  char saved[512];
  snprintf(saved, sizeof saved, "%s", delta_error_last());
  (void)s3_key_request(impl, "DELETE", u->key, qn, qv, 1, NULL, 0, &label, &resp);
  buf_dispose(&resp.body);
  buf_dispose(&label);
  delta_error_clear();
  if (code != 0) (void)err_set(code, "%s", saved);
}

/* The last part (it may be short; an empty one is not sent), then the
 * completion. */
static int finish_multipart(void *impl, s3_upload *u) {
  int rc;
  if (u->part.len && (rc = send_part(impl, u, u->part.data, u->part.len)) != 0) return rc;
  return complete_multipart(impl, u);
}

int s3_upload_finish(void *impl, void *upload) {
  s3_upload *u = upload;
  int rc;
  if (!u->upload_id)
    rc = put_whole(impl, u);
  else if ((rc = finish_multipart(impl, u)) != 0)
    abort_multipart(impl, u);
  upload_free(u);
  return rc;
}

void s3_upload_abort(void *impl, void *upload) {
  s3_upload *u = upload;
  if (u->upload_id) abort_multipart(impl, u);
  upload_free(u);
}
