"""tests/blender/fbx_to_bvh.py - a BVH as Blender's own exporter writes it.

  blender -b --factory-startup --python-exit-code 1 -P fbx_to_bvh.py -- IN.fbx OUT.bvh

Imports IN.fbx (bpy.ops.import_scene.fbx) and exports its armature's action
with bpy.ops.export_anim.bvh (every joint with 6 channels, positions as
absolute local positions: the style rigkit's AUTO bvh_positions detects).
"""
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=argv[0])
arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
bpy.context.view_layer.objects.active = arm
first, last = (int(round(x)) for x in arm.animation_data.action.frame_range)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = first, last
bpy.ops.export_anim.bvh(filepath=argv[1], frame_start=first, frame_end=last, root_transform_only=False)
