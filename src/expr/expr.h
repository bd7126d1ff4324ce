/*
 * The expression language: one grammar for predicates (`--filter`,
 * `--where`, MERGE's ON and clause conditions, CHECK constraints, the
 * server's filter and Delta Sharing hints) and value expressions (UPDATE's
 * and MERGE's SET, generation expressions; value_eval.h), parsed into one
 * tree of expr_node, bound to a schema and then evaluated: predicates on
 * Arrow batches (exact row filtering), on column statistics (file and
 * row-group skipping, skip.h) and on partition values; values into Arrow
 * arrays. docs/internals/expressions.md has the whole picture.
 *
 *   expr_node *e;
 *   expr_parse("country = 'NL' AND amount * 2 >= 100", &e); // DELTA_EINVAL + message on syntax errors
 *   expr_bind(e, &arrow_schema);                          // columns resolved, literals typed
 *   ... expr_eval_batch / expr_may_match ...
 *   expr_free(e);
 *
 * Grammar (keywords case-insensitive):
 *   expr      := or
 *   or        := and (OR and)*
 *   and       := not (AND not)*
 *   not       := NOT not | predicate
 *   predicate := value [cmp value | [NOT] IN (value, ...) | IS [NOT] NULL
 *                       | [NOT] BETWEEN value AND value | [NOT] LIKE 'pattern']
 *   cmp       := = | == | != | <> | < | <= | > | >= | <=>
 *   value     := additive ('||' additive)*
 *   additive  := term (('+' | '-') term)*
 *   term      := unary (('*' | '/' | '%') unary)*
 *   unary     := '-' unary | primary             (- followed by a number is a negative literal)
 *   primary   := literal | column | ( expr )
 *              | CASE WHEN expr THEN expr [WHEN ...] [ELSE expr] END
 *              | COALESCE(expr, ...) | CAST(expr AS type) | function(expr, ...)
 *   literal   := 123 | -1.5 | 1e9 | 'text' ('' escapes ') | TRUE | FALSE | NULL
 *              | DATE 'YYYY-MM-DD' | TIMESTAMP '...' | TIMESTAMP_NTZ '...' | X'0aff'
 *              | INTERVAL n unit [n unit ...]
 *   column    := name(.name)* where name is [A-Za-z_][A-Za-z0-9_]* or `any text` (`` escapes `)
 * A keyword is a keyword only where it can be one: a column may be named
 * date, case or interval (CASE needs WHEN after it, DATE a quoted text).
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
  EX_LIKE,      /* args[0] LIKE pattern (a string literal in args[1]) */
  /* value expressions (typed by the value binder, bind_value.c) */
  EX_ARITH,     /* args[0] arith args[1] */
  EX_NEG,       /* -args[0] */
  EX_CASE,      /* args: cond, value, cond, value, ..., else value (a NULL literal when absent) */
  EX_COALESCE,  /* args[0..n) */
  EX_CAST,      /* args[0] AS cast_to */
  EX_FUNC       /* text(args[0..n)): fn or xfn says which */
} expr_kind;

/* Whether a node is one of the predicate kinds (boolean by construction). */
static inline bool expr_is_predicate(expr_kind k) { return k >= EX_CMP && k <= EX_LIKE; }

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
  LIT_NULL, LIT_BOOL, LIT_NUMBER, LIT_STRING, LIT_DATE, LIT_TIMESTAMP, LIT_TIMESTAMP_NTZ, LIT_BINARY,
  LIT_INTERVAL  /* iv_months, iv_days, iv_us */
} literal_kind;

typedef struct expr_node expr_node;
struct expr_node {
  expr_kind kind;
  cmp_op op;
  char arith;             /* EX_ARITH: + - * / % and '|' for || */
  bool negated;           /* IS NOT NULL, NOT LIKE (NOT IN / NOT BETWEEN become EX_NOT) */
  expr_node **args;
  int n_args;
  /* EX_LITERAL */
  literal_kind lit;
  char *text;             /* the literal's text (decoded: quotes and hex undone); EX_FUNC: the name */
  size_t text_len;
  int64_t iv_months, iv_days, iv_us; /* LIT_INTERVAL */
  /* EX_CAST: the target type (an integer type's decimal digits in cast_prec) */
  value_type cast_to;
  int cast_prec, cast_scale;
  /* EX_FUNC: a date function of bind_value.c (fn >= 0) or value_funcs.h's xfn */
  int fn, xfn;
  int trunc_unit;         /* date_trunc's unit, known at parse time */
  /* EX_COLUMN */
  char **path;            /* the names as written */
  int depth;
  /* set by expr_bind */
  expr_value value;       /* EX_LITERAL: the typed value (borrows text) */
  value_type type;        /* the value class (VT_BOOL for a predicate) */
  int scale;              /* decimal scale */
  int *child_index;       /* EX_COLUMN: child index at each depth in the bound schema */
  const char *format;     /* EX_COLUMN: the leaf's Arrow format (in the bound schema) */
  const struct ArrowSchema *schema; /* EX_COLUMN: the leaf's schema */
  /* set by the value binder: a decimal's precision (an integer's decimal
   * digits when it meets a decimal: Spark's byte 3, short 5, int 10, long
   * 20, an integer literal its own digits) */
  int prec;
  bool int_lit;           /* an integer literal (its digits are its precision) */
  int64_t li;             /* integer, date, timestamp literals; current_date/current_timestamp once bound */
  double ld;
  __int128 ldec;
  bool has_const;         /* vexpr_bind: a literal parsed once as the target column's type */
  expr_value konst;
  const char *target_format; /* the type a value is evaluated into */
  char *target_name;      /* the column it is for (messages) */
  char nat_format[24];    /* a decimal's natural format, "d:p,s" */
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
