/* Thrift compact protocol reader; see thrift.h for the wire format. */
#include "parquet/thrift.h"

#include <string.h>

#include "util/bytes.h"
#include "util/error_internal.h"

void pq_thrift_init(pq_thrift *t, const uint8_t *buf, size_t len) {
  t->start = buf;
  t->p = buf;
  t->end = buf + len;
  t->depth = 0;
}

size_t pq_thrift_offset(const pq_thrift *t) { return (size_t)(t->p - t->start); }

size_t pq_thrift_remaining(const pq_thrift *t) { return (size_t)(t->end - t->p); }

const char *pq_thrift_type_name(int type) {
  switch (type) {
  case PQ_TT_STOP: return "stop";
  case PQ_TT_BOOL: case PQ_TT_BOOL_FALSE: return "bool";
  case PQ_TT_I8: return "i8";
  case PQ_TT_I16: return "i16";
  case PQ_TT_I32: return "i32";
  case PQ_TT_I64: return "i64";
  case PQ_TT_DOUBLE: return "double";
  case PQ_TT_BINARY: return "binary";
  case PQ_TT_LIST: return "list";
  case PQ_TT_SET: return "set";
  case PQ_TT_MAP: return "map";
  case PQ_TT_STRUCT: return "struct";
  case PQ_TT_UUID: return "uuid";
  default: return "invalid type";
  }
}

static int truncated(const pq_thrift *t, const char *what) {
  return err_set(DELTA_ECORRUPT, "thrift data truncated at byte %zu reading %s",
                         pq_thrift_offset(t), what);
}

static int wrong_type(const pq_thrift *t, int type, const char *expected, const char *what) {
  return err_set(DELTA_ECORRUPT, "%s: expected %s, found %s (type %d) at byte %zu", what,
                         expected, pq_thrift_type_name(type), type, pq_thrift_offset(t));
}

static int read_byte(pq_thrift *t, uint8_t *b, const char *what) {
  if (t->p >= t->end) return truncated(t, what);
  *b = *t->p++;
  return 0;
}

/* ULEB128, at most 10 bytes, and the 10th may only carry bit 63: anything
 * longer or wider is corrupt rather than silently wrapped. */
static int read_varint(pq_thrift *t, uint64_t *v, const char *what) {
  uint64_t r = 0;
  for (int shift = 0; shift <= 63; shift += 7) {
    if (t->p >= t->end) return truncated(t, what);
    uint8_t b = *t->p++;
    if (shift == 63 && (b & 0xfe))
      return err_set(DELTA_ECORRUPT, "%s: varint overflows 64 bits at byte %zu", what,
                             pq_thrift_offset(t) - 1);
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  /* Unreachable: the shift==63 check above ends every 10-byte varint. */
  return err_set(DELTA_ECORRUPT, "%s: bad varint", what);
}

static int64_t unzigzag(uint64_t v) {
  /* Unsigned arithmetic avoids signed overflow; the final conversion is
   * two's complement on every compiler we support. */
  return (int64_t)((v >> 1) ^ (0 - (v & 1)));
}

static int check_depth(pq_thrift *t) {
  if (t->depth >= PQ_THRIFT_MAX_DEPTH)
    return err_set(DELTA_ECORRUPT, "thrift data nested deeper than %d at byte %zu",
                           PQ_THRIFT_MAX_DEPTH, pq_thrift_offset(t));
  t->depth++;
  return 0;
}

int pq_thrift_struct_begin(pq_thrift *t) { return check_depth(t); }

void pq_thrift_struct_end(pq_thrift *t) {
  if (t->depth > 0) t->depth--;
}

static bool valid_type(int type) { return type >= PQ_TT_BOOL && type <= PQ_TT_UUID; }

int pq_thrift_field(pq_thrift *t, int *last_id, int *id, int *type) {
  uint8_t b = 0;
  int rc = read_byte(t, &b, "a field header");
  if (rc < 0) return rc;
  if (b == 0) {
    *type = PQ_TT_STOP;
    *id = 0;
    return 0;
  }
  int ty = b & 0x0f, delta = b >> 4;
  if (!valid_type(ty))
    return err_set(DELTA_ECORRUPT, "invalid thrift field type %d at byte %zu", ty,
                           pq_thrift_offset(t) - 1);
  int fid;
  if (delta) {
    fid = *last_id + delta;
  } else {
    /* Long form: the id follows as a zigzag i16. */
    uint64_t u = 0;
    if ((rc = read_varint(t, &u, "a field id")) < 0) return rc;
    int64_t s = unzigzag(u);
    if (s < INT16_MIN || s > INT16_MAX)
      return err_set(DELTA_ECORRUPT, "thrift field id %lld out of range at byte %zu",
                             (long long)s, pq_thrift_offset(t));
    fid = (int)s;
  }
  if (fid > INT16_MAX)
    return err_set(DELTA_ECORRUPT, "thrift field id %d out of range at byte %zu", fid,
                           pq_thrift_offset(t));
  *last_id = fid;
  *id = fid;
  *type = ty;
  return 0;
}

int pq_thrift_field_bool(pq_thrift *t, int type, bool *v, const char *what) {
  if (type != PQ_TT_BOOL && type != PQ_TT_BOOL_FALSE) return wrong_type(t, type, "bool", what);
  *v = type == PQ_TT_BOOL;
  return 0;
}

int pq_thrift_elem_bool(pq_thrift *t, bool *v, const char *what) {
  uint8_t b = 0;
  int rc = read_byte(t, &b, what);
  if (rc < 0) return rc;
  /* Writers use 1/2 (the field-type codes) or 1/0. */
  if (b > 2)
    return err_set(DELTA_ECORRUPT, "%s: bad bool byte %u at byte %zu", what, b,
                           pq_thrift_offset(t) - 1);
  *v = b == 1;
  return 0;
}

/* Any integer wire type, widened to 64 bits. */
static int read_int(pq_thrift *t, int type, int max_type, int64_t *v, const char *what,
                    const char *expected) {
  int rc;
  if (type < PQ_TT_I8 || type > max_type) return wrong_type(t, type, expected, what);
  if (type == PQ_TT_I8) {
    uint8_t b = 0;
    if ((rc = read_byte(t, &b, what)) < 0) return rc;
    *v = (int8_t)b;
    return 0;
  }
  uint64_t u = 0;
  if ((rc = read_varint(t, &u, what)) < 0) return rc;
  *v = unzigzag(u);
  return 0;
}

static int out_of_range(const pq_thrift *t, int64_t v, const char *what) {
  return err_set(DELTA_ECORRUPT, "%s: value %lld out of range at byte %zu", what,
                         (long long)v, pq_thrift_offset(t));
}

int pq_thrift_read_i8(pq_thrift *t, int type, int8_t *v, const char *what) {
  int64_t x = 0;
  int rc = read_int(t, type, PQ_TT_I32, &x, what, "i8");
  if (rc < 0) return rc;
  if (x < INT8_MIN || x > INT8_MAX) return out_of_range(t, x, what);
  *v = (int8_t)x;
  return 0;
}

int pq_thrift_read_i16(pq_thrift *t, int type, int16_t *v, const char *what) {
  int64_t x = 0;
  int rc = read_int(t, type, PQ_TT_I32, &x, what, "i16");
  if (rc < 0) return rc;
  if (x < INT16_MIN || x > INT16_MAX) return out_of_range(t, x, what);
  *v = (int16_t)x;
  return 0;
}

int pq_thrift_read_i32(pq_thrift *t, int type, int32_t *v, const char *what) {
  int64_t x = 0;
  int rc = read_int(t, type, PQ_TT_I32, &x, what, "i32");
  if (rc < 0) return rc;
  if (x < INT32_MIN || x > INT32_MAX) return out_of_range(t, x, what);
  *v = (int32_t)x;
  return 0;
}

int pq_thrift_read_i64(pq_thrift *t, int type, int64_t *v, const char *what) {
  return read_int(t, type, PQ_TT_I64, v, what, "i64");
}

int pq_thrift_read_double(pq_thrift *t, int type, double *v, const char *what) {
  if (type != PQ_TT_DOUBLE) return wrong_type(t, type, "double", what);
  if (pq_thrift_remaining(t) < 8) return truncated(t, what);
  uint64_t bits = bytes_load_le64(t->p);
  memcpy(v, &bits, sizeof *v);
  t->p += 8;
  return 0;
}

int pq_thrift_read_binary(pq_thrift *t, int type, const uint8_t **p, uint32_t *len,
                          const char *what) {
  if (type != PQ_TT_BINARY) return wrong_type(t, type, "binary", what);
  uint64_t n = 0;
  int rc = read_varint(t, &n, what);
  if (rc < 0) return rc;
  if (n > pq_thrift_remaining(t))
    return err_set(DELTA_ECORRUPT, "%s: length %llu exceeds the %zu bytes left at byte %zu",
                           what, (unsigned long long)n, pq_thrift_remaining(t),
                           pq_thrift_offset(t));
  if (n > UINT32_MAX)
    return err_set(DELTA_ECORRUPT, "%s: length %llu too large", what,
                           (unsigned long long)n);
  *p = t->p;
  *len = (uint32_t)n;
  t->p += n;
  return 0;
}

int pq_thrift_list_begin(pq_thrift *t, int type, int *elem_type, uint32_t *count,
                         const char *what) {
  if (type != PQ_TT_LIST && type != PQ_TT_SET) return wrong_type(t, type, "list", what);
  uint8_t b = 0;
  int rc = read_byte(t, &b, what);
  if (rc < 0) return rc;
  uint64_t n = b >> 4;
  int et = b & 0x0f;
  if (n == 15 && (rc = read_varint(t, &n, what)) < 0) return rc;
  /* Every element, booleans included, takes at least one byte inside a
   * list, so a count above the bytes left cannot be honest. */
  if (n > pq_thrift_remaining(t))
    return err_set(DELTA_ECORRUPT,
                           "%s: list of %llu elements cannot fit in the %zu bytes left at byte %zu",
                           what, (unsigned long long)n, pq_thrift_remaining(t),
                           pq_thrift_offset(t));
  if (n > 0 && !valid_type(et))
    return err_set(DELTA_ECORRUPT, "%s: invalid list element type %d at byte %zu", what,
                           et, pq_thrift_offset(t));
  *elem_type = et == PQ_TT_BOOL_FALSE ? PQ_TT_BOOL : et;
  *count = (uint32_t)n;
  return 0;
}

int pq_thrift_map_begin(pq_thrift *t, int type, int *key_type, int *value_type,
                        uint32_t *count, const char *what) {
  if (type != PQ_TT_MAP) return wrong_type(t, type, "map", what);
  uint64_t n = 0;
  int rc = read_varint(t, &n, what);
  if (rc < 0) return rc;
  if (n == 0) {
    *key_type = *value_type = PQ_TT_STOP;
    *count = 0;
    return 0;
  }
  uint8_t b = 0;
  if ((rc = read_byte(t, &b, what)) < 0) return rc;
  int kt = b >> 4, vt = b & 0x0f;
  if (!valid_type(kt) || !valid_type(vt))
    return err_set(DELTA_ECORRUPT, "%s: invalid map key/value types %d/%d at byte %zu",
                           what, kt, vt, pq_thrift_offset(t));
  /* Each entry is a key and a value of at least one byte each. */
  if (n > pq_thrift_remaining(t) / 2)
    return err_set(DELTA_ECORRUPT,
                           "%s: map of %llu entries cannot fit in the %zu bytes left at byte %zu",
                           what, (unsigned long long)n, pq_thrift_remaining(t),
                           pq_thrift_offset(t));
  *key_type = kt == PQ_TT_BOOL_FALSE ? PQ_TT_BOOL : kt;
  *value_type = vt == PQ_TT_BOOL_FALSE ? PQ_TT_BOOL : vt;
  *count = (uint32_t)n;
  return 0;
}

/* Skip `type`; `in_container` says whether booleans take a byte. */
static int skip_value(pq_thrift *t, int type, bool in_container) {
  static const char what[] = "a skipped value";
  int rc = 0;
  uint64_t u = 0;
  switch (type) {
  case PQ_TT_BOOL:
  case PQ_TT_BOOL_FALSE:
    if (in_container) {
      bool b = false;
      return pq_thrift_elem_bool(t, &b, what);
    }
    return 0; /* the value was the field type */
  case PQ_TT_I8:
    if (pq_thrift_remaining(t) < 1) return truncated(t, what);
    t->p += 1;
    return 0;
  case PQ_TT_I16:
  case PQ_TT_I32:
  case PQ_TT_I64:
    return read_varint(t, &u, what);
  case PQ_TT_DOUBLE:
    if (pq_thrift_remaining(t) < 8) return truncated(t, what);
    t->p += 8;
    return 0;
  case PQ_TT_UUID:
    if (pq_thrift_remaining(t) < 16) return truncated(t, what);
    t->p += 16;
    return 0;
  case PQ_TT_BINARY: {
    const uint8_t *p = NULL;
    uint32_t len = 0;
    return pq_thrift_read_binary(t, type, &p, &len, what);
  }
  case PQ_TT_LIST:
  case PQ_TT_SET: {
    int et = 0;
    uint32_t n = 0;
    if ((rc = pq_thrift_list_begin(t, type, &et, &n, what)) < 0) return rc;
    if ((rc = check_depth(t)) < 0) return rc;
    /* Each element consumes at least one byte, so this loop is bounded by
     * the buffer size. */
    for (uint32_t i = 0; i < n && rc == 0; i++) rc = skip_value(t, et, true);
    t->depth--;
    return rc;
  }
  case PQ_TT_MAP: {
    int kt = 0, vt = 0;
    uint32_t n = 0;
    if ((rc = pq_thrift_map_begin(t, type, &kt, &vt, &n, what)) < 0) return rc;
    if ((rc = check_depth(t)) < 0) return rc;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
      rc = skip_value(t, kt, true);
      if (rc == 0) rc = skip_value(t, vt, true);
    }
    t->depth--;
    return rc;
  }
  case PQ_TT_STRUCT: {
    int last = 0, id = 0, ft = 0;
    if ((rc = pq_thrift_struct_begin(t)) < 0) return rc;
    for (;;) {
      if ((rc = pq_thrift_field(t, &last, &id, &ft)) < 0) break;
      if (ft == PQ_TT_STOP) break;
      if ((rc = skip_value(t, ft, false)) < 0) break;
    }
    pq_thrift_struct_end(t);
    return rc;
  }
  default:
    return err_set(DELTA_ECORRUPT, "cannot skip invalid thrift type %d at byte %zu", type,
                           pq_thrift_offset(t));
  }
}

int pq_thrift_skip(pq_thrift *t, int type) { return skip_value(t, type, false); }

int pq_thrift_skip_elem(pq_thrift *t, int type) { return skip_value(t, type, true); }
