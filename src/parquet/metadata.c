/*
 * Parquet FileMetaData and PageHeader decoding (field ids from
 * parquet-format's parquet.thrift), plus validation of what a reader relies
 * on: required fields, non-negative counts and sizes, a consistent schema
 * tree, one column chunk per leaf in every row group.
 *
 * All allocations of one FileMetaData come from a small arena owned by the
 * pq_file_metadata, so a half-parsed footer is freed in one sweep and no
 * error path has to unwind individual arrays.
 */
#include "parquet/metadata.h"

#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "parquet/thrift.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* ---- arena ---------------------------------------------------------------- */

typedef struct pq_block {
  struct pq_block *next;
  size_t cap, used;
  max_align_t data[]; /* keeps every allocation maximally aligned */
} pq_block;

typedef struct {
  pq_block *head;
  size_t next_size;
} pq_arena;

/* The public struct comes first so a pq_file_metadata* is also a pq_md_owner*. */
typedef struct {
  pq_file_metadata md;
  pq_arena arena;
} pq_md_owner;

enum { ARENA_FIRST = 4096, ARENA_MAX_BLOCK = 1 << 20 };

/* Zeroed memory from the arena; NULL (with the error set) when out of memory. */
static void *arena_alloc(pq_arena *a, size_t n) {
  const size_t al = alignof(max_align_t);
  if (n > SIZE_MAX / 2) {
    DELTA_NOMEM();
    return NULL;
  }
  n = n ? (n + al - 1) / al * al : al;
  pq_block *b = a->head;
  if (b && b->cap - b->used >= n) {
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
  }
  if (a->next_size < ARENA_FIRST) a->next_size = ARENA_FIRST;
  /* Big requests get a block of their own, linked behind the current one so
   * its free space is not abandoned. */
  bool own = n > a->next_size / 2;
  size_t cap = own ? n : a->next_size;
  b = mem_calloc(1, sizeof(pq_block) + cap);
  if (!b) {
    DELTA_NOMEM();
    return NULL;
  }
  b->cap = cap;
  b->used = n;
  if (own && a->head) {
    b->next = a->head->next;
    a->head->next = b;
  } else {
    b->next = a->head;
    a->head = b;
    if (a->next_size < ARENA_MAX_BLOCK) a->next_size *= 2;
  }
  return b->data;
}

static void arena_free(pq_arena *a) {
  pq_block *b = a->head;
  while (b) {
    pq_block *next = b->next;
    mem_free(b);
    b = next;
  }
  a->head = NULL;
}

/* Array of `count` zeroed elements; `count` has already been bounded by the
 * bytes left in the buffer. */
static int arena_array(pq_arena *a, size_t count, size_t size, void **out) {
  if (count == 0) {
    *out = NULL;
    return 0;
  }
  if (count > SIZE_MAX / size) return DELTA_NOMEM();
  *out = arena_alloc(a, count * size);
  return *out ? 0 : DELTA_ENOMEM;
}

/* ---- shared pieces -------------------------------------------------------- */

typedef struct {
  pq_thrift t;
  pq_arena *arena;
} pq_parser;

static int missing(const char *st, const char *field) {
  return err_set(DELTA_ECORRUPT, "%s is missing required field %s", st, field);
}

static int negative(const char *what, long long v) {
  return err_set(DELTA_ECORRUPT, "%s is negative (%lld)", what, v);
}

static int read_bytes(pq_thrift *t, int type, pq_bytes *out, const char *what) {
  return pq_thrift_read_binary(t, type, &out->ptr, &out->len, what);
}

/* A NUL-terminated copy of a string field; embedded NULs are refused because
 * names are compared as C strings later. */
static int read_cstr(pq_parser *ps, int type, char **out, const char *what) {
  int rc;
  const uint8_t *p = NULL;
  uint32_t len = 0;
  if ((rc = pq_thrift_read_binary(&ps->t, type, &p, &len, what)) != 0) return rc;
  if (memchr(p, 0, len))
    return err_set(DELTA_ECORRUPT, "%s contains a NUL byte", what);
  char *s = arena_alloc(ps->arena, (size_t)len + 1);
  if (!s) return DELTA_ENOMEM;
  memcpy(s, p, len);
  s[len] = '\0';
  *out = s;
  return 0;
}

static int read_enum(pq_thrift *t, int type, int *out, const char *what) {
  int rc;
  int32_t v = 0;
  if ((rc = pq_thrift_read_i32(t, type, &v, what)) != 0) return rc;
  *out = v;
  return 0;
}

/* List header for a list whose elements each take at least `min_bytes`
 * encoded bytes, so the count is checked before allocating for it. */
static int list_begin(pq_thrift *t, int type, int want_elem, size_t min_bytes, uint32_t *count,
                      const char *what) {
  int rc;
  int et = 0;
  if ((rc = pq_thrift_list_begin(t, type, &et, count, what)) != 0) return rc;
  if (*count == 0) return 0;
  if (et != want_elem)
    return err_set(DELTA_ECORRUPT, "%s: list elements are %s, expected %s", what,
                           pq_thrift_type_name(et), pq_thrift_type_name(want_elem));
  if (*count > pq_thrift_remaining(t) / min_bytes)
    return err_set(DELTA_ECORRUPT, "%s: %u elements cannot fit in the %zu bytes left",
                           what, *count, pq_thrift_remaining(t));
  return 0;
}

static int expect_struct(pq_thrift *t, int type, const char *what) {
  if (type != PQ_TT_STRUCT)
    return err_set(DELTA_ECORRUPT, "%s: expected struct, found %s at byte %zu", what,
                           pq_thrift_type_name(type), pq_thrift_offset(t));
  return 0;
}

/* ---- Statistics ----------------------------------------------------------- */

static int parse_statistics(pq_thrift *t, int type, pq_statistics *s) {
  int rc;
  int last = 0, id = 0, ft = 0;
  if ((rc = expect_struct(t, type, "Statistics")) != 0) return rc;
  memset(s, 0, sizeof *s);
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1: if ((rc = read_bytes(t, ft, &s->max, "Statistics.max")) != 0) return rc; break;
    case 2: if ((rc = read_bytes(t, ft, &s->min, "Statistics.min")) != 0) return rc; break;
    case 3:
      if ((rc = pq_thrift_read_i64(t, ft, &s->null_count, "Statistics.null_count")) != 0) return rc;
      s->has_null_count = true;
      break;
    case 4:
      if ((rc = pq_thrift_read_i64(t, ft, &s->distinct_count, "Statistics.distinct_count")) != 0) return rc;
      s->has_distinct_count = true;
      break;
    case 5:
      if ((rc = read_bytes(t, ft, &s->max_value, "Statistics.max_value")) != 0) return rc;
      break;
    case 6:
      if ((rc = read_bytes(t, ft, &s->min_value, "Statistics.min_value")) != 0) return rc;
      break;
    case 7:
      if ((rc = pq_thrift_field_bool(t, ft, &s->is_max_value_exact,
                                     "Statistics.is_max_value_exact")) != 0) return rc;
      s->has_is_max_value_exact = true;
      break;
    case 8:
      if ((rc = pq_thrift_field_bool(t, ft, &s->is_min_value_exact,
                                     "Statistics.is_min_value_exact")) != 0) return rc;
      s->has_is_min_value_exact = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc; /* nan_count and future fields */
    }
  }
  pq_thrift_struct_end(t);
  /* A negative count would mislead pruning; treat it as corruption. */
  if (s->has_null_count && s->null_count < 0)
    return negative("Statistics.null_count", s->null_count);
  if (s->has_distinct_count && s->distinct_count < 0)
    return negative("Statistics.distinct_count", s->distinct_count);
  return 0;
}

/* ---- LogicalType ---------------------------------------------------------- */

/* TimeUnit union: the member's field id is the unit (MILLIS=1, MICROS=2,
 * NANOS=3); an unknown member is kept as its id for the reader to refuse. */
static int parse_time_unit(pq_thrift *t, int type, int *unit) {
  int rc;
  int last = 0, id = 0, ft = 0, members = 0;
  if ((rc = expect_struct(t, type, "TimeUnit")) != 0) return rc;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    if ((rc = expect_struct(t, ft, "TimeUnit member")) != 0) return rc;
    if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    *unit = id;
    members++;
  }
  pq_thrift_struct_end(t);
  if (members != 1)
    return err_set(DELTA_ECORRUPT, "TimeUnit union has %d members, expected 1", members);
  return 0;
}

/* TimeType and TimestampType share their layout. */
static int parse_time_type(pq_thrift *t, pq_logical_type *lt, const char *st) {
  int rc;
  int last = 0, id = 0, ft = 0;
  bool has_utc = false, has_unit = false;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = pq_thrift_field_bool(t, ft, &lt->utc, "isAdjustedToUTC")) != 0) return rc;
      has_utc = true;
      break;
    case 2:
      if ((rc = parse_time_unit(t, ft, &lt->unit)) != 0) return rc;
      has_unit = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!has_utc) return missing(st, "isAdjustedToUTC");
  if (!has_unit) return missing(st, "unit");
  return 0;
}

static int parse_decimal_type(pq_thrift *t, pq_logical_type *lt) {
  int rc;
  int last = 0, id = 0, ft = 0;
  bool has_scale = false, has_precision = false;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = pq_thrift_read_i32(t, ft, &lt->scale, "DecimalType.scale")) != 0) return rc;
      has_scale = true;
      break;
    case 2:
      if ((rc = pq_thrift_read_i32(t, ft, &lt->precision, "DecimalType.precision")) != 0) return rc;
      has_precision = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!has_scale) return missing("DecimalType", "scale");
  if (!has_precision) return missing("DecimalType", "precision");
  return 0;
}

static int parse_int_type(pq_thrift *t, pq_logical_type *lt) {
  int rc;
  int last = 0, id = 0, ft = 0;
  bool has_width = false, has_signed = false;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1: {
      int8_t w = 0;
      if ((rc = pq_thrift_read_i8(t, ft, &w, "IntType.bitWidth")) != 0) return rc;
      lt->bit_width = w;
      has_width = true;
      break;
    }
    case 2:
      if ((rc = pq_thrift_field_bool(t, ft, &lt->is_signed, "IntType.isSigned")) != 0) return rc;
      has_signed = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!has_width) return missing("IntType", "bitWidth");
  if (!has_signed) return missing("IntType", "isSigned");
  if (lt->bit_width != 8 && lt->bit_width != 16 && lt->bit_width != 32 && lt->bit_width != 64)
    return err_set(DELTA_ECORRUPT, "IntType.bitWidth is %d, expected 8, 16, 32 or 64",
                           lt->bit_width);
  return 0;
}

/* LogicalType union. kind is the member's field id; members this decoder
 * does not know keep their id as kind (e.g. 19 for VECTOR) so the reader can
 * refuse them by value. */
static int parse_logical_type(pq_thrift *t, int type, pq_logical_type *lt) {
  int rc;
  int last = 0, id = 0, ft = 0, members = 0;
  if ((rc = expect_struct(t, type, "LogicalType")) != 0) return rc;
  memset(lt, 0, sizeof *lt);
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    if ((rc = expect_struct(t, ft, "LogicalType member")) != 0) return rc;
    if (id <= 0)
      return err_set(DELTA_ECORRUPT, "LogicalType has invalid member id %d", id);
    if (++members > 1)
      return err_set(DELTA_ECORRUPT, "LogicalType union has more than one member");
    lt->kind = id;
    switch (id) {
    case PQ_LT_DECIMAL: if ((rc = parse_decimal_type(t, lt)) != 0) return rc; break;
    case PQ_LT_TIME: if ((rc = parse_time_type(t, lt, "TimeType")) != 0) return rc; break;
    case PQ_LT_TIMESTAMP: if ((rc = parse_time_type(t, lt, "TimestampType")) != 0) return rc; break;
    case PQ_LT_INTEGER: if ((rc = parse_int_type(t, lt)) != 0) return rc; break;
    default: /* empty structs, or optional fields we ignore */
      if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  return 0;
}

/* ---- SchemaElement -------------------------------------------------------- */

static int parse_schema_element(pq_parser *ps, pq_schema_element *se, bool *has_num_children) {
  int rc;
  pq_thrift *t = &ps->t;
  int last = 0, id = 0, ft = 0;
  bool has_name = false;
  se->type = -1;
  se->repetition = -1;
  se->converted_type = PQ_CT_NONE;
  se->logical.kind = PQ_LT_NONE;
  *has_num_children = false;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1: if ((rc = read_enum(t, ft, &se->type, "SchemaElement.type")) != 0) return rc; break;
    case 2:
      if ((rc = pq_thrift_read_i32(t, ft, &se->type_length, "SchemaElement.type_length")) != 0) return rc;
      break;
    case 3:
      if ((rc = read_enum(t, ft, &se->repetition, "SchemaElement.repetition_type")) != 0) return rc;
      break;
    case 4:
      if ((rc = read_cstr(ps, ft, &se->name, "SchemaElement.name")) != 0) return rc;
      has_name = true;
      break;
    case 5:
      if ((rc = pq_thrift_read_i32(t, ft, &se->num_children, "SchemaElement.num_children")) != 0) return rc;
      *has_num_children = true;
      break;
    case 6:
      if ((rc = read_enum(t, ft, &se->converted_type, "SchemaElement.converted_type")) != 0) return rc;
      break;
    case 7:
      if ((rc = pq_thrift_read_i32(t, ft, &se->scale, "SchemaElement.scale")) != 0) return rc;
      break;
    case 8:
      if ((rc = pq_thrift_read_i32(t, ft, &se->precision, "SchemaElement.precision")) != 0) return rc;
      break;
    case 9:
      if ((rc = pq_thrift_read_i32(t, ft, &se->field_id, "SchemaElement.field_id")) != 0) return rc;
      se->has_field_id = true;
      break;
    case 10: if ((rc = parse_logical_type(t, ft, &se->logical)) != 0) return rc; break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!has_name) return missing("SchemaElement", "name");
  return 0;
}

/* ---- ColumnMetaData / ColumnChunk ----------------------------------------- */

enum {
  CM_TYPE = 1 << 0, CM_ENCODINGS = 1 << 1, CM_PATH = 1 << 2, CM_CODEC = 1 << 3,
  CM_NUM_VALUES = 1 << 4, CM_UNCOMPRESSED = 1 << 5, CM_COMPRESSED = 1 << 6,
  CM_DATA_PAGE_OFFSET = 1 << 7, CM_ALL = (1 << 8) - 1
};

static int parse_column_meta(pq_parser *ps, int type, pq_column_meta *cm) {
  int rc;
  pq_thrift *t = &ps->t;
  int last = 0, id = 0, ft = 0;
  unsigned seen = 0;
  uint32_t n = 0;
  if ((rc = expect_struct(t, type, "ColumnMetaData")) != 0) return rc;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = read_enum(t, ft, &cm->type, "ColumnMetaData.type")) != 0) return rc;
      seen |= CM_TYPE;
      break;
    case 2: {
      if ((rc = list_begin(t, ft, PQ_TT_I32, 1, &n, "ColumnMetaData.encodings")) != 0) return rc;
      void *arr = NULL;
      if ((rc = arena_array(ps->arena, n, sizeof(int), &arr)) != 0) return rc;
      cm->encodings = arr;
      cm->num_encodings = (int32_t)n;
      for (uint32_t i = 0; i < n; i++)
        if ((rc = read_enum(t, PQ_TT_I32, &cm->encodings[i], "ColumnMetaData.encodings")) != 0) return rc;
      seen |= CM_ENCODINGS;
      break;
    }
    case 3: {
      if ((rc = list_begin(t, ft, PQ_TT_BINARY, 1, &n, "ColumnMetaData.path_in_schema")) != 0) return rc;
      void *arr = NULL;
      if ((rc = arena_array(ps->arena, n, sizeof(char *), &arr)) != 0) return rc;
      cm->path_in_schema = arr;
      cm->path_len = (int32_t)n;
      for (uint32_t i = 0; i < n; i++)
        if ((rc = read_cstr(ps, PQ_TT_BINARY, &cm->path_in_schema[i],
                            "ColumnMetaData.path_in_schema")) != 0) return rc;
      seen |= CM_PATH;
      break;
    }
    case 4:
      if ((rc = read_enum(t, ft, &cm->codec, "ColumnMetaData.codec")) != 0) return rc;
      seen |= CM_CODEC;
      break;
    case 5:
      if ((rc = pq_thrift_read_i64(t, ft, &cm->num_values, "ColumnMetaData.num_values")) != 0) return rc;
      seen |= CM_NUM_VALUES;
      break;
    case 6:
      if ((rc = pq_thrift_read_i64(t, ft, &cm->total_uncompressed_size,
                                   "ColumnMetaData.total_uncompressed_size")) != 0) return rc;
      seen |= CM_UNCOMPRESSED;
      break;
    case 7:
      if ((rc = pq_thrift_read_i64(t, ft, &cm->total_compressed_size,
                                   "ColumnMetaData.total_compressed_size")) != 0) return rc;
      seen |= CM_COMPRESSED;
      break;
    case 9:
      if ((rc = pq_thrift_read_i64(t, ft, &cm->data_page_offset,
                                   "ColumnMetaData.data_page_offset")) != 0) return rc;
      seen |= CM_DATA_PAGE_OFFSET;
      break;
    case 10:
      if ((rc = pq_thrift_read_i64(t, ft, &cm->index_page_offset,
                                   "ColumnMetaData.index_page_offset")) != 0) return rc;
      cm->has_index_page_offset = true;
      break;
    case 11:
      if ((rc = pq_thrift_read_i64(t, ft, &cm->dictionary_page_offset,
                                   "ColumnMetaData.dictionary_page_offset")) != 0) return rc;
      cm->has_dictionary_page_offset = true;
      break;
    case 12:
      if ((rc = parse_statistics(t, ft, &cm->statistics)) != 0) return rc;
      cm->has_statistics = true;
      break;
    /* 8 key_value_metadata, 13 encoding_stats, 14/15 bloom filter,
     * 16 size_statistics, 17 geospatial_statistics: not needed to read. */
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (seen != CM_ALL) {
    static const char *const names[] = {"type", "encodings", "path_in_schema", "codec",
                                        "num_values", "total_uncompressed_size",
                                        "total_compressed_size", "data_page_offset"};
    for (int i = 0; i < 8; i++)
      if (!(seen & (1u << i))) return missing("ColumnMetaData", names[i]);
  }
  if (cm->path_len < 1) return err_set(DELTA_ECORRUPT, "ColumnMetaData.path_in_schema is empty");
  if (cm->num_values < 0) return negative("ColumnMetaData.num_values", cm->num_values);
  if (cm->total_uncompressed_size < 0)
    return negative("ColumnMetaData.total_uncompressed_size", cm->total_uncompressed_size);
  if (cm->total_compressed_size < 0)
    return negative("ColumnMetaData.total_compressed_size", cm->total_compressed_size);
  if (cm->data_page_offset < 0)
    return negative("ColumnMetaData.data_page_offset", cm->data_page_offset);
  if (cm->has_index_page_offset && cm->index_page_offset < 0)
    return negative("ColumnMetaData.index_page_offset", cm->index_page_offset);
  if (cm->has_dictionary_page_offset && cm->dictionary_page_offset < 0)
    return negative("ColumnMetaData.dictionary_page_offset", cm->dictionary_page_offset);
  return 0;
}

static int parse_column_chunk(pq_parser *ps, pq_column_chunk *cc) {
  int rc;
  pq_thrift *t = &ps->t;
  int last = 0, id = 0, ft = 0;
  bool encrypted = false;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = read_bytes(t, ft, &cc->file_path, "ColumnChunk.file_path")) != 0) return rc;
      break;
    /* file_offset is "required" but deprecated and defaults to 0, and some
     * writers leave it out: do not insist on it. */
    case 2:
      if ((rc = pq_thrift_read_i64(t, ft, &cc->file_offset, "ColumnChunk.file_offset")) != 0) return rc;
      break;
    case 3:
      if ((rc = parse_column_meta(ps, ft, &cc->meta_data)) != 0) return rc;
      cc->has_meta_data = true;
      break;
    case 9:
      if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
      encrypted = true;
      break;
    default: /* page index offsets, crypto metadata */
      if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!cc->has_meta_data) {
    if (encrypted)
      return err_set(DELTA_EUNSUPPORTED, "encrypted column metadata is not supported");
    return missing("ColumnChunk", "meta_data");
  }
  return 0;
}

/* ---- RowGroup ------------------------------------------------------------- */

/* Smallest encodings of structs with required fields, used to bound list
 * counts before allocating: a field header and a one-byte value per
 * required field plus the stop byte, rounded down. */
enum {
  MIN_SCHEMA_ELEMENT = 3, /* name: header + length + stop */
  MIN_ROW_GROUP = 6,      /* columns, total_byte_size, num_rows, stop */
  MIN_COLUMN_CHUNK = 16,  /* meta_data with 8 required fields */
  MIN_KEY_VALUE = 3,      /* key */
  MIN_COLUMN_ORDER = 1    /* an empty union is just its stop byte */
};

static int parse_row_group(pq_parser *ps, pq_row_group *rg) {
  int rc;
  pq_thrift *t = &ps->t;
  int last = 0, id = 0, ft = 0;
  bool has_columns = false, has_size = false, has_rows = false;
  uint32_t n = 0;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1: {
      if ((rc = list_begin(t, ft, PQ_TT_STRUCT, MIN_COLUMN_CHUNK, &n, "RowGroup.columns")) != 0) return rc;
      void *arr = NULL;
      if ((rc = arena_array(ps->arena, n, sizeof(pq_column_chunk), &arr)) != 0) return rc;
      rg->columns = arr;
      rg->num_columns = (int32_t)n;
      for (uint32_t i = 0; i < n; i++) if ((rc = parse_column_chunk(ps, &rg->columns[i])) != 0) return rc;
      has_columns = true;
      break;
    }
    case 2:
      if ((rc = pq_thrift_read_i64(t, ft, &rg->total_byte_size, "RowGroup.total_byte_size")) != 0) return rc;
      has_size = true;
      break;
    case 3:
      if ((rc = pq_thrift_read_i64(t, ft, &rg->num_rows, "RowGroup.num_rows")) != 0) return rc;
      has_rows = true;
      break;
    case 5:
      if ((rc = pq_thrift_read_i64(t, ft, &rg->file_offset, "RowGroup.file_offset")) != 0) return rc;
      rg->has_file_offset = true;
      break;
    case 6:
      if ((rc = pq_thrift_read_i64(t, ft, &rg->total_compressed_size,
                                   "RowGroup.total_compressed_size")) != 0) return rc;
      rg->has_total_compressed_size = true;
      break;
    case 7:
      if ((rc = pq_thrift_read_i16(t, ft, &rg->ordinal, "RowGroup.ordinal")) != 0) return rc;
      rg->has_ordinal = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc; /* sorting_columns */
    }
  }
  pq_thrift_struct_end(t);
  if (!has_columns) return missing("RowGroup", "columns");
  if (!has_size) return missing("RowGroup", "total_byte_size");
  if (!has_rows) return missing("RowGroup", "num_rows");
  if (rg->num_rows < 0) return negative("RowGroup.num_rows", rg->num_rows);
  if (rg->total_byte_size < 0) return negative("RowGroup.total_byte_size", rg->total_byte_size);
  return 0;
}

/* ---- KeyValue, ColumnOrder ------------------------------------------------ */

static int parse_key_value(pq_thrift *t, pq_key_value *kv) {
  int rc;
  int last = 0, id = 0, ft = 0;
  bool has_key = false;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = read_bytes(t, ft, &kv->key, "KeyValue.key")) != 0) return rc;
      has_key = true;
      break;
    case 2: if ((rc = read_bytes(t, ft, &kv->value, "KeyValue.value")) != 0) return rc; break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!has_key) return missing("KeyValue", "key");
  return 0;
}

/* ColumnOrder union: true only for TYPE_ORDER (member 1); other orders
 * (IEEE 754 total order, INT96) are not ones the reader prunes with. */
static int parse_column_order(pq_thrift *t, bool *type_defined) {
  int rc;
  int last = 0, id = 0, ft = 0;
  *type_defined = false;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    if (id == 1) {
      if ((rc = expect_struct(t, ft, "ColumnOrder.TYPE_ORDER")) != 0) return rc;
      *type_defined = true;
    }
    if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
  }
  pq_thrift_struct_end(t);
  return 0;
}

/* ---- FileMetaData --------------------------------------------------------- */

/* Schema tree checks; sets *num_leaves and fills leaf_types (one per leaf, in
 * order) so row groups can be checked against it. */
static int validate_schema(pq_parser *ps, pq_file_metadata *md, const bool *has_children,
                           int **leaf_types, int32_t *num_leaves) {
  int rc;
  if (md->num_schema < 1) return err_set(DELTA_ECORRUPT, "the schema has no root element");
  const pq_schema_element *root = &md->schema[0];
  if (root->type != -1 || !has_children[0])
    return err_set(DELTA_ECORRUPT, "the schema root '%s' is not a group", root->name);
  int32_t leaves = 0;
  /* Preorder check: `open` is the number of child slots announced by the
   * groups read so far and not yet filled. Each element fills one slot and
   * opens num_children more; the list must end exactly when none is open. */
  int64_t open = root->num_children;
  if (root->num_children < 0)
    return negative("SchemaElement.num_children of the root", root->num_children);
  for (int32_t i = 1; i < md->num_schema; i++) {
    const pq_schema_element *se = &md->schema[i];
    if (open == 0)
      return err_set(DELTA_ECORRUPT,
                             "schema element %d ('%s') is outside the tree (num_children too small)",
                             i, se->name);
    open--;
    if (se->repetition < PQ_REQUIRED || se->repetition > PQ_REPEATED)
      return err_set(se->repetition == 3 ? DELTA_EUNSUPPORTED : DELTA_ECORRUPT,
                             "schema element '%s' has repetition_type %d", se->name,
                             se->repetition);
    if (se->num_children < 0)
      return err_set(DELTA_ECORRUPT, "schema element '%s' has num_children %d", se->name,
                             se->num_children);
    if (se->type == -1) {
      if (!has_children[i])
        return err_set(DELTA_ECORRUPT,
                               "schema element '%s' has neither a type nor num_children",
                               se->name);
      open += se->num_children;
      continue;
    }
    /* A leaf. Some writers put num_children = 0 on leaves; more is not a leaf. */
    if (se->num_children != 0)
      return err_set(DELTA_ECORRUPT, "schema element '%s' has a type and %d children",
                             se->name, se->num_children);
    if (se->type < PQ_BOOLEAN || se->type > PQ_FIXED_LEN_BYTE_ARRAY)
      return err_set(DELTA_ECORRUPT, "schema element '%s' has unknown physical type %d",
                             se->name, se->type);
    if (se->type == PQ_FIXED_LEN_BYTE_ARRAY && se->type_length <= 0)
      return err_set(DELTA_ECORRUPT,
                             "FIXED_LEN_BYTE_ARRAY column '%s' has type_length %d", se->name,
                             se->type_length);
    leaves++;
  }
  if (open != 0)
    return err_set(DELTA_ECORRUPT,
                           "the schema announces %lld more elements than it has (num_children too large)",
                           (long long)open);
  void *arr = NULL;
  if ((rc = arena_array(ps->arena, (size_t)leaves, sizeof(int), &arr)) != 0) return rc;
  int *types = arr;
  for (int32_t i = 1, k = 0; i < md->num_schema; i++)
    if (md->schema[i].type != -1) types[k++] = md->schema[i].type;
  *leaf_types = types;
  *num_leaves = leaves;
  return 0;
}

static int validate_row_groups(const pq_file_metadata *md, const int *leaf_types, int32_t leaves) {
  for (int32_t g = 0; g < md->num_row_groups; g++) {
    const pq_row_group *rg = &md->row_groups[g];
    if (rg->num_columns != leaves)
      return err_set(DELTA_ECORRUPT,
                             "row group %d has %d column chunks but the schema has %d leaf columns",
                             g, rg->num_columns, leaves);
    for (int32_t c = 0; c < leaves; c++) {
      const pq_column_meta *cm = &rg->columns[c].meta_data;
      if (cm->type != leaf_types[c])
        return err_set(DELTA_ECORRUPT,
                               "row group %d column %d ('%s') has type %s but the schema says %s",
                               g, c, cm->path_in_schema[cm->path_len - 1],
                               pq_type_name(cm->type), pq_type_name(leaf_types[c]));
    }
  }
  return 0;
}

enum { FM_VERSION = 1, FM_SCHEMA = 2, FM_NUM_ROWS = 4, FM_ROW_GROUPS = 8 };

static int parse_file_metadata(pq_parser *ps, pq_file_metadata *md) {
  int rc;
  pq_thrift *t = &ps->t;
  int last = 0, id = 0, ft = 0;
  unsigned seen = 0;
  uint32_t n = 0;
  bool *has_children = NULL;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = pq_thrift_read_i32(t, ft, &md->version, "FileMetaData.version")) != 0) return rc;
      seen |= FM_VERSION;
      break;
    case 2: {
      if ((rc = list_begin(t, ft, PQ_TT_STRUCT, MIN_SCHEMA_ELEMENT, &n,
                           "FileMetaData.schema")) != 0) return rc;
      void *arr = NULL, *flags = NULL;
      if ((rc = arena_array(ps->arena, n, sizeof(pq_schema_element), &arr)) != 0) return rc;
      if ((rc = arena_array(ps->arena, n, sizeof(bool), &flags)) != 0) return rc;
      md->schema = arr;
      md->num_schema = (int32_t)n;
      has_children = flags;
      for (uint32_t i = 0; i < n; i++)
        if ((rc = parse_schema_element(ps, &md->schema[i], &has_children[i])) != 0) return rc;
      seen |= FM_SCHEMA;
      break;
    }
    case 3:
      if ((rc = pq_thrift_read_i64(t, ft, &md->num_rows, "FileMetaData.num_rows")) != 0) return rc;
      seen |= FM_NUM_ROWS;
      break;
    case 4: {
      if ((rc = list_begin(t, ft, PQ_TT_STRUCT, MIN_ROW_GROUP, &n,
                           "FileMetaData.row_groups")) != 0) return rc;
      void *arr = NULL;
      if ((rc = arena_array(ps->arena, n, sizeof(pq_row_group), &arr)) != 0) return rc;
      md->row_groups = arr;
      md->num_row_groups = (int32_t)n;
      for (uint32_t i = 0; i < n; i++) if ((rc = parse_row_group(ps, &md->row_groups[i])) != 0) return rc;
      seen |= FM_ROW_GROUPS;
      break;
    }
    case 5: {
      if ((rc = list_begin(t, ft, PQ_TT_STRUCT, MIN_KEY_VALUE, &n,
                           "FileMetaData.key_value_metadata")) != 0) return rc;
      void *arr = NULL;
      if ((rc = arena_array(ps->arena, n, sizeof(pq_key_value), &arr)) != 0) return rc;
      md->kv = arr;
      md->num_kv = (int32_t)n;
      for (uint32_t i = 0; i < n; i++) if ((rc = parse_key_value(t, &md->kv[i])) != 0) return rc;
      break;
    }
    case 6:
      if ((rc = read_bytes(t, ft, &md->created_by, "FileMetaData.created_by")) != 0) return rc;
      break;
    case 7: {
      if ((rc = list_begin(t, ft, PQ_TT_STRUCT, MIN_COLUMN_ORDER, &n,
                           "FileMetaData.column_orders")) != 0) return rc;
      void *arr = NULL;
      if ((rc = arena_array(ps->arena, n, sizeof(bool), &arr)) != 0) return rc;
      md->column_orders = arr;
      md->num_column_orders = (int32_t)n;
      for (uint32_t i = 0; i < n; i++) if ((rc = parse_column_order(t, &md->column_orders[i])) != 0) return rc;
      break;
    }
    /* 8 encryption_algorithm, 9 footer_signing_key_metadata: plaintext-footer
     * encryption; the column chunks then carry encrypted metadata, refused
     * in parse_column_chunk. */
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!(seen & FM_VERSION)) return missing("FileMetaData", "version");
  if (!(seen & FM_SCHEMA)) return missing("FileMetaData", "schema");
  if (!(seen & FM_NUM_ROWS)) return missing("FileMetaData", "num_rows");
  if (!(seen & FM_ROW_GROUPS)) return missing("FileMetaData", "row_groups");
  if (md->num_rows < 0) return negative("FileMetaData.num_rows", md->num_rows);

  int *leaf_types = NULL;
  int32_t leaves = 0;
  if ((rc = validate_schema(ps, md, has_children, &leaf_types, &leaves)) != 0) return rc;
  if ((rc = validate_row_groups(md, leaf_types, leaves)) != 0) return rc;
  if (md->column_orders && md->num_column_orders != leaves)
    return err_set(DELTA_ECORRUPT,
                           "FileMetaData has %d column_orders but the schema has %d leaf columns",
                           md->num_column_orders, leaves);
  return 0;
}

int pq_metadata_parse(const uint8_t *buf, size_t len, pq_file_metadata **out) {
  int rc;
  *out = NULL;
  pq_md_owner *own = mem_calloc(1, sizeof *own);
  if (!own) return DELTA_NOMEM();
  pq_parser ps;
  pq_thrift_init(&ps.t, buf, len);
  ps.arena = &own->arena;
  rc = parse_file_metadata(&ps, &own->md);
  if (rc < 0) goto done;
  *out = &own->md;
  own = NULL;
done:
  if (own) {
    arena_free(&own->arena);
    mem_free(own);
  }
  return rc;
}

void pq_metadata_free(pq_file_metadata *md) {
  if (!md) return;
  pq_md_owner *own = (pq_md_owner *)md;
  arena_free(&own->arena);
  mem_free(own);
}

/* ---- PageHeader ----------------------------------------------------------- */

static int parse_data_page_header(pq_thrift *t, int type, pq_data_page_header *h) {
  int rc;
  int last = 0, id = 0, ft = 0;
  unsigned seen = 0;
  if ((rc = expect_struct(t, type, "DataPageHeader")) != 0) return rc;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = pq_thrift_read_i32(t, ft, &h->num_values, "DataPageHeader.num_values")) != 0) return rc;
      break;
    case 2:
      if ((rc = read_enum(t, ft, &h->encoding, "DataPageHeader.encoding")) != 0) return rc;
      break;
    case 3:
      if ((rc = read_enum(t, ft, &h->definition_level_encoding,
                          "DataPageHeader.definition_level_encoding")) != 0) return rc;
      break;
    case 4:
      if ((rc = read_enum(t, ft, &h->repetition_level_encoding,
                          "DataPageHeader.repetition_level_encoding")) != 0) return rc;
      break;
    case 5:
      if ((rc = parse_statistics(t, ft, &h->statistics)) != 0) return rc;
      h->has_statistics = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc; continue;
    }
    if (id >= 1 && id <= 4) seen |= 1u << id;
  }
  pq_thrift_struct_end(t);
  if (!(seen & 2)) return missing("DataPageHeader", "num_values");
  if (!(seen & 4)) return missing("DataPageHeader", "encoding");
  if (!(seen & 8)) return missing("DataPageHeader", "definition_level_encoding");
  if (!(seen & 16)) return missing("DataPageHeader", "repetition_level_encoding");
  if (h->num_values < 0) return negative("DataPageHeader.num_values", h->num_values);
  return 0;
}

static int parse_dictionary_page_header(pq_thrift *t, int type, pq_dictionary_page_header *h) {
  int rc;
  int last = 0, id = 0, ft = 0;
  bool has_num = false, has_enc = false;
  if ((rc = expect_struct(t, type, "DictionaryPageHeader")) != 0) return rc;
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = pq_thrift_read_i32(t, ft, &h->num_values, "DictionaryPageHeader.num_values")) != 0) return rc;
      has_num = true;
      break;
    case 2:
      if ((rc = read_enum(t, ft, &h->encoding, "DictionaryPageHeader.encoding")) != 0) return rc;
      has_enc = true;
      break;
    case 3:
      if ((rc = pq_thrift_field_bool(t, ft, &h->is_sorted, "DictionaryPageHeader.is_sorted")) != 0) return rc;
      h->has_is_sorted = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc;
    }
  }
  pq_thrift_struct_end(t);
  if (!has_num) return missing("DictionaryPageHeader", "num_values");
  if (!has_enc) return missing("DictionaryPageHeader", "encoding");
  if (h->num_values < 0) return negative("DictionaryPageHeader.num_values", h->num_values);
  return 0;
}

static int parse_data_page_header_v2(pq_thrift *t, int type, pq_data_page_header_v2 *h) {
  int rc;
  int last = 0, id = 0, ft = 0;
  unsigned seen = 0;
  if ((rc = expect_struct(t, type, "DataPageHeaderV2")) != 0) return rc;
  h->is_compressed = true; /* the thrift default */
  if ((rc = pq_thrift_struct_begin(t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = pq_thrift_read_i32(t, ft, &h->num_values, "DataPageHeaderV2.num_values")) != 0) return rc;
      break;
    case 2:
      if ((rc = pq_thrift_read_i32(t, ft, &h->num_nulls, "DataPageHeaderV2.num_nulls")) != 0) return rc;
      break;
    case 3:
      if ((rc = pq_thrift_read_i32(t, ft, &h->num_rows, "DataPageHeaderV2.num_rows")) != 0) return rc;
      break;
    case 4:
      if ((rc = read_enum(t, ft, &h->encoding, "DataPageHeaderV2.encoding")) != 0) return rc;
      break;
    case 5:
      if ((rc = pq_thrift_read_i32(t, ft, &h->definition_levels_byte_length,
                                   "DataPageHeaderV2.definition_levels_byte_length")) != 0) return rc;
      break;
    case 6:
      if ((rc = pq_thrift_read_i32(t, ft, &h->repetition_levels_byte_length,
                                   "DataPageHeaderV2.repetition_levels_byte_length")) != 0) return rc;
      break;
    case 7:
      if ((rc = pq_thrift_field_bool(t, ft, &h->is_compressed,
                                     "DataPageHeaderV2.is_compressed")) != 0) return rc;
      break;
    case 8:
      if ((rc = parse_statistics(t, ft, &h->statistics)) != 0) return rc;
      h->has_statistics = true;
      break;
    default: if ((rc = pq_thrift_skip(t, ft)) != 0) return rc; continue;
    }
    if (id >= 1 && id <= 6) seen |= 1u << id;
  }
  pq_thrift_struct_end(t);
  static const char *const names[] = {"", "num_values", "num_nulls", "num_rows", "encoding",
                                      "definition_levels_byte_length",
                                      "repetition_levels_byte_length"};
  for (int i = 1; i <= 6; i++)
    if (!(seen & (1u << i))) return missing("DataPageHeaderV2", names[i]);
  if (h->num_values < 0) return negative("DataPageHeaderV2.num_values", h->num_values);
  if (h->num_nulls < 0) return negative("DataPageHeaderV2.num_nulls", h->num_nulls);
  if (h->num_rows < 0) return negative("DataPageHeaderV2.num_rows", h->num_rows);
  if (h->definition_levels_byte_length < 0)
    return negative("DataPageHeaderV2.definition_levels_byte_length",
                    h->definition_levels_byte_length);
  if (h->repetition_levels_byte_length < 0)
    return negative("DataPageHeaderV2.repetition_levels_byte_length",
                    h->repetition_levels_byte_length);
  if (h->num_nulls > h->num_values)
    return err_set(DELTA_ECORRUPT, "DataPageHeaderV2 has %d nulls among %d values",
                           h->num_nulls, h->num_values);
  return 0;
}

enum { PH_TYPE = 1, PH_UNCOMPRESSED = 2, PH_COMPRESSED = 4 };

int pq_page_header_parse(const uint8_t *buf, size_t len, pq_page_header *out, size_t *consumed) {
  int rc;
  pq_thrift t;
  int last = 0, id = 0, ft = 0;
  unsigned seen = 0;
  pq_page_header *h = out;
  memset(h, 0, sizeof *h);
  pq_thrift_init(&t, buf, len);
  if ((rc = pq_thrift_struct_begin(&t)) != 0) return rc;
  for (;;) {
    if ((rc = pq_thrift_field(&t, &last, &id, &ft)) != 0) return rc;
    if (ft == PQ_TT_STOP) break;
    switch (id) {
    case 1:
      if ((rc = read_enum(&t, ft, &h->type, "PageHeader.type")) != 0) return rc;
      seen |= PH_TYPE;
      break;
    case 2:
      if ((rc = pq_thrift_read_i32(&t, ft, &h->uncompressed_page_size,
                                   "PageHeader.uncompressed_page_size")) != 0) return rc;
      seen |= PH_UNCOMPRESSED;
      break;
    case 3:
      if ((rc = pq_thrift_read_i32(&t, ft, &h->compressed_page_size,
                                   "PageHeader.compressed_page_size")) != 0) return rc;
      seen |= PH_COMPRESSED;
      break;
    case 4:
      if ((rc = pq_thrift_read_i32(&t, ft, &h->crc, "PageHeader.crc")) != 0) return rc;
      h->has_crc = true;
      break;
    case 5:
      if ((rc = parse_data_page_header(&t, ft, &h->data_page_header)) != 0) return rc;
      h->has_data_page_header = true;
      break;
    case 7:
      if ((rc = parse_dictionary_page_header(&t, ft, &h->dictionary_page_header)) != 0) return rc;
      h->has_dictionary_page_header = true;
      break;
    case 8:
      if ((rc = parse_data_page_header_v2(&t, ft, &h->data_page_header_v2)) != 0) return rc;
      h->has_data_page_header_v2 = true;
      break;
    default: if ((rc = pq_thrift_skip(&t, ft)) != 0) return rc; /* 6 index_page_header (empty) */
    }
  }
  pq_thrift_struct_end(&t);
  if (!(seen & PH_TYPE)) return missing("PageHeader", "type");
  if (!(seen & PH_UNCOMPRESSED)) return missing("PageHeader", "uncompressed_page_size");
  if (!(seen & PH_COMPRESSED)) return missing("PageHeader", "compressed_page_size");
  if (h->uncompressed_page_size < 0)
    return negative("PageHeader.uncompressed_page_size", h->uncompressed_page_size);
  if (h->compressed_page_size < 0)
    return negative("PageHeader.compressed_page_size", h->compressed_page_size);
  switch (h->type) {
  case PQ_PAGE_DATA:
    if (!h->has_data_page_header) return missing("DATA_PAGE header", "data_page_header");
    break;
  case PQ_PAGE_DICTIONARY:
    if (!h->has_dictionary_page_header)
      return missing("DICTIONARY_PAGE header", "dictionary_page_header");
    break;
  case PQ_PAGE_DATA_V2: {
    if (!h->has_data_page_header_v2) return missing("DATA_PAGE_V2 header", "data_page_header_v2");
    /* The levels are stored uncompressed in front of the values and count
     * towards both sizes; more level bytes than page bytes is corrupt. */
    const pq_data_page_header_v2 *v2 = &h->data_page_header_v2;
    int64_t levels =
        (int64_t)v2->definition_levels_byte_length + v2->repetition_levels_byte_length;
    if (levels > h->compressed_page_size || levels > h->uncompressed_page_size)
      return err_set(DELTA_ECORRUPT,
                             "DATA_PAGE_V2 has %lld level bytes in a page of %d/%d bytes",
                             (long long)levels, h->compressed_page_size,
                             h->uncompressed_page_size);
    break;
  }
  default: break; /* INDEX_PAGE and unknown types: the reader skips them by size */
  }
  *consumed = pq_thrift_offset(&t);
  return 0;
}

/* ---- names ---------------------------------------------------------------- */

static const char *unknown_name(char *buf, size_t size, int v) {
  snprintf(buf, size, "UNKNOWN(%d)", v);
  return buf;
}

const char *pq_codec_name(int codec) {
  static _Thread_local char buf[32];
  static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                      "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
  if (codec >= 0 && codec < (int)(sizeof names / sizeof names[0])) return names[codec];
  return unknown_name(buf, sizeof buf, codec);
}

const char *pq_encoding_name(int enc) {
  static _Thread_local char buf[32];
  static const char *const names[] = {"PLAIN", NULL, "PLAIN_DICTIONARY", "RLE",
                                      "BIT_PACKED", "DELTA_BINARY_PACKED",
                                      "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                                      "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
  if (enc >= 0 && enc < (int)(sizeof names / sizeof names[0]) && names[enc]) return names[enc];
  return unknown_name(buf, sizeof buf, enc);
}

const char *pq_type_name(int type) {
  static _Thread_local char buf[32];
  static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96",
                                      "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  if (type == -1) return "GROUP";
  if (type >= 0 && type < (int)(sizeof names / sizeof names[0])) return names[type];
  return unknown_name(buf, sizeof buf, type);
}

const char *pq_converted_type_name(int ct) {
  static _Thread_local char buf[32];
  static const char *const names[] = {
      "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
      "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
      "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
  if (ct == PQ_CT_NONE) return "NONE";
  if (ct >= 0 && ct < (int)(sizeof names / sizeof names[0])) return names[ct];
  return unknown_name(buf, sizeof buf, ct);
}

const char *pq_page_type_name(int type) {
  static _Thread_local char buf[32];
  static const char *const names[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE",
                                      "DATA_PAGE_V2"};
  if (type >= 0 && type < (int)(sizeof names / sizeof names[0])) return names[type];
  return unknown_name(buf, sizeof buf, type);
}
