/* What the table commands share: opening the snapshot the options ask
 * for, the listing arguments, and the --stats line. */
#include "cli/table_args.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli/output.h"
#include "cli/table_open.h"
#include "deltac/error.h"
#include "util/time_parse.h"

/* Open the table and the snapshot the options ask for. Returns an exit code. */
int cli_open_snapshot_mode(const char *cmd, const cli_opt *opts, int n_opts, const char *location,
                              bool records_only, delta_table **t, delta_snapshot **s) {
  delta_snapshot_options so = DELTA_SNAPSHOT_OPTIONS_INIT;
  so.stats_records_only = records_only;
  const char *v = cli_get(opts, n_opts, "version"), *ts = cli_get(opts, n_opts, "timestamp");
  if (v) {
    char *end;
    so.table_version = strtoll(v, &end, 10);
    if (!*v || *end || so.table_version < 0) return cli_usage_error(cmd, "--version needs a non-negative integer");
    so.at_version = true;
  }
  if (ts) {
    if (v) return cli_usage_error(cmd, "give --version or --timestamp, not both");
    if (time_parse_ms(ts, &so.timestamp_ms)) return cli_usage_error(cmd, "%s", delta_error_last());
    so.at_timestamp = true;
  }
  if (cli_table_open(t, location)) return cli_fail(cmd);
  if (delta_snapshot_open(s, *t, &so)) {
    int rc = cli_fail(cmd);
    delta_table_free(*t);
    *t = NULL;
    return rc;
  }
  return 0;
}

int cli_open_snapshot(const char *cmd, const cli_opt *opts, int n_opts, const char *location, delta_table **t,
                         delta_snapshot **s) {
  return cli_open_snapshot_mode(cmd, opts, n_opts, location, false, t, s);
}



/* Arguments of the listing commands: one TABLE, --format and --limit.
 * Returns 0 or the exit status of a usage error. */
int cli_listing_args(const char *cmd, int argc, char **argv, cli_opt *opts, int n_opts, const char **pos,
                              int *fmt, int64_t *limit) {
  int n_pos, rc = cli_parse(argc, argv, opts, n_opts, pos, 1, &n_pos, cmd);
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error(cmd, "expects one TABLE");
  *fmt = cli_format_parse(cli_get(opts, n_opts, "format"), stdout);
  if (*fmt < 0) return cli_usage_error(cmd, "unknown format '%s'", cli_get(opts, n_opts, "format"));
  *limit = -1;
  const char *l = cli_get(opts, n_opts, "limit");
  if (l) {
    char *end;
    *limit = strtoll(l, &end, 10);
    if (!*l || *end || *limit < 0) return cli_usage_error(cmd, "--limit needs a non-negative integer");
  }
  return 0;
}

/* --stats: what the scan skipped and read, as one JSON line on stderr. */
void cli_print_scan_metrics(const delta_scan_metrics *m) {
  fprintf(stderr,
          "{\"files_total\":%lld,\"files_skipped\":%lld,\"files_read\":%lld,\"row_groups_total\":%lld,"
          "\"row_groups_skipped\":%lld,\"rows_read\":%lld,\"rows_returned\":%lld,\"rows_skipped\":%lld,"
          "\"pages_read\":%lld,\"pages_skipped\":%lld}\n",
          (long long)m->files_total, (long long)m->files_skipped, (long long)m->files_read,
          (long long)m->row_groups_total, (long long)m->row_groups_skipped, (long long)m->rows_read,
          (long long)m->rows_returned, (long long)m->rows_skipped, (long long)m->pages_read,
          (long long)m->pages_skipped);
}
