/*
 * The Azure back end's URI parsing and settings (see azure_config.h).
 *
 * Where each setting comes from, first match wins:
 *   account    the abfs[s] URI's host, azure_storage_account_name,
 *              AZURE_STORAGE_ACCOUNT_NAME, AZURE_STORAGE_ACCOUNT, and in
 *              emulator mode devstoreaccount1
 *   endpoint   azure_storage_endpoint, AZURE_STORAGE_ENDPOINT, in emulator
 *              mode http://127.0.0.1:10000/<account>, else
 *              https://<account>.blob.core.windows.net
 *   emulator   azure_storage_use_emulator, AZURE_STORAGE_USE_EMULATOR
 *   credentials, as a set: the options when they name any, else the
 *              environment (AZURE_STORAGE_ACCOUNT_KEY / AZURE_STORAGE_KEY,
 *              AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_TOKEN, AZURE_CLIENT_ID,
 *              AZURE_CLIENT_SECRET, AZURE_TENANT_ID); of those, a key signs
 *              (Shared Key), else a SAS, else a bearer token, else client
 *              credentials; with none, the emulator's key in emulator mode,
 *              else anonymous requests.
 *   authority  azure_authority_host, AZURE_AUTHORITY_HOST, else
 *              https://login.microsoftonline.com
 *   allow_http allow_http, AZURE_ALLOW_HTTP; implied in emulator mode.
 */
#include "storage/azure_config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "storage/azure_auth.h"
#include "storage/path.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static int set_str(char **out, const char *s, size_t n) {
  return (*out = mem_strndup(s, n)) ? 0 : DELTA_NOMEM();
}

static bool container_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '$';
}

static bool account_ok(const char *s, size_t n) {
  if (!n || n > 64) return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9'))) return false;
  return true;
}

int azure_url_parse(azure_url *u, const char *location) {
  delta_buf prefix = DELTA_BUF_INIT;
  int rc = 0;
  memset(u, 0, sizeof *u);
  const char *sep = strstr(location, "://");
  if (!sep) return err_set(DELTA_EINVAL, "'%s' is not an Azure URI", location);
  size_t sl = (size_t)(sep - location);
  if ((rc = set_str(&u->scheme, location, sl)) != 0) goto fail;
  for (char *p = u->scheme; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p | 0x20 : *p);
  bool abfs = strcmp(u->scheme, "abfs") == 0 || strcmp(u->scheme, "abfss") == 0;
  if (!abfs && strcmp(u->scheme, "az") != 0 && strcmp(u->scheme, "azure") != 0) {
    rc = err_set(DELTA_EINVAL, "'%s' is not an Azure URI", location);
    goto fail;
  }
  if (strpbrk(location, "?#")) {
    rc = err_set(DELTA_EINVAL, "'%s': a table URI has no query or fragment", location);
    goto fail;
  }
  const char *auth = sep + 3, *slash = strchr(auth, '/');
  size_t al = slash ? (size_t)(slash - auth) : strlen(auth);
  const char *at = memchr(auth, '@', al);
  size_t cl = at ? (size_t)(at - auth) : al;
  if (abfs != (at != NULL)) {
    rc = err_set(DELTA_EINVAL, abfs ? "'%s': an abfs URI is abfss://container@account.dfs.core.windows.net/path"
                                    : "'%s': an az URI is az://container/path", location);
    goto fail;
  }
  if (cl < 3 || cl > 63) {
    rc = err_set(DELTA_EINVAL, "'%s' names no container (3 to 63 characters)", location);
    goto fail;
  }
  for (size_t i = 0; i < cl; i++)
    if (!container_char(auth[i])) {
      rc = err_set(DELTA_EINVAL, "'%s': bad character in the container name (a-z, 0-9, '-')", location);
      goto fail;
    }
  if ((rc = set_str(&u->container, auth, cl)) != 0) goto fail;
  if (at) {
    const char *host = at + 1, *dot = memchr(host, '.', (size_t)(auth + al - host));
    size_t hl = (size_t)(auth + al - host), acl = dot ? (size_t)(dot - host) : hl;
    if (!account_ok(host, acl)) {
      rc = err_set(DELTA_EINVAL, "'%s': the host must be <account>.dfs.core.windows.net "
                                 "(account: a-z, 0-9)", location);
      goto fail;
    }
    if ((rc = set_str(&u->account, host, acl)) != 0 || (rc = set_str(&u->host, host, hl)) != 0) goto fail;
  }
  const char *pp = slash ? slash : "";
  while (*pp == '/') pp++;
  size_t ppl = strlen(pp);
  while (ppl && pp[ppl - 1] == '/') ppl--;
  if (ppl) {
    if (storage_path_decode(&prefix, pp, ppl) != 0) {
      rc = err_set(DELTA_EINVAL, "'%s': the path decodes to a NUL byte", location);
      goto fail;
    }
    if ((rc = buf_putc(&prefix, '\0')) != 0) goto fail;
    if (storage_path_check_key((const char *)prefix.data, false) != 0) {
      rc = err_set(DELTA_EINVAL, "'%s': the path has an empty, '.' or '..' segment", location);
      goto fail;
    }
    u->prefix = (char *)buf_detach(&prefix);
  } else if ((rc = set_str(&u->prefix, "", 0)) != 0) {
    goto fail;
  }
  return 0;
fail:
  buf_dispose(&prefix);
  azure_url_dispose(u);
  return rc;
}

void azure_url_dispose(azure_url *u) {
  mem_free(u->scheme);
  mem_free(u->container);
  mem_free(u->account);
  mem_free(u->host);
  mem_free(u->prefix);
  memset(u, 0, sizeof *u);
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* Copy `v` into *out unless *out is set or `v` is NULL/empty. */
static int take(char **out, const char *v) {
  if (*out || !v || !*v) return 0;
  return (*out = mem_strdup(v)) ? 0 : DELTA_NOMEM();
}

static void wipe_free(char *s) {
  if (s) memset(s, 0, strlen(s));
  mem_free(s);
}

/* The credentials as a set, from the options or the environment. */
typedef struct {
  const char *key, *sas, *token, *client_id, *client_secret, *tenant_id;
} creds;

static creds pick_creds(const storage_options *o) {
  creds c = {o->azure_key, o->azure_sas, o->azure_token, o->azure_client_id,
             o->azure_client_secret, o->azure_tenant_id};
  if (c.key || c.sas || c.token || c.client_id || c.client_secret || c.tenant_id) return c;
  c.key = env("AZURE_STORAGE_ACCOUNT_KEY");
  if (!c.key) c.key = env("AZURE_STORAGE_KEY");
  c.sas = env("AZURE_STORAGE_SAS_TOKEN");
  c.token = env("AZURE_STORAGE_TOKEN");
  c.client_id = env("AZURE_CLIENT_ID");
  c.client_secret = env("AZURE_CLIENT_SECRET");
  c.tenant_id = env("AZURE_TENANT_ID");
  return c;
}

static int set_credentials(azure_config *c, const creds *k) {
  int rc;
  const char *key = k->key;
  if (!key && !k->sas && !k->token && !k->client_id && !k->client_secret && !k->tenant_id &&
      c->emulator)
    key = AZURE_EMULATOR_KEY;
  if (key) {
    delta_buf d = DELTA_BUF_INIT;
    if (azure_base64_decode(&d, key, strlen(key)) != 0 || d.len == 0) {
      if (d.data) memset(d.data, 0, d.len);
      buf_dispose(&d);
      return err_set(DELTA_EINVAL, "storage option 'azure_storage_account_key': not a base64 key");
    }
    c->key_len = d.len;
    c->key = buf_detach(&d);
    c->auth = AZURE_AUTH_SHARED_KEY;
    return 0;
  }
  if (k->sas) {
    const char *s = k->sas[0] == '?' ? k->sas + 1 : k->sas;
    if (!*s || strpbrk(s, " #\r\n"))
      return err_set(DELTA_EINVAL, "storage option 'azure_storage_sas_token': not a query string");
    c->auth = AZURE_AUTH_SAS;
    return take(&c->sas, s);
  }
  if (k->token) {
    if (strpbrk(k->token, "\r\n"))
      return err_set(DELTA_EINVAL, "storage option 'azure_storage_token': not a token");
    c->auth = AZURE_AUTH_BEARER;
    return take(&c->token, k->token);
  }
  if (k->client_id || k->client_secret || k->tenant_id) {
    const char *missing = !k->client_id ? "azure_client_id"
                          : !k->client_secret ? "azure_client_secret"
                          : !k->tenant_id ? "azure_tenant_id" : NULL;
    if (missing)
      return err_set(DELTA_EINVAL, "storage options: client credentials need azure_client_id, "
                                   "azure_client_secret and azure_tenant_id ('%s' is missing)", missing);
    for (const char *p = k->tenant_id; *p; p++)
      if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.'))
        return err_set(DELTA_EINVAL, "storage option 'azure_tenant_id': not a tenant id or domain");
    c->auth = AZURE_AUTH_CLIENT_SECRET;
    if ((rc = take(&c->client_id, k->client_id)) != 0 ||
        (rc = take(&c->client_secret, k->client_secret)) != 0 ||
        (rc = take(&c->tenant_id, k->tenant_id)) != 0)
      return rc;
    return 0;
  }
  c->auth = AZURE_AUTH_ANONYMOUS;
  return 0;
}

/* scheme://host[:port][/path] with http or https; `what` names the setting. */
static int check_url(const char *url, bool allow_http, const char *what, const char *location) {
  const char *sep = strstr(url, "://");
  size_t sl = sep ? (size_t)(sep - url) : 0;
  bool https = sl == 5 && strncasecmp(url, "https", 5) == 0, http = sl == 4 && strncasecmp(url, "http", 4) == 0;
  if (!https && !http)
    return err_set(DELTA_EINVAL, "%s: %s must be an http:// or https:// URL", location, what);
  if (http && !allow_http)
    return err_set(DELTA_EINVAL, "%s: %s is http:// but allow_http is not set (option "
                                 "allow_http=true or AZURE_ALLOW_HTTP=true)", location, what);
  const char *host = sep + 3;
  size_t hl = strcspn(host, "/");
  if (!hl || memchr(host, '@', hl) || strpbrk(host, "?# "))
    return err_set(DELTA_EINVAL, "%s: %s must be scheme://host[:port][/path]", location, what);
  return 0;
}

int azure_config_resolve(azure_config *c, const storage_options *o, const azure_url *url,
                         const char *location) {
  delta_buf b = DELTA_BUF_INIT;
  int rc;
  memset(c, 0, sizeof *c);
  int emu = o->azure_use_emulator;
  if (emu < 0) {
    const char *e = env("AZURE_STORAGE_USE_EMULATOR");
    emu = e && storage_parse_bool(e) == 1;
  }
  c->emulator = emu == 1;
  int allow_http = o->allow_http;
  if (allow_http < 0) {
    const char *e = env("AZURE_ALLOW_HTTP");
    allow_http = e && storage_parse_bool(e) == 1;
  }
  if (c->emulator) allow_http = 1;

  if ((rc = take(&c->account, url->account)) != 0 || (rc = take(&c->account, o->azure_account)) != 0 ||
      (rc = take(&c->account, env("AZURE_STORAGE_ACCOUNT_NAME"))) != 0 ||
      (rc = take(&c->account, env("AZURE_STORAGE_ACCOUNT"))) != 0)
    goto fail;
  if (!c->account && c->emulator && (rc = take(&c->account, AZURE_EMULATOR_ACCOUNT)) != 0) goto fail;
  if (!c->account) {
    rc = err_set(DELTA_EINVAL, "%s: no Azure storage account (option azure_storage_account_name "
                               "or AZURE_STORAGE_ACCOUNT_NAME)", location);
    goto fail;
  }
  if (!account_ok(c->account, strlen(c->account))) {
    rc = err_set(DELTA_EINVAL, "storage option 'azure_storage_account_name': not an account "
                               "name (a-z, 0-9)");
    goto fail;
  }

  creds k = pick_creds(o);
  if ((rc = set_credentials(c, &k)) != 0) goto fail;

  const char *ep = o->azure_endpoint ? o->azure_endpoint : env("AZURE_STORAGE_ENDPOINT");
  if (ep) {
    if ((rc = check_url(ep, allow_http, "azure_storage_endpoint", location)) != 0) goto fail;
    size_t n = strlen(ep);
    while (n && ep[n - 1] == '/') n--;
    if ((rc = set_str(&c->endpoint, ep, n)) != 0) goto fail;
  } else {
    rc = c->emulator ? buf_printf(&b, "http://127.0.0.1:10000/%s", c->account)
                     : buf_printf(&b, "https://%s.blob.core.windows.net", c->account);
    if (rc || (rc = buf_putc(&b, '\0')) != 0) goto fail;
    c->endpoint = (char *)buf_detach(&b);
  }

  if (c->auth == AZURE_AUTH_CLIENT_SECRET) {
    const char *ah = o->azure_authority_host ? o->azure_authority_host : env("AZURE_AUTHORITY_HOST");
    if (!ah) ah = "https://login.microsoftonline.com";
    if ((rc = check_url(ah, allow_http, "azure_authority_host", location)) != 0) goto fail;
    size_t n = strlen(ah);
    while (n && ah[n - 1] == '/') n--;
    if ((rc = set_str(&c->authority_host, ah, n)) != 0) goto fail;
  }

  c->http = (http_config)HTTP_CONFIG_DEFAULT;
  if (o->timeout_ms >= 0) c->http.timeout_ms = o->timeout_ms;
  if (o->connect_timeout_ms >= 0) c->http.connect_timeout_ms = o->connect_timeout_ms;
  if (o->retry_timeout_ms >= 0) c->http.retry_timeout_ms = o->retry_timeout_ms;
  if (o->max_retries >= 0) c->http.max_retries = o->max_retries;
  c->http.user_agent = o->user_agent;
  return 0;
fail:
  buf_dispose(&b);
  azure_config_dispose(c);
  return rc;
}

void azure_config_dispose(azure_config *c) {
  mem_free(c->account);
  if (c->key) memset(c->key, 0, c->key_len);
  mem_free(c->key);
  wipe_free(c->sas);
  wipe_free(c->token);
  mem_free(c->client_id);
  wipe_free(c->client_secret);
  mem_free(c->tenant_id);
  mem_free(c->authority_host);
  mem_free(c->endpoint);
  memset(c, 0, sizeof *c);
}
