/*
 * Client-credential tokens for the Azure back end (see azure_token.h).
 *
 * The token request is a form POST, which the object-store client in http.c
 * (GET/HEAD/PUT/DELETE) does not send, so it goes through libcurl here: one
 * request per token lifetime (about an hour), retried like the rest on
 * connection errors and 429/5xx.
 */
#include "storage/azure_token.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "storage/azure_auth.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define TOKEN_BODY_MAX (64 * 1024)
#define EARLY_REFRESH_S 60

struct azure_token_cache {
  pthread_mutex_t lock;
  char *url;         /* <authority>/<tenant>/oauth2/v2.0/token */
  char *form;        /* the POST body: holds the secret */
  http_config http;
  char *user_agent, *ca_bundle;
  char *token;       /* NULL until fetched */
  time_t expires_at; /* wall clock */
};

static void wipe_free(char *s) {
  if (s) memset(s, 0, strlen(s));
  mem_free(s);
}

int azure_token_cache_new(azure_token_cache **out, const char *authority_host, const char *tenant_id,
                          const char *client_id, const char *client_secret, const http_config *http) {
  azure_token_cache *c = mem_calloc(1, sizeof *c);
  delta_buf u = DELTA_BUF_INIT, f = DELTA_BUF_INIT;
  int rc;
  if (!c) return DELTA_NOMEM();
  if ((rc = buf_printf(&u, "%s/%s/oauth2/v2.0/token", authority_host, tenant_id)) != 0 ||
      (rc = buf_putc(&u, '\0')) != 0)
    goto fail;
  if ((rc = buf_puts(&f, "grant_type=client_credentials&client_id=")) != 0 ||
      (rc = azure_uri_encode(&f, client_id, strlen(client_id), false)) != 0 ||
      (rc = buf_puts(&f, "&client_secret=")) != 0 ||
      (rc = azure_uri_encode(&f, client_secret, strlen(client_secret), false)) != 0 ||
      (rc = buf_puts(&f, "&scope=https%3A%2F%2Fstorage.azure.com%2F.default")) != 0 ||
      (rc = buf_putc(&f, '\0')) != 0)
    goto fail;
  c->http = *http;
  if ((http->user_agent && !(c->user_agent = mem_strdup(http->user_agent))) ||
      (http->ca_bundle && !(c->ca_bundle = mem_strdup(http->ca_bundle)))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  c->http.user_agent = c->user_agent;
  c->http.ca_bundle = c->ca_bundle;
  if (pthread_mutex_init(&c->lock, NULL) != 0) {
    rc = err_set(DELTA_EIO, "cannot create a mutex");
    goto fail;
  }
  c->url = (char *)buf_detach(&u);
  c->form = (char *)buf_detach(&f);
  *out = c;
  return 0;
fail:
  buf_dispose(&u);
  if (f.data) memset(f.data, 0, f.len);
  buf_dispose(&f);
  mem_free(c->user_agent);
  mem_free(c->ca_bundle);
  mem_free(c);
  return rc;
}

void azure_token_cache_free(azure_token_cache *c) {
  if (!c) return;
  pthread_mutex_destroy(&c->lock);
  mem_free(c->url);
  wipe_free(c->form);
  wipe_free(c->token);
  mem_free(c->user_agent);
  mem_free(c->ca_bundle);
  mem_free(c);
}

/* expires_in: a JSON number, or (older endpoints) a numeric string. */
static int parse_expires(delta_json_val e, int64_t *n) {
  delta_buf es = DELTA_BUF_INIT;
  char *end = NULL;
  int rc;
  if (json_typeof(e) == DELTA_JSON_NUMBER) return json_int64(e, n);
  if ((rc = json_string(e, &es)) != 0) goto done;
  *n = strtoll((const char *)es.data, &end, 10);
  if (end == (char *)es.data || *end) rc = DELTA_ECORRUPT;
done:
  buf_dispose(&es);
  return rc;
}

int azure_token_parse(const char *json, size_t len, delta_buf *token, long *expires_in) {
  delta_json_doc *d = NULL;
  delta_buf s = DELTA_BUF_INIT;
  int64_t n = 0;
  int rc;
  if ((rc = json_doc_new(&d)) != 0) return rc;
  if (json_parse(d, json, len) != 0) {
    rc = err_set(DELTA_ECORRUPT, "the token endpoint's answer is not JSON");
    goto done;
  }
  delta_json_val root = json_root(d);
  if (json_string(json_get(root, "access_token"), &s) != 0 || s.len == 0) {
    rc = err_set(DELTA_ECORRUPT, "the token endpoint's answer has no access_token");
    goto done;
  }
  if (parse_expires(json_get(root, "expires_in"), &n) != 0 || n <= 0) {
    rc = err_set(DELTA_ECORRUPT, "the token endpoint's answer has no valid expires_in");
    goto done;
  }
  token->len = 0;
  if ((rc = buf_append(token, s.data, s.len)) != 0) goto done;
  *expires_in = n > 86400 * 365 ? 86400 * 365 : (long)n;
done:
  if (s.data) memset(s.data, 0, s.len);
  buf_dispose(&s);
  json_doc_free(d);
  return rc;
}

static size_t on_body(char *data, size_t size, size_t n, void *p) {
  delta_buf *b = p;
  size_t len = size * n;
  if (b->len + len > TOKEN_BODY_MAX) return 0;
  return buf_append(b, data, len) == 0 ? len : 0;
}

static bool retryable(CURLcode e, long status) {
  if (e != CURLE_OK)
    return e == CURLE_COULDNT_CONNECT || e == CURLE_OPERATION_TIMEDOUT || e == CURLE_SEND_ERROR ||
           e == CURLE_RECV_ERROR || e == CURLE_GOT_NOTHING;
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

/* The short error code of a failed token request ("invalid_client"), only
 * when it looks like one. */
static void error_code(const delta_buf *body, char *out, size_t n) {
  delta_json_doc *d = NULL;
  delta_buf s = DELTA_BUF_INIT;
  out[0] = '\0';
  if (json_doc_new(&d) != 0) return;
  if (json_parse(d, (const char *)body->data, body->len) == 0 &&
      json_string(json_get(json_root(d), "error"), &s) == 0) {
    size_t k = 0;
    for (; k < s.len && k < n - 1; k++) {
      char ch = (char)s.data[k];
      if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
        break;
      out[k] = ch;
    }
    out[k] = '\0';
  }
  delta_error_clear();
  buf_dispose(&s);
  json_doc_free(d);
}

/* POST the form; the answer's body into `body`. */
static int fetch(azure_token_cache *c, delta_buf *body, long *status) {
  CURL *h = curl_easy_init();
  char errbuf[CURL_ERROR_SIZE];
  int rc = 0;
  if (!h) return DELTA_NOMEM();
  for (int attempt = 0;; attempt++) {
    body->len = 0;
    errbuf[0] = '\0';
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, c->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->form);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->http.user_agent ? c->http.user_agent : "deltac/" DELTAC_VERSION);
    if (c->http.timeout_ms > 0) curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->http.timeout_ms);
    if (c->http.connect_timeout_ms > 0) curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->http.connect_timeout_ms);
    if (c->http.ca_bundle) curl_easy_setopt(h, CURLOPT_CAINFO, c->http.ca_bundle);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    CURLcode e = curl_easy_perform(h);
    *status = 0;
    if (e == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    if (retryable(e, *status) && attempt < c->http.max_retries && attempt < 5) {
      struct timespec ts = {0, (long)(100000000L << (attempt < 3 ? attempt : 3))};
      nanosleep(&ts, NULL);
      continue;
    }
    if (e != CURLE_OK)
      rc = err_set(DELTA_EIO, "Azure token endpoint %s: %s", c->url, errbuf[0] ? errbuf : curl_easy_strerror(e));
    break;
  }
  curl_easy_cleanup(h);
  return rc;
}

int azure_token_get(azure_token_cache *c, delta_buf *out) {
  delta_buf body = DELTA_BUF_INIT, tok = DELTA_BUF_INIT;
  long status = 0, expires_in = 0;
  int rc = 0;
  pthread_mutex_lock(&c->lock);
  time_t now = time(NULL);
  if (c->token && now + EARLY_REFRESH_S < c->expires_at) goto have;
  if ((rc = fetch(c, &body, &status)) != 0) goto done;
  if (status != 200) {
    char code[64];
    error_code(&body, code, sizeof code);
    rc = err_set(DELTA_EIO, "Azure token endpoint %s: %ld%s%s", c->url, status, *code ? " " : "", code);
    goto done;
  }
  if ((rc = azure_token_parse((const char *)body.data, body.len, &tok, &expires_in)) != 0) {
    err_prefix("Azure token endpoint %s", c->url);
    goto done;
  }
  if ((rc = buf_putc(&tok, '\0')) != 0) goto done;
  wipe_free(c->token);
  c->token = (char *)buf_detach(&tok);
  c->expires_at = now + expires_in;
have:
  rc = buf_printf(out, "Bearer %s", c->token);
done:
  pthread_mutex_unlock(&c->lock);
  if (body.data) memset(body.data, 0, body.len);
  buf_dispose(&body);
  if (tok.data) memset(tok.data, 0, tok.len);
  buf_dispose(&tok);
  return rc;
}
