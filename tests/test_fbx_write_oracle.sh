#!/usr/bin/env bash
# tests/test_fbx_write_oracle.sh RIGKIT SHARED BUILD - the Autodesk FBX SDK
# reads rigkit's FBX files as rigkit does. The SDK is reached through the npm
# package fbx2gltf@0.9.7 (FBX2glTF linked with the FBX SDK), installed into
# BUILD/oracle by tests/fbx2gltf_lib.sh (shared with tests/test_fbx_oracle.sh):
# `FBX2glTF -b --anim-framerate bake30` bakes every node of every written
# file into a GLB, which rigkit then evaluates. Compared at every 30 fps key of the clip:
#   - the world position of every joint (every node for the gimbal clip);
#   - every skinned vertex at every 4th key and the last (RK_FBX_ORACLE_VERTEX_STEP=1: every key; OBJ of the
#     evaluated meshes; each SDK vertex is matched to the nearest of
#     rigkit's in the first frame, within the tolerance);
# tolerance 1e-5 of the character height. Files: the shared assets written
# by `rigkit convert` (FBX in -> FBX out: the original curves; glTF in: the
# quaternion tracks as Euler curves), clips retargeted by `rigkit retarget
# SRC AVATAR OUT.fbx` onto a glTF and an FBX avatar, and the gimbal-critical
# clips tests/test_fbx_write.c writes (BUILD/fbx_write_gimbal_*.fbx).
# Skips (exit 77) without ../shared, node/npm, or registry access.
set -u
rigkit=$1
shared=$2
build=${3:-/tmp}
if [ ! -f "$shared/assets/ybot.fbx" ]; then echo "SKIP: $shared/assets not found"; exit 77; fi
# shellcheck source=tests/fbx2gltf_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/fbx2gltf_lib.sh"
fbx2gltf_install "$build"
bin=$FBX2GLTF
work=$build/fbx_write_oracle
rm -rf "$work"
mkdir -p "$work"
a=$shared/assets

vstep=${RK_FBX_ORACLE_VERTEX_STEP:-4}
case $vstep in ""|*[!0-9]*|0) echo "RK_FBX_ORACLE_VERTEX_STEP must be a positive integer"; exit 2 ;; esac
fail=0
pass=0
made() { [ -s "$1" ] || { echo "FAIL: $1 was not written"; fail=$((fail + 1)); return 1; }; }
"$rigkit" convert -q "$a/ybot.fbx" "$work/ybot.fbx" && made "$work/ybot.fbx"
"$rigkit" convert -q "$a/ybot@kick.fbx" "$work/kick.fbx" && made "$work/kick.fbx"
"$rigkit" convert -q "$a/Xbot.glb" "$work/xbot.fbx" && made "$work/xbot.fbx"
"$rigkit" convert -q "$a/Soldier.glb" "$work/soldier.fbx" && made "$work/soldier.fbx"
"$rigkit" retarget -q "$a/ybot@kick.fbx" "$a/Xbot.glb" "$work/kick_on_xbot.fbx" --drop-target-clips && made "$work/kick_on_xbot.fbx"
"$rigkit" retarget -q "$a/ybot@kick.fbx" "$a/ybot.fbx" "$work/kick_on_ybot.fbx" --drop-target-clips && made "$work/kick_on_ybot.fbx"
"$rigkit" convert -q "$a/ybot.fbx" "$work/ybot_ascii.fbx" --fbx-ascii && made "$work/ybot_ascii.fbx"
gimbal=""
if [ -x "$build/test_fbx_write" ]; then
	(cd "$build" && ./test_fbx_write gimbal_euler >/dev/null 2>&1)
	for g in "$build"/fbx_write_gimbal_*.fbx; do [ -f "$g" ] && cp "$g" "$work/" && gimbal="$gimbal $(basename "$g" .fbx)"; done
fi

# check NAME VERTICES(0/1) JOINTS_ONLY(0/1)
check() {
	local name=$1 verts=$2 joints=$3
	local fbx=$work/$name.fbx glb=$work/$name.sdk
	"$bin" -b --anim-framerate bake30 -i "$fbx" -o "$glb" >"$work/$name.log" 2>&1 \
		|| { echo "FAIL $name: FBX2glTF failed"; fail=$((fail + 1)); return; }
	local spec
	spec=$("$rigkit" info --json --no-tree "$fbx" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = [x for x in d["clips"] if x["tracks"] > 0]
if not c:
    print("static 0 0")
else:
    c = c[0]
    print(c["name"], repr(c["time_begin"]), int(round((c["time_end"] - c["time_begin"]) * 30)))
')
	local clip begin frames
	read -r clip begin frames <<<"$spec"
	local ours="" sdk="" k t ts
	for k in $(seq 0 "$frames"); do
		t=$(python3 -c "print('%.9f' % ($begin + $k / 30.0))")
		ts=$(python3 -c "print('%.9f' % ($k / 30.0))")
		if [ "$clip" = static ]; then ours="$ours --time 0"; sdk="$sdk --time 0"
		else ours="$ours --time $t"; sdk="$sdk --time $ts"; fi
	done
	local copt="" sopt=""
	[ "$clip" != static ] && copt="--clip $clip" && sopt="--clip $clip"
	local jflag=""
	[ "$joints" = 1 ] && jflag=--joints
	# shellcheck disable=SC2086
	"$rigkit" pose "$fbx" $jflag --json --unit-meters 1 $copt $ours >"$work/$name.rigkit.json" \
		|| { echo "FAIL $name: rigkit pose failed"; fail=$((fail + 1)); return; }
	# shellcheck disable=SC2086
	"$rigkit" pose "$glb.glb" --json $sopt $sdk >"$work/$name.sdk.json" \
		|| { echo "FAIL $name: rigkit could not read the FBX SDK's GLB"; fail=$((fail + 1)); return; }
	local objs=""
	if [ "$verts" = 1 ]; then
		# every VSTEP-th key and the last (default 4: each frame is two OBJ
		# files of the whole character; RK_FBX_ORACLE_VERTEX_STEP=1 checks
		# every key, as docs/fbx.md records)
		for k in $( (seq 0 "$vstep" "$frames"; echo "$frames") | sort -nu); do
			t=$(python3 -c "print('%.9f' % ($begin + $k / 30.0))")
			ts=$(python3 -c "print('%.9f' % ($k / 30.0))")
			if [ "$clip" = static ]; then
				"$rigkit" convert -q "$fbx" "$work/$name.r$k.obj" --unit-meters 1 || true
				"$rigkit" convert -q "$glb.glb" "$work/$name.s$k.obj" || true
			else
				"$rigkit" convert -q "$fbx" "$work/$name.r$k.obj" --unit-meters 1 --clip "$clip" --time "$t" || true
				"$rigkit" convert -q "$glb.glb" "$work/$name.s$k.obj" --clip "$clip" --time "$ts" || true
			fi
			objs="$objs $work/$name.r$k.obj $work/$name.s$k.obj"
		done
	fi
	# shellcheck disable=SC2086
	if python3 - "$work/$name.rigkit.json" "$work/$name.sdk.json" "$name" $objs <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["samples"]
sdk = json.load(open(sys.argv[2]))["samples"]
name = sys.argv[3]
objs = sys.argv[4:]
assert len(ours) == len(sdk), "sample counts differ"
pts = [n["position"] for n in ours[0]["nodes"].values()]
ys = [p[1] for p in pts]
height = max(max(ys) - min(ys), max(p[0] for p in pts) - min(p[0] for p in pts))
tol = 1e-5 * height
worst, where, compared = 0.0, None, 0
for a, b in zip(ours, sdk):
    for joint, pa in a["nodes"].items():
        pb = b["nodes"].get(joint)
        if pb is None:
            continue
        d = max(abs(x - y) for x, y in zip(pa["position"], pb["position"]))
        compared += 1
        if d > worst:
            worst, where = d, ("t=%s" % a["time"], joint)
ok = compared >= len(ours) * min(len(ours[0]["nodes"]), 20) and worst <= tol
msg = "%d node samples over %d frames, worst %.3g of height at %s" % (compared, len(ours), worst / height, where)
if name.startswith("fbx_write_gimbal"):
    # the animated node's own world rotation: within 1e-5 rad
    import math
    rworst, rwhere = 0.0, None
    for a, b in zip(ours, sdk):
        for joint, pa in a["nodes"].items():
            pb = b["nodes"].get(joint)
            if pb is None:
                continue
            qa, qb = pa["rotation"], pb["rotation"]
            dot = min(1.0, abs(sum(x * y for x, y in zip(qa, qb))))
            ang = 2.0 * math.atan2(math.sqrt(max(0.0, 1.0 - dot * dot)), dot)
            if ang > rworst:
                rworst, rwhere = ang, ("t=%s" % a["time"], joint)
    ok = ok and rworst <= 1e-5
    msg += "; world rotations: worst %.3g rad at %s" % (rworst, rwhere)

def read_obj(path):
    groups, cur = {}, None
    for line in open(path):
        if line.startswith("o "):
            cur = groups.setdefault(line[2:].strip(), [])
        elif line.startswith("v ") and cur is not None:
            cur.append(tuple(float(x) for x in line.split()[1:4]))
    return groups

if objs:
    vworst, vwhere, vcount, unmatched = 0.0, None, 0, 0
    r0, s0 = read_obj(objs[0]), read_obj(objs[1])
    import math
    cell = 1e-5 * height
    key = lambda p: tuple(math.floor(c / cell) for c in p)
    maps = {}
    for g, sv in s0.items():
        rv = r0.get(g)
        if rv is None:
            continue
        cells = {}
        for i, p in enumerate(rv):
            cells.setdefault(key(p), []).append(i)
        m = []
        for j, p in enumerate(sv):
            c, best = key(p), None
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    for dz in (-1, 0, 1):
                        for i in cells.get((c[0] + dx, c[1] + dy, c[2] + dz), ()):
                            d = max(abs(x - y) for x, y in zip(rv[i], p))
                            if best is None or d < best[0]:
                                best = (d, i)
            if best is None or best[0] > tol:
                unmatched += 1
            else:
                m.append((j, best[1]))
        maps[g] = m
    for k in range(0, len(objs), 2):
        r, s = read_obj(objs[k]), read_obj(objs[k + 1])
        for g, m in maps.items():
            for j, i in m:
                d = max(abs(x - y) for x, y in zip(r[g][i], s[g][j]))
                vcount += 1
                if d > vworst:
                    vworst, vwhere = d, (k // 2, g, i)
    vok = vcount > 0 and vworst <= tol and unmatched == 0
    ok = ok and vok
    msg += "; %d skinned vertex samples over %d frames (%d SDK vertices unmatched), worst %.3g of height at %s" % (
        vcount, len(objs) // 2, unmatched, vworst / height, vwhere)
print("%s %s: height %.4f m, %s" % ("ok" if ok else "FAIL", name, height, msg))
sys.exit(0 if ok else 1)
PY
	then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	# shellcheck disable=SC2086
	rm -f $objs
}

check ybot 1 1
check kick 0 1
check xbot 1 1
check soldier 1 1
check kick_on_xbot 1 1
check kick_on_ybot 1 1
check ybot_ascii 0 1
for g in $gimbal; do check "$g" 0 0; done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
