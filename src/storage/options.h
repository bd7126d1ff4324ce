/*
 * Storage options: the key/value settings of delta_storage_open_options,
 * named as delta-rs and object_store name them and matched
 * case-insensitively. Values are kept as given; the back end decides what
 * is missing and where else to look (environment, profiles).
 */
#ifndef DELTAC_STORAGE_OPTIONS_H
#define DELTAC_STORAGE_OPTIONS_H

#include <stddef.h>

typedef struct {
  char *access_key_id, *secret_access_key, *session_token; /* NULL = not given */
  char *region, *endpoint, *profile, *user_agent;
  int allow_http;          /* -1 = not given, else 0/1 */
  int virtual_hosted;      /* -1 = not given, else 0/1 */
  long timeout_ms;         /* -1 = not given */
  long connect_timeout_ms; /* -1 = not given */
  long retry_timeout_ms;   /* -1 = not given */
  int max_retries;         /* -1 = not given */
  /* S3 commits, credentials and the HTTP proxy */
  char *conditional_put;     /* aws_conditional_put: "etag" (default) or "none" */
  int allow_unsafe_rename;   /* aws_s3_allow_unsafe_rename; -1 = not given */
  char *proxy_url;           /* proxy_url (any HTTP store) */
  char *sts_endpoint;        /* aws_sts_endpoint */
  char *web_identity_token_file, *role_arn, *role_session_name;
  /* Azure (azure.c, azure_config.c); NULL / -1 = not given. */
  char *azure_account, *azure_key, *azure_sas, *azure_token;
  char *azure_client_id, *azure_client_secret, *azure_tenant_id, *azure_authority_host;
  char *azure_endpoint;
  int azure_use_emulator;
  /* Google Cloud Storage (gcs.c) */
  char *google_sa_path;      /* google_service_account / google_application_credentials */
  char *google_sa_key;       /* google_service_account_key: the key file's JSON itself */
  char *google_bearer_token; /* google_bearer_token */
  char *google_endpoint;     /* google_endpoint_url */
} storage_options;

/* Parse `n` pairs into `o` (which it initialises). An unknown key or a bad
 * value is DELTA_EINVAL naming the key (never the value: it may be a
 * secret). Free with storage_options_dispose, also after a failure. */
int storage_options_parse(storage_options *o, const char *const *keys, const char *const *values,
                          size_t n);
void storage_options_dispose(storage_options *o);

/* "true"/"false" (also 1/0, yes/no, on/off, any case) into 1/0; -1 when not
 * a boolean. */
int storage_parse_bool(const char *v);

/* A duration: a number with an optional unit ms, s, m, h (or the words
 * "seconds", "secs", "minutes", ...); a bare number is seconds. Returns the
 * milliseconds, or -1 when malformed. */
long storage_parse_duration_ms(const char *v);

#endif
