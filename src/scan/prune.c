/* Statistics providers for data skipping (expr/skip.h): partition values
 * (exact), the stats JSON of add actions (bounds, possibly truncated), and
 * Parquet row-group statistics. */
#include "scan/prune.h"

#include <string.h>
#include <strings.h>

#include "expr/skip.h"
#include "json/json.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Spark truncates string statistics to 32 characters; a maximum that long
 * may be a prefix of the real one and is not an upper bound. */
#define STRING_PREFIX_LENGTH 32

/* The Delta field chain a bound column node names. */
static int field_chain(const scan_pruner *p, const expr_node *c, const delta_field **chain) {
  const delta_type *t = p->schema;
  for (int d = 0; d < c->depth; d++) {
    if (!t || t->kind != DT_STRUCT || c->child_index[d] >= t->n_fields) return -1;
    chain[d] = &t->fields[c->child_index[d]];
    t = chain[d]->type;
  }
  return 0;
}

static const char *stored_name(const scan_pruner *p, const delta_field *f) {
  return p->mode != MAP_NONE && f->physical_name ? f->physical_name : f->name;
}

static bool is_partition(const scan_pruner *p, const delta_field *f) {
  for (int i = 0; i < p->n_partition_columns; i++)
    if (strcasecmp(p->partition_columns[i], f->name) == 0) return true;
  return false;
}

typedef struct {
  const scan_pruner *p;
  const scan_prune_input *in;
  const delta_kv *pv;
  int n_pv;
  delta_json_val stats;      /* root of the parsed stats, or absent */
  int64_t num_records;       /* -1: unknown */
} file_ctx;

static int partition_stats(file_ctx *fc, const expr_node *c, const delta_field *f, expr_col_stats *out) {
  const char *key = stored_name(fc->p, f), *value = NULL;
  bool found = false;
  for (int i = 0; i < fc->n_pv && !found; i++)
    if (strcmp(fc->pv[i].key, key) == 0 || strcmp(fc->pv[i].key, f->name) == 0) {
      found = true;
      value = fc->pv[i].value;
    }
  if (!found) return 0;
  if (!value || !value[0]) {
    out->has_nulls = 1;
    out->has_values = 0;
    return 0;
  }
  expr_value v;
  if (value_parse(c->type, c->type == VT_DECIMAL ? c->scale : 0, value, strlen(value), &v)) return 0;
  out->has_min = out->has_max = true;
  out->min = out->max = v;
  out->has_nulls = 0;
  out->has_values = 1;
  return 0;
}

static delta_json_val stats_at(delta_json_val root, const char *section, const scan_pruner *p,
                               const delta_field *const *chain, int depth) {
  delta_json_val v = json_get(root, section);
  for (int d = 0; d < depth && json_present(v); d++) v = json_get(v, stored_name(p, chain[d]));
  return v;
}

static size_t code_points(const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xc0) != 0x80;
  return k;
}

/* One bound from the stats JSON; false when absent or unusable. */
static bool json_bound(delta_json_val v, const expr_node *c, bool is_max, expr_value *out) {
  delta_json_type t = json_typeof(v);
  const char *p;
  size_t n;
  if (t == DELTA_JSON_STRING) {
    bool escaped;
    if (json_string_raw(v, &p, &n, &escaped) || escaped) return false;
  } else if (t == DELTA_JSON_NUMBER || t == DELTA_JSON_BOOL) {
    json_raw(v, &p, &n);
  } else {
    return false;
  }
  switch (c->type) {
  case VT_STRING:
    if (t != DELTA_JSON_STRING) return false;
    if (is_max && code_points(p, n) >= STRING_PREFIX_LENGTH) return false;
    break;
  case VT_FLOAT:
    if (is_max) return false; /* NaN sorts above the maximum Spark records */
    break;
  case VT_INT: case VT_DECIMAL: case VT_DATE: case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: case VT_BOOL:
    break;
  default:
    return false;
  }
  if (value_parse(c->type, c->type == VT_DECIMAL ? -1 : 0, p, n, out)) return false;
  /* Timestamps are written with millisecond precision: the maximum's
   * microseconds are unknown. */
  if (is_max && (c->type == VT_TIMESTAMP || c->type == VT_TIMESTAMP_NTZ) && out->u.i % 1000 == 0) out->u.i += 999;
  return true;
}

static int json_stats(file_ctx *fc, const expr_node *c, const delta_field *const *chain, expr_col_stats *out) {
  if (!json_present(fc->stats)) return 0;
  delta_json_val mn = stats_at(fc->stats, "minValues", fc->p, chain, c->depth);
  delta_json_val mx = stats_at(fc->stats, "maxValues", fc->p, chain, c->depth);
  delta_json_val nc = stats_at(fc->stats, "nullCount", fc->p, chain, c->depth);
  out->has_min = json_bound(mn, c, false, &out->min);
  out->has_max = json_bound(mx, c, true, &out->max);
  int64_t nulls;
  if (json_typeof(nc) == DELTA_JSON_NUMBER && json_int64(nc, &nulls) == 0) {
    out->has_nulls = nulls > 0;
    if (fc->num_records >= 0) out->has_values = nulls < fc->num_records;
  }
  if (out->has_min || out->has_max) out->has_values = 1;
  return 0;
}

/* _change_type, _commit_version, _commit_timestamp: one value per file. */
static int change_stats(file_ctx *fc, int which, expr_col_stats *out) {
  expr_value v = {0};
  if (which == 0) {
    if (!fc->in->change_type) return 0;
    v.type = VT_STRING;
    v.u.s.p = fc->in->change_type;
    v.u.s.n = strlen(fc->in->change_type);
  } else {
    v.type = which == 1 ? VT_INT : VT_TIMESTAMP;
    v.u.i = which == 1 ? fc->in->version : fc->in->timestamp_us;
  }
  out->has_min = out->has_max = true;
  out->min = out->max = v;
  out->has_nulls = 0;
  out->has_values = 1;
  return 0;
}

static int file_provider(void *ctx, const expr_node *c, expr_col_stats *out) {
  file_ctx *fc = ctx;
  int top = c->child_index[0];
  if (fc->in->changes && top >= fc->p->schema->n_fields && top < fc->p->schema->n_fields + 3)
    return change_stats(fc, top - fc->p->schema->n_fields, out);
  const delta_field *chain[64];
  if (c->depth > 64 || field_chain(fc->p, c, chain)) return 0;
  if (c->depth == 1 && is_partition(fc->p, chain[0])) return partition_stats(fc, c, chain[0], out);
  return json_stats(fc, c, chain, out);
}

/* The parsed stats of a file (absent when it has none or they are unreadable). */
static int file_ctx_open(file_ctx *fc, const scan_pruner *p, const scan_prune_input *in, delta_json_doc **doc) {
  *fc = (file_ctx){p, in, in->partition_values, in->n_partition_values, {NULL, -1}, -1};
  *doc = NULL;
  const char *stats = in->stats;
  if (!stats || !stats[0]) return 0;
  if (json_doc_new(doc)) return DELTA_NOMEM();
  /* unreadable stats only mean nothing is known */
  if (json_parse(*doc, stats, strlen(stats)) == 0) {
    fc->stats = json_root(*doc);
    int64_t n;
    if (json_int64(json_get(fc->stats, "numRecords"), &n) == 0) fc->num_records = n;
  }
  return 0;
}

int scan_file_column_check(const scan_pruner *p, const scan_prune_input *in, const expr_node *column,
                           scan_stats_check fn, void *ctx) {
  file_ctx fc;
  delta_json_doc *doc = NULL;
  expr_col_stats st = EXPR_COL_STATS_UNKNOWN;
  int rc = file_ctx_open(&fc, p, in, &doc);
  if (!rc) rc = file_provider(&fc, column, &st);
  if (!rc) rc = fn(ctx, &st);
  json_doc_free(doc);
  return rc;
}

int scan_prune_file(const scan_pruner *p, const scan_prune_input *in) {
  if (!p->pred) return 1;
  file_ctx fc;
  delta_json_doc *doc = NULL;
  int rc = file_ctx_open(&fc, p, in, &doc);
  if (!rc) rc = expr_may_match(p->pred, file_provider, &fc);
  json_doc_free(doc);
  return rc;
}

/* Row groups. */
typedef struct {
  const scan_pruner *p;
  const delta_parquet_file *pf;
  const struct ArrowSchema *file_schema;
  int row_group;
} rg_ctx;

/* The file's leaf for a column: its index and Arrow format, or -1. */
static int file_leaf(const rg_ctx *rc, const expr_node *c, const char **format) {
  const delta_field *chain[64];
  if (c->depth > 64 || field_chain(rc->p, c, chain)) return -1;
  if (c->depth == 1 && is_partition(rc->p, chain[0])) return -1;
  const struct ArrowSchema *s = rc->file_schema;
  delta_buf path = DELTA_BUF_INIT;
  int leaf = -1;
  for (int d = 0; d < c->depth; d++) {
    int k = conform_find_child(s, chain[d], rc->p->mode);
    if (k < 0) goto done;
    s = s->children[k];
    if ((d && buf_putc(&path, '.')) || buf_puts(&path, s->name)) goto done;
  }
  if (s->format[0] == '+' || buf_putc(&path, '\0')) goto done;
  for (int i = 0; i < delta_parquet_num_leaves(rc->pf); i++)
    if (strcmp(delta_parquet_leaf_path(rc->pf, i), (const char *)path.data) == 0) {
      leaf = i;
      *format = s->format;
      break;
    }
done:
  buf_dispose(&path);
  return leaf;
}

enum { PQ_BOOLEAN, PQ_INT32, PQ_INT64, PQ_INT96, PQ_FLOAT, PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_FIXED };

static int64_t le_int(const uint8_t *b, uint32_t n) {
  if (n == 4) {
    int32_t v;
    memcpy(&v, b, 4);
    return v;
  }
  int64_t v;
  memcpy(&v, b, 8);
  return v;
}

/* A PLAIN-encoded bound as a value of the file column's Arrow type. */
static bool parquet_bound(const uint8_t *b, uint32_t n, int phys, const char *f, expr_value *out) {
  int scale = 0;
  value_type t = value_type_of_arrow(f, NULL, &scale);
  memset(out, 0, sizeof *out);
  out->type = t;
  out->scale = scale;
  bool fixed4 = phys == PQ_INT32 && n == 4, fixed8 = phys == PQ_INT64 && n == 8;
  switch (t) {
  case VT_INT:
    if (f[0] == 'L' || !(fixed4 || fixed8)) return false;
    out->u.i = le_int(b, n);
    if (f[0] == 'I' || f[0] == 'S' || f[0] == 'C') out->u.i = (uint32_t)out->u.i;
    return true;
  case VT_DATE:
    if (!fixed4) return false;
    out->u.i = le_int(b, n);
    return true;
  case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: {
    if (!fixed8) return false;
    int64_t v = le_int(b, n);
    out->u.i = f[2] == 'm' ? v * 1000 : f[2] == 'n' ? v / 1000 - (v % 1000 < 0) : f[2] == 's' ? v * 1000000 : v;
    return true;
  }
  case VT_FLOAT:
    if (phys == PQ_FLOAT && n == 4) {
      float x;
      memcpy(&x, b, 4);
      out->u.d = x;
    } else if (phys == PQ_DOUBLE && n == 8) {
      memcpy(&out->u.d, b, 8);
    } else {
      return false;
    }
    return true;
  case VT_DECIMAL:
    if (fixed4 || fixed8) {
      out->u.dec = le_int(b, n);
    } else if ((phys == PQ_FIXED || phys == PQ_BYTE_ARRAY) && n >= 1 && n <= 16) {
      __int128 v = (int8_t)b[0]; /* big-endian two's complement */
      for (uint32_t i = 1; i < n; i++) v = v * 256 + b[i];
      out->u.dec = v;
    } else {
      return false;
    }
    return true;
  case VT_STRING: case VT_BINARY:
    if (phys != PQ_BYTE_ARRAY && phys != PQ_FIXED) return false;
    out->u.s.p = (const char *)b;
    out->u.s.n = n;
    return true;
  case VT_BOOL:
    if (phys != PQ_BOOLEAN || n != 1) return false;
    out->u.b = b[0] != 0;
    return true;
  default:
    return false;
  }
}

static int rg_provider(void *ctx, const expr_node *c, expr_col_stats *out) {
  rg_ctx *rc = ctx;
  const char *format = NULL;
  int leaf = file_leaf(rc, c, &format);
  if (leaf < 0) return 0;
  delta_parquet_stats st;
  if (delta_parquet_column_stats(rc->pf, rc->row_group, leaf, &st)) return 0;
  if (st.has_min_max) {
    out->has_min = parquet_bound(st.min, st.min_len, st.physical_type, format, &out->min);
    out->has_max = parquet_bound(st.max, st.max_len, st.physical_type, format, &out->max);
    if (out->min.type == VT_FLOAT) out->has_max = false; /* NaN is left out of Parquet bounds */
  }
  if (st.has_null_count) {
    out->has_nulls = st.null_count > 0;
    out->has_values = st.null_count < st.num_values;
  }
  if (out->has_min || out->has_max) out->has_values = 1;
  return 0;
}

int scan_prune_row_groups(const scan_pruner *p, const delta_parquet_file *pf, const struct ArrowSchema *file_schema,
                          int *rgs, int *n) {
  int total = delta_parquet_num_row_groups(pf);
  *n = 0;
  for (int g = 0; g < total; g++) {
    int keep = 1;
    if (p->pred) {
      rg_ctx rc = {p, pf, file_schema, g};
      keep = expr_may_match(p->pred, rg_provider, &rc);
      if (keep < 0) return keep;
    }
    if (keep) rgs[(*n)++] = g;
  }
  return 0;
}
