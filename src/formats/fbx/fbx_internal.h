/*
 * src/formats/fbx/fbx_internal.h - state shared by the FBX scene reader's files:
 * the reader context and the object/connection index.
 *
 * Objects of the file (7x: children of "Objects" with an int64 id; 6100:
 * named objects, given synthetic ids) are indexed in `objects`, and the
 * Connections section becomes per-object lists of parents and children.
 *
 * FILES AND CALL GRAPH (an arrow means "calls"; no file calls one above it,
 * so the graph is a DAG with the orchestrator on top; each helper file's
 * functions are declared in its own header, fbx_<name>.h)
 *
 *   fbx_load.c       rki_fbx_load: settings, pass order, content assembly
 *     -> fbx_legacy, fbx_anim, fbx_materials, fbx_deformers, fbx_geometry,
 *        fbx_nodes, fbx_objects, fbx_props, fbx_dom
 *   fbx_legacy.c     3000-5800 layout: nodes, meshes, skins, shapes, materials
 *     -> fbx_deformers, fbx_geometry, fbx_nodes (child lists), fbx_objects, fbx_props, fbx_dom
 *   fbx_anim.c       stacks/layers/curves (7x) and Takes (5000-6100) -> clips
 *     -> fbx_objects, fbx_props, fbx_dom
 *   fbx_materials.c  textures and materials
 *     -> fbx_objects, fbx_props, fbx_dom
 *   fbx_deformers.c  skins (clusters, bind matrices, weights), blend shapes
 *     -> fbx_objects, fbx_props, fbx_dom
 *   fbx_geometry.c   polygons and layer elements -> rk_mesh
 *     -> fbx_objects, fbx_props, fbx_dom
 *   fbx_nodes.c      Models -> rk_node hierarchy, bind poses
 *     -> fbx_objects, fbx_props, fbx_dom
 *   fbx_objects.c    error/warning reports, object index, connections
 *     -> fbx_props, fbx_dom
 *   fbx_props.c      Properties70/60 lookup with templates, string helpers
 *     -> fbx_dom
 *   fbx_dom.h        the document tree (fbx_dom*.c; their call graph is in
 *                    fbx_dom_private.h)
 */
#ifndef RIGKIT_FBX_INTERNAL_H
#define RIGKIT_FBX_INTERNAL_H

#include "formats/fbx/fbx_dom.h"
#include "formats/fbx/fbx.h"

#define RKI_FBX_TICKS_PER_SECOND 46186158000.0

/* rki_fbx_conn.other of a connection to the scene root (id 0). */
#define RKI_FBX_ROOT_OBJECT (UINT32_MAX - 1)

typedef struct rki_fbx_conn {
	uint32_t other;               /* object index of the other end */
	const char *prop;             /* property name for OP connections, NULL for OO */
} rki_fbx_conn;

typedef struct rki_fbx_object {
	int64_t id;                   /* 7x id; 6100: rki_fbx_name_id() of "Class::name" */
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
	struct rki_fbx_id_map *id_map; /* id -> object index, open addressing (fbx_objects.c); tmp arena */
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

#endif
