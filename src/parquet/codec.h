/* Page decompression for every Parquet codec deltac reads. */
#ifndef DELTAC_PARQUET_CODEC_H
#define DELTAC_PARQUET_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* Decompress src[0..src_len) into dst, which must receive exactly dst_len
 * bytes (the page header's uncompressed size). DELTA_ECORRUPT when the data
 * does not decompress to exactly that size, DELTA_EUNSUPPORTED for LZO and
 * unknown codecs. */
int pq_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

/* An LZ4 *frame* (lz4frame.h; not a Parquet codec: Arrow IPC bodies use it)
 * that must decompress to exactly dst_len bytes and hold nothing after. */
int pq_lz4_frame_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

/* True when deltac can decompress `codec`. */
int pq_codec_supported(int codec);

#endif
