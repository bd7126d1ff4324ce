/*
 * JSON reader throughput on Delta-log-like NDJSON (not a test: prints
 * numbers, asserts nothing). Generates ~100 MB of add actions in memory
 * (partitioned paths, partitionValues, stats as escaped JSON, tags, a
 * deletion vector on some) and reports MB/s for
 *   - parse + extract path, size, modificationTime, partitionValues, stats
 *     (what log replay does per add action),
 *   - parse only,
 *   - jsmn 1.1.0 tokenizing the same lines (the tokenizer DESIGN.md measured;
 *     it validates far less), when <jsmn.h> is installed.
 *
 * Build: cc -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Isrc bench/bench_json.c
 *        src/json/json.c src/json/json_writer.c src/util/[a-z]*.c -lm
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "util/buf.h"

#if defined(__has_include)
#if __has_include(<jsmn.h>)
#define JSMN_STATIC
#define JSMN_PARENT_LINKS
#define JSMN_STRICT
#include <jsmn.h>
#define HAVE_JSMN 1
#endif
#endif

#define TARGET_BYTES (100u << 20)

static uint64_t state = 88172645463325252ull;
static uint64_t rnd(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void gen_line(delta_buf *b, int i) {
  unsigned day = (unsigned)(rnd() % 28) + 1, region = (unsigned)(rnd() % 5);
  static const char *regions[] = {"us east", "eu-west", "ap south", "sa-east", "af"};
  long long rows = (long long)(rnd() % 1000000) + 1;
  buf_printf(b,
                   "{\"add\":{\"path\":\"date=2024-01-%02u/region=%s/part-%05d-%08llx-%04x-c000.snappy.parquet\","
                   "\"partitionValues\":{\"date\":\"2024-01-%02u\",\"region\":\"%s\"},\"size\":%llu,"
                   "\"modificationTime\":%lld,\"dataChange\":true,",
                   day, region == 0 ? "us%20east" : region == 2 ? "ap%20south" : regions[region], i,
                   (unsigned long long)(rnd() & 0xffffffffu), (unsigned)(rnd() & 0xffff), day, regions[region],
                   (unsigned long long)(rnd() % 200000000), 1700000000000LL + (long long)(rnd() % 100000000));
  buf_printf(b,
                   "\"stats\":\"{\\\"numRecords\\\":%lld,\\\"minValues\\\":{\\\"id\\\":%lld,\\\"name\\\":\\\"a%05u\\\","
                   "\\\"price\\\":%.3f,\\\"ts\\\":\\\"2024-01-%02uT00:00:00.000Z\\\"},\\\"maxValues\\\":{\\\"id\\\":%lld,"
                   "\\\"name\\\":\\\"z%05u\\\",\\\"price\\\":%.3f,\\\"ts\\\":\\\"2024-01-%02uT23:59:59.999Z\\\"},"
                   "\\\"nullCount\\\":{\\\"id\\\":0,\\\"name\\\":%u,\\\"price\\\":%u,\\\"ts\\\":0}}\",",
                   rows, (long long)(rnd() % 1000000), (unsigned)(rnd() % 100000), (double)(rnd() % 100000) / 7.0,
                   day, (long long)(rnd() % 1000000) + 1000000, (unsigned)(rnd() % 100000),
                   (double)(rnd() % 100000) / 3.0, day, (unsigned)(rnd() % 100), (unsigned)(rnd() % 100));
  if (i % 4 == 0)
    buf_printf(b,
                     "\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\","
                     "\"offset\":%u,\"sizeInBytes\":40,\"cardinality\":%u},",
                     (unsigned)(rnd() % 1000), (unsigned)(rnd() % 100) + 1);
  buf_printf(b, "\"tags\":{\"INSERTION_TIME\":\"%lld\",\"OPTIMIZE_TARGET_SIZE\":\"268435456\"}}}\n",
                   1700000000000000LL + (long long)(rnd() % 1000000000));
}

typedef struct {
  size_t lines;
  uint64_t checksum; /* keeps the compiler from dropping the extraction */
} result;

static int replay(const char *text, size_t len, delta_json_doc *d, delta_buf *s, bool extract, result *r) {
  size_t pos = 0;
  r->lines = 0;
  r->checksum = 0;
  while (pos < len) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - text) : len;
    if (json_parse(d, text + pos, end - pos) != 0) return -1;
    r->lines++;
    if (extract) {
      delta_json_val add = json_get(json_root(d), "add");
      int64_t size = 0, mt = 0;
      if (json_string(json_get(add, "path"), s) || json_int64(json_get(add, "size"), &size) ||
          json_int64(json_get(add, "modificationTime"), &mt))
        return -1;
      r->checksum += s->len + (uint64_t)size + (uint64_t)mt;
      delta_json_val pv = json_get(add, "partitionValues");
      for (delta_json_val v = json_first(pv); json_present(v); v = json_next(v)) {
        if (json_key(v, s)) return -1;
        r->checksum += s->len;
        if (json_typeof(v) == DELTA_JSON_STRING) {
          if (json_string(v, s)) return -1;
          r->checksum += s->len;
        }
      }
      if (json_string(json_get(add, "stats"), s)) return -1;
      r->checksum += s->len;
    }
    pos = end + 1;
  }
  return 0;
}

#ifdef HAVE_JSMN
static int jsmn_all(const char *text, size_t len, result *r) {
  size_t cap = 1024;
  jsmntok_t *t = malloc(cap * sizeof *t);
  size_t pos = 0;
  r->lines = 0;
  r->checksum = 0;
  while (pos < len) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - text) : len;
    jsmn_parser p;
    jsmn_init(&p);
    int n = jsmn_parse(&p, text + pos, end - pos, t, (unsigned)cap);
    if (n < 0) {
      free(t);
      return -1;
    }
    r->checksum += (uint64_t)n;
    r->lines++;
    pos = end + 1;
  }
  free(t);
  return 0;
}
#endif

int main(void) {
  delta_buf text = DELTA_BUF_INIT, s = DELTA_BUF_INIT;
  for (int i = 0; text.len < TARGET_BYTES; i++) gen_line(&text, i);
  double mb = (double)text.len / 1e6;
  delta_json_doc *d = NULL;
  if (json_doc_new(&d)) return 1;
  result r = {0, 0};
  double best_full = 1e9, best_parse = 1e9;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now();
    if (replay((char *)text.data, text.len, d, &s, true, &r)) {
      fprintf(stderr, "bench_json: replay failed\n");
      return 1;
    }
    double t1 = now();
    if (replay((char *)text.data, text.len, d, &s, false, &r)) return 1;
    double t2 = now();
    if (t1 - t0 < best_full) best_full = t1 - t0;
    if (t2 - t1 < best_parse) best_parse = t2 - t1;
  }
  printf("bench_json: %.1f MB, %zu add-action lines (avg %zu bytes)\n", mb, r.lines, text.len / r.lines);
  printf("deltac json parse + extract path/size/modificationTime/partitionValues/stats: %.0f MB/s (%.2f M lines/s)\n",
         mb / best_full, (double)r.lines / best_full / 1e6);
  printf("deltac json parse only (strict, validating):                                 %.0f MB/s\n",
         mb / best_parse);
#ifdef HAVE_JSMN
  double best_jsmn = 1e9;
  result rj;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now();
    if (jsmn_all((char *)text.data, text.len, &rj)) {
      fprintf(stderr, "bench_json: jsmn failed\n");
      return 1;
    }
    double t1 = now();
    if (t1 - t0 < best_jsmn) best_jsmn = t1 - t0;
  }
  printf("jsmn 1.1.0 tokenize only (lenient, same lines):                              %.0f MB/s (deltac parse/jsmn = %.2f)\n",
         mb / best_jsmn, best_jsmn / best_parse);
#endif
  json_doc_free(d);
  buf_dispose(&text);
  buf_dispose(&s);
  return 0;
}
