/* Reading Parquet checkpoint files into delta_action callbacks. */
#ifndef DELTAC_LOG_CHECKPOINT_READ_H
#define DELTAC_LOG_CHECKPOINT_READ_H

#include <stdbool.h>

#include "deltac/parquet.h"
#include "log/actions.h"
#include "log/arena.h"

/* Read a Parquet checkpoint file (classic single-file, one part of a
 * multi-part checkpoint, a V2 UUID-named parquet checkpoint, or a V2 sidecar
 * file) and call cb for every action row in file order. Only the columns
 * replay needs are read: add, remove, metaData, protocol, txn,
 * domainMetadata, sidecar, checkpointMetadata — whichever exist in the file
 * (a sidecar has only add/remove). Other columns (commitInfo written by old
 * Spark versions, add.stats_parsed, add.partitionValues_parsed) are not
 * read; rows holding none of the read actions are skipped. With
 * want_stats=false, add.stats is not read (left NULL).
 *
 * Required (null or missing: DELTA_ECORRUPT): add.path, add.size,
 * add.modificationTime, remove.path, metaData.id, protocol.minReaderVersion
 * and minWriterVersion, txn.appId and version, domainMetadata.domain,
 * sidecar.path, checkpointMetadata.version, and in a non-null
 * deletionVector its storageType (one character), pathOrInlineDv,
 * sizeInBytes and cardinality. Everything else may be NULL / has_* = false;
 * metaData.schemaString included (Spark reads it as an empty schema). Null
 * dataChange, extendedFileMetadata and removed read as false; null maps as
 * 0 entries, null map values as NULL values; tags (add, remove, sidecar,
 * checkpointMetadata) come as a JSON object text, NULL when the map is null.
 *
 * Strings and arrays in the actions live in `arena`. Errors: DELTA_ECORRUPT
 * naming the file and what is wrong (rows are counted from 0 in file
 * order); errors of the Parquet layer keep their code; a non-zero return of
 * cb stops the read and is returned as is. */
/* What to do with add.stats: skip the column, keep only numRecords (no
 * copy of the string), or keep the string (and render stats_parsed for rows
 * that have no string). `true` / `false` read as FULL / NONE. */
enum { DELTA_CKPT_STATS_NONE = 0, DELTA_CKPT_STATS_FULL = 1, DELTA_CKPT_STATS_RECORDS = 2 };

/* The checkpoint file `f` (opened by the caller, e.g. with log_parquet_open
 * through the table's storage); `name` is used in messages. */
int log_checkpoint_read_file(delta_parquet_file *f, const char *name, delta_arena *arena, int stats_mode,
                             delta_action_cb cb, void *payload);
/* The same for a local file by path (tools and tests). */
int log_checkpoint_read_parquet(const char *local_path, delta_arena *arena, int stats_mode,
                                  delta_action_cb cb, void *payload);

#endif
