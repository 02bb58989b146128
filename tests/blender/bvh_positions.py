"""tests/blender/bvh_positions.py - Blender's own BVH importer as an oracle.

  blender -b --factory-startup --python-exit-code 1 -P bvh_positions.py -- IN.bvh OUT.json

Imports IN.bvh with bpy.ops.import_anim.bvh (armature, scale 1, frame 1 =
BVH frame 0, Blender's default axis conversion: BVH +Y up, -Z forward;
quaternion pose bones: with Euler ones Blender re-derives the angles in
single precision, which loses up to 2e-5 of the height near gimbal lock on
sideways bones such as fingers) and
writes, for every frame, the world position of every bone's head in BVH
axes (Blender (x, y, z) -> BVH (x, z, -y)):

  {"frames": F, "frame_time": T, "joints": {"Hips": [[x, y, z], ...], ...}}

Blender reads position channels as the joint's absolute local position
(it drops the OFFSET of a joint that has them), rigkit and three.js add the
OFFSET: compare only files whose joints with position channels have a zero
OFFSET. Blender also needs all three rotation channels on a rotated joint.
"""
import json
import sys

import bpy

# Debian's Blender 3.4 add-on opens the file with mode 'rU', which Python
# 3.11 refuses: give its module an open() that drops the 'U'.
import builtins
import io_anim_bvh.import_bvh as import_bvh
import_bvh.open = lambda path, mode="r", *a, **k: builtins.open(path, mode.replace("U", ""), *a, **k)

argv = sys.argv[sys.argv.index("--") + 1:]
src, out = argv[0], argv[1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_anim.bvh(filepath=src, target='ARMATURE', global_scale=1.0, frame_start=1, use_fps_scale=False,
                        update_scene_fps=True, update_scene_duration=True, rotate_mode='QUATERNION',
                        axis_forward='-Z', axis_up='Y')
arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
scene = bpy.context.scene
action = arm.animation_data.action if arm.animation_data else None
first, last = (int(round(action.frame_range[0])), int(round(action.frame_range[1]))) if action else (1, 1)
joints = {b.name: [] for b in arm.pose.bones}
for f in range(first, last + 1):
    scene.frame_set(f)
    for b in arm.pose.bones:
        p = arm.matrix_world @ b.head
        joints[b.name].append([p.x, p.z, -p.y])
with open(out, "w") as fh:
    json.dump({"frames": last - first + 1, "fps": scene.render.fps / scene.render.fps_base, "joints": joints}, fh)
