/* Schema compatibility across a change feed's range (see the header). */
#include "cdf/schema_compat.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/error_internal.h"

static int int_rank(delta_type_kind k) {
  switch (k) {
  case DT_BYTE: return 1;
  case DT_SHORT: return 2;
  case DT_INTEGER: return 3;
  case DT_LONG: return 4;
  default: return 0;
  }
}

/* Digits left of the point an integer type needs. */
static int int_digits(delta_type_kind k) {
  switch (k) {
  case DT_BYTE: return 3;
  case DT_SHORT: return 5;
  case DT_INTEGER: return 10;
  default: return 20;
  }
}

/* Can a value of `from` be read as `to` without loss (the widenings the
 * scan's casts perform)? Nested types are compared field by field. */
static bool widens(const delta_type *from, const delta_type *to, column_mapping_mode mode, const char **why);

static const delta_field *match(const delta_type *end, const delta_field *f, column_mapping_mode mode) {
  for (int i = 0; i < end->n_fields; i++) {
    const delta_field *g = &end->fields[i];
    if (mode != MAP_NONE && f->physical_name && g->physical_name) {
      if (strcmp(f->physical_name, g->physical_name) == 0) return g;
    } else if (strcasecmp(f->name, g->name) == 0) {
      return g;
    }
  }
  return NULL;
}

/* The error for a column whose type changed to one that cannot read its older rows. */
static int type_changed(const delta_field *f, const delta_field *g, int64_t version, const char *prefix,
                        const char *sep) {
  delta_buf a = DELTA_BUF_INIT, b = DELTA_BUF_INIT;
  int rc;
  if ((rc = log_type_name(f->type, &a)) != 0)
    goto done;
  if ((rc = buf_putc(&a, 0)) != 0)
    goto done;
  if ((rc = log_type_name(g->type, &b)) != 0)
    goto done;
  if ((rc = buf_putc(&b, 0)) != 0)
    goto done;
  rc = err_set(DELTA_EUNSUPPORTED,
               "change data feed: column %s%s%s changed type from %s (version %lld) to %s, which "
               "cannot read its older rows", prefix, sep, f->name, (const char *)a.data,
               (long long)version, (const char *)b.data);
done:
  buf_dispose(&a);
  buf_dispose(&b);
  return rc;
}

static int fields_compatible(const delta_type *older, const delta_type *end, column_mapping_mode mode,
                             int64_t version, const char *prefix) {
  for (int i = 0; i < older->n_fields; i++) {
    const delta_field *f = &older->fields[i];
    const delta_field *g = match(end, f, mode);
    const char *sep = prefix[0] ? "." : "";
    if (!g)
      return err_set(DELTA_EUNSUPPORTED,
                             "change data feed: column %s%s%s of version %lld was dropped later in the range; "
                             "read the versions before and after the change separately",
                             prefix, sep, f->name, (long long)version);
    if (strcmp(f->name, g->name) != 0 && strcasecmp(f->name, g->name) != 0)
      return err_set(DELTA_EUNSUPPORTED,
                             "change data feed: column %s%s%s of version %lld was renamed to %s later in the range; "
                             "read the versions before and after the change separately",
                             prefix, sep, f->name, (long long)version, g->name);
    if (f->nullable && !g->nullable)
      return err_set(DELTA_EUNSUPPORTED,
                             "change data feed: column %s%s%s became NOT NULL after version %lld; its older rows "
                             "may hold nulls", prefix, sep, f->name, (long long)version);
    const char *why = NULL;
    if (f->type->kind == DT_STRUCT && g->type->kind == DT_STRUCT) {
      char path[512];
      snprintf(path, sizeof path, "%s%s%s", prefix, sep, f->name);
      int rc = fields_compatible(f->type, g->type, mode, version, path);
      if (rc) return rc;
    } else if (!widens(f->type, g->type, mode, &why)) {
      return type_changed(f, g, version, prefix, sep);
    }
  }
  return 0;
}

static bool widens(const delta_type *from, const delta_type *to, column_mapping_mode mode, const char **why) {
  (void)why;
  if (from->kind == to->kind) {
    switch (from->kind) {
    case DT_DECIMAL:
      return to->scale >= from->scale && to->precision - to->scale >= from->precision - from->scale;
    case DT_ARRAY:
      return (to->contains_null || !from->contains_null) && widens(from->element, to->element, mode, why);
    case DT_MAP:
      return (to->value_contains_null || !from->value_contains_null) && widens(from->key, to->key, mode, why) &&
             widens(from->value, to->value, mode, why);
    case DT_STRUCT:
      return fields_compatible(from, to, mode, 0, "") == 0;
    default:
      return true;
    }
  }
  int fr = int_rank(from->kind), tr = int_rank(to->kind);
  if (fr && tr) return tr > fr;
  if (fr && to->kind == DT_DOUBLE) return fr <= 3; /* int and narrower fit a double exactly */
  if (fr && to->kind == DT_DECIMAL) return to->precision - to->scale >= int_digits(from->kind);
  if (from->kind == DT_FLOAT && to->kind == DT_DOUBLE) return true;
  if (from->kind == DT_DATE && to->kind == DT_TIMESTAMP_NTZ) return true;
  return false;
}

int cdf_schema_compatible(const delta_type *older, const delta_type *end, column_mapping_mode mode, int64_t version) {
  if (!older || !end || older->kind != DT_STRUCT || end->kind != DT_STRUCT) return 0;
  return fields_compatible(older, end, mode, version, "");
}
