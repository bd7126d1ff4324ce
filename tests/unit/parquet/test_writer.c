/* The Parquet writer: round trips through our own reader for a matrix of
 * types x nulls x codecs x dictionary x page versions (nested included,
 * batches written in slices), statistics (the caller's and the file's,
 * string truncation, -0/+0, NaN), page and row-group limits, dictionary
 * fallback, DELTA_BINARY_PACKED, field ids, and odd input; and passing
 * over rows (pq_stream_skip) in files of small pages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrow/array.h"
#include "arrow/format.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "deltac/parquet_writer.h"
#include "parquet/file.h"
#include "parquet/metadata.h"
#include "parquet/stream.h"
#include "test.h"
#include "util/buf.h"

/* ---- test arrays: memory from a pool freed at the end ---- */

static void *pool[1 << 16];
static int n_pool;

static void *P(size_t n) {
  void *p = calloc(1, n ? n : 1);
  pool[n_pool++] = p;
  return p;
}

static void pool_free(void) {
  while (n_pool) free(pool[--n_pool]);
}

static void no_release(struct ArrowArray *a) { a->release = NULL; }

static struct ArrowArray *mk(int64_t len, int nb, int nk) {
  struct ArrowArray *a = P(sizeof *a);
  a->length = len;
  a->n_buffers = nb;
  a->buffers = P((size_t)nb * sizeof(void *));
  a->n_children = nk;
  a->children = nk ? P((size_t)nk * sizeof(struct ArrowArray *)) : NULL;
  a->release = no_release;
  return a;
}

/* Null when i % every == 1 (every 0: none; 1: all). */
static int is_null(int64_t i, int every) { return every == 1 || (every > 1 && i % every == 1); }

static void set_validity(struct ArrowArray *a, int every) {
  if (!every) return;
  uint8_t *v = P((size_t)(a->length + 7) / 8 + 1);
  int64_t nulls = 0;
  for (int64_t i = 0; i < a->length; i++) {
    if (is_null(i, every)) nulls++;
    else v[i >> 3] |= (uint8_t)(1 << (i & 7));
  }
  a->buffers[0] = v;
  a->null_count = nulls;
}

static struct ArrowArray *prim(int64_t n, int width, int every, void (*gen)(int64_t, void *)) {
  struct ArrowArray *a = mk(n, 2, 0);
  uint8_t *d = P((size_t)(n + 1) * (size_t)width);
  for (int64_t i = 0; i < n; i++) gen(i, d + i * width);
  a->buffers[1] = d;
  set_validity(a, every);
  return a;
}

static void g_i8(int64_t i, void *p) { *(int8_t *)p = (int8_t)((i * 37) % 256 - 128); }
static void g_i16(int64_t i, void *p) { *(int16_t *)p = (int16_t)((i * 7919) % 65536 - 32768); }
static void g_i32(int64_t i, void *p) { *(int32_t *)p = (int32_t)(i * 7919 - 1000000); }
static void g_i64(int64_t i, void *p) { *(int64_t *)p = (i * 1000003) * (i % 2 ? -1 : 1) + (i % 5 == 0 ? INT64_MAX / 3 : 0); }
static void g_f32(int64_t i, void *p) { *(float *)p = i % 50 == 3 ? -0.0f : i % 50 == 7 ? NAN : (float)(i * 0.5 - 100); }
static void g_f64(int64_t i, void *p) { *(double *)p = i % 50 == 3 ? -0.0 : i % 50 == 7 ? NAN : i * 0.25 - 7.5; }
static void g_date(int64_t i, void *p) { *(int32_t *)p = (int32_t)(i * 3 - 5000); }
static void g_ts(int64_t i, void *p) { *(int64_t *)p = i * 1234567891 - 1000000000000000; }
static void g_dec(int64_t i, void *p) {
  int64_t v = (i * 12345 - 500000) * (i % 3 ? 1 : -1);
  int64_t lohi[2] = {v, v < 0 ? -1 : 0};
  memcpy(p, lohi, 16);
}
static void g_bool(int64_t i, void *p) { *(uint8_t *)p = i % 3 == 0; }

static struct ArrowArray *bools(int64_t n, int every) {
  struct ArrowArray *a = mk(n, 2, 0);
  uint8_t *d = P((size_t)(n + 7) / 8 + 1);
  for (int64_t i = 0; i < n; i++) {
    uint8_t b;
    g_bool(i, &b);
    if (b) d[i >> 3] |= (uint8_t)(1 << (i & 7));
  }
  a->buffers[1] = d;
  set_validity(a, every);
  return a;
}

/* utf8/binary: "" every 4th, a 300-byte string at i % 97 == 5, else short
 * repeated words (dictionary-friendly) or unique text. */
static struct ArrowArray *strings(int64_t n, int every, bool unique) {
  struct ArrowArray *a = mk(n, 3, 0);
  int32_t *o = P((size_t)(n + 1) * 4);
  delta_buf b = DELTA_BUF_INIT;
  for (int64_t i = 0; i < n; i++) {
    o[i] = (int32_t)b.len;
    if (i % 4 == 0) continue;
    if (i % 97 == 5) {
      for (int k = 0; k < 300; k++) buf_putc(&b, (char)('a' + (i + k) % 26));
    } else if (unique) {
      buf_printf(&b, "u%lld-é", (long long)i);
    } else {
      buf_printf(&b, "w%lld", (long long)(i % 37));
    }
  }
  o[n] = (int32_t)b.len;
  uint8_t *data = P(b.len);
  if (b.len) memcpy(data, b.data, b.len);
  buf_dispose(&b);
  a->buffers[1] = o;
  a->buffers[2] = data;
  set_validity(a, every);
  return a;
}

/* list<int32>: row i has i % 4 elements, element 1 null. */
static struct ArrowArray *list_i32(int64_t n, int every) {
  struct ArrowArray *a = mk(n, 2, 1);
  int32_t *o = P((size_t)(n + 1) * 4);
  int32_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    o[i] = k;
    if (!is_null(i, every)) k += (int32_t)(i % 4);
  }
  o[n] = k;
  a->buffers[1] = o;
  set_validity(a, every);
  struct ArrowArray *c = prim(k, 4, 0, g_i32);
  uint8_t *v = P((size_t)k / 8 + 2);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++)
    for (int32_t j = o[i]; j < o[i + 1]; j++) {
      if (j - o[i] == 1) nulls++;
      else v[j >> 3] |= (uint8_t)(1 << (j & 7));
    }
  c->buffers[0] = v;
  c->null_count = nulls;
  a->children[0] = c;
  return a;
}

/* struct{a int32, s utf8} */
static struct ArrowArray *struct_col(int64_t n, int every) {
  struct ArrowArray *a = mk(n, 1, 2);
  set_validity(a, every);
  a->children[0] = prim(n, 4, 3, g_i32);
  a->children[1] = strings(n, 5, false);
  return a;
}

/* map<utf8, int64>: row i has i % 3 entries. */
static struct ArrowArray *map_col(int64_t n, int every) {
  struct ArrowArray *a = mk(n, 2, 1);
  int32_t *o = P((size_t)(n + 1) * 4);
  int32_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    o[i] = k;
    if (!is_null(i, every)) k += (int32_t)(i % 3);
  }
  o[n] = k;
  a->buffers[1] = o;
  set_validity(a, every);
  struct ArrowArray *e = mk(k, 1, 2);
  struct ArrowArray *keys = strings(k, 0, true);
  e->children[0] = keys;
  e->children[1] = prim(k, 8, 4, g_i64);
  a->children[0] = e;
  return a;
}

enum { C_BOOL, C_I8, C_I16, C_I32, C_I64, C_F32, C_F64, C_DEC9, C_DEC18, C_DEC30, C_STR, C_BIN, C_DATE, C_TS,
       C_TSNTZ, C_LIST, C_STRUCT, C_MAP, N_COLS };
static const char *col_names[N_COLS] = {"b", "i8", "i16", "i32", "i64", "f32", "f64", "dec9", "dec18", "dec30",
                                        "str", "bin", "date", "ts", "ts_ntz", "lst", "st", "mp"};
static const char *col_formats[N_COLS] = {"b", "c", "s", "i", "l", "f", "g", "d:9,2", "d:18,3", "d:30,5",
                                          "u", "z", "tdD", "tsu:UTC", "tsu:", "+l", "+s", "+m"};

static void make_schema(struct ArrowSchema *s) {
  arrow_schema_new(s, "+s", "", 0, N_COLS);
  for (int c = 0; c < N_COLS; c++) {
    int kids = c == C_LIST ? 1 : c == C_STRUCT ? 2 : c == C_MAP ? 1 : 0;
    struct ArrowSchema *k = s->children[c];
    arrow_schema_new(k, col_formats[c], col_names[c], ARROW_FLAG_NULLABLE, kids);
    if (c == C_LIST) arrow_schema_new(k->children[0], "i", "item", ARROW_FLAG_NULLABLE, 0);
    if (c == C_STRUCT) {
      arrow_schema_new(k->children[0], "i", "a", ARROW_FLAG_NULLABLE, 0);
      arrow_schema_new(k->children[1], "u", "s", ARROW_FLAG_NULLABLE, 0);
    }
    if (c == C_MAP) {
      struct ArrowSchema *e = k->children[0];
      arrow_schema_new(e, "+s", "entries", 0, 2);
      arrow_schema_new(e->children[0], "u", "key", 0, 0);
      arrow_schema_new(e->children[1], "l", "value", ARROW_FLAG_NULLABLE, 0);
    }
  }
  char id[8];
  snprintf(id, sizeof id, "%d", 42);
  const char *key = "PARQUET:field_id", *val = id;
  arrow_schema_set_metadata(s->children[C_I64], &key, &val, 1);
}

static struct ArrowArray *make_batch(int64_t n, int every) {
  struct ArrowArray *b = mk(n, 1, N_COLS);
  b->children[C_BOOL] = bools(n, every);
  b->children[C_I8] = prim(n, 1, every, g_i8);
  b->children[C_I16] = prim(n, 2, every, g_i16);
  b->children[C_I32] = prim(n, 4, every, g_i32);
  b->children[C_I64] = prim(n, 8, every, g_i64);
  b->children[C_F32] = prim(n, 4, every, g_f32);
  b->children[C_F64] = prim(n, 8, every, g_f64);
  b->children[C_DEC9] = prim(n, 16, every, g_dec);
  b->children[C_DEC18] = prim(n, 16, every, g_dec);
  b->children[C_DEC30] = prim(n, 16, every, g_dec);
  b->children[C_STR] = strings(n, every, false);
  b->children[C_BIN] = strings(n, every, true);
  b->children[C_DATE] = prim(n, 4, every, g_date);
  b->children[C_TS] = prim(n, 8, every, g_ts);
  b->children[C_TSNTZ] = prim(n, 8, every, g_ts);
  b->children[C_LIST] = list_i32(n, every);
  b->children[C_STRUCT] = struct_col(n, every);
  b->children[C_MAP] = map_col(n, every);
  return b;
}

/* ---- writing to memory, reading back as NDJSON ---- */

static int mem_write(void *ctx, const void *p, size_t n) { return buf_append(ctx, p, n); }

static char *render_batch(const struct ArrowSchema *s, const struct ArrowArray *b) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  arrow_text_writer *w = NULL;
  int rc = arrow_text_writer_new(&w, ARROW_FMT_NDJSON, s, mem);
  if (!rc) rc = arrow_text_writer_write(w, b, -1);
  if (!rc) rc = arrow_text_writer_finish(w);
  arrow_text_writer_free(w);
  fclose(mem);
  if (rc) {
    free(text);
    return NULL;
  }
  return text;
}

static char *render_file(const delta_buf *file, int64_t *rows) {
  delta_parquet_file *f = NULL;
  if (delta_parquet_open_memory(&f, file->data, file->len, "mem.parquet")) {
    fprintf(stderr, "open: %s\n", delta_error_last());
    return NULL;
  }
  struct ArrowArrayStream s;
  struct ArrowSchema schema;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  arrow_text_writer *w = NULL;
  int rc = delta_parquet_read(f, NULL, &s);
  if (!rc) rc = s.get_schema(&s, &schema);
  if (!rc) rc = arrow_text_writer_new(&w, ARROW_FMT_NDJSON, &schema, mem);
  *rows = 0;
  while (!rc) {
    struct ArrowArray a;
    if (s.get_next(&s, &a) != 0) {
      fprintf(stderr, "read: %s\n", s.get_last_error(&s));
      rc = -1;
      break;
    }
    if (!a.release) break;
    *rows += a.length;
    rc = arrow_text_writer_write(w, &a, -1);
    a.release(&a);
  }
  if (!rc) rc = arrow_text_writer_finish(w);
  arrow_text_writer_free(w);
  if (schema.release) schema.release(&schema);
  s.release(&s);
  delta_parquet_free(f);
  fclose(mem);
  if (rc) {
    free(text);
    return NULL;
  }
  return text;
}

/* Write `b` in slices of `slice` rows (through batch offsets), close. */
static int write_file(const struct ArrowSchema *s, const struct ArrowArray *b, int64_t slice,
                      const delta_parquet_write_options *o, delta_buf *out, delta_parquet_write_result **res) {
  delta_parquet_sink sink = {mem_write, out};
  delta_parquet_writer *w = NULL;
  int rc = delta_parquet_writer_open_sink(&w, &sink, s, o);
  for (int64_t at = 0; !rc && at < b->length; at += slice) {
    struct ArrowArray view = *b;
    view.offset = b->offset + at;
    view.length = at + slice > b->length ? b->length - at : slice;
    rc = delta_parquet_writer_write(w, &view);
  }
  if (!rc) rc = delta_parquet_writer_close(w, res);
  if (rc) fprintf(stderr, "write: %s\n", delta_error_last());
  delta_parquet_writer_free(w);
  return rc;
}

static int roundtrip(const struct ArrowSchema *s, const struct ArrowArray *b, int64_t slice,
                     const delta_parquet_write_options *o, const char *label) {
  delta_buf file = DELTA_BUF_INIT;
  int ok = 0;
  int64_t rows = -1;
  char *want = render_batch(s, b), *got = NULL;
  if (write_file(s, b, slice, o, &file, NULL) == 0) got = render_file(&file, &rows);
  if (want && got && strcmp(want, got) == 0 && rows == b->length) {
    ok = 1;
  } else {
    fprintf(stderr, "round trip %s: rows %lld of %lld\n", label, (long long)rows, (long long)b->length);
    if (want && got) {
      size_t k = 0;
      while (want[k] && want[k] == got[k]) k++;
      size_t from = k > 200 ? k - 200 : 0;
      fprintf(stderr, "  want ...%.300s\n  got  ...%.300s\n", want + from, got + from);
    }
  }
  free(want);
  free(got);
  buf_dispose(&file);
  return ok;
}

static void test_matrix(void) {
  struct ArrowSchema s;
  make_schema(&s);
  const delta_parquet_codec codecs[] = {DELTA_PARQUET_SNAPPY, DELTA_PARQUET_ZSTD, DELTA_PARQUET_GZIP,
                                        DELTA_PARQUET_LZ4_RAW, DELTA_PARQUET_UNCOMPRESSED};
  const int nulls[] = {0, 3, 1};
  int run = 0;
  for (int ni = 0; ni < 3; ni++) {
    struct ArrowArray *b = make_batch(2000, nulls[ni]);
    for (int ci = 0; ci < 5; ci++)
      for (int dict = 0; dict < 2; dict++)
        for (int v2 = 0; v2 < 2; v2++) {
          delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
          o.codec = codecs[ci];
          o.no_dictionary = !dict;
          o.data_page_v2 = v2;
          o.delta_binary_packed = (run % 3) == 0;
          if (run % 2) o.page_rows = 97, o.row_group_rows = 700;
          char label[96];
          snprintf(label, sizeof label, "nulls=%d codec=%d dict=%d v2=%d", nulls[ni], (int)codecs[ci], dict, v2);
          CHECK(roundtrip(&s, b, run % 4 ? 2000 : 333, &o, label));
          run++;
        }
  }
  arrow_schema_release(&s);
  pool_free();
}

/* ---- statistics ---- */

static const delta_parquet_column_result *find_col(const delta_parquet_write_result *r, const char *path) {
  for (int i = 0; i < r->n_columns; i++)
    if (strcmp(r->columns[i].path, path) == 0) return &r->columns[i];
  return NULL;
}

static void test_result_stats(void) {
  struct ArrowSchema s;
  make_schema(&s);
  struct ArrowArray *b = make_batch(1000, 3);
  delta_buf file = DELTA_BUF_INIT;
  delta_parquet_write_result *r = NULL;
  delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  o.row_group_rows = 300; /* file stats merge four row groups */
  CHECK(write_file(&s, b, 1000, &o, &file, &r) == 0);
  CHECK(r != NULL);
  if (r) {
    CHECK_EQ_INT(r->num_rows, 1000);
    CHECK_EQ_INT(r->num_row_groups, 4);
    CHECK_EQ_INT(r->file_size, (int64_t)file.len);
    CHECK_EQ_INT(r->n_columns, N_COLS - 3 + 1 + 2 + 2);
    /* i32: rows with i % 3 == 1 are null; others i*7919-1000000 */
    const delta_parquet_column_result *c = find_col(r, "i32");
    CHECK(c && c->has_min_max && c->min.kind == DELTA_PARQUET_VALUE_INT64);
    if (c) {
      CHECK_EQ_INT(c->min.v.i64, -1000000);
      CHECK_EQ_INT(c->max.v.i64, 999 * 7919 - 1000000);
      CHECK_EQ_INT(c->null_count, 333);
      CHECK_EQ_INT(c->num_values, 1000);
      CHECK(!c->repeated);
    }
    /* f64: NaN left out; -0.0 is the smallest zero */
    c = find_col(r, "f64");
    CHECK(c && c->has_min_max && c->min.kind == DELTA_PARQUET_VALUE_DOUBLE);
    if (c) {
      CHECK(c->min.v.f64 == -7.5);
      CHECK(c->max.v.f64 == 999 * 0.25 - 7.5);
    }
    c = find_col(r, "str");
    CHECK(c && c->has_min_max && c->min.kind == DELTA_PARQUET_VALUE_BYTES);
    if (c) {
      CHECK_EQ_INT(c->min.v.bytes.len, 0); /* "" */
      /* the 300-byte string of row 102 starts "yz" */
      CHECK(c->max.v.bytes.len == 300 && c->max.v.bytes.data[0] == 'y');
    }
    c = find_col(r, "dec30");
    CHECK(c && c->has_min_max && c->min.kind == DELTA_PARQUET_VALUE_DECIMAL);
    if (c) {
      /* min: i=999 (i%3==0: negated) -> -(999*12345-500000); max: largest positive */
      CHECK_EQ_INT((int64_t)c->min.v.dec.lo, -(999 * 12345 - 500000));
      CHECK_EQ_INT(c->min.v.dec.hi, -1);
      CHECK_EQ_INT((int64_t)c->max.v.dec.lo, 998 * 12345 - 500000);
    }
    c = find_col(r, "dec9");
    CHECK(c && c->has_min_max && c->min.kind == DELTA_PARQUET_VALUE_DECIMAL);
    c = find_col(r, "lst.list.element");
    CHECK(c && c->repeated && c->path_len == 3);
    if (c) CHECK_STR(c->path_parts[1], "list");
    c = find_col(r, "mp.key_value.key");
    CHECK(c && c->repeated && c->null_count > 0); /* empty and null maps */
    c = find_col(r, "st.s");
    CHECK(c && !c->repeated);
    c = find_col(r, "ts");
    CHECK(c && c->has_min_max && c->min.v.i64 == -1000000000000000);
  }
  /* The file's chunk statistics as our reader sees them. */
  delta_parquet_file *f = NULL;
  CHECK(delta_parquet_open_memory(&f, file.data, file.len, "mem") == 0);
  if (f) {
    delta_parquet_stats st;
    CHECK(delta_parquet_column_stats(f, 0, C_F32, &st) == 0);
    CHECK(st.has_min_max && st.min_len == 4 && st.max_len == 4);
    if (st.has_min_max) {
      float mn, mx;
      memcpy(&mn, st.min, 4);
      memcpy(&mx, st.max, 4);
      CHECK(mn == -100.0f && mx == 49.5f);
    }
    CHECK(st.has_null_count && st.null_count == 100);
    /* field id on i64 */
    CHECK(f->md->schema[1 + C_I64].has_field_id && f->md->schema[1 + C_I64].field_id == 42);
    delta_parquet_free(f);
  }
  delta_parquet_write_result_free(r);
  buf_dispose(&file);
  arrow_schema_release(&s);
  pool_free();
}

/* One utf8 (or binary) column holding `vals`. */
static struct ArrowArray *one_string_col(const char *const *vals, const size_t *lens, int n) {
  struct ArrowArray *b = mk(n, 1, 1);
  struct ArrowArray *a = mk(n, 3, 0);
  int32_t *o = P((size_t)(n + 1) * 4);
  size_t total = 0;
  for (int i = 0; i < n; i++) total += lens[i];
  uint8_t *d = P(total);
  total = 0;
  for (int i = 0; i < n; i++) {
    o[i] = (int32_t)total;
    memcpy(d + total, vals[i], lens[i]);
    total += lens[i];
  }
  o[n] = (int32_t)total;
  a->buffers[1] = o;
  a->buffers[2] = d;
  b->children[0] = a;
  return b;
}

static void file_bounds(const delta_buf *file, pq_bytes *mn, pq_bytes *mx, bool *min_exact, bool *max_exact) {
  delta_parquet_file *f = NULL;
  memset(mn, 0, sizeof *mn);
  memset(mx, 0, sizeof *mx);
  if (delta_parquet_open_memory(&f, file->data, file->len, "mem")) return;
  const pq_statistics *st = &f->md->row_groups[0].columns[0].meta_data.statistics;
  static uint8_t a[256], b[256];
  mn->len = st->min_value.len < 256 ? st->min_value.len : 0;
  mx->len = st->max_value.len < 256 ? st->max_value.len : 0;
  if (st->min_value.ptr) memcpy(a, st->min_value.ptr, mn->len), mn->ptr = a;
  if (st->max_value.ptr) memcpy(b, st->max_value.ptr, mx->len), mx->ptr = b;
  *min_exact = !st->has_is_min_value_exact || st->is_min_value_exact;
  *max_exact = !st->has_is_max_value_exact || st->is_max_value_exact;
  delta_parquet_free(f);
}

static void test_truncation(void) {
  struct ArrowSchema s;
  arrow_schema_new(&s, "+s", "", 0, 1);
  arrow_schema_new(s.children[0], "u", "s", 0, 0);
  delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  o.stats_max_bytes = 4;
  pq_bytes mn, mx;
  bool mne, mxe;
  {
    /* ASCII: min is a prefix, max a prefix with its last byte incremented */
    const char *v[] = {"bbbbbbbb", "abcdefgh", "bbba"};
    size_t l[] = {8, 8, 4};
    delta_buf file = DELTA_BUF_INIT;
    delta_parquet_write_result *r = NULL;
    CHECK(write_file(&s, one_string_col(v, l, 3), 3, &o, &file, &r) == 0);
    file_bounds(&file, &mn, &mx, &mne, &mxe);
    CHECK(mn.ptr && mn.len == 4 && memcmp(mn.ptr, "abcd", 4) == 0 && !mne);
    CHECK(mx.ptr && mx.len == 4 && memcmp(mx.ptr, "bbbc", 4) == 0 && !mxe);
    /* the caller's stats are exact */
    CHECK(r && r->columns[0].max.v.bytes.len == 8);
    delta_parquet_write_result_free(r);
    buf_dispose(&file);
  }
  {
    /* UTF-8: never cut a character; a multi-byte last character is dropped
     * from the max before incrementing */
    const char *v[] = {"ab\xe2\x82\xac\xe2\x82\xac", "a\xe2\x82\xac\xe2\x82\xac"};
    size_t l[] = {8, 7};
    delta_buf file = DELTA_BUF_INIT;
    CHECK(write_file(&s, one_string_col(v, l, 2), 2, &o, &file, NULL) == 0);
    file_bounds(&file, &mn, &mx, &mne, &mxe);
    /* min "ab€€" (0x62 < 0xE2) -> "ab"; max "a€€" -> "a€" -> "a" -> "b" */
    CHECK(mn.ptr && mn.len == 2 && memcmp(mn.ptr, "ab", 2) == 0);
    CHECK(mx.ptr && mx.len == 1 && memcmp(mx.ptr, "b", 1) == 0);
    buf_dispose(&file);
  }
  {
    /* A value equal to the limit is exact; 0x7F rolls over to U+0080. */
    const char *v[] = {"abcd", "ab\x7f\x7f\x7fz"};
    size_t l[] = {4, 6};
    delta_buf file = DELTA_BUF_INIT;
    CHECK(write_file(&s, one_string_col(v, l, 2), 2, &o, &file, NULL) == 0);
    file_bounds(&file, &mn, &mx, &mne, &mxe);
    CHECK(mn.ptr && mn.len == 4 && memcmp(mn.ptr, "abcd", 4) == 0 && mne);
    CHECK(mx.ptr && mx.len == 5 && memcmp(mx.ptr, "ab\x7f\xc2\x80", 5) == 0);
    buf_dispose(&file);
  }
  arrow_schema_release(&s);
  {
    /* binary of 0xFF bytes: no max can bound it within the limit */
    arrow_schema_new(&s, "+s", "", 0, 1);
    arrow_schema_new(s.children[0], "z", "b", 0, 0);
    const char *v[] = {"\xff\xff\xff\xff\xff\xff", "\x01"};
    size_t l[] = {6, 1};
    delta_buf file = DELTA_BUF_INIT;
    CHECK(write_file(&s, one_string_col(v, l, 2), 2, &o, &file, NULL) == 0);
    file_bounds(&file, &mn, &mx, &mne, &mxe);
    CHECK(mn.ptr && mn.len == 1);
    CHECK(mx.ptr == NULL);
    buf_dispose(&file);
    arrow_schema_release(&s);
  }
  pool_free();
}

static void g_seq(int64_t i, void *p) { *(int64_t *)p = 1000000 + i * 3; }

/* Pages and row groups split where the limits say; the dictionary falls
 * back to PLAIN; sorted ints take DELTA_BINARY_PACKED. */
static void test_limits_and_encodings(void) {
  struct ArrowSchema s;
  arrow_schema_new(&s, "+s", "", 0, 2);
  arrow_schema_new(s.children[0], "l", "seq", 0, 0);
  arrow_schema_new(s.children[1], "u", "txt", ARROW_FLAG_NULLABLE, 0);
  int64_t n = 10000;
  struct ArrowArray *b = mk(n, 1, 2);
  b->children[0] = prim(n, 8, 0, g_seq);
  b->children[1] = strings(n, 9, true);
  delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  o.row_group_rows = 3000;
  o.page_rows = 100;
  o.dictionary_bytes = 2000;
  o.delta_binary_packed = true;
  delta_buf file = DELTA_BUF_INIT;
  CHECK(write_file(&s, b, 4096, &o, &file, NULL) == 0);
  CHECK(roundtrip(&s, b, 4096, &o, "limits"));
  delta_parquet_file *f = NULL;
  CHECK(delta_parquet_open_memory(&f, file.data, file.len, "mem") == 0);
  if (f) {
    CHECK_EQ_INT(delta_parquet_num_row_groups(f), 4);
    CHECK_EQ_INT(delta_parquet_row_group_num_rows(f, 3), 1000);
    /* count the data pages of the first chunk */
    const pq_column_meta *m = &f->md->row_groups[0].columns[0].meta_data;
    int64_t at = m->has_dictionary_page_offset ? m->dictionary_page_offset : m->data_page_offset;
    int64_t end = at + m->total_compressed_size;
    int pages = 0;
    while (at < end) {
      pq_page_header h;
      size_t used;
      if (pq_page_header_parse(file.data + at, (size_t)(end - at), &h, &used)) break;
      if (h.type == PQ_PAGE_DATA) pages++;
      at += (int64_t)used + h.compressed_page_size;
    }
    CHECK_EQ_INT(pages, 30);
    CHECK_EQ_INT(at, end);
    /* seq: dictionary of unique values fell back; some pages are delta-encoded */
    bool dbp = false, dict = false, plain = false;
    for (int c = 0; c < 2; c++) {
      const pq_column_meta *cm = &f->md->row_groups[0].columns[c].meta_data;
      for (int e = 0; e < cm->num_encodings; e++) {
        if (c == 0 && cm->encodings[e] == PQ_ENC_DELTA_BINARY_PACKED) dbp = true;
        if (c == 1 && cm->encodings[e] == PQ_ENC_RLE_DICTIONARY) dict = true;
        if (c == 1 && cm->encodings[e] == PQ_ENC_PLAIN) plain = true;
      }
    }
    CHECK(dbp);
    CHECK(dict && plain);
    CHECK(f->md->row_groups[0].columns[1].meta_data.has_dictionary_page_offset);
    delta_parquet_free(f);
  }
  /* byte limit on pages: 100-byte pages still hold at least one row */
  delta_parquet_write_options o2 = DELTA_PARQUET_WRITE_OPTIONS_INIT;
  o2.page_bytes = 100;
  o2.row_group_bytes = 20000;
  CHECK(roundtrip(&s, b, 10000, &o2, "tiny pages"));
  buf_dispose(&file);
  arrow_schema_release(&s);
  pool_free();
}

/* Empty files, empty batches, all nulls, huge strings, bad batches. */
static void test_odd_input(void) {
  struct ArrowSchema s;
  make_schema(&s);
  delta_buf file = DELTA_BUF_INIT;
  delta_parquet_write_result *r = NULL;
  delta_parquet_sink sink = {mem_write, &file};
  delta_parquet_writer *w = NULL;
  /* no batches at all */
  CHECK(delta_parquet_writer_open_sink(&w, &sink, &s, NULL) == 0);
  CHECK(delta_parquet_writer_close(w, &r) == 0);
  delta_parquet_writer_free(w);
  CHECK(r && r->num_rows == 0 && r->num_row_groups == 0 && !r->columns[0].has_min_max);
  delta_parquet_write_result_free(r);
  int64_t rows = -1;
  char *t = render_file(&file, &rows);
  CHECK(t != NULL && rows == 0);
  free(t);
  /* empty batches between real ones; a wrong batch leaves the writer usable */
  file.len = 0;
  struct ArrowArray *empty = make_batch(0, 0), *all_null = make_batch(50, 1), *bad = mk(5, 1, 2);
  CHECK(delta_parquet_writer_open_sink(&w, &sink, &s, NULL) == 0);
  CHECK(delta_parquet_writer_write(w, empty) == 0);
  CHECK(delta_parquet_writer_write(w, bad) == DELTA_EINVAL);
  CHECK(delta_parquet_writer_write(w, all_null) == 0);
  CHECK(delta_parquet_writer_write(w, empty) == 0);
  CHECK(delta_parquet_writer_close(w, &r) == 0);
  CHECK(delta_parquet_writer_write(w, empty) == DELTA_EINVAL); /* closed */
  delta_parquet_writer_free(w);
  CHECK(r && r->num_rows == 50);
  if (r) {
    const delta_parquet_column_result *c = find_col(r, "st.a");
    CHECK(c && c->null_count == 50 && !c->has_min_max);
  }
  delta_parquet_write_result_free(r);
  t = render_file(&file, &rows);
  char *want = render_batch(&s, all_null);
  CHECK(t && want && strcmp(t, want) == 0);
  free(t);
  free(want);
  arrow_schema_release(&s);
  /* a 3 MiB string next to empty ones, tiny pages */
  {
    struct ArrowSchema s1;
    arrow_schema_new(&s1, "+s", "", 0, 1);
    arrow_schema_new(s1.children[0], "u", "s", ARROW_FLAG_NULLABLE, 0);
    size_t big = 3 << 20;
    char *huge = P(big);
    memset(huge, 'x', big);
    const char *v[] = {"", huge, "", "y"};
    size_t l[] = {0, big, 0, 1};
    delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
    o.page_bytes = 1000;
    CHECK(roundtrip(&s1, one_string_col(v, l, 4), 1, &o, "huge string"));
    o.no_dictionary = true;
    o.data_page_v2 = true;
    CHECK(roundtrip(&s1, one_string_col(v, l, 4), 4, &o, "huge string plain"));
    arrow_schema_release(&s1);
  }
  /* schema errors */
  {
    struct ArrowSchema s2;
    arrow_schema_new(&s2, "+s", "", 0, 1);
    arrow_schema_new(s2.children[0], "tss:", "t", 0, 0);
    file.len = 0;
    CHECK(delta_parquet_writer_open_sink(&w, &sink, &s2, NULL) == DELTA_EUNSUPPORTED);
    CHECK(w == NULL);
    arrow_schema_release(&s2);
    arrow_schema_new(&s2, "i", "", 0, 0);
    CHECK(delta_parquet_writer_open_sink(&w, &sink, &s2, NULL) == DELTA_EINVAL);
    arrow_schema_release(&s2);
    make_schema(&s2);
    delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
    o.version = 99;
    CHECK(delta_parquet_writer_open_sink(&w, &sink, &s2, &o) == DELTA_EINVAL);
    arrow_schema_release(&s2);
  }
  buf_dispose(&file);
  pool_free();
}

/* The path API writes the same bytes as the sink API. */
static void test_path(void) {
  struct ArrowSchema s;
  make_schema(&s);
  struct ArrowArray *b = make_batch(100, 3);
  char path[] = "/tmp/deltac_test_writer_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  delta_parquet_writer *w = NULL;
  CHECK(delta_parquet_writer_open(&w, path, &s, NULL) == 0);
  CHECK(delta_parquet_writer_write(w, b) == 0);
  CHECK(delta_parquet_writer_close(w, NULL) == 0);
  delta_parquet_writer_free(w);
  delta_parquet_file *f = NULL;
  CHECK(delta_parquet_open(&f, path) == 0);
  CHECK(f && delta_parquet_num_rows(f) == 100);
  delta_parquet_free(f);
  unlink(path);
  CHECK(delta_parquet_writer_open(&w, "/nonexistent-dir/x.parquet", &s, NULL) == DELTA_ENOTFOUND);
  arrow_schema_release(&s);
  pool_free();
}


/* ---- passing over rows: pq_stream_skip ----
 *
 * A file of small pages (every type, nested included) read in batches of
 * 128 rows, some batches passed over with pq_stream_skip: each batch read
 * must equal the same batch of a plain read, from memory and from a file
 * (compressed chunks from a file are read page by page), and whole pages
 * must have been passed over. */

static int skip_read(delta_parquet_file *f, char **ref, int n_ref, bool skipping, pq_page_counts *pages) {
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  ro.batch_rows = 128;
  struct ArrowArrayStream s;
  struct ArrowSchema schema = {0};
  int rc = delta_parquet_read(f, &ro, &s);
  if (rc) return rc;
  rc = s.get_schema(&s, &schema);
  int bad = 0;
  for (int k = 0; !rc; k++) {
    /* runs of skipped batches of varying length, never the last batch */
    if (skipping && k + 1 < n_ref && (k % 5 == 1 || k % 5 == 2 || k % 5 == 3 || k % 11 == 0)) {
      CHECK_EQ_INT(pq_stream_skip(&s, k % 8 == 7 ? 104 : 128), 0); /* the batch's rows */
      continue;
    }
    struct ArrowArray a;
    if (s.get_next(&s, &a) != 0) {
      fprintf(stderr, "skip read: %s\n", s.get_last_error(&s));
      rc = -1;
      break;
    }
    if (!a.release) {
      CHECK_EQ_INT(k, n_ref);
      break;
    }
    char *got = render_batch(&schema, &a);
    a.release(&a);
    if (ref && (k >= n_ref || !got || strcmp(got, ref[k]) != 0)) bad++;
    free(got);
  }
  pq_stream_page_counts(&s, pages);
  if (schema.release) schema.release(&schema);
  s.release(&s);
  CHECK_EQ_INT(bad, 0);
  return rc;
}

static void test_skip(void) {
  struct ArrowSchema schema;
  make_schema(&schema);
  const int64_t n = 3000;
  struct ArrowArray *b = make_batch(n, 7);
  struct {
    delta_parquet_codec codec;
    bool v2, no_dict;
    int64_t page_rows;
  } cases[] = {{DELTA_PARQUET_SNAPPY, false, false, 50},
               {DELTA_PARQUET_ZSTD, true, true, 37},
               {DELTA_PARQUET_UNCOMPRESSED, false, true, 64},
               {DELTA_PARQUET_SNAPPY, true, false, 100}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    delta_parquet_write_options o = DELTA_PARQUET_WRITE_OPTIONS_INIT;
    o.codec = cases[c].codec;
    o.data_page_v2 = cases[c].v2;
    o.no_dictionary = cases[c].no_dict;
    o.page_rows = cases[c].page_rows;
    o.row_group_rows = 1000; /* skips cross row groups too */
    delta_buf file = DELTA_BUF_INIT;
    if (write_file(&schema, b, 700, &o, &file, NULL) != 0) {
      CHECK(0);
      continue;
    }
    char path[] = "/tmp/deltac_test_skip_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, file.data, file.len) == (ssize_t)file.len);
    if (fd >= 0) close(fd);
    for (int from_file = 0; from_file < 2; from_file++) {
      delta_parquet_file *f = NULL;
      int rc = from_file ? delta_parquet_open(&f, path) : delta_parquet_open_memory(&f, file.data, file.len, "mem");
      CHECK_EQ_INT(rc, 0);
      if (rc) continue;
      /* the reference: every batch, rendered */
      delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
      ro.batch_rows = 128;
      struct ArrowArrayStream s;
      struct ArrowSchema rs = {0};
      char *ref[64] = {0};
      int n_ref = 0;
      rc = delta_parquet_read(f, &ro, &s);
      if (!rc) rc = s.get_schema(&s, &rs);
      while (!rc && n_ref < 64) {
        struct ArrowArray a;
        if (s.get_next(&s, &a) != 0 || !a.release) break;
        ref[n_ref++] = render_batch(&rs, &a);
        a.release(&a);
      }
      if (rs.release) rs.release(&rs);
      if (s.release) s.release(&s);
      CHECK_EQ_INT(n_ref, 3 * 8); /* 1000-row groups: 7 full batches and one of 104 each */
      pq_page_counts plain, skipped;
      CHECK_EQ_INT(skip_read(f, ref, n_ref, false, &plain), 0);
      CHECK_EQ_INT(skip_read(f, ref, n_ref, true, &skipped), 0);
      CHECK(plain.skipped == 0 && plain.read > 0);
      CHECK(skipped.skipped > 0);
      CHECK(skipped.read < plain.read);
      /* skipping past the end is an error, not a hang or a crash */
      CHECK(delta_parquet_read(f, &ro, &s) == 0);
      CHECK(pq_stream_skip(&s, n + 1) != 0);
      s.release(&s);
      for (int k = 0; k < n_ref; k++) free(ref[k]);
      delta_parquet_free(f);
    }
    unlink(path);
    buf_dispose(&file);
  }
  schema.release(&schema);
  pool_free();
}

int main(void) {
  test_skip();
  test_matrix();
  test_result_stats();
  test_truncation();
  test_limits_and_encodings();
  test_odd_input();
  test_path();
  TEST_MAIN_END();
}
