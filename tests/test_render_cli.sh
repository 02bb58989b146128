#!/usr/bin/env bash
# tests/test_render_cli.sh RIGKIT SHARED BUILD - `rigkit render` on the sample
# characters written by `rigkit sample`: exit codes (0 ok, 1 usage, 2 bad
# input, 3 output failure), PNG files checked by an independent decoder
# (python3's zlib plus the PNG filter rules, written here): signature, IHDR
# size and colour type, background corners, a covered centre, contact sheet
# size, transparent backgrounds, identical bytes for identical runs; textures
# on by default (--untextured), --with OTHER rows.
set -u
rigkit=$1
shared=${2:-}
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"   # $tmp, counters, expect, expect_text

check() { # check NAME CONDITION-COMMAND...
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}

# png_check NAME FILE PYTHON: decodes FILE (8-bit RGBA, non-interlaced;
# $tmp/png_rows.py below) into w, h and px(x, y) -> (r, g, b, a), then runs
# PYTHON (asserts).
png_check() {
	if python3 - "$2" "$3" "$tmp" <<'EOF'; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi
import sys
sys.path.insert(0, sys.argv[3])
from png_rows import rows as decode
w, h, rows = decode(sys.argv[1])
def px(x, y):
    return tuple(rows[y][x * 4:x * 4 + 4])
exec(sys.argv[2])
EOF
}

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to check the PNG files"; exit 77; }
# $tmp/png_rows.py: rows(path) -> (w, h, [row bytes, RGBA]), written here
# with Python's zlib and the PNG filter rules (independent of rigkit):
# signature, CRCs, chunk order, 8-bit RGBA non-interlaced, IDAT size.
cat >"$tmp/png_rows.py" <<'PY'
import struct, zlib
def rows(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'PNG signature'
    pos, chunks = 8, []
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        chunks.append((kind, data[pos + 8:pos + 8 + n]))
        assert zlib.crc32(kind + data[pos + 8:pos + 8 + n]) == struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])[0], 'CRC'
        pos += 12 + n
    assert chunks[0][0] == b'IHDR' and chunks[-1][0] == b'IEND', 'chunk order'
    w, h, depth, ctype, comp, filt, interlace = struct.unpack('>IIBBBBB', chunks[0][1])
    assert (depth, ctype, comp, filt, interlace) == (8, 6, 0, 0, 0), (depth, ctype, interlace)
    raw = zlib.decompress(b''.join(c for k, c in chunks if k == b'IDAT'))
    stride = w * 4
    assert len(raw) == h * (stride + 1), 'IDAT size'
    out, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            else: assert f == 0, 'filter type'
        out.append(bytes(line))
        prev = line
    return w, h, out
PY
"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }
src=$tmp/s/source.glb
avatar=$tmp/s/avatar.glb

# usage
expect help-lists-render 0 -- "$rigkit" --help
expect_text help-lists-render-text "$tmp/out" '^  render '
expect render-help 0 -- "$rigkit" render --help
expect_text render-help-text "$tmp/out" '^usage: rigkit render IN OUT.png'
expect no-args 1 -- "$rigkit" render
expect one-arg 1 -- "$rigkit" render "$src"
expect three-args 1 -- "$rigkit" render "$src" "$tmp/a.png" "$tmp/b.png"
expect not-png 1 -- "$rigkit" render "$src" "$tmp/a.jpg"
expect_text not-png-msg "$tmp/err" 'must be a \.png file'
expect unknown-option 1 -- "$rigkit" render "$src" "$tmp/a.png" --bogus
expect missing-value 1 -- "$rigkit" render "$src" "$tmp/a.png" --size
expect zero-size 1 -- "$rigkit" render "$src" "$tmp/a.png" --size 0x10
expect huge-size 1 -- "$rigkit" render "$src" "$tmp/a.png" --size 16385x16
expect bad-size 1 -- "$rigkit" render "$src" "$tmp/a.png" --size 10by10
expect bad-time 1 -- "$rigkit" render "$src" "$tmp/a.png" --time soon
expect bad-frames 1 -- "$rigkit" render "$src" "$tmp/a.png" --frames 0
expect too-many-frames 1 -- "$rigkit" render "$src" "$tmp/a.png" --frames 65
expect sheet-too-wide 1 -- "$rigkit" render "$src" "$tmp/a.png" --frames 40 --size 500x10
expect time-and-frames 1 -- "$rigkit" render "$src" "$tmp/a.png" --frames 2 --time 0
expect static-and-clip 1 -- "$rigkit" render "$src" "$tmp/a.png" --static --clip Walk
expect follow-alone 1 -- "$rigkit" render "$src" "$tmp/a.png" --follow
expect bad-ssaa 1 -- "$rigkit" render "$src" "$tmp/a.png" --ssaa 5
expect bad-fov 1 -- "$rigkit" render "$src" "$tmp/a.png" --fov 180
expect bad-background 1 -- "$rigkit" render "$src" "$tmp/a.png" --background 12345z
expect bad-axes 1 -- "$rigkit" render "$src" "$tmp/a.png" --axes sideways
check no-file-after-usage-errors test ! -e "$tmp/a.png"

# bad input
expect missing-file 2 -- "$rigkit" render "$tmp/nope.glb" "$tmp/a.png"
expect_text missing-file-msg "$tmp/err" "^rigkit: $tmp/nope.glb: cannot open file"
expect unknown-clip 2 -- "$rigkit" render "$src" "$tmp/a.png" --clip Dance
expect_text unknown-clip-msg "$tmp/err" "no animation clip named 'Dance'"
expect frames-without-clips 2 -- "$rigkit" render "$avatar" "$tmp/a.png" --frames 3
printf 'not a scene' >"$tmp/junk.glb"
expect junk-input 2 -- "$rigkit" render "$tmp/junk.glb" "$tmp/a.png"
check no-file-after-input-errors test ! -e "$tmp/a.png"

# output failure
expect unwritable 3 -- "$rigkit" render "$src" "$tmp/missing/dir/a.png" --size 32x32
check no-file-left test ! -e "$tmp/missing"

# one frame: the static T-pose, default size and camera
expect static 0 -- "$rigkit" render "$src" "$tmp/static.png"
expect_text static-line "$tmp/out" "^wrote $tmp/static.png: 512 x 512, static scene, [0-9]+ triangles$"
png_check static-png "$tmp/static.png" '
assert (w, h) == (512, 512), (w, h)
bg = (40, 44, 52, 255)
assert all(px(x, y) == bg for x, y in [(0, 0), (511, 0), (0, 511), (511, 511)]), "corners"
assert px(256, 200) != bg, "chest"
lit = sum(px(x, y) != bg for y in range(0, 512, 8) for x in range(0, 512, 8))
assert 200 < lit < 0.6 * 64 * 64, lit'

# size, walk time, options; two identical runs give identical bytes
expect walk 0 -- "$rigkit" render "$src" "$tmp/walk1.png" --clip Walk --time 0.25 --size 96x64 --yaw 30 --pitch 10 --texture --skeleton --wireframe --ssaa 2
expect_text walk-line "$tmp/out" "^wrote $tmp/walk1.png: 96 x 64, clip Walk at 0.25 s, [0-9]+ triangles$"
expect walk-again 0 -- "$rigkit" render "$src" "$tmp/walk2.png" --clip Walk --time 0.25 --size 96x64 --yaw 30 --pitch 10 --texture --skeleton --wireframe --ssaa 2
check deterministic cmp -s "$tmp/walk1.png" "$tmp/walk2.png"
expect walk-later 0 -- "$rigkit" render "$src" "$tmp/walk3.png" --clip Walk --time 0.5 --size 96x64 --yaw 30 --pitch 10 --texture --skeleton --wireframe --ssaa 2
check time-matters bash -c "! cmp -s '$tmp/walk1.png' '$tmp/walk3.png'"
png_check walk-png "$tmp/walk1.png" '
assert (w, h) == (96, 64), (w, h)'
expect time-default-clip 0 -- "$rigkit" render "$src" "$tmp/t.png" --time 0.5 --size 32x32
expect_text time-default-clip-line "$tmp/out" "clip (Idle|Walk) at 0.5 s"

# transparent background, orthographic, unlit, converted axes
expect transparent 0 -- "$rigkit" render "$src" "$tmp/clear.png" --size 64x64 --background 00000000 --ortho --unlit --axes right_handed_z_up --unit-meters 0.01
png_check transparent-png "$tmp/clear.png" '
assert px(0, 0) == (0, 0, 0, 0), px(0, 0)
assert px(32, 20)[3] == 255, px(32, 20)'

# contact sheet: N frames side by side, one camera
expect sheet 0 -- "$rigkit" render "$src" "$tmp/sheet.png" --clip Walk --frames 4 --size 48x80 --yaw 90
expect_text sheet-line "$tmp/out" "^wrote $tmp/sheet.png: 4 frames of 48 x 80 \(192 x 80\), clip Walk at 0\.\.0\.75 s, [0-9]+ triangles$"
png_check sheet-png "$tmp/sheet.png" '
assert (w, h) == (192, 80), (w, h)
bg = (40, 44, 52, 255)
frames = [[px(x, y) for y in range(80) for x in range(k * 48, k * 48 + 48)] for k in range(4)]
assert all(any(p != bg for p in f) for f in frames), "every frame shows the character"
assert len({tuple(f) for f in frames}) == 4, "the frames differ"'
expect sheet-follow 0 -- "$rigkit" render "$src" "$tmp/follow.png" --clip Walk --frames 2 --size 32x32 --follow
png_check sheet-follow-png "$tmp/follow.png" '
assert (w, h) == (64, 32), (w, h)'

# textures: drawn by default (the sample's checker), --untextured turns them
# off, --texture (the old opt-in) changes nothing
expect tex-default 0 -- "$rigkit" render "$src" "$tmp/tex_default.png" --size 64x96 --json
expect_text tex-default-json "$tmp/out" '"textures": true'
expect tex-flag 0 -- "$rigkit" render "$src" "$tmp/tex_flag.png" --size 64x96 --texture
expect tex-off 0 -- "$rigkit" render "$src" "$tmp/tex_off.png" --size 64x96 --untextured --json
expect_text tex-off-json "$tmp/out" '"textures": false'
check texture-flag-is-the-default cmp -s "$tmp/tex_default.png" "$tmp/tex_flag.png"
check untextured-differs bash -c "! cmp -s '$tmp/tex_default.png' '$tmp/tex_off.png'"
# down the middle column the checker's dark squares are under half as
# bright as the brightest pixel; the plain (Lambert-lit) body never is
dark='
bg = (40, 44, 52, 255)
lum = [sum(px(32, y)[:3]) for y in range(h) if px(32, y) != bg]
assert len(lum) > 20, len(lum)
dark = sum(1 for v in lum if v < 0.55 * max(lum)) / len(lum)'
png_check textured-shows-checker "$tmp/tex_default.png" "$dark
assert dark > 0.25, dark"
png_check untextured-is-plain "$tmp/tex_off.png" "$dark
assert dark < 0.1, dark"
expect texture-and-untextured 1 -- "$rigkit" render "$src" "$tmp/a.png" --texture --untextured

# --with OTHER: a second row below, same times, one camera for the sheet.
# IN with itself: both rows equal the IN-only sheet (the shared camera
# frames the same bounds), byte for byte.
expect sheet3 0 -- "$rigkit" render "$src" "$tmp/sheet3.png" --clip Walk --frames 3 --size 40x64 --yaw 90
expect with-self 0 -- "$rigkit" render "$src" "$tmp/with_self.png" --clip Walk --frames 3 --size 40x64 --yaw 90 --with "$src"
expect_text with-self-line "$tmp/out" "^wrote $tmp/with_self.png: 3 frames of 40 x 64 \(120 x 128\), clip Walk at 0\.\.0\.666667 s, [0-9]+ triangles; below: $src, clip Walk, [0-9]+ triangles$"
if python3 - "$tmp/sheet3.png" "$tmp/with_self.png" "$tmp" <<'PY'; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL with-self rows"; fi
import sys
sys.path.insert(0, sys.argv[3])
from png_rows import rows
w1, h1, one = rows(sys.argv[1])
w2, h2, two = rows(sys.argv[2])
assert (w2, h2) == (w1, 2 * h1), (w1, h1, w2, h2)
assert two[:h1] == one, "top row = the IN-only sheet"
assert two[h1:] == one, "bottom row = the same file again"
PY
# the avatar below the source (the retargeted walk): both rows covered, the
# JSON names the second file and clip
"$rigkit" retarget "$src" "$avatar" "$tmp/aw.glb" --clip Walk >/dev/null || echo "FAIL retarget for --with"
expect with-avatar 0 -- "$rigkit" render "$src" "$tmp/with_avatar.png" --clip Walk --frames 2 --size 48x80 --yaw 90 --with "$tmp/aw.glb" --follow --json
expect_text with-avatar-json "$tmp/out" '"with": \{'
expect_text with-avatar-json-clip "$tmp/out" '"clip": "Walk"'
png_check with-avatar-png "$tmp/with_avatar.png" '
assert (w, h) == (96, 160), (w, h)
bg = (40, 44, 52, 255)
for r in range(2):
    for k in range(2):
        cell = [px(x, y) for y in range(r * 80, r * 80 + 80) for x in range(k * 48, k * 48 + 48)]
        assert any(p != bg for p in cell), (r, k)
assert px(0, 79) == bg and px(0, 80) == bg, "row edges"'
expect with-static 0 -- "$rigkit" render "$src" "$tmp/with_static.png" --size 32x48 --with "$avatar"
png_check with-static-png "$tmp/with_static.png" '
assert (w, h) == (32, 96), (w, h)'
expect with-missing 2 -- "$rigkit" render "$src" "$tmp/a.png" --with "$tmp/nope.glb"
expect_text with-missing-msg "$tmp/err" "nope.glb: cannot open file"
expect with-no-clip 2 -- "$rigkit" render "$src" "$tmp/a.png" --clip Walk --with "$avatar"
expect_text with-no-clip-msg "$tmp/err" "no animation clip named 'Walk'"
expect with-clip-alone 1 -- "$rigkit" render "$src" "$tmp/a.png" --with-clip Walk
expect with-clip-unknown 2 -- "$rigkit" render "$src" "$tmp/a.png" --clip Walk --with "$tmp/aw.glb" --with-clip Dance
expect with-too-tall 1 -- "$rigkit" render "$src" "$tmp/a.png" --size 16x9000 --with "$avatar"
expect with-static-clip 1 -- "$rigkit" render "$src" "$tmp/a.png" --static --with "$avatar" --with-clip Walk
check no-file-after-with-errors test ! -e "$tmp/a.png"

# a shared asset, when present
if [ -n "$shared" ] && [ -f "$shared/assets/Xbot.glb" ]; then
	expect xbot 0 -- "$rigkit" render "$shared/assets/Xbot.glb" "$tmp/xbot.png" --size 128x128 --time 0.5
	png_check xbot-png "$tmp/xbot.png" '
bg = (40, 44, 52, 255)
assert (w, h) == (128, 128) and px(0, 0) == bg and px(64, 40) != bg, px(64, 40)'
fi
if [ -n "$shared" ] && [ -f "$shared/assets/Soldier.glb" ]; then
	# Soldier.glb faces -Z: the default view turns to its front, i.e. the
	# file's front axis turned 180 degrees, and differs from the file's front
	expect soldier 0 -- "$rigkit" render "$shared/assets/Soldier.glb" "$tmp/soldier.png" --size 64x64 --static
	expect soldier-file-180 0 -- "$rigkit" render "$shared/assets/Soldier.glb" "$tmp/soldier_180.png" --size 64x64 --static --file-front --yaw 180
	expect soldier-file-front 0 -- "$rigkit" render "$shared/assets/Soldier.glb" "$tmp/soldier_ff.png" --size 64x64 --static --file-front
	# (its forward is 0.6 degrees off -Z, so compare silhouettes, not bytes)
	if python3 - "$tmp/soldier.png" "$tmp/soldier_180.png" "$tmp/soldier_ff.png" "$tmp" <<'PY'; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL soldier faces the camera"; fi
import sys
sys.path.insert(0, sys.argv[4])
from png_rows import rows
def pixels(path):
    return b''.join(rows(path)[2])
def diff(x, y):
    return sum(abs(p - q) for p, q in zip(x, y)) / len(x)
auto, turned, file_front = (pixels(p) for p in sys.argv[1:4])
d_turned, d_front = diff(auto, turned), diff(auto, file_front)
assert d_turned * 4 < d_front, (d_turned, d_front)
PY
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
