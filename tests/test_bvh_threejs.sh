#!/usr/bin/env bash
# tests/test_bvh_threejs.sh - the BVH reader and writer against three.js
# BVHLoader (npm three, the version tests/node/package-lock.json pins).
#
#   bash tests/test_bvh_threejs.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
#  1. reader: every tests/fixtures/bvh/*.bvh (but the Blender-style
#     *_absolute.bvh, which three.js misreads) and SHARED_DIR/assets/example.bvh,
#     joint world positions of `rigkit pose` vs three.js at every frame
#     (tests/node/bvh_check.mjs, 1e-6 of the skeleton height);
#  2. writer: `rigkit convert X X.bvh` of every fixture and of the shared
#     ybot@kick.fbx, Xbot.glb, Soldier.glb: three.js reads the written file
#     with the joint positions rigkit evaluates on X (and on the written
#     file itself); `rigkit retarget ... OUT.bvh` against the GLB of the same
#     retarget;
#  3. BVH source: `rigkit retarget mixamo_walk.bvh AVATAR` (readyplayer.me.glb,
#     Xbot.glb) checked by tests/node/retarget_check.mjs with the BVH played
#     by BVHLoader: bone directions within 0.01 degrees at every key and
#     midpoint.
# Node packages: as tests/test_retarget_threejs.sh (the gltf_interop install
# when current, else `npm ci` into BUILD_DIR/bvh_threejs/node). Exit code 77
# (CTest skip) when node/npm are missing or the registry cannot be reached.
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
RIGKIT=$(cd "$(dirname "$RIGKIT")" && pwd)/$(basename "$RIGKIT")
command -v node >/dev/null 2>&1 || skip "node is not installed (needed for three.js BVHLoader)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (needed to install three)"

WORK="$BUILD_DIR/bvh_threejs"
PKG="$WORK/node"
SHARED_PKG="$BUILD_DIR/gltf_interop/node"
mkdir -p "$PKG" || fail "cannot create $PKG"
WORK=$(cd "$WORK" && pwd) && PKG="$WORK/node"
cp "$HERE/node/package.json" "$HERE/node/package-lock.json" "$HERE/node/bvh_check.mjs" "$HERE/node/retarget_check.mjs" "$PKG/" \
	|| fail "cannot copy tests/node files"
if [ -d "$SHARED_PKG/node_modules" ] && cmp -s "$HERE/node/package-lock.json" "$SHARED_PKG/.installed-lock.json"; then
	[ -L "$PKG/node_modules" ] || rm -rf "$PKG/node_modules" "$PKG/.installed-lock.json"
	ln -sfn "$SHARED_PKG/node_modules" "$PKG/node_modules" || fail "cannot link $SHARED_PKG/node_modules"
elif [ -L "$PKG/node_modules" ] || [ ! -d "$PKG/node_modules" ] || ! cmp -s "$PKG/package-lock.json" "$PKG/.installed-lock.json"; then
	rm -f "$PKG/node_modules" 2>/dev/null
	echo "installing node packages into $PKG (npm ci)"
	if ! (cd "$PKG" && timeout 600 npm ci --no-audit --no-fund --prefer-offline --fetch-retries=1 --fetch-retry-maxtimeout=15000 --loglevel=error); then
		(cd "$PKG" && timeout 60 npm ping >/dev/null 2>&1) || skip "npm registry unreachable: cannot install three"
		fail "npm ci failed although the registry answers (see above)"
	fi
	cp "$PKG/package-lock.json" "$PKG/.installed-lock.json"
fi

OUT="$WORK/out"
rm -rf "$OUT" && mkdir -p "$OUT" || fail "cannot create $OUT"
ASSETS="$SHARED_DIR/assets"
[ -n "$SHARED_DIR" ] && [ -d "$ASSETS" ] && ASSETS=$(cd "$ASSETS" && pwd) || ASSETS=""
SKIPPED=()
READ=() WRITE=() RETARGET=()
status=0

run() { "$RIGKIT" "$@" -q || fail "rigkit $* failed"; }

for f in "$FIX"/*.bvh; do
	n=$(basename "$f" .bvh)
	# *_absolute.bvh hold Blender-style absolute positions, which three.js
	# reads as offsets (docs/bvh.md): only their rigkit-written BVH is compared.
	case $n in *_absolute) ;; *) READ+=("read $n" "$f" self) ;; esac
	run convert "$f" "$OUT/$n.bvh"
	WRITE+=("write $n" "$OUT/$n.bvh" "source=$f@$n" "reread $n" "$OUT/$n.bvh" self)
done
if [ -n "$ASSETS" ]; then
	[ -f "$ASSETS/example.bvh" ] && READ+=("read example" "$ASSETS/example.bvh" self)
	for spec in "ybot@kick.fbx:mixamo.com" "Xbot.glb:walk" "Soldier.glb:Walk"; do
		file=${spec%:*} clip=${spec##*:} n=${file%.*}
		[ -f "$ASSETS/$file" ] || { SKIPPED+=("$file: missing"); continue; }
		run convert "$ASSETS/$file" "$OUT/$n.bvh" --clip "$clip"
		WRITE+=("write $file" "$OUT/$n.bvh" "source=$ASSETS/$file@$clip")
	done
	RPM="$ASSETS/readyplayer.me.glb"
	if [ -f "$RPM" ] && [ -f "$ASSETS/ybot@kick.fbx" ]; then
		run retarget "$ASSETS/ybot@kick.fbx" "$RPM" "$OUT/kick_rpm.bvh"
		run retarget "$ASSETS/ybot@kick.fbx" "$RPM" "$OUT/kick_rpm.glb" --drop-target-clips
		WRITE+=("retarget to BVH" "$OUT/kick_rpm.bvh" "source=$OUT/kick_rpm.glb@mixamo.com")
	fi
	for avatar in readyplayer.me.glb Xbot.glb; do
		[ -f "$ASSETS/$avatar" ] || { SKIPPED+=("$avatar: missing"); continue; }
		# the direction rule alone (three.js checks every bone; the contact solve turns the legs)
		run retarget "$FIX/mixamo_walk.bvh" "$ASSETS/$avatar" "$OUT/walk_$avatar" --contacts off
		RETARGET+=("bvh -> $avatar" "$FIX/mixamo_walk.bvh" mixamo_walk "$ASSETS/$avatar" "$OUT/walk_$avatar" mixamo_walk)
	done
else
	SKIPPED+=("shared assets: no ${SHARED_DIR:-SHARED_DIR}/assets")
fi

echo "== reader: rigkit vs three.js BVHLoader"
(cd "$PKG" && node bvh_check.mjs "$RIGKIT" "${READ[@]}") || status=1
echo "== writer: written BVH in three.js vs rigkit's evaluation of the input"
(cd "$PKG" && node bvh_check.mjs "$RIGKIT" "${WRITE[@]}") || status=1
if [ ${#RETARGET[@]} -gt 0 ]; then
	echo "== BVH source retargeted: bone directions (0.01 degrees)"
	(cd "$PKG" && RIGKIT_ANGLE_TOL=1.7453292519943295e-4 node retarget_check.mjs "${RETARGET[@]}") || status=1
fi
for s in "${SKIPPED[@]+"${SKIPPED[@]}"}"; do echo "skipped: $s"; done
[ $status -eq 0 ] || fail "see the messages above"
echo "PASSED: $(( ${#READ[@]} / 3 )) read, $(( ${#WRITE[@]} / 3 )) written, $(( ${#RETARGET[@]} / 6 )) retargeted BVH checks"
exit 0
