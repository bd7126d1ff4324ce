/* libFuzzer target for the Parquet footer and page-header decoder: any input
 * must give success or a clean error, never a crash, leak or overread. */
#include <stddef.h>
#include <stdint.h>

#include "parquet/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pq_file_metadata *md = NULL;
  if (pq_metadata_parse(data, size, &md) == 0) {
    /* Touch what a reader would use, so ASan sees any bad pointer. */
    volatile size_t sink = 0;
    for (int32_t i = 0; i < md->num_schema; i++) sink += md->schema[i].name[0];
    for (int32_t g = 0; g < md->num_row_groups; g++)
      for (int32_t c = 0; c < md->row_groups[g].num_columns; c++) {
        const pq_column_meta *cm = &md->row_groups[g].columns[c].meta_data;
        for (int32_t k = 0; k < cm->path_len; k++) sink += cm->path_in_schema[k][0];
        for (int32_t k = 0; k < cm->num_encodings; k++) sink += (size_t)cm->encodings[k];
        if (cm->statistics.min_value.ptr && cm->statistics.min_value.len)
          sink += cm->statistics.min_value.ptr[cm->statistics.min_value.len - 1];
      }
    for (int32_t i = 0; i < md->num_column_orders; i++) sink += md->column_orders[i];
    for (int32_t i = 0; i < md->num_kv; i++)
      if (md->kv[i].key.len) sink += md->kv[i].key.ptr[md->kv[i].key.len - 1];
    (void)sink;
    pq_metadata_free(md);
  }
  /* The same bytes as a run of page headers. */
  size_t off = 0;
  for (int n = 0; n < 64 && off < size; n++) {
    pq_page_header h;
    size_t used = 0;
    if (pq_page_header_parse(data + off, size - off, &h, &used) != 0) break;
    if (used == 0 || used > size - off) __builtin_trap(); /* contract: consumed is within the buffer */
    off += used;
    if ((size_t)h.compressed_page_size > size - off) break;
    off += (size_t)h.compressed_page_size;
  }
  return 0;
}
