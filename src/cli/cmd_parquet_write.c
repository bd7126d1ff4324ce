/* deltac parquet copy: re-encode a Parquet file through deltac's reader and
 * writer (every type the reader reads, nested included), with the writer's
 * options; --stats prints the per-column statistics the writer returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/format_internal.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "deltac/parquet_writer.h"
#include "util/buf.h"
#include "util/error_internal.h"

static int parse_int(const char *s, int64_t *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end || v <= 0) return -1;
  *out = v;
  return 0;
}

static int parse_codec(const char *s, delta_parquet_codec *out) {
  static const struct { const char *name; delta_parquet_codec c; } names[] = {
      {"snappy", DELTA_PARQUET_SNAPPY}, {"zstd", DELTA_PARQUET_ZSTD},       {"gzip", DELTA_PARQUET_GZIP},
      {"lz4", DELTA_PARQUET_LZ4_RAW},   {"lz4_raw", DELTA_PARQUET_LZ4_RAW}, {"uncompressed", DELTA_PARQUET_UNCOMPRESSED},
      {"none", DELTA_PARQUET_UNCOMPRESSED}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(s, names[i].name) == 0) {
      *out = names[i].c;
      return 0;
    }
  return -1;
}

static void value_json(delta_buf *b, const delta_parquet_column_result *c, const delta_parquet_value *v) {
  switch (v->kind) {
  case DELTA_PARQUET_VALUE_BOOL: buf_puts(b, v->v.b ? "true" : "false"); break;
  case DELTA_PARQUET_VALUE_INT64: buf_printf(b, "%lld", (long long)v->v.i64); break;
  case DELTA_PARQUET_VALUE_UINT64: buf_printf(b, "%llu", (unsigned long long)v->v.u64); break;
  case DELTA_PARQUET_VALUE_DOUBLE: fmt_double(b, v->v.f64, c->format[0] == 'f'); break;
  case DELTA_PARQUET_VALUE_DECIMAL: {
    /* unscaled 128-bit integer as decimal text */
    unsigned __int128 u = ((unsigned __int128)(uint64_t)v->v.dec.hi << 64) | v->v.dec.lo;
    bool neg = v->v.dec.hi < 0;
    if (neg) u = ~u + 1;
    char tmp[48];
    int n = 0;
    do {
      tmp[n++] = (char)('0' + (int)(u % 10));
      u /= 10;
    } while (u);
    if (neg) buf_putc(b, '-');
    while (n) buf_putc(b, tmp[--n]);
    break;
  }
  case DELTA_PARQUET_VALUE_BYTES:
    if (c->format[0] == 'u' || c->format[0] == 'U') {
      fmt_json_string(b, v->v.bytes.data, v->v.bytes.len);
    } else {
      buf_putc(b, '"');
      for (size_t i = 0; i < v->v.bytes.len; i++) buf_printf(b, "%02x", v->v.bytes.data[i]);
      buf_putc(b, '"');
    }
    break;
  }
}

static void print_result(const delta_parquet_write_result *r) {
  delta_buf b = DELTA_BUF_INIT;
  buf_printf(&b, "{\"file_size\": %lld, \"num_rows\": %lld, \"num_row_groups\": %d, \"columns\": [",
                   (long long)r->file_size, (long long)r->num_rows, r->num_row_groups);
  for (int i = 0; i < r->n_columns; i++) {
    const delta_parquet_column_result *c = &r->columns[i];
    buf_puts(&b, i ? ",\n  {\"path\": " : "\n  {\"path\": ");
    fmt_json_string(&b, (const uint8_t *)c->path, strlen(c->path));
    buf_printf(&b, ", \"format\": \"%s\", \"repeated\": %s, \"num_values\": %lld, \"null_count\": %lld",
                     c->format, c->repeated ? "true" : "false", (long long)c->num_values, (long long)c->null_count);
    if (c->has_min_max) {
      buf_puts(&b, ", \"min\": ");
      value_json(&b, c, &c->min);
      buf_puts(&b, ", \"max\": ");
      value_json(&b, c, &c->max);
    }
    buf_puts(&b, "}");
  }
  buf_puts(&b, "]}\n");
  fwrite(b.data, 1, b.len, stdout);
  buf_dispose(&b);
}

int cmd_parquet_copy(int argc, char **argv) {
  cli_opt opts[] = {{"codec", true, NULL},      {"row-group-rows", true, NULL}, {"page-size", true, NULL},
                    {"page-rows", true, NULL},  {"dictionary", true, NULL},     {"page-v2", false, NULL},
                    {"delta", false, NULL},     {"batch-rows", true, NULL},     {"stats", false, NULL},
                    {"stats-max-bytes", true, NULL}, {"level", true, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof opts[0]);
  const char *pos[2];
  int n_pos, rc = cli_parse(argc, argv, opts, n_opts, pos, 2, &n_pos, "parquet copy");
  if (rc) return rc;
  if (n_pos != 2) return cli_usage_error("parquet copy", "expects IN.parquet OUT.parquet");
  delta_parquet_write_options wo = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  const char *v;
  int64_t n;
  if ((v = cli_get(opts, n_opts, "codec")) && parse_codec(v, &wo.codec))
    return cli_usage_error("parquet copy", "unknown codec '%s' (snappy, zstd, gzip, lz4_raw, uncompressed)", v);
  if ((v = cli_get(opts, n_opts, "row-group-rows"))) {
    if (parse_int(v, &n)) return cli_usage_error("parquet copy", "--row-group-rows needs a positive integer");
    wo.row_group_rows = n;
  }
  if ((v = cli_get(opts, n_opts, "page-size"))) {
    if (parse_int(v, &n)) return cli_usage_error("parquet copy", "--page-size needs a positive integer");
    wo.page_bytes = n;
  }
  if ((v = cli_get(opts, n_opts, "page-rows"))) {
    if (parse_int(v, &n)) return cli_usage_error("parquet copy", "--page-rows needs a positive integer");
    wo.page_rows = n;
  }
  if ((v = cli_get(opts, n_opts, "batch-rows"))) {
    if (parse_int(v, &n)) return cli_usage_error("parquet copy", "--batch-rows needs a positive integer");
    ro.batch_rows = n;
  }
  if ((v = cli_get(opts, n_opts, "stats-max-bytes"))) {
    if (parse_int(v, &n) || n > INT32_MAX) return cli_usage_error("parquet copy", "--stats-max-bytes needs a positive integer");
    wo.stats_max_bytes = (int32_t)n;
  }
  if ((v = cli_get(opts, n_opts, "level"))) wo.compression_level = atoi(v);
  if ((v = cli_get(opts, n_opts, "dictionary"))) {
    if (strcmp(v, "on") && strcmp(v, "off")) return cli_usage_error("parquet copy", "--dictionary is on or off");
    wo.no_dictionary = strcmp(v, "off") == 0;
  }
  wo.data_page_v2 = cli_get(opts, n_opts, "page-v2") != NULL;
  wo.delta_binary_packed = cli_get(opts, n_opts, "delta") != NULL;

  delta_parquet_file *f = NULL;
  delta_parquet_writer *w = NULL;
  delta_parquet_write_result *res = NULL;
  struct ArrowArrayStream s = {0};
  struct ArrowSchema schema = {0};
  rc = delta_parquet_open(&f, pos[0]);
  if (!rc) rc = delta_parquet_read(f, &ro, &s);
  if (!rc && s.get_schema(&s, &schema) != 0) rc = err_set(DELTA_ERROR, "%s", s.get_last_error(&s));
  if (!rc) rc = delta_parquet_writer_open(&w, pos[1], &schema, &wo);
  while (!rc) {
    struct ArrowArray batch;
    if (s.get_next(&s, &batch) != 0) {
      const char *e = s.get_last_error(&s);
      rc = err_set(DELTA_ERROR, "%s", e ? e : "read failed");
      break;
    }
    if (!batch.release) break;
    rc = delta_parquet_writer_write(w, &batch);
    batch.release(&batch);
  }
  if (!rc) rc = delta_parquet_writer_close(w, cli_get(opts, n_opts, "stats") ? &res : NULL);
  if (!rc && res) print_result(res);
  delta_parquet_write_result_free(res);
  delta_parquet_writer_free(w);
  if (schema.release) schema.release(&schema);
  if (s.release) s.release(&s);
  delta_parquet_free(f);
  return rc ? cli_fail("parquet copy") : 0;
}
