/* The value classes of value expressions (value.h's value_type, the one
 * type enum of the expression language): which class an Arrow column
 * computes in, what messages call a class, and the Arrow format a class is
 * evaluated into. The coercion rules themselves are in bind_value.c, next
 * to the operators they belong to. */
#include "expr/expr_internal.h"

value_type expr_vtype_of_format(const char *f, int *prec, int *scale) {
  *prec = 0;
  *scale = 0;
  switch (f[0]) {
  case 'c': case 'C': *prec = 3; return VT_INT;
  case 's': case 'S': *prec = 5; return VT_INT;
  case 'i': case 'I': *prec = 10; return VT_INT;
  case 'l': *prec = 20; return VT_INT;
  case 'f': case 'g': return VT_FLOAT;
  case 'u': case 'U': return VT_STRING;
  case 'b': return VT_BOOL;
  default: break;
  }
  value_type t = value_type_of_arrow(f, prec, scale);
  switch (t) {
  case VT_DECIMAL: case VT_DATE: case VT_TIMESTAMP: case VT_TIMESTAMP_NTZ: return t;
  default:
    *prec = *scale = 0;
    return VT_NULL;
  }
}

const char *expr_vtype_name(value_type t) {
  switch (t) {
  case VT_NULL: return "null";
  case VT_INT: return "long";
  case VT_FLOAT: return "double";
  case VT_STRING: return "string";
  case VT_BOOL: return "boolean";
  case VT_DECIMAL: return "decimal";
  case VT_DATE: return "date";
  case VT_TIMESTAMP: return "timestamp";
  case VT_TIMESTAMP_NTZ: return "timestamp_ntz";
  case VT_INTERVAL: return "interval";
  case VT_BINARY: return "binary";
  default: return "nested value";
  }
}

bool expr_vtype_numeric(value_type t) { return t == VT_INT || t == VT_FLOAT || t == VT_DECIMAL; }
bool expr_vtype_datetime(value_type t) { return t == VT_DATE || t == VT_TIMESTAMP || t == VT_TIMESTAMP_NTZ; }

const char *expr_vtype_format(value_type t) {
  switch (t) {
  case VT_INT: return "l";
  case VT_FLOAT: return "g";
  case VT_STRING: return "u";
  case VT_BOOL: return "b";
  case VT_DATE: return "tdD";
  case VT_TIMESTAMP: return "tsu:UTC";
  case VT_TIMESTAMP_NTZ: return "tsu:";
  default: return NULL;
  }
}
