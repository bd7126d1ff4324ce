/* Command-line options: "--name value", "--name=value" and flags, with
 * positional arguments collected in order. */
#ifndef DELTAC_CLI_ARGS_H
#define DELTAC_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const char *name;   /* without the leading "--" */
  bool takes_value;
  const char *value;  /* set by cli_parse; "" for a flag that was given */
} cli_opt;

/* Fill opts[].value and positional[] (at most max_pos). Returns 0, or prints
 * a usage error to stderr and returns 2. */
int cli_parse(int argc, char **argv, cli_opt *opts, int n_opts, const char **positional, int max_pos,
              int *n_pos, const char *command);

const char *cli_get(const cli_opt *opts, int n_opts, const char *name);

/* Split "a, b,c" into a NULL-terminated array of trimmed, non-empty names
 * (one allocation; free with mem_free). NULL when out of memory. */
char **cli_split_list(const char *s, size_t *n);

/* A size in bytes, "128M" style (K/M/G suffixes, powers of 1024) into
 * *out; -1 when not a size of at least 1 byte. */
int cli_parse_size(const char *v, int64_t *out);
/* Exit status convention: 0 ok, 1 error, 2 usage. */
int cli_usage_error(const char *command, const char *fmt, ...);
/* Print "deltac: <what>: <delta_error_last()>" and return 1. */
int cli_fail(const char *what);

#endif
