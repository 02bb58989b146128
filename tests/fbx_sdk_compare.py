#!/usr/bin/env python3
"""Compares rigkit's evaluation of an FBX file with the FBX SDK's (an FBX2glTF
GLB of the same file, read back by rigkit's glTF reader) at given times:
world positions of every node both name, and world positions of every
vertex of every mesh (rigkit convert ... .obj --time T on both).

    fbx_sdk_compare.py RIGKIT FBX GLB WORKDIR [--tol 1e-6] [--vertices-only|--nodes-only]
                       [--skip-nodes PREFIX]... [--extrapolation]

Vertex correspondence: FBX2glTF splits vertices per corner, so each GLB
vertex is mapped to the nearest rigkit vertex of the same object at the
first time (that distance is checked too) and compared with it at every
time. Tolerance: tol * scene size (the diagonal of the bounding box of
rigkit's node and vertex positions at the first time). Prints one line;
exit 0 when within tolerance, 1 otherwise, 2 on a usage/tool error."""
import json
import math
import os
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise RuntimeError('%s failed: %s' % (' '.join(cmd[:3]), r.stderr.strip()[:400]))
    return r.stdout


def read_obj(path):
    objs, cur = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith('o '):
                cur = line[2:].strip()
                objs.setdefault(cur, [])
            elif line.startswith('v '):
                objs.setdefault(cur, []).append([float(x) for x in line.split()[1:4]])
    return objs


def dist(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


def main():
    args = sys.argv[1:]
    tol, mode = 1e-6, 'all'
    if '--tol' in args:
        i = args.index('--tol')
        tol = float(args[i + 1])
        del args[i:i + 2]
    if '--vertices-only' in args:
        args.remove('--vertices-only')
        mode = 'vertices'
    if '--nodes-only' in args:
        args.remove('--nodes-only')
        mode = 'nodes'
    skip = []
    while '--skip-nodes' in args:
        i = args.index('--skip-nodes')
        skip.append(args[i + 1])
        del args[i:i + 2]
    extra = '--extrapolation' in args
    if extra:
        args.remove('--extrapolation')
    rigkit, fbx, glb, work = args[:4]
    if extra:
        return extrapolation(rigkit, fbx, glb, tol)
    name = os.path.splitext(os.path.basename(fbx))[0]
    info = json.loads(run([rigkit, 'info', '--json', '--no-tree', fbx]))
    fps = 30.0
    clips = [c for c in info['clips'] if c['tracks'] > 0]
    if clips:
        c = clips[0]
        n = int(round((c['time_end'] - c['time_begin']) * fps))
        times = [c['time_begin'] + k / fps for k in range(n + 1)]
        clip = ['--clip', c['name']]
    else:
        times, clip = [0.0], []
    targs = []
    for t in times:
        targs += ['--time', '%.9f' % t]
    ours = json.loads(run([rigkit, 'pose', fbx, '--json', '--unit-meters', '1'] + clip + targs))['samples']
    sdk = json.loads(run([rigkit, 'pose', glb, '--json'] + targs))['samples']
    # vertices per time
    ov, sv = [], []
    for k, t in enumerate(times):
        po = os.path.join(work, '%s.ours.%d.obj' % (name, k))
        ps = os.path.join(work, '%s.sdk.%d.obj' % (name, k))
        run([rigkit, 'convert', fbx, po, '--force', '--unit-meters', '1', '--time', '%.9f' % t] + clip)
        run([rigkit, 'convert', glb, ps, '--force', '--time', '%.9f' % t])
        ov.append(read_obj(po))
        sv.append(read_obj(ps))
    pts = [n['position'] for n in ours[0]['nodes'].values()]
    for vs in ov[0].values():
        pts += vs
    lo = [min(p[i] for p in pts) for i in range(3)]
    hi = [max(p[i] for p in pts) for i in range(3)]
    size = math.sqrt(sum((h - l) ** 2 for h, l in zip(hi, lo))) or 1.0
    limit = tol * size
    worst, where, nodes_cmp, verts_cmp = 0.0, '', 0, 0
    if mode != 'vertices':
        for a, b in zip(ours, sdk):
            for jn, pa in a['nodes'].items():
                pb = b['nodes'].get(jn)
                if pb is None or any(jn.startswith(x) for x in skip):
                    continue
                d = dist(pa['position'], pb['position'])
                nodes_cmp += 1
                if d > worst:
                    worst, where = d, 'node %s at t=%.4f' % (jn, a['time'])
    if mode != 'nodes':
        for obj, svs in sv[0].items():
            ovs = ov[0].get(obj)
            if not ovs:
                print('FAIL %s: the SDK has mesh %s, rigkit does not' % (name, obj))
                return 1
            mapping = []
            for p in svs:
                best = min(range(len(ovs)), key=lambda i: dist(ovs[i], p))
                mapping.append(best)
            for k in range(len(times)):
                a, b = ov[k].get(obj, []), sv[k].get(obj, [])
                if len(a) != len(ovs) or len(b) != len(svs):
                    print('FAIL %s: vertex counts of %s change over time' % (name, obj))
                    return 1
                for j, p in enumerate(b):
                    d = dist(a[mapping[j]], p)
                    verts_cmp += 1
                    if d > worst:
                        worst, where = d, 'vertex %d of %s at t=%.4f' % (mapping[j], obj, times[k])
        for obj in ov[0]:
            if obj not in sv[0]:
                print('FAIL %s: rigkit has mesh %s, the SDK does not' % (name, obj))
                return 1
    if nodes_cmp + verts_cmp == 0:
        print('FAIL %s: nothing compared' % name)
        return 1
    ok = worst <= limit
    print('%s %s: %d frames, %d node and %d vertex samples, size %.4g m, worst %.3g m (%.3g of size)%s'
          % ('ok' if ok else 'FAIL', name, len(times), nodes_cmp, verts_cmp, size, worst, worst / size,
             ' at ' + where if where else ''))
    return 0 if ok else 1


def extrapolation(rigkit, fbx, glb, tol):
    """tests/fixtures/fbx/extrapolation.fbx: FBX2glTF bakes only the keyed range
    (0.5 .. 1.5 s, rebased to start at 0), so the SDK gives the curve inside
    it; outside, the expected value follows the extrapolation rule by hand:
    C hold, R repeat, M mirror, K keep the end slope (10 /s at both ends:
    the first segment is linear 0 -> 4 in 0.4 s, the last key's left slope
    is 10), A repeat with the end-to-end offset added per cycle."""
    name = 'extrapolation'
    a, b, period = 0.5, 1.5, 1.0
    times = [k / 30.0 for k in range(91)]
    inner = [a + k / 30.0 for k in range(31)]
    targs = []
    for t in times:
        targs += ['--time', '%.9f' % t]
    ours = json.loads(run([rigkit, 'pose', fbx, '--json', '--unit-meters', '1'] + targs))['samples']
    sargs = []
    for t in inner:
        sargs += ['--time', '%.9f' % (t - a)]
    sdk = json.loads(run([rigkit, 'pose', glb, '--json'] + sargs))['samples']
    worst, where, count = 0.0, '', 0
    for mode in 'CRMKA':
        node = 'Extra' + mode
        curve = [s['nodes'][node]['position'][0] for s in sdk]

        def at(t):
            k = int(round((t - a) * 30.0))
            return curve[k]
        va, vb = curve[0], curve[-1]
        for s in ours:
            t = s['time']
            if a <= t <= b:
                want = at(t)
            elif mode == 'C':
                want = va if t < a else vb
            elif mode == 'K':
                want = va + (t - a) * 0.10 if t < a else vb + (t - b) * 0.10
            else:
                u = (t - a) / period
                cyc = math.floor(u + 1e-9)
                frac = t - a - cyc * period
                if abs(frac - period) < 1e-9:
                    frac, cyc = 0.0, cyc + 1
                if mode == 'R':
                    want = at(a + frac)
                    # an exact cycle boundary of a curve that does not end
                    # where it starts: either end value is accepted
                    if frac == 0.0 and abs(s['nodes'][node]['position'][0] - at(b)) < 1e-6:
                        want = at(b)
                elif mode == 'M':
                    want = at(a + frac) if cyc % 2 == 0 else at(b - frac)
                else:
                    want = at(a + frac) + cyc * (vb - va)
            d = abs(s['nodes'][node]['position'][0] - want)
            count += 1
            if d > worst:
                worst, where = d, 'node %s at t=%.4f' % (node, t)
    size = 0.15
    ok = worst <= tol * size
    print('%s %s: 91 frames, %d node samples against the SDK inside the keys and the rule outside, worst %.3g m '
          '(%.3g of size %.2f m)%s' % ('ok' if ok else 'FAIL', name, count, worst, worst / size, size,
                                      ' at ' + where if where else ''))
    return 0 if ok else 1


if __name__ == '__main__':
    try:
        sys.exit(main())
    except RuntimeError as e:
        print('FAIL %s' % e)
        sys.exit(2)
