/*
 * Azure Storage "Shared Key" authorization for the Azure back end (azure.c),
 * written from the "Authorize with Shared Key" page of the Azure Storage REST
 * documentation (the Blob service form, version 2009-09-19 and later), and
 * the encodings it needs: base64 for keys and block ids, and the percent-
 * encoding of blob names in URLs. tests/unit/storage/test_azure_auth.c checks
 * the strings against the documentation's examples and the signature against
 * an HMAC computed independently.
 *
 * Nothing here formats a key into a message: the only output that depends on
 * key material is the signature.
 */
#ifndef DELTAC_STORAGE_AZURE_AUTH_H
#define DELTAC_STORAGE_AZURE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "util/buf.h"

/* A request header: standard ones fill the string-to-sign's fixed slots
 * (matched case-insensitively), x-ms-* ones are canonicalized; others are
 * not signed. */
typedef struct {
  const char *name;
  const char *value;
} azure_header;

/* Append `len` bytes of `s` percent-encoded for a URL path (keep_slash) or a
 * query value: every byte but A-Za-z0-9-_.~ becomes %XX. */
int azure_uri_encode(delta_buf *out, const char *s, size_t len, bool keep_slash);

/* Standard base64 with padding (RFC 4648). decode: DELTA_EINVAL on anything
 * else (whitespace included); the message never shows the input. */
int azure_base64_encode(delta_buf *out, const void *data, size_t len);
int azure_base64_decode(delta_buf *out, const char *s, size_t len);

/* `t` as the x-ms-date form "Sun, 11 Oct 2009 21:49:13 GMT" (30 bytes with
 * the NUL; the buffer is 64 for any year). */
void azure_http_date(time_t t, char out[64]);

/* The canonicalized resource: "/" account, the encoded URI path as sent
 * (starting with '/'), then each query parameter (raw, not encoded) as
 * "\nname:value", names lower-cased and sorted, the values of a repeated
 * name sorted and joined by ','. */
int azure_canonical_resource(delta_buf *out, const char *account, const char *path,
                             const char *const *qnames, const char *const *qvalues, size_t nq);

/* The whole string-to-sign of a Blob service request: the verb, the
 * eleven standard header slots (Content-Length empty when "0"), the
 * canonicalized x-ms-* headers and the canonicalized resource. At most 32
 * headers (DELTA_EINVAL). */
int azure_string_to_sign(delta_buf *out, const char *method, const azure_header *headers,
                         size_t nh, const char *account, const char *path,
                         const char *const *qnames, const char *const *qvalues, size_t nq);

/* Append "SharedKey account:signature" for `string_to_sign`, the signature
 * being base64(HMAC-SHA256(key, string_to_sign)) with the DECODED key. */
int azure_sharedkey_authorization(delta_buf *out, const char *account, const unsigned char *key,
                                  size_t key_len, const char *string_to_sign, size_t sts_len);

#endif
