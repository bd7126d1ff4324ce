/*
 * Arrow IPC *stream* format reader: the inverse of ipc_writer.h, used by
 * `deltac write --format arrow` to take a stream on stdin.
 *
 * The whole stream is decoded when it is opened, so a malformed or
 * unsupported stream fails before anything is written: every flatbuffer
 * offset, vector length and body buffer is checked against the message that
 * holds it (malformed → DELTA_ECORRUPT), and dictionary-encoded fields,
 * unions, views, run-end encoding, compressed bodies and big-endian streams
 * give DELTA_EUNSUPPORTED naming the field. Each batch's arrays own 8-aligned
 * copies of their buffers. Both the continuation-marker framing and the
 * legacy (pre-0.15) 4-byte length prefix are accepted; the stream ends at the
 * end-of-stream marker or at EOF between messages.
 */
#ifndef DELTAC_ARROW_IPC_READER_H
#define DELTAC_ARROW_IPC_READER_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/arrow_abi.h"

/* Decode `len` bytes of an IPC stream into `out` (a struct "+s" schema and
 * one struct array per record batch). `data` stays the caller's. */
int arrow_ipc_read(const uint8_t *data, size_t len, struct ArrowArrayStream *out);

#endif
