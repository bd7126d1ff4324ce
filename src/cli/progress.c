/* The progress bar; see progress.h. */
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cli_progress_init(cli_progress *p, const char *label) {
  memset(p, 0, sizeof *p);
  p->label = label;
  const char *env = getenv("DELTAC_PROGRESS");
  p->enabled = env ? strcmp(env, "always") == 0 : isatty(2);
  p->start_ms = mono_ms();
}

/* "1.5 MB" style, into buf. */
static void human(double b, char *buf, size_t n) {
  static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, u++;
  snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, units[u]);
}

void cli_progress_update(void *ctx, const delta_progress *d) {
  cli_progress *p = ctx;
  if (!p->enabled) return;
  int64_t now = mono_ms();
  bool last = d->files_done >= d->files_total;
  if (p->drawn && !last && now - p->last_ms < 100) return;
  p->last_ms = now;
  /* the fraction by bytes when known, else by files */
  double frac = d->bytes_total > 0 ? (double)d->bytes_done / (double)d->bytes_total
                : d->files_total > 0 ? (double)d->files_done / (double)d->files_total : 1;
  if (frac > 1) frac = 1;
  char bar[31];
  int fill = (int)(frac * 30);
  for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
  bar[30] = 0;
  char done[32], total[32], eta[32] = "";
  human((double)d->bytes_done, done, sizeof done);
  human((double)d->bytes_total, total, sizeof total);
  double elapsed = (double)(now - p->start_ms) / 1000;
  if (frac > 0 && frac < 1) snprintf(eta, sizeof eta, " ETA %.0fs", elapsed * (1 - frac) / frac);
  fprintf(stderr, "\r%s %s [%s] %lld/%lld files %s/%s%s\033[K", p->label, d->phase ? d->phase : "", bar,
          (long long)d->files_done, (long long)d->files_total, done, total, eta);
  fflush(stderr);
  p->drawn = true;
}

void cli_progress_end(cli_progress *p) {
  if (!p->drawn) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  p->drawn = false;
}
