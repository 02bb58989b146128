#!/usr/bin/env bash
# tests/test_gltf_compressed_npm.sh - compressed glTF as users make it, from the
# shared avatars (docs/gltf.md, "Compressed input").
#
#   bash tests/test_gltf_compressed_npm.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# The tools are the ones users run, pinned in tests/compressed/package.json
# (gltfpack, @gltf-transform/cli, gltf-validator), installed with `npm ci`
# into BUILD_DIR/gltf_compressed/node. For every shared GLB it makes
#   gp_c       gltfpack -c              EXT_meshopt_compression + KHR_mesh_quantization
#   gp_q       gltfpack                 KHR_mesh_quantization
#   gt_meshopt gltf-transform meshopt   EXT_meshopt_compression (+ quantization)
#   gt_draco   gltf-transform draco     KHR_draco_mesh_compression
#   gt_webp    gltf-transform webp      EXT_texture_webp (files with textures)
# and checks, against the uncompressed file:
#   1. rigkit loads it (`info`) and the tool did use the extension;
#   2. `convert X.obj` (posed at the first clip's start, skinning and blend
#      shapes applied) has the same vertices as the original's OBJ within
#      the compression's error: symmetric Hausdorff distance of the vertex
#      sets (tests/compressed/objdist.py; the tools reorder and weld
#      vertices) relative to the bounding-box diagonal;
#   3. `convert X.glb` writes a GLB the Khronos glTF-Validator passes with 0
#      errors;
#   4. humanoids: `retarget ybot@kick.fbx X out.glb` poses like the same
#      retarget onto the original at 0.5 s (OBJ distance as in 2);
#   5. rigkit's own GLB of Xbot, compressed by gltfpack -c, reads back.
# Tolerances (relative to the diagonal): gltfpack and glTF-Transform meshopt
# quantize positions to 14 bits, skin weights to 8 bits and (gltfpack)
# rotations to 12 bits with 30 Hz resampling: 2e-3; glTF-Transform draco
# quantizes positions (14 bits), normals and UVs only: 2.5e-4; webp changes
# no geometry: 1e-6.
# Exit code 77 (CTest skip) without ../shared, node/npm or the npm registry.
set -u

CLI=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -n "$BUILD_DIR" ] && [ -x "$CLI" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
[ -n "$SHARED_DIR" ] && [ -f "$SHARED_DIR/assets/SOURCES.md" ] || skip "shared assets not found ($SHARED_DIR/assets)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
. "$HERE/node_lib.sh"
rk_node_require "gltfpack and glTF-Transform"

mkdir -p "$BUILD_DIR/gltf_compressed" || fail "cannot create $BUILD_DIR/gltf_compressed"
WORK=$(cd "$BUILD_DIR/gltf_compressed" && pwd)
PKG="$WORK/node"
OUT="$WORK/out"
mkdir -p "$PKG" || fail "cannot create $PKG"
cp "$HERE/compressed/package.json" "$HERE/compressed/package-lock.json" "$HERE/node/validate.mjs" "$PKG/" || fail "cannot copy the package files"
rk_npm_ci "$PKG" "gltfpack, glTF-Transform and gltf-validator"
BIN="$PKG/node_modules/.bin"
rm -rf "$OUT"
mkdir -p "$OUT" || fail "cannot create $OUT"

A="$SHARED_DIR/assets"
MOTION="$A/ybot@kick.fbx"
status=0
bad() { echo "FAIL: $*"; status=1; }

# extension used by a GLB (its JSON chunk)
uses() {
	python3 - "$1" "$2" <<'EOF'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", d[12:16])[0]
j = json.loads(d[20:20 + n])
sys.exit(0 if sys.argv[2] in j.get("extensionsUsed", []) else 1)
EOF
}

dist() {  # A.obj B.obj TOL WHAT
	local r
	r=$(python3 "$HERE/compressed/objdist.py" "$1" "$2" "$3") && echo "  ok   $4: $r" || bad "$4: $r (tolerance $3)"
}

for src in "$A"/*.glb; do
	base=$(basename "$src" .glb)
	echo "== $base"
	"$CLI" convert "$src" "$OUT/$base.obj" -q || { bad "$base: convert of the original failed"; continue; }
	humanoid=0
	if [ -f "$MOTION" ] && "$CLI" retarget "$MOTION" "$src" "$OUT/$base.rt.glb" --drop-target-clips -q >/dev/null 2>&1; then
		humanoid=1
		"$CLI" convert "$OUT/$base.rt.glb" "$OUT/$base.rt.obj" --time 0.5 -q || bad "$base: retargeted original does not convert"
	fi
	has_images=0
	python3 - "$src" <<'EOF' && has_images=1
import json, struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", d[12:16])[0]
sys.exit(0 if json.loads(d[20:20 + n]).get("images") else 1)
EOF
	for v in gp_c gp_q gt_meshopt gt_draco gt_webp; do
		f="$OUT/$base.$v.glb"
		case $v in
		gp_c) ext=EXT_meshopt_compression tol=2e-3; "$BIN/gltfpack" -i "$src" -o "$f" -c >/dev/null 2>&1 ;;
		gp_q) ext=KHR_mesh_quantization tol=2e-3; "$BIN/gltfpack" -i "$src" -o "$f" >/dev/null 2>&1 ;;
		gt_meshopt) ext=EXT_meshopt_compression tol=2e-3; "$BIN/gltf-transform" meshopt "$src" "$f" >/dev/null 2>&1 ;;
		gt_draco) ext=KHR_draco_mesh_compression tol=2.5e-4; "$BIN/gltf-transform" draco "$src" "$f" >/dev/null 2>&1 ;;
		gt_webp) [ $has_images = 1 ] || continue
			ext=EXT_texture_webp tol=1e-6; "$BIN/gltf-transform" webp "$src" "$f" >/dev/null 2>&1 ;;
		esac
		[ -s "$f" ] || { bad "$base.$v: the tool wrote nothing"; continue; }
		uses "$f" "$ext" || bad "$base.$v: the tool did not use $ext"
		if ! "$CLI" info "$f" -q >/dev/null; then bad "$base.$v: rigkit cannot load it"; continue; fi
		"$CLI" convert "$f" "$OUT/$base.$v.obj" -q || { bad "$base.$v: convert to OBJ failed"; continue; }
		dist "$OUT/$base.obj" "$OUT/$base.$v.obj" $tol "$base.$v posed mesh"
		"$CLI" convert "$f" "$OUT/$base.$v.out.glb" -q || bad "$base.$v: convert to GLB failed"
		if [ $humanoid = 1 ]; then
			if "$CLI" retarget "$MOTION" "$f" "$OUT/$base.$v.rt.glb" --drop-target-clips -q >/dev/null \
				&& "$CLI" convert "$OUT/$base.$v.rt.glb" "$OUT/$base.$v.rt.obj" --time 0.5 -q; then
				dist "$OUT/$base.rt.obj" "$OUT/$base.$v.rt.obj" $tol "$base.$v retargeted at 0.5 s"
			else
				bad "$base.$v: retarget failed"
			fi
		fi
	done
done

# rigkit's own output, optimised the way users do it, reads back
if [ -f "$A/Xbot.glb" ]; then
	echo "== rigkit output through gltfpack -c"
	"$CLI" convert "$A/Xbot.glb" "$OUT/rk_Xbot.glb" -q && "$CLI" convert "$OUT/rk_Xbot.glb" "$OUT/rk_Xbot.obj" -q \
		&& "$BIN/gltfpack" -i "$OUT/rk_Xbot.glb" -o "$OUT/rk_Xbot.gp_c.glb" -c >/dev/null 2>&1 \
		&& "$CLI" convert "$OUT/rk_Xbot.gp_c.glb" "$OUT/rk_Xbot.gp_c.obj" -q \
		|| bad "rigkit's Xbot output, compressed by gltfpack, does not read back"
	[ -f "$OUT/rk_Xbot.gp_c.obj" ] && dist "$OUT/rk_Xbot.obj" "$OUT/rk_Xbot.gp_c.obj" 2e-3 "rigkit Xbot output, gltfpack -c"
fi

echo "== Khronos glTF-Validator on rigkit's GLBs converted from compressed input"
(cd "$PKG" && node validate.mjs "$OUT"/*.out.glb) || bad "glTF-Validator reported errors"
[ $status = 0 ] && echo "PASSED" || echo "FAILED"
exit $status
