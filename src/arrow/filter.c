/* The filter and take kernels (filter is a take of the kept rows). Each
 * array is copied row by row into fresh buffers (offset 0); lists and maps
 * take their children by expanding each taken row into its elements, and
 * fixed-size lists their `size` elements. A take row whose chunk is
 * negative is a null row (the Arrow IPC reader's null dictionary indices). */
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
    if (f[1] == 'i') return f[2] == 'M' ? 4 : f[2] == 'D' ? 8 : 16;
    return 8; /* timestamps, durations */
  default: return 0;
  }
}

/* Rows to take, as physical slots (offset applied) of one of the inputs. */
typedef struct {
  int32_t chunk;
  int64_t slot;
} slot_ref;

static int take_slots(const struct ArrowSchema *schema, const struct ArrowArray *const *in, int n_in,
                      const slot_ref *refs, int64_t m, struct ArrowArray *out);

int arrow_filter(const struct ArrowSchema *schema, const struct ArrowArray *in, const uint8_t *keep,
                 struct ArrowArray *out) {
  int64_t m = 0;
  for (int64_t i = 0; i < in->length; i++) m += keep[i] != 0;
  slot_ref *refs = mem_malloc((size_t)m * sizeof *refs + 1);
  if (!refs) return DELTA_NOMEM();
  for (int64_t i = 0, j = 0; i < in->length; i++)
    if (keep[i]) refs[j++] = (slot_ref){0, in->offset + i};
  int rc = take_slots(schema, &in, 1, refs, m, out);
  mem_free(refs);
  return rc;
}

int arrow_take(const struct ArrowSchema *schema, const struct ArrowArray *const *in, int n_in,
               const arrow_row_ref *rows, int64_t m, struct ArrowArray *out) {
  slot_ref *refs = mem_malloc((size_t)m * sizeof *refs + 1);
  if (!refs) return DELTA_NOMEM();
  for (int64_t i = 0; i < m; i++)
    refs[i] = rows[i].chunk < 0 ? (slot_ref){-1, 0} : (slot_ref){rows[i].chunk, in[rows[i].chunk]->offset + rows[i].row};
  int rc = take_slots(schema, in, n_in, refs, m, out);
  mem_free(refs);
  return rc;
}

/* The rows refs[0..m) of the inputs (all of Arrow type `schema`) into a new
 * array. */
static int64_t offset_at(const void *buf, bool large, int64_t i) {
  return large ? ((const int64_t *)buf)[i] : ((const int32_t *)buf)[i];
}

static int take_slots(const struct ArrowSchema *schema, const struct ArrowArray *const *in, int n_in,
                      const slot_ref *refs, int64_t m, struct ArrowArray *out) {
  const char *f = schema->format;
  bool large = strcmp(f, "+L") == 0 || strcmp(f, "U") == 0 || strcmp(f, "Z") == 0;
  bool is_list = strcmp(f, "+l") == 0 || strcmp(f, "+m") == 0 || strcmp(f, "+L") == 0;
  bool is_fsl = strncmp(f, "+w:", 3) == 0;
  bool is_struct = strcmp(f, "+s") == 0;
  bool is_binary = strcmp(f, "u") == 0 || strcmp(f, "z") == 0 || strcmp(f, "U") == 0 || strcmp(f, "Z") == 0;
  int w = fixed_width(f);
  int64_t fsl = is_fsl ? atoll(f + 3) : 0;
  if (!is_list && !is_fsl && !is_struct && !is_binary && w == 0 && strcmp(f, "n") != 0)
    return err_set(DELTA_EUNSUPPORTED, "filter: Arrow type %s", f);
  int n_buffers = is_struct || is_fsl ? 1 : is_binary ? 3 : strcmp(f, "n") == 0 ? 0 : 2;
  int n_children = is_struct ? (int)schema->n_children : is_list || is_fsl ? 1 : 0;
  int rc = arrow_array_new(out, n_buffers, n_children);
  if (rc) return rc;
  out->length = m;
  const struct ArrowArray **kids = NULL;
  slot_ref *krefs = NULL;
  if (strcmp(f, "n") == 0) {
    out->null_count = m;
    return 0;
  }
  bool any_nulls = false;
  for (int c = 0; c < n_in; c++) any_nulls = any_nulls || (in[c]->null_count != 0 && in[c]->buffers[0]);
  for (int64_t j = 0; j < m && !any_nulls; j++) any_nulls = refs[j].chunk < 0;
  if (any_nulls) {
    uint8_t *bits = mem_calloc((size_t)(m + 7) / 8 + 1, 1);
    if (!bits) {
      rc = DELTA_NOMEM();
      goto done;
    }
    int64_t nulls = 0;
    for (int64_t j = 0; j < m; j++) {
      const struct ArrowArray *a = refs[j].chunk < 0 ? NULL : in[refs[j].chunk];
      const uint8_t *valid = a && a->null_count != 0 ? a->buffers[0] : NULL;
      if (a && (!valid || arrow_bit_get(valid, refs[j].slot))) arrow_bit_set(bits, j);
      else nulls++;
    }
    arrow_array_set_buffer(out, 0, bits);
    out->null_count = nulls;
  }
  if (is_struct || is_list || is_fsl) {
    kids = mem_malloc((size_t)n_in * sizeof *kids + 1);
    if (!kids) {
      rc = DELTA_NOMEM();
      goto done;
    }
  }
  if (is_struct) {
    krefs = mem_malloc((size_t)m * sizeof *krefs + 1);
    if (!krefs) {
      rc = DELTA_NOMEM();
      goto done;
    }
    for (int64_t k = 0; k < schema->n_children; k++) {
      /* a struct's child row i is the struct's physical slot */
      for (int c = 0; c < n_in; c++) kids[c] = in[c]->children[k];
      for (int64_t j = 0; j < m; j++)
        krefs[j] = refs[j].chunk < 0 ? refs[j] : (slot_ref){refs[j].chunk, refs[j].slot + kids[refs[j].chunk]->offset};
      if ((rc = take_slots(schema->children[k], kids, n_in, krefs, m, out->children[k])) != 0) goto done;
    }
    goto done;
  }
  if (is_fsl) {
    if (fsl < 0 || (fsl && m > INT64_MAX / fsl / (int64_t)sizeof *krefs)) {
      rc = err_set(DELTA_ELIMIT, "filter: a fixed-size list column too large");
      goto done;
    }
    krefs = mem_malloc((size_t)(m * fsl) * sizeof *krefs + 1);
    if (!krefs) {
      rc = DELTA_NOMEM();
      goto done;
    }
    for (int c = 0; c < n_in; c++) kids[c] = in[c]->children[0];
    for (int64_t j = 0; j < m; j++)
      for (int64_t e = 0; e < fsl; e++)
        krefs[j * fsl + e] = refs[j].chunk < 0 ? refs[j]
                             : (slot_ref){refs[j].chunk, kids[refs[j].chunk]->offset + refs[j].slot * fsl + e};
    if ((rc = take_slots(schema->children[0], kids, n_in, krefs, m * fsl, out->children[0])) != 0) goto done;
    goto done;
  }
  if (w == -1 || w > 0) {
    uint8_t *dst = w == -1 ? mem_calloc((size_t)(m + 7) / 8 + 1, 1) : mem_calloc((size_t)m * (size_t)w + 1, 1);
    if (!dst) {
      rc = DELTA_NOMEM();
      goto done;
    }
    for (int64_t j = 0; j < m; j++) {
      if (refs[j].chunk < 0) continue;
      const uint8_t *src = in[refs[j].chunk]->buffers[1];
      if (w == -1) {
        if (arrow_bit_get(src, refs[j].slot)) arrow_bit_set(dst, j);
      } else {
        memcpy(dst + j * w, src + refs[j].slot * w, (size_t)w);
      }
    }
    arrow_array_set_buffer(out, 1, dst);
    return 0;
  }
  void *noff = mem_malloc(((size_t)m + 1) * (large ? 8 : 4));
  if (!noff) {
    rc = DELTA_NOMEM();
    goto done;
  }
  arrow_array_set_buffer(out, 1, noff);
  int64_t total = 0;
  for (int64_t j = 0; j <= m; j++) {
    if (j) {
      const void *off = refs[j - 1].chunk < 0 ? NULL : in[refs[j - 1].chunk]->buffers[1];
      if (off) total += offset_at(off, large, refs[j - 1].slot + 1) - offset_at(off, large, refs[j - 1].slot);
    }
    if (!large && total > INT32_MAX) {
      rc = err_set(DELTA_ELIMIT, "filter: a column over 2 GiB");
      goto done;
    }
    if (large) ((int64_t *)noff)[j] = total;
    else ((int32_t *)noff)[j] = (int32_t)total;
  }
  if (is_binary) {
    uint8_t *nb = mem_malloc((size_t)total + 1);
    if (!nb) {
      rc = DELTA_NOMEM();
      goto done;
    }
    arrow_array_set_buffer(out, 2, nb);
    for (int64_t j = 0; j < m; j++) {
      if (refs[j].chunk < 0) continue;
      const void *off = in[refs[j].chunk]->buffers[1];
      int64_t s = offset_at(off, large, refs[j].slot), l = offset_at(off, large, refs[j].slot + 1) - s;
      if (l) memcpy(nb + offset_at(noff, large, j), (const uint8_t *)in[refs[j].chunk]->buffers[2] + s, (size_t)l);
    }
    return 0;
  }
  /* list / map: the elements of the taken rows */
  krefs = mem_malloc((size_t)total * sizeof *krefs + 1);
  if (!krefs) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (int c = 0; c < n_in; c++) kids[c] = in[c]->children[0];
  for (int64_t j = 0, k = 0; j < m; j++) {
    if (refs[j].chunk < 0) continue;
    const void *off = in[refs[j].chunk]->buffers[1];
    for (int64_t e = offset_at(off, large, refs[j].slot); e < offset_at(off, large, refs[j].slot + 1); e++)
      krefs[k++] = (slot_ref){refs[j].chunk, kids[refs[j].chunk]->offset + e};
  }
  if ((rc = take_slots(schema->children[0], kids, n_in, krefs, total, out->children[0])) != 0) goto done;
done:
  mem_free(kids);
  mem_free(krefs);
  if (rc) arrow_array_release(out);
  return rc;
}
