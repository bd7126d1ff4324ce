/* Setting the thread-local last error from inside the library. */
#ifndef DELTAC_UTIL_ERROR_INTERNAL_H
#define DELTAC_UTIL_ERROR_INTERNAL_H

#include "deltac/error.h"

#if defined(__GNUC__)
#define DELTA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DELTA_PRINTF(a, b)
#endif

/* Record `code` with a printf-style message and return `code`. */
int err_set(int code, const char *fmt, ...) DELTA_PRINTF(2, 3);

/* Put context in front of the current message ("file.parquet: <old>") and
 * return the current code; used when an error crosses a layer. */
int err_prefix(const char *fmt, ...) DELTA_PRINTF(1, 2);

#define DELTA_NOMEM() err_set(DELTA_ENOMEM, "out of memory")

#endif
