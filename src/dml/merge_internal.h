/* MERGE's join: the source read into one array and hashed on the ON
 * condition's equalities t.col = s.col, probed with target rows (or, with
 * no equality, a nested loop); and MERGE's schema evolution. */
#ifndef DELTAC_DML_MERGE_INTERNAL_H
#define DELTAC_DML_MERGE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"
#include "deltac/dml.h"
#include "log/table_schema.h"
#include "expr/expr.h"
#include "expr/skip.h"
#include "scan/prune.h"
#include "util/buf.h"

typedef enum { KEY_HASH_EXACT, KEY_HASH_DOUBLE, KEY_HASH_NONE } key_hash_mode;

typedef struct {
  int t_col, s_col;            /* top-level column indexes in the target's / source's schema */
  value_type t_type, s_type;
  int t_scale, s_scale;
  const char *t_fmt, *s_fmt;
  key_hash_mode mode;          /* how both sides hash to agree on equal values */
  expr_value *set;             /* pruning: the distinct source values, sorted (NULL: not kept) */
  int64_t n_set;
  expr_node *column;           /* "`col` IS NULL" bound to the target's schema (with set) */
} merge_key;

/* A range conjunct of the ON condition, t.col OP s.x (OP one of < <= >
 * >= =, t.col a top-level column), for file pruning without equalities:
 * the source's smallest and largest non-null x bound what t.col must
 * reach. */
typedef struct {
  cmp_op op;                   /* as seen from t: t.col op s.x */
  int s_col;
  value_type s_type;
  int s_scale;
  bool any;                    /* some x is not null (else no pair passes) */
  expr_value lo, hi;           /* the source's min and max of x */
  expr_node *column;           /* "`col` IS NULL" bound to the target's schema */
} merge_range;

typedef struct {
  const struct ArrowSchema *source_schema; /* "+s" */
  const struct ArrowArray *source;         /* every source row, offset 0 */
  merge_key *keys;
  int n_keys;
  bool residual;               /* the ON condition has more than the equalities */
  uint64_t *hashes;            /* per source row */
  int64_t *head, *next;        /* chains of source rows per bucket; -1 ends */
  uint64_t mask;
  int64_t n_keyed;             /* source rows without a null key */
  bool nested;                 /* no equality: every (target, source) pair is tested against ON */
  merge_range *ranges;         /* nested: range conjuncts for pruning */
  int n_ranges;
} merge_join;

/* The equalities of `on` (bound to the joined schema {t, s}: a column
 * node's child_index[0] is 0 for t, 1 for s), checked and typed. With
 * none (OR of equalities, ranges, constants) j->nested is set: the join
 * becomes a nested loop (merge_nested_pairs). */
int merge_join_keys(merge_join *j, const expr_node *on, const struct ArrowSchema *joined);
/* Hash every source row (rows with a null key never match). */
int merge_join_build(merge_join *j);
void merge_join_free(merge_join *j);

/* The source rows whose keys equal target row `row` of `batch` (logical
 * columns): appended to *pairs_t / *pairs_s (grown with *cap). */
int merge_join_probe(const merge_join *j, const struct ArrowArray *batch, int64_t row, int64_t **pairs_t,
                     int64_t **pairs_s, int64_t *n, int64_t *cap);

/* For every key of a type both sides share (integers, strings, dates,
 * timestamps): the sorted distinct source values, to prune files. */
int merge_join_keysets(merge_join *j, const struct ArrowSchema *logical);
/* "`name` IS NULL" parsed and bound against `logical`: its args[0] is the
 * bound column node that file pruning (scan_file_column_check) takes. */
int merge_column_is_null(const char *name, const struct ArrowSchema *logical, expr_node **out);
/* 0 when, for some such key, no source value lies within the file's
 * [min, max] of it (its partition value, for a partition column: an exact
 * IN-list), so the file holds no match; 1 when it may; <0 on error. */
int merge_join_file_may_match(const merge_join *j, const scan_pruner *p, const scan_prune_input *in);

/* A pair list: target row, source row. */
int merge_pairs_push(int64_t **pairs_t, int64_t **pairs_s, int64_t *n, int64_t *cap, int64_t t, int64_t s);

/* A struct array over borrowed children a (t) and, when not NULL, b (s):
 * the joined rows ON and clause conditions are evaluated on. */
typedef struct {
  struct ArrowArray arr;
  struct ArrowArray *kids[2];
  const void *bufs[1];
} merge_joined;
const struct ArrowArray *merge_join_rows(merge_joined *j, struct ArrowArray *a, struct ArrowArray *b, int64_t n);

/* Nested loop (j->nested): the pairs of live target rows (live[r]) of
 * `batch` (schema `tschema`, logical columns) and source rows for which
 * `on` (bound to `joined`) holds, in target row then source row order.
 * Pairs are tested in blocks, so memory is a block besides the result. */
int merge_nested_pairs(const merge_join *j, const expr_node *on, const struct ArrowSchema *tschema,
                       const struct ArrowArray *batch, const uint8_t *live, int64_t **pairs_t, int64_t **pairs_s,
                       int64_t *n, int64_t *cap);
/* Nested: the range conjuncts of `on` with the source's min/max, each
 * bound to the target's schema `logical` for pruning. */
int merge_nested_ranges(merge_join *j, const expr_node *on, const struct ArrowSchema *joined,
                        const struct ArrowSchema *logical);

/* Schema evolution: what merge_evolve_schema looks at. */
typedef struct {
  const delta_type *target;              /* the table's schema */
  const struct ArrowSchema *tlogical;    /* its Arrow form */
  const struct ArrowSchema *source;      /* "+s" */
  const struct ArrowSchema *j_both, *j_t, *j_s; /* joined schemas over tlogical */
  const char *talias;
  expr_qualify_fn qualify;               /* resolves unqualified names in SET values */
  void *qctx[3];                         /* its context per clause group (delta_merge_when) */
} merge_evolve_input;

/* The target's schema with what the clauses bring: with UPDATE SET * or
 * INSERT *, the source's columns and struct fields it lacks (nullable, at
 * the end, as write's --schema-mode merge adds them); with explicit SETs,
 * the new columns they assign (typed by their values). A source type
 * wider than the table's is DELTA_EUNSUPPORTED. *merged is NULL when
 * nothing is added. */
int merge_evolve_schema(const merge_evolve_input *in, const delta_merge_clause *cl, int n, delta_type **merged);

/* Read a stream to the end into one array (offset 0) and its schema. */
int merge_read_source(struct ArrowArrayStream *in, struct ArrowSchema *schema, struct ArrowArray *out);

#endif
