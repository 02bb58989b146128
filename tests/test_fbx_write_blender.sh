#!/usr/bin/env bash
# tests/test_fbx_write_blender.sh RIGKIT SHARED BUILD - Blender (Debian blender,
# bpy.ops.import_scene.fbx) imports rigkit's FBX files with no error, and
# finds what rigkit wrote: the armature bone count (rigkit's joints), every
# clip's frame range (key range x frame rate, within half a frame) and each
# mesh object's vertex count. Files: the committed fixtures and the
# shared assets converted with `rigkit convert`, a clip retargeted with
# `rigkit retarget SRC AVATAR OUT.fbx`; binary 7400 (Blender refuses ASCII
# FBX: "ASCII FBX files are not supported").
# Exit code 77 (CTest skip) without blender.
set -u
RIGKIT=${1:-}
SHARED_DIR=${2:-}
BUILD_DIR=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
[ -x "$RIGKIT" ] || fail "$RIGKIT is not an executable (build rigkit first)"
BLENDER=$(command -v blender) || skip "blender is not installed (Debian package blender)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
OUT="$BUILD_DIR/fbx_write_blender"
rm -rf "$OUT" && mkdir -p "$OUT" || fail "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
FILES=()
conv() { "$RIGKIT" convert "$1" "$OUT/$2" -q "${@:3}" || fail "rigkit convert $1 failed"; FILES+=("$OUT/$2"); }
conv "$HERE/fixtures/rig_7400.fbx" rig_fbx.fbx
conv "$HERE/fixtures/rig.glb" rig_glb.fbx
A="$SHARED_DIR/assets"
if [ -n "$SHARED_DIR" ] && [ -f "$A/ybot.fbx" ]; then
	conv "$A/ybot.fbx" ybot.fbx
	conv "$A/ybot@kick.fbx" kick.fbx
	conv "$A/Xbot.glb" xbot.fbx
	"$RIGKIT" retarget "$A/ybot@kick.fbx" "$A/Soldier.glb" "$OUT/kick_on_soldier.fbx" --drop-target-clips -q \
		|| fail "rigkit retarget failed"
	FILES+=("$OUT/kick_on_soldier.fbx")
else
	echo "note: $SHARED_DIR/assets not found: fixtures only"
fi
"$BLENDER" -b --factory-startup --python-exit-code 1 -P "$HERE/blender/fbx_import_check.py" -- "$OUT/blender.json" "${FILES[@]}" \
	>"$OUT/blender.log" 2>&1 || fail "blender failed (see $OUT/blender.log)"
for f in "${FILES[@]}"; do "$RIGKIT" info --json "$f" >"$f.info.json" || fail "rigkit info $f failed"; done
python3 - "$OUT/blender.json" "${FILES[@]}" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
fails = 0
for path in sys.argv[2:]:
    b = report[path]
    info = json.load(open(path + ".info.json"))
    name = path.rsplit("/", 1)[-1]
    problems = []
    if not b["finished"] or b["error"]:
        problems.append("import did not finish: %s" % b["error"])
    nodes = info["nodes"]
    joints = sum(1 for n in nodes if n.get("kind") == "joint")
    if b["bones"] != joints:
        problems.append("%d bones, rigkit wrote %d joints" % (b["bones"], joints))
    fps = info.get("frame_rate") or 30
    for c in info["clips"]:
        if c["tracks"] == 0:
            continue
        # Blender names actions "<object>|<stack>|<layer>"
        ranges = [r for a, r in b["actions"].items() if ("|" + c["name"] + "|") in a or a.endswith("|" + c["name"])]
        if not ranges:
            problems.append("no action for clip %s (actions: %s)" % (c["name"], sorted(b["actions"])[:4]))
            continue
        want = (c["time_begin"] * b["fps"], c["time_end"] * b["fps"])
        lo = min(r[0] for r in ranges); hi = max(r[1] for r in ranges)
        if abs(lo - want[0]) > 0.5 or abs(hi - want[1]) > 0.5:
            problems.append("clip %s: frames %.2f..%.2f, rigkit %.2f..%.2f" % (c["name"], lo, hi, want[0], want[1]))
    ours = {n["name"]: info["meshes"][n["mesh"]]["vertices"] for n in nodes if n.get("mesh") is not None}
    for obj, count in b["meshes"].items():
        if obj in ours and ours[obj] != count:
            problems.append("mesh %s: %d vertices, rigkit wrote %d" % (obj, count, ours[obj]))
    if sorted(ours.values()) != sorted(b["meshes"].values()):
        problems.append("mesh vertex counts %s, rigkit wrote %s" % (sorted(b["meshes"].values()), sorted(ours.values())))
    print("%s %s: %d bones, %d actions, meshes %s" % ("FAIL" if problems else "ok", name, b["bones"], len(b["actions"]),
          sorted(b["meshes"].values())))
    for p in problems:
        print("   ", p)
    fails += bool(problems)
print("%d files, %d failed" % (len(sys.argv) - 2, fails))
sys.exit(1 if fails else 0)
PY
