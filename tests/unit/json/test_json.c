/* Tests for src/json: the strict reader (RFC 8259 edge cases, limits,
 * truncation, every Delta log file of the shared conformance tables) and
 * the writer (formatting, misuse, round trips through the reader). */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "json/json.h"
#include "json/json_writer.h"
#include "test.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static delta_json_doc *doc;

static int parse(const char *s) { return json_parse(doc, s, strlen(s)); }

/* ------------------------------------------------------------ grammar */

static void test_valid(void) {
  static const char *ok[] = {
      "{}", "[]", "0", "-0", "1e5", "1E+5", "1e-5", "-1.5e-300", "\"x\"", "true", "false", "null",
      " \t\r\n[ 1 , 2 ]\n", "{\"a\":{\"b\":[]}}", "\"\\u00e9\"", "\"\\ud83d\\ude00\"",
      "1e999999999", "[1.0,-0.0,0e0,0E-0]", "123456789012345678901234567890", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
      "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "\"\x7f\"", "[[],[{}],{\"\":\"\"}]", "{\"a\":1,\"a\":2}",
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    int rc = parse(ok[i]);
    if (rc) fprintf(stderr, "rejected %s: %s\n", ok[i], delta_error_last());
    CHECK_EQ_INT(rc, 0);
  }
}

static void test_invalid(void) {
  static const struct {
    const char *text, *msg;
  } bad[] = {
      {"", "invalid JSON at byte 0: empty document"},
      {"  \n", "invalid JSON at byte 3: empty document"},
      {"[1 2]", "invalid JSON at byte 3: expected ',' or ']', found '2'"},
      {"{\"a\" 1}", "invalid JSON at byte 5: expected ':' after key, found '1'"},
      {"{\"a\":1 \"b\":2}", "invalid JSON at byte 7: expected ',' or '}', found '\"'"},
      {"[1,]", "invalid JSON at byte 3: trailing comma in array"},
      {"{\"a\":1,}", "invalid JSON at byte 7: trailing comma in object"},
      {"[,1]", "invalid JSON at byte 1: expected a value, found ','"},
      {"{,}", "invalid JSON at byte 1: expected a string key, found ','"},
      {"{}:}", "invalid JSON at byte 2: unexpected data after the value"},
      {"{} {}", "invalid JSON at byte 3: unexpected data after the value"},
      {"1 2", "invalid JSON at byte 2: unexpected data after the value"},
      {"123abc", "invalid JSON at byte 3: unexpected data after the value"},
      {"[\"x\ty\"]", "invalid JSON at byte 3: control character in string (must be escaped)"},
      {"[\"\x1f\"]", "invalid JSON at byte 2: control character in string (must be escaped)"},
      {"[01]", "invalid JSON at byte 2: leading zero in number"},
      {"-01", "invalid JSON at byte 2: leading zero in number"},
      {"[-]", "invalid JSON at byte 2: expected digit in number"},
      {"-", "invalid JSON at byte 1: unexpected end of input in number"},
      {"[1.]", "invalid JSON at byte 3: expected digit after decimal point"},
      {"[1.e5]", "invalid JSON at byte 3: expected digit after decimal point"},
      {"[1e]", "invalid JSON at byte 3: expected digit in exponent"},
      {"[1e+]", "invalid JSON at byte 4: expected digit in exponent"},
      {"[.5]", "invalid JSON at byte 1: expected a value, found '.'"},
      {"[+1]", "invalid JSON at byte 1: expected a value, found '+'"},
      {"[0x10]", "invalid JSON at byte 2: expected ',' or ']', found 'x'"},
      {"[tru]", "invalid JSON at byte 1: invalid literal"},
      {"[truex]", "invalid JSON at byte 1: invalid literal"},
      {"nul", "invalid JSON at byte 3: unexpected end of input in literal"},
      {"True", "invalid JSON at byte 0: expected a value, found 'T'"},
      {"[NaN]", "invalid JSON at byte 1: expected a value, found 'N'"},
      {"[Infinity]", "invalid JSON at byte 1: expected a value, found 'I'"},
      {"{1:2}", "invalid JSON at byte 1: expected a string key, found '1'"},
      {"{\"a\":}", "invalid JSON at byte 5: expected a value, found '}'"},
      {"{\"a\"}", "invalid JSON at byte 4: expected ':' after key, found '}'"},
      {"['a']", "invalid JSON at byte 1: expected a value, found '''"},
      {"[}", "invalid JSON at byte 1: expected a value, found '}'"},
      {"{]", "invalid JSON at byte 1: expected a string key, found ']'"},
      {"[1}", "invalid JSON at byte 2: expected ',' or ']', found '}'"},
      {"]", "invalid JSON at byte 0: expected a value, found ']'"},
      {"{\"a\":1", "invalid JSON at byte 6: unexpected end of input (expected ',' or '}')"},
      {"[", "invalid JSON at byte 1: unexpected end of input (expected a value)"},
      {"\"abc", "invalid JSON at byte 4: unexpected end of input in string"},
      {"\"\\", "invalid JSON at byte 2: unexpected end of input in string"},
      {"[\"\\x\"]", "invalid JSON at byte 2: invalid escape in string"},
      {"[\"\\U0041\"]", "invalid JSON at byte 2: invalid escape in string"},
      {"[\"\\u12G4\"]", "invalid JSON at byte 6: invalid hex digit in \\u escape"},
      {"\"\\u12", "invalid JSON at byte 5: unexpected end of input in \\u escape"},
      {"[\"\\uD800\"]", "invalid JSON at byte 2: unpaired high surrogate in \\u escape"},
      {"[\"\\uDBFFx\"]", "invalid JSON at byte 2: unpaired high surrogate in \\u escape"},
      {"[\"\\uD800\\u0041\"]", "invalid JSON at byte 2: unpaired high surrogate in \\u escape"},
      {"[\"\\uD800\\uD800\"]", "invalid JSON at byte 2: unpaired high surrogate in \\u escape"},
      {"[\"\\uDC00\"]", "invalid JSON at byte 2: unpaired low surrogate in \\u escape"},
      {"[\"\\uDFFF\\uD800\"]", "invalid JSON at byte 2: unpaired low surrogate in \\u escape"},
      {"[\"\xc3\"]", "invalid JSON at byte 2: invalid UTF-8 in string"},
      {"[\"\xc0\x80\"]", "invalid JSON at byte 2: invalid UTF-8 in string"},          /* overlong NUL */
      {"[\"\xe0\x80\xaf\"]", "invalid JSON at byte 2: invalid UTF-8 in string"},      /* overlong '/' */
      {"[\"\xed\xa0\x80\"]", "invalid JSON at byte 2: invalid UTF-8 in string"},      /* UTF-16 surrogate */
      {"[\"\xf4\x90\x80\x80\"]", "invalid JSON at byte 2: invalid UTF-8 in string"},  /* > U+10FFFF */
      {"[\"\xff\"]", "invalid JSON at byte 2: invalid UTF-8 in string"},
      {"[\"\x80\"]", "invalid JSON at byte 2: invalid UTF-8 in string"},
      {"\"\xe2\x82", "invalid JSON at byte 3: unexpected end of input in string"},
      {"\xef\xbb\xbf{}", "invalid JSON at byte 0: expected a value, found byte 0xef"}, /* BOM */
      {"[\xc3\xa9]", "invalid JSON at byte 1: expected a value, found byte 0xc3"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = parse(bad[i].text);
    CHECK_EQ_INT(rc, DELTA_ECORRUPT);
    CHECK_STR(delta_error_last(), bad[i].msg);
    CHECK_EQ_INT(json_typeof(json_root(doc)), DELTA_JSON_ABSENT);
  }
  /* Bytes after the value, a NUL included, are an error; the length is what
   * counts, not a terminator. */
  CHECK_EQ_INT(json_parse(doc, "[1]\0", 4), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "invalid JSON at byte 3: NUL byte after the value");
  CHECK_EQ_INT(json_parse(doc, "[\"a\0\"]", 6), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "invalid JSON at byte 3: control character in string (must be escaped)");
  CHECK_EQ_INT(json_parse(doc, "[1]xyz", 3), 0);
  CHECK_EQ_INT(json_parse(doc, "12345", 2), 0); /* the text "12" */
  int64_t v = 0;
  CHECK_EQ_INT(json_int64(json_root(doc), &v), 0);
  CHECK_EQ_INT(v, 12);
  CHECK_EQ_INT(json_parse(doc, NULL, 0), DELTA_ECORRUPT);
}

static void test_depth(void) {
  char buf[600];
  for (int depth = 127; depth <= 129; depth++) {
    /* Alternating objects {"k": ...} and arrays [ ... ]. */
    size_t k = 0;
    for (int i = 0; i < depth; i++) {
      if (i % 2) buf[k++] = '[';
      else memcpy(buf + k, "{\"k\":", 5), k += 5;
    }
    buf[k++] = '1';
    for (int i = depth - 1; i >= 0; i--) buf[k++] = i % 2 ? ']' : '}';
    int rc = json_parse(doc, buf, k);
    CHECK_EQ_INT(rc, depth <= DELTA_JSON_MAX_DEPTH ? 0 : DELTA_ECORRUPT);
    if (depth > DELTA_JSON_MAX_DEPTH) CHECK(strstr(delta_error_last(), "nesting deeper than 128 levels"));
  }
  /* Far deeper input fails at the limit, without work beyond it. */
  size_t n = 1 << 20;
  char *deep = mem_malloc(n);
  memset(deep, '[', n);
  CHECK_EQ_INT(json_parse(doc, deep, n), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "invalid JSON at byte 128: nesting deeper than 128 levels");
  /* Long flat input is linear: a million empty objects. */
  size_t m = 0;
  deep[m++] = '[';
  while (m + 4 < n) deep[m++] = '{', deep[m++] = '}', deep[m++] = ',';
  deep[m - 1] = ']';
  CHECK_EQ_INT(json_parse(doc, deep, m), 0);
  CHECK_EQ_INT(json_len(json_root(doc)), (int)((m - 1) / 3));
  mem_free(deep);
}

/* ------------------------------------------------------------ values */

static const char sample_add[] =
    "{\"add\":{\"path\":\"x=1/a%20b.parquet\",\"partitionValues\":{\"x\":\"1\",\"y\":null},"
    "\"size\":123,\"modificationTime\":1600000000000,\"dataChange\":true,"
    "\"stats\":\"{\\\"numRecords\\\":3,\\\"minValues\\\":{\\\"a\\\":1.5},\\\"nullCount\\\":{\\\"a\\\":0}}\","
    "\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\","
    "\"offset\":4,\"sizeInBytes\":40,\"cardinality\":6},\"tags\":{\"INSERTION_TIME\":\"1677811178336000\"}}}";

static void test_delta_action(void) {
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(parse(sample_add), 0);
  delta_json_val root = json_root(doc);
  CHECK_EQ_INT(json_typeof(root), DELTA_JSON_OBJECT);
  CHECK_EQ_INT(json_len(root), 1);
  delta_json_val add = json_get(root, "add");
  CHECK_EQ_INT(json_typeof(add), DELTA_JSON_OBJECT);
  CHECK_EQ_INT(json_len(add), 8);
  CHECK_EQ_INT(json_typeof(json_get(root, "remove")), DELTA_JSON_ABSENT);
  CHECK(json_string_eq(json_get(add, "path"), "x=1/a%20b.parquet"));
  int64_t size = 0, mt = 0;
  CHECK_EQ_INT(json_int64(json_get(add, "size"), &size), 0);
  CHECK_EQ_INT(size, 123);
  CHECK_EQ_INT(json_int64(json_get(add, "modificationTime"), &mt), 0);
  CHECK_EQ_INT(mt, 1600000000000LL);
  bool dc = false;
  CHECK_EQ_INT(json_bool(json_get(add, "dataChange"), &dc), 0);
  CHECK(dc);
  delta_json_val pv = json_get(add, "partitionValues");
  CHECK_EQ_INT(json_len(pv), 2);
  delta_json_val m = json_first(pv);
  CHECK_EQ_INT(json_key(m, &b), 0);
  CHECK_STR((char *)b.data, "x");
  CHECK(json_string_eq(m, "1"));
  m = json_next(m);
  CHECK_EQ_INT(json_key(m, &b), 0);
  CHECK_STR((char *)b.data, "y");
  CHECK_EQ_INT(json_typeof(m), DELTA_JSON_NULL);
  CHECK_EQ_INT(json_typeof(json_next(m)), DELTA_JSON_ABSENT);

  /* stats: JSON inside a JSON string, parsed from the unescaped copy. */
  CHECK_EQ_INT(json_string(json_get(add, "stats"), &b), 0);
  CHECK_STR((char *)b.data, "{\"numRecords\":3,\"minValues\":{\"a\":1.5},\"nullCount\":{\"a\":0}}");
  delta_json_doc *stats = NULL;
  CHECK_EQ_INT(json_doc_new(&stats), 0);
  CHECK_EQ_INT(json_parse(stats, (char *)b.data, b.len), 0);
  int64_t nr = 0;
  CHECK_EQ_INT(json_int64(json_get(json_root(stats), "numRecords"), &nr), 0);
  CHECK_EQ_INT(nr, 3);
  double mn = 0;
  CHECK_EQ_INT(json_double(json_get(json_get(json_root(stats), "minValues"), "a"), &mn), 0);
  CHECK(mn == 1.5);
  json_doc_free(stats);

  /* Nested object kept as text; iteration skips over nested values. */
  const char *p;
  size_t n;
  delta_json_val dv = json_get(add, "deletionVector");
  json_raw(dv, &p, &n);
  CHECK(n > 2 && p[0] == '{' && p[n - 1] == '}');
  CHECK(json_string_eq(json_get(dv, "pathOrInlineDv"), "ab^-aqEH.-t@S}K{vb[*k^"));
  json_raw(json_get(add, "path"), &p, &n);
  CHECK_EQ_INT(n, strlen("\"x=1/a%20b.parquet\""));
  CHECK(memcmp(p, "\"x=1/a%20b.parquet\"", n) == 0);
  json_raw(json_get(add, "nope"), &p, &n);
  CHECK(p == NULL && n == 0);
  int count = 0;
  const char *keys[] = {"path", "partitionValues", "size", "modificationTime", "dataChange", "stats",
                        "deletionVector", "tags"};
  for (delta_json_val v = json_first(add); json_present(v); v = json_next(v)) {
    CHECK_EQ_INT(json_key(v, &b), 0);
    if (count < 8) CHECK_STR((char *)b.data, keys[count]);
    count++;
  }
  CHECK_EQ_INT(count, 8);
  /* The root has no siblings; a top-level value is no member. */
  CHECK_EQ_INT(json_typeof(json_next(root)), DELTA_JSON_ABSENT);
  CHECK_EQ_INT(json_key(root, &b), DELTA_EINVAL);

  /* Wrong types are corrupt data, with a one-line reason. */
  int64_t i64;
  CHECK_EQ_INT(json_int64(json_get(add, "path"), &i64), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "expected number, got string");
  CHECK_EQ_INT(json_string(json_get(add, "nope"), &b), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "expected string, got nothing");
  CHECK_EQ_INT(json_bool(json_get(add, "size"), &dc), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "expected boolean, got number");
  CHECK(!json_string_eq(json_get(add, "size"), "123"));
  CHECK_EQ_INT(json_len(json_get(add, "size")), 0);
  CHECK_EQ_INT(json_typeof(json_first(json_get(add, "size"))), DELTA_JSON_ABSENT);
  CHECK_EQ_INT(json_typeof(json_get(json_get(add, "size"), "x")), DELTA_JSON_ABSENT);

  /* A failed parse empties the document: old values become absent. */
  delta_json_val old = add;
  CHECK_EQ_INT(parse("{"), DELTA_ECORRUPT);
  CHECK_EQ_INT(json_typeof(old), DELTA_JSON_ABSENT);
  buf_dispose(&b);
}

/* Every proper prefix of a Delta action line is invalid (and safe to read:
 * each prefix is its own exact-size allocation for ASan). */
static void test_truncated(void) {
  size_t len = strlen(sample_add);
  int ok = 0;
  for (size_t n = 0; n < len; n++) {
    char *c = mem_malloc(n ? n : 1);
    memcpy(c, sample_add, n);
    int rc = json_parse(doc, c, n);
    if (rc == DELTA_ECORRUPT && strstr(delta_error_last(), "invalid JSON at byte ")) ok++;
    mem_free(c);
  }
  CHECK_EQ_INT(ok, (int)len);
  char *c = mem_malloc(len);
  memcpy(c, sample_add, len);
  CHECK_EQ_INT(json_parse(doc, c, len), 0);
  mem_free(c);
}

static void test_strings(void) {
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(parse("[\"a\\nb\\t\\\"\\\\\\/\\b\\f\\r\", \"\\u00e9\\u20AC\\ud83d\\ude00\", \"\\u0000x\", \"plain\"]"), 0);
  delta_json_val v = json_first(json_root(doc));
  CHECK_EQ_INT(json_string(v, &b), 0);
  CHECK_STR((char *)b.data, "a\nb\t\"\\/\b\f\r");
  CHECK_EQ_INT(b.len, 10);
  CHECK(json_string_eq(v, "a\nb\t\"\\/\b\f\r"));
  CHECK(!json_string_eq(v, "a\nb\t\"\\/\b\f"));
  CHECK(!json_string_eq(v, "a\nb\t\"\\/\b\f\rx"));
  const char *p;
  size_t n;
  bool esc = false;
  CHECK_EQ_INT(json_string_raw(v, &p, &n, &esc), 0);
  CHECK(esc && n == 18);
  v = json_next(v);
  CHECK_EQ_INT(json_string(v, &b), 0);
  CHECK_STR((char *)b.data, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  CHECK(json_string_eq(v, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  v = json_next(v);
  CHECK_EQ_INT(json_string(v, &b), 0);
  CHECK_EQ_INT(b.len, 2); /* U+0000 is kept; the NUL terminator is extra */
  CHECK(b.data[0] == 0 && b.data[1] == 'x' && b.data[2] == 0);
  v = json_next(v);
  CHECK_EQ_INT(json_string_raw(v, &p, &n, &esc), 0);
  CHECK(!esc && n == 5 && memcmp(p, "plain", 5) == 0);
  CHECK_EQ_INT(json_typeof(json_next(v)), DELTA_JSON_ABSENT);

  /* Keys are compared after unescaping, whatever the caller's bytes. */
  CHECK_EQ_INT(parse("{\"a\\u0062\":1,\"a\\\\b\":2,\"k\\\"\":3,\"\":4}"), 0);
  delta_json_val r = json_root(doc);
  int64_t i = 0;
  CHECK_EQ_INT(json_int64(json_get(r, "ab"), &i), 0);
  CHECK_EQ_INT(i, 1);
  CHECK_EQ_INT(json_int64(json_get(r, "a\\b"), &i), 0);
  CHECK_EQ_INT(i, 2);
  CHECK_EQ_INT(json_typeof(json_get(r, "a\\\\b")), DELTA_JSON_ABSENT);
  CHECK_EQ_INT(json_typeof(json_get(r, "a\\u0062")), DELTA_JSON_ABSENT);
  CHECK_EQ_INT(json_int64(json_get(r, "k\""), &i), 0);
  CHECK_EQ_INT(i, 3);
  CHECK_EQ_INT(json_int64(json_get(r, ""), &i), 0);
  CHECK_EQ_INT(i, 4);
  CHECK_EQ_INT(json_key(json_get(r, "ab"), &b), 0);
  CHECK_STR((char *)b.data, "ab");
  CHECK_EQ_INT(json_key_raw(json_get(r, "ab"), &p, &n, &esc), 0);
  CHECK(esc && n == 7 && memcmp(p, "a\\u0062", 7) == 0);

  /* Duplicate keys: all are kept for iteration, get() returns the first. */
  CHECK_EQ_INT(parse("{\"a\":1,\"b\":[1,2,{\"a\":9}],\"a\":2}"), 0);
  r = json_root(doc);
  CHECK_EQ_INT(json_len(r), 3);
  CHECK_EQ_INT(json_int64(json_get(r, "a"), &i), 0);
  CHECK_EQ_INT(i, 1);
  delta_json_val last = json_next(json_next(json_first(r)));
  CHECK_EQ_INT(json_int64(last, &i), 0);
  CHECK_EQ_INT(i, 2);
  buf_dispose(&b);
}

static void test_numbers(void) {
  static const struct {
    const char *text;
    int rc;
    int64_t v;
  } ints[] = {
      {"0", 0, 0},
      {"-0", 0, 0},
      {"9223372036854775807", 0, INT64_MAX},
      {"-9223372036854775808", 0, INT64_MIN},
      {"9223372036854775808", DELTA_ECORRUPT, 0},
      {"-9223372036854775809", DELTA_ECORRUPT, 0},
      {"18446744073709551616", DELTA_ECORRUPT, 0},
      {"99999999999999999999999", DELTA_ECORRUPT, 0},
      {"1.0", DELTA_ECORRUPT, 0},
      {"1e3", DELTA_ECORRUPT, 0},
      {"1600000000000", 0, 1600000000000LL},
  };
  for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) {
    int64_t v = 42;
    CHECK_EQ_INT(parse(ints[k].text), 0);
    int rc = json_int64(json_root(doc), &v);
    CHECK_EQ_INT(rc, ints[k].rc);
    if (!rc) CHECK_EQ_INT(v, ints[k].v);
  }
  CHECK_EQ_INT(parse("1.5"), 0);
  int64_t v;
  CHECK_EQ_INT(json_int64(json_root(doc), &v), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "expected an integer, got: 1.5");
  CHECK_EQ_INT(parse("9223372036854775808"), 0);
  CHECK_EQ_INT(json_int64(json_root(doc), &v), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "integer out of range: 9223372036854775808");

  /* Doubles: correctly rounded, compared with strtod (fast and slow paths). */
  static const char *dbl[] = {
      "0", "-0", "0.1", "1.5", "-2.75e-3", "1e22", "1e23", "123456789012345678901234567890",
      "9007199254740993", "2.2250738585072011e-308", "4.9406564584124654e-324", "1.7976931348623157e308",
      "0.30000000000000004", "1e-400", "123.456e-2", "0.000000000000000000000000000001", "1E+2",
      "3.141592653589793238462643383279502884197169399375105820974944592307816406286",
  };
  for (size_t k = 0; k < sizeof dbl / sizeof *dbl; k++) {
    double d = 42;
    CHECK_EQ_INT(parse(dbl[k]), 0);
    CHECK_EQ_INT(json_double(json_root(doc), &d), 0);
    double want = strtod(dbl[k], NULL);
    CHECK(memcmp(&d, &want, sizeof d) == 0);
    if (memcmp(&d, &want, sizeof d)) fprintf(stderr, "  %s: got %.17g want %.17g\n", dbl[k], d, want);
  }
  double d;
  CHECK_EQ_INT(parse("-0"), 0);
  CHECK_EQ_INT(json_double(json_root(doc), &d), 0);
  CHECK(d == 0 && signbit(d));
  CHECK_EQ_INT(parse("1e400"), 0);
  CHECK_EQ_INT(json_double(json_root(doc), &d), DELTA_ECORRUPT);
  CHECK_STR(delta_error_last(), "number out of range for a double: 1e400");
  CHECK_EQ_INT(parse("-1e99999999999999999999"), 0);
  CHECK_EQ_INT(json_double(json_root(doc), &d), DELTA_ECORRUPT);
  CHECK_EQ_INT(parse("1e-99999999999999999999"), 0);
  CHECK_EQ_INT(json_double(json_root(doc), &d), 0);
  CHECK(d == 0);
  CHECK_EQ_INT(parse("\"1\""), 0);
  CHECK_EQ_INT(json_double(json_root(doc), &d), DELTA_ECORRUPT);
}

/* ------------------------------------------------------------ writer */

static void test_writer(void) {
  delta_buf b = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &b, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "s");
  json_write_string(&w, "q\"b\\n\n\x01\x1f\x7f \xc3\xa9/");
  json_write_key(&w, "i");
  json_write_array_begin(&w);
  json_write_int64(&w, INT64_MIN);
  json_write_int64(&w, INT64_MAX);
  json_write_int64(&w, 0);
  json_write_uint64(&w, UINT64_MAX);
  json_write_array_end(&w);
  json_write_key(&w, "e");
  json_write_object_begin(&w);
  json_write_object_end(&w);
  json_write_key(&w, "a");
  json_write_array_begin(&w);
  json_write_array_end(&w);
  json_write_key(&w, "b");
  json_write_bool(&w, true);
  json_write_key(&w, "c");
  json_write_bool(&w, false);
  json_write_key(&w, "n");
  json_write_null(&w);
  json_write_key(&w, "r");
  json_write_raw(&w, "{\"x\":[1]}", 9);
  json_write_key(&w, "k\n");
  json_write_double(&w, 0.5);
  json_write_object_end(&w);
  CHECK_EQ_INT(json_writer_finish(&w), 0);
  CHECK_EQ_INT(buf_putc(&b, 0), 0);
  CHECK_STR((char *)b.data,
            "{\"s\":\"q\\\"b\\\\n\\n\\u0001\\u001f\x7f \xc3\xa9/\",\"i\":[-9223372036854775808,"
            "9223372036854775807,0,18446744073709551615],\"e\":{},\"a\":[],\"b\":true,\"c\":false,"
            "\"n\":null,\"r\":{\"x\":[1]},\"k\\n\":0.5}");

  /* Round trip through the reader. */
  CHECK_EQ_INT(json_parse(doc, (char *)b.data, b.len - 1), 0);
  delta_buf s = DELTA_BUF_INIT;
  CHECK_EQ_INT(json_string(json_get(json_root(doc), "s"), &s), 0);
  CHECK_STR((char *)s.data, "q\"b\\n\n\x01\x1f\x7f \xc3\xa9/");
  int64_t i;
  CHECK_EQ_INT(json_int64(json_first(json_get(json_root(doc), "i")), &i), 0);
  CHECK(i == INT64_MIN);

  /* Every control character and byte survives a write and read. */
  char all[255];
  for (int c = 1; c < 256; c++) all[c - 1] = (char)c;
  for (int c = 0x80; c < 256; c++) all[c - 1] = 'x'; /* keep it valid UTF-8 */
  buf_reset(&b);
  CHECK_EQ_INT(json_append_string(&b, all, sizeof all), 0);
  CHECK_EQ_INT(json_parse(doc, (char *)b.data, b.len), 0);
  CHECK_EQ_INT(json_string(json_root(doc), &s), 0);
  CHECK(s.len == sizeof all && memcmp(s.data, all, sizeof all) == 0);

  /* Misuse is DELTA_EINVAL and sticky. */
  buf_reset(&b);
  json_writer_init(&w, &b, 0);
  json_write_object_begin(&w);
  CHECK_EQ_INT(json_write_int64(&w, 1), DELTA_EINVAL);
  CHECK_STR(delta_error_last(), "JSON writer: object value without a key");
  CHECK_EQ_INT(json_write_key(&w, "a"), DELTA_EINVAL);
  CHECK_EQ_INT(json_writer_finish(&w), DELTA_EINVAL);
  static const char *why[] = {"key outside an object", "array end without a matching begin",
                              "a second top-level value", "document is incomplete", "key without a value",
                              "two keys in a row"};
  for (int k = 0; k < 6; k++) {
    buf_reset(&b);
    json_writer_init(&w, &b, 0);
    int rc = 0;
    switch (k) {
    case 0: json_write_array_begin(&w); rc = json_write_key(&w, "x"); break;
    case 1: json_write_object_begin(&w); rc = json_write_array_end(&w); break;
    case 2: json_write_null(&w); rc = json_write_null(&w); break;
    case 3: json_write_array_begin(&w); rc = json_writer_finish(&w); break;
    case 4: json_write_object_begin(&w); json_write_key(&w, "x"); rc = json_write_object_end(&w); break;
    case 5: json_write_object_begin(&w); json_write_key(&w, "x"); rc = json_write_key(&w, "y"); break;
    }
    CHECK_EQ_INT(rc, DELTA_EINVAL);
    char msg[80];
    snprintf(msg, sizeof msg, "JSON writer: %s", why[k]);
    CHECK_STR(delta_error_last(), msg);
  }
  json_writer_init(&w, &b, 0);
  int rc = 0;
  for (int k = 0; k <= DELTA_JSON_WRITER_MAX_DEPTH && !rc; k++) rc = json_write_array_begin(&w);
  CHECK_EQ_INT(rc, DELTA_ELIMIT);

  /* Non-finite doubles: an error, or null when asked. */
  buf_reset(&b);
  json_writer_init(&w, &b, 0);
  CHECK_EQ_INT(json_write_double(&w, NAN), DELTA_EINVAL);
  CHECK_STR(delta_error_last(), "JSON writer: NaN is not a JSON number");
  buf_reset(&b);
  json_writer_init(&w, &b, DELTA_JSON_WRITE_NONFINITE_NULL);
  json_write_array_begin(&w);
  json_write_double(&w, INFINITY);
  json_write_double(&w, -INFINITY);
  json_write_double(&w, NAN);
  json_write_array_end(&w);
  CHECK_EQ_INT(json_writer_finish(&w), 0);
  CHECK(b.len == 16 && memcmp(b.data, "[null,null,null]", 16) == 0);
  buf_dispose(&s);
  buf_dispose(&b);
}

static void check_double_text(double v, const char *want) {
  delta_buf b = DELTA_BUF_INIT;
  delta_json_writer w;
  json_writer_init(&w, &b, 0);
  CHECK_EQ_INT(json_write_double(&w, v), 0);
  buf_putc(&b, 0);
  CHECK_STR((char *)b.data, want);
  buf_dispose(&b);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void test_writer_doubles(void) {
  check_double_text(0.0, "0.0");
  check_double_text(-0.0, "-0.0");
  check_double_text(1.0, "1.0");
  check_double_text(100.0, "100.0");
  check_double_text(0.1, "0.1");
  check_double_text(-1.5, "-1.5");
  check_double_text(0.30000000000000004, "0.30000000000000004");
  check_double_text(123456789.125, "123456789.125");
  check_double_text(1e16, "10000000000000000.0");
  check_double_text(1e17, "1e+17");
  check_double_text(1e-5, "0.00001");
  check_double_text(1.5e-7, "1.5e-07");
  check_double_text(5e-324, "5e-324");
  check_double_text(1.7976931348623157e308, "1.7976931348623157e+308");
  check_double_text(9007199254740993.0, "9007199254740992.0");

  /* Random bit patterns: write, read back, same bits. */
  delta_buf b = DELTA_BUF_INIT;
  int same = 0, total = 0;
  for (int k = 0; k < 20000; k++) {
    uint64_t bits = next_rand();
    double v;
    memcpy(&v, &bits, sizeof v);
    if (!isfinite(v)) continue;
    if (k % 4 == 0) v = (double)(int64_t)(bits >> 20) / 1000.0; /* human-looking values */
    buf_reset(&b);
    delta_json_writer w;
    json_writer_init(&w, &b, 0);
    double back = 0;
    total++;
    if (json_write_double(&w, v) == 0 && json_parse(doc, (char *)b.data, b.len) == 0 &&
        json_double(json_root(doc), &back) == 0 && memcmp(&back, &v, sizeof v) == 0)
      same++;
  }
  CHECK_EQ_INT(same, total);
  buf_dispose(&b);
}

/* ------------------------------------------------------------ real Delta logs */

typedef struct {
  int files, lines, bad_files, actions, stats, schemas;
  delta_json_doc *inner;
  delta_buf str;
} log_stats;

/* Files that are not JSON and must fail cleanly:
 *  - AppleDouble resource forks ("._name": macOS metadata copied along with
 *    kernel-rs.cdf-column-mapping-name-mode-3-7 and others), binary;
 *  - kernel-rs.crc-malformed: a version checksum file holding the text
 *    "malformed", there to test readers that fall back from a bad .crc. */
static const char *const known_corrupt[] = {
    "kernel-rs.crc-malformed/_delta_log/00000000000000000000.crc",
};

static bool deliberately_corrupt(const char *path, const char *name) {
  if (strncmp(name, "._", 2) == 0) return true;
  for (size_t k = 0; k < sizeof known_corrupt / sizeof *known_corrupt; k++) {
    size_t pl = strlen(path), kl = strlen(known_corrupt[k]);
    if (pl > kl && path[pl - kl - 1] == '/' && strcmp(path + pl - kl, known_corrupt[k]) == 0) return true;
  }
  return false;
}

/* A JSON string that itself holds JSON (stats, schemaString) must parse. */
static void check_nested(log_stats *st, delta_json_val v, int *counter, const char *path, int line) {
  if (json_typeof(v) != DELTA_JSON_STRING) return;
  CHECK_EQ_INT(json_string(v, &st->str), 0);
  int rc = json_parse(st->inner, (char *)st->str.data, st->str.len);
  if (rc) fprintf(stderr, "%s:%d: nested JSON: %s\n", path, line, delta_error_last());
  CHECK_EQ_INT(rc, 0);
  (*counter)++;
}

static int check_log_file(log_stats *st, const char *path, const char *name) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = mem_malloc((size_t)sz + 1);
  size_t got = fread(data, 1, (size_t)sz, f);
  fclose(f);
  bool corrupt_expected = deliberately_corrupt(path, name);
  int failed = 0;
  size_t pos = 0;
  int line = 0;
  while (pos < got) {
    const char *nl = memchr(data + pos, '\n', got - pos);
    size_t end = nl ? (size_t)(nl - data) : got;
    line++;
    size_t len = end - pos;
    bool blank = true;
    for (size_t k = pos; k < end; k++)
      if (data[k] != ' ' && data[k] != '\r' && data[k] != '\t') blank = false;
    if (!blank) {
      st->lines++;
      if (json_parse(doc, data + pos, len) != 0) {
        failed++;
        if (!corrupt_expected) fprintf(stderr, "%s:%d: %s\n", path, line, delta_error_last());
      } else if (!corrupt_expected) {
        delta_json_val root = json_root(doc);
        CHECK_EQ_INT(json_typeof(root), DELTA_JSON_OBJECT);
        delta_json_val add = json_get(root, "add");
        if (json_present(add)) {
          int64_t size, mt;
          st->actions++;
          CHECK_EQ_INT(json_string(json_get(add, "path"), &st->str), 0);
          CHECK_EQ_INT(json_int64(json_get(add, "size"), &size), 0);
          CHECK_EQ_INT(json_int64(json_get(add, "modificationTime"), &mt), 0);
          check_nested(st, json_get(add, "stats"), &st->stats, path, line);
        }
        delta_json_val md = json_get(root, "metaData");
        if (json_present(md)) check_nested(st, json_get(md, "schemaString"), &st->schemas, path, line);
      }
    }
    pos = end + 1;
  }
  mem_free(data);
  st->files++;
  if (corrupt_expected) {
    CHECK(failed > 0);
    st->bad_files++;
  } else {
    CHECK_EQ_INT(failed, 0);
  }
  return 0;
}

static bool is_log_file(const char *name) {
  size_t n = strlen(name);
  return strcmp(name, "_last_checkpoint") == 0 || (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
         (n > 4 && strcmp(name + n - 4, ".crc") == 0);
}

static void walk(log_stats *st, const char *dir, bool in_log) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(path, &sb) != 0) continue;
    if (S_ISDIR(sb.st_mode)) {
      walk(st, path, in_log || strcmp(e->d_name, "_delta_log") == 0);
    } else if (in_log && is_log_file(e->d_name)) {
      /* Hidden ".name.crc" files are Hadoop's binary checksums of "name",
       * not Delta's JSON version checksums ("<version>.crc"). */
      size_t n = strlen(e->d_name);
      if (e->d_name[0] == '.' && e->d_name[1] != '_' && n > 4 && !strcmp(e->d_name + n - 4, ".crc"))
        continue;
      check_log_file(st, path, e->d_name);
    }
  }
  closedir(d);
}

static void test_conformance_logs(void) {
  const char *shared = getenv("DELTAC_SHARED");
  if (!shared) shared = "../shared";
  char root[4096];
  snprintf(root, sizeof root, "%s/conformance/tables", shared);
  log_stats st = {0};
  st.str = (delta_buf)DELTA_BUF_INIT;
  CHECK_EQ_INT(json_doc_new(&st.inner), 0);
  walk(&st, root, false);
  printf("conformance logs: %d files, %d lines, %d add actions (%d stats), %d schemas, %d known non-JSON files rejected\n",
         st.files, st.lines, st.actions, st.stats, st.schemas, st.bad_files);
  CHECK(st.files > 1000);
  CHECK(st.lines > 5000);
  json_doc_free(st.inner);
  buf_dispose(&st.str);
}

int main(void) {
  if (json_doc_new(&doc) != 0) return 1;
  test_valid();
  test_invalid();
  test_depth();
  test_delta_action();
  test_truncated();
  test_strings();
  test_numbers();
  test_writer();
  test_writer_doubles();
  test_conformance_logs();
  json_doc_free(doc);
  TEST_MAIN_END();
}
