/*
 * Values of commitInfo.operationParameters the way Spark writes them, so
 * that the history of a table reads the same whichever engine wrote it.
 */
#ifndef DELTAC_LOG_COMMIT_PARAMS_H
#define DELTAC_LOG_COMMIT_PARAMS_H

#include "json/json_writer.h"

/* operationParameters.predicate: a JSON array of the predicate texts, in a
 * string ("[\"x > 1\"]"; "[]" when `where` is NULL). */
int log_predicate_param(const char *where, delta_json_writer *w);

#endif
