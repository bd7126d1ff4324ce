#!/usr/bin/env node
// A clustered table with row tracking written by deltac, read by DuckDB's
// Parquet reader: every live file's rows, with their stable row id computed
// as the spec says (the materialized column when non-null, else baseRowId +
// the row's position in the file) and likewise the commit version, equal
// `deltac scan --row-tracking`; the rows equal the scan; OPTIMIZE's files
// carry clusteringProvider "liquid" and hold the rows ordered into boxes of
// the clustering column.
import fs from 'node:fs';
import path from 'node:path';
import { harness } from './harness.mjs';

const h = await harness('row_tracking_duckdb');
const { tmp, check, run, rows } = h;

const table = path.join(tmp, 't');
const nd = (name, objs) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, objs.map((o) => JSON.stringify(o)).join('\n') + '\n');
  return f;
};
const batch = (from, n) => Array.from({ length: n }, (_, i) => ({ k: from + i, x: (from + i) * 37 % 101, s: `r${from + i}` }));
run('write', '--property', 'delta.enableRowTracking=true', '--cluster-by', 'x', '--input', nd('a.ndjson', batch(0, 300)), table);
run('write', '--input', nd('b.ndjson', batch(300, 300)), table);
run('update', '--no-deletion-vectors', '--set', "s = 'u'", '--where', 'k >= 100 AND k < 130', table);
run('merge', '--source', nd('m.ndjson', [...batch(0, 50).map((r) => ({ ...r, s: 'm' })), ...batch(1000, 20)]),
  '--on', 't.k = s.k', '--when-matched-update-all', '--when-not-matched-insert-all', '--no-deletion-vectors', table);
run('delete', '--no-deletion-vectors', '--where', 'k >= 200 AND k < 215', table);
run('write', '--input', nd('c.ndjson', batch(600, 100)), table);
run('optimize', '--target-size', '2K', table);

// the live adds, replayed from the JSON log (no checkpoint was written)
const log = path.join(table, '_delta_log');
const live = new Map();
let config = {};
for (const f of fs.readdirSync(log).filter((n) => n.endsWith('.json')).sort()) {
  for (const line of fs.readFileSync(path.join(log, f), 'utf8').split('\n').filter(Boolean)) {
    const a = JSON.parse(line);
    if (a.metaData) config = a.metaData.configuration;
    if (a.add) live.set(a.add.path, a.add);
    if (a.remove) live.delete(a.remove.path);
  }
}
const idCol = config['delta.rowTracking.materializedRowIdColumnName'];
const verCol = config['delta.rowTracking.materializedRowCommitVersionColumnName'];
check(idCol && verCol, 'materialized column names in the configuration');

const duck = new Map();
let clustered = 0;
for (const add of live.values()) {
  check(Number.isInteger(add.baseRowId) && Number.isInteger(add.defaultRowCommitVersion), `${add.path}: row ids`);
  if (add.clusteringProvider === 'liquid') clustered++;
  const file = path.join(table, decodeURIComponent(add.path)).replace(/'/g, "''");
  const names = (await rows(`SELECT name FROM parquet_schema('${file}')`)).map((r) => r.name);
  const id = names.includes(idCol) ? `"${idCol}"` : 'NULL';
  const ver = names.includes(verCol) ? `"${verCol}"` : 'NULL';
  const got = await rows(`SELECT k, x, s, coalesce(${id}, ${add.baseRowId} + file_row_number) AS rid,
    coalesce(${ver}, ${add.defaultRowCommitVersion}) AS ver FROM read_parquet('${file}', file_row_number = true)`);
  for (const r of got) duck.set(Number(r.k), r);
}
check(clustered === live.size, `after OPTIMIZE every file is clustered: ${clustered} of ${live.size}`);
check(live.size > 1, `OPTIMIZE with a small target size gave ${live.size} files`);

const ours = run('scan', '--row-tracking', '--format', 'ndjson', table).trim().split('\n').map((l) => JSON.parse(l));
check(ours.length === duck.size, `${ours.length} deltac rows, ${duck.size} DuckDB rows`);
let bad = 0;
for (const o of ours) {
  const d = duck.get(o.k);
  if (!d || Number(d.rid) !== o._row_id || Number(d.ver) !== o._row_commit_version || d.s !== o.s || Number(d.x) !== o.x) {
    if (bad++ < 5) h.fail(`row ${o.k}: deltac ${JSON.stringify(o)}, DuckDB ${JSON.stringify(d)}`);
  }
}
check(bad === 0, `${bad} rows differ`);
check(new Set(ours.map((o) => o._row_id)).size === ours.length, 'row ids are unique');
// rows never touched since the first write keep ids 0..299 and version 0
const first = ours.filter((o) => o.k < 300 && o.k >= 50 && !(o.k >= 100 && o.k < 130));
check(first.length === 205 && first.every((o) => o._row_id === o.k && o._row_commit_version === 0), 'untouched rows keep their first ids');

// clustering: the files' x ranges barely overlap (each is a box of the curve)
const ranges = [...live.values()].map((a) => JSON.parse(a.stats)).map((st) => [st.minValues.x, st.maxValues.x])
  .sort((a, b) => a[0] - b[0]);
let overlap = 0;
for (let i = 1; i < ranges.length; i++) if (ranges[i][0] < ranges[i - 1][1]) overlap++;
check(overlap === 0, `clustered files overlap in x: ${JSON.stringify(ranges)}`);
h.finish();
