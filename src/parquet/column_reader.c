/* Column chunk reading: pages -> levels + dense values. See column_reader.h. */
#include "parquet/column_reader.h"

#include <string.h>

#include "parquet/bigbuf.h"
#include "parquet/bits.h"
#include "parquet/slots.h"
#include "util/alloc_internal.h"
#include "util/bytes.h"
#include "util/codec.h"
#include "util/error_internal.h"

/* No page may claim more than this uncompressed; a corrupt size must not
 * make us allocate gigabytes. */
#define MAX_PAGE_BYTES ((int64_t)1 << 30)

struct pq_column_reader {
  const pq_file *f;
  const pq_node *leaf;
  char *path;
  /* The chunk: bytes [pos, len) are unread. In memory (whole) at `base`,
   * unless `lazy`: compressed chunks of files read with pread are read a
   * page at a time, the header into `hdr` and the body into `body_buf` (a
   * buffer the stream's readers share: each body is decompressed out of it
   * at once), so pages passed over are never read and a reader holds no
   * copy of its chunk. */
  const uint8_t *base;
  uint64_t pos, len, file_start;
  bool lazy;
  delta_buf hdr;
  pq_bigbuf *body_buf;         /* shared, or &chunk_buf */
  int codec;
  int64_t values_total, values_seen;
  int physical;
  int width;                   /* bytes per dense value; 0 for BYTE_ARRAY */
  int16_t max_def, max_rep;
  int def_bw, rep_bw;
  bool flat;                   /* pq_leaf_is_flat: read into Arrow layout */

  pq_bigbuf chunk_buf;         /* the column chunk's bytes, when read from a file */
  pq_bigbuf page_buf;          /* decompressed data page */
  pq_bigbuf dict_buf;          /* decompressed dictionary page */
  bool has_dict;
  uint32_t dict_n;
  const uint8_t *dict_values;  /* fixed width: dict_n * width bytes */
  delta_buf dict_bools;        /* BOOLEAN dictionaries, unpacked */
  delta_buf dict_offsets;      /* BYTE_ARRAY: int32[dict_n + 1] into dict_data */
  const uint8_t *dict_data, *dict_end;

  delta_buf page_def, page_rep; /* uint16 levels of the current page */
  delta_buf page_valid;        /* flat: its definition levels as a bitmap */
  int64_t page_levels, page_pos;
  int64_t page_nonnull;        /* dense values in the page */
  int64_t page_consumed;       /* of those, decoded so far */
  int enc;
  const uint8_t *vp, *vend;    /* value bytes of the page */
  pq_rle_decoder rle;
  pq_dbp_decoder dbp;
  pq_dlba_decoder dlba;
  pq_dba_decoder dba;
  bool dlba_live, dba_live;
  size_t bool_bit;
  uint64_t bss_pos;
  delta_buf idx;               /* uint32 dictionary indices */
  delta_buf scratch;           /* flat booleans: bytes before they become bits */
  /* Skipping (pq_colreader_skip): records to pass over before the next
   * read, resolved lazily so that consecutive skips add up to whole pages. */
  int64_t skip_pending;
  pq_col_batch discard;        /* what partly skipped pages decode into */
  pq_page_counts pages;
};

int pq_col_batch_reset(pq_col_batch *b) {
  b->def.len = b->rep.len = b->values.len = b->valid.len = 0;
  b->bin.offsets.len = b->bin.data.len = 0;
  b->n_levels = b->n_values = b->n_records = 0;
  int32_t zero = 0; /* byte-array offsets start with 0 */
  return buf_append(&b->bin.offsets, &zero, 4);
}

void pq_col_batch_dispose(pq_col_batch *b) {
  buf_dispose(&b->def);
  buf_dispose(&b->rep);
  buf_dispose(&b->values);
  buf_dispose(&b->bin.offsets);
  buf_dispose(&b->bin.data);
  buf_dispose(&b->valid);
}

bool pq_leaf_is_flat(const pq_node *leaf) {
  bool same_layout = leaf->conv == PQC_COPY || leaf->conv == PQC_FIXED || leaf->conv == PQC_BINARY ||
                     leaf->conv == PQC_BOOL;
  /* Every optional node adds a definition level: max_def is 1 exactly when
   * the leaf is the only one. */
  return same_layout && leaf->max_rep == 0 && leaf->max_def == (leaf->nullable ? 1 : 0);
}

/* Make a bitmap of b with room for nbits, zeroed past what it held (len
 * counts the bytes zeroed so far; see bits.h for the padding). */
static int reserve_bits(delta_buf *b, size_t nbits) {
  size_t need = pq_bits_bytes(nbits);
  if (b->len >= need) return 0;
  int rc = buf_reserve(b, need - b->len);
  if (rc) return rc;
  memset(b->data + b->len, 0, need - b->len);
  b->len = need;
  return 0;
}

static int bit_width(int v) {
  int w = 0;
  while (v >> w) w++;
  return w;
}

static int physical_width(int type, int32_t type_length) {
  switch (type) {
  case PQ_BOOLEAN: return 1;
  case PQ_INT32: case PQ_FLOAT: return 4;
  case PQ_INT64: case PQ_DOUBLE: return 8;
  case PQ_INT96: return 12;
  case PQ_FIXED_LEN_BYTE_ARRAY: return type_length;
  default: return 0;
  }
}

static void release_decoders(pq_column_reader *cr);

/* A column chunk's bytes: in place for files in memory, else read into the
 * reader's buffer (reused from row group to row group). */
static int chunk_bytes(pq_column_reader *cr, const pq_file *f, uint64_t start, size_t len,
                       const uint8_t **out) {
  if (f->data) {
    *out = f->data + start;
    return 0;
  }
  /* 8 spare bytes: decoders may load whole words at the end. */
  int rc;
  if ((rc = pq_bigbuf_reserve(&cr->chunk_buf, len + 8)) != 0) return rc;
  if ((rc = pq_file_read(f, start, len, cr->chunk_buf.data)) != 0) return rc;
  memset(cr->chunk_buf.data + len, 0, 8);
  *out = cr->chunk_buf.data;
  return 0;
}

int pq_colreader_open(pq_column_reader **out, const pq_file *f, int rg, const pq_node *leaf,
                      const uint8_t *chunk) {
  pq_column_reader *cr = *out;
  const pq_row_group *g = &f->md->row_groups[rg];
  const pq_column_chunk *cc = &g->columns[leaf->leaf_index];
  char *path = pq_node_path(leaf);
  if (!path) return DELTA_NOMEM();
  int rc = 0;
  if (cc->file_path.ptr) {
    rc = err_set(DELTA_EUNSUPPORTED, "column %s: chunks in other files are not supported", path);
    goto fail;
  }
  if (!cc->has_meta_data) {
    rc = err_set(DELTA_ECORRUPT, "column %s: chunk without metadata", path);
    goto fail;
  }
  const pq_column_meta *m = &cc->meta_data;
  if (m->type != leaf->physical) {
    rc = err_set(DELTA_ECORRUPT, "column %s: chunk type %s differs from the schema's %s",
                         path, pq_type_name(m->type), pq_type_name(leaf->physical));
    goto fail;
  }
  if (!codec_supported(m->codec)) {
    rc = err_set(DELTA_EUNSUPPORTED, "column %s: compression %s is not supported", path,
                         pq_codec_name(m->codec));
    goto fail;
  }
  int64_t start = m->data_page_offset;
  if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
      m->dictionary_page_offset < start)
    start = m->dictionary_page_offset;
  int64_t len = m->total_compressed_size;
  if (start < 4 || len < 0 || (uint64_t)start > f->size || (uint64_t)len > f->size - (uint64_t)start) {
    rc = err_set(DELTA_ECORRUPT,
                         "column %s: chunk at offset %lld, %lld bytes, lies outside the file (%zu bytes)",
                         path, (long long)start, (long long)len, f->size);
    goto fail;
  }
  if (m->num_values < 0) {
    rc = err_set(DELTA_ECORRUPT, "column %s: negative value count", path);
    goto fail;
  }
  if (!cr && !(cr = *out = mem_calloc(1, sizeof *cr))) { rc = DELTA_NOMEM(); goto fail; }
  /* Reusing a reader keeps its buffers: the next row group's pages fill
   * memory that is already mapped instead of faulting in fresh pages. */
  release_decoders(cr);
  mem_free(cr->path);
  cr->f = f;
  cr->leaf = leaf;
  cr->path = path;
  cr->has_dict = false;
  cr->dict_n = 0;
  cr->page_levels = cr->page_pos = cr->page_nonnull = 0;
  cr->values_seen = 0;
  cr->skip_pending = 0;
  cr->pos = 0;
  cr->len = (uint64_t)len;
  cr->file_start = (uint64_t)start;
  cr->lazy = !f->data && !chunk && m->codec != CODEC_UNCOMPRESSED;
  if (!cr->body_buf) cr->body_buf = &cr->chunk_buf;
  cr->base = chunk;
  if (!cr->lazy && !chunk) {
    rc = chunk_bytes(cr, f, (uint64_t)start, (size_t)len, &cr->base);
    if (rc) {
      cr->len = 0;
      cr->values_total = 0;
      return err_prefix("column %s", path);
    }
  }
  cr->codec = m->codec;
  cr->values_total = m->num_values;
  cr->physical = leaf->physical;
  cr->width = physical_width(leaf->physical, leaf->type_length);
  cr->max_def = leaf->max_def;
  cr->max_rep = leaf->max_rep;
  cr->def_bw = bit_width(leaf->max_def);
  cr->rep_bw = bit_width(leaf->max_rep);
  cr->flat = pq_leaf_is_flat(leaf);
  return 0;
fail:
  mem_free(path);
  return rc;
}

static void release_decoders(pq_column_reader *cr) {
  if (cr->dlba_live) pq_dlba_free(&cr->dlba);
  if (cr->dba_live) pq_dba_free(&cr->dba);
  cr->dlba_live = cr->dba_live = false;
}

void pq_colreader_free(pq_column_reader *cr) {
  if (!cr) return;
  release_decoders(cr);
  pq_bigbuf_dispose(&cr->chunk_buf);
  pq_bigbuf_dispose(&cr->page_buf);
  pq_bigbuf_dispose(&cr->dict_buf);
  buf_dispose(&cr->dict_bools);
  buf_dispose(&cr->dict_offsets);
  buf_dispose(&cr->page_def);
  buf_dispose(&cr->page_rep);
  buf_dispose(&cr->page_valid);
  buf_dispose(&cr->idx);
  buf_dispose(&cr->scratch);
  buf_dispose(&cr->hdr);
  pq_col_batch_dispose(&cr->discard);
  mem_free(cr->path);
  mem_free(cr);
}

/* Get a page body uncompressed: the bytes themselves when the chunk is not
 * compressed, otherwise decompressed into `buf`. */
static int page_bytes(pq_column_reader *cr, const uint8_t *src, size_t src_len, size_t want,
                      bool compressed, pq_bigbuf *buf, const uint8_t **out) {
  if (!compressed || cr->codec == CODEC_UNCOMPRESSED) {
    if (src_len != want)
      return err_set(DELTA_ECORRUPT, "uncompressed page is %zu bytes, header says %zu",
                             src_len, want);
    if (!cr->lazy) {
      *out = src;
      return 0;
    }
    /* The shared body buffer is overwritten by the next page of any reader. */
    int rc = pq_bigbuf_reserve(buf, want + 8);
    if (rc) return rc;
    memcpy(buf->data, src, want);
    memset(buf->data + want, 0, 8);
    *out = buf->data;
    return 0;
  }
  /* 8 spare bytes let decoders load whole words at the end. */
  int rc = pq_bigbuf_reserve(buf, want + 8);
  if (rc) return rc;
  rc = codec_decompress(cr->codec, src, src_len, buf->data, want);
  if (rc) return rc;
  memset(buf->data + want, 0, 8);
  *out = buf->data;
  return 0;
}

static int read_dictionary(pq_column_reader *cr, const pq_page_header *h, const uint8_t *body) {
  const pq_dictionary_page_header *d = &h->dictionary_page_header;
  if (!h->has_dictionary_page_header)
    return err_set(DELTA_ECORRUPT, "dictionary page without its header");
  if (d->encoding != PQ_ENC_PLAIN && d->encoding != PQ_ENC_PLAIN_DICTIONARY)
    return err_set(DELTA_EUNSUPPORTED, "dictionary page encoding %s",
                           pq_encoding_name(d->encoding));
  const uint8_t *data = NULL;
  size_t n = (size_t)h->uncompressed_page_size;
  int rc = page_bytes(cr, body, (size_t)h->compressed_page_size, n, true, &cr->dict_buf, &data);
  if (rc) return rc;
  if (d->num_values < 0) return err_set(DELTA_ECORRUPT, "negative dictionary size");
  uint32_t count = (uint32_t)d->num_values;
  cr->has_dict = true;
  cr->dict_n = count;
  if (cr->physical == PQ_BYTE_ARRAY) {
    if (count > n / 4) return err_set(DELTA_ECORRUPT, "dictionary claims %u strings in %zu bytes", count, n);
    cr->dict_offsets.len = 0;
    rc = buf_reserve(&cr->dict_offsets, ((size_t)count + 1) * 4);
    if (rc) return rc;
    int32_t *off = (int32_t *)(void *)cr->dict_offsets.data;
    size_t pos = 0;
    off[0] = 4;
    /* Offsets point at each string's bytes; lengths are off[i+1] - off[i] - 4. */
    for (uint32_t i = 0; i < count; i++) {
      if (n - pos < 4) return err_set(DELTA_ECORRUPT, "dictionary string %u runs past the page", i);
      uint32_t l = bytes_load_le32(data + pos);
      if (l > n - pos - 4) return err_set(DELTA_ECORRUPT, "dictionary string %u runs past the page", i);
      pos += 4 + l;
      off[i + 1] = (int32_t)pos + 4;
    }
    cr->dict_data = data;
    cr->dict_end = data + n;
    return 0;
  }
  if (cr->physical == PQ_BOOLEAN) {
    cr->dict_bools.len = 0;
    if (count > n * 8) return err_set(DELTA_ECORRUPT, "dictionary too short");
    rc = buf_reserve(&cr->dict_bools, count);
    if (rc) return rc;
    rc = pq_plain_bools(data, n, 0, cr->dict_bools.data, count);
    cr->dict_values = cr->dict_bools.data;
    return rc;
  }
  if ((uint64_t)count * (uint64_t)cr->width > n)
    return err_set(DELTA_ECORRUPT, "dictionary claims %u values of %d bytes in %zu bytes",
                           count, cr->width, n);
  cr->dict_values = data;
  return 0;
}

/* Start decoding RLE levels at *q and move *q past them: v1 pages prefix
 * them with their length, v2 page headers give it (v2_len). */
static int rle_levels(pq_rle_decoder *d, int bw, const uint8_t **q, const uint8_t *qend,
                      bool length_prefixed, size_t v2_len) {
  size_t len;
  const uint8_t *start = *q;
  if (length_prefixed) {
    if (qend - *q < 4) return err_set(DELTA_ECORRUPT, "levels length missing");
    len = bytes_load_le32(*q);
    start += 4;
    if (len > (size_t)(qend - start)) return err_set(DELTA_ECORRUPT, "levels run past the page");
  } else {
    len = v2_len;
  }
  *q = start + len;
  return pq_rle_init(d, start, len, bw);
}

static int decode_levels(int encoding, int bw, int64_t n, const uint8_t **q, const uint8_t *qend,
                         bool length_prefixed, size_t v2_len, delta_buf *out, int16_t max, int64_t *count_at_max) {
  out->len = 0;
  int rc = buf_reserve(out, (size_t)n * 2);
  if (rc) return rc;
  uint16_t *lv = (uint16_t *)(void *)out->data;
  if (encoding == PQ_ENC_RLE) {
    pq_rle_decoder d;
    if ((rc = rle_levels(&d, bw, q, qend, length_prefixed, v2_len)) != 0) return rc;
    if ((rc = pq_rle_get_u16(&d, lv, (size_t)n)) != 0) return rc;
  } else if (encoding == PQ_ENC_BIT_PACKED) {
    size_t len = ((size_t)n * (size_t)bw + 7) / 8;
    if (len > (size_t)(qend - *q)) return err_set(DELTA_ECORRUPT, "levels run past the page");
    rc = pq_bitpacked_legacy_get_u16(*q, len, bw, lv, (size_t)n);
    if (rc) return rc;
    *q += len;
  } else {
    return err_set(DELTA_EUNSUPPORTED, "level encoding %s", pq_encoding_name(encoding));
  }
  /* One pass checks every level and counts those at the maximum (for
   * definition levels: the page's non-null values). */
  uint16_t bad = 0;
  int64_t at_max = 0;
  for (int64_t i = 0; i < n; i++) {
    bad |= (uint16_t)(lv[i] > (uint16_t)max);
    at_max += lv[i] == (uint16_t)max;
  }
  if (bad) return err_set(DELTA_ECORRUPT, "a level exceeds the column's maximum %d", max);
  if (count_at_max) *count_at_max = at_max;
  out->len = (size_t)n * 2;
  return 0;
}

/* Definition levels of a flat nullable leaf (0 or 1) as the page's validity
 * bitmap; counts the page's values. */
static int decode_def_bits(pq_column_reader *cr, int encoding, int64_t n, const uint8_t **q,
                           const uint8_t *qend, bool length_prefixed, size_t v2_len) {
  delta_buf *b = &cr->page_valid;
  b->len = 0;
  int rc = reserve_bits(b, (size_t)n);
  if (rc) return rc;
  if (encoding == PQ_ENC_RLE) {
    pq_rle_decoder d;
    if ((rc = rle_levels(&d, cr->def_bw, q, qend, length_prefixed, v2_len)) != 0) return rc;
    if ((rc = pq_rle_get_bits(&d, b->data, (size_t)n)) != 0) return rc;
  } else {
    /* The legacy encodings go through uint16 levels. */
    rc = decode_levels(encoding, cr->def_bw, n, q, qend, length_prefixed, v2_len, &cr->page_def,
                       cr->max_def, NULL);
    if (rc) return rc;
    const uint16_t *lv = (const uint16_t *)(const void *)cr->page_def.data;
    for (int64_t i = 0; i < n; i++)
      if (lv[i]) b->data[i / 8] |= (uint8_t)(1u << (i % 8));
  }
  cr->page_nonnull = (int64_t)pq_bits_count(b->data, 0, (size_t)n);
  return 0;
}

/* A page's definition levels: a bitmap for flat leaves, uint16 otherwise. */
static int page_def_levels(pq_column_reader *cr, int encoding, int64_t n, const uint8_t **q,
                           const uint8_t *qend, bool length_prefixed, size_t v2_len) {
  if (cr->flat) return decode_def_bits(cr, encoding, n, q, qend, length_prefixed, v2_len);
  return decode_levels(encoding, cr->def_bw, n, q, qend, length_prefixed, v2_len, &cr->page_def,
                       cr->max_def, &cr->page_nonnull);
}

static int start_values(pq_column_reader *cr, int enc) {
  release_decoders(cr);
  cr->enc = enc;
  cr->bool_bit = 0;
  cr->bss_pos = 0;
  size_t len = (size_t)(cr->vend - cr->vp);
  int rc = 0;
  switch (enc) {
  case PQ_ENC_PLAIN:
    return 0;
  case PQ_ENC_PLAIN_DICTIONARY:
  case PQ_ENC_RLE_DICTIONARY:
    if (!cr->has_dict) return err_set(DELTA_ECORRUPT, "dictionary-encoded page without a dictionary");
    if (cr->page_nonnull == 0) return 0;
    if (len < 1) return err_set(DELTA_ECORRUPT, "dictionary page data is empty");
    if (cr->vp[0] > 32) return err_set(DELTA_ECORRUPT, "dictionary index width %d", cr->vp[0]);
    return pq_rle_init(&cr->rle, cr->vp + 1, len - 1, cr->vp[0]);
  case PQ_ENC_RLE:
    if (cr->physical != PQ_BOOLEAN) break;
    if (len < 4) return err_set(DELTA_ECORRUPT, "RLE boolean page without its length");
    {
      size_t l = bytes_load_le32(cr->vp);
      if (l > len - 4) return err_set(DELTA_ECORRUPT, "RLE boolean data runs past the page");
      return pq_rle_init(&cr->rle, cr->vp + 4, l, 1);
    }
  case PQ_ENC_DELTA_BINARY_PACKED:
    if (cr->physical != PQ_INT32 && cr->physical != PQ_INT64) break;
    return pq_dbp_init(&cr->dbp, cr->vp, len);
  case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    if (cr->physical != PQ_BYTE_ARRAY) break;
    rc = pq_dlba_init(&cr->dlba, cr->vp, len);
    cr->dlba_live = rc == 0;
    return rc;
  case PQ_ENC_DELTA_BYTE_ARRAY:
    if (cr->physical != PQ_BYTE_ARRAY && cr->physical != PQ_FIXED_LEN_BYTE_ARRAY) break;
    rc = pq_dba_init(&cr->dba, cr->vp, len);
    cr->dba_live = rc == 0;
    return rc;
  case PQ_ENC_BYTE_STREAM_SPLIT:
    if (cr->physical == PQ_BOOLEAN || cr->physical == PQ_BYTE_ARRAY || cr->physical == PQ_INT96) break;
    return 0;
  default:
    return err_set(DELTA_EUNSUPPORTED, "encoding %s", pq_encoding_name(enc));
  }
  return err_set(DELTA_ECORRUPT, "encoding %s is not valid for %s", pq_encoding_name(enc),
                         pq_type_name(cr->physical));
}

/* The header of the page at cr->pos and the offset of its body in the
 * chunk. Lazy chunks read a window of the file for it, widened until the
 * header fits (page statistics can make headers long). */
static int peek_header(pq_column_reader *cr, pq_page_header *h, uint64_t *body_pos) {
  uint64_t left = cr->len - cr->pos;
  size_t hlen;
  if (!cr->lazy) {
    int rc = pq_page_header_parse(cr->base + cr->pos, (size_t)left, h, &hlen);
    if (rc) return rc;
    *body_pos = cr->pos + hlen;
    return 0;
  }
  for (size_t w = 1024;; w *= 16) {
    if (w > left) w = (size_t)left;
    cr->hdr.len = 0;
    int rc;
    if ((rc = buf_reserve(&cr->hdr, w)) != 0) return rc;
    if ((rc = pq_file_read(cr->f, cr->file_start + cr->pos, w, cr->hdr.data)) != 0) return rc;
    if ((rc = pq_page_header_parse(cr->hdr.data, w, h, &hlen)) == 0) {
      *body_pos = cr->pos + hlen;
      return 0;
    }
    if (w == left) return rc;
    /* the header may just run past the bytes read: read more and retry */
    delta_error_clear();
  }
}

/* A page body's bytes (n, checked against the chunk by the caller); lazy
 * chunks read it into the body buffer, valid until the next page. */
static int body_bytes(pq_column_reader *cr, uint64_t body_pos, size_t n, const uint8_t **out) {
  if (!cr->lazy) {
    *out = cr->base + body_pos;
    return 0;
  }
  pq_bigbuf *b = cr->body_buf;
  int rc;
  if ((rc = pq_bigbuf_reserve(b, n + 8)) != 0) return rc; /* 8 spare bytes: decoders may load whole words */
  if ((rc = pq_file_read(cr->f, cr->file_start + body_pos, n, b->data)) != 0) return rc;
  memset(b->data + n, 0, 8);
  *out = b->data;
  return 0;
}

void pq_colreader_share_body_buffer(pq_column_reader *cr, pq_bigbuf *buf) {
  cr->body_buf = buf ? buf : &cr->chunk_buf;
}

/* Load the next data page (reading any dictionary page first).
 * DELTA_ITEROVER at the end of the chunk. */
static int next_page(pq_column_reader *cr) {
  for (;;) {
    if (cr->values_seen >= cr->values_total) return DELTA_ITEROVER;
    if (cr->pos >= cr->len)
      return err_set(DELTA_ECORRUPT, "chunk ends after %lld of %lld values",
                             (long long)cr->values_seen, (long long)cr->values_total);
    pq_page_header h;
    uint64_t body_pos;
    int rc = peek_header(cr, &h, &body_pos);
    if (rc) return rc;
    if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
        (uint64_t)h.compressed_page_size > cr->len - body_pos)
      return err_set(DELTA_ECORRUPT, "page of %d bytes runs past the chunk",
                             (int)h.compressed_page_size);
    if (h.uncompressed_page_size > MAX_PAGE_BYTES)
      return err_set(DELTA_ELIMIT, "page of %d bytes is larger than the limit",
                             (int)h.uncompressed_page_size);
    cr->pos = body_pos + (uint64_t)h.compressed_page_size;
    bool has_body = h.type == PQ_PAGE_DICTIONARY || h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2;
    const uint8_t *body = NULL;
    if (has_body) rc = body_bytes(cr, body_pos, (size_t)h.compressed_page_size, &body);
    if (rc) return rc;
    if (h.type == PQ_PAGE_DICTIONARY) {
      rc = read_dictionary(cr, &h, body);
      if (rc) return rc;
      continue;
    }
    if (h.type == PQ_PAGE_DATA) {
      const pq_data_page_header *d = &h.data_page_header;
      if (!h.has_data_page_header) return err_set(DELTA_ECORRUPT, "data page without its header");
      if (d->num_values < 0) return err_set(DELTA_ECORRUPT, "negative page value count");
      const uint8_t *q = NULL;
      size_t n = (size_t)h.uncompressed_page_size;
      rc = page_bytes(cr, body, (size_t)h.compressed_page_size, n, true, &cr->page_buf, &q);
      if (rc) return rc;
      const uint8_t *qend = q + n;
      cr->page_levels = d->num_values;
      if (cr->max_rep > 0) {
        rc = decode_levels(d->repetition_level_encoding, cr->rep_bw, d->num_values, &q, qend, true, 0,
                           &cr->page_rep, cr->max_rep, NULL);
        if (rc) return rc;
      }
      if (cr->max_def > 0) {
        rc = page_def_levels(cr, d->definition_level_encoding, d->num_values, &q, qend, true, 0);
        if (rc) return rc;
      }
      cr->vp = q;
      cr->vend = qend;
      cr->page_pos = 0;
      cr->page_consumed = 0;
      if (cr->max_def == 0) cr->page_nonnull = cr->page_levels;
      cr->values_seen += d->num_values;
      cr->pages.read++;
      return start_values(cr, d->encoding);
    }
    if (h.type == PQ_PAGE_DATA_V2) {
      const pq_data_page_header_v2 *d = &h.data_page_header_v2;
      if (!h.has_data_page_header_v2) return err_set(DELTA_ECORRUPT, "data page v2 without its header");
      int64_t rl = d->repetition_levels_byte_length, dl = d->definition_levels_byte_length;
      if (d->num_values < 0 || rl < 0 || dl < 0 || rl + dl > h.compressed_page_size ||
          rl + dl > h.uncompressed_page_size)
        return err_set(DELTA_ECORRUPT, "data page v2 has bad level lengths");
      const uint8_t *q = body;
      cr->page_levels = d->num_values;
      if (cr->max_rep > 0) {
        rc = decode_levels(PQ_ENC_RLE, cr->rep_bw, d->num_values, &q, body + rl, false, (size_t)rl,
                           &cr->page_rep, cr->max_rep, NULL);
        if (rc) return rc;
      }
      q = body + rl;
      if (cr->max_def > 0) {
        rc = page_def_levels(cr, PQ_ENC_RLE, d->num_values, &q, body + rl + dl, false, (size_t)dl);
        if (rc) return rc;
      }
      const uint8_t *vals = NULL;
      size_t want = (size_t)(h.uncompressed_page_size - rl - dl);
      rc = page_bytes(cr, body + rl + dl, (size_t)(h.compressed_page_size - rl - dl), want,
                      d->is_compressed, &cr->page_buf, &vals);
      if (rc) return rc;
      cr->vp = vals;
      cr->vend = vals + want;
      cr->page_pos = 0;
      cr->page_consumed = 0;
      if (cr->max_def == 0) cr->page_nonnull = cr->page_levels;
      if (d->num_nulls >= 0 && cr->max_def > 0 && d->num_values - d->num_nulls != cr->page_nonnull)
        return err_set(DELTA_ECORRUPT, "data page v2 says %d nulls, its levels say %lld",
                               (int)d->num_nulls, (long long)(d->num_values - cr->page_nonnull));
      cr->values_seen += d->num_values;
      cr->pages.read++;
      return start_values(cr, d->encoding);
    }
    /* Index pages and unknown page types are skipped. */
  }
}

/* ---- values ----
 *
 * decode_values places the page's next nv values into n slots appended to
 * the batch: every slot gets one (n == nv) unless `valid` says which do (see
 * slots.h). PLAIN and dictionary values go straight to their slots; the
 * other encodings decode densely and are then spread out in place. */

/* Short strings (most) are copied as 32 bytes at once when that many can be
 * read; the destination always has STRING_PAD spare bytes. */
#define STRING_PAD 32

static inline void copy_string(uint8_t *dst, const uint8_t *src, size_t l, const uint8_t *src_end) {
  if (l <= STRING_PAD && (size_t)(src_end - src) >= STRING_PAD) memcpy(dst, src, STRING_PAD);
  else memcpy(dst, src, l);
}

static inline bool slot_valid(const uint8_t *valid, size_t pos) {
  return !valid || ((valid[pos / 8] >> (pos % 8)) & 1);
}

static int string_limit(void) {
  return err_set(DELTA_ELIMIT, "more than 2 GiB of strings in one batch");
}

/* The next n dictionary indices of the page, checked against the dictionary. */
static int dict_indices(pq_column_reader *cr, size_t n, const uint32_t **out) {
  cr->idx.len = 0;
  int rc = buf_reserve(&cr->idx, n * 4);
  if (rc) return rc;
  uint32_t *idx = (uint32_t *)(void *)cr->idx.data;
  *out = idx;
  return pq_rle_get_indices(&cr->rle, idx, n, cr->dict_n);
}

static int gather_binary(const pq_column_reader *cr, const uint32_t *idx, size_t n, size_t nv,
                         const uint8_t *valid, size_t vpos, pq_binary_builder *b) {
  const int32_t *off = (const int32_t *)(const void *)cr->dict_offsets.data;
  size_t total = 0;
  for (size_t j = 0; j < nv; j++) total += (size_t)(off[idx[j] + 1] - off[idx[j]] - 4);
  if (b->data.len + total > INT32_MAX) return string_limit();
  int rc;
  if ((rc = buf_reserve(&b->data, total + STRING_PAD)) != 0) return rc;
  if ((rc = buf_reserve(&b->offsets, n * 4)) != 0) return rc;
  uint8_t *d = b->data.data + b->data.len;
  int32_t *o = (int32_t *)(void *)(b->offsets.data + b->offsets.len);
  int32_t end = (int32_t)b->data.len;
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    if (slot_valid(valid, vpos + i)) {
      int32_t s = off[idx[j]], l = off[idx[j] + 1] - s - 4;
      copy_string(d, cr->dict_data + s, (size_t)l, cr->dict_end);
      d += l;
      end += l;
      j++;
    }
    o[i] = end;
  }
  b->data.len += total;
  b->offsets.len += n * 4;
  return 0;
}

static int plain_binary(pq_column_reader *cr, size_t n, size_t nv, const uint8_t *valid, size_t vpos,
                        pq_binary_builder *b) {
  int rc = buf_reserve(&b->offsets, n * 4);
  if (rc) return rc;
  /* One pass: room for this run's share of the page's bytes up front, more
   * if a string does not fit. */
  const uint8_t *q = cr->vp, *end = cr->vend;
  int64_t left = cr->page_nonnull - cr->page_consumed;
  size_t guess = left > 0 ? (size_t)((double)(size_t)(end - q) * (double)nv / (double)left) : 0;
  rc = buf_reserve(&b->data, guess + STRING_PAD);
  if (rc) return rc;
  int32_t *o = (int32_t *)(void *)(b->offsets.data + b->offsets.len);
  size_t len = b->data.len;
  for (size_t i = 0; i < n; i++) {
    if (slot_valid(valid, vpos + i)) {
      if (end - q < 4) return err_set(DELTA_ECORRUPT, "PLAIN string runs past the page");
      uint32_t l = bytes_load_le32(q);
      if (l > (size_t)(end - q - 4)) return err_set(DELTA_ECORRUPT, "PLAIN string runs past the page");
      if (b->data.cap - len < (size_t)l + STRING_PAD) {
        b->data.len = len;
        if ((rc = buf_reserve(&b->data, (size_t)l + STRING_PAD)) != 0) return rc;
      }
      copy_string(b->data.data + len, q + 4, l, end);
      q += 4 + l;
      len += l;
      if (len > INT32_MAX) return string_limit();
    }
    o[i] = (int32_t)len;
  }
  b->data.len = len;
  b->offsets.len += n * 4;
  cr->vp = q;
  return 0;
}

static int binary_slots(pq_column_reader *cr, size_t n, size_t nv, const uint8_t *valid, size_t vpos,
                        pq_binary_builder *b) {
  int rc;
  const uint32_t *idx;
  size_t first = b->offsets.len / 4 - 1; /* where this run starts */
  switch (cr->enc) {
  case PQ_ENC_PLAIN:
    return plain_binary(cr, n, nv, valid, vpos, b);
  case PQ_ENC_PLAIN_DICTIONARY:
  case PQ_ENC_RLE_DICTIONARY:
    if ((rc = dict_indices(cr, nv, &idx)) != 0) return rc;
    return gather_binary(cr, idx, n, nv, valid, vpos, b);
  case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    rc = pq_dlba_get(&cr->dlba, b, nv);
    break;
  case PQ_ENC_DELTA_BYTE_ARRAY:
    rc = pq_dba_get(&cr->dba, b, nv);
    break;
  default:
    return err_set(DELTA_EUNSUPPORTED, "encoding %s", pq_encoding_name(cr->enc));
  }
  if (rc || n == nv) return rc;
  if ((rc = buf_reserve(&b->offsets, (n - nv) * 4)) != 0) return rc;
  pq_slots_expand_offsets((int32_t *)(void *)b->offsets.data + first, valid, vpos, n, nv);
  b->offsets.len += (n - nv) * 4;
  return 0;
}

/* Fixed-width values (booleans as bytes) into n slots at dst. */
static int fixed_slots(pq_column_reader *cr, uint8_t *dst, size_t n, size_t nv, const uint8_t *valid,
                       size_t vpos) {
  int w = cr->width;
  int rc;
  const uint32_t *idx;
  switch (cr->enc) {
  case PQ_ENC_PLAIN:
    if (cr->physical == PQ_BOOLEAN) {
      rc = pq_plain_bools(cr->vp, (size_t)(cr->vend - cr->vp), cr->bool_bit, dst, nv);
      cr->bool_bit += nv;
      break;
    }
    if (nv * (size_t)w > (size_t)(cr->vend - cr->vp))
      return err_set(DELTA_ECORRUPT, "page has fewer values than its levels say");
    pq_slots_scatter(dst, cr->vp, w, valid, vpos, n, nv);
    cr->vp += nv * (size_t)w;
    return 0;
  case PQ_ENC_PLAIN_DICTIONARY:
  case PQ_ENC_RLE_DICTIONARY:
    if ((rc = dict_indices(cr, nv, &idx)) != 0) return rc;
    pq_slots_gather(dst, cr->dict_values, idx, w, valid, vpos, n, nv);
    return 0;
  case PQ_ENC_RLE:
    rc = pq_rle_get_u8(&cr->rle, dst, nv);
    break;
  case PQ_ENC_DELTA_BINARY_PACKED:
    rc = cr->physical == PQ_INT32 ? pq_dbp_get_i32(&cr->dbp, (int32_t *)(void *)dst, nv)
                                  : pq_dbp_get_i64(&cr->dbp, (int64_t *)(void *)dst, nv);
    break;
  case PQ_ENC_DELTA_BYTE_ARRAY:
    rc = pq_dba_get_fixed(&cr->dba, dst, nv, w);
    break;
  case PQ_ENC_BYTE_STREAM_SPLIT:
    rc = pq_bss_get(cr->vp, (size_t)(cr->vend - cr->vp), w, (uint64_t)cr->page_nonnull, cr->bss_pos,
                    dst, nv);
    cr->bss_pos += nv;
    break;
  default:
    return err_set(DELTA_EUNSUPPORTED, "encoding %s", pq_encoding_name(cr->enc));
  }
  if (rc) return rc;
  if (n != nv) pq_slots_expand(dst, w, valid, vpos, n, nv);
  return 0;
}

/* Flat booleans: bytes first (in scratch, padded for pack_bools), then bits. */
static int flat_bools(pq_column_reader *cr, size_t n, size_t nv, const uint8_t *valid, size_t vpos,
                      pq_col_batch *out) {
  cr->scratch.len = 0;
  int rc = buf_reserve(&cr->scratch, nv + 64);
  if (rc) return rc;
  memset(cr->scratch.data + nv, 0, 64);
  if ((rc = fixed_slots(cr, cr->scratch.data, nv, nv, NULL, 0)) != 0) return rc;
  if ((rc = reserve_bits(&out->values, (size_t)out->n_levels + n)) != 0) return rc;
  pq_slots_pack_bools(out->values.data, (size_t)out->n_levels, cr->scratch.data, valid, vpos, n);
  return 0;
}

/* n slots without values: nothing is decoded (the page's decoders are not
 * even set up when it has no values). */
static int null_slots(pq_column_reader *cr, size_t n, pq_col_batch *out) {
  if (cr->physical == PQ_BOOLEAN) return reserve_bits(&out->values, (size_t)out->n_levels + n);
  if (cr->physical == PQ_BYTE_ARRAY) {
    delta_buf *o = &out->bin.offsets;
    int rc = buf_reserve(o, n * 4);
    if (rc) return rc;
    int32_t *off = (int32_t *)(void *)(o->data + o->len);
    for (size_t i = 0; i < n; i++) off[i] = off[-1];
    o->len += n * 4;
    return 0;
  }
  size_t bytes = n * (size_t)cr->width;
  int rc = buf_reserve(&out->values, bytes);
  if (rc) return rc;
  memset(out->values.data + out->values.len, 0, bytes);
  out->values.len += bytes;
  return 0;
}

static int decode_values(pq_column_reader *cr, size_t n, size_t nv, const uint8_t *valid, size_t vpos,
                         pq_col_batch *out) {
  if (n == 0) return 0;
  if (nv == 0) return null_slots(cr, n, out);
  int rc;
  if (cr->physical == PQ_BOOLEAN && out->flat) {
    rc = flat_bools(cr, n, nv, valid, vpos, out);
  } else if (cr->physical == PQ_BYTE_ARRAY) {
    rc = binary_slots(cr, n, nv, valid, vpos, &out->bin);
  } else {
    size_t bytes = n * (size_t)cr->width;
    if ((rc = buf_reserve(&out->values, bytes)) != 0) return rc;
    if ((rc = fixed_slots(cr, out->values.data + out->values.len, n, nv, valid, vpos)) != 0) return rc;
    out->values.len += bytes;
  }
  if (rc) return rc;
  out->n_values += (int64_t)nv;
  return 0;
}

/* ---- records ---- */

/* Nested (or otherwise assembled) leaves: levels and dense values. */
static int read_records(pq_column_reader *cr, int64_t max_records, pq_col_batch *out) {
  int64_t records = 0;
  for (;;) {
    if (cr->max_rep == 0 && records == max_records) break;
    if (cr->page_pos == cr->page_levels) {
      int rc = next_page(cr);
      if (rc == DELTA_ITEROVER) break;
      if (rc) return rc;
      continue;
    }
    int64_t avail = cr->page_levels - cr->page_pos, take;
    bool stop = false;
    if (cr->max_rep == 0) {
      take = avail < max_records - records ? avail : max_records - records;
      records += take;
    } else {
      const uint16_t *rp = (const uint16_t *)(const void *)cr->page_rep.data + cr->page_pos;
      int64_t i = 0;
      for (; i < avail; i++) {
        if (rp[i] == 0) {
          if (records == max_records) { stop = true; break; }
          records++;
        } else if (records == 0 && i == 0 && cr->page_pos == 0 && cr->values_seen == cr->page_levels) {
          return err_set(DELTA_ECORRUPT, "first value does not start a record");
        }
      }
      take = i;
    }
    int64_t nv = take;
    if (cr->max_def > 0) {
      const uint16_t *dp = (const uint16_t *)(const void *)cr->page_def.data + cr->page_pos;
      int rc = buf_append(&out->def, dp, (size_t)take * 2);
      if (rc) return rc;
      if (cr->page_pos + take == cr->page_levels) {
        nv = cr->page_nonnull - cr->page_consumed; /* the rest of the page: no need to count */
      } else {
        nv = 0;
        for (int64_t i = 0; i < take; i++) nv += dp[i] == (uint16_t)cr->max_def;
      }
    }
    if (cr->max_rep > 0) {
      int rc = buf_append(&out->rep, (const uint16_t *)(const void *)cr->page_rep.data + cr->page_pos,
                                (size_t)take * 2);
      if (rc) return rc;
    }
    int rc = decode_values(cr, (size_t)nv, (size_t)nv, NULL, 0, out);
    if (rc) return rc;
    cr->page_consumed += nv;
    cr->page_pos += take;
    out->n_levels += take;
    if (stop) break;
  }
  out->n_records += records;
  return 0;
}

/* Flat leaves: a slot per record, values placed by the page's validity. */
static int read_flat(pq_column_reader *cr, int64_t max_records, pq_col_batch *out) {
  out->flat = true;
  int64_t records = 0;
  while (records < max_records) {
    if (cr->page_pos == cr->page_levels) {
      int rc = next_page(cr);
      if (rc == DELTA_ITEROVER) break;
      if (rc) return rc;
      continue;
    }
    int64_t avail = cr->page_levels - cr->page_pos;
    int64_t take = avail < max_records - records ? avail : max_records - records;
    size_t slot0 = (size_t)out->n_levels;
    int64_t nv = take;
    const uint8_t *valid = NULL;
    if (cr->max_def > 0) {
      int rc = reserve_bits(&out->valid, slot0 + (size_t)take);
      if (rc) return rc;
      pq_bits_copy(out->valid.data, slot0, cr->page_valid.data, (size_t)cr->page_pos, (size_t)take);
      if (cr->page_pos + take == cr->page_levels)
        nv = cr->page_nonnull - cr->page_consumed;
      else
        nv = (int64_t)pq_bits_count(cr->page_valid.data, (size_t)cr->page_pos, (size_t)take);
      if (nv < take) valid = out->valid.data;
    }
    int rc = decode_values(cr, (size_t)take, (size_t)nv, valid, slot0, out);
    if (rc) return rc;
    cr->page_consumed += nv;
    cr->page_pos += take;
    out->n_levels += take;
    records += take;
  }
  out->n_records += records;
  return 0;
}

/* ---- skipping ---- */

/* At a page boundary of a leaf without repetition: pass over the next data
 * page without decompressing it when all its rows are to be skipped (a
 * level entry per row, so its num_values counts rows). Dictionary pages on
 * the way are read, as later pages need them. *rows: the rows passed over,
 * 0 when the next page must be decoded (or the chunk is done). */
static int skip_whole_page(pq_column_reader *cr, int64_t *rows) {
  *rows = 0;
  for (;;) {
    if (cr->values_seen >= cr->values_total || cr->pos >= cr->len) return 0;
    pq_page_header h;
    uint64_t body_pos;
    int rc = peek_header(cr, &h, &body_pos);
    if (rc) return rc;
    if (h.compressed_page_size < 0 || (uint64_t)h.compressed_page_size > cr->len - body_pos)
      return 0; /* next_page says why */
    uint64_t next = body_pos + (uint64_t)h.compressed_page_size;
    int64_t n;
    if (h.type == PQ_PAGE_DICTIONARY) {
      if (h.uncompressed_page_size < 0 || h.uncompressed_page_size > MAX_PAGE_BYTES) return 0;
      const uint8_t *body;
      if ((rc = body_bytes(cr, body_pos, (size_t)h.compressed_page_size, &body)) != 0) return rc;
      if ((rc = read_dictionary(cr, &h, body)) != 0) return rc;
      cr->pos = next;
      continue;
    } else if (h.type == PQ_PAGE_DATA && h.has_data_page_header) {
      n = h.data_page_header.num_values;
    } else if (h.type == PQ_PAGE_DATA_V2 && h.has_data_page_header_v2) {
      n = h.data_page_header_v2.num_values;
    } else if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2) {
      return 0;
    } else {
      cr->pos = next; /* index and unknown pages, as next_page does */
      continue;
    }
    if (n < 0 || n > cr->skip_pending || n > cr->values_total - cr->values_seen) return 0;
    cr->pos = next;
    cr->values_seen += n;
    cr->pages.skipped++;
    *rows = n;
    return 0;
  }
}

/* Inside a page of a flat leaf: pass over `take` rows of it (nv of them
 * with values) by moving the value decoder, without producing the values.
 * false: not for this encoding (the caller decodes and drops instead). */
static int skip_in_page(pq_column_reader *cr, int64_t take, bool *done) {
  *done = false;
  int64_t nv = take;
  if (cr->max_def > 0)
    nv = cr->page_pos + take == cr->page_levels
             ? cr->page_nonnull - cr->page_consumed
             : (int64_t)pq_bits_count(cr->page_valid.data, (size_t)cr->page_pos, (size_t)take);
  if (nv > 0) {
    size_t left = (size_t)(cr->vend - cr->vp);
    switch (cr->enc) {
    case PQ_ENC_PLAIN:
      if (cr->physical == PQ_BOOLEAN) {
        cr->bool_bit += (size_t)nv;
      } else if (cr->physical == PQ_BYTE_ARRAY) {
        const uint8_t *q = cr->vp;
        for (int64_t i = 0; i < nv; i++) {
          if (cr->vend - q < 4) return err_set(DELTA_ECORRUPT, "PLAIN string runs past the page");
          uint32_t l = bytes_load_le32(q);
          if (l > (size_t)(cr->vend - q - 4)) return err_set(DELTA_ECORRUPT, "PLAIN string runs past the page");
          q += 4 + l;
        }
        cr->vp = q;
      } else {
        if ((uint64_t)nv * (uint64_t)cr->width > left)
          return err_set(DELTA_ECORRUPT, "page has fewer values than its levels say");
        cr->vp += (size_t)nv * (size_t)cr->width;
      }
      break;
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY: {
      const uint32_t *idx;
      int rc = dict_indices(cr, (size_t)nv, &idx);
      if (rc) return rc;
      break;
    }
    case PQ_ENC_BYTE_STREAM_SPLIT:
      cr->bss_pos += (uint64_t)nv;
      break;
    default:
      return 0;
    }
  }
  cr->page_consumed += nv;
  cr->page_pos += take;
  *done = true;
  return 0;
}

static int resolve_skip(pq_column_reader *cr) {
  while (cr->skip_pending > 0) {
    if (cr->flat && cr->page_pos < cr->page_levels) {
      int64_t take = cr->page_levels - cr->page_pos;
      if (take > cr->skip_pending) take = cr->skip_pending;
      bool done;
      int rc = skip_in_page(cr, take, &done);
      if (rc) return rc;
      if (done) {
        cr->skip_pending -= take;
        continue;
      }
    }
    if (cr->page_pos == cr->page_levels && cr->max_rep == 0) {
      int64_t rows;
      int rc = skip_whole_page(cr, &rows);
      if (rc) return rc;
      if (rows > 0) {
        cr->skip_pending -= rows;
        continue;
      }
    }
    /* Decode and drop: the rest of the current page, or (nested leaves,
     * whose records may span pages) a bounded share of what is left. */
    int64_t take = cr->skip_pending < 65536 ? cr->skip_pending : 65536;
    if (cr->max_rep == 0 && cr->page_pos < cr->page_levels && cr->page_levels - cr->page_pos < take)
      take = cr->page_levels - cr->page_pos;
    int rc;
    if ((rc = pq_col_batch_reset(&cr->discard)) != 0) return rc;
    if ((rc = cr->flat ? read_flat(cr, take, &cr->discard) : read_records(cr, take, &cr->discard)) != 0) return rc;
    if (cr->discard.n_records == 0)
      return err_set(DELTA_ECORRUPT, "chunk ends with %lld rows still to skip", (long long)cr->skip_pending);
    cr->skip_pending -= cr->discard.n_records;
  }
  return 0;
}

void pq_colreader_skip(pq_column_reader *cr, int64_t n_records) {
  if (n_records > 0) cr->skip_pending += n_records;
}

void pq_colreader_page_counts(const pq_column_reader *cr, pq_page_counts *out) {
  *out = cr->pages;
}

int pq_colreader_read(pq_column_reader *cr, int64_t max_records, pq_col_batch *out) {
  int rc;
  if ((rc = resolve_skip(cr)) != 0) goto done;
  rc = cr->flat ? read_flat(cr, max_records, out) : read_records(cr, max_records, out);
done:
  if (rc) err_prefix("column %s", cr->path);
  return rc;
}
