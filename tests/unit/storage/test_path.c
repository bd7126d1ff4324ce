/* Delta paths: key validation, percent-decoding/encoding of add.path,
 * resolution into keys or canonical absolute URIs (the canonicalized-paths
 * golden tables rely on file:/x, file:///x and /x being one file), and
 * Hive-style partition escaping. */
#include <string.h>

#include "deltac/error.h"
#include "storage/path.h"
#include "test.h"
#include "util/buf.h"

static char out_text[2048];

/* Resolve `path` against `root`; returns the code, the text in out_text. */
static int resolve(const char *path, const char *root, delta_path_kind *kind) {
  delta_buf b = DELTA_BUF_INIT;
  buf_append(&b, "!", 1); /* results are appended */
  *kind = 0;
  int rc = storage_path_resolve(kind, &b, path, strlen(path), root);
  out_text[0] = '\0';
  if (b.len < 1 || b.data[0] != '!') return -100;
  if (rc && b.len != 1) return -101; /* a failure leaves out as it was */
  memcpy(out_text, b.data + 1, b.len - 1);
  out_text[b.len - 1] = '\0';
  buf_dispose(&b);
  return rc;
}

static void check_key(const char *path, const char *root, const char *want) {
  delta_path_kind k;
  int rc = resolve(path, root, &k);
  CHECK_EQ_INT(rc, 0);
  CHECK_EQ_INT(k, DELTA_PATH_KEY);
  CHECK_STR(out_text, want);
  if (rc || k != DELTA_PATH_KEY || strcmp(out_text, want))
    fprintf(stderr, "  resolving '%s' against '%s'\n", path, root ? root : "(null)");
}

static void check_abs(const char *path, const char *root, const char *want) {
  delta_path_kind k;
  int rc = resolve(path, root, &k);
  CHECK_EQ_INT(rc, 0);
  CHECK_EQ_INT(k, DELTA_PATH_ABSOLUTE);
  CHECK_STR(out_text, want);
  if (rc || k != DELTA_PATH_ABSOLUTE || strcmp(out_text, want))
    fprintf(stderr, "  resolving '%s' against '%s'\n", path, root ? root : "(null)");
}

static void check_corrupt(const char *path, size_t len) {
  delta_buf b = DELTA_BUF_INIT;
  delta_path_kind k = 0;
  CHECK_EQ_INT(storage_path_resolve(&k, &b, path, len, "file:///t"), DELTA_ECORRUPT);
  CHECK_EQ_INT(b.len, 0);
  CHECK_EQ_INT(k, 0);
  buf_dispose(&b);
}

static void test_check_key(void) {
  const char *good[] = {"a", "_delta_log/00000000000000000000.json", "a=1/b%3D/part.parquet",
                        "..a", "a..", ".hidden", "a b/c", "\xc3\xa9"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    CHECK_EQ_INT(storage_path_check_key(good[i], false), 0);
  const char *bad[] = {"", "/a", "a/", "a//b", ".", "..", "a/.", "a/..", "../a", "./a", "a/./b"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_EQ_INT(storage_path_check_key(bad[i], false), DELTA_EINVAL);
  CHECK_EQ_INT(storage_path_check_key("", true), 0);
  CHECK_EQ_INT(storage_path_check_key(NULL, true), DELTA_EINVAL);
  CHECK_EQ_INT(storage_path_check_key("a/../b", true), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "a/../b") != NULL);
}

static void test_decode_encode(void) {
  delta_buf b = DELTA_BUF_INIT;
  const char *in = "c2=+%20%253D%25250/x%2fy%zz%4%";
  CHECK_EQ_INT(storage_path_decode(&b, in, strlen(in)), 0);
  buf_putc(&b, '\0');
  /* '+' stays; %25 is '%'; lower-case hex works; malformed '%' stays. */
  CHECK_STR((const char *)b.data, "c2=+ %3D%250/x/y%zz%4%");
  b.len = 0;
  CHECK_EQ_INT(storage_path_decode(&b, "a%00b", 5), DELTA_ECORRUPT);
  CHECK_EQ_INT(storage_path_decode(&b, "a\0b", 3), DELTA_ECORRUPT);
  CHECK_EQ_INT(b.len, 0);

  const char *raw = "p=a b%25c%3Dd:e/M\xc3\xbcnchen#?[]\t~!$&'()*+,;=@.parquet";
  CHECK_EQ_INT(storage_path_encode(&b, raw, strlen(raw)), 0);
  buf_putc(&b, '\0');
  CHECK_STR((const char *)b.data,
            "p=a%20b%2525c%253Dd%3Ae/M%C3%BCnchen%23%3F%5B%5D%09~!$&'()*+,;=@.parquet");
  delta_buf back = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_path_decode(&back, (const char *)b.data, b.len - 1), 0);
  CHECK(back.len == strlen(raw) && memcmp(back.data, raw, back.len) == 0);
  buf_dispose(&back);

  b.len = 0;
  CHECK_EQ_INT(storage_path_file_uri(&b, "/tmp/my table/%x:y"), 0);
  buf_putc(&b, '\0');
  CHECK_STR((const char *)b.data, "file:///tmp/my%20table/%25x:y");
  CHECK_EQ_INT(storage_path_file_uri(&b, "relative"), DELTA_EINVAL);
  buf_dispose(&b);
}

static void test_resolve_relative(void) {
  const char *root = "file:///tmp/t";
  /* The real shapes from the golden tables. */
  check_key("c2=+%20%253D%25250/part-00000-88ad45a3.c000.snappy.parquet", root,
            "c2=+ %3D%250/part-00000-88ad45a3.c000.snappy.parquet");
  check_key("as_timestamp=2021-09-08%2011%253A11%253A11/as_big_decimal=0/part-0.parquet", root,
            "as_timestamp=2021-09-08 11%3A11%3A11/as_big_decimal=0/part-0.parquet");
  check_key("_2=bar+%252521/part-0.parquet", root, "_2=bar+%2521/part-0.parquet");
  check_key("special%20p@%23h", root, "special p@#h");
  check_key("bar%2Dbar.snappy.parquet", root, "bar-bar.snappy.parquet");
  check_key("city=M%C3%BCnchen/f.parquet", root, "city=M\xc3\xbcnchen/f.parquet");
  check_key("city=M\xc3\xbcnchen/f.parquet", root, "city=M\xc3\xbcnchen/f.parquet");
  check_key("deletion_vector_d2c639aa.bin", NULL, "deletion_vector_d2c639aa.bin");
  /* A colon without "://"-like shape is not a scheme. */
  check_key("part:1.parquet", root, "part:1.parquet");
  check_key("1x:/y", root, "1x:/y"); /* schemes start with a letter */
  /* Normalised like Hadoop's Path. */
  check_key("a//b/./c", root, "a/b/c");
  check_key("a/../b", root, "b");
  check_key("./a/", root, "a");
  /* Climbing out, empty, NULs: corrupt log data. */
  check_corrupt("..//Users/x/foo.snappy.parquet", 30);
  check_corrupt("a/../../b", 9);
  check_corrupt("", 0);
  check_corrupt(".", 1);
  check_corrupt("a/..", 4);
  check_corrupt("a%00b", 5);
  check_corrupt("a\0b", 3);
}

static void test_resolve_absolute(void) {
  const char *root = "file:///tmp/t";
  /* One file, four spellings (golden canonicalized-paths-* tables). */
  const char *same[] = {"/some/unqualified/absolute/path", "file:/some/unqualified/absolute/path",
                        "file:///some/unqualified/absolute/path",
                        "file://localhost/some/unqualified/absolute/path",
                        "FILE:/some/unqualified/absolute/path"};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++)
    check_abs(same[i], root, "file:///some/unqualified/absolute/path");
  const char *special[] = {"/some/unqualified/with%20space/p@%23h",
                           "file:/some/unqualified/with%20space/p@%23h",
                           "file:///some/unqualified/with%20space/p@%23h"};
  for (size_t i = 0; i < sizeof special / sizeof *special; i++)
    check_abs(special[i], root, "file:///some/unqualified/with%20space/p@%23h");
  /* Without a root, absolute stays absolute (a local filesystem assumed). */
  check_abs("/x/y", NULL, "file:///x/y");
  check_abs("/x/y", "", "file:///x/y");
  /* Other stores keep their authority; "/x" takes the root's. */
  check_abs("s3://bucket/k%20x/%7e", root, "s3://bucket/k%20x/~");
  check_abs("S3A://bucket/k", root, "s3a://bucket/k");
  check_abs("/other/x", "s3://bkt/tbl", "s3://bkt/other/x");
  check_abs("abfss://c@acct.dfs.core.windows.net/t/x", "s3://bkt/tbl",
            "abfss://c@acct.dfs.core.windows.net/t/x");
  /* Inside the root: a key again, however it is spelt. */
  check_key("file:/tmp/t/a%20b/c.parquet", root, "a b/c.parquet");
  check_key("file:///tmp/t/x", "file:/tmp/t/", "x");
  check_key("/tmp/t/x", root, "x");
  check_key("/tmp/my%20table/x", "file:///tmp/my%20table", "x");
  check_key("file://localhost/tmp/my%20table/a%2520b", "file:///tmp/my%20table", "a%20b");
  check_key("s3://bkt/tbl/part-0.parquet", "s3://bkt/tbl", "part-0.parquet");
  check_key("/tbl/p=1/f", "s3://bkt/tbl", "p=1/f");
  check_key("/x", "file:///", "x");
  /* Prefixes that are not directory boundaries stay outside. */
  check_abs("/tmp/tt/x", root, "file:///tmp/tt/x");
  check_abs("/tmp/t", root, "file:///tmp/t");
  check_abs("s3://bkt/tbl2/x", "s3://bkt/tbl", "s3://bkt/tbl2/x");
  check_abs("s3://other/tbl/x", "s3://bkt/tbl", "s3://other/tbl/x");
  delta_path_kind k;
  CHECK_EQ_INT(resolve("/x", "not a uri", &k), DELTA_EINVAL);
}

static void test_partition_escaping(void) {
  struct {
    const char *value, *dir;
  } cases[] = {
      {"+ =%0", "+ %3D%250"}, /* the special-chars-in-partition-column table */
      {"2021-09-08 11:11:11", "2021-09-08 11%3A11%3A11"},
      {"bar+%21", "bar+%2521"},
      {"A/A", "A%2FA"},
      {"a\"#%'*/:=?\\{[]^b", "a%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5Eb"},
      {"\x01\x1f\x7f", "%01%1F%7F"},
      {"M\xc3\xbcnchen <>|~", "M\xc3\xbcnchen <>|~"},
      {"", ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    delta_buf b = DELTA_BUF_INIT, u = DELTA_BUF_INIT;
    CHECK_EQ_INT(storage_path_escape_partition(&b, cases[i].value, strlen(cases[i].value)), 0);
    buf_putc(&b, '\0');
    CHECK_STR((const char *)b.data, cases[i].dir);
    CHECK_EQ_INT(storage_path_unescape_partition(&u, cases[i].dir, strlen(cases[i].dir)), 0);
    buf_putc(&u, '\0');
    CHECK_STR((const char *)u.data, cases[i].value);
    buf_dispose(&b);
    buf_dispose(&u);
  }
  delta_buf u = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_path_unescape_partition(&u, "50%%zz%4", 8), 0);
  buf_putc(&u, '\0');
  CHECK_STR((const char *)u.data, "50%%zz%4");
  buf_dispose(&u);
}

/* storage_path_is_plain_key: true only where resolving gives the path back. */
static void test_plain_key(void) {
  static const struct {
    const char *path;
    bool plain;
  } cases[] = {
      {"part-0.parquet", true},
      {"date=2024-01-01/part-00000-1a2b.c000.snappy.parquet", true},
      {"a b/+c/x.parquet", true},
      {"", false},
      {"/abs/x.parquet", false},
      {"file:/tmp/t/x.parquet", false},
      {"part:1.parquet", false},
      {"c=%20/x.parquet", false},
      {"a//b", false},
      {"a/", false},
      {"./a", false},
      {"a/./b", false},
      {"a/../b", false},
      {"..", false},
      {"a/.b/..c/...", true},
  };
  const char *roots[] = {"file:///tmp/t", "s3://bucket/t/", NULL};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *p = cases[i].path;
    bool plain = storage_path_is_plain_key(p, strlen(p));
    CHECK(plain == cases[i].plain);
    if (plain != cases[i].plain) fprintf(stderr, "  plain key '%s'\n", p);
    if (!plain) continue;
    for (size_t r = 0; r < sizeof roots / sizeof *roots; r++) check_key(p, roots[r], p);
  }
  CHECK(!storage_path_is_plain_key(NULL, 0));
  CHECK(!storage_path_is_plain_key("a\0b", 3));
}

int main(void) {
  test_check_key();
  test_decode_encode();
  test_resolve_relative();
  test_resolve_absolute();
  test_partition_escaping();
  test_plain_key();
  TEST_MAIN_END();
}
