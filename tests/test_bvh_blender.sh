#!/usr/bin/env bash
# tests/test_bvh_blender.sh - the BVH reader and writer against Blender's BVH
# importer (Debian blender, bpy.ops.import_anim.bvh), a second oracle beside
# three.js (tests/test_bvh_threejs.sh).
#
#   bash tests/test_bvh_blender.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# Read by both: the fixtures whose position channels sit on joints with a
# zero OFFSET (Blender reads position channels as absolute, rigkit and
# three.js add the OFFSET: docs/bvh.md) and SHARED_DIR/assets/example.bvh;
# written by rigkit and read by Blender: orders.bvh converted (all six
# rotation orders), ybot@kick.fbx and Xbot.glb converted, and ybot@kick
# retargeted to readyplayer.me.glb as BVH; written by Blender: ybot@kick.fbx
# exported with bpy.ops.export_anim.bvh (6 channels on every joint, absolute
# positions, which rigkit's AUTO bvh_positions must detect).
# tests/blender/compare_bvh.py compares every bone head at every frame with
# `rigkit pose`, and Blender's export with rigkit's evaluation of the FBX
# (1e-4 of the height: Blender's exporter works in single precision).
# Exit code 77 (CTest skip) without blender.
set -u

RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FIX="$HERE/fixtures/bvh"

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -n "$RIGKIT" ] && [ -n "$BUILD_DIR" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
[ -x "$RIGKIT" ] || fail "$RIGKIT is not an executable (build rigkit first)"
BLENDER=$(command -v blender) || skip "blender is not installed (Debian package blender)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

OUT="$BUILD_DIR/bvh_blender"
rm -rf "$OUT" && mkdir -p "$OUT" || fail "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
FILES=("$FIX/mixamo_walk.bvh" "$FIX/cmu_walk.bvh" "$FIX/bandai_walk.bvh" "$FIX/mixamo_walk_absolute.bvh")
"$RIGKIT" convert "$FIX/orders.bvh" "$OUT/orders_written.bvh" -q || fail "rigkit convert orders.bvh failed"
FILES+=("$OUT/orders_written.bvh")
ASSETS="$SHARED_DIR/assets"
if [ -n "$SHARED_DIR" ] && [ -d "$ASSETS" ]; then
	[ -f "$ASSETS/example.bvh" ] && FILES+=("$ASSETS/example.bvh")
	if [ -f "$ASSETS/ybot@kick.fbx" ]; then
		"$RIGKIT" convert "$ASSETS/ybot@kick.fbx" "$OUT/kick.bvh" -q || fail "rigkit convert ybot@kick.fbx failed"
		FILES+=("$OUT/kick.bvh")
		if [ -f "$ASSETS/readyplayer.me.glb" ]; then
			"$RIGKIT" retarget "$ASSETS/ybot@kick.fbx" "$ASSETS/readyplayer.me.glb" "$OUT/kick_rpm.bvh" -q \
				|| fail "rigkit retarget to BVH failed"
			FILES+=("$OUT/kick_rpm.bvh")
		fi
	fi
	if [ -f "$ASSETS/ybot@kick.fbx" ]; then
		"$BLENDER" -b --factory-startup --python-exit-code 1 -P "$HERE/blender/fbx_to_bvh.py" -- "$ASSETS/ybot@kick.fbx" \
			"$OUT/kick_by_blender.bvh" >"$OUT/fbx_to_bvh.log" 2>&1 || fail "blender could not export ybot@kick.fbx (see $OUT/fbx_to_bvh.log)"
		FILES+=("$OUT/kick_by_blender.bvh")
		python3 "$HERE/blender/compare_bvh.py" "$RIGKIT" --against "$ASSETS/ybot@kick.fbx" "$OUT/kick_by_blender.bvh" 1e-4 \
			|| fail "Blender's BVH of ybot@kick.fbx does not read as the FBX moves"
	fi
	if [ -f "$ASSETS/Xbot.glb" ]; then
		"$RIGKIT" convert "$ASSETS/Xbot.glb" "$OUT/xbot_walk.bvh" --clip walk -q || fail "rigkit convert Xbot.glb failed"
		FILES+=("$OUT/xbot_walk.bvh")
	fi
else
	echo "skipped: shared assets (no ${SHARED_DIR:-SHARED_DIR}/assets)"
fi
python3 "$HERE/blender/compare_bvh.py" "$RIGKIT" "$BLENDER" "$OUT" "${FILES[@]}" || fail "see the messages above"
echo "PASSED: ${#FILES[@]} BVH files read alike by Blender and rigkit"
exit 0
