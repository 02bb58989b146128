#!/usr/bin/env bash
# bench/load_identity.sh OLD_COMMIT [BUILD] - what rk_load_file makes of
# files, this tree against OLD_COMMIT: both builds' `rigkit convert` of every
# conformance FBX and shared asset (the GLB bytes, exit code and warnings
# must be the same), and `rigkit info` of truncated and byte-corrupted
# copies of a few corpus files (the errors, with their byte offsets and
# lines, must be the same). For speed work that must not change behaviour
# (issue 16). The old build is made from `git archive OLD_COMMIT` outside
# the repository. Needs ../shared (exit 77 without it).
set -euo pipefail
old=${1:?usage: load_identity.sh OLD_COMMIT [BUILD]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${RIGKIT_SHARED_DIR:-$here/../shared}
[ -d "$shared/conformance/data" ] && [ -d "$shared/assets" ] || { echo "load_identity: $shared not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$here" archive "$old" | tar -x -C "$tmp"
cmake -S "$tmp" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release -DRIGKIT_WERROR=OFF >/dev/null
cmake --build "$tmp/b" -j2 --target rigkit_cli >/dev/null
cmake --build "$build" -j2 --target rigkit_cli >/dev/null
A=$tmp/b/rigkit
B=$build/rigkit
n=0
bad=0
same() { # label: compares $tmp/a.* with $tmp/b.*
	if [ "$ra" != "$rb" ] || ! cmp -s "$tmp/a.err" "$tmp/b.err" || ! cmp -s "$tmp/a.out" "$tmp/b.out"; then
		bad=$((bad + 1))
		echo "differs: $1"
		diff "$tmp/a.err" "$tmp/b.err" | head -4 || true
	fi
}
for f in "$shared"/conformance/data/*.fbx "$shared"/assets/*.fbx "$shared"/assets/*.glb; do
	n=$((n + 1))
	ra=0; "$A" convert "$f" "$tmp/a.glb" -q >/dev/null 2>"$tmp/a.err" || ra=$?
	rb=0; "$B" convert "$f" "$tmp/b.glb" -q >/dev/null 2>"$tmp/b.err" || rb=$?
	: >"$tmp/a.out"; : >"$tmp/b.out"
	[ "$ra" = 0 ] && [ -f "$tmp/a.glb" ] && cp "$tmp/a.glb" "$tmp/a.out"
	[ "$rb" = 0 ] && [ -f "$tmp/b.glb" ] && cp "$tmp/b.glb" "$tmp/b.out"
	same "convert $(basename "$f")"
	rm -f "$tmp/a.glb" "$tmp/b.glb"
done
echo "convert: $n files"
m=0
for name in maya_pivot_offset_6100_ascii maya_cube_7500_ascii max_geometry_transform_6100_binary \
	maya_cube_big_endian_7500_binary maya_game_sausage_7500_binary_spin max2009_cube_anim_5800_binary; do
	f=$shared/conformance/data/$name.fbx
	[ -f "$f" ] || continue
	sz=$(stat -c %s "$f")
	for i in $(seq 1 97); do
		head -c $(((sz * i) / 97 - (i % 7))) "$f" >"$tmp/t.fbx"
		ra=0; "$A" info "$tmp/t.fbx" >"$tmp/a.out" 2>"$tmp/a.err" || ra=$?
		rb=0; "$B" info "$tmp/t.fbx" >"$tmp/b.out" 2>"$tmp/b.err" || rb=$?
		same "$name truncated at $i/97"
		cp "$f" "$tmp/c.fbx"
		printf "\\x$(printf %02x $(((i * 37) % 256)))" | dd of="$tmp/c.fbx" bs=1 seek=$(((sz * i) / 101)) conv=notrunc 2>/dev/null
		ra=0; "$A" info "$tmp/c.fbx" >"$tmp/a.out" 2>"$tmp/a.err" || ra=$?
		rb=0; "$B" info "$tmp/c.fbx" >"$tmp/b.out" 2>"$tmp/b.err" || rb=$?
		same "$name byte $(((sz * i) / 101)) changed"
		m=$((m + 2))
	done
done
echo "info: $m damaged copies; $bad differ"
[ "$bad" = 0 ]
