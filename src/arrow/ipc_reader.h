/*
 * Arrow IPC *stream* format reader: the inverse of ipc_writer.h, used by
 * `deltac write --format arrow` and `merge --format arrow` to take a stream
 * on stdin or from a file.
 *
 * The reader streams: opening reads the Schema message, and each get_next
 * reads messages off the source until the next RecordBatch, so memory holds
 * one batch (its body, and the arrays decoded from it) plus the
 * dictionaries. A malformed stream, or one that ends inside a message, fails
 * where it is found: at open (the schema) or from get_next, whose
 * get_last_error then gives one line. Every flatbuffer offset, vector length
 * and body buffer is checked against the message that holds it (malformed →
 * DELTA_ECORRUPT); unions, views, run-end encoding and big-endian streams
 * give DELTA_EUNSUPPORTED naming the field.
 *
 * Dictionary-encoded fields (at any depth) are decoded to plain arrays of
 * their value type, which is also the type the schema reports:
 * DictionaryBatch messages set a dictionary, replace it, or (isDelta) extend
 * it, and indices of any integer type are taken through it (null index →
 * null). Bodies compressed with LZ4_FRAME or ZSTD (BodyCompression, BUFFER
 * method) are decompressed buffer by buffer. Each batch's arrays own
 * 8-aligned memory. Both the continuation-marker framing and the legacy
 * (pre-0.15) 4-byte length prefix are accepted; the stream ends at the
 * end-of-stream marker or at EOF between messages.
 */
#ifndef DELTAC_ARROW_IPC_READER_H
#define DELTAC_ARROW_IPC_READER_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

/* Read up to n bytes into buf: the count (0 at end of input), or a DELTA_E*
 * code after err_set. */
typedef int64_t (*arrow_ipc_read_fn)(void *ctx, void *buf, size_t n);

/* Open a stream (a struct "+s" schema, one struct array per record batch)
 * over `read`; the Schema message is read now. close_ctx (may be NULL) is
 * called with ctx when the stream is released, also when opening fails.
 * `name` (may be NULL) is put in front of get_next's errors. */
int arrow_ipc_open(arrow_ipc_read_fn read, void *ctx, void (*close_ctx)(void *ctx), const char *name,
                   struct ArrowArrayStream *out);

/* Over a file descriptor (stdin, a file, a pipe); closed on release when
 * own_fd. */
int arrow_ipc_open_fd(int fd, int own_fd, const char *name, struct ArrowArrayStream *out);

/* Over `len` bytes in memory, which must outlive the stream. */
int arrow_ipc_read(const uint8_t *data, size_t len, struct ArrowArrayStream *out);

#endif
