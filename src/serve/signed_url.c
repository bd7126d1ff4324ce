/* deltac serve: expiring HMAC-signed links to data files.
 *
 *   /files/{table}/{base64url(path)}?expires=MS&sig=HEX
 *
 * sig = HMAC-SHA256(key, "deltac-file-v1\n" table "\n" path "\n" expires),
 * where path is the file's path exactly as the log gives it. Only the server
 * makes these links (Delta Sharing query/changes answers), only for paths
 * from the table's own log, so a valid signature already limits a link to
 * files the server chose to share; the path is still resolved as a storage
 * key inside the table root, which refuses absolute paths and "..". The
 * link is the credential (Delta Sharing clients fetch file URLs without the
 * bearer token), hence the expiry. Byte ranges are served, for readers that
 * fetch a Parquet footer first. */
#include <fcntl.h>
#include <microhttpd.h>
#include <nettle/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/snapshot.h"
#include "serve/serve.h"
#include "serve/signed_url.h"
#include "storage/path.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64url_encode(delta_buf *out, const uint8_t *p, size_t n) {
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char q[4] = {b64url[v >> 18], b64url[(v >> 12) & 63], b64url[(v >> 6) & 63], b64url[v & 63]};
    rc = buf_append(out, q, i + 2 < n ? 4 : i + 1 < n ? 3 : 2);
  }
  return rc;
}

/* -1 on a character outside the alphabet or an impossible length. */
static int b64url_decode(delta_buf *out, const char *s) {
  uint32_t acc = 0;
  int bits = 0;
  size_t n = strlen(s);
  if (n % 4 == 1) return -1;
  for (size_t i = 0; i < n; i++) {
    const char *p = memchr(b64url, s[i], 64);
    if (!p || !s[i]) return -1;
    acc = acc << 6 | (uint32_t)(p - b64url);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (buf_putc(out, (char)((acc >> bits) & 0xff))) return -1;
    }
  }
  return 0;
}

static void signature(const serve_config *cfg, const char *table, const char *path, size_t path_len, int64_t expires,
                      char hex[65]) {
  struct hmac_sha256_ctx ctx;
  uint8_t digest[SHA256_DIGEST_SIZE];
  char tail[32];
  int tn = snprintf(tail, sizeof tail, "\n%lld", (long long)expires);
  hmac_sha256_set_key(&ctx, sizeof cfg->signing_key, cfg->signing_key);
  hmac_sha256_update(&ctx, 15, (const uint8_t *)"deltac-file-v1\n");
  hmac_sha256_update(&ctx, strlen(table), (const uint8_t *)table);
  hmac_sha256_update(&ctx, 1, (const uint8_t *)"\n");
  hmac_sha256_update(&ctx, path_len, (const uint8_t *)path);
  hmac_sha256_update(&ctx, (size_t)tn, (const uint8_t *)tail);
  hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  for (int i = 0; i < SHA256_DIGEST_SIZE; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

int signed_url_make(delta_buf *out, const serve_config *cfg, const char *base, const char *table, const char *path,
                    int64_t expires_ms) {
  char hex[65];
  signature(cfg, table, path, strlen(path), expires_ms, hex);
  int rc;
  if ((rc = buf_printf(out, "%s/files/%s/", base, table)) != 0) return rc;
  if ((rc = b64url_encode(out, (const uint8_t *)path, strlen(path))) != 0) return rc;
  return buf_printf(out, "?expires=%lld&sig=%s", (long long)expires_ms, hex);
}

/* "bytes=a-b", "bytes=a-", "bytes=-n" against a file of `size` bytes.
 * 0: no (usable) range; 1: [*from, *to] set; -1: unsatisfiable. */
static int parse_range(const char *h, uint64_t size, uint64_t *from, uint64_t *to) {
  if (!h || strncmp(h, "bytes=", 6) != 0 || strchr(h, ',')) return 0;
  const char *p = h + 6;
  char *end;
  if (*p == '-') {
    unsigned long long n = strtoull(p + 1, &end, 10);
    if (*end || end == p + 1) return 0;
    if (n == 0 || size == 0) return -1;
    *from = n >= size ? 0 : size - n;
    *to = size - 1;
    return 1;
  }
  unsigned long long a = strtoull(p, &end, 10), b = size ? size - 1 : 0;
  if (end == p || *end != '-') return 0;
  if (end[1]) {
    const char *q = end + 1;
    b = strtoull(q, &end, 10);
    if (*end || b < a) return 0;
    if (b >= size) b = size - 1;
  }
  if (a >= size) return -1;
  *from = a;
  *to = b;
  return 1;
}

/* A remote file's bytes for the response, read from the store in pieces
 * of STREAM_CHUNK as MHD asks for them (a file is never held whole). */
#define STREAM_CHUNK ((size_t)1 << 20)

typedef struct {
  delta_storage *storage;
  char *key;
  uint64_t from, n;        /* the bytes served: [from, from + n) of the file */
  delta_buf chunk;         /* bytes [chunk_at, chunk_at + chunk.len) of the response */
  uint64_t chunk_at;
} remote_body;

static ssize_t remote_read(void *cls, uint64_t pos, char *buf, size_t max) {
  remote_body *b = cls;
  if (pos >= b->n) return MHD_CONTENT_READER_END_OF_STREAM;
  if (pos < b->chunk_at || pos >= b->chunk_at + b->chunk.len) {
    uint64_t want = b->n - pos < STREAM_CHUNK ? b->n - pos : STREAM_CHUNK;
    b->chunk.len = 0;
    b->chunk_at = pos;
    if (storage_read_range(b->storage, b->key, b->from + pos, want, &b->chunk) != 0 || b->chunk.len == 0) {
      /* the status line is gone: all that is left is to cut the body short */
      fprintf(stderr, "deltac serve: %s\n", delta_error_last());
      b->chunk.len = 0;
      return MHD_CONTENT_READER_END_WITH_ERROR;
    }
  }
  size_t at = (size_t)(pos - b->chunk_at), k = b->chunk.len - at;
  if (k > max) k = max;
  memcpy(buf, b->chunk.data + at, k);
  return (ssize_t)k;
}

static void remote_free(void *cls) {
  remote_body *b = cls;
  buf_dispose(&b->chunk);
  mem_free(b->key);
  mem_free(b);
}

/* The response for a file of `size` bytes and the Range header: the fd's
 * bytes (taken over) when fd >= 0, else read from the store. */
static int send_bytes(serve_request *r, struct MHD_Connection *c, serve_table *t, int fd, const char *key,
                      uint64_t size) {
  uint64_t from = 0, to = size ? size - 1 : 0;
  int range = parse_range(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE), size, &from, &to);
  if (range < 0) {
    if (fd >= 0) close(fd);
    char cr[48];
    snprintf(cr, sizeof cr, "bytes */%llu", (unsigned long long)size);
    const char *const h[] = {MHD_HTTP_HEADER_CONTENT_RANGE, cr, NULL};
    return serve_reply_bytes(r, c, 416, "application/json", "{}\n", 3, h);
  }
  uint64_t n = range ? to - from + 1 : size;
  struct MHD_Response *resp = NULL;
  if (fd >= 0) {
    resp = MHD_create_response_from_fd_at_offset64(n, fd, from); /* owns fd now */
    if (!resp) close(fd);
  } else {
    remote_body *b = mem_calloc(1, sizeof *b);
    if (b && (b->key = mem_strdup(key)) != NULL) {
      b->storage = t->table->storage;
      b->from = from;
      b->n = n;
      b->chunk.limit = STREAM_CHUNK + 1;
      resp = MHD_create_response_from_callback(n, 64 * 1024, remote_read, b, remote_free);
    }
    if (!resp && b) remote_free(b);
  }
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
  MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "private, max-age=60");
  if (range) {
    char cr[80];
    snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)from, (unsigned long long)to,
             (unsigned long long)size);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, cr);
  }
  r->status = range ? 206 : 200;
  r->bytes = n;
  enum MHD_Result ok = MHD_queue_response(c, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  return ok;
}

/* The file behind a verified link, whole or the requested range: by fd when
 * the table's storage is a local filesystem, else streamed from the store
 * with ranged reads. */
static int send_file(serve_request *r, struct MHD_Connection *c, serve_table *t, const char *path, size_t len) {
  delta_buf key = DELTA_BUF_INIT, local = DELTA_BUF_INIT;
  delta_path_kind kind;
  int ok, rc;
  /* a link the server made names a file inside the table: anything else is not found */
  if (storage_path_resolve(&kind, &key, path, len, delta_table_location(t->table)) != 0 || kind != DELTA_PATH_KEY ||
      buf_putc(&key, 0) != 0) {
    delta_error_clear();
    ok = serve_reply_error(r, c, 404, "file not found");
    goto done;
  }
  rc = storage_local_path(t->table->storage, (const char *)key.data, &local);
  if (rc == 0) {
    int fd = open((const char *)local.data, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
      if (fd >= 0) close(fd);
      ok = serve_reply_error(r, c, 404, "file not found");
      goto done;
    }
    ok = send_bytes(r, c, t, fd, NULL, (uint64_t)st.st_size);
    goto done;
  }
  delta_error_clear();
  delta_file_info info;
  rc = delta_storage_head(t->table->storage, (const char *)key.data, &info);
  if (rc == DELTA_ENOTFOUND)
    ok = serve_reply_error(r, c, 404, "file not found");
  else if (rc)
    ok = serve_reply_error(r, c, 502, "the table's store failed: %s", delta_error_last());
  else
    ok = send_bytes(r, c, t, -1, (const char *)key.data, info.size);
done:
  buf_dispose(&key);
  buf_dispose(&local);
  return ok;
}

int signed_file_serve(serve_request *r, struct MHD_Connection *c, char **segs, int n) {
  if (n != 2) return serve_reply_error(r, c, 404, "no such file link");
  serve_table *t = serve_table_find(r->srv->cfg, segs[0]);
  if (!t) return serve_reply_error(r, c, 404, "no table named '%s'", segs[0]);
  const char *exp = serve_arg(c, "expires"), *sig = serve_arg(c, "sig");
  delta_buf path = DELTA_BUF_INIT;
  char *end = NULL;
  long long expires = exp ? strtoll(exp, &end, 10) : 0;
  if (!exp || !*exp || *end || !sig || b64url_decode(&path, segs[1]) || memchr(path.data, 0, path.len)) {
    buf_dispose(&path);
    return serve_reply_error(r, c, 403, "not a valid file link");
  }
  char want[65];
  signature(r->srv->cfg, t->name, (const char *)path.data, path.len, expires, want);
  int ok;
  if (!serve_ct_equal(sig, strlen(sig), want, 64))
    ok = serve_reply_error(r, c, 403, "bad signature");
  else if (serve_wall_ms() > expires)
    ok = serve_reply_error(r, c, 403, "link expired");
  else
    ok = send_file(r, c, t, (const char *)path.data, path.len);
  buf_dispose(&path);
  return ok;
}
