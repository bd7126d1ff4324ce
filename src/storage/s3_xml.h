/*
 * The little XML the S3 back end reads: ListObjectsV2 results and error
 * documents. Not a general XML parser: it walks elements and text, skips the
 * prolog, comments and processing instructions, decodes the five named
 * entities and numeric character references, and refuses anything malformed
 * (unterminated tags, bad references) rather than guessing. Every read is
 * bounded by the document's length, so hostile input cannot run past it.
 */
#ifndef DELTAC_STORAGE_S3_XML_H
#define DELTAC_STORAGE_S3_XML_H

#include <stddef.h>

#include "util/buf.h"

typedef enum { S3_XML_OPEN, S3_XML_CLOSE, S3_XML_TEXT, S3_XML_END } s3_xml_kind;

typedef struct {
  const char *p, *end;
  const char *pending; /* a self-closing element's name, to close next */
  size_t pending_len;
} s3_xml;

#define S3_XML_INIT(doc, n) {(doc), (doc) + (n), NULL, 0}

/* The next event: an element's name (OPEN, CLOSE; a self-closing element
 * gives OPEN then CLOSE), raw text between tags (TEXT, still entity-encoded),
 * or END. DELTA_ECORRUPT on malformed input. */
int s3_xml_next(s3_xml *x, s3_xml_kind *kind, const char **s, size_t *len);

/* Append raw text with its entities decoded (DELTA_ECORRUPT when bad). */
int s3_xml_decode(delta_buf *out, const char *s, size_t len);

/* The decoded text of the first element named `name` anywhere in the
 * document, appended to `out`; 1 when there is none, 0 when found. */
int s3_xml_find(const char *doc, size_t len, const char *name, delta_buf *out);

#endif
