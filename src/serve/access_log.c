/* deltac serve: one access log line per request, written when it ends:
 *
 *   2024-05-01T12:00:00.123Z 127.0.0.1 GET /api/tables/orders/changes 200 5123 12ms
 *
 * Only the path is logged: query strings may carry signatures, and
 * tokens travel in headers, which are never logged. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "serve/serve.h"
#include "util/time_parse.h"

int access_log_open(serve_server *srv) {
  const char *path = srv->cfg->access_log;
  pthread_mutex_init(&srv->log_lock, NULL);
  if (!path || strcmp(path, "-") == 0) {
    srv->log_fp = stderr;
    return 0;
  }
  srv->log_fp = fopen(path, "a");
  if (!srv->log_fp) {
    fprintf(stderr, "deltac: serve: cannot open access log %s\n", path);
    return 1;
  }
  return 0;
}

static void client_ip(struct MHD_Connection *c, char *out, size_t n) {
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  snprintf(out, n, "-");
  if (!ci || !ci->client_addr) return;
  const struct sockaddr *sa = ci->client_addr;
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out, (socklen_t)n);
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out, (socklen_t)n);
}

void access_log_line(serve_server *srv, struct MHD_Connection *c, const serve_request *r) {
  char when[40], ip[64], path[sizeof r->path];
  time_format_ms(serve_wall_ms(), when);
  client_ip(c, ip, sizeof ip);
  /* Control characters would let a client forge log lines. */
  size_t i = 0;
  for (; r->path[i]; i++) path[i] = (unsigned char)r->path[i] < 0x20 || r->path[i] == 0x7f ? '?' : r->path[i];
  path[i] = 0;
  long long ms = (long long)((serve_now_us() - r->start_us) / 1000);
  pthread_mutex_lock(&srv->log_lock);
  fprintf(srv->log_fp, "%s %s %s %s %d %llu %lldms\n", when, ip, r->method, path, r->status ? r->status : 0,
          (unsigned long long)r->bytes, ms);
  fflush(srv->log_fp);
  pthread_mutex_unlock(&srv->log_lock);
}

void access_log_close(serve_server *srv) {
  if (srv->log_fp && srv->log_fp != stderr) fclose(srv->log_fp);
  srv->log_fp = NULL;
  pthread_mutex_destroy(&srv->log_lock);
}
