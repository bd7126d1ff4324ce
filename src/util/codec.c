/* Page decompression: thin, size-checked wrappers over the codec libraries.
 * A page's uncompressed size is known from its header, so every codec
 * decompresses into an exact-size buffer and anything else is corruption. */
#include "util/codec.h"

#include <brotli/decode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "util/bytes.h"
#include "util/error_internal.h"

int codec_supported(int codec) {
  switch (codec) {
  case CODEC_UNCOMPRESSED: case CODEC_SNAPPY: case CODEC_GZIP: case CODEC_BROTLI:
  case CODEC_LZ4: case CODEC_ZSTD: case CODEC_LZ4_RAW:
    return 1;
  default:
    return 0;
  }
}

static int size_mismatch(const char *codec, size_t got, size_t want) {
  return err_set(DELTA_ECORRUPT, "%s page decompressed to %zu bytes, header says %zu",
                         codec, got, want);
}

static int snappy(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  size_t len;
  if (snappy_uncompressed_length((const char *)src, n, &len) != SNAPPY_OK)
    return err_set(DELTA_ECORRUPT, "SNAPPY page has a bad length header");
  if (len != want) return size_mismatch("SNAPPY", len, want);
  if (snappy_uncompress((const char *)src, n, (char *)dst, &len) != SNAPPY_OK)
    return err_set(DELTA_ECORRUPT, "SNAPPY page does not decompress");
  return 0;
}

/* GZIP pages may hold several gzip members, and some writers emit zlib or raw
 * deflate streams; inflate with automatic header detection, member by member. */
static int gzip(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return err_set(DELTA_ENOMEM, "zlib init failed");
  int rc = 0;
  zs.next_in = (Bytef *)src;
  zs.next_out = dst;
  size_t in_left = n, out_left = want;
  for (;;) {
    zs.avail_in = (uInt)(in_left > UINT32_MAX ? UINT32_MAX : in_left);
    zs.avail_out = (uInt)(out_left > UINT32_MAX ? UINT32_MAX : out_left);
    uInt ai = zs.avail_in, ao = zs.avail_out;
    int z = inflate(&zs, Z_NO_FLUSH);
    in_left -= ai - zs.avail_in;
    out_left -= ao - zs.avail_out;
    if (z == Z_STREAM_END) {
      if (in_left == 0 || out_left == 0) break;
      if (inflateReset(&zs) != Z_OK) {
        rc = err_set(DELTA_ECORRUPT, "GZIP reset failed");
        goto done;
      }
      continue;
    }
    if (z == Z_OK && (ai != zs.avail_in || ao != zs.avail_out)) continue;
    rc = err_set(DELTA_ECORRUPT, "GZIP page does not decompress (%s)",
                         zs.msg ? zs.msg : (out_left == 0 ? "more data than the header says" : "truncated"));
    goto done;
  }
  if (out_left) rc = size_mismatch("GZIP", want - out_left, want);
done:
  inflateEnd(&zs);
  return rc;
}

static int zstd(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  size_t got = ZSTD_decompress(dst, want, src, n);
  if (ZSTD_isError(got))
    return err_set(DELTA_ECORRUPT, "ZSTD page does not decompress: %s", ZSTD_getErrorName(got));
  if (got != want) return size_mismatch("ZSTD", got, want);
  return 0;
}

static int lz4_raw(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  if (n > INT32_MAX || want > INT32_MAX)
    return err_set(DELTA_ELIMIT, "LZ4 page larger than 2 GiB");
  int got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)want);
  if (got < 0) return err_set(DELTA_ECORRUPT, "LZ4_RAW page does not decompress");
  if ((size_t)got != want) return size_mismatch("LZ4_RAW", (size_t)got, want);
  return 0;
}

/* Codec LZ4 (deprecated) is Hadoop's framing: blocks of [BE32 uncompressed
 * size][BE32 compressed size][lz4 block]. Some old writers used raw LZ4
 * under this id instead, so fall back to that when the framing does not fit. */
static bool hadoop_blocks(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  size_t ip = 0, op = 0;
  while (ip + 8 <= n) {
    uint32_t usize = bytes_load_be32(src + ip), csize = bytes_load_be32(src + ip + 4);
    ip += 8;
    if (csize > n - ip || usize > want - op) return false;
    int got = LZ4_decompress_safe((const char *)src + ip, (char *)dst + op, (int)csize, (int)usize);
    if (got < 0 || (uint32_t)got != usize) return false;
    ip += csize;
    op += usize;
  }
  return ip == n && op == want;
}

static int lz4_hadoop(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  if (hadoop_blocks(src, n, dst, want)) return 0;
  return lz4_raw(src, n, dst, want);
}

int codec_lz4_frame_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  LZ4F_dctx *d = NULL;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
    return err_set(DELTA_ENOMEM, "lz4 init failed");
  size_t ip = 0, op = 0, hint = 1;
  int rc = 0;
  /* the frame must end (hint 0) exactly when the input and the output do */
  while (hint != 0) {
    size_t in_n = n - ip, out_n = want - op;
    hint = LZ4F_decompress(d, dst + op, &out_n, src + ip, &in_n, NULL);
    if (LZ4F_isError(hint)) {
      rc = err_set(DELTA_ECORRUPT, "LZ4 frame does not decompress: %s", LZ4F_getErrorName(hint));
      goto done;
    }
    ip += in_n;
    op += out_n;
    if (hint != 0 && in_n == 0 && out_n == 0) {
      rc = err_set(DELTA_ECORRUPT, "LZ4 frame is truncated or larger than stated");
      goto done;
    }
  }
  if (ip != n) rc = err_set(DELTA_ECORRUPT, "LZ4 frame is followed by %zu stray bytes", n - ip);
  else if (op != want) rc = size_mismatch("LZ4 frame", op, want);
done:
  LZ4F_freeDecompressionContext(d);
  return rc;
}

static int brotli(const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  size_t got = want;
  BrotliDecoderResult r = BrotliDecoderDecompress(n, src, &got, dst);
  if (r != BROTLI_DECODER_RESULT_SUCCESS)
    return err_set(DELTA_ECORRUPT, "BROTLI page does not decompress");
  if (got != want) return size_mismatch("BROTLI", got, want);
  return 0;
}

int codec_decompress(int codec, const uint8_t *src, size_t n, uint8_t *dst, size_t want) {
  switch (codec) {
  case CODEC_UNCOMPRESSED:
    if (n != want) return size_mismatch("UNCOMPRESSED", n, want);
    memcpy(dst, src, n);
    return 0;
  case CODEC_SNAPPY: return snappy(src, n, dst, want);
  case CODEC_GZIP: return gzip(src, n, dst, want);
  case CODEC_ZSTD: return zstd(src, n, dst, want);
  case CODEC_LZ4_RAW: return lz4_raw(src, n, dst, want);
  case CODEC_LZ4: return lz4_hadoop(src, n, dst, want);
  case CODEC_BROTLI: return brotli(src, n, dst, want);
  case CODEC_LZO: return err_set(DELTA_EUNSUPPORTED, "LZO compression is not supported");
  default: return err_set(DELTA_EUNSUPPORTED, "unknown compression codec %d", codec);
  }
}
