#!/usr/bin/env python3
"""Round trip of the shared conformance tables through deltac's writer.

For every shared case that scans the latest version of a table and expects
rows: read the table with `deltac scan`, write those rows into a new table
with `deltac write` (same schema and partition columns; a second variant
with column mapping, read back through a `deltac checkpoint`), then scan the
new table and compare its rows, as a multiset of NDJSON lines, and its schema
(column-mapping metadata aside) with the source's.

The source scan itself is checked against the case's expected rows by
delta_check.sh (conformance_delta_check), so equal rows here are the case's
expected rows. Comparing with deltac's own output instead of running check.py
again on 190 copies keeps this test to a fraction of the time: check.py
copies every table and compares values in Python.
Tables deltac cannot write (generated/identity columns, invariants,
variant, maps with non-string keys in NDJSON form, ...) are listed as
skipped with the writer's one-line reason; they must not crash.

usage: write_roundtrip.py DELTAC SHARED_DIR [--keep DIR] [--only SUBSTRING] [--check]
(--check: also run check.py on the written tables, as an independent check)
"""
import hashlib, json, os, shutil, subprocess, sys, tempfile

deltac, shared = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
args = sys.argv[3:]
keep = args[args.index('--keep') + 1] if '--keep' in args else None
only = args[args.index('--only') + 1] if '--only' in args else ''
full_check = '--check' in args
conf = os.path.join(shared, 'conformance')
work = keep or tempfile.mkdtemp(prefix='write-roundtrip-')
for sub in ('cases', 'tables'):
    os.makedirs(os.path.join(work, sub), exist_ok=True)
if not os.path.exists(os.path.join(work, 'expected')):
    os.symlink(os.path.join(conf, 'expected'), os.path.join(work, 'expected'))

def run(*a, **kw):
    return subprocess.run([deltac, *a], capture_output=True, text=True, **kw)

def scan_digest(table):
    """(row count, digest of the sorted NDJSON lines) of a table's latest scan."""
    p = subprocess.run([deltac, 'scan', '--format', 'ndjson', table], capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode(errors='replace').strip()
    lines = p.stdout.splitlines()
    lines.sort()
    return len(lines), hashlib.sha256(b'\n'.join(lines)).hexdigest()

def plain_schema(table):
    """The table's schema JSON without column-mapping metadata."""
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()
                    if not (k == 'metadata' and isinstance(x, dict))}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return strip(json.loads(run('schema', '--format', 'json', table).stdout or 'null'))

written, skipped, crashed, failed = 0, [], [], []
for name in sorted(os.listdir(os.path.join(conf, 'cases'))):
    case = json.load(open(os.path.join(conf, 'cases', name)))
    if case['op'] != 'scan' or case['expect'] != 'rows' or 'version' in case or 'timestamp' in case:
        continue
    if only and only not in case['id']:
        continue
    src = os.path.join(conf, 'tables', case['table'])
    info = json.loads(run('info', '--format', 'json', src).stdout or '{}')
    schema = run('schema', '--format', 'json', src).stdout.strip()
    rows = os.path.join(work, case['id'] + '.ndjson')
    with open(rows, 'w') as f:
        subprocess.run([deltac, 'scan', '--format', 'ndjson', src], stdout=f, check=False)
    want = scan_digest(src)
    want_schema = plain_schema(src)
    for variant, extra in (('plain', []),
                           ('cm', ['--property', 'delta.columnMapping.mode=name'])):
        tid = f"{case['table']}.{variant}"
        dst = os.path.join(work, 'tables', tid)
        shutil.rmtree(dst, ignore_errors=True)
        part = info.get('partition_columns') or []
        cmd = ['write', '--schema', schema, '--input', rows, *extra]
        if part:
            cmd += ['--partition-by', ','.join(part)]
        p = run(*cmd, dst)
        if p.returncode < 0 or p.returncode >= 128:
            crashed.append(f"{tid}: signal {p.returncode}")
            continue
        if p.returncode != 0:
            skipped.append(f"{tid}: {p.stderr.strip()}")
            continue
        if variant == 'cm' and run('checkpoint', dst).returncode != 0:  # then read through the checkpoint
            crashed.append(f"{tid}: checkpoint failed")
            continue
        got = scan_digest(dst)
        if got != want:
            failed.append(f"{tid}: rows differ from the source's ({got[0]} vs {want[0]} rows; {got[1]})")
        elif plain_schema(dst) != want_schema:
            failed.append(f"{tid}: schema differs from the source's")
        else:
            print('PASS', tid)
        c = dict(case)
        c['table'] = tid
        c['id'] = case['id'] + '.' + variant
        c.pop('mtimes', None)
        json.dump(c, open(os.path.join(work, 'cases', c['id'] + '.json'), 'w'))
        written += 1

print(f"write_roundtrip: {written} tables written, {len(skipped)} refused")
for s in skipped:
    print('  refused:', s)
rc = 0
if failed:
    print('FAILED:', *failed, sep='\n  ')
    rc = 1
print(f"write_roundtrip: {written - len(failed)} of {written} written tables read back as their source")
if full_check:
    rc |= subprocess.run([sys.executable, os.path.join(conf, 'check.py'), '--deltac', deltac,
                          '--cases', os.path.join(work, 'cases'), '-j', '2']).returncode
if crashed:
    print('CRASHED:', *crashed, sep='\n  ')
    rc = 1
if not keep:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(rc)
