/*
 * Azure Shared Key signing (see azure_auth.h).
 */
#include "storage/azure_auth.h"

#include <nettle/base64.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MAX_HEADERS 32

int azure_uri_encode(delta_buf *out, const char *s, size_t len, bool keep_slash) {
  static const char hex[] = "0123456789ABCDEF";
  int rc;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
    if (plain) rc = buf_putc(out, (char)c);
    else {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      rc = buf_append(out, e, 3);
    }
    if (rc) return rc;
  }
  return 0;
}

int azure_base64_encode(delta_buf *out, const void *data, size_t len) {
  int rc;
  size_t need = BASE64_ENCODE_RAW_LENGTH(len);
  if ((rc = buf_reserve(out, need)) != 0) return rc;
  base64_encode_raw((char *)out->data + out->len, len, data);
  out->len += need;
  return 0;
}

int azure_base64_decode(delta_buf *out, const char *s, size_t len) {
  struct base64_decode_ctx ctx;
  int rc;
  /* nettle skips whitespace; a key holds none, so refuse it. */
  if (len % 4) return err_set(DELTA_EINVAL, "not base64 (length)");
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '/' || (c == '=' && i + 2 >= len);
    if (!ok) return err_set(DELTA_EINVAL, "not base64");
  }
  size_t room = BASE64_DECODE_LENGTH(len), n = room;
  if ((rc = buf_reserve(out, room)) != 0) return rc;
  base64_decode_init(&ctx);
  if (!base64_decode_update(&ctx, &n, out->data + out->len, len, s) || !base64_decode_final(&ctx))
    return err_set(DELTA_EINVAL, "not base64");
  out->len += n;
  return 0;
}

void azure_http_date(time_t t, char out[64]) {
  static const char *days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  struct tm tm;
  gmtime_r(&t, &tm);
  snprintf(out, 64, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday], tm.tm_mday,
           months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

typedef struct {
  char *name; /* lower-cased copy */
  const char *value;
} pair;

static int pair_cmp(const void *a, const void *b) {
  const pair *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  return strcmp(x->value ? x->value : "", y->value ? y->value : "");
}

static char *lower_dup(const char *s) {
  size_t n = strlen(s);
  char *d = mem_malloc(n + 1);
  if (!d) return NULL;
  for (size_t i = 0; i <= n; i++) d[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] | 0x20) : s[i];
  return d;
}

/* Lower-case copies of `n` names with their values, sorted by name then
 * value; the caller frees every name and the array. */
static int sorted_pairs(pair **out, const char *const *names, const char *const *values, size_t n) {
  pair *p = mem_calloc(n ? n : 1, sizeof *p);
  if (!p) return DELTA_NOMEM();
  for (size_t i = 0; i < n; i++) {
    p[i].value = values[i] ? values[i] : "";
    if (!(p[i].name = lower_dup(names[i]))) {
      for (size_t j = 0; j < i; j++) mem_free(p[j].name);
      mem_free(p);
      return DELTA_NOMEM();
    }
  }
  qsort(p, n, sizeof *p, pair_cmp);
  *out = p;
  return 0;
}

static void pairs_free(pair *p, size_t n) {
  for (size_t i = 0; p && i < n; i++) mem_free(p[i].name);
  mem_free(p);
}

int azure_canonical_resource(delta_buf *out, const char *account, const char *path,
                             const char *const *qnames, const char *const *qvalues, size_t nq) {
  pair *q = NULL;
  int rc;
  if ((rc = buf_printf(out, "/%s%s", account, path)) != 0) return rc;
  if ((rc = sorted_pairs(&q, qnames, qvalues, nq)) != 0) return rc;
  for (size_t i = 0; i < nq; i++) {
    bool same = i > 0 && strcmp(q[i].name, q[i - 1].name) == 0;
    rc = same ? buf_printf(out, ",%s", q[i].value) : buf_printf(out, "\n%s:%s", q[i].name, q[i].value);
    if (rc) break;
  }
  pairs_free(q, nq);
  return rc;
}

/* Append a header value with the blanks around it removed and inner runs of
 * blanks folded to one space. */
static int put_folded(delta_buf *out, const char *v) {
  int rc;
  while (*v == ' ' || *v == '\t') v++;
  size_t n = strlen(v);
  while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
  for (size_t i = 0; i < n; i++) {
    if (v[i] == ' ' || v[i] == '\t') {
      while (i + 1 < n && (v[i + 1] == ' ' || v[i + 1] == '\t')) i++;
      rc = buf_putc(out, ' ');
    } else {
      rc = buf_putc(out, v[i]);
    }
    if (rc) return rc;
  }
  return 0;
}

int azure_string_to_sign(delta_buf *out, const char *method, const azure_header *headers,
                         size_t nh, const char *account, const char *path,
                         const char *const *qnames, const char *const *qvalues, size_t nq) {
  static const char *slots[] = {"content-encoding", "content-language", "content-length",
                                "content-md5",      "content-type",     "date",
                                "if-modified-since", "if-match",        "if-none-match",
                                "if-unmodified-since", "range"};
  const char *names[MAX_HEADERS] = {0}, *values[MAX_HEADERS] = {0};
  size_t nx = 0;
  pair *x = NULL;
  int rc;
  if (nh > MAX_HEADERS) return err_set(DELTA_EINVAL, "too many headers to sign");
  if ((rc = buf_printf(out, "%s\n", method)) != 0) return rc;
  for (size_t s = 0; s < sizeof slots / sizeof slots[0]; s++) {
    const char *v = "";
    for (size_t i = 0; i < nh; i++)
      if (strcasecmp(headers[i].name, slots[s]) == 0) v = headers[i].value;
    /* Since version 2015-02-21 a zero Content-Length is signed as empty. */
    if (s == 2 && strcmp(v, "0") == 0) v = "";
    if ((rc = put_folded(out, v)) != 0 || (rc = buf_putc(out, '\n')) != 0) return rc;
  }
  for (size_t i = 0; i < nh; i++) {
    if (strncasecmp(headers[i].name, "x-ms-", 5) == 0) {
      names[nx] = headers[i].name;
      values[nx++] = headers[i].value;
    }
  }
  if ((rc = sorted_pairs(&x, names, values, nx)) != 0) return rc;
  for (size_t i = 0; i < nx; i++) {
    if ((rc = buf_printf(out, "%s:", x[i].name)) != 0 || (rc = put_folded(out, x[i].value)) != 0 ||
        (rc = buf_putc(out, '\n')) != 0)
      break;
  }
  pairs_free(x, nx);
  if (rc) return rc;
  return azure_canonical_resource(out, account, path, qnames, qvalues, nq);
}

int azure_sharedkey_authorization(delta_buf *out, const char *account, const unsigned char *key,
                                  size_t key_len, const char *string_to_sign, size_t sts_len) {
  struct hmac_sha256_ctx ctx;
  uint8_t mac[SHA256_DIGEST_SIZE];
  int rc;
  hmac_sha256_set_key(&ctx, key_len, key);
  hmac_sha256_update(&ctx, sts_len, (const uint8_t *)string_to_sign);
  hmac_sha256_digest(&ctx, sizeof mac, mac);
  memset(&ctx, 0, sizeof ctx);
  if ((rc = buf_printf(out, "SharedKey %s:", account)) == 0) rc = azure_base64_encode(out, mac, sizeof mac);
  return rc;
}
