/* Fuzz target over Arrow IPC streams (`deltac write --format arrow`): decode
 * the stream, then render its schema and every batch as NDJSON the way
 * `deltac` consumers read every value. */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "arrow/format.h"
#include "arrow/ipc_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ArrowArrayStream st;
  struct ArrowSchema schema;
  arrow_text_writer *tw = NULL;
  FILE *sink = fopen("/dev/null", "w");
  if (!sink) return 0;
  if (arrow_ipc_read(data, size, &st)) {
    fclose(sink);
    return 0;
  }
  if (st.get_schema(&st, &schema) == 0) {
    if (arrow_text_writer_new(&tw, ARROW_FMT_NDJSON, &schema, sink)) tw = NULL;
    schema.release(&schema);
  }
  for (;;) {
    struct ArrowArray batch;
    if (st.get_next(&st, &batch) || !batch.release) break;
    if (tw) arrow_text_writer_write(tw, &batch, -1);
    batch.release(&batch);
  }
  if (tw) arrow_text_writer_finish(tw);
  arrow_text_writer_free(tw);
  st.release(&st);
  fclose(sink);
  return 0;
}
