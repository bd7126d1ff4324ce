#include "util/time_parse.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_internal.h"

int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void time_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
  *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static int num(const char **p, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (!isdigit((unsigned char)(*p)[i])) return -1;
    v = v * 10 + ((*p)[i] - '0');
  }
  *p += n;
  *out = v;
  return 0;
}

int time_parse_ms(const char *s, int64_t *out) {
  /* All digits: milliseconds since the epoch. */
  const char *q = s;
  if (*q == '-') q++;
  if (*q && strspn(q, "0123456789") == strlen(q) && strlen(q) > 4) {
    *out = strtoll(s, NULL, 10);
    return 0;
  }
  int64_t us;
  int rc = time_parse_us(s, &us);
  if (rc) return rc;
  *out = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
  return 0;
}

/* False when s is not an ISO-8601 date or timestamp. */
static bool parse_iso(const char *s, int64_t *out) {
  const char *p = s;
  int y, mo, d, h = 0, mi = 0, sec = 0;
  int64_t frac_us = 0;
  if (num(&p, 4, &y) || *p++ != '-' || num(&p, 2, &mo) || *p++ != '-' || num(&p, 2, &d)) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
  if (*p == 'T' || *p == ' ') {
    p++;
    if (num(&p, 2, &h) || *p++ != ':' || num(&p, 2, &mi)) return false;
    if (*p == ':') {
      p++;
      if (num(&p, 2, &sec)) return false;
      if (*p == '.') {
        p++;
        int k = 0;
        while (isdigit((unsigned char)*p)) {
          if (k < 6) frac_us = frac_us * 10 + (*p - '0');
          k++;
          p++;
        }
        if (k == 0) return false;
        for (; k < 6; k++) frac_us *= 10;
      }
    }
    if (h > 23 || mi > 59 || sec > 60) return false;
  }
  int64_t offset_min = 0;
  if (*p == 'Z' || *p == 'z') {
    p++;
  } else if (*p == '+' || *p == '-') {
    int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
    if (num(&p, 2, &oh)) return false;
    if (*p == ':') p++;
    if (*p && num(&p, 2, &om)) return false;
    offset_min = sign * (oh * 60 + om);
  }
  if (*p) return false;
  int64_t days = time_days_from_civil(y, (unsigned)mo, (unsigned)d);
  *out = ((days * 86400 + h * 3600 + mi * 60 + sec) - offset_min * 60) * 1000000 + frac_us;
  return true;
}

int time_parse_us(const char *s, int64_t *out) {
  if (!parse_iso(s, out))
    return err_set(DELTA_EINVAL, "'%s' is not a timestamp (use ISO-8601, e.g. 2024-05-01T12:00:00Z)", s);
  return 0;
}

void time_format_ms(int64_t ms, char *buf) {
  int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  int64_t msr = ms - secs * 1000;
  int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  int64_t sod = secs - days * 86400;
  int64_t y;
  unsigned m, d;
  time_civil_from_days(days, &y, &m, &d);
  sprintf(buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", (long long)y, m, d, (int)(sod / 3600), (int)(sod / 60 % 60),
          (int)(sod % 60), (int)msr);
}
