/* Unit test for src/log/table_setup.c: the smallest protocol for what a
 * new table uses, property checks, and which tables deltac may write. */
#include <string.h>

#include "deltac.h"
#include "test.h"
#include "log/schema_build.h"
#include "log/table_setup.h"

static void proto(const char *schema, const char *k1, const char *v1, const char *k2, const char *v2, int r, int w,
                  const char *rf, const char *wf) {
  delta_type *t = NULL;
  schema_parse_text(schema, &t);
  delta_kv kv[2] = {{k1, v1}, {k2, v2}};
  int n = k2 ? 2 : k1 ? 1 : 0;
  delta_arena a = DELTA_ARENA_INIT;
  delta_protocol p;
  CHECK_EQ_INT(table_derive_protocol(t, kv, n, &a, &p), 0);
  CHECK_EQ_INT(p.min_reader_version, r);
  CHECK_EQ_INT(p.min_writer_version, w);
  char got[256] = "";
  for (int i = 0; i < p.n_reader_features; i++) strcat(strcat(got, i ? "," : ""), p.reader_features[i]);
  CHECK_STR(got, rf);
  CHECK(p.has_reader_features == (p.min_reader_version == 3));
  got[0] = 0;
  for (int i = 0; i < p.n_writer_features; i++) strcat(strcat(got, i ? "," : ""), p.writer_features[i]);
  CHECK_STR(got, wf);
  CHECK(p.has_writer_features == (p.min_writer_version == 7));
  log_arena_dispose(&a);
  log_type_free(t);
}

int main(void) {
  proto("a int", NULL, NULL, NULL, NULL, 1, 2, "", "");
  proto("a int", "delta.appendOnly", "true", NULL, NULL, 1, 2, "", "");
  proto("a int", "delta.enableChangeDataFeed", "true", NULL, NULL, 1, 4, "", "");
  proto("a int", "delta.columnMapping.mode", "name", "delta.enableChangeDataFeed", "true", 2, 5, "", "");
  proto("a int", "delta.columnMapping.mode", "none", NULL, NULL, 1, 2, "", "");
  proto("a int", "delta.enableInCommitTimestamps", "true", NULL, NULL, 1, 7, "", "inCommitTimestamp");
  proto("a int", "delta.enableInCommitTimestamps", "true", "delta.columnMapping.mode", "id", 2, 7, "",
        "columnMapping,inCommitTimestamp");
  proto("a int", "delta.enableDeletionVectors", "true", "delta.appendOnly", "true", 3, 7, "deletionVectors",
        "appendOnly,deletionVectors");
  proto("a timestamp_ntz", "delta.columnMapping.mode", "name", NULL, NULL, 3, 7, "columnMapping,timestampNtz",
        "columnMapping,timestampNtz");
  proto("a int", "delta.enableChangeDataFeed", "false", NULL, NULL, 1, 2, "", "");
  /* row tracking keeps its high-water mark in a domain */
  proto("a int", "delta.enableRowTracking", "true", NULL, NULL, 1, 7, "", "domainMetadata,rowTracking");

  {
    /* clustering: domainMetadata + clustering on writer 7, with row tracking too */
    delta_type *t = NULL;
    schema_parse_text("a int", &t);
    delta_kv kv[1] = {{"delta.enableRowTracking", "true"}};
    delta_arena a = DELTA_ARENA_INIT;
    delta_protocol p;
    CHECK_EQ_INT(table_derive_protocol_ex(t, kv, 0, true, &a, &p), 0);
    CHECK_EQ_INT(p.min_writer_version, 7);
    CHECK_EQ_INT(p.n_writer_features, 2);
    CHECK_STR(p.writer_features[0], "domainMetadata");
    CHECK_STR(p.writer_features[1], "clustering");
    CHECK_EQ_INT(table_derive_protocol_ex(t, kv, 1, true, &a, &p), 0);
    CHECK_EQ_INT(p.n_writer_features, 3); /* domainMetadata once */
    CHECK_EQ_INT(table_check_writable(&p, &(delta_metadata){0}, t), 0);
    const char *lf[] = {"domainMetadata", "liquid"};
    delta_protocol lp = {3, 7, NULL, 0, true, lf, 2, true};
    CHECK_EQ_INT(table_check_writable(&lp, &(delta_metadata){0}, t), DELTA_EUNSUPPORTED);
    CHECK(strstr(delta_error_last(), "preview") != NULL);
    log_arena_dispose(&a);
    log_type_free(t);
  }
  const char *k[] = {"delta.checkpointInterval", "user.thing", "delta.appendOnly"};
  const char *v[] = {"10", "anything", "TRUE"};
  CHECK_EQ_INT(table_check_properties(k, v, 3), 0);
  const char *bad[] = {"0"};
  CHECK_EQ_INT(table_check_properties(k, bad, 1), DELTA_EINVAL);
  const char *k2[] = {"delta.columnMapping.mode"}, *v2[] = {"physical"};
  CHECK_EQ_INT(table_check_properties(k2, v2, 1), DELTA_EINVAL);
  const char *k3[] = {"delta.enableTypeWidening"}, *v3[] = {"true"};
  CHECK_EQ_INT(table_check_properties(k3, v3, 1), DELTA_EUNSUPPORTED);
  const char *k5[] = {"delta.enableRowTracking"};
  CHECK_EQ_INT(table_check_properties(k5, v3, 1), 0);
  const char *k4[] = {"delta.nope"};
  CHECK_EQ_INT(table_check_properties(k4, v3, 1), DELTA_EINVAL);

  /* writability */
  delta_type *t = NULL;
  schema_parse_text("a int", &t);
  delta_metadata m;
  memset(&m, 0, sizeof m);
  const char *wf[] = {"typeWidening", "domainMetadata", "rowTracking"};
  delta_protocol p = {3, 7, NULL, 0, true, wf, 3, true};
  CHECK_EQ_INT(table_check_writable(&p, &m, t), DELTA_EUNSUPPORTED);
  CHECK(strstr(delta_error_last(), "typeWidening") != NULL);
  p.writer_features = wf + 1;
  p.n_writer_features = 2;
  CHECK_EQ_INT(table_check_writable(&p, &m, t), 0);
  /* enabled without the materialized column names: not a table to write */
  delta_kv on[1] = {{"delta.enableRowTracking", "true"}};
  m.configuration = on;
  m.n_configuration = 1;
  CHECK_EQ_INT(table_check_writable(&p, &m, t), DELTA_ECORRUPT);
  m.configuration = NULL;
  m.n_configuration = 0;
  log_type_free(t);
  CHECK_EQ_INT(schema_parse_text("{\"type\":\"struct\",\"fields\":[{\"name\":\"g\",\"type\":\"integer\",\"nullable\":true,"
                                 "\"metadata\":{\"delta.generationExpression\":\"1\"}}]}", &t), 0);
  /* top-level generated columns are written (gen_columns.h); nested ones are not */
  CHECK_EQ_INT(table_check_writable(&p, &m, t), 0);
  log_type_free(t);
  CHECK_EQ_INT(schema_parse_text("{\"type\":\"struct\",\"fields\":[{\"name\":\"s\",\"type\":{\"type\":\"struct\","
                                 "\"fields\":[{\"name\":\"g\",\"type\":\"long\",\"nullable\":true,\"metadata\":"
                                 "{\"delta.identity.start\":1}}]},\"nullable\":true,\"metadata\":{}}]}", &t), 0);
  CHECK_EQ_INT(table_check_writable(&p, &m, t), DELTA_EUNSUPPORTED);
  CHECK(strstr(delta_error_last(), "column s has a nested generated or identity column") != NULL);
  log_type_free(t);
  /* the protocol a new table gets: writer 4 for generated, 6 for identity
   * columns; with table features, both listed */
  delta_arena ga = DELTA_ARENA_INIT;
  delta_protocol gp;
  CHECK_EQ_INT(schema_parse_text("{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,"
                                 "\"metadata\":{}},{\"name\":\"g\",\"type\":\"integer\",\"nullable\":true,"
                                 "\"metadata\":{\"delta.generationExpression\":\"a + 1\"}}]}", &t), 0);
  CHECK_EQ_INT(table_derive_protocol(t, NULL, 0, &ga, &gp), 0);
  CHECK_EQ_INT(gp.min_writer_version, 4);
  CHECK(!gp.has_writer_features);
  log_type_free(t);
  CHECK_EQ_INT(schema_parse_text("{\"type\":\"struct\",\"fields\":[{\"name\":\"i\",\"type\":\"long\",\"nullable\":true,"
                                 "\"metadata\":{\"delta.identity.start\":1,\"delta.identity.step\":1}},"
                                 "{\"name\":\"g\",\"type\":\"long\",\"nullable\":true,"
                                 "\"metadata\":{\"delta.generationExpression\":\"i * 2\"}}]}", &t), 0);
  CHECK_EQ_INT(table_derive_protocol(t, NULL, 0, &ga, &gp), 0);
  CHECK_EQ_INT(gp.min_writer_version, 6);
  delta_kv dvp = {"delta.enableDeletionVectors", "true"};
  CHECK_EQ_INT(table_derive_protocol(t, &dvp, 1, &ga, &gp), 0);
  CHECK_EQ_INT(gp.min_writer_version, 7);
  int found = 0;
  for (int i = 0; i < gp.n_writer_features; i++)
    found += strcmp(gp.writer_features[i], "generatedColumns") == 0 || strcmp(gp.writer_features[i], "identityColumns") == 0;
  CHECK_EQ_INT(found, 2);
  log_type_free(t);
  log_arena_dispose(&ga);
  TEST_MAIN_END();
}
