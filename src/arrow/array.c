/* Owned Arrow arrays and schemas. One allocation per array holds the
 * bookkeeping, the buffer pointer table and the child structs, so release
 * is a walk over children and a handful of frees. */
#include "arrow/array.h"

#include <string.h>

#include "util/alloc_internal.h"
#include "util/error_internal.h"

typedef struct {
  int n_buffers, n_children;
  void *owned[4];                 /* buffers we free; up to 4 slots */
  const void *buffer_ptrs[4];
  struct ArrowArray *child_ptrs[]; /* then n_children ArrowArray structs */
} array_private;

static void array_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  array_private *p = a->private_data;
  for (int i = 0; i < p->n_children; i++) {
    struct ArrowArray *c = p->child_ptrs[i];
    if (c->release) c->release(c);
  }
  if (a->dictionary && a->dictionary->release) a->dictionary->release(a->dictionary);
  for (int i = 0; i < p->n_buffers; i++) mem_free(p->owned[i]);
  mem_free(p);
  a->release = NULL;
}

int arrow_array_new(struct ArrowArray *out, int n_buffers, int n_children) {
  memset(out, 0, sizeof *out);
  if (n_buffers > 4) return err_set(DELTA_EINVAL, "an Arrow array has at most 4 buffers");
  size_t sz = sizeof(array_private) + (size_t)n_children * (sizeof(struct ArrowArray *) +
                                                         sizeof(struct ArrowArray));
  array_private *p = mem_calloc(1, sz);
  if (!p) return DELTA_NOMEM();
  p->n_buffers = n_buffers;
  p->n_children = n_children;
  struct ArrowArray *kids = (struct ArrowArray *)(void *)(p->child_ptrs + n_children);
  for (int i = 0; i < n_children; i++) p->child_ptrs[i] = &kids[i];
  out->n_buffers = n_buffers;
  out->n_children = n_children;
  out->buffers = p->buffer_ptrs;
  out->children = n_children ? p->child_ptrs : NULL;
  out->release = array_release;
  out->private_data = p;
  return 0;
}

void arrow_array_set_buffer(struct ArrowArray *a, int i, void *mem) {
  array_private *p = a->private_data;
  mem_free(p->owned[i]);
  p->owned[i] = mem;
  p->buffer_ptrs[i] = mem;
}

void arrow_array_release(struct ArrowArray *a) {
  if (a && a->release) a->release(a);
}

/* ---- schemas ---- */

typedef struct {
  char *format, *name, *metadata;
  int n_children;
  struct ArrowSchema *child_ptrs[];
} schema_private;

static void schema_release(struct ArrowSchema *s) {
  if (!s || !s->release) return;
  schema_private *p = s->private_data;
  for (int i = 0; i < p->n_children; i++) {
    struct ArrowSchema *c = p->child_ptrs[i];
    if (c->release) c->release(c);
  }
  if (s->dictionary) {
    if (s->dictionary->release) s->dictionary->release(s->dictionary);
    mem_free(s->dictionary);
  }
  mem_free(p->format);
  mem_free(p->name);
  mem_free(p->metadata);
  mem_free(p);
  s->release = NULL;
}

int arrow_schema_new(struct ArrowSchema *out, const char *format, const char *name, int64_t flags,
                     int n_children) {
  memset(out, 0, sizeof *out);
  size_t sz = sizeof(schema_private) +
              (size_t)n_children * (sizeof(struct ArrowSchema *) + sizeof(struct ArrowSchema));
  schema_private *p = mem_calloc(1, sz);
  if (!p) return DELTA_NOMEM();
  p->format = mem_strdup(format);
  p->name = mem_strdup(name ? name : "");
  if (!p->format || !p->name) {
    mem_free(p->format);
    mem_free(p->name);
    mem_free(p);
    return DELTA_NOMEM();
  }
  p->n_children = n_children;
  struct ArrowSchema *kids = (struct ArrowSchema *)(void *)(p->child_ptrs + n_children);
  for (int i = 0; i < n_children; i++) p->child_ptrs[i] = &kids[i];
  out->format = p->format;
  out->name = p->name;
  out->flags = flags;
  out->n_children = n_children;
  out->children = n_children ? p->child_ptrs : NULL;
  out->release = schema_release;
  out->private_data = p;
  return 0;
}

static void put_i32(char *p, int32_t v) { memcpy(p, &v, 4); }

int arrow_schema_set_metadata(struct ArrowSchema *s, const char *const *keys,
                              const char *const *values, int n) {
  schema_private *p = s->private_data;
  size_t sz = 4;
  for (int i = 0; i < n; i++) sz += 8 + strlen(keys[i]) + strlen(values[i]);
  char *m = mem_malloc(sz);
  if (!m) return DELTA_NOMEM();
  char *w = m;
  put_i32(w, n);
  w += 4;
  for (int i = 0; i < n; i++) {
    int32_t kl = (int32_t)strlen(keys[i]), vl = (int32_t)strlen(values[i]);
    put_i32(w, kl); memcpy(w + 4, keys[i], (size_t)kl); w += 4 + kl;
    put_i32(w, vl); memcpy(w + 4, values[i], (size_t)vl); w += 4 + vl;
  }
  mem_free(p->metadata);
  p->metadata = m;
  s->metadata = m;
  return 0;
}

static size_t metadata_size(const char *m) {
  if (!m) return 0;
  int32_t n, l;
  memcpy(&n, m, 4);
  size_t off = 4;
  for (int32_t i = 0; i < n; i++) {
    memcpy(&l, m + off, 4); off += 4 + (size_t)l;
    memcpy(&l, m + off, 4); off += 4 + (size_t)l;
  }
  return off;
}

const char *arrow_schema_metadata_get(const struct ArrowSchema *s, const char *key, int32_t *len) {
  const char *m = s->metadata;
  if (!m) return NULL;
  int32_t n, kl, vl;
  size_t klen = strlen(key);
  memcpy(&n, m, 4);
  size_t off = 4;
  for (int32_t i = 0; i < n; i++) {
    memcpy(&kl, m + off, 4);
    const char *k = m + off + 4;
    off += 4 + (size_t)kl;
    memcpy(&vl, m + off, 4);
    const char *v = m + off + 4;
    off += 4 + (size_t)vl;
    if ((size_t)kl == klen && memcmp(k, key, klen) == 0) {
      if (len) *len = vl;
      return v;
    }
  }
  return NULL;
}

void arrow_schema_release(struct ArrowSchema *s) {
  if (s && s->release) s->release(s);
}

int arrow_schema_copy(struct ArrowSchema *out, const struct ArrowSchema *src) {
  int rc = arrow_schema_new(out, src->format, src->name, src->flags, (int)src->n_children);
  if (rc) return rc;
  schema_private *p = out->private_data;
  if (src->metadata) {
    size_t sz = metadata_size(src->metadata);
    p->metadata = mem_malloc(sz);
    if (!p->metadata) { rc = DELTA_NOMEM(); goto fail; }
    memcpy(p->metadata, src->metadata, sz);
    out->metadata = p->metadata;
  }
  for (int64_t i = 0; i < src->n_children; i++) {
    rc = arrow_schema_copy(out->children[i], src->children[i]);
    if (rc) goto fail;
  }
  if (src->dictionary) {
    out->dictionary = mem_calloc(1, sizeof *out->dictionary);
    if (!out->dictionary) { rc = DELTA_NOMEM(); goto fail; }
    rc = arrow_schema_copy(out->dictionary, src->dictionary);
    if (rc) goto fail;
  }
  return 0;
fail:
  out->release(out);
  return rc;
}
