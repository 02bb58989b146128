#!/usr/bin/env python3
"""Contact bench: the CONTACT MEASURES (rigkit/retarget.h) of `rigkit
retarget` on the shared Mixamo motions and the built-in sample walk onto the
shared avatars, VRM avatars and the stress avatars of
bench/make_contact_avatars.py, with the contact solve on and off.

    python3 bench/contact_bench.py [--rigkit build/rigkit] [--out build/contact_bench] [--markdown]

Per pair it runs `rigkit retarget SRC TGT OUT --clip C --drop-target-clips
--json` (solve on, default) and `... --contacts off`, then `rigkit compare
SRC OUT --clip-a C --json`, and prints floor penetration at the source's
contacts (% of hips height), planted-foot slide (hips heights / s),
contact agreement, the worst direction error of the bones the solve did not
move (degrees; the retarget report's solved_bones are left out), and for
--hand-contacts on the hands clip the hand contact distance error. Needs
../shared/assets for the Mixamo files (skipped when absent). Exit 1 when an
acceptance bound (docs/retarget.md, section 6) fails on some pair.
"""
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(ROOT, '..', 'shared', 'assets')

BOUNDS = {'pen': 0.5, 'slide': 0.02, 'agree': 98.0, 'dir': 1e-4, 'hand': 1.0}


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError('%s: %s' % (' '.join(cmd), r.stderr.strip() or r.stdout.strip()))
    return r.stdout, r.stderr


def measure(rk, src, clip, tgt, out, extra):
    rj, rerr = run([rk, 'retarget', src, tgt, out, '--clip', clip, '--drop-target-clips', '--json'] + extra)
    rep = json.loads(rj)['clips'][0]
    cj, _ = run([rk, 'compare', src, out, '--clip-a', clip, '--json'])
    cmp_ = json.loads(cj)
    solved = set(rep['contacts'].get('solved_bones', []))
    kept = [b['max_direction_deg'] for b in cmp_['bones'] if b['bone'] not in solved]
    c = cmp_['contacts']
    return {
        'pen': c['floor_penetration_hips'] * 100.0,
        'pen_any': c['b_floor_penetration_any_hips'] * 100.0,
        'src_pen_any': c['a_floor_penetration_any_hips'] * 100.0,
        'slide': c['foot_slide_hips_per_s'],
        'slide_mps': c['foot_slide_m_per_s'],
        'src_slide': c['a_foot_slide_hips_per_s'],
        'agree': c['agreement'] * 100.0,
        'contacts': c['a_contact_frames'],
        'hand': c['hand_contact_error_hips'] * 100.0,
        'hand_frames': c['hand_contact_frames'],
        'dir': max(kept) if kept else 0.0,
        'unreached': rep['contacts'].get('unreached_goals', 0),
        'drop': rep['contacts'].get('max_hips_drop', 0.0) * 100.0,
        'warnings': len([l for l in rerr.splitlines() if 'out of reach' in l]),
    }


def hands_on_floor(rk, src, src_rest, clip, tgt, out, extra, frames):
    """Wrists of the result against the source's, from `rigkit pose` world
    positions: deepest below the target's floor, largest difference of the
    height above the floor from the source's, fastest horizontal motion
    (hips heights, hips heights / s), over `frames` frames at 30 fps where
    the source's wrists are on its floor (the push-up clip: all); src_rest:
    the source's skeleton without the clip (its floor and hips height)."""
    rj, _ = run([rk, 'retarget', src, tgt, out, '--clip', clip, '--drop-target-clips', '--json'] + extra)
    rep = json.loads(rj)['clips'][0]['contacts']
    times = []
    for k in range(frames):
        times += ['--time', repr(k / 30.0)]

    def pose(f, t):
        return json.loads(run([rk, 'pose', f, '--json'] + t)[0])['samples']

    def key(n, s):
        return [x for x in n if x.split(':')[-1] == s][0]

    def floor_hh(n):
        fl = min(n[key(n, j)]['position'][1] for j in ('LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase'))
        return fl, n[key(n, 'Hips')]['position'][1] - fl
    fs, hs = floor_hh(pose(src_rest, [])[0]['nodes'])
    ft, ht = floor_hh(pose(tgt, [])[0]['nodes'])
    sa, sb = pose(src, times), pose(out, times)
    below = height = slide = 0.0
    for side in ('LeftHand', 'RightHand'):
        prev = None
        for a, b in zip(sa, sb):
            pa, pb = a['nodes'][key(a['nodes'], side)]['position'], b['nodes'][key(b['nodes'], side)]['position']
            ea, eb = (pa[1] - fs) / hs, (pb[1] - ft) / ht
            below, height = max(below, -eb), max(height, abs(eb - ea))
            if prev:
                slide = max(slide, math.dist((pb[0], pb[2]), (prev[0][0], prev[0][2])) / ht / (b['time'] - prev[1]))
            prev = (pb, b['time'])
    return {'below': below * 100.0, 'height': height * 100.0, 'slide': slide, 'unreached': rep.get('unreached_goals', 0)}


def main(argv):
    rk = os.path.join(ROOT, 'build', 'rigkit')
    out = os.path.join(ROOT, 'build', 'contact_bench')
    md = '--markdown' in argv
    for i, a in enumerate(argv):
        if a == '--rigkit':
            rk = argv[i + 1]
        if a == '--out':
            out = argv[i + 1]
    os.makedirs(out, exist_ok=True)
    run([sys.executable, os.path.join(HERE, 'make_contact_avatars.py'), out])
    run([rk, 'sample', os.path.join(out, 'sample')])
    sources = [(os.path.join(out, 'sample', 'source.glb'), 'Walk'), (os.path.join(out, 'sample', 'source.glb'), 'Idle')]
    targets = [os.path.join(out, 'sample', 'avatar.glb')]
    vrm = os.path.join(ROOT, 'tests', 'fixtures', 'vroid_vrm1.vrm')
    targets.append(vrm)
    if os.path.isdir(SHARED):
        for clip in ('walk', 'run', 'idle', 'sneak_pose', 'sad_pose'):
            sources.append((os.path.join(SHARED, 'Xbot.glb'), clip))
        for clip in ('Walk', 'Run', 'Idle'):
            sources.append((os.path.join(SHARED, 'Soldier.glb'), clip))
        sources.append((os.path.join(SHARED, 'ybot@kick.fbx'), 'mixamo.com'))
        targets += [os.path.join(SHARED, n) for n in ('readyplayer.me.glb', 'Xbot.glb', 'Soldier.glb')]
        rpm_vrm = os.path.join(out, 'rpm_vrm1.vrm')
        run([sys.executable, os.path.join(ROOT, 'tests', 'fixtures', 'make_vrm.py'), 'add',
             os.path.join(SHARED, 'readyplayer.me.glb'), rpm_vrm, '--vrm', '1'])
        targets.append(rpm_vrm)
    else:
        print('# ../shared/assets absent: Mixamo sources and shared avatars skipped')
    stress = ['base', 'long_legs', 'short_legs', 'big_feet', 'small_feet', 'a_pose', 'bulky', 'short_arms', 't_pose_low']
    targets += [os.path.join(out, s + '.glb') for s in stress + ['mesh_feet']]   # mesh_feet: the sole from its mesh
    targets.append(os.path.join(ROOT, 'tests', 'fixtures', 'twist_rig.glb'))   # Unreal-style twist joints

    rows, fails = [], []
    tmp = os.path.join(out, 'out.glb')
    for src, clip in sources:
        for tgt in targets:
            if os.path.abspath(src) == os.path.abspath(tgt):
                continue
            try:
                on = measure(rk, src, clip, tgt, tmp, [])
                off = measure(rk, src, clip, tgt, tmp, ['--contacts', 'off'])
            except RuntimeError as e:
                print('# skipped: %s' % e)
                continue
            name = '%s %s -> %s' % (os.path.basename(src), clip, os.path.basename(tgt))
            rows.append((name, on, off))
            for key, bad in (('pen', on['pen'] > BOUNDS['pen'] and on['pen'] > on['src_pen_any'] + 1e-9),
                             ('slide', on['slide'] > BOUNDS['slide']), ('agree', on['agree'] < BOUNDS['agree']),
                             ('dir', on['dir'] > BOUNDS['dir'])):
                if bad:
                    fails.append('%s: %s' % (name, key))
    # the hands clip, --hand-contacts
    hand_rows = []
    hsrc = os.path.join(out, 'hands.glb')
    for tgt in [os.path.join(out, s + '.glb') for s in stress if s != 'base'] + targets[:2]:
        on = measure(rk, hsrc, 'hands', tgt, tmp, ['--hand-contacts'])
        off = measure(rk, hsrc, 'hands', tgt, tmp, [])
        name = 'hands.glb hands -> %s' % os.path.basename(tgt)
        hand_rows.append((name, on, off))
        if on['hand'] > BOUNDS['hand']:
            fails.append('%s: hand' % name)

    # hands on the floor: the push-up clip, solve on (default) and off
    floor_rows = []
    psrc = os.path.join(out, 'pushup.glb')
    for tgt in [os.path.join(out, s + '.glb') for s in stress if s != 'base'] + targets[:1]:   # Mixamo joint names
        try:
            on = hands_on_floor(rk, psrc, os.path.join(out, 'base.glb'), 'pushup', tgt, tmp, [], 91)
            off = hands_on_floor(rk, psrc, os.path.join(out, 'base.glb'), 'pushup', tgt, tmp, ['--contacts', 'off'], 91)
        except (RuntimeError, IndexError, KeyError) as e:
            print('# skipped: %s' % e)
            continue
        floor_rows.append(('pushup.glb pushup -> %s' % os.path.basename(tgt), on, off))

    if md:
        print('| pair | contact frames | penetration % (off) | slide hh/s (off) | source slide | agreement % (off) | '
              'other bones max dir deg | hips drop % | unreached |')
        print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
        for name, on, off in rows:
            print('| %s | %d | %.2f (%.2f) | %.4f (%.3f) | %.3f | %.1f (%.1f) | %.1e | %.1f | %d |' % (
                name, on['contacts'], on['pen'], off['pen'], on['slide'], off['slide'], on['src_slide'], on['agree'],
                off['agree'], on['dir'], on['drop'], on['unreached']))
        print()
        print('| --hand-contacts | hand contact frames | hand error % (without) | other bones max dir deg | unreached |')
        print('|---|---:|---:|---:|---:|')
        for name, on, off in hand_rows:
            print('| %s | %d | %.2f (%.2f) | %.1e | %d |' % (name, on['hand_frames'], on['hand'], off['hand'], on['dir'],
                                                          on['unreached']))
        print()
        print('| hands on the floor | wrist below floor % (off) | wrist off source height % (off) | wrist slide hh/s (off) '
              '| unreached |')
        print('|---|---:|---:|---:|---:|')
        for name, on, off in floor_rows:
            print('| %s | %.2f (%.2f) | %.2f (%.2f) | %.4f (%.3f) | %d |' % (
                name, on['below'], off['below'], on['height'], off['height'], on['slide'], off['slide'], on['unreached']))
    else:
        for name, on, off in floor_rows:
            print('%-58s wrist below %.2f%% (off %.2f)  off height %.2f%% (off %.2f)  slide %.4f (off %.3f)  unreached %d' % (
                name, on['below'], off['below'], on['height'], off['height'], on['slide'], off['slide'], on['unreached']))
        for name, on, off in rows + hand_rows:
            print('%-58s pen %5.2f%% (off %5.2f)  slide %.4f (off %.3f, src %.3f)  agree %5.1f%% (off %5.1f)  '
                  'dir %.1e  hand %.2f%% (off %.2f)  drop %.1f%%  unreached %d' % (
                      name, on['pen'], off['pen'], on['slide'], off['slide'], on['src_slide'], on['agree'], off['agree'],
                      on['dir'], on['hand'], off['hand'], on['drop'], on['unreached']))
    worst = {k: 0.0 for k in ('pen', 'slide', 'dir')}
    for _, on, _ in rows:
        for k in worst:
            worst[k] = max(worst[k], on[k])
    print('# %d pairs: worst penetration %.3f%%, slide %.4f hh/s, agreement %.1f%%, other-bone direction %.1e deg; '
          '%d hand pairs: worst hand error %.3f%%' % (
              len(rows), worst['pen'], worst['slide'], min([on['agree'] for _, on, _ in rows] or [100.0]), worst['dir'],
              len(hand_rows), max([on['hand'] for _, on, _ in hand_rows] or [0.0])))
    for f in fails:
        print('# FAIL %s' % f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
