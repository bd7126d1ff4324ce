/* Calendar arithmetic; see date_math.h. */
#include "expr/date_math.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/time_parse.h"

int64_t dm_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The inverse of time_days_from_civil (era arithmetic over 400-year
 * cycles, so it holds for any day). */
static void dm_civil(int64_t z, int64_t *y, unsigned *m, unsigned *d) { time_civil_from_days(z, y, m, d); }

static unsigned month_days(int64_t y, unsigned m) {
  static const unsigned n[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : n[m - 1];
}

bool dm_add_months(int64_t days, int64_t n, int64_t *out) {
  if (n > 4000000 || n < -4000000) return false;
  int64_t y;
  unsigned m, d;
  dm_civil(days, &y, &m, &d);
  int64_t idx = y * 12 + (m - 1) + n;
  int64_t ny = dm_floor_div(idx, 12);
  unsigned nm = (unsigned)(idx - ny * 12) + 1;
  if (ny > 290000 || ny < -290000) return false;
  unsigned last = month_days(ny, nm);
  *out = time_days_from_civil(ny, nm, d > last ? last : d);
  return true;
}

int dm_trunc_unit(const char *name, int len) {
  static const struct { const char *n; int u; } units[] = {
      {"year", DM_YEAR}, {"yyyy", DM_YEAR}, {"yy", DM_YEAR}, {"quarter", DM_QUARTER}, {"month", DM_MONTH},
      {"mm", DM_MONTH}, {"mon", DM_MONTH}, {"week", DM_WEEK}, {"day", DM_DAY}, {"dd", DM_DAY},
      {"hour", DM_HOUR}, {"minute", DM_MINUTE}, {"second", DM_SECOND}, {"millisecond", DM_MILLISECOND},
      {"microsecond", DM_MICROSECOND}};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if ((int)strlen(units[i].n) == len && strncasecmp(units[i].n, name, (size_t)len) == 0) return units[i].u;
  return -1;
}

int64_t dm_trunc(int64_t us, int unit) {
  static const int64_t step[] = {0, 0, 0, 0, DM_US_PER_DAY, 3600000000LL, 60000000LL, 1000000LL, 1000LL, 1LL};
  if (unit >= DM_DAY) return dm_floor_div(us, step[unit]) * step[unit];
  int64_t days = dm_floor_div(us, DM_US_PER_DAY);
  if (unit == DM_WEEK) {
    /* 1970-01-01 was a Thursday: Monday-based weekday is (days + 3) mod 7 */
    int64_t wd = days + 3 - dm_floor_div(days + 3, 7) * 7;
    return (days - wd) * DM_US_PER_DAY;
  }
  int64_t y;
  unsigned m, d;
  dm_civil(days, &y, &m, &d);
  if (unit == DM_YEAR) m = 1;
  else if (unit == DM_QUARTER) m = (m - 1) / 3 * 3 + 1;
  return time_days_from_civil(y, m, 1) * DM_US_PER_DAY;
}

int dm_format_date(int64_t days, char *buf) {
  int64_t y;
  unsigned m, d;
  dm_civil(days, &y, &m, &d);
  return snprintf(buf, 40, "%04lld-%02u-%02u", (long long)y, m, d);
}

int dm_format_ts(int64_t us, char *buf) {
  int64_t days = dm_floor_div(us, DM_US_PER_DAY), rest = us - days * DM_US_PER_DAY;
  int n = dm_format_date(days, buf);
  int64_t secs = rest / 1000000, frac = rest % 1000000;
  n += snprintf(buf + n, (size_t)(40 - n), " %02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
                (int)(secs % 60));
  if (frac) {
    int digits = 6;
    while (frac % 10 == 0) frac /= 10, digits--;
    n += snprintf(buf + n, (size_t)(40 - n), ".%0*lld", digits, (long long)frac);
  }
  return n;
}
