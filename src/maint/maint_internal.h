/* What the maintenance operations share: storage keys of log paths,
 * progress reports. (Committing is txn/txn.h's.) */
#ifndef DELTAC_MAINT_MAINT_INTERNAL_H
#define DELTAC_MAINT_MAINT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/maintenance.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "util/buf.h"

/* The storage key of a path from the log (add/remove path, DV file) into
 * out (NUL-terminated); 1 when the path lies outside the table (no key),
 * 0 with a key, <0 on error. */
int maint_path_key(const delta_snapshot *s, const char *path, delta_buf *out);
/* The DV file key of a (u or p) deletion vector inside the table; 1 when
 * the DV is inline or outside the table. */
int maint_dv_key(const delta_snapshot *s, const delta_dv *dv, delta_buf *out);

/* VACUUM LITE (vacuum_lite.c): fn gets the key of every data file and DV
 * file the log's removes older than `cutoff` name (the snapshot's
 * tombstones and every commit up to its version still in _delta_log; keys
 * may repeat); *first_commit is the oldest commit read (-1: none). */
typedef int (*lite_key_fn)(void *ctx, const char *key);
int vacuum_lite_keys(const delta_snapshot *s, int64_t cutoff, lite_key_fn fn, void *ctx, int64_t *first_commit);

/* Finish the action JSON w wrote into b (unless rc is an error) and end
 * its line. */
int maint_line_end(delta_buf *b, int rc, delta_json_writer *w);

static inline void maint_progress(delta_progress_cb cb, void *ctx, const delta_progress *p) {
  if (cb) cb(ctx, p);
}

#endif
