#!/usr/bin/env bash
# tests/test_batch_shard.sh RIGKIT SHARED BUILD - `rigkit batch` beyond one
# process (docs/batch.md): manifests, --plan, --shard, --resume, --report,
# --merge-reports and progress.
#
# Inputs: the built-in sample characters (`rigkit sample`), variants of them
# (.gltf conversions, a one-clip motion made by `rigkit retarget`), the
# non-humanoid tests/fixtures/rig.glb and a truncated GLB; with SHARED/assets
# also ybot@kick.fbx and Xbot.glb. A 40-job manifest (made here, in Python)
# is run
#   - as one process and as 4 shard processes in parallel: byte-identical
#     outputs (cmp) and the same merged report but for timings; every job in
#     the shard that FNV-1a-64 of its id (computed here in Python, from the
#     published constants) modulo 4 names, once;
#   - with one shard killed (kill -9) mid-run and resumed: every output
#     there, identical to the one-process run, no temporary file left, the
#     jobs finished before the kill not redone, another shard's temporary
#     file untouched;
#   - after changing one input (by its bytes, not its time): only the job
#     that reads it is redone;
#   - with a corrupt motion and a non-humanoid target: reported with file and
#     stage, every other job done;
# and bad manifest lines give FILE:LINE errors. --plan writes the manifest of
# the folder form, whose run gives the folder form's bytes.
set -u
rigkit=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shared=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/cli_lib.sh"   # $tmp, counters, expect, expect_text

check() { # check NAME COMMAND... (passes when the command succeeds)
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}

py_check() { # py_check NAME PYTHON ARGS... (sys.argv[1:] = ARGS)
	local name=$1 code=$2
	shift 2
	if python3 -c "import json, sys, os
$code" "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}

same_tree() { # same_tree DIR_A DIR_B: the same *.glb/*.gltf names, byte-identical
	local a=$1 b=$2 f
	[ "$(cd "$a" && ls | grep -E '\.(glb|gltf)$' | sort)" = "$(cd "$b" && ls | grep -E '\.(glb|gltf)$' | sort)" ] || return 1
	for f in "$a"/*.glb "$a"/*.gltf; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$b/${f##*/}" || { echo "  differs: ${f##*/}"; return 1; }
	done
}

no_temps() { # no_temps DIR: no file of rk_file_write_atomic's temporary names
	[ -z "$(find "$1" -name '*.tmp??????')" ]
}

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to write manifests and read --json"; exit 77; }

# ---- inputs ----------------------------------------------------------------------
in=$tmp/in
mkdir -p "$in"
"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }
cp "$tmp/s/source.glb" "$in/source.glb"
cp "$tmp/s/avatar.glb" "$in/avatar.glb"
cp "$tmp/s/source.glb" "$in/solo.glb"        # a target only one job reads
"$rigkit" convert "$tmp/s/source.glb" "$in/walker.gltf" >/dev/null || { echo "FAIL: convert"; exit 1; }
"$rigkit" convert "$tmp/s/avatar.glb" "$in/avatar_b.gltf" >/dev/null || { echo "FAIL: convert"; exit 1; }
"$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/source.glb" "$in/strut.glb" --clip Walk --drop-target-clips \
	>/dev/null || { echo "FAIL: retarget"; exit 1; }
head -c 20000 "$tmp/s/source.glb" >"$in/broken.glb"
cp "$here/fixtures/rig.glb" "$in/rig.glb"     # not a humanoid (3 bones)
assets=$shared/assets
use_shared=0
if [ -n "$shared" ] && [ -f "$assets/ybot@kick.fbx" ] && [ -f "$assets/Xbot.glb" ]; then use_shared=1; else
	echo "note: ybot@kick.fbx, Xbot.glb not in '$assets': the 40 jobs use the sample files only"
fi

# jobs.py FOLDER KIND: writes FOLDER/jobs.jsonl (inputs absolute, outputs
# relative to the manifest: out/...). KIND: main (the 40 jobs), more (those
# and one more), bad (a corrupt motion and a non-humanoid target among good
# jobs).
cat >"$tmp/jobs.py" <<'EOF'
import json, os, sys
folder, kind, inp, use_shared = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
os.makedirs(folder, exist_ok=True)
P = lambda name: os.path.join(inp, name)
targets = ["avatar.glb", "avatar_b.gltf", "source.glb", "walker.gltf"]
clips = [("source.glb", "Idle"), ("source.glb", "Walk"), ("walker.gltf", "Idle"), ("walker.gltf", "Walk"), ("strut.glb", None)]
jobs = []
for t in targets:
    for src, clip in clips:
        for variant in ("keep", "lock"):
            name = "%s__%s%s__%s" % (t.split(".")[0], src.split(".")[0], "" if clip is None else "_" + clip, variant)
            j = {"id": name, "output": "out/%s.%s" % (name, "gltf" if len(jobs) % 7 == 3 else "glb"), "target": P(t), "source": P(src)}
            if clip: j["clip"] = clip
            if variant == "lock": j["options"] = {"root": "lock", "fps": 10}
            jobs.append(j)
# every clip of two motions in one output, and the one-job target
jobs[5] = {"id": "multi", "output": "out/multi.glb", "target": P("avatar.glb"),
           "clips": [{"source": P("source.glb"), "clip": "Walk", "name": "walk"}, {"source": P("walker.gltf")}, {"source": P("strut.glb")}]}
jobs[6] = {"id": "solo", "output": "out/solo.glb", "target": P("solo.glb"), "source": P("strut.glb")}
if use_shared:
    shared = sys.argv[5]
    jobs[7] = {"id": "kick", "output": "out/kick.glb", "target": P("avatar.glb"), "source": os.path.join(shared, "ybot@kick.fbx")}
    jobs[8] = {"id": "xbot", "output": "out/xbot.glb", "target": P("avatar_b.gltf"), "source": os.path.join(shared, "Xbot.glb"), "clip": "walk"}
assert len(jobs) == 40 and len({j["id"] for j in jobs}) == 40
if kind == "more":
    jobs.append({"id": "extra", "output": "out/extra.glb", "target": P("avatar.glb"), "source": P("strut.glb")})
if kind == "bad":
    jobs = jobs[:6]
    jobs.insert(2, {"id": "corrupt", "output": "out/corrupt.glb", "target": P("avatar.glb"), "source": P("broken.glb")})
    jobs.insert(4, {"id": "box", "output": "out/box.glb", "target": P("rig.glb"), "source": P("strut.glb")})
with open(os.path.join(folder, "jobs.jsonl"), "w") as f:
    for k, j in enumerate(jobs):
        f.write(json.dumps(j) + "\n")
        if k == 9: f.write("\n")   # a blank line is allowed
EOF
mkjobs() { python3 "$tmp/jobs.py" "$1" "$2" "$in" "$use_shared" "$assets"; }

fnv_shards='
def fnv(s):
    h = 0xcbf29ce484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
'
strip_merged='
def strip(d, folder):
    d = json.loads(json.dumps(d).replace(folder, "DIR"))
    for k in ("reports", "timings", "shard_count", "shards_missing", "shards_repeated"):
        d.pop(k)
    return d
'

# ---- usage ---------------------------------------------------------------------------
mkjobs "$tmp/one" main
expect help 0 -- "$rigkit" batch --help
expect_text help-manifest "$tmp/out" '--manifest FILE'
expect_text help-shard "$tmp/out" '--shard K/N'
for bad in 4/4 -1/4 a/b 1/0 1 /4 0/1000001 01x/4; do
	expect "shard-$bad" 1 -- "$rigkit" batch --manifest "$tmp/one/jobs.jsonl" --shard "$bad"
done
expect_text shard-msg "$tmp/err" '^rigkit: batch: --shard expects K/N with 0 <= K < N'
expect manifest-and-motions 1 -- "$rigkit" batch --manifest "$tmp/one/jobs.jsonl" --motions "$in/source.glb"
expect manifest-and-plan 1 -- "$rigkit" batch --manifest "$tmp/one/jobs.jsonl" --plan
expect o-without-plan 1 -- "$rigkit" batch --manifest "$tmp/one/jobs.jsonl" -o "$tmp/x"
expect merge-and-run 1 -- "$rigkit" batch --merge-reports "$tmp/r.json" --manifest "$tmp/one/jobs.jsonl"
expect plan-json-stdout 1 -- "$rigkit" batch --plan --motions "$in/source.glb" --avatars "$in/avatar.glb" --out "$tmp/o" --json
check usage-wrote-nothing test ! -e "$tmp/one/out"

# ---- bad manifest lines: FILE:LINE errors, nothing run ------------------------------------
bad_line() { # bad_line NAME LINE_NUMBER PATTERN TEXT-OF-THE-MANIFEST
	printf '%s' "$4" >"$tmp/bad.jsonl"
	expect "bad-$1" 2 -- "$rigkit" batch --manifest "$tmp/bad.jsonl"
	expect_text "bad-$1-msg" "$tmp/err" "^rigkit: $tmp/bad\\.jsonl:$2: $3"
}
ok='{"output": "o/a.glb", "target": "a.glb", "source": "m.glb"}'
bad_line json 2 'not a JSON value \(at column' "$ok"$'\n''{"output": "o/b.glb", "target": '$'\n'
bad_line unknown-key 1 "unknown key 'sorce' in a job \\(expected one of: id, output" '{"output": "o/a.glb", "target": "a.glb", "sorce": "m.glb"}'
bad_line no-output 3 'missing "output"' "$ok"$'\n'"$(echo "$ok" | sed 's/o\/a/o\/b/')"$'\n''{"target": "a.glb", "source": "m.glb"}'
bad_line no-target 1 'missing "target"' '{"output": "o/a.glb", "source": "m.glb"}'
bad_line no-source 1 'missing "source"' '{"output": "o/a.glb", "target": "a.glb"}'
bad_line not-object 1 'a job must be a JSON object' '["o/a.glb"]'
bad_line trailing 1 'more after the JSON object' "$ok"' {}'
bad_line twice 1 "key 'output' appears twice" '{"output": "o/a.glb", "output": "o/b.glb", "target": "a.glb", "source": "m.glb"}'
bad_line format 1 "\"output\": unsupported format '\\.obj' \\(supported: \\.glb, \\.gltf" '{"output": "o/a.obj", "target": "a.glb", "source": "m.glb"}'
bad_line clip-and-clips 1 'give "clip" or "clips", not both' '{"output": "o/a.glb", "target": "a.glb", "source": "m.glb", "clip": "W", "clips": ["W"]}'
bad_line clips-empty 1 '"clips" must be a non-empty array' '{"output": "o/a.glb", "target": "a.glb", "clips": []}'
bad_line clips-no-source 1 "clip 'W' has no \"source\"" '{"output": "o/a.glb", "target": "a.glb", "clips": ["W"]}'
bad_line clips-key 1 "unknown key 'nmae' in a \"clips\" item" '{"output": "o/a.glb", "target": "a.glb", "clips": [{"source": "m.glb", "nmae": "x"}]}'
bad_line name-without-clip 1 'a "clips" item: "name" needs "clip"' '{"output": "o/a.glb", "target": "a.glb", "clips": [{"source": "m.glb", "name": "x"}]}'
bad_line options-key 1 "unknown key 'rot' in \"options\"" '{"output": "o/a.glb", "target": "a.glb", "source": "m.glb", "options": {"rot": "lock"}}'
bad_line options-root 1 '"options": "root" must be "keep", "in-place", "lock" or "extract"' '{"output": "o/a.glb", "target": "a.glb", "source": "m.glb", "options": {"root": "up"}}'
bad_line options-fps 1 '"options": "fps" must be a number in \(0, 1000\]' '{"output": "o/a.glb", "target": "a.glb", "source": "m.glb", "options": {"fps": 0}}'
bad_line options-bool 1 '"options": "foot_ik" must be true or false' '{"output": "o/a.glb", "target": "a.glb", "source": "m.glb", "options": {"foot_ik": 1}}'
bad_line options-rest 1 '"options": "rest" must be "auto", "bind" or "stored"' '{"output": "o/a.glb", "target": "a.glb", "source": "m.glb", "options": {"rest": "crouch"}}'
bad_line empty-string 1 '"target" must be a non-empty string' '{"output": "o/a.glb", "target": "", "source": "m.glb"}'
bad_line same-id 3 "job id 'x' is also line 1's" '{"id": "x", "output": "o/a.glb", "target": "a.glb", "source": "m.glb"}'$'\n\n''{"id": "x", "output": "o/b.glb", "target": "a.glb", "source": "m.glb"}'
bad_line same-output 2 "output '$tmp/o/a\\.glb' is also written by line 1" "$ok"$'\n'"$(echo "$ok" | sed 's/"output"/"id": "other", "output"/')"
bad_line empty 1 'no job in the manifest' $'\n\n'
printf '%s\n%s\n' "$ok" '{"output": "o/b.glb", "target": "a.glb", "source": "m.glb", "clip": 7}' >"$tmp/bad.jsonl"
expect bad-json-error 2 -- "$rigkit" batch --manifest "$tmp/bad.jsonl" --json
py_check bad-json-error-doc '
d = json.load(open(sys.argv[1]))
e = d["error"]
assert d["exit_code"] == 2 and e["line"] == 2 and e["file"].endswith("bad.jsonl") and "\"clip\" must be a non-empty string" in e["message"], d' "$tmp/out"
check bad-wrote-nothing test ! -e "$tmp/o"
# every prefix of a good line is refused with FILE:1 (no job runs, nothing is written)
line='{"id": "p", "output": "o/p.glb", "target": "a.glb", "clips": [{"source": "m.glb", "clip": "W", "name": "w"}], "options": {"root": "lock", "fps": 10}}'
prefix_bad=0
for ((n = 0; n < ${#line}; n += 3)); do
	printf '%s' "${line:0:n}" >"$tmp/bad.jsonl"
	"$rigkit" batch --manifest "$tmp/bad.jsonl" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" != 2 ] || ! grep -qE "^rigkit: $tmp/bad\.jsonl:1: " "$tmp/err"; then
		prefix_bad=$((prefix_bad + 1))
		[ "$prefix_bad" -le 3 ] && echo "  prefix $n: exit $rc: $(head -1 "$tmp/err")"
	fi
done
check manifest-prefixes test "$prefix_bad" = 0
check prefixes-wrote-nothing test ! -e "$tmp/o"
expect manifest-missing 2 -- "$rigkit" batch --manifest "$tmp/nope.jsonl"
expect_text manifest-missing-msg "$tmp/err" "^rigkit: $tmp/nope\\.jsonl: cannot read the manifest"

# ---- the 40 jobs: one process, and 4 shards in parallel -------------------------------------
expect one 0 -- "$rigkit" batch --manifest "$tmp/one/jobs.jsonl" --threads 2 --resume --report "$tmp/one/report.json"
expect_text one-summary "$tmp/out" "^batch: $tmp/one/jobs\\.jsonl: 40 jobs, 40 written, 0 up to date, 0 failed;"
expect_text one-progress "$tmp/err" '^batch: 40/40 jobs \(100%\), [0-9.]+ jobs/s, ETA 0 s$'
check one-no-live-line test "$(grep -c $'\r' "$tmp/err")" = 0
check one-outputs test "$(ls "$tmp/one/out" | grep -cE '\.(glb|gltf)$')" = 40
check one-sidecars test "$(ls "$tmp/one/out" | grep -c '\.rigkit\.json$')" = 40
py_check one-report '
d = json.load(open(sys.argv[1]))
assert d["jobs_total"] == 40 and d["shard"] is None and d["resume"] and len(d["outputs"]) == 40, d["summary"]
by = {o["id"]: o for o in d["outputs"]}
assert all(o["status"] == "written" and o["ok"] and o["failures"] == [] for o in d["outputs"])
for o in d["outputs"]:
    assert o["max_direction_error_deg"] < 1e-3 and o["mapped_bones_min"] >= 50, o
# the manifest reached rk_retarget: lock jobs at 10 fps (31 frames at 30 fps -> 11)
w = by["avatar__source_Walk__lock"]["clips"][0]
k = by["avatar__source_Walk__keep"]["clips"][0]
assert (w["frames"], k["frames"], w["name"], k["name"]) == (11, 31, "source/Walk", "source/Walk"), (w, k)
m = [c["name"] for c in by["multi"]["clips"]]
assert m == ["walk", "walker/Idle", "walker/Walk", "strut"], m
assert by["solo"]["clips"][0]["name"] == "strut" and by["solo"]["line"] == 7 and by["multi"]["line"] == 6' "$tmp/one/report.json"
# a sidecar: the digest, the inputs, the job's report without timings
py_check one-sidecar '
d = json.load(open(sys.argv[1]))
assert len(d["digest"]) == 16 and d["id"] == "multi" and d["inputs"][0].endswith("avatar.glb") and len(d["inputs"]) == 4, d
assert d["report"]["status"] == "written" and "ms" not in d["report"], d["report"]' "$tmp/one/out/multi.glb.rigkit.json"
# the output is what `rigkit info` reads back: the multi job's clips
"$rigkit" info --json "$tmp/one/out/multi.glb" >"$tmp/info.json"
py_check one-multi-clips '
names = [c["name"] for c in json.load(open(sys.argv[1]))["clips"]]
assert names[-4:] == ["walk", "walker/Idle", "walker/Walk", "strut"], names' "$tmp/info.json"

mkjobs "$tmp/four" main
for k in 0 1 2 3; do
	"$rigkit" batch --manifest "$tmp/four/jobs.jsonl" --shard "$k/4" --threads 1 --resume --report "$tmp/four/r$k.json" \
		-q >"$tmp/four/out$k.txt" 2>"$tmp/four/err$k.txt" &
	pids[k]=$!
done
shard_fail=0
for k in 0 1 2 3; do wait "${pids[k]}" || shard_fail=1; done
check four-exit test "$shard_fail" = 0
check four-quiet test ! -s "$tmp/four/err0.txt" -a ! -s "$tmp/four/err3.txt"
check four-same-bytes same_tree "$tmp/one/out" "$tmp/four/out"
py_check four-same-sidecars '
a, b = (open(sys.argv[1] + f + "/out/multi.glb.rigkit.json").read().replace(sys.argv[1] + f, "DIR") for f in ("one", "four"))
assert a == b' "$tmp/"
# each job in the shard FNV-1a-64(id) mod 4 names, once
py_check four-assignment "$fnv_shards"'
seen = []
for k in range(4):
    d = json.load(open(sys.argv[1] + "/r%d.json" % k))
    assert d["shard"] == {"index": k, "count": 4} and d["jobs_total"] == 40, d["shard"]
    for o in d["outputs"]:
        assert fnv(o["id"]) % 4 == k, (o["id"], k)
        seen.append(o["id"])
    assert 3 <= len(d["outputs"]) <= 17, len(d["outputs"])
assert len(seen) == 40 and len(set(seen)) == 40' "$tmp/four"
expect merge-one 0 -- "$rigkit" batch --merge-reports "$tmp/one/report.json" -o "$tmp/one/merged.json"
expect_text merge-one-text "$tmp/out" '^batch: merged 1 report of 1 shard: 40 of 40 jobs, 40 written, 0 up to date, 0 partial, 0 failed, 0 not run, 0 missing, 0 duplicates;'
expect merge-four 0 -- "$rigkit" batch --merge-reports "$tmp/four/r"{0,1,2,3}.json -o "$tmp/four/merged.json"
py_check merged-same "$strip_merged"'
a = strip(json.load(open(sys.argv[1] + "/one/merged.json")), sys.argv[1] + "/one/")
b = strip(json.load(open(sys.argv[1] + "/four/merged.json")), sys.argv[1] + "/four/")
assert a == b, [(k, a[k], b[k]) for k in a if a[k] != b[k]][:2]
s = a["summary"]
assert s["jobs"] == 40 and s["written"] == 40 and s["missing"] == 0 and s["duplicates"] == 0 and s["exit_code"] == 0, s
assert s["max_direction_error_deg"] < 1e-3 and s["mapped_bones_min"] >= 50 and s["clips_retargeted"] == 43, s
assert [o["id"] for o in a["outputs"]] == sorted(o["id"] for o in a["outputs"])
m = json.load(open(sys.argv[1] + "/four/merged.json"))
assert [r["shard"] for r in m["reports"]] == [0, 1, 2, 3] and m["shards_missing"] == [] and m["timings"]["wall_s_max"] > 0, m["reports"]' "$tmp"
# --json on stdout is the merged document (and nothing else there)
expect merge-json 0 -- "$rigkit" batch --merge-reports "$tmp/four/r"{0,1,2,3}.json --json
py_check merge-json-doc 'd = json.load(open(sys.argv[1])); assert d["summary"]["jobs"] == 40' "$tmp/out"

# a missing shard, a shard twice, reports of another job list
expect merge-missing 2 -- "$rigkit" batch --merge-reports "$tmp/four/r0.json" "$tmp/four/r1.json" "$tmp/four/r3.json" --json
py_check merge-missing-doc '
d = json.load(open(sys.argv[1])); r2 = json.load(open(sys.argv[2]))
assert d["shards_missing"] == [2] and d["summary"]["missing"] == len(r2["outputs"]) and d["summary"]["exit_code"] == 2, d["summary"]' \
	"$tmp/out" "$tmp/four/r2.json"
expect merge-dup 2 -- "$rigkit" batch --merge-reports "$tmp/four/r"{0,1,2,3,1}.json --json
py_check merge-dup-doc '
d = json.load(open(sys.argv[1])); r1 = json.load(open(sys.argv[2]))
assert d["shards_repeated"] == [1] and d["summary"]["duplicates"] == len(r1["outputs"]) == len(d["duplicates"]), d["summary"]
assert d["summary"]["missing"] == 0 and all(len(x["reports"]) == 2 for x in d["duplicates"]), d["duplicates"]' \
	"$tmp/out" "$tmp/four/r1.json"
expect merge-dup-text 2 -- "$rigkit" batch --merge-reports "$tmp/four/r"{0,1,2,3,1}.json
expect_text merge-dup-msg "$tmp/err" '^rigkit: batch: 2 reports for shard 1/4$'
mkjobs "$tmp/more" more
expect more-shard 0 -- "$rigkit" batch --manifest "$tmp/more/jobs.jsonl" --shard 0/4 --json --resume
cp "$tmp/out" "$tmp/more0.json"
expect merge-other-list 2 -- "$rigkit" batch --merge-reports "$tmp/four/r1.json" "$tmp/more0.json"
expect_text merge-other-list-msg "$tmp/err" "^rigkit: $tmp/more0\\.json: not a shard of the job list of"
printf '{"jobs_digest": "x", "outputs": [' >"$tmp/trunc.json"
expect merge-corrupt 2 -- "$rigkit" batch --merge-reports "$tmp/four/r1.json" "$tmp/trunc.json"
expect_text merge-corrupt-msg "$tmp/err" "^rigkit: $tmp/trunc\\.json: not a JSON document \\(at byte [0-9]+, line 1\\)"
echo '{"a": 1}' >"$tmp/other.json"
expect merge-not-report 2 -- "$rigkit" batch --merge-reports "$tmp/other.json"
expect_text merge-not-report-msg "$tmp/err" 'not a rigkit batch report'

# adding a job moves no other job: with the 41-job list, shard 0 holds the
# ids shard 0 held (plus perhaps the new one)
py_check add-job-stable '
a = {o["id"] for o in json.load(open(sys.argv[1]))["outputs"]}
b = {o["id"] for o in json.load(open(sys.argv[2]))["outputs"]}
assert b - a <= {"extra"} and a <= b, (a ^ b)' "$tmp/four/r0.json" "$tmp/more0.json"

# ---- a shard killed mid-run and resumed ---------------------------------------------------------
mkjobs "$tmp/kill" main
for k in 1 2 3; do
	"$rigkit" batch --manifest "$tmp/kill/jobs.jsonl" --shard "$k/4" --threads 1 --resume -q --report "$tmp/kill/r$k.json" >/dev/null &
	pids[k]=$!
done
for k in 1 2 3; do wait "${pids[k]}"; done
# shard 0 on one thread, killed once two of its outputs are recorded
n0=$(python3 -c "import json; print(len(json.load(open('$tmp/four/r0.json'))['outputs']))")
others=$(ls "$tmp/kill/out" | grep -c '\.rigkit\.json$')
check kill-others-done test "$others" = $((40 - n0))
"$rigkit" batch --manifest "$tmp/kill/jobs.jsonl" --shard 0/4 --threads 1 --resume -q >/dev/null 2>&1 &
victim=$!
for ((i = 0; i < 3000; i++)); do
	[ "$(ls "$tmp/kill/out" | grep -c '\.rigkit\.json$')" -ge $((others + 2)) ] && break
	kill -0 "$victim" 2>/dev/null || break
	sleep 0.01
done
kill -9 "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
done_before=$(($(ls "$tmp/kill/out" | grep -c '\.rigkit\.json$') - others))
echo "note: shard 0 killed with $done_before of its $n0 jobs recorded"
# a temporary a killed writer of shard 0 left, and one of a shard still writing (3's): only the first goes
s0=$(python3 -c "import json; print(json.load(open('$tmp/four/r0.json'))['outputs'][-1]['output'].split('/')[-1])")
s3=$(python3 -c "import json; print(json.load(open('$tmp/four/r3.json'))['outputs'][0]['output'].split('/')[-1])")
: >"$tmp/kill/out/$s0.tmpAb12Cd"
: >"$tmp/kill/out/$s0.rigkit.json.tmpXy34Zw"
: >"$tmp/kill/out/$s3.tmpQq55Rr"
expect kill-resume 0 -- "$rigkit" batch --manifest "$tmp/kill/jobs.jsonl" --shard 0/4 --threads 2 --resume --report "$tmp/kill/r0.json" -v
expect_text kill-resume-temps "$tmp/err" '^rigkit: batch: removed [0-9]+ temporary files? left by an interrupted run$'
check kill-other-shard-temp test -e "$tmp/kill/out/$s3.tmpQq55Rr"
rm -f "$tmp/kill/out/$s3.tmpQq55Rr"
check kill-no-temps no_temps "$tmp/kill/out"
check kill-same-bytes same_tree "$tmp/one/out" "$tmp/kill/out"
py_check kill-report '
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["jobs"] == int(sys.argv[2]) and s["jobs_up_to_date"] == int(sys.argv[3]) >= 1, (s, sys.argv)
assert s["jobs_up_to_date"] + s["outputs_written"] == s["jobs"] and s["jobs_failed"] == 0, s' "$tmp/kill/r0.json" "$n0" "$done_before"
expect kill-merge 0 -- "$rigkit" batch --merge-reports "$tmp/kill/r"{0,1,2,3}.json -o "$tmp/kill/merged.json"
py_check kill-merged "$strip_merged"'
a = strip(json.load(open(sys.argv[1] + "/four/merged.json")), sys.argv[1] + "/four/")
b = strip(json.load(open(sys.argv[1] + "/kill/merged.json")), sys.argv[1] + "/kill/")
sa, sb = a.pop("summary"), b.pop("summary")
for o in a["outputs"] + b["outputs"]: o.pop("status")
assert a == b, [(k, a[k], b[k]) for k in a if a[k] != b[k]][:2]
assert sb["jobs"] == 40 and sb["written"] + sb["up_to_date"] == 40 and sb["missing"] == 0 and sb["duplicates"] == 0, sb
for k in ("clips_retargeted", "frames", "max_direction_error_deg", "mapped_bones_min", "mapped_bones_max"):
    assert sa[k] == sb[k], k' "$tmp"

# ---- --resume ----------------------------------------------------------------------------------
expect resume-noop 0 -- "$rigkit" batch --manifest "$tmp/one/jobs.jsonl" --resume --json
py_check resume-noop-doc '
d = json.load(open(sys.argv[1]))
assert d["summary"]["jobs_up_to_date"] == 40 and d["summary"]["outputs_written"] == 0 and d["motions"] == [], d["summary"]
assert all(o["status"] == "up_to_date" and o["previous"]["status"] == "written" for o in d["outputs"])' "$tmp/out"
touch "$in/avatar.glb"     # the time changes, not the bytes: still up to date
cp "$tmp/s/avatar.glb" "$in/solo.glb"   # other bytes: the one job reading it is redone
rm "$tmp/one/out/avatar__strut__lock.glb"      # a missing output is redone
echo '{"digest": "0000000000000000"}' >"$tmp/one/out/walker__strut__lock.glb.rigkit.json"   # a stale record too
before=$(stat -c %Y.%s "$tmp/one/out/avatar__source_Idle__keep.glb")
cp "$tmp/one/out/solo.glb" "$tmp/solo-before.glb"
expect resume-changed 0 -- "$rigkit" batch --manifest "$tmp/one/jobs.jsonl" --resume --json --report "$tmp/one/report2.json"
py_check resume-changed-doc '
d = json.load(open(sys.argv[1]))
redone = sorted(o["id"] for o in d["outputs"] if o["status"] == "written")
assert redone == ["avatar__strut__lock", "solo", "walker__strut__lock"], redone
assert d["summary"]["jobs_up_to_date"] == 37, d["summary"]
# only what the redone jobs read was loaded
assert sorted(os.path.basename(m["file"]) for m in d["motions"]) == ["strut.glb"], d["motions"]' "$tmp/out"
check resume-untouched test "$(stat -c %Y.%s "$tmp/one/out/avatar__source_Idle__keep.glb")" = "$before"
check resume-solo-rewritten test -s "$tmp/one/out/solo.glb" -a -n "$(cmp "$tmp/solo-before.glb" "$tmp/one/out/solo.glb")"
expect merge-resumed 0 -- "$rigkit" batch --merge-reports "$tmp/one/report2.json" --json
py_check merge-resumed-doc '
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["written"] == 3 and s["up_to_date"] == 37 and s["clips_retargeted"] == 43 and s["exit_code"] == 0, s' "$tmp/out"

# ---- a corrupt input and a non-humanoid target: reported, the rest done --------------------------------
mkjobs "$tmp/bad" bad
expect bad-run 2 -- "$rigkit" batch --manifest "$tmp/bad/jobs.jsonl" --keep-going --threads 2 --report "$tmp/bad/r.json"
expect_text bad-run-motion "$tmp/err" "^rigkit: $in/broken\\.glb: "
expect_text bad-run-target "$tmp/err" "^rigkit: $in/rig\\.glb: not a humanoid: "
expect_text bad-run-summary "$tmp/out" '8 jobs, 6 written, 0 up to date, 2 failed;'
check bad-run-outputs test "$(ls "$tmp/bad/out" | grep -cE '\.(glb|gltf)$')" = 6 -a ! -e "$tmp/bad/out/corrupt.glb" -a ! -e "$tmp/bad/out/box.glb"
expect bad-merge 2 -- "$rigkit" batch --merge-reports "$tmp/bad/r.json" --json
py_check bad-merge-doc '
d = json.load(open(sys.argv[1]))
f = [(x["id"], x["stage"], os.path.basename(x["file"])) for x in d["failures"]]
assert f == [("box", "humanoid", "rig.glb"), ("corrupt", "load", "broken.glb")], f
assert all(x["error"] for x in d["failures"]) and d["summary"]["failed"] == 2 and d["summary"]["written"] == 6, d["summary"]' "$tmp/out"
# without --keep-going the broken motion stops the run before any job
rm -rf "$tmp/bad/out"
expect bad-stop 2 -- "$rigkit" batch --manifest "$tmp/bad/jobs.jsonl" --json
py_check bad-stop-doc '
d = json.load(open(sys.argv[1]))
assert d["summary"]["jobs_not_run"] == 8 and all(o["status"] == "not_run" for o in d["outputs"]), d["summary"]' "$tmp/out"
check bad-stop-nothing test ! -e "$tmp/bad/out"
# a clip the motion does not have: that job fails, with its name
printf '{"id": "typo", "output": "out/t.glb", "target": "%s", "source": "%s", "clip": "Wlak"}\n' "$in/avatar.glb" "$in/source.glb" >"$tmp/typo.jsonl"
expect typo 2 -- "$rigkit" batch --manifest "$tmp/typo.jsonl"
expect_text typo-msg "$tmp/err" "^rigkit: $in/source\\.glb: no animation clip named 'Wlak' \\(job typo\\)"

# ---- "group": one group, one shard ------------------------------------------------------------
python3 - "$tmp/grp" "$in" <<'EOF'
import json, os, sys
os.makedirs(sys.argv[1])
with open(os.path.join(sys.argv[1], "jobs.jsonl"), "w") as f:
    for g, src in (("walk-group", "source.glb"), ("strut-group", "strut.glb")):
        for t in ("avatar.glb", "avatar_b.gltf", "walker.gltf"):
            f.write(json.dumps({"id": g + "/" + t, "group": g, "output": "out/%s__%s.glb" % (g, t.split(".")[0]),
                                "target": os.path.join(sys.argv[2], t), "source": os.path.join(sys.argv[2], src), "clip": "Walk"}) + "\n")
EOF
mkdir -p "$tmp/grp/out"
: >"$tmp/grp/out/walk-group__avatar.glb.tmp123abc"   # left by a killed writer: removed by the next run, --resume or not
: >"$tmp/grp/out/unrelated.glb.tmp123abc"            # no job's output: left alone
for k in 0 1 2 3; do "$rigkit" batch --manifest "$tmp/grp/jobs.jsonl" --shard "$k/4" --json -q >"$tmp/grp/r$k.json"; done
check group-temp-removed test ! -e "$tmp/grp/out/walk-group__avatar.glb.tmp123abc" -a -e "$tmp/grp/out/unrelated.glb.tmp123abc"
py_check group-shards "$fnv_shards"'
where = {}
for k in range(4):
    for o in json.load(open(sys.argv[1] + "/r%d.json" % k))["outputs"]:
        assert o["status"] == "written", o
        where.setdefault(o["id"].split("/")[0], set()).add(k)
assert where == {g: {fnv(g) % 4} for g in ("walk-group", "strut-group")}, where' "$tmp/grp"

# ---- --plan: the folder form's jobs as a manifest ----------------------------------------------------
mkdir -p "$tmp/fm" "$tmp/fa"
cp "$in/source.glb" "$in/walker.gltf" "$in/strut.glb" "$tmp/fm/"
cp "$in/avatar.glb" "$in/avatar_b.gltf" "$tmp/fa/"
for mode in avatar clip; do
	extra=()
	[ "$mode" = clip ] && extra=(--per-clip)
	expect "folder-$mode" 0 -- "$rigkit" batch --motions "$tmp/fm" --avatars "$tmp/fa" --out "$tmp/fo-$mode" "${extra[@]}" --root in-place --foot-ik
	expect "plan-$mode" 0 -- "$rigkit" batch --plan --motions "$tmp/fm" --avatars "$tmp/fa" --out "$tmp/po-$mode" "${extra[@]}" \
		--root in-place --foot-ik -o "$tmp/plan-$mode/jobs.jsonl"
	expect_text "plan-$mode-msg" "$tmp/err" "^batch: plan: [0-9]+ jobs written to $tmp/plan-$mode/jobs\\.jsonl$"
	expect "plan-$mode-run" 0 -- "$rigkit" batch --manifest "$tmp/plan-$mode/jobs.jsonl" --threads 2
	check "plan-$mode-same-bytes" same_tree "$tmp/fo-$mode" "$tmp/po-$mode"
done
py_check plan-lines '
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["id"] for l in lines] == ["avatar.glb", "avatar_b.glb"], lines
l = lines[0]
assert l["output"] == "../po-avatar/avatar.glb" and l["target"] == "../fa/avatar.glb", l
assert [c["name"] for c in l["clips"]] == ["source/Idle", "source/Walk", "strut", "walker/Idle", "walker/Walk"], l["clips"]
assert l["clips"][2] == {"source": "../fm/strut.glb", "clip": "Walk", "name": "strut"}, l["clips"][2]
assert l["options"] == {"root": "in-place", "skip_fingers": False, "foot_ik": True, "drop_avatar_clips": False}, l["options"]' \
	"$tmp/plan-avatar/jobs.jsonl"
# deterministic: the same manifest whatever the argument order; to stdout without -o
(cd "$tmp/plan-avatar" && "$rigkit" batch --plan --motions ../fm/walker.gltf ../fm/strut.glb ../fm/source.glb --avatars ../fa \
	--out ../po-avatar --root in-place --foot-ik >"$tmp/plan-stdout.jsonl")
check plan-stdout-same cmp -s "$tmp/plan-avatar/jobs.jsonl" "$tmp/plan-stdout.jsonl"
# --plan --shard writes that shard's lines; the four shards' lines are the plan's
for k in 0 1 2 3; do "$rigkit" batch --plan --motions "$tmp/fm" --avatars "$tmp/fa" --out "$tmp/po-clip" --per-clip \
	--root in-place --foot-ik --shard "$k/4" -o "$tmp/plan-clip/s$k.jsonl" -q; done
check plan-shards-union test "$(cat "$tmp/plan-clip"/s?.jsonl | sort)" = "$(sort "$tmp/plan-clip/jobs.jsonl")"
# the folder form shards the same way, and --resume skips what it did
expect folder-shard 0 -- "$rigkit" batch --motions "$tmp/fm" --avatars "$tmp/fa" --out "$tmp/fs" --per-clip --shard 1/4 --json
py_check folder-shard-doc "$fnv_shards"'
d = json.load(open(sys.argv[1]))
ids = sorted(o["id"] for o in d["outputs"])
want = sorted(json.loads(l)["id"] for l in open(sys.argv[2]))
assert ids == want and all(fnv(i) % 4 == 1 for i in ids) and d["jobs_total"] == 10, (ids, want)' "$tmp/out" "$tmp/plan-clip/s1.jsonl"

# the folder form resumes too: a second --resume run redoes nothing, a changed motion redoes its outputs
expect folder-resume-1 0 -- "$rigkit" batch --motions "$tmp/fm" --avatars "$tmp/fa" --out "$tmp/fr" --per-clip --resume --json
expect folder-resume-2 0 -- "$rigkit" batch --motions "$tmp/fm" --avatars "$tmp/fa" --out "$tmp/fr" --per-clip --resume --json
py_check folder-resume-doc 'd = json.load(open(sys.argv[1])); s = d["summary"]
assert s["jobs_up_to_date"] == 10 and s["outputs_written"] == 0, s' "$tmp/out"
"$rigkit" retarget "$in/source.glb" "$in/source.glb" "$tmp/fm/strut.glb" --clip Walk --drop-target-clips --fps 12 >/dev/null
expect folder-resume-3 0 -- "$rigkit" batch --motions "$tmp/fm" --avatars "$tmp/fa" --out "$tmp/fr" --per-clip --resume --json
py_check folder-resume-changed 'd = json.load(open(sys.argv[1]))
redone = sorted(o["id"] for o in d["outputs"] if o["status"] == "written")
assert redone == ["avatar__strut.glb", "avatar_b__strut.glb"], redone' "$tmp/out"

# ---- progress: a live line on a terminal, plain lines otherwise, none with -q ------------------------------
expect quiet 0 -- "$rigkit" batch --manifest "$tmp/plan-avatar/jobs.jsonl" -q
check quiet-silent test ! -s "$tmp/err"
expect json-progress 0 -- "$rigkit" batch --manifest "$tmp/plan-avatar/jobs.jsonl" --json
expect_text json-progress-stderr "$tmp/err" '^batch: 2/2 jobs \(100%\)'
py_check json-progress-stdout 'json.load(open(sys.argv[1]))' "$tmp/out"
if script -qec true /dev/null >/dev/null 2>&1; then
	script -qec "'$rigkit' batch --manifest '$tmp/plan-clip/jobs.jsonl' --threads 1 >/dev/null" /dev/null >"$tmp/tty.txt" 2>&1
	check tty-live-line grep -q $'\rbatch: [0-9]*/10 jobs, [0-9.]* jobs/s, ETA ' "$tmp/tty.txt"
	check tty-final-line grep -q $'\rbatch: 10/10 jobs, [0-9.]* jobs/s, ETA 0 s' "$tmp/tty.txt"
	check tty-no-plain-lines test "$(grep -c '(100%)' "$tmp/tty.txt")" = 0
else
	echo "note: no script(1): the terminal progress line is not checked"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
