/*
 * A small HTTP client for the object-store back ends, over libcurl.
 *
 * One http_client per store holds a pool of reusable curl easy handles, so
 * connections stay alive between requests; a request borrows a handle and
 * returns it, which makes the client safe to use from several threads at
 * once. Requests are retried with exponential backoff and jitter on
 * connection errors and on 429, 500, 502, 503 and 504 (never on another
 * 4xx), bounded by max_retries and retry_timeout; a Retry-After in seconds
 * lengthens the wait (up to the backoff cap). A 2xx body streams into
 * the caller's sink and is checked against Content-Length; any other
 * status's body (an S3 error document) is kept, bounded, for the caller.
 *
 * Messages never contain header values: headers carry the signatures and
 * tokens. A failing request names only the caller's label (the store URI and
 * key), never the URL's query.
 */
#ifndef DELTAC_STORAGE_HTTP_H
#define DELTAC_STORAGE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "util/buf.h"

typedef struct {
  long timeout_ms;          /* whole request; 0 = none */
  long connect_timeout_ms;  /* connection set-up */
  int max_retries;          /* retries after the first attempt */
  long retry_timeout_ms;    /* no new attempt starts later than this after the first */
  const char *user_agent;   /* NULL = "deltac/<version>" */
  const char *ca_bundle;    /* NULL = AWS_CA_BUNDLE, SSL_CERT_FILE, else the system's */
  const char *proxy_url;    /* the proxy_url option (CURLOPT_PROXY); NULL = libcurl's
                               default (the http_proxy/https_proxy environment) */
} http_config;

#define HTTP_CONFIG_DEFAULT {30000, 5000, 10, 180000, NULL, NULL, NULL}

typedef struct http_client http_client;

int http_client_new(http_client **out, const http_config *cfg);
void http_client_free(http_client *client);

/* Count every request this client sends into `counters` (a storage
 * handle's, from storage_counters_of; see storage_internal.h): each attempt
 * is one request of the request's kind, with the body bytes it received (a
 * 2xx body) or sent (a PUT/POST body); each attempt after the first also
 * counts as a retry. Call once, before the client is shared. */
struct storage_counters;
void http_client_set_counters(http_client *client, struct storage_counters *counters);

typedef struct {
  const char *method;        /* "GET", "HEAD", "PUT", "POST", "DELETE" */
  const char *url;           /* full URL, already encoded */
  const char *const *headers; /* "Name: value" lines, NULL-ended; may be NULL */
  const void *body;          /* PUT or POST body (may be NULL when body_len is 0) */
  size_t body_len;
  delta_storage_sink *sink;  /* where a 2xx body goes; NULL = into resp->body */
  const char *label;         /* what messages name, e.g. "s3://b/t/key" */
} http_request;

typedef struct {
  long status;           /* final HTTP status (0 when no response arrived) */
  int attempts;          /* how many times the request was sent (libcurl's own
                            resends on a fresh connection included) */
  uint64_t content_length;
  bool has_length;
  int64_t mtime_ms;      /* Last-Modified, ms since the epoch; 0 when absent */
  char content_range[96]; /* the Content-Range header's value, "" when absent */
  char captured[2048];    /* http_send_capture: the header's value, "" when absent or longer */
  delta_buf body;        /* the body when no sink was given (bounded by its limit) or,
                            for a status other than 2xx, the first 64 KiB of the body */
} http_response;

/* Send `req`, retrying as described above. Returns 0 when a response
 * arrived (any status: the caller maps statuses to errors; a 2xx body has
 * been delivered whole), or a negative code with the message set: DELTA_EIO
 * for transport failures after the retries (naming req->label and curl's
 * reason), a short body, or the sink's own code. Free resp->body with
 * buf_dispose. */
int http_send(http_client *client, const http_request *req, http_response *resp);

/* http_send, counted as `kind` (a storage_count_kind, see
 * storage_internal.h) instead of by method: listings use it with
 * STORAGE_COUNT_LIST. */
int http_send_as(http_client *client, const http_request *req, int kind, http_response *resp);

/* http_send that also keeps the value of response header `name` (no ':',
 * any case, e.g. "location") in resp->captured: GCS resumable uploads
 * answer with the session URI in Location and the persisted size in Range. */
int http_send_capture(http_client *client, const http_request *req, const char *name,
                      http_response *resp);

#endif
