/* deltac serve: query parameters shared by the change and row endpoints. */
#ifndef DELTAC_SERVE_API_PARAMS_H
#define DELTAC_SERVE_API_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "deltac/changes.h"
#include "deltac/scan.h"
#include "serve/body_stream.h"

struct MHD_Connection;

typedef struct {
  serve_format fmt;
  int64_t limit;        /* < 0: all rows */
  char **columns;       /* NULL-terminated, one allocation (mem_free) */
  size_t n_columns;
  const char *filter;   /* borrowed from the request, or NULL */
} api_output;

/* from/to or from_timestamp/to_timestamp into co. -1 with *err set on a bad
 * parameter. */
int api_parse_range(struct MHD_Connection *c, delta_changes_options *co, const char **err);
/* format, limit, columns, filter. -1 with *err set on a bad parameter. */
int api_parse_output(struct MHD_Connection *c, api_output *o, const char **err);

/* Hand `filter` (NULL: none, borrowed) to the options. */
int api_set_changes_filter(delta_changes_options *co, const char *filter);
int api_set_scan_filter(delta_scan_options *so, const char *filter);

#endif
