/*
 * Arrow IPC *stream* format writer: a Schema message, one RecordBatch message
 * per batch, then the end-of-stream marker. Readable by pyarrow, DuckDB and
 * the npm apache-arrow package (`deltac ... --format arrow`).
 *
 * Types: null, bool, all integers, float16/32/64, utf8/binary (and large),
 * fixed-size binary, decimal128/256, date32/64, time32/64, timestamp (with
 * optional time zone), duration, interval, list, large list, fixed-size list,
 * struct and map. Dictionary-encoded, union, run-end and view types are
 * rejected with DELTA_EUNSUPPORTED. Field names, nullability and metadata
 * (e.g. ARROW:extension:name) are carried into the IPC schema.
 *
 * Sliced arrays (offset != 0) are written correctly: bitmaps are shifted and
 * offsets rebased into scratch memory when needed; otherwise the caller's
 * buffers are handed to the sink without copying. Bodies are uncompressed.
 */
#ifndef DELTAC_ARROW_IPC_WRITER_H
#define DELTAC_ARROW_IPC_WRITER_H

#include <stddef.h>

#include "deltac/arrow_abi.h"

/* Receives the stream's bytes in order; returns 0 or a negative DELTA_E*
 * code, which the writer returns unchanged. `data` is valid only during the
 * call. */
typedef int (*arrow_ipc_sink)(void *ctx, const void *data, size_t len);

typedef struct arrow_ipc_writer arrow_ipc_writer;

/* Check `schema` (a struct "+s" whose children are the columns), remember it
 * (the caller may release it afterwards) and write the Schema message. On
 * failure *out is NULL. */
int arrow_ipc_writer_open(arrow_ipc_writer **out, const struct ArrowSchema *schema,
                          arrow_ipc_sink sink, void *ctx);

/* Write one RecordBatch. `batch` is a struct array matching the schema; its
 * own validity is ignored (a record batch has none), its offset and length
 * select the rows. The batch stays owned by the caller. */
int arrow_ipc_writer_write(arrow_ipc_writer *w, const struct ArrowArray *batch);

/* Write the end-of-stream marker. Further writes fail with DELTA_EINVAL. */
int arrow_ipc_writer_close(arrow_ipc_writer *w);

/* Free the writer (NULL is fine); does not write the end-of-stream marker. */
void arrow_ipc_writer_free(arrow_ipc_writer *w);

#endif
