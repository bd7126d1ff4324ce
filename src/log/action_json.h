/* Actions from JSON: commits (<v>.json), V2 JSON checkpoints, log compactions. */
#ifndef DELTAC_LOG_ACTION_JSON_H
#define DELTAC_LOG_ACTION_JSON_H

#include <stddef.h>

#include "json/json.h"
#include "log/actions.h"

/* Parse NDJSON text, one action per line (blank lines allowed), calling cb
 * for each action deltac knows; unknown actions and fields are ignored as
 * the spec requires. Errors name `name` and the line:
 * "00000000000000000003.json line 2: invalid JSON at byte 17: ...". */
int log_actions_parse_json(const char *name, const char *text, size_t len, delta_arena *arena,
                             delta_json_doc *doc, delta_action_cb cb, void *payload);

/* One action's object (the value of {"metaData": {...}}), named by
 * `action` ("metaData", "protocol", "add", ...), into *out: for files that
 * embed actions, such as version checksums. */
int log_action_parse_object(const char *action, delta_json_val v, delta_arena *arena, delta_action *out);

#endif
