/* Where S3 credentials and settings come from (s3_config.c): options, the
 * environment, ~/.aws/credentials and ~/.aws/config profiles (HOME points at
 * a temporary directory), AWS_PROFILE, session tokens, web identity
 * (configuration only: tests/storage/s3_sts.sh exchanges a token for real),
 * the STS response parser, the commit-mode and client options and their
 * AWS_* environment forms. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deltac/error.h"
#include "storage/options.h"
#include "storage/s3_config.h"
#include "storage/s3_sts.h"
#include "test.h"

static char home[256];

static void clear_env(void) {
  static const char *const names[] = {
      "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
      "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ALLOW_HTTP",
      "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_ROLE_ARN",
      "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_SESSION_NAME", "AWS_ENDPOINT_URL_STS",
      "AWS_CONDITIONAL_PUT", "AWS_S3_ALLOW_UNSAFE_RENAME", "AWS_MAX_RETRIES", "AWS_TIMEOUT",
      "AWS_RETRY_TIMEOUT", "AWS_CONNECT_TIMEOUT", "AWS_PROXY_URL", "AWS_USER_AGENT",
      "AWS_VIRTUAL_HOSTED_STYLE_REQUEST"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
  setenv("HOME", home, 1);
}

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/.aws/%s", home, name);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* Resolve with `n` option pairs; returns the code, config in *c. */
static int resolve(s3_config *c, const char *const *k, const char *const *v, size_t n) {
  storage_options o;
  int rc = storage_options_parse(&o, k, v, n);
  if (rc == 0) rc = s3_config_resolve(c, &o);
  else memset(c, 0, sizeof *c);
  storage_options_dispose(&o);
  return rc;
}

static void test_profiles(void) {
  s3_config c;
  clear_env();
  write_file("credentials", "[default]\n"
                            "aws_access_key_id = DEFAULTKEY\n"
                            "aws_secret_access_key = defaultsecret\n"
                            "\n"
                            "[dev]\n"
                            "aws_access_key_id=DEVKEY\n"
                            "aws_secret_access_key=devsecret\n"
                            "aws_session_token=devtoken\n"
                            "[half]\n"
                            "aws_access_key_id=HALFKEY\n");
  write_file("config", "[default]\n"
                       "region = eu-central-1\n"
                       "[profile dev]\n"
                       "region = ap-south-1\n"
                       "endpoint_url = http://127.0.0.1:9\n"
                       "[profile wi]\n"
                       "role_arn = arn:aws:iam::123456789012:role/r\n"
                       "web_identity_token_file = /nonexistent/token\n");

  /* No options, no environment: the default profile. */
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK_STR(c.access_key, "DEFAULTKEY");
  CHECK_STR(c.secret_key, "defaultsecret");
  CHECK(c.session_token == NULL);
  CHECK_STR(c.region, "eu-central-1");
  CHECK(c.endpoint == NULL);
  CHECK(c.sts == NULL);
  s3_config_dispose(&c);

  /* AWS_PROFILE picks a profile: credentials with a session token, region
   * and endpoint from "[profile dev]" in the config file. */
  setenv("AWS_PROFILE", "dev", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK_STR(c.access_key, "DEVKEY");
  CHECK_STR(c.session_token, "devtoken");
  CHECK_STR(c.region, "ap-south-1");
  CHECK_STR(c.endpoint, "http://127.0.0.1:9");
  s3_config_dispose(&c);

  /* The environment's keys win over the profile... */
  setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  setenv("AWS_SESSION_TOKEN", "envtoken", 1);
  setenv("AWS_REGION", "us-west-2", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK_STR(c.access_key, "ENVKEY");
  CHECK_STR(c.session_token, "envtoken");
  CHECK_STR(c.region, "us-west-2");
  s3_config_dispose(&c);

  /* ...but not over a profile named in the options (credentials come as
   * one set: no env session token with the profile's keys). */
  const char *k1[] = {"aws_profile"}, *v1[] = {"default"};
  CHECK_EQ_INT(resolve(&c, k1, v1, 1), 0);
  CHECK_STR(c.access_key, "DEFAULTKEY");
  CHECK(c.session_token == NULL);
  s3_config_dispose(&c);

  /* Options win over everything. */
  const char *k2[] = {"aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_region"};
  const char *v2[] = {"OPTKEY", "optsecret", "opttoken", "sa-east-1"};
  CHECK_EQ_INT(resolve(&c, k2, v2, 4), 0);
  CHECK_STR(c.access_key, "OPTKEY");
  CHECK_STR(c.secret_key, "optsecret");
  CHECK_STR(c.session_token, "opttoken");
  CHECK_STR(c.region, "sa-east-1");
  s3_config_dispose(&c);

  /* Half a key pair: an error that names no secret. */
  const char *k3[] = {"aws_access_key_id"}, *v3[] = {"ONLYKEY"};
  CHECK_EQ_INT(resolve(&c, k3, v3, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "ONLYKEY") == NULL);
  s3_config_dispose(&c);
  clear_env();
  setenv("AWS_PROFILE", "half", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "half") != NULL);
  CHECK(strstr(delta_error_last(), "HALFKEY") == NULL);
  s3_config_dispose(&c);

  /* A profile naming a role and a token file: web identity. */
  setenv("AWS_PROFILE", "wi", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK(c.sts != NULL);
  CHECK(c.access_key == NULL);
  s3_config_dispose(&c);

  /* AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE move the files. */
  clear_env();
  char other[512];
  snprintf(other, sizeof other, "%s/.aws/other", home);
  write_file("other", "[default]\naws_access_key_id=OTHERKEY\naws_secret_access_key=othersecret\n");
  setenv("AWS_SHARED_CREDENTIALS_FILE", other, 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK_STR(c.access_key, "OTHERKEY");
  s3_config_dispose(&c);

  /* No credentials anywhere: unsigned requests, region us-east-1. */
  clear_env();
  setenv("HOME", "/nonexistent-home", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK(c.access_key == NULL && c.sts == NULL);
  CHECK_STR(c.region, "us-east-1");
  s3_config_dispose(&c);
}

static void test_web_identity(void) {
  s3_config c;
  clear_env();
  setenv("HOME", "/nonexistent-home", 1);
  setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/r", 1);
  setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "/nonexistent/token", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK(c.sts != NULL);
  /* The token file is read when credentials are needed: a missing one is a
   * one-line error naming the file. */
  s3_creds cr;
  if (c.sts) {
    CHECK_EQ_INT(s3_sts_get(c.sts, &cr), DELTA_EINVAL);
    CHECK(strstr(delta_error_last(), "/nonexistent/token") != NULL);
  }
  s3_config_dispose(&c);

  /* Keys in the environment win over the web identity. */
  setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK(c.sts == NULL);
  CHECK_STR(c.access_key, "ENVKEY");
  s3_config_dispose(&c);

  /* An http:// STS endpoint needs allow_http. */
  clear_env();
  setenv("HOME", "/nonexistent-home", 1);
  const char *k[] = {"aws_role_arn", "aws_web_identity_token_file", "aws_sts_endpoint"};
  const char *v[] = {"arn:aws:iam::1:role/r", "/tmp/t", "http://127.0.0.1:9"};
  CHECK_EQ_INT(resolve(&c, k, v, 3), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "allow_http") != NULL);
  s3_config_dispose(&c);
  const char *k2[] = {"aws_role_arn", "aws_web_identity_token_file", "aws_sts_endpoint", "allow_http"};
  const char *v2[] = {"arn:aws:iam::1:role/r", "/tmp/t", "http://127.0.0.1:9", "true"};
  CHECK_EQ_INT(resolve(&c, k2, v2, 4), 0);
  CHECK(c.sts != NULL);
  s3_config_dispose(&c);
  /* Half of it: an error. */
  CHECK_EQ_INT(resolve(&c, k, v, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "aws_web_identity_token_file") != NULL);
  s3_config_dispose(&c);

  /* The response parser. */
  static const char ok[] =
      "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n"
      "  <AssumeRoleWithWebIdentityResult>\n"
      "    <SubjectFromWebIdentityToken>amzn1.account.x</SubjectFromWebIdentityToken>\n"
      "    <Credentials>\n"
      "      <SessionToken>AQoDYXdzEE0a8A&amp;NcE=</SessionToken>\n"
      "      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>\n"
      "      <Expiration>2014-10-24T23:00:23Z</Expiration>\n"
      "      <AccessKeyId>ASgeIAIOSFODNN7EXAMPLE</AccessKeyId>\n"
      "    </Credentials>\n"
      "  </AssumeRoleWithWebIdentityResult>\n"
      "</AssumeRoleWithWebIdentityResponse>\n";
  int64_t exp = 0;
  CHECK_EQ_INT(s3_sts_parse(ok, sizeof ok - 1, &cr, &exp), 0);
  CHECK_STR(cr.access_key, "ASgeIAIOSFODNN7EXAMPLE");
  CHECK_STR(cr.secret_key, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY");
  CHECK_STR(cr.session_token, "AQoDYXdzEE0a8A&NcE=");
  CHECK_EQ_INT(exp, 1414191623000LL);
  s3_creds_dispose(&cr);
  static const char missing[] = "<Credentials><AccessKeyId>A</AccessKeyId></Credentials>";
  CHECK_EQ_INT(s3_sts_parse(missing, sizeof missing - 1, &cr, &exp), DELTA_ECORRUPT);
  CHECK(cr.access_key == NULL);
}

static void test_modes_and_client(void) {
  s3_config c;
  clear_env();
  setenv("HOME", "/nonexistent-home", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK_EQ_INT(c.conditional_put, 1);
  CHECK_EQ_INT(c.allow_unsafe_rename, 0);
  CHECK(c.http.proxy_url == NULL);
  s3_config_dispose(&c);

  const char *k[] = {"AWS_CONDITIONAL_PUT", "aws_s3_allow_unsafe_rename", "proxy_url"};
  const char *v[] = {"none", "true", "http://127.0.0.1:3128"};
  CHECK_EQ_INT(resolve(&c, k, v, 3), 0);
  CHECK_EQ_INT(c.conditional_put, 0);
  CHECK_EQ_INT(c.allow_unsafe_rename, 1);
  s3_config_dispose(&c);
  /* (The config borrows the proxy URL from the options, which resolve()
   * has freed by now: check it while they live.) */
  storage_options o;
  CHECK_EQ_INT(storage_options_parse(&o, k, v, 3), 0);
  CHECK_EQ_INT(s3_config_resolve(&c, &o), 0);
  CHECK_STR(c.http.proxy_url, "http://127.0.0.1:3128");
  s3_config_dispose(&c);
  storage_options_dispose(&o);
  const char *v2[] = {"sometimes", "true", "x"};
  CHECK_EQ_INT(resolve(&c, k, v2, 1), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "aws_conditional_put") != NULL);
  s3_config_dispose(&c);

  /* The AWS_* environment forms; options win. */
  setenv("AWS_CONDITIONAL_PUT", "none", 1);
  setenv("AWS_S3_ALLOW_UNSAFE_RENAME", "true", 1);
  setenv("AWS_MAX_RETRIES", "2", 1);
  setenv("AWS_RETRY_TIMEOUT", "1500ms", 1);
  setenv("AWS_TIMEOUT", "7s", 1);
  setenv("AWS_PROXY_URL", "http://127.0.0.1:1", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), 0);
  CHECK_EQ_INT(c.conditional_put, 0);
  CHECK_EQ_INT(c.allow_unsafe_rename, 1);
  CHECK_EQ_INT(c.http.max_retries, 2);
  CHECK_EQ_INT(c.http.retry_timeout_ms, 1500);
  CHECK_EQ_INT(c.http.timeout_ms, 7000);
  CHECK_STR(c.http.proxy_url, "http://127.0.0.1:1");
  s3_config_dispose(&c);
  const char *k3[] = {"max_retries", "aws_conditional_put"}, *v3[] = {"5", "etag"};
  CHECK_EQ_INT(resolve(&c, k3, v3, 2), 0);
  CHECK_EQ_INT(c.http.max_retries, 5);
  CHECK_EQ_INT(c.conditional_put, 1);
  s3_config_dispose(&c);
  setenv("AWS_MAX_RETRIES", "lots", 1);
  CHECK_EQ_INT(resolve(&c, NULL, NULL, 0), DELTA_EINVAL);
  CHECK(strstr(delta_error_last(), "AWS_MAX_RETRIES") != NULL);
  s3_config_dispose(&c);
  clear_env();
}

int main(void) {
  char tmpl[] = "/tmp/deltac-s3cfg-XXXXXX";
  if (!mkdtemp(tmpl)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(home, sizeof home, "%s", tmpl);
  char aws[300];
  snprintf(aws, sizeof aws, "%s/.aws", home);
  mkdir(aws, 0700);
  test_profiles();
  test_web_identity();
  test_modes_and_client();
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", home);
  TEST_MAIN_END();
}
