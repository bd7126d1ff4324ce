/* The source of a local Parquet file: pread on an open fd. */
#ifndef DELTAC_PARQUET_LOCAL_SOURCE_H
#define DELTAC_PARQUET_LOCAL_SOURCE_H

#include <stdint.h>

#include "deltac/parquet.h"

/* A source reading `fd` (size bytes); its close() closes the fd. On
 * failure the fd is still the caller's. */
int pq_local_source(int fd, uint64_t size, delta_parquet_source *out);

#endif
