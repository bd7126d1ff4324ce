/*
 * log_checkpoint_read_parquet over every Parquet checkpoint and sidecar of
 * the shared conformance tables: each must read (or, for the deliberately
 * broken ones listed below, fail cleanly with DELTA_ECORRUPT); action counts
 * are checked against _last_checkpoint's "size", classic checkpoints must
 * hold exactly one protocol and one metaData, and the adds of the commit a
 * checkpoint was taken at must be among its adds.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deltac/error.h"
#include "log/actions.h"
#include "log/arena.h"
#include "log/checkpoint_read.h"
#include "test.h"

static const char *shared_dir(void) {
  const char *s = getenv("DELTAC_SHARED");
  return s && *s ? s : "../shared";
}

/* ------------------------------------------------------------- helpers */

static char *read_text(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[n] = '\0';
  fclose(fp);
  return buf;
}

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Sorted names of a directory (NULL-terminated; caller frees). */
static char **list_dir(const char *dir, int *n_out) {
  *n_out = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **v = NULL;
  int n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
      continue;
    if (n + 2 > cap) {
      cap = cap ? cap * 2 : 64;
      v = realloc(v, (size_t)cap * sizeof *v);
    }
    v[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (v) {
    v[n] = NULL;
    for (int i = 1; i < n; i++) /* insertion sort: directories here are small */
      for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
        char *t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  }
  *n_out = n;
  return v;
}

static void free_list(char **v, int n) {
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* Top-level integer member of a JSON object (no nesting awareness needed
 * beyond skipping strings and tracking depth). Returns false when absent or
 * not a number. */
static bool json_top_int(const char *js, const char *key, long long *out) {
  int depth = 0;
  size_t klen = strlen(key);
  for (const char *p = js; *p; p++) {
    if (*p == '"') {
      const char *start = p + 1;
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
      if (!*p) return false;
      if (depth == 1 && (size_t)(p - start) == klen && memcmp(start, key, klen) == 0) {
        const char *q = p + 1;
        while (*q == ' ') q++;
        if (*q != ':') continue;
        q++;
        while (*q == ' ') q++;
        char *end;
        long long v = strtoll(q, &end, 10);
        if (end == q) return false;
        *out = v;
        return true;
      }
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      depth--;
    }
  }
  return false;
}

/* ------------------------------------------------------------ counting */

/* What the spot check compares with the JSON commit. */
typedef struct {
  char *path;
  long long size, mtime;
  bool dv;
  char *dv_path;
  long long dv_card;
} add_rec;

typedef struct {
  long long n[10];            /* per delta_action_kind */
  long long total;
  long long with_stats, with_dv;
  /* adds (for the spot check), sidecar paths (for V2 sizes) */
  add_rec *adds;
  int n_adds, cap_adds;
  char **sidecars;
  int n_sidecars, cap_sidecars;
  bool keep_paths;
} counts;

static void push(char ***v, int *n, int *cap, const char *s) {
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    *v = realloc(*v, (size_t)*cap * sizeof **v);
  }
  (*v)[(*n)++] = strdup(s);
}

static void counts_free(counts *c) {
  for (int i = 0; i < c->n_adds; i++) {
    free(c->adds[i].path);
    free(c->adds[i].dv_path);
  }
  free(c->adds);
  free_list(c->sidecars, c->n_sidecars);
  memset(c, 0, sizeof *c);
}

static int count_cb(const delta_action *a, void *payload) {
  counts *c = payload;
  c->n[a->kind]++;
  c->total++;
  switch (a->kind) {
  case DELTA_ACTION_ADD:
    /* Whatever the writer, the required fields are there. */
    if (!a->u.add.path || a->u.add.size < 0) return DELTA_ERROR;
    if (a->u.add.stats) c->with_stats++;
    if (a->u.add.dv.present) {
      c->with_dv++;
      if (!a->u.add.dv.unique_id || a->u.add.dv.unique_id[0] != a->u.add.dv.storage_type) return DELTA_ERROR;
    }
    for (int i = 0; i < a->u.add.n_partition_values; i++)
      if (!a->u.add.partition_values[i].key) return DELTA_ERROR;
    if (c->keep_paths) {
      if (c->n_adds == c->cap_adds) {
        c->cap_adds = c->cap_adds ? c->cap_adds * 2 : 16;
        c->adds = realloc(c->adds, (size_t)c->cap_adds * sizeof *c->adds);
      }
      add_rec *r = &c->adds[c->n_adds++];
      r->path = strdup(a->u.add.path);
      r->size = a->u.add.size;
      r->mtime = a->u.add.modification_time;
      r->dv = a->u.add.dv.present;
      r->dv_path = r->dv ? strdup(a->u.add.dv.path_or_inline) : NULL;
      r->dv_card = a->u.add.dv.cardinality;
    }
    break;
  case DELTA_ACTION_REMOVE:
    if (!a->u.remove.path) return DELTA_ERROR;
    break;
  case DELTA_ACTION_METADATA:
    if (!a->u.metadata.id) return DELTA_ERROR;
    break;
  case DELTA_ACTION_SIDECAR:
    push(&c->sidecars, &c->n_sidecars, &c->cap_sidecars, a->u.sidecar.path);
    break;
  default:
    break;
  }
  return 0;
}

/* Checkpoint files that must fail, with the reason. */
typedef struct {
  const char *table, *file, *why;
} expected_failure;

/* None of the corpus's checkpoint files is broken at the file level: the
 * "corrupt" golden tables break other things (_last_checkpoint, or a
 * checkpoint that lacks its protocol or metaData row, which replay must
 * refuse; see test_deliberately_incomplete). Damaged files are made in
 * test_stop_and_errors. The list stays for files that must fail. */
static const expected_failure EXPECTED_FAILURES[] = {
    {NULL, NULL, NULL},
};

/* Tables whose _last_checkpoint "size" does not count the checkpoint's
 * actions. The spec says size is "the number of actions that are stored in
 * the checkpoint"; Spark, kernel-rs and current delta-rs agree (for V2
 * checkpoints: the top-level rows, sidecar rows included, plus the actions
 * in the sidecar files). */
typedef enum { Q_BYTES, Q_WRONG, Q_OTHER_VERSION } size_quirk_kind;
typedef struct {
  const char *table;
  size_quirk_kind kind;
  long long other_version;
  const char *why;
} size_quirk;

static const size_quirk SIZE_QUIRKS[] = {
    {"delta-rs.checkpoint_with_partitions", Q_BYTES, 0,
     "old delta-rs wrote the file's byte size as size (its _last_checkpoint has \"parts\":null)"},
    {"delta-rs.issue_1374", Q_BYTES, 0, "old delta-rs: size is the file's byte size"},
    {"delta-rs.data_err_logs.table_d", Q_WRONG, 0, "delta-rs data-error fixture: _last_checkpoint is wrong on purpose"},
    {"delta-rs.data_err_logs.table_e", Q_WRONG, 0, "delta-rs data-error fixture: _last_checkpoint is wrong on purpose"},
    {"delta-rs.data_err_logs.table_f", Q_WRONG, 0, "delta-rs data-error fixture: _last_checkpoint is wrong on purpose"},
    {"delta-rs.latest_not_checkpointed", Q_WRONG, 0, "hand-written _last_checkpoint (size 1; the checkpoint has 4)"},
    {"delta-rs.table_failed_last_checkpoint_update", Q_OTHER_VERSION, 3,
     "simulated failed update: version says 1, size and size_in_bytes describe the version-3 checkpoint"},
    {"delta-golden.deltalog-state-reconstruction-from-checkpoint-missing-protocol", Q_WRONG, 0,
     "the protocol row was deleted from the checkpoint, _last_checkpoint kept"},
    {"kernel-rs-golden.deltalog-state-reconstruction-from-checkpoint-missing-protocol", Q_WRONG, 0,
     "the protocol row was deleted from the checkpoint, _last_checkpoint kept"},
    {"delta-golden.deltalog-state-reconstruction-from-checkpoint-missing-metadata", Q_WRONG, 0,
     "the metaData row was deleted from the checkpoint, _last_checkpoint kept"},
    {"kernel-rs-golden.deltalog-state-reconstruction-from-checkpoint-missing-metadata", Q_WRONG, 0,
     "the metaData row was deleted from the checkpoint, _last_checkpoint kept"},
    {NULL, Q_WRONG, 0, NULL},
};

static const size_quirk *find_size_quirk(const char *table) {
  for (const size_quirk *q = SIZE_QUIRKS; q->table; q++)
    if (strcmp(q->table, table) == 0) return q;
  return NULL;
}

static const expected_failure *find_expected_failure(const char *table, const char *file) {
  for (const expected_failure *e = EXPECTED_FAILURES; e->table; e++)
    if (strcmp(e->table, table) == 0 && strcmp(e->file, file) == 0) return e;
  return NULL;
}

/* Tables whose classic checkpoint deliberately lacks protocol or metaData. */
static bool lacks_protocol_or_metadata(const char *table) {
  return strstr(table, "checkpoint-missing-metadata") != NULL ||
         strstr(table, "checkpoint-missing-protocol") != NULL;
}

static int n_files_read, n_files_failed_as_expected, n_size_checks, n_size_quirks, n_spot_checks, n_spot_adds;
static long long n_actions_total;

/* Read one file, twice (with and without stats), and check the two agree. */
static int read_one(const char *table, const char *dir, const char *name, counts *out) {
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  delta_arena arena = DELTA_ARENA_INIT;
  counts c = {0};
  c.keep_paths = true;
  int rc = log_checkpoint_read_parquet(path, &arena, true, count_cb, &c);
  const expected_failure *xf = find_expected_failure(table, name);
  if (xf) {
    CHECK_EQ_INT(rc, DELTA_ECORRUPT);
    if (rc != DELTA_ECORRUPT) fprintf(stderr, "  %s/%s should fail (%s)\n", table, name, xf->why);
    else n_files_failed_as_expected++;
    log_arena_dispose(&arena);
    counts_free(&c);
    return rc ? rc : -1;
  }
  if (rc != 0) fprintf(stderr, "%s/%s: rc %d: %s\n", table, name, rc, delta_error_last());
  CHECK_EQ_INT(rc, 0);
  log_arena_dispose(&arena);
  if (rc != 0) {
    counts_free(&c);
    return rc;
  }
  {
    counts d = {0};
    int rc2 = log_checkpoint_read_parquet(path, &arena, false, count_cb, &d);
    CHECK_EQ_INT(rc2, 0);
    CHECK_EQ_INT(d.total, c.total);
    CHECK_EQ_INT(d.n[DELTA_ACTION_ADD], c.n[DELTA_ACTION_ADD]);
    CHECK_EQ_INT(d.with_stats, 0);
    CHECK_EQ_INT(d.with_dv, c.with_dv);
    counts_free(&d);
    log_arena_dispose(&arena);
    n_files_read++;
    n_actions_total += c.total;
  }
  *out = c;
  return rc;
}

static const add_rec *find_add(const counts *c, const char *path, size_t len) {
  for (int i = 0; i < c->n_adds; i++)
    if (strlen(c->adds[i].path) == len && memcmp(c->adds[i].path, path, len) == 0) return &c->adds[i];
  return NULL;
}

/* Compare the adds of a JSON commit (one action per line; Spark and
 * delta-rs write "path" first) with the checkpoint's: every add of the
 * commit a checkpoint was taken at is live in it, with the same size,
 * modificationTime and deletion vector. Returns the adds compared. */
static int spot_check_commit(const char *where, const char *json_path, const counts *c) {
  char *text = read_text(json_path);
  if (!text) return 0;
  int compared = 0;
  const char *key = "{\"add\":{\"path\":\"";
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (strncmp(line, key, strlen(key)) == 0) {
      const char *p = line + strlen(key), *e = strchr(p, '"');
      bool plain = e != NULL;
      for (const char *q = p; plain && q < e; q++)
        if (*q == '\\') plain = false; /* escaped paths: not decoded here */
      if (plain) {
        const add_rec *r = find_add(c, p, (size_t)(e - p));
        CHECK(r != NULL);
        if (!r) {
          fprintf(stderr, "%s: add %.*s of %s is missing\n", where, (int)(e - p), p, json_path);
        } else {
          char want[512];
          snprintf(want, sizeof want, "\"size\":%lld", r->size);
          CHECK(strstr(line, want) != NULL);
          snprintf(want, sizeof want, "\"modificationTime\":%lld", r->mtime);
          CHECK(strstr(line, want) != NULL);
          CHECK_EQ_INT(r->dv, strstr(line, "\"deletionVector\":{") != NULL);
          if (r->dv) {
            snprintf(want, sizeof want, "\"pathOrInlineDv\":\"%s\"", r->dv_path);
            CHECK(strstr(line, want) != NULL);
            snprintf(want, sizeof want, "\"cardinality\":%lld", r->dv_card);
            CHECK(strstr(line, want) != NULL);
          }
          compared++;
        }
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  return compared;
}

/* Parse "<20 digits>.checkpoint..." → version, or -1. */
static long long checkpoint_version(const char *name) {
  for (int i = 0; i < 20; i++)
    if (name[i] < '0' || name[i] > '9') return -1;
  if (strncmp(name + 20, ".checkpoint", 11) != 0) return -1;
  return strtoll(name, NULL, 10);
}

static bool is_checkpoint_parquet(const char *name) {
  return name[0] != '.' && checkpoint_version(name) >= 0 && ends_with(name, ".parquet");
}

static bool is_classic(const char *name) { return strlen(name) == 20 + strlen(".checkpoint.parquet"); }

static void check_table(const char *tables, const char *table) {
  char log[4096], sidecar_dir[4200];
  snprintf(log, sizeof log, "%s/%s/_delta_log", tables, table);
  snprintf(sidecar_dir, sizeof sidecar_dir, "%s/_sidecars", log);
  int n_names = 0;
  char **names = list_dir(log, &n_names);
  if (!names) return;
  /* Actions per checkpoint file, for the size cross-check. */
  long long *total = calloc((size_t)n_names + 1, sizeof *total);
  long long *sidecar_actions = calloc((size_t)n_names + 1, sizeof *sidecar_actions);
  bool *ok = calloc((size_t)n_names + 1, sizeof *ok);
  for (int i = 0; i < n_names; i++) {
    if (!is_checkpoint_parquet(names[i])) continue;
    counts c;
    if (read_one(table, log, names[i], &c) != 0) continue;
    ok[i] = true;
    total[i] = c.total;
    /* V1 classic checkpoints carry the whole state: one protocol, one metaData. */
    bool multi_part = !is_classic(names[i]) && strstr(names[i], "-") == NULL;
    if (!multi_part && !lacks_protocol_or_metadata(table)) {
      if (c.n[DELTA_ACTION_PROTOCOL] != 1 || c.n[DELTA_ACTION_METADATA] != 1)
        fprintf(stderr, "%s/%s: %lld protocol, %lld metaData\n", table, names[i],
                c.n[DELTA_ACTION_PROTOCOL], c.n[DELTA_ACTION_METADATA]);
      CHECK_EQ_INT(c.n[DELTA_ACTION_PROTOCOL], 1);
      CHECK_EQ_INT(c.n[DELTA_ACTION_METADATA], 1);
    }
    /* Sidecars named by a V2 checkpoint: read them for the total. */
    for (int s = 0; s < c.n_sidecars; s++) {
      char sp[8192];
      snprintf(sp, sizeof sp, "%s/%s", sidecar_dir, c.sidecars[s]);
      if (!file_exists(sp)) continue;
      delta_arena arena = DELTA_ARENA_INIT;
      counts sc = {0};
      int rc = log_checkpoint_read_parquet(sp, &arena, false, count_cb, &sc);
      CHECK_EQ_INT(rc, 0);
      /* Sidecars hold file actions only. */
      CHECK_EQ_INT(sc.total, sc.n[DELTA_ACTION_ADD] + sc.n[DELTA_ACTION_REMOVE]);
      sidecar_actions[i] += sc.total;
      counts_free(&sc);
      log_arena_dispose(&arena);
    }
    /* Spot check: every add of the commit the checkpoint was taken at is live. */
    if (!multi_part && c.n_sidecars == 0) {
      char cp[8192];
      snprintf(cp, sizeof cp, "%s/%020lld.json", log, checkpoint_version(names[i]));
      char where[600];
      snprintf(where, sizeof where, "%s/%s", table, names[i]);
      int n = spot_check_commit(where, cp, &c);
      if (n > 0) n_spot_checks++;
      n_spot_adds += n;
    }
    counts_free(&c);
  }

  /* Sidecar files on their own. */
  int n_sc = 0;
  char **scs = list_dir(sidecar_dir, &n_sc);
  for (int i = 0; i < n_sc; i++) {
    if (scs[i][0] == '.' || !ends_with(scs[i], ".parquet")) continue;
    counts c;
    if (read_one(table, sidecar_dir, scs[i], &c) != 0) continue;
    CHECK_EQ_INT(c.total, c.n[DELTA_ACTION_ADD] + c.n[DELTA_ACTION_REMOVE]);
    counts_free(&c);
  }
  free_list(scs, n_sc);

  /* _last_checkpoint: "size" is the number of actions in the checkpoint. */
  char lcp[4200];
  snprintf(lcp, sizeof lcp, "%s/_last_checkpoint", log);
  char *lc = read_text(lcp);
  long long version, size, parts = 0;
  const size_quirk *quirk = find_size_quirk(table);
  if (lc && json_top_int(lc, "version", &version) && json_top_int(lc, "size", &size)) {
    (void)json_top_int(lc, "parts", &parts);
    if (quirk && quirk->kind == Q_OTHER_VERSION) version = quirk->other_version;
    long long sum = 0;
    int files = 0;
    bool all_ok = true;
    char want[64];
    for (int i = 0; i < n_names; i++) {
      if (checkpoint_version(names[i]) != version || !ends_with(names[i], ".parquet")) continue;
      bool match;
      if (parts > 0) {
        snprintf(want, sizeof want, "%020lld.checkpoint.", version);
        char tail[40];
        snprintf(tail, sizeof tail, ".%010lld.parquet", parts);
        match = ends_with(names[i], tail) && strlen(names[i]) == 20 + 12 + 10 + strlen(tail);
      } else {
        /* The one single-file checkpoint for this version (classic or UUID-named). */
        match = true;
      }
      if (!match) continue;
      files++;
      all_ok = all_ok && ok[i];
      sum += total[i] + sidecar_actions[i];
    }
    bool single = parts > 0 ? files == parts : files == 1;
    if (single && all_ok && quirk && quirk->kind == Q_BYTES) {
      /* The quirk must still be what it says: size == bytes of the file. */
      char cp[8192];
      snprintf(cp, sizeof cp, "%s/%020lld.checkpoint.parquet", log, version);
      struct stat st;
      CHECK(stat(cp, &st) == 0 && (long long)st.st_size == size);
      CHECK(sum != size);
      n_size_quirks++;
    } else if (single && all_ok && quirk && quirk->kind == Q_WRONG) {
      CHECK(sum != size); /* keeps the list honest */
      n_size_quirks++;
    } else if (single && all_ok) {
      if (sum != size)
        fprintf(stderr, "%s: _last_checkpoint size %lld, read %lld actions\n", table, size, sum);
      CHECK_EQ_INT(sum, size);
      n_size_checks++;
    } else if (getenv("VERBOSE")) {
      fprintf(stderr, "%s: no size check (%d files for version %lld)\n", table, files, version);
    }
  }
  free(lc);
  free(total);
  free(sidecar_actions);
  free(ok);
  free_list(names, n_names);
}

/* ----------------------------------------------------------- unit tests */

static void test_dv_unique_id(void) {
  delta_arena arena = DELTA_ARENA_INIT;
  delta_dv dv = {0};
  dv.present = true;
  dv.storage_type = 'u';
  dv.path_or_inline = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.has_offset = true;
  dv.offset = 1;
  CHECK_EQ_INT(log_dv_unique_id(&arena, &dv), 0);
  CHECK_STR(dv.unique_id, "uab^-aqEH.-t@S}K{vb[*k^@1");
  dv.storage_type = 'i';
  dv.path_or_inline = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  dv.has_offset = false;
  CHECK_EQ_INT(log_dv_unique_id(&arena, &dv), 0);
  CHECK_STR(dv.unique_id, "iwi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L");
  dv.present = false;
  CHECK_EQ_INT(log_dv_unique_id(&arena, &dv), 0);
  CHECK(dv.unique_id == NULL);
  log_arena_dispose(&arena);
}

/* Every action of a file, kept while the arena lives. */
typedef struct {
  delta_action *v;
  int n, cap;
} captured;

static int capture_cb(const delta_action *a, void *payload) {
  captured *c = payload;
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 32;
    c->v = realloc(c->v, (size_t)c->cap * sizeof *c->v);
  }
  c->v[c->n++] = *a;
  return 0;
}

static int capture(const char *table, const char *file, delta_arena *arena, captured *out) {
  char path[4096];
  snprintf(path, sizeof path, "%s/conformance/tables/%s/_delta_log/%s", shared_dir(), table, file);
  memset(out, 0, sizeof *out);
  int rc = log_checkpoint_read_parquet(path, arena, true, capture_cb, out);
  if (rc) fprintf(stderr, "%s: %s\n", path, delta_error_last());
  CHECK_EQ_INT(rc, 0);
  return rc;
}

static const delta_action *find_kind(const captured *c, delta_action_kind k, int nth) {
  for (int i = 0; i < c->n; i++)
    if (c->v[i].kind == k && nth-- == 0) return &c->v[i];
  return NULL;
}

static const delta_action *find_path(const captured *c, delta_action_kind k, const char *path) {
  for (int i = 0; i < c->n; i++) {
    const char *p = k == DELTA_ACTION_ADD ? c->v[i].u.add.path : c->v[i].u.remove.path;
    if (c->v[i].kind == k && strcmp(p, path) == 0) return &c->v[i];
  }
  return NULL;
}

/* Values seen in the JSON commits (and by `deltac parquet cat`) of a few tables. */
static void test_values(void) {
  delta_arena arena = DELTA_ARENA_INIT;
  captured c;

  /* Spark 3.4 DV table: adds and removes with deletion vectors, partitions. */
  if (capture("delta-golden.dv-partitioned-with-checkpoint", "00000000000000000010.checkpoint.parquet", &arena,
              &c) == 0) {
    const delta_action *a =
        find_path(&c, DELTA_ACTION_ADD, "part=4/part-00000-69ec928d-3737-4eb3-a3d8-9555a6b55ff5.c000.snappy.parquet");
    CHECK(a != NULL);
    if (a) {
      CHECK_EQ_INT(a->u.add.size, 735);
      CHECK_EQ_INT(a->u.add.modification_time, 1688691720000LL);
      CHECK(!a->u.add.data_change);
      CHECK_EQ_INT(a->u.add.n_partition_values, 1);
      CHECK_STR(a->u.add.partition_values[0].key, "part");
      CHECK_STR(a->u.add.partition_values[0].value, "4");
      CHECK(a->u.add.dv.present);
      CHECK_EQ_INT(a->u.add.dv.storage_type, 'u');
      CHECK_STR(a->u.add.dv.path_or_inline, "+V9Oq([R6mTaoM.}Isa)");
      CHECK(a->u.add.dv.has_offset);
      CHECK_EQ_INT(a->u.add.dv.offset, 1);
      CHECK_EQ_INT(a->u.add.dv.size_in_bytes, 36);
      CHECK_EQ_INT(a->u.add.dv.cardinality, 2);
      CHECK_STR(a->u.add.dv.unique_id, "u+V9Oq([R6mTaoM.}Isa)@1");
      CHECK_STR(a->u.add.stats, "{\"numRecords\":3,\"minValues\":{\"col1\":4,\"col2\":\"foo4\"},\"maxValues\":"
                                "{\"col1\":24,\"col2\":\"foo4\"},\"nullCount\":{\"col1\":0,\"col2\":0},"
                                "\"tightBounds\":false}");
      CHECK(a->u.add.tags == NULL);
      CHECK(!a->u.add.has_base_row_id);
    }
    const delta_action *r =
        find_path(&c, DELTA_ACTION_REMOVE, "part=4/part-00000-69ec928d-3737-4eb3-a3d8-9555a6b55ff5.c000.snappy.parquet");
    CHECK(r != NULL);
    if (r) {
      CHECK(r->u.remove.has_deletion_timestamp);
      CHECK_EQ_INT(r->u.remove.deletion_timestamp, 1688691776979LL);
      CHECK(r->u.remove.extended_file_metadata);
      CHECK(r->u.remove.has_size);
      CHECK_EQ_INT(r->u.remove.size, 735);
      CHECK_EQ_INT(r->u.remove.n_partition_values, 1);
      CHECK_STR(r->u.remove.dv.unique_id, "uSZYoUv7OW&PVt[Vm4y.s@1");
    }
    const delta_action *m = find_kind(&c, DELTA_ACTION_METADATA, 0);
    CHECK(m != NULL);
    if (m) {
      CHECK_STR(m->u.metadata.id, "testId"); /* as in 00000000000000000000.json */
      CHECK_STR(m->u.metadata.format_provider, "parquet");
      CHECK_EQ_INT(m->u.metadata.n_partition_columns, 1);
      if (m->u.metadata.n_partition_columns == 1) CHECK_STR(m->u.metadata.partition_columns[0], "part");
      CHECK(strncmp(m->u.metadata.schema_string, "{\"type\":\"struct\"", 16) == 0);
    }
    free(c.v);
  }

  /* delta-rs: add.tags as a map, rendered as a JSON object. */
  if (capture("delta-rs.delta-checkpoint-stats-optional", "00000000000000000002.checkpoint.parquet", &arena, &c) ==
      0) {
    const delta_action *a =
        find_path(&c, DELTA_ACTION_ADD, "part-00000-28925d3a-bdf2-411e-bca9-b067444cbcb0-c000.snappy.parquet");
    CHECK(a != NULL);
    if (a) {
      CHECK_STR(a->u.add.tags, "{\"INSERTION_TIME\":\"1666652374000000\",\"OPTIMIZE_TARGET_SIZE\":\"268435456\"}");
      CHECK_EQ_INT(a->u.add.size, 5489);
      CHECK(a->u.add.stats == NULL); /* the file has stats_parsed only */
      CHECK(!a->u.add.dv.present);
      CHECK(a->u.add.dv.unique_id == NULL);
    }
    free(c.v);
  }

  /* A V2 checkpoint with a sidecar: checkpointMetadata, sidecar, features. */
  if (capture("kernel-rs.v2-parquet-sidecars-struct-stats-only",
              "00000000000000000005.checkpoint.f376503f-80c5-44c4-a353-a741181e8197.parquet", &arena, &c) == 0) {
    const delta_action *cm = find_kind(&c, DELTA_ACTION_CHECKPOINT_METADATA, 0);
    CHECK(cm != NULL && find_kind(&c, DELTA_ACTION_CHECKPOINT_METADATA, 1) == NULL);
    if (cm) {
      CHECK_EQ_INT(cm->u.checkpoint_metadata.version, 5);
      CHECK(cm->u.checkpoint_metadata.tags != NULL &&
            strncmp(cm->u.checkpoint_metadata.tags, "{\"sidecarNumActions\":\"5\",\"sidecarSizeInBytes\":\"12588\",", 52) == 0);
    }
    const delta_action *sc = find_kind(&c, DELTA_ACTION_SIDECAR, 0);
    CHECK(sc != NULL);
    if (sc) {
      CHECK_STR(sc->u.sidecar.path,
                "00000000000000000005.checkpoint.0000000001.0000000001.014cb627-30e0-46dd-a539-09d3247e9b7d.parquet");
      CHECK_EQ_INT(sc->u.sidecar.size_in_bytes, 12588);
      CHECK_EQ_INT(sc->u.sidecar.modification_time, 1774385163552LL);
      CHECK(sc->u.sidecar.tags == NULL);
    }
    const delta_action *p = find_kind(&c, DELTA_ACTION_PROTOCOL, 0);
    CHECK(p != NULL);
    if (p) {
      CHECK_EQ_INT(p->u.protocol.min_reader_version, 3);
      CHECK_EQ_INT(p->u.protocol.min_writer_version, 7);
      CHECK(p->u.protocol.has_reader_features && p->u.protocol.has_writer_features);
      CHECK_EQ_INT(p->u.protocol.n_reader_features, 2);
      CHECK_EQ_INT(p->u.protocol.n_writer_features, 4);
      if (p->u.protocol.n_reader_features == 2) {
        CHECK_STR(p->u.protocol.reader_features[0], "deletionVectors");
        CHECK_STR(p->u.protocol.reader_features[1], "v2Checkpoint");
      }
      if (p->u.protocol.n_writer_features == 4) CHECK_STR(p->u.protocol.writer_features[3], "invariants");
    }
    CHECK(find_kind(&c, DELTA_ACTION_ADD, 0) == NULL); /* file actions live in the sidecar */
    free(c.v);
  }

  /* Application transactions. */
  if (capture("kernel-rs.app-txn-checkpoint", "00000000000000000001.checkpoint.parquet", &arena, &c) == 0) {
    int seen = 0;
    for (int i = 0; i < c.n; i++) {
      if (c.v[i].kind != DELTA_ACTION_TXN) continue;
      const delta_txn *t = &c.v[i].u.txn;
      if (strcmp(t->app_id, "my-app") == 0) {
        CHECK_EQ_INT(t->version, 3);
        seen++;
      } else if (strcmp(t->app_id, "my-app2") == 0) {
        CHECK_EQ_INT(t->version, 2);
        seen++;
      }
    }
    CHECK_EQ_INT(seen, 2);
    free(c.v);
  }

  /* Protocol without features: the lists are absent, not empty. */
  if (capture("delta-rs.latest_not_checkpointed", "00000000000000000002.checkpoint.parquet", &arena, &c) == 0) {
    const delta_action *p = find_kind(&c, DELTA_ACTION_PROTOCOL, 0);
    CHECK(p != NULL);
    if (p) {
      CHECK_EQ_INT(p->u.protocol.min_reader_version, 1);
      CHECK_EQ_INT(p->u.protocol.min_writer_version, 2);
      CHECK(!p->u.protocol.has_reader_features && p->u.protocol.reader_features == NULL);
    }
    const delta_action *r = find_kind(&c, DELTA_ACTION_REMOVE, 0);
    CHECK(r != NULL && r->u.remove.extended_file_metadata && !r->u.remove.data_change);
    free(c.v);
  }
  log_arena_dispose(&arena);
}

/* The golden tables named *corrupt* / *checkpoint-missing-*: their
 * checkpoint files read; what they lack is replay's to refuse. */
static void test_deliberately_incomplete(void) {
  static const struct {
    const char *table, *file;
    int protocols, metadatas;
    bool schema_null;
  } cases[] = {
      /* Spark test fixtures written with Metadata() defaults: no schemaString. */
      {"delta-golden.update-deleted-directory", "00000000000000000000.checkpoint.parquet", 1, 1, true},
      {"delta-golden.corrupted-last-checkpoint", "00000000000000000010.checkpoint.parquet", 1, 1, true},
      /* The protocol (resp. metaData) row was deleted from the checkpoint. */
      {"delta-golden.deltalog-state-reconstruction-from-checkpoint-missing-protocol",
       "00000000000000000010.checkpoint.parquet", 0, 1, true},
      {"kernel-rs-golden.deltalog-state-reconstruction-from-checkpoint-missing-protocol",
       "00000000000000000010.checkpoint.parquet", 0, 1, true},
      {"delta-golden.deltalog-state-reconstruction-from-checkpoint-missing-metadata",
       "00000000000000000010.checkpoint.parquet", 1, 0, false},
      {"kernel-rs-golden.deltalog-state-reconstruction-from-checkpoint-missing-metadata",
       "00000000000000000010.checkpoint.parquet", 1, 0, false},
      /* Its _last_checkpoint is not JSON; the checkpoint itself is fine. */
      {"kernel-rs-golden.corrupted-last-checkpoint-kernel", "00000000000000000010.checkpoint.parquet", 1, 1, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    delta_arena arena = DELTA_ARENA_INIT;
    captured c;
    if (capture(cases[i].table, cases[i].file, &arena, &c) == 0) {
      int np = 0, nm = 0;
      for (int k = 0; k < c.n; k++) {
        if (c.v[k].kind == DELTA_ACTION_PROTOCOL) np++;
        if (c.v[k].kind != DELTA_ACTION_METADATA) continue;
        nm++;
        CHECK(c.v[k].u.metadata.id != NULL);
        CHECK_EQ_INT(c.v[k].u.metadata.schema_string == NULL, cases[i].schema_null);
      }
      CHECK_EQ_INT(np, cases[i].protocols);
      CHECK_EQ_INT(nm, cases[i].metadatas);
      free(c.v);
    }
    log_arena_dispose(&arena);
  }
}

/* The callback's non-zero return stops the read and comes back as is. */
/* A checkpoint in five row groups (tests/unit/log/data/gen_row_groups_checkpoint.mjs):
 * protocol + metaData in the first, a remove and a txn in the third, adds
 * only elsewhere. Add-only row groups are read without the other action
 * columns; every action still comes, in file order, with its values, and
 * rows with equal partition values may share one array. */
static void test_row_groups(void) {
  const char *path = "tests/unit/log/data/row_groups.checkpoint.parquet";
  for (int mode = 0; mode < 3; mode++) {
    delta_arena arena = DELTA_ARENA_INIT;
    captured c = {0};
    int rc = log_checkpoint_read_parquet(path, &arena, mode, capture_cb, &c);
    if (rc) fprintf(stderr, "%s: %s\n", path, delta_error_last());
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(c.n, 8200);
    int next_add = 2, bad_order = 0, bad_values = 0, shared = 0;
    for (int i = 0; i < c.n; i++) {
      const delta_action *a = &c.v[i];
      if (i == 0) { CHECK_EQ_INT(a->kind, DELTA_ACTION_PROTOCOL); continue; }
      if (i == 1) {
        CHECK_EQ_INT(a->kind, DELTA_ACTION_METADATA);
        CHECK_STR(a->u.metadata.id, "rg-test");
        continue;
      }
      if (i == 5000) {
        CHECK_EQ_INT(a->kind, DELTA_ACTION_REMOVE);
        CHECK_STR(a->u.remove.path, "gone");
        CHECK_EQ_INT(a->u.remove.deletion_timestamp, 5);
        continue;
      }
      if (i == 5001) {
        CHECK_EQ_INT(a->kind, DELTA_ACTION_TXN);
        CHECK_STR(a->u.txn.app_id, "app");
        CHECK_EQ_INT(a->u.txn.version, 3);
        next_add = 5002;
        continue;
      }
      char want[32];
      snprintf(want, sizeof want, "f%d", next_add);
      if (a->kind != DELTA_ACTION_ADD || strcmp(a->u.add.path, want) != 0) { bad_order++; next_add++; continue; }
      const delta_add *ad = &a->u.add;
      int want_n = next_add % 5 == 0 ? 2 : 1;
      char pv[8];
      snprintf(pv, sizeof pv, "p%d", next_add % 3);
      bool ok = ad->size == next_add && ad->n_partition_values == want_n &&
                strcmp(ad->partition_values[0].key, "a") == 0 &&
                (next_add == 7 ? ad->partition_values[0].value == NULL
                               : strcmp(ad->partition_values[0].value, pv) == 0) &&
                (want_n == 1 || (strcmp(ad->partition_values[1].key, "b") == 0 &&
                                 strcmp(ad->partition_values[1].value, "q") == 0));
      if (mode == DELTA_CKPT_STATS_NONE) ok = ok && ad->stats == NULL && ad->num_records == -1;
      else if (mode == DELTA_CKPT_STATS_RECORDS) ok = ok && ad->stats == NULL && ad->num_records == next_add;
      else ok = ok && ad->stats && ad->num_records == next_add;
      if (!ok) bad_values++;
      if (i > 2 && c.v[i - 1].kind == DELTA_ACTION_ADD && c.v[i - 1].u.add.partition_values == ad->partition_values)
        shared++;
      next_add++;
    }
    CHECK_EQ_INT(bad_order, 0);
    CHECK_EQ_INT(bad_values, 0);
    CHECK_EQ_INT(next_add, 8200);
    CHECK_EQ_INT(shared, 0); /* neighbours differ (i % 3) */
    /* Rows three apart with the same single entry share their array (unless
     * a cache collision came between): most of them. */
    int same = 0;
    for (int i = 3; i + 3 < c.n; i++)
      if (c.v[i].kind == DELTA_ACTION_ADD && c.v[i + 3].kind == DELTA_ACTION_ADD &&
          c.v[i].u.add.partition_values == c.v[i + 3].u.add.partition_values)
        same++;
    CHECK(same > 4000);
    free(c.v);
    log_arena_dispose(&arena);
  }
}

static int stop_cb(const delta_action *a, void *payload) {
  (void)a;
  return ++*(int *)payload == 3 ? 42 : 0;
}

static void test_stop_and_errors(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/conformance/tables/delta-golden.dv-partitioned-with-checkpoint/_delta_log/"
           "00000000000000000010.checkpoint.parquet", shared_dir());
  delta_arena arena = DELTA_ARENA_INIT;
  int n = 0;
  CHECK_EQ_INT(log_checkpoint_read_parquet(path, &arena, true, stop_cb, &n), 42);
  CHECK_EQ_INT(n, 3);
  counts c = {0};
  CHECK_EQ_INT(log_checkpoint_read_parquet("/nonexistent/x.checkpoint.parquet", &arena, true, count_cb, &c),
               delta_error_last_code());
  CHECK(delta_error_last_code() != 0);
  CHECK(strstr(delta_error_last(), "checkpoint") != NULL);

  /* Damaged copies: truncated anywhere, or with bytes flipped, a read
   * either works or fails with a code (never crashes; ASan watches). */
  FILE *fp = fopen(path, "rb");
  CHECK(fp != NULL);
  if (!fp) return;
  static unsigned char orig[1 << 20], buf[1 << 20];
  size_t len = fread(orig, 1, sizeof orig, fp);
  fclose(fp);
  char tmp[64];
  snprintf(tmp, sizeof tmp, "/tmp/deltac_ckpt_%d.parquet", (int)getpid());
  unsigned seed = 12345;
  int n_fail = 0, n_corrupt = 0;
  for (int round = 0; round < 300; round++) {
    memcpy(buf, orig, len);
    size_t l = len;
    if (round < 40) {
      l = len * (size_t)round / 40; /* truncation: the footer is gone */
    } else {
      for (int k = 0; k < 4; k++) {
        seed = seed * 1103515245u + 12345u;
        buf[(seed >> 8) % len] ^= (unsigned char)(1u << ((seed >> 4) & 7));
      }
    }
    fp = fopen(tmp, "wb");
    fwrite(buf, 1, l, fp);
    fclose(fp);
    memset(&c, 0, sizeof c);
    int rc = log_checkpoint_read_parquet(tmp, &arena, true, count_cb, &c);
    counts_free(&c);
    if (round < 40) CHECK_EQ_INT(rc, DELTA_ECORRUPT);
    if (rc) n_fail++;
    if (rc == DELTA_ECORRUPT) n_corrupt++;
    CHECK(rc == 0 || rc == DELTA_ECORRUPT || rc == DELTA_EUNSUPPORTED || rc == DELTA_ELIMIT);
  }
  remove(tmp);
  printf("damaged copies: %d of 300 failed (%d DELTA_ECORRUPT), none crashed\n", n_fail, n_corrupt);
  log_arena_dispose(&arena);
}

int main(void) {
  test_dv_unique_id();
  test_values();
  test_row_groups();
  test_deliberately_incomplete();
  test_stop_and_errors();

  char tables[2048];
  snprintf(tables, sizeof tables, "%s/conformance/tables", shared_dir());
  int n = 0;
  char **names = list_dir(tables, &n);
  CHECK(names != NULL);
  for (int i = 0; i < n; i++) check_table(tables, names[i]);
  free_list(names, n);

  printf("checkpoint files read: %d (%lld actions), failed as expected: %d, _last_checkpoint sizes "
         "matched: %d (+%d known writer quirks), commits spot-checked: %d (%d adds)\n",
         n_files_read, n_actions_total, n_files_failed_as_expected, n_size_checks, n_size_quirks,
         n_spot_checks, n_spot_adds);
  CHECK(n_files_read >= 155);
  CHECK(n_size_checks >= 60);
  TEST_MAIN_END();
}
