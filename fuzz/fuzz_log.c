/* Fuzz target over Delta log text: commit lines (every action kind), schema
 * strings, timestamps, _last_checkpoint and .crc checksums. The first byte
 * picks what the rest is. */
#include <stdint.h>
#include <stddef.h>

#include "json/json.h"
#include "log/action_json.h"
#include "log/crc.h"
#include "log/last_checkpoint.h"
#include "log/table_schema.h"
#include "util/time_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(const delta_action *a, void *payload) {
  (void)a;
  ++*(int *)payload;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *text = (const char *)data + 1;
  size_t n = size - 1;
  switch (data[0] % 5) {
  case 0: {
    delta_arena arena = DELTA_ARENA_INIT;
    delta_json_doc *doc = NULL;
    int actions = 0;
    if (json_doc_new(&doc) == 0) log_actions_parse_json("fuzz.json", text, n, &arena, doc, count, &actions);
    json_doc_free(doc);
    log_arena_dispose(&arena);
    break;
  }
  case 1: {
    delta_type *t = NULL;
    if (log_schema_parse(text, n, &t) == 0) {
      delta_buf b = DELTA_BUF_INIT;
      log_schema_tree(t, &b);
      log_type_name(t, &b);
      struct ArrowSchema s;
      if (log_schema_to_arrow(t, &s) == 0) s.release(&s);
      buf_dispose(&b);
      log_type_free(t);
    }
    break;
  }
  case 3:
    log_last_checkpoint_parse(text, n);
    break;
  case 4: {
    delta_arena arena = DELTA_ARENA_INIT;
    log_crc crc;
    log_crc_parse("fuzz.crc", text, n, &arena, &crc);
    log_arena_dispose(&arena);
    break;
  }
  default: {
    char buf[128];
    size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
    for (size_t i = 0; i < k; i++) buf[i] = text[i] ? text[i] : ' ';
    buf[k] = '\0';
    int64_t ms;
    time_parse_ms(buf, &ms);
    break;
  }
  }
  return 0;
}
