/* The filter kernel. Each array is copied row by row into fresh buffers
 * (offset 0); lists and maps filter their children by expanding the row mask
 * over each kept row's elements. */
#include "arrow/filter.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Bytes per value of a fixed-width format, 0 when not fixed width, -1 for bits. */
static int fixed_width(const char *f) {
  switch (f[0]) {
  case 'b': return -1;
  case 'c': case 'C': return 1;
  case 's': case 'S': case 'e': return 2;
  case 'i': case 'I': case 'f': return 4;
  case 'l': case 'L': case 'g': return 8;
  case 'w': return atoi(f + 2);
  case 'd': {
    int p, s, bits = 128;
    if (sscanf(f, "d:%d,%d,%d", &p, &s, &bits) < 2) return 16;
    return bits / 8;
  }
  case 't':
    if (f[1] == 'd') return f[2] == 'D' ? 4 : 8;
    if (f[1] == 't') return (f[2] == 's' || f[2] == 'm') ? 4 : 8;
    return 8; /* timestamps, durations */
  default: return 0;
  }
}

static int filter_rows(const struct ArrowSchema *schema, const struct ArrowArray *in, int64_t start, int64_t n,
                       const uint8_t *keep, struct ArrowArray *out);

int arrow_filter(const struct ArrowSchema *schema, const struct ArrowArray *in, const uint8_t *keep,
                 struct ArrowArray *out) {
  return filter_rows(schema, in, 0, in->length, keep, out);
}

/* Filter logical rows [start, start+n) of `in` with keep[0..n). */
static int filter_rows(const struct ArrowSchema *schema, const struct ArrowArray *in, int64_t start, int64_t n,
                       const uint8_t *keep, struct ArrowArray *out) {
  const char *f = schema->format;
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) m += keep[i] != 0;
  bool is_list = strcmp(f, "+l") == 0 || strcmp(f, "+m") == 0;
  bool is_struct = strcmp(f, "+s") == 0;
  bool is_binary = strcmp(f, "u") == 0 || strcmp(f, "z") == 0;
  int w = fixed_width(f);
  if (!is_list && !is_struct && !is_binary && w == 0 && strcmp(f, "n") != 0)
    return delta_error_set(DELTA_EUNSUPPORTED, "filter: Arrow type %s", f);
  int n_buffers = is_struct ? 1 : is_binary ? 3 : strcmp(f, "n") == 0 ? 0 : 2;
  int rc = arrow_array_new(out, n_buffers, is_struct ? (int)in->n_children : is_list ? 1 : 0);
  if (rc) return rc;
  out->length = m;
  int64_t base = in->offset + start;
  const uint8_t *valid = in->null_count != 0 && n_buffers > 0 ? in->buffers[0] : NULL;
  if (valid) {
    uint8_t *bits = delta_calloc((size_t)(m + 7) / 8 + 1, 1);
    if (!bits) goto nomem;
    int64_t j = 0, nulls = 0;
    for (int64_t i = 0; i < n; i++) {
      if (!keep[i]) continue;
      if (arrow_bit_get(valid, base + i)) arrow_bit_set(bits, j);
      else nulls++;
      j++;
    }
    arrow_array_set_buffer(out, 0, bits);
    out->null_count = nulls;
  }
  if (strcmp(f, "n") == 0) {
    out->null_count = m;
    return 0;
  }
  if (is_struct) {
    for (int64_t c = 0; c < in->n_children; c++) {
      /* A struct's child row i is the struct's physical slot. */
      rc = filter_rows(schema->children[c], in->children[c], base, n, keep, out->children[c]);
      if (rc) goto fail;
    }
    return 0;
  }
  if (w == -1 || w > 0) {
    const uint8_t *src = in->buffers[1];
    uint8_t *dst = w == -1 ? delta_calloc((size_t)(m + 7) / 8 + 1, 1) : delta_malloc((size_t)m * (size_t)w + 1);
    if (!dst) goto nomem;
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
      if (!keep[i]) continue;
      if (w == -1) {
        if (arrow_bit_get(src, base + i)) arrow_bit_set(dst, j);
      } else {
        memcpy(dst + j * w, src + (base + i) * w, (size_t)w);
      }
      j++;
    }
    arrow_array_set_buffer(out, 1, dst);
    return 0;
  }
  const int32_t *off = in->buffers[1];
  int32_t *noff = delta_malloc(((size_t)m + 1) * 4);
  if (!noff) goto nomem;
  arrow_array_set_buffer(out, 1, noff);
  noff[0] = 0;
  int64_t j = 0, total = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!keep[i]) continue;
    total += off[base + i + 1] - off[base + i];
    noff[++j] = (int32_t)total;
  }
  if (is_binary) {
    const uint8_t *bytes = in->buffers[2];
    uint8_t *nb = delta_malloc((size_t)total + 1);
    if (!nb) goto nomem;
    arrow_array_set_buffer(out, 2, nb);
    for (int64_t i = 0, k = 0; i < n; i++) {
      if (!keep[i]) continue;
      int32_t s = off[base + i], l = off[base + i + 1] - s;
      if (l) memcpy(nb + noff[k], bytes + s, (size_t)l);
      k++;
    }
    return 0;
  }
  /* list / map: keep the elements of kept rows */
  int64_t first = off[base], last = off[base + n];
  uint8_t *ekeep = delta_calloc((size_t)(last - first) + 1, 1);
  if (!ekeep) goto nomem;
  for (int64_t i = 0; i < n; i++)
    if (keep[i]) memset(ekeep + (off[base + i] - first), 1, (size_t)(off[base + i + 1] - off[base + i]));
  rc = filter_rows(schema->children[0], in->children[0], first, last - first, ekeep, out->children[0]);
  delta_free(ekeep);
  if (rc) goto fail;
  return 0;
nomem:
  rc = DELTA_NOMEM();
fail:
  arrow_array_release(out);
  return rc;
}
