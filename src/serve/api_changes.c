/* deltac serve: GET /api/tables/{t}/changes and /api/tables/{t}/rows, streamed
 * in the format asked for (ndjson, csv, json, arrow). */
#include <microhttpd.h>
#include <string.h>

#include "deltac/changes.h"
#include "deltac/scan.h"
#include "serve/api_params.h"
#include "serve/body_stream.h"
#include "serve/serve.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

int api_parse_range(struct MHD_Connection *c, delta_changes_options *co, const char **err) {
  const char *from = serve_arg(c, "from"), *to = serve_arg(c, "to");
  const char *from_ts = serve_arg(c, "from_timestamp"), *to_ts = serve_arg(c, "to_timestamp");
  bool has;
  *err = NULL;
  if (!!from + !!from_ts != 1) return *err = "give from=VERSION or from_timestamp=TS", -1;
  if (to && to_ts) return *err = "give to or to_timestamp, not both", -1;
  if (serve_arg_int(c, "from", &co->start_version, &has)) return *err = "from needs a version number", -1;
  if (serve_arg_int(c, "to", &co->end_version, &co->has_end)) return *err = "to needs a version number", -1;
  if (from_ts) {
    co->start_is_timestamp = true;
    if (time_parse_ms(from_ts, &co->start_timestamp_ms)) return *err = "from_timestamp is not a timestamp", -1;
  }
  if (to_ts) {
    co->has_end = co->end_is_timestamp = true;
    if (time_parse_ms(to_ts, &co->end_timestamp_ms)) return *err = "to_timestamp is not a timestamp", -1;
  }
  return 0;
}

int api_parse_output(struct MHD_Connection *c, api_output *o, const char **err) {
  bool has;
  o->limit = -1;
  o->columns = NULL;
  o->n_columns = 0;
  *err = NULL;
  if (serve_format_parse(serve_arg(c, "format"), &o->fmt)) return *err = "format must be ndjson, csv, json or arrow", -1;
  if (serve_arg_int(c, "limit", &o->limit, &has)) return *err = "limit needs a non-negative integer", -1;
  if (!has) o->limit = -1;
  if (serve_arg_list(c, "columns", &o->columns, &o->n_columns)) return *err = "columns needs a comma-separated list", -1;
  o->filter = serve_arg(c, "filter");
  if (o->filter && !*o->filter) return *err = "filter is empty", -1;
  return 0;
}

/* Start the chunked response over `stream` (taken), or answer with the
 * error that reading its first batch gave. */
static int reply_rows(serve_request *r, struct MHD_Connection *c, struct ArrowArrayStream *stream, const api_output *o) {
  serve_body *b;
  int rc = serve_body_open(&b, stream, o->fmt, o->limit);
  if (rc) return serve_reply_delta_error(r, c, rc);
  return serve_reply_stream(r, c, 200, serve_format_content_type(o->fmt), serve_body_read, b, serve_body_free, NULL);
}

int api_changes(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  delta_changes_options co = DELTA_CHANGES_OPTIONS_INIT;
  api_output o = {0};
  const char *err;
  if (api_parse_range(c, &co, &err) || api_parse_output(c, &o, &err)) {
    mem_free(o.columns);
    return serve_reply_error(r, c, 400, "%s", err);
  }
  co.columns = (const char *const *)o.columns;
  co.n_columns = o.n_columns;
  struct ArrowArrayStream st = {0};
  int rc;
  if ((rc = api_set_changes_filter(&co, o.filter)) != 0) goto done;
  rc = delta_changes_read(t->table, &co, &st);
done:
  mem_free(o.columns); /* the stream copied what it needs */
  if (rc) return serve_reply_delta_error(r, c, rc);
  return reply_rows(r, c, &st, &o);
}

int api_rows(serve_request *r, struct MHD_Connection *c, serve_table *t) {
  api_output o = {0};
  const char *err;
  int64_t version = 0, ts = 0;
  bool at_version, at_ts = false;
  if (api_parse_output(c, &o, &err)) {
    mem_free(o.columns);
    return serve_reply_error(r, c, 400, "%s", err);
  }
  const char *tss = serve_arg(c, "timestamp");
  const char *bad = serve_arg_int(c, "version", &version, &at_version) ? "version needs a version number"
                    : tss && at_version                                 ? "give version or timestamp, not both"
                    : tss && time_parse_ms(tss, &ts)              ? "timestamp is not a timestamp"
                                                                        : NULL;
  if (bad) {
    mem_free(o.columns);
    return serve_reply_error(r, c, 400, "%s", bad);
  }
  at_ts = tss != NULL;
  delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
  so.columns = (const char *const *)o.columns;
  so.n_columns = o.n_columns;
  delta_snapshot *s = NULL;
  struct ArrowArrayStream st = {0};
  int rc;
  if ((rc = api_set_scan_filter(&so, o.filter)) != 0) goto done;
  if ((rc = serve_table_snapshot_at(t, at_version, version, at_ts, ts, &s)) != 0) goto done;
  rc = delta_scan_read(s, &so, &st);
done:
  delta_snapshot_free(s); /* the stream holds its own reference */
  mem_free(o.columns);
  if (rc) return serve_reply_delta_error(r, c, rc);
  return reply_rows(r, c, &st, &o);
}
