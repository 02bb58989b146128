#!/usr/bin/env bash
# tests/test_cli_json.sh RIGKIT SHARED BUILD - the CLI's common options on
# every command: --json prints exactly one JSON document on stdout, on
# success and on failure (bad option, missing file, corrupt file, output
# failure: {"error": {code, description, message, file, byte_offset, line,
# json_pointer, fbx_node}, "exit_code": N} with the process's exit code);
# -q leaves stderr empty on success, -v adds to it; '-' reads stdin and
# writes stdout (info, convert, pose, render, retarget). Inputs come from
# `rigkit sample` only: nothing from SHARED is needed.
set -u
rigkit=$1
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"   # $tmp, counters, expect, expect_text

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to check --json"; exit 77; }

check() { # check NAME COMMAND... (passes when the command succeeds)
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}

# one_json NAME: $tmp/out is exactly one JSON document (json.tool refuses
# trailing text and a second document)
one_json() {
	if python3 -m json.tool "$tmp/out" >/dev/null 2>"$tmp/json_err"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL $1: stdout is not one JSON document:"; head -c 300 "$tmp/out" | sed 's/^/  /'
		sed 's/^/  json.tool: /' "$tmp/json_err" | head -2
	fi
}

json_check() { # json_check NAME PYTHON (d = the parsed $tmp/out)
	if python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$2" "$tmp/out"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL $1"; head -c 300 "$tmp/out" | sed 's/^/  /'
	fi
}

ok_json() { # ok_json NAME -- command... : exit 0, one JSON document
	local name=$1
	shift
	expect "$name" 0 "$@"
	one_json "$name-one-document"
}

# err_json NAME EXIT CODE -- command... : exit EXIT, one JSON document, the
# error object with every field, error.code CODE (a regex), exit_code EXIT,
# the human message still on stderr
err_json() {
	local name=$1 want=$2 code=$3
	shift 4
	expect "$name" "$want" -- "$@"
	one_json "$name-one-document"
	json_check "$name-error-object" "
e = d['error']
assert set(e) >= {'code', 'description', 'message', 'file', 'byte_offset', 'line', 'json_pointer', 'fbx_node'}, e
import re
assert re.fullmatch('$code', e['code']), e['code']
assert isinstance(e['message'], str) and e['message'], e
assert e['byte_offset'] is None or isinstance(e['byte_offset'], int), e
assert e['line'] is None or isinstance(e['line'], int), e
assert d['exit_code'] == $want, d
assert set(d) == {'error', 'exit_code'}, d"
	expect_text "$name-stderr" "$tmp/err" '^rigkit: '
}

"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }
src=$tmp/s/source.glb
avatar=$tmp/s/avatar.glb
missing=$tmp/nope.glb
head -c 3000 "$src" >"$tmp/broken.glb"           # a truncated GLB
printf 'hello world, not a scene\n' >"$tmp/junk.bin"
LOAD_ERR='truncated|corrupt|unknown_format|unsupported'

# ---- info
ok_json info -- "$rigkit" info --json "$avatar"
json_check info-values 'assert d["format"] == "glb" and len(d["nodes"]) > 60 and d["clips"] == [], d["format"]'
ok_json info-meshes -- "$rigkit" info --json --no-tree --meshes "$avatar"
json_check info-meshes-values '
x = d["mesh_expansion"]
assert "nodes" not in d and x["draws"] and x["triangles"] > 0, x
assert sum(p["triangles"] for dr in x["draws"] for p in dr["parts"]) == x["triangles"], x'
err_json info-missing 2 io -- "$rigkit" info --json "$missing"
json_check info-missing-file "assert d['error']['file'] == '$missing', d"
err_json info-corrupt 2 "$LOAD_ERR" -- "$rigkit" info --json "$tmp/broken.glb"
err_json info-junk 2 unknown_format -- "$rigkit" info --json "$tmp/junk.bin"
json_check info-junk-offset 'assert d["error"]["byte_offset"] == 0, d'
err_json info-bad-option 1 invalid_argument -- "$rigkit" info "$avatar" --bogus --json
err_json info-no-file 1 invalid_argument -- "$rigkit" info --json
# every string is escaped: quotes, backslashes, control characters
printf '{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"name":"a\\"b\\\\c\\u0001d\\ttab \\u00e9"}]}' >"$tmp/names.gltf"
ok_json info-escapes -- "$rigkit" info --json "$tmp/names.gltf"
json_check info-escapes-value 'assert d["nodes"][1]["name"] == "a\"b\\c\u0001d\ttab \u00e9", d["nodes"][1]["name"]'

# ---- transform
ok_json transform -- "$rigkit" transform --rotation 0,0,90 --json
err_json transform-bad-order 1 invalid_argument -- "$rigkit" transform --order abc --json
err_json transform-bad-vector 1 invalid_argument -- "$rigkit" transform --json --translation 1,2
err_json transform-operand 1 invalid_argument -- "$rigkit" transform --json stray

# ---- convert
ok_json convert-glb -- "$rigkit" convert "$src" "$tmp/copy.glb" --json
json_check convert-glb-values "assert d['output'] == '$tmp/copy.glb' and d['format'] == 'glb' and d['gltf']['animations'] == 2, d"
ok_json convert-obj -- "$rigkit" convert "$src" "$tmp/walk.obj" --clip Walk --time 0.5 --json
json_check convert-obj-values 'assert d["format"] == "obj" and d["clip"] == "Walk" and d["time"] == 0.5, d'
err_json convert-missing 2 io -- "$rigkit" convert --json "$missing" "$tmp/x.glb"
err_json convert-corrupt 2 "$LOAD_ERR" -- "$rigkit" convert --json "$tmp/broken.glb" "$tmp/x.glb"
err_json convert-bad-ext 1 invalid_argument -- "$rigkit" convert --json "$src" "$tmp/x.xyz"
err_json convert-bad-fps 1 invalid_argument -- "$rigkit" convert --json "$src" "$tmp/x.glb" --fps 0
err_json convert-no-clip 2 invalid_argument -- "$rigkit" convert --json "$src" "$tmp/x.obj" --clip Nope
err_json convert-unwritable 3 output -- "$rigkit" convert --json "$src" "$tmp/no/dir/x.glb"

# ---- pose
ok_json pose -- "$rigkit" pose "$src" --samples 2 --joints --json
err_json pose-missing 2 io -- "$rigkit" pose --json "$missing"
err_json pose-corrupt 2 "$LOAD_ERR" -- "$rigkit" pose --json "$tmp/broken.glb"
err_json pose-bad-samples 1 invalid_argument -- "$rigkit" pose --json "$src" --samples 0
err_json pose-bad-time 1 invalid_argument -- "$rigkit" pose --json "$src" --time soon

# ---- sample
ok_json sample -- "$rigkit" sample "$tmp/s2" --json
json_check sample-values '
names = [f["path"].split("/")[-1] for f in d["files"]]
assert names == ["source.glb", "avatar.glb"] and d["files"][0]["clips"] == ["Idle", "Walk"], d'
: >"$tmp/plain"
err_json sample-out-is-file 3 output -- "$rigkit" sample "$tmp/plain/x" --json
err_json sample-bad-option 1 invalid_argument -- "$rigkit" sample "$tmp/s3" --bogus --json

# ---- humanoid
ok_json humanoid -- "$rigkit" humanoid "$avatar" --json
json_check humanoid-values 'assert d["valid"] and d["bones"]["hips"] == "Hips", d'
printf 'notABone = Hips\n' >"$tmp/badmap.txt"
err_json humanoid-bad-map 2 '.*' -- "$rigkit" humanoid "$avatar" --map "$tmp/badmap.txt" --json
json_check humanoid-bad-map-line "assert d['error']['line'] == 1, d"
err_json humanoid-missing 2 io -- "$rigkit" humanoid --json "$missing"
err_json humanoid-corrupt 2 "$LOAD_ERR" -- "$rigkit" humanoid --json "$tmp/broken.glb"
err_json humanoid-bad-option 1 invalid_argument -- "$rigkit" humanoid --json "$avatar" --map

# ---- retarget
ok_json retarget -- "$rigkit" retarget "$src" "$avatar" "$tmp/walk.glb" --clip Walk --json
json_check retarget-values 'assert d["clips"][0]["frames"] == 31 and d["root"] == "keep", d'
err_json retarget-missing 2 io -- "$rigkit" retarget --json "$missing" "$avatar" "$tmp/x.glb"
err_json retarget-corrupt 2 "$LOAD_ERR" -- "$rigkit" retarget --json "$src" "$tmp/broken.glb" "$tmp/x.glb"
err_json retarget-bad-root 1 invalid_argument -- "$rigkit" retarget --json "$src" "$avatar" "$tmp/x.glb" --root sideways
err_json retarget-unwritable 3 output -- "$rigkit" retarget --json "$src" "$avatar" "$tmp/no/dir/x.glb"

# ---- compare
ok_json compare -- "$rigkit" compare "$src" "$src" --clip-a Walk --clip-b Walk --json
err_json compare-missing 2 io -- "$rigkit" compare --json "$src" "$missing"
err_json compare-corrupt 2 "$LOAD_ERR" -- "$rigkit" compare --json "$tmp/broken.glb" "$src"
err_json compare-bad-fps 1 invalid_argument -- "$rigkit" compare --json "$src" "$src" --fps abc
err_json compare-exclusive 1 invalid_argument -- "$rigkit" compare --json "$src" "$src" --static-a --clip-a Walk

# ---- batch: the report is the document, also when an input failed
mkdir -p "$tmp/m" "$tmp/a"
cp "$src" "$tmp/m/"
cp "$avatar" "$tmp/a/"
ok_json batch -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o" --threads 2 --json
json_check batch-values 'assert d["summary"]["outputs_written"] == 1 and d["failures"] == [], d["summary"]'
expect batch-corrupt 2 -- "$rigkit" batch --motions "$tmp/m" "$tmp/broken.glb" --avatars "$tmp/a" --out "$tmp/o2" --keep-going --json
one_json batch-corrupt-one-document
json_check batch-corrupt-report 'assert d["summary"]["exit_code"] == 2 and d["failures"][0]["stage"] == "load", d["failures"]'
err_json batch-bad-threads 1 invalid_argument -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/o3" --threads 0 --json
err_json batch-no-motions 1 invalid_argument -- "$rigkit" batch --avatars "$tmp/a" --out "$tmp/o3" --json
err_json batch-unwritable 3 output -- "$rigkit" batch --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/plain" --json

# ---- render
ok_json render -- "$rigkit" render "$src" "$tmp/r.png" --size 32x32 --clip Walk --frames 2 --json
json_check render-values 'assert d["width"] == 64 and d["height"] == 32 and d["times"] == [0, 0.5] and d["triangles"] > 0, d'
err_json render-missing 2 io -- "$rigkit" render --json "$missing" "$tmp/r.png"
err_json render-corrupt 2 "$LOAD_ERR" -- "$rigkit" render --json "$tmp/broken.glb" "$tmp/r.png"
err_json render-bad-size 1 invalid_argument -- "$rigkit" render --json "$src" "$tmp/r.png" --size 10by10
err_json render-unwritable 3 output -- "$rigkit" render --json "$src" "$tmp/no/dir/r.png" --size 8x8

# ---- unknown command
err_json unknown-command 1 invalid_argument -- "$rigkit" frobnicate --json

# ---- -q: nothing on stderr on success; -v: more
quiet() { # quiet NAME -- command... : exit 0 and an empty stderr
	local name=$1
	shift
	expect "$name" 0 "$@"
	check "$name-silent" test ! -s "$tmp/err"
}
quiet q-info -- "$rigkit" info -q "$avatar"
quiet q-transform -- "$rigkit" transform -q
quiet q-convert -- "$rigkit" convert -q "$src" "$tmp/q.gltf"
quiet q-pose -- "$rigkit" pose -q "$src"
quiet q-sample -- "$rigkit" sample -q "$tmp/s4"
quiet q-humanoid -- "$rigkit" humanoid -q "$avatar"
quiet q-retarget -- "$rigkit" retarget -q "$src" "$avatar" - --clip Walk
quiet q-compare -- "$rigkit" compare -q "$src" "$src"
quiet q-batch -- "$rigkit" batch -q --motions "$tmp/m" --avatars "$tmp/a" --out "$tmp/oq"
quiet q-render -- "$rigkit" render -q "$src" "$tmp/q.png" --size 16x16
quiet q-verbose -- "$rigkit" info -q -v "$avatar"
expect v-info 0 -- "$rigkit" info -v --no-tree "$avatar"
expect_text v-info-detail "$tmp/err" "^rigkit: $avatar: glb, [0-9]+ nodes"
expect v-convert 0 -- "$rigkit" convert --verbose "$src" "$tmp/v.glb"
expect_text v-convert-detail "$tmp/err" "^rigkit: $tmp/v.glb: [0-9]+ nodes"

# ---- '-': stdin and stdout
expect stdin-info 0 -- bash -c "'$rigkit' info --json - <'$src'"
one_json stdin-info-one-document
json_check stdin-info-name 'assert d["file"] == "<stdin>" and [c["name"] for c in d["clips"]] == ["Idle", "Walk"], d["file"]'
err_json stdin-info-corrupt 2 "$LOAD_ERR" -- bash -c "'$rigkit' info --json - <'$tmp/broken.glb'"
json_check stdin-info-corrupt-file 'assert d["error"]["file"] == "<stdin>", d'
expect stdin-convert 0 -- bash -c "'$rigkit' convert - '$tmp/from_stdin.glb' <'$src'"
check stdin-convert-same cmp -s "$tmp/from_stdin.glb" "$tmp/copy.glb"
expect stdout-obj 0 -- "$rigkit" convert "$src" - --format obj --clip Walk --time 0.5
check stdout-obj-same cmp -s "$tmp/out" "$tmp/walk.obj"
expect stdout-glb 0 -- "$rigkit" convert "$src" - --format glb
check stdout-glb-same cmp -s "$tmp/out" "$tmp/copy.glb"
expect pipe 0 -- bash -c "'$rigkit' convert '$src' - --format gltf | '$rigkit' info --json --no-tree -"
json_check pipe-clips 'assert [c["name"] for c in d["clips"]] == ["Idle", "Walk"], d'
expect format-overrides-ext 0 -- "$rigkit" convert "$src" "$tmp/odd.bin" --format obj
expect_text format-overrides-ext-obj "$tmp/odd.bin" '^f [0-9]'
err_json stdout-needs-format 1 invalid_argument -- "$rigkit" convert --json "$src" -
expect stdout-and-json 1 -- "$rigkit" convert "$src" - --format glb --json
one_json stdout-and-json-one-document
expect stdin-pose 0 -- bash -c "'$rigkit' pose --json - --clip Walk <'$src'"
one_json stdin-pose-one-document
expect stdin-render 0 -- bash -c "'$rigkit' render - '$tmp/stdin.png' --size 16x16 <'$src'"
expect stdin-twice 1 -- bash -c "'$rigkit' compare - - <'$src'"
expect_text stdin-twice-msg "$tmp/err" "standard input \('-'\) can be read only once"
expect stdout-retarget 0 -- bash -c "'$rigkit' retarget -q '$src' '$avatar' - --clip Walk | '$rigkit' info --json --no-tree -"
json_check stdout-retarget-clip 'assert "Walk" in [c["name"] for c in d["clips"]], d'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
