/* deltac create / write / checkpoint: making and growing tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/table_open.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "deltac/write.h"
#include "arrow/ipc_reader.h"
#include "log/snapshot.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "write/input_text.h"
#include "log/schema_build.h"

#define MAX_PROPS 64

/* --property k=v may repeat, which cli_parse does not do: take them out of
 * argv first. Returns the remaining argc, or -1 after a usage error. */
static int take_properties(const char *cmd, int argc, char **argv, char **keys, char **values, int *n) {
  int out = 0;
  *n = 0;
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    if (strcmp(argv[i], "--property") == 0) {
      if (i + 1 >= argc) return cli_usage_error(cmd, "option '--property' needs a value"), -1;
      v = argv[++i];
    } else if (strncmp(argv[i], "--property=", 11) == 0) {
      v = argv[i] + 11;
    } else {
      argv[out++] = argv[i];
      continue;
    }
    const char *eq = strchr(v, '=');
    if (!eq || eq == v) return cli_usage_error(cmd, "--property needs KEY=VALUE, got '%s'", v), -1;
    if (*n == MAX_PROPS) return cli_usage_error(cmd, "too many --property options"), -1;
    keys[*n] = mem_strndup(v, (size_t)(eq - v));
    values[*n] = mem_strdup(eq + 1);
    (*n)++;
  }
  return out;
}

static int parse_codec(const char *s, delta_parquet_codec *out) {
  static const struct { const char *name; delta_parquet_codec c; } names[] = {
      {"snappy", DELTA_PARQUET_SNAPPY}, {"zstd", DELTA_PARQUET_ZSTD}, {"gzip", DELTA_PARQUET_GZIP},
      {"lz4", DELTA_PARQUET_LZ4_RAW}, {"lz4_raw", DELTA_PARQUET_LZ4_RAW}, {"uncompressed", DELTA_PARQUET_UNCOMPRESSED},
      {"none", DELTA_PARQUET_UNCOMPRESSED}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(s, names[i].name) == 0) {
      *out = names[i].c;
      return 0;
    }
  return -1;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static int read_file(const char *path, char **text, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return err_set(DELTA_ENOTFOUND, "cannot open %s", path);
  delta_buf b = DELTA_BUF_INIT;
  char chunk[65536];
  size_t n;
  int rc = 0;
  while (!rc && (n = fread(chunk, 1, sizeof chunk, f)) > 0) rc = buf_append(&b, chunk, n);
  if (!rc && ferror(f)) rc = err_set(DELTA_EIO, "reading %s failed", path);
  if (f != stdin) fclose(f);
  if (!rc) rc = buf_putc(&b, 0);
  if (rc) {
    buf_dispose(&b);
    return rc;
  }
  *len = b.len - 1;
  *text = (char *)buf_detach(&b);
  return 0;
}

int cli_open_input(const char *path, const char *format, const char *table, const char *schema_text,
                      struct ArrowArrayStream *out, delta_parquet_file **pf) {
  bool parquet = format ? strcasecmp(format, "parquet") == 0 : ends_with(path, ".parquet");
  bool csv = format ? strcasecmp(format, "csv") == 0 : ends_with(path, ".csv");
  bool arrow = format ? strcasecmp(format, "arrow") == 0 : ends_with(path, ".arrow") || ends_with(path, ".arrows");
  if (format && !parquet && !csv && !arrow && strcasecmp(format, "ndjson") && strcasecmp(format, "json"))
    return err_set(DELTA_EINVAL, "unknown input format '%s' (ndjson, csv, parquet, arrow)", format);
  if (parquet) {
    int rc = delta_parquet_open(pf, path);
    return rc ? rc : delta_parquet_read(*pf, NULL, out);
  }
  if (arrow) { /* an Arrow IPC stream carries its own schema, as Parquet does, and is read as it comes */
    bool in = strcmp(path, "-") == 0;
    int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return err_set(DELTA_ENOTFOUND, "cannot open %s", path);
    int rc = arrow_ipc_open_fd(fd, !in, in ? "stdin" : path, out);
    if (rc) err_prefix("%s", in ? "stdin" : path);
    return rc;
  }
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  char *text = NULL;
  size_t len = 0;
  int rc = read_file(path, &text, &len);
  if (rc) return rc;
  /* a missing table is fine: the write creates it */
  if (cli_table_open(&t, table) == 0 && delta_snapshot_open(&s, t, NULL) != 0) {
    delta_snapshot_free(s);
    s = NULL;
  }
  delta_error_clear();
  /* a new table's --schema types the columns just as an existing table's does */
  delta_type *given = NULL;
  if (!s && schema_text && (rc = schema_parse_text(schema_text, &given))) {
    mem_free(text);
    delta_table_free(t);
    return rc;
  }
  rc = input_text_stream(text, len, csv ? INPUT_CSV : INPUT_NDJSON, s ? s->schema : given, 0, out);
  log_type_free(given);
  delta_snapshot_free(s);
  delta_table_free(t);
  if (rc) err_prefix("%s", path);
  return rc;
}

static void print_result(const char *what, const delta_write_result *r) {
  if (r->skipped) {
    printf("%s: skipped: app version already committed (table version %lld)\n", what, (long long)r->version);
    return;
  }
  printf("%s: version %lld: %lld files (%lld rows, %lld bytes) added", what, (long long)r->version,
         (long long)r->files_added, (long long)r->rows_written, (long long)r->bytes_written);
  if (r->files_removed) printf(", %lld removed", (long long)r->files_removed);
  if (r->attempts > 1) printf(", committed on attempt %d", r->attempts);
  if (r->checkpointed) printf(", checkpoint written");
  putchar('\n');
}

static int write_common(const char *cmd, int argc, char **argv, bool create) {
  char *keys[MAX_PROPS], *values[MAX_PROPS];
  int n_props = 0;
  argc = take_properties(cmd, argc, argv, keys, values, &n_props);
  int status = 2;
  char **parts = NULL, **clusters = NULL;
  delta_parquet_file *pf = NULL;
  struct ArrowArrayStream in = {0};
  delta_table *table = NULL;
  if (argc < 0) goto done;
  cli_opt opts[] = {{"mode", true, NULL},         {"replace-where", true, NULL}, {"partition-by", true, NULL},
                    {"schema", true, NULL},       {"schema-mode", true, NULL},   {"input", true, NULL},
                    {"format", true, NULL},       {"app-id", true, NULL},        {"app-version", true, NULL},
                    {"target-file-size", true, NULL}, {"codec", true, NULL},     {"name", true, NULL},
                    {"description", true, NULL}, {"max-attempts", true, NULL}, {"cluster-by", true, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof opts[0]);
  const char *pos[3];
  int n_pos;
  if ((status = cli_parse(argc, argv, opts, n_opts, pos, 3, &n_pos, cmd))) goto done;
  status = 2;
  delta_write_options o = DELTA_WRITE_OPTIONS_INIT;
  const char *v, *input = cli_get(opts, n_opts, "input");
  if (n_pos == 2 && !input) input = pos[1];
  else if (n_pos != 1) {
    cli_usage_error(cmd, create ? "expects TABLE" : "expects TABLE (and --input FILE)");
    goto done;
  }
  /* an Arrow stream is read from stdin when no INPUT is named */
  if (!input && !create && (v = cli_get(opts, n_opts, "format")) && strcasecmp(v, "arrow") == 0) input = "-";
  if (create) {
    o.mode = DELTA_WRITE_CREATE;
    if (cli_get(opts, n_opts, "mode")) {
      cli_usage_error(cmd, "--mode is for write");
      goto done;
    }
  } else if ((v = cli_get(opts, n_opts, "mode"))) {
    if (strcmp(v, "append") == 0) o.mode = DELTA_WRITE_APPEND;
    else if (strcmp(v, "overwrite") == 0) o.mode = DELTA_WRITE_OVERWRITE;
    else {
      cli_usage_error(cmd, "--mode is append or overwrite");
      goto done;
    }
  }
  if (!create && !input) {
    cli_usage_error(cmd, "needs --input FILE (.ndjson, .csv, .parquet or .arrows; - for stdin)");
    goto done;
  }
  o.replace_where = cli_get(opts, n_opts, "replace-where");
  if (o.replace_where && o.mode != DELTA_WRITE_OVERWRITE) {
    cli_usage_error(cmd, "--replace-where needs --mode overwrite");
    goto done;
  }
  o.schema = cli_get(opts, n_opts, "schema");
  o.name = cli_get(opts, n_opts, "name");
  o.description = cli_get(opts, n_opts, "description");
  if ((v = cli_get(opts, n_opts, "schema-mode"))) {
    if (strcmp(v, "merge") == 0) o.schema_merge = true;
    else if (strcmp(v, "strict") != 0) {
      cli_usage_error(cmd, "--schema-mode is merge or strict");
      goto done;
    }
  }
  if ((v = cli_get(opts, n_opts, "partition-by"))) {
    size_t n;
    if (!(parts = cli_split_list(v, &n))) {
      status = cli_fail(cmd);
      goto done;
    }
    o.partition_by = (const char *const *)parts;
    o.n_partition_by = n;
  }
  if ((v = cli_get(opts, n_opts, "cluster-by"))) {
    size_t n;
    if (!(clusters = cli_split_list(v, &n))) {
      status = cli_fail(cmd);
      goto done;
    }
    o.cluster_by = (const char *const *)clusters;
    o.n_cluster_by = n;
  }
  if ((o.app_id = cli_get(opts, n_opts, "app-id"))) {
    char *end;
    v = cli_get(opts, n_opts, "app-version");
    if (!v || !*v || (o.app_version = strtoll(v, &end, 10), *end) || o.app_version < 0) {
      cli_usage_error(cmd, "--app-id needs --app-version N (N >= 0)");
      goto done;
    }
  } else if (cli_get(opts, n_opts, "app-version")) {
    cli_usage_error(cmd, "--app-version needs --app-id");
    goto done;
  }
  if ((v = cli_get(opts, n_opts, "target-file-size")) && cli_parse_size(v, &o.target_file_size)) {
    cli_usage_error(cmd, "--target-file-size needs a size (bytes, or with K/M/G)");
    goto done;
  }
  if ((v = cli_get(opts, n_opts, "codec")) && parse_codec(v, &o.codec)) {
    cli_usage_error(cmd, "unknown codec '%s' (snappy, zstd, gzip, lz4_raw, uncompressed)", v);
    goto done;
  }
  if ((v = cli_get(opts, n_opts, "max-attempts"))) o.max_attempts = atoi(v);
  o.property_keys = (const char *const *)keys;
  o.property_values = (const char *const *)values;
  o.n_properties = (size_t)n_props;
  if (input && cli_open_input(input, cli_get(opts, n_opts, "format"), pos[0], o.schema, &in, &pf)) {
    status = cli_fail(cmd);
    goto done;
  }
  delta_write_result r;
  if (cli_table_open(&table, pos[0]) || delta_write(table, input ? &in : NULL, &o, &r)) {
    status = cli_fail(cmd);
    if (delta_error_last_code() == DELTA_ECONFLICT) status = 1;
    goto done;
  }
  print_result(cmd, &r);
  status = 0;
done:
  if (in.release) in.release(&in);
  delta_table_free(table);
  delta_parquet_free(pf);
  mem_free(parts);
  mem_free(clusters);
  for (int i = 0; i < n_props; i++) {
    mem_free(keys[i]);
    mem_free(values[i]);
  }
  return status;
}

int cmd_create(int argc, char **argv) { return write_common("create", argc, argv, true); }
int cmd_write(int argc, char **argv) { return write_common("write", argc, argv, false); }

int cmd_checkpoint(int argc, char **argv) {
  cli_opt opts[] = {{"version", true, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 1, pos, 1, &n_pos, "checkpoint");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("checkpoint", "expects TABLE");
  int64_t version = -1, done;
  const char *v = cli_get(opts, 1, "version");
  if (v) {
    char *end;
    version = strtoll(v, &end, 10);
    if (!*v || *end || version < 0) return cli_usage_error("checkpoint", "--version needs a non-negative integer");
  }
  delta_table *t = NULL;
  if (cli_table_open(&t, pos[0])) return cli_fail("checkpoint");
  rc = delta_checkpoint_create(t, version, &done);
  delta_table_free(t);
  if (rc) return cli_fail("checkpoint");
  printf("checkpoint: version %lld\n", (long long)done);
  return 0;
}

/* deltac constraint add NAME EXPR TABLE | drop [--if-exists] NAME TABLE */
int cmd_constraint(int argc, char **argv) {
  cli_opt opts[] = {{"if-exists", false, NULL}};
  const char *pos[4];
  int n_pos, rc = cli_parse(argc, argv, opts, 1, pos, 4, &n_pos, "constraint");
  if (rc) return rc;
  int64_t version = -1;
  if (n_pos == 4 && strcmp(pos[0], "add") == 0) {
    if (cli_get(opts, 1, "if-exists")) return cli_usage_error("constraint", "--if-exists is for drop");
    delta_table *t = NULL;
    if (cli_table_open(&t, pos[3])) return cli_fail("constraint add");
    rc = delta_constraint_add(t, pos[1], pos[2], &version);
    delta_table_free(t);
    if (rc) return cli_fail("constraint add");
    printf("constraint add: version %lld: %s CHECK (%s)\n", (long long)version, pos[1], pos[2]);
    return 0;
  }
  if (n_pos == 3 && strcmp(pos[0], "drop") == 0) {
    delta_table *t = NULL;
    if (cli_table_open(&t, pos[2])) return cli_fail("constraint drop");
    rc = delta_constraint_drop(t, pos[1], cli_get(opts, 1, "if-exists") != NULL, &version);
    delta_table_free(t);
    if (rc) return cli_fail("constraint drop");
    if (version < 0) printf("constraint drop: no constraint %s: nothing to do\n", pos[1]);
    else printf("constraint drop: version %lld: %s\n", (long long)version, pos[1]);
    return 0;
  }
  return cli_usage_error("constraint", "expects add NAME EXPR TABLE or drop [--if-exists] NAME TABLE");
}
