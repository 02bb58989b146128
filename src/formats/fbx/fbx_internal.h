/*
 * src/formats/fbx/fbx_internal.h - state shared by the FBX scene reader's files
 * (fbx_load.c: objects, nodes, geometry, deformers, materials;
 *  fbx_anim.c: animation stacks, layers, curves, 6100 takes).
 *
 * Objects of the file (7x: children of "Objects" with an int64 id; 6100:
 * named objects, given synthetic ids) are indexed in `objects`, and the
 * Connections section becomes per-object lists of parents and children.
 */
#ifndef RIGKIT_FBX_INTERNAL_H
#define RIGKIT_FBX_INTERNAL_H

#include "formats/fbx/fbx_dom.h"
#include "formats/fbx/fbx.h"

#define RKI_FBX_TICKS_PER_SECOND 46186158000.0

typedef struct rki_fbx_conn {
	uint32_t other;               /* object index of the other end */
	const char *prop;             /* property name for OP connections, NULL for OO */
} rki_fbx_conn;

typedef struct rki_fbx_object {
	int64_t id;                   /* 7x id; 6100: synthetic (index + 1) */
	const char *name;             /* without class prefix */
	const char *element;          /* DOM node name: "Model", "Geometry", "Deformer", ... */
	const char *sub_class;        /* "Mesh", "LimbNode", "Skin", "Cluster", "" */
	const rki_fbx_node *node;
	const rki_fbx_node *props;    /* Properties70 / Properties60 node or NULL */
	bool props60;                 /* props is Properties60 (values start at index 3) */
	const rki_fbx_node *templ;    /* template Properties70 for this object type, or NULL */
	/* connections (indices into ctx->conns) */
	uint32_t parents_begin, parents_count;   /* where this object is the child */
	uint32_t children_begin, children_count; /* where this object is the parent */
	void *out;                    /* the scene element built from this object, if any
	                                 (Model: rk_node*, Material, Texture, Skin, BlendShapeChannel) */
	void *geom_out;               /* rk_mesh* built from this object's geometry (7x Geometry,
	                                 6100 Model with Vertices) */
	uint32_t node_index;          /* Model: index into the final node array */
} rki_fbx_object;

typedef struct rki_fbx_ctx {
	rki_scene_ctx *sc;
	rki_fbx_doc doc;
	const char *filename;
	size_t object_count;
	rki_fbx_object *objects;      /* tmp arena */
	rki_fbx_conn *conns;          /* parents lists then children lists */
	size_t conn_count;
	int64_t *sorted_ids;          /* for id lookup: pairs (id, index) sorted by id */
	uint32_t *sorted_idx;
	const rki_fbx_node *objects_node;
	bool v6;                      /* version < 7000 (named objects, Properties60, Takes) */
	double frame_rate;
	/* Animation reader: per-curve temporaries (reset for every curve, so one
	 * warm block serves them all) and the last curve's key times (curves of
	 * one stack usually share them; equal arrays are stored once). */
	rki_arena curve_scratch;
	const double *last_times;
	size_t last_times_count;
} rki_fbx_ctx;

/* Object index for a 7x id, or UINT32_MAX. */
uint32_t rki_fbx_find_object(const rki_fbx_ctx *ctx, int64_t id);

/* Property lookup on an object (own Properties70/60 first, then its type's
 * template). Returns the P node, and the index of its first value. */
const rki_fbx_node *rki_fbx_obj_prop(const rki_fbx_object *o, const char *name, size_t *value_index);
double rki_fbx_obj_f64(const rki_fbx_object *o, const char *name, double def);
int64_t rki_fbx_obj_i64(const rki_fbx_object *o, const char *name, int64_t def);
rk_vec3 rki_fbx_obj_vec3(const rki_fbx_object *o, const char *name, rk_vec3 def);
/* String property, or def. */
const char *rki_fbx_obj_str(const rki_fbx_object *o, const char *name, const char *def);

/* Reports a DOM/format error at node n (path + offset) into the scene error. */
void rki_fbx_fail(rki_fbx_ctx *ctx, const rki_fbx_node *n, rk_error_code code, const char *fmt, ...) RKI_PRINTF(4, 5);
void rki_fbx_warn(rki_fbx_ctx *ctx, const rki_fbx_node *n, const char *fmt, ...) RKI_PRINTF(3, 4);

/* How a layer element's values map to polygon corners. */
typedef enum rki_fbx_mapping {
	RKI_MAP_NONE, RKI_MAP_CORNER, RKI_MAP_VERTEX, RKI_MAP_FACE, RKI_MAP_ALL
} rki_fbx_mapping;

/* Per-corner value indices: element e of corner c is c (CORNER), its vertex
 * (VERTEX), face_of[c] (FACE) or 0 (ALL); through ref[e] when ref is set
 * (IndexToDirect; negative = none). Missing or out-of-range values get
 * index value_count (the caller's zero sentinel). Writes idx[0..index_count)
 * and returns how many corners had no value. */
size_t rki_fbx_corner_indices(rki_fbx_mapping map, const int32_t *ref, size_t ref_count, size_t value_count,
	const uint32_t *vertex_indices, const uint32_t *face_of, size_t index_count, uint32_t *idx);

/* Reads g's Vertices and PolygonVertexIndex (negative = last corner of a
 * polygon) into m: vertex_count, positions, index_count, vertex_indices,
 * face_count, faces, triangle_count_hint. Out-of-range indices are clamped
 * to vertex 0 (warned). False on a fatal error (err set). */
bool rki_fbx_read_polygons(rki_fbx_ctx *ctx, const rki_fbx_node *g, rk_mesh *m);

/* Reads a Shape (7x Geometry "Shape" object, 6100/legacy Shape child):
 * Indexes, Vertices (offsets) and optional Normals into bs (name set).
 * Extra indices without offsets and short normal arrays are warned and
 * dropped; out-of-range vertex indices are skipped. *ni_out = indexes used,
 * *kept_out = offsets kept. False on a fatal error (err set). */
bool rki_fbx_read_shape(rki_fbx_ctx *ctx, const rki_fbx_node *sn, const char *name, const rk_mesh *mesh,
	rk_blend_shape *bs, size_t *ni_out, size_t *kept_out);

/* One skin cluster (7x Deformer "Cluster", legacy "Link"): the DOM node holding
 * Indexes, Weights, Transform and TransformLink, and its bone (NULL = none). */
typedef struct rki_fbx_cluster {
	const rki_fbx_node *node;
	rk_node *bone;
} rki_fbx_cluster;

/* Fills skin's joints, bind matrices (with bind-pose / static fallbacks for
 * missing Transform/TransformLink), CSR influences sorted by weight and the
 * skeleton root from `count` clusters. Name and method are the caller's. */
bool rki_fbx_build_skin_from_clusters(rki_fbx_ctx *ctx, const rki_fbx_cluster *clusters, size_t count,
	const rk_mesh *mesh, const rk_node *mesh_node, rk_skin_deformer *skin);

/* Animation (fbx_anim.c): builds scene->clips from AnimationStack/Layer/
 * CurveNode/Curve objects (7x) or Takes (6100). Needs nodes (object->out =
 * rk_node*) and blend channels (object->out = rk_blend_channel*) built
 * first. False on a fatal error (err set). */
bool rki_fbx_read_animation(rki_fbx_ctx *ctx);

/* Legacy layout (fbx_legacy.c): FBX 3000-5800 files keep their Models at the
 * top level, without Objects/Connections. rki_fbx_is_legacy() tells whether
 * the document has that layout; rki_fbx_build_legacy() then replaces the
 * object/connection path: it fills ctx->objects with one "Model" object per
 * top-level Model (out = rk_node*, for the Takes reader) and builds nodes,
 * meshes, skins, blend shapes and materials. False on a fatal error. */
bool rki_fbx_is_legacy(const rki_fbx_ctx *ctx);
bool rki_fbx_build_legacy(rki_fbx_ctx *ctx);

#endif
