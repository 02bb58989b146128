#!/usr/bin/env bash
# tests/test_file_access_cli.sh RIGKIT SHARED BUILD - the access policy for
# external files and the output rules, through the CLI (docs/security.md).
#
# Files are made here: a secret PNG outside the input's folder carrying the
# text RIGKIT-SECRET-PNG (it must never appear in an output), textures inside
# it carrying WOOD-ROOT / WOOD-TEX (they must, when referenced), and FBX
# inputs made from the committed fixture tests/fixtures/rig_ascii.fbx with a
# texture on its material: ASCII as written, binary 7400 and 7500 through
# tests/fixtures/make_fbx_binary.py. Every FBX form of texture path is tried:
# RelativeFilename / FileName escaping with ../ or ..\, absolute, a symbolic
# link out of the folder, a FIFO, and absolute foreign-OS paths that must be
# found by their trailing parts inside the folder. Commands that could block
# run under `timeout`.
set -u
rigkit=$1
shared=${2:-}
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"   # $tmp, counters, expect, expect_text
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

check() { # check NAME CONDITION-COMMAND...
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}
contains() { grep -q -a -- "$2" "$1"; }
lacks() { ! grep -q -a -- "$2" "$1"; }

# A PNG whose tEXt chunk holds $2 (the writer embeds texture bytes as they are).
make_png() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys, zlib
def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
ihdr = struct.pack('>IIBBBBB', 1, 1, 8, 6, 0, 0, 0)
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'tEXt', b'Comment\0' + sys.argv[2].encode()) \
    + chunk(b'IDAT', zlib.compress(b'\0\x80\x80\x80\xff')) + chunk(b'IEND', b'')
open(sys.argv[1], 'wb').write(png)
EOF
}

mkdir -p "$tmp/in/tex" "$tmp/res"
make_png "$tmp/secret.png" RIGKIT-SECRET-PNG
make_png "$tmp/in/wood.png" WOOD-ROOT
make_png "$tmp/in/tex/wood.png" WOOD-TEX
ln -s ../secret.png "$tmp/in/lnk.png"
mkfifo "$tmp/in/pipe.png"

# fbx NAME RELATIVEFILENAME FILENAME: the rig with a texture on its material,
# as $tmp/in/NAME.fbx (ASCII), NAME_7400.fbx and NAME_7500.fbx.
fbx() {
	python3 - "$src" "$tmp/in/$1" "$2" "$3" <<'EOF'
import sys
src, out, rel, absname = sys.argv[1:5]
sys.path.insert(0, src + '/tests/fixtures')
import make_fbx_binary as m
text = open(src + '/tests/fixtures/rig_ascii.fbx', encoding='ascii').read()
tex = ('\tTexture: 9000, "Texture::wood", "" {\n'
       '\t\tFileName: "%s"\n\t\tRelativeFilename: "%s"\n\t}\n' % (absname, rel))
text = text.replace('Objects:  {\n', 'Objects:  {\n' + tex, 1)
text = text.replace('Connections:  {\n', 'Connections:  {\n\tC: "OP",9000,4000, "DiffuseColor"\n', 1)
open(out + '.fbx', 'w', encoding='ascii').write(text)
for v in (7400, 7500):
    open('%s_%d.fbx' % (out, v), 'wb').write(m.encode_file(m.parse_ascii(text), v))
EOF
}

# refused NAME REF: every encoding of NAME loads, names REF in a warning,
# and the GLB written from it lacks the secret.
refused() {
	for f in "$1" "$1_7400" "$1_7500"; do
		expect "$f-info" 0 -- timeout 20 "$rigkit" info --json "$tmp/in/$f.fbx"
		cp "$tmp/out" "$tmp/info.json"
		expect_text "$f-warns" "$tmp/info.json" "$2"
		expect "$f-convert" 0 -- timeout 20 "$rigkit" convert "$tmp/in/$f.fbx" "$tmp/res/$f.glb"
		check "$f-no-secret" lacks "$tmp/res/$f.glb" RIGKIT-SECRET-PNG
	done
}

# found NAME MARK: every encoding embeds the texture carrying MARK.
found() {
	for f in "$1" "$1_7400" "$1_7500"; do
		expect "$f-convert" 0 -- timeout 20 "$rigkit" convert "$tmp/in/$f.fbx" "$tmp/res/$f.glb"
		check "$f-embeds-$2" contains "$tmp/res/$f.glb" "$2"
		check "$f-no-secret" lacks "$tmp/res/$f.glb" RIGKIT-SECRET-PNG
	done
}

abs_secret="$tmp/secret.png"
fbx up_rel '../secret.png' ''
refused up_rel 'leaves the folder of the input'
fbx up_both '../secret.png' "$abs_secret"
refused up_both 'leaves the folder of the input'
fbx up_backslash '..\\secret.png' ''
refused up_backslash 'leaves the folder'
fbx abs_only '' "$abs_secret"
refused abs_only 'absolute path outside'
fbx etc '' '/etc/passwd'
refused etc '/etc/passwd'
fbx link 'lnk.png' ''
refused link 'symbolic link'
fbx fifo 'pipe.png' ''
refused fifo 'FIFO'
# absolute and foreign paths are found by their trailing parts inside the folder
fbx win '' 'B:\\Users\\me\\proj\\tex\\wood.png'
found win WOOD-TEX
fbx unix '' '/home/x/textures/wood.png'
found unix WOOD-ROOT
fbx rel_ok 'tex/wood.png' 'C:\\old\\wood.png'
found rel_ok WOOD-TEX
fbx parent_then_name '../../elsewhere/wood.png' ''
found parent_then_name WOOD-ROOT

# --allow-path opens the secret's folder (the refusals above are the policy, not a bug)
expect allow-convert 0 -- "$rigkit" convert "$tmp/in/up_rel.fbx" "$tmp/res/allowed.glb" --allow-path "$tmp"
check allow-embeds contains "$tmp/res/allowed.glb" RIGKIT-SECRET-PNG
expect allow-missing 1 -- "$rigkit" info "$tmp/in/up_rel.fbx" --allow-path "$tmp/nonexistent"
expect allow-missing-json 1 -- "$rigkit" info "$tmp/in/up_rel.fbx" --allow-path "$tmp/nonexistent" --json
cp "$tmp/out" "$tmp/allow.json"
expect_text allow-missing-named "$tmp/allow.json" 'nonexistent'

# glTF: a buffer reaching out of the folder reads zeros, never the file
python3 - "$tmp" <<'EOF'
import json, struct, sys
t = sys.argv[1]
open(t + '/secret.bin', 'wb').write(b'RIGKIT-SECRET-BIN' + b'\0' * 19)
doc = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": 36, "uri": "%2e%2e/secret.bin"}],
       "bufferViews": [{"buffer": 0, "byteLength": 36}],
       "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
       "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}], "nodes": [{"mesh": 0}]}
open(t + '/in/escape.gltf', 'w').write(json.dumps(doc))
doc["buffers"][0]["uri"] = "../secret.bin"
open(t + '/in/escape2.gltf', 'w').write(json.dumps(doc))
EOF
for g in escape escape2; do
	expect "$g-convert" 0 -- "$rigkit" convert "$tmp/in/$g.gltf" "$tmp/res/$g.glb"
	check "$g-no-secret" lacks "$tmp/res/$g.glb" RIGKIT-SECRET-BIN
	expect "$g-info" 0 -- "$rigkit" info --json "$tmp/in/$g.gltf"
	cp "$tmp/out" "$tmp/$g.json"
	expect_text "$g-warns" "$tmp/$g.json" 'secret.bin.*not opened'
done
expect escape-allowed 0 -- "$rigkit" convert "$tmp/in/escape2.gltf" "$tmp/res/escape_allowed.glb" --allow-path "$tmp"
check escape-allowed-reads contains "$tmp/res/escape_allowed.glb" RIGKIT-SECRET-BIN

# special files as the input: an error naming them, at once
expect fifo-input 2 -- timeout 10 "$rigkit" info "$tmp/in/pipe.png"
expect_text fifo-input-named "$tmp/err" 'FIFO'
expect zero-input 2 -- timeout 10 "$rigkit" info /dev/zero
expect_text zero-input-named "$tmp/err" 'character device'

# outputs: links and special files refused unless --force; long names work
"$rigkit" sample "$tmp/samples" >/dev/null 2>&1
in="$tmp/samples/source.glb"
echo keep >"$tmp/target.txt"
ln -s ../target.txt "$tmp/res/outlink.glb"
expect out-link 3 -- "$rigkit" convert "$in" "$tmp/res/outlink.glb"
expect_text out-link-named "$tmp/err" 'symbolic link'
check out-link-kept test "$(cat "$tmp/target.txt")" = keep
expect out-link-force 0 -- "$rigkit" convert "$in" "$tmp/res/outlink.glb" --force
check out-link-replaced test -f "$tmp/res/outlink.glb" -a ! -L "$tmp/res/outlink.glb"
check out-target-kept test "$(cat "$tmp/target.txt")" = keep
mkfifo "$tmp/res/pipe.obj"
expect out-fifo 3 -- timeout 10 "$rigkit" convert "$in" "$tmp/res/pipe.obj"
expect out-fifo-force 0 -- timeout 10 "$rigkit" convert "$in" "$tmp/res/pipe.obj" --force
ln -s ../target.txt "$tmp/res/outlink.png"
expect render-link 3 -- "$rigkit" render "$in" "$tmp/res/outlink.png" --size 16
expect render-link-force 0 -- "$rigkit" render "$in" "$tmp/res/outlink.png" --size 16 --force
long=$(printf 'L%.0s' $(seq 1 246)).glb
expect out-long-250 0 -- "$rigkit" convert "$in" "$tmp/res/$long"
expect out-long-250-again 0 -- "$rigkit" convert "$in" "$tmp/res/$long"
check no-temp-files test -z "$(ls -A "$tmp/res" | grep -v -e '\.glb$' -e '\.obj$' -e '\.png$')"

# kill -9 during writes of a large output: no temporary file left behind
big=""
[ -n "$shared" ] && [ -f "$shared/assets/ybot.fbx" ] && big="$shared/assets/ybot.fbx"
if [ -n "$big" ]; then
	mkdir -p "$tmp/kill"
	for d in 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.7; do
		"$rigkit" convert "$big" "$tmp/kill/out.gltf" >/dev/null 2>&1 &
		pid=$!
		sleep "$d"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	check kill-no-leftovers test -z "$(ls -A "$tmp/kill" | grep -v '^out\.gltf$')"
else
	echo "skipped the kill -9 CLI part: ../shared/assets/ybot.fbx not found (tests/test_file_access.c covers the library)"
fi

echo "test_file_access_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
