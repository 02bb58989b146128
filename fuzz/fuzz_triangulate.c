/*
 * fuzz/fuzz_triangulate.c - libFuzzer target for rk_polygon_triangulate
 * (src/mesh/mesh_triangulate.c), both paths: up to 64 corners (the scan)
 * and above (the heap + Z-order tree with its work budget).
 *
 * Input: byte 0 selects planar (even: z = 0) or 3D corners; then 6 bytes
 * per corner, three little-endian int16 coordinates; at most 20,000 corners.
 * Checks (abort on failure): n - 2 triangles for n >= 3 corners, every
 * index < n, every corner used, and the sum of the triangles' area vectors
 * equal to the polygon's (Newell) area vector, which the header guarantees
 * for every input. No seed corpus is needed (random bytes are polygons).
 */
#include "rigkit/mesh.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	bool planar = (data[0] & 1) == 0;
	size_t n = (size - 1) / 6;
	if (n > 20000) n = 20000;
	if (n < 3) return 0;
	rk_vec3 *p = (rk_vec3 *)malloc(n * sizeof(rk_vec3));
	uint32_t *tri = (uint32_t *)malloc(3 * n * sizeof(uint32_t));
	unsigned char *used = (unsigned char *)calloc(n, 1);
	size_t scratch_size = rk_polygon_triangulate_scratch_size(n);
	void *scratch = scratch_size ? malloc(scratch_size) : NULL;
	if (!p || !tri || !used || (scratch_size && !scratch)) abort();
	for (size_t i = 0; i < n; i++) {
		const uint8_t *q = data + 1 + 6 * i;
		int16_t x = (int16_t)(q[0] | q[1] << 8), y = (int16_t)(q[2] | q[3] << 8), z = (int16_t)(q[4] | q[5] << 8);
		p[i] = (rk_vec3){ x, y, planar ? 0 : z };
	}
	uint32_t flags = 0;
	size_t k = rk_polygon_triangulate(tri, p, n, NULL, n, scratch, scratch_size, &flags);
	if (k != n - 2 || (flags & RK_TRIANGULATE_INVALID)) abort();
	rk_vec3 sum = { 0, 0, 0 }, newell = { 0, 0, 0 };
	double scale = 0.0;
	for (size_t t = 0; t < k; t++) {
		uint32_t a = tri[3 * t], b = tri[3 * t + 1], c = tri[3 * t + 2];
		if (a >= n || b >= n || c >= n) abort();
		used[a] = used[b] = used[c] = 1;
		rk_vec3 cr = rk_vec3_cross(rk_vec3_sub(p[b], p[a]), rk_vec3_sub(p[c], p[a]));
		sum = rk_vec3_add(sum, cr);
		scale += rk_vec3_length(cr);
	}
	for (size_t i = 0; i < n; i++) {
		if (!used[i]) abort();
		rk_vec3 a = rk_vec3_sub(p[i], p[0]), b = rk_vec3_sub(p[(i + 1) % n], p[0]);
		newell = rk_vec3_add(newell, rk_vec3_cross(a, b));
	}
	/* exact in integer arithmetic up to rounding of the double sums */
	double tol = 1e-9 * (1.0 + scale);
	if (fabs(sum.x - newell.x) > tol || fabs(sum.y - newell.y) > tol || fabs(sum.z - newell.z) > tol) abort();
	free(p);
	free(tri);
	free(used);
	free(scratch);
	return 0;
}
