/* deltac serve: Delta Sharing pieces shared by the query and changes
 * responses. */
#ifndef DELTAC_SERVE_SHARING_H
#define DELTAC_SERVE_SHARING_H

#include <sys/types.h>

#include "json/json_writer.h"
#include "log/actions.h"
#include "log/snapshot.h"
#include "serve/serve.h"

typedef struct {
  const serve_config *cfg;
  serve_table *table;
  const char *base;       /* e.g. "http://127.0.0.1:8080" */
  int64_t expires_ms;     /* of every link in the response */
} sharing_ctx;

/* {"errorCode":"...","message":"..."} with the protocol's code for status. */
int sharing_error(serve_request *r, struct MHD_Connection *c, int status, const char *msg);
int sharing_base_url(const serve_config *cfg, struct MHD_Connection *c, delta_buf *out);
void sharing_protocol_line(delta_buf *b);
/* {"metaData":{...,"version"}} in parquet format; with size and numFiles
 * of `counts` when given. */
void sharing_metadata_line(delta_buf *b, const delta_metadata *m, int64_t version, const delta_snapshot *counts);
/* "version", and with `counts` (a snapshot) "size" and "numFiles", as
 * members of the metaData object being written (both response formats). */
void sharing_version_members(delta_json_writer *w, int64_t version, const delta_snapshot *counts);
void sharing_file_id(const char *path, char hex[33]);
void sharing_file_members(delta_json_writer *w, const sharing_ctx *sc, const char *path, int64_t size);
/* A parquet-format data change file line, {"add"|"remove"|"cdf":{url, id,
 * size, expirationTimestamp, partitionValues, [stats,] timestamp, version}}. */
int sharing_change_line(delta_buf *out, const sharing_ctx *sc, const char *kind, const char *path, int64_t size,
                        const delta_kv *pv, int n_pv, const char *stats, int64_t version, int64_t timestamp_ms);
/* DELTA_EUNSUPPORTED: the version has deletion vectors (parquet format). */
int sharing_parquet_dv_error(int64_t version);
/* GET .../changes?startingVersion=&endingVersion= (or the timestamps). */
int sharing_changes(serve_request *r, struct MHD_Connection *c, serve_table *t);

/* A streamed NDJSON body: `produce` appends the next lines to `out` (or
 * sets `finished`); sharing_lines_read hands them to the server. Embed it
 * first in the body's struct. */
typedef struct sharing_lines {
  delta_buf out;
  size_t out_pos;
  bool finished, failed;
  int (*produce)(struct sharing_lines *l);
} sharing_lines;
ssize_t sharing_lines_read(void *ctx, char *buf, size_t max);

/* ---------------------------------------------- responseformat=delta */

/* The format of the answer, from the request's delta-sharing-capabilities
 * header and the table (sharing_delta.c): *delta when the client asks only
 * for delta, or for both and the table needs reader features. A delta
 * answer needs the client to list the table's file-reading features in
 * readerfeatures (DELTA_EUNSUPPORTED otherwise). */
int sharing_format_choose(struct MHD_Connection *c, const delta_snapshot *s, bool *delta);
/* DELTA_EUNSUPPORTED when the table uses column mapping (parquet format). */
int sharing_parquet_check_mapping(const delta_snapshot *s);
/* The response header's value: "responseformat=delta" / "=parquet". */
const char *sharing_format_header(bool delta);
void sharing_delta_protocol_line(delta_buf *b, const delta_protocol *p);
void sharing_delta_metadata_line(delta_buf *b, const delta_metadata *m, int64_t version, const delta_snapshot *counts);
/* {"file":{"id",...,"deltaSingleAction":{"add"|"remove"|"cdc":{...}}}} for
 * an action of the table's log, its path and DV file as signed links. */
int sharing_delta_file_line(delta_buf *b, const sharing_ctx *sc, const delta_action *a, bool with_version,
                            int64_t version, int64_t timestamp_ms);

/* ------------------------------------------------ answers from the log */

typedef enum {
  WALK_DATA_CHANGES, /* query with startingVersion: add/remove with dataChange, metaData */
  WALK_CHANGES       /* changes in delta format: add/remove/cdc */
} sharing_walk_kind;

typedef struct {
  sharing_walk_kind kind;
  bool delta;
  bool historical_metadata; /* WALK_CHANGES: metaData actions too */
  int64_t start, end;       /* versions, both included, checked by the caller against the latest */
} sharing_walk_options;

/* Stream the range's actions commit by commit (sharing_log.c). */
int sharing_walk_reply(serve_request *r, struct MHD_Connection *c, serve_table *t, const delta_snapshot *latest,
                       const sharing_walk_options *o);

#endif
