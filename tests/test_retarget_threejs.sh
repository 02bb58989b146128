#!/usr/bin/env bash
# tests/test_retarget_threejs.sh - end-to-end check of `rigkit retarget` with
# three.js (GLTFLoader + AnimationMixer) and the Khronos glTF-Validator.
#
#   bash tests/test_retarget_threejs.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# Cases (outputs in BUILD_DIR/retarget_threejs/):
#  1. `rigkit sample`: source.glb (Mixamo-style T-pose, cm under a 0.01
#     Armature, "mixamorig:*") 'Walk' -> avatar.glb (A-pose, metres, other
#     bone names and rolls).
#  2. SHARED_DIR/assets (skipped when absent): ybot@kick.fbx, Xbot.glb 'walk'
#     and Soldier.glb 'Walk' (faces -Z) -> readyplayer.me.glb (faces +Z).
# tests/node/retarget_check.mjs plays source and result clips in three.js and
# requires every bone pair of the result to point where the source's points
# (character frames, < 1e-3 rad) and the hips to move like the source's
# scaled by the hips heights (1e-3 hips heights). FBX sources are converted
# with `rigkit convert` first (three.js has no reliable FBX loader); the
# retarget itself reads the FBX. tests/node/validate.mjs: every result GLB
# has 0 validator errors.
#
# Node packages: tests/node/package.json + package-lock.json, the ones
# test_gltf_interop.sh installs into BUILD_DIR/gltf_interop/node. Reused from
# there (symlinked node_modules) when that install matches the lock file;
# otherwise installed the same way (`npm ci`) into
# BUILD_DIR/retarget_threejs/node, so that both tests never run `npm ci` on
# the same folder at once under `ctest -j`. Exit code 77 (CTest skip) when
# node/npm are missing or the npm registry cannot be reached.
set -u

RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -n "$RIGKIT" ] && [ -n "$BUILD_DIR" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
[ -x "$RIGKIT" ] || fail "$RIGKIT is not an executable (build rigkit first)"
command -v node >/dev/null 2>&1 || skip "node is not installed (needed for the three.js and glTF-Validator checks)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (needed to install three and gltf-validator)"
NODE_MAJOR=$(node -e 'process.stdout.write(String(process.versions.node.split(".")[0]))' 2>/dev/null || echo 0)
[ "$NODE_MAJOR" -ge 18 ] 2>/dev/null || skip "node $(node --version 2>/dev/null) is too old (need 18 or newer)"

WORK="$BUILD_DIR/retarget_threejs"
PKG="$WORK/node"
SHARED_PKG="$BUILD_DIR/gltf_interop/node"
mkdir -p "$PKG" || fail "cannot create $PKG"
WORK=$(cd "$WORK" && pwd) && PKG="$WORK/node"   # absolute: node runs in $PKG

# Scripts next to node_modules (ESM resolves packages from the importing
# file's folder).
cp "$HERE/node/package.json" "$HERE/node/package-lock.json" "$HERE/node/validate.mjs" "$HERE/node/retarget_check.mjs" "$PKG/" \
	|| fail "cannot copy tests/node files"
if [ -d "$SHARED_PKG/node_modules" ] && cmp -s "$HERE/node/package-lock.json" "$SHARED_PKG/.installed-lock.json"; then
	# test_gltf_interop.sh's install is current: use it.
	if [ ! -L "$PKG/node_modules" ]; then rm -rf "$PKG/node_modules" "$PKG/.installed-lock.json"; fi
	ln -sfn "$SHARED_PKG/node_modules" "$PKG/node_modules" || fail "cannot link $SHARED_PKG/node_modules"
	echo "using the node packages of $SHARED_PKG"
elif [ -L "$PKG/node_modules" ] || [ ! -d "$PKG/node_modules" ] || ! cmp -s "$PKG/package-lock.json" "$PKG/.installed-lock.json"; then
	rm -f "$PKG/node_modules" 2>/dev/null   # a stale link (a real folder is replaced by npm ci)
	echo "installing node packages into $PKG (npm ci)"
	if ! (cd "$PKG" && timeout 600 npm ci --no-audit --no-fund --prefer-offline --fetch-retries=1 --fetch-retry-maxtimeout=15000 --loglevel=error); then
		if ! (cd "$PKG" && timeout 60 npm ping >/dev/null 2>&1); then
			skip "npm registry unreachable: cannot install three and gltf-validator"
		fi
		fail "npm ci failed although the registry answers (see above)"
	fi
	cp "$PKG/package-lock.json" "$PKG/.installed-lock.json"
fi

OUT="$WORK"
rm -f "$OUT"/*.glb
CASES=()      # groups of six for retarget_check.mjs
RESULTS=()    # GLBs to validate
SKIPPED=()

run() {
	echo "+ rigkit $*"
	"$RIGKIT" "$@"
}

# retarget LABEL SOURCE SOURCE_GLB CLIP TARGET RESULT [rigkit retarget options]
# SOURCE is what rigkit retargets from, SOURCE_GLB what three.js plays (the
# same file, or its `rigkit convert` GLB for an FBX source). CLIP names the
# source clip; the result clip has the same name.
retarget() {
	local label=$1 src=$2 src_glb=$3 clip=$4 tgt=$5 res=$6
	shift 6
	# the direction rule alone: three.js checks every bone's direction (the
	# contact solve turns the legs on purpose; tests/test_contacts.c)
	run retarget "$src" "$tgt" "$res" --contacts off "$@" || fail "$label: rigkit retarget failed"
	[ -s "$res" ] || fail "$label: $res was not written"
	CASES+=("$label" "$src_glb" "$clip" "$tgt" "$res" "$clip")
	RESULTS+=("$res")
}

echo "== case 1: rigkit sample (source.glb 'Walk' -> avatar.glb)"
run sample "$OUT" || fail "rigkit sample failed"
[ -s "$OUT/source.glb" ] && [ -s "$OUT/avatar.glb" ] || fail "rigkit sample did not write source.glb and avatar.glb"
retarget sample "$OUT/source.glb" "$OUT/source.glb" Walk "$OUT/avatar.glb" "$OUT/walk.glb" --clip Walk

ASSETS="$SHARED_DIR/assets"
if [ -n "$SHARED_DIR" ] && [ -d "$ASSETS" ]; then ASSETS=$(cd "$ASSETS" && pwd); fi
RPM="$ASSETS/readyplayer.me.glb"
if [ -z "$SHARED_DIR" ] || [ ! -d "$ASSETS" ]; then
	SKIPPED+=("case 2 (shared assets): no ${SHARED_DIR:-SHARED_DIR}/assets")
elif [ ! -f "$RPM" ]; then
	SKIPPED+=("case 2 (shared assets): no $RPM")
else
	echo "== case 2: shared assets -> readyplayer.me.glb"
	if [ -f "$ASSETS/ybot@kick.fbx" ]; then
		run convert "$ASSETS/ybot@kick.fbx" "$OUT/ybot_kick_src.glb" || fail "rigkit convert ybot@kick.fbx failed"
		retarget ybot_kick "$ASSETS/ybot@kick.fbx" "$OUT/ybot_kick_src.glb" mixamo.com "$RPM" "$OUT/kick_rpm.glb"
	else
		SKIPPED+=("ybot@kick.fbx: missing")
	fi
	if [ -f "$ASSETS/Xbot.glb" ]; then
		retarget xbot_walk "$ASSETS/Xbot.glb" "$ASSETS/Xbot.glb" walk "$RPM" "$OUT/xbot_walk_rpm.glb" --clip walk
	else
		SKIPPED+=("Xbot.glb: missing")
	fi
	if [ -f "$ASSETS/Soldier.glb" ]; then
		retarget soldier_walk "$ASSETS/Soldier.glb" "$ASSETS/Soldier.glb" Walk "$RPM" "$OUT/soldier_walk_rpm.glb" --clip Walk
	else
		SKIPPED+=("Soldier.glb: missing")
	fi
fi

status=0
echo "== Khronos glTF-Validator (${#RESULTS[@]} result GLBs)"
(cd "$PKG" && node validate.mjs "${RESULTS[@]}") || status=1
echo "== three.js: source vs result bone directions and hips"
(cd "$PKG" && node retarget_check.mjs "${CASES[@]}") || status=1
for s in "${SKIPPED[@]+"${SKIPPED[@]}"}"; do echo "skipped: $s"; done
[ $status -eq 0 ] || fail "see the messages above"
echo "PASSED: $(( ${#CASES[@]} / 6 )) retargets match in three.js, 0 validator errors"
exit 0
