/*
 * The object stores' HTTP client (see http.h).
 */
#include "storage/http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define POOL_MAX 64                  /* idle handles kept per client */
#define ERROR_BODY_MAX (64 * 1024)   /* how much of an error document is kept */
#define BACKOFF_BASE_MS 100
#define BACKOFF_CAP_MS 15000

struct http_client {
  http_config cfg;
  char *user_agent;
  char *ca_bundle; /* NULL: libcurl's default (the system bundle) */
  char *proxy_url; /* NULL: libcurl's default */
  storage_counters *counters; /* NULL: nothing counted */
  pthread_mutex_t lock;
  CURL *idle[POOL_MAX];
  int n_idle;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void) { global_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

int http_client_new(http_client **out, const http_config *cfg) {
  http_client *c = NULL;
  int rc;
  pthread_once(&global_once, global_init);
  if (global_rc != CURLE_OK)
    return err_set(DELTA_EIO, "cannot initialise libcurl: %s", curl_easy_strerror(global_rc));
  if (!(c = mem_calloc(1, sizeof *c))) return DELTA_NOMEM();
  c->cfg = *cfg;
  const char *ua = cfg->user_agent ? cfg->user_agent : "deltac/" DELTAC_VERSION;
  const char *ca = cfg->ca_bundle;
  if (!ca || !*ca) ca = getenv("AWS_CA_BUNDLE");
  if (!ca || !*ca) ca = getenv("SSL_CERT_FILE");
  if (!(c->user_agent = mem_strdup(ua)) || (ca && *ca && !(c->ca_bundle = mem_strdup(ca))) ||
      (cfg->proxy_url && *cfg->proxy_url && !(c->proxy_url = mem_strdup(cfg->proxy_url)))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  c->cfg.user_agent = c->user_agent;
  c->cfg.ca_bundle = c->ca_bundle;
  c->cfg.proxy_url = c->proxy_url;
  if (pthread_mutex_init(&c->lock, NULL) != 0) {
    rc = err_set(DELTA_EIO, "cannot create a mutex");
    goto fail;
  }
  *out = c;
  return 0;
fail:
  mem_free(c->user_agent);
  mem_free(c->ca_bundle);
  mem_free(c->proxy_url);
  mem_free(c);
  return rc;
}

void http_client_free(http_client *c) {
  if (!c) return;
  for (int i = 0; i < c->n_idle; i++) curl_easy_cleanup(c->idle[i]);
  pthread_mutex_destroy(&c->lock);
  mem_free(c->user_agent);
  mem_free(c->ca_bundle);
  mem_free(c->proxy_url);
  mem_free(c);
}

void http_client_set_counters(http_client *c, struct storage_counters *counters) {
  c->counters = counters;
}

/* The counter kind of `req`: its own, or the method's. */
static storage_count_kind count_kind(const http_request *req, int kind) {
  if (kind > STORAGE_COUNT_AUTO && kind < STORAGE_COUNT_KINDS) return (storage_count_kind)kind;
  if (strcmp(req->method, "GET") == 0) return STORAGE_COUNT_GET;
  if (strcmp(req->method, "HEAD") == 0) return STORAGE_COUNT_HEAD;
  if (strcmp(req->method, "DELETE") == 0) return STORAGE_COUNT_DEL;
  return STORAGE_COUNT_PUT; /* PUT, POST (uploads, token requests) */
}

/* Borrow a handle (keeping its live connections) or make a new one. */
static CURL *handle_get(http_client *c) {
  CURL *h = NULL;
  pthread_mutex_lock(&c->lock);
  if (c->n_idle > 0) h = c->idle[--c->n_idle];
  pthread_mutex_unlock(&c->lock);
  return h ? h : curl_easy_init();
}

static void handle_put(http_client *c, CURL *h) {
  pthread_mutex_lock(&c->lock);
  if (c->n_idle < POOL_MAX) {
    c->idle[c->n_idle++] = h;
    h = NULL;
  }
  pthread_mutex_unlock(&c->lock);
  if (h) curl_easy_cleanup(h);
}

/* One attempt's state, shared with libcurl's callbacks. */
typedef struct {
  CURL *h;
  const http_request *req;
  http_response *resp;
  const char *capture; /* header kept in resp->captured, or NULL */
  size_t sent;         /* upload position */
  int resends;         /* libcurl sent the body again on a fresh connection */
  uint64_t delivered;  /* 2xx body bytes given to the sink or resp->body */
  bool started;        /* first body byte seen: status and length known */
  bool success;        /* 2xx */
  int sink_rc;         /* the sink's refusal, returned as-is */
  long retry_after_ms; /* the server's Retry-After (seconds form), 0 when absent */
} attempt;

static size_t on_read(char *buf, size_t size, size_t n, void *p) {
  attempt *a = p;
  size_t room = size * n, left = a->req->body_len - a->sent;
  size_t k = left < room ? left : room;
  if (k) memcpy(buf, (const char *)a->req->body + a->sent, k);
  a->sent += k;
  return k;
}

/* libcurl rewinds the upload when it re-sends on a fresh connection (a
 * kept-alive one the server had closed); without this it would give up. */
static int on_seek(void *p, curl_off_t offset, int origin) {
  attempt *a = p;
  if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > a->req->body_len) return CURL_SEEKFUNC_FAIL;
  /* A rewind means the request goes out again: the first sending may have
   * reached the server (it matters to a conditional PUT's 412). */
  if (offset == 0 && a->sent > 0) a->resends++;
  a->sent = (size_t)offset;
  return CURL_SEEKFUNC_OK;
}

static size_t on_header(char *buf, size_t size, size_t n, void *p) {
  attempt *a = p;
  size_t len = size * n;
  static const char name[] = "content-range:", ra[] = "retry-after:";
  if (len > sizeof ra - 1 && strncasecmp(buf, ra, sizeof ra - 1) == 0) {
    /* Only the delay-seconds form; an HTTP date is left to the backoff. */
    long secs = 0;
    size_t i = sizeof ra - 1;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t')) i++;
    for (; i < len && buf[i] >= '0' && buf[i] <= '9' && secs < 3600; i++) secs = secs * 10 + (buf[i] - '0');
    a->retry_after_ms = secs * 1000;
    return len;
  }
  if (len > sizeof name - 1 && strncasecmp(buf, name, sizeof name - 1) == 0) {
    const char *v = buf + sizeof name - 1;
    size_t vl = len - (sizeof name - 1);
    while (vl && (*v == ' ' || *v == '\t')) v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ')) vl--;
    if (vl >= sizeof a->resp->content_range) vl = sizeof a->resp->content_range - 1;
    memcpy(a->resp->content_range, v, vl);
    a->resp->content_range[vl] = '\0';
  }
  size_t cn = a->capture ? strlen(a->capture) : 0;
  if (cn && len > cn && buf[cn] == ':' && strncasecmp(buf, a->capture, cn) == 0) {
    const char *v = buf + cn + 1;
    size_t vl = len - cn - 1;
    while (vl && (*v == ' ' || *v == '\t')) v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ')) vl--;
    if (vl < sizeof a->resp->captured) {
      memcpy(a->resp->captured, v, vl);
      a->resp->captured[vl] = '\0';
    }
  }
  return len;
}

static size_t on_write(char *data, size_t size, size_t n, void *p) {
  attempt *a = p;
  size_t len = size * n;
  if (!a->started) {
    long status = 0;
    curl_off_t cl = -1;
    a->started = true;
    curl_easy_getinfo(a->h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(a->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    a->success = status >= 200 && status < 300;
    if (a->success && cl >= 0 && a->req->sink && a->req->sink->expect) {
      int rc = a->req->sink->expect(a->req->sink, (uint64_t)cl);
      if (rc) {
        a->sink_rc = rc;
        return 0; /* aborts the transfer (CURLE_WRITE_ERROR) */
      }
    }
  }
  if (!a->success) {
    /* An error document: keep the start of it for the caller's message. */
    size_t room = ERROR_BODY_MAX - a->resp->body.len;
    if (len < room) room = len;
    if (room && buf_append(&a->resp->body, data, room) != 0) delta_error_clear();
    return len;
  }
  int rc = a->req->sink ? a->req->sink->write(a->req->sink, data, len)
                        : buf_append(&a->resp->body, data, len);
  if (rc) {
    a->sink_rc = rc;
    return 0;
  }
  a->delivered += len;
  return len;
}

static bool retryable_status(long s) {
  return s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

/* Transport failures worth another attempt: the connection could not be
 * made or broke. Resolution failures and TLS verification failures are
 * configuration errors and are not retried. */
static bool retryable_curl(CURLcode e) {
  switch (e) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
  case CURLE_SSL_CONNECT_ERROR:
    return true;
  default:
    return false;
  }
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Full-range jitter on half the exponential delay, so that many clients
 * throttled together do not come back together. */
static long backoff_ms(int retry) {
  static _Thread_local unsigned int seed;
  if (!seed) seed = (unsigned int)time(NULL) ^ (unsigned int)(uintptr_t)&seed;
  long d = BACKOFF_BASE_MS;
  for (int i = 1; i < retry && d < BACKOFF_CAP_MS; i++) d *= 2;
  if (d > BACKOFF_CAP_MS) d = BACKOFF_CAP_MS;
  return d / 2 + (long)(rand_r(&seed) % (unsigned int)(d / 2 + 1));
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Set up handle `h` for one attempt of `req`. */
static int setup(http_client *c, attempt *a, struct curl_slist **hdrs, char *errbuf) {
  CURL *h = a->h;
  const http_request *req = a->req;
  curl_easy_reset(h);
  for (const char *const *p = req->headers; p && *p; p++) {
    struct curl_slist *n = curl_slist_append(*hdrs, *p);
    if (!n) return DELTA_NOMEM();
    *hdrs = n;
  }
  /* No "Expect: 100-continue" round trip, no Accept header guesses. */
  struct curl_slist *n = curl_slist_append(*hdrs, "Expect:");
  if (!n) return DELTA_NOMEM();
  *hdrs = n;
  curl_easy_setopt(h, CURLOPT_URL, req->url);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
  curl_easy_setopt(h, CURLOPT_USERAGENT, c->cfg.user_agent);
  curl_easy_setopt(h, CURLOPT_FILETIME, 1L);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, a);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, a);
  if (c->cfg.timeout_ms > 0) curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->cfg.timeout_ms);
  if (c->cfg.connect_timeout_ms > 0)
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->cfg.connect_timeout_ms);
  if (c->cfg.ca_bundle) curl_easy_setopt(h, CURLOPT_CAINFO, c->cfg.ca_bundle);
  if (c->cfg.proxy_url) curl_easy_setopt(h, CURLOPT_PROXY, c->cfg.proxy_url);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  if (strcmp(req->method, "HEAD") == 0) {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (strcmp(req->method, "PUT") == 0 || strcmp(req->method, "POST") == 0) {
    /* A POST is an upload with another verb, so that its body streams the
     * same way (and rewinds on a re-send). */
    if (req->method[1] == 'O') curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "POST");
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, a);
    curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
    curl_easy_setopt(h, CURLOPT_SEEKDATA, a);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->body_len);
  } else if (strcmp(req->method, "POST") == 0) {
    /* A form (a token request): the body through the same read callback,
     * so that a resend rewinds it. */
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, a);
    curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
    curl_easy_setopt(h, CURLOPT_SEEKDATA, a);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
  } else if (strcmp(req->method, "GET") != 0) {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
  }
  return 0;
}

static int send_request(http_client *c, const http_request *req, int kind, const char *capture,
                        http_response *resp);

int http_send(http_client *c, const http_request *req, http_response *resp) {
  return send_request(c, req, STORAGE_COUNT_AUTO, NULL, resp);
}

int http_send_as(http_client *c, const http_request *req, int kind, http_response *resp) {
  return send_request(c, req, kind, NULL, resp);
}

int http_send_capture(http_client *c, const http_request *req, const char *capture,
                      http_response *resp) {
  return send_request(c, req, STORAGE_COUNT_AUTO, capture, resp);
}

/* The one sender behind the three entry points: `kind` counts the requests
 * (STORAGE_COUNT_AUTO: by method), `capture` names a header to keep. */
static int send_request(http_client *c, const http_request *req, int kind, const char *capture,
                        http_response *resp) {
  int rc = 0;
  CURL *h = handle_get(c);
  struct curl_slist *hdrs = NULL;
  char errbuf[CURL_ERROR_SIZE];
  int64_t start = now_ms();
  int resends = 0;
  memset(resp, 0, offsetof(http_response, body));
  resp->body.len = 0;
  if (!h) return DELTA_NOMEM();
  for (int attempt_no = 1;; attempt_no++) {
    attempt a = {h, req, resp, capture, 0, 0, 0, false, false, 0, 0};
    curl_slist_free_all(hdrs);
    hdrs = NULL;
    errbuf[0] = '\0';
    resp->body.len = 0;
    resp->content_range[0] = '\0';
    resp->captured[0] = '\0';
    resp->attempts = attempt_no + resends;
    if ((rc = setup(c, &a, &hdrs, errbuf)) != 0) goto done;
    CURLcode e = curl_easy_perform(h);
    /* libcurl's own resends (a kept-alive connection the server had
     * closed) count as requests and retries too. */
    resends += a.resends;
    resp->attempts = attempt_no + resends;
    for (int i = 0; i < a.resends; i++) {
      storage_count(c->counters, count_kind(req, kind), 0);
      storage_count_retry(c->counters);
    }
    storage_count(c->counters, count_kind(req, kind), a.delivered + a.sent);
    if (attempt_no > 1) storage_count_retry(c->counters);
    if (a.sink_rc) {
      rc = a.sink_rc;
      goto done;
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    resp->status = e == CURLE_OK ? status : 0;
    /* Another attempt only when nothing reached the caller's sink: a body
     * cannot be taken back. */
    bool again = a.delivered == 0 && (e != CURLE_OK ? retryable_curl(e) : retryable_status(status));
    if (again && attempt_no <= c->cfg.max_retries) {
      long d = backoff_ms(attempt_no);
      /* A throttling server may say how long to wait; it is believed up to
       * the backoff cap. */
      if (e == CURLE_OK && a.retry_after_ms > d) d = a.retry_after_ms < BACKOFF_CAP_MS ? a.retry_after_ms : BACKOFF_CAP_MS;
      if (now_ms() + d - start <= c->cfg.retry_timeout_ms) {
        sleep_ms(d);
        continue;
      }
    }
    if (e != CURLE_OK) {
      const char *why = errbuf[0] ? errbuf : curl_easy_strerror(e);
      if (a.delivered)
        rc = err_set(DELTA_EIO, "%s: connection failed after %llu bytes of the body: %s",
                             req->label, (unsigned long long)a.delivered, why);
      else
        rc = err_set(DELTA_EIO, "%s: %s%s", req->label, why,
                             attempt_no > 1 ? " (after retries)" : "");
      goto done;
    }
    curl_off_t cl = -1, ft = -1;
    curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    curl_easy_getinfo(h, CURLINFO_FILETIME_T, &ft);
    resp->has_length = cl >= 0;
    resp->content_length = cl >= 0 ? (uint64_t)cl : 0;
    resp->mtime_ms = ft >= 0 ? (int64_t)ft * 1000 : 0;
    /* A body shorter (or longer) than announced is an error, not data. */
    if (status >= 200 && status < 300 && resp->has_length && strcmp(req->method, "HEAD") != 0 &&
        a.delivered != resp->content_length) {
      rc = err_set(DELTA_EIO, "%s: %ld response body has %llu bytes, Content-Length says %llu",
                           req->label, status, (unsigned long long)a.delivered,
                           (unsigned long long)resp->content_length);
      goto done;
    }
    rc = 0;
    goto done;
  }
done:
  curl_slist_free_all(hdrs);
  handle_put(c, h);
  return rc;
}
