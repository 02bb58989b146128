#!/usr/bin/env bash
# tests/test_gltf_carry.sh - `rigkit convert` carries every piece of a glTF
# file or names it in a warning (docs/gltf.md, "What convert carries").
#
#   bash tests/test_gltf_carry.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# 1. tests/fixtures/rich.gltf is what tests/fixtures/make_rich_gltf.py writes
#    (cameras, KHR lights, occlusion, KHR material extensions, extras at
#    every level, tangents, unnamed nodes, three skins, ...).
# 2. It is converted to GLB, to embedded .gltf and to .gltf --separate (.bin
#    and PNG files beside it); tests/gltf_carry_check.py lists every piece of
#    the input and checks that each output holds it or that rigkit's stderr
#    names it. The --separate output must be a .gltf, a .bin and two PNGs,
#    the PNGs byte-identical to the input's images; --separate to a .glb is
#    refused.
# 3. `rigkit info --json` of the GLB shows the file's cameras, lights and
#    node references.
# 4. Shared avatars (SHARED_DIR/assets/*.glb, skipped without them): the
#    output has as many skins as the input (readyplayer.me.glb: one, not
#    ten) and the same node names in the same order.
# 5. With node/npm (pinned tests/node/package-lock.json, `npm ci` into
#    BUILD_DIR/gltf_carry/node): the Khronos glTF-Validator reports 0 errors
#    on every output (the separate files included), and three.js GLTFLoader
#    builds the same cameras, lights, node names, skins and physical
#    material values from the outputs as from the input. Without node/npm
#    or the registry, steps 1-4 still run and the test exits 77 (skip).
set -u

RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -x "$RIGKIT" ] && [ -n "$BUILD_DIR" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd) || fail "no folder $3"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
WORK="$BUILD_DIR/gltf_carry"
OUT="$WORK/out"
rm -rf "$OUT"
mkdir -p "$OUT/sep" || fail "cannot create $OUT"
IN="$HERE/fixtures/rich.gltf"

echo "== fixture is the generator's output"
python3 "$HERE/fixtures/make_rich_gltf.py" --check || fail "tests/fixtures/rich.gltf is stale: run tests/fixtures/make_rich_gltf.py"

echo "== convert rich.gltf: GLB, embedded .gltf, .gltf --separate"
"$RIGKIT" convert "$IN" "$OUT/rich.glb" 2>"$OUT/rich.glb.err" || fail "convert to GLB: $(cat "$OUT/rich.glb.err")"
"$RIGKIT" convert "$IN" "$OUT/rich.gltf" 2>"$OUT/rich.gltf.err" || fail "convert to .gltf: $(cat "$OUT/rich.gltf.err")"
"$RIGKIT" convert "$IN" "$OUT/sep/rich sep.gltf" --separate 2>"$OUT/sep.err" || fail "convert --separate: $(cat "$OUT/sep.err")"
if "$RIGKIT" convert "$IN" "$OUT/bad.glb" --separate 2>"$OUT/bad.err"; then fail "--separate to a .glb was accepted"; fi
grep -q "separate" "$OUT/bad.err" || fail "--separate to a .glb: the error does not say why: $(cat "$OUT/bad.err")"
[ ! -e "$OUT/bad.glb" ] || fail "--separate to a .glb left a file"
files=$(cd "$OUT/sep" && ls | sort | tr '\n' ' ')
[ "$files" = "rich sep.bin rich sep.gltf rich sep_0.png rich sep_1.png " ] || fail "--separate wrote: $files"
grep -q '"uri":"rich%20sep.bin"' "$OUT/sep/rich sep.gltf" || fail "--separate: the buffer URI is not the percent-encoded .bin name"
python3 - "$IN" "$OUT/sep" <<'EOF' || fail "--separate: PNG files are not the input's images"
import base64, json, sys
doc = json.load(open(sys.argv[1]))
blob = base64.b64decode(doc['buffers'][0]['uri'].split(',', 1)[1])
want = set()
for img in doc['images']:
    v = doc['bufferViews'][img['bufferView']]
    want.add(blob[v.get('byteOffset', 0):v.get('byteOffset', 0) + v['byteLength']])
got = {open('%s/rich sep_%d.png' % (sys.argv[2], i), 'rb').read() for i in range(2)}
sys.exit(0 if got == want else 1)
EOF

status=0
for out in "$OUT/rich.glb:$OUT/rich.glb.err" "$OUT/rich.gltf:$OUT/rich.gltf.err" "$OUT/sep/rich sep.gltf:$OUT/sep.err"; do
	f=${out%%:*}
	w=${out#*:}
	echo "== every piece of rich.gltf in $(basename "$f") or in a warning"
	python3 "$HERE/gltf_carry_check.py" "$IN" "$f" "$w" > "$f.report" || { status=1; grep -v '^ok' "$f.report"; }
	tail -1 "$f.report"
done
[ $status -eq 0 ] || fail "pieces of rich.gltf are missing (see above)"

echo "== rigkit info --json shows the output's cameras and lights"
"$RIGKIT" info --json "$OUT/rich.glb" > "$OUT/info.json" 2>/dev/null || fail "info --json rich.glb failed"
python3 - "$IN" "$OUT/info.json" <<'EOF' || fail "info --json does not show the cameras and lights of rich.gltf"
import json, sys
doc, info = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
cams, lights = doc['cameras'], doc['extensions']['KHR_lights_punctual']['lights']
ok = len(info['cameras']) == len(cams) and len(info['lights']) == len(lights)
ok = ok and abs(info['cameras'][0]['yfov'] - cams[0]['perspective']['yfov']) < 1e-12
ok = ok and info['cameras'][1]['projection'] == 'orthographic' and info['lights'][2]['type'] == 'spot'
ok = ok and abs(info['lights'][2]['outer_cone_angle'] - lights[2]['spot']['outerConeAngle']) < 1e-12
# node i of the file is node i + 1 of rigkit (0 is the synthetic root)
for i, n in enumerate(doc['nodes']):
    got = info['nodes'][i + 1]
    ok = ok and got.get('camera') == n.get('camera')
    ok = ok and got.get('light') == n.get('extensions', {}).get('KHR_lights_punctual', {}).get('light')
    ok = ok and got['name'] == n.get('name', '')
print('info --json: %d cameras, %d lights, node references %s' % (len(info['cameras']), len(info['lights']), 'right' if ok else 'WRONG'))
sys.exit(0 if ok else 1)
EOF

if [ -n "$SHARED_DIR" ] && ls "$SHARED_DIR"/assets/*.glb >/dev/null 2>&1; then
	echo "== shared avatars keep their skins and node names"
	for a in "$SHARED_DIR"/assets/*.glb; do
		n=$(basename "$a" .glb)
		"$RIGKIT" convert "$a" "$OUT/$n.glb" 2>/dev/null || { status=1; echo "convert $n failed"; continue; }
		python3 - "$a" "$OUT/$n.glb" <<'EOF' || status=1
import json, struct, sys
def doc(p):
    d = open(p, 'rb').read()
    return json.loads(d[20:20 + struct.unpack_from('<I', d, 12)[0]])
a, b = doc(sys.argv[1]), doc(sys.argv[2])
na, nb = len(a.get('skins', [])), len(b.get('skins', []))
names_a = sorted(n.get('name', '') for n in a.get('nodes', []))
names_b = sorted(n.get('name', '') for n in b.get('nodes', []))
ok = na == nb and names_a == names_b
print('%s %s: %d skins in, %d out; %d node names %s' % ('ok  ' if ok else 'BAD ', sys.argv[1].split('/')[-1], na, nb,
      len(names_a), 'the same' if names_a == names_b else 'differ'))
sys.exit(0 if ok else 1)
EOF
	done
	[ $status -eq 0 ] || fail "a shared avatar lost skins or names"
else
	echo "(shared assets not found: avatar round trips not checked)"
fi

echo "== glTF-Validator and three.js"
. "$HERE/node_lib.sh"
rk_node_require "the glTF-Validator and three.js checks (the checks above passed)"
PKG="$WORK/node"
mkdir -p "$PKG" || fail "cannot create $PKG"
cp "$HERE/node/package.json" "$HERE/node/package-lock.json" "$HERE/node/carry_check.mjs" "$PKG/" || fail "cannot copy tests/node files"
rk_npm_ci "$PKG" "gltf-validator and three"
(cd "$PKG" && node carry_check.mjs validate "$OUT/rich.glb" "$OUT/rich.gltf" "$OUT/sep/rich sep.gltf" "$IN") || status=1
(cd "$PKG" && node carry_check.mjs three "$IN" "$OUT/rich.glb" "$OUT/rich.gltf") || status=1
[ $status -eq 0 ] || fail "see the messages above"
echo "PASSED: every piece of rich.gltf carried or warned about (GLB, .gltf, --separate), 0 validator errors, same in three.js"
exit 0
