/* Reading the files a log names through storage (see file_open.h). */
#include "log/file_open.h"

#include <stdbool.h>
#include <string.h>

#include "log/snapshot.h"
#include "storage/path.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

void log_storages_init(log_storages *c, const delta_table *t) {
  memset(c, 0, sizeof *c);
  c->table = t;
  pthread_mutex_init(&c->lock, NULL);
}

void log_storages_dispose(log_storages *c) {
  for (size_t i = 0; i < c->n; i++) {
    mem_free(c->dirs[i]);
    delta_storage_free(c->storages[i]);
  }
  mem_free(c->dirs);
  mem_free(c->storages);
  pthread_mutex_destroy(&c->lock);
  c->n = c->cap = 0;
  c->dirs = NULL;
  c->storages = NULL;
}

/* The storage of directory `dir` (a canonical URI), opened once. Called
 * with the lock held. */
static int storage_of_dir(log_storages *c, const char *dir, delta_storage **out) {
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->dirs[i], dir) == 0) {
      *out = c->storages[i];
      return 0;
    }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 4;
    char **d = mem_realloc(c->dirs, cap * sizeof *d);
    if (!d) return DELTA_NOMEM();
    c->dirs = d;
    delta_storage **s = mem_realloc(c->storages, cap * sizeof *s);
    if (!s) return DELTA_NOMEM();
    c->storages = s;
    c->cap = cap;
  }
  char *copy = mem_strdup(dir);
  if (!copy) return DELTA_NOMEM();
  delta_storage *s = NULL;
  int rc = table_open_other_storage(c->table, dir, &s);
  if (rc) {
    mem_free(copy);
    return rc;
  }
  c->dirs[c->n] = copy;
  c->storages[c->n++] = s;
  *out = s;
  return 0;
}

int log_storages_outside(log_storages *c, const char *uri, delta_storage **storage, delta_buf *key) {
  const char *slash = strrchr(uri, '/');
  if (!slash || !slash[1]) return err_set(DELTA_ECORRUPT, "%s names no file", uri);
  size_t old_len = key->len;
  delta_buf dir = DELTA_BUF_INIT;
  int rc;
  if ((rc = buf_append(&dir, uri, (size_t)(slash - uri))) != 0) goto done;
  if ((rc = buf_putc(&dir, '\0')) != 0) goto done;
  /* the key is the last segment, decoded */
  if ((rc = storage_path_decode(key, slash + 1, strlen(slash + 1))) != 0) goto done;
  if ((rc = buf_putc(key, '\0')) != 0) goto done;
  key->len--;
  pthread_mutex_lock(&c->lock);
  rc = storage_of_dir(c, (const char *)dir.data, storage);
  pthread_mutex_unlock(&c->lock);
done:
  buf_dispose(&dir);
  if (rc) key->len = old_len;
  return rc;
}

int log_storages_resolve(log_storages *c, const char *path, delta_storage **storage, delta_buf *key) {
  delta_storage *table = c->table->storage;
  size_t old_len = key->len;
  delta_path_kind kind;
  int rc = storage_path_resolve(&kind, key, path, strlen(path), delta_storage_location(table));
  if (rc) return rc;
  if (kind == DELTA_PATH_KEY) {
    if ((rc = buf_putc(key, '\0')) != 0) {
      key->len = old_len;
      return rc;
    }
    key->len--;
    *storage = table;
    return 0;
  }
  delta_buf uri = DELTA_BUF_INIT;
  if ((rc = buf_append(&uri, key->data + old_len, key->len - old_len)) == 0 && (rc = buf_putc(&uri, '\0')) == 0) {
    key->len = old_len;
    rc = log_storages_outside(c, (const char *)uri.data, storage, key);
  }
  buf_dispose(&uri);
  if (rc) key->len = old_len;
  return rc;
}

/* ---- Parquet files through ranged reads ---- */

typedef struct {
  delta_storage *storage;
  char *key;
} storage_source;

/* A sink that fills a caller's buffer of exactly `cap` bytes. */
typedef struct {
  uint8_t *dst;
  size_t cap, got;
} fill_sink;

static int fill_write(delta_storage_sink *sink, const void *data, size_t len) {
  fill_sink *f = sink->payload;
  if (len > f->cap - f->got)
    return err_set(DELTA_EIO, "the store sent more bytes than asked for");
  memcpy(f->dst + f->got, data, len);
  f->got += len;
  return 0;
}

static int source_read_at(void *ctx, uint64_t offset, size_t len, void *dst) {
  storage_source *s = ctx;
  fill_sink fs = {dst, len, 0};
  delta_storage_sink sink = {fill_write, NULL, &fs};
  int rc = delta_storage_read_into(s->storage, s->key, offset, len, &sink);
  if (rc) return rc;
  if (fs.got != len)
    return err_set(DELTA_ECORRUPT, "file ended early: %zu of %zu bytes at offset %llu (was it truncated?)",
                   fs.got, len, (unsigned long long)offset);
  return 0;
}

static void source_close(void *ctx) {
  storage_source *s = ctx;
  mem_free(s->key);
  mem_free(s);
}

int log_storage_is_local(delta_storage *storage) {
  delta_buf path = DELTA_BUF_INIT;
  int rc = storage_local_path(storage, "_delta_log", &path);
  buf_dispose(&path);
  if (rc) delta_error_clear();
  return rc == 0;
}

int log_parquet_open(delta_storage *storage, const char *key, int64_t size, delta_parquet_file **out) {
  *out = NULL;
  delta_buf name = DELTA_BUF_INIT;
  int rc = storage_local_path(storage, key, &name);
  if (rc == 0) {
    rc = delta_parquet_open(out, (const char *)name.data);
    goto done;
  }
  if (rc != DELTA_EUNSUPPORTED) goto done;
  delta_error_clear();
  bool known_size = size >= 0;
  if (size < 0) {
    delta_file_info info;
    if ((rc = delta_storage_head(storage, key, &info)) != 0) goto done;
    size = (int64_t)info.size;
  }
  name.len = 0;
  const char *loc = delta_storage_location(storage);
  if ((rc = buf_printf(&name, "%s%s%s", loc, *loc ? "/" : "", key)) != 0) goto done;
  if ((rc = buf_putc(&name, '\0')) != 0) goto done;
  storage_source *s = mem_calloc(1, sizeof *s);
  if (!s) {
    rc = DELTA_NOMEM();
    goto done;
  }
  s->storage = storage;
  if (!(s->key = mem_strdup(key))) {
    mem_free(s);
    rc = DELTA_NOMEM();
    goto done;
  }
  delta_parquet_source src = {DELTA_PARQUET_SOURCE_VERSION, (uint64_t)size, source_read_at, source_close, s, false};
  rc = delta_parquet_open_source(out, &src, (const char *)name.data);
  if ((rc == DELTA_ECORRUPT || rc == DELTA_EINVAL) && known_size) {
    /* The size the log gave may be wrong (old writers): ask the store once. */
    delta_error_clear();
    rc = log_parquet_open(storage, key, -1, out);
  }
done:
  buf_dispose(&name);
  return rc;
}
