/*
 * The log segment: which files of _delta_log make up a given version.
 * Listing happens once per table open; a segment is a choice over it: the
 * newest usable checkpoint at or below the version plus every commit after
 * it, with no gaps.
 */
#ifndef DELTAC_LOG_SEGMENT_H
#define DELTAC_LOG_SEGMENT_H

#include <stdint.h>

#include "deltac/storage.h"
#include "log/log_files.h"

typedef struct {
  char *name;           /* file name in _delta_log */
  log_file_name info;
  int64_t mtime_ms;
  uint64_t size;
} log_entry;

typedef struct {
  log_entry *entries;   /* log files deltac understands, in name order */
  int n;
  int64_t latest;       /* newest version with a commit or checkpoint; -1 when none */
  int64_t earliest_commit; /* oldest commit present; -1 when none */
  int64_t listed_from;  /* 0: the whole _delta_log; else only files of this version and newer */
} log_listing;

/* The whole of _delta_log. */
int log_list(delta_storage *s, log_listing *out);
/* Only the files of `from_version` and newer (one listing that starts after
 * the older names, which object stores serve without reading the rest). */
int log_list_from(delta_storage *s, int64_t from_version, log_listing *out);
/* The files added since `old` was listed, appended to a copy of it: an
 * incremental refresh reads only the new names. Falls back to a full
 * listing when old's newest file is gone (the table was recreated). */
int log_list_refresh(delta_storage *s, const log_listing *old, log_listing *out);
void log_listing_dispose(log_listing *l);

/* The commit file entry for a version, or NULL. */
const log_entry *log_find_commit(const log_listing *l, int64_t version);

typedef struct {
  int64_t version;
  int64_t cp_version;          /* -1: replay from commit 0 */
  log_file_kind cp_kind;
  const log_entry *cp_files[64]; /* classic / V2: 1 file; multi-part: the parts in order */
  int n_cp;
  const log_entry **commits;   /* (cp_version, version], ascending; caller frees the array */
  int n_commits;
} log_segment;

/* Build the segment for `version` using only checkpoints at or below
 * `max_cp` (pass INT64_MAX for any). Errors: the version does not exist, a
 * commit is missing (gap), or the history before the version was cleaned
 * up with no checkpoint to start from. */
int log_segment_build(const log_listing *l, int64_t version, int64_t max_cp, log_segment *out);
void log_segment_dispose(log_segment *seg);

/* Replace runs of the segment's commits by log compaction files
 * (<x>.<y>.compacted.json: the reconciled actions of commits x..y) that
 * cover them exactly, preferring the longest, never covering the
 * segment's own version (whose commitInfo the snapshot keeps). Entries
 * stay oldest first. Returns the number of compaction files used. */
int log_segment_use_compactions(const log_listing *l, log_segment *seg);

#endif
