/*
 * GCS credentials: a static bearer token, or a service account whose key
 * signs a JWT (RS256) that Google's OAuth2 token endpoint exchanges for an
 * access token (RFC 7523, "JWT bearer" grant). Access tokens are cached
 * until shortly before they expire; one handle serves many threads.
 *
 * Nothing secret (the key, the JWT, a token) ever goes into a message.
 */
#ifndef DELTAC_STORAGE_GCS_AUTH_H
#define DELTAC_STORAGE_GCS_AUTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "storage/http.h"
#include "util/buf.h"

/* A service-account key file's parts (type "service_account"). */
typedef struct gcs_sa {
  char *client_email;
  char *token_uri;
  void *rsa; /* nettle public and private key, opaque here */
} gcs_sa;

/* Parse a service-account key file's JSON. `source` names it in messages
 * (a path, or "google_service_account_key"). DELTA_EINVAL for anything
 * unusable; the message never quotes the key. */
int gcs_sa_parse(gcs_sa *sa, const char *json, size_t len, const char *source);
void gcs_sa_dispose(gcs_sa *sa);

/* The signed JWT for `sa` issued at `iat` (seconds since the epoch),
 * appended to `out` NUL-ended (NUL not counted):
 * base64url(header) "." base64url(claims) "." base64url(RS256 signature). */
int gcs_jwt_build(delta_buf *out, const gcs_sa *sa, int64_t iat);

typedef struct {
  char *bearer;        /* static token, or NULL */
  gcs_sa sa;           /* used when sa.rsa is set */
  bool has_sa;
  pthread_mutex_t lock;
  char *token;         /* cached access token from the service account */
  int64_t token_until; /* refresh after this (seconds since the epoch) */
} gcs_auth;

/* Take ownership of `bearer` (may be NULL) and `sa` (may be NULL). With
 * neither, requests go unauthenticated (public buckets). */
int gcs_auth_init(gcs_auth *a, char *bearer, gcs_sa *sa);
void gcs_auth_dispose(gcs_auth *a);

/* Append "Authorization: Bearer <token>" (NUL-ended, NUL not counted) to
 * `out`, fetching a token through `http` when needed; appends nothing
 * without credentials. `label` (the object's gs:// URI) starts messages. */
int gcs_auth_header(gcs_auth *a, http_client *http, const char *label, delta_buf *out);

/* Forget a cached token (after a 401), so that the next request fetches a
 * new one. */
void gcs_auth_invalidate(gcs_auth *a);

#endif
