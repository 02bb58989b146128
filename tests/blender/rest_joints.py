# tests/blender/rest_joints.py - run inside Blender (blender -b -P this -- IN OUT.json):
# imports IN (FBX with bpy.ops.import_scene.fbx, glTF/GLB with
# bpy.ops.import_scene.gltf) and writes {bone name: [x, y, z]}: the head of
# every armature bone in its REST pose (Blender's own rest, which its
# importers take from the FBX bind pose / the glTF inverse bind matrices),
# in world space (armature.matrix_world @ bone.head_local). An independent
# oracle for rigkit's rest pose (tests/test_rest_blender.sh); written for
# rigkit.
import json
import sys

import bpy

argv = sys.argv[sys.argv.index('--') + 1:]
src, out = argv[0], argv[1]
bpy.ops.wm.read_factory_settings(use_empty=True)
if src.lower().endswith('.fbx'):
    bpy.ops.import_scene.fbx(filepath=src)
else:
    bpy.ops.import_scene.gltf(filepath=src)
joints = {}
for obj in bpy.data.objects:
    if obj.type != 'ARMATURE':
        continue
    for bone in obj.data.bones:
        p = obj.matrix_world @ bone.head_local
        joints[bone.name] = [p.x, p.y, p.z]
json.dump({'joints': joints}, open(out, 'w'))
