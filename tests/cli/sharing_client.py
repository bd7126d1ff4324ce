#!/usr/bin/env python3
"""A Delta Sharing client written for the tests from the protocol document
(delta-io/delta-sharing PROTOCOL.md), not from deltac's server code: it reads
a shared table's snapshot or change data feed through the server and prints
the rows as NDJSON, for tests/cli/serve_sharing.sh to compare with the CLI.

    sharing_client.py --deltac DELTAC --profile PROFILE.json --table SHARE.SCHEMA.TABLE
                      [--format parquet|delta|both] snapshot [--version N | --timestamp TS]
    ... changes --from A [--to B]

Data files are downloaded from the signed URLs (no bearer token) and decoded
with `deltac parquet cat` (a Parquet reader only: the sharing logic is all
here). responseformat=delta: deletion vectors are fetched from their own
signed URLs (or decoded inline) and applied; column mapping is undone with
the schema's physical names; change rows are derived from the versions'
actions as a Delta reader does. Snapshot rows carry the schema's columns;
change rows add _change_type, _commit_version and _commit_timestamp (ms).
"""
import argparse
import json
import struct
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

CAPS = {"delta": "responseformat=delta;readerfeatures=deletionvectors,columnmapping",
        "both": "responseformat=delta,parquet;readerfeatures=deletionvectors,columnmapping"}


class Client:
    def __init__(self, profile, deltac, fmt):
        p = json.load(open(profile))
        assert p["shareCredentialsVersion"] == 1, p
        self.endpoint = p["endpoint"].rstrip("/")
        self.token = p["bearerToken"]
        self.deltac = deltac
        self.fmt = fmt
        self.tmp = tempfile.mkdtemp(prefix="sharing-client-")
        self.n = 0

    def request(self, path, body=None):
        headers = {"Authorization": "Bearer " + self.token}
        if self.fmt in CAPS:
            headers["delta-sharing-capabilities"] = CAPS[self.fmt]
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json; charset=utf-8"
        req = urllib.request.Request(self.endpoint + path, data=data, headers=headers, method="POST" if data else "GET")
        try:
            with urllib.request.urlopen(req) as r:
                lines = [json.loads(x) for x in r.read().decode().splitlines() if x.strip()]
                caps = r.headers.get("delta-sharing-capabilities", "responseformat=parquet")
        except urllib.error.HTTPError as e:
            sys.exit("sharing_client: %s: %s %s" % (path, e.code, e.read().decode()))
        got = dict(kv.split("=", 1) for kv in caps.lower().split(";"))["responseformat"]
        # The protocol: the server answers in the one format asked for; a
        # client that offered both takes either; one that did not ask for
        # delta must never get it.
        assert got == self.fmt or self.fmt == "both", caps
        return got, lines

    def download(self, url):
        data = urllib.request.urlopen(url).read()  # signed: no token
        self.n += 1
        return data

    def parquet_rows(self, url, size=None):
        data = self.download(url)
        assert size is None or len(data) == size, (len(data), size)
        path = "%s/f%d.parquet" % (self.tmp, self.n)
        open(path, "wb").write(data)
        out = subprocess.run([self.deltac, "parquet", "cat", "--format", "ndjson", path],
                             capture_output=True, text=True, check=True).stdout
        return [json.loads(x) for x in out.splitlines()]

    # ------------------------------------------------------ table reading

    def table_path(self, table):
        share, schema, name = table.split(".")
        return "/shares/%s/schemas/%s/tables/%s" % (share, schema, name)

    def snapshot(self, table, version=None, timestamp=None, json_hint=None):
        body = {}
        if json_hint is not None:
            body["jsonPredicateHints"] = json_hint
        if version is not None:
            body["version"] = version
        if timestamp is not None:
            body["timestamp"] = timestamp
        fmt, lines = self.request(self.table_path(table) + "/query", body)
        schema, parts = self.schema(fmt, lines[1])
        rows = []
        for line in lines[2:]:
            f = line["file"]
            if fmt == "delta":
                a = f["deltaSingleAction"]["add"]
                rows += self.file_rows(a["path"], a.get("size"), a["partitionValues"], a.get("deletionVector"), schema)
            else:
                rows += self.file_rows(f["url"], f["size"], f["partitionValues"], None, schema)
        return rows

    def changes(self, table, start, end=None):
        q = "?startingVersion=%d" % start + ("&endingVersion=%d" % end if end is not None else "")
        fmt, lines = self.request(self.table_path(table) + "/changes" + q)
        schema, parts = self.schema(fmt, lines[1])
        by_version = {}
        for line in lines[2:]:
            (kind, a), = line.items()
            if kind == "file":  # delta: the wrapped action
                (kind, act), = a["deltaSingleAction"].items()
                by_version.setdefault(a["version"], []).append((kind, act["path"], act, a["timestamp"]))
            elif kind in ("add", "remove", "cdf"):
                by_version.setdefault(a["version"], []).append((kind, a["url"], a, a["timestamp"]))
        rows = []
        for v in sorted(by_version):
            rows += self.version_changes(v, by_version[v], schema, fmt)
        return rows

    def version_changes(self, v, acts, schema, fmt):
        """The change rows of one version, as the Delta protocol defines them."""
        out = []
        ts = acts[0][3]
        def emit(rs, ct=None):
            for r in rs:
                r["_change_type"] = ct or r["_change_type"]
                r["_commit_version"] = v
                r["_commit_timestamp"] = ts
                out.append(r)
        cdcs = [a for a in acts if a[0] in ("cdc", "cdf")]
        if cdcs:  # a version with change files: they are its changes
            for _, url, a, _ in cdcs:
                emit(self.file_rows(url, a.get("size"), a["partitionValues"], None, schema, keep=["_change_type"]))
            return out
        adds = {self.file_key(url): (url, a) for k, url, a, _ in acts if k == "add"}
        removes = {self.file_key(url): (url, a) for k, url, a, _ in acts if k == "remove"}
        for key, (url, a) in adds.items():
            if fmt == "delta" and key in removes:  # the same file, another DV: the difference
                old = self.dv_rows(removes[key][1].get("deletionVector"))
                new = self.dv_rows(a.get("deletionVector"))
                rows = self.file_rows(url, a.get("size"), a["partitionValues"], None, schema, positions=True)
                emit([r for i, r in rows if i in new and i not in old], "delete")
                emit([r for i, r in rows if i in old and i not in new], "insert")
            else:
                emit(self.file_rows(url, a.get("size"), a["partitionValues"], a.get("deletionVector"), schema), "insert")
        for key, (url, a) in removes.items():
            if fmt == "delta" and key in adds:
                continue
            emit(self.file_rows(url, a.get("size") or None, a["partitionValues"], a.get("deletionVector"), schema), "delete")
        return out

    @staticmethod
    def file_key(url):
        return url.split("?")[0]  # the same file has the same link path

    def schema(self, fmt, meta_line):
        m = meta_line["metaData"]
        if fmt == "delta":
            m = m["deltaMetadata"]
        s = json.loads(m["schemaString"])
        # (logical name, physical name) of each column: column mapping
        # stores physical names in the files
        mode = m.get("configuration", {}).get("delta.columnMapping.mode", "none")
        cols = [(f["name"], f["metadata"].get("delta.columnMapping.physicalName", f["name"]) if mode != "none" else f["name"],
                 f["type"]) for f in s["fields"]]
        return cols, m["partitionColumns"]

    def file_rows(self, url, size, partition_values, dv, schema, keep=(), positions=False):
        deleted = self.dv_rows(dv)
        rows = []
        for i, r in enumerate(self.parquet_rows(url, size)):
            if i in deleted:
                continue
            row = {}
            for name, phys, typ in schema:
                if phys in partition_values:  # keyed by physical name
                    row[name] = partition_value(partition_values[phys], typ)
                else:
                    row[name] = r.get(phys)
            for k in keep:
                row[k] = r[k]
            rows.append((i, row) if positions else row)
        return rows

    # ---------------------------------------------------- deletion vectors

    def dv_rows(self, dv):
        """The row positions a deletion vector descriptor deletes."""
        if not dv:
            return set()
        if dv["storageType"] == "i":
            data = z85_decode(dv["pathOrInlineDv"])
        else:
            # the server shares DV files as signed absolute URLs ('p')
            assert dv["storageType"] == "p" and dv["pathOrInlineDv"].startswith("http"), dv
            blob = self.download(dv["pathOrInlineDv"])
            off = dv.get("offset", 1)
            n = struct.unpack(">i", blob[off:off + 4])[0]
            assert n == dv["sizeInBytes"], (n, dv)
            data = blob[off + 4:off + 4 + n]
        rows = roaring_treemap(data)
        assert len(rows) == dv["cardinality"], (len(rows), dv)
        return rows


def partition_value(v, typ):
    """PROTOCOL.md "Partition Value Serialization": strings, "" is null."""
    if v is None or (v == "" and typ != "string"):
        return None
    if typ in ("byte", "short", "integer", "long"):
        return int(v)
    if typ in ("float", "double"):
        return float(v)
    if typ == "boolean":
        return v == "true"
    return v


def z85_decode(s):
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
    out = bytearray()
    for i in range(0, len(s), 5):
        v = 0
        for ch in s[i:i + 5]:
            v = v * 85 + alphabet.index(ch)
        out += v.to_bytes(4, "big")
    return bytes(out)


def roaring_treemap(data):
    """Delta's DV bitmap: magic, then 64-bit RoaringTreemap portable format."""
    magic = struct.unpack_from("<i", data, 0)[0]
    assert magic == 1681511377, magic
    n = struct.unpack_from("<q", data, 4)[0]
    pos, rows = 12, set()
    for _ in range(n):
        high = struct.unpack_from("<I", data, pos)[0]
        pos, low = roaring32(data, pos + 4)
        rows |= {high << 32 | x for x in low}
    return rows


def roaring32(data, pos):
    """One portable-format 32-bit Roaring bitmap at pos: (end, values)."""
    cookie = struct.unpack_from("<I", data, pos)[0]
    pos += 4
    runs = None
    if cookie & 0xFFFF == 12347:
        size = (cookie >> 16) + 1
        nb = (size + 7) // 8
        runs = data[pos:pos + nb]
        pos += nb
    else:
        assert cookie == 12346, cookie
        size = struct.unpack_from("<I", data, pos)[0]
        pos += 4
    header = [struct.unpack_from("<HH", data, pos + 4 * i) for i in range(size)]
    pos += 4 * size
    if runs is None or size >= 4:
        pos += 4 * size  # offsets
    values = set()
    for i, (key, card1) in enumerate(header):
        base = key << 16
        if runs is not None and runs[i // 8] >> (i % 8) & 1:
            nr = struct.unpack_from("<H", data, pos)[0]
            pos += 2
            for _ in range(nr):
                start, length = struct.unpack_from("<HH", data, pos)
                pos += 4
                values.update(range(base + start, base + start + length + 1))
        elif card1 + 1 <= 4096:
            for j in range(card1 + 1):
                values.add(base + struct.unpack_from("<H", data, pos + 2 * j)[0])
            pos += 2 * (card1 + 1)
        else:
            for w in range(1024):
                word = struct.unpack_from("<Q", data, pos + 8 * w)[0]
                while word:
                    b = word & -word
                    values.add(base + w * 64 + b.bit_length() - 1)
                    word ^= b
            pos += 8192
    return pos, values


def json_pred(p, row):
    """A JSON predicate (the protocol's "JSON predicates for Filtering") on
    one row: True, False or None (unknown, SQL's three-valued logic)."""
    op, kids = p["op"], p.get("children", [])
    if op == "column":
        return row.get(p["name"])
    if op == "literal":
        return int(p["value"]) if p["valueType"] in ("int", "long") else p["value"]
    if op == "isNull":
        return json_pred(kids[0], row) is None
    if op == "not":
        v = json_pred(kids[0], row)
        return None if v is None else not v
    if op in ("and", "or"):
        vs = [json_pred(k, row) for k in kids]
        if op == "and":
            return False if False in vs else (None if None in vs else True)
        return True if True in vs else (None if None in vs else False)
    a, b = json_pred(kids[0], row), json_pred(kids[1], row)
    if a is None or b is None:
        return None
    return {"equal": a == b, "lessThan": a < b, "lessThanOrEqual": a <= b,
            "greaterThan": a > b, "greaterThanOrEqual": a >= b}[op]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deltac", required=True)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--format", default="parquet", choices=["parquet", "delta", "both"],
                    help="the responseformat asked for (both: delta,parquet)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snapshot")
    s.add_argument("--version", type=int)
    s.add_argument("--timestamp")
    s.add_argument("--json-hint", help="a JSON predicate sent as jsonPredicateHints and applied to the rows")
    c = sub.add_parser("changes")
    c.add_argument("--from", dest="start", type=int, required=True)
    c.add_argument("--to", dest="end", type=int)
    a = ap.parse_args()
    cl = Client(a.profile, a.deltac, a.format)
    if a.cmd == "snapshot":
        rows = cl.snapshot(a.table, a.version, a.timestamp, a.json_hint)
        if a.json_hint:  # hints are best effort: the client filters (the protocol says so)
            pred = json.loads(a.json_hint)
            rows = [r for r in rows if json_pred(pred, r) is True]
    else:
        rows = cl.changes(a.table, a.start, a.end)
    for r in rows:
        print(json.dumps(r, sort_keys=True))


if __name__ == "__main__":
    main()
