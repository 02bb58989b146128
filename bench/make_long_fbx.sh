#!/usr/bin/env bash
# bench/make_long_fbx.sh BUILD_DIR ASSETS_DIR OUT_DIR - makes the 8 s FBX
# clips of the "FBX -> GLB of long clips" benchmark (issue 16: girl_dance
# length, 8 s at 30 fps on a ~66-joint skinned Mixamo humanoid; no such file
# is among the shared assets).
#
#   OUT_DIR/xbot_walk_8s.fbx  Xbot.glb (Mixamo X Bot: 67 joints, 2 skinned
#                             meshes) with its walk repeated end to end to
#                             8 s (241 frames at 30 fps; bench_long_clip):
#                             translation, rotation and scale keys on every
#                             frame of every joint, as Mixamo bakes them
#   OUT_DIR/ybot_walk_8s.fbx  that walk retargeted onto ybot.fbx (Mixamo Y Bot,
#                             65 joints, 2 skinned meshes; rigkit retarget),
#                             keys on every frame of the 52 animated bones
#
# Both are written by rigkit's FBX writer (binary FBX 7400, one curve per
# channel, keys on every frame; quaternion tracks as Euler curves). The
# repeated walk jumps at each seam: it only has to cost what 8 s of real
# keys cost. Prints the paths it made; exits non-zero when a step fails.
set -euo pipefail
build=${1:?usage: make_long_fbx.sh BUILD_DIR ASSETS_DIR OUT_DIR}
assets=${2:?usage: make_long_fbx.sh BUILD_DIR ASSETS_DIR OUT_DIR}
out=${3:?usage: make_long_fbx.sh BUILD_DIR ASSETS_DIR OUT_DIR}
mkdir -p "$out"
"$build"/bench_long_clip "$assets/Xbot.glb" walk 241 30 "$out/xbot_walk_8s.glb"
"$build"/rigkit convert "$out/xbot_walk_8s.glb" "$out/xbot_walk_8s.fbx" -q --force
"$build"/rigkit retarget "$out/xbot_walk_8s.glb" "$assets/ybot.fbx" "$out/ybot_walk_8s.glb" \
	--drop-target-clips --fps 30 -q --force >/dev/null
"$build"/rigkit convert "$out/ybot_walk_8s.glb" "$out/ybot_walk_8s.fbx" -q --force
rm -f "$out/xbot_walk_8s.glb" "$out/ybot_walk_8s.glb"
echo "$out/xbot_walk_8s.fbx"
echo "$out/ybot_walk_8s.fbx"
