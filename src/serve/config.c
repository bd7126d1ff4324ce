/* deltac serve: command line and config file.
 *
 *   # comment
 *   orders = /data/orders                 a table (like --table orders=/data/orders)
 *   share sales = orders, events          a Delta Sharing share (schema "default")
 *   token s3cr3t = orders, share:sales    a bearer token and what it may read ("*": all)
 *   token $ORDERS_TOKEN = orders          the token is that environment variable's value
 *   set url_expiry = 900                  an option (see docs/server.md)
 *   option orders aws_region = eu-west-1  a storage option of a table named above
 *   option orders aws_secret_access_key = $ORDERS_SECRET   (from the environment)
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "serve/serve.h"
#include "util/alloc_internal.h"

static int config_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("deltac: serve: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

/* Names appear in URLs: keep them to characters that need no escaping and
 * can never form "." or ".." segments. */
static bool valid_name(const char *s) {
  if (!*s || strlen(s) > 128) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-') return false;
  return true;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

static int add_table(serve_config *cfg, const char *name, const char *location) {
  if (!valid_name(name)) return config_error("table name '%s': use letters, digits, '_' and '-'", name);
  if (!*location) return config_error("table '%s' has no location", name);
  if (serve_table_find(cfg, name)) return config_error("table '%s' is configured twice", name);
  serve_table *v = mem_realloc(cfg->tables, (size_t)(cfg->n_tables + 1) * sizeof *v);
  if (!v) return config_error("out of memory");
  cfg->tables = v;
  serve_table *t = &v[cfg->n_tables];
  memset(t, 0, sizeof *t);
  t->name = mem_strdup(name);
  t->location = mem_strdup(location);
  cfg->n_tables++;
  return t->name && t->location ? 0 : config_error("out of memory");
}

/* Add storage option key = value to table t (not checked here: opening the
 * table names an unknown key). */
static int table_option(serve_table *t, const char *key, const char *value) {
  char **k = mem_realloc(t->opt_keys, (size_t)(t->n_opts + 1) * sizeof *k);
  if (!k) return config_error("out of memory");
  t->opt_keys = k;
  char **v = mem_realloc(t->opt_values, (size_t)(t->n_opts + 1) * sizeof *v);
  if (!v) return config_error("out of memory");
  t->opt_values = v;
  k[t->n_opts] = mem_strdup(key);
  v[t->n_opts] = mem_strdup(value);
  if (!k[t->n_opts] || !v[t->n_opts]) {
    mem_free(k[t->n_opts]);
    mem_free(v[t->n_opts]);
    return config_error("out of memory");
  }
  t->n_opts++;
  return 0;
}

/* "option TABLE KEY = VALUE"; a value "$NAME" is that environment variable
 * (credentials need not sit in the file). */
static int add_table_option(serve_config *cfg, char *arg, const char *value) {
  char *sp = arg;
  while (*sp && !isspace((unsigned char)*sp)) sp++;
  if (!*sp) return config_error("expected 'option TABLE KEY = VALUE'");
  *sp = 0;
  const char *key = trim(sp + 1);
  serve_table *t = serve_table_find(cfg, arg);
  if (!t) return config_error("option for unknown table '%s' (configure the table first)", arg);
  if (!*key || strpbrk(key, " \t")) return config_error("expected 'option TABLE KEY = VALUE'");
  if (value[0] == '$') {
    const char *env = getenv(value + 1);
    if (!env) return config_error("option %s: the environment variable %s is not set", key, value);
    value = env;
  }
  return table_option(t, key, value);
}

int serve_config_default_options(serve_config *cfg, const char *const *keys, const char *const *values, size_t n) {
  int rc;
  for (int i = 0; i < cfg->n_tables; i++) {
    serve_table *t = &cfg->tables[i];
    int own = t->n_opts; /* the table's own keys win */
    for (size_t j = 0; j < n; j++) {
      bool set = false;
      for (int k = 0; k < own; k++) set |= strcasecmp(t->opt_keys[k], keys[j]) == 0;
      if (!set && (rc = table_option(t, keys[j], values[j])) != 0) return rc;
    }
  }
  return 0;
}

/* "a, b ,c" into a NULL-terminated array of strdup'ed names. */
static char **split_names(const char *list, int *n) {
  char *copy = mem_strdup(list);
  if (!copy) return NULL;
  size_t cap = 1;
  for (const char *p = list; *p; p++) cap += *p == ',';
  char **v = mem_calloc(cap + 1, sizeof *v);
  *n = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); v && tok; tok = strtok_r(NULL, ",", &save)) {
    tok = trim(tok);
    if (*tok) v[(*n)++] = mem_strdup(tok);
  }
  mem_free(copy);
  return v;
}

static int add_share(serve_config *cfg, const char *name, const char *list) {
  if (!valid_name(name)) return config_error("share name '%s': use letters, digits, '_' and '-'", name);
  if (serve_share_find(cfg, name)) return config_error("share '%s' is configured twice", name);
  serve_share *v = mem_realloc(cfg->shares, (size_t)(cfg->n_shares + 1) * sizeof *v);
  if (!v) return config_error("out of memory");
  cfg->shares = v;
  serve_share *s = &v[cfg->n_shares++];
  s->name = mem_strdup(name);
  s->tables = split_names(list, &s->n_tables);
  return s->name && s->tables ? 0 : config_error("out of memory");
}

static int add_token(serve_config *cfg, const char *secret, const char *scopes) {
  if (secret[0] == '$') {
    const char *v = getenv(secret + 1);
    if (!v || !*v) return config_error("token %s: the environment variable is not set", secret);
    secret = v;
  }
  if (strlen(secret) < 8) return config_error("a token must have at least 8 characters");
  serve_token *v = mem_realloc(cfg->tokens, (size_t)(cfg->n_tokens + 1) * sizeof *v);
  if (!v) return config_error("out of memory");
  cfg->tokens = v;
  serve_token *t = &v[cfg->n_tokens++];
  t->secret = mem_strdup(secret);
  t->scopes = split_names(scopes, &t->n_scopes);
  return t->secret && t->scopes ? 0 : config_error("out of memory");
}

static int hex_key(uint8_t key[32], const char *hex) {
  if (strlen(hex) != 64) return -1;
  for (int i = 0; i < 32; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1 || !isxdigit((unsigned char)hex[2 * i]) ||
        !isxdigit((unsigned char)hex[2 * i + 1]))
      return -1;
    key[i] = (uint8_t)v;
  }
  return 0;
}

static int parse_int(const char *key, const char *v, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (!*v || *end || errno || x < lo || x > hi)
    return config_error("%s needs an integer between %lld and %lld", key, (long long)lo, (long long)hi);
  *out = x;
  return 0;
}

static int set_option(serve_config *cfg, const char *key, const char *v) {
  int64_t x = 0;
  int rc = 0;
  if (strcmp(key, "url_expiry") == 0) return parse_int(key, v, 1, 7 * 86400, &cfg->url_expiry_s);
  if (strcmp(key, "request_timeout") == 0) return parse_int(key, v, 1, 3600, &cfg->request_timeout_s);
  if (strcmp(key, "max_request_seconds") == 0) return parse_int(key, v, 1, 86400, &cfg->max_request_s);
  if (strcmp(key, "poll_ms") == 0) return parse_int(key, v, 10, 60000, &cfg->poll_ms);
  if (strcmp(key, "keepalive_ms") == 0) return parse_int(key, v, 100, 300000, &cfg->keepalive_ms);
  if (strcmp(key, "max_body") == 0) {
    if (!(rc = parse_int(key, v, 1024, 16 << 20, &x))) cfg->max_body = (size_t)x;
    return rc;
  }
  if (strcmp(key, "max_connections") == 0) {
    if (!(rc = parse_int(key, v, 1, 10000, &x))) cfg->max_connections = (int)x;
    return rc;
  }
  if (strcmp(key, "signing_key") == 0) {
    if (v[0] == '$') v = getenv(v + 1) ? getenv(v + 1) : "";
    return hex_key(cfg->signing_key, v) ? config_error("signing_key needs 64 hex digits") : 0;
  }
  if (strcmp(key, "public_url") == 0 || strcmp(key, "access_log") == 0) {
    char **slot = key[0] == 'p' ? &cfg->public_url : &cfg->access_log;
    mem_free(*slot);
    *slot = mem_strdup(v);
    if (*slot && key[0] == 'p') {
      size_t n = strlen(*slot);
      if (n && (*slot)[n - 1] == '/') (*slot)[n - 1] = 0;
    }
    return *slot ? 0 : config_error("out of memory");
  }
  return config_error("unknown option '%s'", key);
}

/* One non-comment line of the config file. */
static int config_line(serve_config *cfg, char *line) {
  char *eq = strchr(line, '=');
  if (!eq) return config_error("expected 'NAME = VALUE'");
  *eq = 0;
  char *left = trim(line), *right = trim(eq + 1);
  char *sp = left;
  while (*sp && !isspace((unsigned char)*sp)) sp++;
  if (!*sp) return add_table(cfg, left, right);
  *sp = 0;
  char *arg = trim(sp + 1);
  if (strcmp(left, "share") == 0) return add_share(cfg, arg, right);
  if (strcmp(left, "token") == 0) return add_token(cfg, arg, right);
  if (strcmp(left, "set") == 0) return set_option(cfg, arg, right);
  if (strcmp(left, "option") == 0) return add_table_option(cfg, arg, right);
  return config_error("unknown directive '%s'", left);
}

int serve_config_read_file(serve_config *cfg, const char *path) {
  FILE *fp = fopen(path, "r");
  if (!fp) return config_error("%s: %s", path, strerror(errno)) - 1; /* exit 1: not a usage error */
  char line[4096];
  int rc = 0, lineno = 0;
  while (!rc && fgets(line, sizeof line, fp)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *s = trim(line);
    if (!*s) continue;
    rc = config_line(cfg, s);
    if (rc) fprintf(stderr, "deltac: serve: (in %s line %d)\n", path, lineno);
  }
  fclose(fp);
  return rc;
}

static void config_defaults(serve_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->host = mem_strdup("127.0.0.1");
  cfg->port = 8080;
  cfg->url_expiry_s = 3600;
  cfg->request_timeout_s = 30;
  cfg->max_request_s = 600;
  cfg->max_body = 64 << 10;
  cfg->max_connections = 256;
  cfg->poll_ms = 1000;
  cfg->keepalive_ms = 15000;
}

/* Every share must name configured tables, and there must be something to serve. */
static int config_check(serve_config *cfg) {
  if (cfg->n_tables == 0) return config_error("no tables: give --table NAME=URI or --config FILE");
  for (int i = 0; i < cfg->n_shares; i++)
    for (int j = 0; j < cfg->shares[i].n_tables; j++)
      if (!serve_table_find(cfg, cfg->shares[i].tables[j]))
        return config_error("share '%s' names unknown table '%s'", cfg->shares[i].name, cfg->shares[i].tables[j]);
  bool key_set = false;
  for (int i = 0; i < 32; i++) key_set |= cfg->signing_key[i] != 0;
  /* A fresh random key per run: links die with the process, which is fine
   * for links that expire within the hour anyway. */
  if (!key_set && getrandom(cfg->signing_key, sizeof cfg->signing_key, 0) != (ssize_t)sizeof cfg->signing_key)
    return config_error("cannot get random bytes for the signing key");
  const char *env = getenv("DELTAC_SERVE_TOKEN");
  if (env && *env) return add_token(cfg, env, "*");
  return 0;
}

int serve_config_load(serve_config *cfg, int argc, char **argv) {
  config_defaults(cfg);
  if (!cfg->host) return config_error("out of memory");
  int rc = 0;
  for (int i = 0; !rc && i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    const char *names[] = {"--host", "--port", "--table", "--config", "--access-log"};
    int k = -1;
    for (int j = 0; j < 5 && k < 0; j++) {
      size_t n = strlen(names[j]);
      if (strncmp(a, names[j], n) == 0 && (a[n] == 0 || a[n] == '=')) {
        k = j;
        v = a[n] == '=' ? a + n + 1 : (i + 1 < argc ? argv[++i] : NULL);
      }
    }
    if (k < 0) return config_error("unknown argument '%s' (see deltac help)", a);
    if (!v) return config_error("%s needs a value", a);
    if (k == 0) {
      mem_free(cfg->host);
      cfg->host = mem_strdup(v);
    } else if (k == 1) {
      int64_t p = 0;
      if ((rc = parse_int("--port", v, 0, 65535, &p)) == 0) cfg->port = (int)p;
    } else if (k == 2) {
      const char *eq = strchr(v, '=');
      if (!eq) return config_error("--table needs NAME=URI");
      char name[160];
      snprintf(name, sizeof name, "%.*s", (int)(eq - v), v);
      rc = add_table(cfg, name, eq + 1);
    } else if (k == 3) {
      rc = serve_config_read_file(cfg, v);
    } else {
      rc = set_option(cfg, "access_log", v);
    }
  }
  return rc ? rc : config_check(cfg);
}

serve_table *serve_table_find(const serve_config *cfg, const char *name) {
  for (int i = 0; i < cfg->n_tables; i++)
    if (strcmp(cfg->tables[i].name, name) == 0) return &cfg->tables[i];
  return NULL;
}

serve_share *serve_share_find(const serve_config *cfg, const char *name) {
  for (int i = 0; i < cfg->n_shares; i++)
    if (strcmp(cfg->shares[i].name, name) == 0) return &cfg->shares[i];
  return NULL;
}

static void free_names(char **v, int n) {
  for (int i = 0; v && i < n; i++) mem_free(v[i]);
  mem_free(v);
}

void serve_config_free(serve_config *cfg) {
  serve_tables_close(cfg);
  for (int i = 0; i < cfg->n_tables; i++) {
    mem_free(cfg->tables[i].name);
    mem_free(cfg->tables[i].location);
    for (int j = 0; j < cfg->tables[i].n_opts; j++) {
      /* values may be credentials */
      explicit_bzero(cfg->tables[i].opt_values[j], strlen(cfg->tables[i].opt_values[j]));
      mem_free(cfg->tables[i].opt_keys[j]);
      mem_free(cfg->tables[i].opt_values[j]);
    }
    mem_free(cfg->tables[i].opt_keys);
    mem_free(cfg->tables[i].opt_values);
  }
  for (int i = 0; i < cfg->n_shares; i++) {
    mem_free(cfg->shares[i].name);
    free_names(cfg->shares[i].tables, cfg->shares[i].n_tables);
  }
  for (int i = 0; i < cfg->n_tokens; i++) {
    explicit_bzero(cfg->tokens[i].secret, strlen(cfg->tokens[i].secret));
    mem_free(cfg->tokens[i].secret);
    free_names(cfg->tokens[i].scopes, cfg->tokens[i].n_scopes);
  }
  mem_free(cfg->tables);
  mem_free(cfg->shares);
  mem_free(cfg->tokens);
  mem_free(cfg->host);
  mem_free(cfg->public_url);
  mem_free(cfg->access_log);
  explicit_bzero(cfg->signing_key, sizeof cfg->signing_key);
  memset(cfg, 0, sizeof *cfg);
}
