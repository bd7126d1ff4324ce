/*
 * Predicates: the filter language of `--filter`, `--where` and the
 * server's `filter=` parameter, parsed into a tree, bound to a schema and
 * then evaluated three ways: on Arrow batches (exact row filtering), on
 * column statistics (file and row-group skipping) and on partition values.
 *
 *   expr_node *e;
 *   expr_parse("country = 'NL' AND amount >= 100", &e);   // DELTA_EINVAL + message on syntax errors
 *   expr_bind(e, &arrow_schema);                          // columns resolved, literals typed
 *   ... expr_eval_batch / expr_skip ...
 *   expr_free(e);
 *
 * Grammar (keywords case-insensitive):
 *   expr      := or
 *   or        := and (OR and)*
 *   and       := not (AND not)*
 *   not       := NOT not | predicate
 *   predicate := operand [cmp operand | [NOT] IN (operand, ...) | IS [NOT] NULL
 *                         | [NOT] BETWEEN operand AND operand | [NOT] LIKE 'pattern']
 *   cmp       := = | == | != | <> | < | <= | > | >= | <=>
 *   operand   := literal | column | ( expr )
 *   literal   := 123 | -1.5 | 1e9 | 'text' ('' escapes ') | TRUE | FALSE | NULL
 *              | DATE 'YYYY-MM-DD' | TIMESTAMP '...' | TIMESTAMP_NTZ '...' | X'0aff'
 *   column    := name(.name)* where name is [A-Za-z_][A-Za-z0-9_]* or `any text` (`` escapes `)
 */
#ifndef DELTAC_EXPR_EXPR_H
#define DELTAC_EXPR_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "expr/value.h"
#include "util/buf.h"

typedef enum {
  EX_LITERAL,
  EX_COLUMN,
  EX_CMP,       /* args[0] op args[1] */
  EX_AND,       /* args[0..n) */
  EX_OR,
  EX_NOT,       /* args[0] */
  EX_IN,        /* args[0] IN (args[1..n)) */
  EX_IS_NULL,   /* args[0] */
  EX_LIKE       /* args[0] LIKE pattern (a string literal in args[1]) */
} expr_kind;

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_NULL_SAFE_EQ } cmp_op;

/* The operator with its operands swapped: `a < b` is `b > a`. */
static inline cmp_op cmp_op_swap(cmp_op op) {
  switch (op) {
  case CMP_LT: return CMP_GT;
  case CMP_LE: return CMP_GE;
  case CMP_GT: return CMP_LT;
  case CMP_GE: return CMP_LE;
  default: return op;
  }
}

/* How a literal was written, so binding can read its text as the type of
 * the column it meets (1.10 against a decimal(5,2) is exact, against a
 * double it is a double). */
typedef enum {
  LIT_NULL, LIT_BOOL, LIT_NUMBER, LIT_STRING, LIT_DATE, LIT_TIMESTAMP, LIT_TIMESTAMP_NTZ, LIT_BINARY
} literal_kind;

typedef struct expr_node expr_node;
struct expr_node {
  expr_kind kind;
  cmp_op op;
  bool negated;           /* IS NOT NULL, NOT LIKE (NOT IN / NOT BETWEEN become EX_NOT) */
  expr_node **args;
  int n_args;
  /* EX_LITERAL */
  literal_kind lit;
  char *text;             /* the literal's text (decoded: quotes and hex undone) */
  size_t text_len;
  /* EX_COLUMN */
  char **path;            /* the names as written */
  int depth;
  /* set by expr_bind */
  expr_value value;       /* EX_LITERAL: the typed value (borrows text) */
  value_type type;        /* EX_LITERAL, EX_COLUMN: the value class */
  int scale;              /* decimal scale */
  int *child_index;       /* EX_COLUMN: child index at each depth in the bound schema */
  const char *format;     /* EX_COLUMN: the leaf's Arrow format (in the bound schema) */
};

/* Parse. DELTA_EINVAL with a message naming the position on bad syntax. */
int expr_parse(const char *text, expr_node **out);
void expr_free(expr_node *e);
/* Deep copy of an unbound expression. */
int expr_copy(const expr_node *e, expr_node **out);

/* Qualifying column references before binding (MERGE resolves an
 * unqualified `v` to t.v or s.v): fn gets each reference's first name and
 * sets *prefix to a name to put in front of it (NULL: leave it), or
 * returns an error. */
typedef int (*expr_qualify_fn)(void *ctx, const char *first, const char **prefix);
int expr_qualify(expr_node *e, expr_qualify_fn fn, void *ctx);
/* Put `prefix` in front of a path of `*depth` names (for both languages). */
int expr_path_prepend(char ***path, int *depth, const char *prefix);

/* Resolve columns against a struct schema ("+s": the batch's columns;
 * exact names first, then case-insensitive as Spark does) and type the
 * literals. DELTA_EINVAL naming the column or the mismatch otherwise.
 * The schema must outlive the bound expression (formats are borrowed). */
int expr_bind(expr_node *e, const struct ArrowSchema *schema);

/* The distinct top-level column names the expression refers to (as
 * resolved in the bound schema: `names` points into it). Returns the count
 * written (at most max). */
int expr_top_columns(const expr_node *e, const struct ArrowSchema *schema, const char **names, int max);

/* Exact evaluation over a batch of the bound schema: keep[i] = 1 when row
 * i satisfies the predicate (TRUE, not NULL). */
int expr_eval_batch(const expr_node *e, const struct ArrowArray *batch, uint8_t *keep);

/* Render a bound or unbound expression back as text (for plans and errors). */
int expr_to_text(const expr_node *e, delta_buf *out);

#endif
