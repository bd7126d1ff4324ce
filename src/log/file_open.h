/*
 * Reading the files a table's log names (data files, checkpoint parts,
 * sidecars, change files, deletion vectors) through storage, never by a
 * local path of its own: the table's storage for paths inside the table,
 * and for absolute URIs outside it a storage opened on the file's directory
 * with the table's options, kept for as long as the caller's reading lasts.
 */
#ifndef DELTAC_LOG_FILE_OPEN_H
#define DELTAC_LOG_FILE_OPEN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "deltac/parquet.h"
#include "deltac/storage.h"
#include "deltac/table.h"
#include "util/buf.h"

/* The storages of one reading task (a scan, a change feed): the table's
 * own, plus those opened for locations outside it, one per directory.
 * Safe to use from several threads. */
typedef struct {
  const delta_table *table;
  pthread_mutex_t lock;
  char **dirs;                 /* canonical directory URIs */
  delta_storage **storages;
  size_t n, cap;
} log_storages;

void log_storages_init(log_storages *c, const delta_table *t);
void log_storages_dispose(log_storages *c); /* frees the storages it opened */

/* Where a path from the log (add.path, cdc.path, ...) lives: *storage
 * (borrowed from c) and the key in it, appended to `key` with a NUL that is
 * not counted. */
int log_storages_resolve(log_storages *c, const char *path, delta_storage **storage, delta_buf *key);
/* The same for an already canonical absolute URI outside the table (as
 * storage_path_resolve gives for DELTA_PATH_ABSOLUTE). */
int log_storages_outside(log_storages *c, const char *uri, delta_storage **storage, delta_buf *key);

/* Open Parquet file `key` of `storage`: by its local path when the storage
 * has one (pread, page by page), else through ranged reads (footer in one
 * tail read, each row group's projected chunks coalesced). `size` is the
 * file's size when the caller knows it (the log's add.size), or -1 to ask
 * the store. The storage must outlive the file and its streams. */
int log_parquet_open(delta_storage *storage, const char *key, int64_t size, delta_parquet_file **out);

/* Whether `storage` reads through a local path (its files are then opened
 * with pread and need no read-ahead). */
int log_storage_is_local(delta_storage *storage);

#endif
