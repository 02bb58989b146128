#!/usr/bin/env bash
# tests/test_fbx_write_cli.sh RIGKIT SHARED BUILD - the CLI writes FBX:
# `rigkit convert IN OUT.fbx` (binary 7400; --fbx-ascii: ASCII; '-' with
# --format fbx: stdout), `rigkit retarget SRC AVATAR OUT.fbx` and
# `rigkit batch --format fbx` (folder form) and manifest outputs ending in
# .fbx; every file reads back with `rigkit info` as FBX with the expected
# clips; an output extension without a writer is a usage error naming .fbx.
# Inputs: the committed fixtures and `rigkit sample` (no ../shared needed).
set -u
R=$1
B=${3:-/tmp}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
F=$HERE/fixtures
O=$B/fbx_write_cli
rm -rf "$O" && mkdir -p "$O"
fails=0
ok() { echo "ok   $*"; }
no() { echo "FAIL $*"; fails=$((fails + 1)); }
info_json() { "$R" info --json --no-tree "$1" 2>/dev/null; }
is_fbx() { # is_fbx FILE ascii(true/false) -> 0 when rigkit reads it as that FBX
	info_json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["format"]=="fbx" and d["ascii"]==(sys.argv[1]=="true") else 1)' "$2"
}

"$R" sample "$O" -q || no "rigkit sample"
"$R" convert "$F/rig.glb" "$O/rig.fbx" -q && is_fbx "$O/rig.fbx" false && ok "convert rig.glb rig.fbx" || no "convert to FBX"
head -c 23 "$O/rig.fbx" | grep -q "Kaydara FBX Binary" && ok "binary header" || no "binary header"
"$R" convert "$F/rig_7400.fbx" "$O/rig_ascii.fbx" --fbx-ascii -q && is_fbx "$O/rig_ascii.fbx" true \
	&& head -1 "$O/rig_ascii.fbx" | grep -q "; FBX 7.4.0 project file" && ok "--fbx-ascii" || no "--fbx-ascii"
"$R" convert "$F/rig.glb" - --format fbx -q >"$O/stdout.fbx" && is_fbx "$O/stdout.fbx" false && ok "stdout" || no "stdout"
"$R" convert "$F/rig.glb" "$O/rig.FBX" -q && is_fbx "$O/rig.FBX" false && ok "upper-case extension" || no "upper-case extension"
# clips survive: the same names and ranges as the input
want=$(info_json "$F/rig.glb" | python3 -c 'import json,sys; print([(c["name"], round(c["time_end"]-c["time_begin"], 6)) for c in json.load(sys.stdin)["clips"]])')
got=$(info_json "$O/rig.fbx" | python3 -c 'import json,sys; print([(c["name"], round(c["time_end"]-c["time_begin"], 6)) for c in json.load(sys.stdin)["clips"]])')
[ "$want" = "$got" ] && ok "clips $got" || no "clips: $got, expected $want"
# an extension without a writer: usage error (1) naming .fbx, nothing written
"$R" convert "$F/rig.glb" "$O/out.xyz" 2>"$O/err.txt"; rc=$?
[ $rc -eq 1 ] && grep -q "\.fbx" "$O/err.txt" && [ ! -e "$O/out.xyz" ] && ok "unknown extension refused" || no "unknown extension (rc $rc)"
"$R" retarget "$F/rig.glb" "$F/rig.glb" "$O/out.abc" 2>/dev/null; rc=$?
[ $rc -eq 1 ] && [ ! -e "$O/out.abc" ] && ok "retarget: unknown extension refused" || no "retarget unknown extension (rc $rc)"
# retarget a sample clip onto the sample avatar as FBX
"$R" retarget "$O/source.glb" "$O/avatar.glb" "$O/walk.fbx" --clip Walk --drop-target-clips -q \
	&& is_fbx "$O/walk.fbx" false \
	&& info_json "$O/walk.fbx" | python3 -c 'import json,sys; c=json.load(sys.stdin)["clips"]; sys.exit(0 if len(c)==1 and c[0]["name"]=="Walk" and c[0]["tracks"]>50 else 1)' \
	&& ok "retarget SRC AVATAR OUT.fbx" || no "retarget to FBX"
# batch: the folder form with --format fbx, and a manifest naming .fbx
"$R" batch --motions "$O/source.glb" --avatars "$O/avatar.glb" --out "$O/batch" --format fbx -q \
	&& is_fbx "$O/batch/avatar.fbx" false && ok "batch --format fbx" || no "batch --format fbx"
"$R" batch --motions "$O/source.glb" --avatars "$O/avatar.glb" --out "$O/batch_ascii" --format fbx --fbx-ascii -q \
	&& is_fbx "$O/batch_ascii/avatar.fbx" true && ok "batch --format fbx --fbx-ascii" || no "batch --fbx-ascii"
printf '{"id": "a", "target": "avatar.glb", "output": "m/a.fbx", "source": "source.glb", "clip": "Idle"}\n' >"$O/jobs.jsonl"
"$R" batch --manifest "$O/jobs.jsonl" -q && is_fbx "$O/m/a.fbx" false && ok "manifest output .fbx" || no "manifest .fbx"
echo "$fails failed"
[ $fails -eq 0 ]
