/*
 * Classic single-file checkpoints (<v>.checkpoint.parquet) and the
 * _last_checkpoint hint. The checkpoint holds, as the spec requires, the
 * protocol, the metadata, every live add (stats as JSON), the removes whose
 * deletionTimestamp is within delta.deletedFileRetentionDuration (default a
 * week), every txn and every live domainMetadata, in the column layout
 * Spark writes (struct columns add, remove, metaData, protocol, txn,
 * domainMetadata). Rows are rendered as JSON and built into Arrow batches
 * of 8192 rows, so memory is a batch plus the snapshot. The file is put
 * whole (never visible half-written); _last_checkpoint is written after it.
 * Tables with v2Checkpoint get UUID-named V2 checkpoints, the file actions
 * in one Parquet sidecar; with the table property
 * deltac.checkpoint.v2Format=json the checkpoint itself is a JSON file
 * (one action a line, as the spec allows for UUID-named checkpoints).
 */
#ifndef DELTAC_TXN_CHECKPOINT_WRITE_H
#define DELTAC_TXN_CHECKPOINT_WRITE_H

#include "deltac/table.h"

/* Write the checkpoint of s (no log cleanup: the caller runs it after). */
int checkpoint_write_snapshot(delta_table *t, const delta_snapshot *s);

#endif
