/*
 * The Google Cloud Storage back end (gcs.c): a delta_storage over the GCS
 * JSON API, for Google and for compatible test servers.
 */
#ifndef DELTAC_STORAGE_GCS_H
#define DELTAC_STORAGE_GCS_H

#include "deltac/storage.h"
#include "storage/options.h"

/* Open `location` ("gs://bucket/prefix"; the prefix is percent-decoded)
 * with `opts`, completing what they leave out from the environment
 * (GOOGLE_APPLICATION_CREDENTIALS, GOOGLE_SERVICE_ACCOUNT*,
 * GOOGLE_CLOUD_STORAGE_ENDPOINT, STORAGE_EMULATOR_HOST). Reads the
 * service-account key file, if any; nothing from the store. */
int gcs_open(delta_storage **out, const char *location, const storage_options *opts);

/* Split "gs://bucket/a%20b/c/" into the bucket and the decoded prefix
 * without slashes around it ("a b/c"); both new strings. DELTA_EINVAL for a
 * URI that is not one (no bucket, bad bucket characters, query, fragment,
 * empty/"."/".." segments). */
int gcs_parse_uri(const char *location, char **bucket, char **prefix);

#endif
