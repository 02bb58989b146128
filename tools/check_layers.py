#!/usr/bin/env python3
"""tools/check_layers.py ROOT - checks every #include of the library, the CLI
and the WebAssembly binding against the layer table.

The table is the rigkit_layer() calls of ROOT/CMakeLists.txt (the same table
the build uses to stage each layer's include folder, docs/architecture.md):

  rigkit_layer(<name> DIR <src subfolder> DEPS <layers...> HEADERS <public headers...>)

Rules checked, one message per violation (exit 1 when there is any):
  R1 a file in src/<dir> includes only its own folder's files (bare names),
     the internal headers of its layer and its DEPS ("core/internal.h"), and
     the public headers those layers own ("rigkit/anim.h");
  R2 no "../" includes and no umbrella rigkit/rigkit.h inside src/;
  R3 a public header (include/rigkit/X.h) includes only public headers of
     its owner layer and that layer's DEPS;
  R4 every src/ folder with .c files belongs to a layer; every public header
     but rigkit.h has an owner;
  R5 tools/rigkit, tools/view (the GPU viewer) and wasm/ use public headers
     only (rigkit/...) plus their own folder's headers (tools/rigkit also
     "view/..." headers of tools/view), and define no rk_/RK_ symbols (those
     are the library's: src/ only).
"""
import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
LAYER_RE = re.compile(r'^\s*rigkit_layer\(([^)]*)\)', re.M | re.S)
# A function definition's head at the start of a line: type ... rk_name( ... ) {
DEF_RE = re.compile(r'^(?:static\s+|inline\s+|const\s+|unsigned\s+|struct\s+)*[A-Za-z_][\w\s\*]*?\b((?:rk|RK)_\w+)\s*\([^;{]*\)\s*\{',
                    re.M)
DEFINE_RE = re.compile(r'^\s*#\s*define\s+((?:rk|RK)_\w+)', re.M)
TYPE_RE = re.compile(r'^\s*typedef\b[^;]*?\b((?:rk|RK)_\w+)\s*;', re.M)


def parse_layers(cmake_text):
    layers = {}
    order = []
    for m in LAYER_RE.finditer(cmake_text):
        body = re.sub(r'#[^\n]*', '', m.group(1)).split()
        if not body:
            continue
        name, key, fields = body[0], None, {'DIR': [], 'DEPS': [], 'HEADERS': [], 'LIBS': []}
        for tok in body[1:]:
            if tok in fields:
                key = tok
            elif key:
                fields[key].append(tok)
        layers[name] = {'dir': fields['DIR'][0] if fields['DIR'] else None,
                        'deps': set(fields['DEPS']), 'headers': set(fields['HEADERS'])}
        order.append(name)
    return layers, order


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def check(root):
    problems = []
    with open(os.path.join(root, 'CMakeLists.txt'), encoding='utf-8') as f:
        layers, order = parse_layers(f.read())
    if not layers:
        return ['CMakeLists.txt: no rigkit_layer() calls found']
    for name, l in layers.items():
        for d in l['deps']:
            if d not in layers:
                problems.append(f'CMakeLists.txt: layer {name} depends on unknown layer {d}')
    dir_to_layer = {l['dir']: n for n, l in layers.items()}
    header_owner = {}
    for n, l in layers.items():
        for h in l['headers']:
            header_owner.setdefault(h, set()).add(n)

    def allowed(layer):
        return {layer} | layers[layer]['deps']

    def layer_of_dir(d):
        best = None
        for ld, n in dir_to_layer.items():
            if d == ld or d.startswith(ld + '/'):
                if best is None or len(ld) > len(layers[best]['dir']):
                    best = n
        return best

    src = os.path.join(root, 'src')
    for dirpath, _, files in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src).replace(os.sep, '/')
        cfiles = [f for f in files if f.endswith(('.c', '.h'))]
        if not cfiles:
            continue
        layer = layer_of_dir(rel_dir)
        if layer is None:
            problems.append(f'src/{rel_dir}: R4 folder belongs to no layer (add a rigkit_layer() call)')
            continue
        ok_layers = allowed(layer)
        for fn in sorted(cfiles):
            path = f'src/{rel_dir}/{fn}'
            with open(os.path.join(dirpath, fn), encoding='utf-8', errors='replace') as f:
                text = strip_comments(f.read())
            for m in INCLUDE_RE.finditer(text):
                inc = m.group(2)
                line = text.count('\n', 0, m.start()) + 1
                where = f'{path}:{line}: #include "{inc}"'
                if '..' in inc.split('/'):
                    problems.append(f'{where}: R2 no ../ includes')
                    continue
                if inc.startswith('rigkit/'):
                    h = inc[len('rigkit/'):]
                    if h == 'rigkit.h':
                        problems.append(f'{where}: R2 the umbrella header is for applications')
                        continue
                    owners = header_owner.get(h)
                    if not owners:
                        problems.append(f'{where}: R1 public header without an owner layer')
                    elif not owners & ok_layers:
                        problems.append(f'{where}: R1 layer {layer} may not use layer {"/".join(sorted(owners))}'
                                        f' (allowed: {", ".join(sorted(ok_layers))})')
                    continue
                if m.group(1) == '<':
                    continue          # system and third-party headers
                if '/' not in inc:
                    if not os.path.exists(os.path.join(dirpath, inc)):
                        problems.append(f'{where}: R1 bare include of a file not in src/{rel_dir}')
                    continue
                inc_layer = layer_of_dir(os.path.dirname(inc))
                if inc_layer is None:
                    problems.append(f'{where}: R1 not a header of any layer')
                elif inc_layer not in ok_layers:
                    problems.append(f'{where}: R1 layer {layer} may not use layer {inc_layer}'
                                    f' (allowed: {", ".join(sorted(ok_layers))})')

    inc_dir = os.path.join(root, 'include', 'rigkit')
    for fn in sorted(os.listdir(inc_dir)):
        if not fn.endswith('.h'):
            continue
        owners = header_owner.get(fn)
        if fn == 'rigkit.h':
            continue
        if not owners:
            problems.append(f'include/rigkit/{fn}: R4 public header without an owner layer')
            continue
        ok_layers = set().union(*(allowed(o) for o in owners))
        with open(os.path.join(inc_dir, fn), encoding='utf-8') as f:
            text = strip_comments(f.read())
        for m in INCLUDE_RE.finditer(text):
            inc = m.group(2)
            if m.group(1) == '<' and not inc.startswith('rigkit/'):
                continue
            line = text.count('\n', 0, m.start()) + 1
            h = inc[len('rigkit/'):] if inc.startswith('rigkit/') else None
            o = header_owner.get(h) if h else None
            if not o or not (o & ok_layers):
                problems.append(f'include/rigkit/{fn}:{line}: #include "{inc}": R3 a header of '
                                f'{"/".join(sorted(owners))} may use only {", ".join(sorted(ok_layers))}')

    extra = {'tools/rigkit': {'view': os.path.join(root, 'tools', 'view')}}
    for top in ('tools/rigkit', 'tools/view', 'wasm'):
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for fn in sorted(os.listdir(base)):
            if not fn.endswith(('.c', '.h')):
                continue
            path = f'{top}/{fn}'
            with open(os.path.join(base, fn), encoding='utf-8', errors='replace') as f:
                text = strip_comments(f.read())
            for m in INCLUDE_RE.finditer(text):
                inc = m.group(2)
                line = text.count('\n', 0, m.start()) + 1
                if inc.startswith('rigkit/'):
                    continue
                head, _, tail = inc.partition('/')
                other = extra.get(top, {}).get(head)
                if m.group(1) == '"' and other and '/' not in tail and os.path.exists(os.path.join(other, tail)):
                    pass
                elif m.group(1) == '"' and ('/' in inc or not os.path.exists(os.path.join(base, inc))):
                    problems.append(f'{path}:{line}: #include "{inc}": R5 public headers (rigkit/...) only')
                if m.group(1) == '<' and inc.split('/')[0] in dir_to_layer or inc.split('/')[0] in ('formats', 'export'):
                    problems.append(f'{path}:{line}: #include <{inc}>: R5 public headers (rigkit/...) only')
            for rx, what in ((DEF_RE, 'function'), (DEFINE_RE, 'macro'), (TYPE_RE, 'type')):
                for m in rx.finditer(text):
                    line = text.count('\n', 0, m.start()) + 1
                    problems.append(f'{path}:{line}: R5 {what} {m.group(1)} defined outside src/ '
                                    f'(rk_/RK_ names belong to the library)')
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    problems = check(os.path.abspath(root))
    for p in problems:
        print(p)
    if problems:
        print(f'check_layers: {len(problems)} violation(s)')
        return 1
    print('check_layers: every include follows the layer table')
    return 0


if __name__ == '__main__':
    sys.exit(main())
