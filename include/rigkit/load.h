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
 * EXTERNAL FILES (docs/security.md)
 *   Readers never open files themselves: every buffer or texture an input
 *   refers to goes through one access policy (src/load/load_files.h). A
 *   reference resolves only inside the input file's folder tree, plus the
 *   folders of rk_load_opts.allow_paths: ".." that leaves it, absolute
 *   paths, URI schemes other than data:, %-escapes that decode to a
 *   separator or spell a "."/".." part, and symbolic links whose target
 *   lies outside are refused with a warning naming the reference, and the
 *   rest of the file loads (a refused glTF buffer reads as zeros, a refused
 *   texture has no resolved_path). Only regular files are opened (FIFOs,
 *   devices, folders never: a buffer naming one is RK_ERROR_IO, a texture a
 *   warning), never more than file_size_limit bytes.
 *   rk_load_opts.open_file serves external files from memory instead.
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
 *     Texture files: RelativeFilename, then FileName, inside the input's
 *     folder tree (EXTERNAL FILES); when neither resolves as written
 *     (absolute, another machine's "B:\\Users\\...\\wood.jpg", or leaving
 *     the folder), their trailing path parts are tried inside the input's
 *     folder, longest first: at most the last 4 parts, the file name last,
 *     parts before the last ".." dropped ("tex/wood.jpg", then "wood.jpg").
 *     No folder is scanned (Blender's importer may search subfolders
 *     recursively; three.js takes the file name relative to its path).
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
 *       rk_load_opts.filename), under the access policy (EXTERNAL FILES).
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
 *       TEXCOORD_0..15, COLOR_0..7, JOINTS_n/WEIGHTS_n (n < 8). FLOAT
 *       positions, normals, UVs, colours, morph deltas and animation outputs
 *       are kept as floats (the _f32 tables of scene.h); quantized
 *       attributes (KHR_mesh_quantization) are decoded to doubles.
 *     - Memory: rk_load_file of a GLB reads the BIN chunk's bufferViews
 *       while they are used (128 KiB windows, freed after each mesh, skin,
 *       animation and image): the peak is the scene, the JSON document and
 *       one item's views, not the file (docs/benchmarks.md, "GLB load peak
 *       memory"). rk_load_memory reads the caller's bytes in place.
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
 *       normal with scale, occlusion with strength, emissive,
 *       alphaMode/alphaCutoff, doubleSided), textures,
 *       samplers (wrap modes, filters), images (bytes or file name, image
 *       name; never decoded), the loaded scene's name (scene->scene_name).
 *       KHR_materials_unlit, KHR_texture_transform and KHR_mesh_quantization are
 *       understood; other entries of extensionsUsed become warnings.
 *     - Compressed input (docs/gltf.md, "Compressed input"):
 *       EXT_meshopt_compression / MESHOPT_compression bufferViews (every mode
 *       and filter; meshoptimizer's decoders), KHR_draco_mesh_compression
 *       primitives (libdraco), EXT_texture_webp (image bytes kept, decoded by
 *       rk_image_decode_memory), KHR_texture_basisu (KTX2 bytes kept, not
 *       decoded: a warning). A required extension rigkit does not read that
 *       only touches lights, materials or textures (KHR_lights_*,
 *       KHR_materials_*, KHR_texture_*, EXT_texture_* ...) is a warning; any
 *       other unknown entry of extensionsRequired is RK_ERROR_UNSUPPORTED.
 *       Corrupt or oversized compressed streams are RK_ERROR_CORRUPT naming
 *       the bufferView or primitive extension (JSON pointer).
 *     - VRM (docs/vrm.md): VRM 1.0 (VRMC_vrm), VRM 0.x (VRM) and VRM Animation
 *       (VRMC_vrm_animation) humanoids become scene->hints (scheme "humanoid",
 *       VRM 1.0 bone names; 0.x thumbs renamed to 1.0's), used by
 *       rk_humanoid_detect. VRMC_vrm, VRMC_springBone, VRMC_vrm_animation, VRM
 *       (top level), VRMC_node_constraint (nodes), VRMC_materials_mtoon and
 *       VRMC_materials_hdr_emissiveMultiplier (materials) are kept in
 *       scene->extensions with their indices resolved, for the glTF writer.
 *     - KHR material extensions (KHR_materials_specular, _ior, _clearcoat,
 *       _sheen, _transmission, _volume, _emissive_strength, _iridescence,
 *       _anisotropy, _dispersion, _diffuse_transmission,
 *       _pbrSpecularGlossiness) are kept in scene->extensions
 *       (RK_EXT_OWNER_MATERIAL) with their texture indices resolved.
 *     - Cameras -> scene->cameras, KHR_lights_punctual lights ->
 *       scene->lights (node->camera, node->light; scene.h LIGHTS AND
 *       CAMERAS). Extras of the asset, the loaded scene, nodes, meshes, materials, cameras and
 *       lights are kept as plain JSON (rk_ext_value trees); extras anywhere
 *       else are named in a warning.
 *       Anything wrong inside them is a warning with its JSON pointer.
 *
 *   MAPPING TO THE NEUTRAL SCENE (scene.h)
 *     nodes.data[0] is the synthetic root (RK_NODE_ROOT, name ""). Every glTF
 *     node becomes one rk_node, depth-first with children in the order of the
 *     "children" arrays; the root's children are the scene's nodes in order,
 *     then the other parentless nodes by index. source_id = glTF node index.
 *     Names: exactly as in the file; an unnamed node, like every other
 *     unnamed element, has name "" (source_id tells them apart); morph
 *     channels without targetNames are "target<k>".
 *     kind: RK_NODE_MESH with a mesh, else RK_NODE_CAMERA with a camera, else
 *     RK_NODE_LIGHT with KHR_lights_punctual (node->camera / node->light
 *     point into scene->cameras / scene->lights either way), else RK_NODE_JOINT when some skin
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
 *       rk_load_opts.filename (and without open_file), a buffer with an
 *       external URI is RK_ERROR_IO (images just get no resolved_path). URI
 *       schemes other than data:, absolute paths and ".." leaving the
 *       input's folder are refused with a warning (EXTERNAL FILES); ".."
 *       that stays inside is fine. A missing buffer file, or one that is a
 *       FIFO, device or folder, is RK_ERROR_IO naming it.
 *     - KHR_animation_pointer and morph target TANGENT
 *       deltas are ignored.
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
 *
 * ---------------------------------------------------------------------------
 * BVH IMPORTER (docs/bvh.md)
 *
 *   FEATURES
 *     - HIERARCHY: one or more ROOT blocks, JOINT and End Site, OFFSET and
 *       CHANNELS in either order, any subset of the six channels in any
 *       order per joint (0 to 6: position channels anywhere, not only on the
 *       root), keywords in any case, names that run to the end of the line
 *       (spaces kept), an optional name after "End Site", braces on their own
 *       line or against a word. Line ends LF, CR LF or CR; tabs; a UTF-8 BOM.
 *     - MOTION: "Frames:" and "Frame Time:" (the colon may stand apart), then
 *       one line of values per frame (blank lines skipped); text after the
 *       last frame is ignored with a warning; a file without MOTION loads
 *       with a warning and no clip.
 *
 *   MAPPING TO THE NEUTRAL SCENE (scene.h)
 *     nodes.data[0] is the synthetic root; every ROOT, JOINT and End Site is
 *     one RK_NODE_JOINT in file (depth-first) order, ROOTs children of the
 *     synthetic root. source_id = 1-based position in the file. End Sites
 *     are leaf joints named by the name after "End Site", else
 *     "<parent>_End" (three.js BVHLoader makes them bones named "ENDSITE";
 *     Blender turns them into the parent bone's tail), attribute_type
 *     "End Site". Each node has_fbx_props: translation = OFFSET, rotation 0
 *     (the BVH rest pose; a ROOT whose OFFSET is 0 on every axis it has a
 *     position channel for rests at its first frame's position instead, as
 *     its channels place it in the world), rotation_active, rotation_order from the
 *     channel order (matrices in listed order, so the last listed axis is
 *     applied first: "Zrotation Xrotation Yrotation" = R = Rz Rx Ry =
 *     RK_ROTATION_YXZ; axes a joint does not list are 0 and appended in X,
 *     Y, Z order).
 *     One clip named after the file (base name without extension; "motion"
 *     from memory without rk_load_opts.filename), one layer, per joint a
 *     "Lcl Translation" track (RK_TARGET_TRANSLATION) when it has position
 *     channels and a "Lcl Rotation" track (RK_TARGET_ROTATION_EULER,
 *     degrees) when it has rotation channels: one LINEAR curve per channel,
 *     a key per frame at f * Frame Time (shared times), rotation values as
 *     stored, translation values OFFSET + channel value (as three.js
 *     BVHLoader reads them), or the channel value alone (as Blender reads
 *     and writes them) per rk_load_opts.bvh_positions: AUTO adds the OFFSET
 *     unless more non-root joints repeat their OFFSET in the first frame
 *     (the absolute style) than hold 0 there (warned when any does);
 *     unlisted axes keep the default (OFFSET, or 0 when absolute; 0 for
 *     rotations). anim.h therefore gives
 *     the file's pose exactly at every frame; between frames each Euler
 *     angle is interpolated linearly (three.js slerps quaternions).
 *     Settings: right-handed, +Y up, +Z front; unit_meters =
 *     rk_load_opts.source_unit_meters, 0.01 (centimetres) by default
 *     (BVH is unitless); frame_rate = 1 / Frame Time; ascii true.
 *
 *   RESTRICTIONS
 *     - Channels other than X/Y/Z position and rotation (scale, custom) are
 *       errors, as are repeated channels in one joint and more than 6.
 *     - A frame must be one line with exactly one value per channel.
 *     - Numbers: decimal, optional sign, fraction and exponent; "nan",
 *       "inf", "1.#IND", hex and decimal commas are errors, as are values
 *       that overflow a double.
 *     - Frame Time must lie in [1e-9, 1e6] seconds (a file of 0 or 1 frame
 *       with another value gets 1/30 s and a warning).
 *
 *   SAFETY, LIMITS AND MEMORY
 *     Errors name the file, the line and byte offset, and what was expected
 *     (truncated input is RK_ERROR_TRUNCATED, malformed RK_ERROR_CORRUPT).
 *     Nesting is limited by max_depth (iteratively parsed, no recursion),
 *     joints and values by max_elements. Before the values are allocated,
 *     Frames x channels is checked against the bytes that remain (each
 *     value needs at least two bytes), so "Frames: 10000000" in a small
 *     file fails with RK_ERROR_TRUNCATED having allocated nothing for it;
 *     a hierarchy without channels keeps no frames at all. Values cost 8
 *     bytes in the scene per at least 2 bytes of input.
 */
#ifndef RIGKIT_LOAD_H
#define RIGKIT_LOAD_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads a file; the format is detected from its bytes. Returns NULL on
 * failure with err filled (file name, location, what was expected).
 * opts may be NULL. The caller frees the result with rk_scene_free().
 * FBX, glTF JSON and BVH files are read whole; a GLB file is read in pieces
 * (its header and JSON chunk, then each bufferView of the BIN chunk while a
 * mesh, skin, animation or image uses it), so the load never holds the
 * file: the same scene, warnings and errors as rk_load_memory of its bytes,
 * plus RK_ERROR_IO at the byte offset of a read that fails (a file cut
 * short while it loads). */
rk_scene *rk_load_file(const char *path, const rk_load_opts *opts, rk_error *err);

/* As rk_load_file, from memory. `data` is not retained. */
rk_scene *rk_load_memory(const void *data, size_t size, const rk_load_opts *opts, rk_error *err);

/* Format of a buffer by content (magic bytes / syntax), RK_FORMAT_UNKNOWN if none. */
rk_file_format rk_format_detect(const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
