/* Fuzz target over whole Parquet files: footer, schema tree, page headers,
 * every decoder, record assembly and the NDJSON formatter. Any input must
 * give either rows or a clean error. */
#include <stdint.h>
#include <stddef.h>

#include "arrow/format.h"
#include "arrow/format_internal.h"
#include "deltac/error.h"
#include "deltac/parquet.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  delta_parquet_file *f = NULL;
  if (delta_parquet_open_memory(&f, data, size, "fuzz") != 0) return 0;
  delta_parquet_read_options ro = DELTA_PARQUET_READ_OPTIONS_INIT;
  ro.batch_rows = 100; /* several batches per row group: exercises record boundaries */
  struct ArrowArrayStream s;
  if (delta_parquet_read(f, &ro, &s) == 0) {
    struct ArrowSchema schema;
    arrow_type *t = NULL;
    if (s.get_schema(&s, &schema) == 0) {
      if (arrow_type_parse(&schema, &t) != 0) t = NULL;
      schema.release(&schema);
    }
    delta_buf out = DELTA_BUF_INIT;
    for (int batches = 0; batches < 1000; batches++) {
      struct ArrowArray a;
      if (s.get_next(&s, &a) != 0 || !a.release) break;
      /* Render every value: catches offsets or lengths that point outside buffers. */
      for (int64_t c = 0; t && c < a.n_children; c++)
        for (int64_t i = 0; i < a.length; i++) {
          out.len = 0;
          arrow_value_json(&out, t->children[c], a.children[c], i);
        }
      a.release(&a);
    }
    buf_dispose(&out);
    arrow_type_free(t);
    s.release(&s);
  }
  for (int g = 0; g < delta_parquet_num_row_groups(f); g++)
    for (int c = 0; c < delta_parquet_num_leaves(f); c++) {
      delta_parquet_stats st;
      delta_parquet_column_stats(f, g, c, &st);
    }
  delta_parquet_free(f);
  return 0;
}
