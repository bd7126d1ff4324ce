/* The dictionary of a column chunk being written: values PLAIN-encoded in
 * insertion order, found again through an open-addressing hash table
 * (linear probing, at most half full) that keeps each slot's hash so most
 * probes never touch the values. */
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
  mem_free(d->slots);
  mem_free(d->slot_hash);
  mem_free(d->offsets);
  buf_dispose(&d->plain);
  memset(d, 0, sizeof *d);
}

static inline uint32_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  return (uint32_t)h;
}

static uint32_t hash_value(const uint8_t *p, size_t n) {
  if (n == 8) return mix64(bytes_load_le64(p));
  if (n == 4) return mix64(bytes_load_le32(p) * 0x9E3779B97F4A7C15ull);
  const uint64_t m = 0x9E3779B97F4A7C15ull;
  uint64_t h = n * m;
  while (n >= 8) {
    h = (h ^ bytes_load_le64(p)) * m;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  if (n) memcpy(&tail, p, n);
  return mix64((h ^ tail) * m);
}

/* The value bytes of entry i (without the length prefix of byte arrays). */
static inline const uint8_t *entry(const pqw_dict *d, uint32_t i, bool byte_array, uint32_t width, uint32_t *len) {
  if (byte_array) {
    const uint8_t *p = d->plain.data + d->offsets[i];
    *len = bytes_load_le32(p);
    return p + 4;
  }
  *len = width;
  return d->plain.data + (size_t)i * width;
}

static int grow_slots(pqw_dict *d) {
  uint32_t n = d->n_slots ? d->n_slots * 2 : 1024;
  uint32_t *s = mem_calloc(n, sizeof *s);
  uint32_t *sh = mem_malloc((size_t)n * sizeof *sh);
  if (!s || !sh) {
    mem_free(s);
    mem_free(sh);
    return DELTA_NOMEM();
  }
  for (uint32_t i = 0; i < d->n_slots; i++) {
    if (!d->slots[i]) continue;
    uint32_t h = d->slot_hash[i], k = h & (n - 1);
    while (s[k]) k = (k + 1) & (n - 1);
    s[k] = d->slots[i];
    sh[k] = h;
  }
  mem_free(d->slots);
  mem_free(d->slot_hash);
  d->slots = s;
  d->slot_hash = sh;
  d->n_slots = n;
  return 0;
}

int pqw_dict_insert(pqw_dict *d, const uint8_t *v, uint32_t len, bool byte_array, uint32_t *idx, bool *is_new) {
  if ((uint64_t)(d->n + 1) * 2 > d->n_slots) {
    int rc = grow_slots(d);
    if (rc) return rc;
  }
  uint32_t mask = d->n_slots - 1;
  uint32_t hv = hash_value(v, len);
  uint32_t h = hv & mask;
  for (;;) {
    uint32_t e = d->slots[h];
    if (!e) break;
    if (d->slot_hash[h] == hv) {
      uint32_t el;
      const uint8_t *ev = entry(d, e - 1, byte_array, len, &el);
      bool same = el == len && (len == 8   ? memcmp(ev, v, 8) == 0
                                : len == 4 ? memcmp(ev, v, 4) == 0
                                           : memcmp(ev, v, len) == 0);
      if (same) {
        *idx = e - 1;
        *is_new = false;
        return 0;
      }
    }
    h = (h + 1) & mask;
  }
  if (d->plain.len > UINT32_MAX - 4 - (size_t)len)
    return err_set(DELTA_ELIMIT, "parquet writer: dictionary over 4 GiB");
  if (byte_array) {
    if (d->n == d->cap_offsets) {
      uint32_t cap = d->cap_offsets ? d->cap_offsets * 2 : 1024;
      uint32_t *o = mem_realloc(d->offsets, (size_t)cap * sizeof *o);
      if (!o) return DELTA_NOMEM();
      d->offsets = o;
      d->cap_offsets = cap;
    }
    d->offsets[d->n] = (uint32_t)d->plain.len;
    uint8_t l4[4];
    memcpy(l4, &len, 4);
    if (buf_append(&d->plain, l4, 4) != 0) return DELTA_NOMEM();
  }
  if (buf_append(&d->plain, v, len) != 0) return DELTA_NOMEM();
  d->slots[h] = d->n + 1;
  d->slot_hash[h] = hv;
  *idx = d->n++;
  *is_new = true;
  return 0;
}
