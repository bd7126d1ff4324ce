/* The scan plan: the snapshot's live files that survive pruning, with
 * what an outside engine needs to read each one itself. */
#include <stdatomic.h>
#include <string.h>
#include <strings.h>

#include "deltac/scan.h"
#include "dv/dv.h"
#include "log/snapshot.h"
#include "scan/prune.h"
#include "storage/path.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

struct delta_scan_plan {
  delta_snapshot *snap;
  column_mapping_mode mode;
  int64_t next;
  struct ArrowSchema logical;
  expr_node *pred;
  scan_pruner pruner;
  char *filter_text;
  delta_scan_metrics own_metrics, *metrics;
  char **type_names;           /* per column */
  /* the current file's strings */
  delta_buf location, dv_location;
  const char **pkeys, **pvals;
  size_t cap_pv;
};

void delta_scan_plan_free(delta_scan_plan *p) {
  if (!p) return;
  if (p->logical.release) p->logical.release(&p->logical);
  expr_free(p->pred);
  mem_free(p->filter_text);
  for (int i = 0; p->type_names && i < p->snap->schema->n_fields; i++) mem_free(p->type_names[i]);
  mem_free(p->type_names);
  buf_dispose(&p->location);
  buf_dispose(&p->dv_location);
  mem_free(p->pkeys);
  mem_free(p->pvals);
  delta_snapshot_free(p->snap);
  mem_free(p);
}

static bool is_partition(const delta_snapshot *s, const char *name) {
  for (int i = 0; i < s->metadata.n_partition_columns; i++)
    if (strcasecmp(s->metadata.partition_columns[i], name) == 0) return true;
  return false;
}

int delta_scan_plan_open(delta_scan_plan **out, delta_snapshot *s, const delta_scan_options *opts) {
  *out = NULL;
  delta_scan_plan *p = mem_calloc(1, sizeof *p);
  if (!p) return DELTA_NOMEM();
  atomic_fetch_add(&s->refs, 1);
  p->snap = s;
  p->mode = scan_mapping_mode(s);
  p->metrics = &p->own_metrics;
  const delta_type *t = s->schema;
  int rc = 0;
  p->type_names = mem_calloc((size_t)t->n_fields + 1, sizeof *p->type_names);
  if (!p->type_names) rc = DELTA_NOMEM();
  for (int i = 0; !rc && i < t->n_fields; i++) {
    delta_buf b = DELTA_BUF_INIT;
    rc = log_type_name(t->fields[i].type, &b);
    if (!rc) rc = buf_putc(&b, '\0');
    if (!rc) p->type_names[i] = (char *)buf_detach(&b);
    buf_dispose(&b);
  }
  if (!rc && opts && opts->version >= 2) {
    if (opts->metrics) p->metrics = opts->metrics;
    if (opts->filter) {
      rc = expr_parse(opts->filter, &p->pred);
      if (!rc) rc = log_schema_to_arrow(t, &p->logical);
      if (!rc) rc = expr_bind(p->pred, &p->logical);
      delta_buf b = DELTA_BUF_INIT;
      if (!rc) rc = expr_to_text(p->pred, &b);
      if (!rc) rc = buf_putc(&b, '\0');
      if (!rc) p->filter_text = (char *)buf_detach(&b);
      buf_dispose(&b);
    }
  }
  p->pruner = (scan_pruner){t, (const char *const *)s->metadata.partition_columns, s->metadata.n_partition_columns,
                            p->mode, p->pred};
  if (rc) {
    delta_scan_plan_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

/* An absolute URI for a path from the log. */
static int absolute(delta_scan_plan *p, const char *path, delta_buf *out) {
  const char *root = delta_storage_location(p->snap->table->storage);
  delta_buf key = DELTA_BUF_INIT;
  delta_path_kind kind;
  out->len = 0;
  int rc = storage_path_resolve(&kind, &key, path, strlen(path), root);
  if (!rc && kind == DELTA_PATH_KEY) {
    size_t n = strlen(root);
    rc = buf_append(out, root, n);
    if (!rc && (n == 0 || root[n - 1] != '/')) rc = buf_putc(out, '/');
    if (!rc) rc = storage_path_encode(out, (const char *)key.data, key.len);
  } else if (!rc) {
    rc = buf_append(out, key.data, key.len);
  }
  if (!rc) rc = buf_putc(out, '\0');
  buf_dispose(&key);
  return rc;
}

static int partition_values(delta_scan_plan *p, const delta_add *a, delta_scan_file *f) {
  size_t n = (size_t)a->n_partition_values;
  if (n > p->cap_pv) {
    mem_free(p->pkeys);
    mem_free(p->pvals);
    p->pkeys = mem_calloc(n, sizeof *p->pkeys);
    p->pvals = mem_calloc(n, sizeof *p->pvals);
    if (!p->pkeys || !p->pvals) {
      p->cap_pv = 0;
      return DELTA_NOMEM();
    }
    p->cap_pv = n;
  }
  const delta_type *t = p->snap->schema;
  for (size_t i = 0; i < n; i++) {
    const char *key = a->partition_values[i].key;
    /* keys are physical names under column mapping: report logical ones */
    for (int k = 0; k < t->n_fields; k++)
      if (p->mode != MAP_NONE && t->fields[k].physical_name && strcmp(t->fields[k].physical_name, key) == 0)
        key = t->fields[k].name;
    p->pkeys[i] = key;
    p->pvals[i] = a->partition_values[i].value;
  }
  f->n_partition_values = n;
  f->partition_columns = p->pkeys;
  f->partition_values = p->pvals;
  return 0;
}

static int describe(delta_scan_plan *p, const delta_add *a, delta_scan_file *f) {
  memset(f, 0, sizeof *f);
  f->path = a->path;
  f->size = a->size;
  f->num_records = a->num_records;
  f->modification_time = a->modification_time;
  f->stats = a->stats;
  f->dv_offset = -1;
  int rc = absolute(p, a->path, &p->location);
  if (!rc) rc = partition_values(p, a, f);
  if (rc) return rc;
  f->location = (const char *)p->location.data;
  if (!a->dv.present) return 0;
  f->has_deletion_vector = true;
  f->dv_storage_type = a->dv.storage_type;
  f->dv_path_or_inline = a->dv.path_or_inline;
  f->dv_offset = a->dv.has_offset ? a->dv.offset : -1;
  f->dv_size_in_bytes = a->dv.size_in_bytes;
  f->dv_cardinality = a->dv.cardinality;
  if (a->dv.storage_type == 'i') return 0;
  const char *root = delta_storage_location(p->snap->table->storage);
  delta_buf key = DELTA_BUF_INIT;
  delta_path_kind kind;
  p->dv_location.len = 0;
  rc = dv_file_key(&a->dv, root, &kind, &key);
  if (!rc && kind == DELTA_PATH_KEY) {
    size_t n = strlen(root);
    rc = buf_append(&p->dv_location, root, n);
    if (!rc && (n == 0 || root[n - 1] != '/')) rc = buf_putc(&p->dv_location, '/');
    if (!rc) rc = storage_path_encode(&p->dv_location, (const char *)key.data, key.len);
  } else if (!rc) {
    rc = buf_append(&p->dv_location, key.data, key.len);
  }
  if (!rc) rc = buf_putc(&p->dv_location, '\0');
  buf_dispose(&key);
  if (!rc) f->dv_location = (const char *)p->dv_location.data;
  return rc;
}

int delta_scan_plan_next(delta_scan_plan *p, delta_scan_file *f) {
  while (p->next < p->snap->n_files) {
    const delta_add *a = &p->snap->files[p->next++];
    p->metrics->files_total++;
    if (p->pred) {
      scan_prune_input in = {a->partition_values, a->n_partition_values, a->stats, false, NULL, 0, 0};
      int keep = scan_prune_file(&p->pruner, &in);
      if (keep < 0) return keep;
      if (!keep) {
        p->metrics->files_skipped++;
        continue;
      }
    }
    p->metrics->files_read++;
    return describe(p, a, f);
  }
  return DELTA_ITEROVER;
}

int delta_scan_plan_num_columns(const delta_scan_plan *p) { return p->snap->schema->n_fields; }

void delta_scan_plan_column(const delta_scan_plan *p, int i, delta_scan_column *out) {
  const delta_field *f = &p->snap->schema->fields[i];
  out->name = f->name;
  out->type = p->type_names[i];
  out->physical_name = p->mode != MAP_NONE && f->physical_name ? f->physical_name : f->name;
  out->field_id = p->mode == MAP_ID && f->has_field_id ? f->field_id : -1;
  out->is_partition = is_partition(p->snap, f->name);
}

const char *delta_scan_plan_column_mapping(const delta_scan_plan *p) {
  return p->mode == MAP_NAME ? "name" : p->mode == MAP_ID ? "id" : "none";
}

const char *delta_scan_plan_filter(const delta_scan_plan *p) { return p->filter_text; }
