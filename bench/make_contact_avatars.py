#!/usr/bin/env python3
"""Write the stress avatars and the hand-contact clip of the contact bench.

    python3 bench/make_contact_avatars.py OUTDIR

Standard library only. Every file is a glTF 2.0 GLB holding a skeleton (no
mesh): nodes with plain Mixamo / Avaturn joint names (Hips, Spine, Spine1,
Spine2, Neck, Head, HeadTop_End, LeftShoulder, LeftArm, LeftForeArm,
LeftHand, LeftHandIndex1..3, LeftHandMiddle1..3, LeftUpLeg, LeftLeg,
LeftFoot, LeftToeBase, LeftToe_End and the right side), metres, Y up,
facing +Z, +X the character's left, identity rest rotations (joint frames
aligned with the world, every bone along its rest direction), standing on
y = 0 (the toe tip 1 cm above it, the ankle `ankle` above it; thigh and
shin half the leg each).

Avatars (the proportions the contact solve must cope with):
  base.glb        leg 0.85 m (hip joint to ankle), ankle 0.08, foot 0.13 + toe 0.07, T-pose
  long_legs.glb   leg 1.10, the same feet
  short_legs.glb  leg 0.50, small feet (a chibi)
  big_feet.glb    ankle 0.13, foot 0.22 + toe 0.12
  small_feet.glb  ankle 0.05, foot 0.08 + toe 0.04
  a_pose.glb      arms 45 degrees down, arms 20 % longer
  bulky.glb       hips and shoulders twice as wide
  short_arms.glb  arms 10 % shorter (the hands reach the hips only with
                  the shoulders turned down)
  tiny_arms.glb   arms 30 % shorter (the hands cannot reach the hips)
  mesh_feet.glb   the base skeleton with a skinned mesh: one box per foot
                  from 6 cm behind the ankle to 3 cm beyond the toe tip,
                  its bottom on y = 0 (1 cm below the lowest joints), the
                  part behind the ball weighted to the foot, the rest to the
                  toes, and a body box weighted to the hips; marker nodes
                  LeftHeelMark / LeftToeMark (and Right) at the box's bottom
                  back corner (child of the foot) and bottom front corner
                  (child of the toes) to read the mesh sole's corners back
  t_pose_low.glb  ankle 0.10, toes pointing 20 degrees down at rest (the
                  ball raised so the tip is 1 cm up)

Source clip:
  hands.glb       the base skeleton with clip "hands" (4 s, 30 fps): from
                  the T-pose the hands come together in front of the chest
                  (wrists 6 cm apart) at 1.0 s, clap twice (apart to 20 cm
                  and back) until 2.0 s, then go onto the hips (wrist 5 cm
                  outside and 3 cm below the hip joint) at 3.0 s and stay
                  until 4.0 s. The arms are solved by two-bone IK here
                  (elbows down and back); the legs stand still.
  pushup.glb      the base skeleton with clip "pushup" (3 s, 30 fps): a
                  plank, the body rigid from the toe tips (fixed at 1 cm
                  above the floor) to the head, pitched 76.5 degrees forward
                  at 0 s and down to 84 degrees and back twice (cosine); the
                  wrists stay on the floor at 1.5 cm (0.2 m either side of
                  the middle, under the shoulders of the top position), the
                  elbows bending out and back (two-bone IK).
"""
import json
import math
import os
import struct
import sys

AVATARS = {
    'base': {},
    'long_legs': {'leg': 1.10},
    'short_legs': {'leg': 0.50, 'ankle': 0.06, 'foot': 0.10, 'toe': 0.05},
    'big_feet': {'ankle': 0.13, 'foot': 0.22, 'toe': 0.12},
    'small_feet': {'ankle': 0.05, 'foot': 0.08, 'toe': 0.04},
    'a_pose': {'arm_down': 45.0, 'upper_arm': 0.336, 'forearm': 0.312},
    'bulky': {'hip_w': 0.18, 'shoulder_w': 0.30},
    'short_arms': {'upper_arm': 0.252, 'forearm': 0.234},
    'tiny_arms': {'upper_arm': 0.196, 'forearm': 0.182},
    't_pose_low': {'ankle': 0.10, 'toe_down': 20.0},
}

BASE = {'leg': 0.85, 'ankle': 0.08, 'foot': 0.13, 'toe': 0.07, 'hip_w': 0.09,
        'shoulder_w': 0.15, 'upper_arm': 0.28, 'forearm': 0.26, 'arm_down': 0.0, 'toe_down': 0.0}


def skeleton(p):
    """[(name, parent index, translation)] in parent space (identity rotations)."""
    nodes = []

    def add(name, parent, t):
        nodes.append((name, parent, t))
        return len(nodes) - 1

    hips_y = p['ankle'] + p['leg'] + 0.05   # the hip joints 5 cm below the hips
    hips = add('Hips', -1, (0.0, hips_y, 0.0))
    spine = add('Spine', hips, (0.0, 0.10, 0.0))
    s1 = add('Spine1', spine, (0.0, 0.12, 0.0))
    s2 = add('Spine2', s1, (0.0, 0.13, 0.0))
    neck = add('Neck', s2, (0.0, 0.15, 0.0))
    head = add('Head', neck, (0.0, 0.10, 0.0))
    add('HeadTop_End', head, (0.0, 0.20, 0.0))
    down = math.radians(p['arm_down'])
    for side, sx in (('Left', 1.0), ('Right', -1.0)):
        sh = add(side + 'Shoulder', s2, (sx * 0.03, 0.10, 0.0))
        d = (sx * math.cos(down), -math.sin(down), 0.0)
        arm = add(side + 'Arm', sh, (sx * p['shoulder_w'], 0.0, 0.0))
        fore = add(side + 'ForeArm', arm, tuple(c * p['upper_arm'] for c in d))
        hand = add(side + 'Hand', fore, tuple(c * p['forearm'] for c in d))
        for finger, off in (('Index', 0.025), ('Middle', 0.0)):
            f1 = add(side + 'Hand' + finger + '1', hand, (d[0] * 0.09, d[1] * 0.09, off))
            f2 = add(side + 'Hand' + finger + '2', f1, (d[0] * 0.04, d[1] * 0.04, 0.0))
            add(side + 'Hand' + finger + '3', f2, (d[0] * 0.03, d[1] * 0.03, 0.0))
    td = math.radians(p['toe_down'])
    for side, sx in (('Left', 1.0), ('Right', -1.0)):
        up = add(side + 'UpLeg', hips, (sx * p['hip_w'], -0.05, 0.0))
        leg = add(side + 'Leg', up, (0.0, -0.5 * p['leg'], 0.0))
        foot = add(side + 'Foot', leg, (0.0, -0.5 * p['leg'], 0.0))
        # the toe tip 1 cm above the floor, the ball `toe` behind it, `foot` ahead of the ankle
        lift = math.sin(td) * p['toe']
        ball = add(side + 'ToeBase', foot, (0.0, -(p['ankle'] - 0.01 - lift), p['foot']))
        add(side + 'Toe_End', ball, (0.0, -lift, math.cos(td) * p['toe']))
    return nodes


def world_positions(nodes):
    out = []
    for name, parent, t in nodes:
        base = out[parent] if parent >= 0 else (0.0, 0.0, 0.0)
        out.append(tuple(base[i] + t[i] for i in range(3)))
    return out


# ---- quaternions (x, y, z, w) --------------------------------------------------

def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def qconj(q):
    return (-q[0], -q[1], -q[2], q[3])


def norm(v):
    n = math.sqrt(sum(c * c for c in v))
    return tuple(c / n for c in v)


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def add3(a, b):
    return tuple(x + y for x, y in zip(a, b))


def scale(a, s):
    return tuple(x * s for x in a)


def from_to(a, b):
    a, b = norm(a), norm(b)
    c = cross(a, b)
    w = 1.0 + dot(a, b)
    q = (c[0], c[1], c[2], w)
    n = math.sqrt(sum(x * x for x in q))
    return tuple(x / n for x in q)


def two_bone(s, a, b, goal, pole):
    """Elbow position for shoulder s, bone lengths a, b, wrist goal, bend towards pole."""
    d = sub(goal, s)
    dl = math.sqrt(dot(d, d))
    dl = min(dl, (a + b) * 0.9999)
    u = norm(d)
    x = (a * a - b * b + dl * dl) / (2 * dl)
    h = math.sqrt(max(a * a - x * x, 0.0))
    v = sub(pole, scale(u, dot(pole, u)))
    v = norm(v)
    return add3(s, add3(scale(u, x), scale(v, h))), add3(s, scale(u, dl))


def smooth(x):
    x = min(max(x, 0.0), 1.0)
    return x * x * (3 - 2 * x)


def hands_clip(nodes):
    """Rotation keys (node index -> [quat per frame]) of the hands clip."""
    pos = world_positions(nodes)
    idx = {n[0]: i for i, n in enumerate(nodes)}
    fps, dur = 30, 4.0
    frames = int(dur * fps) + 1
    keys = {}
    for side, sx in (('Left', 1.0), ('Right', -1.0)):
        arm, fore, hand = idx[side + 'Arm'], idx[side + 'ForeArm'], idx[side + 'Hand']
        s, e0, w0 = pos[arm], pos[fore], pos[hand]
        a = math.dist(s, e0)
        b = math.dist(e0, w0)
        chest_y = pos[idx['Spine2']][1]
        clap = (sx * 0.03, chest_y - 0.05, 0.33)
        apart = (sx * 0.10, chest_y - 0.05, 0.33)
        up = pos[idx[side + 'UpLeg']]
        on_hip = (up[0] + sx * 0.05, up[1] - 0.03, 0.02)
        rq, fq, hq = [], [], []
        for k in range(frames):
            t = k / fps
            if t <= 1.0:
                g = tuple(w0[i] + (clap[i] - w0[i]) * smooth(t) for i in range(3))
            elif t <= 2.0:
                f = 0.5 - 0.5 * math.cos(2 * math.pi * (t - 1.0) * 2)   # two claps
                g = tuple(clap[i] + (apart[i] - clap[i]) * f for i in range(3))
            elif t <= 3.0:
                g = tuple(clap[i] + (on_hip[i] - clap[i]) * smooth(t - 2.0) for i in range(3))
            else:
                g = on_hip
            pole = (sx * 0.3, -1.0, -0.6)
            e, wgoal = two_bone(s, a, b, g, pole)
            qa = from_to(sub(e0, s), sub(e, s))
            # the forearm's world rotation: the upper arm's, then swung onto the new forearm direction
            rest_fore = sub(w0, e0)
            cur = qrot(qa, rest_fore)
            qf = qmul(from_to(cur, sub(wgoal, e)), qa)
            rq.append(qa)                               # parents (shoulder) have identity rotation
            fq.append(qmul(qconj(qa), qf))
            hq.append(qconj(qf))                         # the hand keeps its rest world rotation
        keys[arm], keys[fore], keys[hand] = rq, fq, hq
    return keys, frames, fps


def qrot(q, v):
    p = qmul(qmul(q, (v[0], v[1], v[2], 0.0)), qconj(q))
    return p[:3]


# ---- GLB -------------------------------------------------------------------------

def glb(nodes, clip=None, mesh=None):
    gl_nodes = []
    children = {}
    for i, (name, parent, t) in enumerate(nodes):
        gl_nodes.append({'name': name, 'translation': [round(c, 9) for c in t]})
        if parent >= 0:
            children.setdefault(parent, []).append(i)
    for i, ch in children.items():
        gl_nodes[i]['children'] = ch
    doc = {'asset': {'version': '2.0', 'generator': 'rigkit bench/make_contact_avatars.py'},
           'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': gl_nodes}
    bin_ = b''
    if clip:
        keys, frames, fps = clip[:3]
        times = [k / fps for k in range(frames)]
        bin_ += struct.pack('<%df' % frames, *times)
        doc['bufferViews'] = [{'buffer': 0, 'byteOffset': 0, 'byteLength': 4 * frames}]
        doc['accessors'] = [{'bufferView': 0, 'componentType': 5126, 'count': frames, 'type': 'SCALAR',
                             'min': [0.0], 'max': [times[-1]]}]
        channels, samplers = [], []

        def channel(flat, typ, node, path):
            nonlocal bin_
            off = len(bin_)
            bin_ += struct.pack('<%df' % len(flat), *flat)
            doc['bufferViews'].append({'buffer': 0, 'byteOffset': off, 'byteLength': 4 * len(flat)})
            doc['accessors'].append({'bufferView': len(doc['bufferViews']) - 1, 'componentType': 5126,
                                     'count': frames, 'type': typ})
            samplers.append({'input': 0, 'output': len(doc['accessors']) - 1, 'interpolation': 'LINEAR'})
            channels.append({'sampler': len(samplers) - 1, 'target': {'node': node, 'path': path}})
        for node, qs in sorted(keys.items()):
            flat = []
            prev = None
            for q in qs:
                if prev and dot(prev, q) < 0:
                    q = tuple(-c for c in q)
                flat.extend(q)
                prev = q
            channel(flat, 'VEC4', node, 'rotation')
        for node, vs in sorted((clip[4] if len(clip) > 4 else {}).items()):
            channel([c for v in vs for c in v], 'VEC3', node, 'translation')
        doc['animations'] = [{'name': clip[3] if len(clip) > 3 else 'hands', 'channels': channels,
                              'samplers': samplers}]
    if mesh:
        bin_ = add_mesh(doc, gl_nodes, bin_, nodes, mesh)
    if bin_:
        doc['buffers'] = [{'byteLength': len(bin_)}]
    js = json.dumps(doc, separators=(',', ':')).encode()
    js += b' ' * ((4 - len(js) % 4) % 4)
    out = struct.pack('<4sII', b'glTF', 2, 12 + 8 + len(js) + (8 + len(bin_) if bin_ else 0))
    out += struct.pack('<I4s', len(js), b'JSON') + js
    if bin_:
        out += struct.pack('<I4s', len(bin_), b'BIN\x00') + bin_
    return out


def box(lo, hi):
    """8 corners and 12 triangles of an axis-aligned box."""
    v = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    t = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3]
    return v, t


def feet_mesh(nodes):
    """[(box corners lo, hi, joint node index)] of mesh_feet.glb (world, rest)."""
    pos = world_positions(nodes)
    idx = {n[0]: i for i, n in enumerate(nodes)}
    parts = []
    for side in ('Left', 'Right'):
        a, b, t = pos[idx[side + 'Foot']], pos[idx[side + 'ToeBase']], pos[idx[side + 'Toe_End']]
        parts.append(((a[0] - 0.04, 0.0, a[2] - 0.06), (a[0] + 0.04, a[1] + 0.02, b[2]), idx[side + 'Foot']))
        parts.append(((a[0] - 0.04, 0.0, b[2]), (a[0] + 0.04, b[1] + 0.02, t[2] + 0.03), idx[side + 'ToeBase']))
    h = pos[idx['Hips']]
    parts.append(((h[0] - 0.15, h[1] - 0.1, h[2] - 0.1), (h[0] + 0.15, h[1] + 0.3, h[2] + 0.1), idx['Hips']))
    return parts


def add_mesh(doc, gl_nodes, bin_, nodes, parts):
    """A skinned mesh node (rigid weights) of boxes [(lo, hi, joint)] in world space at rest."""
    pos = world_positions(nodes)
    joints = sorted({p[2] for p in parts})
    verts, tris, jw = [], [], []
    for lo, hi, j in parts:
        v, t = box(lo, hi)
        tris += [len(verts) + i for i in t]
        verts += v
        jw += [joints.index(j)] * len(v)
    doc.setdefault('bufferViews', [])
    doc.setdefault('accessors', [])

    def view(data, count, typ, ctype, target=None, minmax=None):
        nonlocal bin_
        bin_ += b'\0' * ((4 - len(bin_) % 4) % 4)
        doc['bufferViews'].append({'buffer': 0, 'byteOffset': len(bin_), 'byteLength': len(data)})
        if target:
            doc['bufferViews'][-1]['target'] = target
        bin_ += data
        acc = {'bufferView': len(doc['bufferViews']) - 1, 'componentType': ctype, 'count': count, 'type': typ}
        if minmax:
            acc['min'], acc['max'] = minmax
        doc['accessors'].append(acc)
        return len(doc['accessors']) - 1

    flat = [c for v in verts for c in v]
    mins = [min(v[i] for v in verts) for i in range(3)]
    maxs = [max(v[i] for v in verts) for i in range(3)]
    a_pos = view(struct.pack('<%df' % len(flat), *flat), len(verts), 'VEC3', 5126, 34962, (mins, maxs))
    a_j = view(struct.pack('<%dH' % (4 * len(jw)), *[c for j in jw for c in (j, 0, 0, 0)]), len(verts), 'VEC4', 5123,
               34962)
    a_w = view(struct.pack('<%df' % (4 * len(jw)), *[c for _ in jw for c in (1.0, 0.0, 0.0, 0.0)]), len(verts), 'VEC4',
               5126, 34962)
    a_i = view(struct.pack('<%dH' % len(tris), *tris), len(tris), 'SCALAR', 5123, 34963)
    ibm = []
    for j in joints:   # identity rest rotations: the inverse bind matrix is a translation
        p = pos[j]
        ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0], -p[1], -p[2], 1]
    a_ibm = view(struct.pack('<%df' % len(ibm), *ibm), len(joints), 'MAT4', 5126)
    doc['meshes'] = [{'name': 'body', 'primitives': [{'attributes': {'POSITION': a_pos, 'JOINTS_0': a_j,
                                                                     'WEIGHTS_0': a_w}, 'indices': a_i}]}]
    doc['skins'] = [{'joints': joints, 'inverseBindMatrices': a_ibm, 'skeleton': 0}]
    gl_nodes.append({'name': 'body', 'mesh': 0, 'skin': 0})
    doc['scenes'][0]['nodes'].append(len(gl_nodes) - 1)
    return bin_


def with_marks(nodes):
    """nodes plus the mesh_feet.glb marker nodes (appended: the toes' first child stays the toe tip)."""
    pos = world_positions(nodes)
    idx = {n[0]: i for i, n in enumerate(nodes)}
    out = list(nodes)
    for side in ('Left', 'Right'):
        a, b, t = pos[idx[side + 'Foot']], pos[idx[side + 'ToeBase']], pos[idx[side + 'Toe_End']]
        out.append((side + 'HeelMark', idx[side + 'Foot'], (0.0, -a[1], -0.06)))
        out.append((side + 'ToeMark', idx[side + 'ToeBase'], (0.0, -b[1], t[2] + 0.03 - b[2])))
    return out


def pushup_clip(nodes):
    """Rotation keys of the arms and hips, and the hips' translation keys, of the push-up clip."""
    pos = world_positions(nodes)
    idx = {n[0]: i for i, n in enumerate(nodes)}
    fps, dur = 30, 3.0
    frames = int(dur * fps) + 1
    hips = idx['Hips']
    h0 = pos[hips]
    tip = pos[idx['LeftToe_End']]
    d_tip = (0.0, tip[1] - h0[1], tip[2] - h0[2])

    def rx(a):
        return (math.sin(a / 2), 0.0, 0.0, math.cos(a / 2))

    def pitch(t):
        return math.radians(76.5 + (84.0 - 76.5) * (0.5 - 0.5 * math.cos(2 * math.pi * t / 1.5)))

    def hips_at(a):
        q = rx(a)
        r = qrot(q, d_tip)
        return q, (0.0, tip[1] - r[1], tip[2] - r[2])   # the toe tips stay where they are at rest

    # the wrists' floor points: under the shoulders at the top (0 s)
    q0, t0 = hips_at(pitch(0.0))
    goals = {}
    for side, sx in (('Left', 1.0), ('Right', -1.0)):
        sh = add3(t0, qrot(q0, sub(pos[idx[side + 'Arm']], h0)))
        goals[side] = (sx * 0.20, 0.015, sh[2])
    keys = {hips: []}
    trans = {hips: []}
    for side in ('Left', 'Right'):
        for n in ('Arm', 'ForeArm', 'Hand'):
            keys[idx[side + n]] = []
    for k in range(frames):
        q, t = hips_at(pitch(k / fps))
        keys[hips].append(q)
        trans[hips].append(t)
        for side, sx in (('Left', 1.0), ('Right', -1.0)):
            arm, fore, hand = idx[side + 'Arm'], idx[side + 'ForeArm'], idx[side + 'Hand']
            s0, e0, w0 = pos[arm], pos[fore], pos[hand]
            s = add3(t, qrot(q, sub(s0, h0)))
            e, wgoal = two_bone(s, math.dist(s0, e0), math.dist(e0, w0), goals[side], (sx * 1.0, 0.3, -1.0))
            qa = qmul(from_to(qrot(q, sub(e0, s0)), sub(e, s)), q)       # world rotations
            qf = qmul(from_to(qrot(qa, sub(w0, e0)), sub(wgoal, e)), qa)
            keys[arm].append(qmul(qconj(q), qa))    # the shoulder's world rotation is the hips'
            keys[fore].append(qmul(qconj(qa), qf))
            keys[hand].append(qmul(qconj(qf), q))   # the hand turns with the body
    return keys, frames, fps, 'pushup', trans


def write(path, data):
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 1:
        print(__doc__)
        return 1
    out = argv[0]
    os.makedirs(out, exist_ok=True)
    for name, over in AVATARS.items():
        p = dict(BASE)
        p.update(over)
        write(os.path.join(out, name + '.glb'), glb(skeleton(p)))
    nodes = skeleton(dict(BASE))
    write(os.path.join(out, 'hands.glb'), glb(nodes, hands_clip(nodes)))
    write(os.path.join(out, 'pushup.glb'), glb(nodes, pushup_clip(nodes)))
    write(os.path.join(out, 'mesh_feet.glb'), glb(with_marks(nodes), mesh=feet_mesh(nodes)))
    write(os.path.join(out, 'mesh_feet_joints.glb'), glb(with_marks(nodes)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
