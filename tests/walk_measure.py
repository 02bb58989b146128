#!/usr/bin/env python3
"""tests/walk_measure.py POSE.json HUMANOID.json [--check walk|idle] [--name N]

Gait measures of one clip from evaluated joint world positions only:
POSE.json is `rigkit pose FILE --clip C --samples 31 --joints --json`,
HUMANOID.json is `rigkit humanoid FILE --json` (which node is hips, neck,
leftUpperLeg, ...). Nothing here knows how a clip was made, so the same
numbers come out for a captured Mixamo walk and for rigkit's procedural
sample (tests/test_demo_walk.sh; the reference numbers: docs/render.md
"The sample walk").

Measures (metres and degrees; up = +Y, the axis every glTF file uses):
  trunk_max_deg, trunk_mean_deg  angle between hips->neck and up
  hips_bob_cm                    peak-to-peak height of the hips
  knee_planted_median_deg        knee flexion (180 minus the hip-knee-ankle
                                 angle; 0 = straight) over the samples where
                                 that foot is planted (its ankle is the lower
                                 of the two), both legs together
  knee_median_deg                the same over every sample
  slide_max_mm                   how far a planted foot moves per 1/30 s
                                 between two samples where it is planted:
                                 the smaller horizontal move of its ankle and
                                 its toe joint (a foot rolling over its heel
                                 or its ball keeps one of them still). An
                                 in-place clip (hips travel < 5 cm per cycle)
                                 walks on a treadmill: the median velocity of
                                 the planted feet is taken off first.
  arm_leg_corr_left/right        Pearson correlation, over the samples, of
                                 the hand's and the same-side ankle's forward
                                 offset from the hips (forward = left x up,
                                 left = right upper leg -> left upper leg):
                                 negative = the arm swings against the leg
  arm_swing_cm                   smaller peak-to-peak forward travel of a hand
  foot_travel_max_mm             (idle) largest distance an ankle moves from
                                 its first position

--check walk|idle asserts the issue-17 limits and exits 1 naming each one
that fails; without it the measures are printed as one JSON object.
"""
import json
import math
import sys


def sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def length(a):
    return math.sqrt(dot(a, a))


def angle_deg(a, b):
    c = dot(a, b) / (length(a) * length(b))
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def median(v):
    v = sorted(v)
    n = len(v)
    if n == 0:
        return float('nan')
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((x[i] - mx) * (y[i] - my) for i in range(n))
    sxx = sum((v - mx) ** 2 for v in x)
    syy = sum((v - my) ** 2 for v in y)
    if sxx <= 0.0 or syy <= 0.0:
        return 0.0
    return sxy / math.sqrt(sxx * syy)


def horizontal(v):
    return [v[0], 0.0, v[2]]


UP = [0.0, 1.0, 0.0]
FRAME = 1.0 / 30.0


def measure(pose, bones):
    samples = pose['samples']
    n = len(samples)
    if n < 3:
        raise SystemExit('walk_measure: need at least 3 samples, got %d' % n)
    for b in ('hips', 'neck', 'leftUpperLeg', 'rightUpperLeg', 'leftLowerLeg', 'rightLowerLeg', 'leftFoot',
              'rightFoot', 'leftHand', 'rightHand'):
        if b not in bones:
            raise SystemExit('walk_measure: the humanoid has no %s' % b)

    def p(i, bone):
        return samples[i]['nodes'][bones[bone]]['position']

    dt = (samples[-1]['time'] - samples[0]['time']) / (n - 1)
    m = {'samples': n, 'duration_s': samples[-1]['time'] - samples[0]['time']}
    trunk = [angle_deg(sub(p(i, 'neck'), p(i, 'hips')), UP) for i in range(n)]
    m['trunk_max_deg'] = max(trunk)
    m['trunk_mean_deg'] = sum(trunk) / n
    hy = [p(i, 'hips')[1] for i in range(n)]
    m['hips_bob_cm'] = 100.0 * (max(hy) - min(hy))
    travel = length(horizontal(sub(p(n - 1, 'hips'), p(0, 'hips'))))
    m['hips_travel_m'] = travel
    in_place = travel < 0.05

    knee, knee_planted, planted = [], [], {}
    for side, other in (('left', 'right'), ('right', 'left')):
        planted[side] = [p(i, side + 'Foot')[1] <= p(i, other + 'Foot')[1] for i in range(n)]
        for i in range(n):
            k = angle_deg(sub(p(i, side + 'LowerLeg'), p(i, side + 'UpperLeg')),
                          sub(p(i, side + 'Foot'), p(i, side + 'LowerLeg')))
            knee.append(k)
            if planted[side][i]:
                knee_planted.append(k)
    m['knee_median_deg'] = median(knee)
    m['knee_planted_median_deg'] = median(knee_planted)

    # Treadmill velocity of an in-place clip: median planted ankle velocity.
    belt = [0.0, 0.0, 0.0]
    if in_place:
        vx, vz = [], []
        for side in ('left', 'right'):
            for i in range(n - 1):
                if planted[side][i] and planted[side][i + 1]:
                    d = sub(p(i + 1, side + 'Foot'), p(i, side + 'Foot'))
                    vx.append(d[0] / dt)
                    vz.append(d[2] / dt)
        if vx:
            belt = [median(vx), 0.0, median(vz)]
    m['belt_speed_m_s'] = length(belt)
    slide = []
    for side in ('left', 'right'):
        toe = side + 'Toes' if side + 'Toes' in bones else side + 'Foot'
        for i in range(n - 1):
            if not (planted[side][i] and planted[side][i + 1]):
                continue
            moves = []
            for joint in (side + 'Foot', toe):
                d = horizontal(sub(p(i + 1, joint), p(i, joint)))
                d = [d[0] - belt[0] * dt, 0.0, d[2] - belt[2] * dt]
                moves.append(length(d) * FRAME / dt)
            slide.append(min(moves))
    m['slide_max_mm'] = 1000.0 * max(slide) if slide else 0.0

    swing = []
    for side in ('left', 'right'):
        hand, ankle = [], []
        for i in range(n):
            left = sub(p(i, 'leftUpperLeg'), p(i, 'rightUpperLeg'))
            fwd = horizontal(cross(left, UP))
            fl = length(fwd)
            fwd = [c / fl for c in fwd]
            hand.append(dot(sub(p(i, side + 'Hand'), p(i, 'hips')), fwd))
            ankle.append(dot(sub(p(i, side + 'Foot'), p(i, 'hips')), fwd))
        m['arm_leg_corr_' + side] = pearson(hand, ankle)
        swing.append(100.0 * (max(hand) - min(hand)))
    m['arm_swing_cm'] = min(swing)
    m['foot_travel_max_mm'] = 1000.0 * max(length(sub(p(i, s + 'Foot'), p(0, s + 'Foot')))
                                           for i in range(n) for s in ('left', 'right'))
    return m


# Issue 17's limits: (measure, lowest, highest); None = unbounded.
LIMITS = {
    'walk': [('trunk_max_deg', None, 8.0), ('knee_planted_median_deg', None, 30.0), ('hips_bob_cm', 2.0, 5.0),
             ('arm_leg_corr_left', None, -0.5), ('arm_leg_corr_right', None, -0.5), ('arm_swing_cm', 8.0, None),
             ('slide_max_mm', None, 2.0)],
    'idle': [('trunk_max_deg', None, 8.0), ('knee_median_deg', None, 15.0), ('hips_bob_cm', None, 2.0),
             ('foot_travel_max_mm', None, 2.0)],
}


def main(argv):
    args = argv[1:]
    check, name = None, None
    while len(args) > 2:
        if args[-2] == '--check':
            check = args[-1]
        elif args[-2] == '--name':
            name = args[-1]
        else:
            raise SystemExit(__doc__)
        args = args[:-2]
    if len(args) != 2 or (check and check not in LIMITS):
        raise SystemExit(__doc__)
    with open(args[0]) as f:
        pose = json.load(f)
    with open(args[1]) as f:
        bones = json.load(f)['bones']
    m = measure(pose, bones)
    name = name or '%s %s' % (pose.get('file'), pose.get('clip'))
    if not check:
        print(json.dumps(m, indent=2, sort_keys=True))
        return 0
    bad = 0
    for key, lo, hi in LIMITS[check]:
        v = m[key]
        ok = not (v != v) and (lo is None or v >= lo) and (hi is None or v <= hi)
        rng = '%s..%s' % ('' if lo is None else lo, '' if hi is None else hi)
        print('%s %s: %s = %.3f (limit %s)' % ('ok  ' if ok else 'FAIL', name, key, v, rng))
        bad += 0 if ok else 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
