/*
 * One data file being written. On local storage it goes straight to a
 * hidden temporary file in its final directory, through a small buffer,
 * and is renamed to its name when complete; the fsyncs wait for
 * file_out_sync, once for every file of a transaction just before its
 * commit, so that the disk works while the next file is encoded (a file
 * under its final name but not yet durable is referenced by no commit, so
 * no reader looks at it). Elsewhere the file is built in memory and put
 * whole. Either way no reader sees half a file under a name the log uses.
 */
#ifndef DELTAC_REWRITE_FILE_OUT_H
#define DELTAC_REWRITE_FILE_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "util/buf.h"

typedef struct {
  delta_storage *storage;
  char *key;
  bool local;
  int fd;             /* local: the temporary file */
  char *tmp, *final;  /* local paths */
  delta_buf buf;      /* local: bytes not written yet; else the whole file */
  int64_t size;
} file_out;

/* Paths of the files closed but not yet fsync'd (NUL-separated). */
typedef struct {
  delta_buf paths;
} file_out_pending;

int file_out_open(file_out *f, delta_storage *storage, const char *key);
/* A delta_parquet_sink write function; ctx is the file_out. */
int file_out_write(void *ctx, const void *data, size_t len);
/* Complete the file under its key (`pending` gets local files to sync). */
int file_out_close(file_out *f, file_out_pending *pending);
/* Drop an unfinished file (its temporary removed). Safe after close. */
void file_out_abort(file_out *f);
/* fsync every pending file and the directories holding them. */
int file_out_sync(file_out_pending *pending);
void file_out_pending_dispose(file_out_pending *pending);

#endif
