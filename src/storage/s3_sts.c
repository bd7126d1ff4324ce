/*
 * Web-identity credentials through AWS STS (see s3_sts.h). The request is
 * AssumeRoleWithWebIdentity as a form POST:
 *   Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=...
 *   &RoleSessionName=...&WebIdentityToken=...
 * and the answer's AssumeRoleWithWebIdentityResult/Credentials holds
 * AccessKeyId, SecretAccessKey, SessionToken and Expiration (ISO 8601 UTC).
 */
#include "storage/s3_sts.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "storage/s3_xml.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define TOKEN_MAX (64 * 1024)         /* longest web identity token read */
#define REFRESH_MARGIN_MS (5 * 60000) /* fetch again this long before expiry */
#define UNKNOWN_LIFETIME_MS (15 * 60000)

struct s3_sts {
  http_client *http;
  char *endpoint, *role_arn, *session_name, *token_file;
  pthread_mutex_t lock;
  s3_creds cur;          /* NULL members until the first fetch */
  int64_t refresh_at_ms; /* wall clock; fetch again from then on */
  int64_t expires_at_ms; /* wall clock; unusable from then on */
};

static void wipe_free(char *s) {
  if (s) memset(s, 0, strlen(s));
  mem_free(s);
}

void s3_creds_dispose(s3_creds *c) {
  wipe_free(c->access_key);
  wipe_free(c->secret_key);
  wipe_free(c->session_token);
  memset(c, 0, sizeof *c);
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "2026-12-02T01:00:00Z" (fractions allowed) -> ms since the epoch; 0 when
 * unreadable. */
static int64_t iso_ms(const char *s) {
  struct tm tm = {0};
  if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
             &tm.tm_min, &tm.tm_sec) != 6)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);
  return t == (time_t)-1 ? 0 : (int64_t)t * 1000;
}

/* The text of element `name` as a new string, or DELTA_ECORRUPT. */
static int field(const char *doc, size_t len, const char *name, char **out) {
  delta_buf b = DELTA_BUF_INIT;
  int rc = s3_xml_find(doc, len, name, &b);
  if (rc == 1 || (rc == 0 && b.len == 0)) {
    rc = err_set(DELTA_ECORRUPT, "STS response has no %s", name);
  } else if (rc == 0) {
    if (!(*out = mem_strndup((const char *)b.data, b.len))) rc = DELTA_NOMEM();
  }
  if (b.data) memset(b.data, 0, b.len);
  buf_dispose(&b);
  return rc;
}

int s3_sts_parse(const char *doc, size_t len, s3_creds *out, int64_t *expires_ms) {
  char *exp = NULL;
  int rc;
  memset(out, 0, sizeof *out);
  *expires_ms = 0;
  if ((rc = field(doc, len, "AccessKeyId", &out->access_key)) != 0 ||
      (rc = field(doc, len, "SecretAccessKey", &out->secret_key)) != 0)
    goto done;
  /* AWS always sends a session token; a test stand-in for STS that hands
   * out a server's plain keys sends an empty one (then none is signed). */
  if (field(doc, len, "SessionToken", &out->session_token) != 0) out->session_token = NULL;
  if (field(doc, len, "Expiration", &exp) == 0) *expires_ms = iso_ms(exp);
  delta_error_clear();
done:
  mem_free(exp);
  if (rc) s3_creds_dispose(out);
  return rc;
}

int s3_sts_new(s3_sts **out, const char *endpoint, const char *role_arn, const char *session_name,
               const char *token_file, bool allow_http, const http_config *http) {
  s3_sts *p = NULL;
  char name[64];
  int rc;
  if (strncasecmp(endpoint, "https://", 8) != 0) {
    if (strncasecmp(endpoint, "http://", 7) != 0)
      return err_set(DELTA_EINVAL, "the STS endpoint must be an http:// or https:// URL");
    if (!allow_http)
      return err_set(DELTA_EINVAL, "the STS endpoint is http:// but allow_http is not set "
                                   "(option aws_allow_http=true or AWS_ALLOW_HTTP=true)");
  }
  if (!session_name || !*session_name) {
    snprintf(name, sizeof name, "deltac-%lld", (long long)time(NULL));
    session_name = name;
  }
  if (!(p = mem_calloc(1, sizeof *p))) return DELTA_NOMEM();
  if (!(p->endpoint = mem_strdup(endpoint)) || !(p->role_arn = mem_strdup(role_arn)) ||
      !(p->session_name = mem_strdup(session_name)) || !(p->token_file = mem_strdup(token_file))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  if ((rc = http_client_new(&p->http, http)) != 0) goto fail;
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    rc = err_set(DELTA_EIO, "cannot create a mutex");
    goto fail;
  }
  *out = p;
  return 0;
fail:
  http_client_free(p->http);
  mem_free(p->endpoint);
  mem_free(p->role_arn);
  mem_free(p->session_name);
  mem_free(p->token_file);
  mem_free(p);
  return rc;
}

void s3_sts_free(s3_sts *p) {
  if (!p) return;
  http_client_free(p->http);
  s3_creds_dispose(&p->cur);
  pthread_mutex_destroy(&p->lock);
  mem_free(p->endpoint);
  mem_free(p->role_arn);
  mem_free(p->session_name);
  mem_free(p->token_file);
  mem_free(p);
}

/* Append `v` form-urlencoded (RFC 3986 unreserved characters as they are). */
static int form_value(delta_buf *b, const char *v) {
  static const char hex[] = "0123456789ABCDEF";
  int rc;
  for (const unsigned char *s = (const unsigned char *)v; *s; s++) {
    if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
        *s == '-' || *s == '_' || *s == '.' || *s == '~')
      rc = buf_putc(b, (char)*s);
    else
      rc = buf_printf(b, "%%%c%c", hex[*s >> 4], hex[*s & 15]);
    if (rc) return rc;
  }
  return 0;
}

/* The token file's content, trimmed of surrounding whitespace. */
static int read_token(const char *path, delta_buf *out) {
  FILE *f = fopen(path, "rb");
  char chunk[4096];
  size_t n;
  int rc = 0;
  if (!f) return err_set(DELTA_EINVAL, "web identity token file '%s': %s", path, strerror(errno));
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (out->len + n > TOKEN_MAX) {
      rc = err_set(DELTA_EINVAL, "web identity token file '%s': larger than %d bytes", path, TOKEN_MAX);
      break;
    }
    if ((rc = buf_append(out, chunk, n)) != 0) break;
  }
  memset(chunk, 0, sizeof chunk);
  fclose(f);
  if (rc) return rc;
  while (out->len && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == '\r' ||
                      out->data[out->len - 1] == ' ' || out->data[out->len - 1] == '\t'))
    out->len--;
  if (!out->len) return err_set(DELTA_EINVAL, "web identity token file '%s' is empty", path);
  return buf_putc(out, '\0');
}

/* One AssumeRoleWithWebIdentity round trip into p->cur. */
static int fetch(s3_sts *p) {
  delta_buf token = DELTA_BUF_INIT, body = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  http_response resp = {0};
  s3_creds fresh = {0};
  int64_t expires = 0;
  int rc;
  static const char *const headers[] = {"Content-Type: application/x-www-form-urlencoded",
                                        "Accept: application/xml", NULL};
  if ((rc = read_token(p->token_file, &token)) != 0) goto done;
  if ((rc = buf_puts(&body, "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=")) != 0 ||
      (rc = form_value(&body, p->role_arn)) != 0 || (rc = buf_puts(&body, "&RoleSessionName=")) != 0 ||
      (rc = form_value(&body, p->session_name)) != 0 ||
      (rc = buf_puts(&body, "&WebIdentityToken=")) != 0 ||
      (rc = form_value(&body, (const char *)token.data)) != 0)
    goto done;
  if ((rc = buf_printf(&label, "STS %s (role %s)", p->endpoint, p->role_arn)) != 0 ||
      (rc = buf_putc(&label, '\0')) != 0)
    goto done;
  http_request req = {"POST", p->endpoint, headers, body.data, body.len, NULL,
                      (const char *)label.data};
  if ((rc = http_send(p->http, &req, &resp)) != 0) goto done;
  if (resp.status != 200) {
    delta_buf code = DELTA_BUF_INIT;
    char shown[64] = "";
    if (resp.body.len && s3_xml_find((const char *)resp.body.data, resp.body.len, "Code", &code) == 0) {
      size_t n = 0;
      for (; n < code.len && n < sizeof shown - 1; n++) {
        char ch = (char)code.data[n];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
          break;
        shown[n] = ch;
      }
      shown[n] = '\0';
    }
    buf_dispose(&code);
    delta_error_clear();
    rc = err_set(DELTA_EIO, "%s: AssumeRoleWithWebIdentity: %ld%s%s", (const char *)label.data,
                 resp.status, *shown ? " " : "", shown);
    goto done;
  }
  if ((rc = s3_sts_parse((const char *)resp.body.data, resp.body.len, &fresh, &expires)) != 0) {
    err_prefix("%s", (const char *)label.data);
    goto done;
  }
  int64_t now = wall_ms();
  int64_t life = expires > now ? expires - now : UNKNOWN_LIFETIME_MS;
  /* Short-lived credentials (a test's) are renewed half-way instead. */
  int64_t margin = life / 2 < REFRESH_MARGIN_MS ? life / 2 : REFRESH_MARGIN_MS;
  s3_creds_dispose(&p->cur);
  p->cur = fresh;
  memset(&fresh, 0, sizeof fresh);
  p->refresh_at_ms = now + life - margin;
  p->expires_at_ms = now + life;
done:
  s3_creds_dispose(&fresh);
  if (token.data) memset(token.data, 0, token.cap);
  if (body.data) memset(body.data, 0, body.cap);
  if (resp.body.data) memset(resp.body.data, 0, resp.body.cap);
  buf_dispose(&token);
  buf_dispose(&body);
  buf_dispose(&label);
  buf_dispose(&resp.body);
  return rc;
}

int s3_sts_get(s3_sts *p, s3_creds *out) {
  int rc = 0;
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&p->lock);
  int64_t now = wall_ms();
  if (!p->cur.access_key || now >= p->refresh_at_ms) {
    rc = fetch(p);
    /* A failed early refresh keeps the still-valid credentials; the next
     * request tries again. */
    if (rc && p->cur.access_key && now < p->expires_at_ms) {
      rc = 0;
      delta_error_clear();
    }
  }
  if (!rc && (!(out->access_key = mem_strdup(p->cur.access_key)) ||
              !(out->secret_key = mem_strdup(p->cur.secret_key)) ||
              (p->cur.session_token && !(out->session_token = mem_strdup(p->cur.session_token))))) {
    s3_creds_dispose(out);
    rc = DELTA_NOMEM();
  }
  pthread_mutex_unlock(&p->lock);
  return rc;
}
