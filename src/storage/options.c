/*
 * Storage options (see options.h).
 */
#include "storage/options.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

int storage_parse_bool(const char *v) {
  static const char *yes[] = {"true", "1", "yes", "on"}, *no[] = {"false", "0", "no", "off"};
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(v, yes[i]) == 0) return 1;
    if (strcasecmp(v, no[i]) == 0) return 0;
  }
  return -1;
}

long storage_parse_duration_ms(const char *v) {
  static const struct {
    const char *unit;
    long ms;
  } units[] = {{"", 1000},         {"ms", 1},         {"millis", 1},      {"milliseconds", 1},
               {"s", 1000},        {"sec", 1000},     {"secs", 1000},     {"second", 1000},
               {"seconds", 1000},  {"m", 60000},      {"min", 60000},     {"mins", 60000},
               {"minute", 60000},  {"minutes", 60000}, {"h", 3600000},    {"hour", 3600000},
               {"hours", 3600000}};
  char *end;
  while (isspace((unsigned char)*v)) v++;
  if (!isdigit((unsigned char)*v)) return -1;
  double x = strtod(v, &end);
  while (isspace((unsigned char)*end)) end++;
  size_t ul = strlen(end);
  while (ul && isspace((unsigned char)end[ul - 1])) ul--;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strlen(units[i].unit) == ul && strncasecmp(end, units[i].unit, ul) == 0) {
      double ms = x * (double)units[i].ms;
      return ms >= 0 && ms < 1e15 ? (long)ms : -1;
    }
  }
  return -1;
}

typedef enum { K_STR, K_BOOL, K_DURATION, K_COUNT } kind;

typedef struct {
  const char *name;
  kind k;
  size_t off;
} option;

#define OFF(f) offsetof(storage_options, f)

/* delta-rs/object_store names; "aws_endpoint" and the unprefixed
 * "allow_http" are their aliases too. */
static const option OPTIONS[] = {
    {"aws_access_key_id", K_STR, OFF(access_key_id)},
    {"aws_secret_access_key", K_STR, OFF(secret_access_key)},
    {"aws_session_token", K_STR, OFF(session_token)},
    {"aws_region", K_STR, OFF(region)},
    {"aws_endpoint_url", K_STR, OFF(endpoint)},
    {"aws_endpoint", K_STR, OFF(endpoint)},
    {"aws_allow_http", K_BOOL, OFF(allow_http)},
    {"allow_http", K_BOOL, OFF(allow_http)},
    {"aws_virtual_hosted_style_request", K_BOOL, OFF(virtual_hosted)},
    {"aws_profile", K_STR, OFF(profile)},
    {"timeout", K_DURATION, OFF(timeout_ms)},
    {"connect_timeout", K_DURATION, OFF(connect_timeout_ms)},
    {"retry_timeout", K_DURATION, OFF(retry_timeout_ms)},
    {"max_retries", K_COUNT, OFF(max_retries)},
    {"user_agent", K_STR, OFF(user_agent)},
    /* S3 commits without conditional writes, web identity, the HTTP proxy */
    {"aws_conditional_put", K_STR, OFF(conditional_put)},
    {"aws_s3_allow_unsafe_rename", K_BOOL, OFF(allow_unsafe_rename)},
    {"proxy_url", K_STR, OFF(proxy_url)},
    {"aws_sts_endpoint", K_STR, OFF(sts_endpoint)},
    {"aws_web_identity_token_file", K_STR, OFF(web_identity_token_file)},
    {"aws_role_arn", K_STR, OFF(role_arn)},
    {"aws_role_session_name", K_STR, OFF(role_session_name)},
    /* Azure, with object_store's azure_storage_* aliases. */
    {"azure_storage_account_name", K_STR, OFF(azure_account)},
    {"azure_storage_account_key", K_STR, OFF(azure_key)},
    {"azure_storage_access_key", K_STR, OFF(azure_key)},
    {"azure_storage_sas_token", K_STR, OFF(azure_sas)},
    {"azure_storage_sas_key", K_STR, OFF(azure_sas)},
    {"azure_storage_token", K_STR, OFF(azure_token)},
    {"azure_client_id", K_STR, OFF(azure_client_id)},
    {"azure_storage_client_id", K_STR, OFF(azure_client_id)},
    {"azure_client_secret", K_STR, OFF(azure_client_secret)},
    {"azure_storage_client_secret", K_STR, OFF(azure_client_secret)},
    {"azure_tenant_id", K_STR, OFF(azure_tenant_id)},
    {"azure_storage_tenant_id", K_STR, OFF(azure_tenant_id)},
    {"azure_authority_host", K_STR, OFF(azure_authority_host)},
    {"azure_storage_use_emulator", K_BOOL, OFF(azure_use_emulator)},
    {"azure_storage_endpoint", K_STR, OFF(azure_endpoint)},
    /* Google Cloud Storage: object_store's names and aliases. */
    {"google_service_account", K_STR, OFF(google_sa_path)},
    {"google_service_account_path", K_STR, OFF(google_sa_path)},
    {"google_application_credentials", K_STR, OFF(google_sa_path)},
    {"google_service_account_key", K_STR, OFF(google_sa_key)},
    {"google_bearer_token", K_STR, OFF(google_bearer_token)},
    {"google_endpoint_url", K_STR, OFF(google_endpoint)},
};

int storage_options_parse(storage_options *o, const char *const *keys, const char *const *values,
                          size_t n) {
  memset(o, 0, sizeof *o);
  o->allow_http = o->virtual_hosted = -1;
  o->timeout_ms = o->connect_timeout_ms = o->retry_timeout_ms = -1;
  o->max_retries = -1;
  o->allow_unsafe_rename = -1;
  o->azure_use_emulator = -1;
  for (size_t i = 0; i < n; i++) {
    const char *k = keys[i], *v = values[i];
    if (!k || !v) return err_set(DELTA_EINVAL, "storage option %zu: NULL key or value", i);
    const option *opt = NULL;
    for (size_t j = 0; j < sizeof OPTIONS / sizeof OPTIONS[0]; j++)
      if (strcasecmp(k, OPTIONS[j].name) == 0) opt = &OPTIONS[j];
    if (!opt) return err_set(DELTA_EINVAL, "unknown storage option '%s'", k);
    char *field = (char *)o + opt->off;
    switch (opt->k) {
    case K_STR: {
      char **s = (char **)(void *)field;
      mem_free(*s); /* a later pair wins */
      if (!(*s = mem_strdup(v))) return DELTA_NOMEM();
      break;
    }
    case K_BOOL: {
      int b = storage_parse_bool(v);
      if (b < 0) return err_set(DELTA_EINVAL, "storage option '%s': not a boolean", k);
      *(int *)(void *)field = b;
      break;
    }
    case K_DURATION: {
      long ms = storage_parse_duration_ms(v);
      if (ms < 0)
        return err_set(DELTA_EINVAL, "storage option '%s': not a duration (e.g. 30s, 500ms)", k);
      *(long *)(void *)field = ms;
      break;
    }
    case K_COUNT: {
      char *end;
      long c = strtol(v, &end, 10);
      if (!*v || *end || c < 0 || c > 1000)
        return err_set(DELTA_EINVAL, "storage option '%s': not a count from 0 to 1000", k);
      *(int *)(void *)field = (int)c;
      break;
    }
    }
  }
  return 0;
}

void storage_options_dispose(storage_options *o) {
  /* Every string is wiped before it is freed: several hold secrets, and
   * the options live as long as a table. */
  char *all[] = {o->access_key_id, o->secret_access_key, o->session_token, o->region,
                 o->endpoint, o->profile, o->user_agent, o->conditional_put, o->proxy_url,
                 o->sts_endpoint, o->web_identity_token_file, o->role_arn,
                 o->role_session_name, o->azure_account, o->azure_key, o->azure_sas,
                 o->azure_token, o->azure_client_id, o->azure_client_secret,
                 o->azure_tenant_id, o->azure_authority_host, o->azure_endpoint,
                 o->google_sa_path, o->google_sa_key, o->google_bearer_token,
                 o->google_endpoint};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    if (all[i]) explicit_bzero(all[i], strlen(all[i]));
    mem_free(all[i]);
  }
  memset(o, 0, sizeof *o);
}
