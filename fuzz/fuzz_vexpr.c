/* Fuzz target for SET value expressions (UPDATE, MERGE): parse any text,
 * then bind it for columns of every kind the evaluator writes (integers,
 * doubles, strings, booleans, decimals, dates, timestamps) over a batch
 * with such columns (values at the extremes of their types, negative
 * values, nulls) and evaluate it. Errors are fine; crashes, leaks, hangs
 * and sanitizer reports are not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr/value_eval.h"
#include "log/table_schema.h"
#include "util/alloc_internal.h"
#include "write/input_text.h"
#include "log/schema_build.h"

static const char rows[] =
    "{\"i\":7,\"l\":-9223372036854775807,\"a\":\"-12345678.99\",\"big\":\"99999999999999999999999999.999999999999\","
    "\"d\":\"2024-02-29\",\"ts\":\"1969-12-31T23:59:59.999999Z\",\"tn\":\"9999-12-31T23:59:59\",\"s\":\"2024-01-01\","
    "\"f\":1e308,\"b\":true}\n"
    "{\"i\":0,\"l\":0,\"a\":\"0.01\",\"big\":\"-0.000000000001\",\"d\":\"0001-01-01\",\"ts\":\"2024-03-10T10:30:00Z\","
    "\"tn\":\"1900-01-01T00:00:00\",\"s\":\"x\",\"f\":-0.0,\"b\":false}\n"
    "{\"i\":null}\n";

static const char *targets[] = {"l", "i", "g", "u", "b", "d:10,2", "d:38,6", "d:38,0", "tdD", "tsu:UTC", "tsu:"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  vexpr *e = NULL;
  if (vexpr_parse(text, &e) == 0) {
    delta_type *schema = NULL;
    struct ArrowArrayStream st;
    struct ArrowSchema sch;
    struct ArrowArray batch;
    char *json = delta_malloc(sizeof rows);
    if (json && schema_parse_text("i int, l long, a decimal(10,2), big decimal(38,12), d date, ts timestamp, "
                                  "tn timestamp_ntz, s string, f double, b boolean", &schema) == 0) {
      memcpy(json, rows, sizeof rows);
      if (input_text_stream(json, sizeof rows - 1, INPUT_NDJSON, schema, 0, &st) == 0) {
        if (st.get_schema(&st, &sch) == 0) {
          if (st.get_next(&st, &batch) == 0 && batch.release) {
            for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
              struct ArrowArray out;
              if (vexpr_bind(e, &sch, targets[k], "c") == 0 && vexpr_eval(e, &batch, &out) == 0) out.release(&out);
            }
            batch.release(&batch);
          }
          sch.release(&sch);
        }
        st.release(&st);
      }
    } else {
      delta_free(json);
    }
    delta_type_free(schema);
    vexpr_free(e);
  }
  free(text);
  return 0;
}
