/* Fuzz target for src/dv: the first input byte picks a mode.
 *  even: the rest is a serialized RoaringBitmapArray. If it parses, the
 *        bitmap must iterate in ascending order with as many rows as its
 *        cardinality, masks must agree with contains(), and serializing it
 *        must give bytes that parse back to an equal bitmap.
 *  odd:  the rest is Z85 text. If it decodes, re-encoding gives the text
 *        back (for inputs without a padded tail); any bytes encode and
 *        decode back to themselves (plus zero padding).
 * Only DELTA_ECORRUPT / DELTA_EUNSUPPORTED are acceptable failures. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/error.h"
#include "dv/bitmap64.h"
#include "dv/z85.h"
#include "util/buf.h"

typedef struct {
  const delta_bitmap64 *b;
  uint64_t prev, count;
} walk;

static int walk_cb(uint64_t row, void *payload) {
  walk *w = payload;
  if ((w->count && row <= w->prev) || !dv_bitmap64_contains(w->b, row)) abort();
  w->prev = row;
  w->count++;
  return 0;
}

static void fuzz_bitmap(const uint8_t *data, size_t size) {
  delta_bitmap64 *b = NULL, *c = NULL;
  delta_buf ser = DELTA_BUF_INIT;
  int rc = dv_bitmap64_deserialize(&b, data, size, "fuzz");
  if (rc) {
    if (rc != DELTA_ECORRUPT) abort(); /* ENOMEM here would mean CRoaring disagreed */
    return;
  }
  walk w = {b, 0, 0};
  dv_bitmap64_iterate(b, walk_cb, &w);
  if (w.count != dv_bitmap64_cardinality(b)) abort();
  /* A mask around the first member (or row 0). */
  uint64_t start = w.count ? (w.prev > 100 ? w.prev - 100 : 0) : 0;
  uint8_t m[300];
  if (dv_bitmap64_mask(b, start, sizeof m, m)) abort();
  uint64_t n = 0;
  for (size_t i = 0; i < sizeof m; i++) {
    if (m[i] != dv_bitmap64_contains(b, start + i)) abort();
    n += m[i];
  }
  if (n != dv_bitmap64_count_range(b, start, sizeof m)) abort();
  if (dv_bitmap64_serialize(b, &ser)) abort();
  if (dv_bitmap64_deserialize(&c, ser.data, ser.len, "fuzz round trip")) abort();
  if (!dv_bitmap64_equals(b, c)) abort();
  dv_bitmap64_free(b);
  dv_bitmap64_free(c);
  buf_dispose(&ser);
}

static void fuzz_z85(const uint8_t *data, size_t size) {
  delta_buf dec = DELTA_BUF_INIT, enc = DELTA_BUF_INIT, back = DELTA_BUF_INIT;
  int rc = dv_z85_decode(&dec, (const char *)data, size);
  if (rc && rc != DELTA_ECORRUPT) abort();
  if (rc == 0) {
    if (dv_z85_encode(&enc, dec.data, dec.len)) abort();
    bool padded_tail = size >= 5 && data[size - 5] == '#';
    if (!padded_tail && (enc.len != size || (size && memcmp(enc.data, data, size) != 0))) abort();
  }
  buf_reset(&enc);
  if (dv_z85_encode(&enc, data, size)) abort();
  if (dv_z85_decode(&back, (const char *)enc.data, enc.len)) abort();
  if (back.len < size || (size && memcmp(back.data, data, size) != 0)) abort();
  buf_dispose(&dec);
  buf_dispose(&enc);
  buf_dispose(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1) fuzz_z85(data + 1, size - 1);
  else fuzz_bitmap(data + 1, size - 1);
  return 0;
}
