/*
 * Reusable buffers of megabytes: a column chunk's bytes, a decompressed
 * page. A reader keeps them across row groups and streams through them once
 * per page, so what costs is not allocation but translation: walking 4 KiB
 * pages misses the TLB every 4 KiB (and hardware prefetch stops at each page
 * boundary), which on a virtual machine costs more than the copy itself.
 * Buffers of 2 MiB and more are therefore mapped on their own and offered
 * to the kernel as transparent huge pages; smaller ones come from the heap.
 * Disposed mappings are kept (up to 128 MiB, process-wide) for the next
 * buffer instead of being unmapped: fresh pages cost a kernel zeroing each.
 */
#ifndef DELTAC_PARQUET_BIGBUF_H
#define DELTAC_PARQUET_BIGBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t *data;
  size_t cap;
  void *map;      /* the mapping behind data, when mapped */
  size_t map_len;
} pq_bigbuf;

/* Room for n bytes. The contents are not kept. */
int pq_bigbuf_reserve(pq_bigbuf *b, size_t n);
void pq_bigbuf_dispose(pq_bigbuf *b);

#endif
