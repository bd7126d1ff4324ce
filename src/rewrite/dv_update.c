/* New deletion vectors and the add/remove lines of a rewrite; see dv_update.h. */
#include "rewrite/dv_update.h"

#include <string.h>
#include <strings.h>

#include "json/json_writer.h"
#include "log/snapshot.h"
#include "util/error_internal.h"
#include "log/action_write.h"
#include "log/table_setup.h"

bool rewrite_dv_enabled(const delta_snapshot *s) {
  if (!table_prop_true(s->metadata.configuration, s->metadata.n_configuration, "delta.enableDeletionVectors"))
    return false;
  for (int i = 0; i < s->protocol.n_writer_features; i++)
    if (strcmp(s->protocol.writer_features[i], "deletionVectors") == 0) return true;
  return false;
}

bool rewrite_dv_inline(const delta_snapshot *s) {
  const char *v = NULL;
  for (int i = 0; i < s->metadata.n_configuration; i++)
    if (strcmp(s->metadata.configuration[i].key, REWRITE_DV_INLINE_PROPERTY) == 0)
      v = s->metadata.configuration[i].value;
  return !v || strcasecmp(v, "false") != 0;
}

int rewrite_stats_loose(const char *stats, delta_buf *out) {
  if (!stats) return 0;
  int rc;
  const char *tb = strstr(stats, "\"tightBounds\":");
  if (tb) {
    const char *v = tb + strlen("\"tightBounds\":");
    size_t skip = strncmp(v, "true", 4) == 0 ? 4 : strncmp(v, "false", 5) == 0 ? 5 : 0;
    if ((rc = buf_append(out, stats, (size_t)(v - stats))) != 0) return rc;
    if ((rc = buf_puts(out, "false")) != 0) return rc;
    if ((rc = buf_puts(out, v + skip)) != 0) return rc;
  } else {
    const char *brace = strchr(stats, '{');
    if (!brace) return 0;
    if ((rc = buf_append(out, stats, (size_t)(brace + 1 - stats))) != 0) return rc;
    if ((rc = buf_puts(out, "\"tightBounds\":false")) != 0) return rc;
    const char *rest = brace + 1;
    while (*rest == ' ') rest++;
    if (*rest != '}' && (rc = buf_putc(out, ',')) != 0) return rc;
    if ((rc = buf_puts(out, rest)) != 0) return rc;
  }
  /* NUL-terminated for use as a C string, the NUL not counted */
  if ((rc = buf_putc(out, 0)) != 0) return rc;
  out->len--;
  return 0;
}

/* One action as a line of `actions`. */
static int action_line(delta_buf *actions, delta_json_writer *w, int rc) {
  if (rc != 0) return rc;
  if ((rc = json_writer_finish(w)) != 0) return rc;
  return buf_putc(actions, '\n');
}

int rewrite_remove_action(delta_buf *actions, const delta_add *a, int64_t now) {
  delta_json_writer w;
  json_writer_init(&w, actions, 0);
  return action_line(actions, &w, action_remove_of_add_json(&w, a, now, true));
}

static int add_row(uint64_t row, void *b) { return dv_bitmap64_add(b, row); }

int rewrite_add_with_dv(const delta_add *a, const delta_dv_bitmap *old, delta_bitmap64 *fresh, bool inline_ok,
                        delta_buf *dv_file, delta_buf *dv_path, int64_t now, delta_buf *actions) {
  /* the new DV: the old one's rows and the fresh ones */
  int rc;
  if (old && (rc = dv_bitmap64_iterate(old, add_row, fresh)) != 0) return rc;
  dv_bitmap64_optimize(fresh);
  delta_add na = *a;
  memset(&na.dv, 0, sizeof na.dv);
  na.dv.present = true;
  delta_buf stats = DELTA_BUF_INIT, inline_dv = DELTA_BUF_INIT;
  /* A few deleted rows fit in the log itself (storageType 'i'): no DV file
   * to write, read or vacuum. Bigger bitmaps go to the commit's DV file. */
  int32_t size;
  int64_t card;
  if ((rc = dv_encode_inline(fresh, &inline_dv, &size, &card)) != 0) goto done;
  if (inline_ok && size <= REWRITE_INLINE_DV_MAX_BYTES) {
    if ((rc = buf_putc(&inline_dv, 0)) != 0) goto done;
    na.dv.storage_type = 'i';
    na.dv.size_in_bytes = size;
    na.dv.cardinality = card;
    na.dv.path_or_inline = (const char *)inline_dv.data;
  } else {
    na.dv.storage_type = 'u';
    na.dv.has_offset = true;
    na.dv.cardinality = (int64_t)dv_bitmap64_cardinality(fresh);
    if ((rc = dv_file_append(dv_file, fresh, &na.dv.offset, &na.dv.size_in_bytes)) != 0) goto done;
    if ((rc = buf_putc(dv_path, 0)) != 0) goto done;
    dv_path->len--;
    na.dv.path_or_inline = (const char *)dv_path->data;
  }
  if ((rc = rewrite_stats_loose(a->stats, &stats)) != 0) goto done;
  na.stats = stats.len ? (const char *)stats.data : NULL;
  na.modification_time = now;
  na.data_change = true;
  delta_json_writer w;
  json_writer_init(&w, actions, 0);
  rc = action_line(actions, &w, action_add_json(&w, &na, true));
done:
  buf_dispose(&stats);
  buf_dispose(&inline_dv);
  return rc;
}

int rewrite_dv_file_put(delta_storage *storage, const delta_buf *dv_path, const delta_buf *dv_file) {
  if (!dv_file->len) return 0;
  delta_dv dv = {0};
  dv.present = true;
  dv.storage_type = 'u';
  dv.path_or_inline = (const char *)dv_path->data;
  delta_path_kind kind;
  delta_buf key = DELTA_BUF_INIT;
  int rc;
  if ((rc = dv_file_key(&dv, delta_storage_location(storage), &kind, &key)) != 0) goto done;
  if ((rc = buf_putc(&key, 0)) != 0) goto done;
  rc = delta_storage_put(storage, (const char *)key.data, dv_file->data, dv_file->len, false);
done:
  buf_dispose(&key);
  return rc;
}
