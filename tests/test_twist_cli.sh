#!/usr/bin/env bash
# tests/test_twist_cli.sh - the CLI side of twist joints and root motion
# (docs/retarget.md, "Twist joints" and "Root motion"): `rigkit humanoid`
# lists the twist joints of tests/fixtures/twist_rig.glb (the ones
# make_twist_rig.py builds), `rigkit retarget` gives them tracks unless
# --twist off, rejects bad --twist-weight values, warns about names that
# are no twist joint, and --root extract names its root (a new node "root"
# when the hips hang from the scene). The numbers themselves are checked in
# tests/test_retarget_twist.c and tests/test_root_threejs.sh.
#
#   bash tests/test_twist_cli.sh RIGKIT_CLI [SHARED_DIR] [BUILD_DIR]
set -u
RIGKIT=${1:?usage: $0 RIGKIT_CLI}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/cli_lib.sh"   # $tmp, counters, expect, expect_text
fx="$here/fixtures"

if command -v python3 >/dev/null 2>&1; then
	expect fixtures-current 0 -- python3 "$fx/make_twist_rig.py" --check
else
	echo "(python3 absent: the fixtures' freshness is not checked)"
fi

expect humanoid 0 -- "$RIGKIT" humanoid "$fx/twist_rig.glb"
expect_text humanoid-leaf "$tmp/out" '^# twist joints leftUpperArm -> leftLowerArm: upperarm_twist_01_l \(leaf\) upperarm_twist_02_l \(leaf\)$'
expect_text humanoid-chain "$tmp/out" '^# twist joints rightLowerArm -> rightHand: lowerarm_twist_01_r \(in chain\) lowerarm_twist_02_r \(in chain\)$'
expect humanoid-json 0 -- "$RIGKIT" humanoid "$fx/twist_rig.glb" --json
expect_text humanoid-json-joint "$tmp/out" '"node": "calf_twist_01_l"'
expect humanoid-none 0 -- "$RIGKIT" humanoid "$fx/twist_source.glb"
if grep -q 'twist joints' "$tmp/out"; then fail=$((fail + 1)); echo "FAIL humanoid-none: twist joints listed"; else pass=$((pass + 1)); fi

expect retarget 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/on.glb" --json
expect_text retarget-twist-tracks "$tmp/out" '"twist_tracks": 8'
expect_text retarget-tracks "$tmp/out" '"tracks": 31'
expect retarget-off 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/off.glb" --twist off --json
expect_text retarget-off-tracks "$tmp/out" '"tracks": 23'
expect retarget-text 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/on.glb"
expect_text retarget-text-line "$tmp/out" ', 8 twist joints$'
expect weight-bad 1 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/w.glb" --twist-weight lowerarm_twist_01_l=1.5
expect_text weight-bad-msg "$tmp/err" 'NODE=SHARE'
expect weight-noeq 1 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/w.glb" --twist-weight lowerarm_twist_01_l
expect twist-bad 1 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/w.glb" --twist sideways
expect weight-unknown 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/w.glb" --twist-weight nope=0.5 --twist-weight lowerarm_twist_01_l=0.8
expect_text weight-unknown-warn "$tmp/err" 'warning: --twist-weight nope: not a twist joint'

expect extract 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/x.glb" --root extract --json
expect_text extract-root "$tmp/out" '"root_node": "root"'
expect_text extract-mode "$tmp/out" '"root": "extract"'
expect extract-text 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/x.glb" --root extract
expect_text extract-text-line "$tmp/out" "root extract, .*root motion on 'root'$"
expect extract-noroot 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig_noroot.glb" "$tmp/n.glb" --root extract --json
expect_text extract-noroot-added "$tmp/out" '"root_node_added": true'
expect info-noroot 0 -- "$RIGKIT" info "$tmp/n.glb"
expect_text info-noroot-root "$tmp/out" '^  root \[null\]'
expect_text info-noroot-pelvis "$tmp/out" '^    pelvis \[joint\]'

expect extract-bvh 1 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig.glb" "$tmp/x.bvh" --root extract
expect_text extract-bvh-msg "$tmp/err" 'BVH output does not keep'
expect extract-vrma 1 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/vroid_vrm1.vrm" "$tmp/x.vrma" --root extract

# rigkit batch: --root extract adds the root too, --twist-weight reaches the
# jobs; the poses are rigkit retarget's
expect batch 0 -- "$RIGKIT" batch --motions "$fx/twist_source.glb" --avatars "$fx/twist_rig_noroot.glb" --out "$tmp/b" \
	--root extract --twist-weight lowerarm_twist_01_r=0.5
expect retarget-same 0 -- "$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig_noroot.glb" "$tmp/r.glb" --root extract \
	--twist-weight lowerarm_twist_01_r=0.5
# world rotations included (twist joints turn, they do not move); "file" differs
"$RIGKIT" pose "$tmp/b/twist_rig_noroot.glb" --time 0.5 --time 1 --json 2>/dev/null | grep -v '"file"\|"clip"' >"$tmp/pose_b"
"$RIGKIT" pose "$tmp/r.glb" --time 0.5 --time 1 --json 2>/dev/null | grep -v '"file"\|"clip"' >"$tmp/pose_r"
"$RIGKIT" pose "$tmp/r.glb" --time 1 --json 2>/dev/null | grep -v '"file"\|"clip"' >"$tmp/pose_r1"
expect batch-root-pose 0 -- "$RIGKIT" pose "$tmp/b/twist_rig_noroot.glb" --time 1
expect_text batch-root "$tmp/out" '^  root +0\.300000 +0\.000000 +0\.600000$'
if cmp -s "$tmp/pose_b" "$tmp/pose_r" && grep -q lowerarm_twist_01_r "$tmp/pose_r"; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL batch-vs-retarget: poses differ"; fi
# and the weight matters: the default share gives other rotations
"$RIGKIT" retarget "$fx/twist_source.glb" "$fx/twist_rig_noroot.glb" "$tmp/d.glb" --root extract >/dev/null 2>&1
"$RIGKIT" pose "$tmp/d.glb" --time 1 --json 2>/dev/null | grep -v '"file"\|"clip"' >"$tmp/pose_d"
if cmp -s "$tmp/pose_d" "$tmp/pose_r1"; then fail=$((fail + 1)); echo "FAIL weight-matters: same poses"; else pass=$((pass + 1)); fi
expect batch-off 0 -- "$RIGKIT" batch --motions "$fx/twist_source.glb" --avatars "$fx/twist_rig.glb" --out "$tmp/b2" --twist off
expect info-off 0 -- "$RIGKIT" info "$tmp/b2/twist_rig.glb"
expect_text info-off-tracks "$tmp/out" '23 tracks'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
