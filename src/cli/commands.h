/* The CLI's commands; each takes the arguments after its own name and
 * returns the exit status (0 ok, 1 error, 2 usage). */
#ifndef DELTAC_CLI_COMMANDS_H
#define DELTAC_CLI_COMMANDS_H

int cmd_parquet(int argc, char **argv);
/* parquet copy (cmd_parquet_write.c) */
int cmd_parquet_copy(int argc, char **argv);
/* info, schema, files, history, and the ones below; -1 when `name` is
 * none of them. */
int cmd_table(const char *name, int argc, char **argv);
int cmd_scan(int argc, char **argv);     /* cmd_scan.c */
int cmd_plan(int argc, char **argv);     /* cmd_scan.c */
int cmd_changes(int argc, char **argv);  /* cmd_changes.c */
/* serve (cmd_serve.c): the HTTP server. */
int cmd_serve(int argc, char **argv);
/* demo (cmd_demo.c): writes a demo table and serves it. */
int cmd_demo(int argc, char **argv);
/* create, write, checkpoint, constraint (cmd_write.c): making and growing tables. */
int cmd_create(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
/* write's input (and merge's source) as an Arrow stream: NDJSON, CSV or
 * Parquet by `format` or the file name; text formats take the column types
 * of `table` when it exists (else of `schema_text`, may be NULL). `pf` keeps
 * a Parquet file open for the stream (free it after the stream). */
struct ArrowArrayStream;
struct delta_parquet_file;
int cli_open_input(const char *path, const char *format, const char *table, const char *schema_text,
                   struct ArrowArrayStream *out, struct delta_parquet_file **pf);
int cmd_constraint(int argc, char **argv);
/* delete, update (cmd_dml.c): row-level changes. */
int cmd_delete(int argc, char **argv);
int cmd_update(int argc, char **argv);
/* optimize, vacuum, restore, cleanup-log (cmd_maint.c): table maintenance. */
int cmd_optimize(int argc, char **argv);
int cmd_vacuum(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_cleanup_log(int argc, char **argv);
/* merge (cmd_merge.c) */
int cmd_merge(int argc, char **argv);

#endif
