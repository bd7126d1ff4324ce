#include "arrow/flatbuf.h"

#include <string.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Metadata of one IPC message is small; anything near this is a bug. */
#define FB_MAX_SIZE ((size_t)1 << 30)

void fb_init(fb_builder *b) {
  memset(b, 0, sizeof *b);
  b->minalign = 1;
  b->max_field = -1;
}

void fb_dispose(fb_builder *b) {
  mem_free(b->buf);
  fb_init(b);
}

void fb_reset(fb_builder *b) {
  b->len = 0;
  b->minalign = 1;
  b->err = 0;
  b->in_table = 0;
  b->max_field = -1;
}

static int fb_fail(fb_builder *b, int code) {
  if (!b->err) b->err = code;
  return b->err;
}

/* Make room for `n` more bytes in front. The content sits at the end of the
 * allocation, so growing copies it to the end of the new one. */
static int fb_room(fb_builder *b, size_t n) {
  if (b->err) return b->err;
  if (b->cap - b->len >= n) return 0;
  if (n > FB_MAX_SIZE || b->len > FB_MAX_SIZE - n)
    return fb_fail(b, err_set(DELTA_ELIMIT, "flatbuffer larger than 1 GiB"));
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < n) cap *= 2;
  uint8_t *p = mem_malloc(cap);
  if (!p) return fb_fail(b, DELTA_NOMEM());
  if (b->len) memcpy(p + cap - b->len, b->buf + b->cap - b->len, b->len);
  mem_free(b->buf);
  b->buf = p;
  b->cap = cap;
  return 0;
}

static uint8_t *fb_front(fb_builder *b) { return b->buf + b->cap - b->len; }

static void fb_pad(fb_builder *b, size_t n) {
  if (!n || fb_room(b, n)) return;
  b->len += n;
  memset(fb_front(b), 0, n);
}

/* Pad so that after `extra` more bytes the size from the end is a multiple of
 * `align`. The finished buffer's length is a multiple of the largest
 * alignment, so alignment from the end is alignment from the start. */
static void fb_prep(fb_builder *b, size_t align, size_t extra) {
  if (align > b->minalign) b->minalign = align;
  size_t pad = (align - ((b->len + extra) & (align - 1))) & (align - 1);
  fb_pad(b, pad);
}

static void fb_push(fb_builder *b, const void *p, size_t n) {
  if (fb_room(b, n)) return;
  b->len += n;
  if (n) memcpy(fb_front(b), p, n);
}

static void fb_push_le(fb_builder *b, uint64_t v, size_t n) {
  uint8_t tmp[8];
  for (size_t i = 0; i < n; i++) tmp[i] = (uint8_t)(v >> (8 * i));
  fb_prep(b, n, 0);
  fb_push(b, tmp, n);
}

/* An offset written at the (aligned) front points forward to `ref`: its value
 * is the distance from the offset's own position to the target. */
static void fb_push_uoffset(fb_builder *b, fb_ref ref) {
  fb_prep(b, 4, 0);
  if (b->err) return;
  if (ref == 0 || ref > b->len) {
    fb_fail(b, err_set(DELTA_EINVAL, "flatbuffer offset to an object not yet built"));
    return;
  }
  fb_push_le(b, (uint64_t)(b->len + 4 - ref), 4);
}

fb_ref fb_string(fb_builder *b, const char *s, size_t n) {
  if (n > FB_MAX_SIZE) {
    fb_fail(b, err_set(DELTA_ELIMIT, "flatbuffer string too long"));
    return 0;
  }
  fb_prep(b, 4, n + 1);
  fb_pad(b, 1); /* the terminating NUL */
  fb_push(b, s, n);
  fb_push_le(b, (uint64_t)n, 4);
  return b->err ? 0 : (fb_ref)b->len;
}

fb_ref fb_offset_vector(fb_builder *b, const fb_ref *refs, size_t n) {
  if (n > FB_MAX_SIZE / 4) {
    fb_fail(b, err_set(DELTA_ELIMIT, "flatbuffer vector too long"));
    return 0;
  }
  fb_prep(b, 4, 4 * n);
  for (size_t i = n; i-- > 0;) fb_push_uoffset(b, refs[i]);
  fb_push_le(b, (uint64_t)n, 4);
  return b->err ? 0 : (fb_ref)b->len;
}

fb_ref fb_struct_vector(fb_builder *b, const void *data, size_t elem_size, size_t n,
                        size_t align) {
  if (elem_size && n > FB_MAX_SIZE / elem_size) {
    fb_fail(b, err_set(DELTA_ELIMIT, "flatbuffer vector too long"));
    return 0;
  }
  /* The length prefix must be 4-aligned and the elements `align`-aligned;
   * with align >= 4 both hold when the elements start aligned. */
  fb_prep(b, 4, elem_size * n);
  fb_prep(b, align, elem_size * n);
  fb_push(b, data, elem_size * n);
  fb_push_le(b, (uint64_t)n, 4);
  return b->err ? 0 : (fb_ref)b->len;
}

void fb_table_start(fb_builder *b) {
  if (b->in_table) {
    fb_fail(b, err_set(DELTA_EINVAL, "flatbuffer tables cannot nest while built"));
    return;
  }
  b->in_table = 1;
  b->table_start = b->len;
  b->max_field = -1;
  memset(b->field_pos, 0, sizeof b->field_pos);
}

static void fb_mark_field(fb_builder *b, int field) {
  if (b->err) return;
  if (!b->in_table || field < 0 || field >= FB_MAX_FIELDS) {
    fb_fail(b, err_set(DELTA_EINVAL, "flatbuffer field %d outside a table", field));
    return;
  }
  b->field_pos[field] = (uint32_t)b->len;
  if (field > b->max_field) b->max_field = field;
}

static void fb_add_scalar(fb_builder *b, int field, uint64_t v, size_t n) {
  fb_push_le(b, v, n);
  fb_mark_field(b, field);
}

void fb_add_u8(fb_builder *b, int field, uint8_t v) { fb_add_scalar(b, field, v, 1); }
void fb_add_bool(fb_builder *b, int field, int v) { fb_add_scalar(b, field, v ? 1 : 0, 1); }
void fb_add_i16(fb_builder *b, int field, int16_t v) {
  fb_add_scalar(b, field, (uint16_t)v, 2);
}
void fb_add_i32(fb_builder *b, int field, int32_t v) {
  fb_add_scalar(b, field, (uint32_t)v, 4);
}
void fb_add_i64(fb_builder *b, int field, int64_t v) {
  fb_add_scalar(b, field, (uint64_t)v, 8);
}

void fb_add_offset(fb_builder *b, int field, fb_ref ref) {
  if (!ref) return;
  fb_push_uoffset(b, ref);
  fb_mark_field(b, field);
}

/* The table starts with an int32 that locates its vtable (vtable address =
 * table address - value). The vtable is written right in front of the table:
 * uint16 vtable size, uint16 table size, then one uint16 per field id giving
 * the field's distance from the table start (0 = absent). */
fb_ref fb_table_end(fb_builder *b) {
  if (!b->err && !b->in_table)
    fb_fail(b, err_set(DELTA_EINVAL, "flatbuffer table end without start"));
  b->in_table = 0;
  fb_push_le(b, 0, 4); /* placeholder for the vtable offset */
  if (b->err) return 0;
  size_t table = b->len;
  size_t nfields = (size_t)(b->max_field + 1);
  size_t table_size = table - b->table_start;
  if (table_size > 0xFFFF) {
    fb_fail(b, err_set(DELTA_ELIMIT, "flatbuffer table too large"));
    return 0;
  }
  uint16_t vt[2 + FB_MAX_FIELDS];
  vt[0] = (uint16_t)(4 + 2 * nfields);
  vt[1] = (uint16_t)table_size;
  for (size_t i = 0; i < nfields; i++)
    vt[2 + i] = b->field_pos[i] ? (uint16_t)(table - b->field_pos[i]) : 0;
  /* Pushed last-to-first so that vt[0] ends up at the lowest address. */
  for (size_t i = 2 + nfields; i-- > 0;) fb_push_le(b, vt[i], 2);
  if (b->err) return 0;
  size_t vtable = b->len;
  uint32_t soff = (uint32_t)(vtable - table); /* table - vtable address, > 0 */
  uint8_t *p = b->buf + b->cap - table;
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(soff >> (8 * i));
  return (fb_ref)table;
}

int fb_finish(fb_builder *b, fb_ref root, const uint8_t **data, size_t *len) {
  size_t align = b->minalign < 8 ? 8 : b->minalign;
  fb_prep(b, align, 4);
  fb_push_uoffset(b, root);
  if (b->err) return b->err;
  *data = fb_front(b);
  *len = b->len;
  return 0;
}
