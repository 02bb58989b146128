#!/usr/bin/env bash
# tests/test_vrm_interop.sh - VRM 1.0 / 0.x and VRM Animation through rigkit,
# checked with the Khronos glTF-Validator, @pixiv/three-vrm and
# @pixiv/three-vrm-animation (tests/vrm/vrm_check.mjs, three.js in node).
#
#   bash tests/test_vrm_interop.sh RIGKIT_CLI SHARED_DIR BUILD_DIR
#
# Avatars: the committed fixtures (tests/fixtures/vroid_vrm{1,0}.vrm, VRoid
# names; unity_vrm0.vrm, Unity-style 0.x names that mislead name matching on
# the thumbs), the built-in demo avatar (`rigkit sample`) made a VRM by
# tests/fixtures/make_vrm.py (1.0 with its nodes reversed so the writer
# renumbers them, 0.x with every node renamed so names say nothing), and,
# when ../shared is there, Xbot.glb (0.x, reversed) and readyplayer.me.glb
# (1.0). make_vrm.py writes each declared map (bone -> node name) from its
# own name table. For every avatar:
#   1. gltf-validator: no errors, for the VRM and every file rigkit writes;
#   2. three-vrm loads it with exactly the declared humanoid, and
#      `rigkit humanoid --json` maps exactly the declared bones (thumbs
#      included, VRM 0.x thumbs as VRM 1.0's);
#   3. `rigkit convert A.vrm OUT.vrm` and `rigkit retarget SRC A.vrm OUT.vrm`
#      load in three-vrm with the same summary (humanoid, expressions,
#      spring joints, node constraints, MToon materials, meta name);
#   4. `rigkit retarget SRC A.vrm OUT.vrma` played with three-vrm-animation
#      on A.vrm: bone directions within 1e-4 rad of rigkit's evaluation of
#      the same retarget written as GLB (`rigkit pose --json`), hips within
#      1e-4 hips heights.
# Node packages: tests/vrm/package.json + package-lock.json, installed with
# `npm ci` into BUILD_DIR/vrm_interop/node. Exit 77 (skip) without node,
# npm, python3 or a reachable npm registry.
set -u

RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

[ -n "$BUILD_DIR" ] && [ -x "$RIGKIT" ] || fail "usage: $0 RIGKIT_CLI SHARED_DIR BUILD_DIR"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (tests/fixtures/make_vrm.py builds the VRMs)"
. "$HERE/node_lib.sh"
rk_node_require "three-vrm and the glTF-Validator"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd) || fail "no build dir"
RIGKIT=$(cd "$(dirname "$RIGKIT")" && pwd)/$(basename "$RIGKIT")
if [ -n "$SHARED_DIR" ] && [ -d "$SHARED_DIR" ]; then SHARED_DIR=$(cd "$SHARED_DIR" && pwd); fi

WORK="$BUILD_DIR/vrm_interop"
PKG="$WORK/node"
OUT="$WORK/out"
mkdir -p "$PKG" || fail "cannot create $PKG"
cp "$HERE/vrm/package.json" "$HERE/vrm/package-lock.json" "$HERE/vrm/vrm_check.mjs" "$HERE/node/validate.mjs" "$PKG/" \
	|| fail "cannot copy tests/vrm files"
rk_npm_ci "$PKG" "three-vrm and gltf-validator"
rm -rf "$OUT"
mkdir -p "$OUT" || fail "cannot create $OUT"
MAKE_VRM="$HERE/fixtures/make_vrm.py"
FIX="$HERE/fixtures"
status=0
bad() { echo "FAIL: $*"; status=1; }

# json_same A B: two JSON files hold equal values
json_same() { python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])) else 1)' "$1" "$2"; }
# humanoid_of SUMMARY OUT: the summary's humanoid alone
humanoid_of() { python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["humanoid"], open(sys.argv[2], "w"), sort_keys=True)' "$1" "$2"; }
# rigkit_map FILE OUT: `rigkit humanoid --json` bones
rigkit_map() { "$RIGKIT" humanoid "$1" --json 2>/dev/null | python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["bones"], open(sys.argv[1], "w"), sort_keys=True)' "$2"; }

# ---- the avatars -------------------------------------------------------------
"$RIGKIT" sample "$OUT" -q >/dev/null || fail "rigkit sample failed"
SRC="$OUT/source.glb"; SRC_CLIP=Walk
cp "$FIX/vroid_vrm1.vrm" "$FIX/vroid_vrm0.vrm" "$FIX/unity_vrm0.vrm" "$OUT/"
cp "$FIX/vroid.map.json" "$OUT/vroid_vrm1.map.json"
cp "$FIX/vroid.map.json" "$OUT/vroid_vrm0.map.json"
cp "$FIX/unity.map.json" "$OUT/unity_vrm0.map.json"
AVATARS="vroid_vrm1 vroid_vrm0 unity_vrm0 demo_vrm1 demo_vrm0"
python3 "$MAKE_VRM" add "$OUT/avatar.glb" "$OUT/demo_vrm1.vrm" --vrm 1 --reverse-nodes --map "$OUT/demo_vrm1.map.json" || fail "make_vrm.py add failed"
python3 "$MAKE_VRM" add "$OUT/avatar.glb" "$OUT/demo_vrm0.vrm" --vrm 0 --rename --map "$OUT/demo_vrm0.map.json" || fail "make_vrm.py add failed"
if [ -n "$SHARED_DIR" ] && [ -f "$SHARED_DIR/assets/Xbot.glb" ] && [ -f "$SHARED_DIR/assets/readyplayer.me.glb" ]; then
	python3 "$MAKE_VRM" add "$SHARED_DIR/assets/Xbot.glb" "$OUT/xbot_vrm0.vrm" --vrm 0 --reverse-nodes --map "$OUT/xbot_vrm0.map.json" || fail "make_vrm.py add failed"
	python3 "$MAKE_VRM" add "$SHARED_DIR/assets/readyplayer.me.glb" "$OUT/rpm_vrm1.vrm" --vrm 1 --map "$OUT/rpm_vrm1.map.json" || fail "make_vrm.py add failed"
	AVATARS="$AVATARS xbot_vrm0 rpm_vrm1"
else
	echo "note: ../shared/assets not found: only the fixture and demo avatars are checked"
fi

for A in $AVATARS; do
	V="$OUT/$A.vrm"; M="$OUT/$A.map.json"
	echo "== $A"
	(cd "$PKG" && node vrm_check.mjs summary "$V" > "$OUT/$A.summary.json" 2>"$OUT/$A.summary.err") || { bad "$A: three-vrm: $(cat "$OUT/$A.summary.err")"; continue; }
	humanoid_of "$OUT/$A.summary.json" "$OUT/$A.three.json"
	json_same "$OUT/$A.three.json" "$M" || bad "$A: three-vrm's humanoid differs from the declared map ($OUT/$A.three.json vs $M)"
	rigkit_map "$V" "$OUT/$A.rigkit.json" || bad "$A: rigkit humanoid failed"
	json_same "$OUT/$A.rigkit.json" "$M" && echo "ok   rigkit maps the $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$M") declared bones" \
		|| bad "$A: rigkit's humanoid differs from the declared map ($OUT/$A.rigkit.json vs $M)"

	# .vrm out: converted and retargeted
	"$RIGKIT" convert "$V" "$OUT/$A.conv.vrm" -q || bad "$A: rigkit convert to .vrm failed"
	"$RIGKIT" retarget "$SRC" "$V" "$OUT/$A.ret.vrm" --clip "$SRC_CLIP" -q >/dev/null || bad "$A: rigkit retarget to .vrm failed"
	for K in conv ret; do
		(cd "$PKG" && node vrm_check.mjs summary "$OUT/$A.$K.vrm" > "$OUT/$A.$K.summary.json" 2>/dev/null) || { bad "$A.$K.vrm: three-vrm found no VRM"; continue; }
		json_same "$OUT/$A.$K.summary.json" "$OUT/$A.summary.json" && echo "ok   $A.$K.vrm: three-vrm summary as the input's" \
			|| bad "$A.$K.vrm: three-vrm summary differs from the input's ($OUT/$A.$K.summary.json vs $OUT/$A.summary.json)"
	done

	# .vrma out, against rigkit's evaluation of the same retarget
	"$RIGKIT" retarget "$SRC" "$V" "$OUT/$A.walk.vrma" --clip "$SRC_CLIP" -q >/dev/null || { bad "$A: rigkit retarget to .vrma failed"; continue; }
	"$RIGKIT" retarget "$SRC" "$V" "$OUT/$A.walk.glb" --clip "$SRC_CLIP" --drop-target-clips -q >/dev/null || { bad "$A: rigkit retarget to .glb failed"; continue; }
	"$RIGKIT" pose "$OUT/$A.walk.glb" --samples 25 --json > "$OUT/$A.walk.pose.json" || { bad "$A: rigkit pose failed"; continue; }
	(cd "$PKG" && node vrm_check.mjs play "$V" "$OUT/$A.walk.vrma" "$OUT/$A.walk.pose.json" "$M") || bad "$A: three-vrm-animation disagrees with rigkit"
done

# A non-VRM A-pose avatar's motion as VRMA: its rest is written as VRM's
# T-pose, so on the T-pose VRoid fixture the arms and legs point as on the
# avatar (the fixture's arm and leg bones lie exactly along the T-pose
# directions). demo_vrm1.map.json names the avatar's nodes (not renamed).
echo "== demo avatar (A-pose, not a VRM) -> vroid_vrm1"
"$RIGKIT" retarget "$SRC" "$OUT/avatar.glb" "$OUT/avatar.walk.vrma" --clip "$SRC_CLIP" -q >/dev/null || bad "avatar: retarget to .vrma failed"
"$RIGKIT" retarget "$SRC" "$OUT/avatar.glb" "$OUT/avatar.walk.glb" --clip "$SRC_CLIP" --drop-target-clips -q >/dev/null || bad "avatar: retarget to .glb failed"
"$RIGKIT" pose "$OUT/avatar.walk.glb" --samples 25 --json > "$OUT/avatar.walk.pose.json" || bad "avatar: rigkit pose failed"
LIMBS=leftUpperArm:leftLowerArm,leftLowerArm:leftHand,rightUpperArm:rightLowerArm,rightLowerArm:rightHand
LIMBS=$LIMBS,leftUpperLeg:leftLowerLeg,leftLowerLeg:leftFoot,rightUpperLeg:rightLowerLeg,rightLowerLeg:rightFoot
(cd "$PKG" && node vrm_check.mjs play "$OUT/vroid_vrm1.vrm" "$OUT/avatar.walk.vrma" "$OUT/avatar.walk.pose.json" "$OUT/demo_vrm1.map.json" "$LIMBS") \
	|| bad "avatar.walk.vrma on vroid_vrm1: limbs do not point as on the avatar"

# A real Mixamo motion (FBX) as VRMA onto the Xbot VRM.
if [ -f "$OUT/xbot_vrm0.vrm" ] && [ -f "$SHARED_DIR/assets/ybot@kick.fbx" ]; then
	echo "== ybot@kick.fbx -> xbot_vrm0"
	K="$SHARED_DIR/assets/ybot@kick.fbx"
	"$RIGKIT" retarget "$K" "$OUT/xbot_vrm0.vrm" "$OUT/kick.vrma" -q >/dev/null || bad "kick: retarget to .vrma failed"
	"$RIGKIT" retarget "$K" "$OUT/xbot_vrm0.vrm" "$OUT/kick.glb" --drop-target-clips -q >/dev/null || bad "kick: retarget to .glb failed"
	"$RIGKIT" pose "$OUT/kick.glb" --samples 25 --json > "$OUT/kick.pose.json" || bad "kick: rigkit pose failed"
	(cd "$PKG" && node vrm_check.mjs play "$OUT/xbot_vrm0.vrm" "$OUT/kick.vrma" "$OUT/kick.pose.json" "$OUT/xbot_vrm0.map.json") || bad "kick: three-vrm-animation disagrees with rigkit"
fi

# A .vrma as the motion source: its declared humanoid (VRoid names) drives the avatar.
"$RIGKIT" retarget "$FIX/vroid_walk.vrma" "$OUT/avatar.glb" "$OUT/vroid_walk_on_avatar.glb" --json > "$OUT/vroid_walk_on_avatar.json" 2>/dev/null \
	&& python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["clips"][0]; sys.exit(0 if r["mapped_bones"] == 54 and r["max_direction_error_deg"] < 1e-3 else 1)' "$OUT/vroid_walk_on_avatar.json" \
	&& echo "ok   vroid_walk.vrma retargets onto the demo avatar with its 54 declared bones" \
	|| bad "vroid_walk.vrma as a retarget source ($OUT/vroid_walk_on_avatar.json)"

# The committed VRMA fixture through rigkit: read, written again, still plays.
"$RIGKIT" convert "$FIX/vroid_walk.vrma" "$OUT/vroid_walk.out.vrma" -q || bad "vroid_walk.vrma: rigkit convert to .vrma failed"
rigkit_map "$FIX/vroid_walk.vrma" "$OUT/vroid_walk.rigkit.json" && json_same "$OUT/vroid_walk.rigkit.json" "$FIX/vroid.map.json" \
	|| bad "vroid_walk.vrma: rigkit's humanoid differs from VRMC_vrm_animation's"

# VRMA expressions onto VRM expression binds: three-vrm's expression manager
# playing the .vrma on the avatar vs three.js playing rigkit's retarget.
TIMES=$(python3 -c 'print(",".join(str(k / 30) for k in range(0, 31, 3)))')
for A in vroid_face_vrm1 vroid_face_vrm0 vroid_lookexpr_vrm1 vroid_lookexpr_vrm0; do
	echo "== vroid_face.vrma expressions -> $A"
	"$RIGKIT" retarget "$FIX/vroid_face.vrma" "$FIX/$A.vrm" "$OUT/$A.face.glb" --drop-target-clips 2>"$OUT/$A.face.err" >/dev/null \
		|| { bad "$A: retarget of vroid_face.vrma failed: $(cat "$OUT/$A.face.err")"; continue; }
	grep -q "expression 'surprised'" "$OUT/$A.face.err" || bad "$A: no warning for the expression the avatar lacks"
	EYES=eyes   # look-at: bone type on the face avatars (VRM 0.x: three-vrm's degree maps, -Z face)
	case $A in vroid_lookexpr_*) EYES=lookexpr ;; esac   # expression look-at: the look weights
	(cd "$PKG" && node vrm_check.mjs morphs "$FIX/$A.vrm" "$FIX/vroid_face.vrma" "$OUT/$A.face.glb" "$TIMES" $EYES) \
		|| bad "$A: three-vrm's expression weights (or look-at) differ from rigkit's"
	"$RIGKIT" retarget "$FIX/vroid_face.vrma" "$FIX/$A.vrm" "$OUT/$A.face.vrm" -q 2>/dev/null >/dev/null || bad "$A: retarget to .vrm failed"
	# VRMA out keeps the expressions: retargeted, and converted
	"$RIGKIT" retarget "$FIX/vroid_face.vrma" "$FIX/$A.vrm" "$OUT/$A.face.vrma" -q >/dev/null || bad "$A: retarget to .vrma failed"
	(cd "$PKG" && node vrm_check.mjs morphs "$FIX/$A.vrm" "$FIX/vroid_face.vrma" "$OUT/$A.face.vrma" "$TIMES") \
		|| bad "$A: the retargeted .vrma's expressions differ from the source's"
done
"$RIGKIT" convert "$FIX/vroid_face.vrma" "$OUT/vroid_face.conv.vrma" -q || bad "vroid_face.vrma: convert to .vrma failed"
(cd "$PKG" && node vrm_check.mjs morphs "$FIX/vroid_face_vrm1.vrm" "$FIX/vroid_face.vrma" "$OUT/vroid_face.conv.vrma" "$TIMES") \
	|| bad "vroid_face.conv.vrma: converted expressions differ from the source's"

echo "== Khronos glTF-Validator"
(cd "$PKG" && node validate.mjs "$OUT"/*.vrm "$OUT"/*.vrma "$FIX"/vroid_walk.vrma "$FIX"/vroid_face* "$FIX"/vroid_lookexpr*) || bad "the validator reports errors"
[ $status -eq 0 ] || fail "see the messages above"
echo "PASSED: $(echo $AVATARS | wc -w) VRM avatars (declared humanoid in rigkit and three-vrm, .vrm out intact, .vrma plays as rigkit evaluates)"
exit 0
