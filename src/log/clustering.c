/* Clustering columns; see clustering.h. */
#include "log/clustering.h"

#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "json/json_writer.h"
#include "log/snapshot.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

bool clustering_supported(const delta_protocol *p) {
  for (int i = 0; i < p->n_writer_features; i++)
    if (strcmp(p->writer_features[i], "clustering") == 0) return true;
  return false;
}

/* The logical name of a top-level physical name. */
static const char *logical_name(const delta_type *schema, const char *physical) {
  for (int i = 0; i < schema->n_fields; i++) {
    const delta_field *f = &schema->fields[i];
    if ((f->physical_name && strcmp(f->physical_name, physical) == 0) || strcmp(f->name, physical) == 0)
      return f->name;
  }
  return NULL;
}

/* One column entry: "a", ["a"] (Spark) or {"physicalName":["a"]} (the
 * preview); only top-level paths are supported. */
static int entry_name(delta_json_val e, delta_buf *out) {
  if (json_typeof(e) == DELTA_JSON_OBJECT) e = json_get(e, "physicalName");
  if (json_typeof(e) == DELTA_JSON_ARRAY) {
    if (json_len(e) != 1)
      return err_set(DELTA_EUNSUPPORTED, "nested clustering columns are not supported");
    e = json_first(e);
  }
  return json_string(e, out);
}

int clustering_columns(const delta_snapshot *s, char ***out, int *n) {
  *out = NULL;
  *n = 0;
  const char *conf = NULL;
  for (int i = 0; i < s->n_domains; i++)
    if (!s->domains[i].removed &&
        (strcmp(s->domains[i].domain, CLUSTERING_DOMAIN) == 0 || strcmp(s->domains[i].domain, "delta.liquid") == 0))
      conf = s->domains[i].configuration;
  if (!conf) return 0;
  delta_json_doc *d = NULL;
  delta_buf name = DELTA_BUF_INIT, names = DELTA_BUF_INIT;
  int rc = json_doc_new(&d);
  if (!rc) rc = json_parse(d, conf, strlen(conf));
  delta_json_val cols = rc ? (delta_json_val){0} : json_get(json_root(d), "clusteringColumns");
  if (!rc && json_typeof(cols) != DELTA_JSON_ARRAY)
    rc = err_set(DELTA_ECORRUPT, "the clustering domain has no clusteringColumns array");
  int k = rc ? 0 : json_len(cols), got = 0;
  /* the pointers, then the strings, in one block */
  for (delta_json_val e = rc ? cols : json_first(cols); !rc && json_present(e); e = json_next(e)) {
    if ((rc = entry_name(e, &name))) break;
    const char *logical = logical_name(s->schema, (const char *)name.data);
    if (!logical) {
      rc = err_set(DELTA_ECORRUPT, "clustering column %s is not in the schema", (const char *)name.data);
      break;
    }
    rc = buf_append(&names, logical, strlen(logical) + 1);
    got++;
  }
  if (!rc && got == k && k > 0) {
    char **arr = mem_malloc((size_t)k * sizeof *arr + names.len);
    if (!arr) {
      rc = DELTA_NOMEM();
    } else {
      char *p = (char *)(arr + k);
      memcpy(p, names.data, names.len);
      for (int i = 0; i < k; i++) {
        arr[i] = p;
        p += strlen(p) + 1;
      }
      *out = arr;
      *n = k;
    }
  }
  buf_dispose(&name);
  buf_dispose(&names);
  json_doc_free(d);
  return rc;
}

int clustering_new_domain(const delta_type *schema, const char *const *names, int n, bool column_mapping,
                          delta_buf *conf) {
  if (n > 4) return err_set(DELTA_EINVAL, "--cluster-by: at most 4 columns");
  delta_json_writer w;
  json_writer_init(&w, conf, 0);
  json_write_object_begin(&w);
  json_write_key(&w, "clusteringColumns");
  json_write_array_begin(&w);
  for (int i = 0; i < n; i++) {
    const delta_field *f = log_schema_find(schema, names[i]);
    if (!f) return err_set(DELTA_EINVAL, "--cluster-by: no column %s in the schema", names[i]);
    for (int j = 0; j < i; j++)
      if (strcasecmp(names[j], f->name) == 0) return err_set(DELTA_EINVAL, "--cluster-by: %s given twice", f->name);
    delta_type_kind k = f->type->kind;
    if (k == DT_STRUCT || k == DT_ARRAY || k == DT_MAP || k == DT_BINARY || k == DT_BOOLEAN || k == DT_VARIANT)
      return err_set(DELTA_EINVAL, "--cluster-by: %s has no min/max statistics to cluster on", f->name);
    json_write_array_begin(&w);
    json_write_string(&w, column_mapping && f->physical_name ? f->physical_name : f->name);
    json_write_array_end(&w);
  }
  json_write_array_end(&w);
  json_write_object_end(&w);
  return json_writer_finish(&w);
}
