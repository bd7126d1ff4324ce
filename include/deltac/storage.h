/*
 * Storage: where a table's files live, behind a versioned vtable.
 *
 * The protocol layer (log replay, snapshots, commits) does no I/O of its own:
 * every byte it reads or writes goes through a `delta_storage` handle. deltac
 * ships a local-filesystem back end (delta_storage_open); an embedder plugs in
 * any other store (object stores, an in-memory store, a caching layer) by
 * filling a `delta_storage_vtable` and calling delta_storage_new. This is the
 * "sys" tier of the API: the vtable may grow in a minor release (new members
 * are appended and guarded by `version`).
 *
 * KEYS
 *   A handle is rooted at one table location. Files are named by keys: paths
 *   relative to that root, '/'-separated, already percent-DECODED (the bytes
 *   of the real file name), e.g.
 *     "_delta_log/00000000000000000000.json"
 *     "_delta_log/_sidecars/3a0d65cd.parquet"
 *     "c2=+ %3D%250/part-00000.snappy.parquet"   (Hive escaping stays: that is
 *                                                 the directory's real name)
 *   A valid key is non-empty, does not start with '/', and has no empty, "."
 *   or ".." segment (so no "//" and no trailing '/'). Back ends refuse other
 *   keys with DELTA_EINVAL; the local back end relies on this so that no key
 *   escapes the table root. Turning an `add.path` from the log into a key is
 *   the job of the path helpers (src/storage/path.h), not of the back end.
 *   A directory key (for list) follows the same rules, and "" names the root.
 *
 * ERRORS
 *   Every function returns 0 or a negative delta_error_code and leaves a one-
 *   line message naming the key in delta_error_last(). The codes a caller acts
 *   on: DELTA_ENOTFOUND (no such file/directory), DELTA_EEXISTS (put-if-absent
 *   lost), DELTA_EINVAL (bad key or argument), DELTA_ELIMIT (file larger than
 *   the caller's buffer limit), DELTA_EUNSUPPORTED (operation or scheme the
 *   back end does not offer), DELTA_EIO (anything the store itself failed at,
 *   including permission errors), DELTA_ENOMEM.
 *
 * THREADS
 *   A handle is immutable after creation; every operation may be called from
 *   several threads at once on the same handle (snapshots are shared between
 *   threads). Back ends must allow that.
 *
 * DESIGNED FOR OBJECT STORES
 *   Nothing here assumes rename or cheap listing: put-if-absent maps to
 *   S3 `If-None-Match: *`, Azure `If-None-Match: *`, GCS `ifGenerationMatch=0`;
 *   list maps to one paginated delimiter listing starting after a name (S3
 *   `StartAfter`), and the callback can stop it early. Callers list a
 *   directory once per need and use `start_after` instead of re-listing.
 */
#ifndef DELTAC_STORAGE_H
#define DELTAC_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A table's storage, rooted at its location. Opaque; free with
 * delta_storage_free. */
typedef struct delta_storage delta_storage;

/* What head() tells about a file. */
typedef struct {
  uint64_t size;    /* bytes */
  int64_t mtime_ms; /* last modification, ms since the Unix epoch (UTC) */
} delta_file_info;

/* One entry of a directory listing. Valid only during the callback: copy
 * what you keep. */
typedef struct {
  const char *name; /* the entry's name in the directory (no '/'), NUL-ended */
  size_t name_len;  /* strlen(name) */
  uint64_t size;    /* bytes; 0 for directories */
  int64_t mtime_ms; /* ms since the epoch; 0 when the store does not know
                       (directories on object stores are only prefixes) */
  bool is_dir;      /* a sub-directory (a common prefix on object stores) */
} delta_storage_entry;

/* Called once per listed entry, in order. Return 0 to go on; any other value
 * stops the listing and is returned by list() as-is (a positive value can thus
 * mean "found it" without being an error). */
typedef int (*delta_storage_list_cb)(const delta_storage_entry *entry, void *payload);

/* Where read() and local_path() deliver bytes. deltac passes its own sinks to
 * back ends; an embedder calling the sink-based functions below may pass one
 * too. Chunks need not arrive in one piece: a back end may call `write` many
 * times (an HTTP body arrives in pieces). */
typedef struct delta_storage_sink {
  /* Append `len` bytes. Returns 0, or a negative code (e.g. DELTA_ELIMIT or
   * DELTA_ENOMEM) that the back end must stop on and return as-is. */
  int (*write)(struct delta_storage_sink *sink, const void *data, size_t len);
  /* Optional (may be NULL): called at most once, before the first write, when
   * the back end knows how many bytes will follow (file size, Content-Length),
   * so that the sink can allocate once or refuse early (DELTA_ELIMIT). Same
   * return rule as `write`. */
  int (*expect)(struct delta_storage_sink *sink, uint64_t total);
  void *payload; /* for the sink's owner */
} delta_storage_sink;

#define DELTA_STORAGE_VTABLE_VERSION 3 /* 1: without remove_dir; 2: without upload_* */

/* Read to the end of the file (read's `len`). */
#define DELTA_STORAGE_TO_END UINT64_MAX

/*
 * The back-end interface. `impl` is the pointer given to delta_storage_new.
 * Every operation may run concurrently with any other, from any thread.
 * Consistency: once put() returns 0, read/head/list on any handle of the same
 * store observe the new file (read-after-write and list-after-write).
 */
typedef struct delta_storage_vtable {
  unsigned int version; /* DELTA_STORAGE_VTABLE_VERSION */

  /* Entries directly inside directory `dir_key` ("" = the root) whose names
   * sort strictly after `start_after` (NULL or "" = all), in ascending byte
   * order of the name (memcmp/strcmp order, i.e. UTF-8 code point order),
   * each exactly once. Files and sub-directories both appear; entries with
   * hidden names ('.'-prefixed, temporary files) are listed too — filtering
   * is the caller's business. A missing `dir_key` gives DELTA_ENOTFOUND; an
   * empty directory lists nothing and returns 0. A file that vanishes during
   * the listing may be skipped. Returns 0 at the end, or the callback's
   * non-zero value. Required. */
  int (*list)(void *impl, const char *dir_key, const char *start_after,
              delta_storage_list_cb cb, void *payload);

  /* Deliver bytes [offset, offset + len) of file `key` into `sink`, stopping
   * early only at the end of the file (so fewer than `len` bytes means the
   * file is shorter; len = DELTA_STORAGE_TO_END reads everything from
   * `offset`). offset > size gives DELTA_EINVAL; offset == size delivers
   * nothing. A missing file (or a directory) gives DELTA_ENOTFOUND with the
   * key in the message. Reading never writes anything (tables may sit on
   * read-only storage). Required. */
  int (*read)(void *impl, const char *key, uint64_t offset, uint64_t len,
              delta_storage_sink *sink);

  /* Size and modification time of file `key`; DELTA_ENOTFOUND when missing
   * (or a directory). Required. */
  int (*head)(void *impl, const char *key, delta_file_info *out);

  /* Store `len` bytes as file `key`, creating missing parent directories.
   *   overwrite = false: put-if-absent. MUST be atomic: when writers race on
   *     one key, exactly one gets 0 and every other gets DELTA_EEXISTS, and
   *     the winner's content is the file's content. This is how a Delta
   *     commit is made; a back end that cannot guarantee it must return
   *     DELTA_EUNSUPPORTED rather than race.
   *   overwrite = true: replace any existing file.
   * In both cases no reader ever sees a partial file: a reader sees no file,
   * the old content or the complete new one. On return 0 the data is durable
   * (for the local back end: fsync'd file and directory). DELTA_EEXISTS and
   * DELTA_EINVAL mean nothing was written; after any other error the outcome
   * is unknown (the file may exist, as after an object-store timeout), so a
   * committer must re-read before retrying elsewhere. May be NULL for a
   * read-only back end (put gives DELTA_EUNSUPPORTED). */
  int (*put)(void *impl, const char *key, const void *data, size_t len, bool overwrite);

  /* Delete file `key`. Idempotent: a missing file is success. Deleting a
   * directory is DELTA_EINVAL. May be NULL for a read-only back end. */
  int (*remove)(void *impl, const char *key);

  /* Write the local filesystem path of `key` (no NUL) into `sink`, whether or
   * not the file exists, so that a reader can mmap it. NULL when the store is
   * not a local filesystem (callers then get DELTA_EUNSUPPORTED). */
  int (*local_path)(void *impl, const char *key, delta_storage_sink *sink);

  /* Release `impl`; called once by delta_storage_free. May be NULL. */
  void (*free)(void *impl);

  /* (version 2) Remove directory `dir_key` if it is empty: 0 when removed or
   * already missing; DELTA_EEXISTS when it holds anything (hidden files
   * included), leaving it as it was; DELTA_EINVAL when it is a file. Never
   * called for the root (""). Must never remove anything but an empty
   * directory, even when a file appears in it concurrently (rmdir(2) is
   * that). NULL for stores without directories (object stores, where a
   * "directory" goes with its last file): callers get DELTA_EUNSUPPORTED
   * and treat it as nothing to do. */
  int (*remove_dir)(void *impl, const char *dir_key);

  /* (version 3) Streaming upload: write file `key` in pieces as they are
   * produced (a data file as it is encoded, a checkpoint part), so that a
   * large file is never staged whole in memory. Overwrite semantics (data
   * files and checkpoints have names no one else writes); never used for
   * commits, which go through put-if-absent.
   *   upload_open: start; sets *upload to the back end's state.
   *   upload_write: append `len` bytes (any size; the back end buffers to
   *     its part size: S3 multipart, Azure block list, GCS resumable).
   *   upload_finish: make the file visible whole and durable; frees the
   *     state whatever the result (on failure nothing is visible).
   *   upload_abort: give up; nothing stays visible (an object store's
   *     multipart upload is aborted); frees the state. Never fails.
   * No reader sees the file before upload_finish returns 0. All four are
   * NULL when the back end has no streaming upload: the library then buffers
   * the file and calls put (overwrite = true) once. */
  int (*upload_open)(void *impl, const char *key, void **upload);
  int (*upload_write)(void *impl, void *upload, const void *data, size_t len);
  int (*upload_finish)(void *impl, void *upload);
  void (*upload_abort)(void *impl, void *upload);
} delta_storage_vtable;

/*
 * Open the back end for `location`:
 *   - s3://bucket/prefix or s3a://bucket/prefix: the S3 back end (the prefix
 *     is percent-decoded), configured from the environment and the AWS
 *     profile files as delta_storage_open_options describes;
 *   - az://container/prefix, azure://container/prefix or
 *     abfs[s]://container@account.dfs.core.windows.net/prefix: the Azure
 *     Blob back end (ADLS Gen2 through its blob endpoint, or Azurite),
 *     configured from the AZURE_* environment; or
 *   - gs://bucket/prefix: the Google Cloud Storage back end (JSON API; the
 *     prefix is percent-decoded), credentials from the options or the
 *     environment (GOOGLE_APPLICATION_CREDENTIALS, ...); or
 *   - the local filesystem back end at `location`, which is either
 *   - a plain path, absolute or relative (resolved against the current
 *     directory now, so later chdir() calls do not move the table), or
 *   - a file URI: file:///abs/path, file:/abs/path or file://localhost/abs/path,
 *     percent-decoded ("file:///tmp/my%20table" is "/tmp/my table").
 * A trailing '/' is ignored. The directory need not exist yet (put creates
 * it), but if something exists there it must be a directory (DELTA_EINVAL).
 * Other schemes (hdfs://, ...) give DELTA_EUNSUPPORTED naming
 * the scheme; file URIs naming another host, or with a query or fragment,
 * give DELTA_EUNSUPPORTED / DELTA_EINVAL. Opening reads nothing and writes
 * nothing. `*out` belongs to the caller (delta_storage_free).
 */
int delta_storage_open(delta_storage **out, const char *location);

/*
 * delta_storage_open with storage options: `n` key/value pairs named as
 * delta-rs and object_store name them, keys matched case-insensitively:
 *   aws_access_key_id, aws_secret_access_key, aws_session_token, aws_region,
 *   aws_endpoint_url (alias aws_endpoint), aws_allow_http (alias allow_http),
 *   aws_virtual_hosted_style_request, aws_profile, timeout, connect_timeout,
 *   retry_timeout (durations: "30s", "500ms", "2m"; a bare number is
 *   seconds), max_retries, user_agent, proxy_url, aws_conditional_put
 *   ("etag" or "none"), aws_s3_allow_unsafe_rename, aws_role_arn,
 *   aws_web_identity_token_file, aws_role_session_name, aws_sts_endpoint;
 *   azure_storage_account_name, azure_storage_account_key,
 *   azure_storage_sas_token, azure_storage_token, azure_client_id,
 *   azure_client_secret, azure_tenant_id, azure_authority_host,
 *   azure_storage_use_emulator, azure_storage_endpoint (allow_http and the
 *   timeouts above apply too);
 *   google_service_account (aliases google_service_account_path,
 *   google_application_credentials: a key file's path),
 *   google_service_account_key (the key's JSON), google_bearer_token,
 *   google_endpoint_url.
 * An unknown key or a malformed value is DELTA_EINVAL naming the key (never
 * the value). What the options leave out comes from the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
 * AWS_DEFAULT_REGION, AWS_ENDPOINT_URL, AWS_ALLOW_HTTP, AWS_PROFILE, and
 * AWS_ + any other option's name without "aws_"), a web identity
 * (AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE, exchanged at STS), then
 * from the profile in ~/.aws/credentials and ~/.aws/config; for Azure from
 * AZURE_STORAGE_ACCOUNT_NAME, AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN,
 * AZURE_STORAGE_TOKEN, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, AZURE_TENANT_ID,
 * AZURE_STORAGE_USE_EMULATOR, AZURE_STORAGE_ENDPOINT; for gs://
 * GOOGLE_SERVICE_ACCOUNT_KEY, GOOGLE_SERVICE_ACCOUNT(_PATH),
 * GOOGLE_APPLICATION_CREDENTIALS, GOOGLE_CLOUD_STORAGE_ENDPOINT and
 * STORAGE_EMULATOR_HOST. The local back
 * end accepts the options and has no use for them. docs/storage.md has the
 * details.
 */
int delta_storage_open_options(delta_storage **out, const char *location, const char *const *keys,
                               const char *const *values, size_t n);

/*
 * Wrap a custom back end. `vt` is copied (it may be a temporary), must have
 * version 1..DELTA_STORAGE_VTABLE_VERSION and the required members, else
 * DELTA_EINVAL. `location` is the root as a URI ("s3://bucket/tables/t"),
 * used in messages and to recognise absolute `add.path` values that point
 * inside the table; NULL if there is none. On success the handle owns `impl`
 * and calls vt->free(impl) when freed; on failure the caller still owns it.
 */
int delta_storage_new(delta_storage **out, const delta_storage_vtable *vt, void *impl,
                      const char *location);

/* Release the handle (and its impl). NULL is a no-op. */
void delta_storage_free(delta_storage *storage);

/* The root as a canonical URI, e.g. "file:///tmp/my%20table" for
 * delta_storage_open("/tmp/my table"), or "" when the back end gave none.
 * Borrowed: valid as long as the handle. */
const char *delta_storage_location(const delta_storage *storage);

/* The operations, checked and dispatched to the back end. Keys are validated
 * here (DELTA_EINVAL) before the back end sees them. Library code uses the
 * delta_buf variants of read/read_range/local_path (internal); these sink
 * forms are for embedders. */
int delta_storage_list(delta_storage *storage, const char *dir_key, const char *start_after,
                       delta_storage_list_cb cb, void *payload);
int delta_storage_read_into(delta_storage *storage, const char *key, uint64_t offset,
                            uint64_t len, delta_storage_sink *sink);
int delta_storage_head(delta_storage *storage, const char *key, delta_file_info *out);
int delta_storage_put(delta_storage *storage, const char *key, const void *data, size_t len,
                      bool overwrite);
int delta_storage_delete(delta_storage *storage, const char *key);
int delta_storage_remove_dir(delta_storage *storage, const char *dir_key);
int delta_storage_local_path_into(delta_storage *storage, const char *key,
                                  delta_storage_sink *sink);

/* Requests a handle has sent, per kind, since it was opened: what a table
 * operation cost on an object store. On an object store every HTTP request
 * counts (each retry and each page of a listing); `bytes` is the body
 * received (get, list) or sent (put, upload parts). The local back end and
 * embedders' back ends count one request per operation. Counted with
 * atomics: reading the stats while other threads work is fine (each field is
 * exact; the set is not one instant's snapshot). */
typedef struct {
  uint64_t requests, bytes;
} delta_storage_count;

typedef struct {
  delta_storage_count list, get, head, put, del; /* get = reads; del = deletes */
  uint64_t retries;                              /* requests sent again (included above) */
} delta_storage_stats;

/* The handle's counts so far (all zero for NULL). */
void delta_storage_stats_get(const delta_storage *storage, delta_storage_stats *out);

/* A streaming upload (the vtable's upload_* members, or a buffered put when
 * the back end has none). Open, write any number of times, then exactly one
 * of finish (the file appears whole) or abort (nothing appears); both free
 * the handle. A failed write leaves the handle to be aborted. */
typedef struct delta_storage_upload delta_storage_upload;
int delta_storage_upload_open(delta_storage *storage, const char *key, delta_storage_upload **out);
int delta_storage_upload_write(delta_storage_upload *up, const void *data, size_t len);
int delta_storage_upload_finish(delta_storage_upload *up);
void delta_storage_upload_abort(delta_storage_upload *up);

#ifdef __cplusplus
}
#endif

#endif /* DELTAC_STORAGE_H */
