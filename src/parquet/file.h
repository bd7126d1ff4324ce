/* The open Parquet file shared by the reader's parts: where its bytes come
 * from, its decoded footer and logical schema. Reference-counted so streams
 * outlive the handle. */
#ifndef DELTAC_PARQUET_FILE_H
#define DELTAC_PARQUET_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/parquet.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "util/buf.h"

typedef struct pq_rg_bytes pq_rg_bytes;

struct delta_parquet_file {
  int refs;
  char *name;                 /* for messages */
  const uint8_t *data;        /* the whole file when opened from memory, else NULL */
  size_t size;
  /* Opened from a source (a local fd, storage, an embedder's): bytes are
   * read with src.read_at. src.cheap_reads: pages are read as decoded
   * (local files); else a row group's projected chunks are read at once
   * (pq_rg_bytes_load). */
  delta_parquet_source src;
  bool has_src;
  uint8_t *footer;            /* the tail read that holds the footer (owned) when not in memory */
  uint64_t tail_at;           /* footer holds bytes [tail_at, size) of the file, when tail_len > 0 */
  size_t tail_len;
  /* A row group's chunks read ahead (pq_file_preload) for the first stream
   * that starts that row group; dropped when a stream starts another one. */
  pq_rg_bytes *preloaded;
  pq_file_metadata *md;
  pq_schema *schema;
  char **leaf_paths;
};

typedef struct delta_parquet_file pq_file;

void pq_file_unref(pq_file *f);

/* Read bytes [offset, offset+len) of a file opened from a source into dst.
 * The caller has checked the range against f->size. */
int pq_file_read(const pq_file *f, uint64_t offset, size_t len, uint8_t *dst);

/*
 * The column chunks of one row group that a stream reads, in memory: their
 * byte ranges sorted, ranges closer than PQ_COALESCE_GAP merged, and each
 * merged range read with one read_at. Reference-counted: the file's
 * preloaded copy and the streams reading that row group share it.
 */
#define PQ_COALESCE_GAP ((uint64_t)1 << 20)
struct pq_rg_bytes {
  int refs;
  int row_group;
  bool *have;                 /* by leaf: its chunk is in memory */
  size_t n_ranges;
  uint64_t *start, *len;      /* merged ranges */
  uint8_t **data;             /* their bytes (+8 spare zero bytes each) */
};

/* Read the chunks of row group `rg` of the leaves marked in `selected`
 * (all leaves when NULL). */
int pq_rg_bytes_load(const pq_file *f, int rg, const bool *selected, pq_rg_bytes **out);
/* The bytes of chunk [start, start+len) if it is loaded, else NULL. */
const uint8_t *pq_rg_bytes_find(const pq_rg_bytes *b, uint64_t start, uint64_t len);
void pq_rg_bytes_unref(pq_rg_bytes *b);

/* The chunk's bytes when the footer's tail read already holds them (small
 * files come whole with it), else NULL. */
const uint8_t *pq_file_tail_bytes(const pq_file *f, uint64_t start, uint64_t len);

/* Byte range of a leaf's column chunk in row group rg; DELTA_ECORRUPT when
 * it lies outside the file. */
int pq_chunk_range(const pq_file *f, int rg, int leaf, uint64_t *start, uint64_t *len);

#endif
