/* Writing an Arrow stream to stdout in the format the user chose. */
#ifndef DELTAC_CLI_OUTPUT_H
#define DELTAC_CLI_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "deltac/arrow_abi.h"

/* OUT_COUNT reads every row and prints only how many there were. */
typedef enum { OUT_TABLE, OUT_CSV, OUT_NDJSON, OUT_JSON, OUT_ARROW, OUT_COUNT } cli_format;

/* Parse --format (NULL: table on a terminal, ndjson otherwise). -1 if unknown. */
int cli_format_parse(const char *s, FILE *fp);

/* Drain `stream` into fp, at most `limit` rows (all when limit < 0).
 * Returns 0 or a negative code with the last error set. */
int cli_write_stream(struct ArrowArrayStream *stream, cli_format fmt, int64_t limit, FILE *fp);

#endif
