/* Shared between the text formatters. */
#ifndef DELTAC_ARROW_FORMAT_INTERNAL_H
#define DELTAC_ARROW_FORMAT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"

typedef enum {
  AT_NULL, AT_BOOL, AT_INT, AT_UINT, AT_FLOAT, AT_DECIMAL, AT_STRING, AT_BINARY, AT_FIXED,
  AT_DATE, AT_TIME, AT_TIMESTAMP, AT_LIST, AT_FIXED_LIST, AT_STRUCT, AT_MAP
} arrow_kind;

struct arrow_type {
  arrow_kind kind;
  char *name;           /* copied from the schema */
  int width;            /* bytes per value; list size for fixed-size lists */
  int precision, scale; /* decimals */
  char unit;            /* 's', 'm', 'u', 'n' for time and timestamps */
  bool utc;             /* timestamp with a time zone */
  bool large;           /* 64-bit offsets */
  bool is_uuid;
  bool raw_json;        /* utf8 whose text is JSON to embed as is (deltac.raw_json) */
  bool string_keys;     /* maps */
  struct arrow_type **children;
  int n_children;
};

int fmt_json_string(delta_buf *out, const uint8_t *s, size_t n);
int fmt_double(delta_buf *out, double v, bool single);
int fmt_decimal(delta_buf *out, const uint8_t *p, int w, int scale);
int fmt_timestamp(delta_buf *out, int64_t v, char unit, bool utc, bool quote);
int fmt_date(delta_buf *out, int64_t days, bool quote);
int fmt_base64(delta_buf *out, const uint8_t *p, size_t n);

#endif
