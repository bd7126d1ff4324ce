/*
 * The Azure back end (azure.c): a delta_storage over the Azure Blob REST API
 * (List Blobs, Get Blob, Get Blob Properties, Put Blob, Put Block, Put Block
 * List, Delete Blob), for Azure Blob Storage, ADLS Gen2 accounts (through
 * their blob endpoint) and the Azurite emulator.
 */
#ifndef DELTAC_STORAGE_AZURE_H
#define DELTAC_STORAGE_AZURE_H

#include <stdbool.h>
#include <stddef.h>

#include "deltac/storage.h"
#include "storage/options.h"

/* Open `location` (az://container/path, azure://container/path,
 * abfs[s]://container@account.dfs.core.windows.net/path; the path is
 * percent-decoded) with `opts`, completing what they leave out from the
 * AZURE_* environment (azure_config.c). Reads nothing from the store. */
/* Whether the scheme of `location` (its first `scheme_len` bytes) is one
 * of az, azure, abfs, abfss (any case). */
bool azure_scheme(const char *location, size_t scheme_len);

int azure_open(delta_storage **out, const char *location, const storage_options *opts);

#endif
