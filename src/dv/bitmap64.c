/*
 * The 64-bit row-index bitmap over CRoaring's 32-bit bitmaps, and Delta's
 * portable RoaringBitmapArray serialization (see bitmap64.h).
 */
#include "dv/bitmap64.h"

#include <roaring/roaring.h>
#include <string.h>

#include "util/alloc_internal.h"
#include "util/bytes.h"
#include "util/error_internal.h"

typedef struct {
  uint32_t key; /* the high 32 bits of every member */
  roaring_bitmap_t *bm;
} bucket;

struct delta_bitmap64 {
  bucket *buckets; /* ascending by key, no duplicates */
  size_t n, cap;
};

/* Roaring portable-format constants (RoaringFormatSpec). */
#define COOKIE_NO_RUNS 12346u
#define COOKIE_RUNS 12347u
#define NO_OFFSET_THRESHOLD 4u /* with runs, fewer containers have no offsets */
#define ARRAY_MAX 4096u        /* larger containers are bitsets (unless runs) */
#define BITSET_BYTES 8192u

static inline uint16_t load_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static inline void store_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static inline void store_le64(uint8_t *p, uint64_t v) {
  store_le32(p, (uint32_t)v);
  store_le32(p + 4, (uint32_t)(v >> 32));
}

int dv_bitmap64_new(delta_bitmap64 **out) {
  *out = mem_calloc(1, sizeof(delta_bitmap64));
  return *out ? 0 : DELTA_NOMEM();
}

void dv_bitmap64_free(delta_bitmap64 *b) {
  if (!b) return;
  for (size_t i = 0; i < b->n; i++) roaring_bitmap_free(b->buckets[i].bm);
  mem_free(b->buckets);
  mem_free(b);
}

/* Index of the first bucket whose key is >= key (b->n if none). */
static size_t lower_bound(const delta_bitmap64 *b, uint32_t key) {
  size_t lo = 0, hi = b->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->buckets[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static const roaring_bitmap_t *find(const delta_bitmap64 *b, uint32_t key) {
  size_t i = lower_bound(b, key);
  return i < b->n && b->buckets[i].key == key ? b->buckets[i].bm : NULL;
}

/* The bucket for `key`, created (empty) if missing. */
static int get_bucket(delta_bitmap64 *b, uint32_t key, roaring_bitmap_t **out) {
  size_t i = lower_bound(b, key);
  if (i < b->n && b->buckets[i].key == key) {
    *out = b->buckets[i].bm;
    return 0;
  }
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4;
    bucket *nb = mem_realloc(b->buckets, cap * sizeof(bucket));
    if (!nb) return DELTA_NOMEM();
    b->buckets = nb;
    b->cap = cap;
  }
  roaring_bitmap_t *bm = roaring_bitmap_create();
  if (!bm) return DELTA_NOMEM();
  memmove(b->buckets + i + 1, b->buckets + i, (b->n - i) * sizeof(bucket));
  b->buckets[i].key = key;
  b->buckets[i].bm = bm;
  b->n++;
  *out = bm;
  return 0;
}

int dv_bitmap64_add(delta_bitmap64 *b, uint64_t row) {
  if (row > DELTA_BITMAP64_MAX_ROW)
    return err_set(DELTA_EINVAL, "row index %llu is too large for a deletion vector",
                           (unsigned long long)row);
  roaring_bitmap_t *bm;
  int rc = get_bucket(b, (uint32_t)(row >> 32), &bm);
  if (rc) return rc;
  roaring_bitmap_add(bm, (uint32_t)row);
  return 0;
}

int dv_bitmap64_add_range(delta_bitmap64 *b, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return 0;
  if (hi - 1 > DELTA_BITMAP64_MAX_ROW)
    return err_set(DELTA_EINVAL, "row index %llu is too large for a deletion vector",
                           (unsigned long long)(hi - 1));
  /* One CRoaring range insertion per 2^32-row bucket the range touches. */
  while (lo < hi) {
    uint64_t bucket_end = (lo | 0xFFFFFFFFu) + 1;
    uint64_t end = hi < bucket_end ? hi : bucket_end;
    roaring_bitmap_t *bm;
    int rc = get_bucket(b, (uint32_t)(lo >> 32), &bm);
    if (rc) return rc;
    roaring_bitmap_add_range_closed(bm, (uint32_t)lo, (uint32_t)(end - 1));
    lo = end;
  }
  return 0;
}

bool dv_bitmap64_contains(const delta_bitmap64 *b, uint64_t row) {
  if (!b) return false;
  const roaring_bitmap_t *bm = find(b, (uint32_t)(row >> 32));
  return bm && row <= DELTA_BITMAP64_MAX_ROW && roaring_bitmap_contains(bm, (uint32_t)row);
}

uint64_t dv_bitmap64_cardinality(const delta_bitmap64 *b) {
  uint64_t card = 0;
  for (size_t i = 0; b && i < b->n; i++) card += roaring_bitmap_get_cardinality(b->buckets[i].bm);
  return card;
}

uint64_t dv_bitmap64_count_range(const delta_bitmap64 *b, uint64_t start, uint64_t n) {
  if (!b || n == 0) return 0;
  uint64_t end = start + n < start ? UINT64_MAX : start + n; /* exclusive; saturate */
  uint64_t count = 0;
  for (size_t i = lower_bound(b, (uint32_t)(start >> 32)); i < b->n; i++) {
    uint64_t base = (uint64_t)b->buckets[i].key << 32;
    if (base >= end) break;
    uint64_t lo = start > base ? start - base : 0;
    uint64_t hi = end - base < ((uint64_t)1 << 32) ? end - base : ((uint64_t)1 << 32);
    if (lo < hi) count += roaring_bitmap_range_cardinality(b->buckets[i].bm, lo, hi);
  }
  return count;
}

bool dv_bitmap64_equals(const delta_bitmap64 *a, const delta_bitmap64 *b) {
  /* Empty buckets may exist (add_range of nothing does not make one, but a
   * bucket may be emptied by nothing else either); compare non-empty ones. */
  size_t i = 0, j = 0;
  size_t an = a ? a->n : 0, bn = b ? b->n : 0;
  for (;;) {
    while (i < an && roaring_bitmap_is_empty(a->buckets[i].bm)) i++;
    while (j < bn && roaring_bitmap_is_empty(b->buckets[j].bm)) j++;
    if (i == an || j == bn) return i == an && j == bn;
    if (a->buckets[i].key != b->buckets[j].key) return false;
    if (!roaring_bitmap_equals(a->buckets[i].bm, b->buckets[j].bm)) return false;
    i++;
    j++;
  }
}

int dv_bitmap64_iterate(const delta_bitmap64 *b, delta_bitmap64_cb cb, void *payload) {
  uint32_t vals[256];
  for (size_t i = 0; b && i < b->n; i++) {
    uint64_t base = (uint64_t)b->buckets[i].key << 32;
    roaring_uint32_iterator_t it;
    roaring_init_iterator(b->buckets[i].bm, &it);
    uint32_t got;
    while ((got = roaring_read_uint32_iterator(&it, vals, 256)) > 0) {
      for (uint32_t k = 0; k < got; k++) {
        int rc = cb(base | vals[k], payload);
        if (rc) return rc;
      }
    }
  }
  return 0;
}

/*
 * Call set(out, row - start) for every member in [start, start + n): visits
 * only the members (CRoaring's iterator skips to the first member >= start
 * and reads values in blocks), so a batch costs O(members in it).
 */
typedef void (*mark_fn)(uint8_t *out, uint64_t i);

static void mark_byte_one(uint8_t *out, uint64_t i) { out[i] = 1; }
static void mark_byte_zero(uint8_t *out, uint64_t i) { out[i] = 0; }
static void mark_bit(uint8_t *out, uint64_t i) { out[i >> 3] |= (uint8_t)(1u << (i & 7)); }

static int visit_range(const delta_bitmap64 *b, uint64_t start, uint64_t n, uint8_t *out,
                       mark_fn mark) {
  if (n == 0 || !b) return 0;
  uint64_t end = start + n; /* exclusive; overflow was refused by the caller */
  uint32_t vals[256];
  for (size_t i = lower_bound(b, (uint32_t)(start >> 32)); i < b->n; i++) {
    uint64_t base = (uint64_t)b->buckets[i].key << 32;
    if (base >= end) break;
    uint32_t lo = start > base ? (uint32_t)(start - base) : 0;
    /* Exclusive upper bound inside the bucket (2^32 when the range goes on). */
    uint64_t lim = end - base < ((uint64_t)1 << 32) ? end - base : ((uint64_t)1 << 32);
    roaring_uint32_iterator_t it;
    roaring_init_iterator(b->buckets[i].bm, &it);
    if (!roaring_move_uint32_iterator_equalorlarger(&it, lo)) continue;
    /* Ask for no more values than the range can still hold, so a batch
     * near the end of a dense region does not decode far past it. */
    while (it.has_value && it.current_value < lim) {
      uint64_t room = lim - it.current_value; /* at most this many members left */
      uint32_t want = room < 256 ? (uint32_t)room : 256;
      uint32_t got = roaring_read_uint32_iterator(&it, vals, want);
      uint32_t k = 0;
      for (; k < got && vals[k] < lim; k++) mark(out, base + vals[k] - start);
      if (k < got || got < want) break;
    }
  }
  return 0;
}

static int check_range(uint64_t start, uint64_t n, const uint8_t *out) {
  if (start + n < start) return err_set(DELTA_EINVAL, "row range overflows");
  if (n && !out) return err_set(DELTA_EINVAL, "no output buffer for the row mask");
  return 0;
}

int dv_bitmap64_mask(const delta_bitmap64 *b, uint64_t start, uint64_t n, uint8_t *out) {
  int rc = check_range(start, n, out);
  if (rc) return rc;
  if (n) memset(out, 0, (size_t)n);
  return visit_range(b, start, n, out, mark_byte_one);
}

int dv_bitmap64_keep(const delta_bitmap64 *b, uint64_t start, uint64_t n, uint8_t *out) {
  int rc = check_range(start, n, out);
  if (rc) return rc;
  if (n) memset(out, 1, (size_t)n);
  return visit_range(b, start, n, out, mark_byte_zero);
}

int dv_bitmap64_mask_bits(const delta_bitmap64 *b, uint64_t start, uint64_t n, uint8_t *bits) {
  int rc = check_range(start, n, bits);
  if (rc) return rc;
  if (n) memset(bits, 0, (size_t)(n / 8 + (n % 8 != 0)));
  return visit_range(b, start, n, bits, mark_bit);
}

int dv_bitmap64_andnot(const delta_bitmap64 *a, const delta_bitmap64 *b, delta_bitmap64 **out) {
  delta_bitmap64 *r = NULL;
  int rc = dv_bitmap64_new(&r);
  if (rc) return rc;
  for (size_t i = 0; a && i < a->n; i++) {
    const roaring_bitmap_t *other = b ? find(b, a->buckets[i].key) : NULL;
    roaring_bitmap_t *diff = other ? roaring_bitmap_andnot(a->buckets[i].bm, other)
                                   : roaring_bitmap_copy(a->buckets[i].bm);
    if (!diff) {
      rc = DELTA_NOMEM();
      goto done;
    }
    if (roaring_bitmap_is_empty(diff)) {
      roaring_bitmap_free(diff);
      continue;
    }
    if (r->n == r->cap) {
      size_t cap = r->cap ? r->cap * 2 : 4;
      bucket *nb = mem_realloc(r->buckets, cap * sizeof(bucket));
      if (!nb) {
        roaring_bitmap_free(diff);
        rc = DELTA_NOMEM();
        goto done;
      }
      r->buckets = nb;
      r->cap = cap;
    }
    /* a's keys ascend, so appending keeps r sorted. */
    r->buckets[r->n].key = a->buckets[i].key;
    r->buckets[r->n].bm = diff;
    r->n++;
  }
done:
  if (rc) {
    dv_bitmap64_free(r);
    r = NULL;
  }
  *out = r;
  return rc;
}

void dv_bitmap64_optimize(delta_bitmap64 *b) {
  for (size_t i = 0; b && i < b->n; i++) {
    roaring_bitmap_run_optimize(b->buckets[i].bm);
    roaring_bitmap_shrink_to_fit(b->buckets[i].bm);
  }
}

/* ------------------------------------------------------------ serialization */

size_t dv_bitmap64_serialized_size(const delta_bitmap64 *b) {
  size_t size = 4 + 8;
  for (size_t i = 0; b && i < b->n; i++)
    if (!roaring_bitmap_is_empty(b->buckets[i].bm))
      size += 4 + roaring_bitmap_portable_size_in_bytes(b->buckets[i].bm);
  return size;
}

int dv_bitmap64_serialize(const delta_bitmap64 *b, delta_buf *out) {
  size_t old_len = out->len;
  size_t size = dv_bitmap64_serialized_size(b);
  int rc = buf_reserve(out, size);
  if (rc) return rc;
  uint8_t *p = out->data + out->len;
  uint64_t count = 0;
  for (size_t i = 0; b && i < b->n; i++) count += !roaring_bitmap_is_empty(b->buckets[i].bm);
  store_le32(p, DELTA_BITMAP64_MAGIC);
  store_le64(p + 4, count);
  p += 12;
  for (size_t i = 0; b && i < b->n; i++) {
    if (roaring_bitmap_is_empty(b->buckets[i].bm)) continue;
    store_le32(p, b->buckets[i].key);
    p += 4;
    p += roaring_bitmap_portable_serialize(b->buckets[i].bm, (char *)p);
  }
  if ((size_t)(p - (out->data + old_len)) != size) {
    /* CRoaring wrote a different size than it announced: never expected. */
    out->len = old_len;
    return err_set(DELTA_ERROR, "deletion vector serialization size mismatch");
  }
  out->len += size;
  return 0;
}

/*
 * Check one 32-bit bitmap in the portable format at p[0..len) and give its
 * exact size and cardinality. Every rule CRoaring's invariants depend on is
 * checked here, because CRoaring 0.2's "safe" deserializer only bounds its
 * reads. `off` is p's position in the whole input, for messages.
 */
static int check_portable32(const uint8_t *p, size_t len, size_t off, const char *what,
                            size_t *used, uint64_t *card_out) {
#define NEED(n, thing)                                                                      \
  do {                                                                                      \
    if ((n) > len - pos)                                                                    \
      return err_set(DELTA_ECORRUPT, "%s: truncated %s at byte %zu", what, thing, \
                             off + pos);                                                    \
  } while (0)
  size_t pos = 0;
  NEED(4, "32-bit bitmap cookie");
  uint32_t cookie = bytes_load_le32(p);
  size_t n;
  const uint8_t *runs = NULL; /* the run-container bitset, when present */
  pos = 4;
  if ((cookie & 0xFFFFu) == COOKIE_RUNS) {
    n = (size_t)(cookie >> 16) + 1;
    NEED((n + 7) / 8, "run container bitset");
    runs = p + pos;
    pos += (n + 7) / 8;
  } else if (cookie == COOKIE_NO_RUNS) {
    NEED(4, "container count");
    uint32_t count = bytes_load_le32(p + pos);
    if (count > 65536)
      return err_set(DELTA_ECORRUPT, "%s: %u containers in a 32-bit bitmap at byte %zu",
                             what, count, off + pos);
    n = count;
    pos += 4;
  } else {
    return err_set(DELTA_ECORRUPT, "%s: bad 32-bit bitmap cookie %u at byte %zu", what,
                           cookie, off);
  }
  NEED(4 * n, "container headers");
  const uint8_t *hdr = p + pos;
  pos += 4 * n;
  /* Offsets are redundant with the sizes; readers skip them. */
  if (!runs || n >= NO_OFFSET_THRESHOLD) {
    NEED(4 * n, "container offsets");
    pos += 4 * n;
  }
  uint64_t card = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t key = load_le16(hdr + 4 * i);
    uint32_t c = (uint32_t)load_le16(hdr + 4 * i + 2) + 1;
    if (i > 0 && key <= load_le16(hdr + 4 * (i - 1)))
      return err_set(DELTA_ECORRUPT, "%s: container keys not ascending at byte %zu", what,
                             off + (size_t)(hdr - p) + 4 * i);
    if (runs && (runs[i / 8] >> (i % 8) & 1)) {
      NEED(2, "run count");
      uint32_t nr = load_le16(p + pos);
      pos += 2;
      if (nr == 0)
        return err_set(DELTA_ECORRUPT, "%s: empty run container at byte %zu", what,
                               off + pos - 2);
      NEED(4 * (size_t)nr, "runs");
      int64_t prev_end = -1;
      for (uint32_t r = 0; r < nr; r++) {
        uint32_t start = load_le16(p + pos + 4 * r), rlen = load_le16(p + pos + 4 * r + 2);
        /* Sorted, non-overlapping, and inside the 16-bit container. (The
         * header's cardinality of a run container is not used by readers,
         * so it is not required to match.) */
        if ((int64_t)start <= prev_end || start + rlen > 0xFFFFu)
          return err_set(DELTA_ECORRUPT, "%s: bad run at byte %zu", what,
                                 off + pos + 4 * r);
        prev_end = start + rlen;
        card += rlen + 1;
      }
      pos += 4 * (size_t)nr;
    } else if (c <= ARRAY_MAX) {
      NEED(2 * (size_t)c, "array container");
      const uint8_t *a = p + pos;
      for (uint32_t k = 1; k < c; k++)
        if (load_le16(a + 2 * k) <= load_le16(a + 2 * (k - 1)))
          return err_set(DELTA_ECORRUPT,
                                 "%s: array container values not ascending at byte %zu", what,
                                 off + pos + 2 * k);
      pos += 2 * (size_t)c;
      card += c;
    } else {
      NEED(BITSET_BYTES, "bitset container");
      uint32_t pop = 0;
      for (size_t w = 0; w < BITSET_BYTES; w += 8)
        pop += (uint32_t)__builtin_popcountll(bytes_load_le64(p + pos + w));
      if (pop != c)
        return err_set(DELTA_ECORRUPT,
                               "%s: bitset container holds %u values, header says %u at byte %zu",
                               what, pop, c, off + pos);
      pos += BITSET_BYTES;
      card += c;
    }
  }
  *used = pos;
  *card_out = card;
  return 0;
#undef NEED
}

/* Parse the 32-bit bitmap at data[pos..] into bucket `key` of b (whose
 * bucket array has room), setting *used to its size. */
static int read_bucket(delta_bitmap64 *b, uint32_t key, const uint8_t *data, size_t len,
                       size_t pos, const char *what, size_t *used) {
  uint64_t card = 0;
  int rc = check_portable32(data + pos, len - pos, pos, what, used, &card);
  if (rc) return rc;
  roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe((const char *)data + pos, *used);
  /* The bytes were checked, so only an allocation can have failed. */
  if (!bm) return DELTA_NOMEM();
  if (roaring_bitmap_get_cardinality(bm) != card) {
    roaring_bitmap_free(bm);
    return err_set(DELTA_ECORRUPT, "%s: inconsistent 32-bit bitmap at byte %zu", what, pos);
  }
  if (card == 0) { /* an empty bucket adds nothing; keep the array tight */
    roaring_bitmap_free(bm);
    return 0;
  }
  b->buckets[b->n].key = key;
  b->buckets[b->n].bm = bm;
  b->n++;
  return 0;
}

static int alloc_buckets(delta_bitmap64 *b, uint64_t nb) {
  if (!nb) return 0;
  b->buckets = mem_calloc((size_t)nb, sizeof(bucket));
  if (!b->buckets) return DELTA_NOMEM();
  b->cap = (size_t)nb;
  return 0;
}

/*
 * Delta's older "native" layout (magic 1681511376): a 4-byte bitmap count,
 * then per bitmap (its index is the high key) a 4-byte size and a portable
 * 32-bit bitmap. Delta Spark writes the integers little endian; the inline
 * example of PROTOCOL.md ("JSON Example 3") has them big endian, magic
 * included, so the magic's byte order decides.
 */
static int read_native(delta_bitmap64 *b, const uint8_t *data, size_t len, bool big_endian,
                       const char *what) {
  if (len < 8) return err_set(DELTA_ECORRUPT, "%s: bitmap too short (%zu bytes)", what, len);
  uint32_t nb = big_endian ? bytes_load_be32(data + 4) : bytes_load_le32(data + 4);
  /* Each bitmap takes at least 12 bytes (size, cookie, container count). */
  if (nb > (len - 8) / 12)
    return err_set(DELTA_ECORRUPT, "%s: %u bitmaps cannot fit in %zu bytes", what, nb, len);
  int rc = alloc_buckets(b, nb);
  if (rc) return rc;
  size_t pos = 8;
  for (uint32_t i = 0; i < nb; i++) {
    if (len - pos < 4)
      return err_set(DELTA_ECORRUPT, "%s: truncated bitmap size at byte %zu", what, pos);
    uint32_t size = big_endian ? bytes_load_be32(data + pos) : bytes_load_le32(data + pos);
    pos += 4;
    if (size > len - pos)
      return err_set(DELTA_ECORRUPT, "%s: bitmap size %u past the end at byte %zu", what,
                             size, pos - 4);
    size_t used = 0;
    if ((rc = read_bucket(b, i, data, pos + size, pos, what, &used))) return rc;
    if (used != size)
      return err_set(DELTA_ECORRUPT, "%s: bitmap at byte %zu has %zu bytes, size says %u",
                             what, pos, used, size);
    pos += size;
  }
  if (pos != len)
    return err_set(DELTA_ECORRUPT, "%s: %zu unexpected bytes after the bitmap at byte %zu",
                           what, len - pos, pos);
  return 0;
}

static int read_portable(delta_bitmap64 *b, const uint8_t *data, size_t len, const char *what) {
  uint64_t nb = bytes_load_le64(data + 4);
  /* Each bucket takes at least 12 bytes (key, cookie, container count):
   * refuse counts the input cannot hold before allocating for them. */
  if (nb > (len - 12) / 12)
    return err_set(DELTA_ECORRUPT, "%s: %llu buckets cannot fit in %zu bytes", what,
                           (unsigned long long)nb, len);
  int rc = alloc_buckets(b, nb);
  if (rc) return rc;
  size_t pos = 12;
  int64_t prev_key = -1;
  for (uint64_t i = 0; i < nb; i++) {
    if (len - pos < 4)
      return err_set(DELTA_ECORRUPT, "%s: truncated bucket key at byte %zu", what, pos);
    uint32_t key = bytes_load_le32(data + pos);
    if (key & 0x80000000u)
      return err_set(DELTA_ECORRUPT, "%s: bucket key %u has its top bit set at byte %zu",
                             what, key, pos);
    if ((int64_t)key <= prev_key)
      return err_set(DELTA_ECORRUPT, "%s: bucket keys not ascending at byte %zu", what,
                             pos);
    prev_key = key;
    pos += 4;
    size_t used = 0;
    if ((rc = read_bucket(b, key, data, len, pos, what, &used))) return rc;
    pos += used;
  }
  if (pos != len)
    return err_set(DELTA_ECORRUPT, "%s: %zu unexpected bytes after the bitmap at byte %zu",
                           what, len - pos, pos);
  return 0;
}

int dv_bitmap64_deserialize(delta_bitmap64 **out, const uint8_t *data, size_t len,
                               const char *what) {
  delta_bitmap64 *b = NULL;
  *out = NULL;
  if (!what) what = "deletion vector";
  if (len < 8) return err_set(DELTA_ECORRUPT, "%s: bitmap too short (%zu bytes)", what, len);
  uint32_t magic = bytes_load_le32(data);
  bool native_be = bytes_load_be32(data) == DELTA_BITMAP64_MAGIC_NATIVE;
  if (magic != DELTA_BITMAP64_MAGIC && magic != DELTA_BITMAP64_MAGIC_NATIVE && !native_be)
    return err_set(DELTA_ECORRUPT, "%s: bad magic number %u", what, magic);
  if (magic == DELTA_BITMAP64_MAGIC && len < 12)
    return err_set(DELTA_ECORRUPT, "%s: bitmap too short (%zu bytes)", what, len);
  int rc = dv_bitmap64_new(&b);
  if (rc) return rc;
  if (magic == DELTA_BITMAP64_MAGIC) rc = read_portable(b, data, len, what);
  else rc = read_native(b, data, len, native_be, what);
  if (rc) dv_bitmap64_free(b);
  else *out = b;
  return rc;
}
