#!/usr/bin/env node
// Writes row_groups.checkpoint.parquet next to this script: a classic
// checkpoint of 8200 rows in row groups of 2048, where only some row groups
// hold actions other than add (protocol + metaData in the first, a remove
// and a txn in the third), for test_checkpoint_read.c. Row i (add) has path
// "f<i>", partitionValues {a: "p<i%3>"} (every fifth row also b: "q"; row 7
// a null value), size i, stats numRecords i.
//
//   node tests/unit/log/data/gen_row_groups_checkpoint.mjs
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'row_groups.checkpoint.parquet');
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await db.connect();
const addT = 'STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR)';
const removeT = 'STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN)';
const txnT = 'STRUCT(appId VARCHAR, version BIGINT, lastUpdated BIGINT)';
const mdT = 'STRUCT(id VARCHAR, format STRUCT(provider VARCHAR, options MAP(VARCHAR, VARCHAR)), schemaString VARCHAR, partitionColumns VARCHAR[], configuration MAP(VARCHAR, VARCHAR), createdTime BIGINT)';
const prT = 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER)';
const schema = '{"type":"struct","fields":[{"name":"a","type":"string","nullable":true,"metadata":{}}]}';
await conn.run(`COPY (
  SELECT
    CASE WHEN i = 5001 THEN {appId: 'app', version: 3, lastUpdated: 7}::${txnT} END AS txn,
    CASE WHEN i NOT IN (0, 1, 5000, 5001) THEN {
      path: 'f' || i,
      partitionValues: CASE WHEN i = 7 THEN MAP {'a': NULL::VARCHAR}
                            WHEN i % 5 = 0 THEN MAP {'a': 'p' || (i % 3), 'b': 'q'}
                            ELSE MAP {'a': 'p' || (i % 3)} END,
      size: i, modificationTime: 1700000000000 + i, dataChange: false,
      stats: '{"numRecords":' || i || '}'}::${addT} END AS add,
    CASE WHEN i = 5000 THEN {path: 'gone', deletionTimestamp: 5, dataChange: true}::${removeT} END AS remove,
    CASE WHEN i = 1 THEN {id: 'rg-test', format: {provider: 'parquet', options: MAP {}}, schemaString: '${schema}',
      partitionColumns: ['a'], configuration: MAP {}, createdTime: 1}::${mdT} END AS metaData,
    CASE WHEN i = 0 THEN {minReaderVersion: 1, minWriterVersion: 2}::${prT} END AS protocol
  FROM range(8200) r(i) ORDER BY i
) TO '${out}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
console.log(out);
