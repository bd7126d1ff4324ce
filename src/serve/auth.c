/* deltac serve: bearer tokens.
 *
 * A request authenticates with "Authorization: Bearer SECRET". Each token
 * lists what it may read: table names, "share:NAME", or "*". With no token
 * configured the server runs in development mode (everything readable),
 * which serve refuses on anything but a loopback address. */
#include <microhttpd.h>
#include <string.h>
#include <strings.h>

#include "serve/serve.h"

bool serve_ct_equal(const char *a, size_t an, const char *b, size_t bn) {
  /* Compare over the longer length so the time depends on neither the
   * position of the first difference nor which string is shorter. */
  size_t n = an > bn ? an : bn;
  volatile unsigned char diff = (unsigned char)(an != bn);
  for (size_t i = 0; i < n; i++) {
    unsigned char x = i < an ? (unsigned char)a[i] : 0, y = i < bn ? (unsigned char)b[i] : 0;
    diff |= (unsigned char)(x ^ y);
  }
  return diff == 0;
}

const serve_token *serve_auth_token(const serve_config *cfg, struct MHD_Connection *c, bool *presented) {
  const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  *presented = false;
  if (!h || strncasecmp(h, "Bearer ", 7) != 0) return NULL;
  const char *secret = h + 7;
  while (*secret == ' ') secret++;
  size_t n = strlen(secret);
  *presented = n > 0;
  const serve_token *found = NULL;
  /* Check every token (no early exit) so timing does not reveal which
   * configured token is closest. */
  for (int i = 0; i < cfg->n_tokens; i++)
    if (serve_ct_equal(secret, n, cfg->tokens[i].secret, strlen(cfg->tokens[i].secret)) && !found)
      found = &cfg->tokens[i];
  return found;
}

bool serve_token_allows(const serve_token *tok, const char *scope) {
  for (int i = 0; i < tok->n_scopes; i++)
    if (strcmp(tok->scopes[i], "*") == 0 || strcmp(tok->scopes[i], scope) == 0) return true;
  return false;
}

serve_auth serve_auth_any(const serve_config *cfg, struct MHD_Connection *c) {
  if (cfg->n_tokens == 0) return AUTH_OK;
  bool presented;
  return serve_auth_token(cfg, c, &presented) ? AUTH_OK : AUTH_MISSING;
}

serve_auth serve_auth_check(const serve_config *cfg, struct MHD_Connection *c, const char *scope) {
  if (cfg->n_tokens == 0) return AUTH_OK;
  bool presented;
  const serve_token *tok = serve_auth_token(cfg, c, &presented);
  if (!tok) return AUTH_MISSING;
  return serve_token_allows(tok, scope) ? AUTH_OK : AUTH_FORBIDDEN;
}
