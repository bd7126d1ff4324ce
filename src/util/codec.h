/* Decompression for every Parquet page codec deltac reads and the LZ4
 * frames of Arrow IPC bodies: the bottom layer, so that both parquet/ and
 * arrow/ can use it. */
#ifndef DELTAC_UTIL_CODEC_H
#define DELTAC_UTIL_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* Codec ids are Parquet's CompressionCodec numbers, which the Parquet reader
 * and writer store as they are; Arrow IPC maps its own two ids onto them. */
enum {
  CODEC_UNCOMPRESSED = 0, CODEC_SNAPPY = 1, CODEC_GZIP = 2, CODEC_LZO = 3,
  CODEC_BROTLI = 4, CODEC_LZ4 = 5, CODEC_ZSTD = 6, CODEC_LZ4_RAW = 7
};

/* Decompress src[0..src_len) into dst, which must receive exactly dst_len
 * bytes (the page header's uncompressed size). DELTA_ECORRUPT when the data
 * does not decompress to exactly that size, DELTA_EUNSUPPORTED for LZO and
 * unknown codecs. */
int codec_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

/* An LZ4 *frame* (lz4frame.h; not a Parquet codec: Arrow IPC bodies use it)
 * that must decompress to exactly dst_len bytes and hold nothing after. */
int codec_lz4_frame_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

/* True when deltac can decompress `codec`. */
int codec_supported(int codec);

#endif
