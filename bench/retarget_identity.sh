#!/usr/bin/env bash
# bench/retarget_identity.sh OLD_COMMIT [BUILD] - rk_retarget's results of
# this tree against those of OLD_COMMIT on the shared pairs: both builds'
# bench_retarget_dump (the old one compiled from `git archive OLD_COMMIT`
# against that commit's library, outside the repository), every key value
# compared. Prints the largest difference per pair and fails above 1e-9
# (quaternion components and translations in the target's units); the
# report's max_direction_error is listed apart (an acos near 1: 1e-16 in
# the dot product moves it by 1e-10). Needs ../shared/assets.
set -euo pipefail
old=${1:?usage: retarget_identity.sh OLD_COMMIT [BUILD]}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
a=${RIGKIT_SHARED_DIR:-$here/../shared}/assets
[ -d "$a" ] || { echo "retarget_identity: $a not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$here" archive "$old" | tar -x -C "$tmp"
cp "$here/bench/bench_retarget_dump.c" "$tmp/bench/bench_retarget_dump.c"
cmake -S "$tmp" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release -DRIGKIT_WERROR=OFF >/dev/null
cmake --build "$tmp/b" -j2 --target bench_retarget_dump >/dev/null
cmake --build "$build" -j2 --target bench_retarget_dump bench_long_clip >/dev/null
"$build"/bench_long_clip "$a/Soldier.glb" Walk 548 30 "$tmp/soldier_walk_548.glb" >/dev/null
status=0
while read -r src clip dst opt; do
	[ "$clip" = "-" ] && clip=""
	"$tmp/b/bench_retarget_dump" "$src" "$clip" "$dst" $opt >"$tmp/old.txt"
	"$build/bench_retarget_dump" "$src" "$clip" "$dst" $opt >"$tmp/new.txt"
	python3 - "$tmp/old.txt" "$tmp/new.txt" "$(basename "$src") '$clip' -> $(basename "$dst") $opt" <<'PY' || status=1
import sys
old, new, label = sys.argv[1:]
a, b = open(old).read().split("\n"), open(new).read().split("\n")
if len(a) != len(b) or a[0].split()[1:4] != b[0].split()[1:4]:
    print("%-60s DIFFERENT SHAPE" % label); sys.exit(1)
rep = max(abs(float(x) - float(y)) for x, y in zip(a[0].split()[4:], b[0].split()[4:]))
worst = 0.0
for x, y in zip(a[1:], b[1:]):
    if x.startswith("track") or not x:
        if x != y: print("%-60s TRACK DIFFERS: %s / %s" % (label, x, y)); sys.exit(1)
        continue
    worst = max(worst, abs(float(x) - float(y)))
print("%-60s max |difference| %.2g %s (report max_direction_error: %.2g)" % (label, worst, "ok" if worst <= 1e-9 else "OVER 1e-9", rep))
sys.exit(0 if worst <= 1e-9 else 1)
PY
done <<PAIRS
$a/Soldier.glb Walk $a/readyplayer.me.glb
$tmp/soldier_walk_548.glb Walk $a/readyplayer.me.glb
$a/Xbot.glb walk $a/readyplayer.me.glb
$a/Xbot.glb sad_pose $a/readyplayer.me.glb
$a/ybot@kick.fbx - $a/readyplayer.me.glb
$a/Soldier.glb Run $a/Xbot.glb
$a/Xbot.glb walk $a/ybot.fbx
$a/Soldier.glb Walk $a/ybot.fbx i
$a/ybot@kick.fbx - $a/Soldier.glb p
$a/example.bvh - $a/readyplayer.me.glb
PAIRS
exit $status
