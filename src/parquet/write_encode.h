/*
 * Value and level encoders of the Parquet writer: the RLE/bit-packed hybrid
 * (levels, dictionary indices, booleans), PLAIN booleans and
 * DELTA_BINARY_PACKED. Each appends to a delta_buf and returns 0 or
 * DELTA_ENOMEM/DELTA_ELIMIT.
 */
#ifndef DELTAC_PARQUET_WRITE_ENCODE_H
#define DELTAC_PARQUET_WRITE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Bits needed for values 0..max (0 for max 0). */
int pq_bit_width(uint64_t max);

/* RLE/bit-packed hybrid of n values of `width` bits (no length prefix).
 * Runs of 8 or more equal values become RLE runs; the rest is bit-packed in
 * groups of 8 (the last group padded with zeros). */
int pq_rle_encode_u16(delta_buf *out, const uint16_t *v, size_t n, int width);
int pq_rle_encode_u32(delta_buf *out, const uint32_t *v, size_t n, int width);
int pq_rle_encode_u8(delta_buf *out, const uint8_t *v, size_t n, int width);

/* PLAIN booleans (bit-packed, LSB first) from one byte (0/1) per value. */
int pq_plain_bool_encode(delta_buf *out, const uint8_t *v, size_t n);

/* DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks. Deltas wrap
 * in the column's width (32 or 64 bits), as readers decode them. */
int pq_delta_encode_i32(delta_buf *out, const int32_t *v, size_t n);
int pq_delta_encode_i64(delta_buf *out, const int64_t *v, size_t n);

#endif
