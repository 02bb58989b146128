#!/usr/bin/env bash
# tests/test_compare_cli.sh RIGKIT SHARED BUILD - `rigkit compare` on the sample
# characters written by `rigkit sample`: exit codes (0 ok, 1 usage, 2 bad
# input), the table and summary, and --json values (a clip against itself
# is 0; Walk against Idle is not; the T-pose source's arms are 45 degrees
# from the A-pose avatar's at rest, as rigkit/demo.h documents).
set -u
rigkit=$1
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"   # $tmp, counters, expect, expect_text

json_check() { # json_check NAME PYTHON (d = the parsed $tmp/out)
	if python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$2" "$tmp/out"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL $1"
	fi
}

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to check --json"; exit 77; }
"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }
src=$tmp/s/source.glb
avatar=$tmp/s/avatar.glb

# usage
expect help-lists-compare 0 -- "$rigkit" --help
expect_text help-lists-compare-text "$tmp/out" '^  compare '
expect compare-help 0 -- "$rigkit" compare --help
expect_text compare-help-text "$tmp/out" '^usage: rigkit compare A B'
expect no-files 1 -- "$rigkit" compare
expect one-file 1 -- "$rigkit" compare "$src"
expect three-files 1 -- "$rigkit" compare "$src" "$src" "$src"
expect unknown-option 1 -- "$rigkit" compare "$src" "$src" --bogus
expect missing-value 1 -- "$rigkit" compare "$src" "$src" --fps
expect bad-fps 1 -- "$rigkit" compare "$src" "$src" --fps 0
expect bad-fps-text 1 -- "$rigkit" compare "$src" "$src" --fps abc
expect bad-duration 1 -- "$rigkit" compare "$src" "$src" --duration -1
expect bad-axes 1 -- "$rigkit" compare "$src" "$src" --axes sideways
expect static-and-clip 1 -- "$rigkit" compare "$src" "$src" --static-a --clip-a Walk
expect_text static-and-clip-msg "$tmp/err" '^rigkit: compare: --static-a and --clip-a exclude each other'
expect too-many-frames 1 -- "$rigkit" compare "$src" "$src" --fps 10000 --duration 1000
expect_text too-many-frames-msg "$tmp/err" 'frames'

# bad input
expect missing-file 2 -- "$rigkit" compare "$src" "$tmp/nope.glb"
expect_text missing-file-msg "$tmp/err" "^rigkit: $tmp/nope.glb: cannot open file"
expect unknown-clip 2 -- "$rigkit" compare "$src" "$src" --clip-b Dance
expect_text unknown-clip-msg "$tmp/err" "no animation clip named 'Dance'"
printf '{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"name":"Box"}]}' >"$tmp/box.gltf"
expect not-a-humanoid 2 -- "$rigkit" compare "$src" "$tmp/box.gltf"
expect_text not-a-humanoid-msg "$tmp/err" '^rigkit: .*scene b'

# a clip against itself, also after a load-time axis/unit conversion
expect self 0 -- "$rigkit" compare "$src" "$src" --clip-a Walk --clip-b Walk
expect_text self-summary "$tmp/out" '^max direction 0\.00 deg, max rotation 0\.00 deg, max position 0\.00% of hips height$'
expect_text self-frames "$tmp/out" '^31 frames at 30 fps over 1 s, [0-9]+ humanoid bones in both$'
expect self-json 0 -- "$rigkit" compare "$src" "$src" --clip-a Walk --clip-b Walk --json
json_check self-json-values '
assert d["frames"] == 31 and d["fps"] == 30 and d["duration"] == 1, d
assert d["a"]["clip"] == "Walk" and d["b"]["clip"] == "Walk"
assert d["bones_compared"] == len(d["bones"]) >= 15
assert max(d["max_direction_deg"], d["max_rotation_deg"], d["max_position_hips"]) < 1e-6, d
assert all(b["max_rotation_deg"] < 1e-6 for b in d["bones"])'
expect converted-json 0 -- "$rigkit" compare "$src" "$src" --clip-a Walk --clip-b Walk --axes right_handed_z_up --unit-meters 0.01 --json
json_check converted-json-values '
assert d["max_direction_deg"] < 1e-6 and d["max_rotation_deg"] < 1e-6 and d["max_position_hips"] < 1e-8, d'

# different clips: the table in humanoid order, large numbers
expect walk-idle 0 -- "$rigkit" compare "$src" "$src" --clip-a Walk --clip-b Idle --bones
expect_text walk-idle-header "$tmp/out" '^bone +dir max +dir mean +rot max +rot mean +pos max +worst t$'
expect_text walk-idle-first-row "$tmp/out" '^hips( +[0-9]+\.[0-9]+){6}$'
expect_text walk-idle-leg-row "$tmp/out" '^leftUpperLeg( +[0-9]+\.[0-9]+){6}$'
expect_text walk-idle-summary "$tmp/out" '^max direction [0-9.]+ deg, max rotation [0-9.]+ deg, max position [0-9.]+% of hips height \(largest rotation: [A-Za-z]+, '
expect walk-idle-json 0 -- "$rigkit" compare "$src" "$src" --clip-a Walk --clip-b Idle --fps 10 --json
json_check walk-idle-json-values '
names = [b["bone"] for b in d["bones"]]
assert names[0] == "hips" and names.index("spine") < names.index("leftUpperLeg") < names.index("leftUpperArm"), names
assert d["frames"] == 11 and d["b"]["clip_duration"] == 3, d
leg = d["bones"][names.index("leftUpperLeg")]
assert leg["max_direction_deg"] > 20 and leg["mean_direction_deg"] > 5, leg
assert 0 <= leg["worst_time"] <= 1
assert d["max_rotation_deg"] >= leg["max_rotation_deg"]'

# T-pose source against the A-pose avatar, both static
expect t-vs-a 0 -- "$rigkit" compare "$src" "$avatar" --static-a --json
json_check t-vs-a-values '
assert d["frames"] == 1 and d["a"]["clip"] is None and d["b"]["clip"] is None, d
arm = [b for b in d["bones"] if b["bone"] == "leftUpperArm"][0]
assert abs(arm["max_direction_deg"] - 45) < 0.01, arm
assert d["max_rotation_deg"] < 1e-6, d'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
