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
 *   n > 64      the same preferences with two indexes so big polygons stay
 *               fast (rki_tri_big below): an indexed binary max-heap of the
 *               clippable corners (free > ear by score > zero-area) replaces
 *               the scan for the best ear, and a uniform grid over the
 *               projected bounding box holds the corners that can block an
 *               ear (reflex or zero-area ones: in a simple polygon a triangle
 *               containing any corner contains one of those), so an ear test
 *               visits only the grid cells under its triangle. A work budget
 *               (point tests + evaluations) of n * min(n, 1024) bounds the
 *               cost: once spent, containment is no longer tested and the
 *               best-shaped convex corner is clipped (RK_TRIANGULATE_FALLBACK).
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

/* Polygons with more corners use the indexed path (rki_tri_big). */
#define RKI_TRI_BIG_MIN 65u
/* Work budget per corner of the indexed path (see the outline). */
#define RKI_TRI_BUDGET_PER_CORNER 1024u

/* Per-corner uint32 arrays of the indexed path: heap, heap position, Z
 * order, position in it. Plus fewer than corner_count / 2 tree nodes
 * (rki_tri_node, 40 bytes). */
#define RKI_TRI_BIG_WORDS 4u

size_t rk_polygon_triangulate_scratch_size(size_t corner_count)
{
	if (corner_count < 5) return 0;
	size_t per = sizeof(rki_tri_corner) + (corner_count >= RKI_TRI_BIG_MIN ? RKI_TRI_BIG_WORDS * sizeof(uint32_t) + 20 : 0);
	if (corner_count > (SIZE_MAX - 64) / per) return SIZE_MAX;
	return corner_count * per + 16;
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

/* The convex corner with the best shape, ignoring containment (fallback
 * when no ear exists); RKI_TRI_NONE if every corner is reflex or flat.
 * Adds the corners visited to *work. */
static uint32_t rki_tri_best_convex(const rki_tri_corner *c, uint32_t head, double eps, uint64_t *work)
{
	uint32_t best = RKI_TRI_NONE, i = head;
	double best_score = -1.0;
	do {
		const rki_tri_corner *a = &c[c[i].prev], *b = &c[i], *d = &c[c[i].next];
		double o = rki_orient(a, b, d);
		if (o > eps) {
			double sc = o / (rki_dist2(a, b) + rki_dist2(b, d) + rki_dist2(d, a));
			if (sc > best_score) { best = i; best_score = sc; }
		}
		(*work)++;
		i = c[i].next;
	} while (i != head);
	return best;
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

/* ---- the indexed path (n >= RKI_TRI_BIG_MIN) ------------------------------ */

/* Clip classes, best first (the heap orders by class, then score, then the
 * lower corner number). */
enum { RKI_TRI_CLASS_NONE = 0, RKI_TRI_CLASS_FLAT, RKI_TRI_CLASS_EAR, RKI_TRI_CLASS_FREE };

/* A node of the tree of corners (see rki_big_tree_build). */
typedef struct rki_tri_node {
	double x0, y0, x1, y1;  /* bounding box of the node's corners */
	uint32_t active;        /* how many of them block now */
	uint32_t pad_;
} rki_tri_node;

/* rki_tri_corner.free_ bit: the corner is reflex or flat (can block an ear)
 * and counted in the tree. */
#define RKI_TRI_BLOCKING 2u

typedef struct rki_tri_big {
	rki_tri_corner *c;
	rki_tri_node *nodes;
	size_t node_count;
	uint32_t *heap;      /* corner numbers, heap[0] the best */
	uint32_t *hpos;      /* position in heap, RKI_TRI_NONE when absent */
	uint32_t *perm;      /* corners in Z order */
	uint32_t *pos;       /* position of each corner in perm */
	uint32_t n;
	uint32_t heap_count;
	double eps;
	uint64_t work, budget;
	bool lax;            /* budget spent: convex = ear */
} rki_tri_big;

static inline uint32_t rki_big_class(const rki_tri_corner *k)
{
	return (k->free_ & 1u) ? RKI_TRI_CLASS_FREE : k->ear;
}

static inline bool rki_big_better(const rki_tri_big *s, uint32_t i, uint32_t j)
{
	uint32_t ci = rki_big_class(&s->c[i]), cj = rki_big_class(&s->c[j]);
	if (ci != cj) return ci > cj;
	if (s->c[i].score != s->c[j].score) return s->c[i].score > s->c[j].score;
	return i < j;
}

static inline void rki_big_place(rki_tri_big *s, uint32_t pos, uint32_t corner)
{
	s->heap[pos] = corner;
	s->hpos[corner] = pos;
}

static void rki_big_sift_up(rki_tri_big *s, uint32_t pos)
{
	uint32_t k = s->heap[pos];
	while (pos > 0) {
		uint32_t parent = (pos - 1) / 2;
		if (!rki_big_better(s, k, s->heap[parent])) break;
		rki_big_place(s, pos, s->heap[parent]);
		pos = parent;
	}
	rki_big_place(s, pos, k);
}

static void rki_big_sift_down(rki_tri_big *s, uint32_t pos)
{
	uint32_t k = s->heap[pos];
	for (;;) {
		uint32_t l = 2 * pos + 1, best = pos;
		uint32_t bk = k;
		if (l < s->heap_count && rki_big_better(s, s->heap[l], bk)) { best = l; bk = s->heap[l]; }
		if (l + 1 < s->heap_count && rki_big_better(s, s->heap[l + 1], bk)) best = l + 1;
		if (best == pos) break;
		rki_big_place(s, pos, s->heap[best]);
		pos = best;
	}
	rki_big_place(s, pos, k);
}

static void rki_big_heap_remove(rki_tri_big *s, uint32_t corner)
{
	uint32_t pos = s->hpos[corner];
	if (pos == RKI_TRI_NONE) return;
	s->hpos[corner] = RKI_TRI_NONE;
	uint32_t last = s->heap[--s->heap_count];
	if (pos == s->heap_count) return;
	rki_big_place(s, pos, last);
	rki_big_sift_up(s, pos);
	rki_big_sift_down(s, s->hpos[last]);
}

/* After corner's class or score changed. */
static void rki_big_heap_update(rki_tri_big *s, uint32_t corner)
{
	if (rki_big_class(&s->c[corner]) == RKI_TRI_CLASS_NONE) {
		rki_big_heap_remove(s, corner);
		return;
	}
	uint32_t pos = s->hpos[corner];
	if (pos == RKI_TRI_NONE) {
		pos = s->heap_count++;
		rki_big_place(s, pos, corner);
	}
	rki_big_sift_up(s, pos);
	rki_big_sift_down(s, s->hpos[corner]);
}

/* The tree: node 0 covers sorted positions [0, n); a node of more than
 * RKI_TRI_LEAF positions has children 2i+1 and 2i+2 covering its halves.
 * Each node keeps the bounding box of all its corners (fixed) and how many
 * of them block now (changes). */
#define RKI_TRI_LEAF 8u

static size_t rki_big_node_count(size_t n)
{
	size_t size = n, nodes = 1;
	while (size > RKI_TRI_LEAF) {
		size = (size + 1) / 2;
		nodes = 2 * nodes + 1;
	}
	return nodes;  /* < n / 2 for n > RKI_TRI_LEAF */
}

/* Adds delta (+1/-1) to the counts on the path to sorted position pos. */
static void rki_big_tree_count(rki_tri_big *s, uint32_t pos, int delta)
{
	uint32_t node = 0, lo = 0, hi = s->n;
	for (;;) {
		s->nodes[node].active = (uint32_t)((int64_t)s->nodes[node].active + delta);
		if (hi - lo <= RKI_TRI_LEAF) return;
		uint32_t mid = lo + (hi - lo) / 2;
		if (pos < mid) { node = 2 * node + 1; hi = mid; }
		else { node = 2 * node + 2; lo = mid; }
	}
}

static void rki_big_block_remove(rki_tri_big *s, uint32_t i)
{
	if (!(s->c[i].free_ & RKI_TRI_BLOCKING)) return;
	s->c[i].free_ &= ~RKI_TRI_BLOCKING;
	rki_big_tree_count(s, s->pos[i], -1);
}

static void rki_big_block_insert(rki_tri_big *s, uint32_t i)
{
	if (s->c[i].free_ & RKI_TRI_BLOCKING) return;
	s->c[i].free_ |= RKI_TRI_BLOCKING;
	rki_big_tree_count(s, s->pos[i], +1);
}

/* Node boxes: leaves from their corners (a walk from the root that knows
 * each node's range), then inner nodes from their children, children
 * (higher numbers) first. */
static void rki_big_tree_boxes(rki_tri_big *s)
{
	uint32_t stack_node[80], stack_lo[80], stack_hi[80], top = 1;
	stack_node[0] = 0; stack_lo[0] = 0; stack_hi[0] = s->n;
	while (top) {
		top--;
		uint32_t k = stack_node[top], l = stack_lo[top], h = stack_hi[top];
		rki_tri_node *nd = &s->nodes[k];
		if (h - l > RKI_TRI_LEAF) {
			nd->active = 1;  /* inner, filled below */
			uint32_t mid = l + (h - l) / 2;
			stack_node[top] = 2 * k + 1; stack_lo[top] = l; stack_hi[top] = mid; top++;
			stack_node[top] = 2 * k + 2; stack_lo[top] = mid; stack_hi[top] = h; top++;
			continue;
		}
		const rki_tri_corner *p = &s->c[s->perm[l]];
		nd->x0 = nd->x1 = p->x;
		nd->y0 = nd->y1 = p->y;
		for (uint32_t q = l + 1; q < h; q++) {
			p = &s->c[s->perm[q]];
			nd->x0 = fmin(nd->x0, p->x); nd->x1 = fmax(nd->x1, p->x);
			nd->y0 = fmin(nd->y0, p->y); nd->y1 = fmax(nd->y1, p->y);
		}
	}
	for (size_t k = s->node_count; k-- > 0;) {
		rki_tri_node *nd = &s->nodes[k];
		if (!nd->active) continue;
		const rki_tri_node *l = &s->nodes[2 * k + 1], *r = &s->nodes[2 * k + 2];
		nd->x0 = fmin(l->x0, r->x0); nd->x1 = fmax(l->x1, r->x1);
		nd->y0 = fmin(l->y0, r->y0); nd->y1 = fmax(l->y1, r->y1);
		nd->active = 0;
	}
}

/* Sorts the corners along a Z-order curve of their quantised position
 * (LSD radix sort, 4 passes of 8 bits), so that each tree node covers
 * nearby corners; fills perm and pos and the node boxes. */
static void rki_big_tree_build(rki_tri_big *s, double minx, double miny, double maxx, double maxy)
{
	uint32_t n = s->n;
	uint32_t *key = s->heap, *key2 = s->hpos, *idx = s->perm, *idx2 = s->pos;
	double sx = maxx > minx ? 65535.0 / (maxx - minx) : 0.0, sy = maxy > miny ? 65535.0 / (maxy - miny) : 0.0;
	for (uint32_t k = 0; k < n; k++) {
		double qx = (s->c[k].x - minx) * sx, qy = (s->c[k].y - miny) * sy;
		uint32_t x = qx > 0.0 ? (qx < 65535.0 ? (uint32_t)qx : 65535u) : 0u;
		uint32_t y = qy > 0.0 ? (qy < 65535.0 ? (uint32_t)qy : 65535u) : 0u;
		x = (x | (x << 8)) & 0x00ff00ffu; x = (x | (x << 4)) & 0x0f0f0f0fu;
		x = (x | (x << 2)) & 0x33333333u; x = (x | (x << 1)) & 0x55555555u;
		y = (y | (y << 8)) & 0x00ff00ffu; y = (y | (y << 4)) & 0x0f0f0f0fu;
		y = (y | (y << 2)) & 0x33333333u; y = (y | (y << 1)) & 0x55555555u;
		key[k] = x | (y << 1);
		idx[k] = k;
	}
	for (uint32_t shift = 0; shift < 32; shift += 8) {
		uint32_t count[257];
		memset(count, 0, sizeof(count));
		for (uint32_t k = 0; k < n; k++) count[((key[k] >> shift) & 255u) + 1]++;
		for (uint32_t b = 0; b < 256; b++) count[b + 1] += count[b];
		for (uint32_t k = 0; k < n; k++) {
			uint32_t d = count[(key[k] >> shift) & 255u]++;
			key2[d] = key[k];
			idx2[d] = idx[k];
		}
		uint32_t *t = key; key = key2; key2 = t;
		t = idx; idx = idx2; idx2 = t;
	}
	/* 4 passes: the result is back in s->heap / s->perm */
	for (uint32_t k = 0; k < n; k++) s->pos[s->perm[k]] = k;
	memset(s->nodes, 0, s->node_count * sizeof(rki_tri_node));
	rki_big_tree_boxes(s);
}

/* True when a blocking corner other than a, b, n (and not at their points)
 * lies in or on triangle (a, b, n). Visits the tree nodes that have
 * blocking corners and whose box is not entirely outside one of the
 * triangle's edges. */
static bool rki_big_blocked(rki_tri_big *s, uint32_t ia, uint32_t ib, uint32_t in)
{
	const rki_tri_corner *c = s->c, *a = &c[ia], *b = &c[ib], *n = &c[in];
	double eps = s->eps;
	double x0 = fmin(a->x, fmin(b->x, n->x)), x1 = fmax(a->x, fmax(b->x, n->x));
	double y0 = fmin(a->y, fmin(b->y, n->y)), y1 = fmax(a->y, fmax(b->y, n->y));
	const rki_tri_corner *edge[4] = { a, b, n, a };
	uint32_t stack_node[80], stack_lo[80], stack_hi[80], top = 1;
	stack_node[0] = 0; stack_lo[0] = 0; stack_hi[0] = s->n;
	while (top) {
		top--;
		uint32_t k = stack_node[top], l = stack_lo[top], h = stack_hi[top];
		const rki_tri_node *nd = &s->nodes[k];
		s->work++;
		if (!nd->active || nd->x0 > x1 || nd->x1 < x0 || nd->y0 > y1 || nd->y1 < y0) continue;
		/* outside an edge p -> q when the box corner that is furthest to
		 * its left is still right of it (orient is linear in the point) */
		bool outside = false;
		for (int e = 0; e < 3 && !outside; e++) {
			const rki_tri_corner *p = edge[e], *q = edge[e + 1];
			double dx = q->x - p->x, dy = q->y - p->y;
			double vx = dy > 0.0 ? nd->x0 : nd->x1, vy = dx > 0.0 ? nd->y1 : nd->y0;
			outside = dx * (vy - p->y) - dy * (vx - p->x) < -eps;
		}
		if (outside) continue;
		if (h - l <= RKI_TRI_LEAF) {
			for (uint32_t q = l; q < h; q++) {
				uint32_t j = s->perm[q];
				s->work++;
				if (!(c[j].free_ & RKI_TRI_BLOCKING) || j == ia || j == ib || j == in) continue;
				const rki_tri_corner *p = &c[j];
				if (rki_same_point(p, a) || rki_same_point(p, b) || rki_same_point(p, n)) continue;
				if (rki_orient(a, b, p) >= -eps && rki_orient(b, n, p) >= -eps && rki_orient(n, a, p) >= -eps) return true;
			}
			continue;
		}
		uint32_t mid = l + (h - l) / 2;
		stack_node[top] = 2 * k + 1; stack_lo[top] = l; stack_hi[top] = mid; top++;
		stack_node[top] = 2 * k + 2; stack_lo[top] = mid; stack_hi[top] = h; top++;
	}
	return false;
}

/* rki_tri_eval for the indexed path: the same rules, with containment
 * tested against the grid (or not at all once the budget is spent); keeps
 * the grid and the heap in step with the corner's new status. */
static void rki_big_eval(rki_tri_big *s, uint32_t i)
{
	rki_tri_corner *c = s->c, *b = &c[i];
	const rki_tri_corner *a = &c[b->prev], *n = &c[b->next];
	double eps = s->eps;
	b->ear = RKI_TRI_CLASS_NONE;
	b->free_ &= RKI_TRI_BLOCKING;
	b->score = 0.0;
	s->work++;
	double area2 = rki_orient(a, b, n);
	if (!(area2 > eps)) {
		rki_big_block_insert(s, i);
		if (fabs(area2) <= eps) {
			double back = (b->x - a->x) * (n->x - b->x) + (b->y - a->y) * (n->y - b->y);
			if (rki_same_point(a, b) || rki_same_point(b, n) || rki_same_point(a, n) || back < 0.0) b->free_ |= 1u;
			else b->ear = RKI_TRI_CLASS_FLAT;
		}
		rki_big_heap_update(s, i);
		return;
	}
	rki_big_block_remove(s, i);
	if (!s->lax) {
		bool blocked = rki_big_blocked(s, b->prev, i, b->next);
		if (s->work > s->budget) s->lax = true;
		if (blocked) {
			rki_big_heap_update(s, i);
			return;
		}
	}
	double d = rki_dist2(a, b) + rki_dist2(b, n) + rki_dist2(n, a);
	b->score = d > 0.0 ? area2 / (d * d) : 0.0;
	b->ear = RKI_TRI_CLASS_EAR;
	rki_big_heap_update(s, i);
}

/* Ear clipping of the n >= RKI_TRI_BIG_MIN corners in c (projected, linked,
 * flags zero), with rki_big_node_count(n) nodes and RKI_TRI_BIG_WORDS * n
 * uint32 of scratch. Returns flags. */
static uint32_t rki_tri_big_run(rki_tri_corner *c, rki_tri_node *nodes, uint32_t *words, uint32_t n, double eps,
	uint32_t **out)
{
	rki_tri_big s;
	memset(&s, 0, sizeof(s));
	s.c = c;
	s.n = n;
	s.nodes = nodes;
	s.node_count = rki_big_node_count(n);
	s.heap = words;
	s.hpos = words + n;
	s.perm = words + 2 * (size_t)n;
	s.pos = words + 3 * (size_t)n;
	s.eps = eps;
	s.budget = (uint64_t)n * (n < RKI_TRI_BUDGET_PER_CORNER ? n : RKI_TRI_BUDGET_PER_CORNER);
	double minx = c[0].x, miny = c[0].y, maxx = c[0].x, maxy = c[0].y;
	for (uint32_t k = 1; k < n; k++) {
		minx = fmin(minx, c[k].x);
		miny = fmin(miny, c[k].y);
		maxx = fmax(maxx, c[k].x);
		maxy = fmax(maxy, c[k].y);
	}
	rki_big_tree_build(&s, minx, miny, maxx, maxy);
	for (uint32_t k = 0; k < n; k++) s.hpos[k] = RKI_TRI_NONE;
	/* Blocking corners first (the tree must be complete before any ear test). */
	for (uint32_t k = 0; k < n; k++) {
		if (!(rki_orient(&c[c[k].prev], &c[k], &c[c[k].next]) > eps)) rki_big_block_insert(&s, k);
	}
	for (uint32_t k = 0; k < n; k++) rki_big_eval(&s, k);

	uint32_t flags = 0, head = 0, count = n;
	bool fresh = true, settled = false;
	while (count > 3) {
		uint32_t top = s.heap_count ? s.heap[0] : RKI_TRI_NONE;
		uint32_t cls = top == RKI_TRI_NONE ? RKI_TRI_CLASS_NONE : rki_big_class(&c[top]);
		if (cls < RKI_TRI_CLASS_EAR && !fresh) {
			/* Cached "no ear" statuses may be stale: re-evaluate everything once. */
			bool was_lax = s.lax;
			uint32_t i = head;
			do { rki_big_eval(&s, i); i = c[i].next; } while (i != head);
			fresh = true;
			/* without containment tests a status depends only on the
			 * neighbours, which every clip re-evaluates: never stale again */
			settled = was_lax;
			continue;
		}
		uint32_t best = top;
		if (best == RKI_TRI_NONE) {
			/* No ear and no zero-area corner: the remainder self-intersects.
			 * Best convex corner, regardless of containment. */
			flags |= RK_TRIANGULATE_FALLBACK;
			best = rki_tri_best_convex(c, head, eps, &s.work);
			if (s.work > s.budget) s.lax = true;
		}
		if (best == RKI_TRI_NONE) {
			/* Every corner reflex (only numerically possible): fan the rest. */
			uint32_t a = head, b = c[a].next;
			while (c[b].next != a) {
				rki_emit(out, a, b, c[b].next);
				b = c[b].next;
			}
			count = 0;
			break;
		}
		if (s.lax) flags |= RK_TRIANGULATE_FALLBACK;
		uint32_t a = c[best].prev, d = c[best].next;
		rki_emit(out, a, best, d);
		rki_big_heap_remove(&s, best);
		rki_big_block_remove(&s, best);
		c[a].next = d;
		c[d].prev = a;
		if (head == best) head = d;
		count--;
		if (count > 3) {
			rki_big_eval(&s, a);
			rki_big_eval(&s, d);
			fresh = settled;
		}
	}
	if (count == 3) rki_emit(out, head, c[head].next, c[c[head].next].next);
	return flags;
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
	if (n >= RKI_TRI_BIG_MIN) {
		rki_tri_node *nodes = (rki_tri_node *)(void *)(c + n);
		flags = rki_tri_big_run(c, nodes, (uint32_t *)(void *)(nodes + rki_big_node_count(n)), n, eps, &out);
		if (out_flags) *out_flags = flags;
		return n - 2;
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
			uint64_t visited = 0;
			best = rki_tri_best_convex(c, head, eps, &visited);
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
