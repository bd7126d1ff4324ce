/* --option KEY=VALUE; see table_open.h. */
#include "cli/table_open.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "util/alloc_internal.h"

/* The pairs of this process's command line. A command runs once per
 * process, so one set suffices. */
static const char **opt_keys, **opt_values;
static size_t n_opts;

static void release(void) {
  for (size_t i = 0; i < n_opts; i++) mem_free((char *)opt_keys[i]);
  mem_free(opt_keys);
  mem_free(opt_values);
  opt_keys = opt_values = NULL;
  n_opts = 0;
}

/* Keep KEY=VALUE from `pair`: the key is copied (cut at '='), the value
 * points into argv. */
static int keep(const char *command, const char *pair) {
  const char *eq = strchr(pair, '=');
  /* the text is not echoed: it may hold a secret */
  if (!eq || eq == pair) return cli_usage_error(command, "--option needs KEY=VALUE");
  const char **k = mem_malloc((n_opts + 1) * sizeof *k), **v = mem_malloc((n_opts + 1) * sizeof *v);
  char *key = mem_strndup(pair, (size_t)(eq - pair));
  if (!k || !v || !key) {
    mem_free(k);
    mem_free(v);
    mem_free(key);
    return cli_usage_error(command, "out of memory");
  }
  if (n_opts) {
    memcpy(k, opt_keys, n_opts * sizeof *k);
    memcpy(v, opt_values, n_opts * sizeof *v);
  }
  mem_free(opt_keys);
  mem_free(opt_values);
  k[n_opts] = key;
  v[n_opts] = eq + 1;
  opt_keys = k;
  opt_values = v;
  n_opts++;
  return 0;
}

int cli_take_storage_options(const char *command, int *argc, char **argv) {
  int n = *argc, out = 0, rc;
  bool only_pos = false;
  for (int i = 0; i < n; i++) {
    const char *a = argv[i];
    if (!only_pos && strcmp(a, "--") == 0) only_pos = true;
    if (!only_pos && strcmp(a, "--option") == 0) {
      if (i + 1 >= n) return cli_usage_error(command, "option '--option' needs a value (KEY=VALUE)");
      if ((rc = keep(command, argv[++i])) != 0) return rc;
      continue;
    }
    if (!only_pos && strncmp(a, "--option=", 9) == 0) {
      if ((rc = keep(command, a + 9)) != 0) return rc;
      continue;
    }
    argv[out++] = argv[i];
  }
  for (int i = out; i < n; i++) argv[i] = NULL;
  *argc = out;
  static bool registered;
  if (n_opts && !registered) registered = atexit(release) == 0;
  return 0;
}

int cli_table_open(delta_table **out, const char *location) {
  return delta_table_open_options(out, location, opt_keys, opt_values, n_opts);
}

size_t cli_storage_options(const char *const **keys, const char *const **values) {
  *keys = opt_keys;
  *values = opt_values;
  return n_opts;
}
