#!/usr/bin/env bash
# tests/test_gltf_timeline.sh - clip time axes kept through convert, retarget
# and batch, and `--compress meshopt` output, checked with three.js and the
# Khronos glTF-Validator (docs/gltf.md, "Timelines and compressed output").
#
#   bash tests/test_gltf_timeline.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# Timelines (independent expectations: tests/fixtures/make_timeline.py's own
# key times, a hand-shifted copy of tests/fixtures/rig_ascii.fbx, the BVH
# header, the shared files as three.js reads them):
#   - late.glb (first keys at 1/30 s and 0.5 s) converted, retargeted onto
#     the same skeleton and batched: three.js finds the same first and last
#     key times and, at the same t, the same node positions (1e-6 of the
#     skeleton's extent; retarget 1e-5) as in late.glb itself;
#     --rebase-time moves the clip to 0 and the pose at t - 1/30 is the
#     input's at t;
#   - rig_ascii.fbx with LocalStart/Stop and its keys moved by 1/30 s:
#     converted, its clip starts at 1/30 s and plays as the unshifted one
#     moved by 1/30 s (nodes and skinned vertices);
#   - a BVH converts to a clip from 0 to (frames - 1) x frame time;
#   - shared Xbot / Soldier: converted, every clip has the original's key
#     range and pose; retargeted Xbot -> Soldier keeps Xbot's key ranges.
# Compression (three.js GLTFLoader with three's own MeshoptDecoder):
#   - every shared avatar, the rig fixture and late.glb converted with
#     --compress meshopt: 0 validator errors, EXT_meshopt_compression and
#     KHR_mesh_quantization required, the same clips, nodes and (skinned)
#     vertices (also with each morph target fully on) as the uncompressed
#     output within the int16 position quantisation (3e-5 of the extent:
#     sqrt(3) x h / 32767 / 2 = 1.3e-5 with h half the largest extent, twice
#     for a morphed vertex: base and delta are both rounded), normals within
#     0.01 rad; Xbot at most 60% of its
#     uncompressed GLB; --compress-anim within 1e-4; the --json ratio equals
#     the files' sizes;
#   - retarget and batch with --compress: valid, same poses.
# Exit code 77 (skip) without node/npm/python3 or the registry; the shared
# parts are skipped with a message when SHARED_DIR is absent.
set -u

RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -x "$RIGKIT" ] && [ -n "$BUILD_DIR" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
# absolute paths: the node scripts run in their package folder
BUILD_DIR=$(cd "$BUILD_DIR" && pwd) || fail "no build folder $3"
case "$RIGKIT" in /*) ;; *) RIGKIT="$PWD/$RIGKIT" ;; esac
if [ -n "$SHARED_DIR" ] && [ -d "$SHARED_DIR" ]; then SHARED_DIR=$(cd "$SHARED_DIR" && pwd); fi
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (needed to generate the test files)"
. "$HERE/node_lib.sh"
rk_node_require "the three.js and glTF-Validator checks"

WORK="$BUILD_DIR/gltf_timeline"
PKG="$WORK/node"
OUT="$WORK/out"
mkdir -p "$PKG" || fail "cannot create $PKG"
cp "$HERE/node/package.json" "$HERE/node/package-lock.json" "$HERE/node/validate.mjs" "$HERE/node/gltf_pair_check.mjs" \
	"$PKG/" || fail "cannot copy tests/node files"
rk_npm_ci "$PKG" "gltf-validator and three"
rm -rf "$OUT"
mkdir -p "$OUT" || fail "cannot create $OUT"

status=0
run() { "$@" || { echo "  ^ FAILED: $*"; status=1; }; }
rk() { "$RIGKIT" "$@" >/dev/null || { echo "  ^ FAILED: rigkit $*"; status=1; }; }
pair() { (cd "$PKG" && node gltf_pair_check.mjs "$@") || { echo "  ^ FAILED: pair check $*"; status=1; }; }
valid() { (cd "$PKG" && node validate.mjs "$@") || { echo "  ^ FAILED: validator $*"; status=1; }; }

python3 "$HERE/fixtures/make_timeline.py" "$OUT" || fail "make_timeline.py failed"
read -r _ LATE_FIRST LATE_LAST < <(grep '^late ' "$OUT/late.txt")
read -r _ LATER_FIRST LATER_LAST < <(grep '^later ' "$OUT/late.txt")
[ -n "$LATE_FIRST" ] && [ -n "$LATER_FIRST" ] || fail "late.txt is incomplete"

echo "== timelines: late.glb (clips from $LATE_FIRST s and $LATER_FIRST s)"
rk convert "$OUT/late.glb" "$OUT/late_conv.glb" -q
rk convert "$OUT/late.glb" "$OUT/late_rebased.glb" --rebase-time -q
# --contacts off: the direction rule alone reproduces a clip on its own
# skeleton (the contact solve puts planted feet on the skeleton's floor)
rk retarget "$OUT/late.glb" "$OUT/skeleton.glb" "$OUT/late_rt.glb" --contacts off -q
mkdir -p "$OUT/batch"
rk batch --motions "$OUT/late.glb" --avatars "$OUT/skeleton.glb" --out "$OUT/batch" --contacts off -q
pair "$OUT/late.glb" "$OUT/late_conv.glb" --clip late --first "$LATE_FIRST" --last "$LATE_LAST"
pair "$OUT/late.glb" "$OUT/late_conv.glb" --clip later --first "$LATER_FIRST" --last "$LATER_LAST"
pair "$OUT/late.glb" "$OUT/late_rebased.glb" --clip late --shift "-$LATE_FIRST"
pair "$OUT/late.glb" "$OUT/late_rebased.glb" --clip later --shift "-$LATER_FIRST"
# retargeted keys are resampled LINEAR at 30 fps: the LINEAR clip "late"
# (keys at k/30) is compared pose by pose, "later" (a STEP track) by times
pair "$OUT/late.glb" "$OUT/late_rt.glb" --clip late --tol 1e-5
pair "$OUT/late.glb" "$OUT/late_rt.glb" --clip later --times-only
pair "$OUT/late.glb" "$OUT/batch/skeleton.glb" --clip late --prefix late/ --tol 1e-5
pair "$OUT/late.glb" "$OUT/batch/skeleton.glb" --clip later --prefix late/ --times-only

echo "== timelines: rig_ascii.fbx with LocalStart/Stop and keys moved by 1/30 s"
# FBX time: 46186158000 ticks per second; 1/30 s = 1539538600 ticks
python3 - "$HERE/fixtures/rig_ascii.fbx" "$OUT/rig_late.fbx" <<'EOF' || fail "cannot shift the FBX"
import re, sys
text = open(sys.argv[1]).read()
d = 1539538600
text = re.sub(r'("Local(?:Start|Stop)", "KTime", "Time", "",)(\d+)', lambda m: m.group(1) + str(int(m.group(2)) + d), text)
def keys(m):
    return m.group(1) + ','.join(str(int(x) + d) for x in m.group(2).split(','))
text, n = re.subn(r'(KeyTime: \*\d+ \{\s*a: )([\d,]+)', keys, text)
assert n > 0, 'no KeyTime'
open(sys.argv[2], 'w').write(text)
EOF
rk convert "$HERE/fixtures/rig_ascii.fbx" "$OUT/rig.glb" -q
rk convert "$OUT/rig_late.fbx" "$OUT/rig_late.glb" -q
pair "$OUT/rig.glb" "$OUT/rig_late.glb" --shift 0.0333333333 --first 0 --vertices

echo "== timelines: BVH"
BVH="$HERE/fixtures/bvh/mixamo_walk.bvh"
FRAMES=$(awk '/^Frames:/ { print $2 }' "$BVH")
FTIME=$(awk '/^Frame Time:/ { print $3 }' "$BVH")
LAST=$(python3 -c "import sys; print(repr(($FRAMES - 1) * $FTIME))")
rk convert "$BVH" "$OUT/bvh.glb" -q
pair "$OUT/bvh.glb" "$OUT/bvh.glb" --first 0 --last "$LAST" --times-only

if [ -n "$SHARED_DIR" ] && [ -f "$SHARED_DIR/assets/Xbot.glb" ] && [ -f "$SHARED_DIR/assets/Soldier.glb" ]; then
	echo "== timelines: shared Xbot and Soldier clips unchanged"
	A="$SHARED_DIR/assets"
	rk convert "$A/Xbot.glb" "$OUT/Xbot_conv.glb" -q
	rk convert "$A/Soldier.glb" "$OUT/Soldier_conv.glb" -q
	pair "$A/Xbot.glb" "$OUT/Xbot_conv.glb"
	pair "$A/Soldier.glb" "$OUT/Soldier_conv.glb"
	rk retarget "$A/Xbot.glb" "$A/Soldier.glb" "$OUT/Xbot_on_Soldier.glb" --drop-target-clips -q
	pair "$A/Xbot.glb" "$OUT/Xbot_on_Soldier.glb" --times-only
else
	echo "SKIPPED (part): shared Xbot.glb / Soldier.glb not found under '$SHARED_DIR/assets'"
fi

echo "== compressed output (--compress meshopt)"
inputs=("$HERE/fixtures/rig.glb" "$OUT/late.glb")
if [ -n "$SHARED_DIR" ] && [ -d "$SHARED_DIR/assets" ]; then
	for f in Xbot Soldier readyplayer.me Horse Flamingo; do
		[ -f "$SHARED_DIR/assets/$f.glb" ] && inputs+=("$SHARED_DIR/assets/$f.glb")
	done
else
	echo "SKIPPED (part): no shared assets: only the fixtures are compressed"
fi
compressed=()
for in in "${inputs[@]}"; do
	name=$(basename "$in" .glb)
	plain="$OUT/${name}_plain.glb" comp="$OUT/${name}_meshopt.glb"
	rk convert "$in" "$plain" -q
	if ! "$RIGKIT" convert "$in" "$comp" --compress meshopt --json -q >"$OUT/${name}_meshopt.json"; then
		echo "  ^ FAILED: rigkit convert $in --compress meshopt"
		status=1
		continue
	fi
	compressed+=("$comp")
	# the reported sizes are the files' (the uncompressed one built the same way)
	run python3 - "$OUT/${name}_meshopt.json" "$comp" "$plain" <<'EOF'
import json, os, struct, sys
doc = json.load(open(sys.argv[1]))
c = doc['compression']
size, plain = os.path.getsize(sys.argv[2]), os.path.getsize(sys.argv[3])
assert c['bytes'] == size and c['uncompressed_bytes'] == plain, (c, size, plain)
assert abs(c['ratio'] - size / plain) < 1e-12, c
data = open(sys.argv[2], 'rb').read()
n = struct.unpack_from('<I', data, 12)[0]
gl = json.loads(data[20:20 + n])
req, used = gl.get('extensionsRequired', []), gl.get('extensionsUsed', [])
encoded = [v for v in gl.get('bufferViews', []) if 'EXT_meshopt_compression' in v.get('extensions', {})]
assert encoded, 'no EXT_meshopt_compression bufferView'
assert 'EXT_meshopt_compression' in req and 'EXT_meshopt_compression' in used, (req, used)
if any(a['componentType'] in (5120, 5122) for a in gl['accessors']):
    assert 'KHR_mesh_quantization' in req and 'KHR_mesh_quantization' in used, (req, used)
fb = [b for b in gl['buffers'] if b.get('extensions', {}).get('EXT_meshopt_compression', {}).get('fallback')]
assert len(fb) == 1 and 'uri' not in fb[0], gl['buffers']
assert all(v['buffer'] == gl['buffers'].index(fb[0]) for v in encoded), 'encoded views must live in the fallback buffer'
print('%s: %d of %d bytes (%.1f%%)' % (os.path.basename(sys.argv[2]), size, plain, 100.0 * size / plain))
EOF
	ratio_opt=()
	[ "$name" = Xbot ] && ratio_opt=(--bytes-ratio 0.6)
	pair "$plain" "$comp" --vertices --tol 3e-5 "${ratio_opt[@]}"
done
if [ -f "$OUT/Xbot_plain.glb" ]; then
	rk convert "$SHARED_DIR/assets/Xbot.glb" "$OUT/Xbot_meshopt_anim.glb" --compress meshopt --compress-anim -q
	compressed+=("$OUT/Xbot_meshopt_anim.glb")
	pair "$OUT/Xbot_plain.glb" "$OUT/Xbot_meshopt_anim.glb" --vertices --tol 1e-4
fi
echo "== usage errors"
for bad in "$OUT/x.obj --compress meshopt" "$OUT/x.bvh --rebase-time" "$OUT/x.glb --compress-anim" "$OUT/x.glb --compress zstd"; do
	# shellcheck disable=SC2086
	"$RIGKIT" convert "$HERE/fixtures/rig.glb" $bad -q 2>/dev/null
	rc=$?
	[ $rc -eq 1 ] || { echo "  ^ FAILED: rigkit convert rig.glb $bad exited $rc, expected 1 (usage)"; status=1; }
done
echo "== retarget and batch with --compress meshopt"
rk retarget "$OUT/late.glb" "$OUT/skeleton.glb" "$OUT/late_rt_meshopt.glb" --contacts off --compress meshopt -q
pair "$OUT/late_rt.glb" "$OUT/late_rt_meshopt.glb"
mkdir -p "$OUT/batch_meshopt"
avatars=("$OUT/skeleton.glb")
[ -f "$OUT/Xbot_plain.glb" ] && avatars+=("$SHARED_DIR/assets/Xbot.glb")
if "$RIGKIT" batch --motions "$OUT/late.glb" --avatars "${avatars[@]}" \
	--out "$OUT/batch_meshopt" --contacts off --compress meshopt --json -q >"$OUT/batch_meshopt.json"; then
	run python3 - "$OUT/batch_meshopt.json" <<'EOF'
import json, os, sys
doc = json.load(open(sys.argv[1]))
outs = [o for o in doc['outputs'] if o.get('written')]
assert outs, doc
for o in outs:
    c = o['compression']
    assert c['bytes'] == os.path.getsize(o['output']) and 0 < c['ratio'] < 1.5, o
    print('%s: %.1f%% of the uncompressed size' % (o['output'], 100 * c['ratio']))
EOF
	compressed+=("$OUT/batch_meshopt/skeleton.glb")
	pair "$OUT/batch/skeleton.glb" "$OUT/batch_meshopt/skeleton.glb"
else
	echo "  ^ FAILED: rigkit batch --compress meshopt"
	status=1
fi
compressed+=("$OUT/late_rt_meshopt.glb")
echo "== Khronos glTF-Validator on every output"
valid "$OUT"/late_conv.glb "$OUT"/late_rebased.glb "$OUT"/late_rt.glb "$OUT"/rig_late.glb "$OUT"/bvh.glb "${compressed[@]}"

[ $status -eq 0 ] || fail "see the messages above"
echo "PASSED: time axes kept (convert, retarget, batch, FBX, BVH, shared clips), compressed outputs valid and matching"
exit 0
