/* deltac serve: from method and path to a handler.
 *
 * The path reaches us percent-decoded by libmicrohttpd. It is split into
 * segments and matched exactly; a table segment is only ever a key into
 * the configured tables, so "..", "%2e%2e", "%2F" or a NUL can at most
 * fail to name a table (404). Nothing here touches the filesystem. */
#include <microhttpd.h>
#include <string.h>

#include "serve/serve.h"

#define MAX_SEGS 16

/* Split "/a/b/c" in place. Empty segments ("//", a trailing '/') make the
 * path invalid: -1. */
static int split_path(char *path, char **segs) {
  if (path[0] != '/') return -1;
  int n = 0;
  char *p = path + 1;
  if (!*p) return 0;
  for (;;) {
    char *slash = strchr(p, '/');
    if (slash) *slash = 0;
    if (!*p || n == MAX_SEGS) return -1;
    segs[n++] = p;
    if (!slash) return n;
    p = slash + 1;
  }
}

static const char index_json[] =
    "{\"service\":\"deltac\",\"endpoints\":[\"/api/tables\",\"/api/tables/{t}\",\"/api/tables/{t}/history\","
    "\"/api/tables/{t}/changes\",\"/api/tables/{t}/changes/summary\",\"/api/tables/{t}/changes/stream\","
    "\"/api/tables/{t}/rows\",\"/delta-sharing/shares\"],\"docs\":\"docs/server.md\"}\n";

/* /api/tables/{t}[/...]: authenticate, then find the table, then check the
 * token's scope, so that 401, 404 and 403 each mean one thing and an
 * unauthenticated client learns nothing about which tables exist. */
static int route_table(serve_request *r, struct MHD_Connection *c, char **segs, int n) {
  const serve_config *cfg = r->srv->cfg;
  if (serve_auth_any(cfg, c) != AUTH_OK) return serve_reply_error(r, c, 401, "a valid bearer token is required");
  serve_table *t = serve_table_find(cfg, segs[2]);
  if (!t) return serve_reply_error(r, c, 404, "no table named '%s'", segs[2]);
  if (serve_auth_check(cfg, c, t->name) != AUTH_OK)
    return serve_reply_error(r, c, 403, "this token may not read table '%s'", t->name);
  if (n == 3) return api_table_info(r, c, t);
  if (n == 4 && strcmp(segs[3], "history") == 0) return api_table_history(r, c, t);
  if (n == 4 && strcmp(segs[3], "rows") == 0) return api_rows(r, c, t);
  if (n == 4 && strcmp(segs[3], "changes") == 0) return api_changes(r, c, t);
  if (n == 5 && strcmp(segs[3], "changes") == 0 && strcmp(segs[4], "summary") == 0)
    return api_changes_summary(r, c, t);
  if (n == 5 && strcmp(segs[3], "changes") == 0 && strcmp(segs[4], "stream") == 0) return api_changes_sse(r, c, t);
  return serve_reply_error(r, c, 404, "no such endpoint");
}

int serve_route(serve_request *r, struct MHD_Connection *c, const char *method, const char *url) {
  char path[2048];
  if (strlen(url) >= sizeof path) return serve_reply_error(r, c, 404, "no such endpoint");
  strcpy(path, url);
  char *segs[MAX_SEGS];
  int n = split_path(path, segs);
  if (n < 0) return serve_reply_error(r, c, 404, "no such endpoint");
  bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
  if (n >= 1 && strcmp(segs[0], "delta-sharing") == 0) return sharing_route(r, c, method, segs + 1, n - 1);
  if (!get) return serve_reply_error(r, c, 405, "only GET and HEAD are served here");
  /* the web page at / and /ui; the JSON index of the API moved to /api */
  if (n == 0 || (n == 1 && strcmp(segs[0], "ui") == 0)) return serve_ui_page(r, c);
  /* browsers ask for an icon beside every page; the page has none, and a
   * 404 would show as an error in the browser's console */
  if (n == 1 && strcmp(segs[0], "favicon.ico") == 0) return serve_reply_bytes(r, c, 204, "image/x-icon", "", 0, NULL);
  if (n == 1 && strcmp(segs[0], "api") == 0)
    return serve_reply_bytes(r, c, 200, "application/json", index_json, sizeof index_json - 1, NULL);
  if (strcmp(segs[0], "files") == 0) return signed_file_serve(r, c, segs + 1, n - 1);
  if (strcmp(segs[0], "api") != 0 || n < 2 || strcmp(segs[1], "tables") != 0)
    return serve_reply_error(r, c, 404, "no such endpoint");
  if (n == 2) {
    if (serve_auth_any(r->srv->cfg, c) != AUTH_OK)
      return serve_reply_error(r, c, 401, "a valid bearer token is required");
    return api_tables_list(r, c);
  }
  return route_table(r, c, segs, n);
}
