#!/usr/bin/env node
// Decimal, date and timestamp arithmetic in UPDATE SET against DuckDB (see
// dml_arith_duckdb.sh). One deltac table and one DuckDB table with the same
// 40 rows (negative amounts, dates and timestamps before 1970, nulls); each
// statement runs on both and the whole table must then read the same.
//
// Only expressions where the two engines agree once the result is stored
// into the column's type are here: decimal + - * % with literals and
// integer columns (both compute exactly and round half away from zero into
// the column's scale; * 0.5 makes ties), date +/- int, add_months (DuckDB:
// + INTERVAL n MONTH, both clamp to the month's end), timestamps +/-
// INTERVALs, date_trunc, datediff (DuckDB: date_diff('day', start, end)),
// CASTs between date and timestamp. Left out on purpose:
// - decimal '/': DuckDB divides decimals as DOUBLE, so halfway cases round
//   differently (Spark's exact decimal quotient is in the unit tests);
// - 38-digit operands: DuckDB's result types differ from Spark's
//   precision-loss rule (unit tests cover that rule);
// - TIMESTAMP WITH TIME ZONE: DuckDB's depends on its session zone; the
//   DuckDB side is a plain TIMESTAMP holding the same UTC wall time.
import fs from 'node:fs';
import path from 'node:path';
import { harness } from './harness.mjs';

const h = await harness('dml_arith_duckdb');
const { tmp, check, run, con, rows } = h;

const lines = [];
for (let i = 1; i <= 40; i++) {
  const cents = ((i * 7919) % 200001) - 100000; // -1000.00 .. 1000.00, odd and even cents
  const day = ((i * 977) % 40000) - 15000;      // 1928 .. 2051
  const us = BigInt(day) * 86400000000n + BigInt((i * 3_333_333_337) % 86_400_000_000);
  const amt = (cents / 100).toFixed(2);
  const d = new Date(day * 86400000).toISOString().slice(0, 10);
  const sub = ((us % 1000000n) + 1000000n) % 1000000n; // before 1970 too
  const ms = Number((us - sub) / 1000n), frac = String(sub).padStart(6, '0');
  const ts = new Date(ms).toISOString().slice(0, 19) + '.' + frac + 'Z';
  lines.push(JSON.stringify(i % 9 === 0 ? { id: i, amt: null, d: null, ts: null, n: null }
    : { id: i, amt, d, ts, n: (i % 11) - 5 }));
}
fs.writeFileSync(path.join(tmp, 'in.ndjson'), lines.join('\n') + '\n');
const t = path.join(tmp, 't');
run('write', '--schema', 'id long, amt decimal(10,2), d date, ts timestamp, n int', '--input',
  path.join(tmp, 'in.ndjson'), t);
await con.run(`CREATE TABLE cur AS SELECT id, CAST(amt AS DECIMAL(10,2)) amt, CAST(d AS DATE) d,
  CAST(replace(replace(ts, 'T', ' '), 'Z', '') AS TIMESTAMP) ts, CAST(n AS INTEGER) n
  FROM read_json('${path.join(tmp, 'in.ndjson')}', columns={id: 'BIGINT', amt: 'VARCHAR', d: 'VARCHAR', ts: 'VARCHAR', n: 'INTEGER'})`);

const deltacRows = () => run('scan', '--format', 'csv', t).replace(/\r/g, '').trim().split('\n').slice(1).sort();
const duckRows = async () => (await rows(`SELECT concat_ws(',', id, coalesce(CAST(amt AS VARCHAR), ''),
    coalesce(CAST(d AS VARCHAR), ''), coalesce(strftime(ts, '%Y-%m-%dT%H:%M:%S.%fZ'), ''),
    coalesce(CAST(n AS VARCHAR), '')) r FROM cur`)).map((r) => r.r).sort();

// [deltac SET, DuckDB SET]
const cases = [
  ['amt = amt * 1.1', 'amt = amt * 1.1'],
  ['amt = amt * 0.5 - 0.05', 'amt = amt * 0.5 - 0.05'],
  ['amt = amt + n', 'amt = amt + n'],
  ['amt = -amt * 1.25 + 3', 'amt = -amt * 1.25 + 3'],
  ['amt = amt % 7', 'amt = amt % 7'],
  ['amt = amt * n * 0.15', 'amt = amt * n * 0.15'],
  ['d = d + 1, ts = ts + INTERVAL \'1\' HOUR', 'd = d + 1, ts = ts + INTERVAL \'1\' HOUR'],
  ['d = d - 7, ts = ts - INTERVAL 90 MINUTES', 'd = d - 7, ts = ts - INTERVAL 90 MINUTE'],
  ['d = add_months(d, 1), ts = ts + INTERVAL 1 MONTH', 'd = d + INTERVAL 1 MONTH, ts = ts + INTERVAL 1 MONTH'],
  ['d = date_add(d, n), ts = ts + INTERVAL \'2\' DAY', 'd = d + n, ts = ts + INTERVAL \'2\' DAY'],
  ['d = add_months(d, -13), ts = ts - INTERVAL 500 MILLISECONDS', 'd = d - INTERVAL 13 MONTH, ts = ts - INTERVAL 500 MILLISECOND'],
  ['ts = date_trunc(\'hour\', ts)', 'ts = date_trunc(\'hour\', ts)'],
  ['n = datediff(d, DATE \'2000-01-01\')', 'n = date_diff(\'day\', DATE \'2000-01-01\', d)'],
  ['ts = CAST(d AS TIMESTAMP) + INTERVAL 12 HOURS', 'ts = CAST(d AS TIMESTAMP) + INTERVAL 12 HOUR'],
  ['d = CAST(ts - INTERVAL 13 HOURS AS DATE)', 'd = CAST(ts - INTERVAL 13 HOUR AS DATE)'],
  ['ts = date_trunc(\'week\', ts)', 'ts = date_trunc(\'week\', ts)'],
  ['ts = date_trunc(\'quarter\', ts + INTERVAL 40 DAYS)', 'ts = date_trunc(\'quarter\', ts + INTERVAL 40 DAY)'],
];
for (const [ours, theirs] of cases) {
  try {
    run('update', '--set', ours, t);
  } catch (e) {
    check(false, `deltac update --set "${ours}": ${e.stderr || e.message}`);
    continue;
  }
  await con.run(`UPDATE cur SET ${theirs}`);
  const a = deltacRows(), b = await duckRows();
  const diff = a.filter((r, i) => r !== b[i]);
  check(a.length === 40 && diff.length === 0,
    `after "${ours}": ${diff.length} rows differ, e.g. deltac ${diff[0]} vs DuckDB ${b[a.indexOf(diff[0])]}`);
}
h.finish();
