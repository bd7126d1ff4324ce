/*
 * Making and changing table schemas for writes: the compact text form
 * ("id long not null, name string, tags array<string>"), the Delta JSON
 * form written to metaData.schemaString, schemas read off Arrow data,
 * column mapping (ids and physical names for every field), and the merge
 * that --schema-mode merge does.
 */
#ifndef DELTAC_LOG_SCHEMA_BUILD_H
#define DELTAC_LOG_SCHEMA_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "log/table_schema.h"
#include "util/buf.h"

/* Delta JSON ('{' first) or the compact form. Compact types: string, long
 * (bigint), integer (int), short (smallint), byte (tinyint), float, double,
 * boolean (bool), binary, date, timestamp, timestamp_ntz, decimal(p,s),
 * array<T>, map<K,V>, struct<name: T, ...>; a column may end in "not null".
 * DELTA_EINVAL naming the position on a syntax error. */
int schema_parse_text(const char *text, delta_type **out);

/* The Delta JSON of a struct type, field metadata included. */
int schema_to_json(const delta_type *st, delta_buf *out);

/* The Delta type of an Arrow schema (a struct whose children are the
 * columns). DELTA_EUNSUPPORTED naming the column for Arrow types Delta has
 * no type for (unsigned integers, time of day, nanosecond timestamps...). */
int schema_from_arrow(const struct ArrowSchema *s, delta_type **out);

/* Deep copy. */
delta_type *schema_copy(const delta_type *t);

/* Give every field (nested too) without one a column mapping id (from
 * *max_id + 1 up; *max_id is updated) and a physical name "col-<uuid>",
 * recorded in its metadata. */
int schema_assign_column_mapping(delta_type *st, int64_t *max_id);

/* True when a and b are the same type (nested fields by name, in order;
 * nullability and metadata not compared). */
bool schema_type_equal(const delta_type *a, const delta_type *b);

/* True when values of type `from` convert to `to` exactly (narrower
 * integers to wider ones or to double, float to double): such input
 * columns are accepted and converted as they are written. */
bool schema_safe_widening(const delta_type *to, const delta_type *from);

/* Compare the data's schema `in` with the table's `table`: every input
 * column must exist in the table with the same type (names matched case-
 * insensitively, or a safe widening of a top-level column); struct fields
 * (also inside arrays and map values) the same way, by name, where the
 * input may lack fields (they are null). With `merge`, new columns and new
 * struct fields are added (nullable) to a copy returned in *merged (NULL
 * when nothing was added). Errors are DELTA_EINVAL with the column (a.b.c)
 * and both types. */
int schema_check_input(const delta_type *table, const delta_type *in, bool merge, delta_type **merged);

/* Add to `into` (recursively through structs, array elements and map
 * values) the struct fields of `from` it lacks, as nullable copies;
 * *added counts them. Types of fields both have are left as they are. */
int schema_add_fields(delta_type *into, const delta_type *from, int *added);
/* A random version 4 UUID in canonical text (37 bytes with the NUL). */
void write_uuid(char out[37]);

#endif
