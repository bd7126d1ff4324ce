/*
 * What the Azure back end's files share: the store, one signed request, the
 * error message of a failed one. azure.c has the operations, azure_list.c
 * the listing.
 */
#ifndef DELTAC_STORAGE_AZURE_INTERNAL_H
#define DELTAC_STORAGE_AZURE_INTERNAL_H

#include <stddef.h>

#include "deltac/storage.h"
#include "storage/azure_auth.h"
#include "storage/azure_config.h"
#include "storage/azure_token.h"
#include "storage/http.h"
#include "util/buf.h"

/* The REST API version sent as x-ms-version: new enough for 5000 MiB Put
 * Blob, old enough for every Azurite release since 3.19. */
#define AZURE_API_VERSION "2021-08-06"

typedef struct {
  http_client *http;
  azure_config cfg;
  azure_token_cache *tokens; /* client credentials only */
  char *container;
  char *prefix;    /* decoded, no '/' around it; "" for the container root */
  char *origin;    /* "https://acct.blob.core.windows.net", no path */
  char *base_path; /* encoded URL path up to the container: "/devstoreaccount1/deltac" */
  char *label;     /* "az://container" (the scheme and authority the user wrote) */
} azure_store;

typedef struct {
  const char *method;
  const char *blob; /* decoded full blob name; NULL for a container-level request */
  const char *const *qnames, *const *qvalues; /* raw (not encoded) */
  size_t nq;
  azure_header extra[4];
  size_t n_extra;
  const void *body;
  size_t body_len;
  delta_storage_sink *sink;
  const char *label;
} azure_req;

/* Sign (or add the SAS/token to) and send one request. */
int azure_send(azure_store *s, const azure_req *r, http_response *resp);

/* One line: the label, the status and Azure's error code (from the error
 * document; the reason phrase for bodiless HEAD answers). A missing
 * container is DELTA_EIO even when `code` is DELTA_ENOTFOUND: the store is
 * misconfigured, no "table is not there". */
int azure_status_error(const char *label, http_response *resp, int code);

/* The blob name of table key `key` (NULL or "" = the prefix itself),
 * NUL-ended. */
int azure_full_key(delta_buf *out, const azure_store *s, const char *key);

/* "az://container/blobname" for messages, NUL-ended. */
int azure_make_label(delta_buf *out, const azure_store *s, const char *blob);

/* The vtable's list (azure_list.c). */
int azure_list(void *impl, const char *dir_key, const char *start_after, delta_storage_list_cb cb,
               void *payload);

#endif
