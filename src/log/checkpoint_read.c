/*
 * Parquet checkpoints to delta_action callbacks.
 *
 * A checkpoint is a Parquet file with one nullable struct column per action
 * type (add, remove, metaData, ...) and exactly one of them non-null per row.
 * Writers differ in the details (INT32 vs INT64 integers, which sub-fields
 * exist, annotated or legacy maps, extra columns such as commitInfo,
 * stats_parsed or partitionValues_parsed), so the columns are looked up by
 * name once per file in a fixed table of the fields replay needs, only
 * those are projected, and the per-row loop works on plain pointers into
 * the Arrow buffers with no name lookups and no mallocs (strings go to the
 * arena).
 */
#include "log/checkpoint_read.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "arrow/array.h"
#include "arrow/format.h"
#include "deltac/parquet.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* Rows per Arrow batch. The per-batch binding is cheap; what costs is
 * memory the kernel has to zero: a batch's buffers (strings, levels) are
 * malloc'd afresh each time, and at 65536 rows they pushed the heap of a
 * million-file checkpoint to ~75 MB of first-touched 4 KiB pages. At 8192
 * rows the freed buffers of one batch are reused by the next. */
#define BATCH_ROWS 8192

/* The Arrow shape a field must have. */
typedef enum { T_STRUCT, T_STR, T_INT, T_BOOL, T_MAP, T_LIST, T_ANY } field_type;

/* What a resolved column actually is (integers keep their width). */
typedef enum {
  K_NONE, K_STRUCT, K_STR, K_I8, K_I16, K_I32, K_I64, K_U8, K_U16, K_U32, K_U64, K_BOOL, K_MAP, K_LIST,
  K_ANY /* read whole and rendered as JSON (add.stats_parsed) */
} col_kind;

/* Every field read, in an order where parents come before children. The
 * deletion-vector sub-fields follow their struct in the same order for add
 * and remove, so one function reads both (see read_dv). */
enum {
  F_ADD, F_ADD_PATH, F_ADD_PV, F_ADD_SIZE, F_ADD_MTIME, F_ADD_DC, F_ADD_STATS, F_ADD_TAGS,
  F_ADD_DV, F_ADD_DV_TYPE, F_ADD_DV_PATH, F_ADD_DV_OFFSET, F_ADD_DV_SIZE, F_ADD_DV_CARD,
  F_ADD_BRID, F_ADD_DRCV, F_ADD_CLUSTER,
  F_RM, F_RM_PATH, F_RM_DTS, F_RM_DC, F_RM_EXT, F_RM_PV, F_RM_SIZE, F_RM_STATS, F_RM_TAGS,
  F_RM_DV, F_RM_DV_TYPE, F_RM_DV_PATH, F_RM_DV_OFFSET, F_RM_DV_SIZE, F_RM_DV_CARD,
  F_RM_BRID, F_RM_DRCV,
  F_MD, F_MD_ID, F_MD_NAME, F_MD_DESC, F_MD_FORMAT, F_MD_FMT_PROVIDER, F_MD_FMT_OPTIONS,
  F_MD_SCHEMA, F_MD_PCOLS, F_MD_CREATED, F_MD_CONF,
  F_PR, F_PR_MINR, F_PR_MINW, F_PR_RF, F_PR_WF,
  F_TXN, F_TXN_APP, F_TXN_VER, F_TXN_LU,
  F_DM, F_DM_DOMAIN, F_DM_CONF, F_DM_REMOVED,
  F_SC, F_SC_PATH, F_SC_SIZE, F_SC_MTIME, F_SC_TAGS,
  F_CM, F_CM_VERSION, F_CM_TAGS,
  F_ADD_STATS_PARSED,
  F_N
};

typedef struct {
  int parent; /* -1: a top-level column */
  const char *name;
  field_type type;
} field_def;

/* add.stats_parsed is read only when wanted, and used only for rows whose
 * JSON stats are missing (writers with delta.checkpoint.writeStatsAsJson
 * false); it is rendered into the same JSON form. partitionValues_parsed
 * is left out: the string partitionValues map is required in checkpoints. */
static const field_def FIELDS[F_N] = {
    [F_ADD] = {-1, "add", T_STRUCT},
    [F_ADD_PATH] = {F_ADD, "path", T_STR},
    [F_ADD_PV] = {F_ADD, "partitionValues", T_MAP},
    [F_ADD_SIZE] = {F_ADD, "size", T_INT},
    [F_ADD_MTIME] = {F_ADD, "modificationTime", T_INT},
    [F_ADD_DC] = {F_ADD, "dataChange", T_BOOL},
    [F_ADD_STATS] = {F_ADD, "stats", T_STR},
    [F_ADD_TAGS] = {F_ADD, "tags", T_MAP},
    [F_ADD_DV] = {F_ADD, "deletionVector", T_STRUCT},
    [F_ADD_DV_TYPE] = {F_ADD_DV, "storageType", T_STR},
    [F_ADD_DV_PATH] = {F_ADD_DV, "pathOrInlineDv", T_STR},
    [F_ADD_DV_OFFSET] = {F_ADD_DV, "offset", T_INT},
    [F_ADD_DV_SIZE] = {F_ADD_DV, "sizeInBytes", T_INT},
    [F_ADD_DV_CARD] = {F_ADD_DV, "cardinality", T_INT},
    [F_ADD_BRID] = {F_ADD, "baseRowId", T_INT},
    [F_ADD_DRCV] = {F_ADD, "defaultRowCommitVersion", T_INT},
    [F_ADD_CLUSTER] = {F_ADD, "clusteringProvider", T_STR},
    [F_RM] = {-1, "remove", T_STRUCT},
    [F_RM_PATH] = {F_RM, "path", T_STR},
    [F_RM_DTS] = {F_RM, "deletionTimestamp", T_INT},
    [F_RM_DC] = {F_RM, "dataChange", T_BOOL},
    [F_RM_EXT] = {F_RM, "extendedFileMetadata", T_BOOL},
    [F_RM_PV] = {F_RM, "partitionValues", T_MAP},
    [F_RM_SIZE] = {F_RM, "size", T_INT},
    [F_RM_STATS] = {F_RM, "stats", T_STR},
    [F_RM_TAGS] = {F_RM, "tags", T_MAP},
    [F_RM_DV] = {F_RM, "deletionVector", T_STRUCT},
    [F_RM_DV_TYPE] = {F_RM_DV, "storageType", T_STR},
    [F_RM_DV_PATH] = {F_RM_DV, "pathOrInlineDv", T_STR},
    [F_RM_DV_OFFSET] = {F_RM_DV, "offset", T_INT},
    [F_RM_DV_SIZE] = {F_RM_DV, "sizeInBytes", T_INT},
    [F_RM_DV_CARD] = {F_RM_DV, "cardinality", T_INT},
    [F_RM_BRID] = {F_RM, "baseRowId", T_INT},
    [F_RM_DRCV] = {F_RM, "defaultRowCommitVersion", T_INT},
    [F_MD] = {-1, "metaData", T_STRUCT},
    [F_MD_ID] = {F_MD, "id", T_STR},
    [F_MD_NAME] = {F_MD, "name", T_STR},
    [F_MD_DESC] = {F_MD, "description", T_STR},
    [F_MD_FORMAT] = {F_MD, "format", T_STRUCT},
    [F_MD_FMT_PROVIDER] = {F_MD_FORMAT, "provider", T_STR},
    [F_MD_FMT_OPTIONS] = {F_MD_FORMAT, "options", T_MAP},
    [F_MD_SCHEMA] = {F_MD, "schemaString", T_STR},
    [F_MD_PCOLS] = {F_MD, "partitionColumns", T_LIST},
    [F_MD_CREATED] = {F_MD, "createdTime", T_INT},
    [F_MD_CONF] = {F_MD, "configuration", T_MAP},
    [F_PR] = {-1, "protocol", T_STRUCT},
    [F_PR_MINR] = {F_PR, "minReaderVersion", T_INT},
    [F_PR_MINW] = {F_PR, "minWriterVersion", T_INT},
    [F_PR_RF] = {F_PR, "readerFeatures", T_LIST},
    [F_PR_WF] = {F_PR, "writerFeatures", T_LIST},
    [F_TXN] = {-1, "txn", T_STRUCT},
    [F_TXN_APP] = {F_TXN, "appId", T_STR},
    [F_TXN_VER] = {F_TXN, "version", T_INT},
    [F_TXN_LU] = {F_TXN, "lastUpdated", T_INT},
    [F_DM] = {-1, "domainMetadata", T_STRUCT},
    [F_DM_DOMAIN] = {F_DM, "domain", T_STR},
    [F_DM_CONF] = {F_DM, "configuration", T_STR},
    [F_DM_REMOVED] = {F_DM, "removed", T_BOOL},
    [F_SC] = {-1, "sidecar", T_STRUCT},
    [F_SC_PATH] = {F_SC, "path", T_STR},
    [F_SC_SIZE] = {F_SC, "sizeInBytes", T_INT},
    [F_SC_MTIME] = {F_SC, "modificationTime", T_INT},
    [F_SC_TAGS] = {F_SC, "tags", T_MAP},
    [F_CM] = {-1, "checkpointMetadata", T_STRUCT},
    [F_CM_VERSION] = {F_CM, "version", T_INT},
    [F_CM_TAGS] = {F_CM, "tags", T_MAP},
    [F_ADD_STATS_PARSED] = {F_ADD, "stats_parsed", T_ANY},
};

/* The top-level action columns, most frequent first: the row loop tests
 * them in this order. */
static const int ACTIONS[] = {F_ADD, F_RM, F_TXN, F_DM, F_MD, F_PR, F_SC, F_CM};
#define N_ACTIONS ((int)(sizeof ACTIONS / sizeof ACTIONS[0]))

/* Where each field sits in one Arrow schema (the file's or the stream's). */
typedef struct {
  int child[F_N];        /* index among the parent's children; -1: absent */
  unsigned char kind[F_N];
} layout;

/* One string column bound to a batch: slot of row r is base + r. */
typedef struct {
  int64_t base;
  const uint8_t *valid;   /* NULL: no nulls */
  const int32_t *offsets;
  const char *bytes;
} str_col;

/* A column bound to the current batch. */
typedef struct {
  unsigned char kind;     /* K_NONE when the file lacks the field */
  int64_t base;           /* slot of batch row r is base + r */
  const uint8_t *valid;   /* NULL: no nulls */
  const void *values;     /* integers, booleans (bitmap), string bytes */
  const int32_t *offsets; /* strings, lists, maps */
  const struct ArrowArray *array; /* K_ANY: the array, row r at logical index lbase + r */
  int64_t lbase;
  str_col key, value;     /* maps: the entries' key and value; lists: key is the element */
  int64_t n_entries;      /* maps, lists: length of the entries array */
} col;

/* A small partitionValues array already in the arena, shared by the rows
 * whose (interned) keys and values are the same. */
typedef struct {
  delta_kv *kv;
  int n;
} kv_shared;

#define KV_SHARE_MAX 4 /* entries; bigger maps are rare and not shared */

typedef struct {
  const char *path;
  delta_arena *arena;
  int stats_mode;          /* DELTA_CKPT_STATS_* */
  arrow_type *stats_type;  /* of add.stats_parsed, when read */
  delta_buf json;          /* scratch for rendering it */
  layout lay;
  col c[F_N];
  int64_t row0;           /* file row of the current batch's row 0 */
  const char *interned[256]; /* map keys and values seen recently (see map_str) */
  kv_shared kv_cache[64];    /* small maps built recently (see get_kv) */
} reader;

/* ---------------------------------------------------------------- schema */

/* "add.deletionVector.offset" for messages and projection. */
static void field_name(int f, char *buf, size_t cap) {
  int chain[4], n = 0;
  for (int g = f; g >= 0 && n < 4; g = FIELDS[g].parent) chain[n++] = g;
  size_t len = 0;
  buf[0] = '\0';
  for (int i = n - 1; i >= 0; i--) {
    int w = snprintf(buf + len, cap - len, "%s%s", i == n - 1 ? "" : ".", FIELDS[chain[i]].name);
    if (w < 0 || (size_t)w >= cap - len) return;
    len += (size_t)w;
  }
}

static bool is_string_format(const char *fmt) {
  /* Writers that do not annotate strings give binary ("z"); both have
   * 32-bit offsets, which is all the reader produces. */
  return strcmp(fmt, "u") == 0 || strcmp(fmt, "z") == 0;
}

/* A map is "+m" (annotated) or, from writers that skip the MAP annotation,
 * a list of two-field structs; either way entries with string key/value. */
static bool is_map_schema(const struct ArrowSchema *s) {
  if (strcmp(s->format, "+m") != 0 && strcmp(s->format, "+l") != 0) return false;
  if (s->n_children != 1) return false;
  const struct ArrowSchema *e = s->children[0];
  return strcmp(e->format, "+s") == 0 && e->n_children == 2 &&
         is_string_format(e->children[0]->format) && is_string_format(e->children[1]->format);
}

static col_kind kind_of(const struct ArrowSchema *s, field_type t) {
  const char *f = s->format;
  switch (t) {
  case T_ANY: return K_ANY;
  case T_STRUCT: return strcmp(f, "+s") == 0 ? K_STRUCT : K_NONE;
  case T_STR: return is_string_format(f) ? K_STR : K_NONE;
  case T_BOOL: return strcmp(f, "b") == 0 ? K_BOOL : K_NONE;
  case T_MAP: return is_map_schema(s) ? K_MAP : K_NONE;
  case T_LIST:
    return strcmp(f, "+l") == 0 && s->n_children == 1 && is_string_format(s->children[0]->format)
               ? K_LIST : K_NONE;
  case T_INT:
    if (f[0] == '\0' || f[1] != '\0') return K_NONE;
    switch (f[0]) {
    case 'c': return K_I8;
    case 's': return K_I16;
    case 'i': return K_I32;
    case 'l': return K_I64;
    case 'C': return K_U8;
    case 'S': return K_U16;
    case 'I': return K_U32;
    case 'L': return K_U64;
    default: return K_NONE;
    }
  }
  return K_NONE;
}

static const char *type_word(field_type t) {
  switch (t) {
  case T_STRUCT: return "a struct";
  case T_STR: return "a string";
  case T_INT: return "an integer";
  case T_BOOL: return "a boolean";
  case T_MAP: return "a map of strings";
  case T_LIST: return "a list of strings";
  case T_ANY: return "anything";
  }
  return "?";
}

/* Find every field of FIELDS in `root` (a "+s" schema). A field of the
 * wrong type is corrupt; a missing one is simply absent. Structs with none
 * of our fields inside count as absent too: there is no leaf to read their
 * validity from. */
static int resolve(const char *path, const struct ArrowSchema *root, int want_stats, layout *lay) {
  const struct ArrowSchema *node[F_N];
  for (int f = 0; f < F_N; f++) {
    node[f] = NULL;
    lay->child[f] = -1;
    lay->kind[f] = K_NONE;
    if (f == F_ADD_STATS && !want_stats) continue;
    if (f == F_ADD_STATS_PARSED && want_stats != 2) continue; /* only in full mode */
    int p = FIELDS[f].parent;
    const struct ArrowSchema *parent = p < 0 ? root : node[p];
    if (!parent) continue;
    for (int64_t i = 0; i < parent->n_children; i++) {
      const struct ArrowSchema *ch = parent->children[i];
      if (!ch->name || strcmp(ch->name, FIELDS[f].name) != 0) continue;
      col_kind k = kind_of(ch, FIELDS[f].type);
      if (k == K_NONE) {
        char name[96];
        field_name(f, name, sizeof name);
        return err_set(DELTA_ECORRUPT, "checkpoint %s: column %s has Arrow type '%s', expected %s",
                               path, name, ch->format, type_word(FIELDS[f].type));
      }
      node[f] = ch;
      lay->child[f] = (int)i;
      lay->kind[f] = (unsigned char)k;
      break;
    }
  }
  /* Children come after parents, so walking backwards settles inner structs first. */
  for (int f = F_N - 1; f >= 0; f--) {
    if (lay->kind[f] != K_STRUCT) continue;
    bool any = false;
    for (int g = f + 1; g < F_N && !any; g++)
      if (FIELDS[g].parent == f && lay->kind[g] != K_NONE) any = true;
    if (!any) {
      lay->kind[f] = K_NONE;
      lay->child[f] = -1;
    }
  }
  return 0;
}

/* ----------------------------------------------------------------- binding */

static const uint8_t *validity(const struct ArrowArray *a) {
  return a->null_count == 0 ? NULL : (const uint8_t *)a->buffers[0];
}

static int shape_error(reader *rd, int f) {
  char name[96];
  field_name(f, name, sizeof name);
  return err_set(DELTA_ECORRUPT, "checkpoint %s: batch does not match the schema at column %s",
                         rd->path, name);
}

static int bind_str(reader *rd, int f, const struct ArrowArray *a, int64_t base, str_col *out) {
  if (a->n_buffers != 3) return shape_error(rd, f);
  out->base = base;
  out->valid = validity(a);
  out->offsets = (const int32_t *)a->buffers[1];
  out->bytes = (const char *)a->buffers[2];
  return 0;
}

/* Point every column at the current batch. Slot arithmetic: a child's
 * logical index is its parent's physical one, and each array adds its own
 * offset, so the physical slot of batch row r is r + the sum of offsets on
 * the way down. */
static int bind(reader *rd, const struct ArrowArray *batch) {
  const struct ArrowArray *arr[F_N];
  int64_t base[F_N];
  for (int f = 0; f < F_N; f++) {
    col *c = &rd->c[f];
    memset(c, 0, sizeof *c);
    arr[f] = NULL;
    if (rd->lay.kind[f] == K_NONE) continue;
    int p = FIELDS[f].parent;
    const struct ArrowArray *parent = p < 0 ? batch : arr[p];
    int64_t pbase = p < 0 ? batch->offset : base[p];
    if (!parent || rd->lay.child[f] >= parent->n_children) return shape_error(rd, f);
    const struct ArrowArray *a = parent->children[rd->lay.child[f]];
    /* Row r of the parent is the child's logical slot parent->offset + r. */
    if (a->length < parent->offset + parent->length) return shape_error(rd, f);
    arr[f] = a;
    base[f] = pbase + a->offset;
    c->kind = rd->lay.kind[f];
    c->base = base[f];
    c->valid = validity(a);
    switch (c->kind) {
    case K_STRUCT:
      break;
    case K_ANY:
      c->array = a;
      c->lbase = pbase;
      break;
    case K_STR: {
      int rc = bind_str(rd, f, a, base[f], &c->key);
      if (rc) return rc;
      c->offsets = c->key.offsets;
      c->values = c->key.bytes;
      break;
    }
    case K_MAP: case K_LIST: {
      if (a->n_buffers != 2 || a->n_children != 1) return shape_error(rd, f);
      c->offsets = (const int32_t *)a->buffers[1];
      const struct ArrowArray *e = a->children[0];
      c->n_entries = e->length;
      if (c->kind == K_LIST) {
        int rc = bind_str(rd, f, e, e->offset, &c->key);
        if (rc) return rc;
      } else {
        if (e->n_children != 2) return shape_error(rd, f);
        int rc;
        if ((rc = bind_str(rd, f, e->children[0], e->offset + e->children[0]->offset,
                           &c->key)) != 0) return rc;
        if ((rc = bind_str(rd, f, e->children[1], e->offset + e->children[1]->offset,
                           &c->value)) != 0) return rc;
        /* Null entries would have no key at all; the reader never makes them. */
        if (e->null_count != 0 && e->buffers[0]) return shape_error(rd, f);
      }
      break;
    }
    default:
      if (a->n_buffers != 2) return shape_error(rd, f);
      c->values = a->buffers[1];
      break;
    }
  }
  return 0;
}

/* ------------------------------------------------------------- row access */

static inline bool col_null(const col *c, int64_t r) {
  return c->kind == K_NONE || (c->valid && !arrow_bit_get(c->valid, c->base + r));
}

static int null_error(reader *rd, int f, int64_t r) {
  char name[96];
  field_name(f, name, sizeof name);
  return err_set(DELTA_ECORRUPT, "checkpoint %s: %s is %s in row %lld", rd->path, name,
                         rd->c[f].kind == K_NONE ? "missing" : "null", (long long)(rd->row0 + r));
}

static int value_error(reader *rd, int f, int64_t r, const char *what) {
  char name[96];
  field_name(f, name, sizeof name);
  return err_set(DELTA_ECORRUPT, "checkpoint %s: %s %s in row %lld", rd->path, name, what,
                         (long long)(rd->row0 + r));
}

/* Integer of any width at physical slot i. */
static inline int64_t int_at(const col *c, int64_t i) {
  switch (c->kind) {
  case K_I8: return ((const int8_t *)c->values)[i];
  case K_I16: return ((const int16_t *)c->values)[i];
  case K_I32: return ((const int32_t *)c->values)[i];
  case K_U8: return ((const uint8_t *)c->values)[i];
  case K_U16: return ((const uint16_t *)c->values)[i];
  case K_U32: return ((const uint32_t *)c->values)[i];
  case K_U64: return (int64_t)((const uint64_t *)c->values)[i];
  default: return ((const int64_t *)c->values)[i];
  }
}

/* False when null or absent. */
static inline bool get_int(reader *rd, int f, int64_t r, int64_t *out) {
  const col *c = &rd->c[f];
  if (col_null(c, r)) return false;
  *out = int_at(c, c->base + r);
  return true;
}

static inline int req_int(reader *rd, int f, int64_t r, int64_t *out) {
  return get_int(rd, f, r, out) ? 0 : null_error(rd, f, r);
}

static int get_int32(reader *rd, int f, int64_t r, bool *has, int32_t *out) {
  int64_t v = 0;
  *has = get_int(rd, f, r, &v);
  if (*has && (v < INT32_MIN || v > INT32_MAX)) return value_error(rd, f, r, "is out of the int range");
  *out = (int32_t)v;
  return 0;
}

/* Null / absent reads as false: checkpoints may leave dataChange null. */
static inline bool get_bool(reader *rd, int f, int64_t r) {
  const col *c = &rd->c[f];
  if (col_null(c, r)) return false;
  return arrow_bit_get((const uint8_t *)c->values, c->base + r) != 0;
}

/* Bytes of string slot i (physical) of a string column. */
static inline int str_span(const str_col *s, int64_t i, const char **p, size_t *n) {
  int32_t a = s->offsets[i], b = s->offsets[i + 1];
  if (a < 0 || b < a) return -1;
  *p = s->bytes + a;
  *n = (size_t)(b - a);
  return 0;
}

/* NULL when null or absent. */
static int get_str(reader *rd, int f, int64_t r, const char **out) {
  const col *c = &rd->c[f];
  *out = NULL;
  if (col_null(c, r)) return 0;
  const char *p;
  size_t n;
  if (str_span(&c->key, c->base + r, &p, &n)) return value_error(rd, f, r, "has bad string offsets");
  char *s = log_arena_strndup(rd->arena, p, n);
  if (!s) return DELTA_NOMEM();
  *out = s;
  return 0;
}

static int req_str(reader *rd, int f, int64_t r, const char **out) {
  int rc;
  if ((rc = get_str(rd, f, r, out)) != 0) return rc;
  return *out ? 0 : null_error(rd, f, r);
}

/* Entry range [*lo, *hi) of a list or map slot; false when null/absent. */
static int entries(reader *rd, int f, int64_t r, int32_t *lo, int32_t *hi, bool *present) {
  const col *c = &rd->c[f];
  *present = !col_null(c, r);
  *lo = *hi = 0;
  if (!*present) return 0;
  int64_t i = c->base + r;
  *lo = c->offsets[i];
  *hi = c->offsets[i + 1];
  if (*lo < 0 || *hi < *lo || *hi > c->n_entries) return value_error(rd, f, r, "has bad list offsets");
  return 0;
}

/* True when slot i is not worth interning (long, or bad offsets: entry_str
 * reports those); else its bytes. */
static inline bool n_too_long(const str_col *s, int64_t i, const char **p, size_t *n) {
  return str_span(s, i, p, n) != 0 || *n > 64 || memchr(*p, '\0', *n) != NULL;
}

static int entry_str(reader *rd, int f, int64_t r, const str_col *s, int32_t j, const char **out,
                     const char *what) {
  *out = NULL;
  int64_t i = s->base + j;
  if (s->valid && !arrow_bit_get(s->valid, i)) {
    if (what) return value_error(rd, f, r, what);
    return 0;
  }
  const char *p;
  size_t n;
  if (str_span(s, i, &p, &n)) return value_error(rd, f, r, "has bad string offsets");
  char *d = log_arena_strndup(rd->arena, p, n);
  if (!d) return DELTA_NOMEM();
  *out = d;
  return 0;
}

/* A map entry's string, shared with an equal one seen before when it is
 * short: a million files repeat the same partition column names and a few
 * values, and the strings are immutable. A small direct-mapped cache. */
static int map_str(reader *rd, int f, int64_t r, const str_col *s, int32_t j, const char **out,
                   const char *what) {
  int64_t i = s->base + j;
  const char *p;
  size_t n;
  if ((s->valid && !arrow_bit_get(s->valid, i)) || n_too_long(s, i, &p, &n))
    return entry_str(rd, f, r, s, j, out, what);
  uint32_t h = 2166136261u;
  for (size_t k = 0; k < n; k++) h = (h ^ (unsigned char)p[k]) * 16777619u;
  const char **slot = &rd->interned[(h ^ (h >> 16)) & 255];
  if (*slot && strncmp(*slot, p, n) == 0 && (*slot)[n] == '\0') {
    *out = *slot;
    return 0;
  }
  int rc;
  if ((rc = entry_str(rd, f, r, s, j, out, what)) != 0) return rc;
  *slot = *out;
  return 0;
}

/* An arena copy of kv[0..n), or the copy made for an earlier row with the
 * same entries: a million files in a few partitions would otherwise hold a
 * million identical arrays (16 MB for one partition column). The entries'
 * strings are interned by map_str, so equal maps have equal pointers. */
static uint64_t str_hash(uint64_t h, const char *s) {
  if (!s) return (h ^ 0xff) * 0x100000001b3ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return (h ^ 0xfe) * 0x100000001b3ull; /* separator: ("ab","c") != ("a","bc") */
}

static delta_kv *share_kv(reader *rd, const delta_kv *kv, int n) {
  /* Hashed by content, not by the interned pointers: which maps collide in
   * the cache must not depend on where the allocator put the strings. */
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
  for (int i = 0; i < n; i++) h = str_hash(str_hash(h, kv[i].key), kv[i].value);
  h *= 0x9e3779b97f4a7c15ull;
  kv_shared *slot = &rd->kv_cache[(h >> 58) & 63];
  if (slot->n == n && memcmp(slot->kv, kv, (size_t)n * sizeof *kv) == 0) return slot->kv;
  delta_kv *copy = log_arena_alloc(rd->arena, (size_t)n * sizeof *kv);
  if (!copy) return NULL;
  memcpy(copy, kv, (size_t)n * sizeof *kv);
  *slot = (kv_shared){copy, n};
  return copy;
}

/* A map<string,string> as delta_kv pairs; a null map has 0 entries. Small
 * maps may share their array with other rows (they are never modified). */
static int get_kv(reader *rd, int f, int64_t r, delta_kv **out, int *n_out) {
  int32_t lo, hi;
  bool present;
  *out = NULL;
  *n_out = 0;
  int rc = entries(rd, f, r, &lo, &hi, &present);
  if (rc || hi == lo) return rc;
  delta_kv small[KV_SHARE_MAX];
  bool share = hi - lo <= KV_SHARE_MAX;
  delta_kv *kv = share ? small : log_arena_alloc(rd->arena, (size_t)(hi - lo) * sizeof *kv);
  if (!kv) return DELTA_NOMEM();
  const col *c = &rd->c[f];
  for (int32_t j = lo; j < hi; j++) {
    if ((rc = map_str(rd, f, r, &c->key, j, &kv[j - lo].key, "has a null key")) != 0) return rc;
    if ((rc = map_str(rd, f, r, &c->value, j, &kv[j - lo].value, NULL)) != 0) return rc;
  }
  if (share && !(kv = share_kv(rd, small, hi - lo))) return DELTA_NOMEM();
  *out = kv;
  *n_out = hi - lo;
  return 0;
}

/* A list<string>; `present` tells a null list from an empty one. */
static int get_list(reader *rd, int f, int64_t r, const char ***out, int *n_out, bool *present) {
  int32_t lo, hi;
  *out = NULL;
  *n_out = 0;
  int rc = entries(rd, f, r, &lo, &hi, present);
  if (rc || hi == lo) return rc;
  const char **v = log_arena_alloc(rd->arena, (size_t)(hi - lo) * sizeof *v);
  if (!v) return DELTA_NOMEM();
  for (int32_t j = lo; j < hi; j++) {
    rc = entry_str(rd, f, r, &rd->c[f].key, j, &v[j - lo], "has a null element");
    if (rc) return rc;
  }
  *out = v;
  *n_out = hi - lo;
  return 0;
}

/* Bytes a string takes as JSON string content. */
static size_t json_escaped_len(const char *s, size_t n) {
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\' || ch == '\n' || ch == '\r' || ch == '\t' || ch == '\b' || ch == '\f') len += 2;
    else if (ch < 0x20) len += 6;
    else len++;
  }
  return len;
}

static char *json_escape(char *o, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    switch (ch) {
    case '"': *o++ = '\\'; *o++ = '"'; break;
    case '\\': *o++ = '\\'; *o++ = '\\'; break;
    case '\n': *o++ = '\\'; *o++ = 'n'; break;
    case '\r': *o++ = '\\'; *o++ = 'r'; break;
    case '\t': *o++ = '\\'; *o++ = 't'; break;
    case '\b': *o++ = '\\'; *o++ = 'b'; break;
    case '\f': *o++ = '\\'; *o++ = 'f'; break;
    default:
      if (ch < 0x20) {
        memcpy(o, "\\u00", 4);
        o[4] = hex[ch >> 4];
        o[5] = hex[ch & 15];
        o += 6;
      } else {
        *o++ = (char)ch;
      }
    }
  }
  return o;
}

/* A map<string,string> rendered as a JSON object ({"k":"v"}, null values
 * as null), the form tags take in JSON commits; NULL for a null map. Two
 * passes (measure, write) so the text goes straight into the arena. */
static int get_json_map(reader *rd, int f, int64_t r, const char **out) {
  int32_t lo, hi;
  bool present;
  *out = NULL;
  int rc = entries(rd, f, r, &lo, &hi, &present);
  if (rc || !present) return rc;
  const col *c = &rd->c[f];
  size_t len = 2;
  for (int pass = 0; pass < 2; pass++) {
    char *buf = NULL, *o = NULL;
    if (pass == 1) {
      buf = log_arena_alloc(rd->arena, len + 1);
      if (!buf) return DELTA_NOMEM();
      o = buf;
      *o++ = '{';
    }
    for (int32_t j = lo; j < hi; j++) {
      const char *k, *v = NULL;
      size_t kn, vn = 0;
      int64_t ki = c->key.base + j, vi = c->value.base + j;
      if (c->key.valid && !arrow_bit_get(c->key.valid, ki)) return value_error(rd, f, r, "has a null key");
      bool vnull = c->value.valid && !arrow_bit_get(c->value.valid, vi);
      if (str_span(&c->key, ki, &k, &kn) || (!vnull && str_span(&c->value, vi, &v, &vn)))
        return value_error(rd, f, r, "has bad string offsets");
      if (pass == 0) {
        len += (j > lo) + 3 + json_escaped_len(k, kn) + (vnull ? 4 : 2 + json_escaped_len(v, vn));
        continue;
      }
      if (j > lo) *o++ = ',';
      *o++ = '"';
      o = json_escape(o, k, kn);
      *o++ = '"';
      *o++ = ':';
      if (vnull) {
        memcpy(o, "null", 4);
        o += 4;
      } else {
        *o++ = '"';
        o = json_escape(o, v, vn);
        *o++ = '"';
      }
    }
    if (pass == 1) {
      *o++ = '}';
      *o = '\0';
      *out = buf;
    }
  }
  return 0;
}

/* The deletion vector whose struct column is `f`; its sub-fields follow it
 * in FIELDS as TYPE, PATH, OFFSET, SIZE, CARD. */
static int read_dv(reader *rd, int f, int64_t r, delta_dv *dv) {
  memset(dv, 0, sizeof *dv);
  if (col_null(&rd->c[f], r)) return 0;
  dv->present = true;
  const char *type;
  int rc;
  if ((rc = req_str(rd, f + 1, r, &type)) != 0) return rc;
  if (strlen(type) != 1) return value_error(rd, f + 1, r, "is not one character");
  if ((rc = req_str(rd, f + 2, r, &dv->path_or_inline)) != 0) return rc;
  dv->storage_type = type[0];
  if ((rc = get_int32(rd, f + 3, r, &dv->has_offset, &dv->offset)) != 0) return rc;
  bool has_size;
  if ((rc = get_int32(rd, f + 4, r, &has_size, &dv->size_in_bytes)) != 0) return rc;
  if (!has_size) return null_error(rd, f + 4, r);
  if ((rc = req_int(rd, f + 5, r, &dv->cardinality)) != 0) return rc;
  return log_dv_unique_id(rd->arena, dv);
}

/* ---------------------------------------------------------------- actions */

static int read_add(reader *rd, int64_t r, delta_add *a) {
  int rc;
  if ((rc = req_str(rd, F_ADD_PATH, r, &a->path)) != 0) return rc;
  if ((rc = get_kv(rd, F_ADD_PV, r, &a->partition_values, &a->n_partition_values)) != 0) return rc;
  if ((rc = req_int(rd, F_ADD_SIZE, r, &a->size)) != 0) return rc;
  if ((rc = req_int(rd, F_ADD_MTIME, r, &a->modification_time)) != 0) return rc;
  a->data_change = get_bool(rd, F_ADD_DC, r);
  a->num_records = -1;
  if (rd->stats_mode == DELTA_CKPT_STATS_RECORDS) {
    /* Only numRecords: read it in place, keep no copy of the string. */
    const col *sc = &rd->c[F_ADD_STATS];
    const char *sp;
    size_t sn;
    if (!col_null(sc, r) && !str_span(&sc->key, sc->base + r, &sp, &sn)) a->num_records = log_stats_num_records(sp, sn);
    a->stats = NULL;
  } else {
    if ((rc = get_str(rd, F_ADD_STATS, r, &a->stats)) != 0) return rc;
    if (a->stats) a->num_records = log_stats_num_records(a->stats, strlen(a->stats));
  }
  if (!a->stats && rd->stats_mode == DELTA_CKPT_STATS_FULL && rd->stats_type && !col_null(&rd->c[F_ADD_STATS_PARSED], r)) {
    const col *c = &rd->c[F_ADD_STATS_PARSED];
    rd->json.len = 0;
    if ((rc = arrow_value_json(&rd->json, rd->stats_type, c->array, c->lbase + r)) != 0) return rc;
    if (!(a->stats = log_arena_strndup(rd->arena, (const char *)rd->json.data, rd->json.len)))
      return DELTA_NOMEM();
    a->num_records = log_stats_num_records(a->stats, strlen(a->stats));
  }
  if ((rc = get_json_map(rd, F_ADD_TAGS, r, &a->tags)) != 0) return rc;
  if ((rc = read_dv(rd, F_ADD_DV, r, &a->dv)) != 0) return rc;
  if ((rc = get_str(rd, F_ADD_CLUSTER, r, &a->clustering_provider)) != 0) return rc;
  a->has_base_row_id = get_int(rd, F_ADD_BRID, r, &a->base_row_id);
  a->has_default_row_commit_version = get_int(rd, F_ADD_DRCV, r, &a->default_row_commit_version);
  return 0;
}

static int read_remove(reader *rd, int64_t r, delta_remove *m) {
  int rc = req_str(rd, F_RM_PATH, r, &m->path);
  if (rc) return rc;
  m->has_deletion_timestamp = get_int(rd, F_RM_DTS, r, &m->deletion_timestamp);
  m->data_change = get_bool(rd, F_RM_DC, r);
  m->extended_file_metadata = get_bool(rd, F_RM_EXT, r);
  rc = get_kv(rd, F_RM_PV, r, &m->partition_values, &m->n_partition_values);
  if (rc) return rc;
  m->has_size = get_int(rd, F_RM_SIZE, r, &m->size);
  if ((rc = get_str(rd, F_RM_STATS, r, &m->stats)) != 0) return rc;
  if ((rc = get_json_map(rd, F_RM_TAGS, r, &m->tags)) != 0) return rc;
  if ((rc = read_dv(rd, F_RM_DV, r, &m->dv)) != 0) return rc;
  m->has_base_row_id = get_int(rd, F_RM_BRID, r, &m->base_row_id);
  m->has_default_row_commit_version = get_int(rd, F_RM_DRCV, r, &m->default_row_commit_version);
  return 0;
}

static int read_metadata(reader *rd, int64_t r, delta_metadata *md) {
  int rc;
  if ((rc = req_str(rd, F_MD_ID, r, &md->id)) != 0) return rc;
  if ((rc = get_str(rd, F_MD_NAME, r, &md->name)) != 0) return rc;
  if ((rc = get_str(rd, F_MD_DESC, r, &md->description)) != 0) return rc;
  if (!col_null(&rd->c[F_MD_FORMAT], r)) {
    if ((rc = get_str(rd, F_MD_FMT_PROVIDER, r, &md->format_provider)) != 0) return rc;
    if ((rc = get_kv(rd, F_MD_FMT_OPTIONS, r, &md->format_options, &md->n_format_options)) != 0) return rc;
  }
  /* Optional here as in the JSON reader: Spark reads a metaData without a
   * schemaString as an empty schema (its test fixtures have such checkpoints). */
  if ((rc = get_str(rd, F_MD_SCHEMA, r, &md->schema_string)) != 0) return rc;
  bool present;
  if ((rc = get_list(rd, F_MD_PCOLS, r, &md->partition_columns, &md->n_partition_columns, &present)) != 0)
    return rc;
  if ((rc = get_kv(rd, F_MD_CONF, r, &md->configuration, &md->n_configuration)) != 0) return rc;
  md->has_created_time = get_int(rd, F_MD_CREATED, r, &md->created_time);
  return 0;
}

static int read_protocol(reader *rd, int64_t r, delta_protocol *p) {
  bool has;
  int rc;
  if ((rc = get_int32(rd, F_PR_MINR, r, &has, &p->min_reader_version)) != 0) return rc;
  if (!has) return null_error(rd, F_PR_MINR, r);
  if ((rc = get_int32(rd, F_PR_MINW, r, &has, &p->min_writer_version)) != 0) return rc;
  if (!has) return null_error(rd, F_PR_MINW, r);
  if ((rc = get_list(rd, F_PR_RF, r, &p->reader_features, &p->n_reader_features, &p->has_reader_features)) != 0)
    return rc;
  return get_list(rd, F_PR_WF, r, &p->writer_features, &p->n_writer_features, &p->has_writer_features);
}

static int read_txn(reader *rd, int64_t r, delta_txn *t) {
  int rc;
  if ((rc = req_str(rd, F_TXN_APP, r, &t->app_id)) != 0) return rc;
  if ((rc = req_int(rd, F_TXN_VER, r, &t->version)) != 0) return rc;
  t->has_last_updated = get_int(rd, F_TXN_LU, r, &t->last_updated);
  return 0;
}

static int read_domain(reader *rd, int64_t r, delta_domain_metadata *d) {
  int rc;
  if ((rc = req_str(rd, F_DM_DOMAIN, r, &d->domain)) != 0) goto done;
  rc = get_str(rd, F_DM_CONF, r, &d->configuration);
done:
  d->removed = get_bool(rd, F_DM_REMOVED, r);
  return rc;
}

static int read_sidecar(reader *rd, int64_t r, delta_sidecar *s) {
  int rc = req_str(rd, F_SC_PATH, r, &s->path);
  if (rc) return rc;
  (void)get_int(rd, F_SC_SIZE, r, &s->size_in_bytes);
  (void)get_int(rd, F_SC_MTIME, r, &s->modification_time);
  return get_json_map(rd, F_SC_TAGS, r, &s->tags);
}

static int read_checkpoint_metadata(reader *rd, int64_t r, delta_checkpoint_metadata *m) {
  int rc;
  if ((rc = req_int(rd, F_CM_VERSION, r, &m->version)) != 0) return rc;
  return get_json_map(rd, F_CM_TAGS, r, &m->tags);
}

static int read_row(reader *rd, int64_t r, int which, delta_action *a) {
  switch (which) {
  case F_ADD: a->kind = DELTA_ACTION_ADD; return read_add(rd, r, &a->u.add);
  case F_RM: a->kind = DELTA_ACTION_REMOVE; return read_remove(rd, r, &a->u.remove);
  case F_MD: a->kind = DELTA_ACTION_METADATA; return read_metadata(rd, r, &a->u.metadata);
  case F_PR: a->kind = DELTA_ACTION_PROTOCOL; return read_protocol(rd, r, &a->u.protocol);
  case F_TXN: a->kind = DELTA_ACTION_TXN; return read_txn(rd, r, &a->u.txn);
  case F_DM: a->kind = DELTA_ACTION_DOMAIN_METADATA; return read_domain(rd, r, &a->u.domain);
  case F_SC: a->kind = DELTA_ACTION_SIDECAR; return read_sidecar(rd, r, &a->u.sidecar);
  default:
    a->kind = DELTA_ACTION_CHECKPOINT_METADATA;
    return read_checkpoint_metadata(rd, r, &a->u.checkpoint_metadata);
  }
}

static int read_batch(reader *rd, const struct ArrowArray *batch, delta_action_cb cb, void *payload) {
  int rc = bind(rd, batch);
  if (rc) return rc;
  /* The action columns this file has, in ACTIONS order. */
  int present[N_ACTIONS], n_present = 0;
  for (int i = 0; i < N_ACTIONS; i++)
    if (rd->c[ACTIONS[i]].kind != K_NONE) present[n_present++] = ACTIONS[i];
  delta_action a;
  for (int64_t r = 0; r < batch->length; r++) {
    int which = -1;
    for (int i = 0; i < n_present; i++) {
      if (col_null(&rd->c[present[i]], r)) continue;
      if (which >= 0)
        return err_set(DELTA_ECORRUPT, "checkpoint %s: row %lld holds both %s and %s", rd->path,
                               (long long)(rd->row0 + r), FIELDS[which].name, FIELDS[present[i]].name);
      which = present[i];
    }
    if (which < 0) continue; /* e.g. an old writer's commitInfo row */
    memset(&a, 0, sizeof a);
    rc = read_row(rd, r, which, &a);
    if (rc) return rc;
    rc = cb(&a, payload);
    if (rc) return rc;
  }
  return 0;
}

/* ------------------------------------------------------------------- entry */

/* The error of a failed get_next, with the file named once. */
static int stream_error(struct ArrowArrayStream *s) {
  if (delta_error_last_code() == DELTA_OK) {
    /* Only reachable with another producer's stream; ours sets the error. */
    const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
    err_set(DELTA_ECORRUPT, "%s", msg ? msg : "reading the Parquet data failed");
  }
  return err_prefix("checkpoint");
}

static bool is_add_field(int f) { return (f >= F_ADD && f <= F_ADD_CLUSTER) || f == F_ADD_STATS_PARSED; }

static int stats_level(int stats_mode) {
  return stats_mode == DELTA_CKPT_STATS_NONE ? 0 : stats_mode == DELTA_CKPT_STATS_FULL ? 2 : 1;
}

/* Whether row group rg holds add actions only: every leaf of every other
 * action column is null in every row by the chunk statistics. (Missing
 * statistics: not known, so no.) A million-file checkpoint is almost all
 * such row groups, and reading its ~20 all-null remove/metaData/protocol/txn
 * leaves row by row cost about a fifth of the time. */
static bool add_only_row_group(const delta_parquet_file *f, int rg) {
  int n = delta_parquet_num_leaves(f);
  for (int leaf = 0; leaf < n; leaf++) {
    const char *path = delta_parquet_leaf_path(f, leaf);
    size_t top = strcspn(path, ".");
    bool other_action = false;
    for (int i = 0; i < N_ACTIONS; i++) {
      const char *name = FIELDS[ACTIONS[i]].name;
      if (ACTIONS[i] != F_ADD && strlen(name) == top && strncmp(path, name, top) == 0) other_action = true;
    }
    if (!other_action) continue;
    delta_parquet_stats st;
    if (delta_parquet_column_stats(f, rg, leaf, &st) != 0 || !st.has_null_count || st.null_count != st.num_values)
      return false;
  }
  return true;
}

/* Read row groups rgs[0..n) (consecutive, in file order) projecting
 * `columns`, and deliver their actions. */
static int read_run(reader *rd, delta_parquet_file *f, const char *const *columns, size_t n_columns,
                    const int *rgs, size_t n_rgs, delta_action_cb cb, void *payload) {
  struct ArrowSchema schema = {0};
  struct ArrowArrayStream stream = {0};
  struct ArrowArray batch = {0};
  arrow_type *stats_type = NULL;
  delta_parquet_read_options opts = DELTA_PARQUET_READ_OPTIONS_INIT;
  opts.columns = columns;
  opts.n_columns = n_columns;
  opts.row_groups = rgs;
  opts.n_row_groups = n_rgs;
  opts.batch_rows = BATCH_ROWS;
  int rc = delta_parquet_read(f, &opts, &stream);
  if (rc) {
    err_prefix("checkpoint");
    goto done;
  }
  /* Projection renumbers children: resolve against what the stream gives. */
  if (stream.get_schema(&stream, &schema) != 0) {
    rc = stream_error(&stream);
    goto done;
  }
  rc = resolve(rd->path, &schema, stats_level(rd->stats_mode), &rd->lay);
  if (rc) goto done;
  rd->stats_type = NULL;
  if (rd->lay.kind[F_ADD_STATS_PARSED] == K_ANY) {
    rc = arrow_type_parse(schema.children[rd->lay.child[F_ADD]]->children[rd->lay.child[F_ADD_STATS_PARSED]],
                          &stats_type);
    if (rc) goto done;
    rd->stats_type = stats_type;
  }
  for (;;) {
    if (stream.get_next(&stream, &batch) != 0) {
      rc = stream_error(&stream);
      goto done;
    }
    if (!batch.release) break;
    rc = read_batch(rd, &batch, cb, payload);
    if (rc) goto done;
    rd->row0 += batch.length;
    batch.release(&batch);
  }
done:
  if (batch.release) batch.release(&batch);
  if (stream.release) stream.release(&stream);
  if (schema.release) schema.release(&schema);
  arrow_type_free(stats_type);
  rd->stats_type = NULL;
  return rc;
}

/* More runs than this (row groups alternating between add-only and not):
 * read everything in one pass rather than restart the reader each time. */
#define MAX_RUNS 4

int log_checkpoint_read_parquet(const char *local_path, delta_arena *arena, int stats_mode,
                                  delta_action_cb cb, void *payload) {
  if (!local_path || !arena || !cb)
    return err_set(DELTA_EINVAL, "delta_checkpoint_read_parquet: NULL argument");
  delta_parquet_file *f = NULL;
  int rc = delta_parquet_open(&f, local_path);
  if (rc) return err_prefix("checkpoint");
  rc = log_checkpoint_read_file(f, local_path, arena, stats_mode, cb, payload);
  delta_parquet_free(f);
  return rc;
}

int log_checkpoint_read_file(delta_parquet_file *f, const char *name, delta_arena *arena, int stats_mode,
                             delta_action_cb cb, void *payload) {
  if (!f || !name || !arena || !cb)
    return err_set(DELTA_EINVAL, "log_checkpoint_read_file: NULL argument");
  /* stream_error trusts the last error to be the reader's: start clean. */
  delta_error_clear();
  struct ArrowSchema schema = {0};
  reader *rd = NULL;
  int *rgs = NULL;
  bool *add_only = NULL;
  char paths[F_N][96];
  const char *columns[F_N], *add_columns[F_N];
  size_t n_columns = 0, n_add_columns = 0;
  int rc = 0;
  /* The reader state is a few KB; keep it off the stack (and out of the arena,
   * which outlives this call). */
  rd = mem_calloc(1, sizeof *rd);
  if (!rd) {
    rc = DELTA_NOMEM();
    goto done;
  }
  rd->path = name;
  rd->arena = arena;
  rd->stats_mode = stats_mode;

  /* Project what exists: the file's schema decides the column list. */
  rc = delta_parquet_schema(f, &schema);
  if (rc) goto done;
  rc = resolve(name, &schema, stats_level(stats_mode), &rd->lay);
  if (rc) goto done;
  for (int i = 0; i < F_N; i++) {
    if (rd->lay.kind[i] == K_NONE || rd->lay.kind[i] == K_STRUCT) continue;
    field_name(i, paths[n_columns], sizeof paths[n_columns]);
    columns[n_columns] = paths[n_columns];
    if (is_add_field(i)) add_columns[n_add_columns++] = paths[n_columns];
    n_columns++;
  }
  if (n_columns == 0) goto done; /* no action columns at all: nothing to deliver */

  /* Runs of consecutive row groups that are add-only or not, in file order
   * (the order of the live files follows the file's): add-only runs read
   * only the add columns. */
  int n_rg = delta_parquet_num_row_groups(f);
  rgs = mem_malloc(((size_t)n_rg + 1) * sizeof *rgs);
  add_only = mem_malloc(((size_t)n_rg + 1) * sizeof *add_only);
  if (!rgs || !add_only) {
    rc = DELTA_NOMEM();
    goto done;
  }
  int runs = 0;
  for (int g = 0; g < n_rg; g++) {
    rgs[g] = g;
    add_only[g] = n_add_columns > 0 && add_only_row_group(f, g);
    runs += g == 0 || add_only[g] != add_only[g - 1];
  }
  if (runs > MAX_RUNS)
    for (int g = 0; g < n_rg; g++) add_only[g] = false;
  for (int g = 0; g < n_rg;) {
    int e = g + 1;
    while (e < n_rg && add_only[e] == add_only[g]) e++;
    if ((rc = add_only[g] ? read_run(rd, f, add_columns, n_add_columns, rgs + g, (size_t)(e - g), cb, payload)
                          : read_run(rd, f, columns, n_columns, rgs + g, (size_t)(e - g), cb, payload)) != 0)
      goto done;
    g = e;
  }

done:
  if (schema.release) schema.release(&schema);
  if (rd) buf_dispose(&rd->json);
  mem_free(rd);
  mem_free(rgs);
  mem_free(add_only);
  return rc;
}
