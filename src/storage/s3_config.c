/*
 * Where the S3 back end's settings come from when the options leave them
 * out: the environment, then the AWS shared files (~/.aws/credentials and
 * ~/.aws/config, or AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE) for the
 * profile named by the aws_profile option, AWS_PROFILE, or "default".
 *
 * Credentials come as one set from the first place that has one:
 *   1. the options (aws_access_key_id, aws_secret_access_key,
 *      aws_session_token);
 *   2. unless the options name a profile: AWS_ACCESS_KEY_ID,
 *      AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN;
 *   3. a web identity: aws_role_arn + aws_web_identity_token_file (options),
 *      or, unless the options name a profile, AWS_ROLE_ARN +
 *      AWS_WEB_IDENTITY_TOKEN_FILE (+ AWS_ROLE_SESSION_NAME), exchanged at
 *      STS (aws_sts_endpoint, AWS_ENDPOINT_URL_STS, else
 *      https://sts.REGION.amazonaws.com);
 *   4. the profile: aws_access_key_id/aws_secret_access_key/
 *      aws_session_token, or role_arn + web_identity_token_file.
 * None of them: requests go unsigned (public buckets).
 */
#include "storage/s3_config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

/* Trim blanks at both ends in place; returns the start. */
static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
  return s;
}

/* Value of `key` in section `section` of INI file `path` into *out (a new
 * string); 0 when found, 1 when not (a missing file included). */
static int ini_get(const char *path, const char *section, const char *key, char **out) {
  FILE *f = fopen(path, "r");
  char line[4096];
  int in_section = 0, rc = 1;
  if (!f) return 1;
  while (fgets(line, sizeof line, f)) {
    char *s = trim(line);
    if (*s == '#' || *s == ';' || !*s) continue;
    if (*s == '[') {
      char *e = strchr(s, ']');
      if (!e) continue;
      *e = '\0';
      in_section = strcmp(trim(s + 1), section) == 0;
      continue;
    }
    if (!in_section) continue;
    char *eq = strchr(s, '=');
    if (!eq) continue;
    *eq = '\0';
    if (strcasecmp(trim(s), key) != 0) continue;
    if (!(*out = mem_strdup(trim(eq + 1)))) {
      rc = DELTA_NOMEM();
      break;
    }
    rc = 0;
    break;
  }
  /* The line may have held a secret. */
  memset(line, 0, sizeof line);
  fclose(f);
  return rc;
}

static int file_path(char *buf, size_t n, const char *env, const char *name) {
  const char *e = getenv(env);
  if (e && *e) return snprintf(buf, n, "%s", e) < (int)n ? 0 : 1;
  const char *home = getenv("HOME");
  if (!home || !*home) return 1;
  return snprintf(buf, n, "%s/.aws/%s", home, name) < (int)n ? 0 : 1;
}

/* `key` of profile `profile`: the credentials file first, then the config
 * file (where the section is "[profile NAME]", or "[default]"). */
int s3_profile_get(const char *profile, const char *key, char **out) {
  char path[4096], section[512];
  int rc;
  if (file_path(path, sizeof path, "AWS_SHARED_CREDENTIALS_FILE", "credentials") == 0 &&
      (rc = ini_get(path, profile, key, out)) <= 0)
    return rc;
  if (file_path(path, sizeof path, "AWS_CONFIG_FILE", "config") != 0) return 1;
  if (strcmp(profile, "default") == 0) snprintf(section, sizeof section, "default");
  else if (snprintf(section, sizeof section, "profile %s", profile) >= (int)sizeof section) return 1;
  return ini_get(path, section, key, out);
}

/* Copy `v` into *out unless *out is set or `v` is NULL/empty. */
static int take(char **out, const char *v) {
  if (*out || !v || !*v) return 0;
  return (*out = mem_strdup(v)) ? 0 : DELTA_NOMEM();
}

static int take_profile(char **out, const char *profile, const char *key) {
  if (*out) return 0;
  int rc = s3_profile_get(profile, key, out);
  return rc > 0 ? 0 : rc;
}

/* The client options from the environment, as object_store reads an S3
 * store's settings: AWS_ + the option's name (AWS_TIMEOUT, AWS_MAX_RETRIES,
 * AWS_PROXY_URL, ...). The options given to open win over them. */
static int env_client_options(http_config *h) {
  static const struct {
    const char *env;
    size_t off;
  } durations[] = {{"AWS_TIMEOUT", offsetof(http_config, timeout_ms)},
                   {"AWS_CONNECT_TIMEOUT", offsetof(http_config, connect_timeout_ms)},
                   {"AWS_RETRY_TIMEOUT", offsetof(http_config, retry_timeout_ms)}};
  for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
    const char *v = getenv(durations[i].env);
    if (!v || !*v) continue;
    long ms = storage_parse_duration_ms(v);
    if (ms < 0) return err_set(DELTA_EINVAL, "%s: not a duration (e.g. 30s, 500ms)", durations[i].env);
    *(long *)(void *)((char *)h + durations[i].off) = ms;
  }
  const char *v = getenv("AWS_MAX_RETRIES");
  if (v && *v) {
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 0 || n > 1000) return err_set(DELTA_EINVAL, "AWS_MAX_RETRIES: not a count from 0 to 1000");
    h->max_retries = (int)n;
  }
  if ((v = getenv("AWS_PROXY_URL")) && *v) h->proxy_url = v;
  if ((v = getenv("AWS_USER_AGENT")) && *v) h->user_agent = v;
  return 0;
}

/* aws_conditional_put and aws_s3_allow_unsafe_rename (or AWS_CONDITIONAL_PUT,
 * AWS_S3_ALLOW_UNSAFE_RENAME). */
static int resolve_commit_mode(s3_config *c, const storage_options *o) {
  const char *cp = o->conditional_put ? o->conditional_put : getenv("AWS_CONDITIONAL_PUT");
  c->conditional_put = 1;
  if (cp && *cp) {
    if (strcasecmp(cp, "none") == 0 || strcasecmp(cp, "disabled") == 0) c->conditional_put = 0;
    else if (strcasecmp(cp, "etag") != 0)
      return err_set(DELTA_EINVAL, "storage option 'aws_conditional_put': must be etag or none");
  }
  c->allow_unsafe_rename = o->allow_unsafe_rename;
  if (c->allow_unsafe_rename < 0) {
    const char *e = getenv("AWS_S3_ALLOW_UNSAFE_RENAME");
    c->allow_unsafe_rename = e && storage_parse_bool(e) == 1;
  }
  return 0;
}

/* A web identity provider for `role_arn` and `token_file`. */
static int web_identity(s3_config *c, const storage_options *o, const char *role_arn,
                        const char *token_file, const char *session_name) {
  delta_buf def = DELTA_BUF_INIT;
  const char *ep = o->sts_endpoint;
  int rc;
  if (!ep || !*ep) ep = getenv("AWS_ENDPOINT_URL_STS");
  if (!ep || !*ep) {
    if ((rc = buf_printf(&def, "https://sts.%s.amazonaws.com", c->region)) != 0 ||
        (rc = buf_putc(&def, '\0')) != 0)
      goto done;
    ep = (const char *)def.data;
  }
  rc = s3_sts_new(&c->sts, ep, role_arn, session_name, token_file, c->allow_http, &c->http);
done:
  buf_dispose(&def);
  return rc;
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static int resolve_credentials(s3_config *c, const storage_options *o) {
  int rc;
  bool named_profile = o->profile != NULL;
  if (o->access_key_id) {
    if ((rc = take(&c->access_key, o->access_key_id)) != 0 ||
        (rc = take(&c->secret_key, o->secret_access_key)) != 0 ||
        (rc = take(&c->session_token, o->session_token)) != 0)
      return rc;
    return 0;
  }
  if (!named_profile && env("AWS_ACCESS_KEY_ID") && getenv("AWS_SECRET_ACCESS_KEY")) {
    if ((rc = take(&c->access_key, getenv("AWS_ACCESS_KEY_ID"))) != 0 ||
        (rc = take(&c->secret_key, getenv("AWS_SECRET_ACCESS_KEY"))) != 0 ||
        (rc = take(&c->session_token, getenv("AWS_SESSION_TOKEN"))) != 0)
      return rc;
    return 0;
  }
  if (!o->role_arn != !o->web_identity_token_file)
    return err_set(DELTA_EINVAL, "storage options: give both aws_role_arn and "
                                 "aws_web_identity_token_file, or neither");
  if (o->role_arn)
    return web_identity(c, o, o->role_arn, o->web_identity_token_file, o->role_session_name);
  if (!named_profile && env("AWS_ROLE_ARN") && env("AWS_WEB_IDENTITY_TOKEN_FILE")) {
    const char *name = o->role_session_name ? o->role_session_name : env("AWS_ROLE_SESSION_NAME");
    return web_identity(c, o, env("AWS_ROLE_ARN"), env("AWS_WEB_IDENTITY_TOKEN_FILE"), name);
  }
  if ((rc = take_profile(&c->access_key, c->profile, "aws_access_key_id")) != 0 ||
      (rc = take_profile(&c->secret_key, c->profile, "aws_secret_access_key")) != 0 ||
      (rc = take_profile(&c->session_token, c->profile, "aws_session_token")) != 0)
    return rc;
  if (!c->access_key != !c->secret_key)
    return err_set(DELTA_EINVAL, "AWS profile '%s' has only half of a key pair", c->profile);
  if (c->access_key) return 0;
  /* A profile may name a role to assume with a web identity token. */
  char *arn = NULL, *file = NULL, *name = NULL;
  if ((rc = take_profile(&arn, c->profile, "role_arn")) == 0 &&
      (rc = take_profile(&file, c->profile, "web_identity_token_file")) == 0 &&
      (rc = take_profile(&name, c->profile, "role_session_name")) == 0 && arn && file)
    rc = web_identity(c, o, arn, file, name);
  mem_free(arn);
  mem_free(file);
  mem_free(name);
  return rc;
}

int s3_config_resolve(s3_config *c, const storage_options *o) {
  int rc;
  memset(c, 0, sizeof *c);
  c->allow_http = o->allow_http;
  c->virtual_hosted = o->virtual_hosted;
  if (c->allow_http < 0) {
    const char *e = getenv("AWS_ALLOW_HTTP");
    c->allow_http = e && storage_parse_bool(e) == 1;
  }
  if (c->virtual_hosted < 0) {
    const char *e = getenv("AWS_VIRTUAL_HOSTED_STYLE_REQUEST");
    c->virtual_hosted = e && storage_parse_bool(e) == 1;
  }
  if ((!o->access_key_id) != (!o->secret_access_key))
    return err_set(DELTA_EINVAL, "storage options: give both aws_access_key_id and "
                                 "aws_secret_access_key, or neither");
  const char *profile = o->profile;
  if ((rc = take(&c->profile, profile)) != 0 ||
      (rc = take(&c->profile, getenv("AWS_PROFILE"))) != 0 || (rc = take(&c->profile, "default")) != 0)
    return rc;
  if ((rc = take(&c->region, o->region)) != 0 || (rc = take(&c->region, getenv("AWS_REGION"))) != 0 ||
      (rc = take(&c->region, getenv("AWS_DEFAULT_REGION"))) != 0 ||
      (rc = take_profile(&c->region, c->profile, "region")) != 0 ||
      (rc = take(&c->region, "us-east-1")) != 0)
    return rc;
  if ((rc = take(&c->endpoint, o->endpoint)) != 0 ||
      (rc = take(&c->endpoint, getenv("AWS_ENDPOINT_URL_S3"))) != 0 ||
      (rc = take(&c->endpoint, getenv("AWS_ENDPOINT_URL"))) != 0 ||
      (rc = take_profile(&c->endpoint, c->profile, "endpoint_url")) != 0)
    return rc;
  c->http = (http_config)HTTP_CONFIG_DEFAULT;
  if ((rc = env_client_options(&c->http)) != 0) return rc;
  if (o->timeout_ms >= 0) c->http.timeout_ms = o->timeout_ms;
  if (o->connect_timeout_ms >= 0) c->http.connect_timeout_ms = o->connect_timeout_ms;
  if (o->retry_timeout_ms >= 0) c->http.retry_timeout_ms = o->retry_timeout_ms;
  if (o->max_retries >= 0) c->http.max_retries = o->max_retries;
  if (o->user_agent) c->http.user_agent = o->user_agent;
  if (o->proxy_url) c->http.proxy_url = o->proxy_url;
  if ((rc = resolve_commit_mode(c, o)) != 0) return rc;
  return resolve_credentials(c, o);
}

static void wipe_free(char *s) {
  if (s) memset(s, 0, strlen(s));
  mem_free(s);
}

void s3_config_dispose(s3_config *c) {
  s3_sts_free(c->sts);
  mem_free(c->access_key);
  wipe_free(c->secret_key);
  wipe_free(c->session_token);
  mem_free(c->region);
  mem_free(c->endpoint);
  mem_free(c->profile);
  memset(c, 0, sizeof *c);
}
