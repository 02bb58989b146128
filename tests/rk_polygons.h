/*
 * tests/rk_polygons.h - big simple (and one non-simple) polygons in the
 * z = 0 plane, shared by tests/test_mesh.c and bench/bench_triangulate.c.
 * Each generator writes exactly `n` corners (n >= 8) counter-clockwise
 * into p and returns the polygon's exact area where it is known in closed
 * form (else 0). Plain header-only helpers, no rigkit calls.
 */
#ifndef RK_POLYGONS_H
#define RK_POLYGONS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <rigkit/base.h>

/* Star: n corners alternating between radius 2 and 0.8 (n even). Area
 * n * 0.5 * 2 * 0.8 * sin(2 pi / n). */
static inline double rk_poly_star(rk_vec3 *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double r = i % 2 ? 0.8 : 2.0, a = 2.0 * 3.14159265358979323846 * (double)i / (double)n;
		p[i] = (rk_vec3){ r * cos(a), r * sin(a), 0 };
	}
	return (double)n * 0.5 * 2.0 * 0.8 * sin(2.0 * 3.14159265358979323846 / (double)n);
}

/* Comb: a 2T x 1 base with T teeth of 1 x 4 (n = 4T + 2 corners, n - 2 a
 * multiple of 4). Area 2T + 4T. */
static inline double rk_poly_comb(rk_vec3 *p, size_t n)
{
	size_t teeth = (n - 2) / 4, k = 0;
	p[k++] = (rk_vec3){ 0, 0, 0 };
	p[k++] = (rk_vec3){ 2.0 * (double)teeth, 0, 0 };
	for (size_t t = teeth; t-- > 0;) {
		p[k++] = (rk_vec3){ 2.0 * (double)t + 2, 5, 0 };
		p[k++] = (rk_vec3){ 2.0 * (double)t + 1, 5, 0 };
		p[k++] = (rk_vec3){ 2.0 * (double)t + 1, 1, 0 };
		p[k++] = (rk_vec3){ 2.0 * (double)t, 1, 0 };
	}
	return 6.0 * (double)teeth;
}

/* Spiral band: the outer edge r = 1 + theta / pi over `turns` turns, then
 * back along r - 0.5 (n even, n / 2 corners per edge). Simple: successive
 * turns are 2 apart, the band 0.5 wide. Area not returned (0). */
static inline double rk_poly_spiral(rk_vec3 *p, size_t n, double turns)
{
	size_t m = n / 2;
	double pi = 3.14159265358979323846, total = 2.0 * pi * turns;
	for (size_t i = 0; i < m; i++) {
		double t = total * (double)i / (double)(m - 1), r = 1.0 + t / pi;
		p[i] = (rk_vec3){ r * cos(t), r * sin(t), 0 };
		p[n - 1 - i] = (rk_vec3){ (r - 0.5) * cos(t), (r - 0.5) * sin(t), 0 };
	}
	return 0.0;
}

/* Not simple: n corners on a circle visited with a stride coprime to n
 * (a {n/stride} star polygon, every edge crossing many others). */
static inline double rk_poly_tangle(rk_vec3 *p, size_t n, size_t stride)
{
	for (size_t i = 0; i < n; i++) {
		double a = 2.0 * 3.14159265358979323846 * (double)((i * stride) % n) / (double)n;
		p[i] = (rk_vec3){ cos(a), sin(a), 0 };
	}
	return 0.0;
}

#endif
