#!/usr/bin/env bash
# scripts/demo.sh RIGKIT - what `make demo` runs: the main job on the built-in
# sample data (upgraded as features land).
set -euo pipefail
rigkit=${1:-build/rigkit}
out=${2:-out}
run() { echo "\$ rigkit $*"; "$rigkit" "$@"; echo; }
run --version
echo "# 1. Generate the built-in sample characters: a Mixamo-style source with"
echo "#    Idle and Walk clips, and an Avaturn/Ready-Player-Me-style avatar."
run sample "$out"
echo "# 2. Inspect them."
run info --no-tree "$out/source.glb"
run info --no-tree --meshes "$out/avatar.glb"
echo "# 3. Evaluate the source's Walk: hips and feet in world space (metres)."
"$rigkit" pose "$out/source.glb" --clip Walk --time 0 --time 0.5 | grep -E '^time|Hips |LeftFoot |RightFoot ' || true
echo
echo "# 4. Bake the Walk at t = 0.25 s into a posed OBJ."
run convert "$out/source.glb" "$out/source_walk_0.25.obj" --clip Walk --time 0.25
echo "wrote $out/source_walk_0.25.obj ($(wc -l <"$out/source_walk_0.25.obj") lines)"
echo
echo "# 5. The FBX transform chain (seed 000): a joint with a 30 degree PreRotation,"
echo "#    rotated 90 degrees about Y in ZYX order about a pivot; where does (1,0,0) go?"
run transform --translation 0,10,0 --rotation 0,90,0 --order zyx --pre-rotation 0,0,30 \
	--rotation-active --rotation-pivot 0,1,0 --point 1,0,0
echo "# 6. The main job (seed 004): play the Mixamo-style source's Walk and Idle on"
echo "#    the Avaturn-style avatar. Different names (mixamorig:Hips vs Hips),"
echo "#    rest poses (T vs A), bone rolls and units (cm vs m) are absorbed;"
echo "#    the avatar keeps its own proportions."
echo "\$ rigkit humanoid $out/avatar.glb | head -9   # 54 bones in all"
"$rigkit" humanoid "$out/avatar.glb" | head -9 || true
echo
run retarget "$out/source.glb" "$out/avatar.glb" "$out/avatar_walk.glb" --clip Walk --clip Idle
run info --no-tree "$out/avatar_walk.glb"
echo "# 7. Where do the avatar's hips and feet go? (metres; compare with step 3)"
"$rigkit" pose "$out/avatar_walk.glb" --clip Walk --time 0 --time 0.5 | grep -E '^time|Hips |LeftFoot |RightFoot ' || true
echo
echo "# 8. The same walk with the hips' travel removed (seed 004's root-motion fix)."
run retarget "$out/source.glb" "$out/avatar.glb" "$out/avatar_walk_in_place.glb" --clip Walk --root in-place
echo "# 9. Preview without a GPU, textured (the files' own textures; --untextured"
echo "#    turns them off). Filmstrips of 6 frames from a three-quarter view: the"
echo "#    source's Walk (out/source_walk.png) and the avatar's in-place walk"
echo "#    (out/avatar_walk.png); then both from the side, the source above the"
echo "#    avatar (--with), each column framed on the pair: they should match."
run render "$out/source.glb" "$out/source_walk.png" --clip Walk --frames 6 --size 160x256 --yaw 35 --pitch 8 --follow
run render "$out/avatar_walk_in_place.glb" "$out/avatar_walk.png" --clip Walk --frames 6 --size 160x256 --yaw 35 --pitch 8
run render "$out/source.glb" "$out/walk_side.png" --clip Walk --frames 6 --size 160x256 --yaw 90 \
	--with "$out/avatar_walk.glb" --follow
