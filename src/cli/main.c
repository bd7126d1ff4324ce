/* deltac: the command-line tool. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/help.h"
#include "cli/table_open.h"
#include "deltac/version.h"
#include "log/snapshot.h"

static const char usage[] =
    "usage: deltac <command> [options] ARG\n"
    "\n"
    "Delta tables (TABLE is a path or file:// URI; --version N / --timestamp TS pick a snapshot):\n"
    "  info [--format table|json] [--stats] TABLE  version, protocol and features, partitioning, properties,\n"
    "      files; --stats: storage requests and bytes per kind on stderr\n"
    "  schema [--format table|json] TABLE  the table schema as a tree, or the Delta JSON schema\n"
    "  files [--format ...] [--limit N] TABLE  live data files with size, records, partition values, DVs\n"
    "  history [--format ...] [--limit N] TABLE  commits, newest first: operation, parameters, metrics\n"
    "  scan [--format ...] [--columns a,b] [--filter EXPR] [--limit N] [--stats] [--row-tracking] TABLE\n"
    "          the table's rows (deleted rows skipped); --filter prunes files and row groups and keeps\n"
    "          matching rows (docs/filters.md); --stats prints what was skipped and read to stderr;\n"
    "          --row-tracking appends each row's _row_id and _row_commit_version\n"
    "  plan [--filter EXPR] [--stats] TABLE  the files a scan reads, as NDJSON, for outside readers\n"
    "  changes --from N [--to M] | --from-timestamp TS [--to-timestamp TS] [--summary | --plan] [--format ...]\n"
    "          [--columns a,b] [--filter EXPR] [--limit N] [--stats] TABLE  the change data feed between\n"
    "          two versions (inclusive); --plan: one JSON line per file to read and how its rows become\n"
    "          changes; filters may use _change_type, _commit_version, _commit_timestamp\n"
    "\n"
    "--format: table, csv, ndjson, json, arrow (Arrow IPC stream) or count (just the number of rows)\n"
    "\n"
    "Writing tables:\n"
    "  create --schema S [--partition-by a,b | --cluster-by a,b] [--property k=v ...] TABLE  create an empty table\n"
    "  write [--mode append|overwrite] [--partition-by a,b | --cluster-by a,b] [--schema S] [--schema-mode merge]\n"
    "        [--property k=v ...] [--app-id A --app-version N] [--target-file-size 128M]\n"
    "        --input FILE(.ndjson|.csv|.parquet|.arrows) TABLE  append or overwrite rows (creates the table);\n"
    "        --format arrow with no INPUT reads an Arrow IPC stream from stdin\n"
    "  checkpoint [--version N] TABLE    write a checkpoint and _last_checkpoint\n"
    "  constraint add NAME EXPR TABLE | drop [--if-exists] NAME TABLE  CHECK constraints\n"
    "  delete --where EXPR [--no-deletion-vectors] TABLE  delete the matching rows (DVs when enabled)\n"
    "  update --set \"col = expr, ...\" [--where EXPR] [--no-deletion-vectors] TABLE  change matching rows\n"
    "  merge --source INPUT|TABLE --on \"t.k = s.k\" CLAUSE [--if COND] ... TABLE  upsert (MERGE INTO); clauses,\n"
    "        in order: --when-matched-update \"c = s.c, ...\" | --when-matched-update-all | --when-matched-delete |\n"
    "        --when-not-matched-insert \"c = s.c, ...\" | --when-not-matched-insert-all |\n"
    "        --when-not-matched-by-source-update \"c = expr\" | --when-not-matched-by-source-delete\n"
    "\n"
    "Maintenance (docs/maintenance.md; a progress bar on stderr when it is a terminal):\n"
    "  optimize [--where EXPR] [--target-size 128M] [--zorder-by a,b] TABLE  compact small files (and purge\n"
    "          deletion vectors) per partition; --zorder-by clusters the rows along a Z-order curve\n"
    "          (clustered tables: by their --cluster-by columns)\n"
    "  vacuum [--retain HOURS] [--dry-run] [--force] [--no-log] [--lite] [--format table|ndjson] TABLE  delete files\n"
    "          no retained version needs (a retention below the table's, 168 h by default, needs --force);\n"
    "          --lite: only files the log's removes name, without listing the table directory\n"
    "  restore --version N | --timestamp TS TABLE  commit the live files of an older version again\n"
    "  cleanup-log [--dry-run] [--format table|ndjson] TABLE  delete log files older than\n"
    "          delta.logRetentionDuration (30 days) before a checkpoint (also done after each checkpoint)\n"
    "\n"
    "Server:\n"
    "  serve [--host 127.0.0.1] [--port 8080] [--table NAME=URI ...] [--config FILE]\n"
    "                                    serve tables read-only over HTTP (docs/server.md)\n"
    "  demo [--dir DIR] [--port 8080]     write a demo table with a change history and serve it\n"
    "\n"
    "Parquet files:\n"
    "  parquet cat [--format table|csv|ndjson|json|arrow] [--columns a,b.c] [--limit N]\n"
    "              [--row-groups 0,2] [--batch-rows N] FILE\n"
    "                                    print the rows of a Parquet file\n"
    "  parquet schema [--arrow] FILE     print its schema (Parquet, or the Arrow types read)\n"
    "  parquet meta FILE                 print row groups, column chunks, encodings, statistics (JSON)\n"
    "  parquet bench [--repeat N] FILE   decode every column, print rows and seconds\n"
    "  parquet copy [--codec C] [--row-group-rows N] [--page-size B] [--page-rows N]\n"
    "               [--dictionary on|off] [--page-v2] [--delta] [--stats] IN OUT\n"
    "                                    re-encode a Parquet file with deltac's writer\n"
    "\n"
    "Other:\n"
    "  --version                         print the version\n"
    "  --features                        list supported Parquet and Delta features\n"
    "  help [CMD]                        this text, or one command's (also: deltac CMD --help)\n"
    "\n"
    "Storage options: --option KEY=VALUE (repeatable) on every command that opens a table, e.g.\n"
    "  --option aws_endpoint_url=http://127.0.0.1:7480 --option aws_allow_http=true (docs/storage.md)\n"
    "\n"
    "Errors go to stderr as one line; exit status 0 ok, 1 error, 2 usage.\n";

static const char features[] =
    "parquet: physical types BOOLEAN INT32 INT64 INT96 FLOAT DOUBLE BYTE_ARRAY FIXED_LEN_BYTE_ARRAY\n"
    "parquet: logical types STRING ENUM JSON BSON UUID DECIMAL DATE TIME TIMESTAMP INTEGER FLOAT16 LIST MAP\n"
    "parquet: encodings PLAIN PLAIN_DICTIONARY RLE_DICTIONARY RLE BIT_PACKED DELTA_BINARY_PACKED\n"
    "parquet:           DELTA_LENGTH_BYTE_ARRAY DELTA_BYTE_ARRAY BYTE_STREAM_SPLIT\n"
    "parquet: codecs UNCOMPRESSED SNAPPY GZIP ZSTD LZ4 LZ4_RAW BROTLI\n"
    "parquet: pages DATA_PAGE DATA_PAGE_V2 DICTIONARY_PAGE\n";

int main(int argc, char **argv) {
  /* The tool streams batches of a few hundred KB per column: keep freed
   * memory in the heap instead of unmapping and faulting it in again for
   * every batch. (A library embedder chooses its own allocator.) */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  if (argc < 2) {
    fputs("deltac: missing command (see 'deltac help')\n", stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    if (argc > 2) return cli_help_command(stdout, usage, argv[2], argc > 3 ? argv[3] : NULL);
    fputs(usage, stdout);
    return 0;
  }
  if (cmd[0] != '-' && cli_wants_help(argc - 2, argv + 2)) {
    /* "deltac parquet cat --help": the sub-command when there is one */
    const char *sub = strcmp(cmd, "parquet") == 0 && argc > 2 && argv[2][0] != '-' ? argv[2] : NULL;
    return cli_help_command(stdout, usage, cmd, sub);
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("deltac %s\n", delta_version());
    return 0;
  }
  if (strcmp(cmd, "--features") == 0) {
    fputs(features, stdout);
    printf("delta: reader versions 1-3; log: JSON commits, classic, multi-part and V2 checkpoints with sidecars\n");
    printf("delta: reader features");
    for (int i = 0; delta_supported_reader_features[i]; i++) printf(" %s", delta_supported_reader_features[i]);
    printf("\ndelta: scan: partition values, column mapping (name, id), type widening, deletion vectors, "
           "row ids (--row-tracking)\n");
    printf("delta: changes: cdc files, add/remove rows, deletion-vector diffs, in-commit timestamps, schema checks\n");
    printf("delta: filters: partition pruning, file-statistics and row-group skipping, exact row filtering "
           "(scan, plan, changes, serve)\n");
    printf("delta: log: log compaction files, _last_checkpoint listing hint, .crc version checksums (verified by info)\n");
    printf("delta: write: create, append, overwrite, replace-where, partitions, column mapping, in-commit timestamps, "
           "change data feed (cdc files for replace-where), app-id transactions, nested schema merge, "
           "NOT NULL and CHECK constraints, classic and V2 checkpoints (sidecars, stats_parsed), .crc version checksums, "
           "row tracking (rowTracking: fresh and preserved row ids), liquid clustering (clustering)\n");
    printf("delta: dml: delete, update, merge (copy-on-write or deletion vectors, inline or file DVs, cdc files)\n");
    printf("delta: maintenance: optimize (bin-packing, Z-order, liquid clustering, DV purge), vacuum, restore, expired-log cleanup\n");
    printf("serve: JSON API, change-feed SSE tail, Delta Sharing (parquet and delta response formats), web page\n");
    return 0;
  }
  /* --option KEY=VALUE goes with every command that opens a table */
  int n_args = argc - 2, rc;
  if ((rc = cli_take_storage_options(cmd, &n_args, argv + 2)) != 0) return rc;
  argc = n_args + 2;
  const char *const *opt_keys, *const *opt_values;
  if (strcmp(cmd, "parquet") == 0 && cli_storage_options(&opt_keys, &opt_values) > 0)
    return cli_usage_error(cmd, "--option is for commands that open a table");
  if (strcmp(cmd, "parquet") == 0) return cmd_parquet(argc - 2, argv + 2);
  if (strcmp(cmd, "serve") == 0) return cmd_serve(argc - 2, argv + 2);
  if (strcmp(cmd, "demo") == 0) return cmd_demo(argc - 2, argv + 2);
  if (strcmp(cmd, "create") == 0) return cmd_create(argc - 2, argv + 2);
  if (strcmp(cmd, "write") == 0) return cmd_write(argc - 2, argv + 2);
  if (strcmp(cmd, "checkpoint") == 0) return cmd_checkpoint(argc - 2, argv + 2);
  if (strcmp(cmd, "constraint") == 0) return cmd_constraint(argc - 2, argv + 2);
  if (strcmp(cmd, "delete") == 0) return cmd_delete(argc - 2, argv + 2);
  if (strcmp(cmd, "update") == 0) return cmd_update(argc - 2, argv + 2);
  if (strcmp(cmd, "optimize") == 0) return cmd_optimize(argc - 2, argv + 2);
  if (strcmp(cmd, "vacuum") == 0) return cmd_vacuum(argc - 2, argv + 2);
  if (strcmp(cmd, "restore") == 0) return cmd_restore(argc - 2, argv + 2);
  if (strcmp(cmd, "cleanup-log") == 0) return cmd_cleanup_log(argc - 2, argv + 2);
  if (strcmp(cmd, "merge") == 0) return cmd_merge(argc - 2, argv + 2);
  rc = cmd_table(cmd, argc - 2, argv + 2);
  if (rc >= 0) return rc;
  return cli_usage_error(cmd, "unknown command");
}
