/*
 * The GCS back end's JSON reader (see gcs_json.h), written from RFC 8259.
 */
#include "storage/gcs_json.h"

#include <stdbool.h>
#include <string.h>

#include "util/error_internal.h"

#define DEPTH_MAX 64 /* GCS documents nest 3 deep; more is hostile */

static int bad(const char *what) { return err_set(DELTA_ECORRUPT, "malformed JSON: %s", what); }

static void ws(gcs_json *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

char gcs_json_peek(gcs_json *j) {
  ws(j);
  return j->p < j->end ? *j->p : 0;
}

static int open_char(gcs_json *j, char c) {
  if (gcs_json_peek(j) != c) return bad(c == '{' ? "expected an object" : "expected an array");
  if (++j->depth > DEPTH_MAX) return bad("nested too deep");
  j->p++;
  j->opened = true;
  return 0;
}

int gcs_json_object(gcs_json *j) { return open_char(j, '{'); }
int gcs_json_array(gcs_json *j) { return open_char(j, '['); }

/* At the start of an item of the innermost object/array: ',' goes on,
 * `close` ends it (1 = an item follows, 0 = closed). Right after the opening
 * bracket no ',' is due; after a complete value, one is. */
static int next_item(gcs_json *j, char close) {
  char c = gcs_json_peek(j);
  bool first = j->opened;
  j->opened = false;
  if (c == close) {
    j->p++;
    j->depth--;
    return 0;
  }
  if (!first) {
    if (c != ',') return bad("expected ',' or a closing bracket");
    j->p++;
  }
  return 1;
}

int gcs_json_member(gcs_json *j, delta_buf *key) {
  int rc = next_item(j, '}');
  if (rc != 1) return rc;
  if (gcs_json_peek(j) != '"') return bad("expected a member name");
  key->len = 0;
  if ((rc = gcs_json_string(j, key)) != 0) return rc;
  if (gcs_json_peek(j) != ':') return bad("expected ':'");
  j->p++;
  ws(j);
  return 1;
}

int gcs_json_element(gcs_json *j) {
  int rc = next_item(j, ']');
  if (rc == 1) ws(j);
  return rc;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

static int put_utf8(delta_buf *out, unsigned cp) {
  unsigned char b[4];
  size_t n;
  if (cp < 0x80) b[0] = (unsigned char)cp, n = 1;
  else if (cp < 0x800) b[0] = (unsigned char)(0xC0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
  else if (cp < 0x10000)
    b[0] = (unsigned char)(0xE0 | cp >> 12), b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)),
    b[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
  else
    b[0] = (unsigned char)(0xF0 | cp >> 18), b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F)),
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (unsigned char)(0x80 | (cp & 0x3F)), n = 4;
  return buf_append(out, b, n);
}

int gcs_json_string(gcs_json *j, delta_buf *out) {
  int rc;
  if (gcs_json_peek(j) != '"') return bad("expected a string");
  j->p++;
  for (;;) {
    const char *run = j->p;
    while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20) j->p++;
    if ((rc = buf_append(out, run, (size_t)(j->p - run))) != 0) return rc;
    if (j->p >= j->end) return bad("unterminated string");
    char c = *j->p++;
    if (c == '"') break;
    if (c != '\\') return bad("control character in a string");
    if (j->p >= j->end) return bad("unterminated string");
    char e = *j->p++;
    const char *simple = strchr("\"\\/bfnrt", e);
    if (e && simple) {
      static const char map[] = "\"\\/\b\f\n\r\t";
      if ((rc = buf_putc(out, map[simple - "\"\\/bfnrt"])) != 0) return rc;
      continue;
    }
    if (e != 'u') return bad("bad escape");
    unsigned cp, lo;
    if (j->end - j->p < 4 || hex4(j->p, &cp) != 0) return bad("bad \\u escape");
    j->p += 4;
    if (cp >= 0xD800 && cp < 0xDC00) {
      if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' || hex4(j->p + 2, &lo) != 0 ||
          lo < 0xDC00 || lo > 0xDFFF)
        return bad("unpaired surrogate");
      j->p += 6;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (cp >= 0xDC00 && cp < 0xE000) {
      return bad("unpaired surrogate");
    }
    if (cp == 0) return bad("NUL in a string");
    if ((rc = put_utf8(out, cp)) != 0) return rc;
  }
  if ((rc = buf_putc(out, '\0')) != 0) return rc;
  out->len--;
  return 0;
}

static int parse_int(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = false;
  uint64_t v = 0;
  if (i < n && s[i] == '-') neg = true, i++;
  if (i == n) return bad("expected an integer");
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return bad("expected an integer");
    if (v > (UINT64_MAX - 9) / 10) return bad("integer out of range");
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v > (uint64_t)INT64_MAX) return bad("integer out of range");
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

int gcs_json_int(gcs_json *j, int64_t *out) {
  delta_buf b = DELTA_BUF_INIT;
  int rc;
  if (gcs_json_peek(j) != '"') {
    const char *s = j->p;
    while (j->p < j->end && (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))) j->p++;
    return parse_int(s, (size_t)(j->p - s), out);
  }
  if ((rc = gcs_json_string(j, &b)) != 0) goto done;
  rc = parse_int((const char *)b.data, b.len, out);
done:
  buf_dispose(&b);
  return rc;
}

int gcs_json_skip(gcs_json *j) {
  int rc;
  char c = gcs_json_peek(j);
  if (c == '"') {
    delta_buf b = DELTA_BUF_INIT;
    rc = gcs_json_string(j, &b);
    buf_dispose(&b);
    return rc;
  }
  if (c == '{' || c == '[') {
    delta_buf key = DELTA_BUF_INIT;
    rc = c == '{' ? gcs_json_object(j) : gcs_json_array(j);
    while (rc == 0) {
      rc = c == '{' ? gcs_json_member(j, &key) : gcs_json_element(j);
      if (rc != 1) break;
      rc = gcs_json_skip(j);
    }
    buf_dispose(&key);
    return rc;
  }
  /* A number or a literal. */
  const char *s = j->p;
  while (j->p < j->end && strchr("+-.0123456789eEtruefalsn", *j->p) && *j->p) j->p++;
  if (j->p == s) return bad("expected a value");
  size_t n = (size_t)(j->p - s);
  if ((c == 't' && !(n == 4 && memcmp(s, "true", 4) == 0)) ||
      (c == 'f' && !(n == 5 && memcmp(s, "false", 5) == 0)) ||
      (c == 'n' && !(n == 4 && memcmp(s, "null", 4) == 0)))
    return bad("bad literal");
  return 0;
}
