#!/usr/bin/env python3
"""Runs `rigkit humanoid --json` on files and records what it says.

    python3 scripts/humanoid_survey.py RIGKIT OUT.json FILE_OR_DIR...
    python3 scripts/humanoid_survey.py --diff BEFORE.json AFTER.json

The first form writes {file: {valid, mapped, bones, rest, hips_height}} for
every .fbx/.glb/.gltf/.vrm/.bvh file given or found below a directory (how
docs/humanoid.md's before/after record of detection and rest choice was
made); the second prints every file whose map or rest choice changed and
exits 1 when one did.
"""
import json
import os
import subprocess
import sys

EXT = ('.fbx', '.glb', '.gltf', '.vrm', '.bvh')


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, names in sorted(os.walk(p)):
                for n in sorted(names):
                    if n.lower().endswith(EXT):
                        yield os.path.join(root, n)
        else:
            yield p


def survey(rigkit, out, paths):
    result = {}
    for f in files(paths):
        r = subprocess.run([rigkit, 'humanoid', f, '--json'], capture_output=True, text=True)
        try:
            d = json.loads(r.stdout)
        except ValueError:
            d = {'error': (r.stderr.strip().splitlines() or ['no output'])[-1]}
        rest = d.get('rest', {})
        result[f] = {'valid': d.get('valid', False), 'mapped': d.get('mapped', 0), 'bones': d.get('bones', {}),
                     'rest': rest.get('used'), 'rest_max_angle_deg': rest.get('max_angle_deg'),
                     'hips_height': d.get('hips_height'), 'error': d.get('error')}
    json.dump(result, open(out, 'w'), indent=1, sort_keys=True)
    valid = sum(1 for v in result.values() if v['valid'])
    bind = sum(1 for v in result.values() if v['rest'] == 'bind')
    print('%d files, %d valid humanoids, %d taken in their bind pose' % (len(result), valid, bind))


def diff(before, after):
    a, b = json.load(open(before)), json.load(open(after))
    changed = 0
    for f in sorted(set(a) | set(b)):
        x, y = a.get(f), b.get(f)
        if x is None or y is None:
            print('%s: only in %s' % (f, before if y is None else after))
            changed += 1
            continue
        rest_changed = x['rest'] is not None and y['rest'] is not None and x['rest'] != y['rest']
        if x['bones'] != y['bones'] or x['valid'] != y['valid'] or rest_changed:
            changed += 1
            print('%s: valid %s -> %s, rest %s -> %s' % (f, x['valid'], y['valid'], x['rest'], y['rest']))
            for bone in sorted(set(x['bones']) | set(y['bones'])):
                if x['bones'].get(bone) != y['bones'].get(bone):
                    print('    %s: %s -> %s' % (bone, x['bones'].get(bone), y['bones'].get(bone)))
    print('%d of %d files changed' % (changed, len(set(a) | set(b))))
    return 1 if changed else 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--diff':
        sys.exit(diff(sys.argv[2], sys.argv[3]))
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    survey(sys.argv[1], sys.argv[2], sys.argv[3:])
