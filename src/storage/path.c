/* Delta paths: percent-encoding of add.path, Hive partition escaping,
 * resolution of log paths into storage keys or absolute URIs. */
#include "storage/path.h"

#include <string.h>

#include "util/error_internal.h"

static const char HEX[] = "0123456789ABCDEF";

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Characters kept as-is in an encoded path besides ALPHA / DIGIT. */
static bool keep_in_path(unsigned char c, bool keep_colon) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  if (c == ':') return keep_colon;
  return c != '\0' && strchr("-._~/!$&'()*+,;=@", c) != NULL;
}

static int encode_into(delta_buf *out, const char *s, size_t len, bool keep_colon) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    int rc;
    if (keep_in_path(c, keep_colon)) {
      rc = buf_putc(out, (char)c);
    } else {
      char esc[3] = {'%', HEX[c >> 4], HEX[c & 15]};
      rc = buf_append(out, esc, 3);
    }
    if (rc) return rc;
  }
  return 0;
}

int storage_path_check_key(const char *key, bool allow_root) {
  if (!key) return err_set(DELTA_EINVAL, "storage key is NULL");
  if (!*key) {
    if (allow_root) return 0;
    return err_set(DELTA_EINVAL, "storage key is empty");
  }
  if (key[0] == '/')
    return err_set(DELTA_EINVAL, "storage key '%s' is absolute", key);
  /* Walk the segments: each must be non-empty and neither "." nor "..", so a
   * key can only name something under the root. */
  const char *seg = key;
  for (;;) {
    const char *end = strchr(seg, '/');
    size_t n = end ? (size_t)(end - seg) : strlen(seg);
    if (n == 0)
      return err_set(DELTA_EINVAL, "storage key '%s' has an empty segment", key);
    if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
      return err_set(DELTA_EINVAL, "storage key '%s' has a '%.*s' segment", key, (int)n,
                             seg);
    if (!end) break;
    seg = end + 1;
  }
  return 0;
}

int storage_path_decode(delta_buf *out, const char *s, size_t len) {
  size_t mark = out->len;
  int rc = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '%' && i + 2 < len && hexval((unsigned char)s[i + 1]) >= 0 &&
        hexval((unsigned char)s[i + 2]) >= 0) {
      c = (unsigned char)(hexval((unsigned char)s[i + 1]) * 16 + hexval((unsigned char)s[i + 2]));
      i += 2;
    }
    if (c == '\0') {
      rc = err_set(DELTA_ECORRUPT, "path '%.*s' contains a NUL byte", (int)len, s);
      goto done;
    }
    if ((rc = buf_putc(out, (char)c))) goto done;
  }
done:
  if (rc) out->len = mark;
  return rc;
}

int storage_path_encode(delta_buf *out, const char *s, size_t len) {
  size_t mark = out->len;
  int rc = encode_into(out, s, len, false);
  if (rc) out->len = mark;
  return rc;
}

int storage_path_file_uri(delta_buf *out, const char *abs_path) {
  if (!abs_path || abs_path[0] != '/')
    return err_set(DELTA_EINVAL, "'%s' is not an absolute path",
                           abs_path ? abs_path : "(null)");
  size_t mark = out->len;
  int rc;
  if ((rc = buf_puts(out, "file://")) != 0) goto done;
  rc = encode_into(out, abs_path, strlen(abs_path), true);
done:
  if (rc) out->len = mark;
  return rc;
}

/* Length of "scheme" when `s` starts with "scheme:/", else 0. Requiring the
 * slash keeps relative names with a colon ("part:1.parquet") relative. */
static size_t scheme_len(const char *s, size_t len) {
  if (len == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return 0;
  size_t i = 1;
  while (i < len && (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') ||
                     (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' || s[i] == '.'))
    i++;
  if (i + 1 < len && s[i] == ':' && s[i + 1] == '/') return i;
  return 0;
}

/* Append s[0..len) decoded, then encoded again the one canonical way. */
static int reencode(delta_buf *out, const char *s, size_t len) {
  delta_buf dec = DELTA_BUF_INIT;
  int rc;
  if ((rc = storage_path_decode(&dec, s, len)) != 0) goto done;
  rc = encode_into(out, (const char *)dec.data, dec.len, true);
done:
  buf_dispose(&dec);
  return rc;
}

/* Append the canonical form of absolute URI `s` (which has a scheme of
 * length `sl`): lower-case scheme, "//authority" (empty for local files),
 * then the decoded path re-encoded. */
static int canonical_uri(delta_buf *out, const char *s, size_t len, size_t sl) {
  int rc;
  for (size_t i = 0; i < sl; i++)
    if ((rc = buf_putc(out, (char)(s[i] | 0x20)))) return rc;
  bool is_file = sl == 4 && memcmp(out->data + out->len - 4, "file", 4) == 0;
  const char *p = s + sl + 1, *end = s + len;
  const char *auth = NULL;
  size_t auth_len = 0;
  if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
    auth = p + 2;
    const char *slash = memchr(auth, '/', (size_t)(end - auth));
    p = slash ? slash : end;
    auth_len = (size_t)(p - auth);
  }
  if (is_file && auth_len == 9 && memcmp(auth, "localhost", 9) == 0) auth_len = 0;
  if (auth || is_file) {
    if ((rc = buf_puts(out, ":/"))) return rc;
    if ((rc = buf_putc(out, '/'))) return rc;
    if (auth_len && (rc = buf_append(out, auth, auth_len))) return rc;
  } else if ((rc = buf_putc(out, ':'))) {
    return rc;
  }
  return reencode(out, p, (size_t)(end - p));
}

/* Append the decoded relative path `s` as a normalised key: empty and "."
 * segments dropped, ".." removing the previous segment. */
static int append_key(delta_buf *out, const char *s, size_t len, const char *orig,
                      size_t orig_len) {
  size_t base = out->len;
  size_t i = 0;
  while (i < len) {
    size_t j = i;
    while (j < len && s[j] != '/') j++;
    size_t n = j - i;
    if (n == 0 || (n == 1 && s[i] == '.')) {
      /* nothing: Hadoop's Path normalises these away too */
    } else if (n == 2 && s[i] == '.' && s[i + 1] == '.') {
      if (out->len == base)
        return err_set(DELTA_ECORRUPT, "path '%.*s' climbs above the table root",
                               (int)orig_len, orig);
      while (out->len > base && out->data[out->len - 1] != '/') out->len--;
      if (out->len > base) out->len--; /* the '/' before the dropped segment */
    } else {
      int rc;
      if (out->len > base && (rc = buf_putc(out, '/'))) return rc;
      if ((rc = buf_append(out, s + i, n))) return rc;
    }
    i = j + 1;
  }
  if (out->len == base)
    return err_set(DELTA_ECORRUPT, "path '%.*s' names no file", (int)orig_len, orig);
  return 0;
}

bool storage_path_is_plain_key(const char *path, size_t len) {
  if (!path || len == 0 || path[0] == '/' || path[len - 1] == '/') return false;
  /* memchr is vectorised; this runs once per file of a checkpoint. */
  if (memchr(path, '%', len) || memchr(path, ':', len) || memchr(path, '\0', len)) return false;
  for (const char *s = memchr(path, '/', len); s; s = memchr(s + 1, '/', len - (size_t)(s + 1 - path)))
    if (s[1] == '/') return false; /* an empty segment (the path does not end in '/') */
  /* A "." or ".." segment: a dot at a segment start followed by the end, a
   * '/', or one more dot and then the end or a '/'. */
  for (const char *d = memchr(path, '.', len); d; d = memchr(d + 1, '.', len - (size_t)(d + 1 - path))) {
    size_t i = (size_t)(d - path);
    if (i > 0 && path[i - 1] != '/') continue;
    size_t j = i + 1 < len && path[i + 1] == '.' ? i + 2 : i + 1;
    if (j == len || path[j] == '/') return false;
  }
  return true;
}

/* append_key() of s[0..len) decoded. */
static int append_decoded_key(delta_buf *out, const char *s, size_t len, const char *orig,
                              size_t orig_len) {
  delta_buf dec = DELTA_BUF_INIT;
  int rc;
  if ((rc = storage_path_decode(&dec, s, len)) != 0) goto done;
  rc = append_key(out, (const char *)dec.data, dec.len, orig, orig_len);
done:
  buf_dispose(&dec);
  return rc;
}

int storage_path_resolve(delta_path_kind *kind, delta_buf *out, const char *path, size_t len,
                       const char *root_uri) {
  size_t mark = out->len;
  delta_buf tmp = DELTA_BUF_INIT, root = DELTA_BUF_INIT;
  int rc = 0;
  delta_path_kind k = DELTA_PATH_KEY;
  if (!path) return err_set(DELTA_EINVAL, "path is NULL");
  if (len == 0) return err_set(DELTA_ECORRUPT, "path is empty");
  if (memchr(path, '\0', len)) {
    rc = err_set(DELTA_ECORRUPT, "path contains a NUL byte");
    goto done;
  }
  size_t sl = scheme_len(path, len);
  if (sl == 0 && path[0] != '/') {
    if ((rc = storage_path_decode(&tmp, path, len))) goto done;
    rc = append_key(out, (const char *)tmp.data, tmp.len, path, len);
    goto done;
  }

  /* Absolute. The root in canonical form, without a trailing '/'. */
  if (root_uri && *root_uri) {
    size_t rl = strlen(root_uri), rsl = scheme_len(root_uri, rl);
    if (rsl == 0) {
      rc = err_set(DELTA_EINVAL, "table root '%s' is not a URI", root_uri);
      goto done;
    }
    if ((rc = canonical_uri(&root, root_uri, rl, rsl))) goto done;
    while (root.len && root.data[root.len - 1] == '/') root.len--;
  }
  if (sl) {
    if ((rc = canonical_uri(&tmp, path, len, sl)) != 0) goto done;
  } else {
    /* "/x": on the root's filesystem, i.e. its scheme and authority. */
    size_t prefix = 0;
    if (root.len) {
      const char *r = (const char *)root.data;
      const char *colon = memchr(r, ':', root.len);
      prefix = (size_t)(colon - r) + 1;
      if (root.len - prefix >= 2 && r[prefix] == '/' && r[prefix + 1] == '/') {
        const char *slash = memchr(r + prefix + 2, '/', root.len - prefix - 2);
        prefix = slash ? (size_t)(slash - r) : root.len;
      }
      if ((rc = buf_append(&tmp, r, prefix)) != 0) goto done;
    } else if ((rc = buf_puts(&tmp, "file://")) != 0) {
      goto done;
    }
    if ((rc = reencode(&tmp, path, len)) != 0) goto done;
  }

  if (root.len && tmp.len > root.len + 1 && memcmp(tmp.data, root.data, root.len) == 0 &&
      tmp.data[root.len] == '/') {
    const char *rest = (const char *)tmp.data + root.len + 1;
    rc = append_decoded_key(out, rest, tmp.len - root.len - 1, path, len);
  } else {
    k = DELTA_PATH_ABSOLUTE;
    rc = buf_append(out, tmp.data, tmp.len);
  }

done:
  buf_dispose(&tmp);
  buf_dispose(&root);
  if (rc) {
    out->len = mark;
  } else if (kind) {
    *kind = k;
  }
  return rc;
}

/* Spark's ExternalCatalogUtils.charToEscape (non-Windows set). */
static bool hive_escapes(unsigned char c) {
  if ((c >= 0x01 && c <= 0x1F) || c == 0x7F) return true;
  return c != '\0' && strchr("\"#%'*/:=?\\{[]^", c) != NULL;
}

int storage_path_escape_partition(delta_buf *out, const char *value, size_t len) {
  size_t mark = out->len;
  int rc = 0;
  for (size_t i = 0; i < len && !rc; i++) {
    unsigned char c = (unsigned char)value[i];
    if (hive_escapes(c)) {
      char esc[3] = {'%', HEX[c >> 4], HEX[c & 15]};
      rc = buf_append(out, esc, 3);
    } else {
      rc = buf_putc(out, (char)c);
    }
  }
  if (rc) out->len = mark;
  return rc;
}

int storage_path_unescape_partition(delta_buf *out, const char *name, size_t len) {
  size_t mark = out->len;
  int rc = 0;
  for (size_t i = 0; i < len && !rc; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c == '%' && i + 2 < len && hexval((unsigned char)name[i + 1]) >= 0 &&
        hexval((unsigned char)name[i + 2]) >= 0) {
      c = (unsigned char)(hexval((unsigned char)name[i + 1]) * 16 +
                          hexval((unsigned char)name[i + 2]));
      i += 2;
    }
    rc = buf_putc(out, (char)c);
  }
  if (rc) out->len = mark;
  return rc;
}
