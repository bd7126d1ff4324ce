/*
 * Paths as the Delta protocol writes them, and storage keys.
 *
 * An `add.path` (also `remove.path`, `cdc.path`, `sidecar.path`, a DV's 'p'
 * path) is an RFC 2396 URI: either relative to the table root or absolute.
 * Relative paths are percent-encoded ("c2=+%20%253D%25250/part-0.parquet"
 * names the directory "c2=+ %3D%250"), so they must be decoded to get the
 * key. Absolute ones carry a scheme ("file:/x", "file:///x", "s3://b/k") or
 * start with '/' (a path on the table's own filesystem, as Spark writes
 * them). Partition directories use a second, Hive-style escaping of the
 * partition value ("=" → "%3D", "%" → "%25", ...) that is part of the real
 * directory name and is NOT undone when resolving a path; the log's
 * partitionValues, not directory names, are authoritative.
 *
 * Every function here appends to `out`; on failure out->len is restored to
 * what it was.
 */
#ifndef DELTAC_STORAGE_PATH_H
#define DELTAC_STORAGE_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Directory name Spark/Hive use for a null (or empty) partition value. */
#define DELTA_HIVE_DEFAULT_PARTITION "__HIVE_DEFAULT_PARTITION__"

typedef enum {
  DELTA_PATH_KEY = 1,     /* `out` holds a table-relative storage key */
  DELTA_PATH_ABSOLUTE = 2 /* `out` holds a canonical absolute URI outside the root */
} delta_path_kind;

/* 0 if `key` is a valid storage key (see include/deltac/storage.h: non-empty,
 * relative, no empty/"."/".." segment), else DELTA_EINVAL naming it. With
 * `allow_root`, "" (the root directory) is accepted too. NULL is EINVAL. */
int storage_path_check_key(const char *key, bool allow_root);

/* Percent-decode `len` bytes: "%XX" (either case of hex) becomes the byte;
 * a '%' not followed by two hex digits is kept literally (old writers left
 * stray '%'); '+' stays '+' (this is URI, not form, decoding). A NUL byte,
 * raw or decoded, gives DELTA_ECORRUPT. */
int storage_path_decode(delta_buf *out, const char *s, size_t len);

/* Percent-encode a decoded table-relative key for `add.path`: keeps
 * unreserved characters and "/!$&'()*+,;=@", encodes everything else
 * (space, '%', '#', '?', ':', controls, non-ASCII bytes...) as uppercase
 * %XX. ':' is encoded so that a first segment can never read as a scheme.
 * storage_path_decode reverses it exactly. */
int storage_path_encode(delta_buf *out, const char *s, size_t len);

/* "file://" + the percent-encoded absolute path `abs_path` (which must start
 * with '/'), e.g. "/tmp/my table" → "file:///tmp/my%20table". */
int storage_path_file_uri(delta_buf *out, const char *abs_path);

/*
 * Turn a path from the log into what storage needs. `root_uri` is the table
 * root as a URI (delta_storage_location(); NULL or "" means a local table
 * whose root is unknown, so every absolute path stays absolute).
 *   - relative: decoded, "." and empty segments dropped, ".." applied;
 *     climbing above the root gives DELTA_ECORRUPT → DELTA_PATH_KEY.
 *   - absolute (scheme, or leading '/' = the root's scheme and authority):
 *     canonicalised — scheme lower-cased; file:/x, file:///x and
 *     file://localhost/x all become "file:///x"; the path decoded and
 *     re-encoded as storage_path_encode does (but keeping ':'). If that lies
 *     inside `root_uri` → DELTA_PATH_KEY with the decoded remainder; else
 *     DELTA_PATH_ABSOLUTE with the canonical URI (usable as the key of
 *     deduplication; open its directory with delta_storage_open to read it).
 * A scheme is recognised only as `ALPHA *(ALPHA / DIGIT / "+" / "-" / ".")`
 * followed by ":/", so "part:1.parquet" stays relative.
 * Empty paths and NULs give DELTA_ECORRUPT. `kind` may be NULL.
 */
int storage_path_resolve(delta_path_kind *kind, delta_buf *out, const char *path, size_t len,
                       const char *root_uri);

/* True when storage_path_resolve would return DELTA_PATH_KEY with `path`
 * itself, whatever the root: relative, no '%' or ':', no empty, "." or ".."
 * segment, no NUL. Checks this in one pass, so log replay can skip the
 * resolution for the common "part=x/part-0.parquet" paths. */
bool storage_path_is_plain_key(const char *path, size_t len);

/* Hive-style escaping of one partition value into a directory-name part, as
 * Spark's escapePathName: bytes 0x01-0x1F and 0x7F, and the characters
 * " # % ' * / : = ? \ { [ ] ^ become uppercase %XX; everything else (space,
 * '+', non-ASCII) stays.
 * The caller writes DELTA_HIVE_DEFAULT_PARTITION for null values. */
int storage_path_escape_partition(delta_buf *out, const char *value, size_t len);

/* The inverse: "%XX" with two hex digits becomes the byte, anything else is
 * kept. (For display and checks only; values come from the log.) */
int storage_path_unescape_partition(delta_buf *out, const char *name, size_t len);

#endif
