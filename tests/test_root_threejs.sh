#!/usr/bin/env bash
# tests/test_root_threejs.sh - `rigkit retarget --root extract` played in
# three.js (GLTFLoader + AnimationMixer) and checked by the Khronos
# glTF-Validator (docs/retarget.md, "Root motion").
#
#   bash tests/test_root_threejs.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# Each case retargets a clip twice, --root keep and --root extract, and
# tests/node/root_check.mjs requires, at every frame, the extract result's
# hips to be where the keep result's are (1e-6 hips heights), its root to
# keep its rest height and tilt, and to carry the keep hips' horizontal
# travel and yaw. Cases (outputs in BUILD_DIR/root_threejs/):
#  1. tests/fixtures/twist_source.glb 'Twist' -> twist_rig.glb (an
#     Unreal-style "root" joint above the pelvis);
#     twist_rig_rolled.glb: the same with every rest rotation turned;
#  2. `rigkit sample` source.glb 'Walk' -> avatar.glb (an "Armature" node
#     above the hips);
#  3. SHARED_DIR/assets Xbot.glb 'walk' -> readyplayer.me.glb, the sample
#     walk -> Xbot.glb (a root scaled 0.01), and Xbot 'walk' -> ybot.fbx
#     (an FBX target whose hips hang from the scene; skipped when absent).
# twist_rig_noroot.glb and ybot.fbx have no node above the hips: rigkit
# adds one named "root" (rk_scene_insert_parent).
# Node packages: tests/node/package.json + package-lock.json, reused from
# BUILD_DIR/gltf_interop/node when that install matches the lock file, else
# `npm ci` into BUILD_DIR/root_threejs/node. Exit 77 (skip) without node/npm
# or the registry.
set -u

RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
. "$HERE/node_lib.sh"

[ -n "$RIGKIT" ] && [ -n "$BUILD_DIR" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
[ -x "$RIGKIT" ] || fail "$RIGKIT is not an executable (build rigkit first)"
rk_node_require "three and gltf-validator"

WORK="$BUILD_DIR/root_threejs"
PKG="$WORK/node"
SHARED_PKG="$BUILD_DIR/gltf_interop/node"
mkdir -p "$PKG" || fail "cannot create $PKG"
WORK=$(cd "$WORK" && pwd) && PKG="$WORK/node"
cp "$HERE/node/package.json" "$HERE/node/package-lock.json" "$HERE/node/validate.mjs" "$HERE/node/root_check.mjs" "$PKG/" \
	|| fail "cannot copy tests/node files"
rk_npm_reuse "$PKG" "$SHARED_PKG" "three and gltf-validator"

OUT="$WORK"
rm -f "$OUT"/*.glb
CASES=()
RESULTS=()

# case LABEL SOURCE CLIP TARGET ROOT HIPS
case_() {
	local label=$1 src=$2 clip=$3 tgt=$4 root=$5 hips=$6
	echo "+ rigkit retarget $src $tgt ($label) --clip $clip --root keep / extract"
	"$RIGKIT" retarget "$src" "$tgt" "$OUT/${label}_keep.glb" --clip "$clip" || fail "$label: retarget --root keep failed"
	"$RIGKIT" retarget "$src" "$tgt" "$OUT/${label}_extract.glb" --clip "$clip" --root extract \
		|| fail "$label: retarget --root extract failed"
	CASES+=("$label" "$tgt" "$OUT/${label}_keep.glb" "$OUT/${label}_extract.glb" "$clip" "$root" "$hips")
	RESULTS+=("$OUT/${label}_extract.glb")
}

case_ twist_rig "$HERE/fixtures/twist_source.glb" Twist "$HERE/fixtures/twist_rig.glb" root pelvis
# every joint's rest turned (the root's too)
case_ twist_rig_rolled "$HERE/fixtures/twist_source.glb" Twist "$HERE/fixtures/twist_rig_rolled.glb" root pelvis
# no node above the hips: rigkit adds "root"
case_ twist_rig_noroot "$HERE/fixtures/twist_source.glb" Twist "$HERE/fixtures/twist_rig_noroot.glb" root pelvis
"$RIGKIT" sample "$OUT" >/dev/null || fail "rigkit sample failed"
case_ sample_walk "$OUT/source.glb" Walk "$OUT/avatar.glb" Armature Hips
SKIPPED=""
ASSETS="$SHARED_DIR/assets"
if [ -n "$SHARED_DIR" ] && [ -d "$ASSETS" ]; then ASSETS=$(cd "$ASSETS" && pwd); fi
if [ -n "$SHARED_DIR" ] && [ -f "$ASSETS/Xbot.glb" ] && [ -f "$ASSETS/readyplayer.me.glb" ]; then
	case_ xbot_rpm "$ASSETS/Xbot.glb" walk "$ASSETS/readyplayer.me.glb" Armature Hips
	# a root with scale: Xbot's "Armature" (0.01, cm below it)
	case_ walk_xbot "$OUT/source.glb" Walk "$ASSETS/Xbot.glb" Armature mixamorigHips
	if [ -f "$ASSETS/ybot.fbx" ]; then
		# an FBX target whose hips hang from the scene (a "root" is added);
		# three.js reads its rest from the converted GLB (names lose the ':')
		"$RIGKIT" convert "$ASSETS/ybot.fbx" "$OUT/ybot_target.glb" >/dev/null || fail "rigkit convert ybot.fbx failed"
		echo "+ rigkit retarget Xbot.glb ybot.fbx (xbot_ybot) --clip walk --root keep / extract"
		"$RIGKIT" retarget "$ASSETS/Xbot.glb" "$ASSETS/ybot.fbx" "$OUT/xbot_ybot_keep.glb" --clip walk 2>/dev/null \
			|| fail "xbot_ybot: retarget --root keep failed"
		"$RIGKIT" retarget "$ASSETS/Xbot.glb" "$ASSETS/ybot.fbx" "$OUT/xbot_ybot_extract.glb" --clip walk --root extract 2>/dev/null \
			|| fail "xbot_ybot: retarget --root extract failed"
		CASES+=(xbot_ybot "$OUT/ybot_target.glb" "$OUT/xbot_ybot_keep.glb" "$OUT/xbot_ybot_extract.glb" walk root mixamorigHips)
		RESULTS+=("$OUT/xbot_ybot_extract.glb")
	fi
else
	SKIPPED="case 3: no ${SHARED_DIR:-SHARED_DIR}/assets/Xbot.glb and readyplayer.me.glb"
fi

status=0
echo "== Khronos glTF-Validator (${#RESULTS[@]} extract results)"
(cd "$PKG" && node validate.mjs "${RESULTS[@]}") || status=1
echo "== three.js: extract vs keep"
(cd "$PKG" && node root_check.mjs "${CASES[@]}") || status=1
[ -n "$SKIPPED" ] && echo "skipped: $SKIPPED"
[ $status -eq 0 ] || fail "see the messages above"
echo "PASSED: $(( ${#CASES[@]} / 7 )) root motion extractions play in three.js as documented, 0 validator errors"
exit 0
