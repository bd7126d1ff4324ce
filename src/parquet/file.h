/* The open Parquet file shared by the reader's parts: its bytes, decoded
 * footer and logical schema. Reference-counted so streams outlive the handle. */
#ifndef DELTAC_PARQUET_FILE_H
#define DELTAC_PARQUET_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/parquet.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "util/buf.h"

struct delta_parquet_file {
  int refs;
  char *name;                 /* for messages */
  const uint8_t *data;        /* the whole file when opened from memory, else NULL */
  size_t size;
  int fd;                     /* opened from a path: column chunks are read with pread */
  uint8_t *footer;            /* the footer bytes (owned) when read from fd */
  pq_file_metadata *md;
  pq_schema *schema;
  char **leaf_paths;
};

typedef struct delta_parquet_file pq_file;

void pq_file_unref(pq_file *f);

/* Bytes [offset, offset+len) of the file: a pointer into memory for files
 * opened from memory, else read into `buf` (grown as needed). The caller
 * has checked the range against f->size. */
int pq_file_range(const pq_file *f, uint64_t offset, size_t len, delta_buf *buf, const uint8_t **out);
/* Read bytes [offset, offset+len) of a file opened from a path into dst. */
int pq_file_read(const pq_file *f, uint64_t offset, size_t len, uint8_t *dst);

#endif
