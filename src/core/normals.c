/* src/core/normals.c - smooth per-vertex normals, corner angle x polygon area
 * weighting (see core/normals.h; the contract is rk_mesh_smooth_normals' in
 * rigkit/mesh.h, SMOOTH NORMALS). Pure double math, no allocation. */
#include "core/normals.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

rk_vec3 rki_polygon_area_vector(const rk_vec3 *positions, const uint32_t *corners, uint32_t n)
{
	rk_vec3 sum = { 0, 0, 0 };
	rk_vec3 p0 = positions[corners[0]];
	for (uint32_t k = 1; k + 1 < n; k++)
		sum = rk_vec3_add(sum, rk_vec3_cross(rk_vec3_sub(positions[corners[k]], p0), rk_vec3_sub(positions[corners[k + 1]], p0)));
	return sum;
}

static bool rki_finite3(rk_vec3 v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

/* Angle between two edges leaving a corner, 0..pi: atan2(|e1 x e2|, e1 . e2)
 * is accurate at every angle (acos of a dot product is not near 0 and pi). */
static double rki_corner_angle(rk_vec3 e1, rk_vec3 e2)
{
	return atan2(rk_vec3_length(rk_vec3_cross(e1, e2)), rk_vec3_dot(e1, e2));
}

size_t rki_smooth_normals(rk_vec3 *destination, const rk_vec3 *positions, size_t vertex_count,
	const uint32_t *vertex_indices, size_t index_count, const void *faces, size_t face_stride, size_t face_count)
{
	if ((vertex_count && (!destination || !positions)) || (face_count && !faces) || (index_count && !vertex_indices))
		return face_count;
	for (size_t v = 0; v < vertex_count; v++) destination[v] = (rk_vec3){ 0, 0, 0 };
	size_t skipped = 0;
	const unsigned char *face_bytes = (const unsigned char *)faces;
	for (size_t f = 0; f < face_count; f++) {
		uint32_t range[2];  /* index_begin, index_count */
		memcpy(range, face_bytes + f * face_stride, sizeof(range));
		const uint32_t begin = range[0], n = range[1];
		if (n < 3 || begin > index_count || n > index_count - begin) { skipped++; continue; }
		const uint32_t *vi = vertex_indices + begin;
		bool ok = true;
		for (uint32_t k = 0; k < n && ok; k++) ok = vi[k] < vertex_count;
		if (!ok) { skipped++; continue; }
		rk_vec3 area = rki_polygon_area_vector(positions, vi, n);
		if (!rki_finite3(area) || !(rk_vec3_dot(area, area) > 0.0)) continue;  /* no area: no contribution */
		for (uint32_t k = 0; k < n; k++) {
			rk_vec3 p = positions[vi[k]];
			double angle = rki_corner_angle(rk_vec3_sub(positions[vi[(k + 1) % n]], p),
				rk_vec3_sub(positions[vi[(k + n - 1) % n]], p));
			if (!(angle > 0.0) || !isfinite(angle)) continue;
			destination[vi[k]] = rk_vec3_add(destination[vi[k]], rk_vec3_scale(area, angle));
		}
	}
	for (size_t v = 0; v < vertex_count; v++) {
		rk_vec3 s = destination[v];
		double len = rk_vec3_length(s);
		destination[v] = len > 0.0 && isfinite(len) ? (rk_vec3){ s.x / len, s.y / len, s.z / len } : (rk_vec3){ 0, 0, 0 };
	}
	return skipped;
}
