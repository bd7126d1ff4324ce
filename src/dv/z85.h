/*
 * Z85 (ZeroMQ RFC 32), the Base85 variant Delta uses for inline deletion
 * vectors, the UUID of a 'u' deletion vector's file name, and Variant
 * statistics: every 4 bytes (a big-endian uint32) become 5 base-85 digits,
 * most significant first, drawn from 0-9 a-z A-Z and the 23 characters
 * . - : + = ^ ! / * ? & < > ( ) [ ] { } @ % $ #
 */
#ifndef DELTAC_DV_Z85_H
#define DELTAC_DV_Z85_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Decode `len` characters, appending len / 5 * 4 bytes to `out`. The input
 * must be a whole number of 5-character groups made of alphabet characters
 * only, each group worth at most 0xFFFFFFFF; anything else is DELTA_ECORRUPT
 * ("invalid Z85 ... at position N"). One extension: the LAST group may be a
 * padded tail as the Rust `z85` crate writes it (found in tables written by
 * delta-rs / kernel-rs tests): k = 1..3 '#' characters, then 5 - k digits
 * giving 4 - k bytes (big endian), so the output is k bytes shorter.
 * On failure out->len is unchanged. */
int dv_z85_decode(delta_buf *out, const char *s, size_t len);

/* Encode `len` bytes, appending ceil(len / 4) * 5 characters to `out` (no
 * NUL). A length that is not a multiple of 4 is padded with zero bytes, as
 * Delta writers do for inline deletion vectors (whose sizeInBytes keeps the
 * unpadded length); the decoder then yields those zeros too. On failure
 * out->len is restored. */
int dv_z85_encode(delta_buf *out, const uint8_t *data, size_t len);

#endif
