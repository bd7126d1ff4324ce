/* deltac parquet {cat,schema,meta,bench}: single Parquet files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/format_internal.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "parquet/file.h"
#include "util/alloc_internal.h"
#include "util/buf.h"

static int parse_limit(const char *s, int64_t *out) {
  if (!s) {
    *out = -1;
    return 0;
  }
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end || v < 0) return -1;
  *out = v;
  return 0;
}

static int cmd_cat(int argc, char **argv) {
  cli_opt opts[] = {{"format", true, NULL}, {"columns", true, NULL}, {"limit", true, NULL},
                    {"row-groups", true, NULL}, {"batch-rows", true, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof opts[0]);
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, n_opts, pos, 1, &n_pos, "parquet cat");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("parquet cat", "expects one FILE");
  int fmt = cli_format_parse(cli_get(opts, n_opts, "format"), stdout);
  if (fmt < 0) return cli_usage_error("parquet cat", "unknown format '%s'", cli_get(opts, n_opts, "format"));
  int64_t limit, batch_rows = 0;
  if (parse_limit(cli_get(opts, n_opts, "limit"), &limit))
    return cli_usage_error("parquet cat", "--limit needs a non-negative integer");
  if (cli_get(opts, n_opts, "batch-rows") &&
      (parse_limit(cli_get(opts, n_opts, "batch-rows"), &batch_rows) || batch_rows == 0))
    return cli_usage_error("parquet cat", "--batch-rows needs a positive integer");
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  ro.batch_rows = batch_rows;
  char **cols = NULL;
  int *groups = NULL;
  if (cli_get(opts, n_opts, "columns")) {
    cols = cli_split_list(cli_get(opts, n_opts, "columns"), &ro.n_columns);
    if (!cols) return cli_fail("parquet cat");
    ro.columns = (const char *const *)cols;
  }
  const char *rg = cli_get(opts, n_opts, "row-groups");
  if (rg) {
    size_t n;
    char **parts = cli_split_list(rg, &n);
    groups = parts ? mem_calloc(n + 1, sizeof(int)) : NULL;
    for (size_t i = 0; groups && i < n; i++) {
      char *end;
      long v = strtol(parts[i], &end, 10);
      if (*end || v < 0) {
        mem_free(parts);
        mem_free(groups);
        mem_free(cols);
        return cli_usage_error("parquet cat", "--row-groups needs a list of row group numbers");
      }
      groups[i] = (int)v;
    }
    mem_free(parts);
    ro.row_groups = groups;
    ro.n_row_groups = n;
  }
  delta_parquet_file *f = NULL;
  struct ArrowArrayStream s = {0};
  if ((rc = delta_parquet_open(&f, pos[0])) != 0) goto done;
  if ((rc = delta_parquet_read(f, &ro, &s)) != 0) goto done;
  rc = cli_write_stream(&s, (cli_format)fmt, limit, stdout);
done:
  if (s.release) s.release(&s);
  delta_parquet_free(f);
  mem_free(cols);
  mem_free(groups);
  return rc ? cli_fail("parquet cat") : 0;
}

/* ---- schema ---- */

static const char *repetition_name(int r) {
  return r == PQ_REQUIRED ? "required" : r == PQ_OPTIONAL ? "optional" : r == PQ_REPEATED ? "repeated" : "";
}

static void logical_text(const pq_logical_type *lt, char *b, size_t n) {
  static const char *names[] = {"", "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE", "TIME", "TIMESTAMP",
                                "", "INTEGER", "UNKNOWN", "JSON", "BSON", "UUID", "FLOAT16", "VARIANT",
                                "GEOMETRY", "GEOGRAPHY"};
  static const char *units[] = {"", "MILLIS", "MICROS", "NANOS"};
  const char *name = lt->kind >= 0 && lt->kind <= 18 ? names[lt->kind] : "?";
  switch (lt->kind) {
  case PQ_LT_DECIMAL: snprintf(b, n, "DECIMAL(%d,%d)", (int)lt->precision, (int)lt->scale); break;
  case PQ_LT_TIME:
  case PQ_LT_TIMESTAMP:
    snprintf(b, n, "%s(%s,%s)", name, units[lt->unit >= 1 && lt->unit <= 3 ? lt->unit : 0],
             lt->utc ? "UTC" : "local");
    break;
  case PQ_LT_INTEGER: snprintf(b, n, "INTEGER(%d,%s)", lt->bit_width, lt->is_signed ? "signed" : "unsigned"); break;
  default: snprintf(b, n, "%s", name);
  }
}

static void print_schema_element(const pq_file_metadata *md, int *idx, int depth) {
  const pq_schema_element *e = &md->schema[*idx];
  (*idx)++;
  printf("%*s%s", depth * 2, "", repetition_name(e->repetition));
  if (e->type >= 0) {
    printf(" %s", pq_type_name(e->type));
    if (e->type == PQ_FIXED_LEN_BYTE_ARRAY) printf("(%d)", (int)e->type_length);
  } else {
    printf(" group");
  }
  printf(" %s", e->name);
  if (e->logical.kind != PQ_LT_NONE) {
    char lt[64];
    logical_text(&e->logical, lt, sizeof lt);
    printf(" (%s)", lt);
  } else if (e->converted_type != PQ_CT_NONE) {
    printf(" (%s)", pq_converted_type_name(e->converted_type));
  }
  if (e->has_field_id) printf(" = %d", (int)e->field_id);
  if (e->type < 0) {
    printf(" {\n");
    for (int i = 0; i < e->num_children && *idx < md->num_schema; i++) print_schema_element(md, idx, depth + 1);
    printf("%*s}\n", depth * 2, "");
  } else {
    printf(";\n");
  }
}

static int cmd_schema(int argc, char **argv) {
  cli_opt opts[] = {{"arrow", false, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 1, pos, 1, &n_pos, "parquet schema");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("parquet schema", "expects one FILE");
  delta_parquet_file *f = NULL;
  if (delta_parquet_open(&f, pos[0])) return cli_fail("parquet schema");
  const pq_file_metadata *md = f->md;
  if (!opts[0].value) {
    printf("message %s {\n", md->schema[0].name[0] ? md->schema[0].name : "schema");
    int idx = 1;
    for (int i = 0; i < md->schema[0].num_children && idx < md->num_schema; i++) print_schema_element(md, &idx, 1);
    printf("}\n");
  } else {
    for (int i = 0; i < f->schema->n_leaves; i++) {
      const pq_node *n = f->schema->leaves[i];
      printf("%s: %s%s%s%s\n", f->leaf_paths[i], n->format, n->extension[0] ? " extension " : "", n->extension,
             n->nullable ? "" : " not null");
    }
  }
  delta_parquet_free(f);
  return 0;
}

/* ---- meta ---- */

static void json_str(delta_buf *b, const char *s) { fmt_json_string(b, (const uint8_t *)s, strlen(s)); }

/* A statistics bound as JSON: numbers by physical type, strings for UTF-8
 * columns, hex for other bytes. */
static void stat_json(delta_buf *b, const pq_node *leaf, const uint8_t *p, uint32_t len) {
  switch (leaf->physical) {
  case PQ_BOOLEAN: buf_puts(b, len >= 1 && p[0] ? "true" : "false"); return;
  case PQ_INT32:
    if (len == 4) {
      int32_t v;
      memcpy(&v, p, 4);
      if (leaf->format[0] == 'I' || leaf->format[0] == 'C' || leaf->format[0] == 'S')
        buf_printf(b, "%u", (uint32_t)v);
      else
        buf_printf(b, "%d", v);
      return;
    }
    break;
  case PQ_INT64:
    if (len == 8) {
      int64_t v;
      memcpy(&v, p, 8);
      if (leaf->format[0] == 'L') buf_printf(b, "%llu", (unsigned long long)v);
      else buf_printf(b, "%lld", (long long)v);
      return;
    }
    break;
  case PQ_FLOAT:
    if (len == 4) {
      float v;
      memcpy(&v, p, 4);
      fmt_double(b, v, true);
      return;
    }
    break;
  case PQ_DOUBLE:
    if (len == 8) {
      double v;
      memcpy(&v, p, 8);
      fmt_double(b, v, false);
      return;
    }
    break;
  case PQ_BYTE_ARRAY:
    if (leaf->is_string) {
      fmt_json_string(b, p, len);
      return;
    }
    break;
  default:
    break;
  }
  buf_putc(b, '"');
  for (uint32_t i = 0; i < len; i++) buf_printf(b, "%02x", p[i]);
  buf_putc(b, '"');
}

static void print_chunk(delta_buf *b, const pq_file *f, int g, int c) {
  const pq_column_chunk *cc = &f->md->row_groups[g].columns[c];
  const pq_column_meta *m = &cc->meta_data;
  const pq_node *leaf = f->schema->leaves[c];
  buf_puts(b, "        {\"path\": ");
  json_str(b, f->leaf_paths[c]);
  buf_printf(b, ", \"type\": \"%s\", \"codec\": \"%s\", \"encodings\": [", pq_type_name(m->type),
                   pq_codec_name(m->codec));
  for (int i = 0; i < m->num_encodings; i++)
    buf_printf(b, "%s\"%s\"", i ? ", " : "", pq_encoding_name(m->encodings[i]));
  buf_printf(b, "], \"num_values\": %lld, \"compressed_bytes\": %lld, \"uncompressed_bytes\": %lld, "
                      "\"data_page_offset\": %lld",
                   (long long)m->num_values, (long long)m->total_compressed_size,
                   (long long)m->total_uncompressed_size, (long long)m->data_page_offset);
  if (m->has_dictionary_page_offset)
    buf_printf(b, ", \"dictionary_page_offset\": %lld", (long long)m->dictionary_page_offset);
  delta_parquet_stats st;
  if (delta_parquet_column_stats(f, g, c, &st) == 0) {
    if (st.has_null_count) buf_printf(b, ", \"null_count\": %lld", (long long)st.null_count);
    if (st.has_min_max) {
      buf_puts(b, ", \"min\": ");
      stat_json(b, leaf, st.min, st.min_len);
      buf_puts(b, ", \"max\": ");
      stat_json(b, leaf, st.max, st.max_len);
      if (!st.min_exact || !st.max_exact) buf_puts(b, ", \"bounds_exact\": false");
    }
  }
  buf_puts(b, "}");
}

static int cmd_meta(int argc, char **argv) {
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, NULL, 0, pos, 1, &n_pos, "parquet meta");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("parquet meta", "expects one FILE");
  delta_parquet_file *f = NULL;
  if (delta_parquet_open(&f, pos[0])) return cli_fail("parquet meta");
  const pq_file_metadata *md = f->md;
  delta_buf b = DELTA_BUF_INIT;
  buf_puts(&b, "{\n  \"file\": ");
  json_str(&b, pos[0]);
  buf_printf(&b, ",\n  \"size\": %zu,\n  \"version\": %d,\n  \"created_by\": ", f->size, (int)md->version);
  if (md->created_by.ptr) fmt_json_string(&b, md->created_by.ptr, md->created_by.len);
  else buf_puts(&b, "null");
  buf_printf(&b, ",\n  \"num_rows\": %lld,\n  \"num_columns\": %d,\n  \"key_value_metadata\": {",
                   (long long)md->num_rows, f->schema->n_leaves);
  for (int i = 0; i < md->num_kv; i++) {
    buf_puts(&b, i ? ",\n    " : "\n    ");
    fmt_json_string(&b, md->kv[i].key.ptr, md->kv[i].key.len);
    buf_puts(&b, ": ");
    if (md->kv[i].value.ptr) {
      /* Values can be huge (Arrow schemas); show their size past 200 bytes. */
      if (md->kv[i].value.len > 200) buf_printf(&b, "\"<%u bytes>\"", md->kv[i].value.len);
      else fmt_json_string(&b, md->kv[i].value.ptr, md->kv[i].value.len);
    } else {
      buf_puts(&b, "null");
    }
  }
  buf_puts(&b, md->num_kv ? "\n  },\n  \"row_groups\": [" : "},\n  \"row_groups\": [");
  for (int g = 0; g < md->num_row_groups; g++) {
    const pq_row_group *rg = &md->row_groups[g];
    buf_printf(&b, "%s\n    {\"index\": %d, \"num_rows\": %lld, \"total_byte_size\": %lld, \"columns\": [",
                     g ? "," : "", g, (long long)rg->num_rows, (long long)rg->total_byte_size);
    for (int c = 0; c < rg->num_columns; c++) {
      buf_puts(&b, c ? ",\n" : "\n");
      print_chunk(&b, f, g, c);
    }
    buf_puts(&b, "\n      ]}");
  }
  buf_puts(&b, md->num_row_groups ? "\n  ]\n}\n" : "]\n}\n");
  fwrite(b.data, 1, b.len, stdout);
  buf_dispose(&b);
  delta_parquet_free(f);
  return 0;
}

/* ---- bench: decode everything, print nothing but counts and time ---- */

static int cmd_bench(int argc, char **argv) {
  cli_opt opts[] = {{"batch-rows", true, NULL}, {"repeat", true, NULL}};
  const char *pos[1];
  int n_pos, rc = cli_parse(argc, argv, opts, 2, pos, 1, &n_pos, "parquet bench");
  if (rc) return rc;
  if (n_pos != 1) return cli_usage_error("parquet bench", "expects one FILE");
  int repeat = opts[1].value ? atoi(opts[1].value) : 1;
  if (repeat < 1) repeat = 1;
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  if (opts[0].value) ro.batch_rows = atoll(opts[0].value);
  double best = 1e30;
  int64_t rows = 0;
  for (int r = 0; r < repeat; r++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    delta_parquet_file *f = NULL;
    struct ArrowArrayStream s = {0};
    rows = 0;
    rc = delta_parquet_open(&f, pos[0]);
    if (!rc) rc = delta_parquet_read(f, &ro, &s);
    while (!rc) {
      struct ArrowArray batch;
      int err = s.get_next(&s, &batch);
      if (err) {
        fprintf(stderr, "deltac: parquet bench: %s\n", s.get_last_error(&s));
        rc = 1;
        break;
      }
      if (!batch.release) break;
      rows += batch.length;
      batch.release(&batch);
    }
    if (s.release) s.release(&s);
    delta_parquet_free(f);
    if (rc) return rc == 1 ? 1 : cli_fail("parquet bench");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (secs < best) best = secs;
  }
  printf("{\"rows\": %lld, \"seconds\": %.6f}\n", (long long)rows, best);
  return 0;
}

int cmd_parquet(int argc, char **argv) {
  if (argc < 1) return cli_usage_error("parquet", "expects a subcommand: cat, schema, meta, bench or copy");
  const char *sub = argv[0];
  if (strcmp(sub, "cat") == 0) return cmd_cat(argc - 1, argv + 1);
  if (strcmp(sub, "schema") == 0) return cmd_schema(argc - 1, argv + 1);
  if (strcmp(sub, "meta") == 0) return cmd_meta(argc - 1, argv + 1);
  if (strcmp(sub, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
  if (strcmp(sub, "copy") == 0) return cmd_parquet_copy(argc - 1, argv + 1);
  return cli_usage_error("parquet", "unknown subcommand '%s'", sub);
}
