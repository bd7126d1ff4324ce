/* The dictionary of a column chunk being written: values PLAIN-encoded in
 * insertion order, found again through an open-addressing hash table. */
#include <string.h>

#include "deltac/error.h"
#include "parquet/write_internal.h"
#include "util/alloc_internal.h"
#include "util/bytes.h"
#include "util/error_internal.h"

void pqw_dict_reset(pqw_dict *d) {
  if (d->slots) memset(d->slots, 0, (size_t)d->n_slots * sizeof *d->slots);
  d->n = 0;
  d->plain.len = 0;
}

void pqw_dict_dispose(pqw_dict *d) {
  delta_free(d->slots);
  delta_free(d->offsets);
  delta_buf_dispose(&d->plain);
  memset(d, 0, sizeof *d);
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
  const uint64_t m = 0x9E3779B97F4A7C15ull;
  uint64_t h = n * m;
  while (n >= 8) {
    h = (h ^ delta_load_le64(p)) * m;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  if (n) memcpy(&tail, p, n);
  h = (h ^ tail) * m;
  h ^= h >> 32;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 31;
  return h;
}

/* The value bytes of entry i (without the length prefix of byte arrays). */
static const uint8_t *entry(const pqw_dict *d, uint32_t i, bool byte_array, uint32_t *len) {
  const uint8_t *p = d->plain.data + d->offsets[i];
  if (byte_array) {
    *len = delta_load_le32(p);
    return p + 4;
  }
  *len = (uint32_t)((i + 1 < d->n ? d->offsets[i + 1] : d->plain.len) - d->offsets[i]);
  return p;
}

static int grow_slots(pqw_dict *d, bool byte_array) {
  uint32_t n = d->n_slots ? d->n_slots * 2 : 1024;
  uint32_t *s = delta_calloc(n, sizeof *s);
  if (!s) return DELTA_NOMEM();
  for (uint32_t i = 0; i < d->n; i++) {
    uint32_t len;
    const uint8_t *v = entry(d, i, byte_array, &len);
    uint32_t h = (uint32_t)hash_bytes(v, len) & (n - 1);
    while (s[h]) h = (h + 1) & (n - 1);
    s[h] = i + 1;
  }
  delta_free(d->slots);
  d->slots = s;
  d->n_slots = n;
  return 0;
}

int pqw_dict_insert(pqw_dict *d, const uint8_t *v, uint32_t len, bool byte_array, uint32_t *idx, bool *is_new) {
  if ((uint64_t)(d->n + 1) * 2 > d->n_slots) {
    int rc = grow_slots(d, byte_array);
    if (rc) return rc;
  }
  uint32_t mask = d->n_slots - 1;
  uint32_t h = (uint32_t)hash_bytes(v, len) & mask;
  for (;;) {
    uint32_t e = d->slots[h];
    if (!e) break;
    uint32_t el;
    const uint8_t *ev = entry(d, e - 1, byte_array, &el);
    if (el == len && memcmp(ev, v, len) == 0) {
      *idx = e - 1;
      *is_new = false;
      return 0;
    }
    h = (h + 1) & mask;
  }
  if (d->n == d->cap_offsets) {
    uint32_t cap = d->cap_offsets ? d->cap_offsets * 2 : 1024;
    uint32_t *o = delta_realloc(d->offsets, (size_t)cap * sizeof *o);
    if (!o) return DELTA_NOMEM();
    d->offsets = o;
    d->cap_offsets = cap;
  }
  if (d->plain.len > UINT32_MAX - 4 - (size_t)len)
    return delta_error_set(DELTA_ELIMIT, "parquet writer: dictionary over 4 GiB");
  d->offsets[d->n] = (uint32_t)d->plain.len;
  int rc = 0;
  if (byte_array) {
    uint8_t l4[4];
    memcpy(l4, &len, 4);
    rc = delta_buf_append(&d->plain, l4, 4);
  }
  if (!rc) rc = delta_buf_append(&d->plain, v, len);
  if (rc) return DELTA_NOMEM();
  d->slots[h] = d->n + 1;
  *idx = d->n++;
  *is_new = true;
  return 0;
}
