/*
 * deltac serve: a read-only HTTP server over configured Delta tables (JSON
 * API, change feed streaming, Server-Sent Events, Delta Sharing).
 *
 * Threading: libmicrohttpd runs one thread per connection. Everything in
 * `serve_config` is immutable once the daemon starts; the only shared
 * mutable state is each table's snapshot cache (serve_table), guarded by
 * its own mutex.
 *
 * Security model: a request names a table only by its configured name,
 * never by a path, so no URL can reach another directory. Data files are
 * served only through HMAC-signed links (signed_url.c) whose path the
 * server itself took from the table's log.
 */
#ifndef DELTAC_SERVE_SERVE_H
#define DELTAC_SERVE_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "deltac/error.h"
#include "deltac/table.h"
#include "util/buf.h"

struct MHD_Connection;

/* ---------------------------------------------------------------- config */

typedef struct {
  char *name;                /* [A-Za-z0-9_-]+, the only way a request names it */
  char *location;            /* path or file:// URI, never shown to clients */
  char **opt_keys, **opt_values; /* storage options (delta_table_open_options) */
  int n_opts;
  delta_table *table;
  pthread_mutex_t lock;      /* guards snap, refreshed_us, chain */
  delta_snapshot *snap;      /* latest known snapshot, or NULL before the first load */
  int64_t refreshed_us;      /* monotonic start time of the last refresh */
  int chain;                 /* incremental updates since the last full replay */
  bool opened;               /* lock initialised, table open */
} serve_table;

typedef struct {
  char *name;
  char **tables;             /* names of serve_table entries (schema "default") */
  int n_tables;
} serve_share;

/* A bearer token and what it may read: table names, "share:NAME" or "*". */
typedef struct {
  char *secret;
  char **scopes;
  int n_scopes;
} serve_token;

typedef struct {
  char *host;
  int port;
  serve_table *tables;
  int n_tables;
  serve_share *shares;
  int n_shares;
  serve_token *tokens;
  int n_tokens;
  char *public_url;          /* base of signed file links; NULL: from the Host header */
  uint8_t signing_key[32];
  int64_t url_expiry_s;      /* lifetime of signed file links */
  int64_t request_timeout_s; /* idle connection timeout */
  int64_t max_request_s;     /* wall-clock limit of one non-SSE response */
  size_t max_body;           /* largest request body accepted (POST query) */
  int max_connections;
  int64_t poll_ms;           /* SSE: how often the log is checked for new commits */
  int64_t keepalive_ms;      /* SSE: comment line sent when idle this long */
  char *access_log;          /* path, "-" for stderr, NULL for stderr */
} serve_config;

/* Defaults, then `argv` (after "serve") and the --config file. Returns 0, or
 * an exit status (2 usage, 1 error) after printing one line to stderr. */
int serve_config_load(serve_config *cfg, int argc, char **argv);
/* Storage options for every table that does not set the key itself (the
 * command line's --option). Returns 0 or an exit status. */
int serve_config_default_options(serve_config *cfg, const char *const *keys, const char *const *values, size_t n);
void serve_config_free(serve_config *cfg);
/* Open the tables, listen, and serve until SIGINT/SIGTERM. Exit status. */
int serve_run(serve_config *cfg);
/* Parse one config file into cfg (used by serve_config_load). */
int serve_config_read_file(serve_config *cfg, const char *path);

serve_table *serve_table_find(const serve_config *cfg, const char *name);
serve_share *serve_share_find(const serve_config *cfg, const char *name);

/* --------------------------------------------------------------- tables */

/* The table's latest snapshot, refreshed incrementally when a commit newer
 * than it exists; the caller owns one reference (delta_snapshot_free).
 * Concurrent callers share one refresh: a request that arrives while
 * another refresh runs waits for it and uses its result. */
int serve_table_snapshot(serve_table *t, delta_snapshot **out);
/* The snapshot at a version or timestamp (the cached one when it matches). */
int serve_table_snapshot_at(serve_table *t, bool at_version, int64_t version, bool at_ts, int64_t ts_ms,
                            delta_snapshot **out);
/* Open every configured table (checking each has a readable log) and set
 * up the caches. Prints one line and returns 1 when a table fails. */
int serve_tables_open(serve_config *cfg);
void serve_tables_close(serve_config *cfg);

/* ----------------------------------------------------------------- auth */

typedef enum { AUTH_OK = 0, AUTH_MISSING = 401, AUTH_FORBIDDEN = 403 } serve_auth;

/* Equal length and bytes, in time independent of where they differ. */
bool serve_ct_equal(const char *a, size_t an, const char *b, size_t bn);
/* The token presented (Authorization: Bearer ...), or NULL. */
const serve_token *serve_auth_token(const serve_config *cfg, struct MHD_Connection *c, bool *presented);
/* May this request read `scope` ("orders", "share:sales")? Dev mode (no
 * tokens configured) allows everything. */
serve_auth serve_auth_check(const serve_config *cfg, struct MHD_Connection *c, const char *scope);
/* AUTH_OK when the request carries a valid token (or in dev mode). */
serve_auth serve_auth_any(const serve_config *cfg, struct MHD_Connection *c);
bool serve_token_allows(const serve_token *tok, const char *scope);

/* -------------------------------------------------------------- request */

/* Per-request state kept by the dispatcher. */
typedef struct {
  int64_t start_us;          /* monotonic */
  delta_buf body;            /* POST body, bounded by max_body */
  bool body_too_large;
  int status;                /* for the access log */
  uint64_t bytes;            /* body bytes sent, for the access log */
  bool no_deadline;          /* SSE: exempt from max_request_s */
  char method[8];
  char path[256];            /* truncated copy for the access log */
  struct serve_server *srv;
} serve_request;

typedef struct serve_server {
  serve_config *cfg;
  struct MHD_Daemon *daemon;
  pthread_mutex_t log_lock;
  void *log_fp;              /* FILE* */
  volatile int stopping;
} serve_server;

/* ------------------------------------------------------------- responses */

/* Queue a response; each returns an MHD_Result (int) to hand back to MHD. */
int serve_reply_json(serve_request *r, struct MHD_Connection *c, int status, delta_buf *json);
int serve_reply_bytes(serve_request *r, struct MHD_Connection *c, int status, const char *content_type,
                      const void *data, size_t len, const char *const *headers);
/* {"error":{"code":"...","message":"..."}}: the code names the status. */
int serve_reply_error(serve_request *r, struct MHD_Connection *c, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The error of a library call (delta_error_last) with the status its code
 * deserves: ENOTFOUND 404, EINVAL 400, EUNSUPPORTED 400, others 500. */
int serve_reply_delta_error(serve_request *r, struct MHD_Connection *c, int code);
int serve_status_for(int delta_code);
/* Write the status and a body producer for a streamed (chunked) response. */
/* Fill buf with up to max bytes; return the count, SERVE_BODY_END at the end
 * or SERVE_BODY_ERROR to abort the response (the client sees a truncated
 * chunked body). */
#define SERVE_BODY_END ((ssize_t)-1)
#define SERVE_BODY_ERROR ((ssize_t)-2)
typedef ssize_t (*serve_body_fn)(void *ctx, char *buf, size_t max);
int serve_reply_stream(serve_request *r, struct MHD_Connection *c, int status, const char *content_type,
                       serve_body_fn fn, void *ctx, void (*free_fn)(void *), const char *const *headers);

/* Query parameters: NULL when absent. */
const char *serve_arg(struct MHD_Connection *c, const char *name);
/* Parse an optional non-negative integer parameter. 0 ok (set *has), -1 bad. */
int serve_arg_int(struct MHD_Connection *c, const char *name, int64_t *out, bool *has);
/* A comma-separated list parameter into a NULL-terminated array (one
 * allocation, mem_free). *n = 0 and NULL when absent. -1 on bad input. */
int serve_arg_list(struct MHD_Connection *c, const char *name, char ***out, size_t *n);
/* Monotonic microseconds. */
int64_t serve_now_us(void);
/* Wall clock milliseconds since the epoch. */
int64_t serve_wall_ms(void);

/* ----------------------------------------------------------- endpoints */

/* Route a request; `segs` are the path's segments (decoded by MHD). */
int serve_route(serve_request *r, struct MHD_Connection *c, const char *method, const char *url);

int api_tables_list(serve_request *r, struct MHD_Connection *c);
int api_table_info(serve_request *r, struct MHD_Connection *c, serve_table *t);
int api_table_history(serve_request *r, struct MHD_Connection *c, serve_table *t);
int api_changes(serve_request *r, struct MHD_Connection *c, serve_table *t);
int api_changes_summary(serve_request *r, struct MHD_Connection *c, serve_table *t);
int api_rows(serve_request *r, struct MHD_Connection *c, serve_table *t);
int api_changes_sse(serve_request *r, struct MHD_Connection *c, serve_table *t);

/* Delta Sharing: `rest` is the path after "/delta-sharing/". */
int sharing_route(serve_request *r, struct MHD_Connection *c, const char *method, char **segs, int n);
/* GET / and /ui: the web page (static_ui.c). */
int serve_ui_page(serve_request *r, struct MHD_Connection *c);
/* GET /files/...: a signed data file link. */
int signed_file_serve(serve_request *r, struct MHD_Connection *c, char **segs, int n);

/* ------------------------------------------------------------ access log */

int access_log_open(serve_server *srv);
void access_log_line(serve_server *srv, struct MHD_Connection *c, const serve_request *r);
void access_log_close(serve_server *srv);

#endif
