/* Declarations shared by src/expr's own files: the tokenizer the parser
 * reads, the value-expression type helpers, and the evaluators' hooks into
 * one another. No other folder includes this file. */
#ifndef DELTAC_EXPR_EXPR_INTERNAL_H
#define DELTAC_EXPR_EXPR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "expr/expr.h"
#include "expr/value.h"
#include "expr/value_funcs.h"

/* ------------------------------------------------------------- lexer.c */

typedef enum { T_END, T_NAME, T_QNAME, T_STRING, T_NUMBER, T_OP, T_LPAREN, T_RPAREN, T_COMMA, T_DOT } tok_kind;

/* The parser's state: the text, the current token and the nesting depth.
 * Copying it saves a position to come back to (one token of lookahead). */
typedef struct {
  const char *src;
  size_t pos;
  tok_kind kind;          /* the current token */
  size_t start, len;
  char op[3];
  int depth;
  bool value_mode;        /* parsing a value expression: errors say "expression:", bare current_date is a call */
} expr_lexer;

/* The next token into p; DELTA_EINVAL (a syntax error) on bad characters,
 * unterminated strings and malformed numbers. */
int expr_lex_next(expr_lexer *p);
/* A one-line syntax error naming `what` and the current token's position. */
int expr_lex_error(const expr_lexer *p, const char *what);
bool expr_lex_kw(const expr_lexer *p, const char *kw);
bool expr_lex_op(const expr_lexer *p, const char *op);
/* The token's text with its quotes removed and doubled quotes undone. */
char *expr_lex_text(const expr_lexer *p, size_t *len);

/* ---------------------------------------------------------- parser.c */

/* The date functions (EX_FUNC's fn), in the order of parser.c's table;
 * bind_value.c types them and eval_value.c applies them. */
enum {
  DF_DATE_ADD, DF_DATE_SUB, DF_ADD_MONTHS, DF_DATEDIFF, DF_CURRENT_DATE, DF_CURRENT_TIMESTAMP, DF_DATE_TRUNC,
  DF_TO_DATE, DF_UNIX_MICROS, DF_UNIX_SECONDS, DF_TIMESTAMP_MICROS, DF_TIMESTAMP_SECONDS
};

/* Parse a whole text in one mode (predicates: "filter:" errors). */
int expr_parse_mode(const char *text, bool value_mode, expr_node **out);

/* ------------------------------------------------------------- tree.c */

expr_node *expr_node_new(expr_kind k);
/* Append a to n's arguments (a is freed on failure; NULL a is DELTA_NOMEM). */
int expr_node_add(expr_node *n, expr_node *a);
/* A column's name as written, dotted, NUL-terminated in b. */
int expr_column_name(const expr_node *c, delta_buf *b);

/* ------------------------------------------------------------ types.c */

/* The value class a value expression computes with for an Arrow format,
 * with a decimal's precision and scale (an integer's digits in *prec);
 * VT_NULL for types that are only copied as they are. */
value_type expr_vtype_of_format(const char *f, int *prec, int *scale);
/* A value class as value-expression messages name it ("long", "double"...). */
const char *expr_vtype_name(value_type t);
bool expr_vtype_numeric(value_type t);
bool expr_vtype_datetime(value_type t);
/* The Arrow format a value of class t is evaluated into ("l", "g", "u",
 * "b", "tdD", "tsu:UTC", "tsu:"); NULL for decimals, intervals and NULL. */
const char *expr_vtype_format(value_type t);

/* ------------------------------------------------------------- bind.c */

/* Resolve a column reference (exact names first, then case-insensitive)
 * into c->child_index, c->format and c->schema; the messages are a
 * filter's or (value_msgs) a value expression's. */
int expr_resolve_column(expr_node *c, const struct ArrowSchema *schema, bool value_msgs);

/* ------------------------------------------------------- bind_value.c */

/* Type a value expression against schema (columns resolved, literals
 * typed, Spark's result types); messages say "expression:". */
int expr_bind_value(expr_node *e, const struct ArrowSchema *schema);
/* expr_bind_value, then evaluate into the expression's own type (a value
 * expression used as an operand of a predicate). */
int expr_bind_natural(expr_node *e, const struct ArrowSchema *schema);
/* The one-line INTERVAL misuse error. */
int expr_interval_misuse(void);

/* ------------------------------------------------------- funcs_date.c */

/* The type of date arithmetic (e->args are typed, e is EX_ARITH with a
 * date, timestamp or interval operand), or its one-line error. */
int expr_date_arith_bind(expr_node *e);
/* Its value for non-null operands. */
int expr_date_arith(const expr_node *e, const sval *a, const sval *b, sval *out);
/* A date function's (fn >= 0) type from its typed arguments. */
int expr_date_func_bind(expr_node *e);
/* Its value from the evaluated arguments (args[0], args[1]). */
int expr_date_func_eval(const expr_node *e, sval *args, delta_buf *scratch, sval *out);

/* ------------------------------------------------------------- cast.c */

/* A string value's bytes (the scratch buffer is unallocated while every
 * string so far was empty). */
const char *expr_sval_data(const delta_buf *scratch, const sval *v);
/* A non-string value as text (Spark's CAST AS STRING forms); its length. */
int expr_sval_text(const sval *v, char *b, size_t cap);
int expr_sval_to_string(delta_buf *scratch, sval *v);
double expr_sval_double(const sval *v);
/* Convert v to class `to` (decimals to decimal(p, s), HALF_UP). A value
 * that has no form there (text that is no number or date, out of range)
 * becomes NULL; the caller decides whether that is an error. */
int expr_sval_cast(delta_buf *scratch, sval *v, value_type to, int p, int s);

/* ------------------------------------------------------ eval_pred.c */

enum { TRI_F = 0, TRI_T = 1, TRI_N = 2 };
/* A bound predicate over a batch: TRI_F, TRI_T or TRI_N per row. */
int expr_eval_tri(const expr_node *e, const struct ArrowArray *batch, uint8_t *out);

/* ------------------------------------------------------ eval_value.c */

/* Evaluate a value expression bound by expr_bind_value (target_format
 * set) over a batch into *out. */
int expr_eval_value(const expr_node *e, const struct ArrowArray *batch, struct ArrowArray *out);

#endif
