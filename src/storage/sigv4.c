/*
 * AWS Signature Version 4 (see sigv4.h). The steps follow AWS's description:
 * canonical request -> string to sign -> signing key chain -> signature.
 */
#include "storage/sigv4.h"

#include <ctype.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define MAX_SIGNED_HEADERS 32

static const char HEX[] = "0123456789ABCDEF";
static const char hexl[] = "0123456789abcdef";

static bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

int sigv4_uri_encode(delta_buf *out, const char *s, size_t len, bool keep_slash) {
  int rc;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (unreserved(c) || (keep_slash && c == '/')) {
      if ((rc = buf_putc(out, (char)c)) != 0) return rc;
    } else {
      char e[3] = {'%', HEX[c >> 4], HEX[c & 15]};
      if ((rc = buf_append(out, e, 3)) != 0) return rc;
    }
  }
  return 0;
}

typedef struct {
  char *name, *value; /* encoded */
} query_pair;

static int pair_cmp(const void *a, const void *b) {
  const query_pair *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : strcmp(x->value, y->value);
}

/* Encode `s` into a fresh NUL-ended string in `*out`. */
static int encode_dup(char **out, const char *s) {
  delta_buf b = DELTA_BUF_INIT;
  int rc;
  if ((rc = sigv4_uri_encode(&b, s, strlen(s), false)) != 0 || (rc = buf_putc(&b, '\0')) != 0) {
    buf_dispose(&b);
    return rc;
  }
  *out = (char *)buf_detach(&b);
  return 0;
}

int sigv4_canonical_query(delta_buf *out, const char *const *names, const char *const *values,
                          size_t n) {
  int rc = 0;
  query_pair *p = n ? mem_calloc(n, sizeof *p) : NULL;
  if (n && !p) return DELTA_NOMEM();
  for (size_t i = 0; i < n; i++) {
    if ((rc = encode_dup(&p[i].name, names[i])) != 0 ||
        (rc = encode_dup(&p[i].value, values[i] ? values[i] : "")) != 0)
      goto done;
  }
  if (n) qsort(p, n, sizeof *p, pair_cmp);
  for (size_t i = 0; i < n; i++) {
    if ((i && (rc = buf_putc(out, '&')) != 0) || (rc = buf_puts(out, p[i].name)) != 0 ||
        (rc = buf_putc(out, '=')) != 0 || (rc = buf_puts(out, p[i].value)) != 0)
      goto done;
  }
done:
  for (size_t i = 0; i < n; i++) {
    mem_free(p[i].name);
    mem_free(p[i].value);
  }
  mem_free(p);
  return rc;
}

static void to_hex(const unsigned char *d, size_t n, char *hex) {
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = hexl[d[i] >> 4];
    hex[2 * i + 1] = hexl[d[i] & 15];
  }
  hex[2 * n] = '\0';
}

void sigv4_sha256_hex(const void *data, size_t len, char hex[65]) {
  struct sha256_ctx ctx;
  unsigned char d[SHA256_DIGEST_SIZE];
  sha256_init(&ctx);
  sha256_update(&ctx, len, data);
  sha256_digest(&ctx, sizeof d, d);
  to_hex(d, sizeof d, hex);
}

void sigv4_amz_date(time_t t, char out[17]) {
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static void hmac(const unsigned char *key, size_t key_len, const char *msg, size_t msg_len,
                 unsigned char out[32]) {
  struct hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, key_len, key);
  hmac_sha256_update(&ctx, msg_len, (const uint8_t *)msg);
  hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
  /* The context held the secret-derived key: do not leave it on the stack. */
  memset(&ctx, 0, sizeof ctx);
}

void sigv4_signing_key(const sigv4_key *key, const char *date, unsigned char out[32]) {
  size_t sl = strlen(key->secret_key);
  unsigned char *k0 = mem_malloc(sl + 4);
  unsigned char k[32];
  if (!k0) { /* cannot happen in practice; an all-zero key only fails to sign */
    memset(out, 0, 32);
    return;
  }
  memcpy(k0, "AWS4", 4);
  memcpy(k0 + 4, key->secret_key, sl);
  hmac(k0, sl + 4, date, strlen(date), k);
  memset(k0, 0, sl + 4);
  mem_free(k0);
  hmac(k, 32, key->region, strlen(key->region), k);
  hmac(k, 32, key->service, strlen(key->service), k);
  hmac(k, 32, "aws4_request", 12, out);
  memset(k, 0, sizeof k);
}

typedef struct {
  char name[64];
  const char *value;
} header_ref;

static int header_cmp(const void *a, const void *b) {
  return strcmp(((const header_ref *)a)->name, ((const header_ref *)b)->name);
}

/* Copy the headers into `h` with lower-cased names, sorted by name. */
static int sort_headers(header_ref *h, const sigv4_header *headers, size_t n) {
  if (n > MAX_SIGNED_HEADERS) return err_set(DELTA_EINVAL, "sigv4: too many headers");
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(headers[i].name);
    if (l >= sizeof h[i].name) return err_set(DELTA_EINVAL, "sigv4: header name too long");
    for (size_t j = 0; j <= l; j++) h[i].name[j] = (char)tolower((unsigned char)headers[i].name[j]);
    h[i].value = headers[i].value ? headers[i].value : "";
  }
  qsort(h, n, sizeof *h, header_cmp);
  return 0;
}

/* A header value trimmed, with inner runs of spaces/tabs folded to one. */
static int put_trimmed(delta_buf *out, const char *v) {
  int rc;
  while (*v == ' ' || *v == '\t') v++;
  bool blank = false;
  for (; *v; v++) {
    if (*v == ' ' || *v == '\t') {
      blank = true;
      continue;
    }
    if (blank && (rc = buf_putc(out, ' ')) != 0) return rc;
    blank = false;
    if ((rc = buf_putc(out, *v)) != 0) return rc;
  }
  return 0;
}

static int put_signed_list(delta_buf *out, const header_ref *h, size_t n) {
  int rc;
  for (size_t i = 0; i < n; i++)
    if ((i && (rc = buf_putc(out, ';')) != 0) || (rc = buf_puts(out, h[i].name)) != 0)
      return rc;
  return 0;
}

static int canonical(delta_buf *out, const char *method, const char *path, const char *query,
                     const header_ref *h, size_t n, const char *payload_hash) {
  int rc;
  if ((rc = buf_printf(out, "%s\n%s\n%s\n", method, path, query ? query : "")) != 0)
    return rc;
  for (size_t i = 0; i < n; i++) {
    if ((rc = buf_puts(out, h[i].name)) != 0 || (rc = buf_putc(out, ':')) != 0 ||
        (rc = put_trimmed(out, h[i].value)) != 0 || (rc = buf_putc(out, '\n')) != 0)
      return rc;
  }
  if ((rc = buf_putc(out, '\n')) != 0 || (rc = put_signed_list(out, h, n)) != 0 ||
      (rc = buf_putc(out, '\n')) != 0)
    return rc;
  return buf_puts(out, payload_hash);
}

int sigv4_canonical_request(delta_buf *out, const char *method, const char *path,
                            const char *query, const sigv4_header *headers, size_t n_headers,
                            const char *payload_hash) {
  header_ref h[MAX_SIGNED_HEADERS];
  int rc;
  if ((rc = sort_headers(h, headers, n_headers)) != 0) return rc;
  return canonical(out, method, path, query, h, n_headers, payload_hash);
}

int sigv4_authorization(delta_buf *out, const sigv4_key *key, const char *method, const char *path,
                        const char *query, const sigv4_header *headers, size_t n_headers,
                        const char *amz_date, const char *payload_hash) {
  header_ref h[MAX_SIGNED_HEADERS];
  delta_buf creq = DELTA_BUF_INIT, sts = DELTA_BUF_INIT;
  char creq_hash[65], date[9], sig_hex[65];
  unsigned char kSigning[32], sig[32];
  int rc;
  if (strlen(amz_date) != 16 || amz_date[8] != 'T')
    return err_set(DELTA_EINVAL, "sigv4: malformed x-amz-date");
  memcpy(date, amz_date, 8);
  date[8] = '\0';
  if ((rc = sort_headers(h, headers, n_headers)) != 0) return rc;
  if ((rc = canonical(&creq, method, path, query, h, n_headers, payload_hash)) != 0) goto done;
  sigv4_sha256_hex(creq.data, creq.len, creq_hash);
  if ((rc = buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", amz_date, date,
                             key->region, key->service, creq_hash)) != 0)
    goto done;
  sigv4_signing_key(key, date, kSigning);
  hmac(kSigning, sizeof kSigning, (const char *)sts.data, sts.len, sig);
  memset(kSigning, 0, sizeof kSigning);
  to_hex(sig, sizeof sig, sig_hex);
  if ((rc = buf_printf(out, "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request,SignedHeaders=",
                             key->access_key, date, key->region, key->service)) != 0 ||
      (rc = put_signed_list(out, h, n_headers)) != 0 ||
      (rc = buf_printf(out, ",Signature=%s", sig_hex)) != 0)
    goto done;
done:
  buf_dispose(&creq);
  buf_dispose(&sts);
  return rc;
}
