/*
 * Microsoft Entra ID (Azure AD) access tokens for the Azure back end from
 * client credentials: POST client_id, client_secret and the storage scope to
 * <authority>/<tenant>/oauth2/v2.0/token (the OAuth 2.0 client credentials
 * grant), then reuse the token until shortly before it expires. One cache
 * per store, shared by every thread (a mutex guards it; one thread fetches
 * while the others wait for its result).
 */
#ifndef DELTAC_STORAGE_AZURE_TOKEN_H
#define DELTAC_STORAGE_AZURE_TOKEN_H

#include <stddef.h>

#include "storage/http.h"
#include "util/buf.h"

typedef struct azure_token_cache azure_token_cache;

/* The strings are copied; `http` gives the timeouts, user agent and CA
 * bundle. */
int azure_token_cache_new(azure_token_cache **out, const char *authority_host, const char *tenant_id,
                          const char *client_id, const char *client_secret, const http_config *http);
void azure_token_cache_free(azure_token_cache *c);

/* Append "Bearer <token>" to `out`, fetching a token when there is none or
 * it expires within a minute. Errors name the token endpoint and the
 * status with the server's error code, never the secret or a token. */
int azure_token_get(azure_token_cache *c, delta_buf *out);

/* Parse a token endpoint's JSON answer: the access_token into `token`
 * (replacing its content) and expires_in (seconds; a number or a numeric
 * string) into *expires_in. DELTA_ECORRUPT when either is missing. For the
 * unit tests too. */
int azure_token_parse(const char *json, size_t len, delta_buf *token, long *expires_in);

#endif
