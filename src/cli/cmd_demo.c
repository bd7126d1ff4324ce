/* deltac demo: writes a small orders table with a realistic history (daily
 * appends, UPDATEs and a DELETE with deletion vectors, a day's orders
 * corrected by an overwrite with replace_where, late orders, a MERGE of a
 * status feed, an OPTIMIZE) through the public write, DML and maintenance APIs, then serves it like
 * `deltac serve --table demo=DIR`.
 *
 * Step N of the history is version N. Appends carry the transaction id
 * ("deltac-demo", step) and DML steps are skipped when their version exists,
 * so a rerun writes nothing new and an interrupted run resumes where it
 * stopped: the table is always exactly the same history. The data are generated from a
 * fixed seed for the same reason (tests compare counts). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "deltac/dml.h"
#include "deltac/error.h"
#include "deltac/maintenance.h"
#include "deltac/table.h"
#include "deltac/write.h"
#include "serve/serve.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"
#include "util/buf.h"
#include "write/input_text.h"
#include "log/schema_build.h"

#define DEMO_APP_ID "deltac-demo"
#define DEMO_DAYS 7           /* orders of 2024-05-01 .. 2024-05-07 */
#define DEMO_CORRECTED_DAY 3  /* the day whose orders step 8 rewrites */

static const char demo_schema[] =
    "order_id long not null, customer string, product string, quantity long, amount double, status string, "
    "order_date date";

static const char *const customers[] = {"Ada",   "Grace", "Linus", "Edsger", "Barbara", "Ken",  "Dennis",
                                        "Alan",  "Donald", "Frances", "Margaret", "John", "Radia", "Bjarne"};
static const char *const products[] = {"keyboard", "mouse", "monitor", "laptop", "headset", "webcam", "dock"};
static const double prices[] = {49.0, 19.5, 229.0, 1299.0, 89.0, 59.9, 179.0};
static const char *const statuses[] = {"placed", "paid", "shipped", "delivered"};

/* A small deterministic generator: the same table on every machine. */
static uint32_t next_rand(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 16) & 0x7fff;
}

static int orders_on(int day) { return 18 + (day * 7) % 11; }

/* NDJSON lines for `n` orders of 2024-05-DAY numbered from `id0`; a
 * corrected day has its amounts with a 10% discount and some refunds. */
static int gen_orders(delta_buf *b, int day, int64_t id0, int n, int late, int corrected) {
  uint32_t seed = (uint32_t)(day * 7919 + late * 104729);
  for (int i = 0; i < n; i++) {
    int c = next_rand(&seed) % (int)(sizeof customers / sizeof *customers);
    int p = next_rand(&seed) % (int)(sizeof products / sizeof *products);
    int q = 1 + next_rand(&seed) % 4;
    /* older orders have progressed further */
    int st = (DEMO_DAYS - day + (int)(next_rand(&seed) % 3)) / 3;
    const char *status = statuses[st > 3 ? 3 : st];
    double amount = prices[p] * q;
    if (corrected) {
      amount *= 0.9;
      if (i % 5 == 0) status = "refunded";
    }
    int rc = buf_printf(b,
                              "{\"order_id\":%" PRId64 ",\"customer\":\"%s\",\"product\":\"%s\",\"quantity\":%d,"
                              "\"amount\":%.2f,\"status\":\"%s\",\"order_date\":\"2024-05-%02d\"}\n",
                              id0 + i, customers[c], products[p], q, amount, status, day);
    if (rc) return rc;
  }
  return 0;
}

/* First order id of a day: ids are contiguous per day, late orders after. */
static int64_t first_id(int day) {
  int64_t id = 1000;
  for (int d = 1; d < day; d++) id += orders_on(d);
  return id;
}

/* The history, one commit per step (step N is version N). */
typedef enum { STEP_APPEND, STEP_CORRECT_DAY, STEP_LATE, STEP_UPDATE, STEP_DELETE, STEP_MERGE, STEP_OPTIMIZE } step_kind;
typedef struct {
  step_kind kind;
  int day;                /* STEP_APPEND: the day's orders */
  const char *set, *where; /* STEP_UPDATE / STEP_DELETE */
} demo_step_def;

static const demo_step_def demo_history[] = {
    {STEP_APPEND, 1, NULL, NULL},
    {STEP_APPEND, 2, NULL, NULL},
    {STEP_APPEND, 3, NULL, NULL},
    {STEP_APPEND, 4, NULL, NULL},
    {STEP_APPEND, 5, NULL, NULL},
    /* the first days' paid orders leave the warehouse: update_preimage/postimage */
    {STEP_UPDATE, 0, "status = 'shipped'", "status = 'paid' AND order_date <= DATE '2024-05-02'"},
    {STEP_APPEND, 6, NULL, NULL},
    /* Ken cancels his unpaid orders: deletion vectors, delete rows */
    {STEP_DELETE, 0, NULL, "customer = 'Ken' AND status = 'placed'"},
    /* the 3rd's orders re-sent with corrected prices and refunds (replace_where) */
    {STEP_CORRECT_DAY, DEMO_CORRECTED_DAY, NULL, NULL},
    {STEP_APPEND, 7, NULL, NULL},
    /* a price drop on monitors, applied to the open orders of the last day */
    {STEP_UPDATE, 0, "amount = amount * 0.9",
     "product = 'monitor' AND status = 'placed' AND order_date >= DATE '2024-05-07'"},
    {STEP_LATE, 0, NULL, NULL},
    /* the carrier's status feed upserted by order_id: updates and new orders */
    {STEP_MERGE, 0, NULL, NULL},
    /* the small daily files compacted (no change data) */
    {STEP_OPTIMIZE, 0, NULL, NULL},
};
#define DEMO_STEPS ((int)(sizeof demo_history / sizeof *demo_history))

/* The demo table, opened for one operation (the caller frees it). */
static int on_table(const char *dir, delta_table **t) { return delta_table_open(t, dir); }

static int demo_dml(const char *dir, const demo_step_def *d, int64_t *version, int64_t *rows) {
  delta_dml_result r = {0};
  delta_table *t = NULL;
  int rc;
  if ((rc = on_table(dir, &t)) != 0) return rc;
  if (d->kind == STEP_UPDATE) {
    delta_update_options u = DELTA_UPDATE_OPTIONS_INIT;
    u.set = d->set;
    u.where = d->where;
    rc = delta_update(t, &u, &r);
  } else {
    delta_delete_options o = DELTA_DELETE_OPTIONS_INIT;
    o.where = d->where;
    rc = delta_delete(t, &o, &r);
  }
  delta_table_free(t);
  if (!rc && r.noop) rc = err_set(DELTA_ERROR, "demo step matched no row: %s", d->where);
  *version = r.version;
  *rows = d->kind == STEP_UPDATE ? r.rows_updated : r.rows_deleted;
  return rc;
}

/* The carrier's feed: the last days' first orders delivered or returned,
 * and three orders the shop's feed had missed. */
static int demo_merge(const char *dir, const delta_type *schema, int64_t *version, int64_t *updated,
                      int64_t *inserted) {
  delta_buf b = DELTA_BUF_INIT;
  int rc = 0;
  for (int day = DEMO_DAYS - 1; day <= DEMO_DAYS && !rc; day++) {
    uint32_t seed = (uint32_t)day * 31u;
    delta_buf one = DELTA_BUF_INIT;
    rc = gen_orders(&one, day, first_id(day), 6, 0, 0);
    /* the same orders with a new status (the rest of the row as generated) */
    if (!rc) rc = buf_putc(&one, 0); /* the lines as one C string */
    for (char *line = (char *)one.data; !rc && line && *line;) {
      char *nl = strchr(line, '\n');
      char *st = strstr(line, "\"status\":\"");
      if (!nl || !st || st > nl) break;
      char *end = strchr(st + 10, '"');
      const char *now = next_rand(&seed) % 4 ? "delivered" : "returned";
      rc = buf_printf(&b, "%.*s%s%.*s\n", (int)(st + 10 - line), line, now, (int)(nl - end), end);
      line = nl + 1;
    }
    buf_dispose(&one);
  }
  if (!rc) rc = gen_orders(&b, DEMO_DAYS, first_id(DEMO_DAYS + 1) + 7, 3, 2, 0);
  if (rc) {
    buf_dispose(&b);
    return rc;
  }
  size_t len = b.len;
  char *text = (char *)buf_detach(&b);
  struct ArrowArrayStream source;
  if ((rc = input_text_stream(text, len, INPUT_NDJSON, schema, 0, &source))) return rc;
  static const delta_merge_clause clauses[] = {
      {DELTA_MERGE_MATCHED, DELTA_MERGE_UPDATE, "t.status <> s.status", "status = s.status"},
      {DELTA_MERGE_NOT_MATCHED, DELTA_MERGE_INSERT, NULL, NULL},
  };
  delta_merge_options o = DELTA_MERGE_OPTIONS_INIT;
  o.source = &source;
  o.on = "t.order_id = s.order_id";
  o.clauses = clauses;
  o.n_clauses = 2;
  delta_merge_result r = {0};
  delta_table *t = NULL;
  if ((rc = on_table(dir, &t)) == 0) {
    rc = delta_merge(t, &o, &r);
    delta_table_free(t);
  }
  if (source.release) source.release(&source);
  if (!rc && r.noop) rc = err_set(DELTA_ERROR, "demo MERGE changed nothing");
  *version = r.version;
  *updated = r.rows_updated;
  *inserted = r.rows_inserted;
  return rc;
}

static int64_t table_version(const char *dir) {
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  int64_t v = -1;
  if (delta_table_open(&t, dir) == 0 && delta_snapshot_open(&s, t, NULL) == 0) v = delta_snapshot_version(s);
  delta_snapshot_free(s);
  delta_table_free(t);
  delta_error_clear();
  return v;
}

/* One commit of the history. Appends carry the transaction id, so a rerun
 * skips them; updates and deletes (which have none) are done when the
 * table already has their version. */
static int demo_step(const char *dir, int step, const delta_type *schema, int *written) {
  const demo_step_def *d = &demo_history[step];
  int64_t have = table_version(dir);
  if (d->kind == STEP_MERGE || d->kind == STEP_OPTIMIZE) {
    if (have >= step) return 0;
    int64_t v, a, b;
    int rc;
    if (d->kind == STEP_MERGE) {
      if ((rc = demo_merge(dir, schema, &v, &a, &b))) return rc;
      printf("  version %" PRId64 ": MERGE, %" PRId64 " rows updated, %" PRId64 " inserted\n", v, a, b);
    } else {
      delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
      delta_optimize_result r;
      delta_table *t = NULL;
      if ((rc = on_table(dir, &t)) != 0) return rc;
      rc = delta_optimize(t, &o, &r);
      delta_table_free(t);
      if (rc) return rc;
      if (r.noop) return err_set(DELTA_ERROR, "demo OPTIMIZE had nothing to do");
      printf("  version %" PRId64 ": OPTIMIZE, %" PRId64 " files compacted into %" PRId64 "\n", r.version,
             r.files_removed, r.files_added);
    }
    ++*written;
    return 0;
  }
  if (d->kind == STEP_UPDATE || d->kind == STEP_DELETE) {
    if (have >= step) return 0;
    int64_t v, rows;
    int rc = demo_dml(dir, d, &v, &rows);
    if (rc) return rc;
    ++*written;
    printf("  version %" PRId64 ": %" PRId64 " rows %s\n", v, rows, d->kind == STEP_UPDATE ? "updated" : "deleted");
    return 0;
  }
  delta_buf b = DELTA_BUF_INIT;
  delta_write_options o = DELTA_WRITE_OPTIONS_INIT;
  static const char *const keys[] = {"delta.enableChangeDataFeed", "delta.enableDeletionVectors",
                                     "delta.enableInCommitTimestamps"};
  static const char *const values[] = {"true", "true", "true"};
  static const char *const parts[] = {"order_date"};
  o.mode = DELTA_WRITE_APPEND;
  if (have < 0) { /* the writer takes these only when it creates the table */
    o.schema = demo_schema;
    o.partition_by = parts;
    o.n_partition_by = 1;
    o.property_keys = keys;
    o.property_values = values;
    o.n_properties = 3;
    o.name = "orders";
    o.description = "deltac demo: web shop orders";
  }
  o.app_id = DEMO_APP_ID;
  o.app_version = step;
  char where[64];
  int rc;
  if (d->kind == STEP_APPEND) {
    rc = gen_orders(&b, d->day, first_id(d->day), orders_on(d->day), 0, 0);
  } else if (d->kind == STEP_CORRECT_DAY) {
    rc = gen_orders(&b, d->day, first_id(d->day), orders_on(d->day), 0, 1);
    o.mode = DELTA_WRITE_OVERWRITE;
    snprintf(where, sizeof where, "order_date = DATE '2024-05-%02d'", d->day);
    o.replace_where = where;
  } else { /* late orders for the last two days */
    rc = gen_orders(&b, DEMO_DAYS - 1, first_id(DEMO_DAYS + 1), 4, 1, 0);
    if (!rc) rc = gen_orders(&b, DEMO_DAYS, first_id(DEMO_DAYS + 1) + 4, 3, 1, 0);
  }
  if (rc) {
    buf_dispose(&b);
    return rc;
  }
  size_t len = b.len;
  char *text = (char *)buf_detach(&b);
  struct ArrowArrayStream stream;
  rc = input_text_stream(text, len, INPUT_NDJSON, schema, 0, &stream);
  if (rc) return rc;
  delta_write_result r;
  delta_table *t = NULL;
  if ((rc = on_table(dir, &t)) != 0) {
    stream.release(&stream);
    return rc;
  }
  rc = delta_write(t, &stream, &o, &r);
  delta_table_free(t);
  if (rc) return rc;
  if (r.skipped) return 0;
  ++*written;
  printf("  version %" PRId64 ": %" PRId64 " rows written%s\n", r.version, r.rows_written,
         r.files_removed ? " (replacing a day's orders)" : "");
  return 0;
}



int cmd_demo(int argc, char **argv) {
  cli_opt opts[] = {{"dir", true, NULL}, {"port", true, NULL}, {"host", true, NULL}, {"create-only", false, NULL},
                    {"help", false, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  const char *pos[1];
  int n_pos = 0;
  int rc = cli_parse(argc, argv, opts, n_opts, pos, 1, &n_pos, "demo");
  if (rc) return rc;
  if (cli_get(opts, n_opts, "help")) {
    printf("usage: deltac demo [--dir DIR] [--host 127.0.0.1] [--port 8080] [--create-only]\n"
           "Writes a demo orders table (change data feed on, %d commits) into DIR (default demo-table)\n"
           "unless it is there already, then serves it as table 'demo' (docs/server.md).\n",
           DEMO_STEPS);
    return 0;
  }
  const char *dir = cli_get(opts, n_opts, "dir");
  if (!dir) dir = n_pos ? pos[0] : "demo-table";
  const char *port = cli_get(opts, n_opts, "port");
  const char *host = cli_get(opts, n_opts, "host");
  if (!port) port = "8080";
  if (!host) host = "127.0.0.1";

  delta_type *schema = NULL;
  if (schema_parse_text(demo_schema, &schema)) return cli_fail("demo schema");
  printf("deltac demo: table in %s\n", dir);
  int written = 0;
  for (int step = 0; step < DEMO_STEPS && !rc; step++) rc = demo_step(dir, step, schema, &written);
  log_type_free(schema);
  if (rc) return cli_fail(dir);
  if (!written) printf("  the table was there already: its %d commits are reused\n", DEMO_STEPS);
  fflush(stdout);
  if (cli_get(opts, n_opts, "create-only")) return 0;

  char table_arg[4096];
  if (snprintf(table_arg, sizeof table_arg, "demo=%s", dir) >= (int)sizeof table_arg)
    return cli_usage_error("demo", "directory name too long");
  char *serve_argv[] = {"--host", (char *)host, "--port", (char *)port, "--table", table_arg};
  printf("deltac demo: open http://%s:%s/ in a browser (Ctrl-C stops the server)\n", host, port);
  fflush(stdout);
  serve_config cfg;
  if ((rc = serve_config_load(&cfg, (int)(sizeof serve_argv / sizeof *serve_argv),
                              serve_argv)) != 0) goto done;
  rc = serve_run(&cfg);
done:
  serve_config_free(&cfg);
  return rc;
}
