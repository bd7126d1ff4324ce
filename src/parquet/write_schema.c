/*
 * The writer's schema: an Arrow schema becomes a tree of nodes with
 * definition/repetition levels, a list of leaf columns with their physical
 * and logical types, and the footer's SchemaElement list. Lists use the
 * 3-level layout of the format (<name> LIST { repeated group list {
 * element } }), maps <name> MAP { repeated group key_value { required key;
 * value } }.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "parquet/metadata.h"
#include "parquet/write_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MAX_DEPTH 64

typedef struct {
  pqw_writer *w;
  const char *path[MAX_DEPTH + 2];
  int depth;
  pqw_leaf **leaves;
  int n_leaves, cap_leaves;
} build_ctx;

static const char *ext_name(const struct ArrowSchema *s, char *buf, size_t cap) {
  int32_t len;
  const char *v = arrow_schema_metadata_get(s, "ARROW:extension:name", &len);
  if (!v || len < 0 || (size_t)len >= cap) return "";
  memcpy(buf, v, (size_t)len);
  buf[len] = '\0';
  return buf;
}

/* Minimal FIXED_LEN_BYTE_ARRAY width for a decimal of `precision` digits. */
static int32_t decimal_bytes(int precision) {
  /* bytes n hold precision p when 2^(8n-1) > 10^p: log2(10) = 3.3219... */
  for (int32_t n = 1; n <= 32; n++)
    if ((double)(8 * n - 1) > precision * 3.321928094887362) return n;
  return 32;
}

static void set_int(pqw_leaf *l, int physical, pqw_conv conv, int width, int bits, bool sign) {
  l->physical = physical;
  l->conv = conv;
  l->in_width = width;
  l->logical = PQ_LT_INTEGER;
  l->bits = bits;
  l->is_signed = sign;
  static const int ct_signed[] = {PQ_CT_INT_8, PQ_CT_INT_16, PQ_CT_INT_32, PQ_CT_INT_64};
  static const int ct_unsigned[] = {PQ_CT_UINT_8, PQ_CT_UINT_16, PQ_CT_UINT_32, PQ_CT_UINT_64};
  int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
  l->converted = sign ? ct_signed[k] : ct_unsigned[k];
  l->order = physical == PQ_INT32 ? (sign ? PQW_ORD_I32 : PQW_ORD_U32) : (sign ? PQW_ORD_I64 : PQW_ORD_U64);
}

/* Physical and logical type of a leaf from its Arrow format. */
static int leaf_type(pqw_leaf *l, const struct ArrowSchema *s, const char *name) {
  const char *f = s->format;
  char ext[64];
  const char *extension = ext_name(s, ext, sizeof ext);
  l->converted = PQ_CT_NONE;
  l->logical = PQ_LT_NONE;
  l->can_dict = true;
  snprintf(l->format, sizeof l->format, "%s", f);
  if (strcmp(f, "b") == 0) {
    l->physical = PQ_BOOLEAN, l->conv = PQW_BOOL, l->order = PQW_ORD_BOOL, l->can_dict = false;
  } else if (strcmp(f, "c") == 0) {
    set_int(l, PQ_INT32, PQW_I8, 1, 8, true);
  } else if (strcmp(f, "C") == 0) {
    set_int(l, PQ_INT32, PQW_U8, 1, 8, false);
  } else if (strcmp(f, "s") == 0) {
    set_int(l, PQ_INT32, PQW_I16, 2, 16, true);
  } else if (strcmp(f, "S") == 0) {
    set_int(l, PQ_INT32, PQW_U16, 2, 16, false);
  } else if (strcmp(f, "i") == 0) {
    l->physical = PQ_INT32, l->conv = PQW_COPY, l->in_width = 4, l->order = PQW_ORD_I32;
  } else if (strcmp(f, "I") == 0) {
    set_int(l, PQ_INT32, PQW_COPY, 4, 32, false);
  } else if (strcmp(f, "l") == 0) {
    l->physical = PQ_INT64, l->conv = PQW_COPY, l->in_width = 8, l->order = PQW_ORD_I64;
  } else if (strcmp(f, "L") == 0) {
    set_int(l, PQ_INT64, PQW_COPY, 8, 64, false);
  } else if (strcmp(f, "e") == 0) {
    l->physical = PQ_FIXED_LEN_BYTE_ARRAY, l->type_length = 2, l->conv = PQW_COPY, l->in_width = 2;
    l->logical = PQ_LT_FLOAT16, l->order = PQW_ORD_NONE;
  } else if (strcmp(f, "f") == 0) {
    l->physical = PQ_FLOAT, l->conv = PQW_COPY, l->in_width = 4, l->order = PQW_ORD_F32;
  } else if (strcmp(f, "g") == 0) {
    l->physical = PQ_DOUBLE, l->conv = PQW_COPY, l->in_width = 8, l->order = PQW_ORD_F64;
  } else if (f[0] == 'd' && f[1] == ':') {
    int p = 0, sc = 0, bw = 128;
    if (sscanf(f + 2, "%d,%d,%d", &p, &sc, &bw) < 2 || p < 1 || (bw != 128 && bw != 256) ||
        p > (bw == 128 ? 38 : 76) || sc < 0 || sc > p)
      return err_set(DELTA_EUNSUPPORTED, "column %s: unsupported decimal '%s'", name, f);
    l->in_width = bw / 8;
    l->logical = PQ_LT_DECIMAL, l->converted = PQ_CT_DECIMAL, l->precision = p, l->scale = sc;
    if (p <= 9) {
      l->physical = PQ_INT32, l->conv = PQW_DEC_I32, l->order = PQW_ORD_I32;
    } else if (p <= 18) {
      l->physical = PQ_INT64, l->conv = PQW_DEC_I64, l->order = PQW_ORD_I64;
    } else {
      l->physical = PQ_FIXED_LEN_BYTE_ARRAY, l->conv = PQW_DEC_FLBA, l->order = PQW_ORD_DEC_BE;
      l->type_length = decimal_bytes(p);
    }
  } else if (strcmp(f, "u") == 0 || strcmp(f, "U") == 0 || strcmp(f, "z") == 0 || strcmp(f, "Z") == 0) {
    l->physical = PQ_BYTE_ARRAY, l->order = PQW_ORD_BYTES;
    l->conv = (f[0] == 'u' || f[0] == 'z') ? PQW_BA32 : PQW_BA64;
    if (f[0] == 'u' || f[0] == 'U') {
      bool json = strcmp(extension, "arrow.json") == 0;
      l->logical = json ? PQ_LT_JSON : PQ_LT_STRING;
      l->converted = json ? PQ_CT_JSON : PQ_CT_UTF8;
    }
  } else if (f[0] == 'w' && f[1] == ':') {
    int n = atoi(f + 2);
    if (n < 1) return err_set(DELTA_EUNSUPPORTED, "column %s: bad fixed-size binary '%s'", name, f);
    l->physical = PQ_FIXED_LEN_BYTE_ARRAY, l->type_length = n, l->conv = PQW_COPY, l->in_width = n;
    l->order = PQW_ORD_BYTES;
    if (n == 16 && strcmp(extension, "arrow.uuid") == 0) l->logical = PQ_LT_UUID;
  } else if (strcmp(f, "tdD") == 0) {
    l->physical = PQ_INT32, l->conv = PQW_COPY, l->in_width = 4, l->order = PQW_ORD_I32;
    l->logical = PQ_LT_DATE, l->converted = PQ_CT_DATE;
  } else if (strcmp(f, "ttm") == 0) {
    l->physical = PQ_INT32, l->conv = PQW_COPY, l->in_width = 4, l->order = PQW_ORD_I32;
    l->logical = PQ_LT_TIME, l->unit = PQ_UNIT_MILLIS, l->utc = true, l->converted = PQ_CT_TIME_MILLIS;
  } else if (strcmp(f, "ttu") == 0 || strcmp(f, "ttn") == 0) {
    l->physical = PQ_INT64, l->conv = PQW_COPY, l->in_width = 8, l->order = PQW_ORD_I64;
    l->logical = PQ_LT_TIME, l->utc = true;
    l->unit = f[2] == 'u' ? PQ_UNIT_MICROS : PQ_UNIT_NANOS;
    l->converted = f[2] == 'u' ? PQ_CT_TIME_MICROS : PQ_CT_NONE;
  } else if (f[0] == 't' && f[1] == 's' && (f[2] == 'm' || f[2] == 'u' || f[2] == 'n') && f[3] == ':') {
    l->physical = PQ_INT64, l->conv = PQW_COPY, l->in_width = 8, l->order = PQW_ORD_I64;
    l->logical = PQ_LT_TIMESTAMP;
    l->utc = f[4] != '\0';
    l->unit = f[2] == 'm' ? PQ_UNIT_MILLIS : f[2] == 'u' ? PQ_UNIT_MICROS : PQ_UNIT_NANOS;
    /* The legacy annotations mean UTC-adjusted instants only. */
    if (l->utc && f[2] != 'n') l->converted = f[2] == 'm' ? PQ_CT_TIMESTAMP_MILLIS : PQ_CT_TIMESTAMP_MICROS;
  } else {
    return err_set(DELTA_EUNSUPPORTED, "column %s: cannot write Arrow type '%s'", name, f);
  }
  return 0;
}

static int add_leaf(build_ctx *c, pqw_node *n, const struct ArrowSchema *s, int16_t rep) {
  if (c->n_leaves == c->cap_leaves) {
    int cap = c->cap_leaves ? c->cap_leaves * 2 : 16;
    pqw_leaf **nl = mem_realloc(c->leaves, (size_t)cap * sizeof *nl);
    if (!nl) return DELTA_NOMEM();
    c->leaves = nl;
    c->cap_leaves = cap;
  }
  pqw_leaf *l = mem_calloc(1, sizeof *l);
  if (!l) return DELTA_NOMEM();
  /* listed first, so the writer frees it whatever fails below */
  l->index = c->n_leaves;
  c->leaves[c->n_leaves++] = l;
  n->leaf = l;
  l->max_def = n->def;
  l->max_rep = rep;
  l->path = mem_calloc((size_t)c->depth + 1, sizeof(char *));
  size_t total = 0;
  for (int i = 0; i < c->depth; i++) total += strlen(c->path[i]) + 1;
  l->path_str = mem_malloc(total + 1);
  if (!l->path || !l->path_str) return DELTA_NOMEM();
  l->path_str[0] = '\0';
  char *p = l->path_str;
  for (int i = 0; i < c->depth; i++) {
    l->path[i] = mem_strdup(c->path[i]);
    if (!l->path[i]) return DELTA_NOMEM();
    l->path_len = i + 1;
    size_t k = strlen(c->path[i]);
    if (i) *p++ = '.';
    memcpy(p, c->path[i], k);
    p += k;
    *p = '\0';
  }
  return leaf_type(l, s, l->path_str);
}

/* Build the node for field `s` named `name` whose parent is present at
 * definition level `parent_def` with repetition level `rep`. */
static int build(build_ctx *c, const struct ArrowSchema *s, const char *name, bool nullable, int16_t parent_def,
                 int16_t rep, pqw_node **out) {
  if (c->depth >= MAX_DEPTH) return err_set(DELTA_EUNSUPPORTED, "schema nested deeper than %d", MAX_DEPTH);
  if (!s || !s->format) return err_set(DELTA_EINVAL, "schema: field without a format");
  pqw_node *n = mem_calloc(1, sizeof *n);
  if (!n) return DELTA_NOMEM();
  *out = n;
  n->name = mem_strdup(name);
  if (!n->name) return DELTA_NOMEM();
  n->nullable = nullable;
  n->def = (int16_t)(parent_def + (nullable ? 1 : 0));
  int32_t len;
  const char *fid = arrow_schema_metadata_get(s, "PARQUET:field_id", &len);
  if (fid && len > 0 && len < 12) {
    char tmp[12];
    memcpy(tmp, fid, (size_t)len);
    tmp[len] = '\0';
    char *end;
    long v = strtol(tmp, &end, 10);
    if (*end == '\0' && v >= INT32_MIN && v <= INT32_MAX) n->has_field_id = true, n->field_id = (int32_t)v;
  }
  if (s->dictionary) return err_set(DELTA_EUNSUPPORTED, "column %s: dictionary-encoded Arrow arrays", name);
  c->path[c->depth++] = n->name;
  n->first_leaf = c->n_leaves;
  const char *f = s->format;
  int rc = 0;
  if (strcmp(f, "+s") == 0) {
    n->kind = PQW_N_STRUCT;
    if (s->n_children < 1) return err_set(DELTA_EUNSUPPORTED, "column %s: a struct with no fields", name);
    n->children = mem_calloc((size_t)s->n_children, sizeof *n->children);
    if (!n->children) return DELTA_NOMEM();
    n->n_children = (int)s->n_children;
    for (int i = 0; i < n->n_children; i++) {
      const struct ArrowSchema *ch = s->children[i];
      if ((rc = build(c, ch, ch && ch->name ? ch->name : "", ch && (ch->flags & ARROW_FLAG_NULLABLE), n->def,
                      rep, &n->children[i])) != 0)
        goto done;
      if (n->children[i]->has_list) n->has_list = true;
    }
  } else if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0) {
    bool map = f[1] == 'm';
    n->kind = map ? PQW_N_MAP : PQW_N_LIST;
    n->large_offsets = f[1] == 'L';
    n->has_list = true;
    n->rep = (int16_t)(rep + 1);
    if (s->n_children != 1 || !s->children[0])
      return err_set(DELTA_EINVAL, "column %s: a list or map needs one child", name);
    n->children = mem_calloc(1, sizeof *n->children);
    if (!n->children) return DELTA_NOMEM();
    n->n_children = 1;
    const struct ArrowSchema *ch = s->children[0];
    if (map) {
      if (!ch->format || strcmp(ch->format, "+s") != 0 || ch->n_children != 2 || !ch->children[0] ||
          !ch->children[1])
        return err_set(DELTA_EINVAL, "column %s: map entries must be a struct of key and value", name);
      pqw_node *kv = mem_calloc(1, sizeof *kv);
      if (!kv) return DELTA_NOMEM();
      n->children[0] = kv;
      kv->kind = PQW_N_STRUCT;
      kv->name = mem_strdup("key_value");
      kv->children = mem_calloc(2, sizeof *kv->children);
      if (!kv->name || !kv->children) return DELTA_NOMEM();
      kv->n_children = 2;
      kv->def = (int16_t)(n->def + 1);
      kv->first_leaf = c->n_leaves;
      c->path[c->depth++] = kv->name;
      /* on failure the path depth does not matter: the whole build fails */
      if ((rc = build(c, ch->children[0], "key", false, kv->def, n->rep, &kv->children[0])) != 0) goto done;
      if ((rc = build(c, ch->children[1], "value", (ch->children[1]->flags & ARROW_FLAG_NULLABLE) != 0, kv->def,
                      n->rep, &kv->children[1])) != 0)
        goto done;
      c->depth--;
      kv->n_leaves = c->n_leaves - kv->first_leaf;
    } else {
      c->path[c->depth++] = "list";
      rc = build(c, ch, "element", (ch->flags & ARROW_FLAG_NULLABLE) != 0, (int16_t)(n->def + 1), n->rep,
                 &n->children[0]);
      c->depth--;
    }
  } else if (f[0] == '+') {
    return err_set(DELTA_EUNSUPPORTED, "column %s: cannot write Arrow type '%s'", name, f);
  } else {
    n->kind = PQW_N_LEAF;
    rc = add_leaf(c, n, s, rep);
  }
done:
  c->depth--;
  n->n_leaves = c->n_leaves - n->first_leaf;
  return rc;
}

int pqw_schema_build(pqw_writer *w, const struct ArrowSchema *schema) {
  if (!schema || !schema->format || strcmp(schema->format, "+s") != 0)
    return err_set(DELTA_EINVAL, "parquet writer: the schema must be a struct (\"+s\") of columns");
  if (schema->n_children < 1) return err_set(DELTA_EINVAL, "parquet writer: the schema has no columns");
  build_ctx c = {0};
  c.w = w;
  pqw_node *root = mem_calloc(1, sizeof *root);
  if (!root) return DELTA_NOMEM();
  w->root = root;
  root->kind = PQW_N_STRUCT;
  root->name = mem_strdup("schema");
  root->children = mem_calloc((size_t)schema->n_children, sizeof *root->children);
  if (!root->name || !root->children) return DELTA_NOMEM();
  root->n_children = (int)schema->n_children;
  int rc = 0;
  for (int i = 0; i < root->n_children; i++) {
    const struct ArrowSchema *ch = schema->children[i];
    if (!ch) {
      rc = err_set(DELTA_EINVAL, "parquet writer: column %d has no schema", i);
      goto done;
    }
    c.depth = 0;
    if ((rc = build(&c, ch, ch->name ? ch->name : "", (ch->flags & ARROW_FLAG_NULLABLE) != 0, 0, 0,
                    &root->children[i])) != 0)
      goto done;
  }
done: /* the writer owns the leaves built so far either way */
  root->n_leaves = c.n_leaves;
  w->leaves = c.leaves;
  w->n_leaves = c.n_leaves;
  return rc;
}

void pqw_node_free(pqw_node *n) {
  if (!n) return;
  for (int i = 0; i < n->n_children; i++) pqw_node_free(n->children[i]);
  mem_free(n->children);
  mem_free(n->name);
  mem_free(n);
}

/* ---- SchemaElement list ---- */

static int count_elements(const pqw_node *n) {
  int k = 1;
  if (n->kind == PQW_N_LIST) k++; /* the repeated "list" group */
  for (int i = 0; i < n->n_children; i++) k += count_elements(n->children[i]);
  return k;
}

static void write_logical(pq_tw *t, const pqw_leaf *l) {
  if (l->logical == PQ_LT_NONE) return;
  pq_tw_struct_begin(t, 10);
  pq_tw_struct_begin(t, (int16_t)l->logical);
  switch (l->logical) {
  case PQ_LT_DECIMAL:
    pq_tw_i32(t, 1, l->scale);
    pq_tw_i32(t, 2, l->precision);
    break;
  case PQ_LT_TIME:
  case PQ_LT_TIMESTAMP:
    pq_tw_bool(t, 1, l->utc);
    pq_tw_struct_begin(t, 2);
    pq_tw_struct_begin(t, (int16_t)l->unit);
    pq_tw_struct_end(t);
    pq_tw_struct_end(t);
    break;
  case PQ_LT_INTEGER:
    pq_tw_i8(t, 1, (int8_t)l->bits);
    pq_tw_bool(t, 2, l->is_signed);
    break;
  default:
    break;
  }
  pq_tw_struct_end(t);
  pq_tw_struct_end(t);
}

static void group_element(pq_tw *t, const char *name, int repetition, int n_children, int converted, int logical,
                          const pqw_node *ids) {
  pq_tw_elem_struct_begin(t);
  if (repetition >= 0) pq_tw_i32(t, 3, repetition);
  pq_tw_string(t, 4, name);
  pq_tw_i32(t, 5, n_children);
  if (converted != PQ_CT_NONE) pq_tw_i32(t, 6, converted);
  if (ids && ids->has_field_id) pq_tw_i32(t, 9, ids->field_id);
  if (logical != PQ_LT_NONE) {
    pq_tw_struct_begin(t, 10);
    pq_tw_struct_begin(t, (int16_t)logical);
    pq_tw_struct_end(t);
    pq_tw_struct_end(t);
  }
  pq_tw_struct_end(t);
}

static void write_node(pq_tw *t, const pqw_node *n, int repetition) {
  switch (n->kind) {
  case PQW_N_STRUCT:
    group_element(t, n->name, repetition, n->n_children, PQ_CT_NONE, PQ_LT_NONE, n);
    for (int i = 0; i < n->n_children; i++)
      write_node(t, n->children[i], n->children[i]->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
    break;
  case PQW_N_LIST:
    group_element(t, n->name, repetition, 1, PQ_CT_LIST, PQ_LT_LIST, n);
    group_element(t, "list", PQ_REPEATED, 1, PQ_CT_NONE, PQ_LT_NONE, NULL);
    write_node(t, n->children[0], n->children[0]->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
    break;
  case PQW_N_MAP:
    group_element(t, n->name, repetition, 1, PQ_CT_MAP, PQ_LT_MAP, n);
    write_node(t, n->children[0], PQ_REPEATED);
    break;
  case PQW_N_LEAF: {
    const pqw_leaf *l = n->leaf;
    pq_tw_elem_struct_begin(t);
    pq_tw_i32(t, 1, l->physical);
    if (l->physical == PQ_FIXED_LEN_BYTE_ARRAY) pq_tw_i32(t, 2, l->type_length);
    pq_tw_i32(t, 3, repetition);
    pq_tw_string(t, 4, n->name);
    if (l->converted != PQ_CT_NONE) pq_tw_i32(t, 6, l->converted);
    if (l->logical == PQ_LT_DECIMAL) {
      pq_tw_i32(t, 7, l->scale);
      pq_tw_i32(t, 8, l->precision);
    }
    if (n->has_field_id) pq_tw_i32(t, 9, n->field_id);
    write_logical(t, l);
    pq_tw_struct_end(t);
    break;
  }
  }
}

void pqw_schema_write(const pqw_writer *w, pq_tw *t) {
  const pqw_node *root = w->root;
  int n = 1;
  for (int i = 0; i < root->n_children; i++) n += count_elements(root->children[i]);
  pq_tw_list_begin(t, 2, PQ_TT_STRUCT, (uint32_t)n);
  group_element(t, root->name, -1, root->n_children, PQ_CT_NONE, PQ_LT_NONE, NULL);
  for (int i = 0; i < root->n_children; i++)
    write_node(t, root->children[i], root->children[i]->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
}
