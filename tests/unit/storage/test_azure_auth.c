/* The Azure back end, offline: Shared Key strings and signatures, base64,
 * URL encoding, table URIs of every form, Azure storage options and their
 * errors (never showing a value), the token endpoint's JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/error.h"
#include "deltac/storage.h"
#include "storage/azure_auth.h"
#include "storage/azure_config.h"
#include "storage/azure_token.h"
#include "storage/options.h"
#include "test.h"
#include "util/buf.h"

static const char *cstr(delta_buf *b) {
  buf_putc(b, '\0');
  b->len--;
  return (const char *)b->data;
}

/* The canonicalized resources of the "Authorize with Shared Key" page's
 * examples (Blob service, version 2009-09-19 and later). */
static void test_canonical_resource(void) {
  delta_buf b = DELTA_BUF_INIT;
  const char *n1[] = {"restype", "comp"}, *v1[] = {"container", "metadata"};
  CHECK_EQ_INT(azure_canonical_resource(&b, "myaccount", "/mycontainer", n1, v1, 2), 0);
  CHECK_STR(cstr(&b), "/myaccount/mycontainer\ncomp:metadata\nrestype:container");
  b.len = 0;
  const char *n2[] = {"restype", "comp", "include", "include", "include"};
  const char *v2[] = {"container", "list", "snapshots", "metadata", "uncommittedblobs"};
  CHECK_EQ_INT(azure_canonical_resource(&b, "myaccount", "/mycontainer", n2, v2, 5), 0);
  CHECK_STR(cstr(&b), "/myaccount/mycontainer\ncomp:list\ninclude:metadata,snapshots,uncommittedblobs\nrestype:container");
  b.len = 0;
  /* A secondary endpoint still names the account itself. */
  CHECK_EQ_INT(azure_canonical_resource(&b, "myaccount", "/mycontainer/myblob", NULL, NULL, 0), 0);
  CHECK_STR(cstr(&b), "/myaccount/mycontainer/myblob");
  b.len = 0;
  /* Names are lower-cased; values stay raw (not encoded). */
  const char *n3[] = {"COMP", "blockid"}, *v3[] = {"block", "ZGVsdGFj+/=="};
  CHECK_EQ_INT(azure_canonical_resource(&b, "a1", "/c/b", n3, v3, 2), 0);
  CHECK_STR(cstr(&b), "/a1/c/b\nblockid:ZGVsdGFj+/==\ncomp:block");
  buf_dispose(&b);
}

/* The page's string-to-sign example for a path-style request (the account
 * appears twice, as with the emulator); its signature with the emulator's
 * published key was computed independently with Python:
 *   base64.b64encode(hmac.new(base64.b64decode(KEY), sts.encode(),
 *                             hashlib.sha256).digest()) */
static void test_string_to_sign(void) {
  delta_buf sts = DELTA_BUF_INIT, auth = DELTA_BUF_INIT, key = DELTA_BUF_INIT;
  azure_header h[] = {{"x-ms-version", "2009-09-19"}, {"x-ms-date", "Sun, 11 Oct 2009 21:49:13 GMT"}};
  const char *qn[] = {"restype", "comp", "timeout"}, *qv[] = {"container", "metadata", "20"};
  CHECK_EQ_INT(azure_string_to_sign(&sts, "GET", h, 2, "myaccount", "/myaccount/mycontainer", qn, qv, 3), 0);
  const char *want = "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Sun, 11 Oct 2009 21:49:13 GMT\n"
                     "x-ms-version:2009-09-19\n/myaccount/myaccount/mycontainer\ncomp:metadata\n"
                     "restype:container\ntimeout:20";
  CHECK_STR(cstr(&sts), want);
  CHECK_EQ_INT(azure_base64_decode(&key, AZURE_EMULATOR_KEY, strlen(AZURE_EMULATOR_KEY)), 0);
  CHECK_EQ_INT(key.len, 64);
  CHECK_EQ_INT(azure_sharedkey_authorization(&auth, "myaccount", key.data, key.len, (const char *)sts.data, sts.len), 0);
  CHECK_STR(cstr(&auth), "SharedKey myaccount:Su5rvibNeMxB7A4I87rOtEgCDtdICsL8v5H+yJs0W+M=");

  /* A conditional Put Blob of a partition-directory name: the standard
   * slots (Content-Length, If-None-Match), other headers not signed, the
   * encoded path. Expected signature derived as above. */
  sts.len = auth.len = 0;
  delta_buf path = DELTA_BUF_INIT;
  CHECK_EQ_INT(buf_puts(&path, "/devstoreaccount1/deltac/"), 0);
  const char *blob = "t/c2=+ %3D/part-0.parquet";
  CHECK_EQ_INT(azure_uri_encode(&path, blob, strlen(blob), true), 0);
  CHECK_STR(cstr(&path), "/devstoreaccount1/deltac/t/c2%3D%2B%20%253D/part-0.parquet");
  azure_header h2[] = {{"x-ms-date", "Wed, 02 Dec 2026 01:00:00 GMT"},
                       {"x-ms-version", "2021-08-06"},
                       {"Content-Length", "11"},
                       {"x-ms-blob-type", "BlockBlob"},
                       {"If-None-Match", "*"},
                       {"User-Agent", "not signed"}};
  CHECK_EQ_INT(azure_string_to_sign(&sts, "PUT", h2, 6, "devstoreaccount1", cstr(&path), NULL, NULL, 0), 0);
  CHECK_STR(cstr(&sts), "PUT\n\n\n11\n\n\n\n\n\n*\n\n\nx-ms-blob-type:BlockBlob\n"
                        "x-ms-date:Wed, 02 Dec 2026 01:00:00 GMT\nx-ms-version:2021-08-06\n"
                        "/devstoreaccount1/devstoreaccount1/deltac/t/c2%3D%2B%20%253D/part-0.parquet");
  CHECK_EQ_INT(azure_sharedkey_authorization(&auth, "devstoreaccount1", key.data, key.len,
                                             (const char *)sts.data, sts.len), 0);
  CHECK_STR(cstr(&auth), "SharedKey devstoreaccount1:JMsaahcf4KZNquC8rgyxQC/uWRcePXo4z1ykxv7bTyM=");

  /* A zero Content-Length is signed as empty; blanks in values fold. */
  sts.len = 0;
  azure_header h3[] = {{"Content-Length", "0"}, {"x-ms-meta-a", "  x   y  "}};
  CHECK_EQ_INT(azure_string_to_sign(&sts, "DELETE", h3, 2, "a", "/c/b", NULL, NULL, 0), 0);
  CHECK_STR(cstr(&sts), "DELETE\n\n\n\n\n\n\n\n\n\n\n\nx-ms-meta-a:x y\n/a/c/b");
  buf_dispose(&path);
  buf_dispose(&sts);
  buf_dispose(&auth);
  buf_dispose(&key);
}

static void test_base64(void) {
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(azure_base64_encode(&b, "deltac", 6), 0);
  CHECK_STR(cstr(&b), "ZGVsdGFj");
  b.len = 0;
  CHECK_EQ_INT(azure_base64_encode(&b, "ab", 2), 0);
  CHECK_STR(cstr(&b), "YWI=");
  b.len = 0;
  CHECK_EQ_INT(azure_base64_decode(&b, "YWI=", 4), 0);
  CHECK(b.len == 2 && memcmp(b.data, "ab", 2) == 0);
  b.len = 0;
  CHECK_EQ_INT(azure_base64_decode(&b, "YW I", 4), DELTA_EINVAL);
  CHECK_EQ_INT(azure_base64_decode(&b, "YWI", 3), DELTA_EINVAL);
  CHECK_EQ_INT(azure_base64_decode(&b, "Y=WI", 4), DELTA_EINVAL);
  b.len = 0;
  CHECK_EQ_INT(azure_uri_encode(&b, "a/b c~", 6, false), 0);
  CHECK_STR(cstr(&b), "a%2Fb%20c~");
  buf_dispose(&b);
  char d[64];
  azure_http_date(1255297753, d);
  CHECK_STR(d, "Sun, 11 Oct 2009 21:49:13 GMT");
}

static void test_urls(void) {
  azure_url u;
  CHECK_EQ_INT(azure_url_parse(&u, "az://deltac/t/my%20table/"), 0);
  CHECK_STR(u.scheme, "az");
  CHECK_STR(u.container, "deltac");
  CHECK(u.account == NULL);
  CHECK_STR(u.prefix, "t/my table");
  azure_url_dispose(&u);
  CHECK_EQ_INT(azure_url_parse(&u, "AZURE://deltac"), 0);
  CHECK_STR(u.scheme, "azure");
  CHECK_STR(u.prefix, "");
  azure_url_dispose(&u);
  CHECK_EQ_INT(azure_url_parse(&u, "abfss://data@myacct.dfs.core.windows.net/lake/t=1"), 0);
  CHECK_STR(u.scheme, "abfss");
  CHECK_STR(u.container, "data");
  CHECK_STR(u.account, "myacct");
  CHECK_STR(u.host, "myacct.dfs.core.windows.net");
  CHECK_STR(u.prefix, "lake/t=1");
  azure_url_dispose(&u);
  CHECK_EQ_INT(azure_url_parse(&u, "abfs://data@myacct.blob.core.windows.net"), 0);
  CHECK_STR(u.account, "myacct");
  azure_url_dispose(&u);
  const char *bad[] = {"az://", "az://ab/t", "az://Deltac/t", "az://c_1/t", "abfss://myacct.dfs.core.windows.net/t",
                       "az://data@acct/t", "abfss://data@My-Acct.dfs.core.windows.net/t", "az://deltac/a//b",
                       "az://deltac/a/../b", "az://deltac/t?x=1", "az://deltac/%00"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = azure_url_parse(&u, bad[i]);
    CHECK_EQ_INT(rc, DELTA_EINVAL);
    if (rc != DELTA_EINVAL) fprintf(stderr, "  accepted %s\n", bad[i]);
    CHECK(strchr(delta_error_last(), '\n') == NULL);
  }
}

/* Open through the public entry point with options only (no AZURE_*
 * variables may leak in: the test clears them). */
static int open_with(delta_storage **s, const char *loc, const char **k, const char **v, size_t n) {
  *s = NULL;
  return delta_storage_open_options(s, loc, k, v, n);
}

static void test_options(void) {
  static const char *vars[] = {"AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_ACCOUNT_KEY",
                               "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_TOKEN",
                               "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "AZURE_TENANT_ID",
                               "AZURE_STORAGE_USE_EMULATOR", "AZURE_STORAGE_ENDPOINT", "AZURE_ALLOW_HTTP",
                               "AZURE_AUTHORITY_HOST"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
  delta_storage *s = NULL;
  storage_options o;
  const char *k1[] = {"AZURE_STORAGE_ACCOUNT_NAME", "azure_storage_account_key", "Azure_Storage_Use_Emulator"};
  const char *v1[] = {"acct", "c2VjcmV0", "TRUE"};
  CHECK_EQ_INT(storage_options_parse(&o, k1, v1, 3), 0);
  CHECK_STR(o.azure_account, "acct");
  CHECK_STR(o.azure_key, "c2VjcmV0");
  CHECK_EQ_INT(o.azure_use_emulator, 1);
  storage_options_dispose(&o);

  /* A typo names the key, never the value. */
  const char *k2[] = {"azure_storage_acount_key"}, *v2[] = {"SECRETVALUE"};
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", k2, v2, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "azure_storage_acount_key") != NULL);
  CHECK(strstr(delta_error_last(), "SECRETVALUE") == NULL);
  const char *k3[] = {"azure_storage_use_emulator"}, *v3[] = {"perhaps"};
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", k3, v3, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "perhaps") == NULL);

  /* A key that is not base64: named, not shown. */
  const char *k4[] = {"azure_storage_account_name", "azure_storage_account_key"};
  const char *v4[] = {"acct", "NOT*BASE64*SECRET"};
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", k4, v4, 2), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "azure_storage_account_key") != NULL);
  CHECK(strstr(delta_error_last(), "SECRET") == NULL);

  /* No account at all. */
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", NULL, NULL, 0), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "account") != NULL);

  /* Half a set of client credentials names what is missing. */
  const char *k5[] = {"azure_storage_account_name", "azure_client_id", "azure_client_secret"};
  const char *v5[] = {"acct", "id", "TOPSECRET"};
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", k5, v5, 3), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "azure_tenant_id") != NULL);
  CHECK(strstr(delta_error_last(), "TOPSECRET") == NULL);

  /* http:// needs allow_http, unless the emulator is on. */
  const char *k6[] = {"azure_storage_account_name", "azure_storage_endpoint"};
  const char *v6[] = {"acct", "http://127.0.0.1:9/acct"};
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", k6, v6, 2), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "allow_http") != NULL);
  const char *k7[] = {"azure_storage_endpoint", "azure_storage_use_emulator"};
  const char *v7[] = {"http://127.0.0.1:9/devstoreaccount1", "true"};
  CHECK_EQ_INT(open_with(&s, "azure://deltac/my%20t/", k7, v7, 2), 0);
  CHECK_STR(delta_storage_location(s), "azure://deltac/my%20t");
  delta_storage_free(s);
  const char *k8[] = {"azure_storage_endpoint", "azure_storage_account_name"};
  const char *v8[] = {"ftp://x", "acct"};
  CHECK_EQ_INT(open_with(&s, "az://deltac", k8, v8, 2), DELTA_EINVAL);

  /* Every URI form opens (opening sends nothing). */
  const char *k9[] = {"azure_storage_account_name", "azure_storage_sas_token"};
  const char *v9[] = {"acct", "?sv=2021-08-06&sig=SASSECRET"};
  CHECK_EQ_INT(open_with(&s, "abfss://data@acct.dfs.core.windows.net/lake/t", k9, v9, 2), 0);
  CHECK_STR(delta_storage_location(s), "abfss://data@acct.dfs.core.windows.net/lake/t");
  delta_storage_free(s);
  CHECK_EQ_INT(open_with(&s, "az://deltac/x=1", k9, v9, 2), 0);
  CHECK_STR(delta_storage_location(s), "az://deltac/x=1");
  delta_storage_free(s);
  const char *k10[] = {"azure_storage_account_name", "azure_client_id", "azure_client_secret", "azure_tenant_id",
                       "azure_authority_host"};
  const char *v10[] = {"acct", "id", "secret", "tenant", "https://login.example"};
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", k10, v10, 5), 0);
  delta_storage_free(s);
  const char *k11[] = {"azure_storage_account_name", "azure_client_id", "azure_client_secret", "azure_tenant_id"};
  const char *v11[] = {"acct", "id", "secret", "../evil"};
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", k11, v11, 4), DELTA_EINVAL);

  /* Environment fallbacks: the account and key from AZURE_STORAGE_*. */
  setenv("AZURE_STORAGE_ACCOUNT", "envacct", 1);
  setenv("AZURE_STORAGE_KEY", "!!notbase64", 1);
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", NULL, NULL, 0), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "notbase64") == NULL);
  setenv("AZURE_STORAGE_KEY", "c2VjcmV0", 1);
  CHECK_EQ_INT(open_with(&s, "az://deltac/t", NULL, NULL, 0), 0);
  delta_storage_free(s);
  unsetenv("AZURE_STORAGE_ACCOUNT");
  unsetenv("AZURE_STORAGE_KEY");
}

static void test_token_json(void) {
  delta_buf t = DELTA_BUF_INIT;
  long exp = 0;
  const char *j1 = "{\"token_type\":\"Bearer\",\"expires_in\":3599,\"ext_expires_in\":3599,\"access_token\":\"eyJ0\"}";
  CHECK_EQ_INT(azure_token_parse(j1, strlen(j1), &t, &exp), 0);
  CHECK(t.len == 4 && memcmp(t.data, "eyJ0", 4) == 0);
  CHECK_EQ_INT(exp, 3599);
  const char *j2 = "{\"expires_in\":\"3600\",\"access_token\":\"abc\"}";
  CHECK_EQ_INT(azure_token_parse(j2, strlen(j2), &t, &exp), 0);
  CHECK_EQ_INT(exp, 3600);
  const char *bad[] = {"{\"expires_in\":3600}", "{\"access_token\":\"x\"}", "{\"access_token\":\"x\",\"expires_in\":\"soon\"}",
                       "not json", "{\"access_token\":\"\",\"expires_in\":1}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK_EQ_INT(azure_token_parse(bad[i], strlen(bad[i]), &t, &exp), DELTA_ECORRUPT);
  buf_dispose(&t);
}

int main(void) {
  test_canonical_resource();
  test_string_to_sign();
  test_base64();
  test_urls();
  test_options();
  test_token_json();
  TEST_MAIN_END();
}
