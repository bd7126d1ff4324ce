/* Log replay: reconciling the actions of a log segment into a snapshot. */
#ifndef DELTAC_LOG_REPLAY_H
#define DELTAC_LOG_REPLAY_H

#include "log/snapshot.h"

/* Fill s->protocol, metadata, files, tombstones, txns, domains and
 * commit_info from the segment's files (newest commit first, then the
 * checkpoint). DELTA_ECORRUPT / DELTA_ENOTFOUND from a checkpoint file are
 * returned as they are, so the caller can fall back to an older one. */
int log_replay(delta_snapshot *s, const log_segment *seg, int *failed_checkpoint);

/* Replay seg's commits (those after base->version) on top of `base`, whose
 * reconciled state takes the checkpoint's place: no file is read but the
 * new commits. Strings may point into base's arena, so s must hold a
 * reference to base. */
int log_replay_incremental(delta_snapshot *s, const delta_snapshot *base, const log_segment *seg);

#endif
