/*
 * rigkit/scene.h - the neutral scene model every reader fills and every
 * writer consumes.
 *
 * OVERVIEW
 *   rk_load_file() reads FBX, glTF/GLB or BVH (by content, not extension) into an
 *   rk_scene: plain, documented, read-only data in one arena, released with
 *   one rk_scene_free(). References between elements are real pointers; every
 *   element also knows its `index` in its scene list, so runtime code can
 *   work with compact index arrays.
 *
 *     scene->nodes      all nodes; nodes.data[0] is a synthetic root (name
 *                       "", no parent). Parents always come before their
 *                       children (depth-first pre-order, children in file
 *                       order), so world matrices are one linear pass.
 *     scene->meshes     polygon meshes as stored (not triangulated)
 *     scene->skins      skin deformers: joints, bind matrices, influences
 *     scene->materials, scene->textures
 *     scene->clips      animation stacks / glTF animations
 *     scene->lights, scene->cameras  light and camera attributes of nodes
 *     scene->settings   axes, units, frame rate, source format
 *     scene->warnings   recoverable oddities met while loading
 *
 * SPACES AND MATRICES (column-major, column vectors; see base.h)
 *   node_to_parent   the node's local transform (FBX chain, see transform.h)
 *   node_to_world    node_to_parent of every ancestor, composed with the
 *                    inherit modes of transform.h
 *   geometry_to_node the node's geometric transform (FBX GeometricT/R/S),
 *                    applied to its own mesh only; identity for glTF
 *   geometry_to_world = node_to_world * geometry_to_node: where the node's
 *                    mesh vertices go when the mesh is not skinned
 *   Skinned vertices: world = sum_i w_i * joint_i.node_to_world *
 *                    joint_i.mesh_to_joint * geometry_to_node * v
 *   (the skinned mesh node's own transform is not applied again, except
 *   for a skinned mesh shared by several nodes: each instance is then
 *   carried by geometry_to_world * inv(B), B = the bind-pose matrix of the
 *   first instance that has one; see anim.h).
 *   The cached matrices describe the static scene: the values stored in the
 *   file, no animation applied. The anim module evaluates other times.
 *
 * UNITS AND AXES
 *   As stored in the file unless rk_load_opts asks for a conversion, in which
 *   case scene->settings describes the converted scene and
 *   settings.original_* the file's own.
 *
 * THREAD SAFETY
 *   Every rigkit function taking a const rk_scene only reads it: any number
 *   of threads may read one scene concurrently. The one function that
 *   modifies a loaded scene is rk_retarget() (retarget.h), on its target:
 *   it appends a clip (clips.count grows, clips.data may move, so earlier
 *   rk_anim_clip pointers into the target's clips become invalid) and
 *   allocates the clip's keys in the scene's arena (memory_used grows);
 *   nothing else changes. While it runs, no other thread may use the target
 *   scene. Loading is reentrant (no globals).
 */
#ifndef RIGKIT_SCENE_H
#define RIGKIT_SCENE_H

#include "rigkit/transform.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rk_node rk_node;
typedef struct rk_mesh rk_mesh;
typedef struct rk_skin_deformer rk_skin_deformer;
typedef struct rk_blend_channel rk_blend_channel;
typedef struct rk_material rk_material;
typedef struct rk_texture rk_texture;
typedef struct rk_anim_clip rk_anim_clip;
typedef struct rk_light rk_light;
typedef struct rk_camera rk_camera;
typedef struct rk_ext_value rk_ext_value;

typedef struct rk_node_list { rk_node *data; size_t count; } rk_node_list;
typedef struct rk_node_ref_list { rk_node **data; size_t count; } rk_node_ref_list;
typedef struct rk_mesh_list { rk_mesh *data; size_t count; } rk_mesh_list;
typedef struct rk_skin_deformer_list { rk_skin_deformer *data; size_t count; } rk_skin_deformer_list;
typedef struct rk_material_list { rk_material *data; size_t count; } rk_material_list;
typedef struct rk_material_ref_list { rk_material **data; size_t count; } rk_material_ref_list;
typedef struct rk_texture_list { rk_texture *data; size_t count; } rk_texture_list;
typedef struct rk_clip_list { rk_anim_clip *data; size_t count; } rk_clip_list;
typedef struct rk_light_list { rk_light *data; size_t count; } rk_light_list;
typedef struct rk_camera_list { rk_camera *data; size_t count; } rk_camera_list;

/* ---------------------------------------------------------------------------
 * Settings
 * ------------------------------------------------------------------------- */

typedef enum rk_axis {
	RK_AXIS_UNKNOWN = 0,
	RK_AXIS_POSITIVE_X, RK_AXIS_NEGATIVE_X,
	RK_AXIS_POSITIVE_Y, RK_AXIS_NEGATIVE_Y,
	RK_AXIS_POSITIVE_Z, RK_AXIS_NEGATIVE_Z
} rk_axis;

/* Which world direction each axis of the file's coordinates points to:
 * `right`, `up` and `front` (towards the viewer; a character modelled
 * facing the camera faces `front`). glTF is {+X, +Y, +Z}. */
typedef struct rk_axes {
	rk_axis right, up, front;
} rk_axes;

#define RK_AXES_RIGHT_HANDED_Y_UP ((rk_axes){ RK_AXIS_POSITIVE_X, RK_AXIS_POSITIVE_Y, RK_AXIS_POSITIVE_Z })
#define RK_AXES_LEFT_HANDED_Y_UP ((rk_axes){ RK_AXIS_POSITIVE_X, RK_AXIS_POSITIVE_Y, RK_AXIS_NEGATIVE_Z })
#define RK_AXES_RIGHT_HANDED_Z_UP ((rk_axes){ RK_AXIS_POSITIVE_X, RK_AXIS_POSITIVE_Z, RK_AXIS_NEGATIVE_Y })
#define RK_AXES_LEFT_HANDED_Z_UP ((rk_axes){ RK_AXIS_POSITIVE_X, RK_AXIS_POSITIVE_Z, RK_AXIS_POSITIVE_Y })

typedef enum rk_file_format {
	RK_FORMAT_UNKNOWN = 0,
	RK_FORMAT_FBX,
	RK_FORMAT_GLTF,   /* JSON .gltf */
	RK_FORMAT_GLB,    /* binary glTF */
	RK_FORMAT_OBJ,
	RK_FORMAT_BVH     /* Biovision Hierarchy motion capture text */
} rk_file_format;

typedef struct rk_scene_settings {
	rk_file_format format;
	uint32_t fbx_version;       /* e.g. 7400; 0 for other formats */
	bool ascii;                 /* FBX ASCII / glTF JSON */
	const char *creator;        /* exporter name as stored, "" if none */
	rk_axes axes;               /* axes of the (converted) scene; UNKNOWN where the file is silent */
	double unit_meters;         /* metres per scene unit (FBX cm file: 0.01) */
	rk_axes original_axes;      /* as stored in the file */
	double original_unit_meters;/* as stored in the file */
	double frame_rate;          /* frames per second (FBX TimeMode), 0 when unknown */
} rk_scene_settings;

/* ---------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------- */

typedef enum rk_node_kind {
	RK_NODE_NULL = 0,   /* group / transform only */
	RK_NODE_ROOT,       /* the synthetic scene root (nodes.data[0]) */
	RK_NODE_JOINT,      /* skeleton joint (FBX LimbNode/Root/Skeleton, glTF skin joint) */
	RK_NODE_MESH,       /* carries a mesh */
	RK_NODE_CAMERA,
	RK_NODE_LIGHT,
	RK_NODE_OTHER
} rk_node_kind;

struct rk_node {
	uint32_t index;               /* position in scene->nodes */
	const char *name;             /* without FBX class prefix ("Model::"), namespaces kept ("mixamorig:Hips") */
	uint64_t source_id;           /* FBX object id, glTF node index; 0 for the root */
	rk_node_kind kind;
	rk_node *parent;              /* NULL only for the root */
	rk_node_ref_list children;    /* in file order */
	uint32_t depth;               /* 0 for the root */

	/* Local transform. For FBX nodes `props` holds every property of the
	 * transform chain as stored (has_fbx_props); for other formats it is
	 * filled equivalently (translation, Euler XYZ rotation, scaling). `local`
	 * is node_to_parent decomposed (exact unless it shears), and for glTF
	 * nodes the authoritative TRS as stored. */
	bool has_fbx_props;
	rk_transform_props props;
	rk_adjust_transform adjust;   /* identity unless a load conversion added one */
	rk_trs local;
	bool has_geometry_transform;  /* geometry_to_node != identity */

	/* Cached static matrices (see SPACES AND MATRICES). */
	rk_mat4 node_to_parent;
	rk_mat4 node_to_world;
	rk_mat4 geometry_to_node;
	rk_mat4 geometry_to_world;
	rk_mat4 unscaled_node_to_world;
	rk_vec3 inherit_scale;        /* world scale per axis (see transform.h) */

	/* Content. */
	rk_mesh *mesh;                /* NULL if none; a mesh may be shared by several nodes */
	rk_skin_deformer *skin;                /* skin deforming this node's mesh, NULL if none */
	rk_material_ref_list materials; /* FBX per-node material slots; empty means use mesh->materials */
	const double *blend_weights;  /* static blend channel weights 0..1, mesh->blend_channels.count of them (NULL if none) */
	const char *attribute_type;   /* FBX NodeAttribute type ("LimbNode", "Null", "Camera"...), BVH "End Site"
	                                 for End Sites, "" otherwise */
	const char *default_uv_set;   /* FBX "currentUVSet": UV set shown by default, "" if unset */
	bool visible;
	/* Bind pose (FBX Pose "BindPose", first one listing the node): the node's
	 * world matrix when the skins were bound, in the file's space (before any
	 * load conversion). has_bind_pose false when no bind pose lists it. */
	bool has_bind_pose;
	rk_mat4 bind_node_to_world;

	/* Attributes (see LIGHTS AND CAMERAS). NULL when none. */
	rk_light *light;              /* glTF KHR_lights_punctual light, FBX Light attribute */
	rk_camera *camera;            /* glTF camera, FBX Camera attribute */
	const rk_ext_value *extras;   /* glTF node "extras" as stored (plain JSON data), NULL if none */
	/* FBX transform limits (see rk_transform_limits); has_limits false when
	 * the node has none (every other format). props holds the stored values
	 * already clamped to them. */
	bool has_limits;
	rk_transform_limits limits;
};

/* ---------------------------------------------------------------------------
 * Meshes
 * ------------------------------------------------------------------------- */

/* A per-corner attribute stored as a value table plus one index per corner
 * (polygon vertex): value of corner c = values[indices[c]]. Direct FBX
 * mappings, by-vertex mappings and glTF attributes are all expressed this
 * way, so consumers handle one case. `exists` is false when absent.
 * Every indices[c] < value_count. The FBX reader may append one zero value
 * after the file's values (value_count = file count + 1) that the indices of
 * out-of-range file indices are redirected to (with a warning); glTF
 * tables hold exactly the file's values.
 *
 * Values are kept in the precision of the file: doubles in values_f64 (FBX,
 * BVH, OBJ-style data, values the library computes or converts, scenes
 * built by hand) or floats in values_f32 (2, 3 or 4 per value, x first:
 * glTF FLOAT accessors, where a double would gain no precision; normalised
 * integer accessors are decoded to doubles as before). When `exists`,
 * exactly one of the two pointers is non-NULL. Read a value with
 * rk_attrib_vec3_value() (by table index) or rk_attrib_vec3_corner() (by
 * corner), which return doubles whatever the storage; a float converts to
 * the same double it did when tables held only doubles. */
typedef struct rk_attrib_vec2 { bool exists; const rk_vec2 *values_f64; size_t value_count; const uint32_t *indices; const float *values_f32; } rk_attrib_vec2;
typedef struct rk_attrib_vec3 { bool exists; const rk_vec3 *values_f64; size_t value_count; const uint32_t *indices; const float *values_f32; } rk_attrib_vec3;
typedef struct rk_attrib_vec4 { bool exists; const rk_vec4 *values_f64; size_t value_count; const uint32_t *indices; const float *values_f32; } rk_attrib_vec4;

/* Value i of the table (i < value_count) as doubles; zeros when the table has no values. */
static inline rk_vec2 rk_attrib_vec2_value(const rk_attrib_vec2 *a, size_t i)
{
	if (a->values_f64) return a->values_f64[i];
	if (a->values_f32) return (rk_vec2){ a->values_f32[2 * i], a->values_f32[2 * i + 1] };
	return (rk_vec2){ 0.0, 0.0 };
}
static inline rk_vec3 rk_attrib_vec3_value(const rk_attrib_vec3 *a, size_t i)
{
	if (a->values_f64) return a->values_f64[i];
	if (a->values_f32) return (rk_vec3){ a->values_f32[3 * i], a->values_f32[3 * i + 1], a->values_f32[3 * i + 2] };
	return (rk_vec3){ 0.0, 0.0, 0.0 };
}
static inline rk_vec4 rk_attrib_vec4_value(const rk_attrib_vec4 *a, size_t i)
{
	if (a->values_f64) return a->values_f64[i];
	if (a->values_f32) {
		const float *f = a->values_f32 + 4 * i;
		return (rk_vec4){ f[0], f[1], f[2], f[3] };
	}
	return (rk_vec4){ 0.0, 0.0, 0.0, 0.0 };
}
/* The value of corner c (c < the mesh's index_count). */
static inline rk_vec2 rk_attrib_vec2_corner(const rk_attrib_vec2 *a, size_t c) { return rk_attrib_vec2_value(a, a->indices[c]); }
static inline rk_vec3 rk_attrib_vec3_corner(const rk_attrib_vec3 *a, size_t c) { return rk_attrib_vec3_value(a, a->indices[c]); }
static inline rk_vec4 rk_attrib_vec4_corner(const rk_attrib_vec4 *a, size_t c) { return rk_attrib_vec4_value(a, a->indices[c]); }

typedef struct rk_uv_set {
	const char *name;             /* FBX LayerElementUV name, glTF "TEXCOORD_n" */
	rk_attrib_vec2 uv;            /* V as stored (FBX/OBJ: origin bottom-left; glTF: top-left) */
	rk_attrib_vec3 tangent;       /* FBX per-set tangents if any */
	rk_attrib_vec3 bitangent;
} rk_uv_set;

typedef struct rk_uv_set_list { rk_uv_set *data; size_t count; } rk_uv_set_list;
typedef struct rk_color_set_list { rk_attrib_vec4 *data; size_t count; } rk_color_set_list;

/* One polygon: corners index_begin .. index_begin + index_count - 1. */
typedef struct rk_face { uint32_t index_begin; uint32_t index_count; } rk_face;

/* A blend shape's offsets are kept in the file's precision like attribute
 * values (see rk_attrib_vec3): doubles (_f64) or floats (_f32, 3 per
 * offset: glTF FLOAT morph targets). For positions and for normals at most
 * one of the two pointers is non-NULL (positions: exactly one when
 * offset_count > 0). Read them with rk_blend_shape_position_offset() /
 * rk_blend_shape_normal_offset(). */
typedef struct rk_blend_shape {
	const char *name;
	size_t offset_count;
	const uint32_t *vertex_indices;  /* which mesh vertices move */
	const rk_vec3 *position_offsets_f64; /* added to positions (mesh space); NULL when kept as floats */
	const rk_vec3 *normal_offsets_f64;   /* NULL if the file has none or they are kept as floats */
	const double *offset_weights;    /* per-offset factor 0..1 (Blender exports vertex-group
	                                    weights as FullWeights), NULL = all 1 */
	const float *position_offsets_f32; /* 3 x offset_count (x, y, z), mesh space; NULL unless floats */
	const float *normal_offsets_f32;   /* the same for normal offsets */
} rk_blend_shape;

static inline bool rk_blend_shape_has_normals(const rk_blend_shape *s)
{
	return s->normal_offsets_f64 != NULL || s->normal_offsets_f32 != NULL;
}
/* Offset k (k < offset_count) as doubles; zeros when the shape has none. */
static inline rk_vec3 rk_blend_shape_position_offset(const rk_blend_shape *s, size_t k)
{
	if (s->position_offsets_f64) return s->position_offsets_f64[k];
	if (s->position_offsets_f32) return (rk_vec3){ s->position_offsets_f32[3 * k], s->position_offsets_f32[3 * k + 1], s->position_offsets_f32[3 * k + 2] };
	return (rk_vec3){ 0.0, 0.0, 0.0 };
}
static inline rk_vec3 rk_blend_shape_normal_offset(const rk_blend_shape *s, size_t k)
{
	if (s->normal_offsets_f64) return s->normal_offsets_f64[k];
	if (s->normal_offsets_f32) return (rk_vec3){ s->normal_offsets_f32[3 * k], s->normal_offsets_f32[3 * k + 1], s->normal_offsets_f32[3 * k + 2] };
	return (rk_vec3){ 0.0, 0.0, 0.0 };
}

struct rk_blend_channel {
	uint32_t index;                  /* position in mesh->blend_channels */
	const char *name;
	double default_weight;           /* 0..1 (FBX DeformPercent / 100, glTF mesh.weights) */
	size_t target_count;             /* > 1 with FBX in-between shapes */
	const rk_blend_shape *targets;
	const double *target_weights;    /* weight (0..1) at which each target is fully on, ascending */
};

typedef struct rk_blend_channel_list { rk_blend_channel *data; size_t count; } rk_blend_channel_list;

struct rk_mesh {
	uint32_t index;
	const char *name;
	uint64_t source_id;

	size_t vertex_count;
	const rk_vec3 *positions_f64;    /* mesh space, vertex_count, as doubles (FBX, BVH, converted, built) ... */
	const float *positions_f32;      /* ... or as floats, 3 per vertex (glTF FLOAT POSITION): exactly one is
	                                    non-NULL when vertex_count > 0; read with rk_mesh_position() */
	size_t index_count;              /* corners over all faces */
	const uint32_t *vertex_indices;  /* per corner: index into positions */
	size_t face_count;
	const rk_face *faces;
	size_t triangle_count_hint;      /* sum over faces of max(0, index_count - 2) */

	rk_attrib_vec3 normals;          /* per corner, as stored */
	rk_uv_set_list uv_sets;          /* first = default */
	rk_color_set_list colors;
	const uint32_t *face_material;   /* per face slot index into the node's (or mesh's) materials; NULL = slot 0 */
	rk_material_ref_list materials;  /* material slots of the mesh itself (glTF; FBX when no node slots) */

	rk_blend_channel_list blend_channels;
	size_t skin_count;               /* skin deformers attached (FBX may have several) */
	rk_skin_deformer **skins;
	bool is_gltf_primitive_split;    /* faces came from several glTF primitives (see face_material) */
	const rk_ext_value *extras;      /* glTF mesh "extras" as stored, NULL if none (the writer adds
	                                    targetNames for morph targets; see export.h) */
};

/* Vertex v's position (v < vertex_count) as doubles, whatever the storage. */
static inline rk_vec3 rk_mesh_position(const rk_mesh *m, size_t v)
{
	if (m->positions_f64) return m->positions_f64[v];
	if (m->positions_f32) return (rk_vec3){ m->positions_f32[3 * v], m->positions_f32[3 * v + 1], m->positions_f32[3 * v + 2] };
	return (rk_vec3){ 0.0, 0.0, 0.0 };
}

/* ---------------------------------------------------------------------------
 * Skins
 * ------------------------------------------------------------------------- */

typedef enum rk_skinning_method {
	RK_SKINNING_LINEAR = 0,
	RK_SKINNING_DUAL_QUATERNION,
	RK_SKINNING_BLENDED_DQ,          /* per-vertex blend of linear and DQ */
	RK_SKINNING_RIGID
} rk_skinning_method;

typedef struct rk_skin_joint {
	rk_node *node;                   /* the bone; may be NULL when the file names none (warned) */
	rk_mat4 mesh_to_joint;           /* "inverse bind matrix": mesh (node) space at bind -> joint space.
	                                    FBX: cluster Transform; glTF: inverseBindMatrices */
	rk_mat4 joint_to_world_bind;     /* joint's world matrix at bind (FBX TransformLink, glTF inverse of IBM times mesh bind) */
	rk_mat4 mesh_to_world_bind;      /* mesh node's world matrix at bind (FBX TransformLink * Transform) */
} rk_skin_joint;

typedef struct rk_skin_weight { uint32_t joint; float weight; } rk_skin_weight;

struct rk_skin_deformer {
	uint32_t index;
	const char *name;
	rk_skinning_method method;
	rk_node *skeleton_root;          /* glTF skin.skeleton, else the common ancestor of the joints (may be NULL) */
	size_t joint_count;
	const rk_skin_joint *joints;
	/* Influences per vertex in CSR form: vertex v has weights
	 * weights[weight_begin[v] .. weight_begin[v + 1]), sorted by descending
	 * weight, raw (not renormalised). weight_begin has vertex_count + 1 entries. */
	size_t vertex_count;
	const uint32_t *weight_begin;
	size_t weight_count;
	const rk_skin_weight *weights;
	const float *dq_weights;         /* per vertex for BLENDED_DQ, else NULL */
	size_t max_weights_per_vertex;
};

/* ---------------------------------------------------------------------------
 * Materials and textures
 * ------------------------------------------------------------------------- */

typedef enum rk_alpha_mode { RK_ALPHA_OPAQUE = 0, RK_ALPHA_MASK, RK_ALPHA_BLEND } rk_alpha_mode;
typedef enum rk_wrap { RK_WRAP_REPEAT = 0, RK_WRAP_CLAMP, RK_WRAP_MIRROR } rk_wrap;

typedef struct rk_texture_ref {
	rk_texture *texture;             /* NULL when the slot is empty */
	const char *uv_set;              /* FBX: UV set name the texture asks for ("" = default) */
	uint32_t texcoord;               /* glTF TEXCOORD_n index */
	bool has_transform;              /* KHR_texture_transform / FBX UV translation etc. */
	rk_vec2 offset, scale;           /* scale default (1,1) */
	double rotation;                 /* radians */
} rk_texture_ref;

struct rk_material {
	uint32_t index;
	const char *name;
	const char *shading_model;       /* FBX "Lambert"/"Phong", glTF "pbrMetallicRoughness" */
	rk_vec4 base_color;              /* linear RGBA, default (1,1,1,1); FBX DiffuseColor * DiffuseFactor */
	rk_texture_ref base_color_texture;
	double metallic, roughness;      /* glTF factors, defaults 1, 1 (FBX: 0, derived from shininess) */
	rk_texture_ref metallic_roughness_texture;
	rk_texture_ref normal_texture;
	rk_texture_ref emissive_texture;
	rk_vec3 emissive;                /* default 0 */
	rk_vec3 specular;                /* FBX SpecularColor * SpecularFactor */
	double shininess;                /* FBX */
	rk_alpha_mode alpha_mode;
	double alpha_cutoff;             /* default 0.5 */
	bool double_sided;
	bool unlit;                      /* KHR_materials_unlit */
	double normal_scale;             /* glTF normalTexture.scale; 1 for FBX (0 read as 1 by writers) */
	rk_texture_ref occlusion_texture;/* glTF occlusionTexture (R channel), empty for FBX */
	double occlusion_strength;       /* glTF occlusionTexture.strength, default 1 */
	const rk_ext_value *extras;      /* glTF material "extras" as stored, NULL if none */
};

struct rk_texture {
	uint32_t index;
	const char *name;
	const char *filename;            /* as written in the file ("" if embedded only) */
	const char *resolved_path;       /* regular file found inside the allowed folders (real path), or NULL */
	const unsigned char *content;    /* embedded bytes (FBX Video Content, GLB bufferView, data: URI), NULL if none */
	size_t content_size;
	const char *mime_type;           /* "image/png", "image/jpeg" or "" when unknown */
	rk_wrap wrap_u, wrap_v;
	uint32_t mag_filter, min_filter; /* glTF sampler magFilter / minFilter (9728 NEAREST, 9729 LINEAR,
	                                    9984..9987 mipmap modes), 0 = unset (the viewer chooses) */
	const char *image_name;          /* glTF: the name of the texture's image, "" if none; NULL for
	                                    other formats (writers then name the image like the texture) */
};

/* ---------------------------------------------------------------------------
 * Scene rules: how consumers read materials and UV sets
 *
 * Mesh expansion (mesh.h), the preview renderer (render.h) and the glTF and
 * OBJ writers (export.h) all call these, so a mesh node gets the same
 * materials and UVs everywhere. Pure functions of the const scene; thread
 * safe; no allocation.
 * ------------------------------------------------------------------------- */

/* Marks "no slot" / "no UV set" where an index is expected. */
#define RK_NO_SLOT UINT32_MAX
#define RK_NO_UV_SET (-1)

/* MATERIAL SLOTS OF A MESH NODE
 *   FBX connects materials to the node (Model -> Material, so two instances
 *   of one geometry may differ): the reader fills rk_node.materials. glTF
 *   gives each mesh primitive its material: the reader fills rk_mesh.materials
 *   (one slot per primitive) and leaves rk_node.materials empty. The rule:
 *     slots = node->materials when it is non-empty (the node's list wins),
 *             else node->mesh->materials (empty when the node has no mesh).
 *   Returned by value; the list points into the scene. */
rk_material_ref_list rk_node_material_slots(const rk_node *node);

/* Slot of face `face` of node->mesh: s = mesh->face_material[face]
 * (face_material NULL: s = 0). Returns s when s < rk_node_material_slots()
 * .count, else RK_NO_SLOT: the face is "out of range" and has no material.
 * Also RK_NO_SLOT when the node has no mesh or face >= face_count. A mesh
 * node without any slot (count 0) therefore gives RK_NO_SLOT for every
 * face: its faces have no material, which is normal, not an error;
 * consumers that report oddities (rk_mesh_stats.invalid_material_slots,
 * the glTF writer's warning) count out-of-range faces only when the slot
 * list is non-empty. */
uint32_t rk_node_face_slot(const rk_node *node, size_t face);

/* Material of face `face`: slots.data[s] for s = rk_node_face_slot(), NULL
 * for an out-of-range face or an empty (NULL) slot. */
rk_material *rk_node_face_material(const rk_node *node, size_t face);

/* UV SET OF A TEXTURE ON A MESH NODE (first rule that names a usable set
 * wins; a set is usable when its uv.exists)
 *   a. the texture's uv_set names a set of node->mesh->uv_sets (FBX Texture
 *      "UVSet"; the glTF reader stores "TEXCOORD_<texCoord>", which is also
 *      the name of the glTF set)
 *   b. node->default_uv_set (FBX Model "currentUVSet") names a set
 *   c. the texture's uv_set is "" and texcoord < uv_sets.count: the set at
 *      index texcoord (hand-built glTF-like scenes; readers always name it)
 *   d. set 0
 *   FBX semantics: a texture without UVSet (or naming a set the mesh lacks)
 *   uses the node's current set, and without that the first one. glTF: a
 *   texture samples TEXCOORD_<texCoord>. `texture` may be NULL or have no
 *   texture (then only b and d apply). Returns the index into
 *   node->mesh->uv_sets, or RK_NO_UV_SET when the node has no mesh or no
 *   usable set is found. */
int32_t rk_node_texture_uv_set(const rk_node *node, const rk_texture_ref *texture);

/* UV set of a mesh part drawn with `material` (may be NULL): the rule above
 * for its base colour texture when it has one, else for no texture. This is
 * the one set a consumer with one UV stream per part (mesh expansion, the
 * renderer) uses; rk_mesh_part.uv_set reports it. */
int32_t rk_node_material_uv_set(const rk_node *node, const rk_material *material);

/* ---------------------------------------------------------------------------
 * Animation
 * ------------------------------------------------------------------------- */

typedef enum rk_interp {
	RK_INTERP_CONSTANT = 0,          /* hold this key's value until the next */
	RK_INTERP_CONSTANT_NEXT,         /* FBX: jump to the next key's value at once */
	RK_INTERP_LINEAR,
	RK_INTERP_CUBIC                  /* FBX Hermite/Bezier with slopes and weights; glTF CUBICSPLINE */
} rk_interp;

typedef enum rk_extrapolation {
	RK_EXTRAPOLATE_CONSTANT = 0,     /* hold the end value */
	RK_EXTRAPOLATE_REPEAT,           /* cycle */
	RK_EXTRAPOLATE_MIRROR,           /* oscillate */
	RK_EXTRAPOLATE_SLOPE,            /* continue with the end slope */
	RK_EXTRAPOLATE_REPEAT_RELATIVE   /* cycle with offset */
} rk_extrapolation;

/* A scalar FBX curve. Key i spans [times[i], times[i+1]] with interp[i].
 * For RK_INTERP_CUBIC, the segment is a cubic Bezier in (time, value) with
 * control points at 1/3-weighted slopes: right_slope[i] / right_weight[i]
 * leave key i, left_slope[i+1] / left_weight[i+1] enter key i+1. Slopes are
 * value units per second; weights default to 1/3 (non-weighted tangents).
 * Arrays that would hold only defaults may be NULL: interp NULL = every key
 * LINEAR, slopes NULL = 0, weights NULL = 1/3. Arrays may be shared between
 * curves (equal key times) and left_slope may equal right_slope (the same
 * pointer) when every key's two slopes agree: treat them as read-only. */
typedef struct rk_anim_curve {
	size_t key_count;
	const double *times;             /* seconds, absolute file time, strictly increasing */
	const double *values;
	const rk_interp *interp;
	const double *right_slope, *left_slope;
	const double *right_weight, *left_weight;
	rk_extrapolation pre_extrapolation, post_extrapolation;
	int32_t pre_repeat_count, post_repeat_count; /* -1 = infinite */
	double min_value, max_value;
} rk_anim_curve;

/* Per-key values of a curve with the NULL-array defaults applied. */
static inline rk_interp rk_curve_interp(const rk_anim_curve *c, size_t i)
{
	return c->interp ? c->interp[i] : RK_INTERP_LINEAR;
}
static inline double rk_curve_right_slope(const rk_anim_curve *c, size_t i)
{
	return c->right_slope ? c->right_slope[i] : 0.0;
}
static inline double rk_curve_left_slope(const rk_anim_curve *c, size_t i)
{
	return c->left_slope ? c->left_slope[i] : 0.0;
}
static inline double rk_curve_right_weight(const rk_anim_curve *c, size_t i)
{
	return c->right_weight ? c->right_weight[i] : 1.0 / 3.0;
}
static inline double rk_curve_left_weight(const rk_anim_curve *c, size_t i)
{
	return c->left_weight ? c->left_weight[i] : 1.0 / 3.0;
}

typedef enum rk_anim_target {
	RK_TARGET_TRANSLATION = 0,       /* node props.translation / local.translation */
	RK_TARGET_ROTATION_EULER,        /* FBX Lcl Rotation, degrees, 3 curves */
	RK_TARGET_ROTATION_QUAT,         /* glTF rotation (x,y,z,w) */
	RK_TARGET_SCALE,
	RK_TARGET_MORPH_WEIGHTS,         /* node blend weights (glTF weights, FBX DeformPercent / 100) */
	RK_TARGET_FBX_PROPERTY           /* any other animated FBX property, by name */
} rk_anim_target;

/* One animated property. Curve-based (FBX: up to 4 scalar curves, NULL ones
 * keep default_value) or sampler-based (glTF: vector keyframes). */
typedef struct rk_anim_track {
	rk_node *node;
	rk_anim_target target;
	const char *property;            /* FBX property name ("Lcl Translation", "DeformPercent"...), else "" */
	uint32_t morph_channel;          /* RK_TARGET_MORPH_WEIGHTS from FBX: which blend channel; glTF: 0 (all) */

	/* curve-based */
	const rk_anim_curve *curves[4];
	double default_value[4];

	/* sampler-based (curves all NULL). The values are kept in the file's
	 * precision (see rk_attrib_vec3): doubles, or floats for glTF FLOAT
	 * outputs; when key_count > 0 exactly one of values_f64 / values_f32 is
	 * non-NULL. Read value i with rk_track_value(). times may be shared by
	 * several tracks (glTF samplers of one input): read-only. */
	size_t key_count;
	const double *times;             /* seconds */
	uint32_t components;             /* values per key per output: 3, 4, or morph count */
	const double *values_f64;        /* key_count * components (CUBIC: *3, as in-tangent, value, out-tangent) */
	rk_interp interpolation;         /* CONSTANT (glTF STEP), LINEAR or CUBIC */
	const float *values_f32;         /* the same layout as floats */
} rk_anim_track;

/* Defined since tables and tracks keep the file's precision (values_f64 /
 * values_f32): code built against several versions may test it. */
#define RK_SCENE_TYPED_VALUES 1

/* Value i (i < key_count * components, times 3 for CUBIC) of a sampler-based
 * track as a double, whatever the storage; 0 when the track has none. */
static inline double rk_track_value(const rk_anim_track *t, size_t i)
{
	if (t->values_f64) return t->values_f64[i];
	if (t->values_f32) return (double)t->values_f32[i];
	return 0.0;
}
static inline bool rk_track_has_values(const rk_anim_track *t)
{
	return t->values_f64 != NULL || t->values_f32 != NULL;
}

typedef enum rk_layer_blend {
	RK_LAYER_OVERRIDE = 0,
	RK_LAYER_ADDITIVE,
	RK_LAYER_OVERRIDE_PASSTHROUGH
} rk_layer_blend;

typedef struct rk_anim_layer {
	const char *name;
	double weight;                   /* 0..1 */
	rk_layer_blend blend;
	bool rotation_accumulate_by_component; /* FBX RotationAccumulationMode */
	bool scale_accumulate_multiply;        /* FBX ScaleAccumulationMode */
	size_t track_count;
	const rk_anim_track *tracks;
} rk_anim_layer;

struct rk_anim_clip {
	uint32_t index;
	const char *name;                /* FBX stack name without "AnimStack::", glTF animation name */
	double time_begin, time_end;     /* seconds, absolute file time (FBX LocalStart/Stop or key range) */
	size_t layer_count;
	const rk_anim_layer *layers;     /* glTF: one layer */
};

/* ---------------------------------------------------------------------------
 * Lights and cameras
 *
 * A node carries at most one light (node->light) and one camera
 * (node->camera); several nodes may share one. Both are attributes of the
 * node: they sit at its origin and point where the node's axes say:
 *   glTF convention: a camera looks along the node's -Z with +Y up; a spot
 *   or directional light shines along -Z.
 * `to_node` is the rotation from that convention to the node's own space
 * (identity for glTF; FBX cameras look along +X with +Y up, FBX lights
 * shine along -Y, so their to_node turns -Z onto those). The direction in
 * node space is rk_quat_rotate(to_node, (0, 0, -1)). Lengths (range,
 * znear, zfar, xmag, ymag) are in scene units.
 * ------------------------------------------------------------------------- */

typedef enum rk_light_type {
	RK_LIGHT_POINT = 0,
	RK_LIGHT_DIRECTIONAL,
	RK_LIGHT_SPOT,
	RK_LIGHT_AREA,                   /* FBX area / volume lights (no glTF equivalent) */
} rk_light_type;

struct rk_light {
	uint32_t index;                  /* position in scene->lights */
	const char *name;                /* glTF light name, FBX NodeAttribute name; "" if none */
	rk_light_type type;
	rk_vec3 color;                   /* linear RGB, default (1, 1, 1) */
	double intensity;                /* glTF: candela (point, spot) or lux (directional), default 1;
	                                    FBX: Intensity / 100 (no photometric unit) */
	double range;                    /* distance where the light reaches zero; 0 = infinite (default) */
	double inner_cone_angle;         /* spot: radians from the axis to where falloff starts, default 0 */
	double outer_cone_angle;         /* spot: radians from the axis to where it ends, default pi/4
	                                    (FBX InnerAngle / OuterAngle are full cone angles in degrees: halved) */
	rk_quat to_node;                 /* see above; identity for glTF */
	const rk_ext_value *extras;      /* glTF light "extras", NULL if none */
};

typedef enum rk_projection {
	RK_PROJECTION_PERSPECTIVE = 0,
	RK_PROJECTION_ORTHOGRAPHIC
} rk_projection;

struct rk_camera {
	uint32_t index;                  /* position in scene->cameras */
	const char *name;                /* glTF camera name, FBX NodeAttribute name; "" if none */
	rk_projection projection;
	double yfov;                     /* perspective: vertical field of view, radians */
	double aspect_ratio;             /* width / height; 0 = not stated (the viewport's) */
	double xmag, ymag;               /* orthographic: half width and half height of the view */
	double znear;                    /* near clipping distance (> 0 for perspective) */
	double zfar;                     /* far clipping distance; 0 = infinite (glTF perspective only) */
	rk_quat to_node;                 /* see above; identity for glTF */
	const rk_ext_value *extras;      /* glTF camera "extras", NULL if none */
};

/* ---------------------------------------------------------------------------
 * Warnings and the scene
 * ------------------------------------------------------------------------- */

typedef struct rk_warning {
	const char *message;
	uint64_t byte_offset;            /* UINT64_MAX if unknown */
	const char *path;                /* FBX node path / JSON pointer, "" if unknown */
	size_t count;                    /* how many times the same warning occurred */
} rk_warning;

typedef struct rk_warning_list { rk_warning *data; size_t count; } rk_warning_list;

/* The one warning callback of rigkit. Every options struct whose call can
 * meet a recoverable oddity (rk_load_opts, rk_demo_opts, rk_gltf_write_opts,
 * rk_render_opts, rk_retarget_opts, rk_compare_opts, rk_vrma_write_opts) has
 * the same pair (rk_humanoid_check_declared takes the pair as arguments):
 *     rk_warning_fn *warning;   NULL = no callback
 *     void *warning_user;       passed back as `user`
 * Calls come from the thread that made the rigkit call, before it returns;
 * `w` and its strings are valid only during the call. A warning repeated
 * with the same message is reported once at its first occurrence (count 1)
 * and, when it repeated, once more when the call finishes with its final
 * count. Results that are data objects also keep the list (scene->warnings);
 * the others count them in their stats or report. */
typedef void rk_warning_fn(void *user, const rk_warning *w);

/* A mapping the file declares itself, for consumers that would otherwise
 * guess: e.g. scheme "humanoid", key "leftUpperArm" (a VRM 1.0 bone name)
 * for the node a VRM humanoid extension names. Readers fill these; they
 * never change what the rest of the scene says. rk_humanoid_detect()
 * (humanoid.h) prefers a valid declared humanoid to name matching. */
typedef struct rk_declared_hint {
	const char *scheme;              /* what the key means ("humanoid") */
	const char *key;                 /* e.g. VRM bone name */
	const rk_node *node;             /* the node the file declares for it */
	const char *origin;              /* where it came from, e.g. "VRMC_vrm" */
} rk_declared_hint;

typedef struct rk_declared_hint_list { rk_declared_hint *data; size_t count; } rk_declared_hint_list;

/* Extension data kept as the file wrote it, so a writer can emit it again
 * (the VRM extensions; docs/vrm.md): a JSON value in which the numbers that are
 * indices of glTF elements are resolved to the scene elements they name: the
 * writer emits its own index for that element, so renumbering on output
 * keeps the references right. Readers keep only extensions whose index
 * fields they know (gltf: VRMC_vrm, VRMC_springBone, VRMC_node_constraint,
 * VRMC_materials_mtoon, VRMC_materials_hdr_emissiveMultiplier,
 * VRMC_vrm_animation and VRM 0.x's VRM; the KHR material extensions
 * docs/gltf.md lists: KHR_materials_specular, _ior, _clearcoat, _sheen,
 * _transmission, _volume, _emissive_strength, _iridescence, _anisotropy,
 * _dispersion, _diffuse_transmission, _pbrSpecularGlossiness, whose
 * textureInfo "index" members are resolved); the rest of the scene never
 * depends on them. Plain JSON kept without any index (glTF "extras") uses
 * the same tree. */
typedef enum rk_ext_kind {
	RK_EXT_NULL = 0,
	RK_EXT_BOOL,                     /* number 0 or 1 */
	RK_EXT_NUMBER,
	RK_EXT_STRING,
	RK_EXT_ARRAY,                    /* items */
	RK_EXT_OBJECT,                   /* items, each with its key, in file order */
	RK_EXT_NODE,                     /* a node index: ref is the rk_node */
	RK_EXT_MESH,                     /* a mesh index: ref is the rk_mesh */
	RK_EXT_MATERIAL,                 /* a material index: ref is the rk_material */
	RK_EXT_TEXTURE,                  /* a texture index: ref is the rk_texture */
	RK_EXT_IMAGE                     /* an image index: ref is the first rk_texture showing that image */
} rk_ext_kind;

struct rk_ext_value {
	rk_ext_kind kind;
	const char *key;                 /* member name in an OBJECT (NUL-terminated UTF-8), NULL elsewhere */
	const char *string;              /* STRING: UTF-8, `length` bytes (NUL-terminated, may hold NUL) */
	size_t length;
	double number;                   /* NUMBER; BOOL 0/1; NODE ... IMAGE: the index in the file */
	size_t count;                    /* ARRAY / OBJECT */
	const rk_ext_value *items;
	const void *ref;                 /* NODE ... IMAGE: the element (never NULL) */
};

typedef enum rk_ext_owner {
	RK_EXT_OWNER_SCENE = 0,          /* the top-level "extensions" of the file */
	RK_EXT_OWNER_NODE,               /* "extensions" of `node` */
	RK_EXT_OWNER_MATERIAL            /* "extensions" of `material` */
} rk_ext_owner;

typedef struct rk_extension {
	const char *name;                /* "VRMC_vrm", "VRM" ... */
	rk_ext_owner owner;
	const rk_node *node;             /* OWNER_NODE, else NULL */
	const rk_material *material;     /* OWNER_MATERIAL, else NULL */
	rk_ext_value value;              /* the extension object */
} rk_extension;

typedef struct rk_extension_list { rk_extension *data; size_t count; } rk_extension_list;

typedef struct rk_scene {
	rk_scene_settings settings;
	rk_node *root;                   /* == &nodes.data[0] */
	rk_node_list nodes;
	rk_mesh_list meshes;
	rk_skin_deformer_list skins;
	rk_material_list materials;
	rk_texture_list textures;
	rk_clip_list clips;
	rk_warning_list warnings;
	rk_declared_hint_list hints;     /* declared mappings (empty for most files) */
	rk_extension_list extensions;    /* kept extension data (empty for most files) */
	rk_light_list lights;            /* node light attributes (see LIGHTS AND CAMERAS) */
	rk_camera_list cameras;          /* node camera attributes */
	const rk_ext_value *asset_extras;/* glTF asset.extras as stored, NULL if none */
	const char *scene_name;          /* glTF: name of the loaded scene; "" if none (NULL from other readers) */
	const rk_ext_value *scene_extras;/* glTF: extras of the loaded scene, NULL if none */
	const char *source_path;         /* "" for memory loads */
	size_t memory_used;              /* bytes held by the scene */
	void *internal_;                 /* owned by rigkit */
} rk_scene;

/* ---------------------------------------------------------------------------
 * Load options (used by every reader; the functions are in rigkit/load.h)
 * ------------------------------------------------------------------------- */

/* How a unit/axis conversion is applied (transform.h, rk_adjust_transform).
 * Both give the same world-space results.
 *   ADJUST_TRANSFORMS: the synthetic root's node_to_parent holds the whole
 *     conversion (axis change, then uniform unit scale); file data untouched.
 *   MODIFY_GEOMETRY: the unit factor k is applied to the data: every node's
 *     adjust.translation_scale (so static and animated translations, pivots
 *     and offsets scale), mesh positions, blend shape offsets, geometric
 *     translations, skin bind matrices and bind poses; the axis rotation is
 *     each root child's adjust.pre_rotation. A mirroring axis change
 *     (left <-> right handed) stays in the root's node_to_parent. */
typedef enum rk_space_conversion {
	RK_CONVERT_ADJUST_TRANSFORMS = 0,
	RK_CONVERT_MODIFY_GEOMETRY
} rk_space_conversion;

/* How the BVH reader reads position channels (load.h, BVH IMPORTER). */
typedef enum rk_bvh_positions {
	RK_BVH_POSITIONS_AUTO = 0,       /* OFFSET + value, unless the file shows it means absolute positions */
	RK_BVH_POSITIONS_ADD_OFFSET,     /* translation = OFFSET + value (three.js BVHLoader) */
	RK_BVH_POSITIONS_ABSOLUTE        /* translation = value, missing axes 0 (Blender's importer and exporter) */
} rk_bvh_positions;

/* Load options. Zero-initialise; every zero field means its default. */
/* A list of strings the caller owns (folders of rk_load_opts.allow_paths). */
typedef struct rk_string_list {
	const char **items;
	size_t count;
} rk_string_list;

/* One external file a reader asks for (rk_load_opts.open_file). */
typedef struct rk_file_request {
	const char *reference;           /* as written in the input (URI %-decoded, '\\' turned into '/') */
	const char *path;                /* the normalised path that passed the access policy: the input's
	                                    folder (as named by rk_load_file's path / opts.filename) joined
	                                    with the reference, or an absolute path inside allow_paths */
	size_t max_size;                 /* more bytes than this are refused (file_size_limit) */
} rk_file_request;

/* Serves an external file (buffer, texture) from anywhere the caller likes
 * (memory, an object store). Returns true with *data / *size set; the bytes
 * must stay valid until close_file (when given) is called with them, which
 * the loader does right after copying them. false = there is no such file
 * (the reader then treats the reference as missing). Called on the loading
 * thread only, never after the load returns. */
typedef bool rk_file_open_fn(void *user, const rk_file_request *request, const void **data, size_t *size);
typedef void rk_file_close_fn(void *user, const void *data, size_t size);

typedef struct rk_load_opts {
	rk_allocator allocator;          /* zero = malloc/free */
	size_t memory_limit;             /* bytes for scene + temporaries (exceeded: RK_ERROR_LIMIT naming
	                                    the file); 0 = the default budget, proportional to the input:
	                                    max(256 MiB, 64 x the input's bytes, external glTF buffers
	                                    included), at most 4 GiB (1.5 GiB with 32-bit size_t).
	                                    docs/limits.md */
	size_t allocation_limit;         /* number of allocations; 0 = unlimited */
	size_t file_size_limit;          /* 0 = 2 GiB */
	size_t max_depth;                /* node nesting / JSON depth; 0 = 256 */
	size_t max_elements;             /* elements (nodes, keys, array items); 0 = 1 << 28 */

	rk_axes target_axes;             /* all UNKNOWN = keep the file's axes */
	double target_unit_meters;       /* 0 = keep the file's unit */
	double source_unit_meters;       /* metres per unit of files that do not state their unit (BVH);
	                                    0 = 0.01 (centimetres) */
	rk_bvh_positions bvh_positions;  /* BVH position channels; 0 = AUTO */
	rk_space_conversion space_conversion;

	bool ignore_animation;           /* skip clips */
	bool ignore_geometry;            /* skip mesh data (nodes, skins still load) */
	bool no_embedded_content;        /* do not keep embedded texture bytes */
	const char *filename;            /* for rk_load_memory: name used in errors and to resolve relative paths */
	size_t threads;                  /* threads a load may use, the calling one included: 0 = default,
	                                    1 = never start a thread. The FBX reader decodes binary
	                                    arrays on helper threads: default one thread per online
	                                    CPU, at most 8 in all, and never more than one per 256 KiB
	                                    of decoded array data (small files use none); N caps it
	                                    at N. Other readers use no threads. */

	/* Reporting: each warning of scene->warnings also goes to the callback
	 * as it is recorded (see rk_warning_fn). NULL = only scene->warnings. */
	rk_warning_fn *warning;
	void *warning_user;

	/* ---- External files: the access policy (docs/security.md) ----------
	 * Buffers and textures a file refers to are opened only inside the
	 * input file's folder tree: a reference with ".." that leaves it, an
	 * absolute path, a URI scheme other than data:, a %-escape that decodes
	 * to '/' or '\\', or a symbolic link whose target lies outside is
	 * refused with a warning naming the reference (a refused buffer reads
	 * as zeros, a refused texture has no resolved_path). FBX textures with
	 * absolute or foreign paths are looked up by their trailing path parts
	 * inside the folder (see load.h, FBX IMPORTER). Only regular files are
	 * opened (never FIFOs, devices or folders), never more than
	 * file_size_limit bytes. */
	rk_string_list allow_paths;      /* more folders (trees) references may resolve into; each must exist.
	                                    Empty = only the input's folder. */
	rk_file_open_fn *open_file;      /* NULL = the file system. Set: every external file comes from it
	                                    (after the same path checks, without symlink resolution) and
	                                    textures get their bytes as content at load time. */
	rk_file_close_fn *close_file;    /* NULL = nothing to release */
	void *file_user;                 /* passed to open_file / close_file */
} rk_load_opts;

/* Frees everything the scene owns. NULL is fine. */
void rk_scene_free(rk_scene *scene);

/* Short name of a format ("fbx", "gltf", "glb", "obj", "bvh", "unknown"). */
const char *rk_format_name(rk_file_format format);

/* Inserts a new node named `name` (copied) between `child` (a node of
 * `scene`, not the synthetic root) and its parent: kind RK_NODE_NULL, an
 * identity local transform (a plain TRS node, has_fbx_props false), in no
 * skin, so every world matrix stays as it was. How `rigkit retarget --root
 * extract` gives a rig whose hips hang from the scene a root node
 * (docs/retarget.md, "Root motion"). MODIFIES the scene: nodes.data is a
 * new array (the new node at child's old index, the nodes from there on one
 * index later) and every node pointer the scene holds (parents, children,
 * skins, clips, hints, extensions, root) is moved to it; node pointers held
 * outside the scene (an rk_humanoid, rk_scene_find_node results) are stale
 * afterwards: look them up again. Costs one node array in the scene's
 * arena. Returns the new node, or NULL with err on bad arguments or out of
 * memory (the scene unchanged). No other thread may use the scene
 * meanwhile. */
rk_node *rk_scene_insert_parent(rk_scene *scene, const rk_node *child, const char *name, rk_error *err);

/* Lookup by exact name (first in node order), NULL if absent. */
rk_node *rk_scene_find_node(const rk_scene *scene, const char *name);
rk_anim_clip *rk_scene_find_clip(const rk_scene *scene, const char *name);
/* The kept top-level extension `name` (RK_EXT_OWNER_SCENE, "VRMC_vrm" ...)
 * and an OBJECT's member `key`: NULL if absent (or NULL arguments, or `obj`
 * not an OBJECT). */
const rk_ext_value *rk_scene_extension(const rk_scene *scene, const char *name);
const rk_ext_value *rk_ext_member(const rk_ext_value *obj, const char *key);

/* Name of an axis ("+X") / axes triple ("right_handed_y_up" when it is one
 * of the four named conventions, else "+X+Y+Z"). */
const char *rk_axis_name(rk_axis axis);
/* Parses "right_handed_y_up", "left_handed_y_up", "right_handed_z_up",
 * "left_handed_z_up". Returns false for anything else. */
bool rk_axes_parse(const char *text, rk_axes *out);
bool rk_axes_equal(rk_axes a, rk_axes b);
bool rk_axes_valid(rk_axes a);       /* three distinct known axes */
/* Rotation+reflection matrix mapping coordinates in `from` to `to`. */
rk_mat4 rk_axes_conversion(rk_axes from, rk_axes to);

#ifdef __cplusplus
}
#endif
#endif
