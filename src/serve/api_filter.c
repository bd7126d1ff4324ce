/* deltac serve: the `filter` parameter, handed to the library's filter
 * language (docs/filters.md). Syntax and binding errors come back from the
 * read as DELTA_EINVAL, which the endpoints answer with 400. */
#include "serve/api_params.h"

int api_set_changes_filter(delta_changes_options *co, const char *filter) {
  co->filter = filter;
  return 0;
}

int api_set_scan_filter(delta_scan_options *so, const char *filter) {
  so->filter = filter;
  return 0;
}
