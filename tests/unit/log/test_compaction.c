/* Log compaction files: the segment uses the longest that fit, the
 * snapshot they give equals the one the commits give at every version,
 * and a broken compaction file falls back to the commits it covers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltac/error.h"
#include "log/snapshot.h"
#include "test.h"

#define TABLE "kernel-rs.compacted-log-files-table"

static char shared[512], tmp[512];

/* "path|dv" of every live file, sorted, as one string (caller frees). */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *state_of(const char *dir, int64_t version) {
  delta_table *t;
  delta_snapshot *s;
  if (delta_table_open(&t, dir)) return NULL;
  delta_snapshot_options o = DELTA_SNAPSHOT_OPTIONS_INIT;
  o.at_version = true;
  o.table_version = version;
  if (delta_snapshot_open(&s, t, &o)) {
    fprintf(stderr, "%s@%lld: %s\n", dir, (long long)version, delta_error_last());
    delta_table_free(t);
    return NULL;
  }
  char **keys = calloc((size_t)s->n_files + 1, sizeof *keys);
  size_t total = 1;
  for (int64_t i = 0; i < s->n_files; i++) {
    const delta_add *a = &s->files[i];
    size_t n = strlen(a->path) + (a->dv.unique_id ? strlen(a->dv.unique_id) : 0) + 3;
    keys[i] = malloc(n);
    snprintf(keys[i], n, "%s|%s\n", a->path, a->dv.unique_id ? a->dv.unique_id : "");
    total += n;
  }
  qsort(keys, (size_t)s->n_files, sizeof *keys, cmp_str);
  char *out = calloc(total + 64, 1);
  snprintf(out, 64, "%s %s\n", s->protocol.min_reader_version ? "p" : "-", s->metadata.id ? s->metadata.id : "-");
  for (int64_t i = 0; i < s->n_files; i++) {
    strcat(out, keys[i]);
    free(keys[i]);
  }
  free(keys);
  delta_snapshot_free(s);
  delta_table_free(t);
  return out;
}

static void run(const char *cmd) { CHECK(system(cmd) == 0); }

int main(void) {
  snprintf(shared, sizeof shared, "%s", getenv("DELTAC_SHARED") ? getenv("DELTAC_SHARED") : "../shared");
  snprintf(tmp, sizeof tmp, "%s/deltac-test-compaction", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  char cmd[8192], src[600], plain[700], broken[700];
  snprintf(src, sizeof src, "%s/conformance/tables/%s", shared, TABLE);
  snprintf(plain, sizeof plain, "%s/plain", tmp);
  snprintf(broken, sizeof broken, "%s/broken", tmp);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp -r '%s' '%s' && cp -r '%s' '%s' && rm '%s'/_delta_log/*.compacted.json",
           tmp, tmp, src, plain, src, broken, plain);
  run(cmd);
  /* one compaction file garbled: the commits it covers must be read instead */
  snprintf(cmd, sizeof cmd, "printf '{\"add\":{\"path\":' > '%s/_delta_log/00000000000000000006.00000000000000000015.compacted.json'",
           broken);
  run(cmd);

  /* the segment at the latest version uses 0-5 and 6-15 (the longest), not 6-10 */
  delta_table *t;
  CHECK_EQ_INT(delta_table_open(&t, src), 0);
  log_listing l;
  CHECK_EQ_INT(log_list(t->storage, &l), 0);
  log_segment seg;
  CHECK_EQ_INT(log_segment_build(&l, 25, INT64_MAX, &seg), 0);
  CHECK_EQ_INT(seg.n_commits, 26);
  CHECK_EQ_INT(log_segment_use_compactions(&l, &seg), 2);
  CHECK_EQ_INT(seg.n_commits, 12);
  CHECK_EQ_INT(seg.commits[0]->info.kind, LOG_COMPACTION);
  CHECK_EQ_INT(seg.commits[1]->info.end_version, 15);
  CHECK_EQ_INT(seg.commits[2]->info.version, 16);
  log_segment_dispose(&seg);
  /* never the segment's own version: at 15 only 0-5 and 6-10 fit */
  CHECK_EQ_INT(log_segment_build(&l, 15, INT64_MAX, &seg), 0);
  CHECK_EQ_INT(log_segment_use_compactions(&l, &seg), 2);
  CHECK_EQ_INT(seg.commits[1]->info.end_version, 10);
  CHECK_EQ_INT(seg.n_commits, 2 + 5);
  log_segment_dispose(&seg);
  log_listing_dispose(&l);
  delta_table_free(t);

  /* every version: compacted, commits only, and broken agree */
  for (int64_t v = 0; v <= 25; v++) {
    char *a = state_of(src, v), *b = state_of(plain, v), *c = state_of(broken, v);
    CHECK(a && b && c);
    if (a && b) CHECK_STR(a, b);
    if (b && c) CHECK_STR(c, b);
    free(a);
    free(b);
    free(c);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  run(cmd);
  printf("%d passed, %d failed\n", test_checks - test_failures, test_failures);
  return test_failures ? 1 : 0;
}
