/* deltac serve: streaming an Arrow stream as a chunked response body. */
#ifndef DELTAC_SERVE_BODY_STREAM_H
#define DELTAC_SERVE_BODY_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "deltac/arrow_abi.h"

typedef enum { SF_NDJSON, SF_CSV, SF_JSON, SF_ARROW } serve_format;

/* "ndjson" (also for NULL), "csv", "json", "arrow"; -1 otherwise. */
int serve_format_parse(const char *s, serve_format *out);
const char *serve_format_content_type(serve_format f);

typedef struct serve_body serve_body;

/* Take `stream` (moved: *stream is released-marked even on failure) and
 * prepare to render at most `limit` rows (all when < 0). Reads the schema
 * and the first batch now, so that early errors come back here. */
int serve_body_open(serve_body **out, struct ArrowArrayStream *stream, serve_format fmt, int64_t limit);
/* serve_body_fn for serve_reply_stream. */
ssize_t serve_body_read(void *ctx, char *buf, size_t max);
void serve_body_free(void *ctx);

#endif
