/* Generated and identity columns on the write path; see gen_columns.h. */
#include "rewrite/gen_columns.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/nulls.h"
#include "arrow/filter.h"
#include "expr/value.h"
#include "expr/value_eval.h"
#include "json/json.h"
#include "json/json_writer.h"
#include "log/features.h"
#include "log/partition_text.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

bool gen_schema_has(const delta_type *schema, bool identity) {
  for (int i = 0; schema && i < schema->n_fields; i++)
    if (identity ? schema->fields[i].is_identity : schema->fields[i].generation_expression != NULL) return true;
  return false;
}

/* ------------------------------------------------------------- identity */

static int json_long(delta_json_val v, int64_t *out) {
  if (json_typeof(v) == DELTA_JSON_STRING) {
    const char *p;
    size_t n;
    bool esc;
    char b[32];
    if (json_string_raw(v, &p, &n, &esc) || esc || n == 0 || n >= sizeof b) return -1;
    memcpy(b, p, n);
    b[n] = 0;
    char *end;
    long long x = strtoll(b, &end, 10);
    if (*end) return -1;
    *out = x;
    return 0;
  }
  return json_int64(v, out) ? -1 : 0;
}

/* A new document *d holding the metadata text `md` (*d is the caller's to free). */
static int parse_metadata(delta_json_doc **d, const char *md) {
  int rc;
  if ((rc = json_doc_new(d)) != 0)
    return rc;
  return json_parse(*d, md, strlen(md));
}

int gen_identity_parse(const delta_field *f, gen_identity *out) {
  memset(out, 0, sizeof *out);
  out->start = out->step = 1;
  const char *md = f->metadata ? f->metadata : "{}";
  delta_json_doc *d = NULL;
  int rc = 0; /* from here on: -1 when a value is not a number */
  if (parse_metadata(&d, md) != 0) {
    json_doc_free(d);
    return err_set(DELTA_ECORRUPT, "identity column %s: metadata is not JSON", f->name);
  }
  delta_json_val root = json_root(d), v;
  if (json_present(v = json_get(root, "delta.identity.start")) && json_long(v, &out->start))
    rc = -1;
  if (json_present(v = json_get(root, "delta.identity.step")) && json_long(v, &out->step)) rc = -1;
  if (json_present(v = json_get(root, "delta.identity.highWaterMark"))) {
    if (json_long(v, &out->high_water_mark)) rc = -1;
    out->has_high_water_mark = true;
  }
  if (json_present(v = json_get(root, "delta.identity.allowExplicitInsert"))) {
    if (json_typeof(v) == DELTA_JSON_STRING) out->allow_explicit_insert = json_string_eq(v, "true");
    else if (json_bool(v, &out->allow_explicit_insert)) rc = -1;
  }
  json_doc_free(d);
  delta_error_clear();
  if (rc) return err_set(DELTA_ECORRUPT, "identity column %s: delta.identity.* values are not numbers", f->name);
  if (out->step == 0) return err_set(DELTA_ECORRUPT, "identity column %s: delta.identity.step is 0", f->name);
  return 0;
}

int gen_identity_set_hwm(delta_field *f, int64_t hwm) {
  const char *md = f->metadata ? f->metadata : "{}";
  delta_json_doc *d = NULL;
  delta_buf b = DELTA_BUF_INIT;
  int rc;
  if ((rc = parse_metadata(&d, md)) != 0)
    goto done;
  if (json_typeof(json_root(d)) != DELTA_JSON_OBJECT) {
    rc = err_set(DELTA_ECORRUPT, "field %s: metadata is not an object", f->name);
    goto done;
  }
  if ((rc = buf_printf(&b, "{\"delta.identity.highWaterMark\":%" PRId64, hwm)) != 0)
    goto done;
  for (delta_json_val m = json_first(json_root(d)); json_present(m); m = json_next(m)) {
    const char *k, *raw;
    size_t kn, rn;
    bool esc;
    if ((rc = json_key_raw(m, &k, &kn, &esc)) != 0)
      goto done;
    if (kn == strlen("delta.identity.highWaterMark") && memcmp(k, "delta.identity.highWaterMark", kn) == 0) continue;
    json_raw(m, &raw, &rn);
    if ((rc = buf_printf(&b, ",\"%.*s\":%.*s", (int)kn, k, (int)rn, raw)) != 0)
      goto done;
  }
  if ((rc = buf_puts(&b, "}")) != 0)
    goto done;
  if ((rc = buf_putc(&b, 0)) != 0)
    goto done;
  json_doc_free(d); /* it reads md, which is f->metadata */
  d = NULL;
  mem_free(f->metadata);
  f->metadata = (char *)buf_detach(&b);
done:
  json_doc_free(d);
  buf_dispose(&b);
  return rc;
}

/* ---------------------------------------------------------- the columns */

typedef struct {
  int field;                 /* table field */
  int col;                   /* column of the effective batch */
  int in_col;                /* input column, -1 when the input lacks it */
  const char *name;          /* the table's spelling (borrowed from the schema) */
  bool identity;
  bool filler;               /* a column the input lacks, null, for expressions to read */
  vexpr *expr;               /* generated */
  const char *text;          /* its expression (borrowed) */
  gen_identity id;
  int64_t next;              /* identity: the next value to give */
  bool moved;                /* identity: values were given */
  struct ArrowArray computed;
} gen_col;

struct gen_columns {
  gen_col *cols;
  int n;
  bool fill;
  int64_t rows_seen;          /* rows before this batch: row numbers in errors */
  struct ArrowSchema input;   /* copy, for re-basing batches with an offset */
  struct ArrowSchema bind;    /* the effective schema with generated columns unnamed */
  struct ArrowArray rebased;
  struct ArrowArray placeholder;
  struct ArrowArray **kids;
  int n_kids;
  const void *struct_bufs[1];
};

void gen_columns_free(gen_columns *g) {
  if (!g) return;
  for (int i = 0; i < g->n; i++) {
    vexpr_free(g->cols[i].expr);
    arrow_array_release(&g->cols[i].computed);
  }
  mem_free(g->cols);
  mem_free(g->kids);
  if (g->input.release) g->input.release(&g->input);
  if (g->bind.release) g->bind.release(&g->bind);
  arrow_array_release(&g->rebased);
  mem_free(g);
}

static int null_width(const char *f);

static int replace_child(struct ArrowSchema *parent, int64_t i, const struct ArrowSchema *src) {
  arrow_schema_release(parent->children[i]);
  return arrow_schema_copy(parent->children[i], src);
}

/* Parse and bind c's generation expression (to g->bind). */
static int bind_expression(gen_columns *g, gen_col *c) {
  int rc;
  if ((rc = vexpr_parse(c->text, &c->expr)) != 0)
    return rc;
  return vexpr_bind(c->expr, &g->bind, g->bind.children[c->col]->format, c->name);
}

int gen_columns_new(gen_columns **out, const delta_type *schema, const delta_protocol *protocol, bool fill,
                    const struct ArrowSchema *input, struct ArrowSchema *effective) {
  *out = NULL;
  memset(effective, 0, sizeof *effective);
  bool gen_on = log_generated_enabled(protocol) && gen_schema_has(schema, false);
  bool id_on = log_identity_enabled(protocol) && gen_schema_has(schema, true);
  if (!gen_on && !id_on) return arrow_schema_copy(effective, input);
  gen_columns *g = mem_calloc(1, sizeof *g);
  struct ArrowSchema table;
  memset(&table, 0, sizeof table);
  if (!g || !(g->cols = mem_calloc((size_t)schema->n_fields + 1, sizeof *g->cols))) {
    mem_free(g);
    return DELTA_NOMEM();
  }
  g->fill = fill;
  int rc;
  int missing = 0;
  if ((rc = log_schema_to_arrow(schema, &table)) != 0)
    goto done;
  for (int f = 0; f < schema->n_fields; f++) {
    const delta_field *fd = &schema->fields[f];
    bool is_gen = gen_on && fd->generation_expression, is_id = id_on && fd->is_identity;
    bool present = false;
    for (int64_t k = 0; k < input->n_children; k++) present |= strcasecmp(input->children[k]->name, fd->name) == 0;
    /* a flat column the input lacks is null: expressions may read it */
    bool filler = gen_on && !is_gen && !is_id && !present && null_width(table.children[f]->format) >= 0;
    if (!is_gen && !is_id && !filler) continue;
    gen_col *c = &g->cols[g->n++];
    c->field = f;
    c->name = fd->name;
    c->identity = is_id;
    c->filler = filler;
    c->in_col = -1;
    for (int64_t k = 0; k < input->n_children; k++)
      if (strcasecmp(input->children[k]->name, fd->name) == 0) c->in_col = (int)k;
    c->col = c->in_col >= 0 ? c->in_col : (int)input->n_children + missing++;
    if (filler) {
      continue;
    } else if (is_id) {
      const char *fmt = table.children[f]->format;
      if (strlen(fmt) != 1 || !strchr("csil", fmt[0])) {
        rc = err_set(DELTA_EUNSUPPORTED, "identity column %s: deltac fills only integer identity columns",
                     fd->name);
        goto done;
      }
      if ((rc = gen_identity_parse(fd, &c->id)) != 0)
        goto done;
      if (c->id.has_high_water_mark && __builtin_add_overflow(c->id.high_water_mark, c->id.step, &c->next)) {
        rc = err_set(DELTA_EINVAL, "identity column %s: the next value overflows", fd->name);
        goto done;
      }
      if (!c->id.has_high_water_mark) c->next = c->id.start;
    } else {
      c->text = fd->generation_expression;
    }
  }
  /* the effective schema: the input's columns, then the missing ones */
  if ((rc = arrow_schema_new(effective, "+s", input->name ? input->name : "", input->flags,
                             (int)input->n_children + missing)) != 0)
    goto done;
  for (int64_t k = 0; k < input->n_children; k++)
    if ((rc = replace_child(effective, k, input->children[k])) != 0)
      goto done;
  for (int i = 0; i < g->n; i++)
    if ((rc = replace_child(effective, g->cols[i].col, table.children[g->cols[i].field])) != 0)
      goto done;
  if ((rc = arrow_schema_copy(&g->input, input)) != 0)
    goto done;
  /* expressions bind to a copy where generated columns have no usable
   * name: an expression over another generated column fails to bind
   * (Spark does not allow one either) instead of reading a column that is
   * not computed yet */
  if ((rc = arrow_schema_copy(&g->bind, effective)) != 0)
    goto done;
  for (int i = 0; i < g->n; i++) {
    gen_col *c = &g->cols[i];
    if (c->identity || c->filler) continue;
    struct ArrowSchema *b = g->bind.children[c->col];
    struct ArrowSchema renamed;
    if ((rc = arrow_schema_new(&renamed, b->format, "\x01generated", b->flags, 0)) != 0)
      goto done;
    arrow_schema_release(b);
    *b = renamed;
  }
  for (int i = 0; i < g->n; i++) {
    gen_col *c = &g->cols[i];
    if (c->identity || c->filler) continue;
    if (bind_expression(g, c) != 0) {
      char why[512];
      snprintf(why, sizeof why, "%s", delta_error_last());
      rc = err_set(DELTA_EUNSUPPORTED, "generated column %s: deltac cannot evaluate its expression %s (%s)",
                   c->name, c->text, why);
      goto done;
    }
  }
  g->n_kids = (int)effective->n_children;
  if (!(g->kids = mem_calloc((size_t)g->n_kids + 1, sizeof *g->kids))) {
    rc = DELTA_NOMEM();
    goto done;
  }
done:
  if (table.release) table.release(&table);
  if (rc) {
    gen_columns_free(g);
    if (effective->release) effective->release(effective);
    memset(effective, 0, sizeof *effective);
    return rc;
  }
  *out = g;
  return 0;
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }

/* Bytes per value of a flat Arrow format (0: bits; -1: not flat): the
 * columns a missing input column may be read as null from. */
static int null_width(const char *f) {
  if (strcmp(f, "tdD") == 0) return 4;
  if (strncmp(f, "ts", 2) == 0) return 8;
  if (f[0] == 'd' && f[1] == ':') return 16;
  if (f[0] == 'w' && f[1] == ':') return atoi(f + 2);
  if (strlen(f) != 1) return -1;
  switch (f[0]) {
  case 'b': return 0;
  case 'c': return 1;
  case 's': return 2;
  case 'i': case 'f': case 'u': case 'z': return 4; /* strings: int32 offsets */
  case 'l': case 'g': case 'U': case 'Z': return 8;
  default: return -1;
  }
}

/* A value's text for messages. */
static void value_text(const char *fmt, const struct ArrowArray *a, int64_t i, char *buf, size_t cap) {
  delta_buf b = DELTA_BUF_INIT;
  bool is_null = false;
  if (log_partition_value_text(fmt, a, i, &b, &is_null) != 0) {
    delta_error_clear();
    snprintf(buf, cap, "?");
  } else if (is_null) {
    snprintf(buf, cap, "NULL");
  } else {
    snprintf(buf, cap, "%.*s", (int)(b.len > 60 ? 60 : b.len), b.data ? (const char *)b.data : "");
  }
  buf_dispose(&b);
}

/* assigned: whether the column's value was given by the user (NULL input
 * column: not given); update: the rows are UPDATE's or MERGE's new images. */
static int fill_identity(gen_columns *g, gen_col *c, const struct ArrowArray *batch, bool assigned, bool update) {
  int64_t n = batch->length;
  const char *fmt = g->bind.children[c->col]->format;
  int w = fmt[0] == 'c' ? 1 : fmt[0] == 's' ? 2 : fmt[0] == 'i' ? 4 : 8;
  int64_t lo = w == 1 ? INT8_MIN : w == 2 ? INT16_MIN : w == 4 ? INT32_MIN : INT64_MIN;
  int64_t hi = w == 1 ? INT8_MAX : w == 2 ? INT16_MAX : w == 4 ? INT32_MAX : INT64_MAX;
  uint8_t *vals = mem_calloc((size_t)n + 1, (size_t)w);
  if (!vals) return DELTA_NOMEM();
  const struct ArrowArray *in = c->in_col >= 0 ? batch->children[c->in_col] : NULL;
  const char *in_fmt = c->in_col >= 0 ? g->input.children[c->in_col]->format : NULL;
  value_type in_vt = in_fmt ? value_type_of_arrow(in_fmt, NULL, NULL) : VT_NULL;
  int rc;
  for (int64_t r = 0; r < n; r++) {
    int64_t v;
    if (assigned && update) {
      rc = err_set(DELTA_EINVAL, "identity column %s cannot be updated", c->name);
      goto fail;
    }
    if (in && arrow_is_valid(in, r)) {
      expr_value ev;
      value_from_array(in, in_fmt, in_vt, 0, r, &ev);
      if (in_vt != VT_INT) {
        rc = err_set(DELTA_EINVAL, "identity column %s: the input's values are not integers", c->name);
        goto fail;
      }
      if (assigned && !c->id.allow_explicit_insert) {
        rc = err_set(DELTA_EINVAL,
                             "identity column %s: row %" PRId64 " gives it a value (%" PRId64 "), but the column "
                             "does not allow explicit values (delta.identity.allowExplicitInsert is false)",
                             c->name, g->rows_seen + r + 1, ev.u.i);
        goto fail;
      }
      v = ev.u.i;
    } else {
      v = c->next;
      if (v < lo || v > hi || __builtin_add_overflow(c->next, c->id.step, &c->next)) {
        rc = err_set(DELTA_EINVAL, "identity column %s: the next value overflows the column", c->name);
        goto fail;
      }
      c->id.high_water_mark = v;
      c->id.has_high_water_mark = true;
      c->moved = true;
    }
    if (v < lo || v > hi) {
      rc = err_set(DELTA_EINVAL, "identity column %s: value %" PRId64 " does not fit", c->name, v);
      goto fail;
    }
    memcpy(vals + (size_t)r * (size_t)w, &v, (size_t)w); /* little-endian: the low bytes */
  }
  if ((rc = arrow_array_new(&c->computed, 2, 0)) != 0)
    goto fail;
  c->computed.length = n;
  c->computed.null_count = 0;
  arrow_array_set_buffer(&c->computed, 1, vals); /* computed owns vals from here */
  return 0;
fail:
  mem_free(vals);
  return rc;
}

/* Every supplied value must equal the computed one (null-safe); in fill
 * mode a null stands for "not given". */
static int check_generated(gen_columns *g, gen_col *c, const struct ArrowArray *batch) {
  const struct ArrowArray *in = batch->children[c->in_col];
  const char *in_fmt = g->input.children[c->in_col]->format, *fmt = g->bind.children[c->col]->format;
  int in_scale = 0, scale = 0;
  value_type in_vt = value_type_of_arrow(in_fmt, NULL, &in_scale), vt = value_type_of_arrow(fmt, NULL, &scale);
  for (int64_t r = 0; r < batch->length; r++) {
    expr_value a, b;
    value_from_array(in, in_fmt, in_vt, in_scale, r, &a);
    if (a.is_null) continue; /* a null (or a key NDJSON rows leave out) is not a value given */
    value_from_array(&c->computed, fmt, vt, scale, r, &b);
    bool same = a.is_null || b.is_null ? a.is_null == b.is_null
                                       : value_comparable(a.type, b.type) && value_cmp(&a, &b) == 0;
    if (!same) {
      char got[80], want[80];
      value_text(in_fmt, in, r, got, sizeof got);
      value_text(fmt, &c->computed, r, want, sizeof want);
      return err_set(DELTA_EINVAL,
                             "generated column %s: row %" PRId64 " has %s, but its expression %s gives %s",
                             c->name, g->rows_seen + r + 1, got, c->text, want);
    }
  }
  return 0;
}

int gen_columns_apply(gen_columns *g, const struct ArrowArray *batch, const bool *assigned, bool update,
                      struct ArrowArray *out) {
  int rc = 0;
  arrow_array_release(&g->rebased);
  for (int i = 0; i < g->n; i++) arrow_array_release(&g->cols[i].computed);
  if (batch->offset) {
    /* value_eval reads rows from 0: re-base the batch */
    uint8_t *all = mem_malloc((size_t)batch->length + 1);
    if (!all) return DELTA_NOMEM();
    memset(all, 1, (size_t)batch->length + 1);
    rc = arrow_filter(&g->input, batch, all, &g->rebased);
    mem_free(all);
    if (rc) return rc;
    batch = &g->rebased;
  }
  int64_t n = batch->length;
  memset(&g->placeholder, 0, sizeof g->placeholder);
  g->placeholder.length = n;
  g->placeholder.null_count = n;
  for (int k = 0; k < g->n_kids; k++) g->kids[k] = k < batch->n_children ? batch->children[k] : &g->placeholder;
  g->struct_bufs[0] = NULL;
  memset(out, 0, sizeof *out);
  out->length = n;
  out->n_buffers = 1;
  out->buffers = g->struct_bufs;
  out->n_children = g->n_kids;
  out->children = g->kids;
  out->release = no_release;
  for (int i = 0; i < g->n; i++)
    if (g->cols[i].filler) {
      if ((rc = arrow_array_nulls(g->bind.children[g->cols[i].col], n, &g->cols[i].computed)) != 0)
        return rc;
      g->kids[g->cols[i].col] = &g->cols[i].computed;
    }
  for (int i = 0; i < g->n; i++)
    if (g->cols[i].identity) {
      gen_col *c = &g->cols[i];
      /* without an assignment list every column the input has is given */
      bool given = c->in_col >= 0 && (assigned ? assigned[c->field] : !g->fill);
      if ((rc = fill_identity(g, c, batch, given, update)) != 0)
        return rc;
      g->kids[g->cols[i].col] = &g->cols[i].computed;
    }
  /* generated columns from the (identity-filled) row; all computed before
   * any replaces its input column */
  for (int i = 0; i < g->n; i++) {
    gen_col *c = &g->cols[i];
    if (c->identity || c->filler) continue;
    if ((rc = vexpr_eval(c->expr, out, &c->computed)) != 0) {
      err_prefix("generated column %s", c->name);
      return rc;
    }
    /* given values must match; a null is "not given", and a column left
     * out of an assignment list is recomputed */
    bool given = c->in_col >= 0 && (!assigned || assigned[c->field]);
    if (given && (rc = check_generated(g, c, batch)) != 0)
      return rc;
  }
  for (int i = 0; i < g->n; i++)
    if (!g->cols[i].identity && !g->cols[i].filler) g->kids[g->cols[i].col] = &g->cols[i].computed;
  g->rows_seen += n;
  return 0;
}

int gen_columns_fill_in_place(gen_columns *g, struct ArrowArray *rows, const bool *assigned, bool update) {
  if (rows->offset != 0 || rows->n_children != g->n_kids)
    return err_set(DELTA_EINVAL, "internal: rows for generated columns do not match the table");
  struct ArrowArray filled;
  int rc;
  if ((rc = gen_columns_apply(g, rows, assigned, update, &filled)) != 0)
    return rc;
  for (int i = 0; i < g->n; i++) {
    gen_col *c = &g->cols[i];
    if (c->filler) continue;
    struct ArrowArray *slot = rows->children[c->col];
    arrow_array_release(slot);
    *slot = c->computed;
    c->computed.release = NULL; /* moved */
  }
  return 0;
}

int gen_columns_update_schema(const gen_columns *g, delta_type *schema, bool *changed) {
  *changed = false;
  for (int i = 0; g && i < g->n; i++) {
    const gen_col *c = &g->cols[i];
    if (!c->identity || !c->moved) continue;
    for (int f = 0; f < schema->n_fields; f++)
      if (strcmp(schema->fields[f].name, c->name) == 0) {
        int rc = gen_identity_set_hwm(&schema->fields[f], c->id.high_water_mark);
        if (rc) return rc;
        *changed = true;
      }
  }
  return 0;
}
