/* ISO-8601 timestamps to and from milliseconds since the Unix epoch (UTC). */
#ifndef DELTAC_UTIL_TIME_PARSE_H
#define DELTAC_UTIL_TIME_PARSE_H

#include <stdint.h>

/* Accepts "YYYY-MM-DD", "YYYY-MM-DD[T ]HH:MM[:SS[.fff...]]" with an optional
 * "Z" or "+HH:MM"/"-HH:MM" offset (none means UTC), and plain integers as
 * milliseconds since the epoch. Sub-millisecond digits are truncated.
 * DELTA_EINVAL with the text in the message otherwise. */
int time_parse_ms(const char *s, int64_t *out_ms);

/* The same text (without the plain-integer form) to microseconds. */
int time_parse_us(const char *s, int64_t *out_us);

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" into buf (at least 32 bytes). */
void time_format_ms(int64_t ms, char *buf);

/* Days since 1970-01-01 for a civil date, and back. */
int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d);
void time_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

#endif
