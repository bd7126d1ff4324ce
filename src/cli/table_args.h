/* Arguments and helpers shared by the table commands (info, schema, files,
 * history, scan, plan, changes). */
#ifndef DELTAC_CLI_TABLE_ARGS_H
#define DELTAC_CLI_TABLE_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/args.h"
#include "deltac/scan.h"
#include "deltac/table.h"

/* --version, --timestamp and --format, which every table command takes. */
#define TABLE_OPTS {"version", true, NULL}, {"timestamp", true, NULL}, {"format", true, NULL}

/* Open the table and the snapshot the options ask for (records_only: see
 * delta_snapshot_options.stats_records_only). Returns an exit code. */
int cli_open_snapshot_mode(const char *cmd, const cli_opt *opts, int n_opts, const char *location,
                           bool records_only, delta_table **t, delta_snapshot **s);
int cli_open_snapshot(const char *cmd, const cli_opt *opts, int n_opts, const char *location, delta_table **t,
                      delta_snapshot **s);

/* One TABLE, --format and --limit. 0 or the exit status of a usage error. */
int cli_listing_args(const char *cmd, int argc, char **argv, cli_opt *opts, int n_opts, const char **pos,
                     int *fmt, int64_t *limit);

/* --stats: what a scan skipped and read, as one JSON line on stderr. */
void cli_print_scan_metrics(const delta_scan_metrics *m);

#endif
