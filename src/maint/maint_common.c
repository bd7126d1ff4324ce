/* Shared maintenance pieces; see maint_internal.h. */
#include "maint/maint_internal.h"

#include <string.h>

#include "dv/dv.h"
#include "storage/path.h"

static int terminate(delta_buf *out, int rc, delta_path_kind kind) {
  if (rc) return rc;
  if ((rc = buf_putc(out, 0)) != 0) return rc;
  out->len--;
  return kind == DELTA_PATH_KEY ? 0 : 1;
}

int maint_path_key(const delta_snapshot *s, const char *path, delta_buf *out) {
  delta_path_kind kind = DELTA_PATH_KEY;
  out->len = 0;
  int rc = storage_path_resolve(&kind, out, path, strlen(path), delta_storage_location(s->table->storage));
  return terminate(out, rc, kind);
}

int maint_dv_key(const delta_snapshot *s, const delta_dv *dv, delta_buf *out) {
  out->len = 0;
  if (!dv->present || dv->storage_type == 'i') return 1;
  delta_path_kind kind = DELTA_PATH_KEY;
  int rc = dv_file_key(dv, delta_storage_location(s->table->storage), &kind, out);
  return terminate(out, rc, kind);
}

int maint_line_end(delta_buf *b, int rc, delta_json_writer *w) {
  if (rc) return rc;
  if ((rc = json_writer_finish(w)) != 0) return rc;
  return buf_putc(b, '\n');
}
