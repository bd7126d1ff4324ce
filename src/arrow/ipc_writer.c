#include "arrow/ipc_writer.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "arrow/flatbuf.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

/* Union member numbers of Schema.fbs `union Type` (NONE = 0). */
enum {
  T_NULL = 1, T_INT = 2, T_FLOAT = 3, T_BINARY = 4, T_UTF8 = 5, T_BOOL = 6,
  T_DECIMAL = 7, T_DATE = 8, T_TIME = 9, T_TIMESTAMP = 10, T_INTERVAL = 11,
  T_LIST = 12, T_STRUCT = 13, T_FSB = 15, T_FSL = 16, T_MAP = 17,
  T_DURATION = 18, T_LARGE_BINARY = 19, T_LARGE_UTF8 = 20, T_LARGE_LIST = 21
};

/* Message.fbs `union MessageHeader` members and MetadataVersion V5. */
enum { H_SCHEMA = 1, H_RECORD_BATCH = 3 };
#define METADATA_V5 4

/* Field ids (declaration order in the .fbs; a union takes two: type, value). */
enum { FIELD_NAME = 0, FIELD_NULLABLE = 1, FIELD_TYPE_TYPE = 2, FIELD_TYPE = 3,
       FIELD_CHILDREN = 5, FIELD_METADATA = 6 };
enum { SCHEMA_ENDIANNESS = 0, SCHEMA_FIELDS = 1, SCHEMA_METADATA = 2 };
enum { MSG_VERSION = 0, MSG_HEADER_TYPE = 1, MSG_HEADER = 2, MSG_BODY_LENGTH = 3 };
enum { RB_LENGTH = 0, RB_NODES = 1, RB_BUFFERS = 2 };

/* Deeper schemas are surely broken, and recursion must stay bounded. */
#define MAX_DEPTH 64

/* How the buffers of an array are laid out, which is all that writing a
 * batch needs to know about a type. */
typedef enum {
  L_NULL,        /* no buffers */
  L_BOOL,        /* validity, bit-packed values */
  L_FIXED,       /* validity, `width` bytes per value */
  L_BINARY,      /* validity, int32 offsets, bytes */
  L_LARGE_BINARY,/* validity, int64 offsets, bytes */
  L_LIST,        /* validity, int32 offsets; one child (also map) */
  L_LARGE_LIST,  /* validity, int64 offsets; one child */
  L_FSL,         /* validity; one child with `width` values per slot */
  L_STRUCT       /* validity; children */
} ipc_layout;

typedef struct ipc_node {
  ipc_layout layout;
  int64_t width;
  int64_t n_children;
  struct ipc_node *children;
  char *format; /* for error messages */
} ipc_node;

/* One body buffer: the caller's memory, or scratch we own (`owned`). */
typedef struct {
  const uint8_t *ptr;
  int64_t len;
  uint8_t *owned;
} body_piece;

struct arrow_ipc_writer {
  arrow_ipc_sink sink;
  void *ctx;
  ipc_node root; /* the "+s" schema; its children are the columns */
  fb_builder fb;
  delta_buf nodes;   /* FieldNode structs, little-endian, for the current batch */
  delta_buf buffers; /* Buffer structs, little-endian, for the current batch */
  body_piece *pieces;
  size_t n_pieces, cap_pieces;
  int64_t body_len;
  int closed;
  int broken; /* a sink call failed mid-message: the stream is unusable */
};

static const uint8_t zeros[8];

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Caller buffers need not be aligned for their element type. */
static int32_t load_i32(const void *base, int64_t i) {
  int32_t v;
  memcpy(&v, (const uint8_t *)base + 4 * i, 4);
  return v;
}

static int64_t load_i64(const void *base, int64_t i) {
  int64_t v;
  memcpy(&v, (const uint8_t *)base + 8 * i, 8);
  return v;
}

static int64_t pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

/* ------------------------------------------------------------------ */
/* Schema: format strings → IPC Field tables and the layout tree       */

static void node_free(ipc_node *n) {
  for (int64_t i = 0; i < n->n_children; i++) node_free(&n->children[i]);
  mem_free(n->children);
  mem_free(n->format);
  memset(n, 0, sizeof *n);
}

/* Parse a decimal number of at most `max` from *s, advancing it. */
static int parse_num(const char **s, int64_t max, int64_t *out) {
  const char *p = *s;
  int64_t v = 0;
  if (*p < '0' || *p > '9') return -1;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (*p - '0');
    if (v > max) return -1;
    p++;
  }
  *s = p;
  *out = v;
  return 0;
}

static int bad_format(const char *fmt) {
  return err_set(DELTA_EINVAL, "arrow ipc: malformed format string \"%s\"", fmt);
}

static int unsupported_format(const char *fmt) {
  return err_set(DELTA_EUNSUPPORTED, "arrow ipc: type \"%s\" is not supported", fmt);
}

/* An empty type table (Null, Bool, Utf8, List, Struct_ ...). */
static fb_ref empty_table(fb_builder *b) {
  fb_table_start(b);
  return fb_table_end(b);
}

static fb_ref unit_table(fb_builder *b, int16_t unit) {
  fb_table_start(b);
  fb_add_i16(b, 0, unit);
  return fb_table_end(b);
}

static int time_unit(char c, int16_t *unit) {
  switch (c) {
  case 's': *unit = 0; return 0;
  case 'm': *unit = 1; return 0;
  case 'u': *unit = 2; return 0;
  case 'n': *unit = 3; return 0;
  default: return -1;
  }
}

/* Turn a format string into the Type union member (*type_id, *type_ref built
 * in `b`) and the buffer layout in `n`. `n_children` is checked here. */
static int parse_type(fb_builder *b, const struct ArrowSchema *s, ipc_node *n,
                      uint8_t *type_id, fb_ref *type_ref) {
  const char *f = s->format;
  int64_t want_children = 0;
  int64_t num = 0;
  n->layout = L_FIXED;
  n->width = 0;
  *type_ref = 0;
  if (f[0] && !f[1]) {
    int bits = 0, is_signed = 0;
    int16_t precision = -1;
    switch (f[0]) {
    case 'n': *type_id = T_NULL; n->layout = L_NULL; *type_ref = empty_table(b); return 0;
    case 'b': *type_id = T_BOOL; n->layout = L_BOOL; *type_ref = empty_table(b); return 0;
    case 'c': bits = 8; is_signed = 1; break;
    case 'C': bits = 8; break;
    case 's': bits = 16; is_signed = 1; break;
    case 'S': bits = 16; break;
    case 'i': bits = 32; is_signed = 1; break;
    case 'I': bits = 32; break;
    case 'l': bits = 64; is_signed = 1; break;
    case 'L': bits = 64; break;
    case 'e': precision = 0; bits = 16; break;
    case 'f': precision = 1; bits = 32; break;
    case 'g': precision = 2; bits = 64; break;
    case 'z': *type_id = T_BINARY; n->layout = L_BINARY; break;
    case 'Z': *type_id = T_LARGE_BINARY; n->layout = L_LARGE_BINARY; break;
    case 'u': *type_id = T_UTF8; n->layout = L_BINARY; break;
    case 'U': *type_id = T_LARGE_UTF8; n->layout = L_LARGE_BINARY; break;
    default: return unsupported_format(f);
    }
    if (n->layout != L_FIXED) {
      *type_ref = empty_table(b);
    } else if (precision >= 0) {
      *type_id = T_FLOAT;
      n->width = bits / 8;
      *type_ref = unit_table(b, precision);
    } else {
      *type_id = T_INT;
      n->width = bits / 8;
      fb_table_start(b);
      fb_add_i32(b, 0, bits);
      fb_add_bool(b, 1, is_signed);
      *type_ref = fb_table_end(b);
    }
    return 0;
  }
  if (f[0] == 'w' && f[1] == ':') {
    const char *p = f + 2;
    if (parse_num(&p, INT32_MAX, &num) || *p || num < 1) return bad_format(f);
    *type_id = T_FSB;
    n->width = num;
    fb_table_start(b);
    fb_add_i32(b, 0, (int32_t)num);
    *type_ref = fb_table_end(b);
    return 0;
  }
  if (f[0] == 'd' && f[1] == ':') {
    const char *p = f + 2;
    int64_t precision, scale = 0, bits = 128;
    int negative = 0;
    if (parse_num(&p, INT32_MAX, &precision) || *p++ != ',') return bad_format(f);
    if (*p == '-') {
      negative = 1;
      p++;
    }
    if (parse_num(&p, INT32_MAX, &scale)) return bad_format(f);
    if (*p == ',') {
      p++;
      if (parse_num(&p, 1024, &bits)) return bad_format(f);
    }
    if (*p) return bad_format(f);
    if (bits != 128 && bits != 256) return unsupported_format(f);
    *type_id = T_DECIMAL;
    n->width = bits / 8;
    fb_table_start(b);
    fb_add_i32(b, 0, (int32_t)precision);
    fb_add_i32(b, 1, (int32_t)(negative ? -scale : scale));
    fb_add_i32(b, 2, (int32_t)bits);
    *type_ref = fb_table_end(b);
    return 0;
  }
  if (f[0] == 't' && f[1] && f[2]) {
    int16_t unit;
    int three = f[3] == 0; /* f[2] is not NUL, so f[3] is readable */
    if (f[1] == 'd' && three && (f[2] == 'D' || f[2] == 'm')) {
      *type_id = T_DATE;
      n->width = f[2] == 'D' ? 4 : 8;
      *type_ref = unit_table(b, f[2] == 'D' ? 0 : 1);
      return 0;
    }
    if (f[1] == 't' && three && time_unit(f[2], &unit) == 0) {
      *type_id = T_TIME;
      n->width = unit <= 1 ? 4 : 8;
      fb_table_start(b);
      fb_add_i16(b, 0, unit);
      fb_add_i32(b, 1, unit <= 1 ? 32 : 64);
      *type_ref = fb_table_end(b);
      return 0;
    }
    if (f[1] == 's' && f[3] == ':' && time_unit(f[2], &unit) == 0) {
      const char *tz = f + 4;
      /* The time zone string must be built before the table opens. */
      fb_ref tz_ref = *tz ? fb_string(b, tz, strlen(tz)) : 0;
      *type_id = T_TIMESTAMP;
      n->width = 8;
      fb_table_start(b);
      fb_add_i16(b, 0, unit);
      fb_add_offset(b, 1, tz_ref);
      *type_ref = fb_table_end(b);
      return 0;
    }
    if (f[1] == 'D' && three && time_unit(f[2], &unit) == 0) {
      *type_id = T_DURATION;
      n->width = 8;
      *type_ref = unit_table(b, unit);
      return 0;
    }
    if (f[1] == 'i' && three && (f[2] == 'M' || f[2] == 'D' || f[2] == 'n')) {
      *type_id = T_INTERVAL;
      n->width = f[2] == 'M' ? 4 : f[2] == 'D' ? 8 : 16;
      *type_ref = unit_table(b, f[2] == 'M' ? 0 : f[2] == 'D' ? 1 : 2);
      return 0;
    }
    return unsupported_format(f);
  }
  if (f[0] == '+') {
    if (f[1] == 'l' && !f[2]) {
      *type_id = T_LIST;
      n->layout = L_LIST;
      want_children = 1;
      *type_ref = empty_table(b);
    } else if (f[1] == 'L' && !f[2]) {
      *type_id = T_LARGE_LIST;
      n->layout = L_LARGE_LIST;
      want_children = 1;
      *type_ref = empty_table(b);
    } else if (f[1] == 'w' && f[2] == ':') {
      const char *p = f + 3;
      if (parse_num(&p, INT32_MAX, &num) || *p) return bad_format(f);
      *type_id = T_FSL;
      n->layout = L_FSL;
      n->width = num;
      want_children = 1;
      fb_table_start(b);
      fb_add_i32(b, 0, (int32_t)num);
      *type_ref = fb_table_end(b);
    } else if (f[1] == 's' && !f[2]) {
      *type_id = T_STRUCT;
      n->layout = L_STRUCT;
      want_children = s->n_children;
      *type_ref = empty_table(b);
    } else if (f[1] == 'm' && !f[2]) {
      const struct ArrowSchema *entries = s->n_children == 1 ? s->children[0] : NULL;
      if (!entries || !entries->format || strcmp(entries->format, "+s") != 0 ||
          entries->n_children != 2)
        return err_set(DELTA_EINVAL,
                               "arrow ipc: a map needs one struct child with key and value");
      *type_id = T_MAP;
      n->layout = L_LIST;
      want_children = 1;
      fb_table_start(b);
      fb_add_bool(b, 0, (s->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0);
      *type_ref = fb_table_end(b);
    } else {
      return unsupported_format(f);
    }
  } else {
    return unsupported_format(f);
  }
  if (s->n_children != want_children)
    return err_set(DELTA_EINVAL, "arrow ipc: type \"%s\" needs %lld children, has %lld",
                           f, (long long)want_children, (long long)s->n_children);
  return 0;
}

/* ArrowSchema.metadata (int32 count, then int32-length-prefixed key and
 * value per pair, native endianness) → a vector of KeyValue tables. */
static int build_metadata(fb_builder *b, const char *md, fb_ref *out) {
  fb_ref *pairs = NULL;
  int rc = 0;
  int32_t count;
  *out = 0;
  if (!md) return 0;
  memcpy(&count, md, 4);
  md += 4;
  if (count < 0)
    return err_set(DELTA_EINVAL, "arrow ipc: negative metadata count %d", (int)count);
  if (count == 0) return 0;
  pairs = mem_calloc((size_t)count, sizeof *pairs);
  if (!pairs) return DELTA_NOMEM();
  for (int32_t i = 0; i < count; i++) {
    int32_t klen, vlen;
    memcpy(&klen, md, 4);
    md += 4;
    if (klen < 0) {
      rc = err_set(DELTA_EINVAL, "arrow ipc: negative metadata key length");
      goto done;
    }
    const char *key = md;
    md += klen;
    memcpy(&vlen, md, 4);
    md += 4;
    if (vlen < 0) {
      rc = err_set(DELTA_EINVAL, "arrow ipc: negative metadata value length");
      goto done;
    }
    const char *value = md;
    md += vlen;
    fb_ref k = fb_string(b, key, (size_t)klen);
    fb_ref v = fb_string(b, value, (size_t)vlen);
    fb_table_start(b);
    fb_add_offset(b, 0, k);
    fb_add_offset(b, 1, v);
    pairs[i] = fb_table_end(b);
  }
  *out = fb_offset_vector(b, pairs, (size_t)count);
  rc = b->err;
done:
  mem_free(pairs);
  return rc;
}

static int build_children(fb_builder *b, const struct ArrowSchema *s, ipc_node *n, int depth,
                          fb_ref *out);

/* Build one Field table for `s` (children first) and fill the layout node. */
static int build_field(fb_builder *b, const struct ArrowSchema *s, ipc_node *n, int depth,
                       fb_ref *out) {
  int rc;
  uint8_t type_id = 0;
  fb_ref type_ref = 0, children = 0, metadata = 0, name = 0;
  if (!s || !s->format)
    return err_set(DELTA_EINVAL, "arrow ipc: schema without a format string");
  if (depth > MAX_DEPTH)
    return err_set(DELTA_ELIMIT, "arrow ipc: schema nested deeper than %d", MAX_DEPTH);
  if (s->dictionary)
    return err_set(DELTA_EUNSUPPORTED,
                           "arrow ipc: dictionary-encoded field \"%s\" is not supported",
                           s->name ? s->name : "");
  if (s->n_children < 0 || (s->n_children > 0 && !s->children))
    return err_set(DELTA_EINVAL, "arrow ipc: bad children of field \"%s\"",
                           s->name ? s->name : "");
  n->format = mem_strdup(s->format);
  if (!n->format) return DELTA_NOMEM();
  rc = build_children(b, s, n, depth, &children);
  if (rc) return rc;
  rc = build_metadata(b, s->metadata, &metadata);
  if (rc) return rc;
  rc = parse_type(b, s, n, &type_id, &type_ref);
  if (rc) return rc;
  name = fb_string(b, s->name ? s->name : "", s->name ? strlen(s->name) : 0);
  fb_table_start(b);
  fb_add_offset(b, FIELD_NAME, name);
  fb_add_bool(b, FIELD_NULLABLE, (s->flags & ARROW_FLAG_NULLABLE) != 0);
  fb_add_u8(b, FIELD_TYPE_TYPE, type_id);
  fb_add_offset(b, FIELD_TYPE, type_ref);
  /* Always present (maybe empty): Arrow C++ rejects a Field without it. */
  fb_add_offset(b, FIELD_CHILDREN, children);
  fb_add_offset(b, FIELD_METADATA, metadata);
  *out = fb_table_end(b);
  return b->err;
}

/* Build the children's Field tables into a vector and their layout nodes. */
static int build_children(fb_builder *b, const struct ArrowSchema *s, ipc_node *n, int depth,
                          fb_ref *out) {
  int rc = 0;
  fb_ref *refs = NULL;
  size_t count = (size_t)s->n_children;
  if (count) {
    n->children = mem_calloc(count, sizeof *n->children);
    refs = mem_calloc(count, sizeof *refs);
    if (!n->children || !refs) {
      rc = DELTA_NOMEM();
      goto done;
    }
    n->n_children = s->n_children;
    for (size_t i = 0; i < count; i++) {
      rc = build_field(b, s->children[i], &n->children[i], depth + 1, &refs[i]);
      if (rc) goto done;
    }
  }
  *out = fb_offset_vector(b, refs, count);
  rc = b->err;
done:
  mem_free(refs);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Framing                                                             */

static int emit(arrow_ipc_writer *w, const void *p, size_t n) {
  if (!n) return 0;
  int rc = w->sink(w->ctx, p, n);
  if (rc) {
    w->broken = 1;
    if (rc > 0) rc = err_set(DELTA_EIO, "arrow ipc: sink failed");
  }
  return rc;
}

/* Encapsulated message: 0xFFFFFFFF, int32 metadata size (padded so the body
 * starts 8-aligned), the flatbuffer, padding. The body follows. */
static int emit_message(arrow_ipc_writer *w, fb_ref root) {
  const uint8_t *meta;
  size_t len;
  uint8_t prefix[8];
  int rc = fb_finish(&w->fb, root, &meta, &len);
  if (rc) return rc;
  size_t padded = (size_t)pad8((int64_t)len);
  if (padded > INT32_MAX)
    return err_set(DELTA_ELIMIT, "arrow ipc: message metadata too large");
  put_le32(prefix, 0xFFFFFFFFu);
  put_le32(prefix + 4, (uint32_t)padded);
  if ((rc = emit(w, prefix, 8)) != 0) return rc;
  if ((rc = emit(w, meta, len)) != 0) return rc;
  return emit(w, zeros, padded - len);
}

static fb_ref message_table(fb_builder *b, uint8_t header_type, fb_ref header,
                            int64_t body_len) {
  fb_table_start(b);
  fb_add_i16(b, MSG_VERSION, METADATA_V5);
  fb_add_u8(b, MSG_HEADER_TYPE, header_type);
  fb_add_offset(b, MSG_HEADER, header);
  fb_add_i64(b, MSG_BODY_LENGTH, body_len);
  return fb_table_end(b);
}

int arrow_ipc_writer_open(arrow_ipc_writer **out, const struct ArrowSchema *schema,
                          arrow_ipc_sink sink, void *ctx) {
  int rc;
  arrow_ipc_writer *w = NULL;
  fb_ref fields = 0, metadata = 0;
  if (out) *out = NULL;
  if (!out || !schema || !sink) {
    rc = err_set(DELTA_EINVAL, "arrow ipc: writer needs a schema and a sink");
    goto done;
  }
  if (!schema->format || strcmp(schema->format, "+s") != 0) {
    rc = err_set(DELTA_EINVAL, "arrow ipc: the schema must be a struct (\"+s\"), not \"%s\"",
                         schema->format ? schema->format : "(null)");
    goto done;
  }
  if (schema->n_children < 0 || (schema->n_children > 0 && !schema->children)) {
    rc = err_set(DELTA_EINVAL, "arrow ipc: bad schema children");
    goto done;
  }
  w = mem_calloc(1, sizeof *w);
  if (!w) {
    rc = DELTA_NOMEM();
    goto done;
  }
  w->sink = sink;
  w->ctx = ctx;
  fb_init(&w->fb);
  w->root.layout = L_STRUCT;
  w->root.format = mem_strdup("+s");
  if (!w->root.format) {
    rc = DELTA_NOMEM();
    goto done;
  }
  rc = build_children(&w->fb, schema, &w->root, 0, &fields);
  if (rc) goto done;
  rc = build_metadata(&w->fb, schema->metadata, &metadata);
  if (rc) goto done;
  fb_table_start(&w->fb);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  fb_add_i16(&w->fb, SCHEMA_ENDIANNESS, 1); /* bodies are the host's memory */
#else
  fb_add_i16(&w->fb, SCHEMA_ENDIANNESS, 0);
#endif
  fb_add_offset(&w->fb, SCHEMA_FIELDS, fields);
  fb_add_offset(&w->fb, SCHEMA_METADATA, metadata);
  fb_ref schema_ref = fb_table_end(&w->fb);
  rc = emit_message(w, message_table(&w->fb, H_SCHEMA, schema_ref, 0));
  if (rc) goto done;
  *out = w;
  w = NULL;
done:
  arrow_ipc_writer_free(w);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Record batches                                                      */

static int add_node(arrow_ipc_writer *w, int64_t length, int64_t null_count) {
  uint8_t rec[16];
  put_le64(rec, (uint64_t)length);
  put_le64(rec + 8, (uint64_t)null_count);
  return buf_append(&w->nodes, rec, sizeof rec);
}

/* Queue a body buffer; takes ownership of `owned` (freed with the batch,
 * also on failure). */
static int add_buffer(arrow_ipc_writer *w, const void *ptr, int64_t len, uint8_t *owned) {
  uint8_t rec[16];
  int rc;
  if (w->n_pieces == w->cap_pieces) {
    size_t cap = w->cap_pieces ? w->cap_pieces * 2 : 32;
    body_piece *p = mem_realloc(w->pieces, cap * sizeof *p);
    if (!p) {
      mem_free(owned);
      return DELTA_NOMEM();
    }
    w->pieces = p;
    w->cap_pieces = cap;
  }
  w->pieces[w->n_pieces].ptr = ptr;
  w->pieces[w->n_pieces].len = len;
  w->pieces[w->n_pieces].owned = owned;
  w->n_pieces++;
  put_le64(rec, (uint64_t)w->body_len);
  put_le64(rec + 8, (uint64_t)len);
  rc = buf_append(&w->buffers, rec, sizeof rec);
  if (rc) return rc;
  w->body_len += pad8(len);
  return 0;
}

static void reset_batch(arrow_ipc_writer *w) {
  for (size_t i = 0; i < w->n_pieces; i++) mem_free(w->pieces[i].owned);
  w->n_pieces = 0;
  w->body_len = 0;
  buf_reset(&w->nodes);
  buf_reset(&w->buffers);
}

static int64_t count_nulls(const uint8_t *bits, int64_t start, int64_t len) {
  int64_t set = 0, i = start, end = start + len;
  for (; i < end && (i & 7); i++) set += (bits[i >> 3] >> (i & 7)) & 1;
  for (; i + 64 <= end; i += 64) {
    uint64_t word;
    memcpy(&word, bits + (i >> 3), 8);
    set += __builtin_popcountll(word);
  }
  for (; i < end; i++) set += (bits[i >> 3] >> (i & 7)) & 1;
  return len - set;
}

/* Queue `len` bits of a bitmap starting at bit `start`. A byte-aligned start
 * is sent as is; otherwise the bits are shifted down into scratch memory
 * (reading no byte past the last bit used) and the tail bits cleared. */
static int add_bitmap(arrow_ipc_writer *w, const uint8_t *bits, int64_t start, int64_t len) {
  int64_t nbytes = (len + 7) / 8;
  if (len == 0) return add_buffer(w, NULL, 0, NULL);
  if ((start & 7) == 0) return add_buffer(w, bits + start / 8, nbytes, NULL);
  uint8_t *out = mem_malloc((size_t)nbytes);
  if (!out) return DELTA_NOMEM();
  const uint8_t *src = bits + start / 8;
  int shift = (int)(start & 7);
  int64_t last = (start + len - 1) / 8 - start / 8; /* last source byte index */
  for (int64_t i = 0; i < nbytes; i++) {
    unsigned v = (unsigned)src[i] >> shift;
    if (i + 1 <= last) v |= (unsigned)src[i + 1] << (8 - shift);
    out[i] = (uint8_t)v;
  }
  if (len & 7) out[nbytes - 1] &= (uint8_t)((1u << (len & 7)) - 1);
  return add_buffer(w, out, nbytes, out);
}

/* Queue the offsets of slots [start, start+len) rebased to begin at 0, and
 * give the first offset and the count of child elements/bytes they cover. */
static int add_offsets(arrow_ipc_writer *w, const ipc_node *n, const void *offsets,
                       int64_t start, int64_t len, int64_t *first, int64_t *count) {
  int large = n->layout == L_LARGE_BINARY || n->layout == L_LARGE_LIST;
  size_t width = large ? 8 : 4;
  *first = *count = 0;
  if (len == 0) return add_buffer(w, zeros, (int64_t)width, NULL);
  if (!offsets)
    return err_set(DELTA_EINVAL, "arrow ipc: \"%s\" array without offsets", n->format);
  int64_t lo = large ? load_i64(offsets, start) : load_i32(offsets, start);
  int64_t hi = large ? load_i64(offsets, start + len) : load_i32(offsets, start + len);
  if (lo < 0 || hi < lo)
    return err_set(DELTA_EINVAL, "arrow ipc: \"%s\" array has bad offsets %lld..%lld",
                           n->format, (long long)lo, (long long)hi);
  *first = lo;
  *count = hi - lo;
  const uint8_t *src = (const uint8_t *)offsets + (size_t)start * width;
  int64_t bytes = (len + 1) * (int64_t)width;
  if (lo == 0) return add_buffer(w, src, bytes, NULL);
  uint8_t *out = mem_malloc((size_t)bytes);
  if (!out) return DELTA_NOMEM();
  for (int64_t i = 0; i <= len; i++) {
    if (large) {
      int64_t v = load_i64(src, i) - lo;
      memcpy(out + 8 * i, &v, 8);
    } else {
      int32_t v = (int32_t)(load_i32(src, i) - lo);
      memcpy(out + 4 * i, &v, 4);
    }
  }
  return add_buffer(w, out, bytes, out);
}

static int64_t expected_buffers(ipc_layout l) {
  switch (l) {
  case L_NULL: return 0;
  case L_FSL:
  case L_STRUCT: return 1;
  case L_BINARY:
  case L_LARGE_BINARY: return 3;
  default: return 2;
  }
}

static int add_array(arrow_ipc_writer *w, const ipc_node *n, const struct ArrowArray *a,
                     int64_t start, int64_t len);

static int add_children(arrow_ipc_writer *w, const ipc_node *n, const struct ArrowArray *a,
                        int64_t start, int64_t len) {
  if (a->n_children != n->n_children || (n->n_children && !a->children))
    return err_set(DELTA_EINVAL, "arrow ipc: \"%s\" array has %lld children, expected %lld",
                           n->format, (long long)a->n_children, (long long)n->n_children);
  for (int64_t i = 0; i < n->n_children; i++) {
    int rc = add_array(w, &n->children[i], a->children[i], start, len);
    if (rc) return rc;
  }
  return 0;
}

/* Queue the FieldNodes and buffers for slots [start, start+len) of `a` in
 * the array's logical index space (a->offset not yet applied), depth-first. */
static int add_array(arrow_ipc_writer *w, const ipc_node *n, const struct ArrowArray *a,
                     int64_t start, int64_t len) {
  int rc;
  if (!a)
    return err_set(DELTA_EINVAL, "arrow ipc: missing \"%s\" child array", n->format);
  if (a->length < 0 || a->offset < 0 || a->offset > INT64_MAX - a->length ||
      start > a->length - len)
    return err_set(DELTA_EINVAL,
                           "arrow ipc: \"%s\" array of length %lld cannot give rows %lld..%lld",
                           n->format, (long long)a->length, (long long)start,
                           (long long)(start + len));
  if (a->n_buffers != expected_buffers(n->layout) || (a->n_buffers && !a->buffers))
    return err_set(DELTA_EINVAL, "arrow ipc: \"%s\" array has %lld buffers, expected %lld",
                           n->format, (long long)a->n_buffers,
                           (long long)expected_buffers(n->layout));
  if (a->dictionary)
    return err_set(DELTA_EUNSUPPORTED, "arrow ipc: dictionary arrays are not supported");
  int64_t phys = a->offset + start; /* index into this array's buffers */

  if (n->layout == L_NULL) return add_node(w, len, len);

  const uint8_t *validity = a->buffers[0];
  int64_t nulls = 0;
  if (validity) {
    if (start == 0 && len == a->length && a->null_count >= 0)
      nulls = a->null_count;
    else
      nulls = count_nulls(validity, phys, len);
  } else if (a->null_count > 0) {
    return err_set(DELTA_EINVAL, "arrow ipc: \"%s\" array has nulls but no validity",
                           n->format);
  }
  rc = add_node(w, len, nulls);
  if (rc) return rc;
  /* Without nulls the bitmap may be left out: an empty buffer says so. */
  rc = nulls ? add_bitmap(w, validity, phys, len) : add_buffer(w, NULL, 0, NULL);
  if (rc) return rc;

  const void *data = a->n_buffers > 1 ? a->buffers[1] : NULL;
  if (len > 0 && n->layout != L_FSL && n->layout != L_STRUCT && !data)
    return err_set(DELTA_EINVAL, "arrow ipc: \"%s\" array without data", n->format);
  int64_t first, count;
  switch (n->layout) {
  case L_BOOL:
    return add_bitmap(w, data, phys, len);
  case L_FIXED:
    if (phys + len > INT64_MAX / n->width)
      return err_set(DELTA_ELIMIT, "arrow ipc: array too large");
    return add_buffer(w, len ? (const uint8_t *)data + phys * n->width : NULL, len * n->width,
                      NULL);
  case L_BINARY:
  case L_LARGE_BINARY: {
    rc = add_offsets(w, n, data, phys, len, &first, &count);
    if (rc) return rc;
    const uint8_t *bytes = a->buffers[2];
    if (count && !bytes)
      return err_set(DELTA_EINVAL, "arrow ipc: \"%s\" array without bytes", n->format);
    return add_buffer(w, count ? bytes + first : NULL, count, NULL);
  }
  case L_LIST:
  case L_LARGE_LIST:
    rc = add_offsets(w, n, data, phys, len, &first, &count);
    if (rc) return rc;
    return add_children(w, n, a, first, count);
  case L_FSL:
    if (n->width && (phys > INT64_MAX / n->width || len > INT64_MAX / n->width))
      return err_set(DELTA_ELIMIT, "arrow ipc: array too large");
    return add_children(w, n, a, phys * n->width, len * n->width);
  case L_STRUCT:
    /* A struct's offset applies to its children too. */
    return add_children(w, n, a, phys, len);
  default:
    return err_set(DELTA_EINVAL, "arrow ipc: bad layout");
  }
}

int arrow_ipc_writer_write(arrow_ipc_writer *w, const struct ArrowArray *batch) {
  int rc;
  if (!w || !batch) return err_set(DELTA_EINVAL, "arrow ipc: write needs a batch");
  if (w->closed) return err_set(DELTA_EINVAL, "arrow ipc: writer is closed");
  if (w->broken) return err_set(DELTA_EIO, "arrow ipc: stream broken by an earlier failure");
  if (batch->length < 0 || batch->offset < 0 || batch->offset > INT64_MAX - batch->length)
    return err_set(DELTA_EINVAL, "arrow ipc: bad batch length or offset");
  reset_batch(w);
  fb_reset(&w->fb);
  /* The batch is the root struct: no node of its own, its offset selects
   * the columns' rows. */
  rc = add_children(w, &w->root, batch, batch->offset, batch->length);
  if (rc) goto done;
  size_t n_nodes = w->nodes.len / 16, n_bufs = w->buffers.len / 16;
  fb_ref nodes = fb_struct_vector(&w->fb, w->nodes.data, 16, n_nodes, 8);
  fb_ref bufs = fb_struct_vector(&w->fb, w->buffers.data, 16, n_bufs, 8);
  fb_table_start(&w->fb);
  fb_add_i64(&w->fb, RB_LENGTH, batch->length);
  fb_add_offset(&w->fb, RB_NODES, nodes);
  fb_add_offset(&w->fb, RB_BUFFERS, bufs);
  fb_ref rb = fb_table_end(&w->fb);
  if ((rc = emit_message(w, message_table(&w->fb, H_RECORD_BATCH, rb, w->body_len))) != 0) goto done;
  for (size_t i = 0; i < w->n_pieces; i++) {
    const body_piece *p = &w->pieces[i];
    if ((rc = emit(w, p->ptr, (size_t)p->len)) != 0) goto done;
    if ((rc = emit(w, zeros, (size_t)(pad8(p->len) - p->len))) != 0) goto done;
  }
done:
  reset_batch(w);
  return rc;
}

int arrow_ipc_writer_close(arrow_ipc_writer *w) {
  static const uint8_t eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  if (!w) return err_set(DELTA_EINVAL, "arrow ipc: close needs a writer");
  if (w->broken) return err_set(DELTA_EIO, "arrow ipc: stream broken by an earlier failure");
  if (w->closed) return err_set(DELTA_EINVAL, "arrow ipc: writer is already closed");
  w->closed = 1;
  return emit(w, eos, sizeof eos);
}

void arrow_ipc_writer_free(arrow_ipc_writer *w) {
  if (!w) return;
  reset_batch(w);
  mem_free(w->pieces);
  buf_dispose(&w->nodes);
  buf_dispose(&w->buffers);
  fb_dispose(&w->fb);
  node_free(&w->root);
  mem_free(w);
}
