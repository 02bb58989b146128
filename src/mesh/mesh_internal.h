/* src/mesh/mesh_internal.h - what the mesh layer's files share (not public API). */
#ifndef RIGKIT_MESH_INTERNAL_H
#define RIGKIT_MESH_INTERNAL_H

#include "core/internal.h"
#include "rigkit/mesh.h"

/* Area vector (Newell normal) of the polygon positions[corners[0..n)]:
 * sum over k of (p_k - p_0) x (p_k+1 - p_0), twice the area along the
 * polygon's normal for a planar polygon, in its winding. For a triangle it
 * is (b - a) x (c - a). Indices are not checked. */
rk_vec3 rki_polygon_area_vector(const rk_vec3 *positions, const uint32_t *corners, uint32_t n);

#endif
