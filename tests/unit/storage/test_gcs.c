/* The GCS back end. Offline (always): gs:// URIs, the google_* storage
 * options, endpoint rules, service-account key files (no key text in any
 * message), the RS256 JWT for a fixed key and time against a value computed
 * independently with openssl, the JSON reader on hostile input, a refused
 * connection. Live (when DELTAC_GCS_TEST_URI names a writable location, e.g.
 * gs://deltac/unit, with the variables printed by tests/servers/gcs.sh):
 * the storage contract against tests/servers/gcs_server.py — list order,
 * start_after, pagination, ranged reads, head, put-if-absent races,
 * streaming uploads (one piece, many chunks, a chunk the server keeps only
 * part of, abort), retries on injected 503/429/dropped connections, a
 * truncated body as an error, bearer-token and service-account flows and
 * wrong credentials (one line, status, no secret).
 * `test_gcs race URI KEY` makes one put-if-absent and exits 0 (won), 3
 * (DELTA_EEXISTS) or 1: tests/storage/gcs_server.sh races processes with it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "deltac/error.h"
#include "deltac/storage.h"
#include "storage/gcs.h"
#include "storage/gcs_auth.h"
#include "storage/gcs_json.h"
#include "storage/http.h"
#include "storage/options.h"
#include "storage/storage_internal.h"
#include "test.h"
#include "util/buf.h"

/* A throwaway 1024-bit RSA key made for this test only (openssl genpkey);
 * it protects nothing. */
static const char TEST_KEY_PEM[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAJtjmfsjkP3HCHlw\n"
    "GGBu7TpiG1xP7kqdPd/MGBKEf/RaEe2jvcAr8x4Jed2PfHOk6Od5+tBEn14hhLoc\n"
    "nXM/+VVCvIyE1ZIRAkDoBACNlK16s6GwmJPvcRbAgzyHe7loiDwrRnvJiZgIOt6u\n"
    "lKjvHTBdHfPW6EcFwVHLULbLSxpJAgMBAAECgYBv5mMt2qgASUOOCC5Vy6wknh/r\n"
    "81e7/c5gCt7O/wISGobMplzwNfYnDFXpOvo5YWmjwFDhiHln1SV6zT6Jj2liYJNC\n"
    "0FKJhnHzGHjAtR8tB+H5GsNV0fAt7jEUlHRkRrzYfR9zb5PRrpWDgxgAR62ArJ5k\n"
    "V/gZyyMr4mgwA66S8QJBAMtbkHnBY8JPD58gkLb8wNLYhU1pdKo6ozOzKvwjsEII\n"
    "HTtQzTtPT78xYk2k8B49aZ7L2tM58joS927ZlmB1Z6UCQQDDnS0JsDTVPIRE05He\n"
    "+uU8I9s131rHZsLMD2HaiJAiK9TUp3GwduiMsX4GO93EnGeSyO2aCk6YJ+JmSzWN\n"
    "FgbVAkBoJbDManrI3OzHNkpnLPMkCLfceZHCTN2gcLYnA7AVYUp3Ql6ZbXkOFiCe\n"
    "W0aOdi1NomGjpB2mGGiYYN9e70HxAkBkZXMMGefD2X95Y6zmaJbmuvBzQeNxnAg2\n"
    "e16ZrqVrJFvjmNz82MqaCy7HPEqh8jQmXgG0ob2c0jucjNU7SCbRAkEAoG5OCaU1\n"
    "AdxbBDxnHNNTshKc+DX9HQkjM6Ul7sesBlag1/SHIF9IuBJDz0l/m49GXLQtuo0s\n"
    "8IhcfAGXoU+yyw==\n"
    "-----END PRIVATE KEY-----\n";

/* The key as a service-account key file would hold it (JSON-escaped). */
static void key_json(delta_buf *out, const char *email, const char *token_uri) {
  buf_printf(out, "{\"type\": \"service_account\", \"client_email\": \"%s\", \"token_uri\": \"%s\", "
                  "\"private_key\": \"", email, token_uri);
  for (const char *p = TEST_KEY_PEM; *p; p++) {
    if (*p == '\n') buf_puts(out, "\\n");
    else buf_putc(out, *p);
  }
  buf_puts(out, "\", \"private_key_id\": \"x\"}");
  buf_putc(out, '\0');
  out->len--;
}

/* Computed independently of this code, with the key above in k.pem:
 *   h = base64url('{"alg":"RS256","typ":"JWT"}')
 *   c = base64url('{"iss":"unit@deltac-test.iam.gserviceaccount.com","scope":
 *       "https://www.googleapis.com/auth/devstorage.read_write","aud":
 *       "https://oauth2.googleapis.com/token","iat":1700000000,"exp":1700003600}')
 *   sig = openssl dgst -sha256 -sign k.pem  over  h + "." + c
 *   JWT = h "." c "." base64url(sig)      (python3 base64.urlsafe_b64encode, '=' stripped) */
static const char EXPECTED_JWT[] =
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJpc3MiOiJ1bml0QGRlbHRhYy10ZXN0LmlhbS5nc2VydmljZWFjY291bnQuY29tIiwic2NvcGUiOiJodHRwczovL3d3"
    "dy5nb29nbGVhcGlzLmNvbS9hdXRoL2RldnN0b3JhZ2UucmVhZF93cml0ZSIsImF1ZCI6Imh0dHBzOi8vb2F1dGgyLmdv"
    "b2dsZWFwaXMuY29tL3Rva2VuIiwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDM2MDB9."
    "ZQ08JyNsazq78pCWZGbmOneSjKaBPL6M41BbS-YyxnFLQdkq4L7ev3kyCzyQhGMJZGe-QpkyvwI5PtFJhVZPKDcgdLJx"
    "o43NG3ltnXSOKy5-c_AHMJY8l_d8M-FBrWED87S86CSdr4soizPIQjoRJsmqOcPL_Tbla9hjpHIWq_o";

static void test_jwt(void) {
  delta_buf j = DELTA_BUF_INIT, out = DELTA_BUF_INIT;
  gcs_sa sa;
  key_json(&j, "unit@deltac-test.iam.gserviceaccount.com", "https://oauth2.googleapis.com/token");
  CHECK_EQ_INT(gcs_sa_parse(&sa, (const char *)j.data, j.len, "test key"), 0);
  CHECK_STR(sa.client_email, "unit@deltac-test.iam.gserviceaccount.com");
  CHECK_EQ_INT(gcs_jwt_build(&out, &sa, 1700000000), 0);
  CHECK_STR((const char *)out.data, EXPECTED_JWT);
  gcs_sa_dispose(&sa);
  buf_dispose(&j);
  buf_dispose(&out);

  /* No token_uri: Google's. */
  const char *no_uri = "{\"client_email\":\"a@b\",\"private_key\":\"-----BEGIN PRIVATE KEY-----\\n"
                       "MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAJtjmfsjkP3HCHlw\\n"
                       "-----END PRIVATE KEY-----\\n\"}";
  /* A cut-off key: refused, and the message quotes none of it. */
  CHECK_EQ_INT(gcs_sa_parse(&sa, no_uri, strlen(no_uri), "k.json"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "k.json") != NULL);
  CHECK(strstr(delta_error_last(), "MIIC") == NULL);
  const char *bad[] = {"", "[]", "{\"client_email\":\"a@b\"}", "{\"type\":\"authorized_user\",\"client_secret\":\"s3cr3t\"}",
                       "{\"client_email\":\"a@b\",\"private_key\":\"s3cr3t\"}", "{\"client_email\":1,",
                       "{\"client_email\":\"a@b\",\"private_key\":\"-----BEGIN PRIVATE KEY-----\\n!!s3cr3t\\n-----END PRIVATE KEY-----\"}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(gcs_sa_parse(&sa, bad[i], strlen(bad[i]), "k.json"), DELTA_EINVAL);
    CHECK(strstr(delta_error_last(), "s3cr3t") == NULL);
    CHECK(strchr(delta_error_last(), '\n') == NULL);
  }
  /* A plain-http token endpoint is only accepted on the loopback. */
  key_json(&j, "a@b", "http://evil.example/token");
  CHECK_EQ_INT(gcs_sa_parse(&sa, (const char *)j.data, j.len, "k.json"), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "token_uri") != NULL);
  buf_dispose(&j);
}

static void test_uris(void) {
  char *b = NULL, *p = NULL;
  CHECK_EQ_INT(gcs_parse_uri("gs://my-bucket/a%20b/t=1/", &b, &p), 0);
  CHECK_STR(b, "my-bucket");
  CHECK_STR(p, "a b/t=1");
  free(b), free(p);
  CHECK_EQ_INT(gcs_parse_uri("GS://bkt", &b, &p), 0);
  CHECK_STR(b, "bkt");
  CHECK_STR(p, "");
  free(b), free(p);
  const char *bad[] = {"gs://", "gs:///t", "gs://Bucket/t", "gs://b/t?x=1", "gs://b/a//t", "gs://b/a/../t",
                       "gs://b/%00", "gs://b/t#f", "s3://b/t"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(gcs_parse_uri(bad[i], &b, &p), DELTA_EINVAL);
    CHECK(b == NULL && p == NULL);
  }

  delta_storage *s = NULL;
  const char *k[] = {"google_endpoint_url", "google_bearer_token"};
  const char *v[] = {"http://127.0.0.1:9", "SECRETTOKEN"};
  /* http:// needs allow_http, except through STORAGE_EMULATOR_HOST. */
  CHECK_EQ_INT(delta_storage_open_options(&s, "gs://b/t", k, v, 2), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "allow_http") != NULL);
  const char *k2[] = {"google_endpoint_url", "Google_Bearer_Token", "allow_http", "max_retries", "connect_timeout"};
  const char *v2[] = {"http://127.0.0.1:9/", "SECRETTOKEN", "true", "0", "2s"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "gs://b/my%20tables/t=1/", k2, v2, 5), 0);
  CHECK_STR(delta_storage_location(s), "gs://b/my%20tables/t=1");
  /* Nothing listens on port 9: one line naming the object, no token. */
  delta_file_info fi;
  CHECK_EQ_INT(delta_storage_head(s, "_delta_log/x.json", &fi), DELTA_EIO);
  CHECK(strstr(delta_error_last(), "gs://b/my tables/t=1/_delta_log/x.json") != NULL);
  CHECK(strstr(delta_error_last(), "SECRETTOKEN") == NULL);
  CHECK(strchr(delta_error_last(), '\n') == NULL);
  delta_storage_free(s);
  s = NULL;
  const char *k3[] = {"google_endpoint_url"}, *v3[] = {"ftp://x"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "gs://b/t", k3, v3, 1), DELTA_EINVAL);
  const char *k4[] = {"google_service_account"}, *v4[] = {"/nonexistent/key.json"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "gs://b/t", k4, v4, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "/nonexistent/key.json") != NULL);
  const char *k5[] = {"google_service_account_key"}, *v5[] = {"{\"private_key\":\"TOPSECRET\"}"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "gs://b/t", k5, v5, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "TOPSECRET") == NULL);
  CHECK(s == NULL);
}

static void test_options(void) {
  storage_options o;
  const char *k[] = {"GOOGLE_APPLICATION_CREDENTIALS", "google_service_account_key", "google_bearer_token",
                     "google_endpoint_url"};
  const char *v[] = {"/k.json", "{}", "tok", "https://gcs.example"};
  CHECK_EQ_INT(storage_options_parse(&o, k, v, 4), 0);
  CHECK_STR(o.google_sa_path, "/k.json");
  CHECK_STR(o.google_sa_key, "{}");
  CHECK_STR(o.google_bearer_token, "tok");
  CHECK_STR(o.google_endpoint, "https://gcs.example");
  storage_options_dispose(&o);
  const char *k2[] = {"google_service_account"}, *v2[] = {"/a.json"};
  CHECK_EQ_INT(storage_options_parse(&o, k2, v2, 1), 0);
  CHECK_STR(o.google_sa_path, "/a.json");
  storage_options_dispose(&o);
  const char *k3[] = {"google_bearer_tokn"}, *v3[] = {"SECRET"};
  CHECK_EQ_INT(storage_options_parse(&o, k3, v3, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "google_bearer_tokn") != NULL);
  CHECK(strstr(delta_error_last(), "SECRET") == NULL);
  storage_options_dispose(&o);
}

static int json_walk(const char *doc) {
  gcs_json j = GCS_JSON_INIT(doc, strlen(doc));
  int rc = gcs_json_skip(&j);
  if (!rc && gcs_json_peek(&j) != 0) rc = DELTA_ECORRUPT;
  return rc;
}

static void test_json(void) {
  const char *doc = "{\"items\": [{\"name\": \"a\\u00e9\\ud83d\\ude00\\n\", \"size\": \"42\"}, {}], \"n\": -7, "
                    "\"t\": true, \"z\": null, \"f\": 1.5e3}";
  gcs_json j = GCS_JSON_INIT(doc, strlen(doc));
  delta_buf key = DELTA_BUF_INIT, s = DELTA_BUF_INIT;
  int64_t size = 0, n = 0;
  int items = 0;
  CHECK_EQ_INT(gcs_json_object(&j), 0);
  while (gcs_json_member(&j, &key) == 1) {
    if (strcmp((char *)key.data, "items") == 0) {
      CHECK_EQ_INT(gcs_json_array(&j), 0);
      while (gcs_json_element(&j) == 1) {
        items++;
        CHECK_EQ_INT(gcs_json_object(&j), 0);
        while (gcs_json_member(&j, &key) == 1) {
          if (strcmp((char *)key.data, "name") == 0) CHECK_EQ_INT(gcs_json_string(&j, &s), 0);
          else if (strcmp((char *)key.data, "size") == 0) CHECK_EQ_INT(gcs_json_int(&j, &size), 0);
          else CHECK_EQ_INT(gcs_json_skip(&j), 0);
        }
      }
    } else if (strcmp((char *)key.data, "n") == 0) {
      CHECK_EQ_INT(gcs_json_int(&j, &n), 0);
    } else {
      CHECK_EQ_INT(gcs_json_skip(&j), 0);
    }
  }
  CHECK_EQ_INT(items, 2);
  CHECK_EQ_INT(size, 42);
  CHECK_EQ_INT(n, -7);
  CHECK_STR((char *)s.data, "a\xc3\xa9\xf0\x9f\x98\x80\n");
  buf_dispose(&key);
  buf_dispose(&s);
  CHECK_EQ_INT(json_walk(doc), 0);
  const char *bad[] = {"{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "\"\\ud800\"", "\"\\u0000\"", "\"abc", "[1 2]",
                       "tru", "{\"a\":nul}", "\"\\q\"", "\"a\x01\"", "{1:2}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK_EQ_INT(json_walk(bad[i]), DELTA_ECORRUPT);
  char deep[400];
  memset(deep, '[', sizeof deep - 1);
  deep[sizeof deep - 1] = '\0';
  CHECK_EQ_INT(json_walk(deep), DELTA_ECORRUPT);
}

/* ---- live ---- */

static char run_prefix[512];
static const char *control;

/* Tell the test server to inject a fault. */
static void fault(const char *query) {
  http_client *c = NULL;
  http_config cfg = HTTP_CONFIG_DEFAULT;
  http_response r = {0};
  char url[512];
  cfg.max_retries = 0;
  snprintf(url, sizeof url, "%s/_faults?%s", control, query);
  http_request req = {"POST", url, NULL, NULL, 0, NULL, "control"};
  CHECK_EQ_INT(http_client_new(&c, &cfg), 0);
  CHECK_EQ_INT(http_send(c, &req, &r), 0);
  CHECK_EQ_INT(r.status, 200);
  buf_dispose(&r.body);
  http_client_free(c);
}

static long faults_fired(void) {
  http_client *c = NULL;
  http_config cfg = HTTP_CONFIG_DEFAULT;
  http_response r = {0};
  char url[512];
  snprintf(url, sizeof url, "%s/_stats", control);
  http_request req = {"GET", url, NULL, NULL, 0, NULL, "control"};
  long n = -1;
  if (http_client_new(&c, &cfg) == 0 && http_send(c, &req, &r) == 0 && r.status == 200) {
    buf_putc(&r.body, '\0');
    const char *p = strstr((char *)r.body.data, "\"faults\":");
    if (p) n = strtol(p + 9, NULL, 10);
  }
  buf_dispose(&r.body);
  http_client_free(c);
  return n;
}

typedef struct {
  char *names[64];
  int dirs[64];
  size_t n;
} collected;

static int collect(const delta_storage_entry *e, void *p) {
  collected *c = p;
  if (c->n < 64) {
    c->names[c->n] = strdup(e->name);
    c->dirs[c->n] = e->is_dir;
    c->n++;
  }
  return 0;
}

static void collected_free(collected *c) {
  for (size_t i = 0; i < c->n; i++) free(c->names[i]);
  c->n = 0;
}

typedef struct {
  delta_storage *s;
  int id, rc;
} racer;

static pthread_barrier_t barrier;

static void *race(void *p) {
  racer *r = p;
  char body[64];
  snprintf(body, sizeof body, "writer %d", r->id);
  pthread_barrier_wait(&barrier);
  r->rc = delta_storage_put(r->s, "_delta_log/00000000000000000000.json", body, strlen(body), false);
  return NULL;
}

static void test_live_contract(delta_storage *s) {
  collected c = {{0}, {0}, 0};
  delta_file_info fi;
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(delta_storage_list(s, "", NULL, collect, &c), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_head(s, "x", &fi), DELTA_ENOTFOUND);
  CHECK_EQ_INT(storage_read_all(s, "x", &b), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "404") != NULL);

  /* Names whose object-name order differs from name order ("a b" < "a/"),
   * more of them than a listing page holds (the server pages by 5). */
  const char *keys[] = {"a/f", "a b", "a=1/f", "a-c", "c2=+ %3D%250/part-0.parquet", "z", "d1", "d2", "d3",
                        "e/1", "e/2", "f\xc3\xa9"};
  for (size_t i = 0; i < 12; i++) CHECK_EQ_INT(delta_storage_put(s, keys[i], "0123456789", 10, false), 0);
  CHECK_EQ_INT(delta_storage_list(s, "", NULL, collect, &c), 0);
  const char *want[] = {"a", "a b", "a-c", "a=1", "c2=+ %3D%250", "d1", "d2", "d3", "e", "f\xc3\xa9", "z"};
  const int want_dir[] = {1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0};
  CHECK_EQ_INT(c.n, 11);
  for (size_t i = 0; i < c.n && i < 11; i++) {
    CHECK_STR(c.names[i], want[i]);
    CHECK_EQ_INT(c.dirs[i], want_dir[i]);
  }
  collected_free(&c);
  /* start_after is exclusive, for a directory name too. */
  CHECK_EQ_INT(delta_storage_list(s, "", "a", collect, &c), 0);
  CHECK_EQ_INT(c.n, 10);
  if (c.n) CHECK_STR(c.names[0], "a b");
  collected_free(&c);
  CHECK_EQ_INT(delta_storage_list(s, "", "d1", collect, &c), 0);
  CHECK_EQ_INT(c.n, 5);
  if (c.n) CHECK_STR(c.names[0], "d2");
  collected_free(&c);
  CHECK_EQ_INT(delta_storage_list(s, "", "z", collect, &c), 0);
  CHECK_EQ_INT(c.n, 0);
  CHECK_EQ_INT(delta_storage_list(s, "c2=+ %3D%250", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, 1);
  if (c.n) CHECK_STR(c.names[0], "part-0.parquet");
  collected_free(&c);
  CHECK_EQ_INT(delta_storage_list(s, "nothing", NULL, collect, &c), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_list(s, "nothing", "x", collect, &c), DELTA_ENOTFOUND);

  CHECK_EQ_INT(storage_read_all(s, "c2=+ %3D%250/part-0.parquet", &b), 0);
  CHECK(b.len == 10 && memcmp(b.data, "0123456789", 10) == 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_range(s, "z", 3, 4, &b), 0);
  CHECK(b.len == 4 && memcmp(b.data, "3456", 4) == 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_range(s, "z", 8, 100, &b), 0);
  CHECK(b.len == 2 && memcmp(b.data, "89", 2) == 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_range(s, "z", 10, DELTA_STORAGE_TO_END, &b), 0);
  CHECK_EQ_INT(b.len, 0);
  CHECK_EQ_INT(storage_read_range(s, "z", 11, 1, &b), DELTA_EINVAL);
  delta_buf small = DELTA_BUF_INIT;
  small.limit = 5;
  CHECK_EQ_INT(storage_read_all(s, "z", &small), DELTA_ELIMIT);
  CHECK_EQ_INT(small.len, 0);
  buf_dispose(&small);
  CHECK_EQ_INT(delta_storage_head(s, "z", &fi), 0);
  CHECK_EQ_INT(fi.size, 10);
  CHECK(fi.mtime_ms > 1600000000000LL);

  CHECK_EQ_INT(delta_storage_put(s, "z", "new", 3, false), DELTA_EEXISTS);
  CHECK(strstr(delta_error_last(), "412") != NULL);
  CHECK_EQ_INT(delta_storage_put(s, "z", "new", 3, true), 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_all(s, "z", &b), 0);
  CHECK(b.len == 3 && memcmp(b.data, "new", 3) == 0);
  CHECK_EQ_INT(delta_storage_put(s, "empty", "", 0, false), 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_all(s, "empty", &b), 0);
  CHECK_EQ_INT(b.len, 0);
  CHECK_EQ_INT(storage_read_range(s, "empty", 0, 10, &b), 0);
  CHECK_EQ_INT(b.len, 0);
  CHECK_EQ_INT(delta_storage_delete(s, "z"), 0);
  CHECK_EQ_INT(delta_storage_delete(s, "z"), 0);
  CHECK_EQ_INT(delta_storage_head(s, "z", &fi), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "a"), DELTA_EUNSUPPORTED);

  enum { N = 8 };
  racer r[N];
  pthread_t th[N];
  pthread_barrier_init(&barrier, NULL, N);
  for (int i = 0; i < N; i++) {
    r[i] = (racer){s, i, -100};
    pthread_create(&th[i], NULL, race, &r[i]);
  }
  int winners = 0, winner = -1, others_exist = 1;
  for (int i = 0; i < N; i++) {
    pthread_join(th[i], NULL);
    if (r[i].rc == 0) winners++, winner = i;
    else if (r[i].rc != DELTA_EEXISTS) others_exist = 0;
  }
  pthread_barrier_destroy(&barrier);
  CHECK_EQ_INT(winners, 1);
  CHECK(others_exist);
  b.len = 0;
  CHECK_EQ_INT(storage_read_all(s, "_delta_log/00000000000000000000.json", &b), 0);
  char want_body[64];
  snprintf(want_body, sizeof want_body, "writer %d", winner);
  CHECK(b.len == strlen(want_body) && memcmp(b.data, want_body, b.len) == 0);
  printf("put-if-absent race: %d threads, %d won (writer %d)\n", N, winners, winner);
  buf_dispose(&b);
}

/* Deterministic test bytes. */
static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (unsigned char)(seed >> 16);
  }
}

/* Upload `n` bytes in pieces of uneven sizes; 0 or the first error. */
static int upload(delta_storage *s, const char *key, const unsigned char *data, size_t n) {
  delta_storage_upload *u = NULL;
  int rc = delta_storage_upload_open(s, key, &u);
  if (rc) return rc;
  size_t off = 0, piece = 1;
  while (off < n) {
    size_t k = piece < n - off ? piece : n - off;
    if ((rc = delta_storage_upload_write(u, data + off, k)) != 0) {
      delta_storage_upload_abort(u);
      return rc;
    }
    off += k;
    piece = piece * 3 + 12345;
  }
  return delta_storage_upload_finish(u);
}

static void check_content(delta_storage *s, const char *key, const unsigned char *data, size_t n) {
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(s, key, &b), 0);
  CHECK_EQ_INT(b.len, n);
  CHECK(b.len == n && memcmp(b.data, data, n) == 0);
  buf_dispose(&b);
}

static void test_live_uploads(delta_storage *s) {
  size_t big = (20u << 20) + 12345; /* two full 8 MiB chunks and a tail */
  unsigned char *data = malloc(big);
  delta_file_info fi;
  fill(data, big, 7);
  /* Small: one media upload at finish. */
  CHECK_EQ_INT(upload(s, "up/small.bin", data, 1000), 0);
  check_content(s, "up/small.bin", data, 1000);
  CHECK_EQ_INT(upload(s, "up/empty.bin", data, 0), 0);
  CHECK_EQ_INT(delta_storage_head(s, "up/empty.bin", &fi), 0);
  CHECK_EQ_INT(fi.size, 0);
  /* Exactly one chunk: still a single upload at finish. */
  CHECK_EQ_INT(upload(s, "up/chunk.bin", data, 8u << 20), 0);
  check_content(s, "up/chunk.bin", data, 8u << 20);
  /* Many chunks, the first answered with only part kept (the client sends
   * the rest again), and a 503 on a chunk (retried). */
  long before = faults_fired();
  fault("kind=short&count=1&match=upload_id");
  fault("kind=status&status=503&count=1&match=upload_id");
  CHECK_EQ_INT(upload(s, "up/big.bin", data, big), 0);
  check_content(s, "up/big.bin", data, big);
  CHECK_EQ_INT(faults_fired() - before, 2);
  /* Abort after a chunk went: nothing visible, the session is gone. */
  delta_storage_upload *u = NULL;
  CHECK_EQ_INT(delta_storage_upload_open(s, "up/aborted.bin", &u), 0);
  CHECK_EQ_INT(delta_storage_upload_write(u, data, (9u << 20)), 0);
  delta_storage_upload_abort(u);
  CHECK_EQ_INT(delta_storage_head(s, "up/aborted.bin", &fi), DELTA_ENOTFOUND);
  /* Before finish, nothing is visible either. */
  CHECK_EQ_INT(delta_storage_upload_open(s, "up/later.bin", &u), 0);
  CHECK_EQ_INT(delta_storage_upload_write(u, data, (9u << 20)), 0);
  CHECK_EQ_INT(delta_storage_head(s, "up/later.bin", &fi), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_upload_finish(u), 0);
  CHECK_EQ_INT(delta_storage_head(s, "up/later.bin", &fi), 0);
  CHECK_EQ_INT(fi.size, 9u << 20);
  printf("streaming uploads: %zu bytes in resumable chunks, abort leaves nothing\n", big);
  free(data);
}

static void test_live_faults(delta_storage *s) {
  delta_buf b = DELTA_BUF_INIT;
  collected c = {{0}, {0}, 0};
  long before = faults_fired();
  CHECK_EQ_INT(delta_storage_put(s, "f/obj", "0123456789abcdef", 16, false), 0);
  fault("kind=status&status=503&count=2&match=alt%3Dmedia");
  CHECK_EQ_INT(storage_read_all(s, "f/obj", &b), 0);
  CHECK(b.len == 16 && memcmp(b.data, "0123456789abcdef", 16) == 0);
  fault("kind=status&status=429&count=2&match=delimiter");
  CHECK_EQ_INT(delta_storage_list(s, "f", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, 1);
  collected_free(&c);
  fault("kind=drop&count=2&match=uploadType%3Dmedia");
  CHECK_EQ_INT(delta_storage_put(s, "f/dropped", "x", 1, false), 0);
  fault("kind=delay&ms=300&count=1&match=alt%3Dmedia");
  b.len = 0;
  CHECK_EQ_INT(storage_read_range(s, "f/obj", 4, 4, &b), 0);
  CHECK(b.len == 4 && memcmp(b.data, "4567", 4) == 0);
  /* A put-if-absent whose answer was lost after the server stored it: the
   * retry gets 412, the client reads the object back, finds its own bytes
   * and reports success (the ambiguous commit resolved); someone else's
   * bytes stay a lost race. */
  fault("kind=lost&count=1&match=uploadType%3Dmedia");
  CHECK_EQ_INT(delta_storage_put(s, "f/ambiguous", "mine", 4, false), 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_all(s, "f/ambiguous", &b), 0);
  CHECK(b.len == 4 && memcmp(b.data, "mine", 4) == 0);
  CHECK_EQ_INT(delta_storage_put(s, "f/ambiguous", "theirs", 6, false), DELTA_EEXISTS);
  CHECK_EQ_INT(faults_fired() - before, 8);
  /* A truncated body is an error, never short data. */
  fault("kind=truncate&count=1&match=alt%3Dmedia");
  b.len = 0;
  int rc = storage_read_all(s, "f/obj", &b);
  CHECK_EQ_INT(rc, DELTA_EIO);
  CHECK_EQ_INT(b.len, 0);
  printf("truncated body: %s\n", delta_error_last());
  CHECK(strstr(delta_error_last(), "gs://deltac/") != NULL);
  CHECK(strchr(delta_error_last(), '\n') == NULL);
  buf_dispose(&b);
  printf("faults: 503 x2, 429 x2, 2 dropped connections, a delay and a lost answer to a commit: all succeeded\n");
}

/* A store with these options on the run prefix. */
static delta_storage *open_with(const char *const *k, const char *const *v, size_t n) {
  delta_storage *s = NULL;
  int rc = delta_storage_open_options(&s, run_prefix, k, v, n);
  CHECK_EQ_INT(rc, 0);
  if (rc) fprintf(stderr, "%s\n", delta_error_last());
  return s;
}

static void test_live_auth(void) {
  delta_buf b = DELTA_BUF_INIT, j = DELTA_BUF_INIT;
  const char *bearer = getenv("GCS_TEST_BEARER_TOKEN");
  CHECK(bearer != NULL);
  if (!bearer) return;
  /* The static bearer token. */
  const char *k1[] = {"google_bearer_token"}, *v1[] = {bearer};
  delta_storage *s = open_with(k1, v1, 1);
  if (s) {
    CHECK_EQ_INT(storage_read_all(s, "f/obj", &b), 0);
    CHECK_EQ_INT(b.len, 16);
    delta_storage_free(s);
  }
  /* A wrong one: 401, one line, the object, no token. */
  const char *v2[] = {"WRONGTOKENwrongtoken"};
  s = open_with(k1, v2, 1);
  if (s) {
    b.len = 0;
    CHECK_EQ_INT(storage_read_all(s, "_delta_log/00000000000000000000.json", &b), DELTA_EIO);
    const char *m = delta_error_last();
    printf("wrong token: %s\n", m);
    CHECK(strstr(m, "401") != NULL);
    CHECK(strstr(m, "_delta_log/00000000000000000000.json") != NULL);
    CHECK(strstr(m, "WRONGTOKEN") == NULL);
    CHECK(strchr(m, '\n') == NULL);
    delta_storage_free(s);
  }
  /* A service account the server does not know (the unit-test key): the
   * token endpoint refuses the JWT; one line, no key, no JWT. */
  const char *ep = getenv("STORAGE_EMULATOR_HOST");
  char uri[300];
  snprintf(uri, sizeof uri, "%s/token", ep ? ep : "http://127.0.0.1:1");
  key_json(&j, "deltac-test@deltac-test.iam.gserviceaccount.com", uri);
  const char *k3[] = {"google_service_account_key"}, *v3[] = {(const char *)j.data};
  s = open_with(k3, v3, 1);
  if (s) {
    b.len = 0;
    CHECK_EQ_INT(storage_read_all(s, "f/obj", &b), DELTA_EIO);
    const char *m = delta_error_last();
    printf("wrong service account key: %s\n", m);
    CHECK(strstr(m, "400 invalid_grant") != NULL);
    CHECK(strstr(m, "gs://deltac/") != NULL);
    CHECK(strstr(m, "PRIVATE") == NULL && strstr(m, "MIIC") == NULL && strstr(m, "eyJ") == NULL);
    CHECK(strchr(m, '\n') == NULL);
    delta_storage_free(s);
  }
  buf_dispose(&j);
  buf_dispose(&b);
}

static int race_main(const char *uri, const char *key) {
  delta_storage *s = NULL;
  char body[64];
  if (delta_storage_open(&s, uri) != 0) {
    fprintf(stderr, "%s\n", delta_error_last());
    return 1;
  }
  snprintf(body, sizeof body, "process %d", (int)getpid());
  int rc = delta_storage_put(s, key, body, strlen(body), false);
  delta_storage_free(s);
  if (rc == 0) {
    printf("%s\n", body);
    return 0;
  }
  if (rc == DELTA_EEXISTS) return 3;
  fprintf(stderr, "%s\n", delta_error_last());
  return 1;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "race") == 0) return race_main(argv[2], argv[3]);
  test_options();
  test_uris();
  test_jwt();
  test_json();
  const char *live = getenv("DELTAC_GCS_TEST_URI");
  control = getenv("GCS_TEST_CONTROL");
  if (live && *live) {
    CHECK(control != NULL);
    snprintf(run_prefix, sizeof run_prefix, "%s/run-%ld-%d", live, (long)time(NULL), (int)getpid());
    delta_storage *s = NULL;
    int rc = delta_storage_open(&s, run_prefix);
    CHECK_EQ_INT(rc, 0);
    if (rc) fprintf(stderr, "%s\n", delta_error_last());
    if (s && control) {
      test_live_contract(s);
      test_live_uploads(s);
      test_live_faults(s);
      test_live_auth();
    }
    delta_storage_free(s);
  } else {
    printf("live GCS checks not run here (DELTAC_GCS_TEST_URI unset; tests/storage/gcs_server.sh runs them)\n");
  }
  TEST_MAIN_END();
}
