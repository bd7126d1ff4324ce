/*
 * One data file being written, streamed through the table's storage
 * (delta_storage_upload_*): on local disk a hidden temporary file renamed
 * into place, on an object store a multipart upload. Small pieces (page
 * headers, the footer) are gathered into larger writes; large ones (column
 * chunks) go straight through. No reader sees half a file under a name the
 * log uses: the file appears whole at file_out_close or not at all.
 */
#ifndef DELTAC_REWRITE_FILE_OUT_H
#define DELTAC_REWRITE_FILE_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/storage.h"
#include "util/buf.h"

typedef struct {
  delta_storage_upload *up; /* NULL once closed or aborted */
  char *key;                /* the file's key; freed by file_out_abort */
  delta_buf buf;            /* bytes not handed to the upload yet */
  int64_t size;
} file_out;

int file_out_open(file_out *f, delta_storage *storage, const char *key);
/* A delta_parquet_sink write function; ctx is the file_out. */
int file_out_write(void *ctx, const void *data, size_t len);
/* Complete the file under its key (durable when this returns 0). On
 * failure nothing is visible and the file_out is closed. */
int file_out_close(file_out *f);
/* Drop an unfinished file and free the key. Safe after close (then it only
 * frees) and on a zeroed file_out. */
void file_out_abort(file_out *f);

#endif
