/* Unit test for src/txn/checkpoint_write.c: a checkpoint of a table with
 * adds (stats, partition values, a DV), recent and expired tombstones, txns
 * and domain metadata read back by the checkpoint reader and by replay
 * from the checkpoint alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deltac.h"
#include "log/checkpoint_read.h"
#include "log/snapshot.h"
#include "storage/storage_internal.h"
#include "test.h"
#include "txn/checkpoint_write.h"
#include "txn/commit.h"

typedef struct {
  int adds, removes, txns, domains, metas, protos;
  bool dv_seen, stats_seen, null_pv;
} counts;

/* The operations take an open table: open `loc`, run, free. */
static int checkpoint_at(const char *loc, int64_t version, int64_t *out) {
  delta_table *t = NULL;
  int rc;
  if ((rc = delta_table_open(&t, loc)) != 0) return rc;
  rc = delta_checkpoint_create(t, version, out);
  delta_table_free(t);
  return rc;
}

static int count(const delta_action *a, void *payload) {
  counts *c = payload;
  switch (a->kind) {
  case DELTA_ACTION_ADD:
    c->adds++;
    if (a->u.add.dv.present && a->u.add.dv.cardinality == 2 && a->u.add.dv.storage_type == 'u') c->dv_seen = true;
    if (a->u.add.stats && strstr(a->u.add.stats, "\"numRecords\":5")) c->stats_seen = true;
    for (int i = 0; i < a->u.add.n_partition_values; i++)
      if (!a->u.add.partition_values[i].value) c->null_pv = true;
    break;
  case DELTA_ACTION_REMOVE: c->removes++; break;
  case DELTA_ACTION_TXN: c->txns++; break;
  case DELTA_ACTION_DOMAIN_METADATA: c->domains++; break;
  case DELTA_ACTION_METADATA: c->metas++; break;
  case DELTA_ACTION_PROTOCOL: c->protos++; break;
  default: break;
  }
  return 0;
}

int main(void) {
  char root[] = "/tmp/deltac-ckpt-XXXXXX";
  if (!mkdtemp(root)) return 1;
  delta_storage *st = NULL;
  CHECK_EQ_INT(delta_storage_open(&st, root), 0);
  char v0[4096], v1[1024];
  int64_t now = write_now_ms(), old = now - 8LL * 86400 * 1000;
  snprintf(v0, sizeof v0,
           "{\"commitInfo\":{}}\n"
           "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"deletionVectors\"],"
           "\"writerFeatures\":[\"deletionVectors\",\"domainMetadata\"]}}\n"
           "{\"metaData\":{\"id\":\"abc\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
           "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"p\\\",\\\"type\\\":\\\"string\\\","
           "\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"v\\\",\\\"type\\\":\\\"long\\\","
           "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[\"p\"],\"configuration\":{},"
           "\"createdTime\":1}}\n"
           "{\"add\":{\"path\":\"p=a/1.parquet\",\"partitionValues\":{\"p\":\"a\"},\"size\":10,\"modificationTime\":1,"
           "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":5}\",\"tags\":{\"k\":\"v\"},"
           "\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\",\"offset\":1,"
           "\"sizeInBytes\":36,\"cardinality\":2}}}\n"
           "{\"add\":{\"path\":\"p=__HIVE_DEFAULT_PARTITION__/2.parquet\",\"partitionValues\":{\"p\":null},\"size\":10,"
           "\"modificationTime\":1,\"dataChange\":true}}\n"
           "{\"add\":{\"path\":\"gone-old.parquet\",\"partitionValues\":{\"p\":\"b\"},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n"
           "{\"add\":{\"path\":\"gone-new.parquet\",\"partitionValues\":{\"p\":\"b\"},\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n"
           "{\"txn\":{\"appId\":\"app\",\"version\":3,\"lastUpdated\":5}}\n"
           "{\"domainMetadata\":{\"domain\":\"d1\",\"configuration\":\"{}\",\"removed\":false}}\n"
           "{\"domainMetadata\":{\"domain\":\"d2\",\"configuration\":\"{}\",\"removed\":false}}\n");
  snprintf(v1, sizeof v1,
           "{\"commitInfo\":{}}\n"
           "{\"remove\":{\"path\":\"gone-old.parquet\",\"deletionTimestamp\":%lld,\"dataChange\":true}}\n"
           "{\"remove\":{\"path\":\"gone-new.parquet\",\"deletionTimestamp\":%lld,\"dataChange\":true}}\n"
           "{\"domainMetadata\":{\"domain\":\"d2\",\"configuration\":\"{}\",\"removed\":true}}\n",
           (long long)old, (long long)now);
  CHECK_EQ_INT(delta_storage_put(st, "_delta_log/00000000000000000000.json", v0, strlen(v0), false), 0);
  CHECK_EQ_INT(delta_storage_put(st, "_delta_log/00000000000000000001.json", v1, strlen(v1), false), 0);
  int64_t version = -1;
  CHECK_EQ_INT(checkpoint_at(root, -1, &version), 0);
  CHECK_EQ_INT(version, 1);
  char path[512];
  snprintf(path, sizeof path, "%s/_delta_log/00000000000000000001.checkpoint.parquet", root);
  delta_arena arena = DELTA_ARENA_INIT;
  counts c = {0};
  CHECK_EQ_INT(log_checkpoint_read_parquet(path, &arena, DELTA_CKPT_STATS_FULL, count, &c), 0);
  CHECK_EQ_INT(c.adds, 2);
  CHECK_EQ_INT(c.removes, 1); /* the expired tombstone is left out */
  CHECK_EQ_INT(c.txns, 1);
  CHECK_EQ_INT(c.domains, 1); /* removed domains are not kept */
  CHECK_EQ_INT(c.metas, 1);
  CHECK_EQ_INT(c.protos, 1);
  CHECK(c.dv_seen && c.stats_seen && c.null_pv);
  log_arena_dispose(&arena);
  delta_buf hint = DELTA_BUF_INIT;
  CHECK_EQ_INT(storage_read_all(st, "_delta_log/_last_checkpoint", &hint), 0);
  buf_putc(&hint, 0);
  CHECK(strstr((const char *)hint.data, "\"version\":1,\"size\":7,") != NULL);
  CHECK(strstr((const char *)hint.data, "\"numOfAddFiles\":2") != NULL);
  buf_dispose(&hint);
  /* replay from the checkpoint alone */
  CHECK_EQ_INT(delta_storage_delete(st, "_delta_log/00000000000000000000.json"), 0);
  CHECK_EQ_INT(delta_storage_delete(st, "_delta_log/00000000000000000001.json"), 0);
  delta_table *t = NULL;
  delta_snapshot *s = NULL;
  CHECK_EQ_INT(delta_table_open(&t, root), 0);
  CHECK_EQ_INT(delta_snapshot_open(&s, t, NULL), 0);
  if (s) {
    CHECK_EQ_INT(s->version, 1);
    CHECK_EQ_INT(s->n_files, 2);
    CHECK_EQ_INT(s->n_txns, 1);
    CHECK_EQ_INT(s->n_domains, 1);
    CHECK_STR(s->metadata.id, "abc");
    CHECK_EQ_INT(s->protocol.n_reader_features, 1);
  }
  delta_snapshot_free(s);
  delta_table_free(t);
  /* a V2-checkpoint table is refused rather than given a V1 checkpoint */
  delta_storage_free(st);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) return 1;
  TEST_MAIN_END();
}
