/* The S3 back end. Offline (always): storage options (unknown keys, bad
 * values, no value in messages), s3:// URI checks, the XML reader on hostile
 * input. Live (when DELTAC_S3_TEST_URI names a writable location, e.g.
 * s3://deltac/unit, with the AWS_* variables of tests/servers/rgw.sh): the
 * storage contract of include/deltac/storage.h against a real server — list
 * order with partition-like names ('=', spaces, '%'), start_after, missing
 * prefixes, ranged reads, head, put-if-absent races between threads,
 * overwrite, idempotent delete — and a wrong secret giving a one-line error
 * with the status and without the secret. tests/storage/s3_rgw.sh runs it
 * live. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "deltac/error.h"
#include "deltac/storage.h"
#include "storage/options.h"
#include "storage/s3_xml.h"
#include "storage/storage_internal.h"
#include "test.h"
#include "util/buf.h"

static void test_options(void) {
  storage_options o;
  const char *k1[] = {"AWS_REGION", "aws_endpoint", "Allow_HTTP", "timeout", "max_retries", "connect_timeout"};
  const char *v1[] = {"eu-west-1", "http://127.0.0.1:1", "TRUE", "2m", "3", "250ms"};
  CHECK_EQ_INT(storage_options_parse(&o, k1, v1, 6), 0);
  CHECK_STR(o.region, "eu-west-1");
  CHECK_STR(o.endpoint, "http://127.0.0.1:1");
  CHECK_EQ_INT(o.allow_http, 1);
  CHECK_EQ_INT(o.timeout_ms, 120000);
  CHECK_EQ_INT(o.max_retries, 3);
  CHECK_EQ_INT(o.connect_timeout_ms, 250);
  CHECK_EQ_INT(o.virtual_hosted, -1);
  storage_options_dispose(&o);

  const char *k2[] = {"aws_secret_access_key", "aws_secret_acess_key"};
  const char *v2[] = {"SECRETVALUE1", "SECRETVALUE2"};
  CHECK_EQ_INT(storage_options_parse(&o, k2, v2, 2), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "aws_secret_acess_key") != NULL);
  CHECK(strstr(delta_error_last(), "SECRETVALUE") == NULL);
  storage_options_dispose(&o);

  const char *k3[] = {"aws_allow_http"}, *v3[] = {"maybe"};
  CHECK_EQ_INT(storage_options_parse(&o, k3, v3, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "maybe") == NULL);
  storage_options_dispose(&o);
  CHECK_EQ_INT(storage_parse_duration_ms("30"), 30000);
  CHECK_EQ_INT(storage_parse_duration_ms("1.5 seconds"), 1500);
  CHECK_EQ_INT(storage_parse_duration_ms("5 parsecs"), -1);
  CHECK_EQ_INT(storage_parse_duration_ms("-1s"), -1);

  /* Through the public entry point, for a local table too. */
  delta_storage *s = NULL;
  const char *k4[] = {"no_such_option"}, *v4[] = {"x"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "/tmp", k4, v4, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "no_such_option") != NULL);
  CHECK(s == NULL);
}

static void test_uris(void) {
  delta_storage *s = NULL;
  const char *k[] = {"aws_endpoint_url", "aws_access_key_id", "aws_secret_access_key", "allow_http"};
  const char *v[] = {"http://127.0.0.1:9", "AKID", "SECRET", "false"};
  /* http:// needs allow_http. */
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3://b/t", k, v, 4), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "allow_http") != NULL);
  const char *k2[] = {"aws_endpoint_url", "aws_access_key_id", "aws_secret_access_key", "aws_allow_http"};
  const char *v2[] = {"http://127.0.0.1:9", "AKID", "SECRET", "true"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3://b", k2, v2, 4), 0);
  CHECK_STR(delta_storage_location(s), "s3://b");
  delta_storage_free(s);
  s = NULL;
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3a://b/my%20tables/t=1/", k2, v2, 4), 0);
  CHECK_STR(delta_storage_location(s), "s3://b/my%20tables/t=1");
  delta_storage_free(s);
  s = NULL;
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3:///t", k2, v2, 4), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3://b/a//../t", k2, v2, 4), DELTA_EINVAL);
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3://b/t?x=1", k2, v2, 4), DELTA_EINVAL);
  /* Half a key pair is refused rather than half-used. */
  const char *k3[] = {"aws_access_key_id"}, *v3[] = {"AKID"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3://b/t", k3, v3, 1), DELTA_EINVAL);
  /* Nothing listens on port 9: a one-line transport error naming the key,
   * quickly (no retries asked for). */
  const char *k4[] = {"aws_endpoint_url", "aws_access_key_id", "aws_secret_access_key",
                      "aws_allow_http", "max_retries", "connect_timeout"};
  const char *v4[] = {"http://127.0.0.1:9", "AKID", "SECRETVALUE", "true", "0", "2s"};
  CHECK_EQ_INT(delta_storage_open_options(&s, "s3://b/t", k4, v4, 6), 0);
  delta_file_info fi;
  CHECK_EQ_INT(delta_storage_head(s, "_delta_log/x.json", &fi), DELTA_EIO);
  CHECK(strstr(delta_error_last(), "s3://b/t/_delta_log/x.json") != NULL);
  CHECK(strstr(delta_error_last(), "SECRETVALUE") == NULL);
  CHECK(strchr(delta_error_last(), '\n') == NULL);
  delta_storage_free(s);
}

/* Walk a document; returns the first error or 0. */
static int walk(const char *doc) {
  s3_xml x = S3_XML_INIT(doc, strlen(doc));
  delta_buf b = DELTA_BUF_INIT;
  int rc = 0;
  for (int i = 0; i < 10000; i++) {
    s3_xml_kind k;
    const char *s;
    size_t l;
    if ((rc = s3_xml_next(&x, &k, &s, &l)) != 0 || k == S3_XML_END) break;
    if (k == S3_XML_TEXT && (rc = s3_xml_decode(&b, s, l)) != 0) break;
  }
  buf_dispose(&b);
  return rc;
}

static void test_xml(void) {
  const char *doc = "<?xml version=\"1.0\"?><!-- c --><Error><Code>NoSuchKey</Code>"
                    "<Message>a &amp; b &lt;&#x41;&#66;&gt;</Message><Empty/></Error>";
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(s3_xml_find(doc, strlen(doc), "Code", &b), 0);
  CHECK(b.len == 9 && memcmp(b.data, "NoSuchKey", 9) == 0);
  b.len = 0;
  CHECK_EQ_INT(s3_xml_find(doc, strlen(doc), "Message", &b), 0);
  CHECK(b.len == 10 && memcmp(b.data, "a & b <AB>", 10) == 0);
  CHECK_EQ_INT(s3_xml_find(doc, strlen(doc), "Nope", &b), 1);
  buf_dispose(&b);
  CHECK_EQ_INT(walk(doc), 0);
  const char *bad[] = {"<a", "<a>&bogus;</a>", "<a>&#xFFFFFFFFFF;</a>", "<a>&#0;</a>", "<!-- x",
                       "<>", "</>", "<a>&#;</a>", "<a>&amp</a>"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK_EQ_INT(walk(bad[i]), DELTA_ECORRUPT);
}

/* ---- live ---- */

static const char *live_uri;
static char run_prefix[512];

typedef struct {
  char **names;
  int *dirs;
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

static void test_live(void) {
  delta_storage *s = NULL;
  int rc = delta_storage_open(&s, run_prefix);
  CHECK_EQ_INT(rc, 0);
  if (rc) {
    fprintf(stderr, "%s\n", delta_error_last());
    return;
  }
  collected c = {calloc(64, sizeof(char *)), calloc(64, sizeof(int)), 0};
  /* A fresh prefix: nothing there yet. */
  CHECK_EQ_INT(delta_storage_list(s, "", NULL, collect, &c), DELTA_ENOTFOUND);
  delta_file_info fi;
  CHECK_EQ_INT(delta_storage_head(s, "x", &fi), DELTA_ENOTFOUND);
  delta_buf b = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(s, "x", &b), DELTA_ENOTFOUND);
  CHECK(strstr(delta_error_last(), "404") != NULL);

  /* Names whose S3 key order differs from name order ("a b" < "a/"). */
  const char *keys[] = {"a/f", "a b", "a=1/f", "a-c", "c2=+ %3D%250/part-0.parquet", "z"};
  for (size_t i = 0; i < 6; i++) CHECK_EQ_INT(delta_storage_put(s, keys[i], "0123456789", 10, false), 0);
  CHECK_EQ_INT(delta_storage_list(s, "", NULL, collect, &c), 0);
  const char *want[] = {"a", "a b", "a-c", "a=1", "c2=+ %3D%250", "z"};
  const int want_dir[] = {1, 0, 0, 1, 1, 0};
  CHECK_EQ_INT(c.n, 6);
  for (size_t i = 0; i < c.n && i < 6; i++) {
    CHECK_STR(c.names[i], want[i]);
    CHECK_EQ_INT(c.dirs[i], want_dir[i]);
  }
  collected_free(&c);
  CHECK_EQ_INT(delta_storage_list(s, "", "a", collect, &c), 0);
  CHECK_EQ_INT(c.n, 5);
  if (c.n) CHECK_STR(c.names[0], "a b");
  collected_free(&c);
  CHECK_EQ_INT(delta_storage_list(s, "", "z", collect, &c), 0);
  CHECK_EQ_INT(c.n, 0);
  CHECK_EQ_INT(delta_storage_list(s, "c2=+ %3D%250", NULL, collect, &c), 0);
  CHECK_EQ_INT(c.n, 1);
  if (c.n) CHECK_STR(c.names[0], "part-0.parquet");
  collected_free(&c);
  CHECK_EQ_INT(delta_storage_list(s, "nothing", NULL, collect, &c), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_list(s, "nothing", "x", collect, &c), DELTA_ENOTFOUND);

  /* Reads: whole, ranged, to the end, at the end, past it. */
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
  CHECK_EQ_INT(b.len, 0);
  /* A buffer limit below the size fails before the body lands. */
  delta_buf small = DELTA_BUF_INIT;
  small.limit = 5;
  CHECK_EQ_INT(storage_read_all(s, "z", &small), DELTA_ELIMIT);
  CHECK_EQ_INT(small.len, 0);
  buf_dispose(&small);
  CHECK_EQ_INT(delta_storage_head(s, "z", &fi), 0);
  CHECK_EQ_INT(fi.size, 10);
  CHECK(fi.mtime_ms > 1600000000000LL);

  /* Overwrite, put-if-absent on an existing key, delete (twice). */
  CHECK_EQ_INT(delta_storage_put(s, "z", "new", 3, false), DELTA_EEXISTS);
  CHECK_EQ_INT(delta_storage_put(s, "z", "new", 3, true), 0);
  b.len = 0;
  CHECK_EQ_INT(storage_read_all(s, "z", &b), 0);
  CHECK(b.len == 3 && memcmp(b.data, "new", 3) == 0);
  CHECK_EQ_INT(delta_storage_delete(s, "z"), 0);
  CHECK_EQ_INT(delta_storage_delete(s, "z"), 0);
  CHECK_EQ_INT(delta_storage_head(s, "z", &fi), DELTA_ENOTFOUND);
  CHECK_EQ_INT(delta_storage_remove_dir(s, "a"), DELTA_EUNSUPPORTED);

  /* Put-if-absent race: exactly one of the writers wins, and the file holds
   * the winner's bytes. */
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
  printf("put-if-absent race: %d writers, %d won (writer %d)\n", N, winners, winner);

  buf_dispose(&b);
  free(c.names);
  free(c.dirs);
  delta_storage_free(s);
}

/* A wrong secret: one line, the key, the status, S3's code, no secret. */
static void test_live_wrong_secret(void) {
  delta_storage *s = NULL;
  const char *k[] = {"aws_access_key_id", "aws_secret_access_key"};
  const char *v[] = {getenv("AWS_ACCESS_KEY_ID") ? getenv("AWS_ACCESS_KEY_ID") : "x",
                     "WRONGSECRETwrongsecret"};
  CHECK_EQ_INT(delta_storage_open_options(&s, run_prefix, k, v, 2), 0);
  delta_buf b = DELTA_BUF_INIT;
  int rc = storage_read_all(s, "_delta_log/00000000000000000000.json", &b);
  CHECK_EQ_INT(rc, DELTA_EIO);
  const char *m = delta_error_last();
  printf("wrong secret: %s\n", m);
  CHECK(strstr(m, "403") != NULL);
  CHECK(strstr(m, "SignatureDoesNotMatch") != NULL);
  CHECK(strstr(m, "_delta_log/00000000000000000000.json") != NULL);
  CHECK(strstr(m, "WRONGSECRET") == NULL);
  CHECK(strchr(m, '\n') == NULL);
  buf_dispose(&b);
  delta_storage_free(s);
}

int main(void) {
  test_options();
  test_uris();
  test_xml();
  live_uri = getenv("DELTAC_S3_TEST_URI");
  if (live_uri && *live_uri) {
    snprintf(run_prefix, sizeof run_prefix, "%s/run-%ld-%d", live_uri, (long)time(NULL), (int)getpid());
    test_live();
    test_live_wrong_secret();
  } else {
    printf("live S3 checks not run here (DELTAC_S3_TEST_URI unset; tests/storage/s3_rgw.sh runs them)\n");
  }
  TEST_MAIN_END();
}
