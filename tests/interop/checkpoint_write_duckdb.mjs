#!/usr/bin/env node
// Checkpoints deltac writes, read three ways: DuckDB's Parquet reader opens
// every checkpoint and sidecar file and finds the actions the spec asks for
// (stats_parsed with typed bounds under physical names, partitionValues_parsed,
// checkpointMetadata, sidecar rows); deltac's own reader replays the table
// from the checkpoint alone (the commits before it deleted) to the same rows,
// and skips files by stats_parsed when the JSON stats are not written.
import fs from 'node:fs';
import path from 'node:path';
import { harness } from './harness.mjs';

const h = await harness('checkpoint_write_duckdb');
const { deltac, tmp, fail, check, run, con, rows } = h;

const N = 60;
const lines = [];
for (let i = 1; i <= N; i++)
  lines.push(JSON.stringify({ id: i, p: 'ab'[i % 2], d: `2024-01-${String(1 + (i % 3)).padStart(2, '0')}`,
    v: i * 1.5, s: { x: i, y: `n${i}` }, tags: ['t'] }));
fs.writeFileSync(path.join(tmp, 'in.ndjson'), lines.join('\n') + '\n');
const schema = 'id long, p string, d date, v double, s struct<x: long, y: string>, tags array<string>';

const cases = [
  { name: 'v1_struct', props: ['delta.checkpoint.writeStatsAsStruct=true', 'delta.checkpoint.writeStatsAsJson=false',
    'delta.columnMapping.mode=name'], part: 'p,d', v2: false },
  { name: 'v1_plain', props: [], part: '', v2: false },
  { name: 'v2_sidecar', props: ['delta.checkpointPolicy=v2', 'delta.checkpoint.writeStatsAsStruct=true'], part: 'p',
    v2: true },
  { name: 'v2_cm', props: ['delta.checkpointPolicy=v2', 'delta.columnMapping.mode=id'], part: '', v2: true },
];

const scanIds = (t, ...extra) =>
  run('scan', '--format', 'ndjson', ...extra, t).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l).id)
    .sort((a, b) => a - b).join(',');

for (const c of cases) {
  const t = path.join(tmp, c.name);
  const args = ['write', '--schema', schema, '--target-file-size', '1', '--input', path.join(tmp, 'in.ndjson')];
  for (const p of c.props) args.push('--property', p);
  if (c.part) args.push('--partition-by', c.part);
  run(...args, t);
  run('delete', '--where', 'id <= 6', t);
  run('checkpoint', t);
  const want = scanIds(t);
  check(want === Array.from({ length: N - 6 }, (_, i) => i + 7).join(','), `${c.name}: rows before ${want}`);
  const log = path.join(t, '_delta_log');
  const files = fs.readdirSync(log).filter((f) => f.includes('.checkpoint.'));
  check(files.length === 1, `${c.name}: one checkpoint file, got ${files}`);
  const ck = path.join(log, files[0]);
  check(c.v2 ? /^0{19}1\.checkpoint\.[0-9a-f-]{36}\.parquet$/.test(files[0]) : files[0] === '00000000000000000001.checkpoint.parquet',
    `${c.name}: checkpoint name ${files[0]}`);
  const last = JSON.parse(fs.readFileSync(path.join(log, '_last_checkpoint'), 'utf8'));
  check(last.version === 1 && (!c.v2 || last.v2Checkpoint?.path === files[0]), `${c.name}: _last_checkpoint ${JSON.stringify(last)}`);
  // DuckDB reads the checkpoint (and the sidecars)
  const proto = await rows(`SELECT protocol.minReaderVersion AS r, protocol.readerFeatures AS f FROM read_parquet('${ck}') WHERE protocol IS NOT NULL`);
  check(proto.length === 1, `${c.name}: one protocol row`);
  if (c.v2) check(JSON.stringify(proto[0].f).includes('v2Checkpoint'), `${c.name}: v2Checkpoint feature ${JSON.stringify(proto)}`);
  let addSrc = `read_parquet('${ck}')`;
  if (c.v2) {
    const cm = await rows(`SELECT checkpointMetadata.version AS v FROM read_parquet('${ck}') WHERE checkpointMetadata IS NOT NULL`);
    check(cm.length === 1 && Number(cm[0].v) === 1, `${c.name}: checkpointMetadata ${JSON.stringify(cm)}`);
    const sc = await rows(`SELECT sidecar.path AS p, sidecar.sizeInBytes AS n FROM read_parquet('${ck}') WHERE sidecar IS NOT NULL`);
    check(sc.length === 1, `${c.name}: one sidecar row`);
    const sf = path.join(log, '_sidecars', sc[0].p);
    check(fs.existsSync(sf) && fs.statSync(sf).size === Number(sc[0].n), `${c.name}: sidecar file ${sc[0].p}`);
    const inline = await rows(`SELECT count(*) AS n FROM read_parquet('${ck}')`);
    check(Number(inline[0].n) >= 4, `${c.name}: main checkpoint rows`);
    addSrc = `read_parquet('${sf}')`;
  }
  const adds = await rows(`SELECT count(*) AS n FROM ${addSrc} WHERE add IS NOT NULL`);
  check(Number(adds[0].n) === last.numOfAddFiles, `${c.name}: adds ${adds[0].n} vs ${last.numOfAddFiles}`);
  if (c.props.includes('delta.checkpoint.writeStatsAsStruct=true')) {
    const st = await rows(`SELECT sum(add.stats_parsed.numRecords) AS n, count(add.stats) AS j FROM ${addSrc} WHERE add IS NOT NULL`);
    check(Number(st[0].n) === N - 6, `${c.name}: stats_parsed.numRecords sum ${st[0].n}`);
    const json = !c.props.includes('delta.checkpoint.writeStatsAsJson=false');
    check((Number(st[0].j) > 0) === json, `${c.name}: JSON stats present=${json}, count ${st[0].j}`);
    // bounds typed as the columns, under the physical names
    const meta = JSON.parse(fs.readFileSync(path.join(log, '00000000000000000000.json'), 'utf8').split('\n')
      .map((l) => l && JSON.parse(l)).find((a) => a && a.metaData).metaData.schemaString);
    const phys = (f) => f.metadata['delta.columnMapping.physicalName'] ?? f.name;
    const idf = meta.fields.find((f) => f.name === 'id'), sf = meta.fields.find((f) => f.name === 's');
    const x = sf.type.fields.find((f) => f.name === 'x');
    const b = await rows(`SELECT min(add.stats_parsed.minValues."${phys(idf)}") AS lo, max(add.stats_parsed.maxValues."${phys(idf)}") AS hi,
      max(add.stats_parsed.maxValues."${phys(sf)}"."${phys(x)}") AS xhi FROM ${addSrc} WHERE add IS NOT NULL`);
    check(Number(b[0].lo) === 7 && Number(b[0].hi) === N && Number(b[0].xhi) === N, `${c.name}: bounds ${JSON.stringify(b)}`);
    if (c.part) {
      const pd = meta.fields.find((f) => f.name === 'p');
      const pv = await rows(`SELECT DISTINCT add.partitionValues_parsed."${phys(pd)}" AS p FROM ${addSrc} WHERE add IS NOT NULL ORDER BY 1`);
      check(JSON.stringify(pv.map((r) => r.p)) === '["a","b"]', `${c.name}: partitionValues_parsed ${JSON.stringify(pv)}`);
      if (c.part.includes('d')) {
        const dd = meta.fields.find((f) => f.name === 'd');
        const dt = await rows(`SELECT typeof(add.partitionValues_parsed."${phys(dd)}") AS t FROM ${addSrc} WHERE add IS NOT NULL LIMIT 1`);
        check(dt[0].t === 'DATE', `${c.name}: date partition value typed ${JSON.stringify(dt)}`);
      }
    }
  }
  // deltac replays from the checkpoint alone
  for (const f of fs.readdirSync(log)) if (/^0+[01]\.json$/.test(f)) fs.unlinkSync(path.join(log, f));
  check(scanIds(t) === want, `${c.name}: rows from the checkpoint alone`);
  const some = scanIds(t, '--filter', 'id = 30');
  check(some === '30', `${c.name}: filtered scan ${some}`);
  if (c.name === 'v1_struct') {
    // stats only as stats_parsed: the plan skips by them
    const planned = (f) => run('plan', '--filter', f, t).trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'file').length;
    check(planned('id > 1000') === 0, `${c.name}: plan for id > 1000 kept files`);
    check(planned('s.x < 7') === 0, `${c.name}: plan for s.x < 7 (nested bounds) kept files`);
    check(planned('id = 30') >= 1, `${c.name}: plan for id = 30 kept no file`);
  }
  // a commit after the checkpoint still replays on top of it
  run('write', '--input', path.join(tmp, 'in.ndjson'), t);
  check(run('scan', '--format', 'count', t).trim() === String(2 * N - 6), `${c.name}: rows after another write`);
}

h.finish();
