// What the DuckDB differential tests share: the deltac under test (from
// --deltac), a temp dir, check/fail counters, an in-memory DuckDB
// connection, and the closing line with the exit status.
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export async function harness(name, { maxBuffer = 1 << 28 } = {}) {
  const argv = process.argv.slice(2);
  const h = {
    deltac: path.resolve(argv[argv.indexOf('--deltac') + 1]),
    tmp: fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`)),
    checks: 0,
    failures: 0,
  };
  h.fail = (m) => { h.failures++; console.log(`FAIL: ${m}`); };
  h.check = (c, m) => { h.checks++; if (!c) h.fail(m); };
  h.run = (...a) => execFileSync(h.deltac, a, { encoding: 'utf8', maxBuffer });
  const inst = await DuckDBInstance.create(':memory:');
  h.con = await inst.connect();
  h.rows = async (sql) => (await h.con.runAndReadAll(sql)).getRowObjectsJson();
  // Removes the temp dir, prints "NAME: P passed, F failed" and exits.
  h.finish = () => {
    fs.rmSync(h.tmp, { recursive: true, force: true });
    console.log(`${name}: ${h.checks - h.failures} passed, ${h.failures} failed`);
    process.exit(h.failures ? 1 : 0);
  };
  return h;
}
