// Reads the Arrow IPC streams written by tests/unit/arrow/test_ipc_writer.c
// (with DELTAC_IPC_OUT=<dir>) using the npm apache-arrow package, and checks
// types, field metadata, nulls and every value exactly. The data here mirrors
// the C test: change both together.
//
// usage: node tests/interop/arrow_ipc_read.mjs <dir>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC, RecordBatchReader } from 'apache-arrow';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node arrow_ipc_read.mjs <dir with *.arrows>');
  process.exit(2);
}

let passed = 0;
let failed = 0;

function check(cond, what) {
  if (cond) passed++;
  else {
    failed++;
    console.error(`FAIL: ${what}`);
  }
}

// A canonical text for any value apache-arrow hands back: bigints keep an
// "n" so 1 and 1n differ, typed arrays (binary values) become plain arrays,
// rows, vectors and maps go through their toJSON.
function norm(v) {
  return JSON.stringify(v === undefined ? '<undefined>' : v, (_k, x) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (ArrayBuffer.isView(x)) return Array.from(x);
    return x;
  });
}

function eq(actual, expected, what) {
  const a = norm(actual);
  const e = norm(expected);
  check(a === e, `${what}: got ${a}, expected ${e}`);
}

function load(name) {
  return readFileSync(join(dir, `${name}.arrows`));
}

function values(col, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(col.get(i));
  return out;
}

// The stored integers of a single-batch column (before apache-arrow turns
// dates and timestamps into milliseconds), null slots as null.
function raw(col, n) {
  const d = col.data[0];
  const out = [];
  for (let i = 0; i < n; i++) out.push(col.isValid(i) ? BigInt(d.values[i]) : null);
  return out;
}

function field(table, name) {
  return table.schema.fields.find((f) => f.name === name);
}

function checkField(table, name, type, nullable = true) {
  const f = field(table, name);
  check(f !== undefined, `field ${name} exists`);
  if (!f) return null;
  eq(String(f.type), type, `${name} type`);
  eq(f.nullable, nullable, `${name} nullable`);
  return table.getChild(name);
}

const enc = new TextEncoder();

// ---------------------------------------------------------------- primitives
{
  const t = tableFromIPC(load('primitives'));
  eq(t.numRows, 4, 'primitives rows');
  eq(t.batches.length, 1, 'primitives batches');
  eq([...t.schema.metadata], [['deltac.version', '1']], 'schema metadata');
  eq(t.schema.fields.length, 39, 'primitives columns');

  const asIs = [
    ['null', 'Null', [null, null, null, null]],
    ['bool', 'Bool', [true, false, null, true]],
    ['int8', 'Int8', [-1, 2, null, 127]],
    ['uint8', 'Uint8', [255, 0, null, 7]],
    ['int16', 'Int16', [-300, 300, null, 32767]],
    ['uint16', 'Uint16', [65535, 1, null, 2]],
    ['int32', 'Int32', [-2147483648, 5, null, 2147483647]],
    ['uint32', 'Uint32', [4294967295, 0, null, 3]],
    ['int64', 'Int64', [-9223372036854775808n, 1n, null, 9223372036854775807n]],
    ['uint64', 'Uint64', [18446744073709551615n, 0n, null, 42n]],
    ['float16', 'Float16', [1, -2, null, 0.5]],
    ['float32', 'Float32', [1.5, -0.25, null, 3]],
    ['float64', 'Float64', [3.141592653589793, -1e300, null, 0]],
    ['fsb3', 'FixedSizeBinary[3]', [enc.encode('abc'), enc.encode('def'), null, enc.encode('ghi')]],
    ['utf8', 'Utf8', ['héllo', '', null, 'wörld']],
    ['large_utf8', 'LargeUtf8', ['a', 'bc', null, 'def']],
    ['binary', 'Binary', [[1, 2], [], null, [255]]],
    ['large_binary', 'LargeBinary', [[0], [1, 2, 3], null, []]],
    ['no_nulls', 'Int64', [-9223372036854775808n, 1n, 0n, 9223372036854775807n]],
  ];
  for (const [name, type, want] of asIs) {
    const col = checkField(t, name, type);
    if (col) {
      eq(values(col, 4), want, name);
      eq(col.nullCount, want.filter((v) => v === null).length, `${name} null count`);
    }
  }
  for (const [name, type, want] of [
    ['required', 'Int32', [-2147483648, 5, 0, 2147483647]],
    ['required16', 'Int16', [-300, 300, 0, 32767]],
  ]) {
    const col = checkField(t, name, type, false);
    if (col) eq(values(col, 4), want, name);
  }

  // Decimals: the unscaled integers, and precision, scale and width.
  for (const [name, type, bits, want] of [
    ['dec128', 'Decimal[10e+2]', 128, ['12345', '-1', null, '0']],
    ['dec256', 'Decimal[40e+5]', 256, ['1', '-1', null, '2']],
  ]) {
    const col = checkField(t, name, type);
    if (col) {
      eq(col.type.bitWidth, bits, `${name} bit width`);
      eq(values(col, 4).map((v) => (v === null ? null : String(v))), want, name);
    }
  }

  // Temporal types: the stored integers, so that unit conversions in
  // apache-arrow cannot hide a wrong unit or width.
  const temporal = [
    ['date32', 'Date32<DAY>', [0n, 19000n, null, -1n]],
    ['date64', 'Date64<MILLISECOND>', [0n, 86400000n, null, 1641600000000n]],
    ['time_s', 'Time32<SECOND>', [0n, 3600n, null, 86399n]],
    ['time_ms', 'Time32<MILLISECOND>', [1n, 2n, null, 3n]],
    ['time_us', 'Time64<MICROSECOND>', [1n, 2n, null, 3n]],
    ['time_ns', 'Time64<NANOSECOND>', [1n, 2n, null, 3n]],
    ['ts_s', 'Timestamp<SECOND>', [0n, 1n, null, 1700000000n]],
    ['ts_ms_utc', 'Timestamp<MILLISECOND, UTC>', [0n, 1n, null, 1700000000n]],
    ['ts_us_ny', 'Timestamp<MICROSECOND, America/New_York>', [0n, 1n, null, 1700000000n]],
    ['ts_ns', 'Timestamp<NANOSECOND>', [0n, 1n, null, 1700000000n]],
    ['dur_s', 'Duration<SECOND>', [-5n, 0n, null, 7n]],
    ['dur_ms', 'Duration<MILLISECOND>', [-5n, 0n, null, 7n]],
    ['dur_us', 'Duration<MICROSECOND>', [-5n, 0n, null, 7n]],
    ['dur_ns', 'Duration<NANOSECOND>', [-5n, 0n, null, 7n]],
  ];
  for (const [name, type, want] of temporal) {
    const col = checkField(t, name, type);
    if (col) eq(raw(col, 4), want, name);
  }
  const noTz = field(t, 'ts_s');
  if (noTz) check(!noTz.type.timezone, 'empty time zone is left out');

  // Extension types travel as field metadata.
  const uuid = checkField(t, 'uuid', 'FixedSizeBinary[16]');
  if (uuid) {
    eq([...field(t, 'uuid').metadata],
      [['ARROW:extension:name', 'arrow.uuid'], ['ARROW:extension:metadata', '']], 'uuid metadata');
    const u = [0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00];
    eq(values(uuid, 4), [u, u, null, u], 'uuid values');
  }
  const json = checkField(t, 'json', 'Utf8');
  if (json) {
    eq([...field(t, 'json').metadata], [['ARROW:extension:name', 'arrow.json']], 'json metadata');
    eq(values(json, 4), ['{"a": 1}', '[]', null, 'null'], 'json values');
  }
}

// ---------------------------------------------------------------- nested
{
  const t = tableFromIPC(load('nested'));
  eq(t.numRows, 4, 'nested rows');
  const ls = checkField(t, 'list_struct', 'List<Struct<{a:Int32, b:Utf8}>>');
  if (ls) eq(values(ls, 4), [[{ a: 1, b: 'x' }, { a: 2, b: null }], null, [], [{ a: null, b: 'z' }]], 'list_struct');
  const ll = checkField(t, 'large_list', 'LargeList<Int64>');
  if (ll) eq(values(ll, 4), [[1n, 2n, 3n], [], null, [4n]], 'large_list');
  const fl = checkField(t, 'fixed_list', 'FixedSizeList[2]<Float32>');
  if (fl) eq(values(fl, 4), [[1, 2], null, [3, 4], [5, 6]], 'fixed_list');
  const st = checkField(t, 'struct', 'Struct<{x:Struct<{y:Bool}>, z:Int16}>');
  if (st) {
    eq(values(st, 4), [{ x: { y: true }, z: 1 }, { x: null, z: 2 }, null, { x: { y: false }, z: null }], 'struct');
  }
  const map = checkField(t, 'map', 'Map<{key:Utf8, value:Int32}>');
  if (map) {
    eq(map.type.keysSorted, true, 'map keys sorted');
    eq(values(map, 4), [{ a: 1, b: 2 }, null, {}, { c: null }], 'map');
    const entries = field(t, 'map').type.children[0];
    eq(entries.name, 'entries', 'map entries name');
    eq(entries.nullable, false, 'map entries not nullable');
    eq(entries.type.children.map((f) => [f.name, f.nullable]), [['key', false], ['value', true]], 'map key/value');
  }
  const item = field(t, 'list_struct').type.children[0];
  eq([item.name, item.nullable], ['item', true], 'list item field');
}

// ---------------------------------------------------------------- sliced
// The same formulas as sliced_batch() in the C test: column arrays have
// offsets 3, 5, 6, 1, 4 and the batch itself has offset 2.
{
  const t = tableFromIPC(load('sliced'));
  const rows = 13;
  const bo = 2;
  eq(t.numRows, rows, 'sliced rows');
  const want = { i32: [], flag: [], str: [], lst: [], st: [] };
  const lo = [0];
  for (let p = 0; p < 40; p++) lo.push(lo[p] + (p % 3));
  for (let r = 0; r < rows; r++) {
    let k = 3 + bo + r;
    want.i32.push(k % 3 ? k * 10 : null);
    k = 5 + bo + r;
    want.flag.push(k % 5 ? k % 2 === 1 : null);
    k = 6 + bo + r;
    want.str.push(k % 4 ? `s${k}` : null);
    const p = 1 + bo + r;
    if (p % 7 === 0) want.lst.push(null);
    else {
      const items = [];
      for (let j = lo[p]; j < lo[p + 1]; j++) items.push(1002 + j);
      want.lst.push(items);
    }
    const s = 4 + bo + r;
    const q = 1 + s;
    want.st.push(s % 6 ? { a: q % 5 ? q * 7 : null } : null);
  }
  for (const [name, type] of [['i32', 'Int32'], ['flag', 'Bool'], ['str', 'Utf8'],
    ['lst', 'List<Int32>'], ['st', 'Struct<{a:Int32}>']]) {
    const col = checkField(t, name, type);
    if (col) {
      eq(values(col, rows), want[name], name);
      eq(col.nullCount, want[name].filter((v) => v === null).length, `${name} null count`);
    }
  }
}

// ---------------------------------------------------------------- batches
{
  const reader = RecordBatchReader.from(load('batches'));
  const lengths = [];
  for (const batch of reader) lengths.push(batch.numRows);
  eq(lengths, [3, 0, 2], 'batch lengths');
  const t = tableFromIPC(load('batches'));
  const n = checkField(t, 'n', 'Int64');
  if (n) eq(values(n, 5), [1n, 2n, 3n, null, 5n], 'n');
  const s = checkField(t, 's', 'Utf8');
  if (s) eq(values(s, 5), ['a', 'b', 'c', 'dd', '€'], 's');
}

console.log(`arrow_ipc_read: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
