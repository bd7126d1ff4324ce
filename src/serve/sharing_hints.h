/* Delta Sharing query hints: `predicateHints` (SQL), `jsonPredicateHints`
 * (the protocol's JSON predicate tree) and `limitHint`, used to leave out
 * files a client does not need. They are hints: the protocol lets a server
 * return more files than they select, so anything deltac cannot use (a
 * predicate it cannot parse or bind, a file without statistics) keeps
 * files in, never drops them. */
#ifndef DELTAC_SERVE_SHARING_HINTS_H
#define DELTAC_SERVE_SHARING_HINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "json/json.h"
#include "log/snapshot.h"
#include "scan/prune.h"

typedef struct {
  expr_node *pred;      /* the usable hints, ANDed and bound; NULL: none */
  struct ArrowSchema logical;
  scan_pruner pruner;
  int64_t limit;        /* limitHint; -1: none */
  int n_ignored;        /* hints that could not be used */
} sharing_hints;

/* Read the hints of a query body (`root`, a JSON object) for snapshot `s`.
 * Returns 0 (unusable hints are counted in n_ignored) or an error for a
 * malformed body (limitHint not a non-negative integer, predicateHints not
 * an array of strings), which is the client's mistake, not a hint to skip. */
int sharing_hints_read(sharing_hints *h, delta_json_val root, const delta_snapshot *s);
/* 1: keep the file (its rows may match), 0: leave it out, <0: error. */
int sharing_hints_keep(sharing_hints *h, const delta_add *a);
/* Whether the limit hint is met by the files kept so far; call after
 * each kept file. */
bool sharing_hints_limit_reached(sharing_hints *h, const delta_add *a);
void sharing_hints_free(sharing_hints *h);

/* The filter-language text of a JSON predicate (the protocol's "JSON
 * predicates for Filtering"), into out; DELTA_EINVAL for a tree it does not
 * describe (an unknown op or value type, a wrong number of children). */
int sharing_json_predicate_text(delta_json_val pred, delta_buf *out);

#endif
