/*
 * The Azure back end's inputs: the table URI's parts and the resolved
 * settings (options first, then the AZURE_* environment; azure_config.c
 * says which variable), including which of the four kinds of credentials
 * signs the requests.
 */
#ifndef DELTAC_STORAGE_AZURE_CONFIG_H
#define DELTAC_STORAGE_AZURE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "storage/http.h"
#include "storage/options.h"

/* A table URI taken apart:
 *   az://container/path, azure://container/path,
 *   abfs[s]://container@account.dfs.core.windows.net/path (or
 *   ...blob.core.windows.net, or any host: the account is its first label). */
typedef struct {
  char *scheme;    /* "az", "azure", "abfs", "abfss" (lower case) */
  char *container;
  char *account;   /* from an abfs[s] host; NULL for az:// and azure:// */
  char *host;      /* the abfs[s] host as given; NULL otherwise */
  char *prefix;    /* percent-decoded, no '/' around it; "" for the container root */
} azure_url;

int azure_url_parse(azure_url *u, const char *location);
void azure_url_dispose(azure_url *u);

typedef enum {
  AZURE_AUTH_ANONYMOUS, /* public containers only */
  AZURE_AUTH_SHARED_KEY,
  AZURE_AUTH_SAS,
  AZURE_AUTH_BEARER,      /* a token given as is */
  AZURE_AUTH_CLIENT_SECRET /* tenant/client id/secret -> token endpoint */
} azure_auth_kind;

typedef struct {
  char *account;                 /* never NULL after resolve */
  unsigned char *key;            /* decoded Shared Key; NULL unless SHARED_KEY */
  size_t key_len;
  char *sas;                     /* query string without '?'; NULL unless SAS */
  char *token;                   /* NULL unless BEARER */
  char *client_id, *client_secret, *tenant_id;
  char *authority_host;          /* "https://login.microsoftonline.com" unless overridden */
  char *endpoint;                /* blob service base URL, no trailing '/' */
  bool emulator;
  azure_auth_kind auth;
  http_config http;              /* user_agent borrowed from the options */
} azure_config;

/* The emulator's published account and key (Azurite, the old Storage
 * Emulator): not a secret. */
#define AZURE_EMULATOR_ACCOUNT "devstoreaccount1"
#define AZURE_EMULATOR_KEY \
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

/* Resolve the settings for `url` (its account, when it names one, wins
 * over the options'). DELTA_EINVAL naming the option (never a value) for
 * a malformed key, half a set of client credentials, a bad endpoint or an
 * http:// endpoint without allow_http (the emulator allows it). */
int azure_config_resolve(azure_config *c, const storage_options *o, const azure_url *url,
                         const char *location);
void azure_config_dispose(azure_config *c);

#endif
