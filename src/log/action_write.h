/* Actions as the log writes them: one JSON object per action, from the
 * structs of log/actions.h (commits and checkpoints share these). */
#ifndef DELTAC_LOG_ACTION_WRITE_H
#define DELTAC_LOG_ACTION_WRITE_H

#include <stdbool.h>

#include "json/json_writer.h"
#include "log/actions.h"

/* {"add":{...}} with dataChange as given. */
int action_add_json(delta_json_writer *w, const delta_add *a, bool data_change);
/* {"remove":{...}} */
int action_remove_json(delta_json_writer *w, const delta_remove *r);
/* A remove of a live file (extendedFileMetadata: partition values, size,
 * stats kept so that change feeds and vacuum need nothing else). */
int action_remove_of_add_json(delta_json_writer *w, const delta_add *a, int64_t deletion_ts, bool data_change);
/* {"metaData":{...}}; schema_string/configuration override m's when given. */
int action_metadata_json(delta_json_writer *w, const delta_metadata *m);
int action_protocol_json(delta_json_writer *w, const delta_protocol *p);
int action_txn_json(delta_json_writer *w, const delta_txn *t);
int action_domain_json(delta_json_writer *w, const delta_domain_metadata *d);

#endif
