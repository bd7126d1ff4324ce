/* Calendar arithmetic on Delta's date (days since 1970-01-01) and
 * timestamp (microseconds since the epoch, read as UTC) values, proleptic
 * Gregorian as Spark's. */
#ifndef DELTAC_EXPR_DATE_MATH_H
#define DELTAC_EXPR_DATE_MATH_H

#include <stdbool.h>
#include <stdint.h>

#define DM_US_PER_DAY 86400000000LL

/* Floor division (dates before 1970 and timestamps before the epoch). */
int64_t dm_floor_div(int64_t a, int64_t b);

/* add_months: the same day of the month n months on, clamped to that
 * month's last day (2024-01-31 + 1 month = 2024-02-29). false when the year
 * leaves -290000..290000 (far beyond any timestamp). */
bool dm_add_months(int64_t days, int64_t n, int64_t *out);

/* date_trunc units, in the order dm_trunc_unit returns them. */
enum { DM_YEAR, DM_QUARTER, DM_MONTH, DM_WEEK, DM_DAY, DM_HOUR, DM_MINUTE, DM_SECOND, DM_MILLISECOND,
       DM_MICROSECOND };
/* A unit's name (YEAR, YYYY, YY, QUARTER, MONTH, MM, MON, WEEK, DAY, DD,
 * HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, any case), or -1. */
int dm_trunc_unit(const char *name, int len);
/* A timestamp truncated to the unit (WEEK: back to Monday). */
int64_t dm_trunc(int64_t us, int unit);

/* "2024-01-31" / "2024-01-31 10:00:00[.ffffff]" (trailing zeros of the
 * fraction dropped, as Spark casts to string); buf of 40 bytes. */
int dm_format_date(int64_t days, char *buf);
int dm_format_ts(int64_t us, char *buf);

#endif
