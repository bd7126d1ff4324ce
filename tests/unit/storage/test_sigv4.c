/* SigV4 against AWS's published examples: the S3 "signature calculations for
 * the Authorization header" examples (GET object with a range, PUT object
 * with a '$' in the key, GET ?lifecycle, list objects with a query), the
 * generic test suite's get-vanilla and query-order cases, and the signing-key
 * derivation example of the IAM documentation. */
#include <string.h>

#include "storage/sigv4.h"
#include "test.h"

static const sigv4_key S3_EXAMPLE = {"AKIAIOSFODNN7EXAMPLE",
                                     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1", "s3"};
static const sigv4_key SUITE = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                "us-east-1", "service"};

/* The Authorization value as a C string (static buffer). */
static const char *auth(const sigv4_key *k, const char *method, const char *path, const char *query,
                        const sigv4_header *h, size_t n, const char *date, const char *payload) {
  static char out[512];
  delta_buf b = DELTA_BUF_INIT;
  int rc = sigv4_authorization(&b, k, method, path, query, h, n, date, payload);
  CHECK_EQ_INT(rc, 0);
  snprintf(out, sizeof out, "%.*s", (int)b.len, b.data ? (const char *)b.data : "");
  buf_dispose(&b);
  return out;
}

static void test_s3_get_object(void) {
  sigv4_header h[] = {{"Host", "examplebucket.s3.amazonaws.com"},
                      {"Range", "bytes=0-9"},
                      {"x-amz-content-sha256", SIGV4_EMPTY_SHA256},
                      {"x-amz-date", "20130524T000000Z"}};
  delta_buf c = DELTA_BUF_INIT;
  CHECK_EQ_INT(sigv4_canonical_request(&c, "GET", "/test.txt", "", h, 4, SIGV4_EMPTY_SHA256), 0);
  char hash[65];
  sigv4_sha256_hex(c.data, c.len, hash);
  CHECK_STR(hash, "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  buf_dispose(&c);
  CHECK_STR(auth(&S3_EXAMPLE, "GET", "/test.txt", "", h, 4, "20130524T000000Z", SIGV4_EMPTY_SHA256),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

static void test_s3_put_object(void) {
  const char *body = "Welcome to Amazon S3.";
  char payload[65];
  sigv4_sha256_hex(body, strlen(body), payload);
  CHECK_STR(payload, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  delta_buf path = DELTA_BUF_INIT;
  CHECK_EQ_INT(sigv4_uri_encode(&path, "/test$file.text", 15, true), 0);
  CHECK_EQ_INT(buf_putc(&path, '\0'), 0);
  CHECK_STR((const char *)path.data, "/test%24file.text");
  sigv4_header h[] = {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                      {"Host", "examplebucket.s3.amazonaws.com"},
                      {"x-amz-date", "20130524T000000Z"},
                      {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                      {"x-amz-content-sha256", payload}};
  CHECK_STR(auth(&S3_EXAMPLE, "PUT", (const char *)path.data, "", h, 5, "20130524T000000Z", payload),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
            "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
  buf_dispose(&path);
}

static void test_s3_get_lifecycle(void) {
  const char *names[] = {"lifecycle"}, *values[] = {NULL};
  delta_buf q = DELTA_BUF_INIT;
  CHECK_EQ_INT(sigv4_canonical_query(&q, names, values, 1), 0);
  CHECK_EQ_INT(buf_putc(&q, '\0'), 0);
  CHECK_STR((const char *)q.data, "lifecycle=");
  sigv4_header h[] = {{"Host", "examplebucket.s3.amazonaws.com"},
                      {"x-amz-content-sha256", SIGV4_EMPTY_SHA256},
                      {"x-amz-date", "20130524T000000Z"}};
  CHECK_STR(auth(&S3_EXAMPLE, "GET", "/", (const char *)q.data, h, 3, "20130524T000000Z",
                 SIGV4_EMPTY_SHA256),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
            "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
  buf_dispose(&q);
}

static void test_s3_list_objects(void) {
  /* Given out of order on purpose: the canonical form sorts them. */
  const char *names[] = {"prefix", "max-keys"}, *values[] = {"J", "2"};
  delta_buf q = DELTA_BUF_INIT;
  CHECK_EQ_INT(sigv4_canonical_query(&q, names, values, 2), 0);
  CHECK_EQ_INT(buf_putc(&q, '\0'), 0);
  CHECK_STR((const char *)q.data, "max-keys=2&prefix=J");
  sigv4_header h[] = {{"Host", "examplebucket.s3.amazonaws.com"},
                      {"x-amz-content-sha256", SIGV4_EMPTY_SHA256},
                      {"x-amz-date", "20130524T000000Z"}};
  CHECK_STR(auth(&S3_EXAMPLE, "GET", "/", (const char *)q.data, h, 3, "20130524T000000Z",
                 SIGV4_EMPTY_SHA256),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
            "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  buf_dispose(&q);
}

static void test_suite_get_vanilla(void) {
  sigv4_header h[] = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  CHECK_STR(auth(&SUITE, "GET", "/", "", h, 2, "20150830T123600Z", SIGV4_EMPTY_SHA256),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request,"
            "SignedHeaders=host;x-amz-date,"
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

static void test_suite_query_order(void) {
  const char *names[] = {"Param2", "Param1"}, *values[] = {"value2", "value1"};
  delta_buf q = DELTA_BUF_INIT;
  CHECK_EQ_INT(sigv4_canonical_query(&q, names, values, 2), 0);
  CHECK_EQ_INT(buf_putc(&q, '\0'), 0);
  CHECK_STR((const char *)q.data, "Param1=value1&Param2=value2");
  sigv4_header h[] = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  CHECK_STR(auth(&SUITE, "GET", "/", (const char *)q.data, h, 2, "20150830T123600Z",
                 SIGV4_EMPTY_SHA256),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request,"
            "SignedHeaders=host;x-amz-date,"
            "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  buf_dispose(&q);
}

static void test_signing_key(void) {
  sigv4_key k = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "iam"};
  unsigned char key[32];
  char hex[65];
  sigv4_signing_key(&k, "20120215", key);
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", key[i]);
  CHECK_STR(hex, "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

/* Delta partition directories hold '=', spaces, '%' and '+': all escaped,
 * '/' kept in paths and escaped in query values, non-ASCII bytes as %XX. */
static void test_uri_encode(void) {
  delta_buf b = DELTA_BUF_INIT;
  const char *key = "t/c2=+ %3D%250/part-0.parquet~_\xc3\xa9";
  CHECK_EQ_INT(sigv4_uri_encode(&b, key, strlen(key), true), 0);
  CHECK_EQ_INT(buf_putc(&b, '\0'), 0);
  CHECK_STR((const char *)b.data, "t/c2%3D%2B%20%253D%25250/part-0.parquet~_%C3%A9");
  b.len = 0;
  CHECK_EQ_INT(sigv4_uri_encode(&b, "a/b c", 5, false), 0);
  CHECK_EQ_INT(buf_putc(&b, '\0'), 0);
  CHECK_STR((const char *)b.data, "a%2Fb%20c");
  buf_dispose(&b);
  char d[17];
  sigv4_amz_date((time_t)1369353600, d);
  CHECK_STR(d, "20130524T000000Z");
}

int main(void) {
  test_s3_get_object();
  test_s3_put_object();
  test_s3_get_lifecycle();
  test_s3_list_objects();
  test_suite_get_vanilla();
  test_suite_query_order();
  test_signing_key();
  test_uri_encode();
  TEST_MAIN_END();
}
