/* deltac serve: an Arrow stream as a chunked HTTP body (NDJSON, CSV, JSON or
 * an Arrow IPC stream), produced batch by batch as the client reads.
 *
 * libmicrohttpd pulls bytes; the writers push them. Each pull that finds
 * the pending buffer empty formats the next batch into it, so memory holds
 * one batch and its rendering, whatever the result's size. The CLI's
 * writers are reused: the IPC writer has a sink callback, and the text
 * writer gets a FILE* whose writes land in the pending buffer
 * (fopencookie). */
#include <stdio.h>
#include <string.h>

#include "arrow/format.h"
#include "arrow/ipc_writer.h"
#include "serve/body_stream.h"
#include "serve/serve.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

struct serve_body {
  struct ArrowArrayStream stream;
  serve_format fmt;
  arrow_text_writer *tw;
  arrow_ipc_writer *iw;
  FILE *mem;             /* the text writer's output, into `out` */
  delta_buf out;         /* rendered bytes not yet handed to the client */
  size_t out_pos;
  int64_t left;          /* rows still allowed; < 0: no limit */
  struct ArrowArray first; /* fetched before the response started */
  bool finished;         /* the writer's trailer is in `out` */
  bool failed;
};

int serve_format_parse(const char *s, serve_format *out) {
  static const char *const names[] = {"ndjson", "csv", "json", "arrow"};
  if (!s) s = "ndjson";
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (serve_format)i;
      return 0;
    }
  return -1;
}

const char *serve_format_content_type(serve_format f) {
  switch (f) {
  case SF_CSV: return "text/csv; charset=utf-8";
  case SF_JSON: return "application/json";
  case SF_ARROW: return "application/vnd.apache.arrow.stream";
  default: return "application/x-ndjson";
  }
}

static ssize_t mem_write(void *cookie, const char *data, size_t n) {
  return buf_append(cookie, data, n) ? -1 : (ssize_t)n;
}

static int ipc_sink(void *ctx, const void *data, size_t len) { return buf_append(ctx, data, len); }

static int stream_error(struct ArrowArrayStream *s, int err) {
  const char *m = s->get_last_error ? s->get_last_error(s) : NULL;
  return err_set(DELTA_ERROR, "%s", m && *m ? m : strerror(err));
}

void serve_body_free(void *ctx) {
  serve_body *b = ctx;
  if (!b) return;
  if (b->first.release) b->first.release(&b->first);
  arrow_ipc_writer_free(b->iw);
  arrow_text_writer_free(b->tw);
  if (b->mem) fclose(b->mem);
  if (b->stream.release) b->stream.release(&b->stream);
  buf_dispose(&b->out);
  mem_free(b);
}

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

/* Render up to `left` rows of one batch into b->out. */
static int write_batch(serve_body *b, struct ArrowArray *batch) {
  int64_t take = b->left < 0 || b->left > batch->length ? batch->length : b->left;
  int rc;
  if (b->iw) {
    struct ArrowArray view = *batch;
    view.length = take;
    view.release = noop_release;
    rc = arrow_ipc_writer_write(b->iw, &view);
  } else {
    rc = arrow_text_writer_write(b->tw, batch, take);
    if (!rc && fflush(b->mem)) rc = DELTA_NOMEM();
  }
  if (b->left > 0) b->left -= take;
  return rc;
}

static int finish(serve_body *b) {
  b->finished = true;
  int rc = b->iw ? arrow_ipc_writer_close(b->iw) : arrow_text_writer_finish(b->tw);
  if (!rc && b->mem && fflush(b->mem)) rc = DELTA_NOMEM();
  return rc;
}

/* Fill b->out with the next batch (or the trailer). */
static int produce(serve_body *b) {
  if (b->left == 0) return finish(b);
  struct ArrowArray batch;
  if (b->first.release) {
    batch = b->first;
    b->first.release = NULL;
  } else {
    int err = b->stream.get_next(&b->stream, &batch);
    if (err) return stream_error(&b->stream, err);
  }
  if (!batch.release) return finish(b);
  int rc = write_batch(b, &batch);
  batch.release(&batch);
  return rc;
}

ssize_t serve_body_read(void *ctx, char *buf, size_t max) {
  serve_body *b = ctx;
  while (b->out_pos == b->out.len && !b->finished && !b->failed) {
    b->out.len = b->out_pos = 0;
    if (produce(b)) {
      /* Too late for an error status: cut the body short so the client
       * sees an incomplete chunked response rather than a clean end. */
      fprintf(stderr, "deltac: serve: stream failed: %s\n", delta_error_last());
      b->failed = true;
    }
  }
  if (b->failed) return SERVE_BODY_ERROR;
  size_t n = b->out.len - b->out_pos;
  if (n == 0) return SERVE_BODY_END;
  if (n > max) n = max;
  memcpy(buf, b->out.data + b->out_pos, n);
  b->out_pos += n;
  return (ssize_t)n;
}

int serve_body_open(serve_body **out, struct ArrowArrayStream *stream, serve_format fmt, int64_t limit) {
  *out = NULL;
  serve_body *b = mem_calloc(1, sizeof *b);
  if (!b) {
    stream->release(stream);
    return DELTA_NOMEM();
  }
  b->stream = *stream;
  stream->release = NULL; /* moved */
  b->fmt = fmt;
  b->left = limit;
  struct ArrowSchema schema;
  int err = b->stream.get_schema(&b->stream, &schema), rc = 0;
  if (err) {
    rc = stream_error(&b->stream, err);
    serve_body_free(b);
    return rc;
  }
  if (fmt == SF_ARROW) {
    rc = arrow_ipc_writer_open(&b->iw, &schema, ipc_sink, &b->out);
  } else {
    cookie_io_functions_t io = {NULL, mem_write, NULL, NULL};
    static const arrow_text_format tf[] = {ARROW_FMT_NDJSON, ARROW_FMT_CSV, ARROW_FMT_JSON};
    b->mem = fopencookie(&b->out, "w", io);
    if (!b->mem) {
      rc = DELTA_NOMEM();
    } else {
      setvbuf(b->mem, NULL, _IONBF, 0); /* the text writer buffers already */
      rc = arrow_text_writer_new(&b->tw, tf[fmt], &schema, b->mem);
    }
  }
  schema.release(&schema);
  /* The first batch now: an error reading it (a missing data file, say)
   * can still become an error status instead of a broken 200. */
  if (!rc && limit != 0) {
    err = b->stream.get_next(&b->stream, &b->first);
    if (err) rc = stream_error(&b->stream, err);
  }
  if (rc) {
    serve_body_free(b);
    return rc;
  }
  *out = b;
  return 0;
}
