/* NDJSON and CSV input as Arrow; see input_text.h. */
#include "write/input_text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "log/column_builder.h"
#include "log/schema_build.h"

typedef struct {
  input_text_format fmt;
  char *text;
  size_t len, pos;
  int64_t line_no;
  int64_t batch_rows;
  delta_type *type;       /* the stream's columns */
  row_builder rb;
  delta_json_doc *doc;
  /* CSV */
  int n_header;
  int *cell_of_field;
  const char **cells;
  size_t *lens;
  delta_buf cellbuf;
  char err[512];
} text_stream;

/* ---- CSV records ---- */

/* The next record's cells (unescaped into cellbuf); false at the end. */
static int csv_record(text_stream *ts, int *n_out, bool *more) {
  *more = false;
  *n_out = 0;
  if (ts->pos >= ts->len) return 0;
  buf_reset(&ts->cellbuf);
  size_t starts[4096];
  bool nulls[4096];
  int n = 0;
  const char *t = ts->text;
  size_t i = ts->pos;
  for (;;) {
    if (n >= 4096) return err_set(DELTA_ELIMIT, "CSV line %lld: more than 4096 columns", (long long)ts->line_no);
    starts[n] = ts->cellbuf.len;
    bool quoted = false;
    if (i < ts->len && t[i] == '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= ts->len) return err_set(DELTA_EINVAL, "CSV line %lld: unterminated quote", (long long)ts->line_no);
        if (t[i] == '"') {
          if (i + 1 < ts->len && t[i + 1] == '"') {
            buf_putc(&ts->cellbuf, '"');
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (t[i] == '\n') ts->line_no++;
        buf_putc(&ts->cellbuf, t[i++]);
      }
    } else {
      while (i < ts->len && t[i] != ',' && t[i] != '\n' && t[i] != '\r') buf_putc(&ts->cellbuf, t[i++]);
    }
    nulls[n] = !quoted && ts->cellbuf.len == starts[n];
    n++;
    if (i < ts->len && t[i] == ',') {
      i++;
      continue;
    }
    if (i < ts->len && t[i] == '\r') i++;
    if (i < ts->len && t[i] == '\n') i++;
    else if (i < ts->len) return err_set(DELTA_EINVAL, "CSV line %lld: text after a closing quote", (long long)ts->line_no);
    break;
  }
  ts->pos = i;
  ts->line_no++;
  int rc = buf_putc(&ts->cellbuf, 0);
  if (rc) return rc;
  if (!ts->cells || n > ts->n_header) {
    int cap = n > ts->n_header ? n : ts->n_header;
    ts->cells = mem_realloc(ts->cells, (size_t)(cap + 1) * sizeof *ts->cells);
    ts->lens = mem_realloc(ts->lens, (size_t)(cap + 1) * sizeof *ts->lens);
    if (!ts->cells || !ts->lens) return DELTA_NOMEM();
  }
  for (int k = 0; k < n; k++) {
    size_t end = k + 1 < n ? starts[k + 1] : ts->cellbuf.len - 1;
    ts->cells[k] = nulls[k] ? NULL : (const char *)ts->cellbuf.data + starts[k];
    ts->lens[k] = end - starts[k];
  }
  *n_out = n;
  *more = true;
  return 0;
}

static bool blank_line(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isspace((unsigned char)s[i])) return false;
  return true;
}

/* ---- inference ---- */

typedef enum { INF_NONE, INF_LONG, INF_DOUBLE, INF_BOOL, INF_DATE, INF_TS, INF_STRING, INF_NESTED } inf_kind;

typedef struct {
  char *name;
  inf_kind kind;
  delta_type *nested;     /* NDJSON objects/arrays: from the first value seen */
} inf_col;

typedef struct {
  inf_col *cols;
  int n, cap;
} inf_set;

static int inf_find(inf_set *s, const char *name, size_t n) {
  for (int i = 0; i < s->n; i++)
    if (strlen(s->cols[i].name) == n && strncasecmp(s->cols[i].name, name, n) == 0) return i;
  if (s->n == s->cap) {
    int cap = s->cap ? s->cap * 2 : 16;
    inf_col *c = mem_realloc(s->cols, (size_t)cap * sizeof *c);
    if (!c) return DELTA_NOMEM();
    s->cols = c;
    s->cap = cap;
  }
  inf_col *c = &s->cols[s->n];
  memset(c, 0, sizeof *c);
  c->name = mem_strndup(name, n);
  if (!c->name) return DELTA_NOMEM();
  return s->n++;
}

static inf_kind merge_kind(inf_kind a, inf_kind b) {
  if (a == INF_NONE) return b;
  if (b == INF_NONE || a == b) return a;
  if ((a == INF_LONG && b == INF_DOUBLE) || (a == INF_DOUBLE && b == INF_LONG)) return INF_DOUBLE;
  return INF_STRING;
}

static inf_kind text_kind(const char *s, size_t n) {
  char tmp[64];
  if (n == 0 || n >= sizeof tmp) return INF_STRING;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  char *end;
  strtoll(tmp, &end, 10);
  if (!*end) return INF_LONG;
  strtod(tmp, &end);
  if (!*end && (isdigit((unsigned char)tmp[0]) || tmp[0] == '-' || tmp[0] == '.')) return INF_DOUBLE;
  if (!strcasecmp(tmp, "true") || !strcasecmp(tmp, "false")) return INF_BOOL;
  int32_t d;
  if (cb_parse_date(s, n, &d) == 0) return INF_DATE;
  int64_t us;
  if (n >= 16 && isdigit((unsigned char)tmp[0]) && tmp[4] == '-' && cb_parse_timestamp(s, n, false, &us) == 0)
    return INF_TS;
  return INF_STRING;
}

static delta_type *prim(delta_type_kind k) {
  delta_type *t = mem_calloc(1, sizeof *t);
  if (t) t->kind = k;
  return t;
}

/* A Delta type for a JSON value (objects → structs, arrays → arrays). */
static delta_type *json_type(delta_json_val v, int depth) {
  if (depth > 32) return prim(DT_STRING);
  switch (json_typeof(v)) {
  case DELTA_JSON_BOOL: return prim(DT_BOOLEAN);
  case DELTA_JSON_NUMBER: {
    int64_t i;
    return prim(json_int64(v, &i) == 0 ? DT_LONG : DT_DOUBLE);
  }
  case DELTA_JSON_OBJECT: {
    delta_type *t = prim(DT_STRUCT);
    if (!t) return NULL;
    int n = json_len(v);
    t->fields = mem_calloc((size_t)(n ? n : 1), sizeof *t->fields);
    if (!t->fields) {
      mem_free(t);
      return NULL;
    }
    delta_buf key = DELTA_BUF_INIT;
    for (delta_json_val m = json_first(v); json_present(m); m = json_next(m)) {
      delta_field *f = &t->fields[t->n_fields++];
      json_key(m, &key);
      f->name = mem_strndup(key.data ? (const char *)key.data : "", key.len);
      f->metadata = mem_strdup("{}");
      f->nullable = true;
      f->type = json_type(m, depth + 1);
      if (!f->name || !f->metadata || !f->type) {
        buf_dispose(&key);
        log_type_free(t);
        return NULL;
      }
    }
    buf_dispose(&key);
    return t;
  }
  case DELTA_JSON_ARRAY: {
    delta_type *t = prim(DT_ARRAY);
    if (!t) return NULL;
    t->contains_null = true;
    delta_json_val e = json_first(v);
    while (json_present(e) && json_typeof(e) == DELTA_JSON_NULL) e = json_next(e);
    t->element = json_present(e) ? json_type(e, depth + 1) : prim(DT_STRING);
    if (!t->element) {
      log_type_free(t);
      return NULL;
    }
    return t;
  }
  default: return prim(DT_STRING);
  }
}

/* Whether type `t` already has every object member of `v` (nested): then
 * the value adds no field and needs no type of its own. */
static bool covers(const delta_type *t, delta_json_val v, int depth) {
  if (depth > 32) return true;
  switch (json_typeof(v)) {
  case DELTA_JSON_OBJECT:
    if (t->kind != DT_STRUCT) return true; /* a mismatch, reported later */
    for (delta_json_val m = json_first(v); json_present(m); m = json_next(m)) {
      const char *k;
      size_t n;
      bool escaped = false, found = false;
      if (json_key_raw(m, &k, &n, &escaped) || escaped) return false;
      for (int i = 0; i < t->n_fields && !found; i++)
        if (strlen(t->fields[i].name) == n && strncasecmp(t->fields[i].name, k, n) == 0) {
          found = true;
          if (!covers(t->fields[i].type, m, depth + 1)) return false;
        }
      if (!found) return false;
    }
    return true;
  case DELTA_JSON_ARRAY:
    if (t->kind != DT_ARRAY) return true;
    for (delta_json_val e = json_first(v); json_present(e); e = json_next(e))
      if (!covers(t->element, e, depth + 1)) return false;
    return true;
  default:
    return true;
  }
}

static int infer_ndjson(text_stream *ts, inf_set *s) {
  size_t pos = 0;
  int64_t line = 1;
  delta_buf key = DELTA_BUF_INIT;
  int rc = 0;
  while (pos < ts->len) {
    const char *nl = memchr(ts->text + pos, '\n', ts->len - pos);
    size_t end = nl ? (size_t)(nl - ts->text) : ts->len;
    if (!blank_line(ts->text + pos, end - pos)) {
      if ((rc = json_parse(ts->doc, ts->text + pos, end - pos)) != 0) {
        err_prefix("NDJSON line %lld", (long long)line);
        goto done;
      }
      delta_json_val root = json_root(ts->doc);
      if (json_typeof(root) != DELTA_JSON_OBJECT) {
        rc = err_set(DELTA_EINVAL, "NDJSON line %lld: not a JSON object", (long long)line);
        goto done;
      }
      for (delta_json_val m = json_first(root); json_present(m); m = json_next(m)) {
        if ((rc = json_key(m, &key)) != 0)
          goto done;
        int c = inf_find(s, (const char *)key.data, key.len);
        if (c < 0) {
          rc = c;
          goto done;
        }
        inf_col *col = &s->cols[c];
        inf_kind k;
        switch (json_typeof(m)) {
        case DELTA_JSON_NULL: k = INF_NONE; break;
        case DELTA_JSON_BOOL: k = INF_BOOL; break;
        case DELTA_JSON_NUMBER: {
          int64_t i;
          k = json_int64(m, &i) == 0 ? INF_LONG : INF_DOUBLE;
          break;
        }
        case DELTA_JSON_OBJECT: case DELTA_JSON_ARRAY:
          k = INF_NESTED;
          if (!col->nested) {
            if (!(col->nested = json_type(m, 0))) {
              rc = DELTA_NOMEM();
              goto done;
            }
          } else if (!covers(col->nested, m, 0)) {
            /* struct members differ between rows: the union of them all */
            delta_type *t = json_type(m, 0);
            int added = 0;
            rc = t ? schema_add_fields(col->nested, t, &added) : DELTA_NOMEM();
            log_type_free(t);
            if (rc != 0)
              goto done;
          }
          break;
        default: k = INF_STRING;
        }
        col->kind = merge_kind(col->kind, k);
      }
    }
    pos = end + 1;
    line++;
  }
done:
  buf_dispose(&key);
  return rc;
}

static int infer_csv(text_stream *ts, inf_set *s) {
  size_t save = ts->pos;
  int64_t save_line = ts->line_no;
  int n;
  bool more;
  int rc;
  for (;;) {
    if ((rc = csv_record(ts, &n, &more)) != 0)
      goto done;
    if (!more)
      break;
    if (n == 1 && !ts->cells[0] && ts->n_header > 1) continue; /* blank line */
    for (int i = 0; i < n && i < s->n; i++)
      if (ts->cells[i]) s->cols[i].kind = merge_kind(s->cols[i].kind, text_kind(ts->cells[i], ts->lens[i]));
  }
done:
  ts->pos = save;
  ts->line_no = save_line;
  return rc;
}

/* Every value of `t` nullable: the input's types carry no NOT NULL, so a
 * null reaches the data writer, whose constraint check names the column
 * path and the row the same way for every input. */
static void all_nullable(delta_type *t) {
  if (!t) return;
  for (int i = 0; i < t->n_fields; i++) {
    t->fields[i].nullable = true;
    all_nullable(t->fields[i].type);
  }
  t->contains_null = true;
  t->value_contains_null = true;
  all_nullable(t->element);
  all_nullable(t->key);
  all_nullable(t->value);
}

static int build_type(text_stream *ts, inf_set *s, const delta_type *table) {
  delta_type *t = prim(DT_STRUCT);
  if (!t) return DELTA_NOMEM();
  ts->type = t;
  t->fields = mem_calloc((size_t)(s->n ? s->n : 1), sizeof *t->fields);
  if (!t->fields) return DELTA_NOMEM();
  for (int i = 0; i < s->n; i++) {
    delta_field *f = &t->fields[t->n_fields++];
    const delta_field *tf = table ? log_schema_find(table, s->cols[i].name) : NULL;
    f->name = mem_strdup(tf ? tf->name : s->cols[i].name);
    f->metadata = mem_strdup("{}");
    f->nullable = true;
    if (tf) {
      /* the table's types; struct fields only the input has are added with
       * their inferred types (for --schema-mode merge, or its error) */
      f->type = schema_copy(tf->type);
      all_nullable(f->type);
      int added = 0;
      if (f->type && s->cols[i].nested && schema_add_fields(f->type, s->cols[i].nested, &added)) return DELTA_NOMEM();
    } else if (s->cols[i].kind == INF_NESTED && s->cols[i].nested) {
      f->type = s->cols[i].nested;
      s->cols[i].nested = NULL;
    } else {
      static const delta_type_kind kinds[] = {[INF_NONE] = DT_STRING, [INF_LONG] = DT_LONG,   [INF_DOUBLE] = DT_DOUBLE,
                                              [INF_BOOL] = DT_BOOLEAN, [INF_DATE] = DT_DATE,   [INF_TS] = DT_TIMESTAMP,
                                              [INF_STRING] = DT_STRING, [INF_NESTED] = DT_STRING};
      f->type = prim(kinds[s->cols[i].kind]);
    }
    if (!f->name || !f->metadata || !f->type) return DELTA_NOMEM();
  }
  return 0;
}

/* ---- the stream ---- */

static int ts_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  text_stream *ts = st->private_data;
  return log_schema_to_arrow(ts->type, out) ? DELTA_EIO : 0;
}

static int fail(text_stream *ts, int rc) {
  snprintf(ts->err, sizeof ts->err, "%s", delta_error_last());
  return rc < 0 ? -rc : rc;
}

/* The NDJSON line from ts->pos to `end` as the next row. */
static int add_ndjson_row(text_stream *ts, size_t end) {
  int rc;
  if ((rc = json_parse(ts->doc, ts->text + ts->pos, end - ts->pos)) != 0)
    return rc;
  return row_builder_add_json(&ts->rb, json_root(ts->doc));
}

static int ts_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  text_stream *ts = st->private_data;
  memset(out, 0, sizeof *out);
  int rc = 0;
  while (ts->rb.rows < ts->batch_rows && ts->pos < ts->len) {
    if (ts->fmt == INPUT_NDJSON) {
      const char *nl = memchr(ts->text + ts->pos, '\n', ts->len - ts->pos);
      size_t end = nl ? (size_t)(nl - ts->text) : ts->len;
      if (!blank_line(ts->text + ts->pos, end - ts->pos)) {
        if ((rc = add_ndjson_row(ts, end)) != 0) {
          err_prefix("NDJSON line %lld", (long long)ts->line_no);
          return fail(ts, rc);
        }
      }
      ts->pos = end + 1;
      ts->line_no++;
    } else {
      int n;
      bool more;
      int64_t line = ts->line_no;
      if ((rc = csv_record(ts, &n, &more))) return fail(ts, rc);
      if (!more) break;
      if (n == 1 && !ts->cells[0] && ts->n_header > 1) continue;
      if (n != ts->n_header) {
        err_set(DELTA_EINVAL, "CSV line %lld: %d cells, the header has %d", (long long)line, n, ts->n_header);
        return fail(ts, DELTA_EINVAL);
      }
      if ((rc = row_builder_add_text(&ts->rb, ts->cells, ts->lens, ts->cell_of_field))) {
        err_prefix("CSV line %lld", (long long)line);
        return fail(ts, rc);
      }
    }
  }
  if (ts->rb.rows == 0) return 0; /* end: released (zeroed) array */
  if ((rc = row_builder_finish(&ts->rb, out))) return fail(ts, rc);
  return 0;
}

static const char *ts_last_error(struct ArrowArrayStream *st) {
  text_stream *ts = st->private_data;
  return ts->err[0] ? ts->err : NULL;
}

static void ts_free(text_stream *ts) {
  if (!ts) return;
  row_builder_dispose(&ts->rb);
  log_type_free(ts->type);
  json_doc_free(ts->doc);
  mem_free(ts->text);
  mem_free(ts->cell_of_field);
  mem_free(ts->cells);
  mem_free(ts->lens);
  buf_dispose(&ts->cellbuf);
  mem_free(ts);
}

static void ts_release(struct ArrowArrayStream *st) {
  if (!st->release) return;
  ts_free(st->private_data);
  st->release = NULL;
}

int input_text_stream(char *text, size_t len, input_text_format fmt, const delta_type *table, int64_t batch_rows,
                      struct ArrowArrayStream *out) {
  memset(out, 0, sizeof *out);
  text_stream *ts = mem_calloc(1, sizeof *ts);
  if (!ts) {
    mem_free(text);
    return DELTA_NOMEM();
  }
  ts->fmt = fmt;
  ts->text = text;
  ts->len = len;
  ts->line_no = 1;
  ts->batch_rows = batch_rows > 0 ? batch_rows : 65536;
  inf_set s = {0};
  int rc;
  if ((rc = json_doc_new(&ts->doc)) != 0)
    goto done;
  if (fmt == INPUT_NDJSON) {
    if ((rc = infer_ndjson(ts, &s)) != 0)
      goto done;
  } else {
    int n;
    bool more;
    if ((rc = csv_record(ts, &n, &more)) != 0)
      goto done;
    if (!more) {
      rc = err_set(DELTA_EINVAL, "CSV input has no header line");
      goto done;
    }
    ts->n_header = n;
    for (int i = 0; i < n; i++) {
      if (!ts->cells[i] || ts->lens[i] == 0) {
        rc = err_set(DELTA_EINVAL, "CSV header: column %d has no name", i + 1);
        goto done;
      }
      int c = inf_find(&s, ts->cells[i], ts->lens[i]);
      if (c < 0) {
        rc = c;
        goto done;
      }
      if (c != i) {
        rc = err_set(DELTA_EINVAL, "CSV header: column %s appears twice", s.cols[c].name);
        goto done;
      }
    }
    if ((rc = infer_csv(ts, &s)) != 0)
      goto done;
  }
  /* no rows (or only a CSV header) with a known schema: the table's columns */
  if (s.n == 0 && table)
    for (int i = 0; i < table->n_fields; i++)
      if (inf_find(&s, table->fields[i].name, strlen(table->fields[i].name)) < 0) {
        rc = DELTA_NOMEM();
        goto done;
      }
  if ((rc = build_type(ts, &s, table)) != 0)
    goto done;
  if (ts->type->n_fields == 0) {
    rc = err_set(DELTA_EINVAL, "the input has no columns");
    goto done;
  }
  if ((rc = row_builder_init(&ts->rb, ts->type)) != 0)
    goto done;
  if (fmt == INPUT_CSV) {
    ts->cell_of_field = mem_calloc((size_t)ts->n_header + 1, sizeof(int));
    if (!ts->cell_of_field) {
      rc = DELTA_NOMEM();
      goto done;
    }
    for (int i = 0; i < ts->n_header; i++) ts->cell_of_field[i] = i; /* fields are in header order */
  }
done:
  for (int i = 0; i < s.n; i++) {
    mem_free(s.cols[i].name);
    log_type_free(s.cols[i].nested);
  }
  mem_free(s.cols);
  if (rc) {
    ts_free(ts);
    return rc;
  }
  out->get_schema = ts_get_schema;
  out->get_next = ts_get_next;
  out->get_last_error = ts_last_error;
  out->release = ts_release;
  out->private_data = ts;
  return 0;
}
