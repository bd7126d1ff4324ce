/* deltac serve: building responses and reading query parameters. */
#include <errno.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_writer.h"
#include "serve/serve.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Headers every response carries: nothing is cacheable (tables change),
 * and browsers must not sniff NDJSON/CSV into something executable. */
static void common_headers(struct MHD_Response *resp, const char *content_type, const char *const *headers) {
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
  for (int i = 0; headers && headers[i]; i += 2) MHD_add_response_header(resp, headers[i], headers[i + 1]);
}

static int queue(serve_request *r, struct MHD_Connection *c, int status, struct MHD_Response *resp) {
  if (!resp) return MHD_NO;
  r->status = status;
  enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, resp);
  MHD_destroy_response(resp);
  return ok;
}

int serve_reply_bytes(serve_request *r, struct MHD_Connection *c, int status, const char *content_type,
                      const void *data, size_t len, const char *const *headers) {
  struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
  if (!resp) return MHD_NO;
  common_headers(resp, content_type, headers);
  r->bytes = len;
  return queue(r, c, status, resp);
}

int serve_reply_json(serve_request *r, struct MHD_Connection *c, int status, delta_buf *json) {
  buf_putc(json, '\n');
  return serve_reply_bytes(r, c, status, "application/json", json->data, json->len, NULL);
}

static const char *status_code_name(int status) {
  switch (status) {
  case 400: return "bad_request";
  case 401: return "unauthorized";
  case 403: return "forbidden";
  case 404: return "not_found";
  case 405: return "method_not_allowed";
  case 413: return "payload_too_large";
  case 503: return "unavailable";
  default: return "internal_error";
  }
}

static int reply_error_v(serve_request *r, struct MHD_Connection *c, int status, const char *fmt, va_list ap) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  delta_buf b = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "error");
  json_write_object_begin(&w);
  json_write_key(&w, "code");
  json_write_string(&w, status_code_name(status));
  json_write_key(&w, "message");
  json_write_string(&w, msg);
  json_write_object_end(&w);
  json_write_object_end(&w);
  int ok = MHD_NO;
  if (json_writer_finish(&w) == 0) {
    buf_putc(&b, '\n');
    /* 401 must say how to authenticate (RFC 6750). */
    static const char *const bearer[] = {MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"deltac\"", NULL};
    ok = serve_reply_bytes(r, c, status, "application/json", b.data, b.len, status == 401 ? bearer : NULL);
  }
  buf_dispose(&b);
  return ok;
}

int serve_reply_error(serve_request *r, struct MHD_Connection *c, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int ok = reply_error_v(r, c, status, fmt, ap);
  va_end(ap);
  return ok;
}

int serve_status_for(int code) {
  switch (code) {
  case DELTA_ENOTFOUND: return 404;
  case DELTA_EINVAL:
  case DELTA_EUNSUPPORTED: return 400;
  default: return 500;
  }
}

int serve_reply_delta_error(serve_request *r, struct MHD_Connection *c, int code) {
  return serve_reply_error(r, c, serve_status_for(code), "%s", delta_error_last());
}

/* Counts bytes for the access log and enforces the wall-clock limit. */
typedef struct {
  serve_body_fn fn;
  void *ctx;
  void (*free_fn)(void *);
  serve_request *r;
  int64_t deadline_us;
} stream_wrap;

static ssize_t wrap_read(void *cls, uint64_t pos, char *buf, size_t max) {
  stream_wrap *w = cls;
  (void)pos;
  if (w->deadline_us && serve_now_us() > w->deadline_us) return MHD_CONTENT_READER_END_WITH_ERROR;
  ssize_t n = w->fn(w->ctx, buf, max);
  if (n == SERVE_BODY_END) return MHD_CONTENT_READER_END_OF_STREAM;
  if (n < 0) return MHD_CONTENT_READER_END_WITH_ERROR;
  w->r->bytes += (uint64_t)n;
  return n;
}

static void wrap_free(void *cls) {
  stream_wrap *w = cls;
  if (w->free_fn) w->free_fn(w->ctx);
  mem_free(w);
}

int serve_reply_stream(serve_request *r, struct MHD_Connection *c, int status, const char *content_type,
                       serve_body_fn fn, void *ctx, void (*free_fn)(void *), const char *const *headers) {
  stream_wrap *w = mem_calloc(1, sizeof *w);
  if (!w) {
    if (free_fn) free_fn(ctx);
    return serve_reply_error(r, c, 500, "out of memory");
  }
  w->fn = fn;
  w->ctx = ctx;
  w->free_fn = free_fn;
  w->r = r;
  if (!r->no_deadline) w->deadline_us = r->start_us + r->srv->cfg->max_request_s * 1000000;
  struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, wrap_read, w, wrap_free);
  if (!resp) {
    wrap_free(w);
    return MHD_NO;
  }
  common_headers(resp, content_type, headers);
  return queue(r, c, status, resp);
}

const char *serve_arg(struct MHD_Connection *c, const char *name) {
  return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

int serve_arg_int(struct MHD_Connection *c, const char *name, int64_t *out, bool *has) {
  const char *v = serve_arg(c, name);
  *has = v != NULL;
  if (!v) return 0;
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (!*v || *end || errno || x < 0) return -1;
  *out = x;
  return 0;
}

int serve_arg_list(struct MHD_Connection *c, const char *name, char ***out, size_t *n) {
  *out = NULL;
  *n = 0;
  const char *v = serve_arg(c, name);
  if (!v) return 0;
  size_t len = strlen(v), cap = 2;
  for (size_t i = 0; i < len; i++) cap += v[i] == ',';
  /* One block: the pointer array, then a copy of the text it points into. */
  char **arr = mem_malloc(cap * sizeof(char *) + len + 1);
  if (!arr) return -1;
  char *text = (char *)(arr + cap);
  memcpy(text, v, len + 1);
  for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    while (*tok == ' ') tok++;
    char *e = tok + strlen(tok);
    while (e > tok && e[-1] == ' ') *--e = 0;
    if (*tok) arr[(*n)++] = tok;
  }
  arr[*n] = NULL;
  if (*n == 0) {
    mem_free(arr);
    *out = NULL;
    return -1;
  }
  *out = arr;
  return 0;
}
