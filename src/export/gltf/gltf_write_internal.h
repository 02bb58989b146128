/*
 * src/export/gltf/gltf_write_internal.h - shared state of the glTF writer (not
 * public API; the behaviour is documented in include/rigkit/export.h).
 *
 * FILES AND CALL GRAPH (calls go down only; no file calls one above it)
 *
 *   gltf_write.c          orchestrator: entry points (rk_gltf_write, rk_glb_write,
 *     |                   rk_gltf_write_memory), the run and its passes
 *     |                   (rki_gw_run), space, textures, materials, assembly
 *     |                   (JSON document, GLB / .gltf bytes)
 *     |-- gltf_write_node.c   rki_gw_compute_nodes, rki_gw_write_nodes, and the
 *     |                       local TRS of a node (rki_gw_local_trs)
 *     |-- gltf_write_mesh.c   rki_gw_plan_meshes, rki_gw_write_meshes:
 *     |                       primitives, skins, morph targets
 *     |-- gltf_write_ext.c    kept extensions (scene->extensions, VRM, KHR
 *     |                       materials) with their references renumbered;
 *     |                       extras
 *     |-- gltf_write_attrs.c  cameras and KHR_lights_punctual lights, the
 *     |                       extra nodes that turn FBX attribute axes to
 *     |                       glTF's; separate .bin / image file names
 *     |-- gltf_write_compress.c  rki_gw_compress (opts.compress: quantisation,
 *     |                       meshopt encoding, the fallback buffer)
 *     |-- gltf_write_anim.c   rki_gw_write_animations (copied samplers, baked
 *     |     |                 poses); calls gltf_write_node.c for baked TRS
 *     |     '-- gltf_write_node.c
 *     '-- gltf_write_buffer.c used by all of the above: errors and warnings
 *                             (rki_gw_fail/oom/warn), temporaries
 *                             (rki_gw_tmp_array), JSON sections and writers
 *                             on the run's allocator (rki_gw_section_*,
 *                             rki_gw_json_init/check), the BIN buffer, views
 *                             and accessors (rki_gw_view_add,
 *                             rki_gw_accessor_add)
 *
 *   gltf_write_buffer.c calls none of the others; node, mesh and anim never
 *   call gltf_write.c; mesh and anim do not call each other.
 *
 * JSON
 *   All JSON text is written with rigkit/json.h (rk_json_writer, flags
 *   RKI_GW_JSON_FLAGS: compact, shortest round-trip numbers, NaN / inf as
 *   0, unsigned integers through rk_json_uint). Each section of the
 *   document (nodes, meshes, ...) is its own writer holding one array; the
 *   assembly splices them into the document with rk_json_raw. Every writer
 *   allocates from the run's rki_alloc, so memory_limit and the user
 *   allocator cover the JSON text too.
 *
 * ERRORS
 *   Functions return bool; false means w->err holds the first error. Memory
 *   failures set RK_ERROR_OUT_OF_MEMORY or RK_ERROR_LIMIT via rki_gw_oom().
 */
#ifndef RIGKIT_GLTF_WRITE_INTERNAL_H
#define RIGKIT_GLTF_WRITE_INTERNAL_H

#include "core/internal.h"
#include "rigkit/export.h"
#include "rigkit/json.h"

/* glTF enums */
enum {
	RKI_GW_BYTE = 5120,
	RKI_GW_UNSIGNED_BYTE = 5121,
	RKI_GW_SHORT = 5122,
	RKI_GW_UNSIGNED_SHORT = 5123,
	RKI_GW_UNSIGNED_INT = 5125,
	RKI_GW_FLOAT = 5126,
	RKI_GW_ARRAY_BUFFER = 34962,
	RKI_GW_ELEMENT_ARRAY_BUFFER = 34963
};

/* Flags of every JSON writer of the glTF writer. */
#define RKI_GW_JSON_FLAGS (RK_JSON_SHORTEST | RK_JSON_NONFINITE_ZERO)

typedef struct rki_gw_view {
	size_t offset, length;
	uint32_t target;             /* 0 = none */
	/* compression (gltf_write_compress.c); all 0 otherwise */
	uint32_t stride;             /* byteStride to write; 0 = none */
	bool encoded;                /* offset/length are in the fallback buffer (1); the
	                                EXT_meshopt_compression data is enc_* in buffer 0 */
	uint8_t enc_mode;            /* 0 ATTRIBUTES, 1 TRIANGLES */
	bool enc_filter;             /* filter EXPONENTIAL (no other filter is written) */
	uint32_t enc_stride;         /* EXT_meshopt_compression byteStride */
	size_t enc_offset, enc_length, enc_count;
} rki_gw_view;

/* What an accessor holds (set by the mesh and animation writers with
 * rki_gw_accessor_use; decides how compression quantises it). */
enum {
	RKI_GW_USE_OTHER = 0,
	RKI_GW_USE_POSITION,            /* of a primitive without skin */
	RKI_GW_USE_POSITION_SKINNED,
	RKI_GW_USE_NORMAL,
	RKI_GW_USE_TANGENT,
	RKI_GW_USE_TEXCOORD,
	RKI_GW_USE_COLOR,
	RKI_GW_USE_JOINTS,
	RKI_GW_USE_WEIGHTS,
	RKI_GW_USE_MORPH_POSITION,
	RKI_GW_USE_MORPH_POSITION_SKINNED,
	RKI_GW_USE_MORPH_NORMAL,
	RKI_GW_USE_INDICES,
	RKI_GW_USE_IBM,
	RKI_GW_USE_ANIM_TIME,
	RKI_GW_USE_ANIM_ROTATION,       /* STEP / LINEAR rotation keys */
	RKI_GW_USE_ANIM_OUTPUT
};

typedef struct rki_gw_accessor {
	uint32_t view;
	uint32_t component_type;
	size_t count;
	uint32_t components;         /* 1, 2, 3, 4, 16 */
	bool normalized;
	uint8_t use;                 /* RKI_GW_USE_* */
	bool has_minmax;
	double min[16], max[16];
} rki_gw_accessor;

/* One section of the document: a JSON array filled item by item (its own
 * writer; the array is opened by the first rki_gw_section_json call). */
typedef struct rki_gw_section {
	rk_json_writer json;
	size_t count;                /* items written; the caller counts them */
	bool open;                   /* the array has been begun */
} rki_gw_section;

typedef struct rki_gw_warning {
	struct rki_gw_warning *next;
	size_t count;
	char message[RK_ERROR_TEXT_MAX];
} rki_gw_warning;

/* Key of a glTF mesh: nodes with equal keys share it. */
typedef struct rki_gw_mesh_key {
	const rk_mesh *mesh;
	rk_mat4 geometry_to_node;
	rk_material_ref_list slots;        /* rk_node_material_slots() of the nodes sharing it */
	const rk_skin_deformer *skin;
	const rk_node *extra_joint;        /* the mesh node when it is an extra joint, else NULL */
	uint32_t uv_first;                 /* uv set written as TEXCOORD_0 */
	int32_t out_mesh;                  /* glTF mesh index, -1 when nothing was written */
	int32_t out_skin;                  /* glTF skin index, -1 if none */
} rki_gw_mesh_key;

#define RKI_GW_EXT_USED_MAX 32

typedef struct rki_gw {
	const rk_scene *scene;
	rk_gltf_write_opts opts;     /* resolved defaults */
	rki_alloc alloc;
	rk_error *err;
	bool failed;

	rki_buf bin;                 /* the binary buffer */
	rki_buf views;               /* rki_gw_view[] */
	rki_buf accessors;           /* rki_gw_accessor[] */
	rki_gw_section nodes, meshes, skins, materials, textures, images, samplers, animations, cameras;
	rk_json_writer lights;       /* KHR_lights_punctual "lights" array (gltf_write_attrs.c) */
	size_t light_count;
	rki_gw_warning *warnings, *warnings_tail;
	size_t warning_count;
	rki_arena tmp;               /* temporaries of the current stage (meshes swap in their own) */
	rki_arena keep;              /* warnings and what lives for the whole run */

	/* space */
	rk_mat4 conversion;          /* C (identity with keep_space) */
	rk_mat4 root_matrix;         /* R = C * root->node_to_parent */
	bool write_root;
	bool flip_v;                 /* FBX/OBJ input: v' = 1 - v */
	bool gltf_input;

	/* per rk node (scene->nodes.count entries) */
	int32_t *node_out;           /* glTF node index, -1 for the synthetic root when not written */
	rk_trs *node_trs;            /* glTF local TRS */
	int32_t *node_mesh;          /* glTF mesh index or -1 */
	int32_t *node_skin;          /* glTF skin index or -1 */

	/* per rk texture / material */
	int32_t *texture_out;        /* glTF texture index, -1 = skipped */
	int32_t *texture_image;      /* glTF image index of the texture, -1 = skipped */
	bool uses_unlit, uses_texture_transform;
	bool uses_texture_webp, uses_texture_basisu; /* textures written with EXT_texture_webp / KHR_texture_basisu */

	/* glTF meshes */
	rki_gw_mesh_key *mesh_keys;
	size_t mesh_key_count;
	int32_t *node_key;           /* per rk node: index into mesh_keys or -1 */

	/* kept extensions written (gltf_write_ext.c), for extensionsUsed */
	const char *ext_used[RKI_GW_EXT_USED_MAX];
	size_t ext_used_count;

	/* cameras and lights (gltf_write_attrs.c) */
	int32_t *attr_child;         /* per rk node, 2 each: glTF index of the extra child carrying
	                                its camera / light (to_node not identity), else -1 */
	size_t attr_child_count;     /* extra nodes, written after the scene's */

	/* separate files (opts.separate_files with a .gltf path) */
	bool separate;
	const char *out_path;        /* the .gltf path */
	size_t image_file_count;     /* images written as files */
	struct rki_gw_image_file *image_files; /* their bytes (keep arena), image_file_count of them */
	size_t image_file_cap;

	/* compression (gltf_write_compress.c) */
	size_t fallback_size;        /* byteLength of the fallback buffer; 0 = none */
	const char *ext_required[4]; /* extensionsRequired */
	size_t ext_required_count;

	rk_gltf_write_stats stats;
} rki_gw;

/* One image written as its own file (separate mode). */
typedef struct rki_gw_image_file {
	const unsigned char *data;
	size_t size;
	const char *ext;             /* "png" or "jpg" */
} rki_gw_image_file;

/* double -> float for output arrays: NaN -> 0, out of float range -> +-FLT_MAX
 * (so no accessor holds a non-finite value). */
static inline float rki_gw_f32(double v)
{
	if (v != v) return 0.0f;
	if (v > 3.4028234663852886e38) return 3.4028234663852886e38f;
	if (v < -3.4028234663852886e38) return -3.4028234663852886e38f;
	return (float)v;
}

/* ---- gltf_write_buffer.c ---- */

/* Errors and warnings */
bool rki_gw_fail(rki_gw *w, rk_error_code code, const char *fmt, ...) RKI_PRINTF(3, 4);
bool rki_gw_oom(rki_gw *w);
void rki_gw_warn(rki_gw *w, const char *fmt, ...) RKI_PRINTF(2, 3);

/* Buffers and accessors. Data is appended to the BIN buffer at a 4-byte
 * aligned offset as its own bufferView. Returns the index or -1 (w failed). */
int32_t rki_gw_view_add(rki_gw *w, const void *data, size_t size, uint32_t target);
/* Accessor over a new view holding count * components elements of
 * component_type. Float accessors with want_minmax get exact min/max. */
int32_t rki_gw_accessor_add(rki_gw *w, const void *data, uint32_t component_type, size_t count,
	uint32_t components, uint32_t target, bool want_minmax);

/* Records what accessor `acc` holds (RKI_GW_USE_*); acc < 0 is ignored. */
void rki_gw_accessor_use(rki_gw *w, int32_t acc, unsigned use);

/* Temporary memory (lives until the end of the run). NULL -> w failed. */
void *rki_gw_tmp_array(rki_gw *w, size_t count, size_t size);
/* As rki_gw_tmp_array without clearing: for arrays written in full before
 * they are read (mesh streams). */
void *rki_gw_tmp_array_uninit(rki_gw *w, size_t count, size_t size);

/* JSON. rki_gw_json_init: an empty writer (RKI_GW_JSON_FLAGS) allocating
 * from w->alloc; it allocates nothing yet. Release it with
 * rk_json_writer_free. rki_gw_json_check: true while j has no error, else
 * fails w (memory errors as rki_gw_oom) and returns false. */
void rki_gw_json_init(rki_gw *w, rk_json_writer *j);
bool rki_gw_json_check(rki_gw *w, const rk_json_writer *j);
/* Sections: init (no allocation), the writer for the next item (begins the
 * array on first use; write one value with key NULL, then count it),
 * emit as member `key` of `out` ("key":[...]; nothing when count is 0;
 * false when either writer failed, w failed), free. */
void rki_gw_section_init(rki_gw *w, rki_gw_section *s);
rk_json_writer *rki_gw_section_json(rki_gw_section *s);
bool rki_gw_section_emit(rki_gw *w, rk_json_writer *out, const char *key, rki_gw_section *s);
void rki_gw_section_free(rki_gw_section *s);

/* ---- gltf_write_node.c ---- */

/* glTF node index and local TRS of every rk node (node_out, node_trs),
 * after the space is known (conversion, root_matrix, write_root). */
bool rki_gw_compute_nodes(rki_gw *w);
/* The "nodes" section; after meshes and skins (node_mesh, node_skin). */
bool rki_gw_write_nodes(rki_gw *w);
/* glTF local TRS of node `n` given node_to_parent / node_to_world values
 * (static or posed) of the node and of its parent. Sets *exact to whether
 * the TRS reproduces the matrix. */
rk_trs rki_gw_local_trs(const rki_gw *w, const rk_node *n, const rk_mat4 *node_to_parent,
	const rk_mat4 *node_to_world, const rk_mat4 *parent_to_world, const rk_trs *local, bool *exact);
bool rki_gw_trs_uses_local(const rk_node *n);

/* ---- gltf_write_mesh.c ---- */

/* Meshes and skins. plan: decides which nodes share a
 * glTF mesh and whether some skin needs the extra root node so that its
 * joints share a common root (before node indices exist). write: writes
 * meshes and skins, fills node_mesh / node_skin. */
bool rki_gw_plan_meshes(rki_gw *w, bool *need_common_root);
bool rki_gw_write_meshes(rki_gw *w);
/* ---- gltf_write_ext.c ---- */

/* Whether the scene keeps an extension for `owner` / `element` (the node or
 * material; NULL for the scene) that is written (opts.no_extensions off). */
bool rki_gw_ext_has(const rki_gw *w, rk_ext_owner owner, const void *element);
/* Writes those extensions as members "NAME": {...} of the open object j
 * (the element's "extensions"), references as this writer's indices (after
 * node_out, texture_out, texture_image and mesh_keys are known), and notes
 * their names for extensionsUsed (ext_used). */
void rki_gw_ext_write(rki_gw *w, rk_json_writer *j, rk_ext_owner owner, const void *element);
/* used[t] = true for every texture a kept extension refers to (so its image
 * is written even when no material slot uses it). */
void rki_gw_ext_mark_textures(const rki_gw *w, bool *used);

/* Writes `v` (plain data or references) as member `key` of the open
 * object j (key NULL: an array item). */
void rki_gw_ext_write_value(rki_gw *w, rk_json_writer *j, const char *key, const rk_ext_value *v);
/* "extras": the kept value `v` (NULL: nothing). */
void rki_gw_extras_write(rki_gw *w, rk_json_writer *j, const rk_ext_value *v);

/* ---- gltf_write_attrs.c ---- */

/* Plans the extra attribute nodes (attr_child) once node_out is known, and
 * writes the "cameras" section and the lights array. */
bool rki_gw_write_attrs(rki_gw *w);
/* Members of node `nd`'s object: "camera" when the node carries its
 * camera itself. has_light: the node carries its light itself (then the
 * caller writes rki_gw_attr_node_light into its "extensions"). */
void rki_gw_attr_node(rki_gw *w, rk_json_writer *j, const rk_node *nd, bool *has_light);
void rki_gw_attr_node_light(rki_gw *w, rk_json_writer *j, const rk_node *nd);
/* The extra children of node `nd` (appended to its "children"). */
void rki_gw_attr_children(rki_gw *w, rk_json_writer *j, const rk_node *nd);
/* The extra nodes themselves, after the scene's nodes. */
void rki_gw_attr_write_nodes(rki_gw *w, rk_json_writer *j);
/* Separate files: the URI of image file `n` / of the buffer, relative to
 * the .gltf (percent-encoded), written as member "uri" of j. */
void rki_gw_uri_image(rki_gw *w, rk_json_writer *j, size_t n);
void rki_gw_uri_buffer(rki_gw *w, rk_json_writer *j);
/* Separate files: writes the .bin and image files (atomically, each) */
bool rki_gw_write_side_files(rki_gw *w, const rk_file_write_opts *fo);

/* ---- gltf_write_compress.c ---- */

/* opts.compress: quantises and meshopt-encodes the accessors' views in
 * place (w->bin, views, accessors; export.h COMPRESSION) and notes the
 * extensions. After every accessor is written, before the assembly. */
bool rki_gw_compress(rki_gw *w);

/* ---- gltf_write_anim.c ---- */

/* Animations. */
bool rki_gw_write_animations(rki_gw *w);

#endif
