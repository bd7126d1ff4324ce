/* Per-command help: `deltac help CMD`, `deltac CMD --help`. The text is the
 * command's own entry in the one usage text (main.c), so the two never
 * disagree. */
#ifndef DELTAC_CLI_HELP_H
#define DELTAC_CLI_HELP_H

#include <stdio.h>

/* Print the entries of `usage` for `cmd` (and `sub`, for "parquet cat"
 * style commands; NULL for all of them) to `out`. Returns 0, or 2 with a
 * usage error on stderr when the command has no entry. */
int cli_help_command(FILE *out, const char *usage, const char *cmd, const char *sub);

/* True when argv asks for help (--help or -h before any "--"). */
int cli_wants_help(int argc, char **argv);

#endif
