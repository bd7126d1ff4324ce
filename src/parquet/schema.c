/* Building the logical tree from the footer's flat schema list. */
#include "parquet/schema.h"

#include <stdio.h>
#include <string.h>

#include "arrow/array.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

#define MAX_DEPTH 64

typedef struct {
  const pq_file_metadata *md;
  int pos;            /* next schema element to consume */
  pq_schema *s;
  delta_buf leaves;   /* pq_node* */
} builder;

static void node_free(pq_node *n) {
  if (!n) return;
  for (int i = 0; i < n->n_children; i++) node_free(n->children[i]);
  mem_free(n->children);
  mem_free(n->name);
  mem_free(n);
}

static pq_node *node_new(pq_node_kind kind, const char *name, pq_node *parent) {
  pq_node *n = mem_calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->name = mem_strdup(name);
  n->parent = parent;
  n->leaf_index = -1;
  if (!n->name) {
    mem_free(n);
    return NULL;
  }
  return n;
}

static int add_child(pq_node *parent, pq_node *child) {
  pq_node **c = mem_realloc(parent->children, sizeof *c * (size_t)(parent->n_children + 1));
  if (!c) return DELTA_NOMEM();
  parent->children = c;
  c[parent->n_children++] = child;
  child->parent = parent;
  return 0;
}

static bool is_list_annotated(const pq_schema_element *e) {
  return e->logical.kind == PQ_LT_LIST || e->converted_type == PQ_CT_LIST;
}

static bool is_map_annotated(const pq_schema_element *e) {
  return e->logical.kind == PQ_LT_MAP || e->converted_type == PQ_CT_MAP ||
         e->converted_type == PQ_CT_MAP_KEY_VALUE;
}

static void set_decimal_format(pq_node *n, int32_t precision, int32_t scale) {
  n->dec_precision = precision;
  n->dec_scale = scale;
  if (precision <= 38) {
    n->out_width = 16;
    snprintf(n->format, sizeof n->format, "d:%d,%d", (int)precision, (int)scale);
  } else {
    n->out_width = 32;
    snprintf(n->format, sizeof n->format, "d:%d,%d,256", (int)precision, (int)scale);
  }
}

/* Decide the Arrow type of a leaf from its physical type and annotations. */
static int leaf_type(pq_node *n, const pq_schema_element *e) {
  const pq_logical_type *lt = &e->logical;
  int ct = e->converted_type;
  if ((lt->kind == PQ_LT_TIME || lt->kind == PQ_LT_TIMESTAMP) &&
      (lt->unit < PQ_UNIT_MILLIS || lt->unit > PQ_UNIT_NANOS))
    return err_set(DELTA_EUNSUPPORTED, "column %s: unknown time unit %d", e->name, lt->unit);
  n->physical = e->type;
  n->type_length = e->type_length;
  n->conv = PQC_COPY;
  n->extension = "";
  bool is_decimal = lt->kind == PQ_LT_DECIMAL || ct == PQ_CT_DECIMAL;
  int32_t precision = lt->kind == PQ_LT_DECIMAL ? lt->precision : e->precision;
  int32_t scale = lt->kind == PQ_LT_DECIMAL ? lt->scale : e->scale;
  if (is_decimal && (precision <= 0 || precision > 76 || scale < 0 || scale > precision))
    return err_set(DELTA_ECORRUPT, "column %s: bad DECIMAL(%d,%d)", e->name, (int)precision,
                           (int)scale);
  switch (e->type) {
  case PQ_BOOLEAN:
    n->conv = PQC_BOOL;
    strcpy(n->format, "b");
    return 0;
  case PQ_INT32: {
    int bw = 32;
    bool sign = true;
    if (lt->kind == PQ_LT_INTEGER) {
      bw = lt->bit_width;
      sign = lt->is_signed;
    } else if (ct >= PQ_CT_UINT_8 && ct <= PQ_CT_INT_64) {
      static const int widths[] = {8, 16, 32, 64, 8, 16, 32, 64};
      bw = widths[ct - PQ_CT_UINT_8];
      sign = ct >= PQ_CT_INT_8;
    }
    n->out_width = 4;
    if (is_decimal) {
      n->conv = PQC_DEC_I32;
      set_decimal_format(n, precision, scale);
    } else if (lt->kind == PQ_LT_DATE || ct == PQ_CT_DATE) {
      strcpy(n->format, "tdD");
    } else if ((lt->kind == PQ_LT_TIME && lt->unit == PQ_UNIT_MILLIS) || ct == PQ_CT_TIME_MILLIS) {
      strcpy(n->format, "ttm");
    } else if (bw == 8) {
      n->conv = PQC_I32_TO_I8;
      n->out_width = 1;
      strcpy(n->format, sign ? "c" : "C");
    } else if (bw == 16) {
      n->conv = PQC_I32_TO_I16;
      n->out_width = 2;
      strcpy(n->format, sign ? "s" : "S");
    } else {
      strcpy(n->format, sign ? "i" : "I");
    }
    return 0;
  }
  case PQ_INT64:
    n->out_width = 8;
    if (is_decimal) {
      n->conv = PQC_DEC_I64;
      set_decimal_format(n, precision, scale);
    } else if (lt->kind == PQ_LT_TIME || ct == PQ_CT_TIME_MICROS) {
      strcpy(n->format, (lt->kind == PQ_LT_TIME && lt->unit == PQ_UNIT_NANOS) ? "ttn" : "ttu");
    } else if (lt->kind == PQ_LT_TIMESTAMP || ct == PQ_CT_TIMESTAMP_MILLIS ||
               ct == PQ_CT_TIMESTAMP_MICROS) {
      int unit = lt->kind == PQ_LT_TIMESTAMP ? lt->unit
                 : ct == PQ_CT_TIMESTAMP_MILLIS ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
      /* The legacy converted types imply UTC adjustment. */
      bool utc = lt->kind == PQ_LT_TIMESTAMP ? lt->utc : true;
      snprintf(n->format, sizeof n->format, "ts%c:%s",
               unit == PQ_UNIT_MILLIS ? 'm' : unit == PQ_UNIT_NANOS ? 'n' : 'u', utc ? "UTC" : "");
    } else if ((lt->kind == PQ_LT_INTEGER && !lt->is_signed) || ct == PQ_CT_UINT_64) {
      strcpy(n->format, "L");
    } else {
      strcpy(n->format, "l");
    }
    return 0;
  case PQ_INT96:
    /* Legacy Impala/Spark timestamps: instants, read at microsecond precision. */
    n->conv = PQC_INT96_TS;
    n->out_width = 8;
    strcpy(n->format, "tsu:UTC");
    return 0;
  case PQ_FLOAT:
    n->out_width = 4;
    strcpy(n->format, "f");
    return 0;
  case PQ_DOUBLE:
    n->out_width = 8;
    strcpy(n->format, "g");
    return 0;
  case PQ_BYTE_ARRAY:
    if (is_decimal) {
      n->conv = PQC_DEC_BE;
      set_decimal_format(n, precision, scale);
      return 0;
    }
    n->conv = PQC_BINARY;
    if (lt->kind == PQ_LT_STRING || lt->kind == PQ_LT_ENUM || lt->kind == PQ_LT_JSON ||
        ct == PQ_CT_UTF8 || ct == PQ_CT_ENUM || ct == PQ_CT_JSON) {
      n->is_string = true;
      strcpy(n->format, "u");
      if (lt->kind == PQ_LT_JSON || ct == PQ_CT_JSON) n->extension = "arrow.json";
    } else {
      strcpy(n->format, "z");
    }
    return 0;
  case PQ_FIXED_LEN_BYTE_ARRAY:
    if (e->type_length <= 0)
      return err_set(DELTA_ECORRUPT, "column %s: FIXED_LEN_BYTE_ARRAY without a length",
                             e->name);
    if (is_decimal) {
      n->conv = PQC_DEC_BE;
      set_decimal_format(n, precision, scale);
      return 0;
    }
    n->conv = PQC_FIXED;
    n->out_width = e->type_length;
    if (lt->kind == PQ_LT_FLOAT16 && e->type_length == 2) {
      strcpy(n->format, "e");
    } else {
      snprintf(n->format, sizeof n->format, "w:%d", (int)e->type_length);
      if (lt->kind == PQ_LT_UUID && e->type_length == 16) n->extension = "arrow.uuid";
    }
    return 0;
  default:
    return err_set(DELTA_EUNSUPPORTED, "column %s: unknown physical type %d", e->name,
                           e->type);
  }
}

static int build_node(builder *b, pq_node *parent, int16_t def, int16_t rep, int16_t rep_enc,
                      bool force_required, int depth, pq_node **out);

static int build_leaf(builder *b, pq_node *parent, const pq_schema_element *e, int16_t def_null,
                      int16_t rep, int16_t rep_enc, bool nullable, pq_node **out) {
  pq_node *n = node_new(PQN_LEAF, e->name, parent);
  if (!n) return DELTA_NOMEM();
  n->nullable = nullable;
  n->def_null = def_null;
  n->max_def = def_null;
  n->max_rep = rep;
  n->rep_enc = rep_enc;
  n->elem = e;
  int rc;
  if ((rc = leaf_type(n, e)) != 0) goto fail;
  n->leaf_index = (int)(b->leaves.len / sizeof(pq_node *));
  if ((rc = buf_append(&b->leaves, &n, sizeof n)) != 0) goto fail;
  *out = n;
  return 0;
fail:
  node_free(n);
  return rc;
}

/* A LIST- or MAP-like node over the repeated element at index `ridx`. */
static int build_list(builder *b, pq_node *parent, const pq_schema_element *annot, int16_t def_null,
                      bool nullable, int16_t rep, int16_t rep_enc, int depth, pq_node **out) {
  const pq_file_metadata *md = b->md;
  int ridx = b->pos;
  const pq_schema_element *r = &md->schema[ridx];
  bool is_map = is_map_annotated(annot);
  pq_node *n = node_new(is_map ? PQN_MAP : PQN_LIST, annot->name, parent);
  if (!n) return DELTA_NOMEM();
  n->nullable = nullable;
  n->def_null = def_null;
  n->def_elem = (int16_t)(def_null + 1);
  n->rep = (int16_t)(rep + 1);
  n->rep_enc = rep_enc;
  n->elem = annot;
  int rc = 0;
  pq_node *child = NULL;
  if (is_map) {
    /* repeated group key_value { required key; optional value; } */
    if (r->type != -1 || r->num_children < 1 || r->num_children > 2) {
      rc = err_set(DELTA_ECORRUPT, "map %s: its repeated field is not a key/value group",
                           annot->name);
      goto fail;
    }
    pq_node *entries = node_new(PQN_STRUCT, "entries", n);
    if (!entries) { rc = DELTA_NOMEM(); goto fail; }
    entries->def_null = n->def_elem;
    entries->rep_enc = n->rep;
    entries->elem = r;
    rc = add_child(n, entries);
    if (rc) { node_free(entries); goto fail; }
    b->pos++;
    for (int i = 0; i < r->num_children; i++) {
      pq_node *kv = NULL;
      rc = build_node(b, entries, n->def_elem, n->rep, n->rep, i == 0, depth + 1, &kv);
      if (rc) goto fail;
      rc = add_child(entries, kv);
      if (rc) { node_free(kv); goto fail; }
    }
    if (entries->n_children == 1) {
      rc = err_set(DELTA_EUNSUPPORTED, "map %s has keys but no values", annot->name);
      goto fail;
    }
    mem_free(entries->children[0]->name);
    mem_free(entries->children[1]->name);
    entries->children[0]->name = mem_strdup("key");
    entries->children[1]->name = mem_strdup("value");
    if (!entries->children[0]->name || !entries->children[1]->name) { rc = DELTA_NOMEM(); goto fail; }
    entries->children[0]->nullable = false;
    *out = n;
    return 0;
  }
  /* Lists: decide whether the repeated field is the element or wraps it. */
  bool repeated_is_element;
  if (r->type != -1) {
    repeated_is_element = true; /* repeated primitive */
  } else if (r->num_children != 1) {
    repeated_is_element = true; /* repeated group of several fields: a struct element */
  } else {
    char tuple[600];
    snprintf(tuple, sizeof tuple, "%s_tuple", annot->name);
    repeated_is_element = strcmp(r->name, "array") == 0 || strcmp(r->name, tuple) == 0;
  }
  if (repeated_is_element) {
    rc = build_node(b, n, n->def_elem, n->rep, n->rep, true, depth + 1, &child);
  } else {
    b->pos++; /* the repeated wrapper */
    rc = build_node(b, n, n->def_elem, n->rep, n->rep, false, depth + 1, &child);
  }
  if (rc) goto fail;
  rc = add_child(n, child);
  if (rc) { node_free(child); goto fail; }
  *out = n;
  return 0;
fail:
  node_free(n);
  return rc;
}

/* Build the node for schema element b->pos (consuming its subtree).
 * def/rep: levels of the parent slot; rep_enc: rep level of the enclosing
 * list. force_required: treat a REPEATED element as the (required) element
 * of a list that was already built around it. */
static int build_node(builder *b, pq_node *parent, int16_t def, int16_t rep, int16_t rep_enc,
                      bool force_required, int depth, pq_node **out) {
  const pq_file_metadata *md = b->md;
  if (depth > MAX_DEPTH) return err_set(DELTA_EUNSUPPORTED, "schema nested deeper than %d", MAX_DEPTH);
  if (b->pos >= md->num_schema) return err_set(DELTA_ECORRUPT, "schema ends early");
  const pq_schema_element *e = &md->schema[b->pos];
  int repetition = force_required ? PQ_REQUIRED : e->repetition;
  if (repetition == PQ_REPEATED) {
    /* A bare repeated field: a required list whose elements are this field. */
    pq_node *n = node_new(PQN_LIST, e->name, parent);
    if (!n) return DELTA_NOMEM();
    n->def_null = def;
    n->def_elem = (int16_t)(def + 1);
    n->rep = (int16_t)(rep + 1);
    n->rep_enc = rep_enc;
    n->elem = e;
    pq_node *child = NULL;
    int rc;
    if ((rc = build_node(b, n, n->def_elem, n->rep, n->rep, true, depth + 1, &child)) == 0 &&
        (rc = add_child(n, child)) != 0)
      node_free(child); /* built but not adopted */
    if (rc) {
      node_free(n);
      return rc;
    }
    *out = n;
    return 0;
  }
  bool nullable = repetition == PQ_OPTIONAL;
  int16_t def_null = (int16_t)(def + (nullable ? 1 : 0));
  if (e->type != -1) {
    b->pos++;
    return build_leaf(b, parent, e, def_null, rep, rep_enc, nullable, out);
  }
  if ((is_list_annotated(e) || is_map_annotated(e)) && e->num_children == 1 &&
      md->schema[b->pos + 1].repetition == PQ_REPEATED) {
    b->pos++;
    return build_list(b, parent, e, def_null, nullable, rep, rep_enc, depth, out);
  }
  /* A plain group: a struct. (A LIST/MAP annotation on a group that does not
   * follow the list/map shape is read as the struct it is.) */
  pq_node *n = node_new(PQN_STRUCT, e->name, parent);
  if (!n) return DELTA_NOMEM();
  n->nullable = nullable;
  n->def_null = def_null;
  n->rep_enc = rep_enc;
  n->elem = e;
  if (e->num_children <= 0) {
    node_free(n);
    return err_set(DELTA_EUNSUPPORTED, "group %s has no fields", e->name);
  }
  int nkids = e->num_children;
  b->pos++;
  for (int i = 0; i < nkids; i++) {
    pq_node *c = NULL;
    int rc;
    if ((rc = build_node(b, n, def_null, rep, rep_enc, false, depth + 1, &c)) == 0 &&
        (rc = add_child(n, c)) != 0)
      node_free(c); /* built but not adopted */
    if (rc) {
      node_free(n);
      return rc;
    }
  }
  *out = n;
  return 0;
}

static int number_nodes(pq_node *n, int next) {
  n->id = next++;
  for (int i = 0; i < n->n_children; i++) next = number_nodes(n->children[i], next);
  return next;
}

int pq_schema_build(const pq_file_metadata *md, pq_schema **out) {
  *out = NULL;
  if (md->num_schema < 1 || md->schema[0].type != -1)
    return err_set(DELTA_ECORRUPT, "schema has no root group");
  builder b = {md, 1, NULL, DELTA_BUF_INIT};
  pq_schema *s = mem_calloc(1, sizeof *s);
  if (!s) return DELTA_NOMEM();
  int rc = 0;
  s->root = node_new(PQN_STRUCT, "", NULL);
  if (!s->root) { rc = DELTA_NOMEM(); goto fail; }
  s->root->elem = &md->schema[0];
  for (int i = 0; i < md->schema[0].num_children; i++) {
    pq_node *c = NULL;
    rc = build_node(&b, s->root, 0, 0, 0, false, 1, &c);
    if (rc) goto fail;
    rc = add_child(s->root, c);
    if (rc) { node_free(c); goto fail; }
  }
  if (b.pos != md->num_schema) {
    rc = err_set(DELTA_ECORRUPT, "schema has %d elements but the tree uses %d",
                         (int)md->num_schema, b.pos);
    goto fail;
  }
  s->n_nodes = number_nodes(s->root, 0);
  s->n_leaves = (int)(b.leaves.len / sizeof(pq_node *));
  s->leaves = (pq_node **)(void *)buf_detach(&b.leaves);
  *out = s;
  return 0;
fail:
  buf_dispose(&b.leaves);
  if (s) node_free(s->root);
  mem_free(s);
  return rc;
}

void pq_schema_free(pq_schema *s) {
  if (!s) return;
  node_free(s->root);
  mem_free(s->leaves);
  mem_free(s);
}

static bool has_selected(const pq_node *n, const bool *selected) {
  if (!selected) return true;
  if (n->kind == PQN_LEAF) return selected[n->leaf_index];
  for (int i = 0; i < n->n_children; i++)
    if (has_selected(n->children[i], selected)) return true;
  return false;
}

static int count_selected(const pq_node *n, const bool *selected) {
  int k = 0;
  for (int i = 0; i < n->n_children; i++) k += has_selected(n->children[i], selected);
  return k;
}

/* Field metadata: the extension type of a leaf, and the Parquet field id
 * (as "PARQUET:field_id", the key Arrow implementations use), which column
 * mapping in id mode matches on. */
static int set_metadata(const pq_node *n, struct ArrowSchema *out) {
  const char *k[3], *v[3];
  char id[16];
  int m = 0;
  if (n->kind == PQN_LEAF && n->extension[0]) {
    k[m] = "ARROW:extension:name", v[m++] = n->extension;
    k[m] = "ARROW:extension:metadata", v[m++] = "";
  }
  if (n->elem && n->elem->has_field_id) {
    snprintf(id, sizeof id, "%d", (int)n->elem->field_id);
    k[m] = "PARQUET:field_id", v[m++] = id;
  }
  return m ? arrow_schema_set_metadata(out, k, v, m) : 0;
}

static int node_to_arrow(const pq_node *n, const bool *selected, struct ArrowSchema *out) {
  int64_t flags = n->nullable ? ARROW_FLAG_NULLABLE : 0;
  int rc;
  switch (n->kind) {
  case PQN_LEAF:
    if ((rc = arrow_schema_new(out, n->format, n->name, flags, 0)) != 0) goto done;
    break;
  case PQN_LIST:
  case PQN_MAP:
    if ((rc = arrow_schema_new(out, n->kind == PQN_MAP ? "+m" : "+l", n->name, flags, 1)) != 0)
      goto done;
    if ((rc = node_to_arrow(n->children[0], selected, out->children[0])) != 0) goto done;
    break;
  case PQN_STRUCT: {
    int k = count_selected(n, selected);
    if ((rc = arrow_schema_new(out, "+s", n->name, flags, k)) != 0) goto done;
    for (int i = 0, j = 0; i < n->n_children; i++) {
      if (!has_selected(n->children[i], selected)) continue;
      if ((rc = node_to_arrow(n->children[i], selected, out->children[j++])) != 0) goto done;
    }
    break;
  }
  default:
    return DELTA_ERROR;
  }
  if (n->parent) rc = set_metadata(n, out);
done:
  if (rc && out->release) arrow_schema_release(out);
  return rc;
}

int pq_schema_to_arrow(const pq_schema *s, const bool *selected, struct ArrowSchema *out) {
  return node_to_arrow(s->root, selected, out);
}

char *pq_node_path(const pq_node *n) {
  delta_buf b = DELTA_BUF_INIT;
  const pq_node *chain[MAX_DEPTH + 2];
  int k = 0;
  for (const pq_node *p = n; p && p->parent && k < MAX_DEPTH + 2; p = p->parent) chain[k++] = p;
  for (int i = k - 1; i >= 0; i--) {
    if (i != k - 1) buf_putc(&b, '.');
    buf_puts(&b, chain[i]->name);
  }
  if (buf_putc(&b, '\0')) {
    buf_dispose(&b);
    return NULL;
  }
  return (char *)buf_detach(&b);
}
