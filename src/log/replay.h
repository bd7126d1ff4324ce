/* Log replay: reconciling the actions of a log segment into a snapshot. */
#ifndef DELTAC_LOG_REPLAY_H
#define DELTAC_LOG_REPLAY_H

#include "log/snapshot.h"

/* Fill s->protocol, metadata, files, tombstones, txns, domains and
 * commit_info from the segment's files (newest commit first, then the
 * checkpoint). DELTA_ECORRUPT / DELTA_ENOTFOUND from a checkpoint file are
 * returned as they are, so the caller can fall back to an older one. */
int delta_replay(delta_snapshot *s, const log_segment *seg, int *failed_checkpoint);

#endif
