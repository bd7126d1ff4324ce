/* merge: upserts and more from a source file or table into a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table_open.h"
#include "deltac/dml.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "deltac/scan.h"
#include "deltac/table.h"
#include "util/buf.h"

#define MAX_CLAUSES 64

static const struct {
  const char *name;
  delta_merge_when when;
  delta_merge_action action;
  bool takes_set;   /* the next argument is "col = expr, ..." */
} clause_opts[] = {
    {"when-matched-update", DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, true},
    {"when-matched-update-all", DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, false},
    {"when-matched-delete", DELTA_MERGE_MATCHED, DELTA_MERGE_DELETE, false},
    {"when-not-matched-insert", DELTA_MERGE_NOT_MATCHED, DELTA_MERGE_INSERT, true},
    {"when-not-matched-insert-all", DELTA_MERGE_NOT_MATCHED, DELTA_MERGE_INSERT, false},
    {"when-not-matched-by-source-update", DELTA_MERGE_NOT_MATCHED_BY_SOURCE, DELTA_MERGE_UPDATE, true},
    {"when-not-matched-by-source-delete", DELTA_MERGE_NOT_MATCHED_BY_SOURCE, DELTA_MERGE_DELETE, false},
};

/* An option "--name value" or "--name=value" at argv[*i]: its value (NULL
 * when argv[*i] is not that option), *i moved past it. */
static const char *take_value(int argc, char **argv, int *i, const char *name, bool *missing) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0) return NULL;
  if (a[2 + n] == '=') return a + 3 + n;
  if (a[2 + n] != 0) return NULL;
  if (*i + 1 >= argc) {
    *missing = true;
    return NULL;
  }
  return argv[++*i];
}

/* The clause options, in order (cli_parse keeps one value per option):
 * taken out of argv. Returns the remaining argc, or -1 after a usage error. */
static int take_clauses(int argc, char **argv, delta_merge_clause *cl, int *n) {
  int out = 0;
  for (int i = 0; i < argc; i++) {
    bool missing = false, found = false;
    for (size_t k = 0; k < sizeof clause_opts / sizeof clause_opts[0] && !found; k++) {
      const char *v = NULL;
      if (clause_opts[k].takes_set) v = take_value(argc, argv, &i, clause_opts[k].name, &missing);
      else if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i] + 2, clause_opts[k].name) == 0) v = "";
      if (missing) return cli_usage_error("merge", "--%s needs \"col = expr, ...\"", clause_opts[k].name), -1;
      if (!v) continue;
      found = true;
      if (*n == MAX_CLAUSES) return cli_usage_error("merge", "at most %d clauses", MAX_CLAUSES), -1;
      cl[*n] = (delta_merge_clause){clause_opts[k].when, clause_opts[k].action, NULL,
                                    clause_opts[k].takes_set ? v : NULL};
      (*n)++;
    }
    if (found) continue;
    const char *cond = take_value(argc, argv, &i, "if", &missing);
    if (missing) return cli_usage_error("merge", "--if needs a condition"), -1;
    if (cond) {
      if (*n == 0 || cl[*n - 1].condition)
        return cli_usage_error("merge", "--if must follow a --when-... clause (one --if per clause)"), -1;
      cl[*n - 1].condition = cond;
      continue;
    }
    argv[out++] = argv[i];
  }
  return out;
}

static bool is_delta_table(const char *path) {
  char log[4096];
  struct stat sb;
  snprintf(log, sizeof log, "%s/_delta_log", path);
  return stat(log, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int cmd_merge(int argc, char **argv) {
  delta_merge_clause cl[MAX_CLAUSES];
  int n_cl = 0;
  argc = take_clauses(argc, argv, cl, &n_cl);
  if (argc < 0) return 2;
  cli_opt opts[] = {{"source", true, NULL},       {"on", true, NULL},           {"format", true, NULL},
                    {"target-alias", true, NULL}, {"source-alias", true, NULL}, {"no-deletion-vectors", false, NULL},
                    {"schema-mode", true, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof opts[0]);
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, n_opts, pos, 1, &n_pos, "merge");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("merge", "expects TABLE --source INPUT --on COND --when-... clauses");
  const char *source = cli_get(opts, n_opts, "source"), *on = cli_get(opts, n_opts, "on");
  if (!source) return cli_usage_error("merge", "--source INPUT is required (NDJSON, CSV, Parquet or a Delta table)");
  if (!on) return cli_usage_error("merge", "--on \"t.key = s.key\" is required");
  if (n_cl == 0) return cli_usage_error("merge", "at least one --when-... clause is required");
  delta_merge_options o = DELTA_MERGE_OPTIONS_INIT;
  o.on = on;
  o.clauses = cl;
  o.n_clauses = n_cl;
  o.target_alias = cli_get(opts, n_opts, "target-alias");
  o.source_alias = cli_get(opts, n_opts, "source-alias");
  o.no_deletion_vectors = cli_get(opts, n_opts, "no-deletion-vectors") != NULL;
  const char *mode = cli_get(opts, n_opts, "schema-mode");
  if (mode && strcmp(mode, "merge") != 0 && strcmp(mode, "strict") != 0)
    return cli_usage_error("merge", "--schema-mode is merge or strict");
  o.schema_merge = mode && strcmp(mode, "merge") == 0;
  struct ArrowArrayStream in = {0};
  delta_parquet_file *pf = NULL;
  delta_table *st = NULL, *tt = NULL;
  delta_snapshot *ss = NULL;
  delta_merge_result r;
  int status = 1;
  if (is_delta_table(source)) {
    delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
    if (cli_table_open(&st, source) || delta_snapshot_open(&ss, st, NULL) || delta_scan_read(ss, &so, &in)) {
      cli_fail(source);
      goto done;
    }
  } else if (cli_open_input(source, cli_get(opts, n_opts, "format"), pos[0], NULL, &in, &pf)) {
    cli_fail("merge: --source");
    goto done;
  }
  o.source = &in;
  if (cli_table_open(&tt, pos[0]) || delta_merge(tt, &o, &r)) {
    cli_fail("merge");
    goto done;
  }
  status = 0;
  if (r.noop)
    printf("merge: nothing matched or inserted; nothing committed (version %lld)\n", (long long)r.version);
  else
    printf("merge: version %lld: %lld rows inserted, %lld updated, %lld deleted, %lld copied; %lld files removed, "
           "%lld added, %lld deletion vectors, %lld change files; %lld of %lld files skipped\n",
           (long long)r.version, (long long)r.rows_inserted, (long long)r.rows_updated, (long long)r.rows_deleted,
           (long long)r.rows_copied, (long long)r.files_removed, (long long)r.files_added, (long long)r.dvs_added,
           (long long)r.cdc_files, (long long)r.files_skipped, (long long)r.files_considered);
done:
  if (in.release) in.release(&in);
  delta_parquet_free(pf);
  delta_snapshot_free(ss);
  delta_table_free(st);
  delta_table_free(tt);
  return status;
}
