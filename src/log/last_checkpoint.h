/* _delta_log/_last_checkpoint: where the newest checkpoint is, as a hint. */
#ifndef DELTAC_LOG_LAST_CHECKPOINT_H
#define DELTAC_LOG_LAST_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/storage.h"

/* The version _last_checkpoint names, or -1 when the file is missing,
 * unreadable, not JSON or without a sane version. Never an error: the hint
 * only lets a reader list from that version instead of listing the whole
 * log; whoever uses it must still check that the checkpoint is there. */
int64_t log_last_checkpoint_hint(delta_storage *s);

/* The version in a _last_checkpoint text, or -1 (the same leniency). */
int64_t log_last_checkpoint_parse(const char *text, size_t len);

#endif
