/*
 * The Azure back end: delta_storage_vtable over the Azure Blob REST API.
 *
 *   list    List Blobs with a prefix and delimiter '/', paged by NextMarker
 *           (azure_list.c).
 *   read    Get Blob with x-ms-range; 416 -> Get Blob Properties tells
 *           "offset == size" (nothing to deliver) from "past the end".
 *   head    Get Blob Properties (HEAD): Content-Length, Last-Modified.
 *   put     Put Blob (BlockBlob); put-if-absent sends If-None-Match: *, and
 *           409 BlobAlreadyExists or 412 means the blob exists
 *           (DELTA_EEXISTS). When the PUT was sent more than once (a retry
 *           after a timeout or a 5xx), the conflict may be our own first
 *           attempt: the blob is read back and compared with the body.
 *   remove  Delete Blob; a missing blob is success, a missing container not.
 *   upload  Put Block of AZURE_BLOCK_SIZE pieces with fixed-length base64
 *           block ids, then Put Block List; a file that fits in one block is
 *           one Put Blob at finish. Abort just forgets the blocks: Azure
 *           drops uncommitted blocks after a week, and nothing was visible.
 *   local_path, remove_dir: none (no local files; "directories" are name
 *           prefixes that go with their last blob).
 *
 * Requests are signed with Shared Key, or carry a SAS query string, a bearer
 * token, or a token from client credentials (azure_config.c decides).
 * Errors name the blob as the user wrote the location, with the status and
 * Azure's error code: "az://deltac/t/_delta_log/x.json: 403
 * AuthenticationFailed"; never a key, SAS or token.
 */
#include "storage/azure.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "storage/azure_internal.h"
#include "storage/path.h"
#include "storage/s3_xml.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define AZURE_BLOCK_SIZE ((size_t)8 << 20) /* Put Block piece; Azure allows up to 4000 MiB */
#define AZURE_MAX_BLOCKS 50000            /* blocks per blob */

/* ---- requests ---- */

int azure_full_key(delta_buf *out, const azure_store *s, const char *key) {
  int rc;
  if (*s->prefix && (rc = buf_puts(out, s->prefix)) != 0) return rc;
  if (key && *key) {
    if (*s->prefix && (rc = buf_putc(out, '/')) != 0) return rc;
    if ((rc = buf_puts(out, key)) != 0) return rc;
  }
  return buf_putc(out, '\0');
}

int azure_make_label(delta_buf *out, const azure_store *s, const char *blob) {
  int rc = buf_printf(out, "%s/%s", s->label, blob ? blob : "");
  return rc ? rc : buf_putc(out, '\0');
}

int azure_send(azure_store *s, const azure_req *r, http_response *resp) {
  delta_buf path = DELTA_BUF_INIT, url = DELTA_BUF_INIT, sts = DELTA_BUF_INIT,
            auth = DELTA_BUF_INIT, lines = DELTA_BUF_INIT;
  char date[64], clen[24];
  azure_header h[10];
  size_t nh = 0, offs[12];
  const char *ptrs[13];
  int rc;

  if ((rc = buf_puts(&path, s->base_path)) != 0) goto done;
  if (r->blob && ((rc = buf_putc(&path, '/')) != 0 ||
                  (rc = azure_uri_encode(&path, r->blob, strlen(r->blob), true)) != 0))
    goto done;
  if ((rc = buf_putc(&path, '\0')) != 0) goto done;
  if ((rc = buf_printf(&url, "%s%s", s->origin, (const char *)path.data)) != 0) goto done;
  for (size_t i = 0; i < r->nq; i++) {
    if ((rc = buf_printf(&url, "%c%s=", i ? '&' : '?', r->qnames[i])) != 0) goto done;
    if (r->qvalues[i] && (rc = azure_uri_encode(&url, r->qvalues[i], strlen(r->qvalues[i]), false)) != 0)
      goto done;
  }
  if (s->cfg.auth == AZURE_AUTH_SAS && (rc = buf_printf(&url, "%c%s", r->nq ? '&' : '?', s->cfg.sas)) != 0)
    goto done;
  if ((rc = buf_putc(&url, '\0')) != 0) goto done;

  azure_http_date(time(NULL), date);
  h[nh++] = (azure_header){"x-ms-date", date};
  h[nh++] = (azure_header){"x-ms-version", AZURE_API_VERSION};
  if (strcmp(r->method, "PUT") == 0) {
    /* libcurl sends this Content-Length itself; it is signed, so it is
     * named here too. */
    snprintf(clen, sizeof clen, "%zu", r->body_len);
    h[nh++] = (azure_header){"Content-Length", clen};
  }
  for (size_t i = 0; i < r->n_extra; i++) h[nh++] = r->extra[i];

  if (s->cfg.auth == AZURE_AUTH_SHARED_KEY) {
    if ((rc = azure_string_to_sign(&sts, r->method, h, nh, s->cfg.account, (const char *)path.data,
                                   r->qnames, r->qvalues, r->nq)) != 0 ||
        (rc = azure_sharedkey_authorization(&auth, s->cfg.account, s->cfg.key, s->cfg.key_len,
                                            (const char *)sts.data, sts.len)) != 0)
      goto done;
  } else if (s->cfg.auth == AZURE_AUTH_BEARER) {
    if ((rc = buf_printf(&auth, "Bearer %s", s->cfg.token)) != 0) goto done;
  } else if (s->cfg.auth == AZURE_AUTH_CLIENT_SECRET) {
    if ((rc = azure_token_get(s->tokens, &auth)) != 0) {
      err_prefix("%s", r->label);
      goto done;
    }
  }
  if (auth.len && (rc = buf_putc(&auth, '\0')) != 0) goto done;

  /* Header lines, NUL-separated in one buffer; the pointers are made at
   * the end because the buffer moves while it grows. Content-Length is
   * left to libcurl. */
  size_t nl = 0;
  for (size_t i = 0; i < nh; i++) {
    if (strcasecmp(h[i].name, "Content-Length") == 0) continue;
    offs[nl++] = lines.len;
    if ((rc = buf_printf(&lines, "%s: %s", h[i].name, h[i].value)) != 0 || (rc = buf_putc(&lines, '\0')) != 0)
      goto done;
  }
  if (auth.len) {
    offs[nl++] = lines.len;
    if ((rc = buf_printf(&lines, "Authorization: %s", (const char *)auth.data)) != 0 ||
        (rc = buf_putc(&lines, '\0')) != 0)
      goto done;
  }
  for (size_t i = 0; i < nl; i++) ptrs[i] = (const char *)lines.data + offs[i];
  ptrs[nl] = NULL;
  http_request req = {r->method, (const char *)url.data, ptrs, r->body, r->body_len, r->sink, r->label};
  rc = http_send(s->http, &req, resp);
done:
  buf_dispose(&path);
  /* The URL may hold a SAS; the lines hold the signature or a token. */
  if (url.data) memset(url.data, 0, url.len);
  buf_dispose(&url);
  buf_dispose(&sts);
  if (auth.data) memset(auth.data, 0, auth.len);
  buf_dispose(&auth);
  if (lines.data) memset(lines.data, 0, lines.len);
  buf_dispose(&lines);
  return rc;
}

static const char *reason(long status) {
  switch (status) {
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 409: return "Conflict";
  case 412: return "Precondition Failed";
  case 416: return "Range Not Satisfiable";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 501: return "Not Implemented";
  case 502: return "Bad Gateway";
  case 503: return "Service Unavailable";
  case 504: return "Gateway Timeout";
  default: return "";
  }
}

/* Azure's error code from the error document, when it looks like one. */
static void error_code(http_response *resp, char *shown, size_t n) {
  delta_buf c = DELTA_BUF_INIT;
  shown[0] = '\0';
  if (resp->body.len && s3_xml_find((const char *)resp->body.data, resp->body.len, "Code", &c) == 0) {
    size_t k = 0;
    for (; k < c.len && k < n - 1; k++) {
      char ch = (char)c.data[k];
      if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
            ch == '.' || ch == '_' || ch == '-'))
        break;
      shown[k] = ch;
    }
    shown[k] = '\0';
  }
  delta_error_clear();
  buf_dispose(&c);
}

int azure_status_error(const char *label, http_response *resp, int code) {
  char shown[64];
  error_code(resp, shown, sizeof shown);
  if (code == DELTA_ENOTFOUND && strcmp(shown, "ContainerNotFound") == 0) code = DELTA_EIO;
  if (!*shown) snprintf(shown, sizeof shown, "%s", reason(resp->status));
  return err_set(code, "%s: %ld%s%s", label, resp->status, *shown ? " " : "", shown);
}

static void resp_dispose(http_response *r) { buf_dispose(&r->body); }

/* ---- head / read ---- */

/* A HEAD answer has no body, so no error code (it comes in a header the
 * HTTP client does not keep): ask again with a one-byte GET, whose error
 * document names it — a missing container (EIO) from a missing blob
 * (ENOTFOUND), AuthenticationFailed from a bare 403. */
static int head_error(azure_store *s, const azure_req *head, http_response *resp) {
  http_response again = {0};
  azure_req r = *head;
  r.method = "GET";
  r.extra[r.n_extra++] = (azure_header){"x-ms-range", "bytes=0-0"};
  int code = resp->status == 404 ? DELTA_ENOTFOUND : DELTA_EIO;
  int rc = azure_send(s, &r, &again);
  if (rc == 0 && again.status == resp->status) rc = azure_status_error(head->label, &again, code);
  else rc = azure_status_error(head->label, resp, code);
  buf_dispose(&again.body);
  return rc;
}

static int azure_head(void *impl, const char *key, delta_file_info *out) {
  azure_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = azure_full_key(&k, s, key)) != 0 || (rc = azure_make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  azure_req r = {"HEAD", (const char *)k.data, NULL, NULL, 0, {{0}}, 0, NULL, 0, NULL, (const char *)label.data};
  if ((rc = azure_send(s, &r, &resp)) != 0) goto done;
  if (resp.status != 200) {
    rc = head_error(s, &r, &resp);
    goto done;
  }
  if (!resp.has_length) {
    rc = err_set(DELTA_EIO, "%s: HEAD response without Content-Length", (const char *)label.data);
    goto done;
  }
  out->size = resp.content_length;
  out->mtime_ms = resp.mtime_ms;
done:
  resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  return rc;
}

static int past_end(const char *key, uint64_t offset, uint64_t size) {
  return err_set(DELTA_EINVAL, "read '%s': offset %llu past the end (%llu bytes)", key,
                 (unsigned long long)offset, (unsigned long long)size);
}

static int azure_read(void *impl, const char *key, uint64_t offset, uint64_t len,
                      delta_storage_sink *sink) {
  azure_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  http_response resp = {0};
  delta_file_info fi;
  char range[64];
  int rc;
  if (len == 0) {
    /* Nothing to fetch, but the blob must exist and the offset be valid. */
    if ((rc = azure_head(impl, key, &fi)) != 0) return rc;
    return offset > fi.size ? past_end(key, offset, fi.size) : 0;
  }
  if ((rc = azure_full_key(&k, s, key)) != 0 || (rc = azure_make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  azure_req r = {"GET", (const char *)k.data, NULL, NULL, 0, {{0}}, 0, NULL, 0, sink, (const char *)label.data};
  bool ranged = offset > 0 || len != DELTA_STORAGE_TO_END;
  if (ranged) {
    if (len == DELTA_STORAGE_TO_END || len - 1 > UINT64_MAX - offset)
      snprintf(range, sizeof range, "bytes=%llu-", (unsigned long long)offset);
    else
      snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)offset,
               (unsigned long long)(offset + len - 1));
    r.extra[r.n_extra++] = (azure_header){"x-ms-range", range};
  }
  if ((rc = azure_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 416) {
    /* At the end or past it: Azure refuses both; the contract tells them
     * apart. */
    if ((rc = azure_head(impl, key, &fi)) != 0) goto done;
    rc = offset == fi.size ? 0 : past_end(key, offset, fi.size);
    goto done;
  }
  if (resp.status == 200 && ranged && offset > 0) {
    /* The server ignored the range: what the sink got is the wrong bytes. */
    rc = err_set(DELTA_EIO, "%s: server ignored the range header", (const char *)label.data);
    goto done;
  }
  if (resp.status != 200 && resp.status != 206) {
    rc = azure_status_error((const char *)label.data, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
    goto done;
  }
  rc = 0;
done:
  resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  return rc;
}

/* ---- put / remove ---- */

/* Put Blob of `blob` (a full name) with `data`. */
static int put_blob(azure_store *s, const char *key, const char *blob, const char *label, const void *data,
                    size_t len, bool overwrite) {
  http_response resp = {0};
  int rc;
  azure_req r = {"PUT", blob, NULL, NULL, 0, {{0}}, 0, data, len, NULL, label};
  r.extra[r.n_extra++] = (azure_header){"x-ms-blob-type", "BlockBlob"};
  if (!overwrite) r.extra[r.n_extra++] = (azure_header){"If-None-Match", "*"};
  if ((rc = azure_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 201 || resp.status == 200) goto done;
  if (!overwrite && (resp.status == 409 || resp.status == 412)) {
    char code[64];
    error_code(&resp, code, sizeof code);
    /* A 409 for anything but the blob's existence (a lease, a container
     * being deleted) is a failure, not a lost race. */
    if (resp.status == 409 && *code && strcmp(code, "BlobAlreadyExists") != 0) {
      rc = azure_status_error(label, &resp, DELTA_EIO);
      goto done;
    }
    if (resp.attempts > 1) {
      /* a resent PUT met the name taken: our own first sending may have won */
      rc = storage_settle_put(azure_read, s, key, label, data, len);
      goto done;
    }
    rc = err_set(DELTA_EEXISTS, "put '%s': already exists (%ld)", label, resp.status);
    goto done;
  }
  /* A PUT's 404 is a missing container: EIO. */
  rc = azure_status_error(label, &resp, DELTA_EIO);
done:
  resp_dispose(&resp);
  return rc;
}

static int azure_put(void *impl, const char *key, const void *data, size_t len, bool overwrite) {
  azure_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  int rc;
  if ((rc = azure_full_key(&k, s, key)) != 0 || (rc = azure_make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  rc = put_blob(s, key, (const char *)k.data, (const char *)label.data, data, len, overwrite);
done:
  buf_dispose(&k);
  buf_dispose(&label);
  return rc;
}

static int azure_remove(void *impl, const char *key) {
  azure_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  http_response resp = {0};
  char code[64];
  int rc;
  if ((rc = azure_full_key(&k, s, key)) != 0 || (rc = azure_make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  azure_req r = {"DELETE", (const char *)k.data, NULL, NULL, 0, {{0}}, 0, NULL, 0, NULL, (const char *)label.data};
  if ((rc = azure_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 202 || resp.status == 200 || resp.status == 204) goto done;
  /* A missing blob is success (delete is idempotent); a missing container
   * is not. */
  error_code(&resp, code, sizeof code);
  if (resp.status == 404 && strcmp(code, "ContainerNotFound") != 0) goto done;
  rc = azure_status_error((const char *)label.data, &resp, DELTA_EIO);
done:
  resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  return rc;
}

/* ---- streaming upload ---- */

typedef struct {
  char *blob, *label, *key;
  delta_buf pending; /* bytes not yet sent as a block */
  delta_buf ids;     /* the Put Block List body built so far */
  unsigned int n_blocks;
  uint32_t nonce;    /* keeps two uploads of one name from mixing blocks */
} azure_upload;

static void upload_free(azure_upload *u) {
  if (!u) return;
  mem_free(u->blob);
  mem_free(u->label);
  mem_free(u->key);
  buf_dispose(&u->pending);
  buf_dispose(&u->ids);
  mem_free(u);
}

static int azure_upload_open(void *impl, const char *key, void **upload) {
  azure_store *s = impl;
  azure_upload *u = mem_calloc(1, sizeof *u);
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  struct timespec ts;
  int rc;
  if (!u) return DELTA_NOMEM();
  if ((rc = azure_full_key(&k, s, key)) != 0 || (rc = azure_make_label(&label, s, (const char *)k.data)) != 0)
    goto fail;
  if (!(u->key = mem_strdup(key))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  u->blob = (char *)buf_detach(&k);
  u->label = (char *)buf_detach(&label);
  clock_gettime(CLOCK_REALTIME, &ts);
  u->nonce = (uint32_t)ts.tv_nsec ^ (uint32_t)(uintptr_t)u ^ (uint32_t)ts.tv_sec;
  if ((rc = buf_puts(&u->ids, "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>")) != 0) goto fail;
  *upload = u;
  return 0;
fail:
  buf_dispose(&k);
  buf_dispose(&label);
  upload_free(u);
  return rc;
}

/* Send `len` bytes of `data` as the next block. */
static int put_block(azure_store *s, azure_upload *u, const void *data, size_t len) {
  delta_buf id = DELTA_BUF_INIT;
  http_response resp = {0};
  char raw[32];
  int rc;
  if (u->n_blocks >= AZURE_MAX_BLOCKS) {
    rc = err_set(DELTA_ELIMIT, "upload '%s': more than %d blocks", u->label, AZURE_MAX_BLOCKS);
    goto done;
  }
  /* Every id of a blob has the same length before encoding. */
  snprintf(raw, sizeof raw, "deltac-%08x-%06u", (unsigned)u->nonce, u->n_blocks);
  if ((rc = azure_base64_encode(&id, raw, strlen(raw))) != 0 || (rc = buf_putc(&id, '\0')) != 0) goto done;
  const char *qn[] = {"comp", "blockid"}, *qv[] = {"block", (const char *)id.data};
  azure_req r = {"PUT", u->blob, qn, qv, 2, {{0}}, 0, data, len, NULL, u->label};
  if ((rc = azure_send(s, &r, &resp)) != 0) goto done;
  if (resp.status != 201 && resp.status != 200) {
    rc = azure_status_error(u->label, &resp, DELTA_EIO);
    goto done;
  }
  if ((rc = buf_printf(&u->ids, "<Latest>%s</Latest>", (const char *)id.data)) != 0) goto done;
  u->n_blocks++;
done:
  resp_dispose(&resp);
  buf_dispose(&id);
  return rc;
}

static int azure_upload_write(void *impl, void *upload, const void *data, size_t len) {
  azure_store *s = impl;
  azure_upload *u = upload;
  const char *p = data;
  int rc;
  while (len) {
    size_t room = AZURE_BLOCK_SIZE - u->pending.len;
    if (u->pending.len == 0 && len >= AZURE_BLOCK_SIZE) {
      /* A whole block straight from the caller's bytes. */
      if ((rc = put_block(s, u, p, AZURE_BLOCK_SIZE)) != 0) return rc;
      p += AZURE_BLOCK_SIZE;
      len -= AZURE_BLOCK_SIZE;
      continue;
    }
    size_t k = len < room ? len : room;
    if ((rc = buf_append(&u->pending, p, k)) != 0) return rc;
    p += k;
    len -= k;
    if (u->pending.len == AZURE_BLOCK_SIZE) {
      if ((rc = put_block(s, u, u->pending.data, u->pending.len)) != 0) return rc;
      u->pending.len = 0;
    }
  }
  return 0;
}

static int azure_upload_finish(void *impl, void *upload) {
  azure_store *s = impl;
  azure_upload *u = upload;
  http_response resp = {0};
  int rc;
  if (u->n_blocks == 0) {
    /* Small file: one Put Blob. */
    rc = put_blob(s, u->key, u->blob, u->label, u->pending.data, u->pending.len, true);
    goto done;
  }
  if (u->pending.len && (rc = put_block(s, u, u->pending.data, u->pending.len)) != 0) goto done;
  if ((rc = buf_puts(&u->ids, "</BlockList>")) != 0) goto done;
  const char *qn[] = {"comp"}, *qv[] = {"blocklist"};
  azure_req r = {"PUT", u->blob, qn, qv, 1, {{0}}, 0, u->ids.data, u->ids.len, NULL, u->label};
  if ((rc = azure_send(s, &r, &resp)) != 0) goto done;
  if (resp.status != 201 && resp.status != 200) rc = azure_status_error(u->label, &resp, DELTA_EIO);
done:
  resp_dispose(&resp);
  upload_free(u);
  return rc;
}

static void azure_upload_abort(void *impl, void *upload) {
  (void)impl;
  /* Uncommitted blocks are invisible and expire on their own. */
  upload_free(upload);
}

static void azure_free(void *impl) {
  azure_store *s = impl;
  if (!s) return;
  http_client_free(s->http);
  azure_token_cache_free(s->tokens);
  azure_config_dispose(&s->cfg);
  mem_free(s->container);
  mem_free(s->prefix);
  mem_free(s->origin);
  mem_free(s->base_path);
  mem_free(s->label);
  mem_free(s);
}

static const delta_storage_vtable AZURE_VTABLE = {
    .version = DELTA_STORAGE_VTABLE_VERSION,
    .list = azure_list,
    .read = azure_read,
    .head = azure_head,
    .put = azure_put,
    .remove = azure_remove,
    .free = azure_free,
    .upload_open = azure_upload_open,
    .upload_write = azure_upload_write,
    .upload_finish = azure_upload_finish,
    .upload_abort = azure_upload_abort,
};

/* ---- opening ---- */

bool azure_scheme(const char *location, size_t n) {
  static const char *names[] = {"az", "azure", "abfs", "abfss"};
  for (size_t i = 0; i < 4; i++)
    if (strlen(names[i]) == n && strncasecmp(location, names[i], n) == 0) return true;
  return false;
}

/* Split the endpoint into its origin and path, and append the container. */
static int set_endpoint(azure_store *s) {
  delta_buf pb = DELTA_BUF_INIT;
  const char *ep = s->cfg.endpoint, *host = strstr(ep, "://") + 3;
  const char *slash = strchr(host, '/');
  size_t ol = slash ? (size_t)(slash - ep) : strlen(ep);
  int rc;
  if (!(s->origin = mem_strndup(ep, ol))) return DELTA_NOMEM();
  if ((slash && (rc = buf_puts(&pb, slash)) != 0) || (rc = buf_putc(&pb, '/')) != 0 ||
      (rc = buf_puts(&pb, s->container)) != 0 || (rc = buf_putc(&pb, '\0')) != 0) {
    buf_dispose(&pb);
    return rc;
  }
  s->base_path = (char *)buf_detach(&pb);
  return 0;
}

int azure_open(delta_storage **out, const char *location, const storage_options *opts) {
  azure_store *s = NULL;
  azure_url u;
  delta_buf uri = DELTA_BUF_INIT;
  int rc;
  if ((rc = azure_url_parse(&u, location)) != 0) return rc;
  if (!(s = mem_calloc(1, sizeof *s))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  if ((rc = azure_config_resolve(&s->cfg, opts, &u, location)) != 0) goto fail;
  if (u.host) rc = buf_printf(&uri, "%s://%s@%s", u.scheme, u.container, u.host);
  else rc = buf_printf(&uri, "%s://%s", u.scheme, u.container);
  if (rc || (rc = buf_putc(&uri, '\0')) != 0) goto fail;
  s->label = (char *)buf_detach(&uri);
  s->container = u.container;
  s->prefix = u.prefix;
  u.container = u.prefix = NULL;
  if ((rc = set_endpoint(s)) != 0) goto fail;
  if ((rc = http_client_new(&s->http, &s->cfg.http)) != 0) goto fail;
  if (s->cfg.auth == AZURE_AUTH_CLIENT_SECRET &&
      (rc = azure_token_cache_new(&s->tokens, s->cfg.authority_host, s->cfg.tenant_id, s->cfg.client_id,
                                  s->cfg.client_secret, &s->cfg.http)) != 0)
    goto fail;
  s->cfg.http.user_agent = NULL; /* borrowed from the options; the clients have copies */
  /* The location handed to the dispatcher: the label + the prefix encoded
   * as add.path values are, so absolute paths in the log that point inside
   * the table are recognised. */
  if ((rc = buf_puts(&uri, s->label)) != 0) goto fail;
  if (*s->prefix && ((rc = buf_putc(&uri, '/')) != 0 ||
                     (rc = storage_path_encode(&uri, s->prefix, strlen(s->prefix))) != 0))
    goto fail;
  if ((rc = buf_putc(&uri, '\0')) != 0) goto fail;
  if ((rc = delta_storage_new(out, &AZURE_VTABLE, s, (const char *)uri.data)) != 0) goto fail;
  buf_dispose(&uri);
  azure_url_dispose(&u);
  return 0;
fail:
  buf_dispose(&uri);
  azure_url_dispose(&u);
  azure_free(s);
  return rc;
}
