/* All-null arrays; see nulls.h. Every buffer is zeroed, so validity says
 * null everywhere and offsets make every list and string empty. */
#include "arrow/nulls.h"

#include <stdlib.h>
#include <string.h>

#include "arrow/array.h"
#include "deltac/error.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

enum { MAX_DEPTH = 64 };

/* Bytes per value of a fixed-width format; 0 when not fixed-width. */
static size_t fixed_width(const char *f) {
  switch (f[0]) {
  case 'c': case 'C': return 1;
  case 's': case 'S': case 'e': return 2;
  case 'i': case 'I': case 'f': return 4;
  case 'l': case 'L': case 'g': return 8;
  case 'd': return strstr(f, ",256") ? 32 : strstr(f, ",64") ? 8 : strstr(f, ",32") ? 4 : 16;
  case 'w': return f[1] == ':' ? (size_t)strtoul(f + 2, NULL, 10) : 0;
  case 't':
    if (f[1] == 'd') return f[2] == 'D' ? 4 : 8;
    if (f[1] == 't') return f[2] == 's' || f[2] == 'm' ? 4 : 8;
    if (f[1] == 's' || f[1] == 'D') return 8;
    if (f[1] == 'i') return f[2] == 'M' ? 4 : f[2] == 'D' ? 8 : 16;
    return 0;
  default: return 0;
  }
}

/* A zeroed buffer of `bytes` (at least 1) as buffer i. */
static int zeros(struct ArrowArray *a, int i, size_t bytes) {
  void *m = mem_calloc(bytes ? bytes : 1, 1);
  if (!m) return DELTA_NOMEM();
  arrow_array_set_buffer(a, i, m);
  return 0;
}

static int nulls(const struct ArrowSchema *s, int64_t n, struct ArrowArray *out, int depth) {
  const char *f = s->format;
  size_t bits = (size_t)(n + 7) / 8, w;
  int rc;
  if (depth > MAX_DEPTH) return err_set(DELTA_ELIMIT, "type nested too deeply");
  if (f[0] == 'n') {
    if ((rc = arrow_array_new(out, 0, 0))) return rc;
  } else if (f[0] == 'b') {
    if ((rc = arrow_array_new(out, 2, 0)) || (rc = zeros(out, 0, bits)) || (rc = zeros(out, 1, bits))) goto fail;
  } else if ((w = fixed_width(f)) > 0) {
    if ((rc = arrow_array_new(out, 2, 0)) || (rc = zeros(out, 0, bits)) || (rc = zeros(out, 1, (size_t)n * w)))
      goto fail;
  } else if (strcmp(f, "u") == 0 || strcmp(f, "z") == 0 || strcmp(f, "U") == 0 || strcmp(f, "Z") == 0) {
    size_t ow = f[0] == 'U' || f[0] == 'Z' ? 8 : 4;
    if ((rc = arrow_array_new(out, 3, 0)) || (rc = zeros(out, 0, bits)) || (rc = zeros(out, 1, (size_t)(n + 1) * ow)) ||
        (rc = zeros(out, 2, 1)))
      goto fail;
  } else if (strcmp(f, "+s") == 0) {
    if ((rc = arrow_array_new(out, 1, (int)s->n_children)) || (rc = zeros(out, 0, bits))) goto fail;
    for (int64_t k = 0; k < s->n_children; k++)
      if ((rc = nulls(s->children[k], n, out->children[k], depth + 1))) goto fail;
  } else if ((strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0) && s->n_children == 1) {
    size_t ow = f[1] == 'L' ? 8 : 4;
    if ((rc = arrow_array_new(out, 2, 1)) || (rc = zeros(out, 0, bits)) || (rc = zeros(out, 1, (size_t)(n + 1) * ow)))
      goto fail;
    if ((rc = nulls(s->children[0], 0, out->children[0], depth + 1))) goto fail;
  } else if (strncmp(f, "+w:", 3) == 0 && s->n_children == 1) {
    int64_t size = strtoll(f + 3, NULL, 10);
    if (size < 0 || (size > 0 && n > INT64_MAX / size)) return err_set(DELTA_ELIMIT, "fixed list too long");
    if ((rc = arrow_array_new(out, 1, 1)) || (rc = zeros(out, 0, bits))) goto fail;
    if ((rc = nulls(s->children[0], n * size, out->children[0], depth + 1))) goto fail;
  } else {
    return err_set(DELTA_EUNSUPPORTED, "a NULL of Arrow type %s", f);
  }
  out->length = n;
  out->null_count = n; /* every slot */
  return 0;
fail:
  arrow_array_release(out);
  return rc;
}

int arrow_array_nulls(const struct ArrowSchema *s, int64_t n, struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  return nulls(s, n, out, 0);
}
