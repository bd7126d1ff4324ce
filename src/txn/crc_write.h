/* Version checksum files written after a commit (<v>.crc; the spec's
 * "Version Checksum File"): the state of the table at the new version —
 * file count and bytes, deletion-vector totals, protocol, metadata,
 * transactions, domains and the in-commit timestamp — so readers can check
 * their replay (`deltac info` does) or take protocol and metadata without
 * one. Optional in the protocol: a checksum that cannot be written costs
 * nothing but the shortcut, and never fails the commit it describes. */
#ifndef DELTAC_TXN_CRC_WRITE_H
#define DELTAC_TXN_CRC_WRITE_H

#include <stdint.h>

#include "log/snapshot.h"
#include "util/buf.h"

/* The checksum JSON of snapshot `s` (one line, no newline). */
int crc_render(const delta_snapshot *s, delta_buf *out);

/* After `version` was committed: replay it (from `read`, the snapshot the
 * transaction read, reading only the new commits; or, for a new table,
 * from `table`) and write its checksum unless one exists. When another
 * commit already followed ours, nothing is written (the state at our
 * version is no longer at hand). Errors are swallowed. */
void crc_write_after_commit(delta_table *table, const delta_snapshot *read, int64_t version);

#endif
