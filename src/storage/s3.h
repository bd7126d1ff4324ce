/*
 * The S3 back end (s3.c): a delta_storage over the S3 REST API (ListObjectsV2,
 * GET, HEAD, PUT, DELETE), for radosgw, MinIO and AWS alike.
 */
#ifndef DELTAC_STORAGE_S3_H
#define DELTAC_STORAGE_S3_H

#include "deltac/storage.h"
#include "storage/options.h"

/* Open `location` ("s3://bucket/prefix" or "s3a://..."; the prefix is
 * percent-decoded) with `opts`, completing what they leave out from the
 * environment and the AWS profile files. Reads nothing from the store. */
int s3_open(delta_storage **out, const char *location, const storage_options *opts);

#endif
