/* Listing _delta_log and choosing the files of a version. */
#include "log/segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

typedef struct {
  delta_buf entries;
} list_ctx;

static int on_entry(const delta_storage_entry *e, void *payload) {
  list_ctx *c = payload;
  if (e->is_dir) return 0;
  log_file_name info = log_file_parse(e->name);
  if (info.kind == LOG_OTHER) return 0;
  log_entry le = {mem_strndup(e->name, e->name_len), info, e->mtime_ms, e->size};
  if (!le.name) return DELTA_NOMEM();
  int rc = buf_append(&c->entries, &le, sizeof le);
  if (rc) mem_free(le.name);
  return rc;
}

void log_listing_dispose(log_listing *l) {
  for (int i = 0; i < l->n; i++) mem_free(l->entries[i].name);
  mem_free(l->entries);
  memset(l, 0, sizeof *l);
}

/* latest and earliest_commit from the entries; DELTA_ENOTFOUND when the
 * listing holds no commit or checkpoint. */
static int listing_summarize(delta_storage *s, log_listing *out) {
  out->latest = out->earliest_commit = -1;
  for (int i = 0; i < out->n; i++) {
    const log_file_name *f = &out->entries[i].info;
    if (f->kind == LOG_COMMIT) {
      if (out->earliest_commit < 0 || f->version < out->earliest_commit) out->earliest_commit = f->version;
      if (f->version > out->latest) out->latest = f->version;
    } else if ((f->kind == LOG_CHECKPOINT || f->kind == LOG_CHECKPOINT_PART || f->kind == LOG_CHECKPOINT_V2_JSON ||
                f->kind == LOG_CHECKPOINT_V2_PARQUET) && f->version > out->latest) {
      out->latest = f->version;
    }
  }
  if (out->latest < 0) {
    log_listing_dispose(out);
    return err_set(DELTA_ENOTFOUND, "not a Delta table: %s/_delta_log holds no commits",
                           delta_storage_location(s));
  }
  return 0;
}

static int list_after(delta_storage *s, const char *start_after, list_ctx *c) {
  int rc = delta_storage_list(s, "_delta_log", start_after, on_entry, c);
  if (rc) {
    log_entry *e = (log_entry *)(void *)c->entries.data;
    size_t n = c->entries.len / sizeof(log_entry);
    for (size_t i = 0; i < n; i++) mem_free(e[i].name);
    buf_dispose(&c->entries);
    if (rc == DELTA_ENOTFOUND)
      return err_set(DELTA_ENOTFOUND, "not a Delta table: %s has no _delta_log directory",
                             delta_storage_location(s));
  }
  return rc;
}

static void listing_take(log_listing *out, list_ctx *c) {
  out->entries = (log_entry *)(void *)c->entries.data;
  out->n = (int)(c->entries.len / sizeof(log_entry));
}

int log_list_from(delta_storage *s, int64_t from_version, log_listing *out) {
  memset(out, 0, sizeof *out);
  list_ctx c = {DELTA_BUF_INIT};
  /* Every name of version v starts with its 20 digits, so the bare digits
   * of v sort just before them. */
  char start[32] = "";
  if (from_version > 0) snprintf(start, sizeof start, "%020lld", (long long)from_version);
  int rc = list_after(s, from_version > 0 ? start : NULL, &c);
  if (rc) return rc;
  listing_take(out, &c);
  out->listed_from = from_version > 0 ? from_version : 0;
  return listing_summarize(s, out);
}

int log_list(delta_storage *s, log_listing *out) { return log_list_from(s, 0, out); }

int log_list_refresh(delta_storage *s, const log_listing *old, log_listing *out) {
  memset(out, 0, sizeof *out);
  if (old->n == 0) return log_list_from(s, old->listed_from, out);
  const char *last = old->entries[old->n - 1].name;
  char key[300];
  snprintf(key, sizeof key, "_delta_log/%s", last);
  delta_file_info st;
  int rc = delta_storage_head(s, key, &st);
  if (rc == DELTA_ENOTFOUND) {
    delta_error_clear();
    return log_list_from(s, 0, out); /* recreated or cleaned up: start over */
  }
  if (rc) return rc;
  list_ctx c = {DELTA_BUF_INIT};
  if ((rc = buf_reserve(&c.entries, (size_t)old->n * sizeof(log_entry))) != 0) goto fail;
  for (int i = 0; i < old->n; i++) {
    log_entry le = old->entries[i];
    if (!(le.name = mem_strdup(le.name))) {
      rc = DELTA_NOMEM();
      goto fail;
    }
    buf_append(&c.entries, &le, sizeof le); /* reserved above: cannot fail */
  }
  rc = list_after(s, last, &c); /* frees the copies when it fails */
  if (rc) return rc;
  listing_take(out, &c);
  out->listed_from = old->listed_from;
  return listing_summarize(s, out);
fail: /* the copies made so far go with the listing */
  listing_take(out, &c);
  log_listing_dispose(out);
  return rc;
}

const log_entry *log_find_commit(const log_listing *l, int64_t version) {
  /* Entries are in name order, and commit names sort by version. */
  int lo = 0, hi = l->n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const log_entry *e = &l->entries[mid];
    if (e->info.version < version) lo = mid + 1;
    else if (e->info.version > version) hi = mid - 1;
    else {
      /* Several files share a version; look around mid for the commit. */
      for (int i = mid; i >= 0 && l->entries[i].info.version == version; i--)
        if (l->entries[i].info.kind == LOG_COMMIT) return &l->entries[i];
      for (int i = mid + 1; i < l->n && l->entries[i].info.version == version; i++)
        if (l->entries[i].info.kind == LOG_COMMIT) return &l->entries[i];
      return NULL;
    }
  }
  return NULL;
}

/* Pick the usable checkpoint files at exactly `v`, preferring a classic
 * single file, then a V2 UUID-named one, then a complete multi-part set. */
static bool checkpoint_at(const log_listing *l, int64_t v, log_segment *seg) {
  const log_entry *classic = NULL, *v2 = NULL;
  int first = -1;
  for (int i = 0; i < l->n; i++) {
    const log_entry *e = &l->entries[i];
    if (e->info.version != v) continue;
    if (first < 0) first = i;
    if (e->info.kind == LOG_CHECKPOINT && !classic) classic = e;
    if ((e->info.kind == LOG_CHECKPOINT_V2_JSON || e->info.kind == LOG_CHECKPOINT_V2_PARQUET) && !v2) v2 = e;
  }
  if (classic || v2) {
    seg->cp_files[0] = classic ? classic : v2;
    seg->cp_kind = seg->cp_files[0]->info.kind;
    seg->n_cp = 1;
    return true;
  }
  /* Multi-part: a set of `parts` files is usable only when every part is there. */
  for (int i = first; i >= 0 && i < l->n && l->entries[i].info.version == v; i++) {
    const log_entry *e = &l->entries[i];
    if (e->info.kind != LOG_CHECKPOINT_PART || e->info.parts > 64) continue;
    int parts = e->info.parts;
    const log_entry *found[64] = {0};
    for (int j = first; j < l->n && l->entries[j].info.version == v; j++) {
      const log_entry *p = &l->entries[j];
      if (p->info.kind == LOG_CHECKPOINT_PART && p->info.parts == parts) found[p->info.part - 1] = p;
    }
    int k = 0;
    while (k < parts && found[k]) k++;
    if (k == parts) {
      memcpy(seg->cp_files, found, sizeof(found[0]) * (size_t)parts);
      seg->n_cp = parts;
      seg->cp_kind = LOG_CHECKPOINT_PART;
      return true;
    }
  }
  return false;
}

int log_segment_build(const log_listing *l, int64_t version, int64_t max_cp, log_segment *seg) {
  memset(seg, 0, sizeof *seg);
  seg->version = version;
  seg->cp_version = -1;
  if (version < 0) return err_set(DELTA_EINVAL, "version %lld does not exist", (long long)version);
  if (version > l->latest)
    return err_set(DELTA_ENOTFOUND, "version %lld does not exist: the latest version is %lld",
                           (long long)version, (long long)l->latest);
  /* Newest usable checkpoint at or below the version. */
  int64_t best = -1;
  for (int i = l->n - 1; i >= 0; i--) {
    const log_entry *e = &l->entries[i];
    log_file_kind k = e->info.kind;
    if (k != LOG_CHECKPOINT && k != LOG_CHECKPOINT_PART && k != LOG_CHECKPOINT_V2_JSON &&
        k != LOG_CHECKPOINT_V2_PARQUET)
      continue;
    int64_t v = e->info.version;
    if (v > version || v > max_cp || v <= best) continue;
    log_segment tmp;
    memset(&tmp, 0, sizeof tmp);
    if (checkpoint_at(l, v, &tmp)) {
      best = v;
      memcpy(seg->cp_files, tmp.cp_files, sizeof tmp.cp_files);
      seg->n_cp = tmp.n_cp;
      seg->cp_kind = tmp.cp_kind;
    }
  }
  seg->cp_version = best;
  int64_t from = best + 1;
  if (best < 0 && l->earliest_commit > 0)
    return err_set(DELTA_ENOTFOUND,
                           "version %lld cannot be read: the log starts at version %lld and has no checkpoint "
                           "at or before %lld (older commits were cleaned up)",
                           (long long)version, (long long)l->earliest_commit, (long long)version);
  int64_t count = version - best;
  if (count > 0) {
    seg->commits = mem_calloc((size_t)count, sizeof *seg->commits);
    if (!seg->commits) return DELTA_NOMEM();
  }
  for (int64_t v = from; v <= version; v++) {
    const log_entry *e = log_find_commit(l, v);
    if (!e) {
      mem_free(seg->commits);
      seg->commits = NULL;
      return err_set(DELTA_ECORRUPT, "the log has no commit file for version %lld (%020lld.json)",
                             (long long)v, (long long)v);
    }
    seg->commits[seg->n_commits++] = e;
  }
  return 0;
}

void log_segment_dispose(log_segment *seg) {
  mem_free(seg->commits);
  seg->commits = NULL;
  seg->n_commits = 0;
}

int log_segment_use_compactions(const log_listing *l, log_segment *seg) {
  /* The compaction files of the listing (few, if any), gathered once. */
  const log_entry *found[256];
  int nc = 0;
  for (int i = 0; i < l->n && nc < 256; i++)
    if (l->entries[i].info.kind == LOG_COMPACTION && l->entries[i].info.end_version > l->entries[i].info.version)
      found[nc++] = &l->entries[i];
  if (nc == 0 || seg->n_commits < 2) return 0;
  int used = 0, w = 0;
  for (int i = 0; i < seg->n_commits;) {
    int64_t v = seg->commits[i]->info.version;
    const log_entry *best = NULL;
    for (int k = 0; k < nc; k++) {
      const log_entry *c = found[k];
      /* commits v..end are consecutive entries of the segment (no gaps) */
      if (c->info.version == v && c->info.end_version < seg->version &&
          c->info.end_version - v < (int64_t)(seg->n_commits - i) &&
          (!best || c->info.end_version > best->info.end_version))
        best = c;
    }
    if (best) {
      seg->commits[w++] = best;
      i += (int)(best->info.end_version - v + 1);
      used++;
    } else {
      seg->commits[w++] = seg->commits[i++];
    }
  }
  seg->n_commits = w;
  return used;
}
