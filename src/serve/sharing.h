/* deltac serve: Delta Sharing pieces shared by the query and changes
 * responses. */
#ifndef DELTAC_SERVE_SHARING_H
#define DELTAC_SERVE_SHARING_H

#include "json/json_writer.h"
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
void sharing_metadata_line(delta_buf *b, const delta_snapshot *s, bool with_counts);
void sharing_file_id(const char *path, char hex[33]);
void sharing_file_members(delta_json_writer *w, const sharing_ctx *sc, const char *path, int64_t size);
/* GET .../changes?startingVersion=&endingVersion= (or the timestamps). */
int sharing_changes(serve_request *r, struct MHD_Connection *c, serve_table *t);

#endif
