/*
 * The GCS back end: delta_storage_vtable over the GCS JSON API
 * (https://cloud.google.com/storage/docs/json_api), from Google's reference
 * pages for objects.list, objects.get, objects.insert, objects.delete and
 * resumable uploads.
 *
 *   list   objects.list with prefix, delimiter '/', startOffset and
 *          pageToken; `fields` keeps pages small. startOffset is inclusive
 *          ("names >= it"), so the listing starts at dir + start_after and
 *          the exact name (and the directory of that name) is dropped here.
 *          Directories are the "prefixes"; items and prefixes are merged and
 *          sorted by name (GCS orders by whole object name, where "a/" sorts
 *          after "a b"). A listing that finds nothing at all under the prefix
 *          is DELTA_ENOTFOUND, as on S3.
 *   read   objects.get?alt=media with a Range; 416 -> metadata tells
 *          "offset == size" from "past the end".
 *   head   objects.get (metadata: size, updated).
 *   put    objects.insert uploadType=media; put-if-absent adds
 *          ifGenerationMatch=0 (412 -> DELTA_EEXISTS; after a retried
 *          request, the object is read back to tell our own first attempt
 *          from someone else's).
 *   remove objects.delete (404 = already gone).
 *   upload_* resumable uploads (gcs_upload.c).
 *
 * Errors name the object as gs://bucket/key, the HTTP status and GCS's
 * error message: "gs://b/t/_delta_log/x.json: 403 Forbidden: ...".
 */
#include "storage/gcs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "storage/gcs_auth.h"
#include "storage/gcs_internal.h"
#include "storage/gcs_json.h"
#include "storage/http.h"
#include "storage/path.h"
#include "storage/sigv4.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

#define DEFAULT_ENDPOINT "https://storage.googleapis.com"
#define LIST_PAGE_MAX (64 << 20)      /* largest listing page accepted */
#define META_MAX (1 << 20)            /* largest metadata document accepted */
#define KEY_FILE_MAX (1 << 20)        /* largest service-account key file read */

/* ---- names and URLs ---- */

/* The object name of table key `key` (NULL or "" = the prefix itself). */
int gcs_full_key(delta_buf *out, const gcs_store *s, const char *key) {
  int rc;
  if (*s->prefix && (rc = buf_puts(out, s->prefix)) != 0) return rc;
  if (key && *key) {
    if (*s->prefix && (rc = buf_putc(out, '/')) != 0) return rc;
    if ((rc = buf_puts(out, key)) != 0) return rc;
  }
  if ((rc = buf_putc(out, '\0')) != 0) return rc;
  out->len--;
  return 0;
}

/* NUL-end `out` without counting the NUL, so that it reads as a C string
 * and can still be appended to. */
int gcs_str_end(delta_buf *out) {
  int rc = buf_putc(out, '\0');
  if (rc) return rc;
  out->len--;
  return 0;
}

int gcs_label(delta_buf *out, const gcs_store *s, const char *name) {
  int rc = buf_printf(out, "%s/%s", s->label, name ? name : "");
  return rc ? rc : gcs_str_end(out);
}

int gcs_enc(delta_buf *out, const char *s) { return sigv4_uri_encode(out, s, strlen(s), false); }

/* <endpoint>/storage/v1/b/<bucket>/o/<name> (NULL name: the object list). */
static int object_url(delta_buf *out, const gcs_store *s, const char *name) {
  int rc;
  if ((rc = buf_printf(out, "%s/storage/v1/b/", s->endpoint)) != 0 || (rc = gcs_enc(out, s->bucket)) != 0 ||
      (rc = buf_puts(out, "/o")) != 0)
    return rc;
  if (name && ((rc = buf_putc(out, '/')) != 0 || (rc = gcs_enc(out, name)) != 0)) return rc;
  return 0;
}

/* ---- requests ---- */


/* Send with the Authorization header; a 401 with a cached service-account
 * token fetches a new token once and sends again. */
int gcs_send(gcs_store *s, const gcs_req *r, http_response *resp) {
  delta_buf auth = DELTA_BUF_INIT;
  int rc = 0;
  for (int round = 0; round < 2; round++) {
    const char *headers[6];
    size_t nh = 0;
    auth.len = 0;
    if ((rc = gcs_auth_header(&s->auth, s->http, r->label, &auth)) != 0) goto done;
    if (auth.len) headers[nh++] = (const char *)auth.data;
    for (size_t i = 0; i < 3 && r->extra[i]; i++) headers[nh++] = r->extra[i];
    headers[nh] = NULL;
    http_request req = {r->method, r->url, headers, r->body, r->body_len, r->sink, r->label};
    if ((rc = http_send_capture(s->http, &req, r->capture, resp)) != 0) goto done;
    if (resp->status != 401 || !s->auth.has_sa || round) break;
    gcs_auth_invalidate(&s->auth);
  }
done:
  if (auth.data) memset(auth.data, 0, auth.cap);
  buf_dispose(&auth);
  return rc;
}

void gcs_resp_dispose(http_response *r) { buf_dispose(&r->body); }

static const char *reason(long status) {
  switch (status) {
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 409: return "Conflict";
  case 412: return "Precondition Failed";
  case 416: return "Range Not Satisfiable";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 502: return "Bad Gateway";
  case 503: return "Service Unavailable";
  case 504: return "Gateway Timeout";
  default: return "";
  }
}

/* GCS's error document: {"error": {"code": N, "message": "...", ...}}. The
 * message into `msg` (printable ASCII only, shortened). */
static void error_message(const http_response *resp, char *msg, size_t size) {
  gcs_json j = GCS_JSON_INIT((const char *)resp->body.data, resp->body.len);
  delta_buf key = DELTA_BUF_INIT, m = DELTA_BUF_INIT;
  int rc;
  msg[0] = '\0';
  if (!resp->body.len || gcs_json_object(&j) != 0) goto done;
  while ((rc = gcs_json_member(&j, &key)) == 1) {
    if (strcmp((char *)key.data, "error") != 0 || gcs_json_peek(&j) != '{') {
      if (gcs_json_skip(&j) != 0) goto done;
      continue;
    }
    if (gcs_json_object(&j) != 0) goto done;
    while ((rc = gcs_json_member(&j, &key)) == 1) {
      if (strcmp((char *)key.data, "message") == 0 && gcs_json_peek(&j) == '"') rc = gcs_json_string(&j, &m);
      else rc = gcs_json_skip(&j);
      if (rc) goto done;
    }
    break;
  }
done:
  if (m.len) {
    size_t n = 0;
    for (size_t i = 0; i < m.len && n + 4 < size; i++) {
      unsigned char c = m.data[i];
      msg[n++] = c >= 0x20 && c < 0x7F ? (char)c : '?';
    }
    if (n + 4 >= size && m.len > n) memcpy(msg + n, "...", 3), n += 3;
    msg[n] = '\0';
  }
  delta_error_clear();
  buf_dispose(&key);
  buf_dispose(&m);
}

/* One line: the label, the status, its reason and GCS's message. */
int gcs_status_error(const char *label, const http_response *resp, int code) {
  char msg[200];
  error_message(resp, msg, sizeof msg);
  const char *why = reason(resp->status);
  /* A missing bucket is the store's set-up, not a missing file. */
  if (code == DELTA_ENOTFOUND && strstr(msg, "bucket") && strstr(msg, "not exist")) code = DELTA_EIO;
  return err_set(code, "%s: %ld%s%s%s%s", label, resp->status, *why ? " " : "", why, *msg ? ": " : "", msg);
}

/* ---- list ---- */

typedef struct {
  char *name;
  uint64_t size;
  int64_t mtime_ms;
  bool is_dir;
} entry;

typedef struct {
  entry *v;
  size_t n, cap;
} entries;

static void entries_dispose(entries *e) {
  for (size_t i = 0; i < e->n; i++) mem_free(e->v[i].name);
  mem_free(e->v);
  memset(e, 0, sizeof *e);
}

static int entries_add(entries *e, const char *name, size_t len, uint64_t size, int64_t mtime, bool is_dir) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 64;
    entry *v = mem_realloc(e->v, cap * sizeof *v);
    if (!v) return DELTA_NOMEM();
    e->v = v;
    e->cap = cap;
  }
  char *n = mem_strndup(name, len);
  if (!n) return DELTA_NOMEM();
  e->v[e->n++] = (entry){n, size, mtime, is_dir};
  return 0;
}

static int entry_cmp(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (int)x->is_dir - (int)y->is_dir;
}

/* An object name under `dir` (which ends in '/' unless it is ""): the entry
 * name, or NULL for names that are no direct entry (the directory's own
 * placeholder object "dir/", or a name the server should have folded into a
 * prefix). */
static const char *rel_name(const char *name, const char *dir, size_t dl, bool is_dir, size_t *len) {
  if (strncmp(name, dir, dl) != 0) return NULL;
  const char *r = name + dl;
  size_t n = strlen(r);
  if (is_dir) {
    if (!n || r[n - 1] != '/') return NULL;
    n--;
  }
  if (!n || memchr(r, '/', n)) return NULL;
  *len = n;
  return r;
}

/* One page: items (name, size, updated), prefixes, nextPageToken. */
static int parse_page(const char *doc, size_t len, const char *dir, entries *e, size_t *seen,
                      delta_buf *token) {
  gcs_json j = GCS_JSON_INIT(doc, len);
  delta_buf key = DELTA_BUF_INIT, name = DELTA_BUF_INIT, val = DELTA_BUF_INIT;
  size_t dl = strlen(dir);
  int rc;
  token->len = 0;
  if ((rc = gcs_json_object(&j)) != 0) goto done;
  while ((rc = gcs_json_member(&j, &key)) == 1) {
    const char *k = (const char *)key.data;
    if (strcmp(k, "nextPageToken") == 0) {
      rc = gcs_json_string(&j, token);
    } else if (strcmp(k, "prefixes") == 0) {
      if ((rc = gcs_json_array(&j)) != 0) goto done;
      while ((rc = gcs_json_element(&j)) == 1) {
        name.len = 0;
        if ((rc = gcs_json_string(&j, &name)) != 0) goto done;
        size_t rl;
        const char *r = rel_name((const char *)name.data, dir, dl, true, &rl);
        (*seen)++;
        if (r && (rc = entries_add(e, r, rl, 0, 0, true)) != 0) goto done;
      }
    } else if (strcmp(k, "items") == 0) {
      if ((rc = gcs_json_array(&j)) != 0) goto done;
      while ((rc = gcs_json_element(&j)) == 1) {
        int64_t size = 0, mtime = 0;
        name.len = 0;
        if ((rc = gcs_json_object(&j)) != 0) goto done;
        while ((rc = gcs_json_member(&j, &key)) == 1) {
          k = (const char *)key.data;
          if (strcmp(k, "name") == 0) {
            rc = gcs_json_string(&j, &name);
          } else if (strcmp(k, "size") == 0) {
            rc = gcs_json_int(&j, &size);
          } else if (strcmp(k, "updated") == 0) {
            val.len = 0;
            if ((rc = gcs_json_string(&j, &val)) == 0 && time_parse_ms((const char *)val.data, &mtime) != 0) {
              delta_error_clear();
              mtime = 0;
            }
          } else {
            rc = gcs_json_skip(&j);
          }
          if (rc) goto done;
        }
        if (rc) goto done;
        if (!name.len || size < 0) {
          rc = err_set(DELTA_ECORRUPT, "listing item without a name or with a negative size");
          goto done;
        }
        size_t rl;
        const char *r = rel_name((const char *)name.data, dir, dl, false, &rl);
        (*seen)++;
        if (r && (rc = entries_add(e, r, rl, (uint64_t)size, mtime, false)) != 0) goto done;
      }
    } else {
      rc = gcs_json_skip(&j);
    }
    if (rc) goto done;
  }
done:
  if (rc > 0) rc = 0;
  buf_dispose(&key);
  buf_dispose(&name);
  buf_dispose(&val);
  return rc;
}

/* Every page of objects.list under `dir` from `start` (NULL = the
 * beginning); with max_results, one page of at most that many. */
static int list_prefix(gcs_store *s, const char *dir, const char *start, int max_results, const char *label,
                       entries *e, size_t *seen) {
  delta_buf url = DELTA_BUF_INIT, token = DELTA_BUF_INIT;
  int rc = 0;
  *seen = 0;
  for (;;) {
    http_response resp = {0};
    url.len = 0;
    if ((rc = object_url(&url, s, NULL)) != 0 || (rc = buf_puts(&url, "?delimiter=%2F&prefix=")) != 0 ||
        (rc = gcs_enc(&url, dir)) != 0 ||
        (rc = buf_puts(&url, "&fields=items(name%2Csize%2Cupdated)%2Cprefixes%2CnextPageToken")) != 0)
      goto done;
    if (start && ((rc = buf_puts(&url, "&startOffset=")) != 0 || (rc = gcs_enc(&url, start)) != 0)) goto done;
    if (max_results && (rc = buf_printf(&url, "&maxResults=%d", max_results)) != 0) goto done;
    if (token.len && ((rc = buf_puts(&url, "&pageToken=")) != 0 || (rc = gcs_enc(&url, (char *)token.data)) != 0))
      goto done;
    if ((rc = gcs_str_end(&url)) != 0) goto done;
    gcs_req r = {"GET", (const char *)url.data, {NULL}, NULL, 0, NULL, label, NULL};
    resp.body.limit = LIST_PAGE_MAX;
    if ((rc = gcs_send(s, &r, &resp)) != 0) {
      gcs_resp_dispose(&resp);
      goto done;
    }
    if (resp.status != 200) {
      /* A listing of a missing prefix is an empty 200; 404 is the bucket. */
      rc = gcs_status_error(label, &resp, DELTA_EIO);
      gcs_resp_dispose(&resp);
      goto done;
    }
    rc = parse_page((const char *)resp.body.data, resp.body.len, dir, e, seen, &token);
    gcs_resp_dispose(&resp);
    if (rc) {
      err_prefix("%s", label);
      goto done;
    }
    if (!token.len || max_results) break;
  }
done:
  buf_dispose(&url);
  buf_dispose(&token);
  return rc;
}

static int gcs_list(void *impl, const char *dir_key, const char *start_after, delta_storage_list_cb cb,
                    void *payload) {
  gcs_store *s = impl;
  delta_buf dir = DELTA_BUF_INIT, start = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  entries e = {0}, probe = {0};
  size_t seen = 0;
  int rc;
  if (start_after && !*start_after) start_after = NULL;
  if ((rc = gcs_full_key(&dir, s, dir_key)) != 0) goto done;
  if (dir.len && (rc = buf_putc(&dir, '/')) != 0) goto done;
  if ((rc = gcs_str_end(&dir)) != 0) goto done;
  if ((rc = gcs_label(&label, s, (const char *)dir.data)) != 0) goto done;
  if (start_after && ((rc = buf_printf(&start, "%s%s", (const char *)dir.data, start_after)) != 0 ||
                      (rc = gcs_str_end(&start)) != 0))
    goto done;
  if ((rc = list_prefix(s, (const char *)dir.data, start_after ? (const char *)start.data : NULL, 0,
                        (const char *)label.data, &e, &seen)) != 0)
    goto done;
  if (seen == 0) {
    size_t any = 0;
    if (start_after &&
        (rc = list_prefix(s, (const char *)dir.data, NULL, 1, (const char *)label.data, &probe, &any)) != 0)
      goto done;
    if (any == 0) {
      rc = err_set(DELTA_ENOTFOUND, "%s: not found (no object has this prefix)", (const char *)label.data);
      goto done;
    }
  }
  if (e.n) qsort(e.v, e.n, sizeof *e.v, entry_cmp);
  for (size_t i = 0; i < e.n; i++) {
    /* startOffset is inclusive: drop the name itself (file or directory). */
    if (start_after && strcmp(e.v[i].name, start_after) <= 0) continue;
    if (i && strcmp(e.v[i].name, e.v[i - 1].name) == 0 && e.v[i].is_dir == e.v[i - 1].is_dir) continue;
    delta_storage_entry de = {e.v[i].name, strlen(e.v[i].name), e.v[i].size, e.v[i].mtime_ms, e.v[i].is_dir};
    if ((rc = cb(&de, payload)) != 0) goto done;
  }
done:
  entries_dispose(&e);
  entries_dispose(&probe);
  buf_dispose(&dir);
  buf_dispose(&start);
  buf_dispose(&label);
  return rc;
}

/* ---- head / read ---- */

static int parse_meta(const char *doc, size_t len, delta_file_info *out) {
  gcs_json j = GCS_JSON_INIT(doc, len);
  delta_buf key = DELTA_BUF_INIT, val = DELTA_BUF_INIT;
  int64_t size = -1, mtime = 0;
  int rc;
  if ((rc = gcs_json_object(&j)) != 0) goto done;
  while ((rc = gcs_json_member(&j, &key)) == 1) {
    if (strcmp((char *)key.data, "size") == 0) {
      rc = gcs_json_int(&j, &size);
    } else if (strcmp((char *)key.data, "updated") == 0) {
      val.len = 0;
      if ((rc = gcs_json_string(&j, &val)) == 0 && time_parse_ms((const char *)val.data, &mtime) != 0) {
        delta_error_clear();
        mtime = 0;
      }
    } else {
      rc = gcs_json_skip(&j);
    }
    if (rc) goto done;
  }
  if (rc) goto done;
  if (size < 0) {
    rc = err_set(DELTA_ECORRUPT, "object metadata without a size");
    goto done;
  }
  out->size = (uint64_t)size;
  out->mtime_ms = mtime;
done:
  buf_dispose(&key);
  buf_dispose(&val);
  return rc;
}

static int gcs_head(void *impl, const char *key, delta_file_info *out) {
  gcs_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT, url = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = gcs_full_key(&k, s, key)) != 0 || (rc = gcs_label(&label, s, (const char *)k.data)) != 0 ||
      (rc = object_url(&url, s, (const char *)k.data)) != 0 || (rc = buf_puts(&url, "?fields=size%2Cupdated")) != 0 ||
      (rc = gcs_str_end(&url)) != 0)
    goto done;
  gcs_req r = {"GET", (const char *)url.data, {NULL}, NULL, 0, NULL, (const char *)label.data, NULL};
  resp.body.limit = META_MAX;
  if ((rc = gcs_send(s, &r, &resp)) != 0) goto done;
  if (resp.status != 200) {
    rc = gcs_status_error((const char *)label.data, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
    goto done;
  }
  if ((rc = parse_meta((const char *)resp.body.data, resp.body.len, out)) != 0) {
    err_prefix("%s", (const char *)label.data);
    goto done;
  }
done:
  gcs_resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  buf_dispose(&url);
  return rc;
}

static int past_end(const char *key, uint64_t offset, uint64_t size) {
  return err_set(DELTA_EINVAL, "read '%s': offset %llu past the end (%llu bytes)", key, (unsigned long long)offset,
                 (unsigned long long)size);
}

static int gcs_read(void *impl, const char *key, uint64_t offset, uint64_t len, delta_storage_sink *sink) {
  gcs_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT, url = DELTA_BUF_INIT;
  http_response resp = {0};
  char range[80];
  delta_file_info fi;
  int rc;
  if (len == 0) {
    /* Nothing to fetch, but the file must exist and the offset be valid. */
    if ((rc = gcs_head(impl, key, &fi)) != 0) return rc;
    return offset > fi.size ? past_end(key, offset, fi.size) : 0;
  }
  if ((rc = gcs_full_key(&k, s, key)) != 0 || (rc = gcs_label(&label, s, (const char *)k.data)) != 0 ||
      (rc = object_url(&url, s, (const char *)k.data)) != 0 || (rc = buf_puts(&url, "?alt=media")) != 0 ||
      (rc = gcs_str_end(&url)) != 0)
    goto done;
  gcs_req r = {"GET", (const char *)url.data, {NULL}, NULL, 0, sink, (const char *)label.data, NULL};
  bool ranged = offset > 0 || len != DELTA_STORAGE_TO_END;
  if (ranged) {
    if (len == DELTA_STORAGE_TO_END || len - 1 > UINT64_MAX - offset)
      snprintf(range, sizeof range, "Range: bytes=%llu-", (unsigned long long)offset);
    else
      snprintf(range, sizeof range, "Range: bytes=%llu-%llu", (unsigned long long)offset,
               (unsigned long long)(offset + len - 1));
    r.extra[0] = range;
  }
  if ((rc = gcs_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 416) {
    /* Past the end or exactly at it: GCS refuses both; the contract tells
     * them apart. */
    if ((rc = gcs_head(impl, key, &fi)) != 0) goto done;
    rc = offset == fi.size ? 0 : past_end(key, offset, fi.size);
    goto done;
  }
  if (resp.status == 200 && ranged && offset > 0) {
    rc = err_set(DELTA_EIO, "%s: server ignored the Range header", (const char *)label.data);
    goto done;
  }
  if (resp.status != 200 && resp.status != 206) {
    rc = gcs_status_error((const char *)label.data, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
    goto done;
  }
  rc = 0;
done:
  gcs_resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  buf_dispose(&url);
  return rc;
}

/* ---- put / remove ---- */

/* <endpoint>/upload/storage/v1/b/<bucket>/o?uploadType=<type>&name=<name> */
int gcs_upload_url(delta_buf *out, const gcs_store *s, const char *type, const char *name) {
  int rc;
  if ((rc = buf_printf(out, "%s/upload/storage/v1/b/", s->endpoint)) != 0 || (rc = gcs_enc(out, s->bucket)) != 0 ||
      (rc = buf_printf(out, "/o?uploadType=%s&name=", type)) != 0 || (rc = gcs_enc(out, name)) != 0)
    return rc;
  return 0;
}

int gcs_put(void *impl, const char *key, const void *data, size_t len, bool overwrite) {
  gcs_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT, url = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = gcs_full_key(&k, s, key)) != 0 || (rc = gcs_label(&label, s, (const char *)k.data)) != 0 ||
      (rc = gcs_upload_url(&url, s, "media", (const char *)k.data)) != 0)
    goto done;
  /* ifGenerationMatch=0: "only if no live object has this name". */
  if (!overwrite && (rc = buf_puts(&url, "&ifGenerationMatch=0")) != 0) goto done;
  if ((rc = gcs_str_end(&url)) != 0) goto done;
  gcs_req r = {"POST", (const char *)url.data, {"Content-Type: application/octet-stream", NULL},
               data, len, NULL, (const char *)label.data, NULL};
  resp.body.limit = META_MAX;
  if ((rc = gcs_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 200 || resp.status == 201) goto done;
  if (!overwrite && resp.status == 412) {
    if (resp.attempts > 1) {
      /* a resent PUT met the name taken: our own first sending may have won */
      rc = storage_settle_put(gcs_read, s, key, (const char *)label.data, data, len);
      goto done;
    }
    rc = err_set(DELTA_EEXISTS, "put '%s': already exists (412)", (const char *)label.data);
    goto done;
  }
  rc = gcs_status_error((const char *)label.data, &resp, DELTA_EIO);
done:
  gcs_resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  buf_dispose(&url);
  return rc;
}

static int gcs_remove(void *impl, const char *key) {
  gcs_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT, url = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = gcs_full_key(&k, s, key)) != 0 || (rc = gcs_label(&label, s, (const char *)k.data)) != 0 ||
      (rc = object_url(&url, s, (const char *)k.data)) != 0 || (rc = gcs_str_end(&url)) != 0)
    goto done;
  gcs_req r = {"DELETE", (const char *)url.data, {NULL}, NULL, 0, NULL, (const char *)label.data, NULL};
  if ((rc = gcs_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 200 || resp.status == 204) goto done;
  if (resp.status == 404) {
    /* A missing object is success (delete is idempotent); a missing bucket
     * is not (status_error turns it into DELTA_EIO). */
    rc = gcs_status_error((const char *)label.data, &resp, DELTA_ENOTFOUND);
    if (rc == DELTA_ENOTFOUND) {
      delta_error_clear();
      rc = 0;
    }
    goto done;
  }
  rc = gcs_status_error((const char *)label.data, &resp, DELTA_EIO);
done:
  gcs_resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  buf_dispose(&url);
  return rc;
}

static void gcs_free(void *impl) {
  gcs_store *s = impl;
  if (!s) return;
  http_client_free(s->http);
  if (s->auth_ready) gcs_auth_dispose(&s->auth);
  mem_free(s->bucket);
  mem_free(s->prefix);
  mem_free(s->endpoint);
  mem_free(s->label);
  mem_free(s);
}

static const delta_storage_vtable GCS_VTABLE = {
    .version = DELTA_STORAGE_VTABLE_VERSION,
    .list = gcs_list,
    .read = gcs_read,
    .head = gcs_head,
    .put = gcs_put,
    .remove = gcs_remove,
    .free = gcs_free,
    .upload_open = gcs_upload_open,
    .upload_write = gcs_upload_write,
    .upload_finish = gcs_upload_finish,
    .upload_abort = gcs_upload_abort,
};

/* ---- opening ---- */

/* Bucket names: lower-case letters, digits, '-', '_' and '.' (Google's
 * naming rules; upper case is refused by GCS itself). */
static bool bucket_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

int gcs_parse_uri(const char *location, char **bucket, char **prefix) {
  delta_buf p = DELTA_BUF_INIT;
  int rc;
  *bucket = *prefix = NULL;
  if (strncasecmp(location, "gs://", 5) != 0) return err_set(DELTA_EINVAL, "'%s' is not a gs:// URI", location);
  const char *b = location + 5, *slash = strchr(b, '/');
  size_t bl = slash ? (size_t)(slash - b) : strlen(b);
  if (!bl) return err_set(DELTA_EINVAL, "'%s' names no bucket", location);
  if (strpbrk(location, "?#")) return err_set(DELTA_EINVAL, "'%s': a table URI has no query or fragment", location);
  for (size_t i = 0; i < bl; i++)
    if (!bucket_char(b[i])) return err_set(DELTA_EINVAL, "'%s': bad character in the bucket name", location);
  const char *pp = slash ? slash : "";
  while (*pp == '/') pp++;
  size_t pl = strlen(pp);
  while (pl && pp[pl - 1] == '/') pl--;
  if (pl) {
    if (storage_path_decode(&p, pp, pl) != 0) {
      delta_error_clear();
      rc = err_set(DELTA_EINVAL, "'%s': the path decodes to a NUL byte", location);
      goto fail;
    }
    if ((rc = gcs_str_end(&p)) != 0) goto fail;
    if (storage_path_check_key((const char *)p.data, false) != 0) {
      delta_error_clear();
      rc = err_set(DELTA_EINVAL, "'%s': the path has an empty, '.' or '..' segment", location);
      goto fail;
    }
  } else if ((rc = gcs_str_end(&p)) != 0) {
    goto fail;
  }
  if (!(*bucket = mem_strndup(b, bl))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  *prefix = (char *)buf_detach(&p);
  if (!*prefix && !(*prefix = mem_strdup(""))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  return 0;
fail:
  mem_free(*bucket);
  *bucket = NULL;
  buf_dispose(&p);
  return rc;
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* The endpoint: option, GOOGLE_CLOUD_STORAGE_ENDPOINT, STORAGE_EMULATOR_HOST
 * (the Google SDKs' emulator variable: plain http is expected there, and a
 * bare host:port means http), else Google's. http:// otherwise needs
 * allow_http. */
static int set_endpoint(gcs_store *s, const storage_options *o, const char *location) {
  const char *ep = o->google_endpoint, *emu = NULL;
  delta_buf b = DELTA_BUF_INIT;
  int rc;
  if (!ep) ep = env("GOOGLE_CLOUD_STORAGE_ENDPOINT");
  if (!ep && (emu = env("STORAGE_EMULATOR_HOST")) != NULL) ep = emu;
  if (!ep) ep = DEFAULT_ENDPOINT;
  bool https = strncasecmp(ep, "https://", 8) == 0, http = strncasecmp(ep, "http://", 7) == 0;
  if (emu && !https && !http) {
    if ((rc = buf_printf(&b, "http://%s", ep)) != 0) goto done;
    http = true;
  } else if ((rc = buf_puts(&b, ep)) != 0) {
    goto done;
  }
  if (!https && !http) {
    rc = err_set(DELTA_EINVAL, "%s: the GCS endpoint must be an http:// or https:// URL", location);
    goto done;
  }
  if (http && !emu && o->allow_http != 1) {
    rc = err_set(DELTA_EINVAL, "%s: the GCS endpoint is http:// but allow_http is not set (option allow_http=true; "
                 "or name an emulator with STORAGE_EMULATOR_HOST)",
                 location);
    goto done;
  }
  while (b.len && b.data[b.len - 1] == '/') b.len--;
  if ((rc = gcs_str_end(&b)) != 0) goto done;
  const char *host = (const char *)b.data + (https ? 8 : 7);
  if (!*host || *host == '/' || strpbrk(host, "?#@")) {
    rc = err_set(DELTA_EINVAL, "%s: the GCS endpoint must be scheme://host[:port][/path]", location);
    goto done;
  }
  s->endpoint = (char *)buf_detach(&b);
done:
  buf_dispose(&b);
  return rc;
}

static int read_key_file(const char *path, delta_buf *out) {
  FILE *f = fopen(path, "rb");
  char chunk[4096];
  size_t n;
  int rc = 0;
  if (!f) return err_set(DELTA_EINVAL, "cannot read the service account key file '%s'", path);
  out->limit = KEY_FILE_MAX;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if ((rc = buf_append(out, chunk, n)) != 0) {
      if (rc == DELTA_ELIMIT) rc = err_set(DELTA_EINVAL, "service account key file '%s' is too large", path);
      goto done;
    }
  }
  if (ferror(f)) rc = err_set(DELTA_EINVAL, "cannot read the service account key file '%s'", path);
done:
  memset(chunk, 0, sizeof chunk);
  fclose(f);
  return rc;
}

/* Credentials: the options google_bearer_token, google_service_account_key,
 * google_service_account (a key file's path); else the environment's
 * GOOGLE_SERVICE_ACCOUNT_KEY, GOOGLE_SERVICE_ACCOUNT,
 * GOOGLE_SERVICE_ACCOUNT_PATH, GOOGLE_APPLICATION_CREDENTIALS; none means
 * anonymous requests (public buckets). */
static int set_auth(gcs_store *s, const storage_options *o) {
  delta_buf json = DELTA_BUF_INIT;
  char *bearer = NULL;
  gcs_sa sa;
  bool has_sa = false;
  int rc = 0;
  const char *key = o->google_sa_key, *path = o->google_sa_path;
  memset(&sa, 0, sizeof sa);
  if (o->google_bearer_token) {
    if (!(bearer = mem_strdup(o->google_bearer_token))) {
      rc = DELTA_NOMEM();
      goto done;
    }
  } else {
    if (!key && !path) key = env("GOOGLE_SERVICE_ACCOUNT_KEY");
    if (!key && !path) path = env("GOOGLE_SERVICE_ACCOUNT");
    if (!key && !path) path = env("GOOGLE_SERVICE_ACCOUNT_PATH");
    if (!key && !path) path = env("GOOGLE_APPLICATION_CREDENTIALS");
    if (key) {
      if ((rc = gcs_sa_parse(&sa, key, strlen(key), "google_service_account_key")) != 0) goto done;
      has_sa = true;
    } else if (path) {
      if ((rc = read_key_file(path, &json)) != 0) goto done;
      if ((rc = gcs_sa_parse(&sa, (const char *)json.data, json.len, path)) != 0) goto done;
      has_sa = true;
    }
  }
  if ((rc = gcs_auth_init(&s->auth, bearer, has_sa ? &sa : NULL)) != 0) goto done;
  bearer = NULL;
  s->auth_ready = true;
done:
  if (bearer) memset(bearer, 0, strlen(bearer));
  mem_free(bearer);
  gcs_sa_dispose(&sa);
  if (json.data) memset(json.data, 0, json.cap);
  buf_dispose(&json);
  return rc;
}

int gcs_open(delta_storage **out, const char *location, const storage_options *opts) {
  gcs_store *s = NULL;
  delta_buf uri = DELTA_BUF_INIT;
  http_config hc = HTTP_CONFIG_DEFAULT;
  int rc;
  if (!(s = mem_calloc(1, sizeof *s))) return DELTA_NOMEM();
  if ((rc = gcs_parse_uri(location, &s->bucket, &s->prefix)) != 0) goto fail;
  if ((rc = buf_printf(&uri, "gs://%s", s->bucket)) != 0 || (rc = gcs_str_end(&uri)) != 0) goto fail;
  s->label = (char *)buf_detach(&uri);
  if ((rc = set_endpoint(s, opts, location)) != 0) goto fail;
  if ((rc = set_auth(s, opts)) != 0) goto fail;
  if (opts->timeout_ms >= 0) hc.timeout_ms = opts->timeout_ms;
  if (opts->connect_timeout_ms >= 0) hc.connect_timeout_ms = opts->connect_timeout_ms;
  if (opts->retry_timeout_ms >= 0) hc.retry_timeout_ms = opts->retry_timeout_ms;
  if (opts->max_retries >= 0) hc.max_retries = opts->max_retries;
  hc.user_agent = opts->user_agent;
  if ((rc = http_client_new(&s->http, &hc)) != 0) goto fail;
  /* The location handed to the dispatcher: gs://bucket/ + the prefix
   * encoded as add.path values are. */
  if ((rc = buf_printf(&uri, "gs://%s", s->bucket)) != 0) goto fail;
  if (*s->prefix && ((rc = buf_putc(&uri, '/')) != 0 ||
                     (rc = storage_path_encode(&uri, s->prefix, strlen(s->prefix))) != 0))
    goto fail;
  if ((rc = gcs_str_end(&uri)) != 0) goto fail;
  if ((rc = delta_storage_new(out, &GCS_VTABLE, s, (const char *)uri.data)) != 0) goto fail;
  buf_dispose(&uri);
  return 0;
fail:
  buf_dispose(&uri);
  gcs_free(s);
  return rc;
}
