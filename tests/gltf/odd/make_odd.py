#!/usr/bin/env python3
"""Writes odd.gltf: a small hand-made model with what a round trip must keep and the sample
models lack: named meshes, materials, skins and cameras; duplicate and missing node names;
a material used only by a lines primitive; a mesh of a triangle and a lines
primitive; a line strip mesh; eight skin influences that normalizing would change; skin.skeleton; a perspective
camera without aspect ratio and zfar; an orthographic camera; a primitive without material;
a second scene whose node a clip animates; an animation name of 200 characters; TEXCOORD_1,
TANGENT and COLOR_0 (VEC3 normalized bytes with a byteStride of 4, VEC4 normalized shorts,
VEC3 floats).
Run from this folder: python3 make_odd.py (the output is committed; CC0)."""
import base64, json, struct

blob = bytearray()
views, accessors = [], []

def add(fmt, values, ctype, atype, count, target=None, minmax=None, normalized=False,
        stride=None):
    while len(blob) % 4:
        blob.append(0)
    off = len(blob)
    if stride:  # each element padded to `stride` bytes
        per = len(values) // count
        for i in range(count):
            e = struct.pack('<' + fmt * per, *values[i * per:(i + 1) * per])
            blob.extend(e + bytes(stride - len(e)))
    else:
        blob.extend(struct.pack('<' + fmt * len(values), *values))
    v = {"buffer": 0, "byteOffset": off, "byteLength": len(blob) - off}
    if stride:
        v["byteStride"] = stride
    if target:
        v["target"] = target
    views.append(v)
    a = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": atype}
    if minmax:
        a["min"], a["max"] = minmax
    if normalized:
        a["normalized"] = True
    accessors.append(a)
    return len(accessors) - 1

tri = [0, 0, 0, 1, 0, 0, 0, 1, 0]
pos = add('f', tri, 5126, "VEC3", 3, 34962, ([0, 0, 0], [1, 1, 0]))
# Attributes the geometry has no place for (kept by import in model->primitives).
tnrm = add('f', [0, 0, 1] * 3, 5126, "VEC3", 3, 34962)
tuv0 = add('f', [0, 0, 1, 0, 0, 1], 5126, "VEC2", 3, 34962)
tuv1 = add('f', [0.25, 0.25, 0.75, 0.25, 0.25, 0.75], 5126, "VEC2", 3, 34962)
ttan = add('f', [1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, -1], 5126, "VEC4", 3, 34962)
tcol = add('B', [255, 0, 0, 0, 255, 0, 17, 34, 51], 5121, "VEC3", 3, 34962, normalized=True,
           stride=4)
pcol = add('H', [65535, 0, 0, 65535, 1, 2, 3, 4, 30000, 40000, 50000, 60000], 5123, "VEC4", 3,
           34962, normalized=True)
wcol = add('f', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], 5126, "VEC3", 3, 34962)
quad = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]
qpos = add('f', quad, 5126, "VEC3", 4, 34962, ([0, 0, 0], [1, 1, 0]))
qidx = add('H', [0, 1, 2, 0, 2, 3], 5123, "SCALAR", 6, 34963)
joints = add('B', [0, 1, 0, 0] * 4, 5121, "VEC4", 4, 34962)
weights = add('f', [0.75, 0.25, 0.0, 0.0] * 4, 5126, "VEC4", 4, 34962)
ibm = add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1], 5126, "MAT4", 2)
# Eight influences whose sum is 1 + 5e-7: the skin's normalized copy differs from the file.
j0 = add('B', [0, 1, 0, 0] * 4, 5121, "VEC4", 4, 34962)
w0 = add('f', [0.4, 0.3, 0, 0] * 4, 5126, "VEC4", 4, 34962)
j1 = add('B', [2, 3, 0, 0] * 4, 5121, "VEC4", 4, 34962)
w1 = add('f', [0.2, 0.1000005, 0, 0] * 4, 5126, "VEC4", 4, 34962)
ibm4 = add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * 4, 5126, "MAT4", 4)
lpos = add('f', [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1], 5126, "VEC3", 4, 34962,
           ([0, 0, 0], [1, 1, 1]))
lidx = add('H', [0, 1, 1, 2, 2, 3], 5123, "SCALAR", 6, 34963)
times = add('f', [0, 0.5, 1], 5126, "SCALAR", 3, None, ([0], [1]))
moves = add('f', [0, 0, 0, 0, 1, 0, 0, 2, 0], 5126, "VEC3", 3)
turns = add('f', [0, 0, 0, 1, 0, 0, 0.38268343, 0.9238795, 0, 0, 0.70710677, 0.70710677],
            5126, "VEC4", 3)

gltf = {
    "asset": {"version": "2.0", "generator": "oroya tests/gltf/odd/make_odd.py"},
    "scene": 0,
    "scenes": [{"name": "Main", "nodes": [0, 4, 5, 6, 8, 9, 10, 11]},
               {"name": "Other", "nodes": [7]}],
    "nodes": [
        {"name": "rig", "children": [1, 3]},
        {"name": "hip", "children": [2]},                        # the skin's skeleton root
        {"name": "dup", "translation": [0, 1, 0]},
        {"name": "dup", "mesh": 0},
        {"mesh": 2, "translation": [2, 0, 0]},                   # unnamed, no material
        {"name": "eye", "camera": 0, "translation": [0, 0, 5]},
        {"name": "top", "camera": 1, "rotation": [-0.70710677, 0, 0, 0.70710677]},
        {"name": "Elsewhere", "translation": [0, 0, -3]},
        {"name": "body", "skin": 0, "mesh": 1},
        {"name": "wire", "mesh": 3, "translation": [0, 0, 1]},   # triangles + lines
        {"name": "strip", "mesh": 4},                           # a line strip alone
        {"name": "wide", "skin": 1, "mesh": 5},                 # eight influences
    ],
    "meshes": [
        {"name": "Triangle", "primitives": [{"attributes": {
            "POSITION": pos, "NORMAL": tnrm, "TEXCOORD_0": tuv0, "TEXCOORD_1": tuv1,
            "TANGENT": ttan, "COLOR_0": tcol}, "material": 0}]},
        {"name": "SkinnedQuad", "primitives": [{"attributes": {
            "POSITION": qpos, "JOINTS_0": joints, "WEIGHTS_0": weights},
            "indices": qidx, "material": 1}]},
        {"name": "Plain", "primitives": [{"attributes": {"POSITION": pos, "COLOR_0": pcol}}]},
        {"name": "Mixed", "primitives": [
            {"attributes": {"POSITION": pos, "COLOR_0": wcol}, "material": 0},
            {"attributes": {"POSITION": lpos}, "indices": lidx, "mode": 1, "material": 2}]},
        {"name": "Strip", "primitives": [{"attributes": {"POSITION": lpos}, "mode": 3}]},
        {"name": "EightQuad", "primitives": [{"attributes": {
            "POSITION": qpos, "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1},
            "indices": qidx}]},
    ],
    "materials": [
        {"name": "Red", "pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1],
                                                 "metallicFactor": 0.25}},
        {"name": "Skin material", "pbrMetallicRoughness": {"roughnessFactor": 0.5},
         "doubleSided": True},
        {"name": "Blue lines", "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 1, 1]}},
        {"name": "Unused", "pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]}},
    ],
    "skins": [{"name": "Rig skin", "joints": [1, 2], "skeleton": 1, "inverseBindMatrices": ibm},
              {"name": "Wide skin", "joints": [1, 2, 0, 3], "inverseBindMatrices": ibm4}],
    "cameras": [
        {"name": "Infinite", "type": "perspective", "perspective": {"yfov": 0.7, "znear": 0.05}},
        {"name": "Map", "type": "orthographic",
         "orthographic": {"xmag": 3, "ymag": 2, "znear": 0.1, "zfar": 50}},
    ],
    "animations": [
        {"name": "a" * 200,
         "samplers": [{"input": times, "output": moves},
                      {"input": times, "output": turns, "interpolation": "STEP"}],
         "channels": [{"sampler": 0, "target": {"node": 7, "path": "translation"}},
                      {"sampler": 1, "target": {"node": 2, "path": "rotation"}}]},
    ],
    "buffers": [{"byteLength": len(blob),
                 "uri": "data:application/octet-stream;base64," +
                        base64.b64encode(bytes(blob)).decode()}],
}
gltf["bufferViews"], gltf["accessors"] = views, accessors
with open("odd.gltf", "w") as f:
    json.dump(gltf, f, indent=1)
    f.write("\n")
