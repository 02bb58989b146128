/*
 * src/core/normals.h - the smooth-normal generator (not public API), over
 * plain arrays.
 *
 * The one implementation of generated smooth normals: the public
 * rk_mesh_smooth_normals (rigkit/mesh.h, SMOOTH NORMALS; src/mesh/
 * mesh_normals.c) is a thin wrapper over it, mesh expansion and the glTF
 * writer use it through that, and the demo characters' builder (formats/demo,
 * which may not include the mesh layer) calls it directly. The weighting and
 * the rules for bad input are documented on rk_mesh_smooth_normals.
 */
#ifndef RIGKIT_CORE_NORMALS_H
#define RIGKIT_CORE_NORMALS_H

#include "rigkit/math.h"

#include <stddef.h>
#include <stdint.h>

/* Area vector (Newell normal) of the polygon positions[corners[0..n)]:
 * sum over k of (p_k - p_0) x (p_k+1 - p_0), twice the area along the
 * polygon's normal for a planar polygon, in its winding. For a triangle it
 * is (b - a) x (c - a). Indices are not checked. */
rk_vec3 rki_polygon_area_vector(const rk_vec3 *positions, const uint32_t *corners, uint32_t n);

/* Smooth normals, rk_mesh_smooth_normals' contract and results. Faces are
 * face_count records face_stride bytes apart from `faces`, each beginning
 * with two uint32: index_begin, then index_count (rk_face's layout, so an
 * rk_face array is passed as (faces, sizeof(rk_face))); they need no
 * particular alignment. Returns the number of faces skipped (face_count when
 * a needed pointer is NULL; then nothing is written). Pure, no allocation. */
size_t rki_smooth_normals(rk_vec3 *destination, const rk_vec3 *positions, size_t vertex_count,
	const uint32_t *vertex_indices, size_t index_count, const void *faces, size_t face_stride, size_t face_count);

#endif
