/*
 * Delta table schemas: the JSON in metaData.schemaString parsed into a type
 * tree, with the field metadata the protocol gives meaning to (column
 * mapping ids and physical names, type-widening history, comments,
 * generation expressions, identity columns), and converted to Arrow.
 */
#ifndef DELTAC_LOG_TABLE_SCHEMA_H
#define DELTAC_LOG_TABLE_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "util/buf.h"

typedef enum {
  DT_STRING, DT_LONG, DT_INTEGER, DT_SHORT, DT_BYTE, DT_FLOAT, DT_DOUBLE, DT_BOOLEAN,
  DT_BINARY, DT_DATE, DT_TIMESTAMP, DT_TIMESTAMP_NTZ, DT_DECIMAL, DT_VARIANT, DT_NULL,
  DT_STRUCT, DT_ARRAY, DT_MAP
} delta_type_kind;

typedef struct delta_type delta_type;

typedef struct {
  char *name;
  delta_type *type;
  bool nullable;
  char *metadata;          /* the field's metadata object as raw JSON ("{}" when absent) */
  char *physical_name;     /* delta.columnMapping.physicalName, or NULL */
  bool has_field_id;
  int64_t field_id;        /* delta.columnMapping.id */
  char *comment;           /* "comment", or NULL */
  char *generation_expression; /* delta.generationExpression, or NULL */
  bool is_identity;        /* has delta.identity.* keys */
} delta_field;

struct delta_type {
  delta_type_kind kind;
  int precision, scale;    /* DT_DECIMAL */
  delta_field *fields;     /* DT_STRUCT */
  int n_fields;
  delta_type *element;     /* DT_ARRAY */
  bool contains_null;      /* DT_ARRAY */
  delta_type *key, *value; /* DT_MAP */
  bool value_contains_null;
};

/* Parse a schemaString. DELTA_ECORRUPT with a message naming the field for
 * malformed JSON or types; DELTA_EUNSUPPORTED for type names we do not know. */
int log_schema_parse(const char *json, size_t len, delta_type **out);
void log_type_free(delta_type *t);

/* Type name as Delta writes it ("long", "decimal(10,2)", "array<string>"...). */
int log_type_name(const delta_type *t, delta_buf *out);

/* Arrow schema for a struct type (the table's columns). Fields keep their
 * logical names; nullability and the Delta metadata travel as Arrow field
 * metadata ("delta.metadata" holds the raw JSON). */
int log_schema_to_arrow(const delta_type *st, struct ArrowSchema *out);

/* Print the schema as an indented tree ("|-- name: type (nullable = true)"). */
int log_schema_tree(const delta_type *st, delta_buf *out);

/* Find a top-level field by name (exact, then case-insensitive as Spark does). */
const delta_field *log_schema_find(const delta_type *st, const char *name);

#endif
