/* deltac serve: Delta Sharing GET .../changes — the change data feed of a
 * version range as file actions, from the library's change plan:
 *
 *   {"protocol":...}  {"metaData":...}
 *   {"add":{"url","id","partitionValues","size","timestamp","version","expirationTimestamp"}}
 *   {"cdf":{...}}     a change data file (rows carry their own _change_type)
 *   {"remove":{...}}  a removed file: its rows are deletes
 *
 * The client reads each file and adds _change_type / _commit_version /
 * _commit_timestamp. Streamed one plan file at a time. A file whose rows
 * change only in part (a deletion vector) has no parquet-format action:
 * the response stops with an error there (checked before the first byte
 * for the range's first commit only, as the plan reads commits lazily).
 * With responseformat=delta the log's actions are sent instead, deletion
 * vectors included (sharing_log.c). */
#include <microhttpd.h>
#include <stdio.h>
#include <string.h>

#include "deltac/changes.h"
#include "serve/sharing.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

typedef struct {
  sharing_lines lines;       /* first: the body reader's view */
  delta_changes_plan *plan;
  sharing_ctx sc;
  delta_buf base;
  delta_change_file pending; /* read before the response started */
  bool has_pending;
} changes_body;

static void changes_free(void *ctx) {
  changes_body *b = ctx;
  delta_changes_plan_free(b->plan);
  buf_dispose(&b->base);
  buf_dispose(&b->lines.out);
  mem_free(b);
}

static int file_line(changes_body *b, const delta_change_file *f) {
  if (f->rows == DELTA_CHANGE_ROWS_DV_DIFF || f->dv) return sharing_parquet_dv_error(f->version);
  const char *kind = f->rows == DELTA_CHANGE_ROWS_CDC         ? "cdf"
                     : strcmp(f->change_type, "insert") == 0 ? "add"
                                                              : "remove";
  delta_kv *pv = f->n_partition_values ? mem_malloc((size_t)f->n_partition_values * sizeof *pv) : NULL;
  if (f->n_partition_values && !pv) return DELTA_NOMEM();
  for (int i = 0; i < f->n_partition_values; i++)
    pv[i] = (delta_kv){f->partition_values[i].key, f->partition_values[i].value};
  int rc = sharing_change_line(&b->lines.out, &b->sc, kind, f->path, f->size, pv, f->n_partition_values, NULL,
                               f->version, f->timestamp_ms);
  mem_free(pv);
  return rc;
}

static int produce(sharing_lines *l) {
  changes_body *b = (changes_body *)l;
  if (b->has_pending) {
    b->has_pending = false;
    return file_line(b, &b->pending);
  }
  delta_change_file f;
  int rc = delta_changes_plan_next(b->plan, &f);
  if (rc == 1) {
    l->finished = true;
    return 0;
  }
  return rc ? rc : file_line(b, &f);
}

ssize_t sharing_lines_read(void *ctx, char *buf, size_t max) {
  sharing_lines *l = ctx;
  while (l->out_pos == l->out.len && !l->finished && !l->failed) {
    l->out.len = l->out_pos = 0;
    if (l->produce(l)) {
      fprintf(stderr, "deltac: serve: sharing: %s\n", delta_error_last());
      l->failed = true;
    }
  }
  if (l->failed) return SERVE_BODY_ERROR;
  size_t n = l->out.len - l->out_pos;
  if (n == 0) return SERVE_BODY_END;
  if (n > max) n = max;
  memcpy(buf, l->out.data + l->out_pos, n);
  l->out_pos += n;
  return (ssize_t)n;
}

static int parse_params(struct MHD_Connection *c, delta_changes_options *co, const char **err) {
  const char *sts = serve_arg(c, "startingTimestamp"), *ets = serve_arg(c, "endingTimestamp");
  bool has_start;
  if (serve_arg_int(c, "startingVersion", &co->start_version, &has_start))
    return *err = "startingVersion must be a version number", -1;
  if (serve_arg_int(c, "endingVersion", &co->end_version, &co->has_end))
    return *err = "endingVersion must be a version number", -1;
  if (has_start == !!sts) return *err = "give startingVersion or startingTimestamp", -1;
  if (co->has_end && ets) return *err = "give endingVersion or endingTimestamp, not both", -1;
  if (sts) {
    co->start_is_timestamp = true;
    if (time_parse_ms(sts, &co->start_timestamp_ms)) return *err = "startingTimestamp is not a timestamp", -1;
  }
  if (ets) {
    co->has_end = co->end_is_timestamp = true;
    if (time_parse_ms(ets, &co->end_timestamp_ms)) return *err = "endingTimestamp is not a timestamp", -1;
  }
  return 0;
}

/* responseformat=delta: the range resolved and checked by the plan, then
 * the log's own actions (sharing_log.c). */
static int delta_changes(serve_request *r, struct MHD_Connection *c, serve_table *t, const delta_snapshot *s,
                         changes_body *b) {
  const char *hm = serve_arg(c, "includeHistoricalMetadata");
  sharing_walk_options o = {WALK_CHANGES, true, hm && strcmp(hm, "true") == 0,
                            delta_changes_plan_start_version(b->plan), delta_changes_plan_end_version(b->plan)};
  changes_free(b);
  return sharing_walk_reply(r, c, t, s, &o);
}

int sharing_changes(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  delta_changes_options co = DELTA_CHANGES_OPTIONS_INIT;
  const char *err;
  if (parse_params(c, &co, &err)) return sharing_error(r, c, 400, err);
  changes_body *b = mem_calloc(1, sizeof *b);
  if (!b) return sharing_error(r, c, 500, "out of memory");
  b->lines.produce = produce;
  delta_snapshot *s = NULL;
  bool delta = false;
  int rc;
  if ((rc = serve_table_snapshot(t, &s)) != 0) goto fail;
  if ((rc = sharing_format_choose(c, s, &delta)) != 0) goto fail;
  if ((rc = delta_changes_plan_open(&b->plan, t->table, &co)) != 0) goto fail;
  if (delta) {
    int ok = delta_changes(r, c, t, s, b);
    delta_snapshot_free(s);
    return ok;
  }
  if ((rc = sharing_parquet_check_mapping(s)) != 0) goto fail;
  /* The first file now, so that an error in the first commit is a status. */
  rc = delta_changes_plan_next(b->plan, &b->pending);
  if (rc < 0) goto fail;
  b->has_pending = rc == 0;
  b->lines.finished = rc == 1;
  rc = 0;
  if (b->has_pending && (b->pending.rows == DELTA_CHANGE_ROWS_DV_DIFF || b->pending.dv) &&
      (rc = file_line(b, &b->pending)) != 0)
    goto fail;
  b->sc.cfg = r->srv->cfg;
  b->sc.table = t;
  b->sc.expires_ms = serve_wall_ms() + r->srv->cfg->url_expiry_s * 1000;
  sharing_base_url(r->srv->cfg, c, &b->base);
  buf_putc(&b->base, 0);
  b->sc.base = (const char *)b->base.data;
  sharing_protocol_line(&b->lines.out);
  sharing_metadata_line(&b->lines.out, &s->metadata, s->version, NULL);
  char v[24];
  snprintf(v, sizeof v, "%lld", (long long)delta_changes_plan_start_version(b->plan));
  delta_snapshot_free(s);
  const char *const h[] = {"Delta-Table-Version", v, "delta-sharing-capabilities", sharing_format_header(false), NULL};
  return serve_reply_stream(r, c, 200, "application/x-ndjson; charset=utf-8", sharing_lines_read, b, changes_free, h);
fail:
  delta_snapshot_free(s);
  changes_free(b);
  return sharing_error(r, c, serve_status_for(rc), delta_error_last());
}
