/* deltac serve: Delta Sharing answers made of a version range's own log
 * actions, commit by commit:
 *
 *   - query with startingVersion (and endingVersion): the data change
 *     files of each version, i.e. its add and remove actions with
 *     dataChange, plus the metaData of versions that changed it. In parquet
 *     format these are `add` / `remove` / `metaData` lines with version and
 *     timestamp (a DV cannot be expressed: the response stops there).
 *   - changes in delta format: every add, remove and cdc action of each
 *     version, wrapped (sharing_delta.c); the client derives the change
 *     rows as a Delta reader does (cdc files when a version has them, else
 *     adds as inserts and removes as deletes, pairs of the same file with
 *     two deletion vectors as their difference).
 *
 * A commit's timestamp is its in-commit timestamp when it has one, else the
 * commit file's time (made increasing). One commit is read and rendered at a time, so memory
 * is bounded by the largest commit, not the range. */
#include <microhttpd.h>
#include <stdio.h>
#include <string.h>

#include "log/action_json.h"
#include "log/snapshot.h"
#include "serve/sharing.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

typedef struct {
  sharing_lines lines;       /* first: the body reader's view */
  serve_table *t;
  sharing_walk_kind kind;
  bool delta, historical_metadata;
  int64_t next, end;         /* versions still to render: [next, end] */
  log_listing listing;
  delta_arena arena;         /* one commit's action strings */
  delta_json_doc *doc, *ci_doc; /* the parser's; commitInfo's */
  delta_buf text;
  sharing_ctx sc;
  delta_buf base;
  int64_t version, ts_ms;    /* of the commit being rendered */
  int64_t prev_ms;           /* file time of the previous commit, made increasing */
} walk_body;

/* A commit's file time, made strictly increasing from the oldest commit on
 * as the change data feed reader does (deltac changes gives the same
 * _commit_timestamp). */
static int64_t file_time_ms(walk_body *b, const log_entry *e) {
  int64_t ms = e->mtime_ms;
  if (b->prev_ms != INT64_MIN && ms <= b->prev_ms) ms = b->prev_ms + 1;
  return b->prev_ms = ms;
}

static void walk_free(void *ctx) {
  walk_body *b = ctx;
  log_listing_dispose(&b->listing);
  log_arena_dispose(&b->arena);
  json_doc_free(b->doc);
  json_doc_free(b->ci_doc);
  buf_dispose(&b->text);
  buf_dispose(&b->base);
  buf_dispose(&b->lines.out);
  mem_free(b);
}

static int on_action(const delta_action *a, void *payload) {
  walk_body *b = payload;
  bool cdf = b->kind == WALK_CHANGES;
  switch (a->kind) {
  case DELTA_ACTION_COMMIT_INFO: {
    /* An in-commit timestamp is the commit's time; it comes first, before
     * any file action (otherwise the file time stands). */
    const char *ci = a->u.commit_info;
    int64_t ict;
    if (ci && json_parse(b->ci_doc, ci, strlen(ci)) == 0) {
      delta_json_val ts = json_get(json_root(b->ci_doc), "inCommitTimestamp");
      if (json_typeof(ts) == DELTA_JSON_NUMBER && json_int64(ts, &ict) == 0) b->ts_ms = ict;
    }
    return 0;
  }
  case DELTA_ACTION_METADATA:
    if (!cdf || b->historical_metadata) {
      if (b->delta) sharing_delta_metadata_line(&b->lines.out, &a->u.metadata, b->version, NULL);
      else sharing_metadata_line(&b->lines.out, &a->u.metadata, b->version, NULL);
    }
    return 0;
  case DELTA_ACTION_ADD:
  case DELTA_ACTION_REMOVE: {
    bool add = a->kind == DELTA_ACTION_ADD;
    if (!(add ? a->u.add.data_change : a->u.remove.data_change)) return 0;
    if (b->delta) return sharing_delta_file_line(&b->lines.out, &b->sc, a, true, b->version, b->ts_ms);
    if ((add ? &a->u.add.dv : &a->u.remove.dv)->present) return sharing_parquet_dv_error(b->version);
    const delta_add *ad = &a->u.add;
    const delta_remove *r = &a->u.remove;
    return add ? sharing_change_line(&b->lines.out, &b->sc, "add", ad->path, ad->size, ad->partition_values,
                                     ad->n_partition_values, ad->stats, b->version, b->ts_ms)
               : sharing_change_line(&b->lines.out, &b->sc, "remove", r->path, r->has_size ? r->size : 0,
                                     r->partition_values, r->n_partition_values, NULL, b->version, b->ts_ms);
  }
  case DELTA_ACTION_CDC:
    return cdf && b->delta ? sharing_delta_file_line(&b->lines.out, &b->sc, a, true, b->version, b->ts_ms) : 0;
  default:
    return 0;
  }
}

/* Render the next commit of the range into lines.out. */
static int produce(sharing_lines *l) {
  walk_body *b = (walk_body *)l;
  if (b->next > b->end) {
    l->finished = true;
    return 0;
  }
  b->version = b->next++;
  log_arena_dispose(&b->arena);
  const log_entry *e = log_find_commit(&b->listing, b->version);
  if (!e) return err_set(DELTA_ENOTFOUND, "the log has no commit file for version %lld", (long long)b->version);
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%s", e->name);
  b->text.len = 0;
  b->ts_ms = file_time_ms(b, e);
  int rc = storage_read_all(b->t->table->storage, key, &b->text);
  if (!rc)
    rc = log_actions_parse_json(e->name, (const char *)b->text.data, b->text.len, &b->arena, b->doc, on_action, b);
  return rc;
}

int sharing_walk_reply(serve_request *r, struct MHD_Connection *c, serve_table *t, const delta_snapshot *latest,
                       const sharing_walk_options *o) {
  walk_body *b = mem_calloc(1, sizeof *b);
  if (!b) return sharing_error(r, c, 500, "out of memory");
  b->lines.produce = produce;
  b->t = t;
  b->kind = o->kind;
  b->delta = o->delta;
  b->historical_metadata = o->historical_metadata;
  b->next = o->start;
  b->end = o->end;
  b->sc.cfg = r->srv->cfg;
  b->sc.table = t;
  b->sc.expires_ms = serve_wall_ms() + r->srv->cfg->url_expiry_s * 1000;
  int rc;
  if ((rc = sharing_base_url(r->srv->cfg, c, &b->base)) != 0) goto fail;
  if ((rc = buf_putc(&b->base, 0)) != 0) goto fail;
  b->sc.base = (const char *)b->base.data;
  if ((rc = json_doc_new(&b->doc)) != 0) goto fail;
  if ((rc = json_doc_new(&b->ci_doc)) != 0) goto fail;
  if ((rc = log_list(t->table->storage, &b->listing)) != 0) goto fail;
  if (o->start < b->listing.earliest_commit) {
    rc = err_set(DELTA_EINVAL, "version %lld is no longer in the log (the oldest commit is %lld)",
                 (long long)o->start, (long long)b->listing.earliest_commit);
    goto fail;
  }
  b->prev_ms = INT64_MIN;
  for (int64_t v = b->listing.earliest_commit; v >= 0 && v < o->start; v++) {
    const log_entry *e = log_find_commit(&b->listing, v);
    if (e) file_time_ms(b, e);
  }
  if (b->delta) {
    sharing_delta_protocol_line(&b->lines.out, &latest->protocol);
    sharing_delta_metadata_line(&b->lines.out, &latest->metadata, latest->version, NULL);
  } else {
    sharing_protocol_line(&b->lines.out);
    sharing_metadata_line(&b->lines.out, &latest->metadata, latest->version, NULL);
  }
  /* The first commit now, so that an error in it is a status. */
  if ((rc = produce(&b->lines)) != 0) goto fail;
  char v[24];
  snprintf(v, sizeof v, "%lld", (long long)o->start);
  const char *const h[] = {"Delta-Table-Version", v, "delta-sharing-capabilities", sharing_format_header(o->delta),
                           NULL};
  return serve_reply_stream(r, c, 200, "application/x-ndjson; charset=utf-8", sharing_lines_read, b, walk_free, h);
fail:
  walk_free(b);
  return sharing_error(r, c, serve_status_for(rc), delta_error_last());
}
