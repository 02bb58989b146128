#!/usr/bin/env bash
# tests/test_wasm.sh - the WebAssembly build (docs/wasm.md) run under node
# and compared with the native CLI.
#
#   bash tests/test_wasm.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# Builds the module with scripts/build-wasm.sh --no-demo into
# BUILD_DIR/wasm/build (incremental), then wasm/test/wasm_check.mjs:
#  1. the built-in samples made in the module (rk_demo_scene, the demo's
#     default): source 'Walk' -> avatar; the same from the native `rigkit
#     sample` GLB files;
#  2. with SHARED_DIR/assets: ybot@kick.fbx 'mixamo.com' -> readyplayer.me.glb
#     (a zlib-compressed binary FBX: libdeflate in WASM).
# Each result GLB: valid header and chunks, the clip present. The same
# retargets run natively (`rigkit sample`, `rigkit retarget`); both results
# are evaluated with `rigkit pose --json --joints` at every key time and
# every midpoint between keys, and every bone direction (parent joint ->
# joint) and world rotation must agree within 1e-5 rad, every joint position
# within 1e-5 of the skeleton's size (identical inputs give byte-identical
# GLBs today: reported, not required).
# Timings (median of 5, load + retarget + GLB write) are printed for both.
# The module is built with and without WebAssembly SIMD (-msimd128): the
# retargets run the SIMD one; wasm/test/simd_check.mjs compares the two
# builds' skinning (bit for bit expected; against float64 skinning in JS
# within float rounding) on the shared avatars' skinned meshes, their
# runtime sampling, and the GLBs of the non-SIMD fallback binary.
#
# Exit code 77 (CTest skip) when emcc or node 18+ is missing, or when the
# Debian sources of libdeflate/meshoptimizer cannot be fetched.
set -u

RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RIGKIT_WASM_RUNS:-5}

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

if [ -z "$RIGKIT" ] || [ -z "$BUILD_DIR" ]; then fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"; fi
[ -x "$RIGKIT" ] || fail "$RIGKIT is not an executable (build rigkit first)"
command -v emcc >/dev/null 2>&1 || skip "emcc is not installed (bash scripts/install-deps.sh wasm)"
command -v node >/dev/null 2>&1 || skip "node is not installed"
NODE_MAJOR=$(node -e 'process.stdout.write(String(process.versions.node.split(".")[0]))' 2>/dev/null || echo 0)
[ "$NODE_MAJOR" -ge 18 ] 2>/dev/null || skip "node $(node --version 2>/dev/null) is too old (need 18 or newer)"

WORK="$BUILD_DIR/wasm"
mkdir -p "$WORK/out" || fail "cannot create $WORK"
WORK=$(cd "$WORK" && pwd)
OUT="$WORK/out"
rm -f "$OUT"/*.glb "$OUT"/*.json

echo "== scripts/build-wasm.sh --no-demo $WORK/build"
JOBS=${JOBS:-2} bash "$ROOT/scripts/build-wasm.sh" --no-demo "$WORK/build" >"$WORK/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	tail -n 40 "$WORK/build.log"
	[ $rc -eq 3 ] && skip "the Debian source packages could not be fetched (see above)"
	[ $rc -eq 2 ] && skip "emscripten is not usable"
	fail "scripts/build-wasm.sh failed (exit $rc)"
fi
tail -n 1 "$WORK/build.log"
WASM="$WORK/build"

# ---- the WASM side ------------------------------------------------------------
# The native sample files first: the WASM module also reads them, so one case
# has exactly the native inputs.
"$RIGKIT" sample "$OUT" >/dev/null || fail "rigkit sample failed"
CASES=(sample:source sample:avatar Walk wasm_sample_walk
	"$OUT/source.glb" "$OUT/avatar.glb" Walk wasm_sample_files_walk)
# Native retargets (label, source, target, clip) and which WASM result each
# is compared with (native label, WASM label).
NATIVE=(native_sample_walk "$OUT/source.glb" "$OUT/avatar.glb" Walk)
PAIRS=(native_sample_walk wasm_sample_walk native_sample_walk wasm_sample_files_walk)
ASSETS="$SHARED_DIR/assets"
HAVE_SHARED=0
if [ -n "$SHARED_DIR" ] && [ -f "$ASSETS/ybot@kick.fbx" ] && [ -f "$ASSETS/readyplayer.me.glb" ]; then
	HAVE_SHARED=1
	CASES+=("$ASSETS/ybot@kick.fbx" "$ASSETS/readyplayer.me.glb" mixamo.com wasm_kick_rpm)
	NATIVE+=(native_kick_rpm "$ASSETS/ybot@kick.fbx" "$ASSETS/readyplayer.me.glb" mixamo.com)
	PAIRS+=(native_kick_rpm wasm_kick_rpm)
fi
echo "== WASM retargets (node $(node --version))"
node "$ROOT/wasm/test/wasm_check.mjs" retarget "$WASM" "$OUT" "$RUNS" "${CASES[@]}" | tee "$WORK/wasm.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "WASM retargets (see above)"

# ---- SIMD: the -msimd128 build against the non-SIMD one ---------------------------
# Skinning on real avatars (every skinned mesh, posed) and a synthetic set,
# checked against float64 skinning in JS; runtime sampling; the rigkit.mjs
# fallback binary (wasm/test/simd_check.mjs).
SIMD_FILES=()
for f in readyplayer.me.glb Xbot.glb Soldier.glb ybot.fbx; do
	[ -f "$ASSETS/$f" ] && SIMD_FILES+=("$ASSETS/$f")
done
[ -f "$ASSETS/Xbot.glb" ] && SIMD_FILES+=(--rig "$ASSETS/Xbot.glb")
echo "== WASM SIMD vs no SIMD"
node "$ROOT/wasm/test/simd_check.mjs" "$WASM" "${SIMD_FILES[@]}" || fail "WASM SIMD check (see above)"

# ---- the native side ------------------------------------------------------------
# median_ms CMD...: median wall time of $RUNS runs in ms.
median_ms() {
	local times=() i a b
	for ((i = 0; i < RUNS; i++)); do
		a=$(date +%s%N)
		"$@" >/dev/null 2>&1 || return 1
		b=$(date +%s%N)
		times+=($(((b - a) / 1000)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f", m/1000}'
}

echo "== native retargets"
declare -A CLIP_OF
for ((i = 0; i < ${#NATIVE[@]}; i += 4)); do
	label=${NATIVE[i]} src=${NATIVE[i + 1]} tgt=${NATIVE[i + 2]} clip=${NATIVE[i + 3]}
	CLIP_OF[$label]=$clip
	"$RIGKIT" retarget "$src" "$tgt" "$OUT/$label.glb" --clip "$clip" || fail "$label: rigkit retarget failed"
	ms=$(median_ms "$RIGKIT" retarget "$src" "$tgt" "$OUT/$label.timing.glb" --clip "$clip") || fail "$label: timing run failed"
	echo "timing $label $ms ms (the whole process: start, read files, load, retarget, write the GLB file)"
done

echo "== WASM vs native: rigkit pose at every key and every midpoint between keys"
status=0
for ((i = 0; i < ${#PAIRS[@]}; i += 2)); do
	label=${PAIRS[i]} wasm_label=${PAIRS[i + 1]} clip=${CLIP_OF[${PAIRS[i]}]}
	frames=$(sed -n "s/^$wasm_label: .* \([0-9][0-9]*\) frames.*/\1/p" "$WORK/wasm.log")
	[ -n "$frames" ] || fail "$wasm_label: no frame count in the WASM log"
	samples=$((2 * frames - 1))
	[ -f "$OUT/$label.pose.json" ] || "$RIGKIT" pose "$OUT/$label.glb" --clip "$clip" --samples "$samples" --joints --json \
		>"$OUT/$label.pose.json" || fail "$label: rigkit pose on the native result failed"
	"$RIGKIT" pose "$OUT/$wasm_label.glb" --clip "$clip" --samples "$samples" --joints --json >"$OUT/$wasm_label.pose.json" \
		|| fail "$wasm_label: rigkit pose on the WASM result failed"
	if cmp -s "$OUT/$label.glb" "$OUT/$wasm_label.glb"; then
		echo "$wasm_label.glb: byte for byte the native $label.glb"
	else
		echo "$wasm_label.glb: differs from the native $label.glb in $(cmp -l "$OUT/$label.glb" "$OUT/$wasm_label.glb" 2>/dev/null | wc -l) bytes (float rounding), compared by pose:"
	fi
	node "$ROOT/wasm/test/wasm_check.mjs" compare "$OUT/$wasm_label.glb" "$OUT/$label.pose.json" "$OUT/$wasm_label.pose.json" \
		|| status=1
done

[ $HAVE_SHARED -eq 1 ] || echo "skipped: ybot@kick.fbx -> readyplayer.me.glb (no ${SHARED_DIR:-SHARED_DIR}/assets)"
[ $status -eq 0 ] || fail "WASM and native results differ (see above)"
echo "PASSED: $(( ${#PAIRS[@]} / 2 )) WASM retargets match the native ones (bone directions and rotations within 1e-5 rad)"
exit 0
