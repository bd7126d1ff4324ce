/*
 * The Arrow C Data Interface and C Stream Interface, exactly as the Arrow
 * specification defines them (guards included), so that deltac's results can
 * be handed to any Arrow consumer without copying.
 */
#ifndef DELTAC_ARROW_ABI_H
#define DELTAC_ARROW_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  /* Array type description */
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  /* Release callback */
  void (*release)(struct ArrowSchema*);
  /* Opaque producer-specific data */
  void* private_data;
};

struct ArrowArray {
  /* Array data description */
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  /* Release callback */
  void (*release)(struct ArrowArray*);
  /* Opaque producer-specific data */
  void* private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  /* Callback to get the stream type (will be the same for all arrays in the stream). */
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  /* Callback to get the next array (if no error and the array is released, the stream has ended) */
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  /* Callback to get optional detailed error information. */
  const char* (*get_last_error)(struct ArrowArrayStream*);
  /* Release callback */
  void (*release)(struct ArrowArrayStream*);
  /* Opaque producer-specific data */
  void* private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

#ifdef __cplusplus
}
#endif

#endif /* DELTAC_ARROW_ABI_H */
