/*
 * The S3 back end's XML reader (see s3_xml.h).
 */
#include "storage/s3_xml.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/error_internal.h"

static int corrupt(void) { return err_set(DELTA_ECORRUPT, "malformed XML in an S3 response"); }

/* Position of `needle` in [p, end), or NULL. */
static const char *find(const char *p, const char *end, const char *needle) {
  size_t n = strlen(needle);
  for (; p + n <= end; p++)
    if (memcmp(p, needle, n) == 0) return p;
  return NULL;
}

int s3_xml_next(s3_xml *x, s3_xml_kind *kind, const char **s, size_t *len) {
  if (x->pending) {
    *kind = S3_XML_CLOSE;
    *s = x->pending;
    *len = x->pending_len;
    x->pending = NULL;
    return 0;
  }
  for (;;) {
    if (x->p >= x->end) {
      *kind = S3_XML_END;
      return 0;
    }
    if (*x->p != '<') {
      const char *lt = memchr(x->p, '<', (size_t)(x->end - x->p));
      const char *stop = lt ? lt : x->end;
      *kind = S3_XML_TEXT;
      *s = x->p;
      *len = (size_t)(stop - x->p);
      x->p = stop;
      return 0;
    }
    const char *q = x->p + 1;
    if (q < x->end && (*q == '?' || *q == '!')) {
      /* Prolog, comment, DOCTYPE or CDATA: S3 puts nothing we read there. */
      const char *close = (x->end - q >= 3 && memcmp(q, "!--", 3) == 0)
                              ? find(q, x->end, "-->")
                              : memchr(q, '>', (size_t)(x->end - q));
      if (!close) return corrupt();
      x->p = close + 1;
      continue;
    }
    const char *gt = memchr(q, '>', (size_t)(x->end - q));
    if (!gt) return corrupt();
    int closing = q < gt && *q == '/';
    if (closing) q++;
    const char *name = q;
    while (q < gt && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n' && *q != '/') q++;
    if (q == name) return corrupt();
    *s = name;
    *len = (size_t)(q - name);
    *kind = closing ? S3_XML_CLOSE : S3_XML_OPEN;
    if (!closing && gt[-1] == '/') {
      x->pending = name;
      x->pending_len = *len;
    }
    x->p = gt + 1;
    return 0;
  }
}

/* Append code point `cp` as UTF-8. */
static int put_utf8(delta_buf *out, uint32_t cp) {
  char b[4];
  size_t n;
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return corrupt();
  if (cp < 0x80) {
    b[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return buf_append(out, b, n);
}

int s3_xml_decode(delta_buf *out, const char *s, size_t len) {
  static const struct {
    const char *name;
    char c;
  } named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
  int rc;
  for (size_t i = 0; i < len;) {
    if (s[i] != '&') {
      size_t j = i;
      while (j < len && s[j] != '&') j++;
      if ((rc = buf_append(out, s + i, j - i)) != 0) return rc;
      i = j;
      continue;
    }
    const char *semi = memchr(s + i, ';', len - i < 12 ? len - i : 12);
    if (!semi) return corrupt();
    const char *r = s + i + 1;
    size_t rl = (size_t)(semi - r);
    if (rl >= 2 && r[0] == '#') {
      uint32_t cp = 0;
      int hex = r[1] == 'x' || r[1] == 'X';
      size_t k = hex ? 2 : 1;
      if (k == rl) return corrupt();
      for (; k < rl; k++) {
        char c = r[k];
        int d = c >= '0' && c <= '9' ? c - '0'
                : hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                                : -1;
        if (d < 0 || cp > 0x10FFFF) return corrupt();
        cp = cp * (hex ? 16u : 10u) + (uint32_t)d;
      }
      if ((rc = put_utf8(out, cp)) != 0) return rc;
    } else {
      size_t j = 0;
      while (j < 5 && !(strlen(named[j].name) == rl && memcmp(named[j].name, r, rl) == 0)) j++;
      if (j == 5) return corrupt();
      if ((rc = buf_putc(out, named[j].c)) != 0) return rc;
    }
    i = (size_t)(semi - s) + 1;
  }
  return 0;
}

int s3_xml_find(const char *doc, size_t len, const char *name, delta_buf *out) {
  s3_xml x = S3_XML_INIT(doc, len);
  size_t nl = strlen(name);
  int rc, inside = 0;
  for (;;) {
    s3_xml_kind k;
    const char *s;
    size_t l;
    if ((rc = s3_xml_next(&x, &k, &s, &l)) != 0) return rc;
    if (k == S3_XML_END) return 1;
    bool is_name = l == nl && memcmp(s, name, nl) == 0;
    if (k == S3_XML_OPEN && is_name) inside = 1;
    else if (k == S3_XML_CLOSE && is_name && inside) return 0;
    else if (k == S3_XML_TEXT && inside && (rc = s3_xml_decode(out, s, l)) != 0) return rc;
  }
}
