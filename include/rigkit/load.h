/*
 * rigkit/load.h - reading files into an rk_scene (scene.h).
 *
 * OVERVIEW
 *   One call in, one plain read-only scene out, one free:
 *
 *     rk_error err;
 *     rk_scene *s = rk_load_file("ybot.fbx", NULL, &err);   // NULL opts = defaults
 *     if (!s) { char msg[512]; rk_error_format(msg, sizeof msg, &err); ... }
 *     ...
 *     rk_scene_free(s);
 *
 *   The format is detected from the bytes (rk_format_detect), never from the
 *   file name. Readers live in src/formats/<fmt>/ and build the scene through
 *   the neutral builder; src/load is the only code that names them all.
 *   rk_load_opts (scene.h) holds the limits, conversions and reporting
 *   options every reader honours.
 *
 * ERRORS
 *   NULL on failure with err (may be NULL) filled: code, file name, byte
 *   offset, FBX node path or glTF JSON pointer, and what was expected. A
 *   corrupt or truncated input is an error, never a crash; every count is
 *   checked against the bytes that remain before anything is allocated, and
 *   all memory counts against rk_load_opts.memory_limit.
 *
 * THREAD SAFETY
 *   Loads on different threads are independent (no global state). A loaded
 *   scene is read-only data that many threads may read at once.
 *
 * ---------------------------------------------------------------------------
 * FBX IMPORTER
 *
 *   FEATURES
 *     Binary and ASCII FBX 3000-7700 through the DOM (fbx_dom.h).
 *     7x: Objects with int64 ids, Connections (C: OO/OP), Definitions property
 *     templates (a property missing on an object takes its template's value).
 *     5800/6100: named objects ("Model::name"), Properties60, geometry inside
 *     the Model, Connect: entries, "Model::Scene" as the root, GlobalSettings
 *     inside Objects.
 *     Models -> nodes with every transform-chain property; Geometry (Mesh) ->
 *     meshes with normals, UV sets, colours, tangents, per-face materials
 *     (all FBX mappings: ByPolygonVertex, ByVertice, ByPolygon, AllSame;
 *     Direct/IndexToDirect); Skin + Cluster deformers (linear, dual quaternion,
 *     blended with BlendWeights, rigid); BlendShape/Channel/Shape with
 *     in-betweens; Materials (Lambert/Phong), Textures and Video content;
 *     GlobalSettings axes, units and frame rate; animation in fbx_anim.c.
 *
 *   RESTRICTIONS
 *     NURBS, patches, lines and geometry caches are not loaded (warned).
 *     ByEdge mappings are ignored (warned).
 *     Out-of-range vertex indices are clamped to vertex 0 with a warning.
 *     A connection repeating an earlier one (same child, parent and
 *     property) is dropped, with one warning giving the count: repeated
 *     links never multiply nodes, clusters or animation tracks.
 *     Non-finite numbers (NaN, infinity, ASCII 1e400): in arrays (vertices,
 *     normals, UVs, weights, matrices, shape offsets) RK_ERROR_CORRUPT with
 *     the byte offset and node path; in transform properties (Lcl *, pivots,
 *     offsets, Pre/PostRotation, Geometric*) the property's default with a
 *     warning; in key values 0 with a warning. docs/limits.md.
 *
 * ---------------------------------------------------------------------------
 * GLTF IMPORTER
 *
 *   FEATURES
 *     - GLB containers (JSON chunk + BIN chunk; unknown chunks skipped) and
 *       .gltf JSON. Buffers from the GLB BIN chunk, data: URIs (base64 or
 *       %-encoded) and external files: percent-decoded URIs resolved relative to
 *       the folder of the input file (rk_load_file's path or
 *       rk_load_opts.filename).
 *     - The scene named by "scene", else scenes[0]. Root nodes that are not in
 *       that scene (in another scene or in none) are added under the root as
 *       well, with a warning, so every node index of the file has an rk_node.
 *     - Nodes with "matrix" (decomposed into node->local; a warning when it
 *       shears or is not affine) or translation/rotation/scale. Rotations that
 *       are not unit quaternions are normalised (warning).
 *     - Meshes: every accessor component type (BYTE, UNSIGNED_BYTE, SHORT,
 *       UNSIGNED_SHORT, UNSIGNED_INT, FLOAT), normalized integers, byteStride,
 *       sparse accessors, accessors without bufferView (zeros). Primitive modes
 *       TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN (strips and fans become
 *       triangles; their degenerate triangles are dropped); POINTS and LINES*
 *       are skipped with a warning. Attributes POSITION, NORMAL, TANGENT,
 *       TEXCOORD_0..15, COLOR_0..7, JOINTS_n/WEIGHTS_n (n < 8). Quantized
 *       attributes (KHR_mesh_quantization) are decoded to doubles.
 *     - Morph targets: POSITION/NORMAL deltas, one rk_blend_channel with one
 *       target (weight 1) per glTF target; names from mesh.extras.targetNames;
 *       default weights from mesh.weights; node.weights -> node->blend_weights
 *       (else the mesh defaults).
 *     - Skins: inverseBindMatrices (identity when absent), joints, skeleton;
 *       JOINTS_n/WEIGHTS_n -> CSR influences sorted by descending weight, raw
 *       (not renormalised), zero weights dropped.
 *     - Animations: LINEAR, STEP, CUBICSPLINE samplers on translation,
 *       rotation, scale and weights, integer outputs normalised.
 *     - Materials (metallic-roughness factors and textures with texCoord,
 *       normal, emissive, alphaMode/alphaCutoff, doubleSided), textures,
 *       samplers (wrap modes), images (bytes or file name; never decoded).
 *       KHR_materials_unlit, KHR_texture_transform and KHR_mesh_quantization are
 *       understood; other entries of extensionsUsed become warnings; an entry of
 *       extensionsRequired that is not understood is RK_ERROR_UNSUPPORTED.
 *
 *   MAPPING TO THE NEUTRAL SCENE (scene.h)
 *     nodes.data[0] is the synthetic root (RK_NODE_ROOT, name ""). Every glTF
 *     node becomes one rk_node, depth-first with children in the order of the
 *     "children" arrays; the root's children are the scene's nodes in order,
 *     then the other parentless nodes by index. source_id = glTF node index.
 *     Names: node.name, or "node<N>" (N = glTF index) when the file has none;
 *     other elements keep "" when unnamed, morph channels "target<k>".
 *     kind: RK_NODE_MESH with a mesh, else RK_NODE_CAMERA with a camera, else
 *     RK_NODE_LIGHT with KHR_lights_punctual, else RK_NODE_JOINT when some skin
 *     lists it, else RK_NODE_NULL. has_fbx_props is false: node->local is
 *     authoritative; node->props mirrors it for display (rotation as Euler XYZ
 *     degrees).
 *     One rk_mesh per glTF mesh: triangle primitives concatenated (vertices
 *     appended, faces are triangles indexing the concatenated vertices,
 *     attributes as value tables with indices = vertex_indices; a primitive
 *     lacking an attribute others have gets zeros, colours white).
 *     mesh->materials has one slot per primitive in file order (skipped ones
 *     included); face_material[f] = index of the face's primitive. Primitives
 *     without material use one material named "default" (glTF defaults),
 *     appended after the file's materials. TANGENT becomes uv_sets[0].tangent
 *     and .bitangent = cross(normal, tangent.xyz) * tangent.w.
 *     One rk_skin_deformer per (glTF skin, glTF mesh) pair used by nodes, sorted by skin
 *     then mesh, plus one rk_skin_deformer without vertices for each glTF skin no node
 *     uses; node->skin is its pair's rk_skin_deformer and mesh->skins lists the
 *     rk_skins deforming the mesh. glTF stores no bind pose of the mesh node:
 *     mesh_to_world_bind is the static node_to_world of the first node using
 *     the pair (identity for unused skins) and joint_to_world_bind =
 *     mesh_to_world_bind * inverse(inverseBindMatrix).
 *     Texture refs: uv_set = "TEXCOORD_<texCoord>", matching uv_sets names.
 *     Settings: right-handed Y-up, 1 unit = 1 metre, frame_rate 0, creator =
 *     asset.generator, ascii = true for JSON, false for GLB.
 *
 *   RESTRICTIONS
 *     - glTF 1.0 and GLB version 1 are RK_ERROR_UNSUPPORTED.
 *     - External URIs need a file name: loaded from memory without
 *       rk_load_opts.filename, a buffer with an external URI is RK_ERROR_IO
 *       (images just get no resolved_path). URI schemes other than data: and
 *       absolute paths are RK_ERROR_UNSUPPORTED; relative paths may use "..".
 *     - Cameras and lights carry no data in rk_scene (only the node kind);
 *       occlusion textures, normal/occlusion scale, texture filters,
 *       KHR_animation_pointer and morph target TANGENT deltas are ignored.
 *     - Influences: at most 8 JOINTS_n/WEIGHTS_n sets per primitive.
 *
 *   LENIENCY (warnings, not errors)
 *     byteStride on bufferViews of non-vertex data (Soldier.glb has it on its
 *     inverse bind matrices and animation data) is honoured; trailing bytes
 *     after the GLB; repeated animation times; decreasing animation times
 *     (the sampler's channels are skipped); integer WEIGHTS/rotations not marked
 *     normalized; out-of-range joint indices whose weight is 0.
 *
 *   SAFETY, LIMITS AND MEMORY
 *     Every index, offset and count is checked: GLB chunks within the header
 *     length and the input, buffers within their data, bufferViews within
 *     their buffer, accessor offset + stride * (count - 1) + element size
 *     within the bufferView, sparse indices below the count, vertex indices
 *     below the primitive's vertex count, joint indices below the joint count,
 *     nodes a forest (one parent each, no cycles). Size arithmetic is
 *     overflow-checked. The JSON text is parsed by gltf_json_parse.c (strict
 *     RFC 8259, UTF-8 checked, no recursion) into the temporary arena: its
 *     nesting is limited by max_depth and its number of values by
 *     max_elements, and its memory counts against memory_limit like every
 *     other allocation. Node nesting is limited by max_depth, counts by
 *     max_elements, morph work (targets x vertices) and influence work
 *     (vertices x influences) by max_elements.
 *     FLOAT accessors holding a NaN or infinity are RK_ERROR_CORRUPT at
 *     /accessors/N (WEIGHTS_n: such weights are dropped with a warning).
 *     Every loaded scene, whatever the format, passes a last check that its
 *     static data and keys are finite (else RK_ERROR_CORRUPT naming the
 *     file and element). docs/limits.md lists every cost bound.
 *     Errors carry the file name, a JSON pointer (RK_LOCATION_JSON) to the
 *     offending value, and a byte offset for GLB container and JSON syntax
 *     errors. JSON pointers are formatted only when an error or warning is
 *     reported.
 *     Numbers are converted with strtod and the C library locale's decimal
 *     point, read once per load (see gltf_json_parse.c). Nothing is global:
 *     loads on different threads are independent.
 *     The scene's bulk is asked for as one arena chunk sized from the
 *     accessors (see "scene memory" below): at most 4 x the input size + 1 MiB
 *     and half of what memory_limit leaves; its unused tail is never touched
 *     and not counted in scene->memory_used.
 *     Skin weights of a (skin, mesh) pair are allocated for every influence
 *     being non-zero (vertices x 4 per JOINTS/WEIGHTS set); only the used
 *     prefix is written.
 */
#ifndef RIGKIT_LOAD_H
#define RIGKIT_LOAD_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads a file; the format is detected from its bytes. Returns NULL on
 * failure with err filled (file name, location, what was expected).
 * opts may be NULL. The caller frees the result with rk_scene_free(). */
rk_scene *rk_load_file(const char *path, const rk_load_opts *opts, rk_error *err);

/* As rk_load_file, from memory. `data` is not retained. */
rk_scene *rk_load_memory(const void *data, size_t size, const rk_load_opts *opts, rk_error *err);

/* Format of a buffer by content (magic bytes / syntax), RK_FORMAT_UNKNOWN if none. */
rk_file_format rk_format_detect(const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
