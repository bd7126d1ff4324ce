/* The CLI's commands; each takes the arguments after its own name and
 * returns the exit status (0 ok, 1 error, 2 usage). */
#ifndef DELTAC_CLI_COMMANDS_H
#define DELTAC_CLI_COMMANDS_H

int cmd_parquet(int argc, char **argv);
/* parquet copy (cmd_parquet_write.c) */
int cmd_parquet_copy(int argc, char **argv);
/* info, schema, files, history; -1 when `name` is none of them. */
int cmd_table(const char *name, int argc, char **argv);
/* serve (cmd_serve.c): the HTTP server. */
int cmd_serve(int argc, char **argv);

#endif
