/*
 * Which table features a protocol turns on, for the features whose field
 * metadata means something only when they are on (features.c also holds
 * what deltac can read: snapshot_protocol_check_read in snapshot.h).
 */
#ifndef DELTAC_LOG_FEATURES_H
#define DELTAC_LOG_FEATURES_H

#include <stdbool.h>

#include "log/actions.h"

/* Generated columns: writer versions 4 to 6, or the generatedColumns
 * feature at 7. Identity columns: writer version 6, or the
 * identityColumns feature at 7. Field metadata of a feature that is off
 * means nothing (NULL: off). */
bool log_generated_enabled(const delta_protocol *p);
bool log_identity_enabled(const delta_protocol *p);

#endif
