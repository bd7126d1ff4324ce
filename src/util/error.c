/* Thread-local last error: one line per failure, set where the failure is
 * detected, read by the caller through delta_error_last(). */
#include "util/error_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[1024];
static _Thread_local int last_code;

const char *delta_error_last(void) { return last_msg; }

int delta_error_last_code(void) { return last_code; }

void delta_error_clear(void) {
  last_msg[0] = '\0';
  last_code = DELTA_OK;
}

const char *delta_error_name(int code) {
  switch (code) {
  case DELTA_OK: return "ok";
  case DELTA_ERROR: return "error";
  case DELTA_ENOTFOUND: return "not found";
  case DELTA_EEXISTS: return "exists";
  case DELTA_ECONFLICT: return "conflict";
  case DELTA_EUNSUPPORTED: return "unsupported";
  case DELTA_ECORRUPT: return "corrupt";
  case DELTA_EIO: return "io";
  case DELTA_EINVAL: return "invalid argument";
  case DELTA_ENOMEM: return "out of memory";
  case DELTA_ELIMIT: return "limit exceeded";
  case DELTA_ITEROVER: return "end of iteration";
  default: return "unknown error";
  }
}

int err_set(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_msg, sizeof last_msg, fmt, ap);
  va_end(ap);
  /* Keep the message on one line whatever the caller formatted into it. */
  for (char *p = last_msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  last_code = code;
  return code;
}

int err_prefix(const char *fmt, ...) {
  char head[512], old[sizeof last_msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  memcpy(old, last_msg, sizeof old);
  /* Truncation is acceptable: the message stays one bounded line. */
  size_t h = strlen(head);
  if (h > sizeof last_msg - 3) h = sizeof last_msg - 3;
  memcpy(last_msg, head, h);
  memcpy(last_msg + h, ": ", 2);
  size_t room = sizeof last_msg - h - 3, o = strlen(old);
  if (o > room) o = room;
  memcpy(last_msg + h + 2, old, o);
  last_msg[h + 2 + o] = '\0';
  return last_code;
}
