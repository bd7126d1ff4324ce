/*
 * The local-filesystem back end. Keys map to files under the root directory;
 * the dispatcher has already refused keys that could leave it.
 *
 * Atomicity: a put writes a hidden temporary file in the target directory,
 * fsyncs it, then publishes it with link(2) (put-if-absent: link fails with
 * EEXIST when the name is taken, and exactly one of racing writers wins) or
 * rename(2) (overwrite). Readers therefore see no file or a complete one.
 * A streaming upload is the same in pieces: a hidden `.<uuid>.tmp` in the
 * target directory, written as the bytes come, fsync'd and renamed over the
 * target at finish.
 */
#include "storage/storage_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

typedef struct {
  char *root; /* absolute, no trailing '/' unless it is "/" */
  size_t root_len;
} local_storage;

/* Makes temporary names unique among the threads of this process; the pid
 * makes them unique among processes. */
static atomic_uint_fast64_t tmp_counter;

static const char *errtext(int err, char *buf, size_t n) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, n);
#else
  if (strerror_r(err, buf, n) != 0) snprintf(buf, n, "error %d", err);
  return buf;
#endif
}

/* Map an errno from operation `op` on `key` to a deltac code and message. */
static int os_error(int err, const char *op, const char *key) {
  char tmp[128];
  const char *shown = *key ? key : "(table root)";
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    return err_set(DELTA_ENOTFOUND, "%s '%s': not found", op, shown);
  case EEXIST:
    return err_set(DELTA_EEXISTS, "%s '%s': already exists", op, shown);
  case ENOMEM:
    return err_set(DELTA_ENOMEM, "%s '%s': out of memory", op, shown);
  case ENAMETOOLONG:
  case ELOOP:
    return err_set(DELTA_EINVAL, "%s '%s': %s", op, shown, errtext(err, tmp, sizeof tmp));
  default:
    return err_set(DELTA_EIO, "%s '%s': %s", op, shown, errtext(err, tmp, sizeof tmp));
  }
}

/* root + "/" + key, NUL-terminated, into `b` (reset first). "" is the root. */
static int full_path(delta_buf *b, const local_storage *l, const char *key) {
  int rc;
  b->len = 0;
  if ((rc = buf_append(b, l->root, l->root_len))) return rc;
  if (*key) {
    if (l->root_len > 1 && (rc = buf_putc(b, '/'))) return rc;
    if ((rc = buf_puts(b, key))) return rc;
  }
  return buf_putc(b, '\0');
}

static int64_t mtime_ms(const struct stat *st) {
  return (int64_t)st->st_mtim.tv_sec * 1000 + (int64_t)(st->st_mtim.tv_nsec / 1000000);
}

/* ---- list ---- */

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int local_list(void *impl, const char *dir_key, const char *start_after,
                      delta_storage_list_cb cb, void *payload) {
  local_storage *l = impl;
  delta_buf path = DELTA_BUF_INIT, names = DELTA_BUF_INIT, offs = DELTA_BUF_INIT;
  const char **sorted = NULL;
  DIR *d = NULL;
  int rc;
  if ((rc = full_path(&path, l, dir_key))) goto done;
  d = opendir((const char *)path.data);
  if (!d) {
    rc = os_error(errno, "list", dir_key);
    goto done;
  }
  /* Gather the names first: readdir order is arbitrary, and the caller
   * wants byte order. stat() comes later, one entry at a time, so that a
   * callback that stops early spares the rest. */
  for (;;) {
    errno = 0;
    struct dirent *de = readdir(d);
    if (!de) {
      if (errno) {
        rc = os_error(errno, "list", dir_key);
        goto done;
      }
      break;
    }
    const char *n = de->d_name;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
    if (start_after && strcmp(n, start_after) <= 0) continue;
    size_t off = names.len;
    if ((rc = buf_append(&offs, &off, sizeof off)) ||
        (rc = buf_append(&names, n, strlen(n) + 1)))
      goto done;
  }
  size_t count = offs.len / sizeof(size_t);
  if (count == 0) goto done;
  sorted = mem_malloc(count * sizeof *sorted);
  if (!sorted) {
    rc = DELTA_NOMEM();
    goto done;
  }
  for (size_t i = 0; i < count; i++) {
    size_t off;
    memcpy(&off, offs.data + i * sizeof off, sizeof off);
    sorted[i] = (const char *)names.data + off;
  }
  qsort(sorted, count, sizeof *sorted, cmp_names);

  for (size_t i = 0; i < count; i++) {
    struct stat st;
    if (fstatat(dirfd(d), sorted[i], &st, 0) != 0) {
      /* Deleted since readdir (or a dangling symlink): not there any more. */
      if (errno == ENOENT) continue;
      rc = os_error(errno, "list", dir_key);
      goto done;
    }
    delta_storage_entry e;
    e.name = sorted[i];
    e.name_len = strlen(sorted[i]);
    e.is_dir = S_ISDIR(st.st_mode);
    e.size = e.is_dir ? 0 : (uint64_t)st.st_size;
    e.mtime_ms = mtime_ms(&st);
    rc = cb(&e, payload);
    if (rc) goto done;
  }

done:
  if (d) closedir(d);
  mem_free(sorted);
  buf_dispose(&path);
  buf_dispose(&names);
  buf_dispose(&offs);
  return rc;
}

/* ---- read / head ---- */

static int local_read(void *impl, const char *key, uint64_t offset, uint64_t len,
                      delta_storage_sink *sink) {
  local_storage *l = impl;
  delta_buf path = DELTA_BUF_INIT;
  uint8_t *chunk = NULL;
  int fd = -1, rc;
  if ((rc = full_path(&path, l, key))) goto done;
  /* O_NONBLOCK: opening a FIFO planted in a table must not hang a reader;
   * it has no effect on regular files. */
  fd = open((const char *)path.data, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    rc = os_error(errno, "read", key);
    goto done;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    rc = os_error(errno, "read", key);
    goto done;
  }
  if (!S_ISREG(st.st_mode)) {
    rc = err_set(DELTA_ENOTFOUND, "read '%s': not a regular file", key);
    goto done;
  }
  uint64_t size = (uint64_t)st.st_size;
  if (offset > size) {
    rc = err_set(DELTA_EINVAL, "read '%s': offset %llu is past the end (%llu bytes)", key,
                         (unsigned long long)offset, (unsigned long long)size);
    goto done;
  }
  uint64_t want = size - offset < len ? size - offset : len;
  if (sink->expect && (rc = sink->expect(sink, want))) goto done;

  delta_buf *direct = storage_sink_buf(sink);
  size_t chunk_cap = 0;
  if (!direct) {
    chunk_cap = want < ((size_t)1 << 20) ? (size_t)want : ((size_t)1 << 20);
    chunk = mem_malloc(chunk_cap ? chunk_cap : 1);
    if (!chunk) {
      rc = DELTA_NOMEM();
      goto done;
    }
  } else if ((rc = buf_reserve(direct, (size_t)want))) {
    goto done;
  }
  uint64_t got = 0;
  while (got < want) {
    size_t n = (size_t)(want - got);
    uint8_t *dst;
    if (direct) {
      dst = direct->data + direct->len;
    } else {
      if (n > chunk_cap) n = chunk_cap;
      dst = chunk;
    }
    ssize_t r = pread(fd, dst, n, (off_t)(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      rc = os_error(errno, "read", key);
      goto done;
    }
    if (r == 0) break; /* the file shrank since fstat: deliver what there is */
    if (direct) {
      direct->len += (size_t)r;
    } else if ((rc = sink->write(sink, chunk, (size_t)r))) {
      goto done;
    }
    got += (uint64_t)r;
  }

done:
  if (fd >= 0) close(fd);
  mem_free(chunk);
  buf_dispose(&path);
  return rc;
}

static int local_head(void *impl, const char *key, delta_file_info *out) {
  local_storage *l = impl;
  delta_buf path = DELTA_BUF_INIT;
  struct stat st;
  int rc = full_path(&path, l, key);
  if (rc) goto done;
  if (stat((const char *)path.data, &st) != 0) {
    rc = os_error(errno, "head", key);
    goto done;
  }
  if (!S_ISREG(st.st_mode)) {
    rc = err_set(DELTA_ENOTFOUND, "head '%s': not a regular file", key);
    goto done;
  }
  out->size = (uint64_t)st.st_size;
  out->mtime_ms = mtime_ms(&st);
done:
  buf_dispose(&path);
  return rc;
}

/* ---- put / delete ---- */

/* fsync a directory so that a name created or removed in it survives a
 * crash. Some filesystems cannot sync directories (EINVAL): nothing to do. */
static int sync_dir(const char *dir, const char *key) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_error(errno, "put (sync directory)", key);
  int rc = 0;
  if (fsync(fd) != 0 && errno != EINVAL) rc = os_error(errno, "put (sync directory)", key);
  close(fd);
  return rc;
}

/* mkdir -p `dir` (a NUL-terminated absolute path we may modify), syncing each
 * parent that gains an entry. */
static int make_dirs(char *dir, const char *key) {
  struct stat st;
  if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char saved = *p;
    *p = '\0';
    if (mkdir(dir, 0777) == 0) {
      char *slash = strrchr(dir, '/');
      int rc;
      if (slash == dir) {
        rc = sync_dir("/", key);
      } else {
        *slash = '\0';
        rc = sync_dir(dir, key);
        *slash = '/';
      }
      if (rc) {
        *p = saved;
        return rc;
      }
    } else if (errno != EEXIST) {
      int err = errno;
      *p = saved;
      return os_error(err, "put (create directory)", key);
    }
    *p = saved;
    if (saved == '\0') return 0;
  }
}

static int write_all(int fd, const void *data, size_t len) {
  const uint8_t *p = data;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Publish `tmp` as `final` only if `final` does not exist. link(2) is atomic
 * on every POSIX filesystem that has hard links; where it has none, Linux's
 * renameat2(RENAME_NOREPLACE) is the same guarantee. */
static int publish_if_absent(const char *tmp, const char *final, const char *key) {
  if (link(tmp, final) == 0) return 0;
  int err = errno;
#ifdef RENAME_NOREPLACE
  if (err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == ENOSYS || err == EMLINK) {
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0) return 0;
    err = errno;
    if (err == EINVAL || err == ENOSYS)
      return err_set(DELTA_EUNSUPPORTED,
                             "put '%s': the filesystem offers no atomic create-if-absent", key);
  }
#endif
  if (err == EEXIST) return err_set(DELTA_EEXISTS, "put '%s': already exists", key);
  return os_error(err, "put", key);
}

static int local_put(void *impl, const char *key, const void *data, size_t len,
                     bool overwrite) {
  local_storage *l = impl;
  delta_buf final = DELTA_BUF_INIT, tmp = DELTA_BUF_INIT;
  int fd = -1, rc;
  bool tmp_exists = false;
  if ((rc = full_path(&final, l, key))) goto done;
  char *fpath = (char *)final.data;
  char *slash = strrchr(fpath, '/');
  const char *base = slash + 1;

  /* The directory part, in `tmp` for now ("/" when the root is "/"). */
  size_t dir_len = slash == fpath ? 1 : (size_t)(slash - fpath);
  if ((rc = buf_append(&tmp, fpath, dir_len)) || (rc = buf_putc(&tmp, '\0')))
    goto done;
  if ((rc = make_dirs((char *)tmp.data, key))) goto done;

  /* A hidden name in the same directory (rename and link do not cross
   * filesystems), unique per process, thread and attempt. The base name is
   * cut so that the temporary name stays under NAME_MAX. */
  size_t base_len = strlen(base);
  if (base_len > 120) base_len = 120;
  for (int attempt = 0;; attempt++) {
    uint64_t n = atomic_fetch_add(&tmp_counter, 1);
    tmp.len = dir_len;
    if ((rc = buf_printf(&tmp, "%s.%.*s.%ld.%llu.tmp", dir_len > 1 ? "/" : "",
                               (int)base_len, base, (long)getpid(), (unsigned long long)n)) ||
        (rc = buf_putc(&tmp, '\0')))
      goto done;
    fd = open((const char *)tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) break;
    if (errno != EEXIST || attempt >= 100) {
      rc = os_error(errno, "put (temporary file)", key);
      goto done;
    }
  }
  tmp_exists = true;
  if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
    rc = os_error(errno, "put", key);
    goto done;
  }
  int cr = close(fd);
  fd = -1;
  if (cr != 0) {
    rc = os_error(errno, "put", key);
    goto done;
  }

  if (overwrite) {
    if (rename((const char *)tmp.data, fpath) != 0) {
      rc = os_error(errno, "put", key);
      goto done;
    }
    tmp_exists = false;
  } else if ((rc = publish_if_absent((const char *)tmp.data, fpath, key))) {
    goto done;
  }
  /* The published name, and the temporary's removal, made durable. */
  if (tmp_exists) {
    unlink((const char *)tmp.data);
    tmp_exists = false;
  }
  tmp.data[dir_len] = '\0';
  rc = sync_dir((const char *)tmp.data, key);

done:
  if (fd >= 0) close(fd);
  if (tmp_exists) unlink((const char *)tmp.data);
  buf_dispose(&final);
  buf_dispose(&tmp);
  return rc;
}

static int local_remove(void *impl, const char *key) {
  local_storage *l = impl;
  delta_buf path = DELTA_BUF_INIT;
  int rc = full_path(&path, l, key);
  if (rc) goto done;
  if (unlink((const char *)path.data) != 0) {
    int err = errno;
    struct stat st;
    if (err == ENOENT || err == ENOTDIR) {
      rc = 0; /* idempotent: already gone */
    } else if ((err == EISDIR || err == EPERM) && stat((const char *)path.data, &st) == 0 &&
               S_ISDIR(st.st_mode)) {
      rc = err_set(DELTA_EINVAL, "delete '%s': is a directory", key);
    } else {
      rc = os_error(err, "delete", key);
    }
  }
done:
  buf_dispose(&path);
  return rc;
}

static int local_remove_dir(void *impl, const char *key) {
  local_storage *l = impl;
  delta_buf path = DELTA_BUF_INIT;
  int rc;
  if ((rc = full_path(&path, l, key)) != 0) goto done;
  if (rmdir((const char *)path.data) != 0) {
    int err = errno;
    if (err == ENOENT)
      rc = 0; /* idempotent: already gone */
    else if (err == ENOTEMPTY || err == EEXIST)
      rc = err_set(DELTA_EEXISTS, "remove directory '%s': not empty", key);
    else if (err == ENOTDIR)
      rc = err_set(DELTA_EINVAL, "remove directory '%s': not a directory", key);
    else
      rc = os_error(err, "remove directory", key);
  }
done:
  buf_dispose(&path);
  return rc;
}

static int local_path(void *impl, const char *key, delta_storage_sink *sink) {
  local_storage *l = impl;
  delta_buf path = DELTA_BUF_INIT;
  int rc;
  if ((rc = full_path(&path, l, key)) != 0) goto done;
  rc = sink->write(sink, path.data, path.len - 1);
done:
  buf_dispose(&path);
  return rc;
}

/* ---- streaming upload ---- */

typedef struct {
  int fd;
  char *tmp;      /* the hidden temporary file's path */
  char *final;    /* the target's path */
  size_t dir_len; /* length of the directory part of both */
  char *key;      /* for messages */
  uint64_t unsynced; /* bytes written since writeback was last started */
} local_upload;

/* Start writeback after this many bytes, so the fsync at finish waits for
 * little while the disk works as the caller encodes what comes next. */
#define LOCAL_WRITEBACK_BYTES ((uint64_t)8 << 20)

static void local_upload_free(local_upload *u) {
  if (u->fd >= 0) close(u->fd);
  if (u->tmp) unlink(u->tmp);
  mem_free(u->tmp);
  mem_free(u->final);
  mem_free(u->key);
  mem_free(u);
}

/* 32 hex digits of a random 128-bit name (a UUID's worth, no dashes). */
static int random_hex(char out[33], const char *key) {
  uint8_t r[16];
  size_t got = 0;
  while (got < sizeof r) {
    ssize_t n = getrandom(r + got, sizeof r - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error(errno, "upload (random name)", key);
    }
    got += (size_t)n;
  }
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < sizeof r; i++) {
    out[2 * i] = hex[r[i] >> 4];
    out[2 * i + 1] = hex[r[i] & 15];
  }
  out[32] = '\0';
  return 0;
}

static int local_upload_open(void *impl, const char *key, void **upload) {
  local_storage *l = impl;
  delta_buf path = DELTA_BUF_INIT;
  char name[33];
  int rc;
  local_upload *u = mem_calloc(1, sizeof *u);
  if (!u) return DELTA_NOMEM();
  u->fd = -1;
  if (!(u->key = mem_strdup(key))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  if ((rc = full_path(&path, l, key)) != 0) goto fail;
  if (!(u->final = mem_strdup((const char *)path.data))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  char *slash = strrchr(u->final, '/');
  u->dir_len = slash == u->final ? 1 : (size_t)(slash - u->final);
  path.len = 0;
  if ((rc = buf_append(&path, u->final, u->dir_len)) != 0 || (rc = buf_putc(&path, '\0')) != 0)
    goto fail;
  if ((rc = make_dirs((char *)path.data, key)) != 0) goto fail;
  if ((rc = random_hex(name, key)) != 0) goto fail;
  path.len = u->dir_len;
  if ((rc = buf_printf(&path, "%s.%s.tmp", u->dir_len > 1 ? "/" : "", name)) != 0 ||
      (rc = buf_putc(&path, '\0')) != 0)
    goto fail;
  u->fd = open((const char *)path.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (u->fd < 0) {
    rc = os_error(errno, "upload (temporary file)", key);
    goto fail;
  }
  if (!(u->tmp = mem_strdup((const char *)path.data))) {
    unlink((const char *)path.data);
    rc = DELTA_NOMEM();
    goto fail;
  }
  buf_dispose(&path);
  *upload = u;
  return 0;
fail:
  buf_dispose(&path);
  local_upload_free(u);
  return rc;
}

static int local_upload_write(void *impl, void *upload, const void *data, size_t len) {
  (void)impl;
  local_upload *u = upload;
  if (write_all(u->fd, data, len) != 0) return os_error(errno, "upload", u->key);
  u->unsynced += len;
#ifdef SYNC_FILE_RANGE_WRITE
  if (u->unsynced >= LOCAL_WRITEBACK_BYTES) {
    /* only a hint: a failure here shows again at the fsync */
    (void)sync_file_range(u->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    u->unsynced = 0;
  }
#endif
  return 0;
}

static int local_upload_finish(void *impl, void *upload) {
  (void)impl;
  local_upload *u = upload;
  int rc = 0;
  if (fsync(u->fd) != 0) {
    rc = os_error(errno, "upload", u->key);
    goto done;
  }
  int cr = close(u->fd);
  u->fd = -1;
  if (cr != 0) {
    rc = os_error(errno, "upload", u->key);
    goto done;
  }
  if (rename(u->tmp, u->final) != 0) {
    rc = os_error(errno, "upload", u->key);
    goto done;
  }
  mem_free(u->tmp);
  u->tmp = NULL;
  /* the new name made durable */
  u->final[u->dir_len] = '\0';
  rc = sync_dir(u->final, u->key);
done:
  local_upload_free(u);
  return rc;
}

static void local_upload_abort(void *impl, void *upload) {
  (void)impl;
  local_upload_free(upload);
}

static void local_free(void *impl) {
  local_storage *l = impl;
  if (!l) return;
  mem_free(l->root);
  mem_free(l);
}

const delta_storage_vtable delta_storage__local_vtable = {
    .version = DELTA_STORAGE_VTABLE_VERSION,
    .list = local_list,
    .read = local_read,
    .head = local_head,
    .put = local_put,
    .remove = local_remove,
    .local_path = local_path,
    .free = local_free,
    .remove_dir = local_remove_dir,
    .upload_open = local_upload_open,
    .upload_write = local_upload_write,
    .upload_finish = local_upload_finish,
    .upload_abort = local_upload_abort,
};

int storage_local_new(void **impl_out, const char *root) {
  local_storage *l = mem_calloc(1, sizeof *l);
  if (!l) return DELTA_NOMEM();
  l->root = mem_strdup(root);
  if (!l->root) {
    mem_free(l);
    return DELTA_NOMEM();
  }
  l->root_len = strlen(root);
  *impl_out = l;
  return 0;
}
