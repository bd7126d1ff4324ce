/* deltac serve: GET /api/tables/{t}/changes/stream — the live tail as
 * Server-Sent Events, one event per commit, following new commits while
 * the connection is open.
 *
 *   id: 5
 *   event: commit
 *   data: {"version":5,"timestamp":"...","operation":"MERGE"}
 *   data: {"id":1,...,"_change_type":"update_preimage",...}
 *   data: ...one line per change row (NDJSON)
 *
 * With summary=true the event is `summary` and its one data line carries
 * the counts per change type instead of the rows. The id is the version:
 * a client reconnecting with Last-Event-ID: 5 resumes at version 6. Rows
 * are rendered batch by batch, so a large commit does not sit in memory. */
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deltac/changes.h"
#include "serve/api_params.h"
#include "serve/body_stream.h"
#include "serve/commit_info.h"
#include "serve/serve.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

typedef struct {
  serve_request *r;
  serve_table *table;
  bool summary;
  char **columns;
  size_t n_columns;
  int64_t next;            /* next version to send */
  serve_body *rows;        /* the rows of the event being sent, or NULL */
  bool line_start;         /* the next rows byte starts a line (needs "data: ") */
  serve_commit_info info;
  delta_buf out, tmp;
  size_t out_pos;
  int64_t last_sent_us;
  bool done;
} sse_body;

static void sse_free(void *ctx) {
  sse_body *b = ctx;
  serve_body_free(b->rows);
  serve_commit_info_dispose(&b->info);
  buf_dispose(&b->out);
  buf_dispose(&b->tmp);
  mem_free(b->columns);
  mem_free(b);
}

/* An `error` event, after which the stream ends. */
static void error_event(sse_body *b, const char *msg) {
  delta_json_writer w;
  buf_puts(&b->out, "event: error\ndata: ");
  json_writer_init(&w, &b->out, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "message");
  json_write_string(&w, msg);
  json_write_object_end(&w);
  json_writer_finish(&w);
  buf_puts(&b->out, "\n\n");
  b->done = true;
}

static int open_version(sse_body *b, int64_t v, struct ArrowArrayStream *st) {
  delta_changes_options co = DELTA_CHANGES_OPTIONS_INIT;
  co.start_version = v;
  co.has_end = true;
  co.end_version = v;
  co.columns = (const char *const *)b->columns;
  co.n_columns = b->n_columns;
  return delta_changes_read(b->table->table, &co, st);
}

/* Counts per change type of one version's rows. */
static int count_rows(struct ArrowArrayStream *st, int64_t counts[4]) {
  static const char *const kinds[] = {"insert", "delete", "update_preimage", "update_postimage"};
  struct ArrowSchema schema;
  if (st->get_schema(st, &schema)) return err_set(DELTA_ERROR, "%s", st->get_last_error(st));
  int col = (int)schema.n_children - 3;
  schema.release(&schema);
  for (;;) {
    struct ArrowArray a;
    if (st->get_next(st, &a)) return err_set(DELTA_ERROR, "%s", st->get_last_error(st));
    if (!a.release) return 0;
    const struct ArrowArray *ca = a.children[col];
    const int32_t *off = ca->buffers[1];
    for (int64_t i = 0; i < a.length; i++) {
      int64_t j = ca->offset + i;
      size_t n = (size_t)(off[j + 1] - off[j]);
      for (int k = 0; k < 4; k++)
        if (strlen(kinds[k]) == n && memcmp((const char *)ca->buffers[2] + off[j], kinds[k], n) == 0) counts[k]++;
    }
    a.release(&a);
  }
}

/* Start the event of version v: its header, and either the counts (summary)
 * or the row stream to drain next. */
static int begin_event(sse_body *b, int64_t v, const delta_snapshot *s) {
  const log_entry *e = log_find_commit(&s->listing, v);
  struct ArrowArrayStream st = {0};
  int64_t counts[4] = {0};
  int rc;
  if (!e) b->info.ci.tok = -1;
  else if ((rc = serve_commit_info_read(b->table->table, e, &b->info)) != 0) return rc;
  if ((rc = open_version(b, v, &st)) != 0) goto done;
  rc = b->summary ? count_rows(&st, counts) : serve_body_open(&b->rows, &st, SF_NDJSON, -1);
done:
  if (st.release) st.release(&st);
  if (rc) return rc;
  buf_printf(&b->out, "id: %lld\nevent: %s\ndata: ", (long long)v, b->summary ? "summary" : "commit");
  delta_json_writer w;
  json_writer_init(&w, &b->out, 0);
  json_write_object_begin(&w);
  serve_commit_info_json(&w, &b->info, v, false, &b->tmp);
  static const char *const kinds[] = {"insert", "delete", "update_preimage", "update_postimage"};
  for (int k = 0; b->summary && k < 4; k++) {
    json_write_key(&w, kinds[k]);
    json_write_int64(&w, counts[k]);
  }
  json_write_object_end(&w);
  rc = json_writer_finish(&w);
  buf_puts(&b->out, b->summary ? "\n\n" : "\n");
  b->line_start = true;
  return rc;
}

/* Copy the next piece of the event's rows into out, "data: " before each line. */
static int pump_rows(sse_body *b) {
  char chunk[16384];
  ssize_t n = serve_body_read(b->rows, chunk, sizeof chunk);
  if (n == SERVE_BODY_END) {
    serve_body_free(b->rows);
    b->rows = NULL;
    return buf_puts(&b->out, "\n"); /* blank line: the event is complete */
  }
  if (n < 0) return err_set(DELTA_EIO, "reading the change rows failed");
  int rc;
  for (ssize_t i = 0; i < n; i++) {
    if (b->line_start && (rc = buf_puts(&b->out, "data: ")) != 0) return rc;
    if ((rc = buf_putc(&b->out, chunk[i])) != 0) return rc;
    b->line_start = chunk[i] == '\n';
  }
  return 0;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

/* Fill out with something to send: rows, a new event, or a keepalive
 * comment when nothing happened for a while. Blocks between polls (one
 * thread per connection). */
static void fill(sse_body *b) {
  const serve_config *cfg = b->r->srv->cfg;
  while (!b->out.len && !b->done) {
    if (b->r->srv->stopping) {
      b->done = true;
      return;
    }
    if (b->rows) {
      if (pump_rows(b)) {
        buf_puts(&b->out, b->line_start ? "\n" : "\n\n"); /* close the event cut short */
        error_event(b, delta_error_last());
      }
      continue;
    }
    delta_snapshot *s;
    int rc = serve_table_snapshot(b->table, &s);
    if (!rc && b->next <= s->version) {
      rc = begin_event(b, b->next, s);
      if (!rc) b->next++;
    }
    delta_snapshot_free(rc ? NULL : s);
    if (rc) {
      error_event(b, delta_error_last());
      return;
    }
    if (b->out.len) return;
    if (serve_now_us() - b->last_sent_us >= cfg->keepalive_ms * 1000) {
      buf_puts(&b->out, ": keepalive\n\n"); /* also finds clients that went away */
      return;
    }
    for (int64_t slept = 0; slept < cfg->poll_ms && !b->r->srv->stopping; slept += 50)
      sleep_ms(cfg->poll_ms - slept < 50 ? cfg->poll_ms - slept : 50);
  }
}

static ssize_t sse_read(void *ctx, char *buf, size_t max) {
  sse_body *b = ctx;
  if (b->out_pos == b->out.len) {
    b->out.len = b->out_pos = 0;
    fill(b);
  }
  size_t n = b->out.len - b->out_pos;
  if (n == 0) return SERVE_BODY_END;
  if (n > max) n = max;
  memcpy(buf, b->out.data + b->out_pos, n);
  b->out_pos += n;
  b->last_sent_us = serve_now_us();
  return (ssize_t)n;
}

/* Where to start: after Last-Event-ID, else `from`, else after the
 * current version (only new commits). */
static int start_version(struct MHD_Connection *c, serve_table *t, int64_t *out, const char **err) {
  const char *last = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID");
  bool has;
  if (last && *last) {
    char *end;
    long long v = strtoll(last, &end, 10);
    if (*end || v < -1) return *err = "Last-Event-ID must be a version number", -1;
    *out = v + 1;
    return 0;
  }
  if (serve_arg_int(c, "from", out, &has)) return *err = "from needs a version number", -1;
  if (has) return 0;
  delta_snapshot *s;
  if (serve_table_snapshot(t, &s)) return *err = delta_error_last(), -1;
  *out = s->version + 1;
  delta_snapshot_free(s);
  return 0;
}

int api_changes_sse(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  sse_body *b = mem_calloc(1, sizeof *b);
  if (!b) return serve_reply_error(r, c, 500, "out of memory");
  b->r = r;
  b->table = t;
  const char *summary = serve_arg(c, "summary"), *err = NULL;
  b->summary = summary && (strcmp(summary, "true") == 0 || strcmp(summary, "1") == 0);
  if (serve_arg_list(c, "columns", &b->columns, &b->n_columns)) err = "columns needs a comma-separated list";
  if (!err && serve_commit_info_init(&b->info)) err = "out of memory";
  if (!err) start_version(c, t, &b->next, &err);
  if (err) {
    int ok = serve_reply_error(r, c, 400, "%s", err);
    sse_free(b);
    return ok;
  }
  buf_puts(&b->out, "retry: 2000\n\n");
  b->last_sent_us = serve_now_us();
  r->no_deadline = true; /* a tail is meant to stay open */
  static const char *const headers[] = {"X-Accel-Buffering", "no", NULL};
  return serve_reply_stream(r, c, 200, "text/event-stream", sse_read, b, sse_free, headers);
}
