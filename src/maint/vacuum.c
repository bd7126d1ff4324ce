/*
 * VACUUM; see include/deltac/maintenance.h. The files still needed are the
 * live files and their DV files plus the files (and DVs) of removes newer
 * than the cutoff: every version committed after the cutoff, and the one in
 * effect at it, reads only those. The table directory is then walked as
 * Spark does (partition directories and _change_data/, never _delta_log or
 * other '_'/'.' names) and every other file last modified before the cutoff
 * is deleted. Files younger than the cutoff are kept whatever they are: a
 * writer may be about to commit them. Directories the deletions empty go
 * last, deepest first, through the storage layer's remove_dir (which never
 * removes a directory that holds anything, so a file put there meanwhile
 * keeps it).
 */
#include "deltac/maintenance.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maint/maint_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "txn/txn.h"
#include "log/table_setup.h"

#define WEEK_MS (7LL * 86400 * 1000)

typedef struct {
  char **v;
  int64_t n, cap;
} str_list;

static int list_add(str_list *l, const char *s, size_t n) {
  if (l->n == l->cap) {
    int64_t cap = l->cap ? l->cap * 2 : 256;
    char **nv = mem_realloc(l->v, (size_t)cap * sizeof *nv);
    if (!nv) return DELTA_NOMEM();
    l->v = nv;
    l->cap = cap;
  }
  char *c = mem_malloc(n + 1);
  if (!c) return DELTA_NOMEM();
  memcpy(c, s, n);
  c[n] = 0;
  l->v[l->n++] = c;
  return 0;
}

static void list_free(str_list *l) {
  for (int64_t i = 0; i < l->n; i++) mem_free(l->v[i]);
  mem_free(l->v);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool list_has(const str_list *l, const char *key) {
  return bsearch(&key, l->v, (size_t)l->n, sizeof *l->v, cmp_str) != NULL;
}

/* The keys of a file's path and of its DV file, when inside the table. */
static int keep_file(const delta_snapshot *s, const char *path, const delta_dv *dv, str_list *keep, delta_buf *tmp) {
  /* the key functions return 1 for a file outside the table: no key */
  int rc;
  if ((rc = maint_path_key(s, path, tmp)) < 0) return rc;
  if (rc == 0 && (rc = list_add(keep, (const char *)tmp->data, tmp->len)) < 0) return rc;
  if ((rc = maint_dv_key(s, dv, tmp)) < 0) return rc;
  if (rc == 0 && (rc = list_add(keep, (const char *)tmp->data, tmp->len)) < 0) return rc;
  return 0;
}

typedef struct {
  str_list names;              /* entries of one directory: 'd' or 'f' + name */
  int64_t *mtime, *size;
  int64_t cap;
} dir_listing;

static int on_entry(const delta_storage_entry *e, void *payload) {
  dir_listing *d = payload;
  if (d->names.n == d->cap) {
    int64_t cap = d->cap ? d->cap * 2 : 64;
    int64_t *m = mem_realloc(d->mtime, (size_t)cap * sizeof *m);
    if (!m) return DELTA_NOMEM();
    d->mtime = m;
    int64_t *z = mem_realloc(d->size, (size_t)cap * sizeof *z);
    if (!z) return DELTA_NOMEM();
    d->size = z;
    d->cap = cap;
  }
  d->mtime[d->names.n] = e->mtime_ms;
  d->size[d->names.n] = (int64_t)e->size;
  char tagged[e->name_len + 2];
  tagged[0] = e->is_dir ? 'd' : 'f';
  memcpy(tagged + 1, e->name, e->name_len + 1);
  return list_add(&d->names, tagged, e->name_len + 1);
}

typedef struct {
  const delta_snapshot *s;
  const str_list *keep;
  int64_t cutoff;
  str_list doomed;
  int64_t *doomed_size;
  int64_t doomed_cap;
  int64_t kept;
  str_list dirs;               /* directories the deletions empty, deepest first */
  int64_t dirs_listed;         /* the root included */
} walk_ctx;

/* Spark's hidden names: '_' or '.' first, except _change_data at the root
 * and partition directories of columns whose names start with '_'. */
static bool hidden(const delta_snapshot *s, const char *name, bool dir, bool root) {
  if (name[0] == '.') return true;
  if (name[0] != '_') return false;
  if (dir && root && strcmp(name, "_change_data") == 0) return false;
  for (int i = 0; dir && i < s->metadata.n_partition_columns; i++) {
    size_t n = strlen(s->metadata.partition_columns[i]);
    if (strncmp(name, s->metadata.partition_columns[i], n) == 0 && name[n] == '=') return false;
  }
  return true;
}

/* Collect the files of `dir` to delete, and the directories below it that
 * the deletions leave empty; *empties: whether `dir` itself will hold
 * nothing (hidden entries count: they stay). */
static int doom(walk_ctx *w, const char *key, size_t len, int64_t size);

static int walk(walk_ctx *w, const char *dir, bool *empties) {
  dir_listing d = {0};
  delta_buf key = DELTA_BUF_INIT;
  int rc = delta_storage_list(w->s->table->storage, dir, NULL, on_entry, &d);
  if (rc == DELTA_ENOTFOUND && !*dir) rc = 0;
  w->dirs_listed++;
  *empties = true;
  if (rc) goto done;
  for (int64_t i = 0; i < d.names.n; i++) {
    const char *name = d.names.v[i] + 1;
    bool is_dir = d.names.v[i][0] == 'd';
    if (hidden(w->s, name, is_dir, !*dir)) {
      *empties = false;
      continue;
    }
    key.len = 0;
    if ((rc = *dir ? buf_printf(&key, "%s/%s", dir, name) : buf_puts(&key, name)) != 0)
      goto done;
    if ((rc = buf_putc(&key, 0)) != 0)
      goto done;
    if (is_dir) {
      bool sub;
      if ((rc = walk(w, (const char *)key.data, &sub)) != 0)
        goto done;
      /* a directory changed within the window may be about to get a file */
      if (sub && d.mtime[i] < w->cutoff) {
        if ((rc = list_add(&w->dirs, (const char *)key.data, key.len - 1)) != 0)
          goto done;
      } else {
        *empties = false;
      }
      continue;
    }
    if (list_has(w->keep, (const char *)key.data) || d.mtime[i] >= w->cutoff) {
      w->kept++;
      *empties = false;
      continue;
    }
    if ((rc = doom(w, (const char *)key.data, key.len - 1, d.size[i])) != 0)
      goto done;
  }
done:
  buf_dispose(&key);
  list_free(&d.names);
  mem_free(d.mtime);
  mem_free(d.size);
  return rc;
}

/* A doomed file of `size` bytes. */
static int doom(walk_ctx *w, const char *key, size_t len, int64_t size) {
  if (w->doomed.n == w->doomed_cap) {
    int64_t cap = w->doomed_cap ? w->doomed_cap * 2 : 64;
    int64_t *z = mem_realloc(w->doomed_size, (size_t)cap * sizeof *z);
    if (!z) return DELTA_NOMEM();
    w->doomed_size = z;
    w->doomed_cap = cap;
  }
  w->doomed_size[w->doomed.n] = size;
  return list_add(&w->doomed, key, len);
}

static int lite_key(void *ctx, const char *key) {
  str_list *l = ctx;
  return list_add(l, key, strlen(key));
}

/* LITE: the files the log's expired removes name (vacuum_lite.c), less
 * the ones still needed, already gone, or changed within the window. */
static int lite_collect(walk_ctx *w, int64_t *first_commit) {
  str_list cand = {0};
  int rc;
  if ((rc = vacuum_lite_keys(w->s, w->cutoff, lite_key, &cand, first_commit)) != 0)
    goto done;
  qsort(cand.v, (size_t)cand.n, sizeof *cand.v, cmp_str);
  for (int64_t i = 0; i < cand.n; i++) {
    if (i > 0 && strcmp(cand.v[i], cand.v[i - 1]) == 0) continue;
    if (list_has(w->keep, cand.v[i])) continue;
    delta_file_info fi;
    rc = delta_storage_head(w->s->table->storage, cand.v[i], &fi);
    if (rc == DELTA_ENOTFOUND) { /* vacuumed before */
      delta_error_clear();
      rc = 0;
      continue;
    }
    if (rc) goto done;
    if (fi.mtime_ms >= w->cutoff) w->kept++;
    else if ((rc = doom(w, cand.v[i], strlen(cand.v[i]), (int64_t)fi.size)) != 0) goto done;
  }
done:
  list_free(&cand);
  return rc;
}

/* A commit holding only commitInfo (VACUUM START / END), after version
 * `after`; its version into *version. */
static int log_commit(const delta_snapshot *s, int64_t after, const char *op, const char *params, const char *metrics,
                      int64_t *version) {
  txn_ctx tx;
  txn_begin(&tx, s->table, s, op);
  tx.req.read_version = after;
  txn_set_info(&tx, params, metrics);
  int rc;
  if ((rc = txn_commit(&tx)) != 0)
    goto done;
  *version = tx.version;
done:
  txn_dispose(&tx);
  return rc;
}

static int log_start(const delta_snapshot *s, const delta_vacuum_options *o, int64_t retain_ms, int64_t table_ms,
                     int64_t files, int64_t bytes, int64_t *version) {
  char params[256], metrics[128];
  snprintf(params, sizeof params,
           "{\"retentionCheckEnabled\":%s,\"defaultRetentionMillis\":%lld%s%lld,\"vacuumType\":\"%s\"}",
           o->force ? "false" : "true", (long long)table_ms,
           o->retain_hours >= 0 ? ",\"specifiedRetentionMillis\":" : ",\"retentionMillis\":", (long long)retain_ms,
           o->version >= 3 && o->lite ? "LITE" : "FULL");
  snprintf(metrics, sizeof metrics, "{\"numFilesToDelete\":\"%lld\",\"sizeOfDataToDelete\":\"%lld\"}",
           (long long)files, (long long)bytes);
  return log_commit(s, s->version, "VACUUM START", params, metrics, version);
}

/* Remove the directories the deletions emptied (or, dry run, report them).
 * One that holds something after all (a file put there meanwhile) stays;
 * a store without directories has none to remove. */
static int remove_dirs(const delta_snapshot *s, const delta_vacuum_options *o, const str_list *dirs, int64_t *removed) {
  delta_buf key = DELTA_BUF_INIT;
  int rc = 0;
  for (int64_t i = 0; i < dirs->n; i++) {
    if (!o->dry_run) {
      rc = delta_storage_remove_dir(s->table->storage, dirs->v[i]);
      if (rc == DELTA_EEXISTS) {
        delta_error_clear();
        rc = 0;
        continue;
      }
      if (rc == DELTA_EUNSUPPORTED) {
        delta_error_clear();
        rc = 0;
        break;
      }
      if (rc) goto done;
    }
    (*removed)++;
    if (o->version >= 2 && o->on_file) {
      key.len = 0;
      if ((rc = buf_printf(&key, "%s/", dirs->v[i])) != 0)
        goto done;
      if ((rc = buf_putc(&key, 0)) != 0)
        goto done;
      if ((rc = o->on_file(o->on_file_ctx, (const char *)key.data, 0)) != 0)
        goto done;
    }
  }
done:
  buf_dispose(&key);
  return rc;
}

int delta_vacuum(delta_table *table, const delta_vacuum_options *o, delta_vacuum_result *result) {
  if (!o || o->version < 1 || o->version > DELTA_VACUUM_OPTIONS_VERSION)
    return err_set(DELTA_EINVAL, "vacuum options: unknown version");
  delta_vacuum_result local;
  if (!result) result = &local;
  /* older callers' results end before the fields their version lacks */
  size_t result_size = o->version >= 3   ? sizeof *result
                       : o->version == 2 ? offsetof(delta_vacuum_result, first_commit)
                                         : offsetof(delta_vacuum_result, dirs_deleted);
  bool lite = o->version >= 3 && o->lite;
  memset(result, 0, result_size);
  int64_t dirs_deleted = 0;
  result->start_version = result->end_version = -1;
  delta_table *t = table; /* the caller's */
  delta_snapshot *s = NULL;
  str_list keep = {0};
  delta_buf tmp = DELTA_BUF_INIT;
  walk_ctx w;
  memset(&w, 0, sizeof w);
  int rc;
  if (!t) {
    rc = err_set(DELTA_EINVAL, "vacuum: NULL table");
    goto done;
  }
  if ((rc = delta_snapshot_open(&s, t, NULL)) != 0)
    goto done;
  int64_t table_ms = table_interval_ms(snapshot_config(s, "delta.deletedFileRetentionDuration"), WEEK_MS);
  int64_t retain_ms = o->retain_hours >= 0 ? (int64_t)(o->retain_hours * 3600000.0) : table_ms;
  if (retain_ms < table_ms && !o->force) {
    rc = err_set(DELTA_EINVAL,
                         "a retention of %g hours is below the table's delta.deletedFileRetentionDuration (%g hours): "
                         "readers and writers of older versions could lose files; --force to do it anyway",
                         (double)retain_ms / 3600000.0, (double)table_ms / 3600000.0);
    goto done;
  }
  result->cutoff_ms = write_now_ms() - retain_ms;
  for (int64_t i = 0; i < s->n_files; i++)
    if ((rc = keep_file(s, s->files[i].path, &s->files[i].dv, &keep, &tmp)) != 0)
      goto done;
  for (int64_t i = 0; i < s->n_tombstones; i++) {
    const delta_remove *r = &s->tombstones[i];
    if (r->has_deletion_timestamp && r->deletion_timestamp > result->cutoff_ms &&
        (rc = keep_file(s, r->path, &r->dv, &keep, &tmp)) != 0)
      goto done;
  }
  qsort(keep.v, (size_t)keep.n, sizeof *keep.v, cmp_str);
  w.s = s;
  w.keep = &keep;
  w.cutoff = result->cutoff_ms;
  bool root_empties;
  if (lite) {
    int64_t first;
    rc = lite_collect(&w, &first);
    result->first_commit = first;
  } else {
    rc = walk(&w, "", &root_empties);
  }
  if (rc) goto done;
  result->files_kept = w.kept;
  delta_progress p = {"delete", 0, w.doomed.n, 0, 0};
  for (int64_t i = 0; i < w.doomed.n; i++) p.bytes_total += w.doomed_size[i];
  bool logged = !o->dry_run && !o->no_log_commits;
  if (logged &&
      (rc = log_start(s, o, retain_ms, table_ms, w.doomed.n + w.dirs.n, p.bytes_total, &result->start_version)) != 0)
    goto done;
  for (int64_t i = 0; i < w.doomed.n; i++) {
    if (!o->dry_run && (rc = delta_storage_delete(t->storage, w.doomed.v[i])) != 0) goto done;
    result->files_deleted++;
    result->bytes_deleted += w.doomed_size[i];
    if (o->on_file && (rc = o->on_file(o->on_file_ctx, w.doomed.v[i], w.doomed_size[i])) != 0) goto done;
    p.files_done++;
    p.bytes_done += w.doomed_size[i];
    maint_progress(o->progress, o->progress_ctx, &p);
  }
  rc = remove_dirs(s, o, &w.dirs, &dirs_deleted);
  /* also after a failure: the directories removed so far */
  if (o->version >= 2) result->dirs_deleted = dirs_deleted;
  if (rc) goto done;
  if (logged) {
    /* as Delta Spark logs it: directories removed count as deleted files;
     * numVacuumedDirectories is how many were listed */
    char metrics[128];
    snprintf(metrics, sizeof metrics, "{\"numDeletedFiles\":\"%lld\",\"numVacuumedDirectories\":\"%lld\"}",
             (long long)(result->files_deleted + dirs_deleted), (long long)w.dirs_listed);
    rc = log_commit(s, result->start_version, "VACUUM END", "{\"status\":\"COMPLETED\"}", metrics,
                    &result->end_version);
  }
done:
  list_free(&keep);
  list_free(&w.doomed);
  list_free(&w.dirs);
  mem_free(w.doomed_size);
  buf_dispose(&tmp);
  delta_snapshot_free(s);
  return rc;
}
