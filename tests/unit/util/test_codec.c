/* Page codecs: every codec round-trips through its library's compressor,
 * Hadoop-framed LZ4 (which no corpus file carries) included, and sizes
 * that disagree with the page header are corruption. */
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "deltac/error.h"
#include "test.h"
#include "util/bytes.h"
#include "util/codec.h"

static uint8_t src[100000], comp[200000], out[100008];

static size_t compress_with(int codec, const uint8_t *in, size_t n) {
  switch (codec) {
  case CODEC_SNAPPY: {
    size_t len = sizeof comp;
    return snappy_compress((const char *)in, n, (char *)comp, &len) == SNAPPY_OK ? len : 0;
  }
  case CODEC_GZIP: {
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)n;
    zs.next_out = comp;
    zs.avail_out = sizeof comp;
    deflate(&zs, Z_FINISH);
    size_t len = zs.total_out;
    deflateEnd(&zs);
    return len;
  }
  case CODEC_ZSTD: return ZSTD_compress(comp, sizeof comp, in, n, 3);
  case CODEC_LZ4_RAW: return (size_t)LZ4_compress_default((const char *)in, (char *)comp, (int)n, sizeof comp);
  case CODEC_LZ4: {
    /* Hadoop framing: blocks of [BE32 raw size][BE32 compressed size][lz4 block]. */
    size_t pos = 0, off = 0;
    while (off < n) {
      size_t chunk = n - off < 30000 ? n - off : 30000;
      int c = LZ4_compress_default((const char *)in + off, (char *)comp + pos + 8, (int)chunk,
                                   (int)(sizeof comp - pos - 8));
      bytes_store_be32(comp + pos, (uint32_t)chunk);
      bytes_store_be32(comp + pos + 4, (uint32_t)c);
      pos += 8 + (size_t)c;
      off += chunk;
    }
    return pos;
  }
  case CODEC_BROTLI: {
    size_t len = sizeof comp;
    return BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, n, in, &len, comp) ? len : 0;
  }
  default: return 0;
  }
}

int main(void) {
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)((i * 7) % 251 ^ (i >> 9));
  static const int codecs[] = {CODEC_SNAPPY, CODEC_GZIP, CODEC_ZSTD, CODEC_LZ4_RAW, CODEC_LZ4,
                               CODEC_BROTLI};
  for (size_t k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
    int c = codecs[k];
    size_t len = compress_with(c, src, sizeof src);
    CHECK(len > 0);
    memset(out, 0, sizeof out);
    CHECK_EQ_INT(codec_decompress(c, comp, len, out, sizeof src), 0);
    CHECK(memcmp(out, src, sizeof src) == 0);
    /* The header's size is wrong: too small and too large both fail cleanly. */
    CHECK(codec_decompress(c, comp, len, out, sizeof src - 1) != 0);
    CHECK(codec_decompress(c, comp, len, out, sizeof src + 8) != 0);
    /* Truncated input fails cleanly. */
    CHECK(codec_decompress(c, comp, len / 2, out, sizeof src) != 0);
  }
  CHECK_EQ_INT(codec_decompress(CODEC_UNCOMPRESSED, src, 10, out, 10), 0);
  CHECK_EQ_INT(codec_decompress(CODEC_LZO, src, 10, out, 10), DELTA_EUNSUPPORTED);
  CHECK_EQ_INT(codec_decompress(99, src, 10, out, 10), DELTA_EUNSUPPORTED);
  TEST_MAIN_END();
}
