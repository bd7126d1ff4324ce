/* A progress bar on stderr for long library operations (optimize, vacuum):
 * drawn only when stderr is a terminal (or DELTAC_PROGRESS=always), at most
 * ten times a second, and wiped when the operation ends, so that output to
 * pipes and files stays clean. */
#ifndef DELTAC_CLI_PROGRESS_H
#define DELTAC_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "deltac/maintenance.h"

typedef struct {
  const char *label;
  bool enabled;
  bool drawn;
  int64_t start_ms, last_ms;
} cli_progress;

void cli_progress_init(cli_progress *p, const char *label);
/* The library's callback; ctx is the cli_progress. */
void cli_progress_update(void *ctx, const delta_progress *p);
/* Wipe the bar (before printing results or an error). */
void cli_progress_end(cli_progress *p);

#endif
