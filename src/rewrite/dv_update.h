/*
 * Deleting rows of a file without rewriting it: a new deletion vector for
 * the file (its old DV's rows and this transaction's), written inline in
 * the log when small, else into the commit's one DV file, and the add line
 * that carries it; also the remove line of a file rewritten or dropped
 * whole. DELETE, UPDATE and MERGE use these; the decision whether to use
 * a DV at all is theirs.
 */
#ifndef DELTAC_REWRITE_DV_UPDATE_H
#define DELTAC_REWRITE_DV_UPDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "deltac/table.h"
#include "dv/dv.h"
#include "log/actions.h"
#include "util/buf.h"

/* DVs whose serialized bitmap is at most this many bytes (a handful of
 * deleted rows) are written inline in the log, unless the table property
 * below is "false" (for readers without inline-DV support). */
#define REWRITE_INLINE_DV_MAX_BYTES 64
#define REWRITE_DV_INLINE_PROPERTY "deltac.deletionVectors.inline"

/* delta.enableDeletionVectors on and the deletionVectors feature present. */
bool rewrite_dv_enabled(const delta_snapshot *s);
/* Whether small DVs may be written inline (REWRITE_DV_INLINE_PROPERTY). */
bool rewrite_dv_inline(const delta_snapshot *s);

/* stats JSON with "tightBounds":false (for a file with a new DV); empty
 * out when stats is NULL. */
int rewrite_stats_loose(const char *stats, delta_buf *out);

/* A remove line for `a` (dataChange true) appended to actions. */
int rewrite_remove_action(delta_buf *actions, const delta_add *a, int64_t now);
/* The add line of `a` with a new deletion vector: `fresh` (this
 * transaction's rows; the old DV's rows are added to it), inline when it is
 * small and `inline_ok`, else appended to the commit's DV file `dv_file`
 * named by `dv_path`; stats get tightBounds false. */
int rewrite_add_with_dv(const delta_add *a, const delta_dv_bitmap *old, delta_bitmap64 *fresh, bool inline_ok,
                        delta_buf *dv_file, delta_buf *dv_path, int64_t now, delta_buf *actions);
/* Put the commit's DV file (nothing when it is empty). */
int rewrite_dv_file_put(delta_storage *storage, const delta_buf *dv_path, const delta_buf *dv_file);

#endif
