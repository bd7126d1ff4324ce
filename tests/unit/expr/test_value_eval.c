/* Value expressions over nested columns (MERGE's joined rows {t, s}):
 * dotted and quoted references resolve through struct fields, evaluate per
 * row, and bad references are clear errors. */
#include <string.h>

#include "arrow/array.h"
#include "deltac/error.h"
#include "expr/value_eval.h"
#include "test.h"
#include "util/alloc_internal.h"
#include "write/input_text.h"

static void no_release(struct ArrowArray *a) { a->release = NULL; }

int main(void) {
  const char *json = "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":null}\n{\"a\":null,\"b\":\"z\"}\n";
  char *text = delta_malloc(strlen(json) + 1);
  memcpy(text, json, strlen(json) + 1);
  struct ArrowArrayStream st;
  CHECK_EQ_INT(input_text_stream(text, strlen(json), INPUT_NDJSON, NULL, 0, &st), 0);
  struct ArrowSchema inner;
  struct ArrowArray rows;
  CHECK_EQ_INT(st.get_schema(&st, &inner), 0);
  CHECK_EQ_INT(st.get_next(&st, &rows), 0);
  /* {t: rows, s: rows} */
  struct ArrowSchema joined;
  CHECK_EQ_INT(arrow_schema_new(&joined, "+s", "", 0, 2), 0);
  const char *names[2] = {"t", "s"};
  for (int k = 0; k < 2; k++) {
    struct ArrowSchema *c = joined.children[k];
    arrow_schema_release(c);
    CHECK_EQ_INT(arrow_schema_new(c, "+s", names[k], 0, (int)inner.n_children), 0);
    for (int64_t i = 0; i < inner.n_children; i++) {
      arrow_schema_release(c->children[i]);
      CHECK_EQ_INT(arrow_schema_copy(c->children[i], inner.children[i]), 0);
    }
  }
  struct ArrowArray *kids[2] = {&rows, &rows};
  const void *bufs[1] = {NULL};
  struct ArrowArray batch = {.length = rows.length, .n_buffers = 1, .n_children = 2, .buffers = bufs,
                             .children = kids, .release = no_release};
  vexpr *e = NULL;
  struct ArrowArray out;
  /* arithmetic over t.a and s.a: long */
  CHECK_EQ_INT(vexpr_parse("t.a + `s`.`a` * 10", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "l", "x"), 0);
  CHECK_EQ_INT(vexpr_eval(e, &batch, &out), 0);
  CHECK_EQ_INT(out.length, 3);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[0], 11);
  CHECK_EQ_INT(((const int64_t *)out.buffers[1])[1], 22);
  CHECK_EQ_INT(out.null_count, 1);
  out.release(&out);
  vexpr_free(e);
  /* strings; a plain copy of a nested column */
  CHECK_EQ_INT(vexpr_parse("COALESCE(s.b, 'none') || '!'", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "u", "y"), 0);
  CHECK_EQ_INT(vexpr_eval(e, &batch, &out), 0);
  const int32_t *off = out.buffers[1];
  CHECK_EQ_INT(off[2] - off[1], 5); /* "none!" */
  out.release(&out);
  vexpr_free(e);
  /* errors */
  CHECK_EQ_INT(vexpr_parse("t.zz", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "l", "x"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "no column named t.zz") != NULL);
  vexpr_free(e);
  CHECK_EQ_INT(vexpr_parse("s.b.c", &e), 0);
  CHECK_EQ_INT(vexpr_bind(e, &joined, "u", "x"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "not a struct") != NULL);
  vexpr_free(e);
  CHECK_EQ_INT(vexpr_parse("t.", &e), DELTA_EINVAL);
  /* "t.a = 1" splits as an assignment to "t.a" */
  char **n = NULL;
  vexpr **x = NULL;
  int cnt = 0;
  CHECK_EQ_INT(vexpr_parse_set("t.a = 1, b = s.b", &n, &x, &cnt), 0);
  CHECK_EQ_INT(cnt, 2);
  if (cnt == 2) {
    CHECK_STR(n[0], "t.a");
    CHECK_STR(n[1], "b");
  }
  vexpr_set_free(n, x, cnt);
  rows.release(&rows);
  inner.release(&inner);
  joined.release(&joined);
  st.release(&st);
  TEST_MAIN_END();
}
