/*
 * rigkit/export.h - writers: glTF 2.0 (GLB, or .gltf JSON with an embedded
 * buffer), Wavefront OBJ of evaluated meshes and BVH motion capture of a
 * skeleton and one clip, and FBX 7.4 / 7.5 (binary or ASCII) of the whole
 * scene. Writers consume exactly the rk_scene the readers produce, whatever
 * format it came from.
 *
 * OVERVIEW
 *   rk_gltf_write() turns any loaded rk_scene (FBX or glTF) into one glTF 2.0
 *   asset that the Khronos glTF-Validator accepts without errors:
 *
 *     rk_scene *s = rk_load_file("ybot.fbx", NULL, &err);
 *     rk_gltf_write_opts o = { 0 };               // zero = every default
 *     if (!rk_gltf_write(s, "ybot.glb", &o, &err)) ...;
 *     rk_scene_free(s);
 *
 *   The whole file is built in memory first, then written with
 *   rk_file_write_atomic(): on failure the destination is untouched and no
 *   temporary file is left behind. rk_gltf_write_memory() returns the bytes
 *   instead (free them with rk_gltf_memory_free()).
 *
 * UNITS AND AXES
 *   glTF is metres, +Y up, +Z front, right-handed. Unless keep_space is set,
 *   the writer converts: with
 *     C = scaling(settings.unit_meters) * rk_axes_conversion(settings.axes,
 *         RK_AXES_RIGHT_HANDED_Y_UP)
 *   (unknown axes count as right-handed Y-up, unit_meters <= 0 as 1), the
 *   synthetic root's transform becomes R = C * root->node_to_parent. R holds
 *   both the writer's conversion and any conversion rk_load_opts asked for
 *   (which lives in root->node_to_parent), so loading with target_axes =
 *   right-handed Y-up and target_unit_meters = 1 gives C = identity and the
 *   same output. When R is the identity, the root's children become the glTF
 *   scene's root nodes; otherwise R is written as one extra root node named
 *   root_name ("RootNode" by default) whose children are the root's
 *   children. Every glTF world matrix is then C * node_to_world. A mirroring
 *   conversion (left-handed input) gives that node a negative scale, which
 *   glTF allows (renderers flip the winding by the determinant).
 *
 * NODES
 *   Every node except the synthetic root is written, in scene order, with
 *   the same names. Local transforms are written as TRS:
 *     - glTF nodes: rk_node.local as stored (exact);
 *     - FBX nodes with RK_INHERIT_NORMAL: decompose(node_to_parent);
 *     - other inherit modes: decompose(inverse(parent node_to_world) *
 *       node_to_world), which reproduces the static world matrix under
 *       glTF's plain parent * child rule.
 *   glTF forbids node matrices that are not TRS (node.matrix "MUST be
 *   decomposable"), so a transform that shears (a rotated child under a
 *   non-uniformly scaled parent with FBX's special inherit modes) cannot be
 *   expressed: the nearest TRS is written and a warning is reported.
 *   Unnamed nodes stay unnamed. Node extras are written back.
 *
 * CAMERAS AND LIGHTS
 *   Every scene camera becomes a glTF camera and every scene light a
 *   KHR_lights_punctual light (listed in extensionsUsed), with their names,
 *   extras and parameters (scene.h LIGHTS AND CAMERAS; lengths as stored).
 *   A node carries its camera / light itself when the attribute's to_node
 *   is the identity (glTF input); otherwise one extra child node with
 *   rotation to_node, written after the scene's nodes, carries it (FBX
 *   cameras and lights point along other axes). Area lights become point
 *   lights; values glTF does not allow (znear 0, spot angles out of range,
 *   colours above 1) are made valid; each with a warning.
 *
 * MESHES
 *   Each node with a mesh gets a glTF mesh; nodes that share the rk_mesh,
 *   the geometric transform, the material slots, the UV set choice and the
 *   skin share it. Polygons are triangulated by ear clipping in the
 *   polygon's best-fit (Newell) plane, so concave polygons triangulate
 *   correctly; faces with fewer than 3 corners are dropped (warned). One
 *   primitive per used material slot (rk_node_material_slots(): node slots,
 *   else mesh slots), plus one without material for faces whose slot is out
 *   of range (rk_node_face_slot() == RK_NO_SLOT; warned when the node has
 *   slots). Vertex streams (float unless stated):
 *     POSITION    geometry_to_node * position (the FBX geometric transform
 *                 is baked), with min/max
 *     NORMAL      stored normals through the inverse-transpose of
 *                 geometry_to_node, normalised; when the mesh has none, or a
 *                 stored normal is zero or not finite, rk_mesh_smooth_normals()
 *                 of the mesh-space positions (the generator mesh expansion
 *                 uses: corner angle x polygon area) carried the same way;
 *                 (0, 0, 1) for a vertex no face with area reaches
 *     TANGENT     when the TEXCOORD_0 set has tangents and bitangents and
 *                 the stored normals are all usable: the tangent through
 *                 geometry_to_node, made orthogonal to the normal and unit;
 *                 w = +1 or -1, the handedness of (normal, tangent,
 *                 bitangent), negated when V is flipped
 *     TEXCOORD_n  UV sets. glTF input: TEXCOORD_0 = rk_node_texture_uv_set()
 *                 without a texture (set 0 unless default_uv_set names
 *                 another) and textures keep their texCoord. Other input
 *                 (every texture written with texCoord 0): TEXCOORD_0 = the
 *                 set rk_node_material_uv_set() gives the first slot with a
 *                 base colour texture (the texture's UVSet, else the node's
 *                 currentUVSet, else the first set), a slot asking for
 *                 another set is warned about; without textured slots as
 *                 for glTF input. The others follow in scene order. FBX/OBJ scenes store V with
 *                 the origin bottom-left: written as 1 - v (glTF: top-left)
 *     JOINTS_0    unsigned short, WEIGHTS_0 float: per vertex the 4 largest
 *                 influences whose joint has a node, renormalised to sum 1
 *                 (see SKINS for vertices with none)
 *   Corners are deduplicated per primitive by exact equality of all their
 *   attributes (plus the source vertex when the mesh has morph targets);
 *   indices are unsigned short when the primitive has at most 65535
 *   vertices, else unsigned int. Triangles whose corners collapse onto the
 *   same vertex are dropped. When geometry_to_node mirrors (negative
 *   determinant) the triangle winding is reversed so faces keep facing out.
 *   Vertex colours (the first set, clamped to [0, 1]) are written as COLOR_0
 *   only for glTF input (FBX files often carry colour layers that do not
 *   mean to tint; set fbx_vertex_colors to write them).
 *
 * MORPH TARGETS
 *   One target per blend channel: POSITION deltas (geometric transform
 *   applied as a vector, min/max written) and NORMAL deltas when every
 *   channel has normal offsets, or when the writer computed the normals
 *   itself (then the delta is normal(morphed) - normal(base)). Channels with
 *   FBX in-between shapes keep only the target that is fully on at weight 1
 *   (warned). mesh.weights = each channel's default_weight, node.weights =
 *   the node's static blend weights when they differ; mesh.extras.targetNames
 *   lists the channel names (three.js convention).
 *
 * SKINS
 *   glTF places a skinned vertex at  sum_i w_i * jointWorld_i * IBM_i * v
 *   and ignores the skinned mesh node's own transform. rigkit's formula
 *   (scene.h) is  sum_i w_i * joint_i.node_to_world * mesh_to_joint_i *
 *   geometry_to_node * p. With jointWorld_i = C * joint_i.node_to_world (the
 *   hierarchy is reproduced under R) and the baked vertex v = geometry_to_node
 *   * p, both agree, up to C, for
 *     IBM_i = mesh_to_joint_i
 *   so the inverse bind matrices are written unchanged and the skinned mesh
 *   node stays where it is in the hierarchy (its transform is ignored by
 *   glTF, as by rigkit). A vertex without any usable influence is placed by
 *   rigkit at geometry_to_world * p; the writer reproduces that by adding
 *   the mesh node itself as an extra joint with IBM = identity
 *   (C * node_to_world * I * geometry_to_node * p), and writes the root node
 *   when needed so that all joints share a common root. Joints whose node
 *   is missing are left out and their weights dropped, as the anim module
 *   does. Skinning methods other than linear are written as linear
 *   (warned). A skinned mesh instanced by several nodes is written for each
 *   instance with the same skin, so every instance is drawn where the skin
 *   places it: rigkit's extra instance transform (anim.h, "Instancing") has
 *   no glTF equivalent (warned).
 *
 * MATERIALS AND TEXTURES
 *   pbrMetallicRoughness base colour factor/texture, metallic/roughness
 *   factors/texture, normal texture, emissive factor/texture (factors
 *   clamped to [0, 1]), alphaMode/alphaCutoff, doubleSided,
 *   KHR_materials_unlit, normal texture scale, occlusion texture with its
 *   strength, material extras; glTF input also keeps KHR_texture_transform
 *   and the kept KHR material extensions (scene->extensions; their texture
 *   references renumbered, the textures they use written).
 *   Images are embedded as bufferViews (separate_files: written as files
 *   beside the .gltf, see SEPARATE FILES): the texture's content when it is
 *   PNG or JPEG (by magic bytes), else the file at resolved_path when that is
 *   PNG or JPEG; other textures are skipped (warned) and materials drop the
 *   reference. Identical image bytes are stored once. One sampler per
 *   distinct wrap mode pair and filters (magFilter / minFilter as read).
 *   The loaded scene's name is written as the glTF scene's. A primitive whose material samples textures but
 *   that has no UVs gets zero TEXCOORD_0 (warned).
 *
 * ANIMATION
 *   Every rk_anim_clip becomes one glTF animation with the clip's name.
 *   Times are the file's own: a key at file time t is written at t, so a
 *   clip whose first key is at 0.033 s (Blender's frame 1) still starts at
 *   0.033 s and the pose at every t is unchanged (docs/gltf.md, Timelines).
 *   With opts.rebase_time they are written as  t - clip.time_begin  (each
 *   clip starts at 0). A clip with time_begin < 0 is always moved that way
 *   (glTF times cannot be negative; warned). Keys before time_begin are
 *   cut, with an interpolated key at time_begin for STEP/LINEAR. Per node
 *   and path:
 *     - glTF sampler tracks (TRANSLATION, ROTATION_QUAT, SCALE,
 *       MORPH_WEIGHTS) on nodes without rigkit adjust transforms are copied
 *       key for key (STEP/LINEAR/CUBICSPLINE kept, rotations normalised);
 *     - everything else (FBX curve tracks, layers, Euler rotations, pivots,
 *       pre/post rotations, inherit modes, DeformPercent) is baked: the
 *       anim module's rk_pose_eval_job evaluates the whole clip at
 *       bake_fps over [time_begin, time_end] (the end time is always
 *       sampled), the node's glTF local TRS is taken from the pose exactly as
 *       for static nodes (see NODES), rotations are kept in one hemisphere,
 *       and LINEAR keys are reduced: a key is dropped when linear
 *       interpolation (slerp for rotations) between the neighbours that are
 *       kept reproduces every dropped sample within translation_tolerance *
 *       the channel's largest absolute component (at least 1 for weights)
 *       for translation, scale and weights, or rotation_tolerance radians
 *       for rotations. The first and last keys are always kept, so every
 *       channel spans the whole clip.
 *   Nodes that get channels are those a track of the clip targets, plus
 *   the descendants of those whose glTF local depends on the parent's world
 *   (non-normal inherit modes); a baked FBX node gets translation, rotation
 *   and scale channels, except those that stay at the node's static value
 *   over the whole clip (glTF players keep the node's value; a clip that
 *   only holds the static pose keeps one constant channel). Animated
 *   geometric transforms cannot be expressed and are ignored (warned).
 *   Duplicate tracks for the same node and path keep the first (warned). A
 *   clip that ends up without channels is not written (glTF animations need
 *   one; warned), so glTF animation indices may skip such clips: match them
 *   by name.
 *
 * SEPARATE FILES
 *   With separate_files and .gltf output (rk_gltf_write with a .gltf path or
 *   container JSON), the binary buffer goes to <stem>.bin and each distinct
 *   image to <stem>_<n>.png / .jpg (n = glTF image index) in the folder of
 *   the .gltf, <stem> being its file name without ".gltf"; the document
 *   refers to them by relative, percent-encoded URIs. Each file is written
 *   atomically (rk_file_write), the side files first and the .gltf last,
 *   so a reader never sees a .gltf whose files are missing. A failure
 *   leaves the .gltf untouched; side files already replaced stay replaced.
 *   Asset extras are written back.
 * COMPRESSION (opts.compress = RK_GLTF_COMPRESS_MESHOPT; docs/gltf.md)
 *   The same asset, with its vertex, index and animation data encoded by
 *   meshoptimizer (EXT_meshopt_compression, "extensionsRequired"): buffer 0
 *   (GLB: the BIN chunk) holds the encoded bytes and the images; buffer 1
 *   is the fallback buffer the spec describes (no data, extension
 *   {"fallback": true}, byteLength = what the decoded views take); every
 *   encoded bufferView lives in buffer 1 and carries
 *   EXT_meshopt_compression {buffer 0, byteOffset, byteLength, byteStride,
 *   count, mode ATTRIBUTES / TRIANGLES}. Quantisation (KHR_mesh_quantization,
 *   also required):
 *     POSITION    of skinned primitives: int16 normalised (stride 8) in a
 *                 cube D = translation(centre) * scale(h), h = half the
 *                 largest extent of all skinned positions of the file; D is
 *                 folded into every inverse bind matrix (IBM' = IBM * D), so
 *                 the skinned result is unchanged up to the rounding
 *                 (h / 32767 / 2 per coordinate). Their morph target
 *                 POSITION deltas: int16 normalised in the same units when
 *                 every delta fits (|delta| <= h), else as below.
 *                 POSITION of meshes that are not skinned and the other
 *                 morph POSITION / NORMAL deltas stay float accessors
 *                 through meshopt's EXPONENTIAL filter (a shared exponent
 *                 per vertex, 18-bit mantissa for positions, 16 for
 *                 deltas: relative error about 2^-17 / 2^-15 of the
 *                 vertex's largest component; min/max are those of the
 *                 decoded values): a dequantisation transform on their
 *                 nodes would also move their children and animation.
 *     NORMAL      int8 normalised (stride 4), renormalised by the reader;
 *                 TANGENT int8 normalised (w stays +-1)
 *     TEXCOORD_n  uint16 normalised when every u, v is in [0, 1], else float
 *     WEIGHTS_0   uint16 normalised, rounded so each vertex's weights sum
 *                 to 65535 exactly (8 bits would move a vertex by up to
 *                 1/510 of its bone's reach); JOINTS_0 uint8 when every
 *                 index is below 256; COLOR_0 uint16 normalised; morph
 *                 NORMAL deltas unchanged
 *     indices     vertex-cache optimised triangle order
 *                 (meshopt_optimizeVertexCache), meshopt index codec
 *   Animation keeps its precision: times and outputs are float and encoded
 *   losslessly, unless compress_animation (rotations as int16 normalised,
 *   the quaternion rounded per component). Inverse bind matrices: float,
 *   lossless. Images: unchanged. The fallback buffer has no data, so a
 *   reader needs a meshopt decoder (three.js MeshoptDecoder, gltfpack,
 *   rigkit).
 *
 * THREAD SAFETY
 *   The scene is only read: any number of threads may write the same const
 *   scene concurrently. No global state; warnings go to the callback.
 */
#ifndef RIGKIT_EXPORT_H
#define RIGKIT_EXPORT_H

#include "rigkit/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compression of the binary data (see COMPRESSION below). */
typedef enum rk_gltf_compression {
	RK_GLTF_COMPRESS_NONE = 0,   /* default: plain float / integer accessors */
	RK_GLTF_COMPRESS_MESHOPT     /* EXT_meshopt_compression + KHR_mesh_quantization */
} rk_gltf_compression;

typedef enum rk_gltf_container {
	RK_GLTF_CONTAINER_AUTO = 0,  /* default: files ending in ".gltf" (any case) -> JSON, else GLB; memory -> GLB */
	RK_GLTF_CONTAINER_GLB,       /* binary glTF: JSON chunk + BIN chunk */
	RK_GLTF_CONTAINER_JSON       /* .gltf text; the buffer is an embedded base64 data: URI */
} rk_gltf_container;

/* Counts describing what was written (optional output, see opts.stats). */
typedef struct rk_gltf_write_stats {
	size_t node_count;           /* glTF nodes, the extra root included */
	size_t mesh_count;           /* glTF meshes */
	size_t primitive_count;
	size_t triangle_count;
	size_t vertex_count;         /* sum over primitives, after deduplication */
	size_t skin_count;
	size_t material_count;
	size_t image_count;
	size_t animation_count;
	size_t channel_count;        /* animation channels over all animations */
	size_t baked_channel_count;  /* of those, baked from the pose evaluation */
	size_t warning_count;        /* distinct warnings */
	bool wrote_root_node;        /* the conversion R was written as a node */
	size_t json_size;            /* bytes of JSON (GLB: chunk payload without padding) */
	size_t bin_size;             /* bytes of binary buffer (before base64 for JSON) */
	size_t file_count;           /* files written with separate_files (.gltf, .bin, images), else 0 */
	/* compression (opts.compress; all 0 without it) */
	size_t compressed_view_count;  /* bufferViews stored EXT_meshopt_compression encoded */
	size_t quantized_accessor_count; /* accessors written as normalised integers (KHR_mesh_quantization) */
	size_t fallback_size;        /* bytes the decoded views take (the fallback buffer's byteLength) */
} rk_gltf_write_stats;

/* Write options. Zero-initialise; every zero field means its default. */
typedef struct rk_gltf_write_opts {
	rk_gltf_container container;  /* default AUTO (see rk_gltf_container) */
	bool keep_space;              /* default false: convert to glTF space (see UNITS AND AXES);
	                                 true: write coordinates as the scene has them (R = root->node_to_parent) */
	const char *root_name;        /* name of the extra root node; NULL = "RootNode" */
	const char *generator;        /* asset.generator; NULL = "rigkit <version>" */

	/* Animation */
	bool no_animation;            /* default false: write every clip */
	bool rebase_time;             /* default false: key times as in the scene (file time); true: each
	                                 clip moved to start at 0 (time - clip.time_begin) */
	double bake_fps;              /* samples per second when baking; 0 = settings.frame_rate, 30 when that is 0 */
	bool no_key_reduction;        /* default false: drop redundant baked keys */
	double translation_tolerance; /* relative, for translation/scale/weights; 0 = 1e-5 */
	double rotation_tolerance;    /* radians; 0 = 1e-5 */
	bool bake_all;                /* default false; true: bake glTF sampler tracks too */
	size_t max_frames;            /* most baked samples per clip; 0 = RK_DEFAULT_MAX_FRAMES (base.h);
	                                 a clip needing more is RK_ERROR_LIMIT naming the file and clip */

	/* Content */
	bool no_textures;             /* default false; true: no images/textures/samplers, materials keep factors */
	bool no_external_images;      /* default false; true: never read resolved_path files */
	bool fbx_vertex_colors;       /* default false: COLOR_0 only for glTF input */
	bool no_extensions;           /* default false: write the scene's kept extensions
	                                 (scene->extensions: VRM 1.0 / 0.x, VRM Animation, KHR
	                                 material extensions) with their references renumbered
	                                 (docs/vrm.md, docs/gltf.md); true: leave them out */

	/* Compression (see COMPRESSION) */
	rk_gltf_compression compress; /* default NONE */
	bool compress_animation;      /* default false: animation data compressed losslessly only;
	                                 true: rotation outputs quantised to normalised int16 too */

	/* Output file */
	bool separate_files;          /* default false: one self-contained file; true (.gltf output to a
	                                 file only, else RK_ERROR_INVALID_ARGUMENT): .bin and images as
	                                 files beside it (see SEPARATE FILES) */
	bool force;                   /* default false: a symbolic link or special file at the output
	                                 path is refused (rk_file_write_opts.force); true: replaced */

	/* Memory for the output and temporaries (the scene's own memory is separate). */
	rk_allocator allocator;       /* zero = malloc/free */
	size_t memory_limit;          /* bytes; 0 = 4 GiB (1.5 GiB with 32-bit size_t) */

	/* Reporting */
	rk_warning_fn *warning;       /* NULL = warnings are only counted (stats.warning_count);
	                                 see rk_warning_fn (scene.h): message only, byte_offset
	                                 UINT64_MAX, path "" */
	void *warning_user;
	rk_gltf_write_stats *stats;   /* NULL = not reported; filled on success */
} rk_gltf_write_opts;

/* Writes `scene` to `path` (GLB or .gltf per opts->container) atomically
 * (rk_file_write_atomic). opts may be NULL (defaults). Returns false with err
 * set on failure: RK_ERROR_INVALID_ARGUMENT (NULL scene/path, scene without
 * nodes), RK_ERROR_LIMIT / RK_ERROR_OUT_OF_MEMORY (memory_limit, allocator),
 * RK_ERROR_UNSUPPORTED (more than 4 GiB of binary data for GLB, more than
 * 65535 joints in a skin), RK_ERROR_OUTPUT (the file could not be written;
 * the destination is then untouched and nothing is left behind). */
bool rk_gltf_write(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, rk_error *err);

/* As rk_gltf_write, always GLB whatever opts->container says. */
bool rk_glb_write(const rk_scene *scene, const char *path, const rk_gltf_write_opts *opts, rk_error *err);

/* Builds the asset in memory (AUTO = GLB). On success *out_data holds
 * *out_size bytes owned by the caller: release them with
 * rk_gltf_memory_free() (it remembers the allocator). On failure *out_data =
 * NULL, *out_size = 0 and err is set (codes as above, without OUTPUT). */
bool rk_gltf_write_memory(const rk_scene *scene, const rk_gltf_write_opts *opts,
	void **out_data, size_t *out_size, rk_error *err);

/* Frees bytes returned by rk_gltf_write_memory(). NULL is fine. */
void rk_gltf_memory_free(void *data);

/* ---------------------------------------------------------------------------
 * OBJ WRITER
 *
 *   For every node that carries a mesh, in node order:
 *     o <node name>
 *     g <node name> <parent name> ... <outermost ancestor below the root>
 *     world-space evaluated v (skinning and blend shapes applied), vt (the
 *     node's default_uv_set, else the first UV set), vn (when the mesh has
 *     normals), and one 'f p/t/n ...' per polygon with corners in file order
 *     (not triangulated; a mirroring load conversion reverses the winding,
 *     keeping the first corner).
 *   Numbers are printed with %.9g; whitespace and control bytes in names
 *   are written as FBXASC + 3-digit byte (as Maya and 3ds Max do). The first
 *   line is "# rigkit <version>". Materials are not written.
 * ------------------------------------------------------------------------- */

typedef struct rk_obj_write_opts {
	const rk_pose *pose;             /* evaluated pose of the scene; NULL = the static scene */
	bool force;                      /* default false: a symbolic link or special file at the
	                                    output path is refused (rk_file_write_opts.force) */
} rk_obj_write_opts;

/* Builds the OBJ text in memory: *out_text (NUL-terminated, *out_size bytes
 * without the NUL; free with rk_obj_memory_free()). opts may be NULL.
 * False with err on bad arguments, a pose job error or out of memory. */
bool rk_obj_write_memory(const rk_scene *scene, const rk_obj_write_opts *opts, char **out_text, size_t *out_size,
	rk_error *err);
void rk_obj_memory_free(char *text);

/* As rk_obj_write_memory, then written atomically to `path`
 * (rk_file_write_atomic: on failure the destination is untouched). */
bool rk_obj_write(const rk_scene *scene, const char *path, const rk_obj_write_opts *opts, rk_error *err);

/* ---------------------------------------------------------------------------
 * BVH WRITER (docs/bvh.md)
 *
 *   One skeleton and one clip as Biovision Hierarchy text, the format mocap
 *   tools exchange (three.js BVHLoader and Blender read it back).
 *
 *   SKELETON: the nodes of kind RK_NODE_JOINT (skin joints, FBX LimbNodes,
 *     BVH joints; in a scene without any, the RK_NODE_NULL transform nodes),
 *     each under its nearest joint ancestor; with opts.root,
 *     that node and the joints below it. Without opts.root the ROOT is the
 *     top joint with the most joints below it (others are left out, warned).
 *     Nodes between joints are not written: their transforms are in the
 *     world matrices the writer starts from. Names: whitespace, control
 *     bytes and braces become '_', an empty name "joint<index>".
 *   SPACE: BVH units of opts.unit_meters metres (default centimetres), right-
 *     handed, +Y up, +Z front: C = scaling(settings.unit_meters / unit) *
 *     rk_axes_conversion(settings.axes, RK_AXES_RIGHT_HANDED_Y_UP) (unknown
 *     axes count as Y-up, unit_meters <= 0 as 1) applied to every world
 *     matrix, as the glTF writer does.
 *   REST AND ROTATIONS: the BVH rest pose (every rotation zero) is the
 *     scene's static pose: OFFSET = the joint's static world position minus
 *     its parent's (world axes; the ROOT's OFFSET is 0 and its position
 *     channels hold its world position). At frame f a joint's BVH world
 *     rotation is W = A * (Q(f) * inverse(Q(rest))) * A^T, Q = the joint's
 *     world rotation (node_to_world without scale), A = the rotation part of
 *     C; its channels are inverse(W_parent) * W as Euler angles, kept
 *     continuous from frame to frame (the equivalent angle triple and the
 *     multiple of 360 degrees closest to the previous frame's). So every
 *     joint's world position is reproduced exactly (up to the printed
 *     digits), whatever the source's joint orientations, scales or inherit
 *     modes.
 *   CHANNELS: ROOT "Xposition Yposition Zposition" + 3 rotations; other
 *     joints 3 rotations, plus the 3 positions in front when their local
 *     translation inverse(W_parent) * (P - P_parent) moves away from the
 *     OFFSET by more than 5e-7 of the skeleton's size during the clip (values
 *     = translation - OFFSET, the three.js / rigkit reading). Rotation order:
 *     opts.rotation_order, else a BVH source's own order per joint (scenes
 *     read from BVH), else ZXY ("Zrotation Xrotation Yrotation").
 *   END SITES: a leaf joint whose attribute_type is "End Site" (BVH input)
 *     or whose name ends in "_End" / "_end" (Mixamo's HeadTop_End) and whose
 *     translation does not move becomes an End Site with its OFFSET (its
 *     name is lost: BVH End Sites have none); any other leaf joint is a
 *     JOINT followed by a zero End Site.
 *   FRAMES: fps = opts.fps, else settings.frame_rate, else 30; frames at
 *     time_begin + f / fps for f = 0 .. round((time_end - time_begin) * fps),
 *     evaluated with rk_pose_eval_job (anim.h). Without a clip (none given,
 *     none in the scene) one frame of the static pose. Numbers are printed
 *     with 6 decimals (%.17g from 1e15 on), "Frame Time" with 9 significant
 *     digits; a value that is not finite fails the write. Lines end in LF,
 *     indentation is tabs.
 *   The text is built in memory and written with rk_file_write_atomic().
 *   Thread safety: the scene is only read.
 * ------------------------------------------------------------------------- */

typedef struct rk_bvh_write_stats {
	size_t joint_count;              /* ROOT and JOINT entries */
	size_t end_site_count;
	size_t frame_count;
	size_t channel_count;            /* values per frame */
	size_t translated_joint_count;   /* non-root joints written with 6 channels */
	double frame_time;               /* seconds */
	size_t warning_count;
} rk_bvh_write_stats;

typedef struct rk_bvh_write_opts {
	const rk_anim_clip *clip;        /* NULL = the scene's first clip with tracks, else its first, else none */
	double fps;                      /* frames per second; 0 = settings.frame_rate, 30 when that is 0 */
	double unit_meters;              /* metres per BVH unit; 0 = 0.01 (centimetres) */
	const char *rotation_order;      /* rotation channels for every joint, e.g. "ZXY" (Zrotation Xrotation
	                                    Yrotation); NULL = see CHANNELS above */
	const rk_node *root;             /* the ROOT; NULL = see SKELETON */
	rk_warning_fn *warning;          /* NULL = warnings only counted (stats) */
	void *warning_user;
	rk_bvh_write_stats *stats;       /* NULL = not reported; filled on success */
	bool force;                      /* default false: a symbolic link or special file at the
	                                    output path is refused (rk_file_write_opts.force) */
} rk_bvh_write_opts;

/* Builds the BVH text: *out_text (NUL-terminated, *out_size bytes without
 * the NUL; free with rk_bvh_memory_free()). opts may be NULL. False with err
 * on bad arguments (NULL scene, a root not in the scene, a rotation order
 * that is not three distinct letters of XYZ, no joint or transform node:
 * RK_ERROR_INVALID_ARGUMENT), a joint transform that is not finite
 * (RK_ERROR_INVALID_ARGUMENT), a pose evaluation error or out of memory. */
bool rk_bvh_write_memory(const rk_scene *scene, const rk_bvh_write_opts *opts, char **out_text, size_t *out_size,
	rk_error *err);
void rk_bvh_memory_free(char *text);

/* As rk_bvh_write_memory, then written atomically to `path`
 * (rk_file_write_atomic: on failure the destination is untouched). */
bool rk_bvh_write(const rk_scene *scene, const char *path, const rk_bvh_write_opts *opts, rk_error *err);

/* ---------------------------------------------------------------------------
 * FBX WRITER (docs/fbx.md, "## Writer")
 *
 *   The whole scene as one FBX file that the Autodesk FBX SDK (Unity,
 *   Unreal, Maya, FBX2glTF), Blender, Assimp and rigkit itself read:
 *   binary FBX 7400 by default (7500, with 64-bit record offsets, on request
 *   or when the file would pass 4 GiB), arrays larger than 128 bytes zlib
 *   compressed with libdeflate, or ASCII FBX 7.4 (opts.ascii, for reading
 *   by eye). Sections: FBXHeaderExtension, FileId/CreationTime/Creator,
 *   GlobalSettings, Documents, References, Definitions, Objects,
 *   Connections, Takes.
 *
 *   SPACE: the file's GlobalSettings state settings.axes and unit_meters
 *     (UnitScaleFactor = centimetres per unit; unknown axes are written as
 *     right-handed Y-up, unit_meters <= 0 as 1 cm). Coordinates are the
 *     scene's own; a load conversion held by the synthetic root
 *     (root->node_to_parent not the identity) is written as one extra Null
 *     model "RootNode" above the root's children.
 *   NODES: every node but the synthetic root is a Model, children in scene
 *     order: kind JOINT -> "LimbNode" with a LimbNode NodeAttribute, MESH ->
 *     "Mesh" with its Geometry, others -> "Null" with a Null NodeAttribute
 *     (cameras and lights are written as Nulls, warned). FBX nodes
 *     (has_fbx_props, no rigkit adjust transform) keep every property of
 *     the transform chain as stored (Lcl Translation/Rotation/Scaling,
 *     RotationOrder, RotationActive, offsets, pivots, Pre/PostRotation,
 *     InheritType, Geometric*), so the FBX SDK rebuilds node_to_parent
 *     exactly; other nodes get Lcl T/R/S from rk_node.local (rotation as
 *     Euler XYZ), or decompose(node_to_parent) when an adjust transform is
 *     set (warned: its animation is written without the adjustment).
 *   MESHES: one Geometry per rk_mesh (instancing nodes share it): Vertices,
 *     PolygonVertexIndex (faces without corners are dropped, warned),
 *     normals (ByPolygonVertex, Direct), UV sets and colour sets
 *     (ByPolygonVertex, IndexToDirect, the value tables as stored), the
 *     first UV set's tangents and binormals, material indices (ByPolygon, or AllSame when
 *     the mesh has no face_material), one Layer per set index.
 *   MATERIALS AND TEXTURES: Phong materials (DiffuseColor/Factor, Opacity
 *     and TransparencyFactor, EmissiveColor, SpecularColor, Shininess,
 *     ShininessExponent) connected to the nodes in slot order
 *     (rk_node_material_slots()); base colour, normal and emissive textures
 *     connect to DiffuseColor, NormalMap and EmissiveColor with their UVSet.
 *     A texture with content is embedded (Video Content, binary only);
 *     otherwise, or with opts.no_embed, it is referenced by filename.
 *   SKINS: a Skin deformer per rk_skin_deformer on its mesh's Geometry,
 *     one Cluster per joint (Indexes, Weights, Transform = mesh_to_joint,
 *     TransformLink = joint_to_world_bind), SkinningType (Linear,
 *     DualQuaternion, Blend with BlendWeights, Rigid), and one BindPose
 *     listing every node with a bind matrix (bind_node_to_world, else the
 *     clusters' TransformLink / TransformLink * Transform).
 *   BLEND SHAPES: BlendShape deformer per mesh, a BlendShapeChannel per
 *     channel (DeformPercent = weight * 100, FullWeights = target weights *
 *     100), one Shape geometry per target (Indexes, Vertices offsets,
 *     Normals offsets). A single target's per-offset weights are written as
 *     per-offset FullWeights (Blender's form); several targets with
 *     per-offset weights get them multiplied into the offsets (warned).
 *   ANIMATION: every clip is an AnimationStack (LocalStart/LocalStop =
 *     time_begin/time_end) with its layers (Weight, BlendMode, accumulation
 *     modes), per node and property an AnimationCurveNode and per component
 *     an AnimationCurve (KeyTime in 1/46186158000 s ticks, KeyValueFloat,
 *     KeyAttrFlags/DataFloat/RefCount):
 *       - FBX curves are written key for key with their interpolation,
 *         slopes and weights (cubic keys as user tangents);
 *       - glTF sampler tracks: translation/scale/weights keys as they are
 *         (STEP -> constant, LINEAR -> linear, CUBICSPLINE -> cubic with the
 *         tangents as slopes); weights as DeformPercent (x 100);
 *       - quaternion tracks become Euler curves in the node's written
 *         rotation order: each sample is turned into the Euler triple closest
 *         to the previous one (no 360-degree flips, no jumps between the two
 *         equivalent triples, continuous through gimbal lock), linear keys
 *         at every source key, and segments are halved until linear Euler
 *         interpolation stays within rotation_tolerance of the quaternion
 *         track everywhere (checked at 1/4, 1/2, 3/4 of each segment;
 *         never below 4 ticks). A track passing exactly through gimbal
 *         lock has a true jump of the first and last angles there: it is
 *         confined to a segment of at most 4 ticks (< 1e-10 s; counted in
 *         stats.euler_jump_count).
 *     Constant, repeat and other extrapolation modes are not written (FBX
 *     7.x curves have none; warned when a curve asks for one).
 *   Errors: RK_ERROR_INVALID_ARGUMENT (NULL scene/path, unknown version),
 *   RK_ERROR_UNSUPPORTED (a mesh of more than 2^31 corners, a 7400 file
 *   over 4 GiB when version 7400 was asked for explicitly), RK_ERROR_LIMIT /
 *   OUT_OF_MEMORY, RK_ERROR_OUTPUT. The file is built in memory and written
 *   with rk_file_write (atomic). Thread safety: the scene is only read.
 * ------------------------------------------------------------------------- */

typedef struct rk_fbx_write_stats {
	uint32_t version;                /* 7400 or 7500 */
	size_t model_count;              /* Model objects (the extra RootNode included) */
	size_t geometry_count;           /* mesh geometries */
	size_t shape_count;              /* blend shape geometries */
	size_t skin_count, cluster_count;
	size_t material_count, texture_count, embedded_texture_count;
	size_t stack_count, curve_count, key_count;
	size_t euler_key_count;          /* keys of Euler curves made from quaternion tracks */
	double max_euler_error;          /* radians: largest checked deviation of those curves */
	size_t euler_jump_count;         /* segments of 4 ticks or less (< 1e-10 s) kept over the tolerance:
	                                    a track passing exactly through gimbal lock, where the first and
	                                    last angles jump */
	size_t warning_count;
	size_t size;                     /* bytes of the file */
} rk_fbx_write_stats;

typedef struct rk_fbx_write_opts {
	uint32_t version;                /* 0 = 7400 (7500 when the file would pass 4 GiB); 7400 or 7500 */
	bool ascii;                      /* default false: binary; true: ASCII FBX 7.4 (no embedded textures) */
	bool no_compression;             /* default false: arrays > 128 bytes are zlib compressed */
	int compression_level;           /* libdeflate level 1..12; 0 = 6 */
	bool no_animation;               /* default false: every clip */
	bool no_embed;                   /* default false: embed texture content; true: reference files */
	double rotation_tolerance;       /* radians, quaternion -> Euler conversion (checked at 1/4, 1/2, 3/4
	                                    of every segment); 0 = 4e-6 */
	size_t max_frames;               /* most Euler keys per quaternion track; 0 = RK_DEFAULT_MAX_FRAMES * 4 */
	const char *creator;             /* Creator text; NULL = "rigkit <version>" */
	bool force;                      /* default false: a symbolic link or special file at the output
	                                    path is refused (rk_file_write_opts.force) */
	rk_allocator allocator;          /* zero = malloc/free */
	size_t memory_limit;             /* bytes; 0 = 4 GiB (1.5 GiB with 32-bit size_t) */
	rk_warning_fn *warning;          /* NULL = warnings only counted (stats) */
	void *warning_user;
	rk_fbx_write_stats *stats;       /* NULL = not reported; filled on success */
} rk_fbx_write_opts;

/* Builds the file in memory: *out_data (*out_size bytes; free with
 * rk_fbx_memory_free()). opts may be NULL. */
bool rk_fbx_write_memory(const rk_scene *scene, const rk_fbx_write_opts *opts, void **out_data, size_t *out_size,
	rk_error *err);
void rk_fbx_memory_free(void *data);
/* As rk_fbx_write_memory, then written atomically to `path`. */
bool rk_fbx_write(const rk_scene *scene, const char *path, const rk_fbx_write_opts *opts, rk_error *err);

#ifdef __cplusplus
}
#endif
#endif
