#include "cli/args.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/error.h"
#include "util/alloc_internal.h"

int cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "deltac %s: ", command);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (see 'deltac help')\n");
  return 2;
}

int cli_fail(const char *what) {
  const char *msg = delta_error_last();
  fprintf(stderr, "deltac: %s: %s\n", what, msg[0] ? msg : "failed");
  return 1;
}

int cli_parse(int argc, char **argv, cli_opt *opts, int n_opts, const char **positional, int max_pos,
              int *n_pos, const char *command) {
  *n_pos = 0;
  bool only_pos = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (only_pos || a[0] != '-' || a[1] == '\0') {
      if (*n_pos == max_pos) return cli_usage_error(command, "unexpected argument '%s'", a);
      positional[(*n_pos)++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_pos = true;
      continue;
    }
    if (a[1] != '-') return cli_usage_error(command, "unknown option '%s'", a);
    const char *name = a + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    cli_opt *o = NULL;
    for (int k = 0; k < n_opts; k++)
      if (strlen(opts[k].name) == len && strncmp(opts[k].name, name, len) == 0) o = &opts[k];
    if (!o) return cli_usage_error(command, "unknown option '--%.*s'", (int)len, name);
    if (o->takes_value) {
      if (eq) {
        o->value = eq + 1;
      } else {
        if (i + 1 >= argc) return cli_usage_error(command, "option '--%s' needs a value", o->name);
        o->value = argv[++i];
      }
    } else {
      if (eq) return cli_usage_error(command, "option '--%s' takes no value", o->name);
      o->value = "";
    }
  }
  return 0;
}

const char *cli_get(const cli_opt *opts, int n_opts, const char *name) {
  for (int k = 0; k < n_opts; k++)
    if (strcmp(opts[k].name, name) == 0) return opts[k].value;
  return NULL;
}

char **cli_split_list(const char *s, size_t *n) {
  size_t count = 1, len = strlen(s);
  for (const char *p = s; *p; p++) count += *p == ',';
  char **v = mem_malloc((count + 1) * sizeof(char *) + len + 1);
  if (!v) return NULL;
  char *buf = (char *)(v + count + 1);
  memcpy(buf, s, len + 1);
  size_t k = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    while (*tok == ' ') tok++;
    char *e = tok + strlen(tok);
    while (e > tok && e[-1] == ' ') *--e = '\0';
    if (*tok) v[k++] = tok;
  }
  v[k] = NULL;
  *n = k;
  return v;
}

int cli_parse_size(const char *v, int64_t *out) {
  char *end;
  double x = strtod(v, &end);
  if (*end == 'k' || *end == 'K') x *= 1024, end++;
  else if (*end == 'm' || *end == 'M') x *= 1048576, end++;
  else if (*end == 'g' || *end == 'G') x *= 1073741824.0, end++;
  if (end == v || *end || !(x >= 1) || x > 9e18) return -1;
  *out = (int64_t)x;
  return 0;
}
