/*
 * The S3 back end's resolved settings: options first, then the environment,
 * then the AWS profile files (s3_config.c says which variable and file).
 */
#ifndef DELTAC_STORAGE_S3_CONFIG_H
#define DELTAC_STORAGE_S3_CONFIG_H

#include <stdbool.h>

#include "storage/http.h"
#include "storage/options.h"
#include "storage/s3_sts.h"

typedef struct {
  char *access_key, *secret_key, *session_token; /* NULL: unsigned requests */
  char *region;                                  /* never NULL after resolve */
  char *endpoint;                                /* NULL: AWS's own */
  char *profile;
  int allow_http, virtual_hosted;                /* 0/1 */
  int conditional_put;                           /* 1: If-None-Match works (aws_conditional_put
                                                    "etag", the default); 0: "none" */
  int allow_unsafe_rename;                       /* aws_s3_allow_unsafe_rename */
  s3_sts *sts;                                   /* web identity: credentials come from here
                                                    (access_key etc. stay NULL); or NULL */
  http_config http;                              /* user_agent, proxy_url borrowed from the
                                                    options */
} s3_config;

int s3_config_resolve(s3_config *c, const storage_options *o);
void s3_config_dispose(s3_config *c);

/* `key` of AWS profile `profile` from the credentials, then the config
 * file: 0 and a new string in *out, 1 when absent, or a negative code. */
int s3_profile_get(const char *profile, const char *key, char **out);

#endif
