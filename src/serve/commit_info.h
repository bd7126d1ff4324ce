/* deltac serve: reading a commit's commitInfo (operation, parameters,
 * metrics, in-commit timestamp) and writing it as JSON. */
#ifndef DELTAC_SERVE_COMMIT_INFO_H
#define DELTAC_SERVE_COMMIT_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include "json/json.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "util/time_parse.h"

/* Reused from commit to commit: the file's text, the parsed line, the
 * commitInfo object (absent when the commit has none). */
typedef struct {
  delta_json_doc *doc;
  delta_buf text;
  delta_json_val ci;
  int64_t timestamp_ms;  /* in-commit timestamp, else the file's modification time */
} serve_commit_info;

int serve_commit_info_init(serve_commit_info *info);
void serve_commit_info_dispose(serve_commit_info *info);
/* Read commit `e` of table t. The values stay valid until the next read. */
int serve_commit_info_read(delta_table *t, const log_entry *e, serve_commit_info *out);
bool serve_commit_info_has(const serve_commit_info *info);
/* Members "version", "timestamp", "operation" (and with `full` "parameters",
 * "metrics", "engine_info", "user_name") into an open JSON object. */
void serve_commit_info_json(delta_json_writer *w, const serve_commit_info *info, int64_t version, bool full,
                            delta_buf *tmp);

#endif
