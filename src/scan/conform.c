#include "scan/conform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/array.h"
#include "arrow/nulls.h"
#include "log/snapshot.h"
#include "scan/columns.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

int conform_find_child(const struct ArrowSchema *phys, const delta_field *f, column_mapping_mode mode) {
  if (mode == MAP_ID && f->has_field_id) {
    for (int64_t i = 0; i < phys->n_children; i++) {
      int32_t len = 0;
      const char *id = arrow_schema_metadata_get(phys->children[i], "PARQUET:field_id", &len);
      char buf[24];
      if (!id || len <= 0 || len >= (int32_t)sizeof buf) continue;
      memcpy(buf, id, (size_t)len); /* metadata values are not NUL-terminated */
      buf[len] = '\0';
      if (strtoll(buf, NULL, 10) == f->field_id) return (int)i;
    }
  }
  const char *name = (mode != MAP_NONE && f->physical_name) ? f->physical_name : f->name;
  for (int64_t i = 0; i < phys->n_children; i++)
    if (strcmp(phys->children[i]->name, name) == 0) return (int)i;
  /* Spark matches Parquet columns case-insensitively. */
  for (int64_t i = 0; i < phys->n_children; i++)
    if (strcasecmp(phys->children[i]->name, name) == 0) return (int)i;
  return -1;
}

/* A bitmap of `n` bits starting at bit `off` of src, as a fresh bitmap. */
static uint8_t *copy_bits(const uint8_t *src, int64_t off, int64_t n) {
  uint8_t *b = mem_calloc((size_t)(n + 7) / 8 + 1, 1);
  if (!b) return NULL;
  for (int64_t i = 0; i < n; i++)
    if (arrow_bit_get(src, off + i)) arrow_bit_set(b, i);
  return b;
}

static int64_t int_at(const char *f, const uint8_t *p, int64_t i) {
  switch (f[0]) {
  case 'c': return ((const int8_t *)p)[i];
  case 'C': return ((const uint8_t *)p)[i];
  case 's': return ((const int16_t *)(const void *)p)[i];
  case 'S': return ((const uint16_t *)(const void *)p)[i];
  case 'i': return ((const int32_t *)(const void *)p)[i];
  case 'I': return ((const uint32_t *)(const void *)p)[i];
  default: return ((const int64_t *)(const void *)p)[i];
  }
}

static bool is_int(const char *f) { return f[1] == '\0' && strchr("cCsSiIlL", f[0]); }

static int64_t ts_per_sec(char unit) {
  return unit == 's' ? 1 : unit == 'm' ? 1000 : unit == 'u' ? 1000000 : 1000000000;
}

/* Primitive casts. Returns 1 when no cast applies. */
static int cast_primitive(const char *want, const char *have, const struct ArrowArray *in, struct ArrowArray *out,
                          const char *column) {
  int64_t n = in->length, off = in->offset;
  const uint8_t *src = in->n_buffers > 1 ? in->buffers[1] : NULL;
  int out_w;
  enum { C_INT, C_FLOAT, C_TS, C_DATE_TS, C_DEC, C_INT_DEC, C_INT_DOUBLE } kind;
  int s_in = 0, s_out = 0, p = 0;
  if (is_int(want) && is_int(have)) {
    kind = C_INT;
    out_w = want[0] == 'c' || want[0] == 'C' ? 1 : want[0] == 's' || want[0] == 'S' ? 2
            : want[0] == 'i' || want[0] == 'I' ? 4 : 8;
  } else if (strcmp(want, "g") == 0 && (strcmp(have, "f") == 0)) {
    kind = C_FLOAT;
    out_w = 8;
  } else if (strcmp(want, "g") == 0 && is_int(have)) {
    kind = C_INT_DOUBLE;
    out_w = 8;
  } else if (strncmp(want, "ts", 2) == 0 && strncmp(have, "ts", 2) == 0) {
    kind = C_TS;
    out_w = 8;
  } else if (strncmp(want, "ts", 2) == 0 && strcmp(have, "tdD") == 0) {
    kind = C_DATE_TS;
    out_w = 8;
  } else if (want[0] == 'd' && have[0] == 'd') {
    int bits = 128;
    if (sscanf(want, "d:%d,%d,%d", &p, &s_out, &bits) < 2 || bits != 128) return 1;
    if (sscanf(have, "d:%*d,%d,%d", &s_in, &bits) < 1 || bits != 128 || s_in > s_out) return 1;
    kind = C_DEC;
    out_w = 16;
  } else if (want[0] == 'd' && is_int(have)) {
    if (sscanf(want, "d:%d,%d", &p, &s_out) != 2) return 1;
    kind = C_INT_DEC;
    out_w = 16;
  } else {
    return 1;
  }
  int rc = arrow_array_new(out, 2, 0);
  if (rc) return rc;
  out->length = n;
  out->null_count = in->null_count;
  if (in->null_count != 0 && in->buffers[0]) {
    uint8_t *v = copy_bits(in->buffers[0], off, n);
    if (!v) goto nomem;
    arrow_array_set_buffer(out, 0, v);
  }
  uint8_t *dst = mem_calloc((size_t)n + 1, (size_t)out_w);
  if (!dst) goto nomem;
  arrow_array_set_buffer(out, 1, dst);
  for (int64_t i = 0; i < n; i++) {
    int64_t j = off + i;
    switch (kind) {
    case C_INT: {
      int64_t v = int_at(have, src, j);
      memcpy(dst + i * out_w, &v, (size_t)out_w); /* little-endian: the low bytes */
      break;
    }
    case C_FLOAT: {
      double d = ((const float *)(const void *)src)[j];
      memcpy(dst + i * 8, &d, 8);
      break;
    }
    case C_INT_DOUBLE: {
      double d = (double)int_at(have, src, j);
      memcpy(dst + i * 8, &d, 8);
      break;
    }
    case C_TS: {
      int64_t v = ((const int64_t *)(const void *)src)[j], a = ts_per_sec(have[2]), b = ts_per_sec(want[2]);
      v = a > b ? v / (a / b) - (v % (a / b) < 0) : v * (b / a);
      memcpy(dst + i * 8, &v, 8);
      break;
    }
    case C_DATE_TS: {
      int64_t v = (int64_t)((const int32_t *)(const void *)src)[j] * 86400 * ts_per_sec(want[2]);
      memcpy(dst + i * 8, &v, 8);
      break;
    }
    case C_DEC:
    case C_INT_DEC: {
      __int128 v;
      if (kind == C_DEC) memcpy(&v, src + j * 16, 16);
      else v = int_at(have, src, j);
      for (int k = kind == C_DEC ? s_in : 0; k < s_out; k++) v *= 10;
      memcpy(dst + i * 16, &v, 16);
      break;
    }
    }
  }
  return 0;
nomem:
  rc = DELTA_NOMEM();
  arrow_array_release(out);
  (void)column;
  return rc;
}

/* Formats that differ only in a label: same buffers, nothing to convert. */
static bool same_layout(const char *want, const char *have) {
  if (strcmp(want, have) == 0) return true;
  if ((strcmp(want, "u") == 0 || strcmp(want, "z") == 0) && (strcmp(have, "u") == 0 || strcmp(have, "z") == 0))
    return true;
  if (strncmp(want, "ts", 2) == 0 && strncmp(have, "ts", 2) == 0 && want[2] == have[2]) return true;
  return false;
}

static int move_out(struct ArrowArray *in, struct ArrowArray *out) {
  *out = *in;
  in->release = NULL;
  return 0;
}

/* A map's entries struct: key and value are matched by position, whatever
 * the writer named them; what is inside them follows the mapping mode. */
static int conform_entries(const delta_type *t, const struct ArrowSchema *want, const struct ArrowSchema *have,
                           struct ArrowArray *in, column_mapping_mode mode, const char *column,
                           struct ArrowArray *out) {
  int rc;
  if (strcmp(have->format, "+s") != 0 || have->n_children != 2 || in->n_children != 2) {
    rc = err_set(DELTA_ECORRUPT, "column %s: map entries are not key/value pairs", column);
    goto done;
  }
  rc = arrow_array_new(out, 1, 2);
  if (rc) goto done;
  out->length = in->length;
  for (int i = 0; !rc && i < 2; i++) {
    struct ArrowArray part = *in->children[i];
    in->children[i]->release = NULL;
    part.offset += in->offset;
    part.length = in->length;
    rc = conform_array(i == 0 ? t->key : t->value, want->children[i], have->children[i], &part, mode, column,
                       out->children[i]);
    if (part.release) part.release(&part);
  }
  if (rc) arrow_array_release(out);
done:
  if (in->release) in->release(in);
  return rc;
}

int conform_array(const delta_type *t, const struct ArrowSchema *want, const struct ArrowSchema *have,
                  struct ArrowArray *in, column_mapping_mode mode, const char *column, struct ArrowArray *out) {
  int rc = 0;
  memset(out, 0, sizeof *out);
  if (t->kind == DT_STRUCT || t->kind == DT_VARIANT) {
    if (strcmp(have->format, "+s") != 0) {
      rc = err_set(DELTA_ECORRUPT, "column %s: the data file has %s where the table has a struct", column,
                           have->format);
      goto done;
    }
    int nf = t->kind == DT_STRUCT ? t->n_fields : 2;
    rc = arrow_array_new(out, 1, nf);
    if (rc) goto done;
    out->length = in->length;
    out->null_count = in->null_count;
    if (in->null_count != 0 && in->buffers[0]) {
      uint8_t *v = copy_bits(in->buffers[0], in->offset, in->length);
      if (!v) { rc = DELTA_NOMEM(); goto done; }
      arrow_array_set_buffer(out, 0, v);
    }
    for (int i = 0; !rc && i < nf; i++) {
      delta_field vf = {0};
      const delta_field *f = t->kind == DT_STRUCT ? &t->fields[i] : &vf;
      if (t->kind == DT_VARIANT) vf.name = i == 0 ? "metadata" : "value";
      int c = conform_find_child(have, f, mode);
      if (c < 0) {
        rc = arrow_array_nulls(want->children[i], in->length, out->children[i]);
        continue;
      }
      /* The child's rows are the struct's physical slots: slice by moving the offset. */
      struct ArrowArray child = *in->children[c];
      in->children[c]->release = NULL;
      child.offset += in->offset;
      child.length = in->length;
      const delta_type *ft = t->kind == DT_STRUCT ? f->type : NULL;
      if (ft) {
        rc = conform_array(ft, want->children[i], have->children[c], &child, mode, f->name, out->children[i]);
      } else {
        rc = move_out(&child, out->children[i]);
      }
      if (child.release) child.release(&child);
    }
    if (rc) arrow_array_release(out);
    goto done;
  }
  if (t->kind == DT_ARRAY || t->kind == DT_MAP) {
    bool map = t->kind == DT_MAP;
    if (strcmp(have->format, "+l") != 0 && strcmp(have->format, "+m") != 0) {
      rc = err_set(DELTA_ECORRUPT, "column %s: the data file has %s where the table has a %s", column,
                           have->format, map ? "map" : "list");
      goto done;
    }
    rc = arrow_array_new(out, 2, 1);
    if (rc) goto done;
    out->length = in->length;
    out->null_count = in->null_count;
    if (in->null_count != 0 && in->buffers[0]) {
      uint8_t *v = copy_bits(in->buffers[0], in->offset, in->length);
      if (!v) { rc = DELTA_NOMEM(); goto fail_nested; }
      arrow_array_set_buffer(out, 0, v);
    }
    const int32_t *offs = (const int32_t *)in->buffers[1] + in->offset;
    int32_t *noff = mem_malloc(((size_t)in->length + 1) * 4);
    if (!noff) { rc = DELTA_NOMEM(); goto fail_nested; }
    for (int64_t i = 0; i <= in->length; i++) noff[i] = offs[i] - offs[0];
    arrow_array_set_buffer(out, 1, noff);
    struct ArrowArray child = *in->children[0];
    in->children[0]->release = NULL;
    child.offset += offs[0];
    child.length = offs[in->length] - offs[0];
    if (map) {
      rc = conform_entries(t, want->children[0], have->children[0], &child, mode, column, out->children[0]);
    } else {
      rc = conform_array(t->element, want->children[0], have->children[0], &child, mode, column, out->children[0]);
    }
    if (child.release) child.release(&child);
  fail_nested:
    if (rc) arrow_array_release(out);
    goto done;
  }
  if (same_layout(want->format, have->format)) {
    rc = move_out(in, out);
    goto done;
  }
  rc = cast_primitive(want->format, have->format, in, out, column);
  if (rc == 1)
    rc = err_set(DELTA_EUNSUPPORTED, "column %s: the data file stores %s where the table has %s", column,
                         have->format, want->format);
done:
  if (in->release) in->release(in);
  return rc;
}

column_mapping_mode scan_mapping_mode(const delta_snapshot *s) {
  const char *m = snapshot_config(s, "delta.columnMapping.mode");
  if (m && strcasecmp(m, "name") == 0) return MAP_NAME;
  if (m && strcasecmp(m, "id") == 0) return MAP_ID;
  return MAP_NONE;
}
