// Writes Arrow IPC streams with the npm apache-arrow package for
// tests/cli/write_arrow.sh: `typed` (int/float/string/bool/date/timestamp/
// list/struct columns with nulls) and `dict` (a dictionary-encoded column).
// usage: node write_arrow_make.mjs typed|dict > out.arrows
import {
  tableToIPC, makeTable, vectorFromArray, Int32, Int64, Float64, Utf8, Bool, DateDay,
  TimestampMicrosecond, List, Struct, Field, Dictionary,
} from 'apache-arrow';

const which = process.argv[2];
let table;
if (which === 'typed') {
  const pt = new Struct([new Field('x', new Int32(), true), new Field('y', new Utf8(), true)]);
  table = makeTable({
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
} else if (which === 'dict') {
  table = makeTable({ c: vectorFromArray(['a', 'b', 'a'], new Dictionary(new Utf8(), new Int32())) });
} else {
  console.error('usage: node write_arrow_make.mjs typed|dict');
  process.exit(2);
}
process.stdout.write(tableToIPC(table, 'stream'));
