#include "log/actions.h"

#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>
#include <string.h>

#include "util/error_internal.h"

/* uniqueId per PROTOCOL.md "Deletion Vector Descriptor": the storage type,
 * the path or inline bitmap, and "@offset" only when an offset is present
 * (an inline DV has none; a 'u'/'p' DV without one is keyed without it). */
int log_dv_unique_id(delta_arena *arena, delta_dv *dv) {
  if (!dv->present) {
    dv->unique_id = NULL;
    return 0;
  }
  const char *p = dv->path_or_inline ? dv->path_or_inline : "";
  size_t plen = strlen(p);
  char off[16] = "";
  size_t olen = 0;
  if (dv->has_offset) olen = (size_t)snprintf(off, sizeof off, "@%d", (int)dv->offset);
  char *id = log_arena_alloc(arena, 1 + plen + olen + 1);
  if (!id) return DELTA_NOMEM();
  id[0] = dv->storage_type;
  memcpy(id + 1, p, plen);
  memcpy(id + 1 + plen, off, olen);
  id[1 + plen + olen] = '\0';
  dv->unique_id = id;
  return 0;
}

int64_t log_stats_num_records(const char *s, size_t n) {
  static const char key[] = "\"numRecords\"";
  const char *end = s + n;
  /* Writers put numRecords first; a key inside a nested object would be
   * "minValues":{"numRecords"...}: only a top-level one (depth 1) counts. */
  int depth = 0;
  bool in_str = false;
  for (const char *p = s; p < end; p++) {
    char c = *p;
    if (in_str) {
      if (c == '\\') p++;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '{' || c == '[') depth++;
    else if (c == '}' || c == ']') depth--;
    else if (c == '"') {
      if (depth == 1 && (size_t)(end - p) >= sizeof key - 1 && memcmp(p, key, sizeof key - 1) == 0) {
        const char *q = p + sizeof key - 1;
        while (q < end && (*q == ' ' || *q == ':')) q++;
        int64_t v = 0;
        const char *digits = q;
        while (q < end && *q >= '0' && *q <= '9' && v <= (INT64_MAX - 9) / 10) v = v * 10 + (*q++ - '0');
        return q > digits ? v : -1;
      }
      in_str = true;
    }
  }
  return -1;
}

int log_kv_write_json(delta_json_writer *w, const delta_kv *kv, int n) {
  json_write_object_begin(w);
  for (int i = 0; i < n; i++) {
    json_write_key(w, kv[i].key);
    kv[i].value ? json_write_string(w, kv[i].value) : json_write_null(w);
  }
  return json_write_object_end(w);
}
