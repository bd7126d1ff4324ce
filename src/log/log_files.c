#include "log/log_files.h"

#include <stdio.h>
#include <string.h>

static bool digits(const char *s, int n, int64_t *out) {
  int64_t v = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (v > (INT64_MAX - (s[i] - '0')) / 10) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

static bool is_uuid(const char *s, size_t n) {
  if (n != 36) return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
      return false;
  }
  return true;
}

log_file_name log_file_parse(const char *name) {
  log_file_name r = {LOG_OTHER, -1, 0, 0, -1};
  size_t n = strlen(name);
  int64_t v;
  if (n < 21 || !digits(name, 20, &v) || name[20] != '.') return r;
  const char *rest = name + 21;
  size_t rn = n - 21;
  if (strcmp(rest, "json") == 0) {
    r.kind = LOG_COMMIT;
  } else if (strcmp(rest, "crc") == 0) {
    r.kind = LOG_CRC;
  } else if (strcmp(rest, "checkpoint.parquet") == 0) {
    r.kind = LOG_CHECKPOINT;
  } else if (rn == 20 + 1 + 14 && digits(rest, 20, &r.end_version) && strcmp(rest + 20, ".compacted.json") == 0) {
    r.kind = r.end_version > v ? LOG_COMPACTION : LOG_OTHER;
  } else if (strncmp(rest, "checkpoint.", 11) == 0) {
    const char *c = rest + 11;
    size_t cn = rn - 11;
    int64_t part, parts;
    if (cn == 10 + 1 + 10 + 8 && digits(c, 10, &part) && c[10] == '.' && digits(c + 11, 10, &parts) &&
        strcmp(c + 21, ".parquet") == 0) {
      if (part >= 1 && parts >= 1 && part <= parts && parts <= INT32_MAX) {
        r.kind = LOG_CHECKPOINT_PART;
        r.part = (int32_t)part;
        r.parts = (int32_t)parts;
      }
    } else if (cn == 36 + 5 && is_uuid(c, 36) && strcmp(c + 36, ".json") == 0) {
      r.kind = LOG_CHECKPOINT_V2_JSON;
    } else if (cn == 36 + 8 && is_uuid(c, 36) && strcmp(c + 36, ".parquet") == 0) {
      r.kind = LOG_CHECKPOINT_V2_PARQUET;
    }
  }
  if (r.kind != LOG_OTHER) r.version = v;
  return r;
}

void log_commit_name(int64_t version, char *buf) { sprintf(buf, "%020lld.json", (long long)version); }
