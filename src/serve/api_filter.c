/* deltac serve: the `filter` parameter.
 *
 * TODO(filter): the library's filter language (delta_scan_options.filter,
 * delta_changes_options.filter) is being added; until it is in
 * include/deltac/scan.h a filter is refused with 400 rather than ignored,
 * since ignoring it would return rows the client asked to exclude. */
#include "serve/api_params.h"
#include "util/error_internal.h"

int api_set_changes_filter(delta_changes_options *co, const char *filter) {
  (void)co;
  if (!filter) return 0;
  return delta_error_set(DELTA_EUNSUPPORTED, "filter is not supported by this build yet");
}

int api_set_scan_filter(delta_scan_options *so, const char *filter) {
  (void)so;
  if (!filter) return 0;
  return delta_error_set(DELTA_EUNSUPPORTED, "filter is not supported by this build yet");
}
