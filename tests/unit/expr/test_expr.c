/* The filter language: parsing (and printing back), binding, exact
 * evaluation with three-valued logic, and data skipping on statistics;
 * then value expressions inside predicates (a + 1 > 5, lower(s) = 'x',
 * CASE ... END = 3): parsed, evaluated on batches, and never used to skip. */
#include <stdint.h>

#include "arrow/builder.h"
#include "deltac/error.h"
#include "expr/expr.h"
#include "expr/like.h"
#include "expr/skip.h"
#include "test.h"
#include "util/alloc_internal.h"

static char printed[512];

static const char *reprint(const char *text) {
  expr_node *e;
  if (expr_parse(text, &e)) return delta_error_last();
  delta_buf b = DELTA_BUF_INIT;
  expr_to_text(e, &b);
  buf_putc(&b, 0);
  snprintf(printed, sizeof printed, "%s", (const char *)b.data);
  buf_dispose(&b);
  expr_free(e);
  return printed;
}

static void test_parse(void) {
  CHECK_STR(reprint("a = 1"), "(a = 1)");
  CHECK_STR(reprint("a=1 and b<>'x' OR NOT c"), "(((a = 1) AND (b != 'x')) OR (NOT c))");
  CHECK_STR(reprint("a.b.`c d` >= -2.5e3"), "(a.b.`c d` >= -2.5e3)");
  CHECK_STR(reprint("x IN (1, 2, NULL)"), "(x IN (1, 2, NULL))");
  CHECK_STR(reprint("x NOT IN ('a''b')"), "(NOT (x IN ('a''b')))");
  CHECK_STR(reprint("x is not null AND y IS NULL"), "((x IS NOT NULL) AND (y IS NULL))");
  CHECK_STR(reprint("x BETWEEN 1 AND 5"), "((x >= 1) AND (x <= 5))");
  CHECK_STR(reprint("x NOT BETWEEN 1 AND 5"), "(NOT ((x >= 1) AND (x <= 5)))");
  CHECK_STR(reprint("d = DATE '2020-01-02' AND t < TIMESTAMP '2020-01-01 10:00:00'"),
            "((d = DATE '2020-01-02') AND (t < TIMESTAMP '2020-01-01 10:00:00'))");
  CHECK_STR(reprint("b = X'0aFF'"), "(b = X'0aff')");
  CHECK_STR(reprint("date = 1"), "(date = 1)"); /* a column named like a keyword */
  CHECK_STR(reprint("s LIKE 'ab%' AND s NOT LIKE '%z'"), "((s LIKE 'ab%') AND (s NOT LIKE '%z'))");
  CHECK_STR(reprint("a <=> NULL"), "(a <=> NULL)");
  CHECK_STR(reprint("((a = - 1))"), "(a = -1)");
  /* errors name what and where */
  CHECK_STR(reprint("a = "), "filter: expected a value or a column at the end of the expression");
  CHECK_STR(reprint("a = 'x"), "filter: unterminated string at position 5 (''x')");
  CHECK_STR(reprint("a = 1 b"), "filter: unexpected text after the expression at position 7 ('b')");
  CHECK_STR(reprint("a ! 1"), "filter: unexpected character at position 3 ('!')");
  CHECK_STR(reprint(""), "filter: the expression is empty");
  CHECK_STR(reprint("x IN 1"), "filter: expected '(' after IN at position 6 ('1')");
  CHECK_STR(reprint("b = X'abc'"), "filter: a binary literal needs an even number of hex digits at position 6 (''abc'')");
  CHECK_STR(reprint("a = 12abc"), "filter: malformed number at position 5 ('12abc')");
  /* nesting is bounded rather than recursing without limit */
  static char deep[8100];
  for (int i = 0; i < 2000; i++) deep[i] = '(';
  memcpy(deep + 2000, "a", 2);
  expr_node *e;
  CHECK(expr_parse(deep, &e) == DELTA_EINVAL);
  for (int i = 0; i < 2000; i++) memcpy(deep + 4 * i, "NOT ", 4);
  memcpy(deep + 8000, "a", 2);
  CHECK(expr_parse(deep, &e) == DELTA_EINVAL);
  memcpy(deep + 400, "a", 2); /* 100 NOTs are fine */
  CHECK(expr_parse(deep, &e) == 0);
  expr_free(e);
}

static void test_like(void) {
  CHECK(like_match("abc", 3, "a%", 2));
  CHECK(like_match("abc", 3, "%c", 2));
  CHECK(like_match("abc", 3, "a_c", 3));
  CHECK(!like_match("abc", 3, "a_", 2));
  CHECK(like_match("a%c", 3, "a\\%c", 4));
  CHECK(!like_match("abc", 3, "a\\%c", 4));
  CHECK(like_match("h\xc3\xa9llo", 6, "h_llo", 5)); /* _ is one code point */
  CHECK(like_match("", 0, "%", 1));
  CHECK(!like_match("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 31, "%a%a%a%a%a%a%a%a%a%ac", 21));
  char p[16];
  CHECK_EQ_INT(like_prefix("ab\\_c%d", 7, p), 4);
  CHECK(memcmp(p, "ab_c", 4) == 0);
}

/* Batch: id long, name string, flag bool, ts timestamp(ms); 6 rows with nulls. */
static struct ArrowArrayStream make_batch(struct ArrowSchema *schema, struct ArrowArray *batch) {
  const char *names[] = {"id", "name", "flag", "Ts"};
  arrow_builder_type types[] = {AB_INT64, AB_UTF8, AB_BOOL, AB_TIMESTAMP_MS};
  arrow_batch_builder *b;
  arrow_batch_builder_new(&b, 4, names, types);
  const char *nm[] = {"alpha", "beta", NULL, "gamma", "", "delta"};
  for (int i = 0; i < 6; i++) {
    if (i == 3) arrow_builder_null(b, 0);
    else arrow_builder_i64(b, 0, i);
    arrow_builder_str(b, 1, nm[i]);
    if (i == 4) arrow_builder_null(b, 2);
    else arrow_builder_bool(b, 2, i % 2 == 0);
    arrow_builder_i64(b, 3, 1577836800000LL + i * 86400000LL); /* 2020-01-01 + i days */
  }
  struct ArrowArrayStream s;
  arrow_builder_finish(b, &s);
  arrow_batch_builder_free(b);
  s.get_schema(&s, schema);
  s.get_next(&s, batch);
  return s;
}

static int count(const char *text, const struct ArrowSchema *schema, const struct ArrowArray *batch) {
  expr_node *e;
  if (expr_parse(text, &e)) return -100;
  if (expr_bind(e, schema)) {
    expr_free(e);
    return -1;
  }
  uint8_t keep[16];
  int rc = expr_eval_batch(e, batch, keep), n = 0;
  expr_free(e);
  if (rc) return -2;
  for (int64_t i = 0; i < batch->length; i++) n += keep[i];
  return n;
}

static void test_eval(void) {
  struct ArrowSchema schema;
  struct ArrowArray batch;
  struct ArrowArrayStream s = make_batch(&schema, &batch);
  CHECK_EQ_INT(count("id = 2", &schema, &batch), 1);
  CHECK_EQ_INT(count("id > 1", &schema, &batch), 3);      /* 2,4,5; the null row is not kept */
  CHECK_EQ_INT(count("NOT id > 1", &schema, &batch), 2);  /* 0,1; NOT NULL is NULL */
  CHECK_EQ_INT(count("id != 2", &schema, &batch), 4);
  CHECK_EQ_INT(count("2 < id", &schema, &batch), 2);
  CHECK_EQ_INT(count("id IN (1, 5, 9)", &schema, &batch), 2);
  CHECK_EQ_INT(count("id NOT IN (1, NULL)", &schema, &batch), 0); /* SQL: unknown for all others */
  CHECK_EQ_INT(count("id IS NULL", &schema, &batch), 1);
  CHECK_EQ_INT(count("id IS NOT NULL", &schema, &batch), 5);
  CHECK_EQ_INT(count("id <=> NULL", &schema, &batch), 1);
  CHECK_EQ_INT(count("id = NULL", &schema, &batch), 0);
  CHECK_EQ_INT(count("id = '4'", &schema, &batch), 1);    /* '4' read as a number for a number column */
  CHECK_EQ_INT(count("id >= 1.5", &schema, &batch), 3);
  CHECK_EQ_INT(count("id < 1e1", &schema, &batch), 5);
  CHECK_EQ_INT(count("name = 'beta'", &schema, &batch), 1);
  CHECK_EQ_INT(count("name > 'b'", &schema, &batch), 3);  /* beta gamma delta */
  CHECK_EQ_INT(count("name LIKE '%a'", &schema, &batch), 4);
  CHECK_EQ_INT(count("name = ''", &schema, &batch), 1);
  CHECK_EQ_INT(count("flag", &schema, &batch), 2);        /* rows 0, 2 (row 4 null) */
  CHECK_EQ_INT(count("NOT flag", &schema, &batch), 3);
  CHECK_EQ_INT(count("flag OR id = 3", &schema, &batch), 2);
  CHECK_EQ_INT(count("flag = false OR id IS NULL", &schema, &batch), 3);
  CHECK_EQ_INT(count("ts >= '2020-01-03'", &schema, &batch), 4); /* case-insensitive name, text as timestamp */
  CHECK_EQ_INT(count("ts < DATE '2020-01-02'", &schema, &batch), 1);
  CHECK_EQ_INT(count("ts BETWEEN TIMESTAMP '2020-01-02T00:00:00Z' AND '2020-01-03 00:00:00'", &schema, &batch), 2);
  CHECK_EQ_INT(count("id > 0 AND id < 5 AND flag", &schema, &batch), 1);
  CHECK_EQ_INT(count("(id > 0) = true", &schema, &batch), 4);
  CHECK_EQ_INT(count("1 = 1", &schema, &batch), 6);
  CHECK_EQ_INT(count("NULL", &schema, &batch), 0);
  /* binding errors */
  CHECK_EQ_INT(count("nope = 1", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "filter: no column named nope");
  CHECK_EQ_INT(count("name = 1", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "filter: cannot compare name (string) with integer");
  CHECK_EQ_INT(count("id = 'x'", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "filter: 'x' is not a valid integer for column id");
  CHECK_EQ_INT(count("id", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "filter: id is a integer, not a condition");
  CHECK_EQ_INT(count("id.x = 1", &schema, &batch), -1);
  CHECK_EQ_INT(count("ts > DATE '2020-13-01'", &schema, &batch), -1);
  batch.release(&batch);
  schema.release(&schema);
  s.release(&s);
}

/* A stats provider over one column "x" (type fixed by the bound column). */
typedef struct {
  expr_col_stats st;
} fake_stats;

static int provide(void *ctx, const expr_node *col, expr_col_stats *out) {
  (void)col;
  *out = ((fake_stats *)ctx)->st;
  return 0;
}

static int may(const char *text, int64_t lo, int64_t hi, int nulls, int values) {
  const char *names[] = {"x", "s"};
  arrow_builder_type types[] = {AB_INT64, AB_UTF8};
  arrow_batch_builder *b;
  arrow_batch_builder_new(&b, 2, names, types);
  struct ArrowArrayStream s;
  struct ArrowSchema schema;
  arrow_builder_finish(b, &s);
  arrow_batch_builder_free(b);
  s.get_schema(&s, &schema);
  expr_node *e;
  int r = -100;
  if (!expr_parse(text, &e)) {
    if (!expr_bind(e, &schema)) {
      fake_stats f = {EXPR_COL_STATS_UNKNOWN};
      f.st.has_min = f.st.has_max = lo <= hi;
      f.st.min.type = f.st.max.type = VT_INT;
      f.st.min.u.i = lo;
      f.st.max.u.i = hi;
      f.st.has_nulls = nulls;
      f.st.has_values = values;
      r = expr_may_match(e, provide, &f);
    }
    expr_free(e);
  }
  schema.release(&schema);
  s.release(&s);
  return r;
}

static void test_skip(void) {
  CHECK_EQ_INT(may("x = 5", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x = 11", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x = 0", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x < 1", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x <= 1", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x > 10", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x >= 10", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("10 < x", 1, 10, 0, 1), 0); /* literal first */
  CHECK_EQ_INT(may("x != 5", 5, 5, 0, 1), 0);
  CHECK_EQ_INT(may("x != 5", 5, 5, 1, 1), 0);  /* nulls are not != 5 either */
  CHECK_EQ_INT(may("NOT x = 5", 5, 5, 0, 1), 0);
  CHECK_EQ_INT(may("NOT x = 5", 4, 5, 0, 1), 1);
  CHECK_EQ_INT(may("NOT x > 3", 5, 9, 0, 1), 0);
  CHECK_EQ_INT(may("x IN (0, 20)", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x IN (0, 7)", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x NOT IN (5)", 5, 5, 0, 1), 0);
  CHECK_EQ_INT(may("x IS NULL", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x IS NULL", 1, 10, -1, 1), 1);
  CHECK_EQ_INT(may("x IS NOT NULL", 1, 0, 1, 0), 0); /* all null */
  CHECK_EQ_INT(may("x = 1", 1, 0, 1, 0), 0);
  CHECK_EQ_INT(may("x <=> NULL", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x = NULL", 1, 10, 1, 1), 0);
  CHECK_EQ_INT(may("x = 50 AND s = 'a'", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x = 50 OR x = 3", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x = 50 OR x = 60", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("NOT (x = 50 OR x = 60)", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x BETWEEN 11 AND 20", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x NOT BETWEEN 0 AND 20", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x = 5", 1, 0, -1, -1), 1); /* no bounds: anything */
  CHECK_EQ_INT(may("1 = 2", 1, 10, 0, 1), 0);
  CHECK_EQ_INT(may("x + 1", 1, 10, 0, 1), -100);
}

static void test_parse_values(void) {
  CHECK_STR(reprint("a + 1 > 5"), "((a + 1) > 5)");
  CHECK_STR(reprint("a+1*2-3 = b || 'x'"), "(((a + (1 * 2)) - 3) = (b || 'x'))");
  CHECK_STR(reprint("lower(name) = 'x'"), "(lower(name) = 'x')");
  CHECK_STR(reprint("CASE WHEN a IN (1,2) AND b IS NULL THEN 1 ELSE 2 END = 3"),
            "(CASE WHEN ((a IN (1, 2)) AND (b IS NULL)) THEN 1 ELSE 2 END = 3)");
  CHECK_STR(reprint("CASE WHEN a THEN 1 END IS NULL"), "(CASE WHEN a THEN 1 ELSE NULL END IS NULL)");
  CHECK_STR(reprint("coalesce(a, 0) BETWEEN -1 AND a * 2"), "((coalesce(a, 0) >= -1) AND (coalesce(a, 0) <= (a * 2)))");
  CHECK_STR(reprint("CAST(a AS decimal(5, 2)) <> -(b)"), "(CAST(a AS DECIMAL(5,2)) != (-(b)))");
  CHECK_STR(reprint("d + INTERVAL 1 DAY 2 HOURS > d"), "((d + INTERVAL '1' DAY '7200000000' MICROSECOND) > d)");
  CHECK_STR(reprint("`case` = 1 AND case = 2"), "((`case` = 1) AND (`case` = 2))"); /* CASE needs WHEN */
  CHECK_STR(reprint("current_date = 1"), "(`current_date` = 1)"); /* a column in a filter */
  /* errors stay one line and name the place */
  CHECK_STR(reprint("a + > 1"), "filter: expected a value or a column at position 5 ('>')");
  CHECK_STR(reprint("a | b"), "filter: unexpected character at position 3 ('|')");
  CHECK_STR(reprint("nope(a) = 1"), "expression: unknown function nope()");
  CHECK_STR(reprint("CASE WHEN a 1 END = 1"), "filter: CASE WHEN without THEN at position 13 ('1')");
}

/* Value expressions as operands of predicates, evaluated on a batch (id
 * long 0 1 2 NULL 4 5; name alpha beta NULL gamma '' delta; flag T F T F
 * NULL F; ts 2020-01-01 + i days). */
static void test_eval_values(void) {
  struct ArrowSchema schema;
  struct ArrowArray batch;
  struct ArrowArrayStream s = make_batch(&schema, &batch);
  CHECK_EQ_INT(count("id + 1 > 3", &schema, &batch), 2);            /* 5 6; null + 1 is null */
  CHECK_EQ_INT(count("NOT id + 1 > 3", &schema, &batch), 3);        /* 1 2 3: the null row is unknown */
  CHECK_EQ_INT(count("id * 2 = '4'", &schema, &batch), 1);          /* '4' typed by the expression */
  CHECK_EQ_INT(count("id % 2 = 1 OR id IS NULL", &schema, &batch), 3);
  CHECK_EQ_INT(count("id / 2 = 0.5", &schema, &batch), 1);          /* '/' is a double division */
  CHECK_EQ_INT(count("id - 1.5 > 0", &schema, &batch), 3);          /* exact decimal */
  CHECK_EQ_INT(count("lower(name) = 'beta'", &schema, &batch), 1);
  CHECK_EQ_INT(count("upper(name) LIKE 'G%'", &schema, &batch), 1);
  CHECK_EQ_INT(count("length(name) >= 5", &schema, &batch), 3);     /* alpha gamma delta */
  CHECK_EQ_INT(count("name || '!' = 'beta!'", &schema, &batch), 1);
  CHECK_EQ_INT(count("coalesce(id, 0) = 0", &schema, &batch), 2);   /* rows 0 and 3 */
  CHECK_EQ_INT(count("coalesce(name, 'none') IN ('none', 'alpha')", &schema, &batch), 2);
  CHECK_EQ_INT(count("CASE WHEN id IN (1, 2) AND flag IS NOT NULL THEN 'x' ELSE name END = 'x'", &schema, &batch), 2);
  CHECK_EQ_INT(count("CASE WHEN id > 3 THEN 1 WHEN id > 0 THEN 2 END = 2", &schema, &batch), 2);
  CHECK_EQ_INT(count("CASE WHEN id > 3 THEN 1 END IS NULL", &schema, &batch), 4); /* no ELSE: NULL */
  CHECK_EQ_INT(count("CASE WHEN flag THEN true ELSE id > 4 END", &schema, &batch), 3); /* a value as the condition */
  CHECK_EQ_INT(count("coalesce(flag, true)", &schema, &batch), 3);
  CHECK_EQ_INT(count("(id > 1) IS NULL", &schema, &batch), 1);
  CHECK_EQ_INT(count("CAST(id AS STRING) = '4'", &schema, &batch), 1);
  CHECK_EQ_INT(count("-id < -3", &schema, &batch), 2);
  CHECK_EQ_INT(count("to_date(ts) = DATE '2020-01-03'", &schema, &batch), 1);
  CHECK_EQ_INT(count("date_add(to_date(ts), 1) > DATE '2020-01-05'", &schema, &batch), 2);
  CHECK_EQ_INT(count("ts + INTERVAL 1 DAY <= TIMESTAMP '2020-01-03T00:00:00Z'", &schema, &batch), 2);
  CHECK_EQ_INT(count("year(ts) = 2020 AND month(ts) = 1", &schema, &batch), 6);
  CHECK_EQ_INT(count("id + 1 BETWEEN 2 AND 3", &schema, &batch), 2);
  CHECK_EQ_INT(count("NULL + 1 IS NULL", &schema, &batch), 6);
  /* binding errors */
  CHECK_EQ_INT(count("id + 1", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "filter: (id + 1) is a integer, not a condition");
  CHECK_EQ_INT(count("id + name > 1", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "expression: '+' needs numbers, not long and string");
  CHECK_EQ_INT(count("id + 1 = 'x'", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "filter: 'x' is not a valid integer for column (id + 1)");
  CHECK_EQ_INT(count("lower(name) = 1", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "filter: cannot compare lower(name) (string) with integer");
  CHECK_EQ_INT(count("nope + 1 > 0", &schema, &batch), -1);
  CHECK_STR(delta_error_last(), "expression: no column named nope");
  CHECK_EQ_INT(count("ts > INTERVAL 1 DAY", &schema, &batch), -1);
  batch.release(&batch);
  schema.release(&schema);
  s.release(&s);
}

/* Skipping stays conservative on value expressions: a comparison with one
 * may be anything, so only the plain column comparisons beside it skip. */
static void test_skip_values(void) {
  CHECK_EQ_INT(may("x + 1 = 50", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x + 1 > 100", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("NOT (x + 1 = 5)", 5, 5, 0, 1), 1);
  CHECK_EQ_INT(may("x * 2 IN (1, 3)", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x - 0 IS NULL", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("coalesce(x, 0) = 99", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("CASE WHEN x > 5 THEN true ELSE false END", 1, 3, 0, 1), 1);
  CHECK_EQ_INT(may("lower(s) = 'a'", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("x = 50 AND x + 1 > 0", 1, 10, 0, 1), 0); /* the column part still skips */
  CHECK_EQ_INT(may("x = 50 OR x * 2 = 4", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("NOT (x = 50 OR x * 2 = 4)", 1, 10, 0, 1), 1);
  CHECK_EQ_INT(may("1 + 1 = 3", 1, 10, 0, 1), 1);            /* not folded: kept */
}

int main(void) {
  test_parse();
  test_like();
  test_eval();
  test_skip();
  test_parse_values();
  test_eval_values();
  test_skip_values();
  printf("%d passed, %d failed\n", test_checks - test_failures, test_failures);
  return test_failures ? 1 : 0;
}
