#!/usr/bin/env bash
# scripts/docs-images.sh [RIGKIT] - regenerates the pictures in docs/img that
# README.md shows, from the built-in sample (the same commands as `make demo`
# step 9, smaller frames), shrunk with scripts/png_shrink.py (same pixels).
#   docs/img/avatar_walk.png  the avatar's in-place Walk, three-quarter view
#   docs/img/walk_side.png    source (top) and avatar (below) from the side
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rigkit=${1:-$root/build/rigkit}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rigkit" sample "$tmp" >/dev/null
"$rigkit" retarget "$tmp/source.glb" "$tmp/avatar.glb" "$tmp/avatar_walk.glb" --clip Walk >/dev/null
"$rigkit" retarget "$tmp/source.glb" "$tmp/avatar.glb" "$tmp/avatar_walk_in_place.glb" --clip Walk --root in-place >/dev/null
"$rigkit" render "$tmp/avatar_walk_in_place.glb" "$tmp/avatar_walk.png" --clip Walk --frames 6 --size 128x208 \
	--yaw 35 --pitch 8
"$rigkit" render "$tmp/source.glb" "$tmp/walk_side.png" --clip Walk --frames 6 --size 112x176 --yaw 90 \
	--with "$tmp/avatar_walk.glb" --follow
for f in avatar_walk walk_side; do python3 "$root/scripts/png_shrink.py" "$tmp/$f.png" "$root/docs/img/$f.png"; done
