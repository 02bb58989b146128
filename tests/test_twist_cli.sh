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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
