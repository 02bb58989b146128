#!/usr/bin/env bash
# tests/test_cli.sh RIGKIT SHARED BUILD - the CLI contract: help, version,
# exit codes (0 ok, 1 usage, 2 bad input, 3 output failure), error format.
set -u
rigkit=$1
build=${3:-/tmp}
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"   # $tmp, counters, expect, expect_text

expect help 0 -- "$rigkit" --help
expect_text help-lists-info "$tmp/out" '^  info '
expect version 0 -- "$rigkit" --version
expect_text version-text "$tmp/out" '^rigkit [0-9]+\.[0-9]+\.[0-9]+$'
expect no-args 1 -- "$rigkit"
expect unknown-command 1 -- "$rigkit" frobnicate
expect_text unknown-command-msg "$tmp/err" "^rigkit: unknown command 'frobnicate'"
expect info-help 0 -- "$rigkit" info --help
expect_text info-help-text "$tmp/out" '^usage: rigkit info FILE'
expect info-missing-arg 1 -- "$rigkit" info
expect info-bad-option 1 -- "$rigkit" info --bogus x
expect info-missing-file 2 -- "$rigkit" info "$tmp/does-not-exist.fbx"
expect_text info-missing-file-msg "$tmp/err" "^rigkit: $tmp/does-not-exist.fbx: cannot open file"
printf 'hello world, not a scene\n' >"$tmp/junk.bin"
expect info-unknown-format 2 -- "$rigkit" info "$tmp/junk.bin"
expect_text info-unknown-format-msg "$tmp/err" "^rigkit: $tmp/junk.bin: not a format rigkit reads .*\(at byte 0\)$"
printf 'Kaydara FBX Binary  \0\x1a\0\xe8\x1c\0\0' >"$tmp/trunc.fbx"
expect info-truncated-fbx 2 -- "$rigkit" info "$tmp/trunc.fbx"
expect_text info-truncated-fbx-msg "$tmp/err" "^rigkit: $tmp/trunc.fbx: "
expect transform-help 0 -- "$rigkit" transform --help
expect transform-bad-vector 1 -- "$rigkit" transform --translation 1,2
expect transform-bad-order 1 -- "$rigkit" transform --order abc
# Rz(90) about pivot (1,0,0): (2,0,0) -> (1,1,0) (derived by hand).
expect transform-json 0 -- "$rigkit" transform --rotation 0,0,90 --rotation-pivot 1,0,0 --point 2,0,0 --json
python3 - "$tmp/out" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL transform-json-values"; }
import json, sys
d = json.load(open(sys.argv[1]))
p = d["point"]
assert abs(p[0] - 1) < 1e-9 and abs(p[1] - 1) < 1e-9 and abs(p[2]) < 1e-9, p
assert len(d["node_to_parent"]) == 16
PY

# Built-in samples, then conversions and their failure modes.
expect sample 0 -- "$rigkit" sample "$tmp/s"
expect convert-glb 0 -- "$rigkit" convert "$tmp/s/source.glb" "$tmp/s/copy.glb"
expect convert-glb-reload 0 -- "$rigkit" info --json "$tmp/s/copy.glb"
python3 - "$tmp/out" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL convert-glb-content"; }
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(c["name"] for c in d["clips"])
assert names == ["Idle", "Walk"], names
assert sum(1 for n in d["nodes"] if n["name"].startswith("mixamorig:")) >= 65
PY
expect convert-obj-posed 0 -- "$rigkit" convert "$tmp/s/source.glb" "$tmp/s/walk.obj" --clip Walk --time 0.5
expect_text convert-obj-has-faces "$tmp/s/walk.obj" '^f [0-9]'
expect convert-unknown-ext 1 -- "$rigkit" convert "$tmp/s/source.glb" "$tmp/s/x.xyz"
expect convert-missing-clip 2 -- "$rigkit" convert "$tmp/s/source.glb" "$tmp/s/x.obj" --clip Nope
expect convert-output-dir-missing 3 -- "$rigkit" convert "$tmp/s/source.glb" "$tmp/no/such/dir/x.glb"
expect_text convert-output-error-msg "$tmp/err" "^rigkit: $tmp/no/such/dir/x.glb: "
[ -e "$tmp/no/such/dir" ] && { fail=$((fail + 1)); echo "FAIL convert-output-dir-missing left files behind"; }
ls "$tmp/s" | grep -q tmp && { fail=$((fail + 1)); echo "FAIL temporary files left in the output folder"; }
expect pose-json 0 -- "$rigkit" pose "$tmp/s/source.glb" --clip Walk --samples 3 --joints --json
python3 - "$tmp/out" <<'PY' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL pose-json-values"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["clip"] == "Walk" and len(d["samples"]) == 3
t = [s["time"] for s in d["samples"]]
assert abs(t[0]) < 1e-12 and abs(t[2] - 1.0) < 1e-9, t
hips = [s["nodes"]["mixamorig:Hips"]["position"][2] for s in d["samples"]]
assert hips[2] - hips[0] > 0.5, hips  # the walk moves forward along +Z
PY

# Humanoid maps and retargeting (seed 004's job) on the samples.
expect humanoid 0 -- "$rigkit" humanoid "$tmp/s/avatar.glb"
expect_text humanoid-hips "$tmp/out" "^hips = Hips$"
expect_text humanoid-arm "$tmp/out" "^leftUpperArm = LeftArm$"
expect humanoid-json 0 -- "$rigkit" humanoid "$tmp/s/source.glb" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["valid"] and d["bones"]["leftLowerLeg"] == "mixamorig:LeftLeg", d' "$tmp/out" \
	&& pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL humanoid-json-values"; }
printf 'leftUpperArm =\n' >"$tmp/unmap.txt"
expect humanoid-map-invalid 2 -- "$rigkit" humanoid "$tmp/s/avatar.glb" --map "$tmp/unmap.txt"
expect_text humanoid-map-invalid-msg "$tmp/err" "leftUpperArm"
printf 'notABone = Hips\n' >"$tmp/badmap.txt"
expect humanoid-map-bad-bone 2 -- "$rigkit" humanoid "$tmp/s/avatar.glb" --map "$tmp/badmap.txt"
expect_text humanoid-map-bad-bone-msg "$tmp/err" "badmap.txt:1: "
expect retarget 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/walk.glb" --clip Walk --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["clips"][0]; assert c["clip"]=="Walk" and c["frames"]==31 and c["max_direction_error_deg"] < 1e-4, d' "$tmp/out" \
	&& pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL retarget-json-values"; }
expect retarget-foot-ik 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/walk_ik.glb" --clip Walk --foot-ik --json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["clips"][0]; assert c["max_foot_miss"] == 0, c' "$tmp/out" \
	&& pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL retarget-foot-ik-json"; }
expect retarget-info 0 -- "$rigkit" info --no-tree "$tmp/walk.glb"
expect_text retarget-info-clip "$tmp/out" "Walk: 0 .. 1 s"
expect retarget-no-clip 2 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/x.glb" --clip Nope
expect_text retarget-no-clip-msg "$tmp/err" "no clip named 'Nope'"
expect retarget-not-humanoid 2 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/x.glb" --target-map "$tmp/unmap.txt"
expect retarget-usage 1 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb"
expect retarget-bad-root 1 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/x.glb" --root sideways
[ -e "$tmp/x.glb" ] && { fail=$((fail + 1)); echo "FAIL a failed retarget wrote its output"; }
expect retarget-out-error 3 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/no/dir/x.glb"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
