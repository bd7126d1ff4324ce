#!/usr/bin/env node
// The DML matrix (see dml_matrix.sh). Per combination a fresh table of 30
// rows in three appends (three files, or nine with partitions); two
// statements per DML, the second over the first's deletion vectors. DuckDB
// holds the expected table: it runs the equivalent SQL (DELETE, UPDATE,
// MERGE INTO) on its copy; the expected change rows are the difference by
// id of its table before and after (every statement here changes the
// values of the rows it updates, so an update is a pre/post image pair).
import fs from 'node:fs';
import path from 'node:path';
import { harness } from './harness.mjs';

const h = await harness('dml_matrix', { maxBuffer: 1 << 26 });
const { deltac, tmp, fail, check, run, con, rows } = h;
const COLS = `columns={id: 'BIGINT', p: 'VARCHAR', v: 'BIGINT', s: 'VARCHAR'}`;

// input: ids 1..30 in three files; s null for every 7th row
const row = (i) => ({ id: i, p: 'abc'[i % 3], v: i, s: i % 7 === 0 ? null : `s${i}` });
for (let k = 0; k < 3; k++) {
  const lines = [];
  for (let i = k * 10 + 1; i <= k * 10 + 10; i++) lines.push(JSON.stringify(row(i)));
  fs.writeFileSync(path.join(tmp, `in${k}.ndjson`), lines.join('\n') + '\n');
}
// MERGE sources: matched rows to update (new values, one moves partition)
// or delete (op 'D'), new rows, rows with a null key (never match)
const src1 = [
  { id: 3, p: 'a', v: 1003, s: 'm3', op: 'U' }, { id: 8, p: 'c', v: 1008, s: null, op: 'U' },
  { id: 14, p: 'c', v: 1014, s: 'm14', op: 'D' }, { id: 20, p: 'c', v: 1020, s: 'm20', op: 'U' },
  { id: 27, p: 'a', v: 1027, s: 'm27', op: 'D' }, { id: 31, p: 'b', v: 1031, s: 'n31', op: 'U' },
  { id: 40, p: 'a', v: 1040, s: null, op: 'U' }, { id: null, p: 'a', v: 1099, s: 'nokey', op: 'U' },
];
const src2 = [
  { id: 3, p: 'b', v: 2003, s: 'r3' }, { id: 5, p: 'c', v: 2005, s: 'r5' }, { id: 22, p: 'b', v: 2022, s: null },
  { id: 31, p: 'b', v: 2031, s: 'r31' }, { id: 33, p: 'a', v: 2033, s: 'n33' },
];
// no equality in ON: ranges of v (nested-loop join), OR of equalities
const src3 = [{ lo: 2, hi: 4, tag: 'r1' }, { lo: 10, hi: 12, tag: 'r2' }, { lo: 50, hi: 60, tag: 'r3' }];
const src4 = [{ a: 5, b: 's6' }, { a: 7, b: 's7' }, { a: 99, b: 'zz' }, { a: 23, b: null }];
// schema evolution: a column the table lacks
const src5 = [{ id: 4, p: 'a', v: 3004, s: 'e4', x: 1 }, { id: 17, p: 'b', v: 3017, s: null, x: 2 },
  { id: 45, p: 'c', v: 3045, s: 'e45', x: 3 }];
for (const [n, rs] of [['src1', src1], ['src2', src2], ['src3', src3], ['src4', src4], ['src5', src5]])
  fs.writeFileSync(path.join(tmp, `${n}.ndjson`), rs.map((r) => JSON.stringify(r)).join('\n') + '\n');

// per DML: [deltac arguments, DuckDB SQL over table cur] x 2
const src = (n) => `read_json('${path.join(tmp, n)}.ndjson', ${COLS.replace('}', ", op: 'VARCHAR'}")})`;
const srcOf = (n, cols) => `read_json('${path.join(tmp, n)}.ndjson', columns=${cols})`;
const ops = {
  delete: [
    [['delete', '--where', "v > 12 AND p = 'b'"], "DELETE FROM cur WHERE v > 12 AND p = 'b'"],
    [['delete', '--where', 'id <= 5 OR s IS NULL'], 'DELETE FROM cur WHERE id <= 5 OR s IS NULL'],
  ],
  update: [
    [['update', '--set', "v = v + 100, s = s || '!'", '--where', 'id BETWEEN 3 AND 12'],
      "UPDATE cur SET v = v + 100, s = s || '!' WHERE id BETWEEN 3 AND 12"],
    [['update', '--set', "s = COALESCE(s, '') || 'u'", '--where', "p = 'a' OR id > 25"],
      "UPDATE cur SET s = COALESCE(s, '') || 'u' WHERE p = 'a' OR id > 25"],
  ],
  merge: [
    [['merge', '--source', path.join(tmp, 'src1.ndjson'), '--on', 't.id = s.id',
      '--when-matched-delete', '--if', "s.op = 'D'", '--when-matched-update', 'v = s.v, s = s.s, p = s.p',
      '--when-not-matched-insert', 'id = s.id, p = s.p, v = s.v, s = s.s',
      '--when-not-matched-by-source-update', 'v = t.v + 1', '--if', 't.id > 28'],
      `MERGE INTO cur t USING ${src('src1')} s ON t.id = s.id
       WHEN MATCHED AND s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v, s = s.s, p = s.p
       WHEN NOT MATCHED THEN INSERT (id, p, v, s) VALUES (s.id, s.p, s.v, s.s)
       WHEN NOT MATCHED BY SOURCE AND t.id > 28 THEN UPDATE SET v = t.v + 1`],
    [['merge', '--source', path.join(tmp, 'src2.ndjson'), '--on', 't.id = s.id AND s.v > 2004',
      '--when-matched-update-all', '--when-not-matched-insert-all', '--if', 's.v > 2004',
      '--when-not-matched-by-source-delete', '--if', 't.v < 5'],
      `MERGE INTO cur t USING ${src('src2')} s ON t.id = s.id AND s.v > 2004
       WHEN MATCHED THEN UPDATE SET p = s.p, v = s.v, s = s.s
       WHEN NOT MATCHED AND s.v > 2004 THEN INSERT (id, p, v, s) VALUES (s.id, s.p, s.v, s.s)
       WHEN NOT MATCHED BY SOURCE AND t.v < 5 THEN DELETE`],
  ],
  merge_nonequi: [
    [['merge', '--source', path.join(tmp, 'src3.ndjson'), '--on', 't.v BETWEEN s.lo AND s.hi',
      '--when-matched-update', 's = s.tag, v = t.v + 1000',
      '--when-not-matched-insert', "id = s.lo + 100, p = 'a', v = s.hi, s = s.tag",
      '--when-not-matched-by-source-delete', '--if', 't.v > 27'],
      `MERGE INTO cur t USING ${srcOf('src3', "{lo: 'BIGINT', hi: 'BIGINT', tag: 'VARCHAR'}")} s
       ON t.v BETWEEN s.lo AND s.hi
       WHEN MATCHED THEN UPDATE SET s = s.tag, v = t.v + 1000
       WHEN NOT MATCHED THEN INSERT (id, p, v, s) VALUES (s.lo + 100, 'a', s.hi, s.tag)
       WHEN NOT MATCHED BY SOURCE AND t.v > 27 THEN DELETE`],
    [['merge', '--source', path.join(tmp, 'src4.ndjson'), '--on', 't.id = s.a OR t.s = s.b',
      '--when-matched-delete', '--when-not-matched-insert', "id = s.a, p = 'b', v = 0, s = s.b"],
      `MERGE INTO cur t USING ${srcOf('src4', "{a: 'BIGINT', b: 'VARCHAR'}")} s ON t.id = s.a OR t.s = s.b
       WHEN MATCHED THEN DELETE
       WHEN NOT MATCHED THEN INSERT (id, p, v, s) VALUES (s.a, 'b', 0, s.b)`],
  ],
  merge_evolve: [
    [['merge', '--schema-mode', 'merge', '--source', path.join(tmp, 'src5.ndjson'), '--on', 't.id = s.id',
      '--when-matched-update-all', '--when-not-matched-insert-all'],
      ['ALTER TABLE cur ADD COLUMN x BIGINT',
        `MERGE INTO cur t USING ${srcOf('src5', "{id: 'BIGINT', p: 'VARCHAR', v: 'BIGINT', s: 'VARCHAR', x: 'BIGINT'}")} s
         ON t.id = s.id
         WHEN MATCHED THEN UPDATE SET p = s.p, v = s.v, s = s.s, x = s.x
         WHEN NOT MATCHED THEN INSERT (id, p, v, s, x) VALUES (s.id, s.p, s.v, s.s, s.x)`]],
    [['merge', '--schema-mode', 'merge', '--source', path.join(tmp, 'src2.ndjson'), '--on', 't.id = s.id',
      '--when-matched-update', 'y = s.v * 2, x = t.x + 1'],
      ['ALTER TABLE cur ADD COLUMN y BIGINT',
        `MERGE INTO cur t USING ${src('src2')} s ON t.id = s.id WHEN MATCHED THEN UPDATE SET y = s.v * 2, x = t.x + 1`]],
  ],
};

const key = (r) => JSON.stringify([r.id, r.p, r.v, r.s, r.x, r.y].map((x) => (x === null || x === undefined ? null : String(x))));
const sorted = (a) => a.slice().sort();
const deltacRows = (t) => sorted(run('scan', '--format', 'ndjson', t).split('\n').filter(Boolean).map((l) => key(JSON.parse(l))));
const deltacChanges = (t, v) => sorted(run('changes', '--from', String(v), '--to', String(v), '--format', 'ndjson', t)
  .split('\n').filter(Boolean).map((l) => { const r = JSON.parse(l); return `${r._change_type} ${key(r)}`; }));
function expectedChanges(before, after) {
  const b = new Map(before.map((r) => [String(r.id), r])), a = new Map(after.map((r) => [String(r.id), r]));
  const out = [];
  for (const [id, r] of b) {
    if (!a.has(id)) out.push(`delete ${key(r)}`);
    else if (key(a.get(id)) !== key(r)) out.push(`update_preimage ${key(r)}`, `update_postimage ${key(a.get(id))}`);
  }
  for (const [id, r] of a) if (!b.has(id)) out.push(`insert ${key(r)}`);
  return sorted(out);
}
const same = (what, got, want) => {
  h.checks++;
  if (JSON.stringify(got) !== JSON.stringify(want))
    fail(`${what}:\n  got  ${got.join(' | ')}\n  want ${want.join(' | ')}`);
};

for (const part of [false, true]) for (const dv of [false, true]) for (const cdf of [false, true]) {
  const base = path.join(tmp, `base_${+part}${+dv}${+cdf}`);
  for (let k = 0; k < 3; k++) {
    const args = ['write', '--schema', 'id long, p string, v long, s string', '--input', path.join(tmp, `in${k}.ndjson`)];
    if (k === 0) {
      if (part) args.push('--partition-by', 'p');
      if (dv) args.push('--property', 'delta.enableDeletionVectors=true');
      if (cdf) args.push('--property', 'delta.enableChangeDataFeed=true');
    }
    run(...args, base);
  }
  for (const dml of Object.keys(ops)) {
    const name = `${dml} part=${part} dv=${dv} cdf=${cdf}`;
    const t = `${base}_${dml}`;
    fs.cpSync(base, t, { recursive: true });
    await con.run(`CREATE OR REPLACE TABLE cur AS SELECT * FROM read_json([${[0, 1, 2].map((k) => `'${path.join(tmp, `in${k}.ndjson`)}'`).join(', ')}], ${COLS})`);
    let version = 2;
    for (const [i, [args, sql]] of ops[dml].entries()) {
      const before = await rows('SELECT * FROM cur');
      try {
        run(...args, t);
      } catch (e) {
        fail(`${name} #${i + 1}: deltac failed: ${e.stderr || e.message}`);
        break;
      }
      version++;
      for (const q of [].concat(sql)) await con.run(q);
      const after = await rows('SELECT * FROM cur');
      same(`${name} #${i + 1} rows`, deltacRows(t), sorted(after.map(key)));
      if (cdf) same(`${name} #${i + 1} changes`, deltacChanges(t, version), expectedChanges(before, after));
      // with DVs some file kept rows beside changed ones: a DV was written (inline in the log when small)
      const logText = () => fs.readdirSync(`${t}/_delta_log`).filter((f) => f.endsWith('.json'))
        .map((f) => fs.readFileSync(`${t}/_delta_log/${f}`, 'utf8')).join('');
      if (dv && i === 1 && !logText().includes('"deletionVector":{')) fail(`${name}: no deletion vector written`);
    }
  }
}
h.finish();
