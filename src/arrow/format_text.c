/* Row-oriented text writers over Arrow batches: NDJSON, JSON, CSV, table. */
#include <stdio.h>
#include <string.h>

#include "arrow/array.h"
#include "arrow/format.h"
#include "arrow/format_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define FLUSH_AT (1 << 16)
#define TABLE_MAX_WIDTH 40

struct arrow_text_writer {
  arrow_text_format fmt;
  arrow_type *type;         /* the batch struct type */
  FILE *fp;
  delta_buf out;
  delta_buf cell;
  int64_t rows;
  int *widths;              /* table: column widths, fixed by the first batch */
  bool header_done;
};

static int flush(arrow_text_writer *w) {
  if (w->out.len && fwrite(w->out.data, 1, w->out.len, w->fp) != w->out.len)
    return err_set(DELTA_EIO, "cannot write output");
  w->out.len = 0;
  return 0;
}

int arrow_text_writer_new(arrow_text_writer **out, arrow_text_format fmt, const struct ArrowSchema *schema,
                          FILE *fp) {
  arrow_text_writer *w = mem_calloc(1, sizeof *w);
  if (!w) return DELTA_NOMEM();
  w->fmt = fmt;
  w->fp = fp;
  int rc;
  if ((rc = arrow_type_parse(schema, &w->type)) != 0) goto fail;
  if (w->type->kind != AT_STRUCT) {
    rc = err_set(DELTA_EINVAL, "batches must be struct arrays");
    goto fail;
  }
  w->widths = mem_calloc((size_t)w->type->n_children + 1, sizeof(int));
  if (!w->widths) {
    rc = DELTA_NOMEM();
    goto fail;
  }
  *out = w;
  return 0;
fail:
  arrow_text_writer_free(w);
  return rc;
}

void arrow_text_writer_free(arrow_text_writer *w) {
  if (!w) return;
  arrow_type_free(w->type);
  buf_dispose(&w->out);
  buf_dispose(&w->cell);
  mem_free(w->widths);
  mem_free(w);
}

/* Plain text of a cell for CSV and tables: strings as they are, scalars
 * without JSON quotes, nested values as JSON. Returns false for null. */
static int cell_text(arrow_text_writer *w, const arrow_type *t, const struct ArrowArray *a, int64_t i,
                     bool *is_null) {
  w->cell.len = 0;
  *is_null = !arrow_is_valid(a, i) || t->kind == AT_NULL;
  if (*is_null) return 0;
  if (t->kind == AT_STRING) {
    int64_t j = a->offset + i, s, e;
    if (t->large) { const int64_t *o = a->buffers[1]; s = o[j]; e = o[j + 1]; }
    else { const int32_t *o = a->buffers[1]; s = o[j]; e = o[j + 1]; }
    return buf_append(&w->cell, (const uint8_t *)a->buffers[2] + s, (size_t)(e - s));
  }
  int rc = arrow_value_json(&w->cell, t, a, i);
  if (rc) return rc;
  if (t->kind != AT_STRUCT && t->kind != AT_LIST && t->kind != AT_MAP && t->kind != AT_FIXED_LIST &&
      w->cell.len >= 2 && w->cell.data[0] == '"') {
    memmove(w->cell.data, w->cell.data + 1, w->cell.len - 2);
    w->cell.len -= 2;
  }
  return 0;
}

static int csv_field(delta_buf *out, const uint8_t *s, size_t n) {
  bool quote = false;
  for (size_t i = 0; i < n && !quote; i++)
    quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
  if (!quote) return buf_append(out, s, n);
  int rc;
  if ((rc = buf_putc(out, '"')) != 0) return rc;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"' && (rc = buf_putc(out, '"')) != 0) return rc;
    if ((rc = buf_putc(out, (char)s[i])) != 0) return rc;
  }
  return buf_putc(out, '"');
}

/* Display width of UTF-8 text, counting code points. */
static int text_width(const uint8_t *s, size_t n) {
  int k = 0;
  for (size_t i = 0; i < n; i++) k += (s[i] & 0xc0) != 0x80;
  return k;
}

static int table_cell(delta_buf *out, const uint8_t *s, size_t n, int width, bool right) {
  /* Control characters would break the layout: show them as spaces. */
  char tmp[TABLE_MAX_WIDTH * 4 + 8];
  size_t k = 0;
  int cols = 0;
  for (size_t i = 0; i < n && k < sizeof tmp - 8; i++) {
    if ((s[i] & 0xc0) != 0x80) {
      if (cols == width) break;
      cols++;
    }
    tmp[k++] = s[i] < 0x20 ? ' ' : (char)s[i];
  }
  if (k < n && width > 0) { /* truncated: mark it */
    while (k > 0 && (tmp[k - 1] & 0xc0) == 0x80) k--;
    if (k > 0) k--;
    memcpy(tmp + k, "\xe2\x80\xa6", 3); /* … */
    k += 3;
  }
  int pad = width - cols;
  int rc;
  if (right)
    for (int i = 0; i < pad; i++)
      if ((rc = buf_putc(out, ' ')) != 0) return rc;
  if ((rc = buf_append(out, tmp, k)) != 0) return rc;
  if (!right)
    for (int i = 0; i < pad; i++)
      if ((rc = buf_putc(out, ' ')) != 0) return rc;
  return 0;
}

static bool right_aligned(const arrow_type *t) {
  return t->kind == AT_INT || t->kind == AT_UINT || t->kind == AT_FLOAT || t->kind == AT_DECIMAL;
}

static int table_rule(arrow_text_writer *w, const char *l, const char *m, const char *r) {
  int rc;
  if ((rc = buf_puts(&w->out, l)) != 0) return rc;
  for (int c = 0; c < w->type->n_children; c++) {
    for (int k = 0; k < w->widths[c] + 2; k++)
      if ((rc = buf_puts(&w->out, "\xe2\x94\x80")) != 0) return rc;
    if ((rc = buf_puts(&w->out, c + 1 < w->type->n_children ? m : r)) != 0) return rc;
  }
  return buf_putc(&w->out, '\n');
}

static int table_head(arrow_text_writer *w) {
  const arrow_type *t = w->type;
  int rc;
  if ((rc = table_rule(w, "\xe2\x94\x8c", "\xe2\x94\xac", "\xe2\x94\x90")) != 0) return rc;
  if ((rc = buf_puts(&w->out, "\xe2\x94\x82")) != 0) return rc;
  for (int c = 0; c < t->n_children; c++) {
    if ((rc = buf_putc(&w->out, ' ')) != 0) return rc;
    if ((rc = table_cell(&w->out, (const uint8_t *)t->children[c]->name, strlen(t->children[c]->name),
                         w->widths[c], false)) != 0)
      return rc;
    if ((rc = buf_puts(&w->out, " \xe2\x94\x82")) != 0) return rc;
  }
  return buf_putc(&w->out, '\n');
}

/* Column widths come from the names and the first batch's first rows. */
static int table_header(arrow_text_writer *w, const struct ArrowArray *batch, int64_t n) {
  const arrow_type *t = w->type;
  for (int c = 0; c < t->n_children; c++) {
    int wd = text_width((const uint8_t *)t->children[c]->name, strlen(t->children[c]->name));
    for (int64_t i = 0; batch && i < n && i < 1000; i++) {
      bool is_null;
      int rc = cell_text(w, t->children[c], batch->children[c], batch->offset + i, &is_null);
      if (rc) return rc;
      int cw = is_null ? 4 : text_width(w->cell.data, w->cell.len);
      if (cw > wd) wd = cw;
    }
    w->widths[c] = wd > TABLE_MAX_WIDTH ? TABLE_MAX_WIDTH : wd;
  }
  int rc;
  if ((rc = table_head(w)) != 0) return rc;
  return batch ? table_rule(w, "\xe2\x94\x9c", "\xe2\x94\xbc", "\xe2\x94\xa4") : 0;
}

static int csv_header(arrow_text_writer *w) {
  int rc;
  for (int c = 0; c < w->type->n_children; c++) {
    if (c && (rc = buf_putc(&w->out, ',')) != 0) return rc;
    if ((rc = csv_field(&w->out, (const uint8_t *)w->type->children[c]->name,
                        strlen(w->type->children[c]->name))) != 0)
      return rc;
  }
  return buf_puts(&w->out, "\r\n");
}

int arrow_text_writer_write(arrow_text_writer *w, const struct ArrowArray *batch, int64_t max_rows) {
  const arrow_type *t = w->type;
  int64_t n = batch->length;
  if (max_rows >= 0 && max_rows < n) n = max_rows;
  if (batch->n_children != t->n_children)
    return err_set(DELTA_EINVAL, "batch has %lld columns, schema %d", (long long)batch->n_children,
                           t->n_children);
  int rc = 0;
  if (!w->header_done) {
    w->header_done = true;
    if (w->fmt == ARROW_FMT_CSV) {
      rc = csv_header(w);
    } else if (w->fmt == ARROW_FMT_JSON) {
      rc = buf_putc(&w->out, '[');
    } else if (w->fmt == ARROW_FMT_TABLE) {
      rc = table_header(w, batch, n);
    }
    if (rc) return rc;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t row = batch->offset + i;
    switch (w->fmt) {
    case ARROW_FMT_NDJSON:
    case ARROW_FMT_JSON:
      if (w->fmt == ARROW_FMT_JSON && (rc = buf_puts(&w->out, w->rows ? ",\n" : "\n")) != 0) return rc;
      if ((rc = buf_putc(&w->out, '{')) != 0) return rc;
      for (int c = 0; c < t->n_children; c++) {
        const arrow_type *ct = t->children[c];
        if (c && (rc = buf_putc(&w->out, ',')) != 0) return rc;
        if ((rc = fmt_json_string(&w->out, (const uint8_t *)ct->name, strlen(ct->name))) != 0) return rc;
        if ((rc = buf_putc(&w->out, ':')) != 0) return rc;
        if ((rc = arrow_value_json(&w->out, ct, batch->children[c], row)) != 0) return rc;
      }
      if ((rc = buf_putc(&w->out, '}')) != 0) return rc;
      if (w->fmt == ARROW_FMT_NDJSON && (rc = buf_putc(&w->out, '\n')) != 0) return rc;
      break;
    case ARROW_FMT_CSV:
      for (int c = 0; c < t->n_children; c++) {
        bool is_null;
        if (c && (rc = buf_putc(&w->out, ',')) != 0) return rc;
        if ((rc = cell_text(w, t->children[c], batch->children[c], row, &is_null)) != 0) return rc;
        if (!is_null && (rc = csv_field(&w->out, w->cell.data, w->cell.len)) != 0) return rc;
      }
      if ((rc = buf_puts(&w->out, "\r\n")) != 0) return rc;
      break;
    case ARROW_FMT_TABLE:
      if ((rc = buf_puts(&w->out, "\xe2\x94\x82")) != 0) return rc;
      for (int c = 0; c < t->n_children; c++) {
        bool is_null;
        if ((rc = cell_text(w, t->children[c], batch->children[c], row, &is_null)) != 0) return rc;
        if ((rc = buf_putc(&w->out, ' ')) != 0) return rc;
        rc = is_null ? table_cell(&w->out, (const uint8_t *)"NULL", 4, w->widths[c], right_aligned(t->children[c]))
                     : table_cell(&w->out, w->cell.data, w->cell.len, w->widths[c], right_aligned(t->children[c]));
        if (rc || (rc = buf_puts(&w->out, " \xe2\x94\x82")) != 0) return rc;
      }
      if ((rc = buf_putc(&w->out, '\n')) != 0) return rc;
      break;
    }
    w->rows++;
    if (w->out.len >= FLUSH_AT && (rc = flush(w)) != 0) return rc;
  }
  return 0;
}

int arrow_text_writer_finish(arrow_text_writer *w) {
  int rc;
  if (w->fmt == ARROW_FMT_JSON) {
    if ((rc = buf_puts(&w->out, w->header_done ? (w->rows ? "\n]\n" : "]\n") : "[]\n")) != 0) return rc;
  } else if (w->fmt == ARROW_FMT_TABLE) {
    if (!w->header_done) {
      w->header_done = true;
      if ((rc = table_header(w, NULL, 0)) != 0) return rc;
    }
    if ((rc = table_rule(w, "\xe2\x94\x94", "\xe2\x94\xb4", "\xe2\x94\x98")) != 0) return rc;
    if ((rc = buf_printf(&w->out, "%lld row%s\n", (long long)w->rows, w->rows == 1 ? "" : "s")) != 0)
      return rc;
  } else if (w->fmt == ARROW_FMT_CSV && !w->header_done) {
    if ((rc = csv_header(w)) != 0) return rc;
  }
  if ((rc = flush(w)) != 0) return rc;
  if (fflush(w->fp) != 0) return err_set(DELTA_EIO, "cannot write output");
  return 0;
}
