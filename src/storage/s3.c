/*
 * The S3 back end: delta_storage_vtable over the S3 REST API.
 *
 *   list   ListObjectsV2 with delimiter '/', start-after and continuation
 *          tokens. S3 orders a listing by whole key, in which a directory
 *          "a" (prefix "a/") sorts after a file "a b" (' ' < '/'), while the
 *          contract wants names in byte order ("a" < "a b"); so a listing is
 *          collected, sorted by name, then reported. A "directory" that holds
 *          nothing does not exist on S3: a listing that finds nothing at all
 *          under the prefix is DELTA_ENOTFOUND (with start_after, one more
 *          request without it tells "empty after that name" from "missing").
 *   read   GET with a Range; 416 -> a HEAD tells "offset == size" (nothing to
 *          deliver) from "offset past the end" (DELTA_EINVAL).
 *   head   HEAD.
 *   put    PUT, with If-None-Match: * for put-if-absent; 412 or 409 means the
 *          key exists (DELTA_EEXISTS). When the outcome is unknown -- the
 *          connection broke or a 5xx came back after the body may have
 *          arrived, or a retried PUT got 412 (maybe from our own first
 *          attempt) -- storage_settle_put reads the object back and compares
 *          it with the body: ours = won, other content = DELTA_EEXISTS,
 *          none = the original failure. With aws_conditional_put=none,
 *          put-if-absent is refused unless aws_s3_allow_unsafe_rename=true
 *          (then HEAD + PUT, with a warning once per process).
 *   remove DELETE (a missing key is success, as S3 itself says).
 *   remove_dir: none; an object-store "directory" goes with its last file.
 *   upload_* streaming uploads: one PUT, or a multipart upload for large
 *          files (s3_upload.c).
 *
 * Errors name the object as s3://bucket/key and the HTTP status with S3's
 * error code: "s3://b/t/_delta_log/x.json: 403 SignatureDoesNotMatch".
 */
#include "storage/s3.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "storage/http.h"
#include "storage/path.h"
#include "storage/s3_config.h"
#include "storage/s3_upload.h"
#include "storage/s3_xml.h"
#include "storage/sigv4.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define XML_TEXT_MAX (64 * 1024)     /* longest element text read from a listing */
#define LIST_PAGE_MAX (64 << 20)     /* largest listing page accepted (S3 sends ~300 KB) */

typedef struct {
  http_client *http;
  s3_config cfg;
  char *bucket;
  char *prefix;    /* decoded, no leading or trailing '/'; "" for the bucket root */
  char *scheme;    /* "https" or "http" */
  char *host;      /* Host header value, with the port when one was given */
  char *path_base; /* canonical path before the key: "/bucket" (path-style), "" */
  char *label;     /* "s3://bucket" for messages */
} s3_store;

/* ---- requests ---- */

/* The object key of table key `key` (NULL = the prefix itself). */
static int full_key(delta_buf *out, const s3_store *s, const char *key) {
  int rc;
  if (*s->prefix && (rc = buf_puts(out, s->prefix)) != 0) return rc;
  if (key && *key) {
    if (*s->prefix && (rc = buf_putc(out, '/')) != 0) return rc;
    if ((rc = buf_puts(out, key)) != 0) return rc;
  }
  return buf_putc(out, '\0');
}

/* "s3://bucket/objectkey" for messages (the key's bytes as they are). */
static int make_label(delta_buf *out, const s3_store *s, const char *object_key) {
  int rc = buf_printf(out, "%s/%s", s->label, object_key ? object_key : "");
  return rc ? rc : buf_putc(out, '\0');
}

typedef struct {
  const char *method;
  const char *object_key;  /* decoded full key; NULL for a bucket-level request */
  const char *const *qnames, *const *qvalues;
  size_t nq;
  sigv4_header extra[2];   /* e.g. range, if-none-match */
  size_t n_extra;
  const void *body;
  size_t body_len;
  delta_storage_sink *sink;
  const char *label;
} s3_req;

/* Sign and send `r`, counted as `kind` (storage_count_kind; 0 = by method). */
static int s3_send_as(s3_store *s, const s3_req *r, int kind, http_response *resp) {
  delta_buf path = DELTA_BUF_INIT, query = DELTA_BUF_INIT, url = DELTA_BUF_INIT,
            auth = DELTA_BUF_INIT, lines = DELTA_BUF_INIT;
  char date[17], payload[65];
  sigv4_header h[8];
  size_t nh = 0, offs[9];
  const char *ptrs[10];
  s3_creds live = {0};
  int rc;
  const char *ak = s->cfg.access_key, *sk = s->cfg.secret_key, *token = s->cfg.session_token;
  if (s->cfg.sts) {
    /* Web identity: this moment's temporary credentials. */
    if ((rc = s3_sts_get(s->cfg.sts, &live)) != 0) return rc;
    ak = live.access_key;
    sk = live.secret_key;
    token = live.session_token;
  }

  if ((rc = buf_puts(&path, s->path_base)) != 0 || (rc = buf_putc(&path, '/')) != 0)
    goto done;
  if (r->object_key && (rc = sigv4_uri_encode(&path, r->object_key, strlen(r->object_key), true)) != 0)
    goto done;
  if ((rc = buf_putc(&path, '\0')) != 0) goto done;
  if ((rc = sigv4_canonical_query(&query, r->qnames, r->qvalues, r->nq)) != 0 ||
      (rc = buf_putc(&query, '\0')) != 0)
    goto done;
  if ((rc = buf_printf(&url, "%s://%s%s%s%s", s->scheme, s->host, (const char *)path.data,
                             r->nq ? "?" : "", (const char *)query.data)) != 0 ||
      (rc = buf_putc(&url, '\0')) != 0)
    goto done;
  sigv4_amz_date(time(NULL), date);
  if (r->body_len) sigv4_sha256_hex(r->body, r->body_len, payload);
  else memcpy(payload, SIGV4_EMPTY_SHA256, sizeof payload);

  h[nh++] = (sigv4_header){"host", s->host};
  h[nh++] = (sigv4_header){"x-amz-date", date};
  h[nh++] = (sigv4_header){"x-amz-content-sha256", payload};
  if (token) h[nh++] = (sigv4_header){"x-amz-security-token", token};
  for (size_t i = 0; i < r->n_extra; i++) h[nh++] = r->extra[i];
  if (ak) {
    sigv4_key k = {ak, sk, s->cfg.region, "s3"};
    if ((rc = sigv4_authorization(&auth, &k, r->method, (const char *)path.data,
                                  (const char *)query.data, h, nh, date, payload)) != 0 ||
        (rc = buf_putc(&auth, '\0')) != 0)
      goto done;
  }
  /* The header lines, NUL-separated in one buffer; pointers made at the end
   * because the buffer may move while it grows. */
  size_t nl = 0;
  for (size_t i = 0; i < nh; i++) {
    offs[nl++] = lines.len;
    if ((rc = buf_printf(&lines, "%s: %s", h[i].name, h[i].value)) != 0 ||
        (rc = buf_putc(&lines, '\0')) != 0)
      goto done;
  }
  if (ak) {
    offs[nl++] = lines.len;
    if ((rc = buf_printf(&lines, "Authorization: %s", (const char *)auth.data)) != 0 ||
        (rc = buf_putc(&lines, '\0')) != 0)
      goto done;
  }
  for (size_t i = 0; i < nl; i++) ptrs[i] = (const char *)lines.data + offs[i];
  ptrs[nl] = NULL;
  http_request req = {r->method, (const char *)url.data, ptrs, r->body, r->body_len, r->sink,
                      r->label};
  rc = http_send_as(s->http, &req, kind, resp);
done:
  buf_dispose(&path);
  buf_dispose(&query);
  buf_dispose(&url);
  buf_dispose(&auth);
  /* The lines held the signature and any session token. */
  if (lines.data) memset(lines.data, 0, lines.len);
  buf_dispose(&lines);
  s3_creds_dispose(&live);
  return rc;
}

static int s3_send(s3_store *s, const s3_req *r, http_response *resp) {
  return s3_send_as(s, r, STORAGE_COUNT_AUTO, resp);
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

/* The error for a response with an unexpected status: one line with the
 * label, the status and S3's error code (from the error document; HEAD
 * responses have none, so the reason phrase stands in). */
static int status_error(const char *label, http_response *resp, int code) {
  delta_buf c = DELTA_BUF_INIT;
  char shown[64] = "";
  if (resp->body.len && s3_xml_find((const char *)resp->body.data, resp->body.len, "Code", &c) == 0) {
    /* Only a plausible code, never arbitrary server text. */
    size_t n = 0;
    for (; n < c.len && n < sizeof shown - 1; n++) {
      char ch = (char)c.data[n];
      if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
            ch == '.' || ch == '_' || ch == '-'))
        break;
      shown[n] = ch;
    }
    shown[n] = '\0';
  }
  delta_error_clear();
  buf_dispose(&c);
  /* A missing bucket is the store's set-up, not a missing file: callers
   * must not read it as "no table here". */
  if (code == DELTA_ENOTFOUND && strcmp(shown, "NoSuchBucket") == 0) code = DELTA_EIO;
  if (!*shown) snprintf(shown, sizeof shown, "%s", reason(resp->status));
  return err_set(code, "%s: %ld%s%s", label, resp->status, *shown ? " " : "", shown);
}

static void resp_dispose(http_response *r) { buf_dispose(&r->body); }

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
}

static int entries_add(entries *e, const char *name, size_t len, uint64_t size, int64_t mtime,
                       bool is_dir) {
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

/* "2009-10-12T17:50:30.000Z" -> ms since the epoch; 0 when unreadable. */
static int64_t parse_iso_ms(const char *s) {
  struct tm tm = {0};
  int ms = 0, n = 0;
  if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
             &tm.tm_min, &tm.tm_sec, &n) != 6)
    return 0;
  if (s[n] == '.') {
    int digits = 0;
    for (n++; s[n] >= '0' && s[n] <= '9'; n++)
      if (digits++ < 3) ms = ms * 10 + (s[n] - '0');
    while (digits++ < 3) ms *= 10;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);
  return t == (time_t)-1 ? 0 : (int64_t)t * 1000 + ms;
}

/* One ListObjectsV2 page. */
typedef struct {
  const char *dir_prefix; /* full key prefix of the directory ("t/_delta_log/") */
  size_t dir_len;
  entries *out;
  bool truncated;
  delta_buf token;
  /* How many keys and prefixes the page held, before any filtering. */
  size_t seen;
} page;

/* Add one listed key or common prefix, relative to the directory. */
static int page_add(page *p, delta_buf *key, uint64_t size, int64_t mtime, bool is_dir) {
  const char *k = (const char *)key->data;
  size_t kl = key->len;
  p->seen++;
  if (kl < p->dir_len || memcmp(k, p->dir_prefix, p->dir_len) != 0)
    return err_set(DELTA_ECORRUPT, "listing returned a key outside the listed prefix");
  k += p->dir_len;
  kl -= p->dir_len;
  if (is_dir) {
    if (!kl || k[kl - 1] != '/') return err_set(DELTA_ECORRUPT, "listing returned a bad common prefix");
    kl--;
  }
  /* A "dir/" marker object (name "") or a key with an empty segment
   * ("a//b") names nothing a table key can reach: skip it. */
  if (!kl || memchr(k, '/', kl) || memchr(k, '\0', kl)) return 0;
  return entries_add(p->out, k, kl, size, mtime, is_dir);
}

static bool is(const char *s, size_t l, const char *name) {
  return strlen(name) == l && memcmp(s, name, l) == 0;
}

static int parse_page(page *p, const char *doc, size_t len) {
  s3_xml x = S3_XML_INIT(doc, len);
  /* Element path: depth 1 ListBucketResult, 2 Contents/CommonPrefixes/
   * IsTruncated/NextContinuationToken, 3 the entry's fields. */
  char stack[4][32];
  int depth = 0, rc = 0;
  delta_buf text = DELTA_BUF_INIT, key = DELTA_BUF_INIT, tmp = DELTA_BUF_INIT;
  uint64_t size = 0;
  int64_t mtime = 0;
  text.limit = key.limit = tmp.limit = XML_TEXT_MAX;
  for (;;) {
    s3_xml_kind k;
    const char *s;
    size_t l;
    if ((rc = s3_xml_next(&x, &k, &s, &l)) != 0) goto done;
    if (k == S3_XML_END) break;
    if (k == S3_XML_OPEN) {
      if (depth >= 4) { /* deeper elements (Owner/ID...) are skipped by name */
        depth++;
        continue;
      }
      snprintf(stack[depth], sizeof stack[depth], "%.*s", (int)(l < 31 ? l : 31), s);
      depth++;
      text.len = 0;
      if (depth == 2 && (is(s, l, "Contents") || is(s, l, "CommonPrefixes"))) {
        key.len = 0;
        size = 0;
        mtime = 0;
      }
      continue;
    }
    if (k == S3_XML_TEXT) {
      if (depth == 2 || depth == 3) {
        if ((rc = s3_xml_decode(&text, s, l)) != 0) goto done;
      }
      continue;
    }
    /* CLOSE */
    if (depth == 0) {
      rc = err_set(DELTA_ECORRUPT, "malformed XML in an S3 response");
      goto done;
    }
    depth--;
    if (depth >= 4) continue;
    if (!is(s, l, stack[depth]) && l < 31) {
      rc = err_set(DELTA_ECORRUPT, "malformed XML in an S3 response");
      goto done;
    }
    if ((rc = buf_putc(&text, '\0')) != 0) goto done;
    text.len--;
    const char *t = (const char *)text.data;
    if (depth == 2 && strcmp(stack[0], "ListBucketResult") == 0) {
      if (strcmp(stack[1], "Contents") == 0) {
        if (strcmp(stack[2], "Key") == 0) {
          key.len = 0;
          if ((rc = buf_append(&key, t, text.len)) != 0) goto done;
        } else if (strcmp(stack[2], "Size") == 0) {
          char *end;
          size = strtoull(t, &end, 10);
          if (!*t || *end) {
            rc = err_set(DELTA_ECORRUPT, "listing has a bad Size");
            goto done;
          }
        } else if (strcmp(stack[2], "LastModified") == 0) {
          mtime = parse_iso_ms(t);
        }
      } else if (strcmp(stack[1], "CommonPrefixes") == 0 && strcmp(stack[2], "Prefix") == 0) {
        key.len = 0;
        if ((rc = buf_append(&key, t, text.len)) != 0) goto done;
      }
    } else if (depth == 1 && strcmp(stack[0], "ListBucketResult") == 0) {
      if (strcmp(stack[1], "Contents") == 0) {
        if ((rc = page_add(p, &key, size, mtime, false)) != 0) goto done;
      } else if (strcmp(stack[1], "CommonPrefixes") == 0) {
        if ((rc = page_add(p, &key, 0, 0, true)) != 0) goto done;
      } else if (strcmp(stack[1], "IsTruncated") == 0) {
        p->truncated = strcmp(t, "true") == 0;
      } else if (strcmp(stack[1], "NextContinuationToken") == 0) {
        p->token.len = 0;
        if ((rc = buf_append(&p->token, t, text.len)) != 0 ||
            (rc = buf_putc(&p->token, '\0')) != 0)
          goto done;
      }
    }
    text.len = 0;
  }
  if (depth != 0) rc = err_set(DELTA_ECORRUPT, "malformed XML in an S3 response");
done:
  if (rc == DELTA_ELIMIT) rc = err_set(DELTA_ECORRUPT, "listing has an element too long");
  buf_dispose(&text);
  buf_dispose(&key);
  buf_dispose(&tmp);
  return rc;
}

/* List the full prefix `dir` into `out`; *any* tells whether the store held
 * anything under it before `start` filtering. */
static int list_prefix(s3_store *s, const char *dir, const char *start, size_t max_keys,
                       const char *label, entries *out, size_t *seen) {
  page p = {dir, strlen(dir), out, false, DELTA_BUF_INIT, 0};
  char max[24];
  int rc = 0;
  snprintf(max, sizeof max, "%zu", max_keys);
  *seen = 0;
  for (bool first = true;; first = false) {
    const char *names[6], *values[6];
    size_t nq = 0;
    names[nq] = "list-type", values[nq++] = "2";
    names[nq] = "delimiter", values[nq++] = "/";
    names[nq] = "prefix", values[nq++] = dir;
    if (max_keys) names[nq] = "max-keys", values[nq++] = max;
    if (first && start) names[nq] = "start-after", values[nq++] = start;
    if (!first) names[nq] = "continuation-token", values[nq++] = (const char *)p.token.data;
    s3_req r = {"GET", NULL, names, values, nq, {{0}}, 0, NULL, 0, NULL, label};
    http_response resp = {0};
    resp.body.limit = LIST_PAGE_MAX;
    p.truncated = false;
    if ((rc = s3_send_as(s, &r, STORAGE_COUNT_LIST, &resp)) != 0) {
      resp_dispose(&resp);
      goto done;
    }
    if (resp.status != 200) {
      rc = status_error(label, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
      resp_dispose(&resp);
      goto done;
    }
    rc = parse_page(&p, (const char *)resp.body.data, resp.body.len);
    resp_dispose(&resp);
    if (rc) {
      err_prefix("%s", label);
      goto done;
    }
    if (!p.truncated || max_keys) break;
    if (!p.token.len) {
      rc = err_set(DELTA_ECORRUPT, "%s: truncated listing without a continuation token", label);
      goto done;
    }
  }
done:
  *seen = p.seen;
  buf_dispose(&p.token);
  return rc;
}

static int s3_list(void *impl, const char *dir_key, const char *start_after,
                   delta_storage_list_cb cb, void *payload) {
  s3_store *s = impl;
  delta_buf dir = DELTA_BUF_INIT, start = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  entries e = {0}, probe = {0};
  size_t seen = 0;
  int rc;
  if ((rc = full_key(&dir, s, dir_key)) != 0) goto done;
  dir.len--; /* drop the NUL to append '/' */
  if (dir.len && (rc = buf_putc(&dir, '/')) != 0) goto done;
  if ((rc = buf_putc(&dir, '\0')) != 0) goto done;
  if ((rc = make_label(&label, s, (const char *)dir.data)) != 0) goto done;
  if (start_after && ((rc = buf_printf(&start, "%s%s", (const char *)dir.data, start_after)) != 0 ||
                      (rc = buf_putc(&start, '\0')) != 0))
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
      rc = err_set(DELTA_ENOTFOUND, "%s: not found (no object has this prefix)",
                           (const char *)label.data);
      goto done;
    }
  }
  if (e.n) qsort(e.v, e.n, sizeof *e.v, entry_cmp);
  for (size_t i = 0; i < e.n; i++) {
    if (start_after && strcmp(e.v[i].name, start_after) <= 0) continue;
    /* A file and a directory of one name are both real; the same entry
     * twice is not (a misbehaving server). */
    if (i && strcmp(e.v[i].name, e.v[i - 1].name) == 0 && e.v[i].is_dir == e.v[i - 1].is_dir) continue;
    delta_storage_entry de = {e.v[i].name, strlen(e.v[i].name), e.v[i].size, e.v[i].mtime_ms,
                              e.v[i].is_dir};
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

static int s3_head(void *impl, const char *key, delta_file_info *out) {
  s3_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = full_key(&k, s, key)) != 0 || (rc = make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  s3_req r = {"HEAD", (const char *)k.data, NULL, NULL, 0, {{0}}, 0, NULL, 0, NULL,
              (const char *)label.data};
  if ((rc = s3_send(s, &r, &resp)) != 0) goto done;
  if (resp.status != 200) {
    rc = status_error((const char *)label.data, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
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

static int s3_read(void *impl, const char *key, uint64_t offset, uint64_t len,
                   delta_storage_sink *sink) {
  s3_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  http_response resp = {0};
  char range[64];
  int rc;
  if (len == 0) {
    /* Nothing to fetch, but the file must exist and the offset be valid. */
    delta_file_info fi;
    if ((rc = s3_head(impl, key, &fi)) != 0) return rc;
    if (offset > fi.size)
      return err_set(DELTA_EINVAL, "read '%s': offset %llu past the end (%llu bytes)", key,
                             (unsigned long long)offset, (unsigned long long)fi.size);
    return 0;
  }
  if ((rc = full_key(&k, s, key)) != 0 || (rc = make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  s3_req r = {"GET", (const char *)k.data, NULL, NULL, 0, {{0}}, 0, NULL, 0, sink,
              (const char *)label.data};
  bool ranged = offset > 0 || len != DELTA_STORAGE_TO_END;
  if (ranged) {
    if (len == DELTA_STORAGE_TO_END || len - 1 > UINT64_MAX - offset)
      snprintf(range, sizeof range, "bytes=%llu-", (unsigned long long)offset);
    else
      snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)offset,
               (unsigned long long)(offset + len - 1));
    r.extra[r.n_extra++] = (sigv4_header){"range", range};
  }
  if ((rc = s3_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 416) {
    /* Past the end, or exactly at it: S3 refuses both; the contract tells
     * them apart. */
    delta_file_info fi;
    if ((rc = s3_head(impl, key, &fi)) != 0) goto done;
    if (offset == fi.size) rc = 0;
    else
      rc = err_set(DELTA_EINVAL, "read '%s': offset %llu past the end (%llu bytes)", key,
                           (unsigned long long)offset, (unsigned long long)fi.size);
    goto done;
  }
  if (resp.status == 200 && ranged && offset > 0) {
    /* The server ignored the Range: what the sink got is the wrong bytes. */
    rc = err_set(DELTA_EIO, "%s: server ignored the Range header", (const char *)label.data);
    goto done;
  }
  if (resp.status != 200 && resp.status != 206) {
    rc = status_error((const char *)label.data, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
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

/* Settle a put-if-absent whose answer did not say who won (see
 * storage_settle_put): `cause` is the code of what went wrong, its message
 * in `why`. A missing object means the put did not happen: the original
 * failure stands. A failed read-back leaves the outcome unknown: the
 * original failure stands too, and says so. */
static int settle(s3_store *s, const char *key, const char *label, const void *data, size_t len,
                  int cause, const char *why) {
  int rc = storage_settle_put(s3_read, s, key, label, data, len);
  if (rc == 0 || rc == DELTA_EEXISTS) return rc;
  if (rc == DELTA_ENOTFOUND) return err_set(cause, "%s", why);
  return err_set(cause, "%s (outcome unknown: reading it back failed too)", why);
}

/* Without conditional writes, put-if-absent is a HEAD then a plain PUT: two
 * writers can both see "absent" and the later PUT wins. Only with the
 * explicit opt-in, and the first time with a warning. */
static int unsafe_put_if_absent(s3_store *s, s3_req *r, const char *key, const char *label,
                                http_response *resp) {
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  delta_file_info fi;
  int rc;
  if (!s->cfg.allow_unsafe_rename)
    return err_set(DELTA_EUNSUPPORTED,
                   "%s: cannot commit: the store has no conditional writes (aws_conditional_put=none) "
                   "and two writers could overwrite each other; set aws_s3_allow_unsafe_rename=true "
                   "if only one writer ever commits",
                   label);
  if (!atomic_flag_test_and_set(&warned))
    fprintf(stderr, "deltac: warning: %s: committing without conditional writes "
                    "(aws_s3_allow_unsafe_rename=true): concurrent writers can lose commits\n",
            s->label);
  rc = s3_head(s, key, &fi);
  if (rc == 0) return err_set(DELTA_EEXISTS, "put '%s': already exists", label);
  if (rc != DELTA_ENOTFOUND) return rc;
  delta_error_clear();
  return s3_send(s, r, resp);
}

static int s3_put(void *impl, const char *key, const void *data, size_t len, bool overwrite) {
  s3_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  http_response resp = {0};
  char why[512];
  int rc;
  if ((rc = full_key(&k, s, key)) != 0 || (rc = make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  const char *lb = (const char *)label.data;
  s3_req r = {"PUT", (const char *)k.data, NULL, NULL, 0, {{0}}, 0, data, len, NULL, lb};
  bool conditional = !overwrite && s->cfg.conditional_put;
  if (conditional) r.extra[r.n_extra++] = (sigv4_header){"if-none-match", "*"};
  if (!overwrite && !conditional) rc = unsafe_put_if_absent(s, &r, key, lb, &resp);
  else rc = s3_send(s, &r, &resp);
  if (rc != 0) {
    /* The connection broke or timed out, maybe after the store took the
     * body: read it back to learn who won. */
    if (conditional && rc == DELTA_EIO) {
      snprintf(why, sizeof why, "%s", delta_error_last());
      rc = settle(s, key, lb, data, len, rc, why);
    }
    goto done;
  }
  if (resp.status == 200 || resp.status == 201 || resp.status == 204) goto done;
  if (conditional && (resp.status == 412 || resp.status == 409)) {
    /* After a retry, the "exists" may be our own first attempt. */
    if (resp.attempts > 1) {
      snprintf(why, sizeof why, "put '%s': %ld after a resent request, yet the object is not there",
               lb, resp.status);
      rc = settle(s, key, lb, data, len, DELTA_EIO, why);
      goto done;
    }
    rc = err_set(DELTA_EEXISTS, "put '%s': already exists (%ld)", lb, resp.status);
    goto done;
  }
  rc = status_error(lb, &resp, DELTA_EIO);
  /* A 5xx after the retries: the store may still have applied one of the
   * attempts. */
  if (conditional && resp.status >= 500) {
    snprintf(why, sizeof why, "%s", delta_error_last());
    rc = settle(s, key, lb, data, len, rc, why);
  }
done:
  resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  return rc;
}

static int s3_remove(void *impl, const char *key) {
  s3_store *s = impl;
  delta_buf k = DELTA_BUF_INIT, label = DELTA_BUF_INIT, code = DELTA_BUF_INIT;
  http_response resp = {0};
  int rc;
  if ((rc = full_key(&k, s, key)) != 0 || (rc = make_label(&label, s, (const char *)k.data)) != 0)
    goto done;
  s3_req r = {"DELETE", (const char *)k.data, NULL, NULL, 0, {{0}}, 0, NULL, 0, NULL,
              (const char *)label.data};
  if ((rc = s3_send(s, &r, &resp)) != 0) goto done;
  if (resp.status == 200 || resp.status == 204) goto done;
  /* A missing key is success (delete is idempotent); a missing bucket is not. */
  if (resp.status == 404 &&
      !(s3_xml_find((const char *)resp.body.data, resp.body.len, "Code", &code) == 0 &&
        code.len == 12 && memcmp(code.data, "NoSuchBucket", 12) == 0)) {
    delta_error_clear();
    goto done;
  }
  rc = status_error((const char *)label.data, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
done:
  resp_dispose(&resp);
  buf_dispose(&k);
  buf_dispose(&label);
  buf_dispose(&code);
  return rc;
}

static void s3_free(void *impl) {
  s3_store *s = impl;
  if (!s) return;
  http_client_free(s->http);
  s3_config_dispose(&s->cfg);
  mem_free(s->bucket);
  mem_free(s->prefix);
  mem_free(s->scheme);
  mem_free(s->host);
  mem_free(s->path_base);
  mem_free(s->label);
  mem_free(s);
}

/* ---- for s3_upload.c ---- */

int s3_key_request(void *impl, const char *method, const char *key, const char *const *qnames,
                   const char *const *qvalues, size_t nq, const void *body, size_t body_len,
                   delta_buf *label, http_response *resp) {
  s3_store *s = impl;
  delta_buf k = DELTA_BUF_INIT;
  int rc;
  label->len = 0;
  if ((rc = full_key(&k, s, key)) != 0 || (rc = make_label(label, s, (const char *)k.data)) != 0)
    goto done;
  s3_req r = {method, (const char *)k.data, qnames, qvalues, nq, {{0}}, 0, body, body_len, NULL,
              (const char *)label->data};
  rc = s3_send(s, &r, resp);
done:
  buf_dispose(&k);
  return rc;
}

int s3_status_error(const char *label, http_response *resp, int code) {
  return status_error(label, resp, code);
}

static const delta_storage_vtable S3_VTABLE = {
    .version = DELTA_STORAGE_VTABLE_VERSION,
    .list = s3_list,
    .read = s3_read,
    .head = s3_head,
    .put = s3_put,
    .remove = s3_remove,
    .free = s3_free,
    .upload_open = s3_upload_open,
    .upload_write = s3_upload_write,
    .upload_finish = s3_upload_finish,
    .upload_abort = s3_upload_abort,
};

/* ---- opening ---- */

static bool bucket_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

static int set_str(char **out, const char *s, size_t n) {
  return (*out = mem_strndup(s, n)) ? 0 : DELTA_NOMEM();
}

/* Split the endpoint into scheme, host[:port] and a path, and build where
 * requests go: path-style "host/bucket/key" or virtual-hosted
 * "bucket.host/key". */
static int set_endpoint(s3_store *s, const char *location) {
  delta_buf b = DELTA_BUF_INIT, hb = DELTA_BUF_INIT, pb = DELTA_BUF_INIT;
  int rc;
  const char *ep = s->cfg.endpoint;
  if (!ep) {
    if ((rc = buf_printf(&b, "https://s3.%s.amazonaws.com", s->cfg.region)) != 0 ||
        (rc = buf_putc(&b, '\0')) != 0)
      goto done;
    ep = (const char *)b.data;
  }
  const char *sep = strstr(ep, "://");
  size_t sl = sep ? (size_t)(sep - ep) : 0;
  if (!sep || !((sl == 5 && strncasecmp(ep, "https", 5) == 0) || (sl == 4 && strncasecmp(ep, "http", 4) == 0))) {
    rc = err_set(DELTA_EINVAL, "%s: the S3 endpoint must be an http:// or https:// URL", location);
    goto done;
  }
  if (sl == 4 && !s->cfg.allow_http) {
    rc = err_set(DELTA_EINVAL, "%s: the S3 endpoint is http:// but allow_http is not set "
                                       "(option aws_allow_http=true or AWS_ALLOW_HTTP=true)", location);
    goto done;
  }
  const char *host = sep + 3, *slash = strchr(host, '/');
  size_t hl = slash ? (size_t)(slash - host) : strlen(host);
  const char *path = slash ? slash : "";
  size_t pl = strlen(path);
  while (pl && path[pl - 1] == '/') pl--;
  if (!hl || memchr(host, '@', hl) || strpbrk(path, "?#")) {
    rc = err_set(DELTA_EINVAL, "%s: the S3 endpoint must be scheme://host[:port][/path]", location);
    goto done;
  }
  if ((rc = set_str(&s->scheme, ep, sl)) != 0) goto done;
  for (char *p = s->scheme; *p; p++) *p = (char)(*p | 0x20);
  if (s->cfg.virtual_hosted) rc = buf_printf(&hb, "%s.%.*s", s->bucket, (int)hl, host);
  else rc = buf_printf(&hb, "%.*s", (int)hl, host);
  if (!rc) rc = buf_putc(&hb, '\0');
  if (!rc) rc = buf_printf(&pb, "%.*s", (int)pl, path);
  if (!rc && !s->cfg.virtual_hosted) {
    rc = buf_putc(&pb, '/');
    if (!rc) rc = sigv4_uri_encode(&pb, s->bucket, strlen(s->bucket), false);
  }
  if (!rc) rc = buf_putc(&pb, '\0');
  if (!rc) {
    s->host = (char *)buf_detach(&hb);
    s->path_base = (char *)buf_detach(&pb);
  }
done:
  buf_dispose(&hb);
  buf_dispose(&pb);
  buf_dispose(&b);
  return rc;
}

int s3_open(delta_storage **out, const char *location, const storage_options *opts) {
  s3_store *s = NULL;
  delta_buf prefix = DELTA_BUF_INIT, uri = DELTA_BUF_INIT;
  int rc;
  const char *p = strstr(location, "://");
  if (!p) return err_set(DELTA_EINVAL, "'%s' is not an s3:// URI", location);
  const char *bucket = p + 3, *slash = strchr(bucket, '/');
  size_t bl = slash ? (size_t)(slash - bucket) : strlen(bucket);
  if (!bl) return err_set(DELTA_EINVAL, "'%s' names no bucket", location);
  for (size_t i = 0; i < bl; i++)
    if (!bucket_char(bucket[i]))
      return err_set(DELTA_EINVAL, "'%s': bad character in the bucket name", location);
  if (strpbrk(bucket, "?#"))
    return err_set(DELTA_EINVAL, "'%s': a table URI has no query or fragment", location);
  if (!(s = mem_calloc(1, sizeof *s))) return DELTA_NOMEM();
  if ((rc = set_str(&s->bucket, bucket, bl)) != 0) goto fail;
  /* The prefix: percent-decoded, without the slashes around it. */
  const char *pp = slash ? slash : "";
  while (*pp == '/') pp++;
  size_t ppl = strlen(pp);
  while (ppl && pp[ppl - 1] == '/') ppl--;
  if (ppl) {
    if ((rc = storage_path_decode(&prefix, pp, ppl)) != 0) {
      rc = err_set(DELTA_EINVAL, "'%s': the path decodes to a NUL byte", location);
      goto fail;
    }
    if ((rc = buf_putc(&prefix, '\0')) != 0) goto fail;
    if (storage_path_check_key((const char *)prefix.data, false) != 0) {
      rc = err_set(DELTA_EINVAL, "'%s': the path has an empty, '.' or '..' segment", location);
      goto fail;
    }
    s->prefix = (char *)buf_detach(&prefix);
  } else if ((rc = set_str(&s->prefix, "", 0)) != 0) {
    goto fail;
  }
  if ((rc = buf_printf(&uri, "s3://%s", s->bucket)) != 0 || (rc = buf_putc(&uri, '\0')) != 0)
    goto fail;
  s->label = (char *)buf_detach(&uri);
  if ((rc = s3_config_resolve(&s->cfg, opts)) != 0) goto fail;
  if ((rc = set_endpoint(s, location)) != 0) goto fail;
  if ((rc = http_client_new(&s->http, &s->cfg.http)) != 0) goto fail;
  /* Borrowed from the options; the client has its copies. */
  s->cfg.http.user_agent = NULL;
  s->cfg.http.proxy_url = NULL;
  /* The location handed to the dispatcher: s3://bucket/ + the prefix
   * encoded as add.path values are, so absolute paths in the log that point
   * inside the table are recognised. */
  if ((rc = buf_printf(&uri, "s3://%s", s->bucket)) != 0) goto fail;
  if (*s->prefix && ((rc = buf_putc(&uri, '/')) != 0 ||
                     (rc = storage_path_encode(&uri, s->prefix, strlen(s->prefix))) != 0))
    goto fail;
  if ((rc = buf_putc(&uri, '\0')) != 0) goto fail;
  if ((rc = delta_storage_new(out, &S3_VTABLE, s, (const char *)uri.data)) != 0) goto fail;
  /* Every HTTP request (retries, listing pages) counts, not the operations. */
  http_client_set_counters(s->http, storage_counters_of(*out));
  buf_dispose(&uri);
  return 0;
fail:
  buf_dispose(&prefix);
  buf_dispose(&uri);
  s3_free(s);
  return rc;
}
