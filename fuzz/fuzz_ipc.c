/* Fuzz target over Arrow IPC streams (`deltac write --format arrow`): decode
 * the stream, then walk its schema and every batch the way a consumer does. */
#include <stdint.h>
#include <stddef.h>

#include "arrow/ipc_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ArrowArrayStream st;
  if (arrow_ipc_read(data, size, &st)) return 0;
  struct ArrowSchema schema;
  if (st.get_schema(&st, &schema) == 0) schema.release(&schema);
  for (;;) {
    struct ArrowArray batch;
    if (st.get_next(&st, &batch) || !batch.release) break;
    batch.release(&batch);
  }
  st.release(&st);
  return 0;
}
