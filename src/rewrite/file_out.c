/* Data files written straight to local disk or put whole; see file_out.h. */
#include "rewrite/file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/schema_build.h"

#define WRITE_CHUNK ((size_t)1 << 20)

static int os_fail(const char *what, const char *path) {
  return err_set(DELTA_EIO, "%s %s: %s", what, path, strerror(errno));
}

/* mkdir -p of the directory part of `path` (modified in place, restored). */
static int make_parent_dirs(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    int ok = mkdir(path, 0777) == 0 || errno == EEXIST;
    int err = errno;
    *p = '/';
    if (!ok) {
      errno = err;
      return os_fail("cannot create the directory of", path);
    }
  }
  return 0;
}

int file_out_open(file_out *f, delta_storage *storage, const char *key) {
  memset(f, 0, sizeof *f);
  f->fd = -1;
  f->storage = storage;
  if (!(f->key = mem_strdup(key))) return DELTA_NOMEM();
  delta_buf path = DELTA_BUF_INIT;
  if (storage_local_path(storage, key, &path) != 0) {
    /* not a local filesystem: in memory, put whole */
    delta_error_clear();
    buf_dispose(&path);
    return 0;
  }
  f->local = true;
  f->final = mem_strndup((const char *)path.data, path.len);
  char uuid[37];
  write_uuid(uuid);
  const char *slash = strrchr(f->final ? f->final : "", '/');
  int rc;
  if (!f->final) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if (!slash) {
    rc = err_set(DELTA_EINVAL, "bad data file path %s", f->final);
    goto done;
  }
  path.len = 0;
  if ((rc = buf_printf(&path, "%.*s/.%s.tmp", (int)(slash - f->final), f->final, uuid)) != 0)
    goto done;
  if ((rc = buf_putc(&path, 0)) != 0)
    goto done;
  if (!(f->tmp = mem_strdup((const char *)path.data))) {
    rc = DELTA_NOMEM();
    goto done;
  }
  if ((rc = make_parent_dirs(f->tmp)) != 0)
    goto done;
  if ((f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0) {
    rc = os_fail("cannot create", f->tmp);
    goto done;
  }
done:
  buf_dispose(&path);
  return rc;
}

static int write_all(file_out *f, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t n = write(f->fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_fail("cannot write", f->tmp);
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int file_out_write(void *ctx, const void *data, size_t len) {
  file_out *f = ctx;
  f->size += (int64_t)len;
  if (!f->local) return buf_append(&f->buf, data, len);
  /* small pieces (page headers, the footer) gather in the buffer; big ones
   * (column chunks) go straight through */
  if (f->buf.len + len > WRITE_CHUNK && f->buf.len) {
    int rc = write_all(f, f->buf.data, f->buf.len);
    if (rc) return rc;
    buf_reset(&f->buf);
  }
  if (len >= WRITE_CHUNK) return write_all(f, data, len);
  return buf_append(&f->buf, data, len);
}

int file_out_close(file_out *f, file_out_pending *pending) {
  int rc;
  if (!f->local) {
    rc = delta_storage_put(f->storage, f->key, f->buf.data, f->buf.len, false);
    buf_dispose(&f->buf);
    return rc;
  }
  rc = f->buf.len ? write_all(f, f->buf.data, f->buf.len) : 0;
  buf_dispose(&f->buf);
  /* closed after a failed write too; the first failure is the one reported */
  if (close(f->fd) != 0 && rc == 0) rc = os_fail("cannot write", f->tmp);
  f->fd = -1;
  if (rc != 0)
    return rc;
  /* data file names are fresh UUIDs: nothing is replaced */
  if (rename(f->tmp, f->final) != 0)
    return os_fail("cannot rename", f->tmp);
  mem_free(f->tmp);
  f->tmp = NULL;
  /* how many directories up to sync: the file's, the partition
   * directories above it, the table root and the root's parent (the
   * root may be new too) */
  int levels = 2;
  for (const char *k = f->key; *k; k++) levels += *k == '/';
  if ((rc = buf_putc(&pending->paths, (char)(levels > 120 ? 120 : levels))) != 0)
    return rc;
  return buf_append(&pending->paths, f->final, strlen(f->final) + 1);
}

void file_out_abort(file_out *f) {
  /* (a zeroed file_out, never opened, is not local: fd 0 is not ours) */
  if (f->local && f->fd >= 0) close(f->fd);
  if (f->tmp) unlink(f->tmp);
  buf_dispose(&f->buf);
  mem_free(f->tmp);
  mem_free(f->final);
  mem_free(f->key);
  memset(f, 0, sizeof *f);
  f->fd = -1;
}

static int sync_path(const char *path, int flags) {
  int fd = open(path, flags | O_CLOEXEC);
  if (fd < 0) return os_fail("cannot open", path);
  int rc = fsync(fd) == 0 ? 0 : os_fail("cannot sync", path);
  close(fd);
  return rc;
}

int file_out_sync(file_out_pending *pending) {
  int rc = 0;
  const char *p = (const char *)pending->paths.data, *end = p + pending->paths.len;
  delta_buf dirs = DELTA_BUF_INIT; /* synced already, NUL-separated */
  char *dir = NULL;
  while (p < end) {
    int levels = *p++;
    if ((rc = sync_path(p, O_RDONLY)) != 0)
      goto done;
    if (!(dir = mem_strdup(p))) {
      rc = DELTA_NOMEM();
      goto done;
    }
    for (int l = 0; l < levels; l++) {
      char *s = strrchr(dir, '/');
      if (!s) break;
      if (s == dir) s[1] = 0; /* "/" */
      else *s = 0;
      bool seen = false;
      for (const char *d = (const char *)dirs.data; d && d < (const char *)dirs.data + dirs.len; d += strlen(d) + 1)
        seen |= strcmp(d, dir) == 0;
      if (seen) break; /* and the ones above it too */
      if ((rc = buf_append(&dirs, dir, strlen(dir) + 1)) != 0)
        goto done;
      if ((rc = sync_path(dir, O_RDONLY | O_DIRECTORY)) != 0)
        goto done;
      if (s == dir) break;
    }
    mem_free(dir);
    dir = NULL;
    p += strlen(p) + 1;
  }
  buf_reset(&pending->paths);
done:
  mem_free(dir);
  buf_dispose(&dirs);
  return rc;
}

void file_out_pending_dispose(file_out_pending *pending) { buf_dispose(&pending->paths); }
