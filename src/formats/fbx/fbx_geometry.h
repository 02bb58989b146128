/*
 * src/formats/fbx/fbx_geometry.h - polygon meshes and their layer elements
 * (fbx_geometry.c): positions, polygons, normals, UV sets, colours,
 * tangents and per-face materials. Calls fbx_objects, fbx_props and fbx_dom only.
 */
#ifndef RIGKIT_FBX_GEOMETRY_H
#define RIGKIT_FBX_GEOMETRY_H

#include "formats/fbx/fbx_internal.h"

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

/* True when o holds a polygon mesh: 7x Geometry "Mesh"; 6100 Model "Mesh"
 * with Vertices. */
bool rki_fbx_is_geometry_mesh(const rki_fbx_ctx *ctx, const rki_fbx_object *o);

/* Builds m (name, source id, polygons and layer elements; index set by the
 * caller) from the mesh object o. False on a fatal error (err set). */
bool rki_fbx_build_mesh(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_mesh *m);

#endif
