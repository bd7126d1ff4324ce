/*
 * deltac's error model: every fallible function returns an int, 0 on success
 * or one of the negative codes below, and leaves a one-line message in a
 * thread-local slot that delta_error_last() returns.
 */
#ifndef DELTAC_ERROR_H
#define DELTAC_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Pinned values: they are part of the ABI and never change meaning. */
typedef enum {
  DELTA_OK = 0,
  DELTA_ERROR = -1,        /* generic failure */
  DELTA_ENOTFOUND = -2,    /* a file, table, column or version does not exist */
  DELTA_EEXISTS = -3,      /* put-if-absent lost: the object already exists */
  DELTA_ECONFLICT = -4,    /* a concurrent commit conflicts with this transaction */
  DELTA_EUNSUPPORTED = -5, /* valid input using a feature deltac does not support */
  DELTA_ECORRUPT = -6,     /* input that breaks its format's rules */
  DELTA_EIO = -7,          /* the operating system or storage failed */
  DELTA_EINVAL = -8,       /* a bad argument from the caller */
  DELTA_ENOMEM = -9,       /* an allocation failed */
  DELTA_ELIMIT = -10,      /* a configured size or count limit was exceeded */
  DELTA_ITEROVER = -31     /* an iterator has no more items (not an error) */
} delta_error_code;

/* The message of the last error on this thread; never NULL ("" when none). */
const char *delta_error_last(void);

/* The code of the last error on this thread (DELTA_OK when none). */
int delta_error_last_code(void);

/* Forget the last error on this thread. */
void delta_error_clear(void);

/* A short constant name for a code, e.g. "corrupt". */
const char *delta_error_name(int code);

#ifdef __cplusplus
}
#endif

#endif /* DELTAC_ERROR_H */
