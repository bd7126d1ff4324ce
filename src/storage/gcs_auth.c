/*
 * GCS credentials (see gcs_auth.h). The JWT follows Google's "OAuth 2.0 for
 * server to server applications": header {"alg":"RS256","typ":"JWT"},
 * claims iss (the client email), scope, aud (the token URI), iat and exp
 * (iat + 3600), signed with RSASSA-PKCS1-v1_5 over SHA-256 (nettle). Key
 * files hold the private key as PEM PKCS#8 ("BEGIN PRIVATE KEY"); the
 * PrivateKeyInfo wrapper is taken off here and nettle reads the PKCS#1
 * RSAPrivateKey inside.
 */
#include "storage/gcs_auth.h"

#include <gmp.h>
#include <nettle/base64.h>
#include <nettle/bignum.h>
#include <nettle/rsa.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "storage/gcs_json.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define SCOPE "https://www.googleapis.com/auth/devstorage.read_write"
#define JWT_LIFETIME 3600
#define TOKEN_MARGIN 300 /* refresh this many seconds before expiry */
#define TOKEN_BODY_MAX (64 * 1024)

typedef struct {
  struct rsa_public_key pub;
  struct rsa_private_key priv;
} rsa_pair;

static void wipe_buf(delta_buf *b) {
  if (b->data) memset(b->data, 0, b->cap);
  buf_dispose(b);
}

static void wipe_str(char *s) {
  if (s) memset(s, 0, strlen(s));
  mem_free(s);
}

/* ---- the key ---- */

/* One DER element at *p (< end): its tag, and its contents [*body, *body +
 * *len). Advances *p past it. Definite lengths only (DER). */
static int der_next(const uint8_t **p, const uint8_t *end, uint8_t *tag, const uint8_t **body,
                    size_t *len) {
  const uint8_t *q = *p;
  if (end - q < 2) return -1;
  *tag = *q++;
  size_t l = *q++;
  if (l & 0x80) {
    size_t n = l & 0x7F;
    if (n == 0 || n > 4 || (size_t)(end - q) < n) return -1;
    l = 0;
    while (n--) l = l << 8 | *q++;
  }
  if (l > (size_t)(end - q)) return -1;
  *body = q;
  *len = l;
  *p = q + l;
  return 0;
}

/* PKCS#8 PrivateKeyInfo ::= SEQUENCE { version INTEGER, algorithm
 * AlgorithmIdentifier, privateKey OCTET STRING, ... }: the RSAPrivateKey in
 * the OCTET STRING, when the algorithm is rsaEncryption. */
static int pkcs8_unwrap(const uint8_t *der, size_t len, const uint8_t **key, size_t *key_len) {
  static const uint8_t rsa_oid[] = {0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01};
  const uint8_t *p = der, *seq, *body, *alg;
  size_t seq_len, l, alg_len;
  uint8_t tag;
  if (der_next(&p, der + len, &tag, &seq, &seq_len) != 0 || tag != 0x30) return -1;
  p = seq;
  const uint8_t *end = seq + seq_len;
  if (der_next(&p, end, &tag, &body, &l) != 0 || tag != 0x02) return -1; /* version */
  if (der_next(&p, end, &tag, &alg, &alg_len) != 0 || tag != 0x30) return -1;
  const uint8_t *a = alg;
  if (der_next(&a, alg + alg_len, &tag, &body, &l) != 0 || tag != 0x06 || l != sizeof rsa_oid ||
      memcmp(body, rsa_oid, l) != 0)
    return -1;
  if (der_next(&p, end, &tag, key, key_len) != 0 || tag != 0x04) return -1;
  return 0;
}

/* The DER bytes between a PEM's BEGIN and END lines of `label`. */
static int pem_decode(delta_buf *out, const char *pem, const char *label) {
  char begin[64], endl[64];
  snprintf(begin, sizeof begin, "-----BEGIN %s-----", label);
  snprintf(endl, sizeof endl, "-----END %s-----", label);
  const char *b = strstr(pem, begin);
  if (!b) return 1;
  b += strlen(begin);
  const char *e = strstr(b, endl);
  if (!e) return -1;
  size_t n = (size_t)(e - b);
  int rc;
  if ((rc = buf_reserve(out, BASE64_DECODE_LENGTH(n))) != 0) return rc;
  struct base64_decode_ctx ctx;
  size_t dl = BASE64_DECODE_LENGTH(n);
  base64_decode_init(&ctx);
  if (!base64_decode_update(&ctx, &dl, out->data + out->len, n, b) || !base64_decode_final(&ctx))
    return -1;
  out->len += dl;
  return 0;
}

static int load_key(gcs_sa *sa, const char *pem, const char *source) {
  delta_buf der = DELTA_BUF_INIT;
  const uint8_t *key = NULL;
  size_t key_len = 0;
  rsa_pair *k = NULL;
  int rc = pem_decode(&der, pem, "PRIVATE KEY");
  if (rc == 0) {
    if (pkcs8_unwrap(der.data, der.len, &key, &key_len) != 0) rc = -1;
  } else if (rc == 1) {
    der.len = 0;
    if ((rc = pem_decode(&der, pem, "RSA PRIVATE KEY")) == 0) key = der.data, key_len = der.len;
  }
  if (rc < 0 && rc != DELTA_ENOMEM) {
    rc = err_set(DELTA_EINVAL, "%s: private_key is not a readable PEM RSA key", source);
    goto done;
  }
  if (rc == 1) {
    rc = err_set(DELTA_EINVAL, "%s: private_key holds no PEM private key", source);
    goto done;
  }
  if (rc) goto done;
  if (!(k = mem_calloc(1, sizeof *k))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  rsa_public_key_init(&k->pub);
  rsa_private_key_init(&k->priv);
  if (!rsa_keypair_from_der(&k->pub, &k->priv, 0, key_len, key)) {
    rsa_public_key_clear(&k->pub);
    rsa_private_key_clear(&k->priv);
    mem_free(k);
    rc = err_set(DELTA_EINVAL, "%s: private_key is not an RSA private key", source);
    goto done;
  }
  sa->rsa = k;
done:
  wipe_buf(&der);
  return rc;
}

static bool loopback_http(const char *uri) {
  static const char *const ok[] = {"http://127.0.0.1", "http://localhost", "http://[::1]"};
  for (size_t i = 0; i < 3; i++) {
    size_t n = strlen(ok[i]);
    if (strncasecmp(uri, ok[i], n) == 0 && (uri[n] == ':' || uri[n] == '/' || !uri[n])) return true;
  }
  return false;
}

int gcs_sa_parse(gcs_sa *sa, const char *json, size_t len, const char *source) {
  gcs_json j = GCS_JSON_INIT(json, len);
  delta_buf key = DELTA_BUF_INIT, type = DELTA_BUF_INIT, pem = DELTA_BUF_INIT,
            email = DELTA_BUF_INIT, uri = DELTA_BUF_INIT;
  int rc;
  memset(sa, 0, sizeof *sa);
  if ((rc = gcs_json_object(&j)) != 0) goto bad;
  while ((rc = gcs_json_member(&j, &key)) == 1) {
    delta_buf *dst = strcmp((char *)key.data, "type") == 0           ? &type
                     : strcmp((char *)key.data, "private_key") == 0  ? &pem
                     : strcmp((char *)key.data, "client_email") == 0 ? &email
                     : strcmp((char *)key.data, "token_uri") == 0    ? &uri
                                                                     : NULL;
    if (dst && gcs_json_peek(&j) == '"') {
      dst->len = 0;
      rc = gcs_json_string(&j, dst);
    } else {
      rc = gcs_json_skip(&j);
    }
    if (rc) goto bad;
  }
  if (rc) goto bad;
  if (type.len && strcmp((char *)type.data, "service_account") != 0) {
    rc = err_set(DELTA_EINVAL, "%s: credentials of type '%.40s' are not supported (a service account key is)",
                 source, (char *)type.data);
    goto done;
  }
  if (!email.len || !pem.len) {
    rc = err_set(DELTA_EINVAL, "%s: not a service account key (client_email or private_key missing)", source);
    goto done;
  }
  if (!uri.len && (rc = buf_puts(&uri, "https://oauth2.googleapis.com/token")) != 0) goto done;
  if ((rc = buf_putc(&uri, '\0')) != 0) goto done;
  if (strncasecmp((char *)uri.data, "https://", 8) != 0 && !loopback_http((char *)uri.data)) {
    rc = err_set(DELTA_EINVAL, "%s: token_uri must be an https:// URL", source);
    goto done;
  }
  if ((rc = load_key(sa, (const char *)pem.data, source)) != 0) goto done;
  if (!(sa->client_email = mem_strdup((char *)email.data)) ||
      !(sa->token_uri = mem_strdup((char *)uri.data))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  goto done;
bad:
  delta_error_clear();
  rc = err_set(DELTA_EINVAL, "%s: not a JSON service account key", source);
done:
  if (rc) gcs_sa_dispose(sa);
  buf_dispose(&key);
  buf_dispose(&type);
  wipe_buf(&pem);
  buf_dispose(&email);
  buf_dispose(&uri);
  return rc;
}

void gcs_sa_dispose(gcs_sa *sa) {
  rsa_pair *k = sa->rsa;
  if (k) {
    rsa_public_key_clear(&k->pub);
    rsa_private_key_clear(&k->priv);
    mem_free(k);
  }
  mem_free(sa->client_email);
  mem_free(sa->token_uri);
  memset(sa, 0, sizeof *sa);
}

/* ---- the JWT ---- */

static int b64url(delta_buf *out, const void *data, size_t len) {
  struct base64_encode_ctx ctx;
  int rc = buf_reserve(out, BASE64_ENCODE_LENGTH(len) + BASE64_ENCODE_FINAL_LENGTH);
  if (rc) return rc;
  base64url_encode_init(&ctx);
  size_t n = base64_encode_update(&ctx, (char *)out->data + out->len, len, data);
  n += base64_encode_final(&ctx, (char *)out->data + out->len + n);
  while (n && out->data[out->len + n - 1] == '=') n--; /* JWTs carry no padding */
  out->len += n;
  return 0;
}

/* `s` as a JSON string body (the quotes are the caller's). */
static int json_escape(delta_buf *out, const char *s) {
  int rc = 0;
  for (; *s && !rc; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') rc = buf_printf(out, "\\%c", c);
    else if (c < 0x20) rc = buf_printf(out, "\\u%04x", c);
    else rc = buf_putc(out, (char)c);
  }
  return rc;
}

static void random_bytes(void *ctx, size_t len, uint8_t *dst) {
  (void)ctx;
  while (len) {
    ssize_t n = getrandom(dst, len, 0);
    if (n <= 0) continue;
    dst += n;
    len -= (size_t)n;
  }
}

int gcs_jwt_build(delta_buf *out, const gcs_sa *sa, int64_t iat) {
  static const char header[] = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
  delta_buf claims = DELTA_BUF_INIT, sig = DELTA_BUF_INIT;
  const rsa_pair *k = sa->rsa;
  struct sha256_ctx h;
  uint8_t digest[SHA256_DIGEST_SIZE];
  mpz_t s;
  int rc;
  size_t start = out->len;
  mpz_init(s);
  if ((rc = buf_puts(&claims, "{\"iss\":\"")) != 0 || (rc = json_escape(&claims, sa->client_email)) != 0 ||
      (rc = buf_puts(&claims, "\",\"scope\":\"" SCOPE "\",\"aud\":\"")) != 0 ||
      (rc = json_escape(&claims, sa->token_uri)) != 0 ||
      (rc = buf_printf(&claims, "\",\"iat\":%lld,\"exp\":%lld}", (long long)iat,
                       (long long)(iat + JWT_LIFETIME))) != 0)
    goto done;
  if ((rc = b64url(out, header, sizeof header - 1)) != 0 || (rc = buf_putc(out, '.')) != 0 ||
      (rc = b64url(out, claims.data, claims.len)) != 0)
    goto done;
  sha256_init(&h);
  sha256_update(&h, out->len - start, out->data + start);
  sha256_digest(&h, sizeof digest, digest);
  if (!rsa_sha256_sign_digest_tr(&k->pub, &k->priv, NULL, random_bytes, digest, s)) {
    rc = err_set(DELTA_EIO, "cannot sign the service account's token request");
    goto done;
  }
  if ((rc = buf_reserve(&sig, k->pub.size)) != 0) goto done;
  nettle_mpz_get_str_256(k->pub.size, sig.data, s);
  sig.len = k->pub.size;
  if ((rc = buf_putc(out, '.')) != 0 || (rc = b64url(out, sig.data, sig.len)) != 0 ||
      (rc = buf_putc(out, '\0')) != 0)
    goto done;
  out->len--;
done:
  if (rc) out->len = start;
  mpz_clear(s);
  buf_dispose(&claims);
  buf_dispose(&sig);
  return rc;
}

/* ---- tokens ---- */

int gcs_auth_init(gcs_auth *a, char *bearer, gcs_sa *sa) {
  memset(a, 0, sizeof *a);
  if (pthread_mutex_init(&a->lock, NULL) != 0) return err_set(DELTA_EIO, "cannot create a mutex");
  a->bearer = bearer;
  if (sa) {
    a->sa = *sa;
    a->has_sa = true;
    memset(sa, 0, sizeof *sa);
  }
  return 0;
}

void gcs_auth_dispose(gcs_auth *a) {
  wipe_str(a->bearer);
  wipe_str(a->token);
  gcs_sa_dispose(&a->sa);
  pthread_mutex_destroy(&a->lock);
  memset(a, 0, sizeof *a);
}

void gcs_auth_invalidate(gcs_auth *a) {
  if (!a->has_sa) return;
  pthread_mutex_lock(&a->lock);
  a->token_until = 0;
  pthread_mutex_unlock(&a->lock);
}

/* The token endpoint's JSON: access_token and expires_in; or, on failure,
 * "error" (a short code such as invalid_grant) for the message. */
static int parse_token(const char *doc, size_t len, delta_buf *token, int64_t *expires_in,
                       char *err, size_t err_size) {
  gcs_json j = GCS_JSON_INIT(doc, len);
  delta_buf key = DELTA_BUF_INIT, e = DELTA_BUF_INIT;
  int rc;
  *expires_in = 3600;
  if ((rc = gcs_json_object(&j)) != 0) goto done;
  while ((rc = gcs_json_member(&j, &key)) == 1) {
    if (strcmp((char *)key.data, "access_token") == 0) rc = gcs_json_string(&j, token);
    else if (strcmp((char *)key.data, "expires_in") == 0) rc = gcs_json_int(&j, expires_in);
    else if (strcmp((char *)key.data, "error") == 0 && gcs_json_peek(&j) == '"') rc = gcs_json_string(&j, &e);
    else rc = gcs_json_skip(&j);
    if (rc) goto done;
  }
done:
  /* Only a plausible code goes into messages, never arbitrary text. */
  if (err_size) {
    size_t n = 0;
    for (; n < e.len && n < err_size - 1; n++) {
      char c = (char)e.data[n];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
        break;
      err[n] = c;
    }
    err[n] = '\0';
  }
  buf_dispose(&key);
  buf_dispose(&e);
  return rc;
}

static int fetch_token(gcs_auth *a, http_client *http, const char *label) {
  delta_buf jwt = DELTA_BUF_INIT, body = DELTA_BUF_INIT, token = DELTA_BUF_INIT;
  http_response resp = {0};
  char code[48] = "";
  int64_t now = (int64_t)time(NULL), expires_in = 0;
  int rc;
  if ((rc = gcs_jwt_build(&jwt, &a->sa, now)) != 0) goto done;
  if ((rc = buf_printf(&body, "grant_type=%s&assertion=%s",
                       "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer", (char *)jwt.data)) != 0)
    goto done;
  const char *headers[] = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json", NULL};
  char what[512];
  snprintf(what, sizeof what, "%s: token endpoint %s", label, a->sa.token_uri);
  http_request req = {"POST", a->sa.token_uri, headers, body.data, body.len, NULL, what};
  resp.body.limit = TOKEN_BODY_MAX;
  if ((rc = http_send(http, &req, &resp)) != 0) goto done;
  int prc = resp.body.len ? parse_token((char *)resp.body.data, resp.body.len, &token, &expires_in,
                                        code, sizeof code)
                          : DELTA_ECORRUPT;
  if (resp.status != 200) {
    delta_error_clear();
    rc = err_set(DELTA_EIO, "%s: %ld%s%s (service account %s)", what, resp.status, *code ? " " : "", code,
                 a->sa.client_email);
    goto done;
  }
  if (prc || !token.len) {
    delta_error_clear();
    rc = err_set(DELTA_EIO, "%s: the response holds no access_token", what);
    goto done;
  }
  wipe_str(a->token);
  if (!(a->token = mem_strdup((char *)token.data))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if (expires_in < 1) expires_in = 1;
  a->token_until = now + (expires_in > 2 * TOKEN_MARGIN ? expires_in - TOKEN_MARGIN : expires_in / 2);
done:
  wipe_buf(&jwt);
  wipe_buf(&body);
  wipe_buf(&token);
  wipe_buf(&resp.body);
  return rc;
}

int gcs_auth_header(gcs_auth *a, http_client *http, const char *label, delta_buf *out) {
  int rc = 0;
  if (a->bearer) {
    if ((rc = buf_printf(out, "Authorization: Bearer %s", a->bearer)) != 0) return rc;
    if ((rc = buf_putc(out, '\0')) != 0) return rc;
    out->len--;
    return 0;
  }
  if (!a->has_sa) return 0;
  pthread_mutex_lock(&a->lock);
  if ((!a->token || (int64_t)time(NULL) >= a->token_until) && (rc = fetch_token(a, http, label)) != 0)
    goto done;
  if ((rc = buf_printf(out, "Authorization: Bearer %s", a->token)) != 0) goto done;
  if ((rc = buf_putc(out, '\0')) != 0) goto done;
  out->len--;
done:
  pthread_mutex_unlock(&a->lock);
  return rc;
}
