/*
 * tests/test_mesh.c - rigkit/mesh.h: triangulation, parts, influences,
 * normals, deduplication, transforms, radius, bad inputs, shared assets.
 *
 * Expectations are derived independently in this file: shoelace areas and
 * point-in-polygon tests for triangulations, fractions worked out by hand
 * for weights (65535 = 17 * 3855 makes the UNORM16 values exact), the
 * documented normal weighting evaluated by hand for small fans, and for the
 * shared assets counts recomputed from the scene's faces.
 */
#include "rk_polygons.h"
#include "rk_test.h"

#include <rigkit/rigkit.h>
#include <rigkit/anim.h>
#include <rigkit/mesh.h>

#include <stdint.h>

/* ---------------------------------------------------------------------------
 * Helpers: 2D geometry computed independently of the library
 * ------------------------------------------------------------------------- */

static double shoelace(const rk_vec3 *p, size_t n)
{
	double a = 0.0;
	for (size_t i = 0; i < n; i++) {
		const rk_vec3 *q = &p[i], *r = &p[(i + 1) % n];
		a += q->x * r->y - r->x * q->y;
	}
	return 0.5 * a;
}

/* Crossing-number test; points exactly on an edge may go either way. */
static int point_in_polygon(const rk_vec3 *p, size_t n, double x, double y)
{
	int inside = 0;
	for (size_t i = 0, j = n - 1; i < n; j = i++) {
		if ((p[i].y > y) != (p[j].y > y)) {
			double xc = p[j].x + (y - p[j].y) * (p[i].x - p[j].x) / (p[i].y - p[j].y);
			if (x < xc) inside = !inside;
		}
	}
	return inside;
}

static double tri_area2d(rk_vec3 a, rk_vec3 b, rk_vec3 c)
{
	return 0.5 * ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
}

/* Triangulates a planar polygon given in the z = 0 plane, optionally
 * rotated into 3D by `rot` (columns = images of x, y, z), and checks:
 * n - 2 triangles, all corners used and in range, no reversed triangle,
 * the areas sum to the shoelace area, every non-degenerate triangle lies
 * inside the polygon (sample points tested), 3D area vectors face along
 * the rotated +z. Returns the flags. */
static uint32_t check_triangulation(rk_test_state *rk_t_, const rk_vec3 *p2, size_t n, const double *rot)
{
	rk_vec3 *p = (rk_vec3 *)malloc(n * sizeof(rk_vec3));
	uint32_t *tri = (uint32_t *)malloc(3 * n * sizeof(uint32_t));
	int *used = (int *)calloc(n, sizeof(int));
	size_t scratch_size = rk_polygon_triangulate_scratch_size(n);
	void *scratch = scratch_size ? malloc(scratch_size) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (rot) {
			p[i].x = rot[0] * p2[i].x + rot[3] * p2[i].y + 5.0;
			p[i].y = rot[1] * p2[i].x + rot[4] * p2[i].y - 3.0;
			p[i].z = rot[2] * p2[i].x + rot[5] * p2[i].y + 1.0;
		} else {
			p[i] = p2[i];
		}
	}
	uint32_t flags = 0xffu;
	size_t nt = rk_polygon_triangulate(tri, p, n, NULL, n, scratch, scratch_size, &flags);
	RK_CHECK_INT(nt, n - 2);
	double area = shoelace(p2, n), sum = 0.0;
	double sign = area < 0 ? -1.0 : 1.0;
	for (size_t t = 0; t < nt; t++) {
		uint32_t a = tri[3 * t], b = tri[3 * t + 1], c = tri[3 * t + 2];
		RK_CHECK(a < n && b < n && c < n);
		if (!(a < n && b < n && c < n)) continue;
		used[a] = used[b] = used[c] = 1;
		double ta = tri_area2d(p2[a], p2[b], p2[c]);
		RK_CHECK(ta * sign >= -1e-12);  /* same orientation as the polygon */
		sum += ta;
		if (fabs(ta) > 1e-9) {
			static const double w[4][3] = { { 1 / 3.0, 1 / 3.0, 1 / 3.0 }, { 0.8, 0.1, 0.1 }, { 0.1, 0.8, 0.1 }, { 0.1, 0.1, 0.8 } };
			for (int k = 0; k < 4; k++) {
				double x = w[k][0] * p2[a].x + w[k][1] * p2[b].x + w[k][2] * p2[c].x;
				double y = w[k][0] * p2[a].y + w[k][1] * p2[b].y + w[k][2] * p2[c].y;
				if (!point_in_polygon(p2, n, x, y))
					fprintf(stderr, "  triangle %zu (%u %u %u) sample %d (%g, %g) outside\n", t, a, b, c, k, x, y);
				RK_CHECK(point_in_polygon(p2, n, x, y));
			}
		}
		if (rot) {
			rk_vec3 e1 = rk_vec3_sub(p[b], p[a]), e2 = rk_vec3_sub(p[c], p[a]);
			rk_vec3 cr = rk_vec3_cross(e1, e2);
			double along = cr.x * rot[6] + cr.y * rot[7] + cr.z * rot[8];
			RK_CHECK(along * sign >= -1e-9);
			RK_CHECK_NEAR(0.5 * rk_vec3_length(cr), fabs(ta), 1e-9);
		}
	}
	RK_CHECK_NEAR(sum, area, 1e-9 * (1.0 + fabs(area)));
	for (size_t i = 0; i < n; i++) RK_CHECK(used[i]);
	free(p);
	free(tri);
	free(used);
	free(scratch);
	return flags;
}

/* A rotation: 30 degrees about (1, 2, 3)/|.|, as columns. */
static void test_rotation(double r[9])
{
	rk_mat4 m = rk_mat4_rotation(rk_quat_axis_angle((rk_vec3){ 1, 2, 3 }, RK_PI / 6));
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 3; k++) r[c * 3 + k] = m.m[c * 4 + k];
}

static void reverse_points(rk_vec3 *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		rk_vec3 t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

/* ---------------------------------------------------------------------------
 * Triangulation
 * ------------------------------------------------------------------------- */

RK_TEST(triangulate_l_shape)
{
	rk_vec3 L[6] = { { 0, 0, 0 }, { 2, 0, 0 }, { 2, 1, 0 }, { 1, 1, 0 }, { 1, 2, 0 }, { 0, 2, 0 } };
	double rot[9];
	test_rotation(rot);
	RK_CHECK_NEAR(shoelace(L, 6), 3.0, 0);
	RK_CHECK_INT(check_triangulation(rk_t_, L, 6, NULL), 0);
	RK_CHECK_INT(check_triangulation(rk_t_, L, 6, rot), 0);
	/* every rotation of the start corner, and clockwise */
	for (int s = 0; s < 6; s++) {
		rk_vec3 q[6];
		for (int i = 0; i < 6; i++) q[i] = L[(i + s) % 6];
		RK_CHECK_INT(check_triangulation(rk_t_, q, 6, rot), 0);
		reverse_points(q, 6);
		RK_CHECK_INT(check_triangulation(rk_t_, q, 6, rot), 0);
	}
}

RK_TEST(triangulate_star)
{
	rk_vec3 star[10];
	for (int i = 0; i < 10; i++) {
		double r = i % 2 ? 0.8 : 2.0, a = RK_PI / 2 + i * RK_PI / 5;
		star[i] = (rk_vec3){ r * cos(a), r * sin(a), 0 };
	}
	/* area of the 10-gon: 10 triangles centre-outer-inner, 0.5 * R * r * sin(36 deg) each */
	RK_CHECK_NEAR(shoelace(star, 10), 10 * 0.5 * 2.0 * 0.8 * sin(RK_PI / 5), 1e-12);
	double rot[9];
	test_rotation(rot);
	RK_CHECK_INT(check_triangulation(rk_t_, star, 10, NULL), 0);
	RK_CHECK_INT(check_triangulation(rk_t_, star, 10, rot), 0);
	reverse_points(star, 10);
	RK_CHECK_INT(check_triangulation(rk_t_, star, 10, rot), 0);
}

RK_TEST(triangulate_comb_needs_scratch)
{
	/* A comb with 12 teeth: 4 corners per tooth + 2 = 50 corners (> stack size). */
	rk_vec3 p[64];
	size_t n = 0;
	p[n++] = (rk_vec3){ 0, 0, 0 };
	p[n++] = (rk_vec3){ 24, 0, 0 };
	for (int t = 11; t >= 0; t--) {
		p[n++] = (rk_vec3){ 2.0 * t + 2, 5, 0 };
		p[n++] = (rk_vec3){ 2.0 * t + 1, 5, 0 };
		p[n++] = (rk_vec3){ 2.0 * t + 1, 1, 0 };
		p[n++] = (rk_vec3){ 2.0 * t, 1, 0 };
	}
	RK_CHECK(n > RK_TRIANGULATE_STACK_CORNERS);
	/* 24 x 1 base + 12 teeth of 1 x 4 */
	RK_CHECK_NEAR(shoelace(p, n), 24.0 + 12 * 4.0, 1e-12);
	double rot[9];
	test_rotation(rot);
	RK_CHECK_INT(check_triangulation(rk_t_, p, n, NULL), 0);
	RK_CHECK_INT(check_triangulation(rk_t_, p, n, rot), 0);
	/* without scratch it must refuse, not overflow */
	uint32_t tri[3 * 64], flags = 0;
	RK_CHECK_INT(rk_polygon_triangulate(tri, p, n, NULL, n, NULL, 0, &flags), 0);
	RK_CHECK_INT(flags, RK_TRIANGULATE_INVALID);
}

RK_TEST(triangulate_nonplanar_quads)
{
	/* Newell normals computed here: N = (p2 - p0) x (p3 - p1) for quads. */
	rk_vec3 quads[3][4] = {
		{ { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0.4 }, { 0, 1, 0 } },       /* one corner lifted */
		{ { 0, 0, 0 }, { 2, 1, 0.2 }, { 0, 2, 0 }, { 0.5, 1, -0.2 } },  /* concave dart, reflex corner 3 */
		{ { 0, 0, 0.3 }, { 1, 0, -0.3 }, { 1, 1, 0.3 }, { 0, 1, -0.3 } },/* saddle */
	};
	for (int q = 0; q < 3; q++) {
		const rk_vec3 *p = quads[q];
		rk_vec3 N = rk_vec3_cross(rk_vec3_sub(p[2], p[0]), rk_vec3_sub(p[3], p[1]));
		uint32_t tri[6], flags = 1;
		RK_CHECK_INT(rk_polygon_triangulate(tri, p, 4, NULL, 4, NULL, 0, &flags), 2);
		RK_CHECK_INT(flags, 0);
		int used[4] = { 0, 0, 0, 0 };
		for (int t = 0; t < 2; t++) {
			rk_vec3 cr = rk_vec3_cross(rk_vec3_sub(p[tri[3 * t + 1]], p[tri[3 * t]]), rk_vec3_sub(p[tri[3 * t + 2]], p[tri[3 * t]]));
			RK_CHECK(rk_vec3_dot(cr, N) > 0.0);
			for (int k = 0; k < 3; k++) used[tri[3 * t + k]] = 1;
		}
		RK_CHECK(used[0] && used[1] && used[2] && used[3]);
	}
	/* the dart must be split along 1-3 (the only interior diagonal) */
	uint32_t tri[6];
	rk_polygon_triangulate(tri, quads[1], 4, NULL, 4, NULL, 0, NULL);
	int has13 = 0;
	for (int t = 0; t < 2; t++) {
		int h1 = 0, h3 = 0;
		for (int k = 0; k < 3; k++) { h1 |= tri[3 * t + k] == 1; h3 |= tri[3 * t + k] == 3; }
		has13 += h1 && h3;
	}
	RK_CHECK_INT(has13, 2);

	/* a non-planar concave hexagon: the L shape with a height field */
	rk_vec3 L[6] = { { 0, 0, 0 }, { 2, 0, 0.3 }, { 2, 1, 0.1 }, { 1, 1, -0.2 }, { 1, 2, 0.25 }, { 0, 2, -0.1 } };
	RK_CHECK_INT(check_triangulation(rk_t_, L, 6, NULL), 0);  /* checks in the xy projection */
}

RK_TEST(triangulate_collinear)
{
	rk_vec3 a[5] = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 2, 2, 0 }, { 0, 2, 0 } };
	RK_CHECK_INT(check_triangulation(rk_t_, a, 5, NULL), 0);
	/* a 2x2 square with every edge split in three: 12 corners, 8 collinear */
	rk_vec3 sq[12];
	size_t n = 0;
	for (int i = 0; i < 3; i++) sq[n++] = (rk_vec3){ i * 2.0 / 3, 0, 0 };
	for (int i = 0; i < 3; i++) sq[n++] = (rk_vec3){ 2, i * 2.0 / 3, 0 };
	for (int i = 0; i < 3; i++) sq[n++] = (rk_vec3){ 2 - i * 2.0 / 3, 2, 0 };
	for (int i = 0; i < 3; i++) sq[n++] = (rk_vec3){ 0, 2 - i * 2.0 / 3, 0 };
	double rot[9];
	test_rotation(rot);
	RK_CHECK_INT(check_triangulation(rk_t_, sq, 12, NULL), 0);
	RK_CHECK_INT(check_triangulation(rk_t_, sq, 12, rot), 0);
	/* L shape with midpoints on two long edges (one of them on a diagonal's line) */
	rk_vec3 l2[8] = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 2, 1, 0 }, { 1, 1, 0 }, { 1, 2, 0 }, { 0, 2, 0 }, { 0, 1, 0 } };
	RK_CHECK_INT(check_triangulation(rk_t_, l2, 8, rot), 0);
	/* all corners on one line: no area, fanned, flagged */
	rk_vec3 line[4] = { { 0, 0, 0 }, { 1, 1, 1 }, { 2, 2, 2 }, { 3, 3, 3 } };
	uint32_t tri[6], flags = 0;
	RK_CHECK_INT(rk_polygon_triangulate(tri, line, 4, NULL, 4, NULL, 0, &flags), 2);
	RK_CHECK_INT(flags, RK_TRIANGULATE_DEGENERATE);
}

RK_TEST(triangulate_repeated_vertex)
{
	/* consecutive duplicate */
	rk_vec3 a[5] = { { 0, 0, 0 }, { 2, 0, 0 }, { 2, 2, 0 }, { 2, 2, 0 }, { 0, 2, 0 } };
	RK_CHECK_INT(check_triangulation(rk_t_, a, 5, NULL), 0);
	/* duplicate of the first corner at the end */
	rk_vec3 b[5] = { { 0, 0, 0 }, { 2, 0, 0 }, { 2, 2, 0 }, { 0, 2, 0 }, { 0, 0, 0 } };
	RK_CHECK_INT(check_triangulation(rk_t_, b, 5, NULL), 0);
	/* two unit squares touching at (1, 1), which is visited twice */
	rk_vec3 pinch[8] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 2, 1, 0 }, { 2, 2, 0 }, { 1, 2, 0 }, { 1, 1, 0 }, { 0, 1, 0 } };
	RK_CHECK_NEAR(shoelace(pinch, 8), 2.0, 0);
	double rot[9];
	test_rotation(rot);
	RK_CHECK_INT(check_triangulation(rk_t_, pinch, 8, NULL), 0);
	RK_CHECK_INT(check_triangulation(rk_t_, pinch, 8, rot), 0);
	/* a square with a square hole joined by a doubled bridge edge (keyhole) */
	rk_vec3 key[10] = { { 0, 0, 0 }, { 4, 0, 0 }, { 4, 4, 0 }, { 0, 4, 0 }, { 0, 0, 0 },
		{ 1, 1, 0 }, { 1, 3, 0 }, { 3, 3, 0 }, { 3, 1, 0 }, { 1, 1, 0 } };
	RK_CHECK_NEAR(shoelace(key, 10), 16.0 - 4.0, 0);
	RK_CHECK_INT(check_triangulation(rk_t_, key, 10, NULL), 0);
	RK_CHECK_INT(check_triangulation(rk_t_, key, 10, rot), 0);
	/* indices referencing the same position twice (FBX-style repeated vertex) */
	rk_vec3 pos[4] = { { 0, 0, 0 }, { 2, 0, 0 }, { 2, 2, 0 }, { 0, 2, 0 } };
	uint32_t idx[5] = { 0, 1, 2, 2, 3 };
	uint32_t tri[9], flags = 9;
	RK_CHECK_INT(rk_polygon_triangulate(tri, pos, 4, idx, 5, NULL, 0, &flags), 3);
	RK_CHECK_INT(flags, 0);
	double sum = 0;
	for (int t = 0; t < 3; t++) {
		double ta = tri_area2d(pos[idx[tri[3 * t]]], pos[idx[tri[3 * t + 1]]], pos[idx[tri[3 * t + 2]]]);
		RK_CHECK(ta >= 0.0);
		sum += ta;
	}
	RK_CHECK_NEAR(sum, 4.0, 1e-12);
}

/* A star-shaped polygon of `want` corners at increasing angles with random
 * radii (always simple); with `extras`, random duplicate corners and edge
 * midpoints as well (at most 2 * want corners). Returns the corner count. */
static size_t random_star_polygon(rk_vec3 *p, size_t want, int extras, uint64_t *rng)
{
	uint64_t state = *rng;
	size_t n = 0;
	for (size_t i = 0; i < want; i++) {
		state ^= state << 13; state ^= state >> 7; state ^= state << 17;
		double u = (double)(state >> 11) / 9007199254740992.0;
		state ^= state << 13; state ^= state >> 7; state ^= state << 17;
		double r = 0.2 + (double)(state >> 11) / 9007199254740992.0;
		double a = 2 * RK_PI * ((double)i + 0.8 * u) / (double)want;
		p[n++] = (rk_vec3){ r * cos(a), r * sin(a), 0 };
		if (extras && (state & 7) == 0) { p[n] = p[n - 1]; n++; }
		if (extras && (state & 7) == 1 && n >= 2) {
			rk_vec3 q = p[n - 1];
			p[n - 1] = (rk_vec3){ 0.5 * (p[n - 2].x + q.x), 0.5 * (p[n - 2].y + q.y), 0 };
			p[n++] = q;
		}
	}
	*rng = state;
	return n;
}

/* Star-shaped polygons (corners at increasing angles, random radii: always
 * simple) with random duplicate corners and edge midpoints, in 3D. */
RK_TEST(triangulate_random_star_polygons)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;
	double rot[9];
	test_rotation(rot);
	rk_vec3 p[128];
	for (int it = 0; it < 2000; it++) {
		size_t n, want = 3 + (size_t)(it % 40);
		n = random_star_polygon(p, want, it % 2, &state);
		int before = rk_t_->failed;
		RK_CHECK_INT(check_triangulation(rk_t_, p, n, it % 3 ? rot : NULL), 0);
		if (rk_t_->failed != before) { fprintf(stderr, "  random polygon %d (%zu corners)\n", it, n); break; }
	}
	/* quads: their own fast path; about half of these are concave darts */
	for (int it = 0; it < 4000; it++) {
		for (int i = 0; i < 4; i++) {
			state ^= state << 13; state ^= state >> 7; state ^= state << 17;
			double u = (double)(state >> 11) / 9007199254740992.0;
			state ^= state << 13; state ^= state >> 7; state ^= state << 17;
			double r = 0.05 + (double)(state >> 11) / 9007199254740992.0;
			double a = 2 * RK_PI * (i + 0.9 * u) / 4;
			p[i] = (rk_vec3){ r * cos(a), r * sin(a), 0 };
		}
		int before = rk_t_->failed;
		RK_CHECK_INT(check_triangulation(rk_t_, p, 4, it % 2 ? rot : NULL), 0);
		if (rk_t_->failed != before) { fprintf(stderr, "  random quad %d\n", it); break; }
	}
}

/* Big polygons take the indexed path (more than 64 corners): the same
 * checks as above on random star-shaped polygons with duplicates and
 * midpoints, and on a comb, keyhole and spiral. */
RK_TEST(triangulate_big_polygons)
{
	uint64_t state = 0x243f6a8885a308d3ull;
	double rot[9];
	test_rotation(rot);
	size_t cap = 4096;
	rk_vec3 *p = (rk_vec3 *)malloc(cap * sizeof(rk_vec3));
	RK_REQUIRE(p);
	for (int it = 0; it < 120; it++) {
		size_t n, want = 65 + (size_t)(it * 7 % 300);
		n = random_star_polygon(p, want, it % 2, &state);
		int before = rk_t_->failed;
		RK_CHECK_INT(check_triangulation(rk_t_, p, n, it % 3 ? rot : NULL), 0);
		if (rk_t_->failed != before) { fprintf(stderr, "  big random polygon %d (%zu corners)\n", it, n); break; }
	}
	/* comb of 100 teeth, both windings */
	double area = rk_poly_comb(p, 402);
	RK_CHECK_NEAR(shoelace(p, 402), area, 1e-9);
	RK_CHECK_INT(check_triangulation(rk_t_, p, 402, rot), 0);
	reverse_points(p, 402);
	RK_CHECK_INT(check_triangulation(rk_t_, p, 402, NULL), 0);
	/* star of 1000 corners */
	area = rk_poly_star(p, 1000);
	RK_CHECK_NEAR(shoelace(p, 1000), area, 1e-9);
	RK_CHECK_INT(check_triangulation(rk_t_, p, 1000, rot), 0);
	/* spiral band of 5 turns, 1200 corners */
	rk_poly_spiral(p, 1200, 5.0);
	RK_CHECK_INT(check_triangulation(rk_t_, p, 1200, NULL), 0);
	/* keyhole: a square of 200 corners (edges split) around a square hole of
	 * 100, joined by a doubled bridge edge */
	size_t n = 0;
	for (int e = 0; e < 4; e++)
		for (int i = 0; i < 50; i++) {
			double t = 4.0 * i / 50.0;
			rk_vec3 q = e == 0 ? (rk_vec3){ t, 0, 0 } : e == 1 ? (rk_vec3){ 4, t, 0 } : e == 2 ? (rk_vec3){ 4 - t, 4, 0 } : (rk_vec3){ 0, 4 - t, 0 };
			p[n++] = q;
		}
	p[n++] = (rk_vec3){ 0, 0, 0 };
	for (int e = 0; e < 4; e++)
		for (int i = 0; i < 25; i++) {
			double t = 2.0 * i / 25.0;
			rk_vec3 q = e == 0 ? (rk_vec3){ 1, 1 + t, 0 } : e == 1 ? (rk_vec3){ 1 + t, 3, 0 } : e == 2 ? (rk_vec3){ 3, 3 - t, 0 } : (rk_vec3){ 3 - t, 1, 0 };
			p[n++] = q;
		}
	p[n++] = (rk_vec3){ 1, 1, 0 };
	RK_CHECK_NEAR(shoelace(p, n), 12.0, 1e-9);
	RK_CHECK_INT(check_triangulation(rk_t_, p, n, rot), 0);
	free(p);
}

/* A polygon whose edges all cross: every corner used, n - 2 triangles, the
 * signed areas summing to the polygon's (shoelace), within the budget. */
RK_TEST(triangulate_big_self_intersecting)
{
	size_t n = 3001;
	rk_vec3 *p = (rk_vec3 *)malloc(n * sizeof(rk_vec3));
	uint32_t *tri = (uint32_t *)malloc(3 * n * sizeof(uint32_t));
	size_t scratch_size = rk_polygon_triangulate_scratch_size(n);
	void *scratch = malloc(scratch_size);
	RK_REQUIRE(p && tri && scratch);
	rk_poly_tangle(p, n, 1000);
	uint32_t flags = 0;
	RK_CHECK_INT(rk_polygon_triangulate(tri, p, n, NULL, n, scratch, scratch_size, &flags), n - 2);
	RK_CHECK(flags & RK_TRIANGULATE_FALLBACK);
	double sum = 0;
	int *used = (int *)calloc(n, sizeof(int));
	RK_REQUIRE(used);
	for (size_t t = 0; t < n - 2; t++) {
		RK_CHECK(tri[3 * t] < n && tri[3 * t + 1] < n && tri[3 * t + 2] < n);
		sum += tri_area2d(p[tri[3 * t]], p[tri[3 * t + 1]], p[tri[3 * t + 2]]);
		used[tri[3 * t]] = used[tri[3 * t + 1]] = used[tri[3 * t + 2]] = 1;
	}
	RK_CHECK_NEAR(sum, shoelace(p, n), 1e-9 * (1.0 + fabs(shoelace(p, n))));
	for (size_t i = 0; i < n; i++) RK_CHECK(used[i]);
	free(used);
	free(p);
	free(tri);
	free(scratch);
}

RK_TEST(triangulate_counts_and_bad_args)
{
	rk_vec3 p[8];
	for (int i = 0; i < 8; i++) p[i] = (rk_vec3){ cos(i * RK_PI / 4), sin(i * RK_PI / 4), 0 };
	uint32_t tri[3 * 8], flags;
	for (size_t n = 0; n <= 8; n++) RK_CHECK_INT(rk_polygon_triangulate(tri, p, 8, NULL, n, NULL, 0, &flags), n >= 3 ? n - 2 : 0);
	uint32_t bad[3] = { 0, 1, 8 };
	RK_CHECK_INT(rk_polygon_triangulate(tri, p, 8, bad, 3, NULL, 0, &flags), 0);
	RK_CHECK_INT(flags, RK_TRIANGULATE_INVALID);
	RK_CHECK_INT(rk_polygon_triangulate(NULL, p, 8, NULL, 3, NULL, 0, &flags), 0);
	RK_CHECK_INT(flags, RK_TRIANGULATE_INVALID);
	RK_CHECK_INT(rk_polygon_triangulate(tri, p, 2, NULL, 3, NULL, 0, &flags), 0);
	RK_CHECK_INT(flags, RK_TRIANGULATE_INVALID);
	RK_CHECK_INT(rk_polygon_triangulate_scratch_size(4), 0);
	RK_CHECK(rk_polygon_triangulate_scratch_size(100) >= 100 * 16);
	RK_CHECK_INT(rk_polygon_triangulate_scratch_size(SIZE_MAX / 2), SIZE_MAX);
	/* a self-intersecting bow tie still gives n - 2 triangles, flagged */
	rk_vec3 bow[6] = { { 0, 0, 0 }, { 2, 2, 0 }, { 2, 0, 0 }, { 0, 2, 0 }, { -1, 3, 0 }, { -1, -1, 0 } };
	RK_CHECK_INT(rk_polygon_triangulate(tri, bow, 6, NULL, 6, NULL, 0, &flags), 4);
	RK_CHECK(!(flags & RK_TRIANGULATE_INVALID));
	/* signed area still exact */
	double sum = 0;
	for (int t = 0; t < 4; t++) sum += tri_area2d(bow[tri[3 * t]], bow[tri[3 * t + 1]], bow[tri[3 * t + 2]]);
	RK_CHECK_NEAR(sum, shoelace(bow, 6), 1e-12);
}

/* ---------------------------------------------------------------------------
 * Hand-built scenes
 * ------------------------------------------------------------------------- */

static void init_node(rk_node *n, uint32_t index, const char *name, rk_mesh *mesh)
{
	memset(n, 0, sizeof(*n));
	n->index = index;
	n->name = name;
	n->kind = mesh ? RK_NODE_MESH : RK_NODE_ROOT;
	n->node_to_parent = n->node_to_world = n->geometry_to_node = n->geometry_to_world = n->unscaled_node_to_world = rk_mat4_identity();
	n->local = rk_trs_identity();
	n->mesh = mesh;
	n->attribute_type = "";
	n->default_uv_set = "";
	n->visible = true;
}

/* Simple mesh: positions as given; faces from a count list; vertex_indices given. */
static void init_mesh(rk_mesh *m, const rk_vec3 *pos, size_t vcount, const uint32_t *vidx, size_t icount,
	const rk_face *faces, size_t fcount)
{
	memset(m, 0, sizeof(*m));
	m->name = "m";
	m->vertex_count = vcount;
	m->positions_f64 = pos;
	m->index_count = icount;
	m->vertex_indices = vidx;
	m->face_count = fcount;
	m->faces = faces;
}

typedef struct expanded {
	rk_mesh_expand_job job;
	rk_mesh_expand_output out;
	rk_mesh_part *parts;
	unsigned char *vertices;
	uint32_t *indices;
	void *scratch;
	bool ok;
	rk_error err;
} expanded;

/* The job's error convention: run() says whether, validate() says why. */
static bool expand_run(const rk_mesh_expand_job *job, rk_error *err)
{
	if (!rk_mesh_expand_validate(job, err)) return false;
	return rk_mesh_expand_run(job);
}

static void expand(expanded *e, const rk_node *node, const rk_mesh_opts *opts)
{
	memset(e, 0, sizeof(*e));
	rk_mesh_expand_sizes s;
	e->ok = rk_mesh_expand_bound(node, opts, &s, &e->err);
	if (!e->ok) return;
	rk_vertex_format f = rk_mesh_vertex_format(opts);
	e->vertices = (unsigned char *)malloc(s.max_vertices * f.stride + 4);
	e->indices = (uint32_t *)malloc(s.index_count * 4 + 4);
	e->scratch = malloc(s.scratch_size);
	e->parts = (rk_mesh_part *)malloc(s.max_parts * sizeof(rk_mesh_part));
	e->job.node = node;
	e->job.opts = opts;
	e->job.vertices = e->vertices;
	e->job.vertex_capacity = s.max_vertices;
	e->job.indices = e->indices;
	e->job.index_capacity = s.index_count;
	e->job.parts = e->parts;
	e->job.part_capacity = s.max_parts;
	e->job.scratch = e->scratch;
	e->job.scratch_size = s.scratch_size;
	e->job.output = &e->out;
	e->ok = expand_run(&e->job, &e->err);
}

static void expanded_free(expanded *e)
{
	free(e->vertices);
	free(e->indices);
	free(e->scratch);
	free(e->parts);
}

static rk_gpu_vertex vtx(const expanded *e, uint32_t i)
{
	rk_gpu_vertex v;
	memcpy(&v, e->vertices + (size_t)i * e->out.format.stride, sizeof(v) < e->out.format.stride ? sizeof(v) : e->out.format.stride);
	return v;
}

RK_TEST(vertex_format_layout)
{
	rk_vertex_format f = rk_mesh_vertex_format(NULL);
	RK_CHECK_INT(f.stride, 56);
	RK_CHECK_INT(f.stride, sizeof(rk_gpu_vertex));
	RK_CHECK_INT(f.position_offset, 0);
	RK_CHECK_INT(f.normal_offset, 12);
	RK_CHECK_INT(f.uv_offset, 24);
	RK_CHECK_INT(f.joints_offset, 32);
	RK_CHECK_INT(f.weights_offset, 40);
	RK_CHECK_INT(f.tangent_offset, RK_ATTRIBUTE_ABSENT);
	rk_mesh_opts o = { 0 };
	o.weight_format = RK_WEIGHTS_UNORM16;
	RK_CHECK_INT(rk_mesh_vertex_format(&o).stride, 48);
	o.tangents = true;
	f = rk_mesh_vertex_format(&o);
	RK_CHECK_INT(f.stride, 64);
	RK_CHECK_INT(f.tangent_offset, 48);
	o.no_skin_attributes = true;
	f = rk_mesh_vertex_format(&o);
	RK_CHECK_INT(f.stride, 48);
	RK_CHECK_INT(f.joints_offset, RK_ATTRIBUTE_ABSENT);
	RK_CHECK_INT(f.weights_offset, RK_ATTRIBUTE_ABSENT);
	RK_CHECK_INT(f.tangent_offset, 32);
}

/* Four faces at different heights z = face number, so the part a triangle
 * landed in can be traced back to its face. */
static const rk_face four_faces[4] = { { 0, 3 }, { 3, 4 }, { 7, 3 }, { 10, 5 } };
static rk_vec3 four_pos[15];
static uint32_t four_idx[15];

static void init_four(rk_mesh *m)
{
	for (int f = 0; f < 4; f++) {
		for (uint32_t k = 0; k < four_faces[f].index_count; k++) {
			double a = 2 * RK_PI * k / four_faces[f].index_count;
			uint32_t c = four_faces[f].index_begin + k;
			four_pos[c] = (rk_vec3){ cos(a), sin(a), (double)f };
			four_idx[c] = c;
		}
	}
	init_mesh(m, four_pos, 15, four_idx, 15, four_faces, 4);
}

/* Which face a part's triangles come from, as a bit mask of z values. */
static unsigned part_faces(const expanded *e, const rk_mesh_part *p)
{
	unsigned mask = 0;
	for (uint32_t i = p->start_index; i < p->start_index + p->index_count; i++) {
		rk_gpu_vertex v = vtx(e, e->indices[i]);
		mask |= 1u << (int)lround(v.position[2]);
	}
	return mask;
}

RK_TEST(parts_grouping)
{
	rk_material mats[4];
	memset(mats, 0, sizeof(mats));
	mats[0].name = "A"; mats[1].name = "B"; mats[2].name = "C"; mats[3].name = "D";
	rk_mesh mesh;
	init_four(&mesh);
	rk_node node;
	init_node(&node, 1, "n", &mesh);

	/* node slots [A, B] win over mesh slots [C]; face slots {1, 0, 1, 5} */
	rk_material *node_slots[2] = { &mats[0], &mats[1] };
	rk_material *mesh_slots[1] = { &mats[2] };
	node.materials = (rk_material_ref_list){ node_slots, 2 };
	mesh.materials = (rk_material_ref_list){ mesh_slots, 1 };
	uint32_t fm[4] = { 1, 0, 1, 5 };
	mesh.face_material = fm;
	expanded e;
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_REQUIRE(e.out.part_count == 3);
	RK_CHECK(e.parts[0].material == &mats[0]);
	RK_CHECK_INT(e.parts[0].material_slot, 0);
	RK_CHECK_INT(e.parts[0].index_count, 3 * 2);      /* face 1: quad */
	RK_CHECK_INT(part_faces(&e, &e.parts[0]), 1u << 1);
	RK_CHECK(e.parts[1].material == &mats[1]);
	RK_CHECK_INT(e.parts[1].material_slot, 1);
	RK_CHECK_INT(e.parts[1].index_count, 3 * (1 + 1)); /* faces 0 and 2: triangles */
	RK_CHECK_INT(part_faces(&e, &e.parts[1]), (1u << 0) | (1u << 2));
	RK_CHECK(e.parts[2].material == NULL);
	RK_CHECK_INT(e.parts[2].material_slot, UINT32_MAX);
	RK_CHECK_INT(e.parts[2].index_count, 3 * 3);      /* face 3: pentagon */
	RK_CHECK_INT(part_faces(&e, &e.parts[2]), 1u << 3);
	RK_CHECK_INT(e.out.stats.invalid_material_slots, 1);
	/* contiguous, in order, covering the index buffer */
	uint32_t at = 0;
	for (size_t p = 0; p < e.out.part_count; p++) {
		RK_CHECK_INT(e.parts[p].start_index, at);
		at += e.parts[p].index_count;
	}
	RK_CHECK_INT(at, e.out.index_count);
	RK_CHECK_INT(e.out.index_count, 3 * (1 + 2 + 1 + 3));
	expanded_free(&e);

	/* slots naming the same material merge; NULL slot joins the NULL part */
	rk_material *slots3[4] = { &mats[3], NULL, &mats[3], &mats[0] };
	node.materials = (rk_material_ref_list){ slots3, 4 };
	uint32_t fm2[4] = { 2, 3, 0, 1 };
	mesh.face_material = fm2;
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_REQUIRE(e.out.part_count == 3);
	RK_CHECK(e.parts[0].material == &mats[3]);
	RK_CHECK_INT(part_faces(&e, &e.parts[0]), (1u << 0) | (1u << 2));
	RK_CHECK(e.parts[1].material == NULL);
	RK_CHECK_INT(e.parts[1].material_slot, 1);
	RK_CHECK_INT(part_faces(&e, &e.parts[1]), 1u << 3);
	RK_CHECK(e.parts[2].material == &mats[0]);
	RK_CHECK_INT(e.parts[2].material_slot, 3);
	RK_CHECK_INT(part_faces(&e, &e.parts[2]), 1u << 1);
	RK_CHECK_INT(e.out.stats.invalid_material_slots, 0);
	expanded_free(&e);

	/* no node slots: the mesh's; face_material NULL: slot 0 for all */
	node.materials = (rk_material_ref_list){ NULL, 0 };
	mesh.face_material = NULL;
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_REQUIRE(e.out.part_count == 1);
	RK_CHECK(e.parts[0].material == &mats[2]);
	RK_CHECK_INT(part_faces(&e, &e.parts[0]), 0xfu);
	expanded_free(&e);

	/* no slots at all: one NULL part, nothing counted as invalid */
	mesh.materials = (rk_material_ref_list){ NULL, 0 };
	mesh.face_material = fm;
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_REQUIRE(e.out.part_count == 1);
	RK_CHECK(e.parts[0].material == NULL);
	RK_CHECK_INT(e.out.stats.invalid_material_slots, 0);
	RK_CHECK_INT(e.out.stats.polygons, 4);
	RK_CHECK_INT(e.out.stats.triangles, 7);
	expanded_free(&e);
}

/* 200 slots over 7 materials (slot k -> material 3k mod 7, every 50th slot
 * NULL), one triangle per slot at height z = slot. */
RK_TEST(parts_many_slots)
{
	enum { F = 200 };
	static rk_vec3 pos[3 * F];
	static uint32_t idx[3 * F], fm[F];
	static rk_face faces[F];
	static rk_material *slots[F];
	rk_material mats[7];
	memset(mats, 0, sizeof(mats));
	for (int f = 0; f < F; f++) {
		for (int k = 0; k < 3; k++) {
			pos[3 * f + k] = (rk_vec3){ k == 1, k == 2, f };
			idx[3 * f + k] = (uint32_t)(3 * f + k);
		}
		faces[f] = (rk_face){ (uint32_t)(3 * f), 3 };
		fm[f] = (uint32_t)(F - 1 - f);  /* faces in reverse slot order */
		slots[f] = f % 50 == 49 ? NULL : &mats[(3 * f) % 7];
	}
	rk_mesh mesh;
	init_mesh(&mesh, pos, 3 * F, idx, 3 * F, faces, F);
	mesh.face_material = fm;
	mesh.materials = (rk_material_ref_list){ slots, F };
	rk_node node;
	init_node(&node, 1, "many", &mesh);
	expanded e;
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_REQUIRE(e.out.part_count == 8);
	/* first slots 0..6 name materials 0, 3, 6, 2, 5, 1, 4; the NULL part first appears at slot 49 */
	static const int order[7] = { 0, 3, 6, 2, 5, 1, 4 };
	for (int p = 0; p < 7; p++) {
		RK_CHECK(e.parts[p].material == &mats[order[p]]);
		RK_CHECK_INT(e.parts[p].material_slot, p);
	}
	RK_CHECK(e.parts[7].material == NULL);
	RK_CHECK_INT(e.parts[7].material_slot, 49);
	RK_CHECK_INT(e.parts[7].index_count, 3 * 4);
	size_t total = 0;
	for (size_t p = 0; p < e.out.part_count; p++) {
		for (uint32_t i = e.parts[p].start_index; i < e.parts[p].start_index + e.parts[p].index_count; i++) {
			int slot = F - 1 - (int)lround(vtx(&e, e.indices[i]).position[2]);
			rk_material *want = slot % 50 == 49 ? NULL : &mats[(3 * slot) % 7];
			RK_CHECK(e.parts[p].material == want);
		}
		total += e.parts[p].index_count;
	}
	RK_CHECK_INT(total, 3 * F);
	expanded_free(&e);
}

/* One triangle per vertex group; skin with hand-made influences. */
RK_TEST(skin_top4_renormalised)
{
	rk_vec3 pos[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	uint32_t vi[3] = { 0, 1, 2 };
	rk_face face = { 0, 3 };
	rk_mesh mesh;
	init_mesh(&mesh, pos, 3, vi, 3, &face, 1);
	rk_node nodes[8];
	for (int i = 0; i < 8; i++) init_node(&nodes[i], (uint32_t)i, "j", NULL);
	rk_node node;
	init_node(&node, 20, "n", &mesh);
	rk_skin_joint joints[7];
	memset(joints, 0, sizeof(joints));
	for (int j = 0; j < 6; j++) joints[j].node = &nodes[j + 2];  /* node index = joint + 2 */
	joints[6].node = NULL;
	/* vertex 0: 6 influences unsorted (0.05, 0.3, 0.1, 0.25, 0.2, 0.1) + junk;
	 * vertex 1: none usable; vertex 2: beyond skin->vertex_count */
	rk_skin_weight w[] = {
		{ 0, 0.05f }, { 1, 0.3f }, { 2, 0.1f }, { 3, 0.25f }, { 4, 0.2f }, { 5, 0.1f },
		{ 9, 0.9f }, { 1, -0.5f },
		{ 6, 0.7f }, { 2, 0.0f },
	};
	uint32_t begin[3] = { 0, 8, 10 };
	rk_skin_deformer skin;
	memset(&skin, 0, sizeof(skin));
	skin.name = "s";
	skin.joint_count = 7;
	skin.joints = joints;
	skin.vertex_count = 2;
	skin.weight_begin = begin;
	skin.weight_count = 10;
	skin.weights = w;
	node.skin = &skin;

	rk_mesh_opts o = { 0 };
	o.no_dedup = true;
	expanded e;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK(e.out.skinned);
	/* kept: joint 1 (0.3), 3 (0.25), 4 (0.2), then the 0.1 tie -> joint 2;
	 * sum 0.85: 6/17, 5/17, 4/17, 2/17 */
	rk_gpu_vertex v = vtx(&e, 0);
	RK_CHECK_INT(v.joints[0], 1);
	RK_CHECK_INT(v.joints[1], 3);
	RK_CHECK_INT(v.joints[2], 4);
	RK_CHECK_INT(v.joints[3], 2);
	RK_CHECK_NEAR(v.weights[0], 6.0 / 17, 1e-7);
	RK_CHECK_NEAR(v.weights[1], 5.0 / 17, 1e-7);
	RK_CHECK_NEAR(v.weights[2], 4.0 / 17, 1e-7);
	RK_CHECK_NEAR(v.weights[3], 2.0 / 17, 1e-7);
	RK_CHECK_NEAR(v.weights[0] + v.weights[1] + v.weights[2] + v.weights[3], 1.0, 1e-6);
	/* 3 weights dropped on vertex 0 (joint 9, negative) and 2 on vertex 1 (no
	 * node is fine in SKIN mode: joint 6 is usable; weight 0 is not) */
	RK_CHECK_INT(e.out.stats.truncated_influences, 1);
	RK_CHECK_INT(e.out.stats.dropped_weights, 3);
	v = vtx(&e, 1);
	RK_CHECK_INT(v.joints[0], 6);
	RK_CHECK_NEAR(v.weights[0], 1.0, 0);
	v = vtx(&e, 2);
	RK_CHECK_INT(v.joints[0], 0);
	RK_CHECK_NEAR(v.weights[0] + v.weights[1] + v.weights[2] + v.weights[3], 0.0, 0);
	RK_CHECK_INT(e.out.stats.unweighted_vertices, 1);
	expanded_free(&e);

	/* UNORM16: 65535 / 17 = 3855 exactly; bind unweighted to joint 5 */
	o.weight_format = RK_WEIGHTS_UNORM16;
	o.unweighted = RK_UNWEIGHTED_BIND_JOINT;
	o.unweighted_joint = 5;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.out.format.stride, 48);
	uint16_t j[4], q[4];
	memcpy(j, e.vertices + 32, 8);
	memcpy(q, e.vertices + 40, 8);
	RK_CHECK_INT(j[0], 1); RK_CHECK_INT(j[3], 2);
	RK_CHECK_INT(q[0], 6 * 3855);
	RK_CHECK_INT(q[1], 5 * 3855);
	RK_CHECK_INT(q[2], 4 * 3855);
	RK_CHECK_INT(q[3], 2 * 3855);
	memcpy(j, e.vertices + 2 * 48 + 32, 8);
	memcpy(q, e.vertices + 2 * 48 + 40, 8);
	RK_CHECK_INT(j[0], 5);
	RK_CHECK_INT(q[0], 65535);
	RK_CHECK_INT(q[1] + q[2] + q[3], 0);
	expanded_free(&e);

	/* node-index joints: joint k -> node k + 2; joint 6 has no node -> dropped */
	o = (rk_mesh_opts){ 0 };
	o.no_dedup = true;
	o.joint_indices = RK_JOINTS_NODE;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	v = vtx(&e, 0);
	RK_CHECK_INT(v.joints[0], 3);
	RK_CHECK_INT(v.joints[1], 5);
	RK_CHECK_INT(v.joints[2], 6);
	RK_CHECK_INT(v.joints[3], 4);
	v = vtx(&e, 1);
	RK_CHECK_NEAR(v.weights[0], 0.0, 0);
	RK_CHECK_INT(e.out.stats.unweighted_vertices, 2);
	expanded_free(&e);

	/* UNORM16 rounding that needs the residual: four weights of 1/4 round to
	 * 16384 each (sum 65536), so q_0 = 16383 */
	rk_skin_weight w3[4] = { { 3, 1.0f }, { 1, 1.0f }, { 2, 1.0f }, { 0, 1.0f } };
	uint32_t b3[4] = { 0, 4, 4, 4 };
	skin.weights = w3; skin.weight_count = 4; skin.weight_begin = b3; skin.vertex_count = 3;
	o = (rk_mesh_opts){ 0 };
	o.weight_format = RK_WEIGHTS_UNORM16;
	o.no_dedup = true;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	memcpy(q, e.vertices + 40, 8);
	memcpy(j, e.vertices + 32, 8);
	RK_CHECK_INT(q[0] + q[1] + q[2] + q[3], 65535);
	RK_CHECK_INT(q[0], 16383);
	RK_CHECK_INT(q[1], 16384);
	RK_CHECK_INT(q[3], 16384);
	RK_CHECK_INT(j[0], 0);  /* ties: smaller joint first */
	RK_CHECK_INT(j[3], 3);
	expanded_free(&e);
}

/* Cube: 8 positions, 6 outward quads. */
static const rk_vec3 cube_pos[8] = {
	{ -1, -1, -1 }, { 1, -1, -1 }, { 1, 1, -1 }, { -1, 1, -1 },
	{ -1, -1, 1 }, { 1, -1, 1 }, { 1, 1, 1 }, { -1, 1, 1 },
};
static const uint32_t cube_idx[24] = {
	0, 3, 2, 1,  /* -z */
	4, 5, 6, 7,  /* +z */
	0, 1, 5, 4,  /* -y */
	2, 3, 7, 6,  /* +y */
	0, 4, 7, 3,  /* -x */
	1, 2, 6, 5,  /* +x */
};
static const rk_face cube_faces[6] = { { 0, 4 }, { 4, 4 }, { 8, 4 }, { 12, 4 }, { 16, 4 }, { 20, 4 } };
static const rk_vec3 cube_face_normals[6] = { { 0, 0, -1 }, { 0, 0, 1 }, { 0, -1, 0 }, { 0, 1, 0 }, { -1, 0, 0 }, { 1, 0, 0 } };

RK_TEST(dedup_cube)
{
	rk_vec3 corner_normals[24];
	uint32_t nidx[24];
	for (int c = 0; c < 24; c++) { corner_normals[c] = cube_face_normals[c / 4]; nidx[c] = (uint32_t)c; }
	rk_mesh mesh;
	init_mesh(&mesh, cube_pos, 8, cube_idx, 24, cube_faces, 6);
	mesh.normals = (rk_attrib_vec3){ true, corner_normals, 24, nidx, NULL };
	rk_node node;
	init_node(&node, 1, "cube", &mesh);
	expanded e;
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.out.vertex_count, 24);
	RK_CHECK_INT(e.out.index_count, 36);
	RK_CHECK_INT(e.out.stats.corners, 24);
	RK_CHECK_INT(e.out.stats.generated_normal_meshes, 0);
	/* every triangle's geometric normal agrees with its vertices' normal */
	for (int t = 0; t < 12; t++) {
		rk_gpu_vertex a = vtx(&e, e.indices[3 * t]), b = vtx(&e, e.indices[3 * t + 1]), c = vtx(&e, e.indices[3 * t + 2]);
		rk_vec3 pa = { a.position[0], a.position[1], a.position[2] };
		rk_vec3 pb = { b.position[0], b.position[1], b.position[2] };
		rk_vec3 pc = { c.position[0], c.position[1], c.position[2] };
		rk_vec3 g = rk_vec3_normalize(rk_vec3_cross(rk_vec3_sub(pb, pa), rk_vec3_sub(pc, pa)));
		RK_CHECK_NEAR(g.x, a.normal[0], 1e-6);
		RK_CHECK_NEAR(g.y, a.normal[1], 1e-6);
		RK_CHECK_NEAR(g.z, a.normal[2], 1e-6);
	}
	expanded_free(&e);

	/* with optimisation: same counts, still a valid mesh */
	rk_mesh_opts o = { 0 };
	o.optimize = true;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.out.vertex_count, 24);
	for (int i = 0; i < 36; i++) RK_CHECK(e.indices[i] < 24);
	expanded_free(&e);

	/* no dedup: one vertex per corner */
	o = (rk_mesh_opts){ 0 };
	o.no_dedup = true;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.out.vertex_count, 24);
	expanded_free(&e);

	/* without normals: generated smooth normals, 8 unique vertices, each
	 * normal along the corner diagonal (1, 1, 1)/sqrt 3 by symmetry */
	mesh.normals = (rk_attrib_vec3){ 0 };
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.out.vertex_count, 8);
	RK_CHECK_INT(e.out.stats.generated_normal_meshes, 1);
	for (uint32_t i = 0; i < 8; i++) {
		rk_gpu_vertex v = vtx(&e, i);
		double s = 1.0 / sqrt(3.0);
		for (int k = 0; k < 3; k++) RK_CHECK_NEAR(v.normal[k], (v.position[k] > 0 ? s : -s), 1e-6);
	}
	expanded_free(&e);

	/* base_vertex offsets every index */
	rk_mesh_expand_sizes s;
	RK_REQUIRE(rk_mesh_expand_bound(&node, NULL, &s, NULL));
	RK_CHECK_INT(s.max_vertices, 24);
	RK_CHECK_INT(s.index_count, 36);
	RK_CHECK_INT(s.max_parts, 1);
	RK_CHECK_INT(s.max_polygon_corners, 4);
	rk_gpu_vertex verts[24];
	rk_mesh_expand_output out;
	uint32_t idx[36];
	rk_mesh_part parts[1];
	void *scratch = malloc(s.scratch_size);
	rk_mesh_expand_job job = { .node = &node, .base_vertex = 1000, .vertices = verts, .vertex_capacity = 24,
		.indices = idx, .index_capacity = 36, .parts = parts, .part_capacity = 1, .scratch = scratch, .scratch_size = s.scratch_size,
		.output = &out };
	RK_REQUIRE(rk_mesh_expand_run(&job));
	for (int i = 0; i < 36; i++) RK_CHECK(idx[i] >= 1000 && idx[i] < 1008);
	free(scratch);
}

/* rk_mesh_smooth_normals by hand (mesh.h SMOOTH NORMALS). */
RK_TEST(smooth_normals_by_hand)
{
	/* cube [-1, 1]^3, outward counter-clockwise quads: every corner meets 3
	 * faces with angle pi/2 and |A| = 8, so n = (+-1, +-1, +-1) / sqrt 3 */
	rk_vec3 cube[8];
	for (int i = 0; i < 8; i++) cube[i] = (rk_vec3){ (i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1 };
	uint32_t ci[24] = { 0, 2, 3, 1,  4, 5, 7, 6,  0, 1, 5, 4,  2, 6, 7, 3,  0, 4, 6, 2,  1, 3, 7, 5 };
	rk_face cf[6];
	for (int f = 0; f < 6; f++) cf[f] = (rk_face){ (uint32_t)(f * 4), 4 };
	rk_vec3 n[8];
	RK_CHECK_INT(rk_mesh_smooth_normals(n, cube, 8, ci, 24, cf, 6), 0);
	const double s = 1.0 / sqrt(3.0);
	for (int i = 0; i < 8; i++) {
		RK_CHECK_NEAR(n[i].x, cube[i].x * s, 1e-15);
		RK_CHECK_NEAR(n[i].y, cube[i].y * s, 1e-15);
		RK_CHECK_NEAR(n[i].z, cube[i].z * s, 1e-15);
	}

	/* Weighting: quad Q = O (2,0,0) (2,1,0) (0,1,0), A_Q = (0,0,4), and
	 * triangle T = O (0,1,0) (0,0,3), A_T = (0,1,0) x (0,0,3) = (3,0,0).
	 *   O:       pi/2 in both      -> (pi/2)(3,0,4) ~ (3,0,4)/5
	 *   (0,1,0): pi/2 in Q; in T between (0,0,3)-(0,1,0) = (0,-1,3) and
	 *            O-(0,1,0) = (0,-1,0): cos = 1/sqrt 10, angle atan 3
	 *                              -> (3 atan 3, 0, 4 pi/2)
	 *   (2,0,0), (2,1,0): Q only -> +z;  (0,0,3): T only -> +x
	 *   vertex 5 is used by no face -> (0,0,0) */
	rk_vec3 p[6] = { { 0, 0, 0 }, { 2, 0, 0 }, { 2, 1, 0 }, { 0, 1, 0 }, { 0, 0, 3 }, { 9, 9, 9 } };
	uint32_t vi[7] = { 0, 1, 2, 3, 0, 3, 4 };
	rk_face f[2] = { { 0, 4 }, { 4, 3 } };
	rk_vec3 m[6];
	RK_CHECK_INT(rk_mesh_smooth_normals(m, p, 6, vi, 7, f, 2), 0);
	RK_CHECK_NEAR(m[0].x, 0.6, 1e-15);
	RK_CHECK_NEAR(m[0].y, 0.0, 0.0);
	RK_CHECK_NEAR(m[0].z, 0.8, 1e-15);
	rk_vec3 e3 = rk_vec3_normalize((rk_vec3){ 3.0 * atan(3.0), 0.0, 2.0 * RK_PI });
	RK_CHECK_NEAR(m[3].x, e3.x, 1e-15);
	RK_CHECK_NEAR(m[3].z, e3.z, 1e-15);
	RK_CHECK_NEAR(m[1].z, 1.0, 0.0);
	RK_CHECK_NEAR(m[2].z, 1.0, 0.0);
	RK_CHECK_NEAR(m[4].x, 1.0, 0.0);
	RK_CHECK(m[5].x == 0.0 && m[5].y == 0.0 && m[5].z == 0.0);

	/* Q cut into two triangles along O-(2,1,0): each has A = (0,0,2) and
	 * the angles at O add up to pi/2, so Q now weighs (pi/2)(0,0,2) at O:
	 * n ~ (3,0,2). The weighting depends on the faces as given, which is
	 * why the generator works on polygons rather than on a consumer's
	 * own triangulation. */
	uint32_t vj[9] = { 0, 1, 2, 0, 2, 3, 0, 3, 4 };
	rk_face g[3] = { { 0, 3 }, { 3, 3 }, { 6, 3 } };
	rk_vec3 q[6];
	RK_CHECK_INT(rk_mesh_smooth_normals(q, p, 6, vj, 9, g, 3), 0);
	RK_CHECK_NEAR(q[0].x, 3.0 / sqrt(13.0), 1e-15);
	RK_CHECK_NEAR(q[0].z, 2.0 / sqrt(13.0), 1e-15);

	/* Untrusted faces: 2 corners, a range past index_count, a vertex index
	 * out of range are skipped and counted; a zero-area face adds nothing. */
	rk_vec3 line[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 } };
	uint32_t bi[8] = { 0, 1, 2, 0, 1, 7, 0, 1 };
	rk_face bf[4] = { { 0, 3 }, { 3, 3 }, { 6, 2 }, { 6, 5 } };
	rk_vec3 b[3] = { { 5, 5, 5 }, { 5, 5, 5 }, { 5, 5, 5 } };
	RK_CHECK_INT(rk_mesh_smooth_normals(b, line, 3, bi, 8, bf, 4), 3);
	for (int i = 0; i < 3; i++) RK_CHECK(b[i].x == 0.0 && b[i].y == 0.0 && b[i].z == 0.0);
	/* NULL arrays with counts: nothing written, every face skipped */
	RK_CHECK_INT(rk_mesh_smooth_normals(NULL, line, 3, bi, 8, bf, 4), 4);
	RK_CHECK_INT(rk_mesh_smooth_normals(b, line, 3, NULL, 8, bf, 4), 4);
	RK_CHECK_INT(rk_mesh_smooth_normals(NULL, NULL, 0, NULL, 0, NULL, 0), 0);
	/* a non-finite position: its faces add nothing */
	rk_vec3 bad[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, NAN, 0 } };
	RK_CHECK_INT(rk_mesh_smooth_normals(b, bad, 3, bi, 3, bf, 1), 0);
	for (int i = 0; i < 3; i++) RK_CHECK(b[i].x == 0.0 && b[i].y == 0.0 && b[i].z == 0.0);
}

RK_TEST(generated_normals)
{
	/* 3 x 3 grid of unit quads in z = 0, counter-clockwise seen from +z */
	rk_vec3 pos[16];
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 4; x++) pos[y * 4 + x] = (rk_vec3){ x, y, 0 };
	uint32_t idx[36];
	rk_face faces[9];
	for (int q = 0; q < 9; q++) {
		int x = q % 3, y = q / 3;
		idx[q * 4 + 0] = (uint32_t)(y * 4 + x);
		idx[q * 4 + 1] = (uint32_t)(y * 4 + x + 1);
		idx[q * 4 + 2] = (uint32_t)((y + 1) * 4 + x + 1);
		idx[q * 4 + 3] = (uint32_t)((y + 1) * 4 + x);
		faces[q] = (rk_face){ (uint32_t)(q * 4), 4 };
	}
	rk_mesh mesh;
	init_mesh(&mesh, pos, 16, idx, 36, faces, 9);
	rk_node node;
	init_node(&node, 1, "grid", &mesh);
	expanded e;
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.out.vertex_count, 16);
	for (uint32_t i = 0; i < e.out.vertex_count; i++) {
		rk_gpu_vertex v = vtx(&e, i);
		RK_CHECK_NEAR(v.normal[0], 0.0, 1e-7);
		RK_CHECK_NEAR(v.normal[1], 0.0, 1e-7);
		RK_CHECK_NEAR(v.normal[2], 1.0, 1e-7);
	}
	expanded_free(&e);
	/* mirror reverses the triangles, not the generated normals */
	rk_mesh_opts o = { 0 };
	o.mirror = true;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK(e.out.reversed_winding);
	for (size_t t = 0; t < e.out.index_count / 3; t++) {
		rk_gpu_vertex a = vtx(&e, e.indices[3 * t]), b = vtx(&e, e.indices[3 * t + 1]), c = vtx(&e, e.indices[3 * t + 2]);
		double cz = (b.position[0] - a.position[0]) * (c.position[1] - a.position[1]) - (b.position[1] - a.position[1]) * (c.position[0] - a.position[0]);
		RK_CHECK(cz < 0);
		RK_CHECK_NEAR(a.normal[2], 1.0, 1e-7);
	}
	expanded_free(&e);

	/* Weighting by hand: vertex O shared by T1 = (O, (1,0,0), (0,1,0)) with
	 * cross (0,0,1), angle pi/2 at O, and T2 = (O, (0,1,0), (0,0,2)) with
	 * cross (2,0,0), angle pi/2: n_O ~ (pi/2)(0,0,1) + (pi/2)(2,0,0) ~ (2,0,1).
	 * Vertex (0,1,0) in both: T1 angle pi/4 cross (0,0,1); T2 angle
	 * atan(2) at (0,1,0) cross (2,0,0): n ~ (2 atan 2, 0, pi/4). */
	rk_vec3 p2[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 2 } };
	uint32_t i2[6] = { 0, 1, 2, 0, 2, 3 };
	rk_face f2[2] = { { 0, 3 }, { 3, 3 } };
	init_mesh(&mesh, p2, 4, i2, 6, f2, 2);
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.out.vertex_count, 4);
	int seen = 0;
	for (uint32_t i = 0; i < 4; i++) {
		rk_gpu_vertex v = vtx(&e, i);
		rk_vec3 expect;
		if (v.position[0] == 0 && v.position[1] == 0 && v.position[2] == 0) expect = rk_vec3_normalize((rk_vec3){ 2, 0, 1 });
		else if (v.position[1] == 1) expect = rk_vec3_normalize((rk_vec3){ 2 * atan(2.0), 0, RK_PI / 4 });
		else continue;
		seen++;
		RK_CHECK_NEAR(v.normal[0], expect.x, 1e-6);
		RK_CHECK_NEAR(v.normal[1], expect.y, 1e-6);
		RK_CHECK_NEAR(v.normal[2], expect.z, 1e-6);
	}
	RK_CHECK_INT(seen, 2);
	expanded_free(&e);
}

RK_TEST(transforms_and_winding)
{
	/* one triangle facing +z with an explicit normal tilted in xz */
	rk_vec3 pos[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	uint32_t vi[3] = { 0, 1, 2 };
	rk_face face = { 0, 3 };
	rk_vec3 nrm[1] = { { 0.6, 0, 0.8 } };
	uint32_t ni[3] = { 0, 0, 0 };
	rk_mesh mesh;
	init_mesh(&mesh, pos, 3, vi, 3, &face, 1);
	mesh.normals = (rk_attrib_vec3){ true, nrm, 1, ni, NULL };
	rk_node node;
	init_node(&node, 1, "t", &mesh);
	/* geometric transform: translate (10, 0, 0) and scale x by 2 */
	node.geometry_to_node = rk_mat4_mul(rk_mat4_translation((rk_vec3){ 10, 0, 0 }), rk_mat4_scaling((rk_vec3){ 2, 1, 1 }));
	node.node_to_world = rk_mat4_translation((rk_vec3){ 0, 5, 0 });
	node.geometry_to_world = rk_mat4_mul(node.node_to_world, node.geometry_to_node);
	rk_mesh_opts o = { 0 };
	o.no_dedup = true;
	expanded e;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	rk_gpu_vertex v = vtx(&e, 1);
	RK_CHECK_NEAR(v.position[0], 12.0, 0);
	RK_CHECK_NEAR(v.position[1], 0.0, 0);
	/* inverse-transpose of diag(2,1,1) on (0.6,0,0.8): (0.3, 0, 0.8) normalised */
	double len = sqrt(0.3 * 0.3 + 0.8 * 0.8);
	RK_CHECK_NEAR(v.normal[0], 0.3 / len, 1e-7);
	RK_CHECK_NEAR(v.normal[2], 0.8 / len, 1e-7);
	RK_CHECK(!e.out.world_space);
	RK_CHECK_NEAR(e.out.bounds_min.x, 10.0, 0);
	RK_CHECK_NEAR(e.out.bounds_max.x, 12.0, 0);
	RK_CHECK_NEAR(e.out.bounds_max.y, 1.0, 0);
	expanded_free(&e);

	o.no_geometry_transform = true;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	v = vtx(&e, 1);
	RK_CHECK_NEAR(v.position[0], 1.0, 0);
	RK_CHECK_NEAR(v.normal[0], 0.6, 1e-7);
	expanded_free(&e);

	o.no_geometry_transform = false;
	o.world_space = true;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK(e.out.world_space);
	v = vtx(&e, 2);
	RK_CHECK_NEAR(v.position[0], 10.0, 0);
	RK_CHECK_NEAR(v.position[1], 6.0, 0);
	expanded_free(&e);

	/* skinned nodes stay in mesh space even with world_space */
	rk_skin_deformer skin;
	memset(&skin, 0, sizeof(skin));
	node.skin = &skin;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK(!e.out.world_space);
	v = vtx(&e, 2);
	RK_CHECK_NEAR(v.position[1], 1.0, 0);
	RK_CHECK_INT(e.out.stats.unweighted_vertices, 3); /* the skin covers no vertex */
	expanded_free(&e);
	node.skin = NULL;

	/* a mirroring geometric transform reverses the winding automatically */
	node.geometry_to_node = rk_mat4_scaling((rk_vec3){ -1, 1, 1 });
	o = (rk_mesh_opts){ 0 };
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK(e.out.reversed_winding);
	{
		rk_gpu_vertex a = vtx(&e, e.indices[0]), b = vtx(&e, e.indices[1]), c = vtx(&e, e.indices[2]);
		double cz = (b.position[0] - a.position[0]) * (c.position[1] - a.position[1]) - (b.position[1] - a.position[1]) * (c.position[0] - a.position[0]);
		RK_CHECK(cz > 0);                 /* still faces +z like its normal */
		RK_CHECK_NEAR(a.normal[0], -0.6, 1e-7);
		RK_CHECK_NEAR(a.normal[2], 0.8, 1e-7);
	}
	expanded_free(&e);
	o.mirror = true;  /* mirror XOR negative determinant: original order */
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK(!e.out.reversed_winding);
	expanded_free(&e);
}

RK_TEST(uv_set_selection)
{
	rk_vec3 pos[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	uint32_t vi[3] = { 0, 1, 2 };
	rk_face face = { 0, 3 };
	rk_vec2 uv0[3] = { { 0, 0.25 }, { 0, 0.25 }, { 0, 0.25 } };
	rk_vec2 uv1[3] = { { 1, 0.5 }, { 1, 0.5 }, { 1, 0.5 } };
	rk_vec3 tan[1] = { { 1, 0, 0 } }, bit[1] = { { 0, -1, 0 } };
	uint32_t zero[3] = { 0, 0, 0 };
	rk_uv_set sets[2];
	memset(sets, 0, sizeof(sets));
	sets[0].name = "map1";
	sets[0].uv = (rk_attrib_vec2){ true, uv0, 3, vi, NULL };
	sets[1].name = "map2";
	sets[1].uv = (rk_attrib_vec2){ true, uv1, 3, vi, NULL };
	sets[1].tangent = (rk_attrib_vec3){ true, tan, 1, zero, NULL };
	sets[1].bitangent = (rk_attrib_vec3){ true, bit, 1, zero, NULL };
	rk_mesh mesh;
	init_mesh(&mesh, pos, 3, vi, 3, &face, 1);
	mesh.uv_sets = (rk_uv_set_list){ sets, 2 };
	rk_texture tex;
	memset(&tex, 0, sizeof(tex));
	rk_material mat;
	memset(&mat, 0, sizeof(mat));
	rk_material *slots[1] = { &mat };
	mesh.materials = (rk_material_ref_list){ slots, 1 };
	rk_node node;
	init_node(&node, 1, "uv", &mesh);
	expanded e;

	/* no texture, no default: first set */
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.parts[0].uv_set, 0);
	RK_CHECK_NEAR(vtx(&e, 0).uv[1], 0.25, 0);
	expanded_free(&e);
	/* node default set */
	node.default_uv_set = "map2";
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.parts[0].uv_set, 1);
	expanded_free(&e);
	/* the texture's named set wins over the node default */
	node.default_uv_set = "map2";
	mat.base_color_texture.texture = &tex;
	mat.base_color_texture.uv_set = "map1";
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.parts[0].uv_set, 0);
	expanded_free(&e);
	/* unknown name: falls through to the node default */
	mat.base_color_texture.uv_set = "nope";
	expand(&e, &node, NULL);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.parts[0].uv_set, 1);
	expanded_free(&e);
	/* empty name + texcoord index (glTF-like) */
	node.default_uv_set = "";
	mat.base_color_texture.uv_set = "";
	mat.base_color_texture.texcoord = 1;
	rk_mesh_opts o = { 0 };
	o.flip_v = true;
	o.tangents = true;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK_INT(e.parts[0].uv_set, 1);
	RK_CHECK_INT(e.out.format.stride, 72);
	rk_gpu_vertex v = vtx(&e, 0);
	RK_CHECK_NEAR(v.uv[0], 1.0, 0);
	RK_CHECK_NEAR(v.uv[1], 0.5, 0);  /* 1 - 0.5 */
	float t4[4];
	memcpy(t4, e.vertices + 56, 16);
	/* n = +z (generated), t = +x, b = -y: cross(n, t) = +y, . b < 0 -> w = -1 */
	RK_CHECK_NEAR(t4[0], 1.0, 0);
	RK_CHECK_NEAR(t4[3], -1.0, 0);
	RK_CHECK_INT(e.out.stats.tangent_meshes, 1);
	expanded_free(&e);
	/* flip_v on set 0: 1 - 0.25 */
	mat.base_color_texture.texture = NULL;
	expand(&e, &node, &o);
	RK_REQUIRE(e.ok);
	RK_CHECK_NEAR(vtx(&e, 0).uv[1], 0.75, 0);
	float z4[4];
	memcpy(z4, e.vertices + 56, 16);
	RK_CHECK_NEAR(z4[0] + z4[1] + z4[2] + z4[3], 0.0, 0);  /* set 0 has no tangents */
	RK_CHECK_INT(e.out.stats.tangent_meshes, 0);
	expanded_free(&e);
}

/* scene.h MATERIAL SLOTS, by hand: an FBX-style node carries its own slot
 * list (which wins over the mesh's), a glTF-style node none (the mesh's
 * primitive materials are used); face_material beyond the list has no
 * material, and a mesh without slots has RK_NO_SLOT everywhere. */
RK_TEST(scene_material_slot_rule)
{
	rk_vec3 pos[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	uint32_t vi[9] = { 0, 1, 2, 0, 1, 2, 0, 1, 2 };
	rk_face faces[3] = { { 0, 3 }, { 3, 3 }, { 6, 3 } };
	uint32_t fmat[3] = { 1, 0, 7 };
	rk_material node_a, node_b, prim_a, prim_b;
	memset(&node_a, 0, sizeof(node_a)); memset(&node_b, 0, sizeof(node_b));
	memset(&prim_a, 0, sizeof(prim_a)); memset(&prim_b, 0, sizeof(prim_b));
	rk_material *node_slots[2] = { &node_a, &node_b };
	rk_material *prim_slots[3] = { &prim_a, NULL, &prim_b };
	rk_mesh mesh;
	init_mesh(&mesh, pos, 3, vi, 9, faces, 3);
	mesh.face_material = fmat;
	mesh.materials = (rk_material_ref_list){ prim_slots, 3 };
	rk_node fbx, gltf, bare;
	init_node(&fbx, 1, "fbx", &mesh);
	fbx.materials = (rk_material_ref_list){ node_slots, 2 };
	init_node(&gltf, 2, "gltf", &mesh);
	init_node(&bare, 3, "bare", NULL);

	/* the node's list wins */
	rk_material_ref_list l = rk_node_material_slots(&fbx);
	RK_CHECK(l.data == node_slots && l.count == 2);
	RK_CHECK_INT(rk_node_face_slot(&fbx, 0), 1);
	RK_CHECK_INT(rk_node_face_slot(&fbx, 1), 0);
	RK_CHECK(rk_node_face_slot(&fbx, 2) == RK_NO_SLOT);   /* 7 >= 2 */
	RK_CHECK(rk_node_face_material(&fbx, 0) == &node_b);
	RK_CHECK(rk_node_face_material(&fbx, 1) == &node_a);
	RK_CHECK(rk_node_face_material(&fbx, 2) == NULL);
	/* no node list: the mesh's primitive materials */
	l = rk_node_material_slots(&gltf);
	RK_CHECK(l.data == prim_slots && l.count == 3);
	RK_CHECK_INT(rk_node_face_slot(&gltf, 0), 1);
	RK_CHECK(rk_node_face_material(&gltf, 0) == NULL);     /* slot 1 is empty */
	RK_CHECK(rk_node_face_material(&gltf, 1) == &prim_a);
	RK_CHECK(rk_node_face_slot(&gltf, 2) == RK_NO_SLOT);  /* 7 >= 3 */
	RK_CHECK(rk_node_face_slot(&gltf, 3) == RK_NO_SLOT);  /* no such face */
	/* face_material NULL: slot 0 */
	mesh.face_material = NULL;
	RK_CHECK_INT(rk_node_face_slot(&fbx, 2), 0);
	RK_CHECK(rk_node_face_material(&gltf, 2) == &prim_a);
	/* no slots at all: every face RK_NO_SLOT, no material */
	mesh.materials = (rk_material_ref_list){ NULL, 0 };
	RK_CHECK_INT(rk_node_material_slots(&gltf).count, 0);
	RK_CHECK(rk_node_face_slot(&gltf, 0) == RK_NO_SLOT);
	RK_CHECK(rk_node_face_material(&gltf, 0) == NULL);
	/* no mesh, no node */
	RK_CHECK_INT(rk_node_material_slots(&bare).count, 0);
	RK_CHECK_INT(rk_node_material_slots(NULL).count, 0);
	RK_CHECK(rk_node_face_slot(&bare, 0) == RK_NO_SLOT);
	RK_CHECK(rk_node_face_material(NULL, 0) == NULL);

	/* the expansion follows it: FBX node, faces 0 (slot 1), 1 (slot 0),
	 * 2 (slot 7: out of range) -> parts node_a, node_b, NULL */
	mesh.face_material = fmat;
	mesh.materials = (rk_material_ref_list){ prim_slots, 3 };
	expanded e;
	expand(&e, &fbx, NULL);
	RK_REQUIRE(e.ok);
	RK_REQUIRE(e.out.part_count == 3);
	RK_CHECK(e.parts[0].material == &node_a && e.parts[0].material_slot == 0);
	RK_CHECK(e.parts[1].material == &node_b && e.parts[1].material_slot == 1);
	RK_CHECK(e.parts[2].material == NULL && e.parts[2].material_slot == UINT32_MAX);
	RK_CHECK_INT(e.out.stats.invalid_material_slots, 1);
	expanded_free(&e);
}

/* scene.h UV SET OF A TEXTURE ON A MESH NODE, rule by rule. */
RK_TEST(scene_uv_set_rule)
{
	rk_vec3 pos[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	uint32_t vi[3] = { 0, 1, 2 };
	rk_face face = { 0, 3 };
	rk_vec2 uv[3] = { { 0, 0 }, { 1, 0 }, { 0, 1 } };
	rk_uv_set sets[3];
	memset(sets, 0, sizeof(sets));
	sets[0].name = "UVMap";
	sets[0].uv = (rk_attrib_vec2){ true, uv, 3, vi, NULL };
	sets[1].name = "Lightmap";
	sets[1].uv = (rk_attrib_vec2){ true, uv, 3, vi, NULL };
	sets[2].name = "Empty";                        /* listed, without UVs: never chosen */
	rk_mesh mesh;
	init_mesh(&mesh, pos, 3, vi, 3, &face, 1);
	mesh.uv_sets = (rk_uv_set_list){ sets, 3 };
	rk_node node;
	init_node(&node, 1, "n", &mesh);
	rk_texture tex;
	memset(&tex, 0, sizeof(tex));
	rk_material mat;
	memset(&mat, 0, sizeof(mat));
	rk_texture_ref *ref = &mat.base_color_texture;
	ref->uv_set = "";

	/* d: no texture, no default -> set 0 */
	RK_CHECK_INT(rk_node_texture_uv_set(&node, NULL), 0);
	RK_CHECK_INT(rk_node_material_uv_set(&node, NULL), 0);
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 0);  /* material without texture */
	/* b: the node's current set */
	node.default_uv_set = "Lightmap";
	RK_CHECK_INT(rk_node_material_uv_set(&node, NULL), 1);
	/* an empty slot ignores its name (no texture) */
	ref->uv_set = "UVMap";
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 1);
	/* a: the texture's named set beats the node default */
	ref->texture = &tex;
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 0);
	RK_CHECK_INT(rk_node_texture_uv_set(&node, ref), 0);
	/* a set without UVs does not count: falls to the node default */
	ref->uv_set = "Empty";
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 1);
	/* FBX: a texture without UVSet uses the node's current set, not its
	 * texcoord index (0 for FBX) */
	ref->uv_set = "";
	ref->texcoord = 0;
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 1);
	/* c: no name, no default: the texcoord index (glTF-like) */
	node.default_uv_set = "";
	ref->texcoord = 1;
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 1);
	ref->texcoord = 2;                              /* set 2 has no UVs -> d */
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 0);
	ref->texcoord = 9;                              /* beyond the sets -> d */
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 0);
	/* a name the mesh lacks, no default -> d (texcoord not used: a name was given) */
	ref->uv_set = "TEXCOORD_1";
	ref->texcoord = 1;
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 0);
	/* glTF reader style: names "TEXCOORD_n" on both sides */
	sets[1].name = "TEXCOORD_1";
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), 1);
	/* no usable set at all */
	sets[0].uv.exists = false;
	sets[1].uv.exists = false;
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), RK_NO_UV_SET);
	mesh.uv_sets = (rk_uv_set_list){ NULL, 0 };
	RK_CHECK_INT(rk_node_material_uv_set(&node, &mat), RK_NO_UV_SET);
	rk_node bare;
	init_node(&bare, 2, "bare", NULL);
	RK_CHECK_INT(rk_node_texture_uv_set(&bare, NULL), RK_NO_UV_SET);
	RK_CHECK_INT(rk_node_texture_uv_set(NULL, NULL), RK_NO_UV_SET);
}

RK_TEST(scene_radius_rules)
{
	RK_CHECK_NEAR(rk_mesh_radius((rk_vec3){ 0, 0, 0 }, (rk_vec3){ 2, 4, 1 }), 2.0, 0);
	RK_CHECK_NEAR(rk_mesh_radius((rk_vec3){ -3, -1, -1 }, (rk_vec3){ 1, 1, 1 }), 2.0, 0);
	RK_CHECK_NEAR(rk_mesh_radius((rk_vec3){ 0, 0, 0 }, (rk_vec3){ 1e-3, 1e-3, 1e-3 }), 1.0, 0);   /* r = 5e-4 */
	RK_CHECK_NEAR(rk_mesh_radius((rk_vec3){ 0, 0, 0 }, (rk_vec3){ 0, 0, 0 }), 1.0, 0);
	RK_CHECK_NEAR(rk_mesh_radius((rk_vec3){ 0, 0, 0 }, (rk_vec3){ 0.004, 0, 0 }), 0.002, 1e-15);
	RK_CHECK_NEAR(rk_mesh_radius((rk_vec3){ 1, 1, 1 }, (rk_vec3){ -1, -1, -1 }), 1.0, 0);           /* inverted */
	RK_CHECK_NEAR(rk_mesh_radius((rk_vec3){ 0, 0, 0 }, (rk_vec3){ NAN, 0, 0 }), 1.0, 0);

	/* through rk_mesh_expansion_build: two nodes, bounds union, radius */
	rk_vec3 pos[3] = { { 0, 0, 0 }, { 8, 0, 0 }, { 0, 2, 0 } };
	uint32_t vi[3] = { 0, 1, 2 };
	rk_face face = { 0, 3 };
	rk_mesh mesh;
	init_mesh(&mesh, pos, 3, vi, 3, &face, 1);
	rk_node nodes[3];
	init_node(&nodes[0], 0, "", NULL);
	init_node(&nodes[1], 1, "a", &mesh);
	init_node(&nodes[2], 2, "b", &mesh);
	nodes[2].geometry_to_node = rk_mat4_translation((rk_vec3){ 0, 0, -4 });
	rk_scene scene;
	memset(&scene, 0, sizeof(scene));
	scene.nodes = (rk_node_list){ nodes, 3 };
	scene.root = &nodes[0];
	rk_error err;
	rk_mesh_expansion *x = rk_mesh_expansion_build(&scene, NULL, &err);
	RK_REQUIRE(x);
	RK_CHECK_INT(x->draw_count, 2);
	RK_CHECK_INT(x->vertex_count, 6);
	RK_CHECK_INT(x->index_count, 6);
	RK_CHECK_INT(x->part_count, 2);
	RK_CHECK_INT(x->draws[1].first_vertex, 3);
	RK_CHECK_INT(x->parts[1].start_index, 3);
	for (int i = 3; i < 6; i++) RK_CHECK(x->indices[i] >= 3 && x->indices[i] < 6);
	RK_CHECK_NEAR(x->bounds_min.z, -4.0, 0);
	RK_CHECK_NEAR(x->bounds_max.x, 8.0, 0);
	RK_CHECK_NEAR(x->radius, 4.0, 0);  /* extents 8, 2, 4 -> half of 8 */
	RK_CHECK_INT((uintptr_t)x->vertices % 16, 0);
	size_t need = rk_mesh_expansion_describe(NULL, 0, x);
	char small[16];
	RK_CHECK_INT(rk_mesh_expansion_describe(small, sizeof(small), x), need);
	RK_CHECK_INT(strlen(small), 15);
	char *text = (char *)malloc(need + 1);
	RK_CHECK_INT(rk_mesh_expansion_describe(text, need + 1, x), need);
	RK_CHECK(strstr(text, "mesh \"m\" node \"a\": 1 part, 3 vertices, 1 triangles\n") != NULL);
	RK_CHECK(strstr(text, "  part 0: material (none) (slot -), uv set -1, 1 triangles, indices 3..5\n") != NULL);
	RK_CHECK(strstr(text, "total: 2 mesh nodes, 2 parts, 6 vertices, 2 triangles, radius 4\n") != NULL);
	free(text);
	rk_mesh_expansion_free(x);

	/* one node only */
	rk_mesh_opts o = { 0 };
	o.node = &nodes[2];
	x = rk_mesh_expansion_build(&scene, &o, &err);
	RK_REQUIRE(x);
	RK_CHECK_INT(x->draw_count, 1);
	RK_CHECK(x->draws[0].node == &nodes[2]);
	RK_CHECK_NEAR(x->radius, 4.0, 0);
	rk_mesh_expansion_free(x);

	/* a scene without meshes: empty, radius 1 */
	scene.nodes.count = 1;
	x = rk_mesh_expansion_build(&scene, NULL, &err);
	RK_REQUIRE(x);
	RK_CHECK_INT(x->draw_count, 0);
	RK_CHECK_INT(x->vertex_count, 0);
	RK_CHECK_NEAR(x->radius, 1.0, 0);
	rk_mesh_expansion_free(x);
}

RK_TEST(bad_inputs_rejected)
{
	rk_error err;
	RK_CHECK(!rk_mesh_expand_validate(NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_mesh_expand_run(NULL));

	rk_mesh mesh;
	init_mesh(&mesh, cube_pos, 8, cube_idx, 24, cube_faces, 6);
	rk_node node, empty;
	init_node(&node, 1, "cube", &mesh);
	init_node(&empty, 2, "empty", NULL);
	rk_mesh_expand_sizes s;
	RK_CHECK(!rk_mesh_expand_bound(&empty, NULL, &s, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_mesh_expand_bound(NULL, NULL, &s, &err));
	RK_REQUIRE(rk_mesh_expand_bound(&node, NULL, &s, &err));

	rk_gpu_vertex verts[24];
	rk_mesh_expand_output out;
	uint32_t idx[36];
	rk_mesh_part parts[1];
	unsigned char *scratch = (unsigned char *)malloc(s.scratch_size);
	rk_mesh_expand_job good = { .node = &node, .vertices = verts, .vertex_capacity = 24, .indices = idx, .index_capacity = 36,
		.parts = parts, .part_capacity = 1, .scratch = scratch, .scratch_size = s.scratch_size, .output = &out };
	RK_CHECK(rk_mesh_expand_validate(&good, &err));
	rk_mesh_expand_job j;
	j = good; j.node = &empty;          RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	j = good; j.vertex_capacity = 23;   RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	j = good; j.vertices = NULL;        RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	j = good; j.index_capacity = 35;    RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	j = good; j.part_capacity = 0;      RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	j = good; j.scratch_size -= 1;      RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	j = good; j.vertices = (unsigned char *)verts + 2; RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	j = good; j.base_vertex = UINT32_MAX - 10; RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	rk_mesh_opts bad_opts = { 0 };
	bad_opts.weight_format = (rk_weight_format)7;
	j = good; j.opts = &bad_opts;       RK_CHECK(!expand_run(&j, &err)); RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);

	/* corrupt mesh data */
	uint32_t bad_idx[24];
	memcpy(bad_idx, cube_idx, sizeof(bad_idx));
	bad_idx[17] = 8;
	mesh.vertex_indices = bad_idx;
	RK_CHECK(!expand_run(&good, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	mesh.vertex_indices = cube_idx;
	rk_face bad_faces[6];
	memcpy(bad_faces, cube_faces, sizeof(bad_faces));
	bad_faces[5].index_begin = 21;
	mesh.faces = bad_faces;
	RK_CHECK(!expand_run(&good, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	mesh.faces = cube_faces;
	rk_vec3 nv[1] = { { 0, 0, 1 } };
	uint32_t ni[24] = { 0 };
	ni[3] = 1;
	mesh.normals = (rk_attrib_vec3){ true, nv, 1, ni, NULL };
	RK_CHECK(!expand_run(&good, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	mesh.normals = (rk_attrib_vec3){ 0 };
	rk_skin_deformer skin;
	memset(&skin, 0, sizeof(skin));
	uint32_t wb[9] = { 0, 0, 0, 2, 1, 1, 1, 1, 1 };
	rk_skin_weight w[2] = { { 0, 1 }, { 0, 1 } };
	rk_skin_joint jt[1];
	memset(jt, 0, sizeof(jt));
	skin.joint_count = 1; skin.joints = jt;
	skin.vertex_count = 8; skin.weight_begin = wb; skin.weight_count = 2; skin.weights = w;
	node.skin = &skin;
	RK_CHECK(!expand_run(&good, &err));          /* influences need more scratch */
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_REQUIRE(rk_mesh_expand_bound(&node, NULL, &s, &err));
	RK_CHECK(s.scratch_size > good.scratch_size);
	free(scratch);
	scratch = (unsigned char *)malloc(s.scratch_size);
	good.scratch = scratch;
	good.scratch_size = s.scratch_size;
	RK_CHECK(!expand_run(&good, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	wb[3] = 1;
	wb[8] = 5;  /* beyond weight_count */
	RK_CHECK(!expand_run(&good, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	wb[8] = 1;
	RK_CHECK(expand_run(&good, &err));
	node.skin = NULL;
	free(scratch);

	/* rk_mesh_expansion_build: NULL scene, a foreign node, a node without mesh */
	RK_CHECK(!rk_mesh_expansion_build(NULL, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	rk_node nodes[2];
	init_node(&nodes[0], 0, "", NULL);
	init_node(&nodes[1], 1, "cube", &mesh);
	rk_scene scene;
	memset(&scene, 0, sizeof(scene));
	scene.nodes = (rk_node_list){ nodes, 2 };
	rk_mesh_opts o = { 0 };
	o.node = &node;
	RK_CHECK(!rk_mesh_expansion_build(&scene, &o, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	o.node = &nodes[0];
	RK_CHECK(!rk_mesh_expansion_build(&scene, &o, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	/* the error names the node */
	mesh.vertex_indices = bad_idx;
	RK_CHECK(!rk_mesh_expansion_build(&scene, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK(strstr(err.message, "node \"cube\"") != NULL);
	mesh.vertex_indices = cube_idx;
}

/* Counting allocator that fails the n-th allocation. */
typedef struct counting { size_t allocs, frees, live_bytes, fail_at; } counting;
static void *count_alloc(void *user, size_t size)
{
	counting *c = (counting *)user;
	if (c->fail_at && c->allocs + 1 == c->fail_at) return NULL;
	c->allocs++;
	c->live_bytes += size;
	return malloc(size);
}
static void count_free(void *user, void *p, size_t size)
{
	counting *c = (counting *)user;
	c->frees++;
	c->live_bytes -= size;
	free(p);
}

RK_TEST(allocation_failures_leak_nothing)
{
	rk_mesh mesh;
	init_mesh(&mesh, cube_pos, 8, cube_idx, 24, cube_faces, 6);
	rk_node nodes[2];
	init_node(&nodes[0], 0, "", NULL);
	init_node(&nodes[1], 1, "cube", &mesh);
	rk_scene scene;
	memset(&scene, 0, sizeof(scene));
	scene.nodes = (rk_node_list){ nodes, 2 };
	counting c = { 0, 0, 0, 0 };
	rk_mesh_opts o = { 0 };
	o.allocator = (rk_allocator){ count_alloc, count_free, &c };
	rk_error err;
	rk_mesh_expansion *x = rk_mesh_expansion_build(&scene, &o, &err);
	RK_REQUIRE(x);
	size_t total = c.allocs;
	RK_CHECK_INT(c.live_bytes, x->memory_size);  /* one block left: the result */
	rk_mesh_expansion_free(x);
	RK_CHECK_INT(c.live_bytes, 0);
	RK_CHECK_INT(c.allocs, c.frees);
	for (size_t k = 1; k <= total; k++) {
		c = (counting){ 0, 0, 0, k };
		x = rk_mesh_expansion_build(&scene, &o, &err);
		RK_CHECK(x == NULL);
		RK_CHECK_INT(err.code, RK_ERROR_OUT_OF_MEMORY);
		RK_CHECK_INT(c.live_bytes, 0);
		RK_CHECK_INT(c.allocs, c.frees);
	}
}

/* ---------------------------------------------------------------------------
 * Shared assets
 * ------------------------------------------------------------------------- */

static void check_asset(rk_test_state *rk_t_, const char *path, const rk_mesh_opts *opts)
{
	rk_error err;
	rk_scene *scene = rk_load_file(path, NULL, &err);
	if (!scene) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		fprintf(stderr, "load failed: %s\n", buf);
	}
	RK_REQUIRE(scene);
	rk_mesh_expansion *x = rk_mesh_expansion_build(scene, opts, &err);
	if (!x) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		fprintf(stderr, "%s: expand failed: %s\n", path, buf);
	}
	RK_REQUIRE(x);
	size_t mesh_nodes = 0, expect_indices = 0;
	for (size_t i = 0; i < scene->nodes.count; i++) {
		const rk_node *n = &scene->nodes.data[i];
		if (!n->mesh) continue;
		size_t node_indices = 0;
		for (size_t f = 0; f < n->mesh->face_count; f++)
			if (n->mesh->faces[f].index_count >= 3) node_indices += 3 * (n->mesh->faces[f].index_count - 2);
		RK_REQUIRE(mesh_nodes < x->draw_count);
		const rk_mesh_draw *d = &x->draws[mesh_nodes++];
		RK_CHECK(d->node == n);
		RK_CHECK_INT(d->index_count, node_indices);
		expect_indices += node_indices;
		RK_CHECK_INT(d->stats.fallback_polygons, 0);
	}
	RK_CHECK(mesh_nodes > 0);
	RK_CHECK_INT(x->draw_count, mesh_nodes);
	RK_CHECK_INT(x->index_count, expect_indices);
	const rk_vertex_format f = x->format;
	const unsigned char *vb = (const unsigned char *)x->vertices;
	size_t weighted = 0;
	for (size_t di = 0; di < x->draw_count; di++) {
		const rk_mesh_draw *d = &x->draws[di];
		/* parts tile the draw's index range */
		uint32_t at = d->first_index;
		for (uint32_t p = 0; p < d->part_count; p++) {
			RK_CHECK_INT(x->parts[d->first_part + p].start_index, at);
			RK_CHECK_INT(x->parts[d->first_part + p].index_count % 3, 0);
			at += x->parts[d->first_part + p].index_count;
		}
		RK_CHECK_INT(at, d->first_index + d->index_count);
		for (uint32_t i = d->first_index; i < d->first_index + d->index_count; i++) {
			if (!(x->indices[i] >= d->first_vertex && x->indices[i] < d->first_vertex + d->vertex_count && x->indices[i] < x->vertex_count)) {
				RK_CHECK(!"index out of the draw's vertex range");
				break;
			}
		}
		int bad_bounds = 0, bad_weights = 0, bad_normals = 0;
		for (uint32_t v = d->first_vertex; v < d->first_vertex + d->vertex_count; v++) {
			const unsigned char *p = vb + (size_t)v * f.stride;
			float pos[3], nrm[3];
			memcpy(pos, p + f.position_offset, 12);
			memcpy(nrm, p + f.normal_offset, 12);
			for (int k = 0; k < 3; k++) {
				double lo = k == 0 ? d->bounds_min.x : k == 1 ? d->bounds_min.y : d->bounds_min.z;
				double hi = k == 0 ? d->bounds_max.x : k == 1 ? d->bounds_max.y : d->bounds_max.z;
				double glo = k == 0 ? x->bounds_min.x : k == 1 ? x->bounds_min.y : x->bounds_min.z;
				double ghi = k == 0 ? x->bounds_max.x : k == 1 ? x->bounds_max.y : x->bounds_max.z;
				if (!(pos[k] >= lo && pos[k] <= hi && pos[k] >= glo && pos[k] <= ghi)) bad_bounds++;
			}
			double nl = sqrt((double)nrm[0] * nrm[0] + (double)nrm[1] * nrm[1] + (double)nrm[2] * nrm[2]);
			if (!(fabs(nl - 1.0) < 1e-5 || nl == 0.0)) bad_normals++;
			if (d->skin) {
				double sum = 0;
				if (f.weight_format == RK_WEIGHTS_FLOAT) {
					float w[4];
					memcpy(w, p + f.weights_offset, 16);
					sum = (double)w[0] + w[1] + w[2] + w[3];
					if (!(w[0] >= w[1] && w[1] >= w[2] && w[2] >= w[3] && w[3] >= 0)) bad_weights++;
					if (sum != 0.0 && fabs(sum - 1.0) > 1e-6) bad_weights++;
				} else {
					uint16_t q[4];
					memcpy(q, p + f.weights_offset, 8);
					unsigned s = (unsigned)q[0] + q[1] + q[2] + q[3];
					if (s != 0 && s != 65535) bad_weights++;
					sum = s;
				}
				if (sum != 0.0) weighted++;
				uint16_t j[4];
				memcpy(j, p + f.joints_offset, 8);
				for (int k = 0; k < 4; k++)
					if (j[k] >= (opts && opts->joint_indices == RK_JOINTS_NODE ? scene->nodes.count : d->skin->joint_count)) bad_weights++;
			}
		}
		RK_CHECK_INT(bad_bounds, 0);
		RK_CHECK_INT(bad_weights, 0);
		RK_CHECK_INT(bad_normals, 0);
		RK_CHECK(d->vertex_count <= d->stats.corners);
	}
	fprintf(stderr, "  %s: %zu draws, %zu vertices, %zu triangles, %zu weighted vertices, radius %g\n", path, x->draw_count,
		x->vertex_count, x->index_count / 3, weighted, x->radius);
	RK_CHECK(x->radius > 0);
	rk_mesh_expansion_free(x);
	rk_scene_free(scene);
}

static const char *const shared_assets[] = { "ybot.fbx", "Xbot.glb", "Soldier.glb", "readyplayer.me.glb", "Horse.glb", "Flamingo.glb" };

RK_TEST(shared_assets_expand)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	for (size_t a = 0; a < sizeof(shared_assets) / sizeof(shared_assets[0]); a++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/assets/%s", dir, shared_assets[a]);
		check_asset(rk_t_, path, NULL);
	}
}

RK_TEST(shared_assets_expand_options)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	rk_mesh_opts o = { 0 };
	o.optimize = true;
	o.weight_format = RK_WEIGHTS_UNORM16;
	o.flip_v = true;
	o.tangents = true;
	o.world_space = true;
	for (size_t a = 0; a < sizeof(shared_assets) / sizeof(shared_assets[0]); a++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/assets/%s", dir, shared_assets[a]);
		check_asset(rk_t_, path, &o);
	}
	rk_mesh_opts o2 = { 0 };
	o2.no_dedup = true;
	o2.generate_normals = true;
	o2.joint_indices = RK_JOINTS_NODE;
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/ybot.fbx", dir);
	check_asset(rk_t_, path, &o2);
}

/* Every face of the assets through rk_polygon_triangulate: n - 2 triangles,
 * area vectors summing to the face's Newell vector (computed here). */
RK_TEST(shared_assets_triangulate_every_face)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) RK_SKIP("shared assets not found");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/ybot.fbx", dir);
	rk_error err;
	rk_scene *scene = rk_load_file(path, NULL, &err);
	RK_REQUIRE(scene);
	size_t faces = 0, bad = 0, flagged = 0, ngons = 0;
	for (size_t m = 0; m < scene->meshes.count; m++) {
		const rk_mesh *mesh = &scene->meshes.data[m];
		for (size_t fi = 0; fi < mesh->face_count; fi++) {
			const rk_face *fc = &mesh->faces[fi];
			if (fc->index_count < 3 || fc->index_count > 64) continue;
			uint32_t tri[3 * 62], flags;
			unsigned char scratch[4096];
			const uint32_t *idx = mesh->vertex_indices + fc->index_begin;
			size_t nt = rk_polygon_triangulate(tri, mesh->positions_f64, mesh->vertex_count, idx, fc->index_count, scratch, sizeof(scratch), &flags);
			faces++;
			if (fc->index_count > 4) ngons++;
			if (flags) flagged++;
			if (nt != fc->index_count - 2) { bad++; continue; }
			rk_vec3 newell = { 0, 0, 0 }, sum = { 0, 0, 0 };
			rk_vec3 p0 = rk_mesh_position(mesh, idx[0]);
			for (uint32_t k = 0; k < fc->index_count; k++) {
				rk_vec3 a = rk_vec3_sub(rk_mesh_position(mesh, idx[k]), p0), b = rk_vec3_sub(rk_mesh_position(mesh, idx[(k + 1) % fc->index_count]), p0);
				newell = rk_vec3_add(newell, rk_vec3_cross(a, b));
			}
			for (size_t t = 0; t < nt; t++) {
				rk_vec3 a = rk_mesh_position(mesh, idx[tri[3 * t]]), b = rk_mesh_position(mesh, idx[tri[3 * t + 1]]), c = rk_mesh_position(mesh, idx[tri[3 * t + 2]]);
				rk_vec3 cr = rk_vec3_cross(rk_vec3_sub(b, a), rk_vec3_sub(c, a));
				sum = rk_vec3_add(sum, cr);
				if (rk_vec3_dot(cr, newell) < -1e-9 * rk_vec3_dot(newell, newell)) bad++;
			}
			double scale = 1e-9 * (1.0 + rk_vec3_length(newell));
			if (fabs(sum.x - newell.x) > scale || fabs(sum.y - newell.y) > scale || fabs(sum.z - newell.z) > scale) bad++;
		}
	}
	fprintf(stderr, "  ybot: %zu faces (%zu with > 4 corners), %zu flagged\n", faces, ngons, flagged);
	RK_CHECK(faces > 0);
	RK_CHECK_INT(bad, 0);
	RK_CHECK_INT(flagged, 0);
	rk_scene_free(scene);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(triangulate_l_shape),
	RK_TEST_ENTRY(triangulate_star),
	RK_TEST_ENTRY(triangulate_comb_needs_scratch),
	RK_TEST_ENTRY(triangulate_nonplanar_quads),
	RK_TEST_ENTRY(triangulate_collinear),
	RK_TEST_ENTRY(triangulate_repeated_vertex),
	RK_TEST_ENTRY(triangulate_random_star_polygons),
	RK_TEST_ENTRY(triangulate_big_polygons),
	RK_TEST_ENTRY(triangulate_big_self_intersecting),
	RK_TEST_ENTRY(triangulate_counts_and_bad_args),
	RK_TEST_ENTRY(vertex_format_layout),
	RK_TEST_ENTRY(parts_grouping),
	RK_TEST_ENTRY(parts_many_slots),
	RK_TEST_ENTRY(skin_top4_renormalised),
	RK_TEST_ENTRY(dedup_cube),
	RK_TEST_ENTRY(smooth_normals_by_hand),
	RK_TEST_ENTRY(generated_normals),
	RK_TEST_ENTRY(transforms_and_winding),
	RK_TEST_ENTRY(uv_set_selection),
	RK_TEST_ENTRY(scene_material_slot_rule),
	RK_TEST_ENTRY(scene_uv_set_rule),
	RK_TEST_ENTRY(scene_radius_rules),
	RK_TEST_ENTRY(bad_inputs_rejected),
	RK_TEST_ENTRY(allocation_failures_leak_nothing),
	RK_TEST_ENTRY(shared_assets_expand),
	RK_TEST_ENTRY(shared_assets_expand_options),
	RK_TEST_ENTRY(shared_assets_triangulate_every_face))
