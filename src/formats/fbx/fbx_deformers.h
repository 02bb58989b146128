/*
 * src/formats/fbx/fbx_deformers.h - skins (clusters, bind matrices,
 * weights) and blend shapes (fbx_deformers.c). Calls fbx_objects,
 * fbx_props and fbx_dom only.
 */
#ifndef RIGKIT_FBX_DEFORMERS_H
#define RIGKIT_FBX_DEFORMERS_H

#include "formats/fbx/fbx_internal.h"

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

/* Builds skin (name, method, joints, weights; index set by the caller) from
 * the 7x Deformer "Skin" object so and its Cluster children, deforming mesh
 * (held by mesh_node, NULL when no Model uses it). False on a fatal error. */
bool rki_fbx_build_skin(rki_fbx_ctx *ctx, rki_fbx_object *so, const rk_mesh *mesh, const rk_node *mesh_node,
	rk_skin_deformer *skin);

/* Reads a Shape (7x Geometry "Shape" object, 6100/legacy Shape child):
 * Indexes, Vertices (offsets) and optional Normals into bs (name set).
 * Extra indices without offsets and short normal arrays are warned and
 * dropped; out-of-range vertex indices are skipped. *ni_out = indexes used,
 * *kept_out = offsets kept. False on a fatal error (err set). */
bool rki_fbx_read_shape(rki_fbx_ctx *ctx, const rki_fbx_node *sn, const char *name, const rk_mesh *mesh,
	rk_blend_shape *bs, size_t *ni_out, size_t *kept_out);

/* Appends blend channels to out[*out_count..] (the caller counted them) and
 * advances *out_count: _v6_shapes one per Shape child of the 6100 mesh
 * Model o; _blend one per BlendShapeChannel of the 7x Deformer "BlendShape"
 * bo (channel object->out = rk_blend_channel*). False on a fatal error. */
bool rki_fbx_build_v6_shapes(rki_fbx_ctx *ctx, const rki_fbx_object *o, rk_mesh *mesh, rk_blend_channel *out,
	size_t *out_count);
bool rki_fbx_build_blend(rki_fbx_ctx *ctx, rki_fbx_object *bo, rk_mesh *mesh, rk_blend_channel *out, size_t *out_count);

#endif
