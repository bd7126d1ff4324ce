/* deltac changes: the change data feed, its summary and its plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table_open.h"
#include "cli/output.h"
#include "cli/table_args.h"
#include "deltac/error.h"
#include "arrow/builder.h"
#include "cli/changes_plan.h"
#include "deltac/changes.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"
#include "util/time_parse.h"

/* --summary: per version, the rows of each change type. */
static int changes_summary(struct ArrowArrayStream *st, cli_format fmt) {
  enum { MAXV = 1 << 16 };
  struct ArrowSchema schema;
  if (st->get_schema(st, &schema)) return err_set(DELTA_ERROR, "%s", st->get_last_error(st));
  int ct = (int)schema.n_children - 3;
  schema.release(&schema);
  static const char *const kinds[] = {"insert", "delete", "update_preimage", "update_postimage"};
  delta_buf versions = DELTA_BUF_INIT; /* int64 version, int64 counts[4] */
  int rc = 0;
  for (;;) {
    struct ArrowArray b;
    if (st->get_next(st, &b)) {
      rc = err_set(DELTA_ERROR, "%s", st->get_last_error(st));
      break;
    }
    if (!b.release) break;
    const struct ArrowArray *ca = b.children[ct], *va = b.children[ct + 1];
    const int32_t *off = ca->buffers[1];
    const char *bytes = ca->buffers[2];
    const int64_t *ver = va->buffers[1];
    for (int64_t i = 0; !rc && i < b.length; i++) {
      int64_t v = ver[va->offset + i];
      int64_t j = ca->offset + i;
      int k = 0;
      for (; k < 4; k++)
        if ((int32_t)strlen(kinds[k]) == off[j + 1] - off[j] && memcmp(bytes + off[j], kinds[k], strlen(kinds[k])) == 0)
          break;
      int64_t *rows = (int64_t *)(void *)versions.data;
      size_t n = versions.len / (5 * 8);
      if (n == 0 || rows[(n - 1) * 5] != v) {
        int64_t rec[5] = {v, 0, 0, 0, 0};
        if ((rc = buf_append(&versions, rec, sizeof rec)) != 0) break;
        rows = (int64_t *)(void *)versions.data;
        n++;
      }
      if (k < 4) rows[(n - 1) * 5 + 1 + k]++;
    }
    b.release(&b);
    if (rc) break;
  }
  if (!rc) {
    static const char *const names[] = {"version", "insert", "delete", "update_preimage", "update_postimage"};
    static const arrow_builder_type types[] = {AB_INT64, AB_INT64, AB_INT64, AB_INT64, AB_INT64};
    arrow_batch_builder *bb = NULL;
    rc = arrow_batch_builder_new(&bb, 5, names, types);
    const int64_t *rows = (const int64_t *)(const void *)versions.data;
    for (size_t i = 0; !rc && i < versions.len / 40; i++)
      for (int c = 0; !rc && c < 5; c++) rc = arrow_builder_i64(bb, c, rows[i * 5 + c]);
    struct ArrowArrayStream out = {0};
    if (!rc) rc = arrow_builder_finish(bb, &out);
    if (!rc) rc = cli_write_stream(&out, fmt, -1, stdout);
    if (out.release) out.release(&out);
    arrow_batch_builder_free(bb);
  }
  buf_dispose(&versions);
  (void)MAXV;
  return rc;
}

int cmd_changes(int argc, char **argv) {
  cli_opt opts[] = {{"format", true, NULL}, {"limit", true, NULL}, {"columns", true, NULL}, {"from", true, NULL},
                    {"to", true, NULL}, {"from-timestamp", true, NULL}, {"to-timestamp", true, NULL},
                    {"summary", false, NULL}, {"plan", false, NULL}, {"filter", true, NULL}, {"stats", false, NULL}};
  const int n_opts = 11;
  const char *pos[1];
  int fmt;
  int64_t limit;
  int rc = cli_listing_args("changes", argc, argv, opts, n_opts, pos, &fmt, &limit);
  if (rc) return rc;
  delta_changes_options co = DELTA_CHANGES_OPTIONS_INIT;
  const char *from = cli_get(opts, n_opts, "from"), *to = cli_get(opts, n_opts, "to");
  const char *from_ts = cli_get(opts, n_opts, "from-timestamp"), *to_ts = cli_get(opts, n_opts, "to-timestamp");
  if (!!from + !!from_ts != 1) return cli_usage_error("changes", "give --from N or --from-timestamp TS");
  char *end;
  if (from) {
    co.start_version = strtoll(from, &end, 10);
    if (!*from || *end || co.start_version < 0) return cli_usage_error("changes", "--from needs a version number");
  }
  if (to) {
    co.has_end = true;
    co.end_version = strtoll(to, &end, 10);
    if (!*to || *end || co.end_version < 0) return cli_usage_error("changes", "--to needs a version number");
  }
  if (from_ts) {
    co.start_is_timestamp = true;
    if (time_parse_ms(from_ts, &co.start_timestamp_ms)) return cli_usage_error("changes", "%s", delta_error_last());
  }
  if (to_ts) {
    co.has_end = co.end_is_timestamp = true;
    if (time_parse_ms(to_ts, &co.end_timestamp_ms)) return cli_usage_error("changes", "%s", delta_error_last());
  }
  char **cols = NULL;
  if (cli_get(opts, n_opts, "columns")) {
    cols = cli_split_list(cli_get(opts, n_opts, "columns"), &co.n_columns);
    if (!cols) return cli_fail("changes");
    co.columns = (const char *const *)cols;
  }
  delta_table *t;
  if (cli_table_open(&t, pos[0])) {
    mem_free(cols);
    return cli_fail("changes");
  }
  struct ArrowArrayStream st = {0};
  delta_scan_metrics metrics = {0};
  co.filter = cli_get(opts, n_opts, "filter");
  co.metrics = &metrics;
  if (cli_get(opts, n_opts, "plan")) rc = changes_plan_print(t, &co);
  else rc = delta_changes_read(t, &co, &st);
  if (!rc && st.release) rc = cli_get(opts, n_opts, "summary") ? changes_summary(&st, (cli_format)fmt)
                                                 : cli_write_stream(&st, (cli_format)fmt, limit, stdout);
  if (st.release) st.release(&st);
  if (!rc && cli_get(opts, n_opts, "stats")) cli_print_scan_metrics(&metrics);
  delta_table_free(t);
  mem_free(cols);
  return rc ? cli_fail("changes") : 0;
}
