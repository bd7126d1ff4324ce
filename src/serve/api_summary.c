/* deltac serve: GET /api/tables/{t}/changes/summary?from=&to= — per version
 * of the range: timestamp, operation and the rows of each change type.
 *
 *   {"table":"t","start":1,"end":3,"versions":[
 *     {"version":1,"timestamp":"...","operation":"WRITE","insert":10,"delete":0,
 *      "update_preimage":0,"update_postimage":0}, ...]}
 *
 * Streamed: the change rows arrive in version order, so each version's
 * record is written as soon as a later version (or the end) shows up, and
 * memory holds one batch whatever the range. Versions without change rows
 * (OPTIMIZE, metadata changes) are listed with zero counts. */
#include <microhttpd.h>
#include <string.h>

#include "deltac/changes.h"
#include "serve/api_params.h"
#include "serve/commit_info.h"
#include "serve/serve.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static const char *const kinds[] = {"insert", "delete", "update_preimage", "update_postimage"};

typedef struct {
  serve_table *table;
  delta_snapshot *snap;      /* for the commit listing */
  struct ArrowArrayStream stream;
  int type_col;              /* index of _change_type in the batches */
  int64_t next, end;         /* next version to write; last of the range */
  int64_t counts[4];         /* of version `next` so far */
  serve_commit_info info;
  delta_buf out, tmp;
  size_t out_pos;
  bool header_done, finished, failed;
} summary_body;

static void summary_free(void *ctx) {
  summary_body *b = ctx;
  if (b->stream.release) b->stream.release(&b->stream);
  serve_commit_info_dispose(&b->info);
  buf_dispose(&b->out);
  buf_dispose(&b->tmp);
  delta_snapshot_free(b->snap);
  mem_free(b);
}

/* Append version b->next's record and move on. */
static int emit_version(summary_body *b) {
  const log_entry *e = log_find_commit(&b->snap->listing, b->next);
  int rc = e ? serve_commit_info_read(b->table->table, e, &b->info) : 0;
  if (rc) return rc;
  if (!e) b->info.ci.tok = -1;
  delta_json_writer w;
  if (b->header_done) buf_putc(&b->out, ',');
  b->header_done = true;
  json_writer_init(&w, &b->out, 0);
  json_write_object_begin(&w);
  serve_commit_info_json(&w, &b->info, b->next, false, &b->tmp);
  for (int k = 0; k < 4; k++) {
    json_write_key(&w, kinds[k]);
    json_write_int64(&w, b->counts[k]);
  }
  json_write_object_end(&w);
  memset(b->counts, 0, sizeof b->counts);
  b->next++;
  return json_writer_finish(&w);
}

static int change_kind(const struct ArrowArray *ca, int64_t i) {
  const int32_t *off = ca->buffers[1];
  const char *bytes = ca->buffers[2];
  int64_t j = ca->offset + i;
  size_t n = (size_t)(off[j + 1] - off[j]);
  for (int k = 0; k < 4; k++)
    if (strlen(kinds[k]) == n && memcmp(bytes + off[j], kinds[k], n) == 0) return k;
  return -1;
}

/* Count one batch, writing the records of the versions it moves past. */
static int count_batch(summary_body *b, const struct ArrowArray *batch) {
  const struct ArrowArray *ca = batch->children[b->type_col], *va = batch->children[b->type_col + 1];
  const int64_t *ver = va->buffers[1];
  int rc = 0;
  for (int64_t i = 0; !rc && i < batch->length; i++) {
    int64_t v = ver[va->offset + i];
    while (!rc && b->next < v) rc = emit_version(b);
    int k = change_kind(ca, i);
    if (k >= 0) b->counts[k]++;
  }
  return rc;
}

static int produce(summary_body *b) {
  struct ArrowArray batch;
  int err = b->stream.get_next(&b->stream, &batch);
  if (err) return err_set(DELTA_ERROR, "%s", b->stream.get_last_error(&b->stream));
  if (batch.release) {
    int rc = count_batch(b, &batch);
    batch.release(&batch);
    return rc;
  }
  int rc = 0;
  while (b->next <= b->end)
    if ((rc = emit_version(b)) != 0) goto done;
  rc = buf_puts(&b->out, "]}\n");
done:
  b->finished = true;
  return rc;
}

static ssize_t summary_read(void *ctx, char *buf, size_t max) {
  summary_body *b = ctx;
  while (b->out_pos == b->out.len && !b->finished && !b->failed) {
    b->out.len = b->out_pos = 0;
    if (produce(b)) b->failed = true;
  }
  if (b->failed) return SERVE_BODY_ERROR;
  size_t n = b->out.len - b->out_pos;
  if (n == 0) return SERVE_BODY_END;
  if (n > max) n = max;
  memcpy(buf, b->out.data + b->out_pos, n);
  b->out_pos += n;
  return (ssize_t)n;
}

/* Resolve the range (the plan does the same checks as the stream and
 * tells the versions a timestamp range maps to). */
static int resolve_range(serve_table *t, const delta_changes_options *co, int64_t *start, int64_t *end) {
  delta_changes_plan *p;
  int rc = delta_changes_plan_open(&p, t->table, co);
  if (rc) return rc;
  *start = delta_changes_plan_start_version(p);
  *end = delta_changes_plan_end_version(p);
  delta_changes_plan_free(p);
  return 0;
}

/* Counting needs only the change columns; one table column is the least the
 * projection allows. A range whose end schema lacks it falls back to all. */
static int open_counting_stream(summary_body *b, delta_changes_options *co) {
  const delta_type *schema = b->snap->schema;
  const char *first[2] = {schema && schema->n_fields ? schema->fields[0].name : NULL, NULL};
  if (first[0]) {
    co->columns = first;
    co->n_columns = 1;
    if (delta_changes_read(b->table->table, co, &b->stream) == 0) return 0;
  }
  co->columns = NULL;
  co->n_columns = 0;
  return delta_changes_read(b->table->table, co, &b->stream);
}

int api_changes_summary(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  delta_changes_options co = DELTA_CHANGES_OPTIONS_INIT;
  const char *err;
  if (api_parse_range(c, &co, &err)) return serve_reply_error(r, c, 400, "%s", err);
  summary_body *b = mem_calloc(1, sizeof *b);
  if (!b) return serve_reply_error(r, c, 500, "out of memory");
  b->table = t;
  int64_t start = 0;
  struct ArrowSchema schema = {0};
  int rc;
  if ((rc = serve_commit_info_init(&b->info)) != 0) goto fail;
  if ((rc = serve_table_snapshot(t, &b->snap)) != 0) goto fail;
  if ((rc = resolve_range(t, &co, &start, &b->end)) != 0) goto fail;
  if ((rc = open_counting_stream(b, &co)) != 0) goto fail;
  if (b->stream.get_schema(&b->stream, &schema)) {
    rc = err_set(DELTA_ERROR, "%s", b->stream.get_last_error(&b->stream));
    goto fail;
  }
  b->type_col = (int)schema.n_children - 3;
  schema.release(&schema);
  b->next = start;
  buf_printf(&b->out, "{\"table\":\"%s\",\"start\":%lld,\"end\":%lld,\"versions\":[", t->name, (long long)start,
                   (long long)b->end);
  return serve_reply_stream(r, c, 200, "application/json", summary_read, b, summary_free, NULL);
fail:
  summary_free(b);
  return serve_reply_delta_error(r, c, rc);
}
