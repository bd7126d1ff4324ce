/*
 * The logical shape of a Parquet file: the flat SchemaElement list turned
 * into a tree of struct / list / map / leaf nodes, each with the definition
 * and repetition levels that place it, and the Arrow type it reads as.
 *
 * Legacy list layouts are normalised here (2-level lists, repeated
 * primitives, "array" / "_tuple" element groups, MAP_KEY_VALUE), following
 * the format's backward-compatibility rules, so the readers below see one
 * shape of list.
 */
#ifndef DELTAC_PARQUET_SCHEMA_H
#define DELTAC_PARQUET_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "parquet/metadata.h"

typedef enum { PQN_LEAF, PQN_STRUCT, PQN_LIST, PQN_MAP } pq_node_kind;

/* How a leaf's physical values become Arrow values. */
typedef enum {
  PQC_BOOL,          /* BOOLEAN -> "b" */
  PQC_COPY,          /* same width, bytes as they are */
  PQC_I32_TO_I8,     /* INT32 -> 1 byte (INT(8)/UINT(8)) */
  PQC_I32_TO_I16,    /* INT32 -> 2 bytes */
  PQC_DEC_I32,       /* INT32 decimal -> decimal128 */
  PQC_DEC_I64,       /* INT64 decimal -> decimal128 */
  PQC_DEC_BE,        /* big-endian two's complement bytes (FLBA/BYTE_ARRAY) -> decimal128/256 */
  PQC_INT96_TS,      /* INT96 (nanos of day + Julian day) -> timestamp[us] */
  PQC_BINARY,        /* BYTE_ARRAY -> "u"/"z" */
  PQC_FIXED          /* FLBA -> "w:N" (also float16 "e") */
} pq_conversion;

typedef struct pq_node {
  pq_node_kind kind;
  int id;                     /* preorder index, 0 = root */
  char *name;                 /* logical (Arrow) field name */
  bool nullable;
  int16_t def_null;           /* def level at which this node's value is present */
  int16_t def_elem;           /* LIST/MAP: def level at which an element exists */
  int16_t rep;                /* LIST/MAP: repetition level of the repeated field */
  int16_t rep_enc;            /* repetition level of the enclosing list; 0 at top */
  struct pq_node *parent;
  struct pq_node **children;
  int n_children;
  /* leaves */
  int leaf_index;             /* column index within a row group */
  int16_t max_def, max_rep;
  int physical;               /* PQ_* physical type */
  int32_t type_length;
  pq_conversion conv;
  int out_width;              /* bytes per Arrow value for fixed-width outputs */
  int32_t dec_scale, dec_precision;
  bool is_string;             /* BYTE_ARRAY read as utf8 */
  const pq_schema_element *elem; /* the defining element (for the leaf: itself) */
  /* Arrow format string and extension name ("" when none) */
  char format[32];
  const char *extension;
} pq_node;

typedef struct {
  pq_node *root;              /* a STRUCT whose children are the top-level columns */
  pq_node **leaves;           /* by leaf index */
  int n_leaves;
  int n_nodes;
} pq_schema;

/* Build the tree. DELTA_ECORRUPT / DELTA_EUNSUPPORTED with a message naming
 * the column when the schema is inconsistent or uses something unreadable. */
int pq_schema_build(const pq_file_metadata *md, pq_schema **out);
void pq_schema_free(pq_schema *s);

/* Arrow schema (a struct "+s") for the subtree of `root` in which only nodes
 * with `selected[leaf_index]` leaves appear (all when selected is NULL). */
int pq_schema_to_arrow(const pq_schema *s, const bool *selected, struct ArrowSchema *out);

/* Dotted path of a node ("a.b.c", logical names). Caller frees. */
char *pq_node_path(const pq_node *n);

#endif
