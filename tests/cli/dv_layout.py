#!/usr/bin/env python3
"""Reads every deletion vector a Delta table's log names, the way the Delta
protocol lays them out, without deltac: inline ones (storageType "i": Z85 of
the serialized bitmap in the log) and ones in DV files ("u": a UUID-named
file; version byte 1, then per DV a big-endian size, the bitmap, a CRC-32).
The bitmap is the "RoaringBitmapArray" portable form: magic 1681511377, the
count of 32-bit roaring bitmaps, each with its 32-bit key. Checks sizes,
CRCs and that the members counted equal the descriptor's cardinality.

  dv_layout.py TABLE   prints "inline N file M" (DV descriptors of each kind)
"""
import json, os, struct, sys, zlib

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def z85(text):
    raw = b""
    for i in range(0, len(text), 5):
        n = 0
        for ch in text[i:i + 5]:
            n = n * 85 + ALPHABET.index(ch)
        raw += struct.pack(">I", n)
    return raw


def roaring32_cardinality(bm, p):
    """Members of one portable 32-bit roaring bitmap at bm[p:]; (count, end)."""
    cookie, = struct.unpack("<I", bm[p:p + 4]); p += 4
    if cookie & 0xFFFF == 12347:
        nc = (cookie >> 16) + 1
        runbits = bm[p:p + (nc + 7) // 8]; p += (nc + 7) // 8
    else:
        assert cookie == 12346, cookie
        nc, = struct.unpack("<I", bm[p:p + 4]); p += 4
        runbits = b"\0" * ((nc + 7) // 8)
    hdr = [struct.unpack("<HH", bm[p + 4 * i:p + 4 * i + 4]) for i in range(nc)]; p += 4 * nc
    if cookie == 12346 or nc >= 4:
        p += 4 * nc  # container offsets
    card = 0
    for i, (_, c1) in enumerate(hdr):
        if runbits[i // 8] >> (i % 8) & 1:
            nr, = struct.unpack("<H", bm[p:p + 2]); p += 2
            for _ in range(nr):
                _, ln = struct.unpack("<HH", bm[p:p + 4]); p += 4
                card += ln + 1
        elif c1 + 1 > 4096:
            card += c1 + 1; p += 8192
        else:
            card += c1 + 1; p += 2 * (c1 + 1)
    return card, p


def bitmap_cardinality(bm):
    magic, nb = struct.unpack("<IQ", bm[:12])
    assert magic == 1681511377, magic
    p, card = 12, 0
    for _ in range(nb):
        p += 4  # the high 32 bits of the members
        c, p = roaring32_cardinality(bm, p)
        card += c
    assert p == len(bm), (p, len(bm))
    return card


def check(table, d):
    size = d["sizeInBytes"]
    if d["storageType"] == "i":
        assert "offset" not in d, d
        bm = z85(d["pathOrInlineDv"])[:size]
    else:
        assert d["storageType"] == "u", d
        u = z85(d["pathOrInlineDv"][-20:]).hex()
        prefix = d["pathOrInlineDv"][:-20]
        name = "deletion_vector_%s-%s-%s-%s-%s.bin" % (u[:8], u[8:12], u[12:16], u[16:20], u[20:])
        blob = open(os.path.join(table, prefix, name), "rb").read()
        assert blob[0] == 1, "version byte"
        off = d["offset"]
        n, = struct.unpack(">I", blob[off:off + 4])
        assert n == size, (n, size)
        bm = blob[off + 4:off + 4 + size]
        crc, = struct.unpack(">I", blob[off + 4 + size:off + 8 + size])
        assert crc == zlib.crc32(bm), "crc"
    assert len(bm) == size, (len(bm), size)
    card = bitmap_cardinality(bm)
    assert card == d["cardinality"], (card, d)


def main():
    table = sys.argv[1]
    log = os.path.join(table, "_delta_log")
    kinds = {"i": 0, "u": 0}
    for name in sorted(os.listdir(log)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        for line in open(os.path.join(log, name)):
            add = json.loads(line).get("add")
            if add and add.get("deletionVector"):
                check(table, add["deletionVector"])
                kinds[add["deletionVector"]["storageType"]] += 1
    print("inline %d file %d" % (kinds["i"], kinds["u"]))


main()
