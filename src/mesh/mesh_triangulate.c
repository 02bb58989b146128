/*
 * src/mesh/mesh_triangulate.c - polygon triangulation by ear clipping in the
 * polygon's best-fit (Newell) plane. See rigkit/mesh.h for the contract.
 *
 * Outline:
 *   3 corners   one triangle as is
 *   4 corners   the diagonal whose two triangles both face along the area
 *               vector (shorter diagonal when both do); else the general path
 *               (which also catches quads with no area)
 *   n corners   Newell normal -> orthonormal 2D basis -> circular linked list;
 *               ear status (convex + no other corner inside or on the
 *               triangle) is cached per corner and refreshed for the two
 *               neighbours of each clipped ear (clipping only removes points,
 *               so a cached "ear" never becomes wrong for other corners; a
 *               cached "no ear" may, so everything is recomputed once before
 *               giving up). Each step clips the best-shaped ear; then
 *               zero-area corners; then (fallback) the best convex corner;
 *               then a fan of what is left.
 * Every clip removes exactly its triangle's signed area from the remaining
 * polygon, so the triangles' area vectors always sum to the polygon's.
 */
#include "rigkit/mesh.h"

#include <math.h>
#include <string.h>

typedef struct rki_tri_corner {
	double x, y;        /* projected position */
	double score;       /* ear quality, meaningful when ear != 0 */
	uint32_t prev, next;
	uint32_t ear;       /* 1: valid ear at the last evaluation */
	uint32_t free_;     /* 1: zero-area duplicate or spike, clipped first */
} rki_tri_corner;

#define RKI_TRI_NONE UINT32_MAX

size_t rk_polygon_triangulate_scratch_size(size_t corner_count)
{
	if (corner_count < 5) return 0;
	if (corner_count > (SIZE_MAX - 64) / sizeof(rki_tri_corner)) return SIZE_MAX;
	return corner_count * sizeof(rki_tri_corner) + 16;
}

static inline double rki_orient(const rki_tri_corner *a, const rki_tri_corner *b, const rki_tri_corner *c)
{
	return (b->x - a->x) * (c->y - a->y) - (b->y - a->y) * (c->x - a->x);
}

static inline bool rki_same_point(const rki_tri_corner *a, const rki_tri_corner *b)
{
	return a->x == b->x && a->y == b->y;
}

static inline double rki_dist2(const rki_tri_corner *a, const rki_tri_corner *b)
{
	double dx = b->x - a->x, dy = b->y - a->y;
	return dx * dx + dy * dy;
}

/* Re-evaluates corner i of the remaining polygon: "free" when its triangle
 * has no area and it is a duplicate of a neighbour or the tip of a spike
 * (the outline turns back on itself: neighbours coincide, or the two edges
 * point in opposite directions), "ear" when convex with no other corner in
 * or on its triangle. Only the corner and its two neighbours matter for
 * "free", so both flags stay valid until a neighbour is clipped. */
static void rki_tri_eval(rki_tri_corner *c, uint32_t i, double eps)
{
	rki_tri_corner *b = &c[i];
	const rki_tri_corner *a = &c[b->prev], *n = &c[b->next];
	b->ear = 0;
	b->free_ = 0;
	double area2 = rki_orient(a, b, n);
	if (fabs(area2) <= eps) {
		double back = (b->x - a->x) * (n->x - b->x) + (b->y - a->y) * (n->y - b->y);
		if (rki_same_point(a, b) || rki_same_point(b, n) || rki_same_point(a, n) || back < 0.0) b->free_ = 1;
		return;
	}
	if (!(area2 > eps)) return;
	for (uint32_t j = n->next; j != b->prev; j = c[j].next) {
		const rki_tri_corner *p = &c[j];
		if (rki_same_point(p, a) || rki_same_point(p, b) || rki_same_point(p, n)) continue;
		if (rki_orient(a, b, p) >= -eps && rki_orient(b, n, p) >= -eps && rki_orient(n, a, p) >= -eps) return;
	}
	double d = rki_dist2(a, b) + rki_dist2(b, n) + rki_dist2(n, a);
	b->score = d > 0.0 ? area2 / d : 0.0;
	b->ear = 1;
}

static inline void rki_emit(uint32_t **out, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t *o = *out;
	o[0] = a;
	o[1] = b;
	o[2] = c;
	*out = o + 3;
}

static inline rk_vec3 rki_corner(const rk_vec3 *positions, const uint32_t *indices, size_t k)
{
	return positions[indices ? indices[k] : k];
}

static inline rk_vec3 rki_sub(rk_vec3 a, rk_vec3 b) { return (rk_vec3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static inline double rki_dot(rk_vec3 a, rk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline rk_vec3 rki_cross(rk_vec3 a, rk_vec3 b)
{
	return (rk_vec3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}

/* Quads: returns false when neither diagonal works (general path). */
static bool rki_quad(uint32_t *out, const rk_vec3 *positions, const uint32_t *indices)
{
	rk_vec3 p0 = rki_corner(positions, indices, 0);
	rk_vec3 p1 = rki_sub(rki_corner(positions, indices, 1), p0);
	rk_vec3 p2 = rki_sub(rki_corner(positions, indices, 2), p0);
	rk_vec3 p3 = rki_sub(rki_corner(positions, indices, 3), p0);
	rk_vec3 d13 = rki_sub(p3, p1);
	rk_vec3 N = rki_cross(p2, d13);  /* Newell normal of a quad: (p2 - p0) x (p3 - p1) */
	double l02 = rki_dot(p2, p2), l13 = rki_dot(d13, d13);
	double scale = l02 > l13 ? l02 : l13;
	if (!(rki_dot(N, N) > 1e-24 * scale * scale)) return false;  /* |N| <= 1e-12 * diagonal^2 */
	bool split02 = rki_dot(rki_cross(p1, p2), N) > 0.0 && rki_dot(rki_cross(p2, p3), N) > 0.0;
	bool split13 = rki_dot(rki_cross(rki_sub(p2, p1), d13), N) > 0.0 && rki_dot(rki_cross(d13, (rk_vec3){ -p1.x, -p1.y, -p1.z }), N) > 0.0;
	if (split02 && split13 && l13 < l02) split02 = false;
	if (split02) {
		out[0] = 0; out[1] = 1; out[2] = 2;
		out[3] = 0; out[4] = 2; out[5] = 3;
		return true;
	}
	if (split13) {
		out[0] = 1; out[1] = 2; out[2] = 3;
		out[3] = 1; out[4] = 3; out[5] = 0;
		return true;
	}
	return false;
}

size_t rk_polygon_triangulate(uint32_t *destination, const rk_vec3 *positions, size_t position_count,
	const uint32_t *indices, size_t corner_count, void *scratch, size_t scratch_size, uint32_t *out_flags)
{
	uint32_t flags = 0;
	if (out_flags) *out_flags = 0;
	if (corner_count < 3) return 0;
	if (!destination || !positions || corner_count > UINT32_MAX) {
		if (out_flags) *out_flags = RK_TRIANGULATE_INVALID;
		return 0;
	}
	if (indices) {
		for (size_t k = 0; k < corner_count; k++) {
			if (indices[k] >= position_count) {
				if (out_flags) *out_flags = RK_TRIANGULATE_INVALID;
				return 0;
			}
		}
	} else if (corner_count > position_count) {
		if (out_flags) *out_flags = RK_TRIANGULATE_INVALID;
		return 0;
	}
	const uint32_t n = (uint32_t)corner_count;
	uint32_t *out = destination;
	if (n == 3) {
		rki_emit(&out, 0, 1, 2);
		return 1;
	}
	if (n == 4 && rki_quad(destination, positions, indices)) return 2;

	/* Size of the polygon for relative tolerances, and its Newell normal
	 * (area vector * 2) around corner 0 for precision. */
	rk_vec3 p0 = rki_corner(positions, indices, 0);
	rk_vec3 lo = p0, hi = p0, N = { 0, 0, 0 };
	rk_vec3 prev = { 0, 0, 0 };
	{
		rk_vec3 last = rki_corner(positions, indices, n - 1);
		prev = (rk_vec3){ last.x - p0.x, last.y - p0.y, last.z - p0.z };
	}
	for (uint32_t k = 0; k < n; k++) {
		rk_vec3 p = rki_corner(positions, indices, k);
		if (p.x < lo.x) lo.x = p.x;
		if (p.y < lo.y) lo.y = p.y;
		if (p.z < lo.z) lo.z = p.z;
		if (p.x > hi.x) hi.x = p.x;
		if (p.y > hi.y) hi.y = p.y;
		if (p.z > hi.z) hi.z = p.z;
		rk_vec3 q = { p.x - p0.x, p.y - p0.y, p.z - p0.z };
		N.x += (prev.y - q.y) * (prev.z + q.z);
		N.y += (prev.z - q.z) * (prev.x + q.x);
		N.z += (prev.x - q.x) * (prev.y + q.y);
		prev = q;
	}
	double L = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
	double eps = 1e-12 * L * L;
	double nlen = sqrt(N.x * N.x + N.y * N.y + N.z * N.z);
	if (!(L > 0.0) || !isfinite(L) || !(nlen > eps) || !isfinite(nlen)) {
		/* No area (or not finite): any triangulation is as good; fan. */
		for (uint32_t k = 1; k + 1 < n; k++) rki_emit(&out, 0, k, k + 1);
		if (out_flags) *out_flags = RK_TRIANGULATE_DEGENERATE;
		return n - 2;
	}

	rki_tri_corner stack_buf[RK_TRIANGULATE_STACK_CORNERS];
	rki_tri_corner *c;
	if (n <= RK_TRIANGULATE_STACK_CORNERS && (!scratch || scratch_size < rk_polygon_triangulate_scratch_size(n))) {
		c = stack_buf;
	} else {
		size_t need = rk_polygon_triangulate_scratch_size(n);
		if (!scratch || need == SIZE_MAX || scratch_size < need) {
			if (out_flags) *out_flags = RK_TRIANGULATE_INVALID;
			return 0;
		}
		uintptr_t addr = ((uintptr_t)scratch + 15u) & ~(uintptr_t)15u;
		c = (rki_tri_corner *)addr;
	}

	/* Right-handed basis (u, v, N^): counter-clockwise in 2D = along N. */
	rk_vec3 nn = { N.x / nlen, N.y / nlen, N.z / nlen };
	rk_vec3 axis = fabs(nn.x) < 0.9 ? (rk_vec3){ 1, 0, 0 } : (rk_vec3){ 0, 1, 0 };
	rk_vec3 u = rk_vec3_normalize(rk_vec3_sub(axis, rk_vec3_scale(nn, rki_dot(nn, axis))));
	rk_vec3 v = rki_cross(nn, u);
	for (uint32_t k = 0; k < n; k++) {
		rk_vec3 p = rki_corner(positions, indices, k);
		rk_vec3 q = { p.x - p0.x, p.y - p0.y, p.z - p0.z };
		c[k].x = rki_dot(q, u);
		c[k].y = rki_dot(q, v);
		c[k].prev = k == 0 ? n - 1 : k - 1;
		c[k].next = k + 1 == n ? 0 : k + 1;
		c[k].ear = 0;
		c[k].free_ = 0;
		c[k].score = 0.0;
	}
	for (uint32_t k = 0; k < n; k++) rki_tri_eval(c, k, eps);

	uint32_t head = 0, count = n;
	bool fresh = true;  /* statuses are all up to date */
	while (count > 3) {
		uint32_t best = RKI_TRI_NONE;
		double best_score = -1.0;
		for (int pass = 0; pass < 2 && best == RKI_TRI_NONE; pass++) {
			if (pass == 1) {
				if (fresh) break;
				uint32_t i = head;
				do { rki_tri_eval(c, i, eps); i = c[i].next; } while (i != head);
				fresh = true;
			}
			uint32_t i = head;
			do {
				if (c[i].free_) { best = i; break; }
				if (c[i].ear && c[i].score > best_score) { best = i; best_score = c[i].score; }
				i = c[i].next;
			} while (i != head);
		}
		if (best == RKI_TRI_NONE) {
			/* Zero-area corner (collinear or duplicate point): free to clip. */
			uint32_t i = head;
			do {
				double o = rki_orient(&c[c[i].prev], &c[i], &c[c[i].next]);
				if (fabs(o) <= eps) { best = i; break; }
				i = c[i].next;
			} while (i != head);
		}
		if (best == RKI_TRI_NONE) {
			/* No ear at all: the remainder self-intersects. Best convex corner. */
			flags |= RK_TRIANGULATE_FALLBACK;
			uint32_t i = head;
			do {
				const rki_tri_corner *a = &c[c[i].prev], *b = &c[i], *d = &c[c[i].next];
				double o = rki_orient(a, b, d);
				if (o > eps) {
					double s = o / (rki_dist2(a, b) + rki_dist2(b, d) + rki_dist2(d, a));
					if (s > best_score) { best = i; best_score = s; }
				}
				i = c[i].next;
			} while (i != head);
		}
		if (best == RKI_TRI_NONE) {
			/* Every corner reflex (only numerically possible): fan the rest. */
			flags |= RK_TRIANGULATE_FALLBACK;
			uint32_t a = head, b = c[a].next;
			while (c[b].next != a) {
				rki_emit(&out, a, b, c[b].next);
				b = c[b].next;
			}
			count = 0;
			break;
		}
		uint32_t a = c[best].prev, d = c[best].next;
		rki_emit(&out, a, best, d);
		c[a].next = d;
		c[d].prev = a;
		if (head == best) head = d;
		count--;
		if (count > 3) {
			rki_tri_eval(c, a, eps);
			rki_tri_eval(c, d, eps);
			fresh = false;
		}
	}
	if (count == 3) rki_emit(&out, head, c[head].next, c[c[head].next].next);
	if (out_flags) *out_flags = flags;
	return n - 2;
}
