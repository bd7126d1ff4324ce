/*
 * Deletion vectors: from an add/remove action's descriptor (log/actions.h
 * delta_dv) to the set of deleted row indexes of its data file.
 *
 * A row index is the 0-based position of a row in the data file (physical
 * rows, counted across all row groups, before any filtering). A scan drops
 * every row whose index is in the set.
 *
 * Where the bitmap lives (PROTOCOL.md "Deletion Vector Descriptor Schema"):
 *   'i'  inline: pathOrInlineDv is the Z85 text of the serialized bitmap,
 *        sizeInBytes its length before the zero padding to 4 bytes.
 *   'u'  pathOrInlineDv = <random prefix, possibly empty> + the Z85 text of
 *        a 16-byte UUID (always the last 20 characters); the file is
 *        "<prefix>/deletion_vector_<uuid, canonical lowercase>.bin" (no
 *        "<prefix>/" when the prefix is empty), relative to the table root.
 *   'p'  pathOrInlineDv is an absolute path/URI, resolved like add.path; a
 *        file outside the table is DELTA_EUNSUPPORTED for now.
 * File layout (big endian): byte 0 is the format version, 1; at `offset`
 * each DV is a 4-byte size (= sizeInBytes), the serialized bitmap, and a
 * 4-byte CRC-32 of the bitmap bytes.
 *
 * OFFSET: the spec says an absent offset means 0, but the DV's size field can
 * only start at 1 (byte 0 is the version) and Delta/kernel writers always
 * write 1 for the first DV; like delta-kernel-rs we read an absent offset
 * (and an explicit 0) as 1. An inline DV's offset is ignored.
 *
 * Checks: the version byte (when the DV starts within the first 4 KiB, so
 * that it comes with the same read; other versions are
 * DELTA_EUNSUPPORTED), size field == sizeInBytes, the CRC, the bitmap's
 * structure, and its cardinality == the descriptor's. Any mismatch is
 * DELTA_ECORRUPT naming the DV file (or "inline deletion vector"); a
 * missing file is DELTA_ENOTFOUND naming it.
 *
 * One read per file-backed DV (a range read of exactly the DV, or from byte
 * 0 when it starts in the first 4 KiB); nothing is cached. Loaded bitmaps
 * are immutable and may be shared by threads.
 */
#ifndef DELTAC_DV_DV_H
#define DELTAC_DV_DV_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "dv/bitmap64.h"
#include "log/actions.h"
#include "log/file_open.h"
#include "storage/path.h"
#include "util/buf.h"

/* A loaded deletion vector is a 64-bit row bitmap; the bitmap64 functions
 * (iterate, count_range, andnot, serialize, ...) apply to it as well. */
typedef delta_bitmap64 delta_dv_bitmap;

/* The DV file name of a 'u' or 'p' descriptor: sets *kind and appends to
 * `out` either a storage key relative to `root_uri` (DELTA_PATH_KEY) or,
 * for a 'p' path outside the table, its canonical absolute URI
 * (DELTA_PATH_ABSOLUTE). For VACUUM (which must keep live DV files) and for
 * messages. An inline DV, a bad storage type or a malformed UUID is
 * DELTA_ECORRUPT (DELTA_EINVAL for an inline one). */
int dv_file_key(const delta_dv *dv, const char *root_uri, delta_path_kind *kind,
                      delta_buf *out);

/* Read and check the deletion vector `dv` of a file of the table `s`;
 * `*out` belongs to the caller (dv_bitmap_free). dv->present must be
 * true (DELTA_EINVAL otherwise). */
int dv_load(delta_storage *s, const delta_dv *dv, delta_dv_bitmap **out);

/* dv_load for a reader that keeps storages for the locations outside the
 * table ('p' DVs elsewhere are read through `where`, opened once with the
 * table's options) */
int dv_load_in(log_storages *where, const delta_dv *dv, delta_dv_bitmap **out);

void dv_bitmap_free(delta_dv_bitmap *b); /* NULL is a no-op */
uint64_t dv_bitmap_cardinality(const delta_dv_bitmap *b);
bool dv_bitmap_contains(const delta_dv_bitmap *b, uint64_t row);

/* For the batch of rows [start, start + n): deleted[i] = 1 when row
 * start + i is deleted, else 0 (n bytes). O(n + deleted rows in the batch).
 * dv_bitmap64_keep gives the inverse (what arrow_filter takes) and
 * dv_bitmap64_mask_bits a bitmap. b may be NULL (nothing deleted). */
int dv_bitmap_mask(const delta_dv_bitmap *b, uint64_t start, uint64_t n,
                         uint8_t *deleted);

/* For writers (DML): the descriptor text of an inline DV for bitmap `b`:
 * appends the Z85 text to `z85` (no NUL) and sets *size_in_bytes to the
 * serialized size (sizeInBytes) and *cardinality. */
int dv_encode_inline(const delta_dv_bitmap *b, delta_buf *z85, int32_t *size_in_bytes,
                           int64_t *cardinality);

/* For writers: append DV `b` to the DV file being built in `file` (the
 * version byte first when `file` is empty), and give the descriptor's
 * offset and sizeInBytes. DELTA_ELIMIT past 2 GiB (offsets are Int). */
int dv_file_append(delta_buf *file, const delta_dv_bitmap *b, int32_t *offset,
                         int32_t *size_in_bytes);

/* For writers: pathOrInlineDv of a 'u' DV: `prefix` (may be "" or NULL)
 * followed by the Z85 text of the 16 UUID bytes (canonical byte order), and
 * the matching file name is then dv_file_key's. */
int dv_uuid_path(const char *prefix, const uint8_t uuid[16], delta_buf *out);

#endif
