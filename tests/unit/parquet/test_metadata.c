/* Tests for the Thrift compact reader and the Parquet footer / page-header
 * decoder: real footers checked against the facts in
 * $DELTAC_SHARED/parquet/cases/<id>.json, a page-header walk over every
 * column chunk, hand-made Thrift edge cases, and truncated / mutated /
 * allocation-failing inputs that must fail cleanly. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/alloc.h"
#include "parquet/metadata.h"
#include "parquet/thrift.h"
#include "test.h"
#include "util/error_internal.h"

/* ---- helpers -------------------------------------------------------------- */

static const char *shared_dir(void) {
  const char *s = getenv("DELTAC_SHARED");
  return s && *s ? s : "../shared";
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* The footer's thrift bytes inside a whole file, or NULL if the framing is bad. */
static const uint8_t *footer_of(const uint8_t *file, size_t len, size_t *flen) {
  if (len < 12 || memcmp(file + len - 4, "PAR1", 4) != 0 || memcmp(file, "PAR1", 4) != 0)
    return NULL;
  uint32_t n = (uint32_t)file[len - 8] | (uint32_t)file[len - 7] << 8 |
               (uint32_t)file[len - 6] << 16 | (uint32_t)file[len - 5] << 24;
  if ((size_t)n > len - 12) return NULL;
  *flen = n;
  return file + len - 8 - n;
}

/* ---- a tiny JSON reader, enough for the case files ------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;
typedef struct jv {
  jtype t;
  double num;
  char *str;          /* J_STR */
  struct jv *items;   /* J_ARR values, J_OBJ values */
  char **keys;        /* J_OBJ */
  int n;
} jv;

static const char *jp;

static void jws(void) {
  while (*jp == ' ' || *jp == '\n' || *jp == '\t' || *jp == '\r') jp++;
}

static int jparse(jv *v);

static int jstring(char **out) {
  if (*jp != '"') return -1;
  jp++;
  size_t cap = 16, n = 0;
  char *s = malloc(cap);
  while (*jp && *jp != '"') {
    char c = *jp++;
    if (c == '\\') {
      char e = *jp++;
      switch (e) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'u': c = '?'; jp += 4; break; /* not needed for the facts we compare */
      default: c = e;
      }
    }
    if (n + 2 > cap) s = realloc(s, cap *= 2);
    s[n++] = c;
  }
  if (*jp != '"') {
    free(s);
    return -1;
  }
  jp++;
  s[n] = 0;
  *out = s;
  return 0;
}

static int jparse(jv *v) {
  memset(v, 0, sizeof *v);
  jws();
  if (*jp == '{' || *jp == '[') {
    int obj = *jp == '{';
    char close = obj ? '}' : ']';
    v->t = obj ? J_OBJ : J_ARR;
    jp++;
    jws();
    int cap = 0;
    while (*jp != close) {
      if (v->n == cap) {
        cap = cap ? cap * 2 : 8;
        v->items = realloc(v->items, sizeof(jv) * (size_t)cap);
        if (obj) v->keys = realloc(v->keys, sizeof(char *) * (size_t)cap);
      }
      if (obj) {
        jws();
        if (jstring(&v->keys[v->n]) < 0) return -1;
        jws();
        if (*jp++ != ':') return -1;
      }
      if (jparse(&v->items[v->n]) < 0) return -1;
      v->n++;
      jws();
      if (*jp == ',') jp++;
      else if (*jp != close) return -1;
      jws();
    }
    jp++;
    return 0;
  }
  if (*jp == '"') {
    v->t = J_STR;
    return jstring(&v->str);
  }
  if (!strncmp(jp, "null", 4)) { jp += 4; v->t = J_NULL; return 0; }
  if (!strncmp(jp, "true", 4)) { jp += 4; v->t = J_BOOL; v->num = 1; return 0; }
  if (!strncmp(jp, "false", 5)) { jp += 5; v->t = J_BOOL; return 0; }
  char *end;
  v->t = J_NUM;
  v->num = strtod(jp, &end);
  if (end == jp) return -1;
  jp = end;
  return 0;
}

static void jfree(jv *v) {
  for (int i = 0; i < v->n; i++) {
    jfree(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
}

static const jv *jget(const jv *o, const char *key) {
  if (!o || o->t != J_OBJ) return NULL;
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->keys[i], key)) return &o->items[i];
  return NULL;
}

static const char *jstr(const jv *o, const char *key) {
  const jv *v = jget(o, key);
  return v && v->t == J_STR ? v->str : NULL;
}

static long long jnum(const jv *o, const char *key, long long dflt) {
  const jv *v = jget(o, key);
  return v && v->t == J_NUM ? (long long)v->num : dflt;
}

/* ---- formatting our structs like the case files --------------------------- */

static const char *rep_name(int r) {
  return r == PQ_REQUIRED ? "REQUIRED" : r == PQ_OPTIONAL ? "OPTIONAL" : r == PQ_REPEATED ? "REPEATED" : "?";
}

static const char *unit_name(int u) {
  return u == PQ_UNIT_MILLIS ? "MILLIS" : u == PQ_UNIT_MICROS ? "MICROS" : u == PQ_UNIT_NANOS ? "NANOS" : "?";
}

/* Same spelling as the corpus generator: STRING, INT(8,signed), DECIMAL(4,2),
 * TIME(MILLIS,local), TIMESTAMP(MICROS,UTC), ... ; NULL for none. */
static const char *logical_str(const pq_logical_type *lt, char *buf, size_t n) {
  switch (lt->kind) {
  case PQ_LT_NONE: return NULL;
  case PQ_LT_STRING: return "STRING";
  case PQ_LT_MAP: return "MAP";
  case PQ_LT_LIST: return "LIST";
  case PQ_LT_ENUM: return "ENUM";
  case PQ_LT_DATE: return "DATE";
  case PQ_LT_UUID: return "UUID";
  case PQ_LT_JSON: return "JSON";
  case PQ_LT_BSON: return "BSON";
  case PQ_LT_FLOAT16: return "FLOAT16";
  case PQ_LT_UNKNOWN: return "UNKNOWN";
  case PQ_LT_DECIMAL: snprintf(buf, n, "DECIMAL(%d,%d)", lt->precision, lt->scale); return buf;
  case PQ_LT_INTEGER:
    snprintf(buf, n, "INT(%d,%s)", lt->bit_width, lt->is_signed ? "signed" : "unsigned");
    return buf;
  case PQ_LT_TIME:
  case PQ_LT_TIMESTAMP:
    snprintf(buf, n, "%s(%s,%s)", lt->kind == PQ_LT_TIME ? "TIME" : "TIMESTAMP", unit_name(lt->unit),
             lt->utc ? "UTC" : "local");
    return buf;
  default: snprintf(buf, n, "KIND%d", lt->kind); return buf;
  }
}

/* Leaf schema elements in order. */
static int leaves_of(const pq_file_metadata *md, const pq_schema_element **out, int max) {
  int k = 0;
  for (int i = 1; i < md->num_schema && k < max; i++)
    if (md->schema[i].type != -1) out[k++] = &md->schema[i];
  return k;
}

static void join_path(const pq_column_meta *cm, char *buf, size_t n) {
  buf[0] = 0;
  for (int i = 0; i < cm->path_len; i++) {
    if (i) strncat(buf, ".", n - strlen(buf) - 1);
    strncat(buf, cm->path_in_schema[i], n - strlen(buf) - 1);
  }
}

/* Bit set of encodings seen, for set comparisons. */
static unsigned enc_bit(int e) { return e >= 0 && e < 32 ? 1u << e : 1u << 31; }

static unsigned json_enc_set(const jv *arr) {
  unsigned s = 0;
  for (int i = 0; arr && i < arr->n; i++)
    for (int e = 0; e < 10; e++)
      if (arr->items[i].t == J_STR && !strcmp(arr->items[i].str, pq_encoding_name(e))) s |= enc_bit(e);
  return s;
}

/* ---- page walk ------------------------------------------------------------ */

typedef struct {
  int v1, v2, dict, max_in_chunk;
  unsigned data_enc, dict_enc;
} page_stats;

/* Walk the pages of one chunk; 0 when the walk lands exactly on the chunk end. */
static int walk_chunk(const uint8_t *file, size_t flen, const pq_column_meta *cm, page_stats *ps) {
  int64_t start = cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0
                      ? cm->dictionary_page_offset
                      : cm->data_page_offset;
  int64_t end = start + cm->total_compressed_size;
  if (start < 4 || end > (int64_t)flen - 8 || end < start) return -100;
  int64_t pos = start, values = 0;
  int pages = 0;
  while (pos < end) {
    pq_page_header h;
    size_t used = 0;
    int rc = pq_page_header_parse(file + pos, (size_t)(end - pos), &h, &used);
    if (rc < 0) return rc;
    pos += (int64_t)used + h.compressed_page_size;
    pages++;
    if (h.type == PQ_PAGE_DATA) {
      ps->v1++;
      ps->data_enc |= enc_bit(h.data_page_header.encoding);
      values += h.data_page_header.num_values;
    } else if (h.type == PQ_PAGE_DATA_V2) {
      ps->v2++;
      ps->data_enc |= enc_bit(h.data_page_header_v2.encoding);
      values += h.data_page_header_v2.num_values;
    } else if (h.type == PQ_PAGE_DICTIONARY) {
      ps->dict++;
      ps->dict_enc |= enc_bit(h.dictionary_page_header.encoding);
    }
  }
  if (pages > ps->max_in_chunk) ps->max_in_chunk = pages;
  if (values != cm->num_values) return -101;
  return pos == end ? 0 : -102;
}

/* ---- real files against their case JSON ----------------------------------- */

static int files_checked, chunks_walked;

static void check_case(const char *id) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parquet/cases/%s.json", shared_dir(), id);
  size_t jlen;
  char *jtext = (char *)read_file(path, &jlen);
  CHECK(jtext != NULL);
  if (!jtext) return;
  jtext = realloc(jtext, jlen + 1);
  jtext[jlen] = 0;
  jv c;
  jp = jtext;
  int jrc = jparse(&c);
  CHECK_EQ_INT(jrc, 0);
  free(jtext);
  if (jrc < 0) return;

  snprintf(path, sizeof path, "%s/parquet/files/%s.parquet", shared_dir(), id);
  size_t flen;
  uint8_t *file = read_file(path, &flen);
  CHECK(file != NULL);
  const char *expect = jstr(&c, "expect");
  size_t mlen = 0;
  const uint8_t *footer = file ? footer_of(file, flen, &mlen) : NULL;
  const char *corruption = jstr(&c, "corruption");

  if (expect && !strcmp(expect, "error")) {
    /* Framing errors are the reader's job; here: what reaches the decoder
     * either fails or leaves a chunk that cannot be walked. */
    if (footer) {
      pq_file_metadata *md = NULL;
      int rc = pq_metadata_parse(footer, mlen, &md);
      if (rc == 0) {
        int bad = 0;
        for (int g = 0; g < md->num_row_groups; g++)
          for (int k = 0; k < md->row_groups[g].num_columns; k++) {
            page_stats ps = {0};
            if (walk_chunk(file, flen, &md->row_groups[g].columns[k].meta_data, &ps) != 0) bad++;
          }
        if (!bad) fprintf(stderr, "%s (%s): nothing wrong found\n", id, corruption ? corruption : "");
        CHECK(bad > 0);
        pq_metadata_free(md);
      } else {
        CHECK_EQ_INT(rc, DELTA_ECORRUPT);
      }
    }
    files_checked++;
    jfree(&c);
    free(file);
    return;
  }

  CHECK(footer != NULL);
  pq_file_metadata *md = NULL;
  int rc = footer ? pq_metadata_parse(footer, mlen, &md) : -1;
  if (rc != 0) fprintf(stderr, "%s: %s\n", id, delta_error_last());
  CHECK_EQ_INT(rc, 0);
  if (rc != 0) {
    jfree(&c);
    free(file);
    return;
  }
  files_checked++;
  CHECK_EQ_INT(md->num_rows, jnum(&c, "rows", -1));
  CHECK_EQ_INT(md->num_row_groups, jnum(&c, "row_groups", -1));
  int64_t sum_rows = 0;
  for (int g = 0; g < md->num_row_groups; g++) sum_rows += md->row_groups[g].num_rows;
  CHECK_EQ_INT(sum_rows, md->num_rows);
  const char *created = jstr(&c, "created_by");
  if (created) {
    CHECK(md->created_by.ptr && md->created_by.len == strlen(created) &&
          !memcmp(md->created_by.ptr, created, md->created_by.len));
  }
  if (jget(&c, "format_version")) CHECK_EQ_INT(md->version, jnum(&c, "format_version", -1));

  const jv *chunks = jget(&c, "column_chunks");
  const pq_schema_element *leaves[512];
  int nleaves = leaves_of(md, leaves, 512);
  CHECK(chunks && chunks->t == J_ARR);
  if (chunks && chunks->t == J_ARR) {
    CHECK_EQ_INT(nleaves, chunks->n);
    for (int k = 0; k < nleaves && k < chunks->n; k++) {
      const jv *cj = &chunks->items[k];
      const pq_schema_element *se = leaves[k];
      char buf[256], lbuf[64];
      CHECK_STR(pq_type_name(se->type), jstr(cj, "physical_type"));
      CHECK_STR(rep_name(se->repetition), jstr(cj, "repetition"));
      CHECK_EQ_INT(se->type == PQ_FIXED_LEN_BYTE_ARRAY ? se->type_length : -1,
                   jnum(cj, "type_length", -1));
      const char *ct = jstr(cj, "converted_type");
      CHECK_STR(pq_converted_type_name(se->converted_type), ct ? ct : "NONE");
      const char *lt = jstr(cj, "logical_type");
      const char *mine = logical_str(&se->logical, lbuf, sizeof lbuf);
      CHECK_STR(mine ? mine : "null", lt ? lt : "null");
      if (se->logical.kind == PQ_LT_DECIMAL) {
        CHECK_EQ_INT(se->scale, se->logical.scale); /* writers must set both */
        CHECK_EQ_INT(se->precision, se->logical.precision);
      }

      page_stats ps = {0};
      unsigned meta_enc = 0;
      for (int g = 0; g < md->num_row_groups; g++) {
        const pq_column_chunk *cc = &md->row_groups[g].columns[k];
        CHECK(cc->has_meta_data);
        const pq_column_meta *cm = &cc->meta_data;
        CHECK_EQ_INT(cm->type, se->type);
        if (jstr(cj, "codec")) CHECK_STR(pq_codec_name(cm->codec), jstr(cj, "codec"));
        join_path(cm, buf, sizeof buf);
        CHECK_STR(buf, jstr(cj, "path"));
        for (int e = 0; e < cm->num_encodings; e++) meta_enc |= enc_bit(cm->encodings[e]);
        int wrc = walk_chunk(file, flen, cm, &ps);
        if (wrc != 0) fprintf(stderr, "%s rg %d col %d: walk %d %s\n", id, g, k, wrc, delta_error_last());
        CHECK_EQ_INT(wrc, 0);
        chunks_walked++;
        /* (No null_count <= num_values check: DuckDB writes null_count 2 with
         * num_values 1 for some nested columns of a single row.) */
      }
      CHECK_EQ_INT(meta_enc, json_enc_set(jget(cj, "metadata_encodings")));
      CHECK_EQ_INT(ps.data_enc, json_enc_set(jget(cj, "data_page_encodings")));
      CHECK_EQ_INT(ps.dict_enc, json_enc_set(jget(cj, "dictionary_page_encodings")));
      CHECK_EQ_INT(ps.v1, jnum(cj, "data_pages_v1", 0));
      CHECK_EQ_INT(ps.v2, jnum(cj, "data_pages_v2", 0));
      CHECK_EQ_INT(ps.dict, jnum(cj, "dictionary_pages", 0));
      CHECK_EQ_INT(ps.max_in_chunk, jnum(cj, "max_pages_in_chunk", 0));
    }
  }
  if (md->column_orders) CHECK_EQ_INT(md->num_column_orders, nleaves);
  pq_metadata_free(md);
  jfree(&c);
  free(file);
}

static void test_all_cases(void) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/parquet/cases", shared_dir());
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  if (!d) {
    fprintf(stderr, "cannot open %s (set DELTAC_SHARED)\n", dir);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".json")) continue;
    char id[256];
    snprintf(id, sizeof id, "%.*s", (int)(n - 5), e->d_name);
    check_case(id);
  }
  closedir(d);
  CHECK(files_checked >= 30);
  CHECK(chunks_walked > 300);
}

/* ---- specific facts ------------------------------------------------------- */

static pq_file_metadata *load_md(const char *id, uint8_t **file_out, size_t *flen_out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parquet/files/%s.parquet", shared_dir(), id);
  size_t flen, mlen;
  uint8_t *file = read_file(path, &flen);
  if (!file) return NULL;
  const uint8_t *footer = footer_of(file, flen, &mlen);
  pq_file_metadata *md = NULL;
  if (!footer || pq_metadata_parse(footer, mlen, &md) != 0) {
    free(file);
    return NULL;
  }
  *file_out = file;
  if (flen_out) *flen_out = flen;
  return md;
}

static void test_known_facts(void) {
  uint8_t *file;
  pq_file_metadata *md = load_md("arrow_prim_v1_snappy", &file, NULL);
  CHECK(md != NULL);
  if (md) {
    CHECK_STR(md->schema[0].name, "arrow_schema");
    CHECK_EQ_INT(md->schema[0].repetition, -1);
    CHECK_EQ_INT(md->schema[0].num_children, md->num_schema - 1);
    /* arrow-rs stores the Arrow schema in key/value metadata. */
    bool found = false;
    for (int i = 0; i < md->num_kv; i++)
      if (md->kv[i].key.len == 12 && !memcmp(md->kv[i].key.ptr, "ARROW:schema", 12))
        found = md->kv[i].value.ptr != NULL && md->kv[i].value.len > 0;
    CHECK(found);
    CHECK(md->column_orders != NULL);
    /* column 0 is a REQUIRED int32 "id" with statistics min 0 */
    const pq_column_meta *cm = &md->row_groups[0].columns[0].meta_data;
    CHECK(cm->has_statistics);
    CHECK(cm->statistics.has_null_count);
    CHECK_EQ_INT(cm->statistics.null_count, 0);
    CHECK(cm->statistics.min_value.ptr && cm->statistics.min_value.len == 4);
    if (cm->statistics.min_value.ptr) {
      int32_t v;
      memcpy(&v, cm->statistics.min_value.ptr, 4);
      CHECK_EQ_INT(v, 0);
    }
    CHECK(cm->statistics.max_value.ptr && cm->statistics.max_value.len == 4);
    pq_metadata_free(md);
    free(file);
  }
  md = load_md("duck_nested_v1_snappy", &file, NULL);
  CHECK(md != NULL);
  if (md) {
    CHECK_STR(md->schema[0].name, "duckdb_schema");
    /* l_int is a LIST group: optional group l_int (LIST) { repeated group list { element } } */
    int found = 0;
    for (int i = 1; i < md->num_schema; i++)
      if (!strcmp(md->schema[i].name, "l_int")) {
        found = 1;
        CHECK_EQ_INT(md->schema[i].type, -1);
        CHECK_EQ_INT(md->schema[i].num_children, 1);
        CHECK_EQ_INT(md->schema[i].converted_type, PQ_CT_LIST);
        CHECK_EQ_INT(md->schema[i + 1].repetition, PQ_REPEATED);
      }
    CHECK(found);
    pq_metadata_free(md);
    free(file);
  }
  /* V2 pages: walk one chunk and look at the V2 fields. */
  size_t flen;
  md = load_md("arrow_prim_v2_zstd", &file, &flen);
  CHECK(md != NULL);
  if (md) {
    const pq_column_meta *cm = &md->row_groups[0].columns[0].meta_data;
    int64_t pos = cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
    int v2_seen = 0;
    int64_t end = pos + cm->total_compressed_size;
    for (int i = 0; i < 8 && pos < end; i++) {
      pq_page_header h;
      size_t used;
      if (pq_page_header_parse(file + pos, flen - (size_t)pos, &h, &used) != 0) break;
      if (h.type == PQ_PAGE_DATA_V2) {
        v2_seen++;
        const pq_data_page_header_v2 *v2 = &h.data_page_header_v2;
        CHECK(v2->num_nulls <= v2->num_values);
        CHECK(v2->definition_levels_byte_length + v2->repetition_levels_byte_length <=
              h.compressed_page_size);
        CHECK(v2->num_rows > 0);
      }
      pos += (int64_t)used + h.compressed_page_size;
    }
    CHECK(v2_seen > 0);
    pq_metadata_free(md);
    free(file);
  }
}

/* ---- hand-made thrift ----------------------------------------------------- */

static void test_thrift_basics(void) {
  pq_thrift t;
  int last = 0, id, type, rc;
  /* field 1 i32 = -3 (zigzag 5); long-form field 300 i64 = 2^40; bool field 2 (delta from
   * 300? no: long form again for id 2) = true; stop */
  const uint8_t b1[] = {0x15, 0x05, 0x06, 0xd8, 0x04, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40,
                        0x01, 0x04, 0x00};
  pq_thrift_init(&t, b1, sizeof b1);
  CHECK_EQ_INT(pq_thrift_struct_begin(&t), 0);
  CHECK_EQ_INT(pq_thrift_field(&t, &last, &id, &type), 0);
  CHECK_EQ_INT(id, 1);
  CHECK_EQ_INT(type, PQ_TT_I32);
  int32_t v32 = 0;
  CHECK_EQ_INT(pq_thrift_read_i32(&t, type, &v32, "x"), 0);
  CHECK_EQ_INT(v32, -3);
  CHECK_EQ_INT(pq_thrift_field(&t, &last, &id, &type), 0);
  CHECK_EQ_INT(id, 300);
  CHECK_EQ_INT(type, PQ_TT_I64);
  int64_t v64 = 0;
  CHECK_EQ_INT(pq_thrift_read_i64(&t, type, &v64, "x"), 0);
  CHECK_EQ_INT(v64, (int64_t)1 << 40);
  CHECK_EQ_INT(pq_thrift_field(&t, &last, &id, &type), 0);
  CHECK_EQ_INT(id, 2);
  bool bv = false;
  CHECK_EQ_INT(pq_thrift_field_bool(&t, type, &bv, "x"), 0);
  CHECK(bv);
  CHECK_EQ_INT(pq_thrift_field(&t, &last, &id, &type), 0);
  CHECK_EQ_INT(type, PQ_TT_STOP);
  pq_thrift_struct_end(&t);
  CHECK_EQ_INT(pq_thrift_remaining(&t), 0);

  /* Skip a struct holding every type: list<bool> (short form), long-form list of 20 i8,
   * map<string,i32>, empty map, double, binary, set<struct>, uuid, nested struct. */
  uint8_t b2[256];
  size_t n = 0;
  b2[n++] = 0x19; b2[n++] = 0x31; b2[n++] = 1; b2[n++] = 2; b2[n++] = 0; /* list<bool>[3] */
  b2[n++] = 0x19; b2[n++] = 0xf3; b2[n++] = 20;                            /* list<i8>[20] */
  for (int i = 0; i < 20; i++) b2[n++] = (uint8_t)i;
  b2[n++] = 0x1b; b2[n++] = 2; b2[n++] = 0x85;                             /* map[2] */
  b2[n++] = 1; b2[n++] = 'a'; b2[n++] = 2;
  b2[n++] = 1; b2[n++] = 'b'; b2[n++] = 4;
  b2[n++] = 0x1b; b2[n++] = 0;                                             /* empty map */
  b2[n++] = 0x17; for (int i = 0; i < 8; i++) b2[n++] = 0;                 /* double */
  b2[n++] = 0x18; b2[n++] = 3; b2[n++] = 'x'; b2[n++] = 'y'; b2[n++] = 'z';
  b2[n++] = 0x1a; b2[n++] = 0x2c; b2[n++] = 0x11; b2[n++] = 0; b2[n++] = 0; /* set<struct>[2] */
  b2[n++] = 0x1d; for (int i = 0; i < 16; i++) b2[n++] = 0xaa;             /* uuid */
  b2[n++] = 0x1c; b2[n++] = 0x1c; b2[n++] = 0x15; b2[n++] = 2; b2[n++] = 0; b2[n++] = 0;
  b2[n++] = 0x12;                                                          /* bool false */
  b2[n++] = 0;
  pq_thrift_init(&t, b2, n);
  CHECK_EQ_INT(pq_thrift_skip(&t, PQ_TT_STRUCT), 0);
  CHECK_EQ_INT(pq_thrift_remaining(&t), 0);
  CHECK_EQ_INT(t.depth, 0);
  /* every strict prefix is truncated */
  for (size_t k = 0; k < n; k++) {
    pq_thrift_init(&t, b2, k);
    rc = pq_thrift_skip(&t, PQ_TT_STRUCT);
    CHECK_EQ_INT(rc, DELTA_ECORRUPT);
  }

  /* Deep nesting is refused, not recursed into. */
  uint8_t deep[200];
  for (int i = 0; i < 199; i++) deep[i] = 0x1c; /* struct field 1 of type struct, nested */
  deep[199] = 0;
  pq_thrift_init(&t, deep, sizeof deep);
  rc = pq_thrift_skip(&t, PQ_TT_STRUCT);
  CHECK_EQ_INT(rc, DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "nested") != NULL);
  uint8_t deeplist[200];
  for (int i = 0; i < 200; i++) deeplist[i] = 0x19; /* list<list>[1] ... */
  pq_thrift_init(&t, deeplist, sizeof deeplist);
  CHECK_EQ_INT(pq_thrift_skip(&t, PQ_TT_LIST), DELTA_ECORRUPT);

  /* A list claiming more elements than bytes left. */
  const uint8_t huge[] = {0xf5, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00};
  pq_thrift_init(&t, huge, sizeof huge);
  int et;
  uint32_t cnt;
  CHECK_EQ_INT(pq_thrift_list_begin(&t, PQ_TT_LIST, &et, &cnt, "x"), DELTA_ECORRUPT);
  /* A map claiming more entries than bytes. */
  const uint8_t hugemap[] = {0x80, 0x80, 0x04, 0x55, 0, 0};
  pq_thrift_init(&t, hugemap, sizeof hugemap);
  int kt, vt;
  CHECK_EQ_INT(pq_thrift_map_begin(&t, PQ_TT_MAP, &kt, &vt, &cnt, "x"), DELTA_ECORRUPT);
  /* Overlong varint. */
  const uint8_t longvar[] = {0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
  pq_thrift_init(&t, longvar, sizeof longvar);
  CHECK_EQ_INT(pq_thrift_skip(&t, PQ_TT_STRUCT), DELTA_ECORRUPT);
  /* 10-byte varint with bit 63 is fine: INT64_MIN zigzag = 2^64-1 */
  const uint8_t maxvar[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  pq_thrift_init(&t, maxvar, sizeof maxvar);
  CHECK_EQ_INT(pq_thrift_read_i64(&t, PQ_TT_I64, &v64, "x"), 0);
  CHECK(v64 == INT64_MIN);
  /* i32 out of range */
  const uint8_t big32[] = {0x80, 0x80, 0x80, 0x80, 0x10};
  pq_thrift_init(&t, big32, sizeof big32);
  CHECK_EQ_INT(pq_thrift_read_i32(&t, PQ_TT_I32, &v32, "x"), DELTA_ECORRUPT);
  /* Invalid type nibble. */
  const uint8_t badtype[] = {0x1e, 0};
  pq_thrift_init(&t, badtype, sizeof badtype);
  CHECK_EQ_INT(pq_thrift_skip(&t, PQ_TT_STRUCT), DELTA_ECORRUPT);
  /* Binary longer than the buffer. */
  const uint8_t longbin[] = {0x18, 0x10, 'a', 0};
  pq_thrift_init(&t, longbin, sizeof longbin);
  CHECK_EQ_INT(pq_thrift_skip(&t, PQ_TT_STRUCT), DELTA_ECORRUPT);
  /* Wrong type for a typed read names the field. */
  pq_thrift_init(&t, longbin, sizeof longbin);
  CHECK_EQ_INT(pq_thrift_read_i32(&t, PQ_TT_BINARY, &v32, "Foo.bar"), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "Foo.bar") != NULL);
}

/* Tiny thrift writer for page headers. */
typedef struct {
  uint8_t b[256];
  size_t n;
  int last[8];
  int depth;
} tw;

static void tw_varint(tw *w, uint64_t v) {
  while (v >= 0x80) {
    w->b[w->n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  w->b[w->n++] = (uint8_t)v;
}
static void tw_field(tw *w, int id, int type) {
  int d = id - w->last[w->depth];
  if (d > 0 && d <= 15) {
    w->b[w->n++] = (uint8_t)(d << 4 | type);
  } else {
    w->b[w->n++] = (uint8_t)type;
    tw_varint(w, ((uint32_t)id << 1) ^ (uint32_t)(id >> 31));
  }
  w->last[w->depth] = id;
}
static void tw_i32(tw *w, int id, int32_t v) {
  tw_field(w, id, PQ_TT_I32);
  tw_varint(w, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}
static void tw_bool(tw *w, int id, bool v) { tw_field(w, id, v ? PQ_TT_BOOL : PQ_TT_BOOL_FALSE); }
static void tw_begin(tw *w, int id) {
  tw_field(w, id, PQ_TT_STRUCT);
  w->last[++w->depth] = 0;
}
static void tw_end(tw *w) {
  w->b[w->n++] = 0;
  if (w->depth > 0) w->depth--;
}

static void test_page_headers(void) {
  pq_page_header h;
  size_t used;
  /* V2 without is_compressed: defaults to true. Unknown field 99 skipped. */
  tw w = {0};
  tw_i32(&w, 1, PQ_PAGE_DATA_V2);
  tw_i32(&w, 2, 100);
  tw_i32(&w, 3, 80);
  tw_i32(&w, 4, 12345);
  tw_begin(&w, 8);
  tw_i32(&w, 1, 10); tw_i32(&w, 2, 3); tw_i32(&w, 3, 10); tw_i32(&w, 4, PQ_ENC_PLAIN);
  tw_i32(&w, 5, 4); tw_i32(&w, 6, 0);
  tw_begin(&w, 8); /* statistics */
  tw_field(&w, 6, PQ_TT_BINARY); tw_varint(&w, 2);
  size_t min_at = w.n;
  w.b[w.n++] = 'h'; w.b[w.n++] = 'i';
  tw_field(&w, 3, PQ_TT_I64); tw_varint(&w, 6);
  tw_end(&w);
  tw_end(&w);
  tw_i32(&w, 99, 7);
  tw_end(&w);
  size_t hdr_len = w.n;
  w.b[w.n++] = 0xee; /* page bytes follow; not consumed */
  CHECK_EQ_INT(pq_page_header_parse(w.b, w.n, &h, &used), 0);
  CHECK_EQ_INT(used, hdr_len);
  CHECK_EQ_INT(h.type, PQ_PAGE_DATA_V2);
  CHECK(h.has_crc);
  CHECK_EQ_INT(h.crc, 12345);
  CHECK(h.has_data_page_header_v2);
  CHECK(h.data_page_header_v2.is_compressed);
  CHECK_EQ_INT(h.data_page_header_v2.num_nulls, 3);
  CHECK_EQ_INT(h.data_page_header_v2.definition_levels_byte_length, 4);
  CHECK(h.data_page_header_v2.has_statistics);
  CHECK(h.data_page_header_v2.statistics.min_value.ptr == w.b + min_at);
  CHECK_EQ_INT(h.data_page_header_v2.statistics.min_value.len, 2);
  CHECK_EQ_INT(h.data_page_header_v2.statistics.null_count, 3);
  CHECK(h.data_page_header_v2.statistics.max_value.ptr == NULL);
  for (size_t k = 0; k < hdr_len; k++) {
    int rc = pq_page_header_parse(w.b, k, &h, &used);
    CHECK_EQ_INT(rc, DELTA_ECORRUPT);
  }

  /* is_compressed = false */
  w = (tw){0};
  tw_i32(&w, 1, PQ_PAGE_DATA_V2); tw_i32(&w, 2, 10); tw_i32(&w, 3, 10);
  tw_begin(&w, 8);
  tw_i32(&w, 1, 1); tw_i32(&w, 2, 0); tw_i32(&w, 3, 1); tw_i32(&w, 4, 0);
  tw_i32(&w, 5, 0); tw_i32(&w, 6, 0); tw_bool(&w, 7, false);
  tw_end(&w);
  tw_end(&w);
  CHECK_EQ_INT(pq_page_header_parse(w.b, w.n, &h, &used), 0);
  CHECK(!h.data_page_header_v2.is_compressed);

  /* Level lengths larger than the page. */
  w = (tw){0};
  tw_i32(&w, 1, PQ_PAGE_DATA_V2); tw_i32(&w, 2, 10); tw_i32(&w, 3, 10);
  tw_begin(&w, 8);
  tw_i32(&w, 1, 1); tw_i32(&w, 2, 0); tw_i32(&w, 3, 1); tw_i32(&w, 4, 0);
  tw_i32(&w, 5, 8); tw_i32(&w, 6, 8);
  tw_end(&w);
  tw_end(&w);
  CHECK_EQ_INT(pq_page_header_parse(w.b, w.n, &h, &used), DELTA_ECORRUPT);

  /* DATA_PAGE without its sub-header. */
  w = (tw){0};
  tw_i32(&w, 1, PQ_PAGE_DATA); tw_i32(&w, 2, 10); tw_i32(&w, 3, 10);
  tw_end(&w);
  CHECK_EQ_INT(pq_page_header_parse(w.b, w.n, &h, &used), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "data_page_header") != NULL);

  /* Negative compressed size. */
  w = (tw){0};
  tw_i32(&w, 1, PQ_PAGE_DICTIONARY); tw_i32(&w, 2, 10); tw_i32(&w, 3, -1);
  tw_begin(&w, 7); tw_i32(&w, 1, 2); tw_i32(&w, 2, 0); tw_bool(&w, 3, true); tw_end(&w);
  tw_end(&w);
  CHECK_EQ_INT(pq_page_header_parse(w.b, w.n, &h, &used), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "compressed_page_size") != NULL);

  /* Dictionary page, fine; then with a mistyped field. */
  w = (tw){0};
  tw_i32(&w, 1, PQ_PAGE_DICTIONARY); tw_i32(&w, 2, 10); tw_i32(&w, 3, 9);
  tw_begin(&w, 7); tw_i32(&w, 1, 2); tw_i32(&w, 2, 0); tw_bool(&w, 3, true); tw_end(&w);
  tw_end(&w);
  CHECK_EQ_INT(pq_page_header_parse(w.b, w.n, &h, &used), 0);
  CHECK(h.dictionary_page_header.has_is_sorted && h.dictionary_page_header.is_sorted);
  CHECK_EQ_INT(h.dictionary_page_header.num_values, 2);
  w = (tw){0};
  tw_i32(&w, 1, PQ_PAGE_DICTIONARY); tw_i32(&w, 2, 10);
  tw_field(&w, 3, PQ_TT_BINARY); tw_varint(&w, 0);
  tw_end(&w);
  CHECK_EQ_INT(pq_page_header_parse(w.b, w.n, &h, &used), DELTA_ECORRUPT);

  /* Names. */
  CHECK_STR(pq_codec_name(CODEC_ZSTD), "ZSTD");
  CHECK_STR(pq_codec_name(42), "UNKNOWN(42)");
  CHECK_STR(pq_encoding_name(PQ_ENC_RLE_DICTIONARY), "RLE_DICTIONARY");
  CHECK_STR(pq_encoding_name(1), "UNKNOWN(1)");
  CHECK_STR(pq_type_name(PQ_FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
  CHECK_STR(pq_converted_type_name(PQ_CT_TIMESTAMP_MICROS), "TIMESTAMP_MICROS");
  CHECK_STR(pq_converted_type_name(-7), "UNKNOWN(-7)");
  CHECK_STR(pq_page_type_name(PQ_PAGE_DATA_V2), "DATA_PAGE_V2");
}

/* ---- hand-made footers ---------------------------------------------------- */

/* A footer with a root and leaves described by the caller's bytes. */
static void test_bad_footers(void) {
  pq_file_metadata *md = NULL;
  /* Minimal valid: version 1, schema [root(num_children 1), leaf a INT32 REQUIRED],
   * num_rows 0, row_groups []. */
  tw w = {0};
  tw_i32(&w, 1, 1);
  tw_field(&w, 2, PQ_TT_LIST); w.b[w.n++] = 0x2c;
  w.last[++w.depth] = 0; /* root */
  tw_field(&w, 4, PQ_TT_BINARY); tw_varint(&w, 1); w.b[w.n++] = 'r';
  tw_i32(&w, 5, 1);
  tw_end(&w);
  w.last[++w.depth] = 0; /* leaf */
  tw_i32(&w, 1, PQ_INT32);
  tw_i32(&w, 3, PQ_REQUIRED);
  tw_field(&w, 4, PQ_TT_BINARY); tw_varint(&w, 1); w.b[w.n++] = 'a';
  tw_end(&w);
  tw_field(&w, 3, PQ_TT_I64); tw_varint(&w, 0);
  tw_field(&w, 4, PQ_TT_LIST); w.b[w.n++] = 0x0c;
  tw_end(&w);
  CHECK_EQ_INT(pq_metadata_parse(w.b, w.n, &md), 0);
  if (md) {
    CHECK_EQ_INT(md->num_schema, 2);
    CHECK_STR(md->schema[1].name, "a");
    CHECK_EQ_INT(md->num_row_groups, 0);
    CHECK(md->column_orders == NULL);
    CHECK(md->created_by.ptr == NULL);
    pq_metadata_free(md);
  }
  md = (pq_file_metadata *)1;
  CHECK_EQ_INT(pq_metadata_parse(w.b, w.n - 1, &md), DELTA_ECORRUPT);
  CHECK(md == NULL);
  pq_metadata_free(NULL);

  /* Root num_children 2 with one leaf. */
  uint8_t bad[256];
  memcpy(bad, w.b, w.n);
  size_t pos = 0;
  for (size_t i = 0; i + 1 < w.n; i++)
    if (bad[i] == 'r' && bad[i + 1] == 0x15 && !pos) pos = i + 2; /* root's num_children = zigzag 1 */
  CHECK(pos > 0);
  bad[pos] = 4;
  CHECK_EQ_INT(pq_metadata_parse(bad, w.n, &md), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "num_children") != NULL);
  bad[pos] = 0;
  CHECK_EQ_INT(pq_metadata_parse(bad, w.n, &md), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "num_children") != NULL);
  /* Leaf without a physical type would need num_children; make it FLBA without length. */
  memcpy(bad, w.b, w.n);
  for (size_t i = 0; i + 1 < w.n; i++)
    if (bad[i] == 0x15 && bad[i + 1] == 2 * PQ_INT32 && i > pos) {
      bad[i + 1] = 2 * PQ_FIXED_LEN_BYTE_ARRAY;
      break;
    }
  CHECK_EQ_INT(pq_metadata_parse(bad, w.n, &md), DELTA_ECORRUPT);
  CHECK(strstr(delta_error_last(), "type_length") != NULL);
  /* Missing num_rows: drop the field by turning it into an unknown id. */
  memcpy(bad, w.b, w.n);
  for (size_t i = w.n - 5; i < w.n; i++)
    if (bad[i] == 0x16) bad[i] = 0x06 | (0xf << 4); /* field 3 -> 2+15=17, unknown */
  int rc = pq_metadata_parse(bad, w.n, &md);
  CHECK_EQ_INT(rc, DELTA_ECORRUPT);
}

/* ---- robustness: truncation, mutation, allocation failure ----------------- */

static uint32_t rng_state = 12345;
static uint32_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

static void test_truncation_and_mutation(const char *id, int mutations) {
  uint8_t *file;
  size_t flen, mlen;
  pq_file_metadata *md = load_md(id, &file, &flen);
  CHECK(md != NULL);
  if (!md) return;
  pq_metadata_free(md);
  const uint8_t *footer = footer_of(file, flen, &mlen);
  /* Every strict prefix fails, in a buffer of exactly that size (ASan sees
   * any read past it). */
  int bad = 0;
  for (size_t k = 0; k < mlen; k++) {
    uint8_t *copy = malloc(k ? k : 1);
    memcpy(copy, footer, k);
    md = NULL;
    int rc = pq_metadata_parse(copy, k, &md);
    if (rc != DELTA_ECORRUPT) bad++;
    pq_metadata_free(md);
    free(copy);
  }
  CHECK_EQ_INT(bad, 0);
  /* Random mutations: any result is fine as long as it is 0 or a clean error. */
  uint8_t *copy = malloc(mlen);
  int ok = 0, corrupt = 0, other = 0;
  for (int m = 0; m < mutations; m++) {
    memcpy(copy, footer, mlen);
    int flips = 1 + (int)(rng() % 4);
    for (int f = 0; f < flips; f++) {
      size_t at = rng() % mlen;
      switch (rng() % 3) {
      case 0: copy[at] ^= (uint8_t)(1u << (rng() % 8)); break;
      case 1: copy[at] = (uint8_t)rng(); break;
      default: copy[at] = (uint8_t)(rng() % 2 ? 0xff : 0x00); break;
      }
    }
    md = NULL;
    int rc = pq_metadata_parse(copy, mlen, &md);
    if (rc == 0) {
      ok++;
      /* A mutated footer that still parses must be internally consistent. */
      for (int g = 0; g < md->num_row_groups; g++) {
        CHECK_EQ_INT(md->row_groups[g].num_columns, md->row_groups[0].num_columns);
        for (int c = 0; c < md->row_groups[g].num_columns; c++)
          CHECK(md->row_groups[g].columns[c].meta_data.path_len > 0);
      }
      pq_metadata_free(md);
    } else if (rc == DELTA_ECORRUPT || rc == DELTA_EUNSUPPORTED) {
      corrupt++;
      CHECK(strchr(delta_error_last(), '\n') == NULL && delta_error_last()[0]);
    } else {
      other++;
    }
    pq_page_header h;
    size_t used;
    (void)pq_page_header_parse(copy, mlen, &h, &used);
  }
  CHECK_EQ_INT(other, 0);
  CHECK(corrupt > 0);
  free(copy);
  free(file);
}

/* Page headers of a chunk, mutated and truncated. */
static void test_page_header_mutation(const char *id) {
  uint8_t *file;
  size_t flen;
  pq_file_metadata *md = load_md(id, &file, &flen);
  CHECK(md != NULL);
  if (!md) return;
  for (int c = 0; c < md->row_groups[0].num_columns && c < 8; c++) {
    const pq_column_meta *cm = &md->row_groups[0].columns[c].meta_data;
    int64_t start = cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
    pq_page_header h;
    size_t used;
    CHECK_EQ_INT(pq_page_header_parse(file + start, flen - (size_t)start, &h, &used), 0);
    for (size_t k = 0; k < used; k++) {
      uint8_t *copy = malloc(k ? k : 1);
      memcpy(copy, file + start, k);
      CHECK_EQ_INT(pq_page_header_parse(copy, k, &h, &used), DELTA_ECORRUPT);
      free(copy);
    }
    uint8_t buf[512];
    size_t n = used < sizeof buf ? used : sizeof buf;
    for (int m = 0; m < 300; m++) {
      memcpy(buf, file + start, n);
      buf[rng() % n] = (uint8_t)rng();
      size_t u2 = 0;
      int rc = pq_page_header_parse(buf, n, &h, &u2);
      CHECK(rc == 0 || rc == DELTA_ECORRUPT);
      if (rc == 0) CHECK(u2 <= n);
    }
  }
  pq_metadata_free(md);
  free(file);
}

/* An allocator that fails after a countdown. */
static long fail_after = -1;
static long live_allocs;
static void *cd_malloc(size_t n, void *ctx) {
  (void)ctx;
  if (fail_after == 0) return NULL;
  if (fail_after > 0) fail_after--;
  void *p = malloc(n);
  if (p) live_allocs++;
  return p;
}
static void *cd_realloc(void *p, size_t n, void *ctx) {
  (void)ctx;
  if (fail_after == 0) return NULL;
  if (fail_after > 0) fail_after--;
  if (!p) live_allocs++;
  return realloc(p, n);
}
static void cd_free(void *p, void *ctx) {
  (void)ctx;
  if (p) live_allocs--;
  free(p);
}

static void test_alloc_failure(void) {
  uint8_t *file;
  size_t flen, mlen;
  pq_file_metadata *md = load_md("duck_nested_v1_snappy", &file, &flen);
  CHECK(md != NULL);
  if (!md) return;
  pq_metadata_free(md);
  const uint8_t *footer = footer_of(file, flen, &mlen);
  delta_allocator a = {DELTA_ALLOCATOR_VERSION, cd_malloc, cd_realloc, cd_free, NULL};
  CHECK_EQ_INT(delta_allocator_set(&a), 0);
  int succeeded = 0;
  for (long k = 0; k < 200 && !succeeded; k++) {
    fail_after = k;
    live_allocs = 0;
    md = NULL;
    int rc = pq_metadata_parse(footer, mlen, &md);
    if (rc == 0) {
      succeeded = 1;
      pq_metadata_free(md);
    } else {
      CHECK_EQ_INT(rc, DELTA_ENOMEM);
      CHECK(md == NULL);
    }
    CHECK_EQ_INT(live_allocs, 0);
  }
  fail_after = -1;
  CHECK(succeeded);
  delta_allocator_set(NULL);
  free(file);
}

int main(void) {
  test_thrift_basics();
  test_page_headers();
  test_bad_footers();
  test_all_cases();
  test_known_facts();
  test_truncation_and_mutation("duck_misc_v2_snappy", 3000);
  test_truncation_and_mutation("arrow_prim_v1_snappy", 1000);
  test_truncation_and_mutation("duck_nested_v2_zstd", 1000);
  test_page_header_mutation("arrow_prim_v2_zstd");
  test_page_header_mutation("duck_prim_v1_snappy");
  test_alloc_failure();
  TEST_MAIN_END();
}
