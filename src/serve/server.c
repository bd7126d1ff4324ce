/* deltac serve: the libmicrohttpd daemon, request bodies and shutdown.
 *
 * One thread per connection: handlers may block on storage and the SSE
 * tail sleeps between polls, which would stall a shared event loop. The
 * connection limit bounds the threads. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "serve/serve.h"
#include "util/alloc_internal.h"

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size,
                                  void **req_cls) {
  serve_server *srv = cls;
  serve_request *r = *req_cls;
  (void)version;
  if (!r) {
    /* First call: only the headers are in. Set up, answer on a later call. */
    r = mem_calloc(1, sizeof *r);
    if (!r) return MHD_NO;
    r->start_us = serve_now_us();
    r->srv = srv;
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->path, sizeof r->path, "%s", url);
    *req_cls = r;
    return MHD_YES;
  }
  if (*upload_size) {
    if (!r->body_too_large && r->body.len + *upload_size <= srv->cfg->max_body)
      r->body_too_large = buf_append(&r->body, upload_data, *upload_size) != 0;
    else
      r->body_too_large = true;
    *upload_size = 0;
    return MHD_YES;
  }
  if (r->body_too_large)
    return (enum MHD_Result)serve_reply_error(r, c, 413, "request body larger than %zu bytes", srv->cfg->max_body);
  return (enum MHD_Result)serve_route(r, c, method, url);
}

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls, enum MHD_RequestTerminationCode toe) {
  serve_server *srv = cls;
  serve_request *r = *req_cls;
  if (!r) return;
  if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && r->status == 0) r->status = 499; /* client went away */
  access_log_line(srv, c, r);
  buf_dispose(&r->body);
  mem_free(r);
  *req_cls = NULL;
}

/* Percent-decoding of the path and of query values, as MHD's own, except
 * that "%00" stays as it is: a decoded NUL would cut the string short and
 * make "/api/tables/cdf%00/rows" read as "/api/tables/cdf". */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s) {
  (void)cls;
  (void)c;
  char *w = s;
  for (const char *p = s; *p; p++) {
    int hi, lo;
    if (*p == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0 && (hi | lo)) {
      *w++ = (char)(hi << 4 | lo);
      p += 2;
    } else {
      *w++ = *p;
    }
  }
  *w = 0;
  return (size_t)(w - s);
}

static bool is_loopback(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET)
    return (ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >> 24) == 127;
  if (sa->sa_family == AF_INET6)
    return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
  return false;
}

static int resolve(const serve_config *cfg, struct sockaddr_storage *out, socklen_t *len) {
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  char port[16];
  snprintf(port, sizeof port, "%d", cfg->port);
  int e = getaddrinfo(cfg->host, port, &hints, &ai);
  if (e || !ai) {
    fprintf(stderr, "deltac: serve: cannot resolve --host %s: %s\n", cfg->host, gai_strerror(e));
    return 2;
  }
  memcpy(out, ai->ai_addr, ai->ai_addrlen);
  *len = ai->ai_addrlen;
  freeaddrinfo(ai);
  return 0;
}

static struct MHD_Daemon *start_daemon(serve_server *srv, const struct sockaddr_storage *addr) {
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                   MHD_USE_ITC;
  if (addr->ss_family == AF_INET6) flags |= MHD_USE_IPv6;
  return MHD_start_daemon(
      flags, (uint16_t)srv->cfg->port, NULL, NULL, on_request, srv,
      MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)addr,
      MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
      MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
      /* Headers and the URL must fit here; MHD answers 431/414 beyond it. */
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)srv->cfg->max_connections,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)srv->cfg->request_timeout_s,
      MHD_OPTION_END);
}

int serve_run(serve_config *cfg) {
  struct sockaddr_storage addr;
  socklen_t alen;
  int rc = resolve(cfg, &addr, &alen);
  if (rc) return rc;
  bool loopback = is_loopback((const struct sockaddr *)&addr);
  if (cfg->n_tokens == 0 && !loopback) {
    fprintf(stderr, "deltac: serve: no tokens configured: development mode listens only on a loopback address "
                    "(configure tokens to serve %s)\n", cfg->host);
    return 2;
  }
  if ((rc = serve_tables_open(cfg)) != 0) return rc;
  serve_server srv = {0};
  srv.cfg = cfg;
  if ((rc = access_log_open(&srv)) != 0) return rc;
  /* Block the stop signals in every thread (MHD's inherit the mask) and
   * wait for them here; a broken client connection must not kill us. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  signal(SIGPIPE, SIG_IGN);
  srv.daemon = start_daemon(&srv, &addr);
  if (!srv.daemon) {
    fprintf(stderr, "deltac: serve: cannot listen on %s:%d\n", cfg->host, cfg->port);
    access_log_close(&srv);
    return 1;
  }
  if (cfg->n_tokens == 0)
    fprintf(stderr, "deltac: serve: WARNING: no tokens configured: development mode, every table is readable "
                    "by anyone who can reach %s\n", cfg->host);
  fprintf(stderr, "deltac: serving %d table%s on http://%s%s%s:%d/\n", cfg->n_tables, cfg->n_tables == 1 ? "" : "s",
          addr.ss_family == AF_INET6 ? "[" : "", cfg->host, addr.ss_family == AF_INET6 ? "]" : "", cfg->port);
  int sig;
  sigwait(&stop, &sig);
  srv.stopping = 1; /* SSE tails see this and end their streams */
  MHD_stop_daemon(srv.daemon);
  access_log_close(&srv);
  fprintf(stderr, "deltac: serve: stopped\n");
  return 0;
}
