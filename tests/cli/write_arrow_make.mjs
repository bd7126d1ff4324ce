// Writes Arrow IPC streams with the npm apache-arrow package for
// tests/cli/write_arrow.sh:
//   typed        int/float/string/bool/date/timestamp/list/struct columns with nulls
//   dict         dictionary-encoded columns (utf8 with int32 and int8 indices,
//                one inside a struct), two batches whose dictionaries differ
//                (the second batch's are replacement dictionaries)
//   zstd, lz4    the typed table with ZSTD / LZ4_FRAME bodies (apache-arrow
//                ships no codec: the zstd and lz4 command-line tools compress).
//                This apache-arrow writes each buffer's *compressed* length
//                where the format wants the uncompressed one (fixed upstream
//                in apache/arrow-js#470), so the prefixes are corrected here
//   zstd-as-is   the same ZSTD stream without that correction
//   big N        N rows (id int64, name utf8, score float64) in batches of 65536,
//                written as the pipe takes them, for the memory test
// usage: node write_arrow_make.mjs MODE [N] > out.arrows
import { execFileSync } from 'node:child_process';
import {
  tableToIPC, makeTable, vectorFromArray, Int8, Int32, Int64, Float64, Utf8, Bool, DateDay,
  TimestampMicrosecond, List, Struct, Field, Dictionary, Table, RecordBatchStreamWriter,
  compressionRegistry, CompressionType,
} from 'apache-arrow';

function typed() {
  const pt = new Struct([new Field('x', new Int32(), true), new Field('y', new Utf8(), true)]);
  return makeTable({
    i: vectorFromArray([1, null, 3], new Int32()),
    l: vectorFromArray([10n, 20n, null], new Int64()),
    f: vectorFromArray([1.5, null, -2.25], new Float64()),
    s: vectorFromArray(['a', 'héllo', null], new Utf8()),
    b: vectorFromArray([true, false, null], new Bool()),
    d: vectorFromArray([new Date(Date.UTC(2024, 0, 2)), null, new Date(Date.UTC(1970, 0, 1))], new DateDay()),
    ts: vectorFromArray([1700000000000, null, 0], new TimestampMicrosecond('UTC')),
    li: vectorFromArray([[1, 2], [], null], new List(new Field('item', new Int32(), true))),
    st: vectorFromArray([{ x: 1, y: 'p' }, { x: null, y: 'q' }, null], pt),
  });
}

function dictBatch(c, k, inner) {
  const cat = new Struct([new Field('code', new Dictionary(new Utf8(), new Int32(), 2), true)]);
  return makeTable({
    c: vectorFromArray(c, new Dictionary(new Utf8(), new Int32(), 0)),
    k: vectorFromArray(k, new Dictionary(new Utf8(), new Int8(), 1)),
    s: vectorFromArray(inner.map((code) => ({ code })), cat),
  }).batches[0];
}

function tool(cmd) {
  return { encode: (data) => new Uint8Array(execFileSync(cmd, ['-q', '-c'], { input: data })) };
}

const which = process.argv[2];
if (which === 'typed') {
  process.stdout.write(tableToIPC(typed(), 'stream'));
} else if (which === 'dict') {
  const b1 = dictBatch(['a', 'b', 'a'], ['x', null, 'y'], ['p', 'q', null]);
  const b2 = dictBatch(['c', 'c', null], ['z', 'x', 'z'], ['r', 'r', 'p']);
  process.stdout.write(tableToIPC(new Table([b1, b2]), 'stream'));
} else if (which === 'zstd' || which === 'lz4' || which === 'zstd-as-is') {
  const type = which === 'lz4' ? CompressionType.LZ4_FRAME : CompressionType.ZSTD;
  compressionRegistry.set(type, tool(which === 'lz4' ? 'lz4' : 'zstd'));
  if (which !== 'zstd-as-is') {
    const compress = RecordBatchStreamWriter.prototype._compressBodyBuffers;
    RecordBatchStreamWriter.prototype._compressBodyBuffers = function (buffers) {
      const r = compress.call(this, buffers); // r.buffers: [prefix, data] per buffer
      buffers.forEach((b, i) => {
        const p = r.buffers[2 * i];
        if (p.length !== 8) return; // an empty buffer has no prefix
        const dv = new DataView(p.buffer, p.byteOffset, 8);
        if (dv.getBigInt64(0, true) !== -1n) dv.setBigInt64(0, BigInt(b.byteLength), true);
      });
      return r;
    };
  }
  const w = new RecordBatchStreamWriter({ compressionType: type });
  process.stdout.write(w.writeAll(typed()).toUint8Array(true));
} else if (which === 'big') {
  // one batch of `per` rows made once and sent again and again (making rows
  // is what is slow in JS); the pipe's backpressure paces the writing
  const n = Number(process.argv[3] || 2000000), per = 65536;
  const ids = new Array(per), names = new Array(per), scores = new Float64Array(per);
  for (let i = 0; i < per; i++) {
    ids[i] = BigInt(i);
    names[i] = `name-${i}-padding-to-make-the-stream-larger`;
    scores[i] = i / 7;
  }
  const full = makeTable({
    id: vectorFromArray(ids, new Int64()),
    name: vectorFromArray(names, new Utf8()),
    score: vectorFromArray(scores, new Float64()),
  }).batches[0];
  const w = new RecordBatchStreamWriter();
  w.toNodeStream().pipe(process.stdout);
  let row = 0;
  const next = () => {
    if (row >= n) {
      w.finish();
      return;
    }
    const m = Math.min(per, n - row);
    w.write(m === per ? full : full.slice(0, m));
    row += m;
    if (process.stdout.writableNeedDrain) process.stdout.once('drain', next);
    else setImmediate(next);
  };
  next();
} else {
  console.error('usage: node write_arrow_make.mjs typed|dict|zstd|lz4|zstd-as-is|big [N]');
  process.exit(2);
}
