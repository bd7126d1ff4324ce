/* Schemas for writes; see schema_build.h. */
#include "log/schema_build.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "arrow/array.h"
#include "json/json_writer.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

void write_uuid(char out[37]) {
  uint8_t b[16];
  if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
    /* no entropy source: time and address still make collisions unlikely */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)out;
    for (int i = 0; i < 16; i++) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      b[i] = (uint8_t)x;
    }
  }
  b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
  b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
           b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* ---- compact text → Delta JSON ---- */

typedef struct {
  const char *s, *p;
  delta_json_writer *w;
} text_parser;

static void skip_ws(text_parser *tp) {
  while (isspace((unsigned char)*tp->p)) tp->p++;
}

static int syntax(text_parser *tp, const char *what) {
  return err_set(DELTA_EINVAL, "schema: %s at offset %d: '%.20s'", what, (int)(tp->p - tp->s), tp->p);
}

static bool word(text_parser *tp, const char *w) {
  size_t n = strlen(w);
  if (strncasecmp(tp->p, w, n) == 0 && !isalnum((unsigned char)tp->p[n]) && tp->p[n] != '_') {
    tp->p += n;
    return true;
  }
  return false;
}

static int parse_ctype(text_parser *tp, int depth);

static int parse_name(text_parser *tp, delta_buf *name) {
  skip_ws(tp);
  buf_reset(name);
  if (*tp->p == '`') {
    tp->p++;
    while (*tp->p && *tp->p != '`') buf_putc(name, *tp->p++);
    if (*tp->p != '`') return syntax(tp, "unterminated `name`");
    tp->p++;
  } else {
    while (*tp->p && !isspace((unsigned char)*tp->p) && *tp->p != ':' && *tp->p != ',' && *tp->p != '>')
      buf_putc(name, *tp->p++);
  }
  if (name->len == 0) return syntax(tp, "expected a column name");
  return buf_putc(name, 0);
}

static int parse_fields(text_parser *tp, int depth, char end) {
  delta_json_writer *w = tp->w;
  delta_buf name = DELTA_BUF_INIT;
  int rc = 0;
  json_write_object_begin(w);
  json_write_key(w, "type");
  json_write_string(w, "struct");
  json_write_key(w, "fields");
  json_write_array_begin(w);
  for (;;) {
    if ((rc = parse_name(tp, &name))) {
      buf_dispose(&name);
      return rc;
    }
    skip_ws(tp);
    if (*tp->p == ':') tp->p++;
    json_write_object_begin(w);
    json_write_key(w, "name");
    json_write_string(w, (const char *)name.data);
    json_write_key(w, "type");
    /* on a syntax error return at once: closing the JSON would replace the message */
    if ((rc = parse_ctype(tp, depth + 1))) {
      buf_dispose(&name);
      return rc;
    }
    skip_ws(tp);
    bool nullable = true;
    const char *save = tp->p;
    if (word(tp, "not")) {
      skip_ws(tp);
      if (!word(tp, "null")) {
        tp->p = save;
        buf_dispose(&name);
        return syntax(tp, "expected NOT NULL");
      }
      nullable = false;
      skip_ws(tp);
    }
    json_write_key(w, "nullable");
    json_write_bool(w, nullable);
    json_write_key(w, "metadata");
    json_write_object_begin(w);
    json_write_object_end(w);
    json_write_object_end(w);
    if (*tp->p == ',') {
      tp->p++;
      continue;
    }
    if (*tp->p == end) break;
    rc = syntax(tp, end ? "expected ',' or '>'" : "expected ','");
    buf_dispose(&name);
    return rc;
  }
  json_write_array_end(w);
  json_write_object_end(w);
  buf_dispose(&name);
  return rc;
}

static int parse_ctype(text_parser *tp, int depth) {
  static const struct { const char *alias, *name; } prims[] = {
      {"string", "string"},   {"varchar", "string"},  {"text", "string"},     {"bigint", "long"},
      {"long", "long"},       {"int64", "long"},      {"integer", "integer"}, {"int", "integer"},
      {"int32", "integer"},   {"smallint", "short"},  {"short", "short"},     {"int16", "short"},
      {"tinyint", "byte"},    {"byte", "byte"},       {"int8", "byte"},       {"float", "float"},
      {"real", "float"},      {"double", "double"},   {"boolean", "boolean"}, {"bool", "boolean"},
      {"binary", "binary"},   {"date", "date"},       {"timestamp_ntz", "timestamp_ntz"},
      {"timestamp", "timestamp"}};
  delta_json_writer *w = tp->w;
  if (depth > 32) return syntax(tp, "nested too deeply");
  skip_ws(tp);
  if (word(tp, "decimal") || word(tp, "numeric")) {
    int p = 10, s = 0, n = 0;
    skip_ws(tp);
    if (*tp->p == '(') {
      if (sscanf(tp->p, "(%d ,%d )%n", &p, &s, &n) < 2 || n == 0) {
        if (sscanf(tp->p, "(%d )%n", &p, &n) < 1 || n == 0) return syntax(tp, "expected decimal(p,s)");
        s = 0;
      }
      tp->p += n;
    }
    if (p < 1 || p > 38 || s < 0 || s > p) return syntax(tp, "decimal precision 1..38 and scale 0..precision");
    char b[32];
    snprintf(b, sizeof b, "decimal(%d,%d)", p, s);
    return json_write_string(w, b);
  }
  if (word(tp, "array")) {
    skip_ws(tp);
    if (*tp->p++ != '<') return tp->p--, syntax(tp, "expected '<'");
    json_write_object_begin(w);
    json_write_key(w, "type");
    json_write_string(w, "array");
    json_write_key(w, "elementType");
    int rc = parse_ctype(tp, depth + 1);
    if (rc) return rc;
    skip_ws(tp);
    if (*tp->p++ != '>') return tp->p--, syntax(tp, "expected '>'");
    json_write_key(w, "containsNull");
    json_write_bool(w, true);
    return json_write_object_end(w);
  }
  if (word(tp, "map")) {
    skip_ws(tp);
    if (*tp->p++ != '<') return tp->p--, syntax(tp, "expected '<'");
    json_write_object_begin(w);
    json_write_key(w, "type");
    json_write_string(w, "map");
    json_write_key(w, "keyType");
    int rc = parse_ctype(tp, depth + 1);
    if (rc) return rc;
    skip_ws(tp);
    if (*tp->p++ != ',') return tp->p--, syntax(tp, "expected ','");
    json_write_key(w, "valueType");
    if ((rc = parse_ctype(tp, depth + 1))) return rc;
    skip_ws(tp);
    if (*tp->p++ != '>') return tp->p--, syntax(tp, "expected '>'");
    json_write_key(w, "valueContainsNull");
    json_write_bool(w, true);
    return json_write_object_end(w);
  }
  if (word(tp, "struct")) {
    skip_ws(tp);
    if (*tp->p++ != '<') return tp->p--, syntax(tp, "expected '<'");
    int rc = parse_fields(tp, depth + 1, '>');
    if (rc) return rc;
    tp->p++;
    return 0;
  }
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
    if (word(tp, prims[i].alias)) return json_write_string(w, prims[i].name);
  return syntax(tp, "unknown type");
}

int schema_parse_text(const char *text, delta_type **out) {
  *out = NULL;
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '{') return log_schema_parse(text, strlen(text), out);
  delta_buf json = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &json, 0);
  text_parser tp = {text, p, &w};
  int rc = parse_fields(&tp, 0, 0);
  if (!rc) rc = json_writer_finish(&w);
  if (!rc) rc = log_schema_parse((const char *)json.data, json.len, out);
  buf_dispose(&json);
  return rc;
}

/* ---- Delta JSON ---- */

static int type_json(const delta_type *t, delta_json_writer *w);

static int struct_json(const delta_type *t, delta_json_writer *w) {
  json_write_object_begin(w);
  json_write_key(w, "type");
  json_write_string(w, "struct");
  json_write_key(w, "fields");
  json_write_array_begin(w);
  for (int i = 0; i < t->n_fields; i++) {
    const delta_field *f = &t->fields[i];
    json_write_object_begin(w);
    json_write_key(w, "name");
    json_write_string(w, f->name);
    json_write_key(w, "type");
    type_json(f->type, w);
    json_write_key(w, "nullable");
    json_write_bool(w, f->nullable);
    json_write_key(w, "metadata");
    const char *md = f->metadata ? f->metadata : "{}";
    json_write_raw(w, md, strlen(md));
    json_write_object_end(w);
  }
  json_write_array_end(w);
  return json_write_object_end(w);
}

static int type_json(const delta_type *t, delta_json_writer *w) {
  switch (t->kind) {
  case DT_STRUCT: return struct_json(t, w);
  case DT_ARRAY:
    json_write_object_begin(w);
    json_write_key(w, "type");
    json_write_string(w, "array");
    json_write_key(w, "elementType");
    type_json(t->element, w);
    json_write_key(w, "containsNull");
    json_write_bool(w, t->contains_null);
    return json_write_object_end(w);
  case DT_MAP:
    json_write_object_begin(w);
    json_write_key(w, "type");
    json_write_string(w, "map");
    json_write_key(w, "keyType");
    type_json(t->key, w);
    json_write_key(w, "valueType");
    type_json(t->value, w);
    json_write_key(w, "valueContainsNull");
    json_write_bool(w, t->value_contains_null);
    return json_write_object_end(w);
  case DT_DECIMAL: {
    char b[32];
    snprintf(b, sizeof b, "decimal(%d,%d)", t->precision, t->scale);
    return json_write_string(w, b);
  }
  default: {
    delta_buf name = DELTA_BUF_INIT;
    int rc = log_type_name(t, &name);
    if (!rc) rc = buf_putc(&name, 0);
    if (!rc) rc = json_write_string(w, (const char *)name.data);
    buf_dispose(&name);
    return rc;
  }
  }
}

int schema_to_json(const delta_type *st, delta_buf *out) {
  delta_json_writer w;
  json_writer_init(&w, out, 0);
  type_json(st, &w);
  return json_writer_finish(&w);
}

/* ---- from Arrow ---- */

static int arrow_type(const struct ArrowSchema *s, delta_type **out, const char *col);

static int arrow_fields(const struct ArrowSchema *s, delta_type *t, const char *col) {
  t->kind = DT_STRUCT;
  t->n_fields = (int)s->n_children;
  t->fields = mem_calloc((size_t)(s->n_children ? s->n_children : 1), sizeof *t->fields);
  if (!t->fields) return DELTA_NOMEM();
  for (int i = 0; i < t->n_fields; i++) {
    const struct ArrowSchema *c = s->children[i];
    delta_field *f = &t->fields[i];
    f->name = mem_strdup(c->name ? c->name : "");
    f->metadata = mem_strdup("{}");
    f->nullable = (c->flags & ARROW_FLAG_NULLABLE) != 0;
    if (!f->name || !f->metadata) return DELTA_NOMEM();
    int rc = arrow_type(c, &f->type, c->name ? c->name : col);
    if (rc) return rc;
  }
  return 0;
}

static int arrow_type(const struct ArrowSchema *s, delta_type **out, const char *col) {
  delta_type *t = mem_calloc(1, sizeof *t);
  if (!t) return DELTA_NOMEM();
  *out = t;
  const char *f = s->format;
  int p, sc;
  if (!strcmp(f, "u") || !strcmp(f, "U") || !strcmp(f, "vu")) t->kind = DT_STRING;
  else if (!strcmp(f, "z") || !strcmp(f, "Z") || !strcmp(f, "vz")) t->kind = DT_BINARY;
  else if (!strcmp(f, "l")) t->kind = DT_LONG;
  else if (!strcmp(f, "i")) t->kind = DT_INTEGER;
  else if (!strcmp(f, "s")) t->kind = DT_SHORT;
  else if (!strcmp(f, "c")) t->kind = DT_BYTE;
  else if (!strcmp(f, "f")) t->kind = DT_FLOAT;
  else if (!strcmp(f, "g")) t->kind = DT_DOUBLE;
  else if (!strcmp(f, "b")) t->kind = DT_BOOLEAN;
  else if (!strcmp(f, "tdD")) t->kind = DT_DATE;
  else if (!strncmp(f, "tsu:", 4)) t->kind = f[4] ? DT_TIMESTAMP : DT_TIMESTAMP_NTZ;
  else if (sscanf(f, "d:%d,%d", &p, &sc) == 2 && strchr(f, ',') && !strchr(strchr(f, ',') + 1, ',') &&
             p >= 1 && p <= 38) {
    t->kind = DT_DECIMAL;
    t->precision = p;
    t->scale = sc;
  } else if (!strcmp(f, "+s")) return arrow_fields(s, t, col);
  else if (!strcmp(f, "+l") || !strcmp(f, "+L")) {
    t->kind = DT_ARRAY;
    t->contains_null = (s->children[0]->flags & ARROW_FLAG_NULLABLE) != 0;
    return arrow_type(s->children[0], &t->element, col);
  } else if (!strcmp(f, "+m")) {
    t->kind = DT_MAP;
    const struct ArrowSchema *e = s->children[0];
    if (e->n_children != 2) return err_set(DELTA_EINVAL, "column %s: a map without key and value", col);
    t->value_contains_null = (e->children[1]->flags & ARROW_FLAG_NULLABLE) != 0;
    int rc = arrow_type(e->children[0], &t->key, col);
    return rc ? rc : arrow_type(e->children[1], &t->value, col);
  } else
    return err_set(DELTA_EUNSUPPORTED, "column %s: Arrow type '%s' has no Delta type (cast it first)", col, f);
  return 0;
}

int schema_from_arrow(const struct ArrowSchema *s, delta_type **out) {
  *out = NULL;
  if (strcmp(s->format, "+s") != 0) return err_set(DELTA_EINVAL, "input data is not a struct of columns");
  delta_type *t = mem_calloc(1, sizeof *t);
  if (!t) return DELTA_NOMEM();
  int rc = arrow_fields(s, t, "?");
  if (rc) {
    log_type_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

/* ---- copies, comparison, merge ---- */

delta_type *schema_copy(const delta_type *t) {
  if (!t) return NULL;
  delta_type *c = mem_calloc(1, sizeof *c);
  if (!c) return NULL;
  *c = *t;
  c->fields = NULL;
  c->n_fields = 0;
  c->element = c->key = c->value = NULL;
  bool ok = true;
  if (t->kind == DT_STRUCT) {
    c->fields = mem_calloc((size_t)(t->n_fields ? t->n_fields : 1), sizeof *c->fields);
    ok = c->fields != NULL;
    for (int i = 0; ok && i < t->n_fields; i++) {
      const delta_field *f = &t->fields[i];
      delta_field *g = &c->fields[i];
      c->n_fields++;
      *g = *f;
      g->name = mem_strdup(f->name);
      g->metadata = mem_strdup(f->metadata ? f->metadata : "{}");
      g->physical_name = f->physical_name ? mem_strdup(f->physical_name) : NULL;
      g->comment = f->comment ? mem_strdup(f->comment) : NULL;
      g->generation_expression = f->generation_expression ? mem_strdup(f->generation_expression) : NULL;
      g->type = schema_copy(f->type);
      ok = g->name && g->metadata && g->type && (!f->physical_name || g->physical_name) &&
           (!f->comment || g->comment) && (!f->generation_expression || g->generation_expression);
    }
  }
  if (ok && t->element) ok = (c->element = schema_copy(t->element)) != NULL;
  if (ok && t->key) ok = (c->key = schema_copy(t->key)) != NULL;
  if (ok && t->value) ok = (c->value = schema_copy(t->value)) != NULL;
  if (!ok) {
    log_type_free(c);
    return NULL;
  }
  return c;
}

static int assign_cm(delta_type *t, int64_t *max_id) {
  if (!t) return 0;
  if (t->kind == DT_ARRAY) return assign_cm(t->element, max_id);
  if (t->kind == DT_MAP) {
    int rc = assign_cm(t->key, max_id);
    return rc ? rc : assign_cm(t->value, max_id);
  }
  if (t->kind != DT_STRUCT) return 0;
  for (int i = 0; i < t->n_fields; i++) {
    delta_field *f = &t->fields[i];
    if (!f->has_field_id || !f->physical_name) {
      char uuid[37];
      write_uuid(uuid);
      if (!f->has_field_id) {
        f->has_field_id = true;
        f->field_id = ++*max_id;
      }
      if (!f->physical_name) {
        f->physical_name = mem_malloc(42);
        if (!f->physical_name) return DELTA_NOMEM();
        snprintf(f->physical_name, 42, "col-%s", uuid);
      }
      /* rewrite the metadata object with both keys (others kept) */
      const char *md = f->metadata ? f->metadata : "{}";
      size_t n = strlen(md);
      while (n && md[n - 1] != '}') n--;
      if (n == 0) return err_set(DELTA_EINVAL, "field %s: metadata is not an object", f->name);
      delta_buf b = DELTA_BUF_INIT;
      int rc = buf_append(&b, md, n - 1);
      bool empty = true;
      for (size_t k = 1; k + 1 < n; k++)
        if (!isspace((unsigned char)md[k])) empty = false;
      if (!rc) rc = buf_printf(&b, "%s\"delta.columnMapping.id\":%lld,\"delta.columnMapping.physicalName\":",
                                     empty ? "" : ",", (long long)f->field_id);
      if (!rc) rc = json_append_string(&b, f->physical_name, strlen(f->physical_name));
      if (!rc) rc = buf_puts(&b, "}");
      if (!rc) rc = buf_putc(&b, 0);
      if (rc) {
        buf_dispose(&b);
        return rc;
      }
      mem_free(f->metadata);
      f->metadata = (char *)buf_detach(&b);
    }
    int rc = assign_cm(f->type, max_id);
    if (rc) return rc;
  }
  return 0;
}

int schema_assign_column_mapping(delta_type *st, int64_t *max_id) { return assign_cm(st, max_id); }

bool schema_type_equal(const delta_type *a, const delta_type *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case DT_DECIMAL: return a->precision == b->precision && a->scale == b->scale;
  case DT_ARRAY: return schema_type_equal(a->element, b->element);
  case DT_MAP: return schema_type_equal(a->key, b->key) && schema_type_equal(a->value, b->value);
  case DT_STRUCT:
    if (a->n_fields != b->n_fields) return false;
    for (int i = 0; i < a->n_fields; i++)
      if (strcasecmp(a->fields[i].name, b->fields[i].name) != 0 ||
          !schema_type_equal(a->fields[i].type, b->fields[i].type))
        return false;
    return true;
  default: return true;
  }
}

bool schema_safe_widening(const delta_type *to, const delta_type *from) {
  static const delta_type_kind ints[] = {DT_BYTE, DT_SHORT, DT_INTEGER, DT_LONG};
  int a = -1, b = -1;
  for (int i = 0; i < 4; i++) {
    if (to->kind == ints[i]) a = i;
    if (from->kind == ints[i]) b = i;
  }
  if (a >= 0 && b >= 0) return b < a;
  if (to->kind == DT_DOUBLE) return from->kind == DT_FLOAT || (b >= 0 && b <= 2);
  return false;
}

static int type_text(const delta_type *t, char *buf, size_t n) {
  delta_buf b = DELTA_BUF_INIT;
  int rc = log_type_name(t, &b);
  snprintf(buf, n, "%.*s", rc ? 1 : (int)b.len, rc ? "?" : (const char *)b.data);
  buf_dispose(&b);
  return 0;
}

static const delta_field *find_field(const delta_type *st, const char *name) {
  for (int i = 0; i < st->n_fields; i++)
    if (strcasecmp(st->fields[i].name, name) == 0) return &st->fields[i];
  return NULL;
}

int schema_add_fields(delta_type *into, const delta_type *from, int *added) {
  if (into->kind == DT_ARRAY && from->kind == DT_ARRAY) return schema_add_fields(into->element, from->element, added);
  if (into->kind == DT_MAP && from->kind == DT_MAP) return schema_add_fields(into->value, from->value, added);
  if (into->kind != DT_STRUCT || from->kind != DT_STRUCT) return 0;
  for (int i = 0; i < from->n_fields; i++) {
    const delta_field *f = &from->fields[i];
    const delta_field *have = find_field(into, f->name);
    if (have) {
      int rc = schema_add_fields(have->type, f->type, added);
      if (rc) return rc;
      continue;
    }
    delta_field *nf = mem_realloc(into->fields, (size_t)(into->n_fields + 1) * sizeof *nf);
    if (!nf) return DELTA_NOMEM();
    into->fields = nf;
    delta_field *g = &into->fields[into->n_fields++];
    memset(g, 0, sizeof *g);
    g->name = mem_strdup(f->name);
    g->metadata = mem_strdup("{}");
    g->nullable = true;
    g->type = schema_copy(f->type);
    if (!g->name || !g->metadata || !g->type) return DELTA_NOMEM();
    (*added)++;
  }
  return 0;
}

/* Whether input type `in` can be written into table type `t`: the same
 * type, a safe widening at the top level (the data writer widens top-level
 * columns only), or structs (also as array elements and map values) whose
 * input fields each fit a table field of the same name; table fields the
 * input lacks are null, input fields the table lacks are new (*new_fields
 * counts them; an error unless merging). `path` names the column. */
static int fits(const delta_type *t, const delta_type *in, bool top, bool merge, delta_buf *path, int *new_fields) {
  if (schema_type_equal(t, in) || (top && schema_safe_widening(t, in))) return 0;
  size_t at = path->len;
  if (t->kind == DT_STRUCT && in->kind == DT_STRUCT) {
    for (int i = 0; i < in->n_fields; i++) {
      const delta_field *f = &in->fields[i];
      path->len = at;
      if (buf_putc(path, '.') || buf_puts(path, f->name) || buf_putc(path, 0)) return DELTA_NOMEM();
      path->len--;
      const delta_field *tf = find_field(t, f->name);
      if (!tf) {
        if (!merge)
          return err_set(DELTA_EINVAL,
                                 "schema mismatch: input field %s is not in the table (use --schema-mode merge to add it)",
                                 (const char *)path->data);
        (*new_fields)++;
        continue;
      }
      int rc = fits(tf->type, f->type, false, merge, path, new_fields);
      if (rc) return rc;
    }
    path->len = at;
    return 0;
  }
  if (t->kind == DT_ARRAY && in->kind == DT_ARRAY) {
    if (buf_puts(path, ".element") || buf_putc(path, 0)) return DELTA_NOMEM();
    path->len--;
    int rc = fits(t->element, in->element, false, merge, path, new_fields);
    path->len = at;
    return rc;
  }
  if (t->kind == DT_MAP && in->kind == DT_MAP && schema_type_equal(t->key, in->key)) {
    if (buf_puts(path, ".value") || buf_putc(path, 0)) return DELTA_NOMEM();
    path->len--;
    int rc = fits(t->value, in->value, false, merge, path, new_fields);
    path->len = at;
    return rc;
  }
  char a[128], b[128];
  type_text(t, a, sizeof a);
  type_text(in, b, sizeof b);
  return err_set(DELTA_EINVAL, "schema mismatch: column %s is %s in the table but %s in the input",
                         (const char *)path->data, a, b);
}

int schema_check_input(const delta_type *table, const delta_type *in, bool merge, delta_type **merged) {
  *merged = NULL;
  for (int i = 0; i < in->n_fields; i++)
    for (int j = 0; j < i; j++)
      if (strcasecmp(in->fields[j].name, in->fields[i].name) == 0)
        return err_set(DELTA_EINVAL, "input has column %s twice", in->fields[i].name);
  /* the whole input as one struct: top-level columns are its fields */
  delta_buf path = DELTA_BUF_INIT;
  int new_fields = 0, rc = 0;
  for (int i = 0; i < in->n_fields && !rc; i++) {
    const delta_field *f = &in->fields[i];
    const delta_field *tf = log_schema_find(table, f->name);
    buf_reset(&path);
    if ((rc = buf_puts(&path, tf ? tf->name : f->name)) || (rc = buf_putc(&path, 0))) break;
    path.len--;
    if (tf) rc = fits(tf->type, f->type, true, merge, &path, &new_fields);
    else if (!merge)
      rc = err_set(DELTA_EINVAL,
                           "schema mismatch: input column %s is not in the table (use --schema-mode merge to add it)",
                           f->name);
    else new_fields++;
  }
  buf_dispose(&path);
  if (rc || !new_fields) return rc;
  delta_type *m = schema_copy(table);
  int added = 0;
  if (!m) return DELTA_NOMEM();
  if ((rc = schema_add_fields(m, in, &added))) {
    log_type_free(m);
    return rc;
  }
  *merged = m;
  return 0;
}
