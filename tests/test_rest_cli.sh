#!/usr/bin/env bash
# tests/test_rest_cli.sh RIGKIT SHARED BUILD - avatars stored in another pose
# than their bind pose (rigkit/rest.h) through the CLI: `rigkit humanoid`
# reports the rest it used and the hips height, `rigkit retarget` plays a
# clip on the crouched fixture (and, with ../shared, on Xbot.glb stored in a
# frame of its own 'run' clip by tests/fixtures/make_bind_pose.py) exactly as
# on the file stored in its bind pose, with --root lock and --foot-ik too,
# `rigkit compare` and `rigkit render --static` take the bind pose.
#
# "Exactly": every node's world position in the two GLBs written, evaluated
# by make_bind_pose.py's own glTF evaluator (independent of rigkit), within
# 1e-5 hips heights (the GLBs store floats) at 7 times of the clip.
set -u
rigkit=$1 shared=${2:-} build=${3:-}
here=$(dirname "${BASH_SOURCE[0]}")
gen=$here/fixtures/make_bind_pose.py
. "$here/cli_lib.sh"   # $tmp, counters, expect, expect_text

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed (fixture generator, glTF evaluator)"; exit 77; }

json_check() { # json_check NAME PYTHON (d = the parsed $tmp/out)
	if python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$2" "$tmp/out"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL $1"
	fi
}

# same_pose NAME A.glb B.glb CLIP HIPS_HEIGHT: every node of A within 1e-5
# hips heights of B's node of the same name at 7 times of CLIP
same_pose() {
	local times="--time 0 --time 0.11 --time 0.25 --time 0.4 --time 0.63 --time 0.8 --time 1.0"
	if python3 "$gen" pose "$2" --clip "$4" $times >"$tmp/pa.json" &&
		python3 "$gen" pose "$3" --clip "$4" $times >"$tmp/pb.json" &&
		python3 -c "import json, math, sys
a = json.load(open(sys.argv[1]))['nodes']; b = json.load(open(sys.argv[2]))['nodes']
h = float(sys.argv[3])
common = [n for n in a if n in b]
worst = max(math.dist(p, q) for n in common for p, q in zip(a[n], b[n]))
print('%s: %d nodes, worst %.3g hips heights' % (sys.argv[4], len(common), worst / h))
sys.exit(0 if len(common) > 20 and worst <= 1e-5 * h else 1)" "$tmp/pa.json" "$tmp/pb.json" "$5" "$1"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL $1"
	fi
}

mode_opts() { # mode_opts keep|lock|foot-ik: the retarget options in opts[]
	case $1 in
		keep) opts=() ;;
		lock) opts=(--root lock) ;;
		foot-ik) opts=(--foot-ik) ;;
	esac
}

# the committed fixtures are what the generator writes
expect fixtures-current 0 -- python3 "$gen" fixtures --check

bind=$here/fixtures/humanoid_bind.glb
crouch=$here/fixtures/humanoid_crouch.glb
"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }
src=$tmp/s/source.glb

# ---- rigkit humanoid ---------------------------------------------------------------
expect humanoid-bind 0 -- "$rigkit" humanoid "$bind" --json
json_check humanoid-bind-json 'r = d["rest"]
assert r["used"] == "stored" and r["mode"] == "auto" and r["joints_bound"] == 21, r
assert abs(d["hips_height"] - 0.98) < 1e-6, d["hips_height"]'
expect humanoid-crouch 0 -- "$rigkit" humanoid "$crouch" --json
json_check humanoid-crouch-json 'r = d["rest"]
assert r["used"] == "bind" and abs(r["max_angle_deg"] - 110) < 1e-3 and r["worst_node"] == "LeftLeg", r
assert abs(d["hips_height"] - 0.98) < 1e-6, d["hips_height"]'
expect humanoid-crouch-stored 0 -- "$rigkit" humanoid "$crouch" --rest stored --json
json_check humanoid-crouch-stored-json 'assert d["rest"]["used"] == "stored" and d["hips_height"] < 0.7, d'
expect humanoid-crouch-text 0 -- "$rigkit" humanoid "$crouch"
expect_text humanoid-crouch-text-rest "$tmp/out" '^# rest: bind pose \(--rest auto\), stored vs bind: up to 110 deg'
expect_text humanoid-crouch-text-hips "$tmp/out" 'hips height 0\.98$'
expect humanoid-bad-rest 1 -- "$rigkit" humanoid "$crouch" --rest sideways
expect_text humanoid-bad-rest-msg "$tmp/err" 'auto, bind, stored'

# --explain: a reason and a line for every bone, the output still a map file
expect humanoid-explain 0 -- "$rigkit" humanoid "$bind" --explain --json
json_check humanoid-explain-json 'e = d["explain"]
assert set(e) == set(d["bones"]), (set(e) ^ set(d["bones"]))
assert e["hips"]["reason"] == "name" and e["spine"]["reason"] == "hierarchy", (e["hips"], e["spine"])
assert e["leftUpperLeg"]["text"] == "name \"LeftUpLeg\" says leftUpperLeg; below hips \"Hips\"", e["leftUpperLeg"]'
expect humanoid-explain-text 0 -- "$rigkit" humanoid "$bind" --explain
expect_text humanoid-explain-line "$tmp/out" '^chest = Chest    # hierarchy: 2nd of the 2 joint\(s\) between hips "Hips" and neck "Neck"'
cp "$tmp/out" "$tmp/map.txt"
printf 'leftHand = LeftHand_End\n' >>"$tmp/map.txt"
expect humanoid-explain-as-map 0 -- "$rigkit" humanoid "$bind" --map "$tmp/map.txt" --explain --json
json_check humanoid-explain-map-json 'e = d["explain"]
assert e["leftHand"]["reason"] == "map" and e["leftHand"]["text"].startswith("set by the map file"), e["leftHand"]
assert e["hips"]["reason"] == "name"'

# ---- rigkit retarget: crouched vs bind target --------------------------------------------
for mode in keep lock foot-ik; do
	mode_opts $mode
	expect retarget-bind-$mode 0 -- "$rigkit" retarget "$src" "$bind" "$tmp/b-$mode.glb" --clip Walk "${opts[@]}" --json
	cp "$tmp/out" "$tmp/rb.json"
	expect retarget-crouch-$mode 0 -- "$rigkit" retarget "$src" "$crouch" "$tmp/c-$mode.glb" --clip Walk "${opts[@]}" --json
	json_check retarget-crouch-$mode-json 'c = d["clips"][0]
b = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/rb.json"))["clips"][0]
assert c["target_rest"] == "bind" and b["target_rest"] == "stored" and c["rest_tracks"] > 0, (c, b)
assert abs(c["target_hips_height"] - b["target_hips_height"]) < 1e-6 and abs(c["target_hips_height"] - 0.98) < 1e-6'
	same_pose "crouched fixture, $mode" "$tmp/b-$mode.glb" "$tmp/c-$mode.glb" Walk 0.98
done
# the stored crouch as rest plays another pose (what the issue saw)
expect retarget-crouch-stored 0 -- "$rigkit" retarget "$src" "$crouch" "$tmp/cs.glb" --clip Walk --rest stored --json
json_check retarget-crouch-stored-json 'c = d["clips"][0]
assert c["target_rest"] == "stored" and c["target_hips_height"] < 0.7, c'
expect retarget-bad-rest 1 -- "$rigkit" retarget "$src" "$crouch" "$tmp/x.glb" --rest crouch

# ---- compare, render ------------------------------------------------------------------------
expect compare-static 0 -- "$rigkit" compare "$bind" "$crouch" --static-a --static-b --json
json_check compare-static-json 'assert d["max_direction_deg"] < 1e-4 and d["max_position_hips"] < 1e-6, d
assert d["a_rest"] == "stored" and d["b_rest"] == "bind", (d["a_rest"], d["b_rest"])'
expect compare-static-stored 0 -- "$rigkit" compare "$bind" "$crouch" --static-a --static-b --rest stored --json
json_check compare-static-stored-json 'assert d["max_direction_deg"] > 45, d["max_direction_deg"]'
expect render-static 0 -- "$rigkit" render "$crouch" "$tmp/r.png" --static --size 64x64 --json
json_check render-static-json 'assert d["rest"] == "bind" and d["clip"] is None, d'
expect render-static-stored 0 -- "$rigkit" render "$crouch" "$tmp/r2.png" --static --rest stored --size 64x64
expect_text render-static-stored-text "$tmp/out" 'static scene, 2 triangles$'
expect render-static-text 0 -- "$rigkit" render "$crouch" "$tmp/r3.png" --static --size 64x64
expect_text render-static-bind-text "$tmp/out" 'static scene \(bind pose\), 2 triangles$'
if cmp -s "$tmp/r.png" "$tmp/r2.png"; then fail=$((fail + 1)); echo "FAIL render: bind and stored pictures are the same"; else pass=$((pass + 1)); fi

# ---- a shared avatar stored in a frame of its own run ------------------------------------------
xbot=$shared/assets/Xbot.glb soldier=$shared/assets/Soldier.glb
if [ -n "$shared" ] && [ -f "$xbot" ] && [ -f "$soldier" ]; then
	python3 "$gen" store "$xbot" "$tmp/xbot_run.glb" --clip run --time 0.4 || { echo "FAIL: store"; exit 1; }
	expect xbot-humanoid 0 -- "$rigkit" humanoid "$xbot" --json
	cp "$tmp/out" "$tmp/hx.json"
	expect xbot-run-humanoid 0 -- "$rigkit" humanoid "$tmp/xbot_run.glb" --json
	json_check xbot-run-humanoid-json 'x = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/hx.json"))
assert x["rest"]["used"] == "stored" and d["rest"]["used"] == "bind", (x["rest"], d["rest"])
assert x["bones"] == d["bones"]
assert abs(d["hips_height"] - x["hips_height"]) < 1e-6 * x["hips_height"], (d["hips_height"], x["hips_height"])'
	hh=$(python3 -c "import json; print(json.load(open('$tmp/hx.json'))['hips_height'])")
	for mode in keep lock foot-ik; do
		mode_opts $mode
		expect xbot-retarget-$mode 0 -- "$rigkit" retarget "$soldier" "$xbot" "$tmp/xb-$mode.glb" --clip Walk "${opts[@]}"
		expect xbot-run-retarget-$mode 0 -- "$rigkit" retarget "$soldier" "$tmp/xbot_run.glb" "$tmp/xr-$mode.glb" \
			--clip Walk "${opts[@]}"
		expect_text xbot-run-retarget-$mode-text "$tmp/out" 'target in its bind pose'
		same_pose "Xbot stored in a run frame, $mode" "$tmp/xb-$mode.glb" "$tmp/xr-$mode.glb" Walk "$hh"
	done
else
	echo "(../shared/assets/Xbot.glb or Soldier.glb absent: the shared-avatar part is skipped)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
