#!/usr/bin/env bash
# tests/test_batch_cli.sh RIGKIT SHARED BUILD - `rigkit batch`: many motions
# onto many avatars. On the sample characters (`rigkit sample`) and variants
# of them (a .gltf conversion, a one-clip motion made by `rigkit retarget`):
# outputs and their clips (read back with `rigkit info --json`), --per-clip,
# byte-identical outputs for --threads 1 and 4, a truncated motion and a
# non-humanoid avatar reported and skipped (exit 2) or stopping the run
# (default), an unwritable output (exit 3), usage errors (exit 1), --json.
# With SHARED/assets: ybot@kick.fbx, Xbot.glb and Soldier.glb onto
# readyplayer.me.glb and the sample avatar, every clip's bone directions
# within 1e-3 degrees of the source's (rk_retarget_report, and `rigkit
# compare` on the written file for one clip).
set -u
rigkit=$1
shared=${2:-}
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"   # $tmp, counters, expect, expect_text

check() { # check NAME COMMAND... (passes when the command succeeds)
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}

json_check() { # json_check NAME FILE PYTHON (d = the parsed FILE)
	if python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$3" "$2"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL $1"
	fi
}

clips_of() { # clips_of FILE.glb -> the clip names, one per line
	"$rigkit" info --json "$1" | python3 -c 'import json, sys
for c in json.load(sys.stdin)["clips"]: print(c["name"])'
}

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read --json"; exit 77; }

# inputs: two motions with two clips each (the sample source and its .gltf
# conversion), one motion with a single clip, two avatars (GLB and .gltf)
"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }
mkdir -p "$tmp/m" "$tmp/a" "$tmp/one" "$tmp/empty"
cp "$tmp/s/source.glb" "$tmp/m/source.glb"
"$rigkit" convert "$tmp/s/source.glb" "$tmp/m/walker.gltf" >/dev/null || { echo "FAIL: rigkit convert"; exit 1; }
cp "$tmp/s/avatar.glb" "$tmp/a/avatar.glb"
"$rigkit" convert "$tmp/s/avatar.glb" "$tmp/a/avatar_b.gltf" >/dev/null || { echo "FAIL: rigkit convert"; exit 1; }
"$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/source.glb" "$tmp/one/strut.glb" --clip Walk --drop-target-clips \
	>/dev/null || { echo "FAIL: rigkit retarget"; exit 1; }
head -c 20000 "$tmp/s/source.glb" >"$tmp/broken.glb"
printf '{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"name":"Box"}]}' >"$tmp/box.gltf"

# usage
expect help-lists-batch 0 -- "$rigkit" --help
expect_text help-lists-batch-text "$tmp/out" '^  batch '
expect batch-help 0 -- "$rigkit" batch --help
expect_text batch-help-text "$tmp/out" '^usage: rigkit batch --motions PATH\.\.\. --avatars PATH\.\.\. --out DIR'
expect no-args 1 -- "$rigkit" batch
expect no-out 1 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a"
expect no-avatars 1 -- "$rigkit" batch --motions "$tmp/m" --out "$tmp/o"
expect motions-without-path 1 -- "$rigkit" batch --motions --avatars "$tmp/a" --out "$tmp/o"
expect stray-argument 1 -- "$rigkit" batch "$tmp/m" --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o"
expect unknown-option 1 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o" --bogus
expect threads-zero 1 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o" --threads 0
expect threads-text 1 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o" --threads many
expect bad-fps 1 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o" --fps 0
expect bad-root 1 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o" --root sideways
expect empty-dir 1 -- "$rigkit" batch --motions "$tmp/empty" --avatars "$tmp/a" --out "$tmp/o"
expect_text empty-dir-msg "$tmp/err" '^rigkit: batch: no motion files found'
expect same-name 1 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" "$tmp/s/avatar.glb" --out "$tmp/o"
expect_text same-name-msg "$tmp/err" "^rigkit: batch: two avatar files named 'avatar'"
check usage-wrote-nothing test ! -e "$tmp/o"

# the main job, on 1 and on 4 threads: one output per avatar, every clip of
# every motion in name order (whatever the argument order), identical bytes
expect batch-1 0 -- "$rigkit" batch --motions "$tmp/m" "$tmp/one" --avatars "$tmp/a" --out "$tmp/o1" --threads 1
expect_text batch-1-line "$tmp/out" "^$tmp/o1/avatar\\.glb: $tmp/a/avatar\\.glb \\+ 5 clips from 3 motions, [0-9]+ bones, 275 frames, max bone direction error [0-9.e+-]+ deg, [0-9]+ ms$"
expect_text batch-1-summary "$tmp/out" '^batch: 3 of 3 motions \(5 clips\) x 2 avatars: 2 jobs, 2 written, 0 failed; .* 1 thread$'
expect batch-4 0 -- "$rigkit" batch --motions "$tmp/one" "$tmp/m" --avatars "$tmp/a" --out "$tmp/o4" --threads 4
check outputs-exist test -s "$tmp/o1/avatar.glb" -a -s "$tmp/o1/avatar_b.glb"
check only-outputs test "$(ls "$tmp/o1" | tr '\n' ' ')" = "avatar.glb avatar_b.glb "
check deterministic-avatar cmp -s "$tmp/o1/avatar.glb" "$tmp/o4/avatar.glb"
check deterministic-avatar-b cmp -s "$tmp/o1/avatar_b.glb" "$tmp/o4/avatar_b.glb"
want=$'source/Idle\nsource/Walk\nstrut\nwalker/Idle\nwalker/Walk'
check clip-names test "$(clips_of "$tmp/o1/avatar.glb")" = "$want"
check clip-names-b test "$(clips_of "$tmp/o1/avatar_b.glb")" = "$want"
# the batch output matches `rigkit retarget` for the same clip
"$rigkit" retarget "$tmp/m/source.glb" "$tmp/a/avatar.glb" "$tmp/single.glb" --clip Walk >/dev/null
expect batch-vs-retarget 0 -- "$rigkit" compare "$tmp/single.glb" "$tmp/o1/avatar.glb" --clip-a Walk --clip-b source/Walk --json
json_check batch-vs-retarget-values "$tmp/out" '
assert d["bones_compared"] >= 50 and max(d["max_direction_deg"], d["max_rotation_deg"], d["max_position_hips"]) < 1e-6, d'

# --per-clip: one file per avatar and clip, deterministic too
expect per-clip-1 0 -- "$rigkit" batch --motions "$tmp/m" "$tmp/one" --avatars "$tmp/a" --out "$tmp/p1" --per-clip --threads 1
expect_text per-clip-line "$tmp/out" "^$tmp/p1/avatar__source__Walk\\.glb: $tmp/a/avatar\\.glb \\+ 'source/Walk', [0-9]+ bones, 31 frames, "
expect per-clip-3 0 -- "$rigkit" batch --motions "$tmp/m" "$tmp/one" --avatars "$tmp/a" --out "$tmp/p3" --per-clip --threads 3
check per-clip-files test "$(ls "$tmp/p1" | tr '\n' ' ')" = "avatar__source__Idle.glb avatar__source__Walk.glb avatar__strut.glb avatar__walker__Idle.glb avatar__walker__Walk.glb avatar_b__source__Idle.glb avatar_b__source__Walk.glb avatar_b__strut.glb avatar_b__walker__Idle.glb avatar_b__walker__Walk.glb "
same=1
for f in "$tmp"/p1/*.glb; do cmp -s "$f" "$tmp/p3/${f##*/}" || same=0; done
check per-clip-deterministic test "$same" = 1
check per-clip-clip test "$(clips_of "$tmp/p1/avatar_b__walker__Idle.glb")" = "walker/Idle"
check per-clip-single test "$(clips_of "$tmp/p1/avatar__strut.glb")" = "strut"

# options reach rk_retarget: --clip, --root lock, --fps, --foot-ik
expect clip-option 0 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a/avatar.glb" --out "$tmp/c" --clip Walk --root lock --fps 10 --foot-ik --json
json_check clip-option-json "$tmp/out" '
o = d["outputs"][0]
assert [c["name"] for c in o["clips"]] == ["source/Walk", "walker/Walk"], o
assert all(c["frames"] == 11 and c["max_foot_miss"] >= 0 for c in o["clips"]), o
assert d["root"] == "lock" and d["fps"] == 10 and d["foot_ik"], d'

# --json on a full run
expect json-run 0 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/j" --json --threads 2
json_check json-values "$tmp/out" '
s = d["summary"]
assert s["motions"] == 2 and s["clips"] == 4 and s["avatars"] == 2 and s["jobs"] == 2, s
assert s["outputs_written"] == 2 and s["jobs_failed"] == 0 and s["clips_retargeted"] == 8 and s["exit_code"] == 0, s
assert s["wall_s"] > 0 and s["files_per_s"] > 0 and d["threads"] == 2 and d["failures"] == [], d
for o in d["outputs"]:
    assert o["ok"] and o["written"] and o["clips_ok"] == 4 and o["max_direction_error_deg"] < 1e-3, o
    assert [c["name"] for c in o["clips"]] == ["source/Idle", "source/Walk", "walker/Idle", "walker/Walk"], o
    assert all(c["ok"] and c["mapped_bones"] >= 50 and c["max_direction_error_deg"] < 1e-3 for c in o["clips"]), o
assert [m["file"].split("/")[-1] for m in d["motions"]] == ["source.glb", "walker.gltf"], d["motions"]'

# failures: a truncated motion and an avatar without a skeleton are reported
# and skipped (--keep-going) ...
expect keep-going 2 -- "$rigkit" batch --motions "$tmp/m" "$tmp/broken.glb" --avatars "$tmp/a" "$tmp/box.gltf" \
	--out "$tmp/k" --keep-going --threads 2
expect_text keep-going-motion "$tmp/err" "^rigkit: $tmp/broken\\.glb: "
expect_text keep-going-avatar "$tmp/err" "^rigkit: $tmp/box\\.gltf: not a humanoid: "
expect_text keep-going-summary "$tmp/out" '^batch: 2 of 3 motions \(4 clips\) x 3 avatars: 3 jobs, 2 written, 1 failed;'
check keep-going-outputs test "$(ls "$tmp/k" | tr '\n' ' ')" = "avatar.glb avatar_b.glb "
check keep-going-clips test "$(clips_of "$tmp/k/avatar.glb")" = $'source/Idle\nsource/Walk\nwalker/Idle\nwalker/Walk'
expect keep-going-json 2 -- "$rigkit" batch --motions "$tmp/m" "$tmp/broken.glb" --avatars "$tmp/a" "$tmp/box.gltf" \
	--out "$tmp/k" --keep-going --json --per-clip
json_check keep-going-json-values "$tmp/out" '
f = d["failures"]
assert [(x["file"].split("/")[-1], x["stage"]) for x in f] == [("broken.glb", "load"), ("box.gltf", "humanoid")], f
assert d["summary"]["exit_code"] == 2 and d["summary"]["jobs"] == 12 and d["summary"]["outputs_written"] == 8, d["summary"]
assert [m["ok"] for m in d["motions"]] == [False, True, True], d["motions"]
assert not any(o["written"] for o in d["outputs"] if o["avatar"].endswith("box.gltf"))'
# ... and stop the run without --keep-going: nothing incomplete is written
expect fail-fast-motion 2 -- "$rigkit" batch --motions "$tmp/m" "$tmp/broken.glb" --avatars "$tmp/a" --out "$tmp/f1"
expect_text fail-fast-motion-summary "$tmp/out" ': 0 jobs, 0 written, 0 failed, stopped after a motion failed'
check fail-fast-motion-nothing test -z "$(ls "$tmp/f1")"
cp "$tmp/box.gltf" "$tmp/abox.gltf"   # sorts before avatar*: the first job
expect fail-fast-avatar 2 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" "$tmp/abox.gltf" --out "$tmp/f2" --threads 1
expect_text fail-fast-avatar-summary "$tmp/out" ': 3 jobs, 0 written, 1 failed, 2 not run;'
expect missing-motion 2 -- "$rigkit" batch --motions "$tmp/nope.fbx" "$tmp/m" --avatars "$tmp/a/avatar.glb" --out "$tmp/f3" --keep-going
expect_text missing-motion-msg "$tmp/err" "^rigkit: $tmp/nope\\.fbx: cannot open file"
check missing-motion-output test -s "$tmp/f3/avatar.glb"

# output failures: exit 3
: >"$tmp/plain"
expect out-is-a-file 3 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/plain"
mkdir -p "$tmp/w/avatar.glb"
expect out-unwritable 3 -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/w" --keep-going
expect_text out-unwritable-msg "$tmp/err" 'avatar\.glb'
check out-unwritable-other test -s "$tmp/w/avatar_b.glb"

# the shared assets: Mixamo FBX, three.js GLBs onto Ready Player Me and the sample avatar
assets=$shared/assets
if [ -n "$shared" ] && [ -f "$assets/ybot@kick.fbx" ] && [ -f "$assets/Xbot.glb" ] && [ -f "$assets/Soldier.glb" ] &&
	[ -f "$assets/readyplayer.me.glb" ]; then
	expect shared 0 -- "$rigkit" batch --motions "$assets/ybot@kick.fbx" "$assets/Xbot.glb" "$assets/Soldier.glb" \
		--avatars "$assets/readyplayer.me.glb" "$tmp/a/avatar.glb" --out "$tmp/sh" --json
	# every clip, including Xbot's sad_pose and sneak_pose whose leg joints
	# are moved by translation tracks (stretched bones, swung onto the
	# source's direction by rk_retarget), points every bone where the
	# source's points
	json_check shared-values "$tmp/out" '
assert d["summary"]["outputs_written"] == 2 and d["failures"] == [], d["summary"]
for o in d["outputs"]:
    names = [c["name"] for c in o["clips"]]
    assert names[:4] == ["Soldier/Idle", "Soldier/Run", "Soldier/TPose", "Soldier/Walk"], names
    assert names[4:11] == ["Xbot/" + n for n in ("agree", "headShake", "idle", "run", "sad_pose", "sneak_pose", "walk")], names
    assert names[11] == "ybot@kick", names
    for c in o["clips"]:
        assert c["ok"] and c["mapped_bones"] >= 50, c
        assert c["max_direction_error_deg"] < 1e-3, (o["avatar"], c)'
	check shared-rpm-clips test "$(clips_of "$tmp/sh/readyplayer.me.glb" | wc -l)" = 12
	# independently, from the written file (floats): the Mixamo kick on the RPM avatar
	expect shared-compare 0 -- "$rigkit" compare "$assets/ybot@kick.fbx" "$tmp/sh/readyplayer.me.glb" --clip-b ybot@kick --json
	# every bone points as the source's but those the contact solve turns
	# (legs, feet, toes), whose planted feet stay on the floor (docs/retarget.md)
	json_check shared-compare-values "$tmp/out" 'legs = ("UpperLeg", "LowerLeg", "Foot", "Toes")
assert d["bones_compared"] >= 50, d["bones_compared"]
assert max(b["max_direction_deg"] for b in d["bones"] if not b["bone"].endswith(legs)) < 1e-3, d["bones"]
assert d["contacts"]["floor_penetration_hips"] < 0.005 and d["contacts"]["foot_slide_hips_per_s"] < 0.02, d["contacts"]'
else
	echo "note: ybot@kick.fbx, Xbot.glb, Soldier.glb, readyplayer.me.glb not all in '$assets': shared-asset case skipped"
fi

# A VRM Animation motion onto a VRM avatar: batch carries the expressions
# (morph weight tracks) exactly as `rigkit retarget` does (same track count).
fix="$(cd "$(dirname "$0")" && pwd)/fixtures"
mkdir -p "$tmp/vm" "$tmp/va"
cp "$fix/vroid_face.vrma" "$tmp/vm/" && cp "$fix/vroid_face_vrm1.vrm" "$tmp/va/"
expect vrma-batch 0 -- "$rigkit" batch --motions "$tmp/vm" --avatars "$tmp/va" --out "$tmp/vo" -q
expect vrma-retarget 0 -- "$rigkit" retarget "$tmp/vm/vroid_face.vrma" "$tmp/va/vroid_face_vrm1.vrm" "$tmp/vr.glb" -q
tracks_of() { "$rigkit" info --json "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["clips"][0]["tracks"])'; }
check vrma-batch-expressions test "$(tracks_of "$tmp/vo/vroid_face_vrm1.glb")" = "$(tracks_of "$tmp/vr.glb")"
check vrma-batch-has-weights test "$(tracks_of "$tmp/vo/vroid_face_vrm1.glb")" -gt 55

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
