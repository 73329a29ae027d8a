#!/usr/bin/env python3
"""Writes scene_meshes.gltf: two scenes, the first loaded, and everything that shows something
held only by the second scene or by none: a skinned mesh (JOINTS_0/WEIGHTS_0 and a second
set JOINTS_1/WEIGHTS_1) on a root of scene 1 with its skin's four joints (a chain, with
`skeleton`) under another root of scene 1; a perspective camera without aspect ratio and zfar;
a mesh with a morph target on two nodes, one with its own weights; and a node in no scene
with a mesh of a triangle and a lines primitive and an orthographic camera it shares with the
loaded scene's only node. Import builds no scene node for them; a round trip must keep their
meshes, cameras and skins (issue 19).
Run from this folder: python3 make_scene_meshes.py (the output is committed; CC0)."""
import base64, json, struct

blob = bytearray()
views, accessors = [], []

def add(fmt, values, ctype, atype, count, target=None, minmax=None):
    while len(blob) % 4:
        blob.append(0)
    off = len(blob)
    blob.extend(struct.pack('<' + fmt * len(values), *values))
    v = {"buffer": 0, "byteOffset": off, "byteLength": len(blob) - off}
    if target:
        v["target"] = target
    views.append(v)
    a = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": atype}
    if minmax:
        a["min"], a["max"] = minmax
    accessors.append(a)
    return len(accessors) - 1

tri = [0, 0, 0, 1, 0, 0, 0, 1, 0]
pos = add('f', tri, 5126, "VEC3", 3, 34962, ([0, 0, 0], [1, 1, 0]))
nrm = add('f', [0, 0, 1] * 3, 5126, "VEC3", 3, 34962)
# Eight influences per vertex that sum to 1: 0.5 + 0.25 in the first set, 0.125 + 0.125 in
# the second (the skin's normalized copy equals them; the file's are kept as written).
j0 = add('B', [0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0], 5121, "VEC4", 3, 34962)
w0 = add('f', [0.5, 0.25, 0, 0, 0.5, 0.25, 0, 0, 0.25, 0.5, 0, 0], 5126, "VEC4", 3, 34962)
j1 = add('B', [2, 3, 0, 0] * 3, 5121, "VEC4", 3, 34962)
w1 = add('f', [0.125, 0.125, 0, 0] * 3, 5126, "VEC4", 3, 34962)
mpos = add('f', [0, 0, 0.5, 0, 0, 0.25, 0, 0, 0], 5126, "VEC3", 3, None,
           ([0, 0, 0], [0, 0, 0.5]))
lpos = add('f', [0, 0, 0, 0, 0, 1], 5126, "VEC3", 2, 34962, ([0, 0, 0], [0, 0, 1]))
# Joint world translations: Hip (0, 1, 0), Knee (0, 0.5, 0), Foot (0, 0.25, 0), Toe (0, 0.25, 0.1).
def inv_t(x, y, z):
    return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -x, -y, -z, 1]
ibm = add('f', inv_t(0, 1, 0) + inv_t(0, 0.5, 0) + inv_t(0, 0.25, 0) + inv_t(0, 0.25, 0.1),
          5126, "MAT4", 4)

gltf = {
    "asset": {"version": "2.0", "generator": "oroya tests/gltf/odd/make_scene_meshes.py (CC0)"},
    "scene": 0,
    "scenes": [{"name": "Main", "nodes": [0]}, {"name": "Other", "nodes": [1, 3]}],
    "nodes": [
        {"name": "Stage", "camera": 1, "translation": [0, 0, 5]},              # 0
        {"name": "Rig", "children": [2, 4, 5, 6]},                             # 1
        {"name": "Hip", "translation": [0, 1, 0], "children": [7]},            # 2
        {"name": "Body", "mesh": 0, "skin": 0},                                # 3
        {"name": "Eye", "camera": 0, "translation": [0, 1.5, 2]},              # 4
        {"name": "Blob", "mesh": 1, "weights": [0.25], "translation": [2, 0, 0]},  # 5
        {"name": "Blob", "mesh": 1, "scale": [2, 2, 2]},                       # 6
        {"name": "Knee", "translation": [0, -0.5, 0], "children": [9]},        # 7
        {"name": "Loose", "mesh": 2, "camera": 1, "rotation": [0, 0, 0.6, 0.8]},  # 8
        {"name": "Foot", "translation": [0, -0.25, 0], "children": [10]},      # 9
        {"name": "Toe", "translation": [0, 0, 0.1]},                           # 10
    ],
    "meshes": [
        {"name": "Body mesh", "primitives": [{"attributes": {
            "POSITION": pos, "NORMAL": nrm, "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1,
            "WEIGHTS_1": w1}, "material": 0}]},
        {"name": "Blob mesh", "weights": [0.5], "primitives": [{
            "attributes": {"POSITION": pos}, "targets": [{"POSITION": mpos}], "material": 1}]},
        {"name": "Loose mesh", "primitives": [
            {"attributes": {"POSITION": pos}},
            {"attributes": {"POSITION": lpos}, "mode": 1, "material": 1}]},
    ],
    "materials": [
        {"name": "Body material", "pbrMetallicRoughness": {"baseColorFactor": [1, 0.5, 0, 1]}},
        {"name": "Blob material", "pbrMetallicRoughness": {"metallicFactor": 0.5},
         "doubleSided": True},
    ],
    "skins": [{"name": "Leg skin", "joints": [2, 7, 9, 10], "skeleton": 2,
               "inverseBindMatrices": ibm}],
    "cameras": [
        {"name": "Eye camera", "type": "perspective", "perspective": {"yfov": 0.9, "znear": 0.1}},
        {"name": "Map", "type": "orthographic",
         "orthographic": {"xmag": 2, "ymag": 1, "znear": 0.01, "zfar": 100}},
    ],
    "buffers": [{"byteLength": len(blob),
                 "uri": "data:application/octet-stream;base64," +
                        base64.b64encode(bytes(blob)).decode()}],
}
gltf["bufferViews"], gltf["accessors"] = views, accessors
with open("scene_meshes.gltf", "w") as f:
    json.dump(gltf, f, indent=1)
    f.write("\n")
