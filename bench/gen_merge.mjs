#!/usr/bin/env node
// Data of the MERGE benchmark (bench/merge_run.sh), made once into DIR:
//   base.parquet  ROWS rows: id 0..ROWS-1, grp int, amount double, name string
//   src.parquet   UPD updates (ids spread over one tenth of the table, from
//                 40%) and INS inserts (new ids from ROWS on)
//   src_spread.parquet  the same with the updates spread over all ids (every
//                 file of the table holds some)
// Prints DIR.
//
//   node bench/gen_merge.mjs [--rows 10000000] [--changes 10000] [--dir bench/data/merge]
import fs from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const argv = process.argv.slice(2);
let rows = 10_000_000, changes = 10_000, dir = 'bench/data/merge';
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--rows') rows = parseInt(argv[++i], 10);
  else if (argv[i] === '--changes') changes = parseInt(argv[++i], 10);
  else if (argv[i] === '--dir') dir = argv[++i];
}
const upd = Math.floor(changes / 2), ins = changes - upd;
const tag = `${rows}-${changes}-2`;
fs.mkdirSync(dir, { recursive: true });
if (!fs.existsSync(`${dir}/done-${tag}`)) {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`COPY (SELECT i::BIGINT AS id, (i % 1000)::INTEGER AS grp, (i * 0.5)::DOUBLE AS amount,
                      'name-' || (i % 100000)::VARCHAR AS name FROM range(${rows}) t(i))
               TO '${dir}/base.parquet' (FORMAT parquet, COMPRESSION snappy)`);
  const lo = Math.floor(rows * 0.4), step = Math.max(1, Math.floor(rows / 10 / upd));
  await c.run(`COPY (SELECT (${lo} + i * ${step})::BIGINT AS id, 7::INTEGER AS grp, -1.0::DOUBLE AS amount,
                      'updated-' || i::VARCHAR AS name FROM range(${upd}) t(i)
                    UNION ALL
                    SELECT (${rows} + i)::BIGINT, 8::INTEGER, 2.0::DOUBLE, 'inserted-' || i::VARCHAR FROM range(${ins}) t(i))
               TO '${dir}/src.parquet' (FORMAT parquet)`);
  const wide = Math.max(1, Math.floor(rows / upd));
  await c.run(`COPY (SELECT (i * ${wide})::BIGINT AS id, 7::INTEGER AS grp, -1.0::DOUBLE AS amount,
                      'updated-' || i::VARCHAR AS name FROM range(${upd}) t(i)
                    UNION ALL
                    SELECT (${rows} + i)::BIGINT, 8::INTEGER, 2.0::DOUBLE, 'inserted-' || i::VARCHAR FROM range(${ins}) t(i))
               TO '${dir}/src_spread.parquet' (FORMAT parquet)`);
  fs.writeFileSync(`${dir}/done-${tag}`, '');
}
console.log(dir);
