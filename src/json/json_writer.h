/*
 * A small JSON writer appending compact JSON (no spaces) to a delta_buf.
 * Commas and colons are inserted automatically; misuse (a value in an
 * object without a key, a mismatched end, a second top-level value) fails
 * with DELTA_EINVAL. The first error is sticky: every later call returns it,
 * so a sequence of calls can be checked once at json_writer_finish().
 *
 *   delta_json_writer w;
 *   json_writer_init(&w, &buf, 0);
 *   json_write_object_begin(&w);
 *   json_write_key(&w, "path");  json_write_string(&w, "a b.parquet");
 *   json_write_key(&w, "size");  json_write_int64(&w, 123);
 *   json_write_object_end(&w);
 *   rc = json_writer_finish(&w);
 */
#ifndef DELTAC_JSON_JSON_WRITER_H
#define DELTAC_JSON_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define DELTA_JSON_WRITER_MAX_DEPTH 128

/* NaN and ±Infinity are written as null instead of failing with
 * DELTA_EINVAL. */
#define DELTA_JSON_WRITE_NONFINITE_NULL 1u

typedef struct {
  delta_buf *out;
  unsigned flags;
  int err;         /* first error, returned by every later call */
  int depth;       /* open containers */
  bool need_comma; /* the open container already holds a value */
  bool after_key;  /* a key was written; its value is next */
  bool done;       /* the top-level value is complete */
  char stack[DELTA_JSON_WRITER_MAX_DEPTH]; /* '{' or '[' per open container */
} delta_json_writer;

/* Appends to `out` (existing contents are kept). */
void json_writer_init(delta_json_writer *w, delta_buf *out, unsigned flags);
/* 0 when exactly one complete value was written, else the sticky error or
 * DELTA_EINVAL for an unfinished document. */
int json_writer_finish(delta_json_writer *w);

int json_write_object_begin(delta_json_writer *w);
int json_write_object_end(delta_json_writer *w);
int json_write_array_begin(delta_json_writer *w);
int json_write_array_end(delta_json_writer *w);
int json_write_key(delta_json_writer *w, const char *key);
int json_write_key_n(delta_json_writer *w, const char *key, size_t n);
/* Escapes '"', '\\' and control characters (\n, \t, ... or \u00XX); other
 * bytes, including UTF-8 sequences, are copied as they are. */
int json_write_string(delta_json_writer *w, const char *s);
int json_write_string_n(delta_json_writer *w, const char *s, size_t n);
int json_write_int64(delta_json_writer *w, int64_t v);
int json_write_uint64(delta_json_writer *w, uint64_t v);
/* Shortest text that reads back as the same double; always recognisably a
 * float ("1.0", "1e+300", "-0.0"). Plain notation for 1e-5 <= |v| < 1e17. */
int json_write_double(delta_json_writer *w, double v);
int json_write_bool(delta_json_writer *w, bool v);
int json_write_null(delta_json_writer *w);
/* ["a","b",...]: n strings (a NULL entry is written as null). */
int json_write_string_array(delta_json_writer *w, const char *const *v, int n);
/* A pre-rendered JSON value, copied verbatim (not checked). */
int json_write_raw(delta_json_writer *w, const char *json, size_t n);

/* Append s[0..n) as a quoted, escaped JSON string to out (no writer state). */
int json_append_string(delta_buf *out, const char *s, size_t n);

#endif
