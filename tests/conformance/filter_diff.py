#!/usr/bin/env python3
"""Differential test of `deltac scan --filter` over the shared Delta tables.

For every table deltac can scan, a handful of columns of comparable types
(top level and nested in structs) get predicates built from values in the
table: =, !=, <, >=, IN, IS [NOT] NULL, NOT, OR, BETWEEN. The rows deltac
returns must be exactly the rows of the unfiltered scan that SQL's
three-valued logic keeps, evaluated here in Python. Pruning may skip files
and row groups, never a matching row.
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

deltac = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build/deltac")
here = os.path.dirname(os.path.abspath(__file__))
shared = os.environ.get("DELTAC_SHARED", os.path.join(here, "..", "..", "..", "shared"))
tables_dir = os.path.join(shared, "conformance", "tables")
MAX_ROWS = 5000
COLS_PER_TABLE = 2

COMPARABLE = {"integer", "long", "short", "byte", "string", "date", "timestamp", "timestamp_ntz", "boolean"}


def run(args):
    p = subprocess.run([deltac] + args, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def leaves(fields, prefix):
    for f in fields:
        t = f["type"]
        path = prefix + [f["name"]]
        if isinstance(t, dict) and t.get("type") == "struct":
            yield from leaves(t["fields"], path)
        elif isinstance(t, str) and (t in COMPARABLE or t.startswith("decimal")):
            yield path, t


def get(row, path):
    for p in path:
        if row is None:
            return None
        row = row.get(p)
    return row


def quote_name(n):
    if n.replace("_", "a").isalnum() and not n[0].isdigit():
        return n
    return "`" + n.replace("`", "``") + "`"


def literal(v, t):
    if t == "string":
        return "'" + v.replace("'", "''") + "'"
    if t == "date":
        return "DATE '%s'" % v
    if t == "timestamp":
        return "TIMESTAMP '%s'" % v
    if t == "timestamp_ntz":
        return "TIMESTAMP_NTZ '%s'" % v
    if t == "boolean":
        return "true" if v else "false"
    return str(v)


# Three-valued logic: None is unknown.
def cmp(a, op, b):
    if a is None or b is None:
        return None
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def NOT(x):
    return None if x is None else not x


def OR(x, y):
    if x is True or y is True:
        return True
    if x is None or y is None:
        return None
    return False


def AND(x, y):
    if x is False or y is False:
        return False
    if x is None or y is None:
        return None
    return True


def cases(col, t, v, v2):
    L, L2 = literal(v, t), literal(v2, t)
    yield "%s = %s" % (col, L), lambda x: cmp(x, "=", v)
    yield "%s != %s" % (col, L), lambda x: cmp(x, "!=", v)
    if t != "boolean":
        yield "%s < %s" % (col, L), lambda x: cmp(x, "<", v)
        yield "%s >= %s" % (col, L), lambda x: cmp(x, ">=", v)
        yield "NOT %s <= %s" % (col, L), lambda x: NOT(cmp(x, "<=", v))
        lo, hi = (v, v2) if v <= v2 else (v2, v)
        yield "%s BETWEEN %s AND %s" % (col, literal(lo, t), literal(hi, t)), \
            lambda x: AND(cmp(x, ">=", lo), cmp(x, "<=", hi))
    yield "%s IN (%s, %s)" % (col, L, L2), lambda x: OR(cmp(x, "=", v), cmp(x, "=", v2))
    yield "%s IS NULL" % col, lambda x: x is None
    yield "%s IS NOT NULL" % col, lambda x: x is not None
    yield "%s > %s OR %s IS NULL" % (col, L, col) if t != "boolean" else "%s OR %s IS NULL" % (col, col), \
        (lambda x: OR(cmp(x, ">", v), x is None)) if t != "boolean" else (lambda x: OR(x, x is None))


def norm(v, t):
    if v is None:
        return None
    if t.startswith("decimal"):
        return Decimal(str(v))
    return v


def check_table(name):
    path = os.path.join(tables_dir, name)
    rc, out, _ = run(["scan", "--format", "ndjson", path])
    if rc != 0:
        return 0, [], True
    lines = out.splitlines()
    if len(lines) > MAX_ROWS or not lines:
        return 0, [], True
    rows = [json.loads(l, parse_float=Decimal) for l in lines]
    rc, schema, _ = run(["schema", "--format", "json", path])
    if rc != 0:
        return 0, ["%s: schema failed" % name], False
    cols = list(leaves(json.loads(schema)["fields"], []))[:COLS_PER_TABLE]
    n, failures = 0, []
    for colpath, t in cols:
        values = sorted({norm(get(r, colpath), t) for r in rows} - {None}, key=lambda x: (str(type(x)), x))
        if not values:
            continue
        v, v2 = values[len(values) // 2], values[-1]
        col = ".".join(quote_name(p) for p in colpath)
        for text, pred in cases(col, t, v, v2):
            want = sorted(l for l, r in zip(lines, rows) if pred(norm(get(r, colpath), t)) is True)
            rc, out, err = run(["scan", "--format", "ndjson", "--filter", text, path])
            n += 1
            if rc != 0:
                failures.append("%s: --filter \"%s\": %s" % (name, text, err.strip()))
            elif sorted(out.splitlines()) != want:
                failures.append("%s: --filter \"%s\": %d rows, expected %d" % (name, text, len(out.splitlines()), len(want)))
    return n, failures, False


def main():
    names = sorted(os.listdir(tables_dir))
    total, failed, skipped = 0, [], 0
    with ThreadPoolExecutor(max_workers=2) as ex:
        for n, f, skip in ex.map(check_table, names):
            total += n
            failed += f
            skipped += skip
    for f in failed:
        print("FAIL " + f)
    print("filter_diff: %d filters over %d tables (%d not scanned or too big), %d failed"
          % (total, len(names) - skipped, skipped, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
