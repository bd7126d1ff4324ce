/*
 * The Azure back end's listing: List Blobs with a prefix and delimiter '/',
 * paged by NextMarker.
 *
 * Azure orders a listing by whole blob name, in which a directory "a" (the
 * prefix "a/") sorts after a file "a b" (' ' < '/'), while the contract
 * wants entry names in byte order ("a" < "a b"). Rather than collect the
 * whole directory first, each page's entries are sorted into a pending set
 * and reported as soon as no later page can hold a smaller name: later
 * pages hold names greater than the page's last name L, except directories
 * D with D + "/" > L, the smallest of which is L cut before its first byte
 * below '/'. So every pending name below that cut is final. The callback
 * can stop the listing early, and start_after skips names as they come
 * (Azure's marker is opaque, so a listing cannot start at a name).
 *
 * An ADLS Gen2 (hierarchical namespace) account lists a directory both as
 * a prefix and as an empty blob with metadata hdi_isfolder=true; the blob
 * is skipped (include=metadata asks for it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "storage/azure_internal.h"
#include "storage/s3_xml.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

#define XML_TEXT_MAX (64 * 1024)  /* longest element text read from a listing */
#define LIST_PAGE_MAX (64 << 20)  /* largest listing page accepted (Azure sends a few MB) */
#define DEPTH_MAX 6

typedef struct {
  char *name;
  uint64_t size;
  int64_t mtime_ms;
  bool is_dir;
} entry;

typedef struct {
  entry *v;
  size_t n, cap;
} entries;

static void entries_dispose(entries *e) {
  for (size_t i = 0; i < e->n; i++) mem_free(e->v[i].name);
  mem_free(e->v);
}

static int entries_add(entries *e, const char *name, size_t len, uint64_t size, int64_t mtime, bool is_dir) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 64;
    entry *v = mem_realloc(e->v, cap * sizeof *v);
    if (!v) return DELTA_NOMEM();
    e->v = v;
    e->cap = cap;
  }
  char *n = mem_strndup(name, len);
  if (!n) return DELTA_NOMEM();
  e->v[e->n++] = (entry){n, size, mtime, is_dir};
  return 0;
}

static int entry_cmp(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (int)x->is_dir - (int)y->is_dir;
}

/* "Wed, 09 Sep 2009 09:20:02 GMT" -> ms since the epoch; 0 when unreadable. */
static int64_t parse_http_date_ms(const char *s) {
  static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  struct tm tm = {0};
  char mon[4] = "";
  if (sscanf(s, "%*3s, %2d %3s %4d %2d:%2d:%2d", &tm.tm_mday, mon, &tm.tm_year, &tm.tm_hour, &tm.tm_min,
             &tm.tm_sec) != 6)
    return 0;
  const char *m = strstr(months, mon);
  if (!m || strlen(mon) != 3 || (m - months) % 3) return 0;
  tm.tm_mon = (int)(m - months) / 3;
  tm.tm_year -= 1900;
  time_t t = timegm(&tm);
  return t == (time_t)-1 ? 0 : (int64_t)t * 1000;
}

/* One List Blobs page. */
typedef struct {
  const char *dir_prefix; /* full blob-name prefix of the directory ("t/_delta_log/") */
  size_t dir_len;
  entries *out;
  delta_buf marker; /* NextMarker, "" at the end */
  delta_buf last;   /* the page's last name relative to the directory, with '/' for a prefix */
  size_t seen;      /* names and prefixes the page held, before any filtering */
} page;

static int page_add(page *p, delta_buf *name, uint64_t size, int64_t mtime, bool is_dir) {
  const char *k = (const char *)name->data;
  size_t kl = name->len;
  int rc;
  p->seen++;
  if (kl < p->dir_len || memcmp(k, p->dir_prefix, p->dir_len) != 0)
    return err_set(DELTA_ECORRUPT, "listing returned a name outside the listed prefix");
  k += p->dir_len;
  kl -= p->dir_len;
  p->last.len = 0;
  if ((rc = buf_append(&p->last, k, kl)) != 0) return rc;
  if (is_dir) {
    if (!kl || k[kl - 1] != '/') return err_set(DELTA_ECORRUPT, "listing returned a bad blob prefix");
    kl--;
  }
  /* A "dir/" marker blob (name "") or a name with an empty segment ("a//b")
   * names nothing a table key can reach: skip it. */
  if (!kl || memchr(k, '/', kl) || memchr(k, '\0', kl)) return 0;
  return entries_add(p->out, k, kl, size, mtime, is_dir);
}

static bool is(const char *s, size_t l, const char *name) { return strlen(name) == l && memcmp(s, name, l) == 0; }

static int corrupt(void) { return err_set(DELTA_ECORRUPT, "malformed XML in an Azure listing"); }

static int parse_page(page *p, const char *doc, size_t len) {
  s3_xml x = S3_XML_INIT(doc, len);
  /* Element path: 1 EnumerationResults, 2 Blobs/NextMarker, 3 Blob/
   * BlobPrefix, 4 Name/Properties/Metadata, 5 their fields. */
  char stack[DEPTH_MAX][32];
  int depth = 0, rc = 0;
  delta_buf text = DELTA_BUF_INIT, name = DELTA_BUF_INIT;
  uint64_t size = 0;
  int64_t mtime = 0;
  bool folder = false;
  text.limit = name.limit = XML_TEXT_MAX;
  for (;;) {
    s3_xml_kind k;
    const char *s;
    size_t l;
    if ((rc = s3_xml_next(&x, &k, &s, &l)) != 0) goto done;
    if (k == S3_XML_END) break;
    if (k == S3_XML_OPEN) {
      if (depth >= DEPTH_MAX) {
        depth++;
        continue;
      }
      snprintf(stack[depth], sizeof stack[depth], "%.*s", (int)(l < 31 ? l : 31), s);
      depth++;
      text.len = 0;
      if (depth == 3 && (is(s, l, "Blob") || is(s, l, "BlobPrefix"))) {
        name.len = 0;
        size = 0;
        mtime = 0;
        folder = false;
      }
      continue;
    }
    if (k == S3_XML_TEXT) {
      if (depth >= 2 && depth <= 5 && (rc = s3_xml_decode(&text, s, l)) != 0) goto done;
      continue;
    }
    if (depth == 0) {
      rc = corrupt();
      goto done;
    }
    depth--;
    if (depth >= DEPTH_MAX) continue;
    if (!is(s, l, stack[depth]) && l < 31) {
      rc = corrupt();
      goto done;
    }
    if ((rc = buf_putc(&text, '\0')) != 0) goto done;
    text.len--;
    const char *t = (const char *)text.data;
    if (strcmp(stack[0], "EnumerationResults") != 0) {
      text.len = 0;
      continue;
    }
    if (depth == 3 && strcmp(stack[1], "Blobs") == 0 && strcmp(stack[3], "Name") == 0) {
      name.len = 0;
      if ((rc = buf_append(&name, t, text.len)) != 0) goto done;
    } else if (depth == 4 && strcmp(stack[1], "Blobs") == 0 && strcmp(stack[2], "Blob") == 0) {
      if (strcmp(stack[3], "Properties") == 0 && strcmp(stack[4], "Content-Length") == 0) {
        char *end;
        size = strtoull(t, &end, 10);
        if (!*t || *end) {
          rc = err_set(DELTA_ECORRUPT, "Azure listing has a bad Content-Length");
          goto done;
        }
      } else if (strcmp(stack[3], "Properties") == 0 && strcmp(stack[4], "Last-Modified") == 0) {
        mtime = parse_http_date_ms(t);
      } else if (strcmp(stack[3], "Metadata") == 0 && strcasecmp(stack[4], "hdi_isfolder") == 0) {
        folder = strcasecmp(t, "true") == 0;
      }
    } else if (depth == 2 && strcmp(stack[1], "Blobs") == 0) {
      if (strcmp(stack[2], "Blob") == 0) {
        if (folder) p->seen++;
        else if ((rc = page_add(p, &name, size, mtime, false)) != 0) goto done;
      } else if (strcmp(stack[2], "BlobPrefix") == 0) {
        if ((rc = page_add(p, &name, 0, 0, true)) != 0) goto done;
      }
    } else if (depth == 1 && strcmp(stack[1], "NextMarker") == 0) {
      p->marker.len = 0;
      if ((rc = buf_append(&p->marker, t, text.len)) != 0) goto done;
    }
    text.len = 0;
  }
  if (depth != 0) rc = corrupt();
done:
  if (rc == DELTA_ELIMIT) rc = err_set(DELTA_ECORRUPT, "Azure listing has an element too long");
  buf_dispose(&text);
  buf_dispose(&name);
  return rc;
}

/* The length of the smallest name a later page may still hold, given the
 * page's last name `last` (see the top of the file). */
static size_t cut(const delta_buf *last) {
  for (size_t i = 0; i < last->len; i++)
    if ((unsigned char)last->data[i] < '/') return i;
  return last->len;
}

/* strcmp of `name` against the first `n` bytes of `bound`. */
static int cmp_bound(const char *name, const delta_buf *bound, size_t n) {
  size_t nl = strlen(name), m = nl < n ? nl : n;
  int c = memcmp(name, bound->data, m);
  if (c) return c;
  return nl < n ? -1 : nl > n ? 1 : 0;
}

int azure_list(void *impl, const char *dir_key, const char *start_after, delta_storage_list_cb cb,
               void *payload) {
  azure_store *s = impl;
  delta_buf dir = DELTA_BUF_INIT, label = DELTA_BUF_INIT;
  entries pend = {0};
  page p = {NULL, 0, &pend, DELTA_BUF_INIT, DELTA_BUF_INIT, 0};
  size_t seen = 0;
  const char *last_sent = NULL; /* the previous reported name, to drop duplicates */
  bool last_dir = false;
  char *last_copy = NULL;
  int rc;
  if ((rc = azure_full_key(&dir, s, dir_key)) != 0) goto done;
  dir.len--; /* drop the NUL to append '/' */
  if (dir.len && (rc = buf_putc(&dir, '/')) != 0) goto done;
  if ((rc = buf_putc(&dir, '\0')) != 0) goto done;
  if ((rc = azure_make_label(&label, s, (const char *)dir.data)) != 0) goto done;
  p.dir_prefix = (const char *)dir.data;
  p.dir_len = dir.len - 1;
  for (bool first = true;; first = false) {
    const char *qn[8], *qv[8];
    size_t nq = 0;
    char *marker = NULL;
    qn[nq] = "restype", qv[nq++] = "container";
    qn[nq] = "comp", qv[nq++] = "list";
    qn[nq] = "delimiter", qv[nq++] = "/";
    qn[nq] = "include", qv[nq++] = "metadata";
    if (p.dir_len) qn[nq] = "prefix", qv[nq++] = p.dir_prefix;
    /* Tests shrink the pages to exercise the paging on small directories. */
    const char *page_size = getenv("DELTAC_AZURE_LIST_PAGE_SIZE");
    if (page_size && *page_size) qn[nq] = "maxresults", qv[nq++] = page_size;
    if (!first) {
      if ((rc = buf_putc(&p.marker, '\0')) != 0) goto done;
      marker = (char *)p.marker.data;
      qn[nq] = "marker", qv[nq++] = marker;
    }
    azure_req r = {"GET", NULL, qn, qv, nq, {{0}}, 0, NULL, 0, NULL, (const char *)label.data};
    http_response resp = {0};
    resp.body.limit = LIST_PAGE_MAX;
    rc = azure_send(s, &r, &resp);
    p.marker.len = 0;
    if (rc) {
      buf_dispose(&resp.body);
      goto done;
    }
    if (resp.status != 200) {
      rc = azure_status_error((const char *)label.data, &resp, resp.status == 404 ? DELTA_ENOTFOUND : DELTA_EIO);
      buf_dispose(&resp.body);
      goto done;
    }
    p.seen = 0;
    rc = parse_page(&p, (const char *)resp.body.data, resp.body.len);
    buf_dispose(&resp.body);
    if (rc) {
      err_prefix("%s", (const char *)label.data);
      goto done;
    }
    seen += p.seen;
    bool final = p.marker.len == 0;
    if (pend.n) qsort(pend.v, pend.n, sizeof *pend.v, entry_cmp);
    size_t bound = cut(&p.last), i = 0;
    for (; i < pend.n; i++) {
      entry *e = &pend.v[i];
      if (!final && cmp_bound(e->name, &p.last, bound) >= 0) break;
      if (start_after && strcmp(e->name, start_after) <= 0) continue;
      /* A file and a directory of one name are both real; the same entry
       * twice is not (a misbehaving server). */
      if (last_sent && strcmp(e->name, last_sent) == 0 && e->is_dir == last_dir) continue;
      delta_storage_entry de = {e->name, strlen(e->name), e->size, e->mtime_ms, e->is_dir};
      if ((rc = cb(&de, payload)) != 0) goto done;
      mem_free(last_copy);
      if (!(last_copy = mem_strdup(e->name))) {
        rc = DELTA_NOMEM();
        goto done;
      }
      last_sent = last_copy;
      last_dir = e->is_dir;
    }
    for (size_t j = 0; j < i; j++) mem_free(pend.v[j].name);
    if (i) memmove(pend.v, pend.v + i, (pend.n - i) * sizeof *pend.v);
    pend.n -= i;
    if (final) break;
  }
  /* Nothing at all under the prefix: a "directory" that does not exist. */
  if (seen == 0)
    rc = err_set(DELTA_ENOTFOUND, "%s: not found (no blob has this prefix)", (const char *)label.data);
done:
  mem_free(last_copy);
  entries_dispose(&pend);
  buf_dispose(&p.marker);
  buf_dispose(&p.last);
  buf_dispose(&dir);
  buf_dispose(&label);
  return rc;
}
