/* Fuzz target for src/json: parse the input; walk the whole tree through
 * every accessor; re-render it with the writer, which must give valid JSON
 * that re-renders to the same bytes (a canonical form: strings unescaped
 * and re-escaped, integers exact, other numbers as shortest doubles). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/json_writer.h"
#include "util/buf.h"

static void render(delta_json_val v, delta_json_writer *w, delta_buf *tmp) {
  const char *p;
  size_t n;
  bool esc, b;
  int64_t i;
  double d;
  json_raw(v, &p, &n);
  switch (json_typeof(v)) {
  case DELTA_JSON_NULL: json_write_null(w); break;
  case DELTA_JSON_BOOL:
    if (json_bool(v, &b)) abort();
    json_write_bool(w, b);
    break;
  case DELTA_JSON_NUMBER:
    if (json_int64(v, &i) == 0) json_write_int64(w, i);
    else if (json_double(v, &d) == 0) json_write_double(w, d);
    else json_write_raw(w, p, n); /* beyond the double range */
    break;
  case DELTA_JSON_STRING:
    if (json_string(v, tmp) || json_string_raw(v, &p, &n, &esc)) abort();
    /* U+0000 makes the C string shorter: string_eq must then say no. */
    if (json_string_eq(v, (char *)tmp->data) != (strlen((char *)tmp->data) == tmp->len)) abort();
    json_write_string_n(w, (char *)tmp->data, tmp->len);
    break;
  case DELTA_JSON_ARRAY: {
    int count = 0;
    json_write_array_begin(w);
    for (delta_json_val e = json_first(v); json_present(e); e = json_next(e)) {
      render(e, w, tmp);
      count++;
    }
    if (count != json_len(v)) abort();
    json_write_array_end(w);
    break;
  }
  case DELTA_JSON_OBJECT: {
    int count = 0;
    json_write_object_begin(w);
    for (delta_json_val m = json_first(v); json_present(m); m = json_next(m)) {
      if (json_key(m, tmp) || json_key_raw(m, &p, &n, &esc)) abort();
      /* get() finds this key (or an earlier duplicate) unless it has U+0000. */
      if (strlen((char *)tmp->data) == tmp->len) {
        delta_json_val g = json_get(v, (char *)tmp->data);
        if (g.tok < 0 || g.tok > m.tok) abort();
      }
      json_write_key_n(w, (char *)tmp->data, tmp->len);
      render(m, w, tmp);
      count++;
    }
    if (count != json_len(v)) abort();
    if (json_present(json_get(v, "\x01missing"))) abort();
    json_write_object_end(w);
    break;
  }
  default: abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  delta_json_doc *d = NULL, *d2 = NULL;
  delta_buf out = DELTA_BUF_INIT, out2 = DELTA_BUF_INIT, tmp = DELTA_BUF_INIT;
  if (json_doc_new(&d) || json_doc_new(&d2)) goto done;
  if (json_parse(d, (const char *)data, size) != 0) goto done;
  delta_json_writer w;
  json_writer_init(&w, &out, 0);
  render(json_root(d), &w, &tmp);
  if (json_writer_finish(&w)) abort();
  if (json_parse(d2, (char *)out.data, out.len)) abort();
  json_writer_init(&w, &out2, 0);
  render(json_root(d2), &w, &tmp);
  if (json_writer_finish(&w)) abort();
  if (out.len != out2.len || memcmp(out.data, out2.data, out.len)) abort();
done:
  json_doc_free(d);
  json_doc_free(d2);
  buf_dispose(&out);
  buf_dispose(&out2);
  buf_dispose(&tmp);
  return 0;
}
