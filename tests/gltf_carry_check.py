#!/usr/bin/env python3
"""Lists every piece of a glTF input and shows it is in rigkit's output or
named in one of rigkit's warnings (tests/test_gltf_carry.sh).

    python3 tests/gltf_carry_check.py IN.gltf OUT.{glb,gltf} WARNINGS.txt

The expectation is the input file itself: each piece (asset extras, every
node's name / transform / children / camera / light / mesh / skin / extras,
every mesh's attributes, targets and extras, every material member down to
the textures' image bytes, texCoord and KHR_texture_transform, every
extension, camera, light, skin, animation channel, sampler, texture and
image name) is compared with the output. A piece that differs passes only
when WARNINGS.txt (rigkit's stderr) names it with one of the words listed
for it. Nodes are matched by index (the input must list nodes depth-first
from one scene root, which is rigkit's order); skins by their joints and
inverse bind matrices. Prints one line per piece ("ok", "warned" or
"MISSING") and exits 1 when a piece is missing.
"""
import base64
import json
import os
import struct
import sys
import urllib.parse


def load(path):
    data = open(path, 'rb').read()
    bin_chunk = None
    if data[:4] == b'glTF':
        n = struct.unpack_from('<I', data, 12)[0]
        doc = json.loads(data[20:20 + n])
        off = 20 + n
        if off + 8 <= len(data):
            m = struct.unpack_from('<I', data, off)[0]
            bin_chunk = data[off + 8:off + 8 + m]
    else:
        doc = json.loads(data)
    folder = os.path.dirname(path)
    buffers = []
    for b in doc.get('buffers', []):
        uri = b.get('uri')
        if uri is None:
            buffers.append(bin_chunk)
        elif uri.startswith('data:'):
            buffers.append(base64.b64decode(uri.split(',', 1)[1]))
        else:
            buffers.append(open(os.path.join(folder, urllib.parse.unquote(uri)), 'rb').read())
    return doc, buffers, folder


class Gltf:
    def __init__(self, path):
        self.doc, self.buffers, self.folder = load(path)

    def view(self, i):
        v = self.doc['bufferViews'][i]
        o = v.get('byteOffset', 0)
        return self.buffers[v['buffer']][o:o + v['byteLength']]

    def image_bytes(self, i):
        img = self.doc['images'][i]
        if 'bufferView' in img:
            return self.view(img['bufferView'])
        uri = img['uri']
        if uri.startswith('data:'):
            return base64.b64decode(uri.split(',', 1)[1])
        return open(os.path.join(self.folder, urllib.parse.unquote(uri)), 'rb').read()

    def texture(self, i):
        """What a texture index means: image bytes and wrap modes."""
        t = self.doc['textures'][i]
        src = t.get('source')
        s = self.doc['samplers'][t['sampler']] if 'sampler' in t else {}
        return {'image': self.image_bytes(src) if src is not None else None,
                'wrapS': s.get('wrapS', 10497), 'wrapT': s.get('wrapT', 10497)}

    def accessor(self, i):
        a = self.doc['accessors'][i]
        fmt = {5120: 'b', 5121: 'B', 5122: 'h', 5123: 'H', 5125: 'I', 5126: 'f'}[a['componentType']]
        n = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}[a['type']]
        data = self.view(a['bufferView'])
        size = struct.calcsize(fmt)
        stride = self.doc['bufferViews'][a['bufferView']].get('byteStride', n * size)
        off = a.get('byteOffset', 0)
        return [struct.unpack_from('<%d%s' % (n, fmt), data, off + k * stride) for k in range(a['count'])]


def close(a, b, tol=1e-5):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], tol) for k in a)
    return a == b


class Report:
    def __init__(self, warnings):
        self.warnings = warnings
        self.missing = 0
        self.counts = {'ok': 0, 'warned': 0, 'MISSING': 0}

    def piece(self, what, same, words=()):
        if same:
            state = 'ok'
        elif any(w in self.warnings for w in words):
            state = 'warned'
        else:
            state = 'MISSING'
            self.missing += 1
        self.counts[state] += 1
        print('%-8s %s' % (state, what))


def texinfo_same(gi, go, a, b):
    """Two textureInfo objects: same image bytes, wrap, texCoord, members."""
    if not isinstance(a, dict) or not isinstance(b, dict) or 'index' not in b:
        return False
    if gi.texture(a['index']) != go.texture(b['index']):
        return False
    ra = {k: v for k, v in a.items() if k != 'index'}
    rb = {k: v for k, v in b.items() if k != 'index'}
    return close(ra, rb)


def value_same(gi, go, a, b, key=''):
    """Material / extension members; members named *Texture are textureInfos."""
    if key.endswith('Texture') and isinstance(a, dict) and 'index' in a:
        return texinfo_same(gi, go, a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(value_same(gi, go, a[k], b[k], k) for k in a)
    return close(a, b)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    gi, go = Gltf(sys.argv[1]), Gltf(sys.argv[2])
    warnings = open(sys.argv[3], encoding='utf-8', errors='replace').read()
    r = Report(warnings)
    di, do = gi.doc, go.doc

    # asset, top level
    r.piece('asset.extras', close(di['asset'].get('extras'), do['asset'].get('extras')), ['asset extras'])
    if 'extras' in di:
        r.piece('top-level extras', close(di['extras'], do.get('extras')), ['top-level extras'])
    used_out = set(do.get('extensionsUsed', []))
    for e in di.get('extensionsUsed', []):
        r.piece('extensionsUsed %s' % e, e in used_out, [e])
    for e, v in di.get('extensions', {}).items():
        if e == 'KHR_lights_punctual':
            continue  # compared light by light below
        r.piece('extensions.%s' % e, close(v, do.get('extensions', {}).get(e)), [e])
    for i, sc in enumerate(di.get('scenes', [])):
        if 'name' in sc:
            r.piece('scenes[%d].name' % i, any(s.get('name') == sc['name'] for s in do.get('scenes', [])), ['names of'])

    # nodes (same index)
    ni, no = di.get('nodes', []), do.get('nodes', [])
    r.piece('node count %d' % len(ni), len(ni) <= len(no))
    for i, n in enumerate(ni):
        o = no[i] if i < len(no) else {}
        tag = 'nodes[%d] %s' % (i, json.dumps(n.get('name', '(unnamed)')))
        r.piece(tag + ' name', n.get('name') == o.get('name'))
        for k, d in (('translation', [0, 0, 0]), ('rotation', [0, 0, 0, 1]), ('scale', [1, 1, 1])):
            r.piece(tag + ' ' + k, close(n.get(k, d), o.get(k, d)))
        r.piece(tag + ' children', n.get('children', []) == o.get('children', [])[:len(n.get('children', []))])
        if 'extras' in n:
            r.piece(tag + ' extras', close(n['extras'], o.get('extras')))
        if 'camera' in n:
            ci, co = di['cameras'][n['camera']], do.get('cameras', [])[o['camera']] if 'camera' in o else None
            r.piece(tag + ' camera', co is not None and close(ci, co))
        for e, v in n.get('extensions', {}).items():
            ov = o.get('extensions', {}).get(e)
            if e == 'KHR_lights_punctual':
                li = di['extensions'][e]['lights'][v['light']]
                lo = do['extensions'][e]['lights'][ov['light']] if ov else None
                r.piece(tag + ' light', lo is not None and close(li, lo), [e])
            else:
                r.piece(tag + ' extensions.' + e, close(v, ov), [e])
        if 'mesh' in n:
            mi, mo = di['meshes'][n['mesh']], do['meshes'][o['mesh']] if 'mesh' in o else {}
            mtag = tag + ' mesh %s' % json.dumps(mi.get('name', ''))
            r.piece(mtag + ' name', mi.get('name') == mo.get('name'))
            if 'extras' in mi:
                r.piece(mtag + ' extras', close(mi['extras'], mo.get('extras')))
            if 'weights' in mi:
                r.piece(mtag + ' weights', close(mi['weights'], mo.get('weights')))
            for p, prim in enumerate(mi['primitives']):
                po = mo.get('primitives', [{}])[p] if p < len(mo.get('primitives', [])) else {}
                for attr in prim['attributes']:
                    r.piece(mtag + ' primitive %d %s' % (p, attr), attr in po.get('attributes', {}))
                r.piece(mtag + ' primitive %d targets' % p, len(prim.get('targets', [])) == len(po.get('targets', [])))
                if 'extras' in prim:
                    r.piece(mtag + ' primitive %d extras' % p, close(prim['extras'], po.get('extras')), ['mesh primitives'])
                for e in prim.get('extensions', {}):
                    r.piece(mtag + ' primitive %d extensions.%s' % (p, e), e in po.get('extensions', {}), [e])
                if 'TANGENT' in prim['attributes'] and 'TANGENT' in po.get('attributes', {}):
                    ti = sorted(gi.accessor(prim['attributes']['TANGENT']))
                    to = sorted(go.accessor(po['attributes']['TANGENT']))
                    r.piece(mtag + ' primitive %d TANGENT values' % p,
                            all(any(close(list(t), list(u), 1e-6) for u in to) for t in ti))
                if 'material' in prim:
                    r.piece(mtag + ' primitive %d material' % p,
                            'material' in po and di['materials'][prim['material']].get('name') ==
                            do['materials'][po['material']].get('name'))
        if 'skin' in n:
            r.piece(tag + ' skin', 'skin' in o)

    # skins: each input skin has an output skin with the same joints and IBMs
    def skin_key(g, s):
        ibm = g.accessor(s['inverseBindMatrices']) if 'inverseBindMatrices' in s else None
        return s['joints'], ibm
    out_skins = [skin_key(go, s) for s in do.get('skins', [])]
    r.piece('skin count %d' % len(di.get('skins', [])), len(di.get('skins', [])) == len(do.get('skins', [])))
    for i, s in enumerate(di.get('skins', [])):
        j, m = skin_key(gi, s)
        found = any(j == oj and (m is None or close([list(x) for x in m], [list(x) for x in om], 1e-6)) for oj, om in out_skins)
        r.piece('skins[%d] %s joints and inverse bind matrices' % (i, s.get('name', '')), found)
        names = [o.get('name') for o in do.get('skins', [])]
        r.piece('skins[%d] name' % i, s.get('name') in names if 'name' in s else True)
        if 'extras' in s:
            r.piece('skins[%d] extras' % i, any(close(s['extras'], o.get('extras')) for o in do.get('skins', [])), ['skins'])

    # cameras and lights, by index
    for i, c in enumerate(di.get('cameras', [])):
        co = do.get('cameras', [])
        r.piece('cameras[%d] %s' % (i, c.get('name', '(unnamed)')), i < len(co) and close(c, co[i]))
    lights_out = do.get('extensions', {}).get('KHR_lights_punctual', {}).get('lights', [])
    for i, l in enumerate(di.get('extensions', {}).get('KHR_lights_punctual', {}).get('lights', [])):
        r.piece('lights[%d] %s' % (i, l.get('name', '(unnamed)')), i < len(lights_out) and close(l, lights_out[i]))

    # materials, matched by name
    mats_out = {m.get('name'): m for m in do.get('materials', [])}
    for i, m in enumerate(di.get('materials', [])):
        o = mats_out.get(m.get('name'), {})
        tag = 'materials[%d] %s' % (i, m.get('name', ''))
        for k, v in m.items():
            if k == 'extensions':
                for e, ev in v.items():
                    r.piece(tag + ' extensions.' + e, value_same(gi, go, ev, o.get('extensions', {}).get(e), e), [e])
            elif k == 'pbrMetallicRoughness':
                for pk, pv in v.items():
                    r.piece(tag + ' pbr.' + pk, value_same(gi, go, pv, o.get(k, {}).get(pk), pk))
            else:
                r.piece(tag + ' ' + k, value_same(gi, go, v, o.get(k), k))

    # textures, images, samplers
    for i, t in enumerate(di.get('textures', [])):
        if 'name' in t:
            r.piece('textures[%d] name %s' % (i, t['name']), any(o.get('name') == t['name'] for o in do.get('textures', [])))
    for i, im in enumerate(di.get('images', [])):
        if 'name' in im:
            r.piece('images[%d] name %s' % (i, im['name']), any(o.get('name') == im['name'] for o in do.get('images', [])))
    for i, s in enumerate(di.get('samplers', [])):
        for k in ('magFilter', 'minFilter'):
            if k in s:
                r.piece('samplers[%d] %s' % (i, k), any(o.get(k) == s[k] for o in do.get('samplers', [])), ['magFilter'])

    # animations, by name: channels (target node + path) and key counts
    anims_out = {a.get('name'): a for a in do.get('animations', [])}
    for i, a in enumerate(di.get('animations', [])):
        o = anims_out.get(a.get('name'))
        tag = 'animations[%d] %s' % (i, a.get('name', ''))
        r.piece(tag, o is not None)
        if o is None:
            continue
        for c in a['channels']:
            t = c['target']
            oc = [x for x in o['channels'] if x['target'] == t]
            same = False
            if oc:
                si, so = a['samplers'][c['sampler']], o['samplers'][oc[0]['sampler']]
                same = close([list(x) for x in gi.accessor(si['input'])], [list(x) for x in go.accessor(so['input'])], 1e-6)
            r.piece(tag + ' channel node %d %s keys' % (t['node'], t['path']), same)
        if 'extras' in a:
            r.piece(tag + ' extras', close(a['extras'], o.get('extras')), ['animations'])

    print('%d pieces: %d in the output, %d named in a warning, %d missing' %
          (sum(r.counts.values()), r.counts['ok'], r.counts['warned'], r.counts['MISSING']))
    return 1 if r.missing else 0


if __name__ == '__main__':
    sys.exit(main())
