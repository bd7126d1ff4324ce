#include "arrow/builder.h"

#include <errno.h>
#include <string.h>

#include "arrow/array.h"
#include "util/alloc_internal.h"
#include "util/buf.h"
#include "util/error_internal.h"

typedef struct {
  char *name;
  arrow_builder_type type;
  delta_buf valid;   /* uint8 per row */
  delta_buf data;    /* int64 / uint8 bools / string bytes */
  delta_buf offsets; /* int32 for strings */
  int64_t n, nulls;
} column;

struct arrow_batch_builder {
  column *cols;
  int n;
};

int arrow_batch_builder_new(arrow_batch_builder **out, int n, const char *const *names,
                            const arrow_builder_type *types) {
  arrow_batch_builder *b = mem_calloc(1, sizeof *b);
  if (!b) return DELTA_NOMEM();
  b->cols = mem_calloc((size_t)n, sizeof *b->cols);
  if (!b->cols) {
    mem_free(b);
    return DELTA_NOMEM();
  }
  b->n = n;
  for (int i = 0; i < n; i++) {
    b->cols[i].type = types[i];
    b->cols[i].name = mem_strdup(names[i]);
    int32_t zero = 0;
    if (!b->cols[i].name || buf_append(&b->cols[i].offsets, &zero, 4)) {
      arrow_batch_builder_free(b);
      return DELTA_NOMEM();
    }
  }
  *out = b;
  return 0;
}

void arrow_batch_builder_free(arrow_batch_builder *b) {
  if (!b) return;
  for (int i = 0; i < b->n; i++) {
    mem_free(b->cols[i].name);
    buf_dispose(&b->cols[i].valid);
    buf_dispose(&b->cols[i].data);
    buf_dispose(&b->cols[i].offsets);
  }
  mem_free(b->cols);
  mem_free(b);
}

/* Record the row's validity; the caller appends the value itself. */
static int push_valid(column *c, bool valid) {
  int rc = buf_putc(&c->valid, valid);
  if (rc) return rc;
  c->nulls += !valid;
  c->n++;
  return 0;
}

static int push_text(column *c, const char *s, size_t n) {
  int rc;
  if ((rc = push_valid(c, s != NULL)) != 0) return rc;
  if (s && (rc = buf_append(&c->data, s, n)) != 0) return rc;
  if (c->data.len > INT32_MAX) return err_set(DELTA_ELIMIT, "more than 2 GiB of text in one listing");
  int32_t end = (int32_t)c->data.len;
  return buf_append(&c->offsets, &end, 4);
}

static int push_i64(column *c, bool valid, int64_t v) {
  int rc = push_valid(c, valid);
  return rc ? rc : buf_append(&c->data, &v, 8);
}

static int push_bool(column *c, bool valid, bool v) {
  int rc = push_valid(c, valid);
  uint8_t b = valid && v;
  return rc ? rc : buf_append(&c->data, &b, 1);
}

int arrow_builder_str(arrow_batch_builder *b, int c, const char *s) {
  return push_text(&b->cols[c], s, s ? strlen(s) : 0);
}
int arrow_builder_strn(arrow_batch_builder *b, int c, const char *s, size_t n) { return push_text(&b->cols[c], s, n); }
int arrow_builder_i64(arrow_batch_builder *b, int c, int64_t v) { return push_i64(&b->cols[c], true, v); }
int arrow_builder_bool(arrow_batch_builder *b, int c, bool v) { return push_bool(&b->cols[c], true, v); }
int arrow_builder_null(arrow_batch_builder *b, int c) {
  column *col = &b->cols[c];
  if (col->type == AB_UTF8 || col->type == AB_JSON) return push_text(col, NULL, 0);
  if (col->type == AB_BOOL) return push_bool(col, false, false);
  return push_i64(col, false, 0);
}

static uint8_t *bits_from(const delta_buf *flags, int64_t n) {
  uint8_t *bits = mem_calloc((size_t)(n + 7) / 8 + 1, 1);
  if (!bits) return NULL;
  for (int64_t i = 0; i < n; i++)
    if (flags->data[i]) arrow_bit_set(bits, i);
  return bits;
}

/* ---- a one-batch stream ---- */

typedef struct {
  struct ArrowSchema schema;
  struct ArrowArray batch;
  char error[256];
} one_batch;

static int ob_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  one_batch *o = s->private_data;
  return arrow_schema_copy(out, &o->schema) ? ENOMEM : 0;
}
static int ob_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  one_batch *o = s->private_data;
  *out = o->batch; /* moved out; afterwards the stream is at its end */
  memset(&o->batch, 0, sizeof o->batch);
  return 0;
}
static const char *ob_error(struct ArrowArrayStream *s) {
  one_batch *o = s->private_data;
  return o->error[0] ? o->error : NULL;
}
static void ob_release(struct ArrowArrayStream *s) {
  one_batch *o = s->private_data;
  arrow_schema_release(&o->schema);
  arrow_array_release(&o->batch);
  mem_free(o);
  s->release = NULL;
}

int arrow_builder_finish(arrow_batch_builder *b, struct ArrowArrayStream *out) {
  memset(out, 0, sizeof *out);
  one_batch *o = mem_calloc(1, sizeof *o);
  if (!o) return DELTA_NOMEM();
  int64_t rows = b->n ? b->cols[0].n : 0;
  int rc;
  if ((rc = arrow_schema_new(&o->schema, "+s", "", 0, b->n)) != 0) goto fail;
  if ((rc = arrow_array_new(&o->batch, 1, b->n)) != 0) goto fail;
  for (int i = 0; i < b->n; i++) {
    column *c = &b->cols[i];
    if (c->n != rows) {
      rc = err_set(DELTA_EINVAL, "builder column %s has %lld rows, expected %lld", c->name,
                           (long long)c->n, (long long)rows);
      goto fail;
    }
    const char *fmt = c->type == AB_INT64 ? "l" : c->type == AB_BOOL ? "b"
                      : c->type == AB_TIMESTAMP_MS ? "tsm:UTC" : "u";
    if ((rc = arrow_schema_new(o->schema.children[i], fmt, c->name, ARROW_FLAG_NULLABLE, 0)) != 0) goto fail;
    if (c->type == AB_JSON) {
      const char *k[] = {"deltac.raw_json"};
      const char *v[] = {"true"};
      if ((rc = arrow_schema_set_metadata(o->schema.children[i], k, v, 1)) != 0) goto fail;
    }
    struct ArrowArray *a = o->batch.children[i];
    bool str = c->type == AB_UTF8 || c->type == AB_JSON;
    if ((rc = arrow_array_new(a, str ? 3 : 2, 0)) != 0) goto fail;
    a->length = rows;
    a->null_count = c->nulls;
    if (c->nulls) {
      uint8_t *v = bits_from(&c->valid, rows);
      if (!v) {
        rc = DELTA_NOMEM();
        goto fail;
      }
      arrow_array_set_buffer(a, 0, v);
    }
    if (str) {
      arrow_array_set_buffer(a, 1, buf_detach(&c->offsets));
      uint8_t *d = buf_detach(&c->data);
      if (!d && !(d = mem_malloc(1))) {
        rc = DELTA_NOMEM();
        goto fail;
      }
      arrow_array_set_buffer(a, 2, d);
    } else if (c->type == AB_BOOL) {
      uint8_t *v = bits_from(&c->data, rows);
      if (!v) {
        rc = DELTA_NOMEM();
        goto fail;
      }
      arrow_array_set_buffer(a, 1, v);
    } else {
      uint8_t *d = buf_detach(&c->data);
      if (!d && !(d = mem_malloc(8))) {
        rc = DELTA_NOMEM();
        goto fail;
      }
      arrow_array_set_buffer(a, 1, d);
    }
  }
  o->batch.length = rows;
  out->get_schema = ob_schema;
  out->get_next = ob_next;
  out->get_last_error = ob_error;
  out->release = ob_release;
  out->private_data = o;
  return 0;
fail:
  arrow_schema_release(&o->schema);
  arrow_array_release(&o->batch);
  mem_free(o);
  return rc;
}
