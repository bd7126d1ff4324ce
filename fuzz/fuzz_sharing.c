/* Fuzz target for Delta Sharing's JSON predicate hints (src/serve/
 * sharing_hints.c): the input is a predicate tree; whatever text the
 * converter makes of it must be a valid filter-language predicate, so a
 * client's hint never becomes an expression deltac cannot parse. */
#include <stdint.h>
#include <stdlib.h>

#include "expr/expr.h"
#include "json/json.h"
#include "serve/sharing_hints.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  delta_json_doc *doc = NULL;
  if (json_doc_new(&doc)) return 0;
  delta_buf text = DELTA_BUF_INIT;
  if (json_parse(doc, (const char *)data, size) == 0 &&
      sharing_json_predicate_text(json_root(doc), &text) == 0) {
    expr_node *e = NULL;
    if (expr_parse((const char *)text.data, &e)) abort();
    expr_free(e);
  }
  buf_dispose(&text);
  json_doc_free(doc);
  return 0;
}
