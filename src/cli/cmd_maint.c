/* optimize, vacuum, restore and cleanup-log: table maintenance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table_open.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "deltac/alloc.h"
#include "deltac/error.h"
#include "deltac/maintenance.h"
#include "json/json_writer.h"
#include "util/alloc_internal.h"
#include "util/time_parse.h"

int cmd_optimize(int argc, char **argv) {
  cli_opt opts[] = {{"where", true, NULL}, {"target-size", true, NULL}, {"zorder-by", true, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 3, pos, 1, &n_pos, "optimize");
  if (rc) return rc;
  if (n_pos != 1)
    return cli_usage_error("optimize", "expects [--where EXPR] [--target-size BYTES] [--zorder-by a,b] TABLE");
  delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
  o.where = cli_get(opts, 3, "where");
  const char *v = cli_get(opts, 3, "target-size");
  if (v && cli_parse_size(v, &o.target_file_size))
    return cli_usage_error("optimize", "--target-size needs a size (bytes, or with K/M/G)");
  char **cols = NULL;
  if ((v = cli_get(opts, 3, "zorder-by"))) {
    size_t n = 0;
    if (!(cols = cli_split_list(v, &n))) return cli_fail("optimize");
    if (n == 0) {
      mem_free(cols);
      return cli_usage_error("optimize", "--zorder-by needs column names");
    }
    o.zorder_by = (const char *const *)cols;
    o.n_zorder_by = (int)n;
  }
  delta_table *t = NULL;
  if (cli_table_open(&t, pos[0])) {
    mem_free(cols);
    return cli_fail("optimize");
  }
  cli_progress bar;
  cli_progress_init(&bar, "optimize");
  o.progress = cli_progress_update;
  o.progress_ctx = &bar;
  delta_optimize_result r;
  rc = delta_optimize(t, &o, &r);
  delta_table_free(t);
  cli_progress_end(&bar);
  mem_free(cols);
  if (rc) return cli_fail("optimize");
  if (r.noop)
    printf("optimize: nothing to compact among %lld files; nothing committed (version %lld)\n",
           (long long)r.files_considered, (long long)r.version);
  else
    printf("optimize: version %lld: %lld files removed (%lld bytes), %lld added (%lld bytes), %lld rows, "
           "%lld partitions, %lld deletion vectors purged\n",
           (long long)r.version, (long long)r.files_removed, (long long)r.bytes_removed, (long long)r.files_added,
           (long long)r.bytes_added, (long long)r.rows_written, (long long)r.partitions_optimized,
           (long long)r.dvs_purged);
  return 0;
}

/* A listed file: an NDJSON object or the key, on stdout. */
typedef struct {
  cli_format fmt;
  delta_buf line;
} file_printer;

static int print_file(void *ctx, const char *key, int64_t size) {
  file_printer *p = ctx;
  if (p->fmt != OUT_NDJSON) {
    puts(key);
    return 0;
  }
  p->line.len = 0;
  delta_json_writer w;
  json_writer_init(&w, &p->line, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "path");
  json_write_string(&w, key);
  json_write_key(&w, "size");
  json_write_int64(&w, size);
  json_write_object_end(&w);
  int rc = json_writer_finish(&w);
  if (!rc) printf("%.*s\n", (int)p->line.len, (const char *)p->line.data);
  return rc;
}

/* --format for file listings: ndjson, or table (one key a line and a summary). */
static int listing_format(const char *cmd, const char *v, cli_format *out) {
  int f = cli_format_parse(v, stdout);
  if (f != OUT_NDJSON && f != OUT_TABLE) return cli_usage_error(cmd, "--format must be table or ndjson");
  *out = (cli_format)f;
  return 0;
}

int cmd_vacuum(int argc, char **argv) {
  cli_opt opts[] = {{"retain", true, NULL}, {"dry-run", false, NULL}, {"force", false, NULL}, {"format", true, NULL},
                    {"no-log", false, NULL}, {"lite", false, NULL}};
  enum { N = sizeof opts / sizeof opts[0] };
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, N, pos, 1, &n_pos, "vacuum");
  if (rc) return rc;
  if (n_pos != 1)
    return cli_usage_error("vacuum", "expects [--retain HOURS] [--dry-run] [--force] [--no-log] [--lite] TABLE");
  delta_vacuum_options o = DELTA_VACUUM_OPTIONS_INIT;
  const char *v = cli_get(opts, N, "retain");
  if (v) {
    char *end;
    o.retain_hours = strtod(v, &end);
    if (end == v || *end || !(o.retain_hours >= 0))
      return cli_usage_error("vacuum", "--retain needs a number of hours");
  }
  o.dry_run = cli_get(opts, N, "dry-run") != NULL;
  o.force = cli_get(opts, N, "force") != NULL;
  o.no_log_commits = cli_get(opts, N, "no-log") != NULL;
  o.lite = cli_get(opts, N, "lite") != NULL;
  file_printer fp = {OUT_TABLE, DELTA_BUF_INIT};
  if ((rc = listing_format("vacuum", cli_get(opts, N, "format"), &fp.fmt))) return rc;
  o.on_file = print_file;
  o.on_file_ctx = &fp;
  delta_table *t = NULL;
  if (cli_table_open(&t, pos[0])) return cli_fail("vacuum");
  cli_progress bar;
  cli_progress_init(&bar, "vacuum");
  o.progress = cli_progress_update;
  o.progress_ctx = &bar;
  delta_vacuum_result r;
  rc = delta_vacuum(t, &o, &r);
  delta_table_free(t);
  cli_progress_end(&bar);
  buf_dispose(&fp.line);
  if (rc) return cli_fail("vacuum");
  if (fp.fmt == OUT_TABLE && o.lite)
    printf("vacuum lite: %s %lld files (%lld bytes) the log's removes name, kept %lld; removes read from version "
           "%lld on%s\n",
           o.dry_run ? "would delete" : "deleted", (long long)r.files_deleted, (long long)r.bytes_deleted,
           (long long)r.files_kept, (long long)(r.first_commit < 0 ? 0 : r.first_commit),
           r.end_version >= 0 ? "; logged as VACUUM START/END" : "");
  else if (fp.fmt == OUT_TABLE)
    printf("vacuum: %s %lld files (%lld bytes) and %lld empty directories, kept %lld%s\n",
           o.dry_run ? "would delete" : "deleted", (long long)r.files_deleted, (long long)r.bytes_deleted,
           (long long)r.dirs_deleted, (long long)r.files_kept,
           r.end_version >= 0 ? "; logged as VACUUM START/END" : "");
  return 0;
}

int cmd_restore(int argc, char **argv) {
  cli_opt opts[] = {{"version", true, NULL}, {"timestamp", true, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 2, pos, 1, &n_pos, "restore");
  if (rc) return rc;
  const char *v = cli_get(opts, 2, "version"), *ts = cli_get(opts, 2, "timestamp");
  if (n_pos != 1 || !v == !ts) return cli_usage_error("restore", "expects --version N | --timestamp TS, and TABLE");
  delta_restore_options o = DELTA_RESTORE_OPTIONS_INIT;
  if (v) {
    char *end;
    o.table_version = strtoll(v, &end, 10);
    if (!*v || *end || o.table_version < 0) return cli_usage_error("restore", "--version needs a non-negative integer");
  } else {
    if (time_parse_ms(ts, &o.timestamp_ms)) return cli_usage_error("restore", "%s", delta_error_last());
    o.at_timestamp = true;
  }
  delta_restore_result r;
  delta_table *t = NULL;
  if (cli_table_open(&t, pos[0])) return cli_fail("restore");
  rc = delta_restore(t, &o, &r);
  delta_table_free(t);
  if (rc) return cli_fail("restore");
  printf("restore: version %lld restores version %lld: %lld files restored (%lld bytes), %lld removed (%lld bytes), "
         "%lld files after\n",
         (long long)r.version, (long long)r.restored_version, (long long)r.files_restored,
         (long long)r.bytes_restored, (long long)r.files_removed, (long long)r.bytes_removed,
         (long long)r.files_after);
  return 0;
}

int cmd_cleanup_log(int argc, char **argv) {
  cli_opt opts[] = {{"dry-run", false, NULL}, {"format", true, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 2, pos, 1, &n_pos, "cleanup-log");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("cleanup-log", "expects [--dry-run] TABLE");
  delta_log_cleanup_options o = DELTA_LOG_CLEANUP_OPTIONS_INIT;
  o.dry_run = cli_get(opts, 2, "dry-run") != NULL;
  file_printer fp = {OUT_TABLE, DELTA_BUF_INIT};
  if ((rc = listing_format("cleanup-log", cli_get(opts, 2, "format"), &fp.fmt))) return rc;
  o.on_file = print_file;
  o.on_file_ctx = &fp;
  delta_log_cleanup_result r;
  delta_table *t = NULL;
  if (cli_table_open(&t, pos[0])) return cli_fail("cleanup-log");
  rc = delta_log_cleanup(t, &o, &r);
  delta_table_free(t);
  buf_dispose(&fp.line);
  if (rc) return cli_fail("cleanup-log");
  if (fp.fmt == OUT_TABLE)
    printf("cleanup-log: %s %lld log files; oldest readable version %lld\n", o.dry_run ? "would delete" : "deleted",
           (long long)r.files_deleted, (long long)r.oldest_version);
  return 0;
}
