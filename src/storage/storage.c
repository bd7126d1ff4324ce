/* The storage handle: opening a location, checking arguments and keys, and
 * dispatching to the back end's vtable. */
#include "storage/storage_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/azure.h"
#include "storage/gcs.h"
#include "storage/options.h"
#include "storage/path.h"
#include "storage/s3.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

struct delta_storage {
  delta_storage_vtable vt; /* a copy: the caller's table may be temporary */
  void *impl;
  char *location; /* canonical root URI, "" when unknown */
  storage_counters counters;
  /* The back end counts its own requests (it asked for the counters):
   * the dispatcher then counts nothing. */
  _Atomic bool self_counting;
};

/* ---- buffer sinks ---- */

typedef struct {
  delta_storage_sink sink; /* first, so a sink pointer is a buf_sink pointer */
  delta_buf *buf;
} buf_sink;

static int buf_sink_write(delta_storage_sink *sink, const void *data, size_t len) {
  return buf_append(((buf_sink *)sink)->buf, data, len);
}

static int buf_sink_expect(delta_storage_sink *sink, uint64_t total) {
  if (total > SIZE_MAX)
    return err_set(DELTA_ELIMIT, "%llu bytes do not fit in memory",
                           (unsigned long long)total);
  return buf_reserve(((buf_sink *)sink)->buf, (size_t)total);
}

static void buf_sink_init(buf_sink *s, delta_buf *buf) {
  s->sink.write = buf_sink_write;
  s->sink.expect = buf_sink_expect;
  s->sink.payload = NULL;
  s->buf = buf;
}

delta_buf *storage_sink_buf(delta_storage_sink *sink) {
  return sink && sink->write == buf_sink_write ? ((buf_sink *)sink)->buf : NULL;
}

/* ---- request counters ---- */

void storage_count(storage_counters *c, storage_count_kind kind, uint64_t bytes) {
  if (!c || kind <= STORAGE_COUNT_AUTO || kind >= STORAGE_COUNT_KINDS) return;
  atomic_fetch_add_explicit(&c->requests[kind], 1, memory_order_relaxed);
  if (bytes) atomic_fetch_add_explicit(&c->bytes[kind], bytes, memory_order_relaxed);
}

void storage_count_retry(storage_counters *c) {
  if (c) atomic_fetch_add_explicit(&c->retries, 1, memory_order_relaxed);
}

storage_counters *storage_counters_of(delta_storage *storage) {
  atomic_store(&storage->self_counting, true);
  return &storage->counters;
}

/* Count an operation the dispatcher passed on, unless the back end counts. */
static void dispatch_count(delta_storage *storage, storage_count_kind kind, uint64_t bytes) {
  if (!atomic_load_explicit(&storage->self_counting, memory_order_relaxed))
    storage_count(&storage->counters, kind, bytes);
}

static delta_storage_count count_of(const storage_counters *c, storage_count_kind k) {
  delta_storage_count r = {atomic_load_explicit(&c->requests[k], memory_order_relaxed),
                           atomic_load_explicit(&c->bytes[k], memory_order_relaxed)};
  return r;
}

void delta_storage_stats_get(const delta_storage *storage, delta_storage_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!storage) return;
  const storage_counters *c = &storage->counters;
  out->list = count_of(c, STORAGE_COUNT_LIST);
  out->get = count_of(c, STORAGE_COUNT_GET);
  out->head = count_of(c, STORAGE_COUNT_HEAD);
  out->put = count_of(c, STORAGE_COUNT_PUT);
  out->del = count_of(c, STORAGE_COUNT_DEL);
  out->retries = atomic_load_explicit(&c->retries, memory_order_relaxed);
}

/* Counts the bytes an embedder's sink receives, for the dispatcher's count
 * of reads. */
typedef struct {
  delta_storage_sink sink;
  delta_storage_sink *inner;
  uint64_t bytes;
} counting_sink;

static int counting_write(delta_storage_sink *sink, const void *data, size_t len) {
  counting_sink *c = (counting_sink *)sink;
  int rc = c->inner->write(c->inner, data, len);
  if (!rc) c->bytes += len;
  return rc;
}

static int counting_expect(delta_storage_sink *sink, uint64_t total) {
  counting_sink *c = (counting_sink *)sink;
  return c->inner->expect ? c->inner->expect(c->inner, total) : 0;
}

/* ---- settling an unanswered put-if-absent ---- */

typedef struct {
  delta_storage_sink sink;
  const unsigned char *want;
  size_t want_len, pos;
  bool differs;
} settle_sink;

/* Stops the read at the first difference; `differs` is what counts, the
 * code only makes the back end stop. */
static int settle_write(delta_storage_sink *sk, const void *data, size_t len) {
  settle_sink *c = (settle_sink *)sk;
  if (len > c->want_len - c->pos || memcmp(c->want + c->pos, data, len) != 0) {
    c->differs = true;
    return DELTA_ELIMIT;
  }
  c->pos += len;
  return 0;
}

static int settle_expect(delta_storage_sink *sk, uint64_t total) {
  settle_sink *c = (settle_sink *)sk;
  if (total != c->want_len) {
    c->differs = true;
    return DELTA_ELIMIT;
  }
  return 0;
}

int storage_settle_put(storage_read_fn read, void *impl, const char *key, const char *label,
                       const void *data, size_t len) {
  settle_sink c = {{settle_write, settle_expect, NULL}, data, len, 0, false};
  int rc = read(impl, key, 0, DELTA_STORAGE_TO_END, &c.sink);
  if (c.differs || (rc == 0 && c.pos != len)) {
    delta_error_clear();
    return err_set(DELTA_EEXISTS, "put '%s': already exists (another writer's content)", label);
  }
  if (rc == DELTA_ENOTFOUND) return rc; /* the read's own message names the key */
  if (rc) return rc;
  delta_error_clear();
  return 0;
}

/* ---- handles ---- */

int delta_storage_new(delta_storage **out, const delta_storage_vtable *vt, void *impl,
                      const char *location) {
  if (!out || !vt) return err_set(DELTA_EINVAL, "delta_storage_new: NULL argument");
  *out = NULL;
  if (vt->version < 1 || vt->version > DELTA_STORAGE_VTABLE_VERSION)
    return err_set(DELTA_EINVAL, "storage vtable version %u is not supported (1..%d)",
                           vt->version, DELTA_STORAGE_VTABLE_VERSION);
  if (!vt->list || !vt->read || !vt->head)
    return err_set(DELTA_EINVAL, "storage vtable lacks list, read or head");
  delta_storage *s = mem_calloc(1, sizeof *s);
  if (!s) return DELTA_NOMEM();
  s->location = mem_strdup(location ? location : "");
  if (!s->location) {
    mem_free(s);
    return DELTA_NOMEM();
  }
  /* A version-1 table ends before remove_dir: copy only the members its
   * caller's version knows and leave the rest NULL. */
  if (vt->version == 1)
    memcpy(&s->vt, vt, offsetof(delta_storage_vtable, remove_dir));
  else if (vt->version == 2)
    memcpy(&s->vt, vt, offsetof(delta_storage_vtable, upload_open));
  else
    s->vt = *vt;
  /* The upload members come as a set or not at all. */
  if (!(s->vt.upload_open && s->vt.upload_write && s->vt.upload_finish && s->vt.upload_abort) &&
      (s->vt.upload_open || s->vt.upload_write || s->vt.upload_finish || s->vt.upload_abort)) {
    mem_free(s->location);
    mem_free(s);
    return err_set(DELTA_EINVAL, "storage vtable has some upload members but not all four");
  }
  s->impl = impl;
  *out = s;
  return 0;
}

void delta_storage_free(delta_storage *storage) {
  if (!storage) return;
  if (storage->vt.free) storage->vt.free(storage->impl);
  mem_free(storage->location);
  mem_free(storage);
}

const char *delta_storage_location(const delta_storage *storage) {
  return storage && storage->location ? storage->location : "";
}

/* Length of a URI scheme at the start of `s` ("s3" in "s3://b"), 0 if none.
 * Two letters at least, so that a Windows drive ("C:") is not a scheme. */
static size_t location_scheme(const char *s) {
  size_t i = 0;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return 0;
  while (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
         s[i] == '+' || s[i] == '-' || s[i] == '.')
    i++;
  return (s[i] == ':' && i >= 2) ? i : 0;
}

/* Normalise an absolute path lexically: collapse "//", drop "." segments and
 * a trailing '/'. ".." stays: only the OS knows what it means past symlinks. */
static int normalise_abs(delta_buf *out, const char *p, size_t len) {
  int rc;
  for (size_t i = 0; i < len;) {
    while (i < len && p[i] == '/') i++;
    size_t j = i;
    while (j < len && p[j] != '/') j++;
    if (j > i && !(j - i == 1 && p[i] == '.')) {
      if ((rc = buf_putc(out, '/')) || (rc = buf_append(out, p + i, j - i)))
        return rc;
    }
    i = j;
  }
  if (out->len == 0 && (rc = buf_putc(out, '/'))) return rc;
  return buf_putc(out, '\0');
}

static int open_local(delta_storage **out, const char *location);

int delta_storage_open(delta_storage **out, const char *location) {
  return delta_storage_open_options(out, location, NULL, NULL, 0);
}

int delta_storage_open_options(delta_storage **out, const char *location, const char *const *keys,
                               const char *const *values, size_t n) {
  storage_options opts;
  int rc;
  if (!out) return err_set(DELTA_EINVAL, "delta_storage_open: NULL out");
  *out = NULL;
  if (!location || !*location)
    return err_set(DELTA_EINVAL, "delta_storage_open: empty location");
  if (n && (!keys || !values))
    return err_set(DELTA_EINVAL, "delta_storage_open: NULL options");
  /* Options are checked for every scheme, so a typo fails the same way
   * whatever the table's location; the local back end has no use for them. */
  if ((rc = storage_options_parse(&opts, keys, values, n)) == 0) {
    size_t sl = location_scheme(location);
    if ((sl == 2 && strncasecmp(location, "s3", 2) == 0) ||
        (sl == 3 && strncasecmp(location, "s3a", 3) == 0))
      rc = s3_open(out, location, &opts);
    else if (azure_scheme(location, sl))
      rc = azure_open(out, location, &opts);
    else if (sl == 2 && strncasecmp(location, "gs", 2) == 0)
      rc = gcs_open(out, location, &opts);
    else
      rc = open_local(out, location);
  }
  storage_options_dispose(&opts);
  return rc;
}

static int open_local(delta_storage **out, const char *location) {
  delta_buf path = DELTA_BUF_INIT, raw = DELTA_BUF_INIT, uri = DELTA_BUF_INIT;
  void *impl = NULL;
  int rc;

  size_t sl = location_scheme(location);
  if (sl) {
    if (!(sl == 4 && strncasecmp(location, "file", 4) == 0)) {
      rc = err_set(DELTA_EUNSUPPORTED, "unsupported storage scheme '%.*s' in '%s'",
                           (int)sl, location, location);
      goto done;
    }
    const char *p = location + 5;
    if (p[0] == '/' && p[1] == '/') {
      const char *host = p + 2, *slash = strchr(host, '/');
      size_t hl = slash ? (size_t)(slash - host) : strlen(host);
      if (hl && !(hl == 9 && strncasecmp(host, "localhost", 9) == 0)) {
        rc = err_set(DELTA_EUNSUPPORTED, "file URI '%s' names host '%.*s', not this one",
                             location, (int)hl, host);
        goto done;
      }
      p = slash ? slash : host + hl;
    }
    if (p[0] != '/') {
      rc = err_set(DELTA_EINVAL, "file URI '%s' has no absolute path", location);
      goto done;
    }
    if (strpbrk(p, "?#")) {
      rc = err_set(DELTA_EINVAL, "file URI '%s' has a query or fragment", location);
      goto done;
    }
    rc = storage_path_decode(&raw, p, strlen(p));
    if (rc) {
      rc = err_set(DELTA_EINVAL, "file URI '%s' decodes to a NUL byte", location);
      goto done;
    }
  } else if (location[0] != '/') {
    /* Resolve now, so a later chdir() does not move the table. */
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) {
      rc = err_set(DELTA_EIO, "cannot resolve '%s': current directory unknown (%s)",
                           location, strerror(errno));
      goto done;
    }
    if ((rc = buf_puts(&raw, cwd)) || (rc = buf_putc(&raw, '/')) ||
        (rc = buf_puts(&raw, location)))
      goto done;
  } else if ((rc = buf_puts(&raw, location))) {
    goto done;
  }

  if ((rc = normalise_abs(&path, (const char *)raw.data, raw.len))) goto done;
  /* An existing directory is named by its real path ("..", symlinks
   * resolved), so that one table has one location in plans and messages. */
  char *real = realpath((const char *)path.data, NULL);
  if (real) {
    path.len = 0;
    rc = buf_puts(&path, real);
    free(real);
    if (rc || (rc = buf_putc(&path, '\0')) != 0) goto done;
  }
  const char *root = (const char *)path.data;
  struct stat st;
  if (stat(root, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      rc = err_set(DELTA_EINVAL, "table location '%s' is not a directory", root);
      goto done;
    }
  } else if (errno == ENOTDIR) {
    rc = err_set(DELTA_EINVAL, "table location '%s' lies under a file", root);
    goto done;
  }
  /* Anything else (ENOENT: a table about to be created; EACCES) surfaces on
   * the first operation, with the key that failed. */

  if ((rc = storage_path_file_uri(&uri, root)) || (rc = buf_putc(&uri, '\0'))) goto done;
  if ((rc = storage_local_new(&impl, root))) goto done;
  rc = delta_storage_new(out, &delta_storage__local_vtable, impl, (const char *)uri.data);
  if (rc) delta_storage__local_vtable.free(impl);

done:
  buf_dispose(&path);
  buf_dispose(&raw);
  buf_dispose(&uri);
  return rc;
}

/* ---- operations ---- */

int delta_storage_list(delta_storage *storage, const char *dir_key, const char *start_after,
                       delta_storage_list_cb cb, void *payload) {
  if (!storage || !cb) return err_set(DELTA_EINVAL, "list: NULL argument");
  if (!dir_key) dir_key = "";
  int rc = storage_path_check_key(dir_key, true);
  if (rc) return rc;
  if (start_after && !*start_after) start_after = NULL;
  dispatch_count(storage, STORAGE_COUNT_LIST, 0);
  return storage->vt.list(storage->impl, dir_key, start_after, cb, payload);
}

int delta_storage_read_into(delta_storage *storage, const char *key, uint64_t offset,
                            uint64_t len, delta_storage_sink *sink) {
  if (!storage || !sink || !sink->write)
    return err_set(DELTA_EINVAL, "read: NULL argument");
  int rc = storage_path_check_key(key, false);
  if (rc) return rc;
  if (atomic_load_explicit(&storage->self_counting, memory_order_relaxed))
    return storage->vt.read(storage->impl, key, offset, len, sink);
  /* The library's own buffers are passed through untouched (a back end may
   * read straight into them): their growth is the byte count. */
  delta_buf *b = storage_sink_buf(sink);
  if (b) {
    size_t mark = b->len;
    rc = storage->vt.read(storage->impl, key, offset, len, sink);
    storage_count(&storage->counters, STORAGE_COUNT_GET, b->len > mark ? b->len - mark : 0);
    return rc;
  }
  counting_sink cs = {{counting_write, counting_expect, NULL}, sink, 0};
  rc = storage->vt.read(storage->impl, key, offset, len, &cs.sink);
  storage_count(&storage->counters, STORAGE_COUNT_GET, cs.bytes);
  return rc;
}

static int read_buf(delta_storage *storage, const char *key, uint64_t offset, uint64_t len,
                    delta_buf *out) {
  if (!out) return err_set(DELTA_EINVAL, "read: NULL buffer");
  size_t mark = out->len;
  buf_sink s;
  buf_sink_init(&s, out);
  int rc = delta_storage_read_into(storage, key, offset, len, &s.sink);
  if (rc) {
    out->len = mark;
    /* The buffer does not know which file it was filled from. */
    if (rc == DELTA_ELIMIT || rc == DELTA_ENOMEM) err_prefix("read '%s'", key);
  }
  return rc;
}

int storage_read_all(delta_storage *storage, const char *key, delta_buf *out) {
  return read_buf(storage, key, 0, DELTA_STORAGE_TO_END, out);
}

int storage_read_range(delta_storage *storage, const char *key, uint64_t offset,
                             uint64_t len, delta_buf *out) {
  return read_buf(storage, key, offset, len, out);
}

int delta_storage_head(delta_storage *storage, const char *key, delta_file_info *out) {
  if (!storage || !out) return err_set(DELTA_EINVAL, "head: NULL argument");
  int rc = storage_path_check_key(key, false);
  if (rc) return rc;
  dispatch_count(storage, STORAGE_COUNT_HEAD, 0);
  return storage->vt.head(storage->impl, key, out);
}

int delta_storage_put(delta_storage *storage, const char *key, const void *data, size_t len,
                      bool overwrite) {
  if (!storage || (!data && len)) return err_set(DELTA_EINVAL, "put: NULL argument");
  int rc = storage_path_check_key(key, false);
  if (rc) return rc;
  if (!storage->vt.put)
    return err_set(DELTA_EUNSUPPORTED, "put '%s': storage '%s' is read-only", key,
                           storage->location);
  dispatch_count(storage, STORAGE_COUNT_PUT, len);
  return storage->vt.put(storage->impl, key, data ? data : "", len, overwrite);
}

int delta_storage_delete(delta_storage *storage, const char *key) {
  if (!storage) return err_set(DELTA_EINVAL, "delete: NULL argument");
  int rc = storage_path_check_key(key, false);
  if (rc) return rc;
  if (!storage->vt.remove)
    return err_set(DELTA_EUNSUPPORTED, "delete '%s': storage '%s' is read-only", key,
                           storage->location);
  dispatch_count(storage, STORAGE_COUNT_DEL, 0);
  return storage->vt.remove(storage->impl, key);
}

int delta_storage_remove_dir(delta_storage *storage, const char *dir_key) {
  if (!storage) return err_set(DELTA_EINVAL, "remove_dir: NULL argument");
  int rc = storage_path_check_key(dir_key, false);
  if (rc) return rc;
  if (!storage->vt.remove_dir)
    return err_set(DELTA_EUNSUPPORTED, "remove directory '%s': storage '%s' has no directories to remove",
                           dir_key, storage->location);
  dispatch_count(storage, STORAGE_COUNT_DEL, 0);
  return storage->vt.remove_dir(storage->impl, dir_key);
}

int delta_storage_local_path_into(delta_storage *storage, const char *key,
                                  delta_storage_sink *sink) {
  if (!storage || !sink || !sink->write)
    return err_set(DELTA_EINVAL, "local_path: NULL argument");
  int rc = storage_path_check_key(key, false);
  if (rc) return rc;
  if (!storage->vt.local_path)
    return err_set(DELTA_EUNSUPPORTED, "'%s': storage '%s' is not a local filesystem",
                           key, storage->location);
  return storage->vt.local_path(storage->impl, key, sink);
}

int storage_local_path(delta_storage *storage, const char *key, delta_buf *out) {
  if (!out) return err_set(DELTA_EINVAL, "local_path: NULL buffer");
  size_t mark = out->len;
  buf_sink s;
  buf_sink_init(&s, out);
  int rc;
  if ((rc = delta_storage_local_path_into(storage, key, &s.sink)) != 0) goto done;
  if ((rc = buf_putc(out, '\0')) != 0) goto done;
  out->len--; /* the NUL stays behind the end */
done:
  if (rc) out->len = mark;
  return rc;
}

/* ---- streaming uploads ---- */

struct delta_storage_upload {
  delta_storage *storage;
  char *key;
  void *state;      /* the back end's, when it streams */
  uint64_t written; /* bytes, for the dispatcher's count */
  delta_buf staged; /* the whole file, when it does not */
};

int delta_storage_upload_open(delta_storage *storage, const char *key, delta_storage_upload **out) {
  if (!storage || !out) return err_set(DELTA_EINVAL, "upload: NULL argument");
  *out = NULL;
  int rc = storage_path_check_key(key, false);
  if (rc) return rc;
  if (!storage->vt.put)
    return err_set(DELTA_EUNSUPPORTED, "upload '%s': storage '%s' is read-only", key,
                   storage->location);
  delta_storage_upload *up = mem_calloc(1, sizeof *up);
  if (!up) return DELTA_NOMEM();
  up->storage = storage; /* staged is zeroed: an empty delta_buf */
  if (!(up->key = mem_strdup(key))) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  if (storage->vt.upload_open &&
      (rc = storage->vt.upload_open(storage->impl, key, &up->state)) != 0)
    goto fail;
  *out = up;
  return 0;
fail:
  mem_free(up->key);
  mem_free(up);
  return rc;
}

int delta_storage_upload_write(delta_storage_upload *up, const void *data, size_t len) {
  if (!up || (!data && len)) return err_set(DELTA_EINVAL, "upload: NULL argument");
  if (!len) return 0;
  up->written += len;
  if (up->storage->vt.upload_write)
    return up->storage->vt.upload_write(up->storage->impl, up->state, data, len);
  return buf_append(&up->staged, data, len);
}

static void upload_free(delta_storage_upload *up) {
  buf_dispose(&up->staged);
  mem_free(up->key);
  mem_free(up);
}

int delta_storage_upload_finish(delta_storage_upload *up) {
  if (!up) return err_set(DELTA_EINVAL, "upload: NULL argument");
  delta_storage *st = up->storage;
  dispatch_count(st, STORAGE_COUNT_PUT, up->written);
  int rc = st->vt.upload_finish
               ? st->vt.upload_finish(st->impl, up->state)
               : st->vt.put(st->impl, up->key, up->staged.data ? (const void *)up->staged.data : "",
                            up->staged.len, true);
  upload_free(up);
  return rc;
}

void delta_storage_upload_abort(delta_storage_upload *up) {
  if (!up) return;
  if (up->storage->vt.upload_abort) up->storage->vt.upload_abort(up->storage->impl, up->state);
  upload_free(up);
}
