#!/usr/bin/env python3
"""tests/compressed/objdist.py A.obj B.obj [TOL] - symmetric Hausdorff distance
between the vertex sets of two OBJ files (v lines), relative to the diagonal
of A's bounding box. Compressors (gltfpack, gltf-transform) reorder, weld and
split vertices, so vertices are compared as point sets, not by index.
Prints "hausdorff=<abs> diag=<d> rel=<abs/d> a=<n> b=<n>"; with TOL, exits 1
when rel > TOL (and when either file has no vertices)."""
import math
import sys


def verts(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("v "):
                p = line.split()
                out.append((float(p[1]), float(p[2]), float(p[3])))
    return out


def directed(src, dst, cell):
    grid = {}
    for p in dst:
        grid.setdefault(tuple(int(math.floor(c / cell)) for c in p), []).append(p)
    worst = 0.0
    for p in src:
        key = tuple(int(math.floor(c / cell)) for c in p)
        best = None
        r = 1
        while best is None or r <= 2:
            for dx in range(-r, r + 1):
                for dy in range(-r, r + 1):
                    for dz in range(-r, r + 1):
                        for q in grid.get((key[0] + dx, key[1] + dy, key[2] + dz), ()):
                            d = math.dist(p, q)
                            if best is None or d < best:
                                best = d
            if best is not None and best <= cell * r:
                break
            r += 1
            if r > 64:
                break
        worst = max(worst, best if best is not None else math.inf)
    return worst


def main():
    a, b = verts(sys.argv[1]), verts(sys.argv[2])
    if not a or not b:
        print("no vertices in %s" % (sys.argv[1] if not a else sys.argv[2]))
        return 1
    lo = [min(p[i] for p in a) for i in range(3)]
    hi = [max(p[i] for p in a) for i in range(3)]
    diag = math.dist(lo, hi) or 1.0
    cell = diag / 200.0
    h = max(directed(a, b, cell), directed(b, a, cell))
    rel = h / diag
    print("hausdorff=%.6g diag=%.6g rel=%.3g a=%d b=%d" % (h, diag, rel, len(a), len(b)))
    if len(sys.argv) > 3 and not rel <= float(sys.argv[3]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
