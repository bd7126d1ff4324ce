/* _last_checkpoint as a listing hint and .crc version checksums: the latest
 * snapshot lists _delta_log from the hinted checkpoint on; a missing,
 * corrupt, stale or half-written hint changes nothing but the listing; an
 * incremental update lists only names after the ones it knows; every
 * checksum of a real table verifies against the replayed state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/error.h"
#include "log/crc.h"
#include "log/snapshot.h"
#include "test.h"

#define TABLE "delta.kernel-defaults.basic-dv-with-checkpoint" /* checkpoints at 10, 20, 30, 40; commits to 46 */
#define CRC_TABLE "delta-rs.table_with_deletion_logs"          /* a .crc for each of versions 0..20 */

/* A storage that passes everything to the local one and records how
 * _delta_log was listed. */
typedef struct {
  delta_storage *inner;
  int log_lists;
  char start_after[64]; /* of the last _delta_log listing; "" for none */
  int listed;           /* entries the last _delta_log listing delivered */
} spy;

typedef struct {
  spy *s;
  delta_storage_list_cb cb;
  void *payload;
} spy_list_ctx;

static int spy_entry(const delta_storage_entry *e, void *p) {
  spy_list_ctx *c = p;
  c->s->listed++;
  return c->cb(e, c->payload);
}

static int spy_list(void *impl, const char *dir, const char *start_after, delta_storage_list_cb cb, void *payload) {
  spy *s = impl;
  spy_list_ctx c = {s, cb, payload};
  if (strcmp(dir, "_delta_log") == 0) {
    s->log_lists++;
    s->listed = 0;
    snprintf(s->start_after, sizeof s->start_after, "%s", start_after ? start_after : "");
    return delta_storage_list(s->inner, dir, start_after, spy_entry, &c);
  }
  return delta_storage_list(s->inner, dir, start_after, cb, payload);
}
static int spy_read(void *impl, const char *key, uint64_t off, uint64_t len, delta_storage_sink *sink) {
  return delta_storage_read_into(((spy *)impl)->inner, key, off, len, sink);
}
static int spy_head(void *impl, const char *key, delta_file_info *out) {
  return delta_storage_head(((spy *)impl)->inner, key, out);
}
static int spy_local(void *impl, const char *key, delta_storage_sink *sink) {
  return delta_storage_local_path_into(((spy *)impl)->inner, key, sink);
}
static void spy_free(void *impl) {
  delta_storage_free(((spy *)impl)->inner);
  free(impl);
}

static delta_table *open_spied(const char *dir, spy **out) {
  delta_table *t;
  if (delta_table_open(&t, dir)) return NULL;
  spy *s = calloc(1, sizeof *s);
  s->inner = t->storage;
  delta_storage_vtable vt = {.version = DELTA_STORAGE_VTABLE_VERSION,
                             .list = spy_list,
                             .read = spy_read,
                             .head = spy_head,
                             .local_path = spy_local,
                             .free = spy_free};
  delta_storage *w;
  CHECK(delta_storage_new(&w, &vt, s, t->location) == 0);
  t->storage = w;
  *out = s;
  return t;
}

/* "version|path|dv ..." of the latest snapshot (caller frees), recording the listing. */
static char *latest_state(const char *dir, spy *record) {
  spy *s;
  delta_table *t = open_spied(dir, &s);
  if (!t) return NULL;
  delta_snapshot *snap;
  char *out = NULL;
  if (delta_snapshot_open(&snap, t, NULL) == 0) {
    size_t cap = 64;
    for (int64_t i = 0; i < snap->n_files; i++) cap += strlen(snap->files[i].path) + 64;
    out = calloc(cap, 1);
    size_t n = (size_t)snprintf(out, cap, "v%lld", (long long)snap->version);
    for (int64_t i = 0; i < snap->n_files; i++)
      n += (size_t)snprintf(out + n, cap - n, " %s|%s", snap->files[i].path,
                            snap->files[i].dv.unique_id ? snap->files[i].dv.unique_id : "");
    delta_snapshot_free(snap);
  } else {
    fprintf(stderr, "%s: %s\n", dir, delta_error_last());
  }
  *record = *s;
  delta_table_free(t);
  return out;
}

static void run(const char *cmd) { CHECK(system(cmd) == 0); }

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

int main(void) {
  char shared[512], tmp[512], dir[700], cmd[4096], path[800];
  snprintf(shared, sizeof shared, "%s", getenv("DELTAC_SHARED") ? getenv("DELTAC_SHARED") : "../shared");
  snprintf(tmp, sizeof tmp, "%s/deltac-test-last-checkpoint", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  snprintf(dir, sizeof dir, "%s/t", tmp);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp -r '%s/conformance/tables/%s' '%s'", tmp, tmp,
           shared, TABLE, dir);
  run(cmd);

  /* The hint names checkpoint 40: the listing starts there. */
  spy rec;
  char *good = latest_state(dir, &rec);
  CHECK(good != NULL && strncmp(good, "v46 ", 4) == 0);
  CHECK_EQ_INT(rec.log_lists, 1);
  CHECK(strcmp(rec.start_after, "00000000000000000040") == 0);
  CHECK(rec.listed < 15); /* 40..46 (commits, checkpoint), not the 51 files of the log */

  /* Whatever is wrong with the hint, the state is the same. */
  snprintf(path, sizeof path, "%s/_delta_log/_last_checkpoint", dir);
  const char *bad_hints[] = {
      "{\"version\":4",                        /* half-written */
      "not json at all",                       /* corrupt */
      "{\"size\":3}",                          /* no version */
      "{\"version\":-5,\"size\":3}",           /* nonsense */
      "{\"version\":99,\"size\":3}",           /* beyond the log */
      "{\"version\":45,\"size\":3}",           /* names a checkpoint that is not there */
      "{\"version\":20,\"size\":3}",           /* stale: an older checkpoint (listing from 20 still finds 40) */
  };
  for (size_t i = 0; i < sizeof bad_hints / sizeof *bad_hints; i++) {
    write_file(path, bad_hints[i]);
    char *st = latest_state(dir, &rec);
    CHECK(st && good && strcmp(st, good) == 0);
    if (!st || !good || strcmp(st, good)) fprintf(stderr, "hint %s gave another state\n", bad_hints[i]);
    free(st);
  }
  CHECK(strcmp(rec.start_after, "00000000000000000020") == 0); /* the stale hint was still used */

  /* A missing hint file: one full listing. */
  remove(path);
  char *st = latest_state(dir, &rec);
  CHECK(st && good && strcmp(st, good) == 0);
  CHECK(rec.log_lists == 1 && rec.start_after[0] == 0);
  free(st);

  /* A half-written checkpoint at the hinted version: the older one at 30 is used. */
  write_file(path, "{\"version\":40,\"size\":44}");
  snprintf(cmd, sizeof cmd, "truncate -s 100 '%s/_delta_log/00000000000000000040.checkpoint.parquet'", dir);
  run(cmd);
  st = latest_state(dir, &rec);
  CHECK(st && good && strcmp(st, good) == 0);
  CHECK(rec.log_lists == 2 && rec.start_after[0] == 0); /* hinted listing, then the whole log */
  free(st);

  /* Incremental update: only names after the last one known are listed. */
  spy *s;
  delta_table *t = open_spied(dir, &s);
  delta_snapshot *old = NULL, *upd = NULL;
  CHECK(t && delta_snapshot_open(&old, t, NULL) == 0);
  snprintf(cmd, sizeof cmd, "cp '%s/_delta_log/00000000000000000046.json' '%s/_delta_log/00000000000000000047.json'",
           dir, dir);
  run(cmd); /* a repeat of commit 46: adds nothing new but is a valid commit */
  if (old) {
    CHECK(delta_snapshot_update(&upd, old) == 0);
    CHECK(strcmp(s->start_after, "00000000000000000046.json") == 0);
    CHECK_EQ_INT(s->listed, 2); /* 47.json and _last_checkpoint */
    CHECK(upd && upd->version == 47 && upd->n_files == old->n_files);
    CHECK(upd && upd->listing.n == old->listing.n + 1);
  }
  delta_snapshot_free(upd);
  delta_snapshot_free(old);
  delta_table_free(t);
  free(good);

  /* Checksums: every version of a table whose writer left one verifies;
   * an edited one does not. */
  snprintf(dir, sizeof dir, "%s/crc", tmp);
  snprintf(cmd, sizeof cmd, "cp -r '%s/conformance/tables/%s' '%s'", shared, CRC_TABLE, dir);
  run(cmd);
  CHECK(delta_table_open(&t, dir) == 0);
  for (int v = 0; v <= 20; v++) {
    delta_snapshot_options o = DELTA_SNAPSHOT_OPTIONS_INIT;
    o.at_version = true;
    o.table_version = v;
    delta_snapshot *snap;
    log_crc_check c;
    CHECK(delta_snapshot_open(&snap, t, &o) == 0);
    CHECK(log_crc_verify(snap, &c) == 0);
    CHECK_EQ_INT(c.status, LOG_CRC_VERIFIED);
    if (c.status != LOG_CRC_VERIFIED) fprintf(stderr, "v%d: %s\n", v, c.detail);
    delta_snapshot_free(snap);
  }
  /* Time travel by timestamp reads the latest version's settings from its
   * checksum: the same versions (and errors) as replaying it. */
  int64_t probes[66];
  int n_probes = 0;
  {
    delta_snapshot *latest;
    CHECK(delta_snapshot_open(&latest, t, NULL) == 0);
    for (int v = 0; v <= 20; v++) {
      const log_entry *e = log_find_commit(&latest->listing, v);
      if (!e) continue;
      probes[n_probes++] = e->mtime_ms - 1;
      probes[n_probes++] = e->mtime_ms;
      probes[n_probes++] = e->mtime_ms + 1;
    }
    delta_snapshot_free(latest);
  }
  int64_t with_crc[66];
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      snprintf(cmd, sizeof cmd, "mkdir -p '%s/crcs' && mv '%s'/_delta_log/*.crc '%s/crcs/'", tmp, dir, tmp);
      run(cmd);
    }
    for (int i = 0; i < n_probes; i++) {
      delta_snapshot_options o = DELTA_SNAPSHOT_OPTIONS_INIT;
      o.at_timestamp = true;
      o.timestamp_ms = probes[i];
      delta_snapshot *snap;
      int64_t got = delta_snapshot_open(&snap, t, &o) == 0 ? snap->version : -1000 - delta_error_last_code();
      if (got >= 0) delta_snapshot_free(snap);
      if (pass == 0) with_crc[i] = got;
      else CHECK_EQ_INT(got, with_crc[i]);
    }
  }
  snprintf(cmd, sizeof cmd, "mv '%s'/crcs/*.crc '%s/_delta_log/'", tmp, dir);
  run(cmd);

  snprintf(cmd, sizeof cmd, "sed -i 's/\"numFiles\":[0-9]*/\"numFiles\":12345/' '%s/_delta_log/00000000000000000020.crc'",
           dir);
  run(cmd);
  delta_snapshot *snap;
  log_crc_check c;
  CHECK(delta_snapshot_open(&snap, t, NULL) == 0);
  CHECK(log_crc_verify(snap, &c) == 0);
  CHECK_EQ_INT(c.status, LOG_CRC_MISMATCH);
  CHECK(strstr(c.detail, "numFiles is 12345") != NULL);
  delta_snapshot_free(snap);
  write_file(strcat(strcpy(path, dir), "/_delta_log/00000000000000000019.crc"), "{\"tableSizeBytes\":");
  {
    delta_snapshot_options o = DELTA_SNAPSHOT_OPTIONS_INIT;
    o.at_version = true;
    o.table_version = 19;
    CHECK(delta_snapshot_open(&snap, t, &o) == 0);
    CHECK(log_crc_verify(snap, &c) == 0);
    CHECK_EQ_INT(c.status, LOG_CRC_UNREADABLE);
    CHECK(strstr(c.detail, "00000000000000000019.crc") != NULL);
    delta_snapshot_free(snap);
  }
  delta_table_free(t);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  run(cmd);
  TEST_MAIN_END();
}
