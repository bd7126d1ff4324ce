/*
 * S3 credentials from a web identity: AWS STS AssumeRoleWithWebIdentity
 * with the token in AWS_WEB_IDENTITY_TOKEN_FILE (a Kubernetes service
 * account token, say) for the role AWS_ROLE_ARN. The request is unsigned
 * (the token is the proof); the answer is a temporary key pair and session
 * token, kept until shortly before they expire and then fetched again. One
 * provider serves every thread of a store: s3_sts_get hands out copies, and
 * a refresh happens under a lock (one thread fetches, the others wait for
 * its result).
 */
#ifndef DELTAC_STORAGE_S3_STS_H
#define DELTAC_STORAGE_S3_STS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/http.h"

typedef struct {
  char *access_key, *secret_key, *session_token;
} s3_creds;

/* Wipe the secrets and free them. */
void s3_creds_dispose(s3_creds *c);

typedef struct s3_sts s3_sts;

/* A provider for `role_arn` with the token read (again at every refresh)
 * from `token_file`. `endpoint` is the STS URL (https://sts.REGION.amazonaws.com
 * unless overridden); http:// only with allow_http. `session_name` NULL =
 * "deltac-<unix time>". Fetches nothing yet. */
int s3_sts_new(s3_sts **out, const char *endpoint, const char *role_arn, const char *session_name,
               const char *token_file, bool allow_http, const http_config *http);
void s3_sts_free(s3_sts *p);

/* Current credentials (copies for the caller to dispose), fetched when
 * there are none yet or they expire within the refresh margin. */
int s3_sts_get(s3_sts *p, s3_creds *out);

/* Read the Credentials of an AssumeRoleWithWebIdentity response: 0, or
 * DELTA_ECORRUPT when the key id or secret is missing (an empty or missing
 * SessionToken leaves session_token NULL). *expires_ms = 0 when the
 * Expiration is absent or unreadable. */
int s3_sts_parse(const char *doc, size_t len, s3_creds *out, int64_t *expires_ms);

#endif
