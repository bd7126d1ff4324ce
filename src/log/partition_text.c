/* partitionValues text of Arrow values; see partition_text.h. */
#include "log/partition_text.h"

#include <stdio.h>
#include <string.h>

#include "arrow/array.h"
#include "arrow/format_internal.h"
#include "util/error_internal.h"

int log_partition_value_text(const char *f, const struct ArrowArray *a, int64_t i, delta_buf *out, bool *is_null) {
  *is_null = !arrow_is_valid(a, i);
  if (*is_null) return 0;
  int64_t k = a->offset + i;
  const void *v = a->buffers[1];
  switch (f[0]) {
  case 'u': case 'z': {
    const int32_t *o = v;
    return buf_append(out, (const char *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
  }
  case 'U': case 'Z': {
    const int64_t *o = v;
    return buf_append(out, (const char *)a->buffers[2] + o[k], (size_t)(o[k + 1] - o[k]));
  }
  case 'b': return buf_puts(out, arrow_bit_get(v, k) ? "true" : "false");
  case 'c': return buf_printf(out, "%d", ((const int8_t *)v)[k]);
  case 's': return buf_printf(out, "%d", ((const int16_t *)v)[k]);
  case 'i': return buf_printf(out, "%d", ((const int32_t *)v)[k]);
  case 'l': return buf_printf(out, "%lld", (long long)((const int64_t *)v)[k]);
  case 'f': return fmt_double(out, ((const float *)v)[k], true);
  case 'g': return fmt_double(out, ((const double *)v)[k], false);
  case 'd': {
    int p = 0, s = 0;
    sscanf(f, "d:%d,%d", &p, &s);
    return fmt_decimal(out, (const uint8_t *)v + 16 * k, 16, s);
  }
  case 't':
    if (strcmp(f, "tdD") == 0) return fmt_date(out, ((const int32_t *)v)[k], false);
    if (strncmp(f, "tsu:", 4) == 0) {
      size_t at = out->len;
      int rc = fmt_timestamp(out, ((const int64_t *)v)[k], 'u', f[4] != 0, false);
      /* timestamp_ntz the way Spark writes it: a space, no zone */
      if (!rc && !f[4]) out->data[at + 10] = ' ';
      return rc;
    }
    break;
  }
  return err_set(DELTA_EUNSUPPORTED, "cannot partition on a column of Arrow type %s", f);
}
