/* The open Parquet file shared by the reader's parts: its bytes, decoded
 * footer and logical schema. Reference-counted so streams outlive the handle. */
#ifndef DELTAC_PARQUET_FILE_H
#define DELTAC_PARQUET_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/parquet.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

struct delta_parquet_file {
  int refs;
  char *name;                 /* for messages */
  const uint8_t *data;        /* the whole file */
  size_t size;
  void *map;                  /* mmap'd region to unmap, or NULL */
  size_t map_len;
  pq_file_metadata *md;
  pq_schema *schema;
  char **leaf_paths;
};

typedef struct delta_parquet_file pq_file;

void pq_file_unref(pq_file *f);

#endif
