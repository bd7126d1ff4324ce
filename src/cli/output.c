#include "cli/output.h"

#include <string.h>
#include <unistd.h>

#include "arrow/array.h"
#include "arrow/format.h"
#include "arrow/ipc_writer.h"
#include "util/error_internal.h"

int cli_format_parse(const char *s, FILE *fp) {
  if (!s) return isatty(fileno(fp)) ? OUT_TABLE : OUT_NDJSON;
  if (strcmp(s, "table") == 0) return OUT_TABLE;
  if (strcmp(s, "csv") == 0) return OUT_CSV;
  if (strcmp(s, "ndjson") == 0) return OUT_NDJSON;
  if (strcmp(s, "json") == 0) return OUT_JSON;
  if (strcmp(s, "arrow") == 0) return OUT_ARROW;
  if (strcmp(s, "count") == 0) return OUT_COUNT;
  return -1;
}

static int file_sink(void *ctx, const void *data, size_t len) {
  if (len && fwrite(data, 1, len, (FILE *)ctx) != len) return err_set(DELTA_EIO, "cannot write output");
  return 0;
}

static int stream_error(struct ArrowArrayStream *s, int err) {
  const char *m = s->get_last_error ? s->get_last_error(s) : NULL;
  return err_set(DELTA_ERROR, "%s", m ? m : strerror(err));
}

/* Cut a batch to its first n rows without copying: a shallow view whose
 * release is a no-op; the caller keeps the original alive. */
static void noop_release(struct ArrowArray *a) { a->release = NULL; }

/* --format count: drain the stream, print the number of rows. */
static int count_stream(struct ArrowArrayStream *stream, int64_t limit, FILE *fp) {
  int64_t n = 0;
  while (limit < 0 || n < limit) {
    struct ArrowArray batch;
    int err = stream->get_next(stream, &batch);
    if (err) return stream_error(stream, err);
    if (!batch.release) break;
    n += batch.length;
    batch.release(&batch);
  }
  if (limit >= 0 && n > limit) n = limit;
  if (fprintf(fp, "%lld\n", (long long)n) < 0 || fflush(fp) != 0) return err_set(DELTA_EIO, "cannot write output");
  return 0;
}

int cli_write_stream(struct ArrowArrayStream *stream, cli_format fmt, int64_t limit, FILE *fp) {
  if (fmt == OUT_COUNT) return count_stream(stream, limit, fp);
  struct ArrowSchema schema;
  int err = stream->get_schema(stream, &schema);
  if (err) return stream_error(stream, err);
  arrow_text_writer *tw = NULL;
  arrow_ipc_writer *iw = NULL;
  int rc = fmt == OUT_ARROW ? arrow_ipc_writer_open(&iw, &schema, file_sink, fp)
                            : arrow_text_writer_new(&tw, (arrow_text_format)(fmt == OUT_TABLE ? ARROW_FMT_TABLE
                                                                            : fmt == OUT_CSV  ? ARROW_FMT_CSV
                                                                            : fmt == OUT_JSON ? ARROW_FMT_JSON
                                                                                              : ARROW_FMT_NDJSON),
                                                    &schema, fp);
  int64_t left = limit;
  while (!rc && left != 0) {
    struct ArrowArray batch;
    err = stream->get_next(stream, &batch);
    if (err) {
      rc = stream_error(stream, err);
      break;
    }
    if (!batch.release) break;
    int64_t take = left < 0 || left > batch.length ? batch.length : left;
    if (iw) {
      struct ArrowArray view = batch;
      view.length = take;
      view.release = noop_release;
      rc = arrow_ipc_writer_write(iw, &view);
    } else {
      rc = arrow_text_writer_write(tw, &batch, take);
    }
    if (left > 0) left -= take;
    batch.release(&batch);
  }
  if (!rc) rc = iw ? arrow_ipc_writer_close(iw) : arrow_text_writer_finish(tw);
  if (!rc && fflush(fp) != 0) rc = err_set(DELTA_EIO, "cannot write output");
  arrow_ipc_writer_free(iw);
  arrow_text_writer_free(tw);
  schema.release(&schema);
  return rc;
}
