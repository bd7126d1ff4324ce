#!/usr/bin/env python3
"""The layering rules of docs/DESIGN.md, checked on the #include lines of src/.

Fails (exit 1, one line per finding) when
  - the folders of src/ include each other in a circle (folder A includes a
    header of B and B, directly or through others, one of A);
  - scan/ includes an operation folder (cdf, write, dml, maint);
  - one operation folder includes another;
  - a folder includes one of a higher layer (LAYERS below), or is in no layer;
  - a header is included by a path that does not exist.

Usage: includes.py [SRC_DIR]   (default: src/ beside tests/)
"""
import os
import re
import sys

OPERATIONS = {"cdf", "write", "dml", "maint"}
# docs/DESIGN.md's layers, bottom up: a folder may include its own layer and
# the ones below it, never one above (and never in a circle within a layer).
LAYERS = [
    {"util"},
    {"json", "parquet", "arrow", "storage"},
    {"log", "dv", "expr", "catalog"},
    {"txn"},
    {"scan", "rewrite"},
    OPERATIONS,
    {"cli", "serve", "ingest", "python"},
]
RANK = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}
# Tools sit above the public API; their own layering is issue territory of
# their own (they may include each other: serve is started from the CLI).
TOOLS = {"cli", "serve", "ingest", "python"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_edges(src):
    edges = {}   # folder -> {folder: [(file, line, header)]}
    missing = []
    for folder in sorted(os.listdir(src)):
        fdir = os.path.join(src, folder)
        if not os.path.isdir(fdir):
            continue
        edges.setdefault(folder, {})
        for root, _, files in os.walk(fdir):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        header = m.group(1)
                        if "/" not in header:
                            # same-folder include, or a generated file
                            continue
                        target = header.split("/", 1)[0]
                        if target in ("deltac",):
                            continue  # the public API
                        if not os.path.exists(os.path.join(src, header)):
                            missing.append((os.path.relpath(path, src), lineno, header))
                            continue
                        if target == folder:
                            continue
                        edges[folder].setdefault(target, []).append(
                            (os.path.relpath(path, src), lineno, header))
    return edges, missing


def find_cycles(edges):
    """Strongly connected components with more than one folder (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "src")
    edges, missing = folder_edges(src)
    problems = []
    for path, lineno, header in missing:
        problems.append(f"{path}:{lineno}: includes \"{header}\", which does not exist")
    for comp in find_cycles(edges):
        detail = []
        for a in comp:
            for b in comp:
                for path, lineno, header in edges[a].get(b, [])[:2]:
                    detail.append(f"{path}:{lineno} -> {header}")
        problems.append("include circle among src/{" + ",".join(comp) + "}: " + "; ".join(detail))
    for a in sorted(edges):
        if a not in RANK:
            problems.append(f"src/{a}/ is in no layer of docs/DESIGN.md (add it to LAYERS here)")
    for a, targets in sorted(edges.items()):
        for b, sites in sorted(targets.items()):
            if a in RANK and b in RANK and RANK[b] > RANK[a] and not (a in OPERATIONS and b in OPERATIONS):
                where = ", ".join(f"{p}:{n}" for p, n, _ in sites[:3])
                problems.append(f"{a}/ includes {b}/, a layer above it ({where})")
                continue
            where = ", ".join(f"{p}:{n}" for p, n, _ in sites[:3])
            if a == "scan" and b in OPERATIONS:
                problems.append(f"scan/ includes the operation folder {b}/ ({where})")
            elif a in OPERATIONS and b in OPERATIONS:
                problems.append(f"operation {a}/ includes operation {b}/ ({where})")
            elif a not in TOOLS and b in TOOLS:
                problems.append(f"library folder {a}/ includes the tool folder {b}/ ({where})")
    for p in problems:
        print(p)
    folders = len(edges)
    n_edges = sum(len(t) for t in edges.values())
    print(f"{folders} folders, {n_edges} folder dependencies, {len(problems)} layering problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
