#!/usr/bin/env node
// Tables written by `deltac write` read by DuckDB's Parquet reader: every data
// file's rows (unioned) equal `deltac scan` (column-mapped files by physical
// name), the per-file stats agree with DuckDB's min/max/null counts, and the
// checkpoint's add/metaData/protocol/txn rows match the log.
import fs from 'node:fs';
import path from 'node:path';
import { harness } from './harness.mjs';

const h = await harness('write_duckdb');
const { deltac, tmp, fail, check, run, con, rows } = h;

// Input: 2000 rows of many types, written through NDJSON.
const N = 2000;
const lines = [];
for (let i = 0; i < N; i++) {
  const r = {
    id: i, grp: ['a', 'b c', 'd=e/f', null][i % 4], x: i % 7 === 0 ? null : i * 1.25,
    s: i % 11 === 0 ? null : 'v'.repeat(i % 40) + i, flag: i % 3 === 0,
    day: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}`,
    ts: new Date(Date.UTC(2024, 0, 1) + i * 3600123).toISOString(),
    amt: (i * 37 % 10000 / 100).toFixed(2), tags: i % 5 === 0 ? null : [String(i), 'k'],
    st: i % 9 === 0 ? null : { a: i, b: String(i * 2) },
  };
  lines.push(JSON.stringify(r));
}
fs.writeFileSync(path.join(tmp, 'in.ndjson'), lines.join('\n') + '\n');
const schema = 'id long not null, grp string, x double, s string, flag boolean, day date, ts timestamp, ' +
  'amt decimal(10,2), tags array<string>, st struct<a: long, b: string>';

const variants = [
  { name: 'plain', args: [] },
  { name: 'partitioned', args: ['--partition-by', 'grp'] },
  { name: 'colmap', args: ['--partition-by', 'day', '--property', 'delta.columnMapping.mode=name'] },
];
for (const v of variants) {
  const table = path.join(tmp, v.name);
  run('write', '--schema', schema, '--target-file-size', '20K', '--property', 'delta.checkpointInterval=2',
      ...v.args, '--input', path.join(tmp, 'in.ndjson'), table);
  run('write', '--input', path.join(tmp, 'in.ndjson'), table);
  run('write', '--input', path.join(tmp, 'in.ndjson'), '--app-id', 'job', '--app-version', '7', table);
  run('checkpoint', table);
  const info = JSON.parse(run('info', '--format', 'json', table));
  const meta = JSON.parse(fs.readFileSync(path.join(table, '_delta_log', '00000000000000000000.json'), 'utf8')
    .split('\n').filter((l) => l.includes('"metaData"'))[0]).metaData;
  const fields = JSON.parse(meta.schemaString).fields;
  const phys = (f) => f.metadata['delta.columnMapping.physicalName'] || f.name;
  const parts = meta.partitionColumns;
  const files = run('files', '--format', 'ndjson', table).trim().split('\n').map((l) => JSON.parse(l));
  check(files.length > 1, `${v.name}: target file size gave ${files.length} files`);

  // Data files: DuckDB's rows (data columns) against deltac scan, as sorted JSON.
  const cols = fields.filter((f) => !parts.includes(f.name));
  const sel = cols.map((f) => `"${phys(f)}" AS "${f.name}"`).join(', ');
  const list = files.map((f) => `'${path.join(table, decodeURIComponent(f.path)).replace(/'/g, "''")}'`).join(', ');
  const duck = await rows(`SELECT ${sel} FROM read_parquet([${list}]) ORDER BY id`);
  const ours = run('scan', '--format', 'ndjson', table).trim().split('\n').map((l) => JSON.parse(l))
    .sort((a, b) => a.id - b.id);
  check(duck.length === 3 * N && ours.length === 3 * N, `${v.name}: ${duck.length} DuckDB rows, ${ours.length} deltac rows`);
  for (let i = 0; i < Math.min(duck.length, ours.length); i += 97) {
    const d = duck[i], o = ours[i];
    check(String(d.id) === String(o.id) && d.s === o.s && (d.x === null ? o.x === null : Number(d.x) === o.x) &&
          Number(d.amt) === Number(o.amt) && JSON.stringify(d.tags) === JSON.stringify(o.tags),
          `${v.name}: row ${i}: DuckDB ${JSON.stringify(d)} deltac ${JSON.stringify(o)}`);
  }

  // Stats of each file against DuckDB's aggregates over that file.
  for (const f of files.slice(0, 4)) {
    const log = fs.readdirSync(path.join(table, '_delta_log')).filter((n) => n.endsWith('.json'));
    let stats = null;
    for (const n of log)
      for (const l of fs.readFileSync(path.join(table, '_delta_log', n), 'utf8').split('\n'))
        if (l.includes(f.path.replace(/"/g, '')) && l.startsWith('{"add"')) stats = JSON.parse(JSON.parse(l).add.stats);
    if (!stats) { fail(`${v.name}: no stats for ${f.path}`); continue; }
    const p = path.join(table, decodeURIComponent(f.path)).replace(/'/g, "''");
    const idc = phys(fields.find((x) => x.name === 'id')), sc = phys(fields.find((x) => x.name === 's'));
    const [agg] = await rows(`SELECT count(*) AS n, min("${idc}") AS mn, max("${idc}") AS mx,
      count(*) - count("${sc}") AS sn, min("${sc}") AS smin FROM read_parquet('${p}')`);
    check(Number(agg.n) === stats.numRecords, `${v.name}: numRecords ${stats.numRecords} vs ${agg.n}`);
    check(Number(agg.mn) === stats.minValues[idc] && Number(agg.mx) === stats.maxValues[idc], `${v.name}: id bounds`);
    check(Number(agg.sn) === stats.nullCount[sc], `${v.name}: null count of s`);
    check(agg.smin === null || agg.smin.startsWith(stats.minValues[sc]) && [...stats.minValues[sc]].length <= 32,
          `${v.name}: string min ${stats.minValues[sc]} vs ${agg.smin}`);
  }

  // The checkpoint, read by DuckDB.
  const cp = path.join(table, '_delta_log', String(info.version).padStart(20, '0') + '.checkpoint.parquet');
  check(fs.existsSync(cp), `${v.name}: checkpoint ${cp} missing`);
  const last = JSON.parse(fs.readFileSync(path.join(table, '_delta_log', '_last_checkpoint'), 'utf8'));
  check(last.version === info.version, `${v.name}: _last_checkpoint version ${last.version}`);
  const adds = await rows(`SELECT add.path AS path, add.size AS size, add.stats AS stats FROM read_parquet('${cp}') WHERE add IS NOT NULL`);
  check(adds.length === files.length && last.numOfAddFiles === files.length, `${v.name}: checkpoint has ${adds.length} adds, table ${files.length}`);
  const want = new Set(files.map((f) => f.path));
  check(adds.every((a) => want.has(a.path) && JSON.parse(a.stats).numRecords > 0), `${v.name}: checkpoint add paths/stats`);
  const [m] = await rows(`SELECT metaData.id AS id, metaData.schemaString AS ss, metaData.partitionColumns AS pc FROM read_parquet('${cp}') WHERE metaData IS NOT NULL`);
  check(m && m.id === meta.id && m.ss === meta.schemaString && JSON.stringify(m.pc) === JSON.stringify(parts), `${v.name}: checkpoint metaData`);
  const [pr] = await rows(`SELECT protocol.minReaderVersion AS r, protocol.minWriterVersion AS w FROM read_parquet('${cp}') WHERE protocol IS NOT NULL`);
  check(pr && pr.r === info.min_reader_version && pr.w === info.min_writer_version, `${v.name}: checkpoint protocol ${JSON.stringify(pr)}`);
  const [t] = await rows(`SELECT txn.appId AS a, txn.version AS v FROM read_parquet('${cp}') WHERE txn IS NOT NULL`);
  check(t && t.a === 'job' && Number(t.v) === 7, `${v.name}: checkpoint txn ${JSON.stringify(t)}`);
  const [{ n }] = await rows(`SELECT count(*) AS n FROM read_parquet('${cp}')`);
  check(Number(n) === last.size, `${v.name}: _last_checkpoint size ${last.size} vs ${n} rows`);
}
h.finish();
