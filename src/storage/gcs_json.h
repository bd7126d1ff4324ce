/*
 * A small pull reader for the few JSON documents the GCS back end reads:
 * object listings and metadata, error documents, OAuth2 token responses and
 * service-account key files. The library's JSON parser lives in json/, a
 * separate module of the same layer; the storage back ends keep to their
 * own needs (as s3_xml.c does for S3) and read documents of a known shape
 * member by member, skipping whatever they do not know.
 *
 * Usage: gcs_json j = GCS_JSON_INIT(doc, len); gcs_json_object(&j), then
 * while ((rc = gcs_json_member(&j, &key)) == 1) { ...read or skip the value }.
 * Every function returns 0 (or 1 for "another member/element"), or
 * DELTA_ECORRUPT for malformed input (message without document text).
 */
#ifndef DELTAC_STORAGE_GCS_JSON_H
#define DELTAC_STORAGE_GCS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct {
  const char *p, *end;
  int depth;
  bool opened; /* the last token was '{' or '[' */
} gcs_json;

#define GCS_JSON_INIT(doc, len) {(doc), (doc) + (len), 0, false}

/* The next value's first character ('{', '[', '"', 'n', 't', 'f', or a
 * digit/'-'), or 0 at the end of the input. */
char gcs_json_peek(gcs_json *j);
/* Enter an object / array at the cursor. */
int gcs_json_object(gcs_json *j);
int gcs_json_array(gcs_json *j);
/* Next member of the object entered: 1 with its name decoded into `key`
 * (replacing its contents, NUL-ended, the NUL not counted) and the cursor on
 * its value; 0 at the closing '}'. */
int gcs_json_member(gcs_json *j, delta_buf *key);
/* Next element of the array entered: 1 with the cursor on it; 0 at ']'. */
int gcs_json_element(gcs_json *j);
/* A string value, decoded (escapes, \u surrogate pairs to UTF-8) and
 * appended to `out` followed by a NUL that is not counted. */
int gcs_json_string(gcs_json *j, delta_buf *out);
/* An integer value, given as a JSON number or as a decimal string (GCS
 * sends int64 fields such as "size" as strings). */
int gcs_json_int(gcs_json *j, int64_t *out);
/* Skip one value of any kind. */
int gcs_json_skip(gcs_json *j);

#endif
