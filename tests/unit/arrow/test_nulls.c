/* arrow_array_nulls: n nulls of every type deltac produces, nested ones
 * included — validity all unset, offsets all zero (empty lists, strings),
 * struct children of the same length, list children empty; and refusals. */
#include "arrow/array.h"
#include "arrow/nulls.h"
#include "deltac/error.h"
#include "test.h"

static struct ArrowSchema leaf(const char *fmt, const char *name) {
  struct ArrowSchema s;
  arrow_schema_new(&s, fmt, name, 2, 0);
  return s;
}

static void check_all_null(const struct ArrowArray *a, int64_t n) {
  CHECK_EQ_INT(a->length, n);
  CHECK_EQ_INT(a->null_count, n);
  if (a->n_buffers > 0 && n > 0) {
    const unsigned char *v = a->buffers[0];
    CHECK(v != NULL);
    for (int64_t i = 0; v && i < n; i++) CHECK(!arrow_is_valid(a, i));
  }
}

int main(void) {
  const char *fixed[] = {"c", "C", "s", "S", "i", "I", "l", "L", "f", "g", "e", "b", "tdD", "tdm", "tsu:UTC",
                         "tsu:", "ttu", "tts", "d:10,2", "d:40,3,256", "w:5", "u", "z", "U", "Z", "n"};
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
    struct ArrowSchema s = leaf(fixed[k], "x");
    struct ArrowArray a;
    int rc = arrow_array_nulls(&s, 37, &a);
    CHECK_EQ_INT(rc, 0);
    if (!rc) {
      check_all_null(&a, 37);
      if (fixed[k][0] == 'u' || fixed[k][0] == 'z') {
        const int32_t *off = a.buffers[1];
        for (int i = 0; i <= 37; i++) CHECK_EQ_INT(off[i], 0);
      }
      if (fixed[k][0] == 'U') CHECK_EQ_INT(((const int64_t *)a.buffers[1])[37], 0);
      a.release(&a);
    }
    arrow_schema_release(&s);
  }

  /* struct<a: int, m: map<string, long>, l: list<struct<c: string>>> */
  struct ArrowSchema st;
  arrow_schema_new(&st, "+s", "s", 2, 3);
  arrow_schema_release(st.children[0]);
  *st.children[0] = leaf("i", "a");
  arrow_schema_release(st.children[1]);
  arrow_schema_new(st.children[1], "+m", "m", 2, 1);
  struct ArrowSchema *entries = st.children[1]->children[0];
  arrow_schema_release(entries);
  arrow_schema_new(entries, "+s", "entries", 0, 2);
  arrow_schema_release(entries->children[0]);
  *entries->children[0] = leaf("u", "key");
  arrow_schema_release(entries->children[1]);
  *entries->children[1] = leaf("l", "value");
  arrow_schema_release(st.children[2]);
  arrow_schema_new(st.children[2], "+l", "l", 2, 1);
  struct ArrowSchema *el = st.children[2]->children[0];
  arrow_schema_release(el);
  arrow_schema_new(el, "+s", "element", 2, 1);
  arrow_schema_release(el->children[0]);
  *el->children[0] = leaf("u", "c");

  struct ArrowArray a;
  CHECK_EQ_INT(arrow_array_nulls(&st, 9, &a), 0);
  check_all_null(&a, 9);
  CHECK_EQ_INT(a.n_children, 3);
  check_all_null(a.children[0], 9);
  check_all_null(a.children[1], 9);
  check_all_null(a.children[2], 9);
  for (int i = 0; i <= 9; i++) CHECK_EQ_INT(((const int32_t *)a.children[1]->buffers[1])[i], 0);
  CHECK_EQ_INT(a.children[1]->children[0]->length, 0);           /* no map entries */
  CHECK_EQ_INT(a.children[1]->children[0]->n_children, 2);
  CHECK_EQ_INT(a.children[2]->children[0]->length, 0);           /* no list elements */
  CHECK_EQ_INT(a.children[2]->children[0]->children[0]->length, 0);
  a.release(&a);

  /* zero rows */
  CHECK_EQ_INT(arrow_array_nulls(&st, 0, &a), 0);
  CHECK_EQ_INT(a.length, 0);
  a.release(&a);
  arrow_schema_release(&st);

  /* fixed-size list: the child holds n * size nulls */
  struct ArrowSchema fl;
  arrow_schema_new(&fl, "+w:3", "f", 2, 1);
  arrow_schema_release(fl.children[0]);
  *fl.children[0] = leaf("i", "item");
  CHECK_EQ_INT(arrow_array_nulls(&fl, 4, &a), 0);
  check_all_null(&a, 4);
  check_all_null(a.children[0], 12);
  a.release(&a);
  arrow_schema_release(&fl);

  /* types deltac never builds */
  const char *refused[] = {"+ud:0,1", "vu", "+r", "+vl"};
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
    struct ArrowSchema s = leaf(refused[k], "x");
    CHECK_EQ_INT(arrow_array_nulls(&s, 3, &a), DELTA_EUNSUPPORTED);
    CHECK(a.release == NULL);
    arrow_schema_release(&s);
  }
  TEST_MAIN_END();
}
