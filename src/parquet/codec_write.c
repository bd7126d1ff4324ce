/* Page compression for the Parquet writer: SNAPPY, GZIP, ZSTD, LZ4_RAW, or
 * a copy for UNCOMPRESSED. ZSTD and GZIP contexts live as long as the
 * writer. */
#include <lz4.h>
#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "parquet/metadata.h"
#include "parquet/write_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

int pqw_codec_init(pqw_codec *c, int codec, int level) {
  memset(c, 0, sizeof *c);
  c->codec = codec;
  c->level = level;
  if (codec == CODEC_ZSTD) {
    c->zstd = ZSTD_createCCtx();
    if (!c->zstd) return DELTA_NOMEM();
    ZSTD_CCtx_setParameter(c->zstd, ZSTD_c_compressionLevel, level ? level : 3);
  } else if (codec == CODEC_GZIP) {
    z_stream *z = mem_calloc(1, sizeof *z);
    if (!z) return DELTA_NOMEM();
    if (deflateInit2(z, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      mem_free(z);
      return err_set(DELTA_ENOMEM, "gzip: deflateInit2 failed");
    }
    c->gzip = z;
  }
  return 0;
}

void pqw_codec_dispose(pqw_codec *c) {
  if (c->zstd) ZSTD_freeCCtx(c->zstd);
  if (c->gzip) {
    deflateEnd(c->gzip);
    mem_free(c->gzip);
  }
  memset(c, 0, sizeof *c);
}

int pqw_compress(pqw_codec *c, const uint8_t *src, size_t n, delta_buf *out) {
  out->len = 0;
  int rc;
  switch (c->codec) {
  case CODEC_UNCOMPRESSED: return buf_append(out, src, n);
  case CODEC_SNAPPY: {
    size_t cap = snappy_max_compressed_length(n);
    if ((rc = buf_reserve(out, cap))) return rc;
    size_t len = cap;
    if (snappy_compress((const char *)src, n, (char *)out->data, &len) != SNAPPY_OK)
      return err_set(DELTA_ERROR, "snappy: compression failed");
    out->len = len;
    return 0;
  }
  case CODEC_ZSTD: {
    size_t cap = ZSTD_compressBound(n);
    if ((rc = buf_reserve(out, cap))) return rc;
    size_t len = ZSTD_compress2(c->zstd, out->data, cap, src, n);
    if (ZSTD_isError(len)) return err_set(DELTA_ERROR, "zstd: %s", ZSTD_getErrorName(len));
    out->len = len;
    return 0;
  }
  case CODEC_LZ4_RAW: {
    if (n > LZ4_MAX_INPUT_SIZE) return err_set(DELTA_ELIMIT, "lz4: page too large");
    int cap = LZ4_compressBound((int)n);
    if ((rc = buf_reserve(out, (size_t)cap))) return rc;
    int len = LZ4_compress_default((const char *)src, (char *)out->data, (int)n, cap);
    if (len <= 0 && n > 0) return err_set(DELTA_ERROR, "lz4: compression failed");
    out->len = (size_t)len;
    return 0;
  }
  case CODEC_GZIP: {
    z_stream *z = c->gzip;
    if (deflateReset(z) != Z_OK) return err_set(DELTA_ERROR, "gzip: deflateReset failed");
    size_t cap = deflateBound(z, (uLong)n) + 32;
    if ((rc = buf_reserve(out, cap))) return rc;
    z->next_in = (Bytef *)src;
    z->avail_in = (uInt)n;
    z->next_out = out->data;
    z->avail_out = (uInt)cap;
    int zr = deflate(z, Z_FINISH);
    if (zr != Z_STREAM_END) return err_set(DELTA_ERROR, "gzip: deflate failed (%d)", zr);
    out->len = cap - z->avail_out;
    return 0;
  }
  default: return err_set(DELTA_EUNSUPPORTED, "parquet writer: codec %d", c->codec);
  }
}
