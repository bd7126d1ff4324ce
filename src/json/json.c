/*
 * Strict single-pass JSON tokenizer and the value accessors (see json.h).
 *
 * Why not jsmn (the tokenizer the design page measured): Debian's jsmn 1.1.0
 * is quadratic on adversarial input (each closing bracket walks back over
 * earlier tokens: 160 KB of "[[[...]]]" takes 10 s with JSMN_PARENT_LINKS,
 * 240 KB of "[{},{},...]" 2.2 s without), and even with JSMN_STRICT it
 * accepts "[1 2]", "{\"a\" \"b\"}", "[1,]", "{}:}", raw control characters
 * and "-"/"01"/"tru" as primitives, while rejecting a top-level "123".
 * Fixing that needed a second validating pass as large as this tokenizer,
 * so this file does tokenizing and validation together, in one pass, with
 * the depth limit enforced as brackets open. bench/bench_json.c still runs
 * jsmn as the speed reference.
 */
#include "json/json.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "json/json_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

enum { F_ESC = 1, F_FRAC = 2 }; /* string has a backslash; number has '.'/exponent */

/* One value or object key. Keys are tokens too: an object member is the key
 * token immediately followed by its value's tokens. */
typedef struct {
  int32_t start;  /* strings: first byte after the opening quote */
  int32_t end;    /* one past the value (strings: the closing quote) */
  int32_t size;   /* containers: members / elements */
  int32_t parent; /* enclosing container, -1 for the root */
  int32_t next;   /* first token after this value's subtree */
  uint8_t type;   /* delta_json_type */
  uint8_t flags;  /* F_* */
} jtok;

struct delta_json_doc {
  const char *text;
  size_t len;
  jtok *tok;
  size_t cap;
  int32_t ntok;
};

int json_doc_new(delta_json_doc **out) {
  *out = mem_calloc(1, sizeof **out);
  return *out ? 0 : DELTA_NOMEM();
}

void json_doc_free(delta_json_doc *d) {
  if (!d) return;
  mem_free(d->tok);
  mem_free(d);
}

locale_t json_c_locale(void) {
  static _Atomic(locale_t) loc;
  locale_t l = atomic_load(&loc);
  if (l) return l;
  locale_t made = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (!made) return (locale_t)0;
  locale_t expected = (locale_t)0;
  if (!atomic_compare_exchange_strong(&loc, &expected, made)) {
    freelocale(made); /* another thread won the race */
    return expected;
  }
  return made;
}

/* ------------------------------------------------------------ tokenizer */

/* Bytes that end the fast scan inside a string: the quote, a backslash,
 * control characters (must be escaped) and non-ASCII (UTF-8 check). */
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
static const uint8_t str_special[256] = {
    R16(1), R16(1),                                  /* 0x00-0x1f: control */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
    R16(0), R16(0),                                  /* 0x30-0x4f */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50: '\\' */
    R16(0), R16(0),                                  /* 0x60-0x7f */
    R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), /* UTF-8 */
};
#undef R16

static int perr(size_t pos, const char *why) {
  return err_set(DELTA_ECORRUPT, "invalid JSON at byte %zu: %s", pos, why);
}

/* "expected X, found 'c'" or "unexpected end of input (expected X)". */
static int unexpected(const unsigned char *s, size_t n, size_t i, const char *expected) {
  if (i >= n)
    return err_set(DELTA_ECORRUPT, "invalid JSON at byte %zu: unexpected end of input (expected %s)",
                           n, expected);
  if (s[i] >= 0x21 && s[i] < 0x7f)
    return err_set(DELTA_ECORRUPT, "invalid JSON at byte %zu: expected %s, found '%c'", i,
                           expected, s[i]);
  return err_set(DELTA_ECORRUPT, "invalid JSON at byte %zu: expected %s, found byte 0x%02x", i,
                         expected, s[i]);
}

static inline size_t skip_ws(const unsigned char *s, size_t i, size_t n) {
  while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) i++;
  return i;
}

static inline int is_digit(unsigned c) { return c - '0' < 10u; }

static int hexval(unsigned c) {
  if (c - '0' < 10u) return (int)(c - '0');
  c |= 0x20;
  if (c - 'a' < 6u) return (int)(c - 'a' + 10);
  return -1;
}

/* Four hex digits at s[i..i+4) → *cp. */
static int hex4(const unsigned char *s, size_t n, size_t i, uint32_t *cp) {
  uint32_t v = 0;
  for (size_t k = 0; k < 4; k++) {
    if (i + k >= n) return perr(n, "unexpected end of input in \\u escape");
    int h = hexval(s[i + k]);
    if (h < 0) return perr(i + k, "invalid hex digit in \\u escape");
    v = v << 4 | (uint32_t)h;
  }
  *cp = v;
  return 0;
}

/* The escape at s[*pi] (a backslash); surrogates must pair up so that every
 * string converts to UTF-8 later without failing. */
static int check_escape(const unsigned char *s, size_t n, size_t *pi) {
  size_t i = *pi;
  if (i + 1 >= n) return perr(n, "unexpected end of input in string");
  switch (s[i + 1]) {
  case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
    *pi = i + 2;
    return 0;
  case 'u': break;
  default: return perr(i, "invalid escape in string");
  }
  uint32_t cp = 0, lo = 0; /* set by hex4; initialised for -O3 flow analysis */
  int rc = hex4(s, n, i + 2, &cp);
  if (rc) return rc;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return perr(i, "unpaired low surrogate in \\u escape");
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (i + 7 >= n || s[i + 6] != '\\' || s[i + 7] != 'u')
      return perr(i, "unpaired high surrogate in \\u escape");
    if ((rc = hex4(s, n, i + 8, &lo)) != 0) return rc;
    if (lo < 0xDC00 || lo > 0xDFFF) return perr(i, "unpaired high surrogate in \\u escape");
    *pi = i + 12;
    return 0;
  }
  *pi = i + 6;
  return 0;
}

/* One UTF-8 sequence at s[*pi] (a byte >= 0x80): shortest form, no UTF-16
 * surrogates, nothing above U+10FFFF (RFC 3629). */
static int check_utf8(const unsigned char *s, size_t n, size_t *pi) {
  size_t i = *pi;
  unsigned c = s[i], lo = 0x80, hi = 0xBF;
  size_t len;
  if (c < 0xC2) return perr(i, "invalid UTF-8 in string");
  if (c < 0xE0) len = 2;
  else if (c < 0xF0) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c < 0xF5) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else
    return perr(i, "invalid UTF-8 in string");
  if (n - i < len) return perr(n, "unexpected end of input in string");
  if (s[i + 1] < lo || s[i + 1] > hi) return perr(i, "invalid UTF-8 in string");
  for (size_t k = 2; k < len; k++)
    if ((s[i + k] & 0xC0) != 0x80) return perr(i, "invalid UTF-8 in string");
  *pi = i + len;
  return 0;
}

/* The string starting at the quote s[*pi]; leaves *pi on the closing quote. */
static int scan_string(const unsigned char *s, size_t n, size_t *pi, uint8_t *flags) {
  size_t i = *pi + 1;
  int rc;
  for (;;) {
    while (i < n && !str_special[s[i]]) i++;
    if (i >= n) return perr(n, "unexpected end of input in string");
    unsigned c = s[i];
    if (c == '"') break;
    if (c == '\\') {
      *flags |= F_ESC;
      rc = check_escape(s, n, &i);
    } else if (c < 0x20) {
      rc = perr(i, "control character in string (must be escaped)");
    } else {
      rc = check_utf8(s, n, &i);
    }
    if (rc) return rc;
  }
  *pi = i;
  return 0;
}

/* RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(const unsigned char *s, size_t n, size_t *pi, uint8_t *flags) {
  size_t i = *pi;
  if (s[i] == '-') i++;
  if (i >= n) return perr(n, "unexpected end of input in number");
  if (s[i] == '0') {
    i++;
    if (i < n && is_digit(s[i])) return perr(i, "leading zero in number");
  } else if (is_digit(s[i])) {
    while (i < n && is_digit(s[i])) i++;
  } else {
    return perr(i, "expected digit in number");
  }
  if (i < n && s[i] == '.') {
    i++;
    if (i >= n || !is_digit(s[i])) return perr(i, "expected digit after decimal point");
    while (i < n && is_digit(s[i])) i++;
    *flags |= F_FRAC;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= n || !is_digit(s[i])) return perr(i, "expected digit in exponent");
    while (i < n && is_digit(s[i])) i++;
    *flags |= F_FRAC;
  }
  *pi = i;
  return 0;
}

static int scan_literal(const unsigned char *s, size_t n, size_t *pi, uint8_t *type) {
  size_t i = *pi;
  const char *w = s[i] == 't' ? "true" : s[i] == 'f' ? "false" : "null";
  size_t wl = strlen(w);
  size_t have = n - i < wl ? n - i : wl;
  if (memcmp(s + i, w, have) != 0) return perr(i, "invalid literal");
  if (have < wl) return perr(n, "unexpected end of input in literal");
  i += wl;
  /* "truex" would otherwise read as a missing comma. */
  if (i < n && ((unsigned)((s[i] | 0x20) - 'a') < 26u || is_digit(s[i]))) return perr(*pi, "invalid literal");
  *type = s[*pi] == 'n' ? DELTA_JSON_NULL : DELTA_JSON_BOOL;
  *pi = i;
  return 0;
}

/* Room for one more token. Valid JSON has at most len/2+1 tokens; a
 * truncated prefix may hold one more per unclosed bracket. */
static int grow_tokens(delta_json_doc *d) {
  size_t max = d->len / 2 + DELTA_JSON_MAX_DEPTH + 2;
  if ((size_t)d->ntok >= max) return perr(d->len, "too many values"); /* unreachable */
  size_t cap = d->cap ? d->cap * 2 : 64;
  if (cap > max) cap = max;
  jtok *t = mem_realloc(d->tok, cap * sizeof *t);
  if (!t) return DELTA_NOMEM();
  d->tok = t;
  d->cap = cap;
  return 0;
}

static inline int new_tok(delta_json_doc *d, uint8_t type, size_t start, int32_t parent) {
  if ((size_t)d->ntok == d->cap) {
    int rc = grow_tokens(d);
    if (rc) return rc;
  }
  int32_t t = d->ntok++;
  jtok *k = &d->tok[t];
  k->start = (int32_t)start;
  k->end = -1;
  k->size = 0;
  k->parent = parent;
  k->next = t + 1;
  k->type = type;
  k->flags = 0;
  return t;
}

static int tokenize(delta_json_doc *d) {
  const unsigned char *s = (const unsigned char *)d->text;
  size_t n = d->len, i;
  int32_t stack[DELTA_JSON_MAX_DEPTH];
  int depth = 0;
  int32_t top = -1; /* innermost open container */
  int t, rc;
  jtok *k;

  i = skip_ws(s, 0, n);
  if (i >= n) return perr(i, "empty document");

value:
  if (i >= n) return unexpected(s, n, i, "a value");
  switch (s[i]) {
  case '{':
  case '[':
    if (depth == DELTA_JSON_MAX_DEPTH) return perr(i, "nesting deeper than 128 levels");
    t = new_tok(d, s[i] == '{' ? DELTA_JSON_OBJECT : DELTA_JSON_ARRAY, i, top);
    if (t < 0) return t;
    if (top >= 0 && d->tok[top].type == DELTA_JSON_ARRAY) d->tok[top].size++;
    stack[depth++] = top = t;
    i = skip_ws(s, i + 1, n);
    if (d->tok[t].type == DELTA_JSON_OBJECT) {
      if (i < n && s[i] == '}') goto close;
      goto key;
    }
    if (i < n && s[i] == ']') goto close;
    goto value;
  case '"':
    t = new_tok(d, DELTA_JSON_STRING, i + 1, top);
    if (t < 0) return t;
    k = &d->tok[t];
    if ((rc = scan_string(s, n, &i, &k->flags)) != 0) return rc;
    k->end = (int32_t)i++;
    break;
  case '-': case '0': case '1': case '2': case '3': case '4':
  case '5': case '6': case '7': case '8': case '9':
    t = new_tok(d, DELTA_JSON_NUMBER, i, top);
    if (t < 0) return t;
    k = &d->tok[t];
    if ((rc = scan_number(s, n, &i, &k->flags)) != 0) return rc;
    k->end = (int32_t)i;
    break;
  case 't': case 'f': case 'n':
    t = new_tok(d, DELTA_JSON_NULL, i, top);
    if (t < 0) return t;
    k = &d->tok[t];
    if ((rc = scan_literal(s, n, &i, &k->type)) != 0) return rc;
    k->end = (int32_t)i;
    break;
  case ']':
    if (top >= 0 && d->tok[top].type == DELTA_JSON_ARRAY && d->tok[top].size > 0)
      return perr(i, "trailing comma in array");
    return unexpected(s, n, i, "a value");
  default:
    return unexpected(s, n, i, "a value");
  }
  if (top >= 0 && d->tok[top].type == DELTA_JSON_ARRAY) d->tok[top].size++;

after_value:
  if (depth == 0) goto end;
  i = skip_ws(s, i, n);
  if (d->tok[top].type == DELTA_JSON_OBJECT) {
    if (i < n && s[i] == ',') {
      i = skip_ws(s, i + 1, n);
      goto key;
    }
    if (i < n && s[i] == '}') goto close;
    return unexpected(s, n, i, "',' or '}'");
  }
  if (i < n && s[i] == ',') {
    i = skip_ws(s, i + 1, n);
    goto value;
  }
  if (i < n && s[i] == ']') goto close;
  return unexpected(s, n, i, "',' or ']'");

close:
  k = &d->tok[top];
  k->end = (int32_t)(i + 1);
  k->next = d->ntok;
  i++;
  depth--;
  top = depth ? stack[depth - 1] : -1;
  goto after_value;

key:
  if (i >= n || s[i] != '"') {
    if (i < n && s[i] == '}') return perr(i, "trailing comma in object");
    return unexpected(s, n, i, "a string key");
  }
  t = new_tok(d, DELTA_JSON_STRING, i + 1, top);
  if (t < 0) return t;
  d->tok[top].size++;
  k = &d->tok[t];
  if ((rc = scan_string(s, n, &i, &k->flags)) != 0) return rc;
  k->end = (int32_t)i;
  i = skip_ws(s, i + 1, n);
  if (i >= n || s[i] != ':') return unexpected(s, n, i, "':' after key");
  i = skip_ws(s, i + 1, n);
  goto value;

end:
  i = skip_ws(s, i, n);
  if (i < n) return perr(i, s[i] ? "unexpected data after the value" : "NUL byte after the value");
  return 0;
}

int json_parse(delta_json_doc *d, const char *text, size_t len) {
  d->text = text;
  d->len = len;
  d->ntok = 0;
  if (!text && len) return err_set(DELTA_EINVAL, "delta_json_parse: NULL text");
  /* Offsets are int32 to keep tokens small. */
  if (len > (size_t)INT32_MAX - 1)
    return err_set(DELTA_ELIMIT, "JSON document of %zu bytes exceeds the 2 GiB limit", len);
  int rc = tokenize(d);
  if (rc) d->ntok = 0;
  return rc;
}

/* ------------------------------------------------------------ accessors */

static const delta_json_val absent = {NULL, -1};

static inline const jtok *tok_of(delta_json_val v) {
  if (!v.doc || v.tok < 0 || v.tok >= v.doc->ntok) return NULL;
  return &v.doc->tok[v.tok];
}

delta_json_val json_root(const delta_json_doc *d) {
  delta_json_val v = {d, d && d->ntok > 0 ? 0 : -1};
  return v;
}

delta_json_type json_typeof(delta_json_val v) {
  const jtok *t = tok_of(v);
  return t ? (delta_json_type)t->type : DELTA_JSON_ABSENT;
}

const char *json_type_name(delta_json_type t) {
  switch (t) {
  case DELTA_JSON_NULL: return "null";
  case DELTA_JSON_BOOL: return "boolean";
  case DELTA_JSON_NUMBER: return "number";
  case DELTA_JSON_STRING: return "string";
  case DELTA_JSON_ARRAY: return "array";
  case DELTA_JSON_OBJECT: return "object";
  default: return "nothing";
  }
}

static int type_err(delta_json_val v, delta_json_type want) {
  return err_set(DELTA_ECORRUPT, "expected %s, got %s", json_type_name(want),
                         json_type_name(json_typeof(v)));
}

static size_t utf8_put(uint32_t cp, char *o) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | cp >> 6);
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12);
    o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18);
  o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static uint32_t hex4_valid(const char *p) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) v = v << 4 | (uint32_t)hexval((unsigned char)p[k]);
  return v;
}

/* Decode the escape at r[*i] (validated by the tokenizer) into o; returns
 * the number of bytes written (1..4). */
static size_t decode_escape(const char *r, size_t *i, char *o) {
  char c = r[*i + 1];
  switch (c) {
  case 'b': c = '\b'; break;
  case 'f': c = '\f'; break;
  case 'n': c = '\n'; break;
  case 'r': c = '\r'; break;
  case 't': c = '\t'; break;
  case 'u': {
    uint32_t cp = hex4_valid(r + *i + 2);
    *i += 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t lo = hex4_valid(r + *i + 2);
      *i += 6;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    return utf8_put(cp, o);
  }
  default: break; /* '"', '\\', '/' stand for themselves */
  }
  *i += 2;
  o[0] = c;
  return 1;
}

/* Unescaped text is never longer than the escaped text, so one reserve
 * covers it. */
static int unescape(const char *r, size_t n, bool esc, delta_buf *out) {
  buf_reset(out);
  int rc = buf_reserve(out, n + 1);
  if (rc) return rc;
  char *o = (char *)out->data;
  size_t w = 0;
  if (!esc) {
    memcpy(o, r, n);
    w = n;
  } else {
    /* A byte loop: escapes are dense in stats strings (every key is
     * quoted with \"), where memchr-and-copy runs lose. */
    size_t i = 0;
    while (i < n) {
      char c = r[i];
      if (c != '\\') {
        o[w++] = c;
        i++;
      } else if (r[i + 1] == '"') { /* the common case, decoded inline */
        o[w++] = '"';
        i += 2;
      } else {
        w += decode_escape(r, &i, o + w);
      }
    }
  }
  o[w] = '\0';
  out->len = w;
  return 0;
}

/* Does the escaped text r[0..n) decode to exactly s[0..sn)? */
static bool escaped_eq(const char *r, size_t n, const char *s, size_t sn) {
  size_t i = 0, j = 0;
  char tmp[4];
  while (i < n) {
    if (r[i] != '\\') {
      if (j >= sn || s[j] != r[i]) return false;
      i++;
      j++;
      continue;
    }
    size_t k = decode_escape(r, &i, tmp);
    if (sn - j < k || memcmp(s + j, tmp, k) != 0) return false;
    j += k;
  }
  return j == sn;
}

static inline bool tok_str_eq(const delta_json_doc *d, const jtok *t, const char *s, size_t sn) {
  const char *r = d->text + t->start;
  size_t n = (size_t)(t->end - t->start);
  if (!(t->flags & F_ESC)) return n == sn && memcmp(r, s, n) == 0;
  return escaped_eq(r, n, s, sn);
}

delta_json_val json_get_n(delta_json_val obj, const char *key, size_t keylen) {
  const jtok *t = tok_of(obj);
  if (!t || t->type != DELTA_JSON_OBJECT) return absent;
  const delta_json_doc *d = obj.doc;
  int32_t k = obj.tok + 1;
  for (int32_t m = 0; m < t->size; m++) {
    if (tok_str_eq(d, &d->tok[k], key, keylen)) {
      delta_json_val v = {d, k + 1};
      return v;
    }
    k = d->tok[k + 1].next;
  }
  return absent;
}

delta_json_val json_get(delta_json_val obj, const char *key) {
  return json_get_n(obj, key, strlen(key));
}

int json_len(delta_json_val v) {
  const jtok *t = tok_of(v);
  if (!t || (t->type != DELTA_JSON_OBJECT && t->type != DELTA_JSON_ARRAY)) return 0;
  return t->size;
}

delta_json_val json_first(delta_json_val v) {
  const jtok *t = tok_of(v);
  if (!t || t->size == 0) return absent;
  if (t->type == DELTA_JSON_ARRAY) v.tok += 1;
  else if (t->type == DELTA_JSON_OBJECT) v.tok += 2; /* skip the key */
  else return absent;
  return v;
}

delta_json_val json_next(delta_json_val v) {
  const jtok *t = tok_of(v);
  if (!t || t->parent < 0) return absent;
  const jtok *p = &v.doc->tok[t->parent];
  int32_t nx = t->next;
  if (nx >= p->next) return absent; /* past the parent's subtree */
  v.tok = p->type == DELTA_JSON_OBJECT ? nx + 1 : nx;
  return v;
}

/* The key token of an object member value, or NULL. */
static const jtok *key_of(delta_json_val v) {
  const jtok *t = tok_of(v);
  if (!t || t->parent < 0 || v.doc->tok[t->parent].type != DELTA_JSON_OBJECT) return NULL;
  return &v.doc->tok[v.tok - 1]; /* a member's value directly follows its key */
}

int json_key(delta_json_val member_value, delta_buf *out) {
  const jtok *k = key_of(member_value);
  if (!k) return err_set(DELTA_EINVAL, "delta_json_key: not an object member");
  return unescape(member_value.doc->text + k->start, (size_t)(k->end - k->start), k->flags & F_ESC,
                  out);
}

int json_key_raw(delta_json_val member_value, const char **p, size_t *n, bool *has_escapes) {
  const jtok *k = key_of(member_value);
  if (!k) return err_set(DELTA_EINVAL, "delta_json_key_raw: not an object member");
  *p = member_value.doc->text + k->start;
  *n = (size_t)(k->end - k->start);
  if (has_escapes) *has_escapes = k->flags & F_ESC;
  return 0;
}

int json_string(delta_json_val v, delta_buf *out) {
  const jtok *t = tok_of(v);
  if (!t || t->type != DELTA_JSON_STRING) return type_err(v, DELTA_JSON_STRING);
  return unescape(v.doc->text + t->start, (size_t)(t->end - t->start), t->flags & F_ESC, out);
}

int json_string_raw(delta_json_val v, const char **p, size_t *n, bool *has_escapes) {
  const jtok *t = tok_of(v);
  if (!t || t->type != DELTA_JSON_STRING) return type_err(v, DELTA_JSON_STRING);
  *p = v.doc->text + t->start;
  *n = (size_t)(t->end - t->start);
  if (has_escapes) *has_escapes = t->flags & F_ESC;
  return 0;
}

bool json_string_eq(delta_json_val v, const char *s) {
  const jtok *t = tok_of(v);
  return t && t->type == DELTA_JSON_STRING && tok_str_eq(v.doc, t, s, strlen(s));
}

int json_bool(delta_json_val v, bool *out) {
  const jtok *t = tok_of(v);
  if (!t || t->type != DELTA_JSON_BOOL) return type_err(v, DELTA_JSON_BOOL);
  *out = v.doc->text[t->start] == 't';
  return 0;
}

void json_raw(delta_json_val v, const char **p, size_t *n) {
  const jtok *t = tok_of(v);
  if (!t) {
    *p = NULL;
    *n = 0;
    return;
  }
  size_t q = t->type == DELTA_JSON_STRING; /* include the quotes */
  *p = v.doc->text + t->start - q;
  *n = (size_t)(t->end - t->start) + 2 * q;
}

/* Numbers in messages are cut short: they can be megabytes of digits. */
static int num_err(const char *what, const char *p, size_t n) {
  return err_set(DELTA_ECORRUPT, "%s: %.*s%s", what, (int)(n > 40 ? 40 : n), p,
                         n > 40 ? "..." : "");
}

int json_int64(delta_json_val v, int64_t *out) {
  const jtok *t = tok_of(v);
  if (!t || t->type != DELTA_JSON_NUMBER) return type_err(v, DELTA_JSON_NUMBER);
  const char *p = v.doc->text + t->start;
  size_t n = (size_t)(t->end - t->start), i = 0;
  if (t->flags & F_FRAC) return num_err("expected an integer, got", p, n);
  bool neg = p[0] == '-';
  if (neg) i++;
  uint64_t u = 0;
  for (; i < n; i++) {
    unsigned dg = (unsigned)(p[i] - '0');
    if (u > (UINT64_MAX - dg) / 10) return num_err("integer out of range", p, n);
    u = u * 10 + dg;
  }
  if (neg) {
    if (u > (uint64_t)INT64_MAX + 1) return num_err("integer out of range", p, n);
    *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
  } else {
    if (u > (uint64_t)INT64_MAX) return num_err("integer out of range", p, n);
    *out = (int64_t)u;
  }
  return 0;
}

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Clinger's fast path: a mantissa of at most 2^53 times an exactly
 * representable power of ten is one correctly rounded IEEE operation.
 * Returns false when the slow path is needed. */
static bool double_fast(const char *p, size_t n, double *out) {
  size_t i = 0;
  bool neg = p[0] == '-';
  if (neg) i++;
  uint64_t m = 0;
  int digits = 0;
  long e10 = 0;
  for (; i < n && is_digit((unsigned char)p[i]); i++) {
    if (digits >= 19) return false;
    m = m * 10 + (uint64_t)(p[i] - '0');
    if (m) digits++;
  }
  if (i < n && p[i] == '.') {
    for (i++; i < n && is_digit((unsigned char)p[i]); i++) {
      if (digits >= 19) return false;
      m = m * 10 + (uint64_t)(p[i] - '0');
      if (m) digits++;
      e10--;
    }
  }
  if (i < n) { /* exponent */
    i++;
    bool eneg = p[i] == '-';
    if (p[i] == '+' || p[i] == '-') i++;
    long x = 0;
    for (; i < n; i++) {
      if (x > 100000) return false;
      x = x * 10 + (p[i] - '0');
    }
    e10 += eneg ? -x : x;
  }
  double r;
  if (m == 0) r = 0.0;
  else if (m > (1ull << 53) || e10 < -22 || e10 > 22) return false;
  else r = e10 < 0 ? (double)m / pow10_exact[-e10] : (double)m * pow10_exact[e10];
  *out = neg ? -r : r;
  return true;
}

int json_double(delta_json_val v, double *out) {
  const jtok *t = tok_of(v);
  if (!t || t->type != DELTA_JSON_NUMBER) return type_err(v, DELTA_JSON_NUMBER);
  const char *p = v.doc->text + t->start;
  size_t n = (size_t)(t->end - t->start);
  if (double_fast(p, n, out)) return 0;
  /* strtod needs a terminated copy; the grammar is already checked. */
  char small[128];
  char *c = n < sizeof small ? small : mem_malloc(n + 1);
  if (!c) return DELTA_NOMEM();
  memcpy(c, p, n);
  c[n] = '\0';
  locale_t loc = json_c_locale();
  int rc = 0;
  if (!loc) {
    rc = DELTA_NOMEM();
    goto done;
  }
  errno = 0;
  double r = strtod_l(c, NULL, loc);
  if (r == HUGE_VAL || r == -HUGE_VAL) {
    rc = num_err("number out of range for a double", p, n);
    goto done;
  }
  *out = r; /* ERANGE on underflow is fine: the nearest value is 0 or subnormal */
done:
  if (c != small) mem_free(c);
  return rc;
}
