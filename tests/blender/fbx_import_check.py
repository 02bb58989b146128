# tests/blender/fbx_import_check.py - run by tests/test_fbx_write_blender.sh:
#   blender -b --factory-startup --python-exit-code 1 -P fbx_import_check.py -- OUT.json FILE.fbx...
# Imports each FBX into an empty scene with bpy.ops.import_scene.fbx (no
# animation offset) and writes, per file: whether the operator finished, the
# error text if it raised, the armature bone count, every action's frame
# range and the scene's frame rate, and each mesh object's vertex count.
import json
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
out, files = args[0], args[1:]
report = {}
for path in files:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    entry = {"finished": False, "error": ""}
    try:
        result = bpy.ops.import_scene.fbx(filepath=path, anim_offset=0.0)
        entry["finished"] = "FINISHED" in result
    except Exception as e:  # the importer raises on files it cannot read
        entry["error"] = str(e)
    scene = bpy.context.scene
    entry["fps"] = scene.render.fps / scene.render.fps_base
    entry["bones"] = sum(len(o.data.bones) for o in scene.objects if o.type == "ARMATURE")
    entry["actions"] = {a.name: list(a.frame_range) for a in bpy.data.actions}
    entry["meshes"] = {o.name: len(o.data.vertices) for o in scene.objects if o.type == "MESH"}
    report[path] = entry
with open(out, "w") as f:
    json.dump(report, f, indent=1)
