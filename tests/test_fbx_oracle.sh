#!/usr/bin/env bash
# tests/test_fbx_oracle.sh RIGKIT SHARED BUILD - joint world positions of the
# shared Mixamo FBX files, evaluated by rigkit, against the Autodesk FBX SDK's
# interpretation of the same files. The SDK is reached through the npm
# package fbx2gltf (it bundles FBX2glTF, linked with the FBX SDK): it bakes
# every joint's animation into a GLB, which rigkit then reads back.
# Tolerance: 1e-4 of the character height at every frame (30 fps).
# Skips (exit 77) without ../shared, node/npm, or registry access.
set -u
rigkit=$1
shared=$2
build=${3:-/tmp}
if [ ! -f "$shared/assets/ybot.fbx" ]; then echo "SKIP: $shared/assets not found"; exit 77; fi
# shellcheck source=tests/fbx2gltf_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/fbx2gltf_lib.sh"
fbx2gltf_install "$build"
oracle=$build/oracle
bin=$FBX2GLTF

fail=0
pass=0
for name in ybot ybot@kick; do
	fbx=$shared/assets/$name.fbx
	glb=$oracle/$name
	"$bin" -b --anim-framerate bake30 -i "$fbx" -o "$glb" >"$oracle/$name.log" 2>&1 || { echo "FAIL $name: FBX2glTF failed"; fail=$((fail + 1)); continue; }
	# Frame times of the first clip with tracks (or the static pose). Clip names
	# carry no spaces in these files.
	times=$("$rigkit" info --json --no-tree "$fbx" | python3 -c '
import json, sys
d = json.load(sys.stdin)
fps = d.get("frame_rate") or 30
c = [x for x in d["clips"] if x["tracks"] > 0]
if not c:
    print("--time 0")
else:
    c = c[0]
    n = int(round((c["time_end"] - c["time_begin"]) * fps))
    print("--clip %s " % c["name"] + " ".join("--time %.9f" % (c["time_begin"] + k / fps) for k in range(n + 1)))
')
	# shellcheck disable=SC2086
	"$rigkit" pose "$fbx" --joints --json --unit-meters 1 $times >"$oracle/$name.rigkit.json" \
		|| { echo "FAIL $name: rigkit pose failed"; fail=$((fail + 1)); continue; }
	# shellcheck disable=SC2086
	"$rigkit" pose "$glb.glb" --json $times >"$oracle/$name.sdk.json" \
		|| { echo "FAIL $name: rigkit could not read the FBX SDK's GLB"; fail=$((fail + 1)); continue; }
	if python3 - "$oracle/$name.rigkit.json" "$oracle/$name.sdk.json" "$name" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["samples"]
sdk = json.load(open(sys.argv[2]))["samples"]
name = sys.argv[3]
assert len(ours) == len(sdk), "sample counts differ"
ys = [n["position"][1] for n in ours[0]["nodes"].values()]
height = max(ys) - min(ys)
tol = 1e-4 * height
worst, where, compared = 0.0, None, 0
for a, b in zip(ours, sdk):
    for joint, pa in a["nodes"].items():
        pb = b["nodes"].get(joint)
        if pb is None:
            continue
        d = max(abs(x - y) for x, y in zip(pa["position"], pb["position"]))
        compared += 1
        if d > worst:
            worst, where = d, (a["time"], joint)
if compared < len(ours) * 50:
    print("FAIL %s: only %d joint samples matched by name" % (name, compared))
    sys.exit(1)
status = "ok" if worst <= tol else "FAIL"
print("%s %s: %d joint samples over %d frames, height %.4f m, worst %.3g m (%.3g of height) at %s"
      % (status, name, compared, len(ours), height, worst, worst / height, where))
sys.exit(0 if worst <= tol else 1)
PY
	then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
