/* --option KEY=VALUE: storage options (credentials, endpoint, timeouts) for
 * every table a command opens. */
#ifndef DELTAC_CLI_TABLE_OPEN_H
#define DELTAC_CLI_TABLE_OPEN_H

#include "deltac/table.h"

/* Take every "--option KEY=VALUE" / "--option=KEY=VALUE" out of argv[0..*argc)
 * (up to a "--"), keeping the pairs for cli_table_open; *argc shrinks. Returns
 * 0, or prints a usage error for `command` and returns 2. The pairs point
 * into argv, which outlives the command. */
int cli_take_storage_options(const char *command, int *argc, char **argv);

/* delta_table_open_options with the pairs taken: 0 or a DELTA_E* code (an
 * unknown key fails here, named in delta_error_last()). */
int cli_table_open(delta_table **out, const char *location);

/* The pairs taken, for commands that pass them on (serve). */
size_t cli_storage_options(const char *const **keys, const char *const **values);

#endif
