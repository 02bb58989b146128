#!/usr/bin/env bash
# tests/test_rest_blender.sh RIGKIT SHARED BUILD - rigkit's rest pose against
# Blender's: Blender's FBX importer builds each armature's rest from the FBX
# bind pose, independently of rigkit. For every mapped humanoid joint of
# `rigkit humanoid --json` (rest_joints), the distances between every pair of
# joints must be Blender's rest distances times one scale factor (Blender
# converts units and axes; distances are blind to the rotation) within 1e-4
# of the skeleton's size. Files: the conformance corpus' Kenney character
# (stored mid-run, bound in a T-pose: rigkit takes the bind pose) and the
# shared ybot.fbx (stored in its bind pose). The stored crouch of the Kenney
# character must NOT match (the check can fail). Skips (77) without Blender
# or ../shared.
set -u
rigkit=$1 shared=${2:-} build=${3:-}
here=$(dirname "${BASH_SOURCE[0]}")
. "$here/cli_lib.sh"   # $tmp, counters, expect, expect_text

command -v blender >/dev/null || { echo "SKIPPED: blender is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed"; exit 77; }
kenney=$shared/conformance/data/maya_kenney_character_7700_binary.fbx
ybot=$shared/assets/ybot.fbx
[ -f "$kenney" ] || [ -f "$ybot" ] || { echo "SKIPPED: ../shared (conformance, assets) not found"; exit 77; }

# compare NAME RIGKIT_JSON BLENDER_JSON WANT(match|differ)
compare() {
	if python3 - "$2" "$3" "$4" "$1" <<'PY'
import itertools, json, math, sys
r = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))['joints']
want, name = sys.argv[3], sys.argv[4]
pairs = [(r['rest_joints'][bone], b[node]) for bone, node in r['bones'].items() if node in b and bone in r['rest_joints']]
if len(pairs) < 15:
    print('%s: only %d joints in both' % (name, len(pairs))); sys.exit(1)
ratios, dists = [], []
for (ra, ba), (rb, bb) in itertools.combinations(pairs, 2):
    dr, db = math.dist(ra, rb), math.dist(ba, bb)
    if dr > 0:
        ratios.append(db / dr); dists.append((dr, db))
ratios.sort()
s = ratios[len(ratios) // 2]
size = max(db for _dr, db in dists)
worst = max(abs(db - s * dr) for dr, db in dists) / size
print('%s: %d joints, %d distances, scale %.6g, worst %.3g of the skeleton size (%s expected)' % (name, len(pairs), len(dists), s, worst, want))
sys.exit(0 if (worst < 1e-4) == (want == 'match') else 1)
PY
	then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi
}

for f in "$kenney" "$ybot"; do
	[ -f "$f" ] || continue
	n=$(basename "$f" .fbx)
	timeout 300 blender -b --python-exit-code 1 -P "$here/blender/rest_joints.py" -- "$f" "$tmp/$n.blender.json" \
		>"$tmp/blender.log" 2>&1 || { echo "FAIL: blender on $f"; tail -5 "$tmp/blender.log"; fail=$((fail + 1)); continue; }
	expect "$n-humanoid" 0 -- "$rigkit" humanoid "$f" --json
	cp "$tmp/out" "$tmp/$n.rigkit.json"
	compare "$n rest (auto)" "$tmp/$n.rigkit.json" "$tmp/$n.blender.json" match
	if [ "$f" = "$kenney" ]; then
		expect_text "$n-bind" "$tmp/$n.rigkit.json" '"used": "bind"'
		expect "$n-humanoid-stored" 0 -- "$rigkit" humanoid "$f" --json --rest stored
		cp "$tmp/out" "$tmp/$n.stored.json"
		compare "$n stored pose" "$tmp/$n.stored.json" "$tmp/$n.blender.json" differ
	fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
