/*
 * One leaf column of the writer: levels and values accumulate in the open
 * page; a full page is encoded (levels RLE, values through the dictionary
 * or PLAIN / DELTA_BINARY_PACKED), compressed and appended to the column
 * chunk, which goes to the sink when its row group is flushed, behind its
 * dictionary page.
 */
#include <string.h>

#include "parquet/metadata.h"
#include "parquet/write_encode.h"
#include "parquet/write_internal.h"
#include "util/alloc_internal.h"
#include "util/bytes.h"
#include "util/error_internal.h"

static int grow_levels(pqw_leaf *l, size_t extra) {
  if (l->n_levels + extra <= l->cap_levels) return 0;
  size_t cap = l->cap_levels ? l->cap_levels : 1024;
  while (cap < l->n_levels + extra) cap *= 2;
  uint16_t *d = mem_realloc(l->def, cap * sizeof *d);
  if (!d) return DELTA_NOMEM();
  l->def = d;
  uint16_t *r = mem_realloc(l->rep, cap * sizeof *r);
  if (!r) return DELTA_NOMEM();
  l->rep = r;
  l->cap_levels = cap;
  return 0;
}

int pqw_leaf_levels(pqw_leaf *l, const uint16_t *def, const uint16_t *rep, size_t n) {
  int rc = grow_levels(l, n);
  if (rc) return rc;
  if (def) {
    memcpy(l->def + l->n_levels, def, n * sizeof *def);
    for (size_t i = 0; i < n; i++) l->page_nulls += def[i] < l->max_def;
  } else {
    for (size_t i = 0; i < n; i++) l->def[l->n_levels + i] = (uint16_t)l->max_def;
  }
  if (rep) memcpy(l->rep + l->n_levels, rep, n * sizeof *rep);
  else memset(l->rep + l->n_levels, 0, n * sizeof *rep);
  l->n_levels += n;
  return 0;
}

int pqw_leaf_level1(pqw_leaf *l, uint16_t def, uint16_t rep) {
  if (l->n_levels == l->cap_levels) {
    int rc = grow_levels(l, 1);
    if (rc) return rc;
  }
  l->def[l->n_levels] = def;
  l->rep[l->n_levels] = rep;
  l->n_levels++;
  l->page_nulls += def < l->max_def;
  return 0;
}

/* Width of a physical fixed-size value (0 for BYTE_ARRAY). */
static size_t phys_width(const pqw_leaf *l) {
  switch (l->physical) {
  case PQ_BOOLEAN: return 1;
  case PQ_INT32:
  case PQ_FLOAT: return 4;
  case PQ_INT64:
  case PQ_DOUBLE: return 8;
  case PQ_FIXED_LEN_BYTE_ARRAY: return (size_t)l->type_length;
  default: return 0;
  }
}

/* The physical bytes of the value at physical slot i of `a`: a pointer into
 * the array or into tmp (at least 32 bytes). */
static const uint8_t *phys_value(const pqw_leaf *l, const struct ArrowArray *a, int64_t i, uint8_t *tmp,
                                 uint32_t *len) {
  const uint8_t *d = a->buffers[1];
  switch (l->conv) {
  case PQW_BOOL:
    tmp[0] = (uint8_t)((d[i >> 3] >> (i & 7)) & 1);
    *len = 1;
    return tmp;
  case PQW_I8: {
    int32_t v = (int8_t)d[i];
    memcpy(tmp, &v, 4);
    *len = 4;
    return tmp;
  }
  case PQW_U8: {
    int32_t v = d[i];
    memcpy(tmp, &v, 4);
    *len = 4;
    return tmp;
  }
  case PQW_I16: {
    int16_t s;
    memcpy(&s, d + i * 2, 2);
    int32_t v = s;
    memcpy(tmp, &v, 4);
    *len = 4;
    return tmp;
  }
  case PQW_U16: {
    uint16_t s;
    memcpy(&s, d + i * 2, 2);
    int32_t v = s;
    memcpy(tmp, &v, 4);
    *len = 4;
    return tmp;
  }
  case PQW_COPY: *len = (uint32_t)l->in_width; return d + i * l->in_width;
  case PQW_DEC_I32: *len = 4; return d + i * l->in_width; /* low bytes, little-endian */
  case PQW_DEC_I64: *len = 8; return d + i * l->in_width;
  case PQW_DEC_FLBA: {
    const uint8_t *src = d + i * l->in_width;
    int n = l->type_length;
    for (int j = 0; j < n; j++) tmp[j] = src[n - 1 - j];
    *len = (uint32_t)n;
    return tmp;
  }
  case PQW_BA32: {
    const int32_t *o = a->buffers[1];
    const uint8_t *data = a->buffers[2];
    *len = (uint32_t)(o[i + 1] - o[i]);
    return data ? data + o[i] : tmp;
  }
  case PQW_BA64: {
    const int64_t *o = a->buffers[1];
    const uint8_t *data = a->buffers[2];
    *len = (uint32_t)(o[i + 1] - o[i]);
    return data ? data + o[i] : tmp;
  }
  }
  *len = 0;
  return tmp;
}

static int put_dict(pqw_writer *w, pqw_leaf *l, const struct ArrowArray *a, int64_t first, int64_t n) {
  if (l->n_idx + (size_t)n > l->cap_idx) {
    size_t cap = l->cap_idx ? l->cap_idx : 1024;
    while (cap < l->n_idx + (size_t)n) cap *= 2;
    uint32_t *p = mem_realloc(l->idx, cap * sizeof *p);
    if (!p) return DELTA_NOMEM();
    l->idx = p;
    l->cap_idx = cap;
  }
  bool ba = l->physical == PQ_BYTE_ARRAY;
  uint8_t tmp[32];
  for (int64_t k = 0; k < n; k++) {
    uint32_t len, id;
    bool is_new;
    const uint8_t *v = phys_value(l, a, first + k, tmp, &len);
    int rc;
    if ((rc = pqw_dict_insert(&l->dict, v, len, ba, &id, &is_new)) != 0) return rc;
    if (is_new && (rc = pqw_stats_update(&l->chunk_stats, l->order, v, len)) != 0) return rc;
    l->idx[l->n_idx++] = id;
  }
  (void)w;
  return 0;
}

static int put_plain(pqw_leaf *l, const struct ArrowArray *a, int64_t first, int64_t n) {
  delta_buf *b = &l->values;
  int rc;
  if (l->physical == PQ_BYTE_ARRAY) {
    uint8_t tmp[32];
    for (int64_t k = 0; k < n; k++) {
      uint32_t len;
      const uint8_t *v = phys_value(l, a, first + k, tmp, &len);
      if ((rc = buf_reserve(b, 4 + (size_t)len))) return rc;
      memcpy(b->data + b->len, &len, 4);
      if (len) memcpy(b->data + b->len + 4, v, len);
      b->len += 4 + (size_t)len;
      if ((rc = pqw_stats_update(&l->chunk_stats, l->order, v, len))) return rc;
    }
    return 0;
  }
  size_t w = phys_width(l);
  if ((rc = buf_reserve(b, w * (size_t)n))) return rc;
  uint8_t *start = b->data + b->len;
  if (l->conv == PQW_COPY) {
    memcpy(start, (const uint8_t *)a->buffers[1] + first * l->in_width, w * (size_t)n);
  } else {
    uint8_t tmp[32];
    for (int64_t k = 0; k < n; k++) {
      uint32_t len;
      const uint8_t *v = phys_value(l, a, first + k, tmp, &len);
      memcpy(start + (size_t)k * w, v, w);
    }
  }
  b->len += w * (size_t)n;
  return pqw_stats_update_range(&l->chunk_stats, l->order, start, (size_t)n, w);
}

int pqw_leaf_values(pqw_writer *w, pqw_leaf *l, const struct ArrowArray *a, int64_t start, int64_t n) {
  if (n <= 0) return 0;
  int64_t first = a->offset + start;
  if (l->dict_on) return put_dict(w, l, a, first, n);
  return put_plain(l, a, first, n);
}

int64_t pqw_leaf_page_estimate(const pqw_leaf *l) {
  int64_t bits = (int64_t)l->n_levels * (pq_bit_width((uint64_t)l->max_def) + pq_bit_width((uint64_t)l->max_rep));
  if (l->dict_on) bits += (int64_t)l->n_idx * pq_bit_width(l->dict.n);
  else if (l->physical == PQ_BOOLEAN) bits += (int64_t)l->values.len;
  else bits += (int64_t)l->values.len * 8;
  return bits / 8;
}

int pqw_leaf_rows_done(pqw_writer *w, pqw_leaf *l, int64_t rows) {
  l->page_rows += rows;
  if (l->dict_on && (int64_t)l->dict.plain.len > w->opts.dictionary_bytes) {
    /* The dictionary is full: this page still uses it, the rest of the
     * chunk is PLAIN. */
    int rc = pqw_leaf_flush_page(w, l);
    l->dict_on = false;
    return rc;
  }
  if (l->page_rows >= w->opts.page_rows || pqw_leaf_page_estimate(l) >= w->opts.page_bytes)
    return pqw_leaf_flush_page(w, l);
  return 0;
}

static int put_u32_le(delta_buf *b, uint32_t v) {
  uint8_t t[4];
  memcpy(t, &v, 4);
  return buf_append(b, t, 4);
}

/* Levels into b: RLE hybrid, with a 4-byte length in front for v1. */
static int encode_levels(delta_buf *b, const uint16_t *v, size_t n, int max, bool prefix) {
  size_t at = b->len;
  int rc;
  if (prefix && (rc = put_u32_le(b, 0)) != 0) return rc;
  if ((rc = pq_rle_encode_u16(b, v, n, pq_bit_width((uint64_t)max))) != 0) return rc;
  if (prefix) {
    uint32_t len = (uint32_t)(b->len - at - 4);
    memcpy(b->data + at, &len, 4);
  }
  return 0;
}

/* The values section of the page into b; returns the encoding in *enc. */
static int encode_values(pqw_writer *w, pqw_leaf *l, delta_buf *b, int *enc) {
  int rc;
  if (l->dict_on && l->n_idx > 0) {
    int width = pq_bit_width(l->dict.n > 1 ? l->dict.n - 1 : 1);
    *enc = PQ_ENC_RLE_DICTIONARY;
    if ((rc = buf_putc(b, (char)width))) return rc;
    return pq_rle_encode_u32(b, l->idx, l->n_idx, width);
  }
  if (l->physical == PQ_BOOLEAN) {
    if (w->opts.data_page_v2) {
      *enc = PQ_ENC_RLE;
      size_t at = b->len;
      if ((rc = put_u32_le(b, 0))) return rc;
      if ((rc = pq_rle_encode_u8(b, l->values.data, l->values.len, 1))) return rc;
      uint32_t len = (uint32_t)(b->len - at - 4);
      memcpy(b->data + at, &len, 4);
      return 0;
    }
    *enc = PQ_ENC_PLAIN;
    return pq_plain_bool_encode(b, l->values.data, l->values.len);
  }
  if (w->opts.delta_binary_packed && l->values.len > 0 &&
      (l->physical == PQ_INT32 || l->physical == PQ_INT64)) {
    delta_buf *t = &w->packed;
    t->len = 0;
    rc = l->physical == PQ_INT32 ? pq_delta_encode_i32(t, (const int32_t *)l->values.data, l->values.len / 4)
                                 : pq_delta_encode_i64(t, (const int64_t *)l->values.data, l->values.len / 8);
    if (rc) return rc;
    if (t->len < l->values.len) {
      *enc = PQ_ENC_DELTA_BINARY_PACKED;
      return buf_append(b, t->data, t->len);
    }
  }
  *enc = PQ_ENC_PLAIN;
  return buf_append(b, l->values.data, l->values.len);
}

static void reset_page(pqw_leaf *l) {
  l->n_levels = 0;
  l->values.len = 0;
  l->n_idx = 0;
  l->page_nulls = 0;
  l->page_rows = 0;
}

int pqw_leaf_flush_page(pqw_writer *w, pqw_leaf *l) {
  if (l->n_levels == 0) return 0;
  bool v2 = w->opts.data_page_v2;
  delta_buf *page = &w->page, *vals = v2 ? &w->vals : &w->page;
  page->len = 0;
  vals->len = 0;
  int rc, enc = PQ_ENC_PLAIN;
  size_t rep_len = 0, def_len = 0;
  if (l->max_rep > 0) {
    if ((rc = encode_levels(page, l->rep, l->n_levels, l->max_rep, !v2)) != 0) return rc;
    rep_len = page->len;
  }
  if (l->max_def > 0) {
    if ((rc = encode_levels(page, l->def, l->n_levels, l->max_def, !v2)) != 0) return rc;
    def_len = page->len - rep_len;
  }
  if ((rc = encode_values(w, l, vals, &enc)) != 0) return rc;
  if (l->dict_on && l->n_idx > 0) {
    l->dict_used = true;
    l->chunk_dict_values += (int64_t)l->n_idx;
    /* Nearly all values distinct after the first thousands: the dictionary
     * only costs time (hashing) and space (the values twice), so the rest
     * of the chunk is PLAIN. */
    if (l->chunk_dict_values >= 4096 && (int64_t)l->dict.n * 10 > l->chunk_dict_values * 9)
      l->dict_fallback = true;
  }
  /* v1: the whole body is compressed; v2: only the values. */
  const delta_buf *src = v2 ? vals : page;
  if ((rc = pqw_compress(&w->codec, src->data, src->len, &w->compressed)) != 0) return rc;
  size_t uncompressed = v2 ? page->len + vals->len : page->len;
  size_t compressed = v2 ? page->len + w->compressed.len : w->compressed.len;
  if (uncompressed > INT32_MAX || compressed > INT32_MAX)
    return err_set(DELTA_ELIMIT, "column %s: a page over 2 GiB", l->path_str);
  delta_buf *h = &w->header;
  h->len = 0;
  pq_tw t;
  pq_tw_init(&t, h);
  pq_tw_i32(&t, 1, v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA);
  pq_tw_i32(&t, 2, (int32_t)uncompressed);
  pq_tw_i32(&t, 3, (int32_t)compressed);
  if (!v2) {
    pq_tw_struct_begin(&t, 5);
    pq_tw_i32(&t, 1, (int32_t)l->n_levels);
    pq_tw_i32(&t, 2, enc);
    pq_tw_i32(&t, 3, PQ_ENC_RLE);
    pq_tw_i32(&t, 4, PQ_ENC_RLE);
    pq_tw_struct_end(&t);
  } else {
    pq_tw_struct_begin(&t, 8);
    pq_tw_i32(&t, 1, (int32_t)l->n_levels);
    pq_tw_i32(&t, 2, (int32_t)l->page_nulls);
    pq_tw_i32(&t, 3, (int32_t)l->page_rows);
    pq_tw_i32(&t, 4, enc);
    pq_tw_i32(&t, 5, (int32_t)def_len);
    pq_tw_i32(&t, 6, (int32_t)rep_len);
    pq_tw_bool(&t, 7, w->codec.codec != CODEC_UNCOMPRESSED);
    pq_tw_struct_end(&t);
  }
  pq_tw_struct_end(&t);
  if ((rc = pq_tw_finish(&t)) != 0) return rc;
  if ((rc = buf_append(&l->chunk, h->data, h->len)) != 0) return rc;
  if (v2 && (rc = buf_append(&l->chunk, page->data, page->len)) != 0) return rc;
  if ((rc = buf_append(&l->chunk, w->compressed.data, w->compressed.len)) != 0) return rc;
  l->chunk_uncompressed += (int64_t)(h->len + uncompressed);
  l->chunk_levels += (int64_t)l->n_levels;
  l->chunk_stats.num_values += (int64_t)l->n_levels;
  l->chunk_stats.null_count += l->page_nulls;
  l->encodings |= 1u << enc;
  if (l->max_def > 0 || l->max_rep > 0) l->encodings |= 1u << PQ_ENC_RLE;
  reset_page(l);
  if (l->dict_fallback) l->dict_on = false;
  return 0;
}

int pqw_leaf_flush_chunk(pqw_writer *w, pqw_leaf *l, pq_tw *t, int64_t *chunk_bytes, int64_t *uncompressed) {
  int rc = pqw_leaf_flush_page(w, l);
  if (rc) return rc;
  int64_t start = w->offset, dict_offset = -1, total_unc = l->chunk_uncompressed;
  if (l->dict_used) {
    const delta_buf *d = &l->dict.plain;
    if ((rc = pqw_compress(&w->codec, d->data, d->len, &w->compressed))) return rc;
    if (d->len > INT32_MAX || w->compressed.len > INT32_MAX)
      return err_set(DELTA_ELIMIT, "column %s: a dictionary over 2 GiB", l->path_str);
    delta_buf *h = &w->header;
    h->len = 0;
    pq_tw ht;
    pq_tw_init(&ht, h);
    pq_tw_i32(&ht, 1, PQ_PAGE_DICTIONARY);
    pq_tw_i32(&ht, 2, (int32_t)d->len);
    pq_tw_i32(&ht, 3, (int32_t)w->compressed.len);
    pq_tw_struct_begin(&ht, 7);
    pq_tw_i32(&ht, 1, (int32_t)l->dict.n);
    pq_tw_i32(&ht, 2, PQ_ENC_PLAIN);
    pq_tw_struct_end(&ht);
    pq_tw_struct_end(&ht);
    if ((rc = pq_tw_finish(&ht))) return rc;
    dict_offset = w->offset;
    total_unc += (int64_t)(h->len + d->len);
    if ((rc = pqw_sink_write(w, h->data, h->len))) return rc;
    if ((rc = pqw_sink_write(w, w->compressed.data, w->compressed.len))) return rc;
    l->encodings |= 1u << PQ_ENC_PLAIN;
  }
  int64_t data_offset = w->offset;
  if ((rc = pqw_sink_write(w, l->chunk.data, l->chunk.len))) return rc;
  int64_t total = w->offset - start;

  pq_tw_elem_struct_begin(t);
  pq_tw_i64(t, 2, start);
  pq_tw_struct_begin(t, 3);
  pq_tw_i32(t, 1, l->physical);
  int n_enc = __builtin_popcount(l->encodings);
  pq_tw_list_begin(t, 2, PQ_TT_I32, (uint32_t)n_enc);
  for (int e = 0; e < 32; e++)
    if (l->encodings & (1u << e)) pq_tw_elem_i32(t, e);
  pq_tw_list_begin(t, 3, PQ_TT_BINARY, (uint32_t)l->path_len);
  for (int i = 0; i < l->path_len; i++) pq_tw_elem_binary(t, l->path[i], strlen(l->path[i]));
  pq_tw_i32(t, 4, w->codec.codec);
  pq_tw_i64(t, 5, l->chunk_levels);
  pq_tw_i64(t, 6, total_unc);
  pq_tw_i64(t, 7, total);
  pq_tw_i64(t, 9, data_offset);
  if (dict_offset >= 0) pq_tw_i64(t, 11, dict_offset);
  pqw_stats_write(&l->chunk_stats, l->order, w->opts.stats_max_bytes, t, 12);
  pq_tw_struct_end(t);
  pq_tw_struct_end(t);

  *chunk_bytes = total;
  *uncompressed = total_unc;
  rc = pqw_stats_merge(&l->file_stats, &l->chunk_stats, l->order);
  pqw_stats_reset(&l->chunk_stats);
  pqw_dict_reset(&l->dict);
  l->dict_on = l->can_dict && !w->opts.no_dictionary;
  l->dict_used = false;
  l->dict_fallback = false;
  l->chunk_dict_values = 0;
  l->chunk.len = 0;
  l->chunk_levels = 0;
  l->chunk_uncompressed = 0;
  l->encodings = 0;
  return rc;
}

void pqw_leaf_free(pqw_leaf *l) {
  if (!l) return;
  for (int i = 0; i < l->path_len && l->path; i++) mem_free(l->path[i]);
  mem_free(l->path);
  mem_free(l->path_str);
  mem_free(l->def);
  mem_free(l->rep);
  mem_free(l->idx);
  buf_dispose(&l->values);
  buf_dispose(&l->chunk);
  pqw_dict_dispose(&l->dict);
  pqw_stats_dispose(&l->chunk_stats);
  pqw_stats_dispose(&l->file_stats);
  mem_free(l);
}
