/* Delta schema JSON → type tree → Arrow. */
#include "log/table_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "json/json.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MAX_DEPTH 100

static void field_dispose(delta_field *f) {
  mem_free(f->name);
  log_type_free(f->type);
  mem_free(f->metadata);
  mem_free(f->physical_name);
  mem_free(f->comment);
  mem_free(f->generation_expression);
}

void log_type_free(delta_type *t) {
  if (!t) return;
  for (int i = 0; i < t->n_fields; i++) field_dispose(&t->fields[i]);
  mem_free(t->fields);
  log_type_free(t->element);
  log_type_free(t->key);
  log_type_free(t->value);
  mem_free(t);
}

static int parse_type(delta_json_val v, delta_type **out, int depth, delta_buf *tmp);

static const struct {
  const char *name;
  delta_type_kind kind;
} primitives[] = {
    {"string", DT_STRING},   {"long", DT_LONG},       {"integer", DT_INTEGER},
    {"short", DT_SHORT},     {"byte", DT_BYTE},       {"float", DT_FLOAT},
    {"double", DT_DOUBLE},   {"boolean", DT_BOOLEAN}, {"binary", DT_BINARY},
    {"date", DT_DATE},       {"timestamp", DT_TIMESTAMP}, {"timestamp_ntz", DT_TIMESTAMP_NTZ},
    {"variant", DT_VARIANT}, {"void", DT_NULL},
};

static int parse_primitive(const char *s, delta_type *t) {
  for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
    if (strcmp(s, primitives[i].name) == 0) {
      t->kind = primitives[i].kind;
      return 0;
    }
  int p, sc;
  char tail;
  if (strcmp(s, "decimal") == 0) { /* Spark's default */
    t->kind = DT_DECIMAL;
    t->precision = 10;
    t->scale = 0;
    return 0;
  }
  if (sscanf(s, "decimal(%d,%d)%c", &p, &sc, &tail) == 2 || sscanf(s, "decimal(%d, %d)%c", &p, &sc, &tail) == 2) {
    if (p < 1 || p > 38 || sc < 0 || sc > p)
      return err_set(DELTA_ECORRUPT, "schema: bad decimal type '%s'", s);
    t->kind = DT_DECIMAL;
    t->precision = p;
    t->scale = sc;
    return 0;
  }
  return err_set(DELTA_EUNSUPPORTED, "schema: unknown type '%s'", s);
}

static int dup_string(delta_json_val v, char **out, delta_buf *tmp) {
  int rc = json_string(v, tmp);
  if (rc) return rc;
  *out = mem_strndup((const char *)tmp->data, tmp->len);
  return *out ? 0 : DELTA_NOMEM();
}

static int parse_field(delta_json_val fv, delta_field *f, int depth, delta_buf *tmp) {
  if (json_typeof(fv) != DELTA_JSON_OBJECT)
    return err_set(DELTA_ECORRUPT, "schema: a struct field is not an object");
  delta_json_val name = json_get(fv, "name"), type = json_get(fv, "type");
  if (json_typeof(name) != DELTA_JSON_STRING)
    return err_set(DELTA_ECORRUPT, "schema: a struct field has no name");
  int rc = dup_string(name, &f->name, tmp);
  if (rc) return rc;
  delta_json_val nullable = json_get(fv, "nullable");
  f->nullable = true;
  if (json_typeof(nullable) == DELTA_JSON_BOOL) json_bool(nullable, &f->nullable);
  if (json_typeof(type) == DELTA_JSON_ABSENT)
    return err_set(DELTA_ECORRUPT, "schema: field %s has no type", f->name);
  rc = parse_type(type, &f->type, depth + 1, tmp);
  if (rc) return err_prefix("field %s", f->name);
  delta_json_val md = json_get(fv, "metadata");
  if (json_typeof(md) == DELTA_JSON_OBJECT) {
    const char *raw;
    size_t n;
    json_raw(md, &raw, &n);
    f->metadata = mem_strndup(raw, n);
    if (!f->metadata) return DELTA_NOMEM();
    delta_json_val pn = json_get(md, "delta.columnMapping.physicalName");
    if (json_typeof(pn) == DELTA_JSON_STRING && (rc = dup_string(pn, &f->physical_name, tmp))) return rc;
    delta_json_val id = json_get(md, "delta.columnMapping.id");
    if (json_typeof(id) == DELTA_JSON_NUMBER) {
      if (json_int64(id, &f->field_id)) return err_prefix("field %s: column mapping id", f->name);
      f->has_field_id = true;
    }
    delta_json_val c = json_get(md, "comment");
    if (json_typeof(c) == DELTA_JSON_STRING && (rc = dup_string(c, &f->comment, tmp))) return rc;
    delta_json_val g = json_get(md, "delta.generationExpression");
    if (json_typeof(g) == DELTA_JSON_STRING && (rc = dup_string(g, &f->generation_expression, tmp))) return rc;
    f->is_identity = json_typeof(json_get(md, "delta.identity.start")) != DELTA_JSON_ABSENT ||
                     json_typeof(json_get(md, "delta.identity.step")) != DELTA_JSON_ABSENT;
  } else {
    f->metadata = mem_strdup("{}");
    if (!f->metadata) return DELTA_NOMEM();
  }
  return 0;
}

static int parse_type(delta_json_val v, delta_type **out, int depth, delta_buf *tmp) {
  if (depth > MAX_DEPTH) return err_set(DELTA_EUNSUPPORTED, "schema: nested deeper than %d", MAX_DEPTH);
  delta_type *t = mem_calloc(1, sizeof *t);
  if (!t) return DELTA_NOMEM();
  int rc = 0;
  if (json_typeof(v) == DELTA_JSON_STRING) {
    if ((rc = json_string(v, tmp)) != 0) goto done;
    rc = parse_primitive((const char *)tmp->data, t);
    goto done;
  }
  if (json_typeof(v) != DELTA_JSON_OBJECT) {
    rc = err_set(DELTA_ECORRUPT, "schema: a type is neither a name nor an object");
    goto done;
  }
  delta_json_val kind = json_get(v, "type");
  if (json_string_eq(kind, "struct")) {
    t->kind = DT_STRUCT;
    delta_json_val fields = json_get(v, "fields");
    if (json_typeof(fields) != DELTA_JSON_ARRAY) {
      rc = err_set(DELTA_ECORRUPT, "schema: struct without a fields array");
      goto done;
    }
    int n = json_len(fields);
    t->fields = mem_calloc((size_t)n + 1, sizeof *t->fields);
    if (!t->fields) { rc = DELTA_NOMEM(); goto done; }
    delta_json_val fv = json_first(fields);
    for (int i = 0; i < n; i++, fv = json_next(fv)) {
      t->n_fields = i + 1;
      if ((rc = parse_field(fv, &t->fields[i], depth, tmp)) != 0) goto done;
    }
    for (int i = 0; i < t->n_fields; i++)
      for (int j = 0; j < i; j++)
        if (strcasecmp(t->fields[i].name, t->fields[j].name) == 0) {
          rc = err_set(DELTA_ECORRUPT, "schema: duplicate field name %s", t->fields[i].name);
          goto done;
        }
  } else if (json_string_eq(kind, "array")) {
    t->kind = DT_ARRAY;
    t->contains_null = true;
    delta_json_val cn = json_get(v, "containsNull");
    if (json_typeof(cn) == DELTA_JSON_BOOL) json_bool(cn, &t->contains_null);
    rc = parse_type(json_get(v, "elementType"), &t->element, depth + 1, tmp);
  } else if (json_string_eq(kind, "map")) {
    t->kind = DT_MAP;
    t->value_contains_null = true;
    delta_json_val cn = json_get(v, "valueContainsNull");
    if (json_typeof(cn) == DELTA_JSON_BOOL) json_bool(cn, &t->value_contains_null);
    if ((rc = parse_type(json_get(v, "keyType"), &t->key, depth + 1, tmp)) != 0) goto done;
    rc = parse_type(json_get(v, "valueType"), &t->value, depth + 1, tmp);
  } else {
    rc = err_set(DELTA_ECORRUPT, "schema: unknown complex type");
  }
done:
  if (rc) {
    log_type_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

int log_schema_parse(const char *json, size_t len, delta_type **out) {
  *out = NULL;
  delta_json_doc *doc = NULL;
  delta_buf tmp = DELTA_BUF_INIT;
  int rc;
  if ((rc = json_doc_new(&doc)) != 0) goto done;
  if ((rc = json_parse(doc, json, len)) != 0) goto done;
  if ((rc = parse_type(json_root(doc), out, 0, &tmp)) != 0) goto done;
  if ((*out)->kind != DT_STRUCT) {
    log_type_free(*out);
    *out = NULL;
    rc = err_set(DELTA_ECORRUPT, "schema: the table schema is not a struct");
  }
done:
  json_doc_free(doc);
  buf_dispose(&tmp);
  return rc;
}

int log_type_name(const delta_type *t, delta_buf *out) {
  switch (t->kind) {
  case DT_DECIMAL: return buf_printf(out, "decimal(%d,%d)", t->precision, t->scale);
  case DT_ARRAY: {
    int rc;
    if ((rc = buf_puts(out, "array<")) != 0) return rc;
    if ((rc = log_type_name(t->element, out)) != 0) return rc;
    return buf_putc(out, '>');
  }
  case DT_MAP: {
    int rc;
    if ((rc = buf_puts(out, "map<")) != 0) return rc;
    if ((rc = log_type_name(t->key, out)) != 0) return rc;
    if ((rc = buf_putc(out, ',')) != 0) return rc;
    if ((rc = log_type_name(t->value, out)) != 0) return rc;
    return buf_putc(out, '>');
  }
  case DT_STRUCT: {
    int rc;
    if ((rc = buf_puts(out, "struct<")) != 0) return rc;
    for (int i = 0; i < t->n_fields; i++) {
      if (i && (rc = buf_putc(out, ',')) != 0) return rc;
      if ((rc = buf_printf(out, "%s:", t->fields[i].name)) != 0) return rc;
      if ((rc = log_type_name(t->fields[i].type, out)) != 0) return rc;
    }
    return buf_putc(out, '>');
  }
  default:
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
      if (primitives[i].kind == t->kind) return buf_puts(out, primitives[i].name);
    return buf_puts(out, "?");
  }
}

static int type_to_arrow(const delta_type *t, const char *name, bool nullable, const char *metadata,
                         struct ArrowSchema *out) {
  int64_t flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  char fmt[32];
  int rc = 0;
  const char *f = NULL; /* the format of a type without children */
  switch (t->kind) {
  case DT_STRING: f = "u"; break;
  case DT_LONG: f = "l"; break;
  case DT_INTEGER: f = "i"; break;
  case DT_SHORT: f = "s"; break;
  case DT_BYTE: f = "c"; break;
  case DT_FLOAT: f = "f"; break;
  case DT_DOUBLE: f = "g"; break;
  case DT_BOOLEAN: f = "b"; break;
  case DT_BINARY: f = "z"; break;
  case DT_DATE: f = "tdD"; break;
  case DT_TIMESTAMP: f = "tsu:UTC"; break;
  case DT_TIMESTAMP_NTZ: f = "tsu:"; break;
  case DT_NULL: f = "n"; break;
  case DT_DECIMAL:
    snprintf(fmt, sizeof fmt, "d:%d,%d", t->precision, t->scale);
    f = fmt;
    break;
  case DT_VARIANT: /* the shredding-free physical form: struct<metadata: binary, value: binary> */
    if ((rc = arrow_schema_new(out, "+s", name, flags, 2)) != 0) goto done;
    if ((rc = arrow_schema_new(out->children[0], "z", "metadata", 0, 0)) != 0) goto done;
    if ((rc = arrow_schema_new(out->children[1], "z", "value", 0, 0)) != 0) goto done;
    break;
  case DT_STRUCT:
    if ((rc = arrow_schema_new(out, "+s", name, flags, t->n_fields)) != 0) goto done;
    for (int i = 0; i < t->n_fields; i++)
      if ((rc = type_to_arrow(t->fields[i].type, t->fields[i].name, t->fields[i].nullable, t->fields[i].metadata,
                              out->children[i])) != 0)
        goto done;
    break;
  case DT_ARRAY:
    if ((rc = arrow_schema_new(out, "+l", name, flags, 1)) != 0) goto done;
    if ((rc = type_to_arrow(t->element, "element", t->contains_null, NULL, out->children[0])) != 0) goto done;
    break;
  case DT_MAP:
    if ((rc = arrow_schema_new(out, "+m", name, flags, 1)) != 0) goto done;
    if ((rc = arrow_schema_new(out->children[0], "+s", "entries", 0, 2)) != 0) goto done;
    if ((rc = type_to_arrow(t->key, "key", false, NULL, out->children[0]->children[0])) != 0) goto done;
    if ((rc = type_to_arrow(t->value, "value", t->value_contains_null, NULL, out->children[0]->children[1])) != 0)
      goto done;
    break;
  }
  bool nested = t->kind == DT_VARIANT || t->kind == DT_STRUCT || t->kind == DT_ARRAY || t->kind == DT_MAP;
  if (!nested && (rc = arrow_schema_new(out, f, name, flags, 0)) != 0) goto done;
  if (metadata && strcmp(metadata, "{}") != 0) {
    const char *k[] = {"delta.metadata"};
    const char *v[] = {metadata};
    rc = arrow_schema_set_metadata(out, k, v, 1);
  }
done:
  if (rc && out->release) out->release(out);
  return rc;
}

int log_schema_to_arrow(const delta_type *st, struct ArrowSchema *out) {
  return type_to_arrow(st, "", false, NULL, out);
}

static int put_indent(delta_buf *out, int depth) {
  int rc;
  for (int d = 0; d < depth; d++)
    if ((rc = buf_puts(out, " |   ")) != 0) return rc;
  return 0;
}

static bool has_children(const delta_type *t) {
  return t->kind == DT_STRUCT || t->kind == DT_ARRAY || t->kind == DT_MAP;
}

static int tree(const delta_type *t, int depth, delta_buf *out) {
  int rc;
  if (t->kind == DT_STRUCT) {
    for (int i = 0; i < t->n_fields; i++) {
      const delta_field *f = &t->fields[i];
      if ((rc = put_indent(out, depth)) != 0) return rc;
      if ((rc = buf_printf(out, " |-- %s: ", f->name)) != 0) return rc;
      if (f->type->kind == DT_STRUCT) rc = buf_puts(out, "struct");
      else if (f->type->kind == DT_ARRAY) rc = buf_puts(out, "array");
      else if (f->type->kind == DT_MAP) rc = buf_puts(out, "map");
      else rc = log_type_name(f->type, out);
      if (rc) return rc;
      if ((rc = buf_printf(out, " (nullable = %s)", f->nullable ? "true" : "false")) != 0) return rc;
      if (f->physical_name && (rc = buf_printf(out, " [physical name %s]", f->physical_name)) != 0)
        return rc;
      if (f->has_field_id && (rc = buf_printf(out, " [id %lld]", (long long)f->field_id)) != 0) return rc;
      if (f->generation_expression &&
          (rc = buf_printf(out, " [generated as %s]", f->generation_expression)) != 0)
        return rc;
      if (f->is_identity && (rc = buf_puts(out, " [identity]")) != 0) return rc;
      if (f->comment && (rc = buf_printf(out, " -- %s", f->comment)) != 0) return rc;
      if ((rc = buf_putc(out, '\n')) != 0) return rc;
      if ((rc = tree(f->type, depth + 1, out)) != 0) return rc;
    }
  } else if (t->kind == DT_ARRAY) {
    if ((rc = put_indent(out, depth)) != 0) return rc;
    if ((rc = buf_puts(out, " |-- element: ")) != 0) return rc;
    if ((rc = log_type_name(t->element, out)) != 0) return rc;
    if ((rc = buf_printf(out, " (containsNull = %s)\n", t->contains_null ? "true" : "false")) != 0) return rc;
    if (has_children(t->element)) return tree(t->element, depth + 1, out);
  } else if (t->kind == DT_MAP) {
    if ((rc = put_indent(out, depth)) != 0) return rc;
    if ((rc = buf_puts(out, " |-- key: ")) != 0) return rc;
    if ((rc = log_type_name(t->key, out)) != 0) return rc;
    if ((rc = buf_putc(out, '\n')) != 0) return rc;
    if ((rc = put_indent(out, depth)) != 0) return rc;
    if ((rc = buf_puts(out, " |-- value: ")) != 0) return rc;
    if ((rc = log_type_name(t->value, out)) != 0) return rc;
    if ((rc = buf_printf(out, " (valueContainsNull = %s)\n", t->value_contains_null ? "true" : "false")) != 0)
      return rc;
    if (has_children(t->value)) return tree(t->value, depth + 1, out);
  }
  return 0;
}

int log_schema_tree(const delta_type *st, delta_buf *out) {
  int rc = buf_puts(out, "root\n");
  return rc ? rc : tree(st, 0, out);
}

const delta_field *log_schema_find(const delta_type *st, const char *name) {
  for (int i = 0; i < st->n_fields; i++)
    if (strcmp(st->fields[i].name, name) == 0) return &st->fields[i];
  for (int i = 0; i < st->n_fields; i++)
    if (strcasecmp(st->fields[i].name, name) == 0) return &st->fields[i];
  return NULL;
}
