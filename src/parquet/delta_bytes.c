/*
 * DELTA_LENGTH_BYTE_ARRAY (DBP lengths, then the bytes back to back) and
 * DELTA_BYTE_ARRAY (DBP prefix lengths, then the suffixes as
 * DELTA_LENGTH_BYTE_ARRAY; value i = prefix of value i-1 + suffix i).
 *
 * Init walks each length stream once, structurally, to find where the next
 * section starts; the lengths themselves are decoded in small chunks as
 * values are read, so memory never depends on the claimed value count.
 */
#include <string.h>

#include "deltac/error.h"
#include "parquet/encoding.h"
#include "util/error_internal.h"

#define DLBA "DELTA_LENGTH_BYTE_ARRAY"
#define DBA "DELTA_BYTE_ARRAY"

/* Lengths are decoded this many at a time, on the stack. */
#define PQ_CHUNK 256

/* Append a ++ b as one value and push its end offset. */
static int builder_push(pq_binary_builder *out, const uint8_t *a, size_t alen, const uint8_t *b,
                        size_t blen) {
  size_t end = out->data.len + alen + blen;
  if (end > INT32_MAX)
    return err_set(DELTA_ELIMIT, "byte array data past 2 GiB does not fit int32 offsets");
  int rc = buf_reserve(&out->data, alen + blen);
  if (rc) return rc;
  if (alen) memcpy(out->data.data + out->data.len, a, alen);
  if (blen) memcpy(out->data.data + out->data.len + alen, b, blen);
  out->data.len = end;
  int32_t off = (int32_t)end;
  return buf_append(&out->offsets, &off, sizeof off);
}

int pq_dlba_init(pq_dlba_decoder *d, const uint8_t *data, size_t len) {
  memset(d, 0, sizeof *d);
  int rc = pq_dbp_init(&d->lens, data, len);
  if (rc) return err_prefix(DLBA " lengths");
  pq_dbp_decoder walk = d->lens;
  const uint8_t *bytes;
  if ((rc = pq_dbp_skip_to_end(&walk, &bytes))) return err_prefix(DLBA " lengths");
  d->count = pq_dbp_total(&d->lens);
  d->p = bytes;
  d->end = data ? data + len : data;
  return 0;
}

/* Decode k (<= PQ_CHUNK) lengths, each 0..bytes left, without consuming bytes. */
static int dlba_lengths(pq_dlba_decoder *d, int32_t *lens, size_t k) {
  if (pq_dbp_get_i32(&d->lens, lens, k)) return err_prefix(DLBA " lengths");
  size_t left = (size_t)(d->end - d->p), sum = 0;
  for (size_t j = 0; j < k; j++) {
    if (lens[j] < 0) return err_set(DELTA_ECORRUPT, DLBA ": negative length %d", lens[j]);
    sum += (size_t)lens[j];
    if (sum > left)
      return err_set(DELTA_ECORRUPT, DLBA ": values run past the page end (%zu bytes left)",
                             left);
  }
  return 0;
}

int pq_dlba_get(pq_dlba_decoder *d, pq_binary_builder *out, size_t n) {
  if (n > d->count - d->pos)
    return err_set(DELTA_ECORRUPT, DLBA ": %zu values wanted but only %llu left", n,
                           (unsigned long long)(d->count - d->pos));
  while (n) {
    int32_t lens[PQ_CHUNK];
    size_t k = n < PQ_CHUNK ? n : PQ_CHUNK;
    int rc = dlba_lengths(d, lens, k);
    if (rc) return rc;
    if ((rc = buf_reserve(&out->offsets, k * sizeof(int32_t)))) return rc;
    for (size_t j = 0; j < k; j++) {
      if ((rc = builder_push(out, NULL, 0, d->p, (size_t)lens[j]))) return rc;
      d->p += lens[j];
    }
    d->pos += k;
    n -= k;
  }
  return 0;
}

void pq_dlba_free(pq_dlba_decoder *d) {
  if (!d) return;
  /* Nothing is allocated any more; `lengths` stays NULL. */
  d->lengths = NULL;
}

int pq_dba_init(pq_dba_decoder *d, const uint8_t *data, size_t len) {
  memset(d, 0, sizeof *d);
  int rc = pq_dbp_init(&d->prefixes, data, len);
  if (rc) return err_prefix(DBA " prefix lengths");
  pq_dbp_decoder walk = d->prefixes;
  const uint8_t *mid;
  if ((rc = pq_dbp_skip_to_end(&walk, &mid))) return err_prefix(DBA " prefix lengths");
  const uint8_t *end = data ? data + len : data;
  if ((rc = pq_dlba_init(&d->suffixes, mid, (size_t)(end - mid))))
    return err_prefix(DBA " suffixes");
  d->count = pq_dbp_total(&d->prefixes);
  if (d->count != d->suffixes.count)
    return err_set(DELTA_ECORRUPT, DBA ": %llu prefix lengths but %llu suffixes",
                           (unsigned long long)d->count, (unsigned long long)d->suffixes.count);
  return 0;
}

/* Decode up to n values; each is handed to the builder (out != NULL) or
 * written as exactly `width` bytes to fixed_out. */
static int dba_get(pq_dba_decoder *d, pq_binary_builder *out, uint8_t *fixed_out, size_t n,
                   int32_t width) {
  if (n > d->count - d->pos)
    return err_set(DELTA_ECORRUPT, DBA ": %zu values wanted but only %llu left", n,
                           (unsigned long long)(d->count - d->pos));
  pq_dlba_decoder *s = &d->suffixes;
  while (n) {
    int32_t prefix[PQ_CHUNK], lens[PQ_CHUNK];
    size_t k = n < PQ_CHUNK ? n : PQ_CHUNK;
    if (pq_dbp_get_i32(&d->prefixes, prefix, k)) return err_prefix(DBA " prefix lengths");
    int rc = dlba_lengths(s, lens, k);
    if (rc) return err_prefix(DBA " suffixes");
    for (size_t j = 0; j < k; j++) {
      if (prefix[j] < 0 || (size_t)prefix[j] > d->last.len)
        return err_set(DELTA_ECORRUPT,
                               DBA ": prefix length %d longer than the previous value (%zu)",
                               prefix[j], d->last.len);
      size_t pl = (size_t)prefix[j], sl = (size_t)lens[j];
      if (out) {
        if ((rc = builder_push(out, d->last.data, pl, s->p, sl))) return rc;
      } else {
        if (pl + sl != (size_t)width)
          return err_set(DELTA_ECORRUPT,
                                 DBA ": value of %zu bytes in a column of fixed width %d", pl + sl,
                                 (int)width);
        if (pl) memcpy(fixed_out, d->last.data, pl);
        if (sl) memcpy(fixed_out + pl, s->p, sl);
        fixed_out += width;
      }
      /* The new value becomes the previous one: keep its prefix, add suffix. */
      d->last.len = pl;
      if ((rc = buf_append(&d->last, s->p, sl))) return rc;
      s->p += sl;
    }
    s->pos += k;
    d->pos += k;
    n -= k;
  }
  return 0;
}

int pq_dba_get(pq_dba_decoder *d, pq_binary_builder *out, size_t n) {
  return dba_get(d, out, NULL, n, 0);
}

int pq_dba_get_fixed(pq_dba_decoder *d, uint8_t *out, size_t n, int32_t width) {
  if (width < 0) return err_set(DELTA_EINVAL, DBA ": fixed width %d", (int)width);
  return dba_get(d, NULL, out, n, width);
}

void pq_dba_free(pq_dba_decoder *d) {
  if (!d) return;
  pq_dlba_free(&d->suffixes);
  buf_dispose(&d->last);
}
