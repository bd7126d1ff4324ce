#include "log/actions.h"

#include <stdio.h>
#include <string.h>

#include "util/error_internal.h"

/* uniqueId per PROTOCOL.md "Deletion Vector Descriptor": the storage type,
 * the path or inline bitmap, and "@offset" only when an offset is present
 * (an inline DV has none; a 'u'/'p' DV without one is keyed without it). */
int delta_dv_unique_id(delta_arena *arena, delta_dv *dv) {
  if (!dv->present) {
    dv->unique_id = NULL;
    return 0;
  }
  const char *p = dv->path_or_inline ? dv->path_or_inline : "";
  size_t plen = strlen(p);
  char off[16] = "";
  size_t olen = 0;
  if (dv->has_offset) olen = (size_t)snprintf(off, sizeof off, "@%d", (int)dv->offset);
  char *id = delta_arena_alloc(arena, 1 + plen + olen + 1);
  if (!id) return DELTA_NOMEM();
  id[0] = dv->storage_type;
  memcpy(id + 1, p, plen);
  memcpy(id + 1 + plen, off, olen);
  id[1 + plen + olen] = '\0';
  dv->unique_id = id;
  return 0;
}
