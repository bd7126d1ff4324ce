/*
 * Checkpoint read throughput: reads one Parquet checkpoint N times with
 * log_checkpoint_read_parquet (a fresh arena each time, freed after) and
 * prints actions/s, with and without add.stats. Not a test.
 *
 *   bench_checkpoint FILE [N]         (N: runs per mode, default 5)
 *
 * A 1M-add Spark-shaped checkpoint comes from `node bench/gen_checkpoint.mjs`.
 * Build from the repo root: gcc -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Isrc, the sources of
 * src/util, src/parquet, src/arrow, src/log/{arena,actions,checkpoint_read}.c and this
 * file, linked with -lzstd -llz4 -lsnappy -lbrotlidec -lz -lm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "deltac/error.h"
#include "log/actions.h"
#include "log/arena.h"
#include "log/checkpoint_read.h"

typedef struct {
  long long actions, adds;
  long long bytes; /* path + stats bytes touched, to keep the work honest */
} tally;

static int count_cb(const delta_action *a, void *payload) {
  tally *t = payload;
  t->actions++;
  if (a->kind == DELTA_ACTION_ADD) {
    t->adds++;
    t->bytes += a->u.add.path[0] + (a->u.add.stats ? a->u.add.stats[0] : 0);
  }
  return 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_checkpoint FILE [N]\n");
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (runs < 1) runs = 1;
  for (int mode = 0; mode < 2; mode++) {
    bool want_stats = mode == 0;
    double best = 1e30, total = 0;
    tally t = {0};
    size_t arena_bytes = 0;
    for (int r = 0; r < runs; r++) {
      delta_arena arena = DELTA_ARENA_INIT;
      tally one = {0};
      double t0 = now();
      int rc = log_checkpoint_read_parquet(argv[1], &arena, want_stats, count_cb, &one);
      double dt = now() - t0;
      arena_bytes = arena.total;
      log_arena_dispose(&arena);
      if (rc) {
        fprintf(stderr, "bench_checkpoint: %s\n", delta_error_last());
        return 1;
      }
      if (dt < best) best = dt;
      total += dt;
      t = one;
    }
    printf("%-13s %lld actions (%lld adds): best %.3f s, mean %.3f s, %.2f M actions/s, arena %.0f MB\n",
           want_stats ? "with stats" : "without stats", t.actions, t.adds, best, total / runs,
           (double)t.actions / best / 1e6, (double)arena_bytes / 1e6);
  }
  return 0;
}
