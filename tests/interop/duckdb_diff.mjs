#!/usr/bin/env node
// Differential test of deltac's Parquet reader against DuckDB.
//
//   node tests/interop/duckdb_diff.mjs --deltac build/deltac [--only REGEX] [--keep DIR] [--jobs N]
//
// --only REGEX runs the files whose name matches; --keep DIR keeps the files
// there, each with FILE.expected.ndjson (what deltac should print).
//
// DuckDB (@duckdb/node-api, test-only) writes Parquet files over a matrix of
// column types x null densities x codecs x PARQUET_VERSION x ROW_GROUP_SIZE.
// For each file, DuckDB reads it back (SELECT * FROM read_parquet(f)) and its
// rows are rendered in deltac's NDJSON contract (docs/DESIGN.md, "NDJSON rows";
// plus time/uuid/unsigned for single Parquet files). Then
// `deltac parquet cat --format ndjson FILE` runs and the two are compared row by
// row, in order: integers and decimals exactly (as text, never through a
// double), floats as the same float32/float64 value (-0 distinct from 0), NaN
// and infinities as the strings "NaN"/"Infinity"/"-Infinity", object keys in
// order. Prints one PASS/FAIL line per check and ends with `N passed, M failed`;
// exits 1 on any failure.
//
// --deltac selftest  checks the harness itself: the "actual" output is our own
// rendering of DuckDB's rows, so every check must pass.

import { DuckDBInstance, DuckDBTypeId } from '@duckdb/node-api';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// ------------------------------------------------------------------ options
const argv = process.argv.slice(2);
const opt = { deltac: null, only: null, keep: null, jobs: Math.min(2, os.cpus().length), verbose: false };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--deltac') opt.deltac = argv[++i];
  else if (a === '--only') opt.only = new RegExp(argv[++i]);
  else if (a === '--keep') opt.keep = argv[++i];
  else if (a === '--jobs') opt.jobs = Math.max(1, parseInt(argv[++i], 10));
  else if (a === '-v' || a === '--verbose') opt.verbose = true;
  else { console.error(`duckdb_diff: unknown argument ${a}`); process.exit(2); }
}
if (!opt.deltac) { console.error('usage: duckdb_diff.mjs --deltac PATH|selftest [--only REGEX] [--keep DIR] [--jobs N]'); process.exit(2); }
const SELFTEST = opt.deltac === 'selftest';
if (!SELFTEST) {
  opt.deltac = path.resolve(opt.deltac);
  try { fs.accessSync(opt.deltac, fs.constants.X_OK); }
  catch { console.error(`duckdb_diff: deltac binary not found or not executable: ${opt.deltac} (run make build)`); process.exit(1); }
}

// ------------------------------------------------------------ column types
// sql: DuckDB type; edges: SQL literals placed in the first rows (never nulled
// in the ~30% null mode); gen: SQL expression of the row number i (BIGINT).
const TYPES = [
  { name: 'bool', sql: 'BOOLEAN', edges: ['true', 'false'], gen: '(i % 3 = 0)' },
  { name: 'int8', sql: 'TINYINT', edges: ['-128', '127', '0', '-1'], gen: '((i * 37) % 256) - 128' },
  { name: 'int16', sql: 'SMALLINT', edges: ['-32768', '32767', '0'], gen: '((i * 7919) % 65536) - 32768' },
  { name: 'int32', sql: 'INTEGER', edges: ['-2147483648', '2147483647', '0', '-1'],
    gen: 'CASE WHEN i % 4 = 0 THEN i % 100 ELSE (hash(i) % 4294967296)::BIGINT - 2147483648 END' },
  { name: 'int64', sql: 'BIGINT', edges: ['-9223372036854775808', '9223372036854775807', '0', '-1'],
    gen: 'CASE WHEN i % 4 = 0 THEN i ELSE (hash(i) >> 1)::BIGINT * (1 - 2 * (i % 2)) END' },
  { name: 'uint8', sql: 'UTINYINT', edges: ['0', '255', '128'], gen: '(i * 37) % 256' },
  { name: 'uint16', sql: 'USMALLINT', edges: ['0', '65535', '32768'], gen: '(i * 7919) % 65536' },
  { name: 'uint32', sql: 'UINTEGER', edges: ['0', '4294967295', '2147483648'], gen: 'hash(i) % 4294967296' },
  { name: 'uint64', sql: 'UBIGINT', edges: ['0', '18446744073709551615', '9223372036854775808', '9223372036854775807'],
    gen: 'CASE WHEN i % 4 = 0 THEN i::UBIGINT ELSE hash(i) END' },
  { name: 'float', sql: 'FLOAT',
    edges: ["'nan'", "'inf'", "'-inf'", "'-0.0'", '0', "'1.4e-45'", "'1.17549435e-38'", "'3.4028235e38'", "'-3.4028235e38'", '0.1', "'16777217'"],
    gen: '((i * 1.37 - 1000.0) * pow(10, (i % 20) - 10))' },
  { name: 'double', sql: 'DOUBLE',
    edges: ["'nan'", "'inf'", "'-inf'", "'-0.0'", '0', "'5e-324'", "'2.2250738585072014e-308'", "'1.7976931348623157e308'",
      "'-1.7976931348623157e308'", '0.1', "'1e21'", "'1e-7'", "'9007199254740993'", '(1.0/3.0)::DOUBLE'],
    gen: '((i * 1.37 - 1000.0) * pow(10, (i % 40) - 20))' },
  { name: 'dec4_2', sql: 'DECIMAL(4,2)', edges: ["'-99.99'", "'99.99'", "'0'", "'-0.01'", "'0.5'"],
    gen: `((CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || ((i * 37) % 100)::VARCHAR || '.' || lpad(((i * 13) % 100)::VARCHAR, 2, '0'))` },
  { name: 'dec18_6', sql: 'DECIMAL(18,6)', edges: ["'-999999999999.999999'", "'999999999999.999999'", "'0'", "'-0.000001'", "'1'"],
    gen: `((CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || (hash(i) % 1000000000000)::VARCHAR || '.' || lpad((hash(i + 7) % 1000000)::VARCHAR, 6, '0'))` },
  { name: 'dec38_10', sql: 'DECIMAL(38,10)',
    edges: ["'-9999999999999999999999999999.9999999999'", "'9999999999999999999999999999.9999999999'", "'0'", "'-0.0000000001'", "'12.5'"],
    gen: `((CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || ((hash(i)::HUGEINT * 1000000000000 + hash(i + 1)) % 10000000000000000000000000000)::VARCHAR || '.' || lpad((hash(i + 2) % 10000000000)::VARCHAR, 10, '0'))` },
  { name: 'str_short', sql: 'VARCHAR',
    edges: ["''", "' '", "'a'", `'"quoted" and \\backslash\\ and /slash'`, "'tab' || chr(9) || 'nl' || chr(10) || 'cr' || chr(13) || 'ctl' || chr(1) || chr(31) || 'del' || chr(127)"],
    gen: "'v' || (i % 50)::VARCHAR" },
  { name: 'str_long', sql: 'VARCHAR', edges: ["repeat('x', 100000)", "''"],
    gen: "repeat(chr(65 + (i % 26)::INTEGER), 20 + ((i * 37) % 400)::INTEGER) || i::VARCHAR" },
  { name: 'str_unicode', sql: 'VARCHAR',
    edges: ["'héllo wörld'", "'日本語テキスト'", "'🦆🦆 duck'", "'Ω≈ç√∫˜µ≤≥÷'", "chr(8232) || chr(8233) || chr(65279)", "chr(128512)"],
    gen: "chr((19968 + i % 2000)::INTEGER) || chr((128512 + i % 50)::INTEGER) || 'é' || i::VARCHAR" },
  { name: 'blob', sql: 'BLOB', edges: ["''::BLOB", "'\\x00\\x01\\xFF\\x80'::BLOB", "unhex(repeat('ab', 5000))"],
    gen: 'unhex(md5(i::VARCHAR))' },
  { name: 'date', sql: 'DATE',
    edges: ["'0001-01-01'", "'9999-12-31'", "'1970-01-01'", "'1969-12-31'", "'2000-02-29'", "'1900-03-01'"],
    gen: "DATE '1900-01-01' + ((i * 37) % 73000)::INTEGER" },
  { name: 'time', sql: 'TIME', edges: ["'00:00:00'", "'23:59:59.999999'", "'12:34:56.789012'", "'00:00:00.000001'"],
    gen: "TIME '00:00:00' + to_microseconds((hash(i) % 86400000000)::BIGINT)" },
  { name: 'ts', sql: 'TIMESTAMP',
    edges: ["'0001-01-01 00:00:00'", "'9999-12-31 23:59:59.999999'", "'1969-12-31 23:59:59.999999'", "'1970-01-01 00:00:00'", "'2024-02-29 12:00:00.5'"],
    gen: 'make_timestamp((hash(i) % 8000000000000000)::BIGINT - 2000000000000000)' },
  { name: 'tstz', sql: 'TIMESTAMPTZ',
    edges: ["'0001-01-01 00:00:00+00'", "'9999-12-31 23:59:59.999999+00'", "'1969-12-31 23:59:59.999999+00'", "'1970-01-01 00:00:00+00'"],
    gen: 'make_timestamp((hash(i) % 8000000000000000)::BIGINT - 2000000000000000)::TIMESTAMPTZ' },
  { name: 'ts_ns', sql: 'TIMESTAMP_NS',
    edges: ["'1677-09-22 00:00:00'", "'2262-04-11 00:00:00'", "'1969-12-31 23:59:59.999999999'", "'1970-01-01 00:00:00'", "'2001-02-03 04:05:06.000000007'"],
    gen: 'make_timestamp_ns((hash(i) % 9000000000000000000)::BIGINT - 4500000000000000000)' },
  { name: 'uuid', sql: 'UUID',
    edges: ["'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
      "'80000000-0000-0000-0000-000000000000'", "'7fffffff-ffff-ffff-ffff-ffffffffffff'", "'0123456789ABCDEF0123456789abcdef'"],
    gen: 'md5(i::VARCHAR)::UUID' },
  { name: 'enum', sql: "ENUM('red', 'green', 'blue', 'ünïcödé', '')", edges: ["''", "'ünïcödé'"],
    gen: "(['red', 'green', 'blue', 'ünïcödé'])[(i % 4) + 1]" },
  { name: 'list_int', sql: 'INTEGER[]',
    edges: ['[]', '[NULL]', '[1, NULL, 3]', '[-2147483648, 2147483647]'],
    gen: 'list_transform(range(i % 6), x -> CASE WHEN (x + i) % 5 = 0 THEN NULL ELSE (x * i - 1000)::INTEGER END)' },
  { name: 'list_str', sql: 'VARCHAR[]', edges: ['[]', "['']", '[NULL]', "['a', NULL, 'ü']"],
    gen: "list_transform(range(i % 4), x -> 's' || (x + i)::VARCHAR)" },
  { name: 'list_list', sql: 'INTEGER[][]', edges: ['[]', '[[]]', '[NULL]', '[[1, 2], [], NULL, [3, NULL]]'],
    gen: 'list_transform(range(i % 3), x -> list_transform(range((x + i) % 3), y -> (x * 10 + y)::INTEGER))' },
  { name: 'struct', sql: 'STRUCT(a INTEGER, b VARCHAR, c STRUCT(d DOUBLE, e BOOLEAN), l INTEGER[])',
    edges: ["{'a': NULL, 'b': NULL, 'c': NULL, 'l': NULL}", "{'a': 1, 'b': '', 'c': {'d': NULL, 'e': true}, 'l': []}"],
    gen: "{'a': i::INTEGER, 'b': 'b' || i::VARCHAR, 'c': CASE WHEN i % 7 = 0 THEN NULL ELSE {'d': i / 3.0, 'e': i % 2 = 0} END, 'l': CASE WHEN i % 5 = 0 THEN NULL ELSE range(i % 3)::INTEGER[] END}" },
  { name: 'map_str', sql: 'MAP(VARCHAR, INTEGER)', edges: ['MAP {}', "MAP {'k': NULL}", "MAP {'': 1, 'ü': 2, 'z': -3}"],
    gen: "MAP(list_transform(range(i % 4), x -> 'k' || x::VARCHAR), list_transform(range(i % 4), x -> (x * i)::INTEGER))" },
  { name: 'map_int', sql: 'MAP(INTEGER, VARCHAR)', edges: ['MAP {}', 'MAP {1: NULL}', "MAP {-1: 'a', 2147483647: 'b'}"],
    gen: "MAP(list_transform(range(i % 3), x -> (x + i)::INTEGER), list_transform(range(i % 3), x -> 'v' || x::VARCHAR))" },
  { name: 'list_struct', sql: 'STRUCT(x INTEGER, y VARCHAR)[]',
    edges: ['[]', '[NULL]', "[{'x': NULL, 'y': NULL}]", "[{'x': 1, 'y': 'a'}, NULL, {'x': 2, 'y': ''}]"],
    gen: "list_transform(range(i % 3), k -> {'x': (k + i)::INTEGER, 'y': 'y' || k::VARCHAR})" },
];

const CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'brotli'];
const VERSIONS = ['V1', 'V2'];
const ROW_GROUPS = ['1000', 'default'];
const NULLS = ['none', 'some', 'all'];
const ROWS = 2500;

function colExpr(t, nulls) {
  if (nulls === 'all') return `CAST(NULL AS ${t.sql})`;
  const edgeCases = t.edges.map((e, k) => `WHEN i = ${k} THEN CAST(${e} AS ${t.sql})`).join(' ');
  const nullCase = nulls === 'some' ? `WHEN i >= ${t.edges.length} AND (i * 7919) % 10 < 3 THEN NULL ` : '';
  return `CASE ${nullCase}${edgeCases} ELSE CAST(${t.gen} AS ${t.sql}) END`;
}

// ------------------------------------------------------------------- cases
// A case: one Parquet file (columns, rows, writer options) + the checks run on
// it (the full cat, and for some files --limit / --columns).
const cases = [];
function addCase(c) {
  c.name = `${c.table} nulls=${c.nulls} codec=${c.codec} ${c.version} rg=${c.rg}` + (c.rows !== ROWS ? ` rows=${c.rows}` : '');
  c.file = `${c.table}-${c.nulls}-${c.codec}-${c.version}-rg${c.rg}-${c.rows}.parquet`;
  if (!opt.only || opt.only.test(c.name)) cases.push(c);
}
// 1. every type with every codec (~30% nulls, V1, default row groups)
for (const t of TYPES) for (const codec of CODECS)
  addCase({ table: t.name, types: [t], nulls: 'some', codec, version: 'V1', rg: 'default', rows: ROWS });
// 2. every type with every null density x PARQUET_VERSION (snappy, 1000-row groups)
for (const t of TYPES) for (const nulls of NULLS) for (const version of VERSIONS)
  addCase({ table: t.name, types: [t], nulls, codec: 'snappy', version, rg: '1000', rows: ROWS });
// 3. every codec x version x row-group setting on a table with all the types
for (const codec of CODECS) for (const version of VERSIONS) for (const rg of ROW_GROUPS)
  addCase({ table: 'mixed', types: TYPES, nulls: 'some', codec, version, rg, rows: ROWS,
    extra: codec === 'zstd' && version === 'V2' && rg === '1000' });
// 4. all null densities on the mixed table
for (const nulls of ['none', 'all']) for (const version of VERSIONS)
  addCase({ table: 'mixed', types: TYPES, nulls, codec: 'zstd', version, rg: '1000', rows: ROWS });
// 5. larger files: many data pages per column chunk and several row groups
const BIG = ['int32', 'int64', 'double', 'str_short', 'str_long', 'date', 'list_int', 'struct'].map((n) => TYPES.find((t) => t.name === n));
for (const [codec, version] of [['snappy', 'V1'], ['zstd', 'V2']])
  addCase({ table: 'big', types: BIG, nulls: 'some', codec, version, rg: '100000', rows: 250000 });

// ----------------------------------------------------- expected rendering
// Typed expected values: null | {k:'bool'|'int'|'f32'|'f64'|'dec'|'str'|'arr'|'obj', v}
const T = DuckDBTypeId;
const pad = (n, w) => String(n).padStart(w, '0');
function civil(days) { // days since 1970-01-01 -> [y, m, d] (proleptic Gregorian)
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}
const dateStr = (days) => { const [y, m, d] = civil(days); return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`; };
function timeOfDay(units, perSec, digits) { // units since midnight (BigInt)
  const s = units / perSec, frac = units % perSec;
  return `${pad(s / 3600n, 2)}:${pad((s / 60n) % 60n, 2)}:${pad(s % 60n, 2)}.${pad(frac, digits)}`;
}
function tsStr(units, perSec, digits, utc) {
  const perDay = 86400n * perSec;
  let days = units / perDay, rem = units % perDay;
  if (rem < 0n) { rem += perDay; days -= 1n; }
  return `${dateStr(Number(days))}T${timeOfDay(rem, perSec, digits)}${utc ? 'Z' : ''}`;
}
function decStr(v, scale) {
  const neg = v < 0n;
  const a = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const s = scale > 0 ? `${a.slice(0, a.length - scale)}.${a.slice(a.length - scale)}` : a;
  return neg ? `-${s}` : s;
}

function expectValue(type, v) {
  if (v === null || v === undefined) return null;
  switch (type.typeId) {
    case T.BOOLEAN: return { k: 'bool', v };
    case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
    case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT: case T.UHUGEINT:
      return { k: 'int', v: BigInt(v) };
    case T.FLOAT: return { k: 'f32', v: Math.fround(v) };
    case T.DOUBLE: return { k: 'f64', v };
    case T.DECIMAL: return { k: 'dec', v: decStr(BigInt(v.value), type.scale) };
    case T.VARCHAR: case T.ENUM: return { k: 'str', v: String(v) };
    case T.BLOB: return { k: 'str', v: Buffer.from(v.bytes).toString('base64') };
    case T.DATE: return { k: 'str', v: dateStr(v.days) };
    case T.TIME: return { k: 'str', v: timeOfDay(BigInt(v.micros), 1000000n, 6) };
    case T.TIMESTAMP: return { k: 'str', v: tsStr(BigInt(v.micros), 1000000n, 6, false) };
    case T.TIMESTAMP_TZ: return { k: 'str', v: tsStr(BigInt(v.micros), 1000000n, 6, true) };
    case T.TIMESTAMP_MS: return { k: 'str', v: tsStr(BigInt(v.millis) * 1000n, 1000000n, 6, false) };
    case T.TIMESTAMP_NS: return { k: 'str', v: tsStr(BigInt(v.nanos), 1000000000n, 9, false) };
    case T.UUID: return { k: 'str', v: v.toString().toLowerCase() };
    case T.LIST: case T.ARRAY: return { k: 'arr', v: v.items.map((x) => expectValue(type.valueType, x)) };
    case T.STRUCT:
      return { k: 'obj', v: type.entryNames.map((n, j) => [n, expectValue(type.entryTypes[j], v.entries[n])]) };
    case T.MAP: {
      const ents = v.entries.map((e) => [expectValue(type.keyType, e.key), expectValue(type.valueType, e.value)]);
      if (type.keyType.typeId === T.VARCHAR) return { k: 'obj', v: ents.map(([key, val]) => [key.v, val]) };
      return { k: 'arr', v: ents.map(([key, val]) => ({ k: 'obj', v: [['key', key], ['value', val]] })) };
    }
    default: throw new Error(`duckdb_diff: no NDJSON rendering for DuckDB type ${type.toString()}`);
  }
}

function f32Text(v) { // shortest decimal that reads back as the same float32
  for (let p = 1; p <= 9; p++) { const n = Number(v.toPrecision(p)); if (Math.fround(n) === v) return String(n); }
  return String(v);
}
function floatText(v, f32) {
  if (Number.isNaN(v)) return '"NaN"';
  if (v === Infinity) return '"Infinity"';
  if (v === -Infinity) return '"-Infinity"';
  if (Object.is(v, -0)) return '-0.0';
  return f32 ? f32Text(v) : String(v);
}
function expectText(e) { // the contract NDJSON of an expected value
  if (e === null) return 'null';
  switch (e.k) {
    case 'bool': return e.v ? 'true' : 'false';
    case 'int': return e.v.toString();
    case 'f32': return floatText(e.v, true);
    case 'f64': return floatText(e.v, false);
    case 'dec': return e.v;
    case 'str': return JSON.stringify(e.v);
    case 'arr': return `[${e.v.map(expectText).join(',')}]`;
    case 'obj': return `{${e.v.map(([k, x]) => `${JSON.stringify(k)}:${expectText(x)}`).join(',')}}`;
  }
  throw new Error('bad expected node');
}

// ------------------------------------------- lossless JSON (numbers as text)
class Num { constructor(t) { this.t = t; } }
class Obj { constructor(p) { this.p = p; } } // ordered [key, value] pairs
const NUM_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STR_RE = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WS_RE = /[ \t\r\n]*/y;
function parseJson(s) {
  let i = 0;
  const ws = () => { WS_RE.lastIndex = i; WS_RE.exec(s); i = WS_RE.lastIndex; };
  const fail = (what) => { throw new Error(`invalid JSON at offset ${i}: ${what}`); };
  function value() {
    ws();
    const c = s[i];
    if (c === '{') {
      i++; const pairs = []; ws();
      if (s[i] === '}') { i++; return new Obj(pairs); }
      for (;;) {
        ws(); if (s[i] !== '"') fail('expected key');
        const k = str(); ws(); if (s[i] !== ':') fail("expected ':'"); i++;
        pairs.push([k, value()]); ws();
        if (s[i] === ',') { i++; continue; }
        if (s[i] === '}') { i++; return new Obj(pairs); }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++; const items = []; ws();
      if (s[i] === ']') { i++; return items; }
      for (;;) {
        items.push(value()); ws();
        if (s[i] === ',') { i++; continue; }
        if (s[i] === ']') { i++; return items; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (s.startsWith('true', i)) { i += 4; return true; }
    if (s.startsWith('false', i)) { i += 5; return false; }
    if (s.startsWith('null', i)) { i += 4; return null; }
    NUM_RE.lastIndex = i;
    const m = NUM_RE.exec(s);
    if (!m) fail('unexpected character');
    i = NUM_RE.lastIndex;
    return new Num(m[0]);
  }
  function str() {
    STR_RE.lastIndex = i;
    const m = STR_RE.exec(s);
    if (!m) fail('bad string');
    i = STR_RE.lastIndex;
    return m[0].indexOf('\\') < 0 ? m[0].slice(1, -1) : JSON.parse(m[0]);
  }
  const v = value(); ws();
  if (i !== s.length) fail('trailing characters');
  return v;
}
function actualText(a) {
  if (a === null) return 'null';
  if (a instanceof Num) return a.t;
  if (a instanceof Obj) return `{${a.p.map(([k, x]) => `${JSON.stringify(k)}:${actualText(x)}`).join(',')}}`;
  if (Array.isArray(a)) return `[${a.map(actualText).join(',')}]`;
  return JSON.stringify(a);
}

// ------------------------------------------------------------- comparison
const INT_RE = /^-?(?:0|[1-9]\d*)$/;
// Returns null when equal, else [path, why].
function compare(e, a, p) {
  const bad = (why) => [p, why ?? `expected ${expectText(e)}, got ${actualText(a)}`];
  if (e === null) return a === null ? null : bad();
  switch (e.k) {
    case 'bool': return a === e.v ? null : bad();
    case 'int': return a instanceof Num && INT_RE.test(a.t) && BigInt(a.t) === e.v ? null : bad();
    case 'dec': return a instanceof Num && a.t === e.v ? null : bad();
    case 'str': return a === e.v ? null : bad();
    case 'f32': case 'f64': {
      if (!Number.isFinite(e.v)) return a === floatText(e.v).slice(1, -1) ? null : bad();
      if (!(a instanceof Num)) return bad();
      const x = e.k === 'f32' ? Math.fround(Number(a.t)) : Number(a.t);
      return Object.is(x, e.v) ? null : bad();
    }
    case 'arr': {
      if (!Array.isArray(a)) return bad();
      if (a.length !== e.v.length) return bad(`expected ${e.v.length} elements, got ${a.length}: expected ${expectText(e)}, got ${actualText(a)}`);
      for (let j = 0; j < a.length; j++) { const r = compare(e.v[j], a[j], `${p}[${j}]`); if (r) return r; }
      return null;
    }
    case 'obj': {
      if (!(a instanceof Obj)) return bad();
      const ek = e.v.map((x) => x[0]).join(','), ak = a.p.map((x) => x[0]).join(',');
      if (ek !== ak) return bad(`expected keys [${ek}], got [${ak}]`);
      for (let j = 0; j < a.p.length; j++) { const r = compare(e.v[j][1], a.p[j][1], `${p}.${a.p[j][0]}`); if (r) return r; }
      return null;
    }
  }
  throw new Error('bad expected node');
}

// ---------------------------------------------------------------- running
function runDeltac(args) {
  return new Promise((resolve) => {
    execFile(opt.deltac, args, { maxBuffer: 1 << 30, encoding: 'utf8', timeout: 300000 },
      (err, stdout, stderr) => resolve({ err, stdout, stderr }));
  });
}

// Streams DuckDB's rows chunk by chunk (2048 rows) and compares each with the
// matching line of deltac's output, so big files never hold all the expected
// values at once (garbage collection dominated otherwise).
async function check(conn, file, label, sql, args) {
  const t0 = Date.now();
  let lines = null;
  if (!SELFTEST) {
    const res = await runDeltac(['parquet', 'cat', '--format', 'ndjson', ...args, file]);
    if (res.err) {
      const why = res.err.killed ? 'timed out' : res.err.signal ? `killed by ${res.err.signal}` : `exit ${res.err.code}`;
      const msg = (res.stderr || '').trim().split('\n')[0] || String(res.err.message).split('\n')[0];
      return `deltac ${why}: ${msg}`;
    }
    lines = res.stdout.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
  }
  // what deltac should print, for debugging
  const dump = opt.keep && args.length === 0 ? fs.openSync(`${file}.expected.ndjson`, 'w') : null;
  try {
    const result = await conn.stream(sql);
    const names = result.columnNames(), types = result.columnTypes();
    let r = 0;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const rows = chunk.getRows();
      let text = '';
      for (const row of rows) {
        const exp = { k: 'obj', v: names.map((n, j) => [n, expectValue(types[j], row[j])]) };
        if (dump || SELFTEST) text += expectText(exp) + '\n';
        const line = SELFTEST ? expectText(exp) : lines[r];
        if (line === undefined) return `expected more rows: deltac printed ${lines.length}, DuckDB has at least ${r + 1}`;
        let a;
        try { a = parseJson(line); } catch (e) { return `row ${r}: ${e.message}: ${line.slice(0, 200)}`; }
        const d = compare(exp, a, '');
        if (d) return `row ${r} ${d[0] || '(row)'}: ${d[1]}`.slice(0, 2000);
        r++;
      }
      if (dump) fs.writeSync(dump, text);
    }
    if (lines && lines.length !== r) return `expected ${r} rows, got ${lines.length}`;
    if (opt.verbose) console.log(`  ${label}: ${r} rows in ${Date.now() - t0} ms`);
    return null;
  } finally {
    if (dump) fs.closeSync(dump);
  }
}

const sqlStr = (s) => `'${s.replace(/'/g, "''")}'`;

async function runCase(conn, dir, c) {
  const file = path.join(dir, c.file);
  const cols = c.types.map((t) => `${colExpr(t, c.nulls)} AS c_${t.name}`).join(',\n  ');
  const rg = c.rg === 'default' ? '' : `, ROW_GROUP_SIZE ${c.rg}`;
  const results = [];
  try {
    await conn.run(`COPY (SELECT i AS id,\n  ${cols}\nFROM range(${c.rows}) r(i) ORDER BY i)\n` +
      `TO ${sqlStr(file)} (FORMAT parquet, COMPRESSION ${c.codec}, PARQUET_VERSION ${c.version}${rg})`);
  } catch (e) {
    return [{ label: c.name, fail: `DuckDB could not write the file: ${e.message.split('\n')[0]}` }];
  }
  const src = `read_parquet(${sqlStr(file)})`;
  const checks = [{ label: c.name, sql: `SELECT * FROM ${src}`, args: [] }];
  if (c.extra) {
    checks.push({ label: `${c.name} --limit 7`, sql: `SELECT * FROM ${src} LIMIT 7`, args: ['--limit', '7'] });
    checks.push({ label: `${c.name} --limit 0`, sql: `SELECT * FROM ${src} LIMIT 0`, args: ['--limit', '0'] });
    const pick = ['id', 'c_dec38_10', 'c_str_unicode', 'c_struct', 'c_map_str', 'c_list_struct'];
    checks.push({ label: `${c.name} --columns ${pick.join(',')}`, sql: `SELECT ${pick.join(', ')} FROM ${src}`,
      args: ['--columns', pick.join(',')] });
  }
  for (const ch of checks) {
    let fail;
    try { fail = await check(conn, file, ch.label, ch.sql, ch.args); }
    catch (e) { fail = `harness error: ${e.message}`; }
    results.push({ label: ch.label, fail, file });
  }
  return results;
}

// ------------------------------------------------------------------- main
const started = Date.now();
const dir = opt.keep ? path.resolve(opt.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'deltac-duckdb-diff-'));
fs.mkdirSync(dir, { recursive: true });
const instance = await DuckDBInstance.create(':memory:', { threads: String(opt.jobs) });
let passed = 0, failed = 0;
const failedFiles = new Set();
let next = 0;
async function worker() {
  const conn = await instance.connect();
  while (next < cases.length) {
    const c = cases[next++];
    for (const r of await runCase(conn, dir, c)) {
      if (r.fail) { failed++; if (r.file) failedFiles.add(r.file); console.log(`FAIL ${r.label}: ${r.fail}`); }
      else { passed++; console.log(`PASS ${r.label}`); }
    }
    if (!opt.keep && !failedFiles.has(path.join(dir, c.file))) fs.rmSync(path.join(dir, c.file), { force: true });
  }
}
await Promise.all(Array.from({ length: opt.jobs }, worker));
if (failed && !opt.keep) console.log(`failing files kept in ${dir}`);
else if (!opt.keep) fs.rmSync(dir, { recursive: true, force: true });
console.log(`duckdb_diff: ${cases.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s (DuckDB ${(await (await instance.connect()).runAndReadAll('SELECT version()')).getRows()[0][0]})`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
