/*
 * Parquet value and level decoders that work on one page's bytes. They read
 * only inside [data, data+len) and fail with DELTA_ECORRUPT (message saying
 * which encoding and what was wrong) when the bytes run out or a header
 * field is out of range. None of them allocates except where noted.
 */
#ifndef DELTAC_PARQUET_ENCODING_H
#define DELTAC_PARQUET_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* --- RLE / bit-packed hybrid (levels, dictionary indices, booleans) ------- */

typedef struct {
  const uint8_t *p, *end;
  int bit_width;        /* 0..32 */
  uint32_t rle_left;    /* values left in the current RLE run */
  uint32_t rle_value;
  uint32_t bp_left;     /* values left in the current bit-packed run */
  const uint8_t *bp;    /* next group of 8 in the current bit-packed run */
  uint32_t bp_buf[8];   /* an unpacked group of 8 and how much of it is used */
  uint32_t bp_pos;
  uint32_t bp_have;
} pq_rle_decoder;

/* `data` holds runs only (no length prefix; the caller strips the 4-byte
 * length of v1 levels). */
int pq_rle_init(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width);
/* Decode exactly n values; DELTA_ECORRUPT if the runs end first. A last
 * bit-packed run cut short by the end of the data yields the values whose
 * bits are all present (asking for more is the error). Bit width 0 yields
 * zeros without reading the data. u16/u8 refuse (DELTA_EINVAL) widths over
 * 16/8. */
int pq_rle_get_u32(pq_rle_decoder *d, uint32_t *out, size_t n);
int pq_rle_get_u16(pq_rle_decoder *d, uint16_t *out, size_t n);
int pq_rle_get_u8(pq_rle_decoder *d, uint8_t *out, size_t n);
/* Dictionary indices: like get_u32 but every index must be < dict_size. */
int pq_rle_get_indices(pq_rle_decoder *d, uint32_t *out, size_t n, uint32_t dict_size);
/* Bit width 1 only: OR n values as bits into `bits` from bit 0 on (a
 * zeroed bitmap of pq_bits_bytes(n) bytes, see bits.h). */
int pq_rle_get_bits(pq_rle_decoder *d, uint8_t *bits, size_t n);

/* Legacy BIT_PACKED levels (deprecated encoding 4): values packed MSB first,
 * no runs. Decodes n values of bit_width from data[0..len). */
int pq_bitpacked_legacy_get_u16(const uint8_t *data, size_t len, int bit_width, uint16_t *out,
                                size_t n);

/* Unpack n (a multiple of 8) values of bit_width (0..64) bits, LSB first as in
 * the RLE hybrid's bit-packed runs and DELTA_BINARY_PACKED miniblocks. The
 * caller guarantees n*bit_width/8 bytes are readable at `in`; nothing past
 * them is read, so no padding is needed. pq_unpack32 keeps the low 32 bits
 * of wider values. */
void pq_unpack32(const uint8_t *in, uint32_t *out, size_t n, int bit_width);
void pq_unpack64(const uint8_t *in, uint64_t *out, size_t n, int bit_width);

/* --- PLAIN booleans ------------------------------------------------------- */

/* Unpack n bits (LSB first) starting at bit `bit_offset` of data into bytes 0/1. */
int pq_plain_bools(const uint8_t *data, size_t len, size_t bit_offset, uint8_t *out, size_t n);

/* --- DELTA_BINARY_PACKED -------------------------------------------------- */

typedef struct {
  const uint8_t *p, *end;
  uint64_t block_size, miniblocks_per_block, values_per_miniblock;
  uint64_t total_values, values_read;
  int64_t last_value;
  bool first_pending;       /* the header's first value has not been returned */
  int64_t min_delta;
  const uint8_t *bit_widths; /* of the current block */
  uint32_t miniblock_index;
  uint32_t miniblock_left;  /* values left in the current miniblock */
  uint64_t mb_buf[32];      /* decoded deltas waiting to be returned */
  uint32_t mb_pos, mb_have;
  int cur_width;
  const uint8_t *mb_data;   /* next packed bytes of the current miniblock */
} pq_dbp_decoder;

/* Reads the header. Arithmetic is 64-bit with wrap-around (bit widths up to
 * 64), so INT32 streams written with 64-bit arithmetic decode too; get_i32
 * keeps the low 32 bits. */
int pq_dbp_init(pq_dbp_decoder *d, const uint8_t *data, size_t len);
uint64_t pq_dbp_total(const pq_dbp_decoder *d);
int pq_dbp_get_i64(pq_dbp_decoder *d, int64_t *out, size_t n);
int pq_dbp_get_i32(pq_dbp_decoder *d, int32_t *out, size_t n);
/* Decode the rest of the stream (discarding values) and return the address
 * just past it; DELTA_LENGTH_BYTE_ARRAY data starts there. *end_out is set. */
int pq_dbp_skip_to_end(pq_dbp_decoder *d, const uint8_t **end_out);

/* --- byte arrays ----------------------------------------------------------
 * Byte-array decoders append to a binary builder: `offsets` holds int32
 * offsets into `data` (the caller has pushed the first 0 offset), one more
 * per value. Offsets past INT32_MAX give DELTA_ELIMIT. */
typedef struct {
  delta_buf offsets; /* int32_t[] */
  delta_buf data;
} pq_binary_builder;

/* DELTA_LENGTH_BYTE_ARRAY: whole page at init. Init walks the length stream
 * once to find where the bytes start; lengths are then decoded as values are
 * read, so the decoder allocates nothing (a tiny stream can claim billions of
 * empty values, and an eager length array would let it exhaust memory).
 * Free is still required by the contract and accepts a zeroed decoder. */
typedef struct {
  int32_t *lengths;        /* unused (NULL): lengths are decoded lazily */
  uint64_t count, pos;
  const uint8_t *p, *end;  /* concatenated bytes */
  pq_dbp_decoder lens;     /* the lengths, positioned at value `pos` */
} pq_dlba_decoder;
int pq_dlba_init(pq_dlba_decoder *d, const uint8_t *data, size_t len);
int pq_dlba_get(pq_dlba_decoder *d, pq_binary_builder *out, size_t n);
void pq_dlba_free(pq_dlba_decoder *d);

/* DELTA_BYTE_ARRAY (incremental / front coding): prefix lengths (DBP) then
 * suffixes (DELTA_LENGTH_BYTE_ARRAY). Keeps the previous value. */
typedef struct {
  int32_t *prefix_lengths;  /* unused (NULL): prefix lengths are decoded lazily */
  uint64_t count, pos;
  pq_dlba_decoder suffixes;
  delta_buf last;
  pq_dbp_decoder prefixes;  /* the prefix lengths, positioned at value `pos` */
} pq_dba_decoder;
int pq_dba_init(pq_dba_decoder *d, const uint8_t *data, size_t len);
int pq_dba_get(pq_dba_decoder *d, pq_binary_builder *out, size_t n);
/* FIXED_LEN_BYTE_ARRAY under DELTA_BYTE_ARRAY: writes n * width bytes to out;
 * every value must be exactly `width` bytes. */
int pq_dba_get_fixed(pq_dba_decoder *d, uint8_t *out, size_t n, int32_t width);
void pq_dba_free(pq_dba_decoder *d);

/* --- BYTE_STREAM_SPLIT ----------------------------------------------------
 * The page holds `total` values of `width` bytes split into `width` streams.
 * Gather values [start, start+n) into out (n*width bytes). */
int pq_bss_get(const uint8_t *data, size_t len, int32_t width, uint64_t total, uint64_t start,
               uint8_t *out, size_t n);

#endif
