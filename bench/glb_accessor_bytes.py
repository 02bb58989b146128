#!/usr/bin/env python3
"""bench/glb_accessor_bytes.py GLB... - the decoded size of every accessor of a
GLB (count x components x component size, the types the file stores; sparse
and not) and of its embedded images, for the peak-memory rows of
scripts/bench.sh (peak of the load / decoded accessor bytes)."""
import json
import struct
import sys

COMPS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
SIZES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}

for path in sys.argv[1:]:
    with open(path, "rb") as f:
        data = f.read()
    magic, _, _ = struct.unpack_from("<4sII", data, 0)
    if magic != b"glTF":
        print(path, "not a GLB")
        continue
    jlen, jtype = struct.unpack_from("<II", data, 12)
    doc = json.loads(data[20:20 + jlen])
    acc = sum(a.get("count", 0) * COMPS.get(a.get("type"), 0) * SIZES.get(a.get("componentType"), 0)
              for a in doc.get("accessors", []))
    views = doc.get("bufferViews", [])
    img = sum(views[i["bufferView"]].get("byteLength", 0) for i in doc.get("images", []) if "bufferView" in i)
    print(path, acc, img)
