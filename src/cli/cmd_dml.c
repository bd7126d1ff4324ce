/* delete and update: row-level changes to a table. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table_open.h"
#include "deltac/dml.h"
#include "deltac/error.h"

int cmd_delete(int argc, char **argv) {
  cli_opt opts[] = {{"where", true, NULL}, {"no-deletion-vectors", false, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 2, pos, 1, &n_pos, "delete");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("delete", "expects --where EXPR TABLE");
  const char *where = cli_get(opts, 2, "where");
  if (!where) return cli_usage_error("delete", "--where EXPR is required (--where 'true' deletes every row)");
  delta_delete_options o = DELTA_DELETE_OPTIONS_INIT;
  o.where = where;
  o.no_deletion_vectors = cli_get(opts, 2, "no-deletion-vectors") != NULL;
  delta_dml_result r;
  delta_table *t = NULL;
  if (cli_table_open(&t, pos[0])) return cli_fail("delete");
  rc = delta_delete(t, &o, &r);
  delta_table_free(t);
  if (rc) return cli_fail("delete");
  if (r.noop)
    printf("delete: no rows matched; nothing committed (version %lld)\n", (long long)r.version);
  else
    printf("delete: version %lld: %lld rows deleted, %lld files removed, %lld added, %lld deletion vectors, "
           "%lld change files, %lld rows copied, %lld of %lld files skipped\n",
           (long long)r.version, (long long)r.rows_deleted, (long long)r.files_removed, (long long)r.files_added,
           (long long)r.dvs_added, (long long)r.cdc_files, (long long)r.rows_copied, (long long)r.files_skipped,
           (long long)r.files_considered);
  return 0;
}

int cmd_update(int argc, char **argv) {
  cli_opt opts[] = {{"set", true, NULL}, {"where", true, NULL}, {"no-deletion-vectors", false, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 3, pos, 1, &n_pos, "update");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("update", "expects --set \"col = expr, ...\" [--where EXPR] TABLE");
  delta_update_options o = DELTA_UPDATE_OPTIONS_INIT;
  o.set = cli_get(opts, 3, "set");
  if (!o.set) return cli_usage_error("update", "--set \"col = expr, ...\" is required");
  o.where = cli_get(opts, 3, "where");
  o.no_deletion_vectors = cli_get(opts, 3, "no-deletion-vectors") != NULL;
  delta_dml_result r;
  delta_table *t = NULL;
  if (cli_table_open(&t, pos[0])) return cli_fail("update");
  rc = delta_update(t, &o, &r);
  delta_table_free(t);
  if (rc) return cli_fail("update");
  if (r.noop)
    printf("update: no rows matched; nothing committed (version %lld)\n", (long long)r.version);
  else
    printf("update: version %lld: %lld rows updated, %lld files removed, %lld added, %lld deletion vectors, "
           "%lld change files, %lld rows copied, %lld of %lld files skipped\n",
           (long long)r.version, (long long)r.rows_updated, (long long)r.files_removed, (long long)r.files_added,
           (long long)r.dvs_added, (long long)r.cdc_files, (long long)r.rows_copied, (long long)r.files_skipped,
           (long long)r.files_considered);
  return 0;
}
