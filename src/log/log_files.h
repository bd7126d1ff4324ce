/* Names of the files in _delta_log and what they say about themselves. */
#ifndef DELTAC_LOG_LOG_FILES_H
#define DELTAC_LOG_LOG_FILES_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
  LOG_OTHER,              /* not a log file deltac reads */
  LOG_COMMIT,             /* <v>.json */
  LOG_CHECKPOINT,         /* <v>.checkpoint.parquet */
  LOG_CHECKPOINT_PART,    /* <v>.checkpoint.<part>.<parts>.parquet */
  LOG_CHECKPOINT_V2_JSON, /* <v>.checkpoint.<uuid>.json */
  LOG_CHECKPOINT_V2_PARQUET, /* <v>.checkpoint.<uuid>.parquet */
  LOG_COMPACTION,         /* <v>.<v2>.compacted.json */
  LOG_CRC                 /* <v>.crc */
} log_file_kind;

typedef struct {
  log_file_kind kind;
  int64_t version;
  int32_t part, parts;     /* LOG_CHECKPOINT_PART */
  int64_t end_version;     /* LOG_COMPACTION */
} log_file_name;

/* Classify a file name (no directory). Versions are 20 digits as the spec
 * says; other digit counts are not log files. */
log_file_name log_file_parse(const char *name);

/* "<20-digit version>.json" into buf (at least 26 bytes). */
void log_commit_name(int64_t version, char *buf);

#endif
