#!/usr/bin/env bash
# tests/test_gltf_interop.sh - interop checks of rigkit's glTF writer.
#
#   bash tests/test_gltf_interop.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# 1. `BUILD_DIR/test_gltf_write export_interop` writes a GLB for every shared
#    asset (../shared/assets/*.glb, *.fbx), every FBX file of the conformance
#    corpus and two hand-built scenes, each with NAME.expected.json (rigkit's
#    own evaluation: node world positions and mesh bounding boxes at 10 times
#    per clip), plus .gltf (JSON, embedded buffer) versions of the shared
#    assets.
# 2. tests/node/validate.mjs runs the Khronos glTF-Validator (npm
#    gltf-validator) on every GLB: any error fails the test.
# 3. tests/node/three_check.mjs loads every GLB with three.js GLTFLoader,
#    plays each clip with AnimationMixer and compares with the expected file
#    within 1e-4 of the scene's height.
#
# The node packages (tests/node/package.json + package-lock.json) are
# installed with `npm ci` into BUILD_DIR/gltf_interop/node (nothing is written
# to the source tree). Exit code 77 (CTest skip) when node/npm are missing or
# the npm registry cannot be reached.
set -u

SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -n "$BUILD_DIR" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
. "$HERE/node_lib.sh"
rk_node_require "the glTF-Validator and three.js checks"

TEST_BIN="$BUILD_DIR/test_gltf_write"
[ -x "$TEST_BIN" ] || fail "$TEST_BIN not built (build the tests first)"

WORK="$BUILD_DIR/gltf_interop"
PKG="$WORK/node"
OUT="$WORK/out"
mkdir -p "$PKG" || fail "cannot create $PKG"

# Scripts and package files next to their node_modules (ESM resolves
# packages from the importing file's folder).
cp "$HERE/node/package.json" "$HERE/node/package-lock.json" "$HERE/node/validate.mjs" "$HERE/node/three_check.mjs" "$PKG/" \
	|| fail "cannot copy tests/node files"
rk_npm_ci "$PKG" "gltf-validator and three"

rm -rf "$OUT"
mkdir -p "$OUT" || fail "cannot create $OUT"
echo "== writing GLBs and expectations into $OUT"
if [ -n "$SHARED_DIR" ]; then export RIGKIT_SHARED_DIR="$SHARED_DIR"; fi
RK_GLTF_EXPORT_DIR="$OUT" RK_GLTF_EXPORT_CONFORMANCE=1 "$TEST_BIN" export_interop || fail "test_gltf_write export_interop failed"
ls "$OUT"/*.glb >/dev/null 2>&1 || fail "no GLB was written"
COUNT=$(ls "$OUT"/*.glb | wc -l)
JSON_FILES=$(ls "$OUT"/*.gltf 2>/dev/null | wc -l)

status=0
echo "== Khronos glTF-Validator ($COUNT GLB + $JSON_FILES .gltf files)"
(cd "$PKG" && node validate.mjs "$OUT"/*.glb "$OUT"/*.gltf) || status=1
echo "== three.js GLTFLoader + AnimationMixer"
(cd "$PKG" && node three_check.mjs "$OUT") || status=1
[ $status -eq 0 ] || fail "see the messages above"
echo "PASSED: $COUNT GLB + $JSON_FILES .gltf files valid (0 validator errors), GLBs matching in three.js"
exit 0
