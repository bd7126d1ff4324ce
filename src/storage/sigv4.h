/*
 * AWS Signature Version 4 for the S3 back end (s3.c): canonical requests,
 * the AWS flavour of URI encoding, and the Authorization header. Written from
 * AWS's "Signature Version 4 signing process" documentation; the unit tests
 * (tests/unit/storage/test_sigv4.c) check it against AWS's published example
 * requests and signatures.
 *
 * Nothing here logs or formats a secret into an error message: the only
 * output holding key material is the signature itself.
 */
#ifndef DELTAC_STORAGE_SIGV4_H
#define DELTAC_STORAGE_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "util/buf.h"

/* SHA-256 of the empty string: the payload hash of GET, HEAD and DELETE. */
#define SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

typedef struct {
  const char *access_key;
  const char *secret_key;
  const char *region;  /* e.g. "us-east-1" */
  const char *service; /* "s3" */
} sigv4_key;

/* A request header to sign. Names are matched case-insensitively and signed
 * lower-cased; values are signed with leading/trailing blanks removed and
 * inner runs of blanks folded to one space, as AWS does. */
typedef struct {
  const char *name;
  const char *value;
} sigv4_header;

/* Append `len` bytes of `s` encoded the AWS way: every byte but the
 * unreserved A-Za-z0-9-_.~ becomes %XX (upper-case hex); '/' is kept when
 * `keep_slash` (object key paths) and escaped otherwise (query values). */
int sigv4_uri_encode(delta_buf *out, const char *s, size_t len, bool keep_slash);

/* Append the canonical query string of `n` name/value pairs (raw, not yet
 * encoded; a NULL value is an empty one): each encoded, sorted by encoded
 * name then value, joined as "a=1&b=". */
int sigv4_canonical_query(delta_buf *out, const char *const *names, const char *const *values,
                          size_t n);

/* Lower-case hex SHA-256 of `data` into `hex` (65 bytes with the NUL). */
void sigv4_sha256_hex(const void *data, size_t len, char hex[65]);

/* `t` as the x-amz-date form "YYYYMMDDTHHMMSSZ" (17 bytes with the NUL). */
void sigv4_amz_date(time_t t, char out[17]);

/* Append the value of the Authorization header for a request:
 *   method        "GET", "PUT", ...
 *   path          the canonical URI: already encoded (sigv4_uri_encode with
 *                 keep_slash), starting with '/'
 *   query         the canonical query string ("" when none)
 *   headers       every header to sign; must include host and x-amz-date (and
 *                 x-amz-content-sha256 / x-amz-security-token when sent)
 *   amz_date      the request's x-amz-date value
 *   payload_hash  hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
 * DELTA_EINVAL for more than 32 headers or a malformed date. */
int sigv4_authorization(delta_buf *out, const sigv4_key *key, const char *method, const char *path,
                        const char *query, const sigv4_header *headers, size_t n_headers,
                        const char *amz_date, const char *payload_hash);

/* The canonical request alone (what sigv4_authorization hashes); for tests
 * and for debugging a SignatureDoesNotMatch (it holds no secret). */
int sigv4_canonical_request(delta_buf *out, const char *method, const char *path,
                            const char *query, const sigv4_header *headers, size_t n_headers,
                            const char *payload_hash);

/* The signing key HMAC chain (kSigning) for `date` "YYYYMMDD"; for tests. */
void sigv4_signing_key(const sigv4_key *key, const char *date, unsigned char out[32]);

#endif
