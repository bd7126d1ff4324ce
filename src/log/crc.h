/*
 * Version checksum files (<v>.crc): a writer's summary of the table state
 * at a version — file count, total size, protocol, metadata, and, for
 * newer writers, the in-commit timestamp and deletion-vector totals.
 *
 * They are optional and only ever a cross-check or a shortcut: deltac reads
 * protocol and metadata from one when it needs nothing else of a version
 * (the table properties of the latest version for time travel by
 * timestamp), and `deltac info` verifies the replayed state against it.
 */
#ifndef DELTAC_LOG_CRC_H
#define DELTAC_LOG_CRC_H

#include <stdbool.h>
#include <stdint.h>

#include "log/actions.h"
#include "log/segment.h"

struct delta_snapshot;

typedef struct {
  int64_t table_size_bytes, num_files, num_metadata, num_protocol;
  bool has_ict;
  int64_t ict_ms;                  /* inCommitTimestampOpt */
  bool has_deleted_records, has_dvs;
  int64_t num_deleted_records;     /* numDeletedRecordsOpt */
  int64_t num_dvs;                 /* numDeletionVectorsOpt */
  bool has_metadata, has_protocol;
  delta_metadata metadata;         /* strings in the arena given */
  delta_protocol protocol;
} log_crc;

/* The checksum file of `version` in the listing, parsed. DELTA_ENOTFOUND
 * when the listing has none; DELTA_ECORRUPT (naming the file) when it is
 * not a checksum. */
int log_crc_read(delta_storage *s, const log_listing *l, int64_t version, delta_arena *arena, log_crc *out);

/* The text of checksum file `name`. */
int log_crc_parse(const char *name, const char *text, size_t len, delta_arena *arena, log_crc *out);

typedef enum { LOG_CRC_ABSENT, LOG_CRC_VERIFIED, LOG_CRC_MISMATCH, LOG_CRC_UNREADABLE } log_crc_status;

typedef struct {
  log_crc_status status;
  char file[32];       /* the checksum file's name */
  char detail[256];    /* what differs, or why it could not be read */
} log_crc_check;

/* What a checksum says of a snapshot's live files: their bytes, how many
 * have a deletion vector and the rows those delete. */
void log_crc_totals(const struct delta_snapshot *s, int64_t *bytes, int64_t *dvs, int64_t *deleted);

/* Compare the snapshot's replayed state (live files, their bytes and DV
 * totals, protocol and metadata) with its version's checksum file. Only
 * allocation failures are errors; everything else is the check's status. */
int log_crc_verify(const struct delta_snapshot *s, log_crc_check *out);

#endif
