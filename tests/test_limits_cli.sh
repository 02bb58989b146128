#!/usr/bin/env bash
# tests/test_limits_cli.sh RIGKIT SHARED BUILD - issue 18 through the CLI:
# names with bytes that are not UTF-8 and with control bytes give valid
# --json (strict UTF-8 decode + json.loads) and escaped terminal text (no
# raw ESC); --max-frames and --max-memory; limit errors name the file.
# Inputs are made here by python3 from tests/fixtures/rig_ascii.fbx (a
# renamed node, a clip claiming 4000 s, a deflate bomb): no SHARED needed.
set -u
rigkit=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/cli_lib.sh"   # $tmp, counters, expect, expect_text

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to make the inputs and check --json"; exit 77; }

python3 - "$here/fixtures/rig_ascii.fbx" "$tmp" <<'PY' || { echo "FAIL: cannot make the inputs"; exit 1; }
import sys, struct, zlib
src, out = sys.argv[1], sys.argv[2]
d = open(src, 'rb').read()
# node Hips renamed with an invalid byte, SOH, an ANSI colour escape and a truncated sequence
bad = d.replace(b'Model::Hips', b'Model::Hi\xff\x01\x1b[31mps\xc3', 1).replace(b'AnimStack::Wave', b'AnimStack::W\x1b]0;owned\x07ave', 1)
open(out + '/badname.fbx', 'wb').write(bad)
# the clip claims 4000 s (keys stay at 0..2 s)
stop = str(4000 * 46186158000).encode()
open(out + '/long.fbx', 'wb').write(d.replace(b'"",92372316000', b'"",' + stop))
# binary FBX 7400: 10 Geometry nodes, each Vertices = 6 M zero doubles, zlib (tiny)
def rec(name, props, children=b'', nested=False, start=0):
    body = props + children + (b'\0' * 13 if nested else b'')
    n = name.encode()
    head_len = 13 + len(n)
    return start + head_len + len(body), n, body
def node(offset, name, nprops, props, kids):
    n = name.encode()
    nested = kids is not None
    body_start = offset + 13 + len(n) + len(props)
    child = b''
    if nested:
        at = body_start
        for k in kids:
            b = k(at)
            child += b
            at += len(b)
    end = body_start + len(child) + (13 if nested else 0)
    return struct.pack('<III', end, nprops, len(props)) + bytes([len(n)]) + n + props + child + (b'\0' * 13 if nested else b'')
z = zlib.compress(b'\0' * (6 * 1024 * 1024 * 8), 9)
arr = b'd' + struct.pack('<III', 6 * 1024 * 1024, 1, len(z)) + z
def geo(i):
    name = b'Geo%d\x00\x01Geometry' % i
    props = b'L' + struct.pack('<q', 1000 + i) + b'S' + struct.pack('<I', len(name)) + name + b'S' + struct.pack('<I', 4) + b'Mesh'
    return lambda at: node(at, 'Geometry', 3, props, [lambda a2: node(a2, 'Vertices', 1, arr, None)])
head = b'Kaydara FBX Binary  \x00\x1a\x00' + struct.pack('<I', 7400)
objs = node(len(head), 'Objects', 0, b'', [geo(i) for i in range(10)])
open(out + '/bomb.fbx', 'wb').write(head + objs + b'\0' * 13)
PY

json_ok() { # json_ok NAME FILE: strict UTF-8 and one JSON document
	if python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8","strict"))' "$2" 2>"$tmp/py"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL $1: not strict UTF-8 JSON"; head -3 "$tmp/py"
	fi
}
no_esc() { # no_esc NAME FILE: no raw ESC / BEL / SOH byte
	if python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); sys.exit(1 if any(c in b for c in (b"\x1b", b"\x07", b"\x01")) else 0)' "$2"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL $1: raw control bytes in $2"
	fi
}

bad=$tmp/badname.fbx
for c in "info" "info --meshes" "pose" "humanoid"; do
	"$rigkit" $c --json "$bad" >"$tmp/out.json" 2>"$tmp/err"
	json_ok "json-$c" "$tmp/out.json"
done
expect_text json-fffd "$tmp/out.json" .   # (humanoid prints an error document: still valid)
"$rigkit" info --json "$bad" >"$tmp/info.json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1],encoding="utf-8")); n=[x["name"] for x in d["nodes"]]; assert "Hi\ufffd\x01\x1b[31mps\ufffd" in n, n' "$tmp/info.json" \
	&& pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL json-name: bad bytes not U+FFFD"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1],encoding="utf-8")); h=[x.get("name_hex") for x in d["nodes"] if x.get("name_hex")]; assert h == ["4869ff011b5b33316d7073c3"], h; assert all("name_hex" not in x for x in d["nodes"] if x["name"] == "Spine")' "$tmp/info.json" \
	&& pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL json-name-hex: raw bytes not given as name_hex"; }
expect convert-glb 0 -- "$rigkit" convert -q "$bad" "$tmp/bad.glb"
"$rigkit" info --json "$tmp/bad.glb" >"$tmp/glb.json" 2>/dev/null
json_ok json-glb-roundtrip "$tmp/glb.json"

expect text-info 0 -- "$rigkit" info "$bad"
no_esc text-info-stdout "$tmp/out"
expect_text text-info-escaped "$tmp/out" 'Hi\\xff\\x01\\x1b\[31mps\\xc3'
expect_text text-clip-escaped "$tmp/out" 'W\\x1b\]0;owned\\x07ave'
expect text-pose 0 -- "$rigkit" pose "$bad"
no_esc text-pose-stdout "$tmp/out"
expect text-humanoid-err 2 -- "$rigkit" humanoid "$bad"
no_esc text-humanoid-stderr "$tmp/err"

# clip length
long=$tmp/long.fbx
expect maxframes-default 2 -- "$rigkit" convert "$long" "$tmp/long.glb"
expect_text maxframes-msg "$tmp/err" 'long\.fbx.*"Wave".*120001.*max_frames 100000'
[ ! -e "$tmp/long.glb" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL maxframes-nofile: output written"; }
expect maxframes-json 2 -- "$rigkit" convert --json "$long" "$tmp/long.glb"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["code"]=="limit" and e["file"].endswith("long.fbx"), e' "$tmp/out" \
	&& pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL maxframes-json-error"; cat "$tmp/out"; }
expect maxframes-low 2 -- "$rigkit" convert "$long" "$tmp/long.glb" --fps 1 --max-frames 4000
expect maxframes-asked 0 -- "$rigkit" convert "$long" "$tmp/long.glb" --fps 1 --max-frames 4001
expect maxframes-bad 1 -- "$rigkit" convert "$long" "$tmp/long.glb" --max-frames 0

# memory budget
expect maxmem-small 2 -- "$rigkit" info --max-memory 16M "$tmp/bomb.fbx"
expect_text maxmem-small-msg "$tmp/err" 'bomb\.fbx.*memory budget of 16777216 bytes'
expect maxmem-ok 0 -- "$rigkit" info --max-memory 64M "$here/fixtures/rig_7400.fbx"
expect maxmem-bad 1 -- "$rigkit" info --max-memory lots "$here/fixtures/rig_7400.fbx"
expect maxmem-tiny 1 -- "$rigkit" info --max-memory 100 "$here/fixtures/rig_7400.fbx"
expect bomb-default 2 -- "$rigkit" info --json "$tmp/bomb.fbx"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["code"]=="limit" and e["file"].endswith("bomb.fbx") and "memory budget of 268435456" in e["message"], e' "$tmp/out" \
	&& pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL bomb-json-error"; cat "$tmp/out"; }

# non-finite numbers in binary FBX (made by the fixture generator from edited ASCII)
python3 - "$here/fixtures" "$tmp" <<'PY' || { echo "FAIL: cannot make the binary inputs"; exit 1; }
import sys
sys.path.insert(0, sys.argv[1])
import make_fbx_binary as m
text = open(sys.argv[1] + '/rig_ascii.fbx', encoding='ascii').read()
def write(name, t):
    open(sys.argv[2] + '/' + name, 'wb').write(m.encode_file(m.parse_ascii(t), 7400))
write('inf_vertices.fbx', text.replace('a: -10,100,-10,10,100,-10', 'a: -10,1e400,-10,10,100,-10', 1))
write('inf_translation.fbx', text.replace('"A",0,100,0', '"A",0,-1e400,0', 1))
PY
expect bin-inf-vertices 2 -- "$rigkit" info "$tmp/inf_vertices.fbx"
expect_text bin-inf-vertices-msg "$tmp/err" 'inf_vertices\.fbx: Vertices element 1 \(inf\) is not a finite number \(at byte [0-9]+, node Objects/Geometry/Vertices\)'
expect bin-inf-info 0 -- "$rigkit" info --no-tree "$tmp/inf_translation.fbx"
expect_text bin-inf-translation-warn "$tmp/out" '"Hips": Lcl Translation .* is not finite: using the default \(0, 0, 0\)'
expect bin-inf-translation 0 -- "$rigkit" pose "$tmp/inf_translation.fbx"
if grep -qiE 'nan|inf' "$tmp/out"; then fail=$((fail + 1)); echo "FAIL bin-inf-pose: nan/inf printed"; else pass=$((pass + 1)); fi
expect bin-inf-obj 0 -- "$rigkit" convert -q "$tmp/inf_translation.fbx" "$tmp/inf.obj"
if grep -qiE 'nan|inf' "$tmp/inf.obj"; then fail=$((fail + 1)); echo "FAIL bin-inf-obj: nan/inf written"; else pass=$((pass + 1)); fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
