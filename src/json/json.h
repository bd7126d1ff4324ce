/*
 * Strict JSON (RFC 8259) reader for Delta log actions, _last_checkpoint,
 * schemas and stats.
 *
 * json_parse() validates the whole document in one pass and records
 * one token per value (and per object key) in document order; the accessors
 * below then walk those tokens without further checks or allocation. The text
 * is not copied: the document points into it.
 *
 * Accepted is exactly RFC 8259 JSON, plus these decisions:
 *  - strings must be valid UTF-8, and \u escapes must form valid code points
 *    (a lone or reversed surrogate is an error), so every string converts;
 *  - nesting deeper than DELTA_JSON_MAX_DEPTH arrays/objects is an error;
 *  - duplicate keys are kept; json_get() returns the FIRST one;
 *  - leading/trailing JSON whitespace is allowed, anything else after the
 *    value (including a NUL byte or a second value) is an error.
 * Errors are DELTA_ECORRUPT "invalid JSON at byte N: <why>" (N from 0).
 *
 * Work and memory are linear in the input, no recursion: a valid document
 * has at most len/2+1 tokens (24 bytes each); the array is capped at
 * len/2+2+DELTA_JSON_MAX_DEPTH because a truncated prefix like "[[[[" can
 * hold one more per unclosed bracket before the error is found.
 */
#ifndef DELTAC_JSON_JSON_H
#define DELTAC_JSON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define DELTA_JSON_MAX_DEPTH 128

typedef struct delta_json_doc delta_json_doc;

/* A reusable document: keep one per thread and parse line after line; its
 * token array is kept between parses. */
int json_doc_new(delta_json_doc **out);
void json_doc_free(delta_json_doc *d);

/* Parse text[0..len) (no NUL terminator needed). The document keeps a
 * pointer to `text`, which must outlive every use of the values. On error
 * the document is empty (its root is absent). Documents over 2 GiB fail
 * with DELTA_ELIMIT. */
int json_parse(delta_json_doc *d, const char *text, size_t len);

/* A value inside a parsed document; tok < 0 means absent. Valid until the
 * document is parsed again or freed. Every accessor accepts absent values. */
typedef struct {
  const delta_json_doc *doc;
  int tok;
} delta_json_val;

typedef enum {
  DELTA_JSON_ABSENT,
  DELTA_JSON_NULL,
  DELTA_JSON_BOOL,
  DELTA_JSON_NUMBER,
  DELTA_JSON_STRING,
  DELTA_JSON_ARRAY,
  DELTA_JSON_OBJECT
} delta_json_type;

delta_json_val json_root(const delta_json_doc *d);
delta_json_type json_typeof(delta_json_val v);
static inline bool json_present(delta_json_val v) { return v.tok >= 0; }
/* "string", "object", ...; "nothing" for absent. */
const char *json_type_name(delta_json_type t);

/* The member `key` of an object (compared after unescaping the stored key);
 * absent when v is not an object or has no such key. With duplicate keys
 * the first wins. Linear in the number of members (skips nested values in
 * O(1) each). */
delta_json_val json_get(delta_json_val obj, const char *key);
delta_json_val json_get_n(delta_json_val obj, const char *key, size_t keylen);

/* Iteration:
 *   for (delta_json_val m = json_first(o); json_present(m);
 *        m = json_next(m)) { json_key(m, &k); ... }
 * len: members of an object or elements of an array, 0 for anything else.
 * first: the first element, or the VALUE of the first member; absent when
 * empty or not a container. next: the following element / member value of
 * the same parent, absent after the last (and for the root). */
int json_len(delta_json_val v);
delta_json_val json_first(delta_json_val v);
delta_json_val json_next(delta_json_val v);

/* The key of an object member value (as returned by get/first/next), unescaped
 * into `out` (reset first), NUL-terminated (out->len excludes the NUL).
 * DELTA_EINVAL if v is not a member of an object. */
int json_key(delta_json_val member_value, delta_buf *out);
/* Zero-copy view of the key as it appears in the text (without quotes). */
int json_key_raw(delta_json_val member_value, const char **p, size_t *n,
                       bool *has_escapes);

/* Scalars. A value of another type (or absent) fails with DELTA_ECORRUPT
 * "expected <type>, got <type>"; callers add the field name with
 * err_prefix(). */

/* The string unescaped (valid UTF-8; may contain U+0000 as a 0 byte) into
 * `out` (reset first), NUL-terminated, out->len excluding the NUL. */
int json_string(delta_json_val v, delta_buf *out);
/* Zero-copy view of the string's bytes between the quotes, still escaped
 * when *has_escapes. */
int json_string_raw(delta_json_val v, const char **p, size_t *n, bool *has_escapes);
/* True iff v is a string whose unescaped value equals the C string s. */
bool json_string_eq(delta_json_val v, const char *s);
/* Exact integer: "-0" is 0; a fraction or exponent ("1.0", "1e3") or a value
 * outside int64 fails with DELTA_ECORRUPT. */
int json_int64(delta_json_val v, int64_t *out);
/* Correctly rounded; values beyond the double range fail with
 * DELTA_ECORRUPT, tiny ones become 0 or subnormal. Locale-independent. */
int json_double(delta_json_val v, double *out);
int json_bool(delta_json_val v, bool *out);

/* The raw JSON text of any value (strings with their quotes); NULL/0 when
 * absent. Points into the parsed text. */
void json_raw(delta_json_val v, const char **p, size_t *n);

#endif
