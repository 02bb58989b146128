/* tests/test_hierarchy.c - rigkit/hierarchy.h against hand-derived values.
 *
 * Expected numbers are worked out by hand in the comments (column vectors,
 * rotations right-handed). Shorthands used throughout:
 *   Rz90: (x, y, z) -> (-y, x, z)      Rz90^-1: (x, y, z) -> (y, -x, z)
 *   Rx90: (x, y, z) -> (x, -z, y)      Rx90^-1: (x, y, z) -> (x, z, -y)
 *   Rz90 * Rx90 = quaternion (1/2, 1/2, 1/2, 1/2), which cycles x -> y -> z -> x
 *   (derived in tests/test_math.c, quat_mul_hand_products).
 *
 * The last group reproduces seed 003: an object orbiting a rotated,
 * non-uniformly scaled target at distance 5 around the target's up axis while
 * facing it, checked against a closed form derived by hand.
 */
#include "rigkit/hierarchy.h"
#include "rk_test.h"

#include <stdint.h>

#define DEG (RK_PI / 180.0)
#define S45 0.70710678118654752440

#define CHECK_VEC3(v, ex, ey, ez, tol) do { rk_vec3 v_ = (v); \
	RK_CHECK_NEAR(v_.x, (ex), (tol)); RK_CHECK_NEAR(v_.y, (ey), (tol)); RK_CHECK_NEAR(v_.z, (ez), (tol)); } while (0)
#define CHECK_VEC3V(v, e, tol) do { rk_vec3 e_ = (e); CHECK_VEC3((v), e_.x, e_.y, e_.z, (tol)); } while (0)

/* Largest component difference between a and +-b (q and -q are one rotation). */
static double quat_sign_diff(rk_quat a, rk_quat b)
{
	double dp = fmax(fmax(fabs(a.x - b.x), fabs(a.y - b.y)), fmax(fabs(a.z - b.z), fabs(a.w - b.w)));
	double dm = fmax(fmax(fabs(a.x + b.x), fabs(a.y + b.y)), fmax(fabs(a.z + b.z), fabs(a.w + b.w)));
	return fmin(dp, dm);
}
#define CHECK_SAME_ROTATION(a, b, tol) RK_CHECK_NEAR(quat_sign_diff((a), (b)), 0.0, (tol))

static const rk_quat QZ90 = { 0, 0, S45, S45 };
static const rk_quat QX90 = { S45, 0, 0, S45 };
static const rk_vec3 EX = { 1, 0, 0 }, EY = { 0, 1, 0 }, EZ = { 0, 0, 1 };

static rk_trs trs(rk_vec3 t, rk_quat r, rk_vec3 s) { return (rk_trs){ t, r, s }; }
static rk_vec3 v3(double x, double y, double z) { return (rk_vec3){ x, y, z }; }
static rk_vec3 uniform(double s) { return (rk_vec3){ s, s, s }; }

static bool vec3_finite(rk_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* ---- a counting allocator that checks sizes and can fail on demand ---------- */

typedef struct counting_alloc {
	size_t live_bytes;
	size_t allocs, frees;
	size_t size_mismatches;
	size_t fail_at;      /* 1-based allocation number to fail; 0 = never */
	size_t attempts;
} counting_alloc;

static void *ca_alloc(void *user, size_t size)
{
	counting_alloc *ca = (counting_alloc *)user;
	ca->attempts++;
	if (ca->fail_at && ca->attempts == ca->fail_at) return NULL;
	unsigned char *p = (unsigned char *)malloc(size + 16);
	if (!p) return NULL;
	memcpy(p, &size, sizeof(size));
	ca->live_bytes += size;
	ca->allocs++;
	return p + 16;
}

static void ca_free(void *user, void *ptr, size_t size)
{
	counting_alloc *ca = (counting_alloc *)user;
	if (!ptr) return;
	unsigned char *p = (unsigned char *)ptr - 16;
	size_t stored;
	memcpy(&stored, p, sizeof(stored));
	if (stored != size) ca->size_mismatches++;
	ca->live_bytes -= stored;
	ca->frees++;
	free(p);
}

/* ---- storage ------------------------------------------------------------------ */

RK_TEST(create_add_grow_destroy)
{
	counting_alloc ca = { 0 };
	rk_allocator a = { ca_alloc, ca_free, &ca };
	rk_hierarchy *h = rk_hierarchy_create(0, &a);
	RK_REQUIRE(h);
	RK_CHECK_INT(rk_hierarchy_count(h), 0);
	/* 1000 items: a binary tree, parent of k is (k-1)/2. */
	for (int32_t k = 0; k < 1000; k++) {
		int32_t parent = k == 0 ? RK_NO_PARENT : (k - 1) / 2;
		int32_t idx = rk_hierarchy_add(h, parent, trs(v3(k, 0, 0), RK_QUAT_IDENTITY, uniform(1)));
		RK_CHECK_INT(idx, k);
	}
	RK_CHECK_INT(rk_hierarchy_count(h), 1000);
	RK_CHECK_INT(rk_hierarchy_parent(h, 0), RK_NO_PARENT);
	RK_CHECK_INT(rk_hierarchy_parent(h, 999), 499);
	/* Values survive the growth copies. */
	CHECK_VEC3(rk_hierarchy_get_local_position(h, 777), 777, 0, 0, 0);
	/* World x of item k = sum of k and its ancestors: 6 -> 2 -> 0: 6 + 2 + 0 = 8. */
	CHECK_VEC3(rk_hierarchy_get_world_position(h, 6), 8, 0, 0, 0);
	/* Growth by doubling: a handful of allocations, not one per add. */
	RK_CHECK(ca.allocs < 20);
	rk_hierarchy_destroy(h);
	RK_CHECK_INT(ca.live_bytes, 0);
	RK_CHECK_INT(ca.allocs, ca.frees);
	RK_CHECK_INT(ca.size_mismatches, 0);

	/* Default allocator and an initial capacity. */
	h = rk_hierarchy_create(4, NULL);
	RK_REQUIRE(h);
	for (int k = 0; k < 100; k++) RK_CHECK_INT(rk_hierarchy_add(h, RK_NO_PARENT, rk_trs_identity()), k);
	rk_hierarchy_destroy(h);
	rk_hierarchy_destroy(NULL);

	/* More than int32 indices can address. */
	if (sizeof(size_t) > 4) RK_CHECK(rk_hierarchy_create((size_t)INT32_MAX + 1, NULL) == NULL);
}

RK_TEST(allocation_failure_leaves_hierarchy_intact)
{
	/* Fail allocation number 1, 2, 3, ... in turn. Each run: create with
	 * capacity 3, then add 200 items. Whatever fails must leave the count and
	 * the existing items unchanged, and destroy must free everything. */
	for (size_t fail = 1; fail < 12; fail++) {
		counting_alloc ca = { 0 };
		ca.fail_at = fail;
		rk_allocator a = { ca_alloc, ca_free, &ca };
		rk_hierarchy *h = rk_hierarchy_create(3, &a);
		if (!h) {
			RK_CHECK(fail <= 2);  /* the struct or the first block */
			RK_CHECK_INT(ca.live_bytes, 0);
			continue;
		}
		int failures = 0;
		for (int32_t k = 0; k < 200; k++) {
			size_t before = rk_hierarchy_count(h);
			int32_t idx = rk_hierarchy_add(h, before ? (int32_t)before - 1 : RK_NO_PARENT,
				trs(v3(1, 0, 0), RK_QUAT_IDENTITY, uniform(1)));
			if (idx < 0) {
				failures++;
				RK_CHECK_INT(rk_hierarchy_count(h), before);
			}
		}
		RK_CHECK(failures <= 1);
		/* A chain of unit steps: world x of the last item = count. */
		size_t n = rk_hierarchy_count(h);
		RK_CHECK(n >= 199);
		CHECK_VEC3(rk_hierarchy_get_world_position(h, (int32_t)n - 1), (double)n, 0, 0, 0);
		rk_hierarchy_destroy(h);
		RK_CHECK_INT(ca.live_bytes, 0);
		RK_CHECK_INT(ca.size_mismatches, 0);
	}
}

/* ---- local <-> world -------------------------------------------------------------- */

/* A: (1,2,3), Rz90, scale 2.  B under A: (1,0,0), Rx90, scale 0.5.
 * C under B: (0,1,0), identity, scale (1,2,3). */
static rk_hierarchy *make_chain(int32_t *a, int32_t *b, int32_t *c)
{
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	if (!h) return NULL;
	*a = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(1, 2, 3), QZ90, uniform(2)));
	*b = rk_hierarchy_add(h, *a, trs(v3(1, 0, 0), QX90, uniform(0.5)));
	*c = rk_hierarchy_add(h, *b, trs(v3(0, 1, 0), RK_QUAT_IDENTITY, v3(1, 2, 3)));
	return h;
}

RK_TEST(local_to_world_three_levels)
{
	int32_t a, b, c;
	rk_hierarchy *h = make_chain(&a, &b, &c);
	RK_REQUIRE(h);
	/* B world = A.pos + Rz90 (2 * (1,0,0)) = (1,2,3) + (0,2,0) = (1,4,3). */
	CHECK_VEC3(rk_hierarchy_get_world_position(h, b), 1, 4, 3, 1e-14);
	/* C: in B space (0,1,0) * 0.5 = (0,0.5,0); Rx90 -> (0,0,0.5); + (1,0,0) -> (1,0,0.5)
	 * in A space; * 2 -> (2,0,1); Rz90 -> (0,2,1); + (1,2,3) -> (1,4,4). */
	CHECK_VEC3(rk_hierarchy_get_world_position(h, c), 1, 4, 4, 1e-14);
	/* Same through the matrix. */
	CHECK_VEC3(rk_mat4_get_translation(rk_hierarchy_local_to_world(h, c)), 1, 4, 4, 1e-14);
	/* World rotations: A = Rz90, B and C = Rz90 * Rx90 = (1/2,1/2,1/2,1/2). */
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, a), QZ90, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, c), ((rk_quat){ 0.5, 0.5, 0.5, 0.5 }), 1e-15);
	/* Lossy scale: uniform ancestors 2 * 0.5 = 1, so C's is its own (1,2,3). */
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, c), 1, 2, 3, 1e-14);
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, b), 1, 1, 1, 1e-14);
	/* A point (1,0,0) in C space: C scale -> (1,0,0); + (0,1,0) -> (1,1,0) in B;
	 * * 0.5 -> (0.5,0.5,0); Rx90 -> (0.5,0,0.5); + (1,0,0) -> (1.5,0,0.5) in A;
	 * * 2 -> (3,0,1); Rz90 -> (0,3,1); + (1,2,3) -> (1,5,4). */
	CHECK_VEC3(rk_hierarchy_transform_point(h, c, EX), 1, 5, 4, 1e-14);
	/* transform_vector drops the translation: (1,5,4) - (1,4,4) = (0,1,0); a
	 * local z vector gets C's z scale 3: x->y->z->x cycle takes z to x: (3,0,0). */
	CHECK_VEC3(rk_hierarchy_transform_vector(h, c, EX), 0, 1, 0, 1e-14);
	CHECK_VEC3(rk_hierarchy_transform_vector(h, c, EZ), 3, 0, 0, 1e-14);
	/* Directions only rotate: x -> y, z -> x, lengths kept. */
	CHECK_VEC3(rk_hierarchy_transform_direction(h, c, EX), 0, 1, 0, 1e-15);
	CHECK_VEC3(rk_hierarchy_transform_direction(h, c, v3(0, 0, 2)), 2, 0, 0, 1e-15);
	CHECK_VEC3(rk_hierarchy_inverse_transform_direction(h, c, v3(0, 2, 0)), 2, 0, 0, 1e-15);
	/* Inverse: world (1,4,4) is C's origin and B's local (0,1,0); (1,5,4) is C's (1,0,0). */
	CHECK_VEC3(rk_hierarchy_inverse_transform_point(h, c, v3(1, 4, 4)), 0, 0, 0, 1e-14);
	CHECK_VEC3(rk_hierarchy_inverse_transform_point(h, b, v3(1, 4, 4)), 0, 1, 0, 1e-14);
	CHECK_VEC3(rk_hierarchy_inverse_transform_point(h, c, v3(1, 5, 4)), 1, 0, 0, 1e-14);
	/* local_to_world * world_to_local = I */
	rk_mat4 l2w = rk_hierarchy_local_to_world(h, c), w2l = rk_hierarchy_world_to_local(h, c);
	RK_CHECK(rk_mat4_max_diff(rk_mat4_mul(l2w, w2l), rk_mat4_identity()) < 1e-14);
	/* The matrix is the product of the local TRS matrices, root first. */
	rk_mat4 prod = rk_mat4_mul(rk_mat4_from_trs(rk_hierarchy_get_local(h, a)),
		rk_mat4_mul(rk_mat4_from_trs(rk_hierarchy_get_local(h, b)), rk_mat4_from_trs(rk_hierarchy_get_local(h, c))));
	RK_CHECK(rk_mat4_max_diff(l2w, prod) < 1e-14);
	/* Moving the root moves everything: A.pos += (10,0,0). */
	RK_CHECK(rk_hierarchy_set_local_position(h, a, v3(11, 2, 3)));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, c), 11, 4, 4, 1e-14);
	rk_hierarchy_destroy(h);
}

RK_TEST(local_setters_and_normalisation)
{
	rk_hierarchy *h = rk_hierarchy_create(1, NULL);
	RK_REQUIRE(h);
	int32_t i = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 0), (rk_quat){ 0, 0, 2, 0 }, uniform(1)));
	/* (0,0,2,0) is stored as the unit (0,0,1,0) = Rz180. */
	rk_quat q = rk_hierarchy_get_local_rotation(h, i);
	RK_CHECK_NEAR(q.z, 1, 0);
	RK_CHECK(rk_hierarchy_set_local_rotation(h, i, (rk_quat){ 0, 0, 0, 0 }));
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, i), RK_QUAT_IDENTITY, 0);
	RK_CHECK(rk_hierarchy_set_local_rotation(h, i, (rk_quat){ 3, 0, 0, 3 }));
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, i), QX90, 1e-15);
	RK_CHECK(rk_hierarchy_set_local_scale(h, i, v3(1, 2, 3)));
	CHECK_VEC3(rk_hierarchy_get_local_scale(h, i), 1, 2, 3, 0);
	RK_CHECK(rk_hierarchy_set_local(h, i, trs(v3(4, 5, 6), (rk_quat){ 0, 0, 0, -2 }, v3(7, 8, 9))));
	rk_trs t = rk_hierarchy_get_local(h, i);
	CHECK_VEC3(t.translation, 4, 5, 6, 0);
	CHECK_SAME_ROTATION(t.rotation, RK_QUAT_IDENTITY, 0);
	CHECK_VEC3(t.scale, 7, 8, 9, 0);
	/* A root's local values are its world values. */
	CHECK_VEC3(rk_hierarchy_get_world_position(h, i), 4, 5, 6, 0);
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, i), 7, 8, 9, 1e-14);
	rk_hierarchy_destroy(h);
}

RK_TEST(world_setters_round_trip)
{
	int32_t a, b, c;
	rk_hierarchy *h = make_chain(&a, &b, &c);
	RK_REQUIRE(h);
	/* Put C at world (5,6,7). Inverse by hand: - (1,2,3) -> (4,4,4); Rz90^-1 ->
	 * (4,-4,4); / 2 -> (2,-2,2); - (1,0,0) -> (1,-2,2); Rx90^-1 -> (1,2,2);
	 * / 0.5 -> (2,4,4). */
	RK_CHECK(rk_hierarchy_set_world_position(h, c, v3(5, 6, 7)));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, c), 5, 6, 7, 1e-14);
	CHECK_VEC3(rk_hierarchy_get_local_position(h, c), 2, 4, 4, 1e-14);
	/* World rotation identity: local = (Rz90 Rx90)^-1 = conj(1/2,1/2,1/2,1/2). */
	RK_CHECK(rk_hierarchy_set_world_rotation(h, c, RK_QUAT_IDENTITY));
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, c), RK_QUAT_IDENTITY, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, c), ((rk_quat){ -0.5, -0.5, -0.5, 0.5 }), 1e-15);
	/* World rotation Ry90 on B: local = Rz90^-1 * Ry90 = Rz(-90) Ry(90). Checked
	 * through directions: B's world +Z must be Ry90 (0,0,1) = (1,0,0). */
	rk_quat ry90 = { 0, S45, 0, S45 };
	RK_CHECK(rk_hierarchy_set_world_rotation(h, b, ry90));
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, b), ry90, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, b), rk_quat_mul((rk_quat){ 0, 0, -S45, S45 }, ry90), 1e-15);
	CHECK_VEC3(rk_hierarchy_transform_direction(h, b, EZ), 1, 0, 0, 1e-15);
	/* Changing B's rotation moved C but setting C's world position again works. */
	RK_CHECK(rk_hierarchy_set_world_position(h, c, v3(-1, 0.5, 2)));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, c), -1, 0.5, 2, 1e-14);
	/* Random world poses under a sheared parent chain: position and rotation read back. */
	uint64_t s = 1;
	for (int n = 0; n < 100; n++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		double x = (double)(s >> 40) / (double)(1u << 24) * 20 - 10;
		rk_vec3 p = { x, -0.5 * x, 3 };
		rk_quat q = rk_quat_from_euler_deg(v3(x * 17, x * 5, -x * 11), RK_ROTATION_YXZ);
		RK_CHECK(rk_hierarchy_set_local_scale(h, a, v3(2, 0.5, 1.5)));
		RK_CHECK(rk_hierarchy_set_world_position(h, c, p));
		RK_CHECK(rk_hierarchy_set_world_rotation(h, c, q));
		CHECK_VEC3V(rk_hierarchy_get_world_position(h, c), p, 1e-12);
		CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, c), q, 1e-14);
	}
	/* A zero scale above makes the position unsolvable: false, nothing changes. */
	rk_vec3 before = rk_hierarchy_get_local_position(h, c);
	RK_CHECK(rk_hierarchy_set_local_scale(h, b, v3(1, 0, 1)));
	RK_CHECK(!rk_hierarchy_set_world_position(h, c, v3(1, 1, 1)));
	CHECK_VEC3V(rk_hierarchy_get_local_position(h, c), before, 0);
	/* Rotation still works (quaternions ignore scale). */
	RK_CHECK(rk_hierarchy_set_world_rotation(h, c, QX90));
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, c), QX90, 1e-15);
	rk_hierarchy_destroy(h);
}

RK_TEST(lossy_scale_exact_without_shear)
{
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	/* Non-uniform parent (2,3,4), child rotated by exactly 90 deg about Z with
	 * scale 1: world 3x3 = diag(2,3,4) * Rz90. The child's x axis is world
	 * y (stretched by 3), its y axis world -x (stretched by 2), z stays 4:
	 * lossy scale (3, 2, 4) exactly, and the world rotation is Rz90. */
	int32_t p = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 0), RK_QUAT_IDENTITY, v3(2, 3, 4)));
	int32_t c = rk_hierarchy_add(h, p, trs(v3(0, 0, 0), QZ90, uniform(1)));
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, c), 3, 2, 4, 1e-14);
	/* No shear means local_to_world = T * R_world * S_lossy exactly. */
	rk_trs w = { rk_hierarchy_get_world_position(h, c), rk_hierarchy_get_world_rotation(h, c),
		rk_hierarchy_get_lossy_scale(h, c) };
	RK_CHECK(rk_mat4_max_diff(rk_mat4_from_trs(w), rk_hierarchy_local_to_world(h, c)) < 1e-14);
	/* Negative scales keep their signs: root (-1, 2, 1), child scale (1,1,-3)
	 * with no rotation: lossy (-1, 2, -3). */
	int32_t m = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 0), QX90, v3(-1, 2, 1)));
	int32_t mc = rk_hierarchy_add(h, m, trs(v3(1, 1, 1), RK_QUAT_IDENTITY, v3(1, 1, -3)));
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, m), -1, 2, 1, 1e-15);
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, mc), -1, 2, -3, 1e-14);
	/* Uniform scales anywhere commute with rotations: 0.5 * 4 * (1,2,3) = (2,4,6). */
	int32_t u0 = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(1, 1, 1), QZ90, uniform(0.5)));
	int32_t u1 = rk_hierarchy_add(h, u0, trs(v3(1, 1, 1), rk_quat_from_euler_deg(v3(10, 20, 30), RK_ROTATION_XYZ), uniform(4)));
	int32_t u2 = rk_hierarchy_add(h, u1, trs(v3(1, 1, 1), QX90, v3(1, 2, 3)));
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, u2), 2, 4, 6, 1e-13);
	rk_hierarchy_destroy(h);
}

RK_TEST(lossy_scale_under_skew_is_approximate)
{
	/* Parent scale (1,2,1), child rotated 45 deg about Z: world 3x3 =
	 * diag(1,2,1) * Rz45 has columns (c, 2s, 0), (-s, 2c, 0), (0, 0, 1) with
	 * c = s = sqrt(1/2): lengths sqrt(1/2 + 2) = 1.5811, 1.5811, 1 and
	 * x.y = -1/2 + 2 = 1.5 != 0 -- sheared, no scale vector is exact.
	 * The lossy scale is documented as approximate; the diagonal formula gives
	 * (c*c + s*2s, s*s + c*2c, 1) = (1.5, 1.5, 1). We only promise: finite and
	 * close (within 10%) to the column lengths. */
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t p = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 0), RK_QUAT_IDENTITY, v3(1, 2, 1)));
	int32_t c = rk_hierarchy_add(h, p, trs(v3(0, 0, 0), rk_quat_axis_angle(EZ, 45 * DEG), uniform(1)));
	rk_vec3 ls = rk_hierarchy_get_lossy_scale(h, c);
	RK_CHECK(vec3_finite(ls));
	double len = sqrt(2.5);
	RK_CHECK(fabs(ls.x - len) < 0.1 * len);
	RK_CHECK(fabs(ls.y - len) < 0.1 * len);
	RK_CHECK_NEAR(ls.z, 1.0, 1e-14);
	/* A strong skew (scale 1 : 100) still gives finite numbers. */
	RK_CHECK(rk_hierarchy_set_local_scale(h, p, v3(1, 100, 1)));
	ls = rk_hierarchy_get_lossy_scale(h, c);
	RK_CHECK(vec3_finite(ls));
	RK_CHECK(ls.x > 0 && ls.y > 0);
	rk_hierarchy_destroy(h);
}

/* ---- re-parenting --------------------------------------------------------------------- */

RK_TEST(set_parent_keep_world_and_keep_local)
{
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t p = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(1, 2, 3), QZ90, uniform(2)));
	rk_quat ry90 = { 0, S45, 0, S45 };
	int32_t x = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(5, 0, 0), ry90, uniform(1)));
	int32_t kid = rk_hierarchy_add(h, x, trs(v3(0, 0, 1), RK_QUAT_IDENTITY, uniform(1)));
	/* kid world: (5,0,0) + Ry90 (0,0,1) = (5,0,0) + (1,0,0) = (6,0,0). */
	CHECK_VEC3(rk_hierarchy_get_world_position(h, kid), 6, 0, 0, 1e-15);

	/* keep_world: local position = Rz90^-1((5,0,0) - (1,2,3)) / 2 =
	 * Rz90^-1(4,-2,-3) / 2 = (-2,-4,-3) / 2 = (-1,-2,-1.5); local rotation =
	 * Rz(-90) * Ry90; local scale 1/2. */
	RK_CHECK(rk_hierarchy_set_parent(h, x, p, true));
	RK_CHECK_INT(rk_hierarchy_parent(h, x), p);
	CHECK_VEC3(rk_hierarchy_get_world_position(h, x), 5, 0, 0, 1e-14);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, x), ry90, 1e-15);
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, x), 1, 1, 1, 1e-14);
	CHECK_VEC3(rk_hierarchy_get_local_position(h, x), -1, -2, -1.5, 1e-14);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, x), rk_quat_mul((rk_quat){ 0, 0, -S45, S45 }, ry90), 1e-15);
	CHECK_VEC3(rk_hierarchy_get_local_scale(h, x), 0.5, 0.5, 0.5, 1e-15);
	/* The child came along unchanged in the world. */
	CHECK_VEC3(rk_hierarchy_get_world_position(h, kid), 6, 0, 0, 1e-14);

	/* Back to the root with keep_world: local = world again. */
	RK_CHECK(rk_hierarchy_set_parent(h, x, RK_NO_PARENT, true));
	CHECK_VEC3(rk_hierarchy_get_local_position(h, x), 5, 0, 0, 1e-14);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, x), ry90, 1e-15);
	CHECK_VEC3(rk_hierarchy_get_local_scale(h, x), 1, 1, 1, 1e-14);

	/* keep_local (false): local (5,0,0) now read in P's space:
	 * (1,2,3) + Rz90 (2 * (5,0,0)) = (1,2,3) + (0,10,0) = (1,12,3). World
	 * rotation Rz90 * Ry90, lossy scale 2. */
	RK_CHECK(rk_hierarchy_set_parent(h, x, p, false));
	CHECK_VEC3(rk_hierarchy_get_local_position(h, x), 5, 0, 0, 1e-14);
	CHECK_VEC3(rk_hierarchy_get_world_position(h, x), 1, 12, 3, 1e-13);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, x), rk_quat_mul(QZ90, ry90), 1e-15);
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, x), 2, 2, 2, 1e-13);
	/* Same parent again: true, nothing changes (bit for bit). */
	rk_trs same_before = rk_hierarchy_get_local(h, x);
	RK_CHECK(rk_hierarchy_set_parent(h, x, p, true));
	rk_trs same_after = rk_hierarchy_get_local(h, x);
	RK_CHECK(memcmp(&same_before, &same_after, sizeof(same_before)) == 0);

	/* Non-uniform new parent, axis-aligned relation (no shear): parent scale
	 * (2,1,1) at the origin, item at (4,0,0) with world rotation Rz90, scale 1.
	 * Local position (2,0,0), rotation Rz90; the item's y axis points along
	 * world -x, which the parent stretches by 2, so its local y scale must be
	 * 1/2: local scale (1, 0.5, 1). */
	int32_t q = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 0), RK_QUAT_IDENTITY, v3(2, 1, 1)));
	int32_t y = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(4, 0, 0), QZ90, uniform(1)));
	rk_mat4 before = rk_hierarchy_local_to_world(h, y);
	RK_CHECK(rk_hierarchy_set_parent(h, y, q, true));
	CHECK_VEC3(rk_hierarchy_get_local_position(h, y), 2, 0, 0, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, y), QZ90, 1e-15);
	CHECK_VEC3(rk_hierarchy_get_local_scale(h, y), 1, 0.5, 1, 1e-15);
	RK_CHECK(rk_mat4_max_diff(rk_hierarchy_local_to_world(h, y), before) < 1e-14);
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, y), 1, 1, 1, 1e-15);

	/* Mirrored item: world scale (1,-1,1), no rotation, under a uniform scale 2
	 * parent: local scale (0.5, -0.5, 0.5) -- the sign stays on y, where the
	 * user put it (a decomposition would move it to x and turn the rotation). */
	int32_t up2 = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 0), RK_QUAT_IDENTITY, uniform(2)));
	int32_t mir = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(2, 2, 2), RK_QUAT_IDENTITY, v3(1, -1, 1)));
	RK_CHECK(rk_hierarchy_set_parent(h, mir, up2, true));
	CHECK_VEC3(rk_hierarchy_get_local_scale(h, mir), 0.5, -0.5, 0.5, 1e-15);
	CHECK_VEC3(rk_hierarchy_get_local_position(h, mir), 1, 1, 1, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, mir), RK_QUAT_IDENTITY, 1e-15);
	CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, mir), 1, -1, 1, 1e-15);

	/* Sheared case (45 deg under the same parent): position and rotation stay
	 * exact, the scale is the documented approximation. */
	int32_t z = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(1, 2, 3), rk_quat_axis_angle(EZ, 45 * DEG), uniform(1)));
	RK_CHECK(rk_hierarchy_set_parent(h, z, q, true));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, z), 1, 2, 3, 1e-14);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, z), rk_quat_axis_angle(EZ, 45 * DEG), 1e-15);
	RK_CHECK(vec3_finite(rk_hierarchy_get_local_scale(h, z)));

	/* Singular new parent with keep_world: refused, nothing changes. */
	int32_t flat = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 0), RK_QUAT_IDENTITY, v3(1, 1, 0)));
	RK_CHECK(!rk_hierarchy_set_parent(h, kid, flat, true));
	RK_CHECK_INT(rk_hierarchy_parent(h, kid), x);
	RK_CHECK(rk_hierarchy_set_parent(h, kid, flat, false));  /* keep_local needs no inverse */
	RK_CHECK_INT(rk_hierarchy_parent(h, kid), flat);
	rk_hierarchy_destroy(h);
}

RK_TEST(set_parent_refuses_cycles)
{
	int32_t a, b, c;
	rk_hierarchy *h = make_chain(&a, &b, &c);
	RK_REQUIRE(h);
	rk_trs before = rk_hierarchy_get_local(h, a);
	RK_CHECK(!rk_hierarchy_set_parent(h, a, a, true));   /* itself */
	RK_CHECK(!rk_hierarchy_set_parent(h, a, a, false));
	RK_CHECK(!rk_hierarchy_set_parent(h, a, b, true));   /* its child */
	RK_CHECK(!rk_hierarchy_set_parent(h, a, c, false));  /* its grandchild */
	RK_CHECK(!rk_hierarchy_set_parent(h, b, c, true));
	RK_CHECK_INT(rk_hierarchy_parent(h, a), RK_NO_PARENT);
	RK_CHECK_INT(rk_hierarchy_parent(h, b), a);
	RK_CHECK_INT(rk_hierarchy_parent(h, c), b);
	rk_trs after = rk_hierarchy_get_local(h, a);
	RK_CHECK(memcmp(&before, &after, sizeof(before)) == 0);
	/* Not cycles: grandchild to the root, then the old middle under it. */
	RK_CHECK(rk_hierarchy_set_parent(h, c, a, true));
	RK_CHECK(rk_hierarchy_set_parent(h, b, c, true));
	RK_CHECK_INT(rk_hierarchy_parent(h, b), c);
	/* ...and now c under b would be a cycle. */
	RK_CHECK(!rk_hierarchy_set_parent(h, c, b, true));
	/* World queries still terminate and are finite. */
	RK_CHECK(vec3_finite(rk_hierarchy_get_world_position(h, b)));
	rk_hierarchy_destroy(h);
}

/* ---- bad inputs --------------------------------------------------------------------------- */

RK_TEST(invalid_indices_are_rejected)
{
	int32_t a, b, c;
	rk_hierarchy *h = make_chain(&a, &b, &c);
	RK_REQUIRE(h);
	const int32_t bad[] = { -1, -2, 3, 4, INT32_MAX, INT32_MIN };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int32_t i = bad[k];
		rk_hierarchy *hs[2] = { h, NULL };
		for (int w = 0; w < 2; w++) {
			rk_hierarchy *hh = hs[w];
			rk_trs t = rk_hierarchy_get_local(hh, i);
			CHECK_VEC3(t.translation, 0, 0, 0, 0);
			CHECK_VEC3(t.scale, 1, 1, 1, 0);
			CHECK_SAME_ROTATION(t.rotation, RK_QUAT_IDENTITY, 0);
			CHECK_VEC3(rk_hierarchy_get_local_position(hh, i), 0, 0, 0, 0);
			CHECK_VEC3(rk_hierarchy_get_local_scale(hh, i), 1, 1, 1, 0);
			CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(hh, i), RK_QUAT_IDENTITY, 0);
			CHECK_VEC3(rk_hierarchy_get_world_position(hh, i), 0, 0, 0, 0);
			CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(hh, i), RK_QUAT_IDENTITY, 0);
			CHECK_VEC3(rk_hierarchy_get_lossy_scale(hh, i), 1, 1, 1, 0);
			RK_CHECK(rk_mat4_max_diff(rk_hierarchy_local_to_world(hh, i), rk_mat4_identity()) == 0);
			RK_CHECK(rk_mat4_max_diff(rk_hierarchy_world_to_local(hh, i), rk_mat4_identity()) == 0);
			CHECK_VEC3(rk_hierarchy_transform_point(hh, i, v3(1, 2, 3)), 1, 2, 3, 0);
			CHECK_VEC3(rk_hierarchy_inverse_transform_point(hh, i, v3(1, 2, 3)), 1, 2, 3, 0);
			CHECK_VEC3(rk_hierarchy_transform_vector(hh, i, v3(1, 2, 3)), 1, 2, 3, 0);
			CHECK_VEC3(rk_hierarchy_transform_direction(hh, i, v3(1, 2, 3)), 1, 2, 3, 0);
			CHECK_VEC3(rk_hierarchy_inverse_transform_direction(hh, i, v3(1, 2, 3)), 1, 2, 3, 0);
			RK_CHECK_INT(rk_hierarchy_parent(hh, i), RK_NO_PARENT);
			RK_CHECK(!rk_hierarchy_set_local(hh, i, rk_trs_identity()));
			RK_CHECK(!rk_hierarchy_set_local_position(hh, i, v3(1, 1, 1)));
			RK_CHECK(!rk_hierarchy_set_local_rotation(hh, i, QX90));
			RK_CHECK(!rk_hierarchy_set_local_scale(hh, i, v3(2, 2, 2)));
			RK_CHECK(!rk_hierarchy_set_world_position(hh, i, v3(1, 1, 1)));
			RK_CHECK(!rk_hierarchy_set_world_rotation(hh, i, QX90));
			RK_CHECK(!rk_hierarchy_set_parent(hh, i, RK_NO_PARENT, true));
			RK_CHECK(!rk_hierarchy_set_parent(hh, i, a, false));
			RK_CHECK(!rk_hierarchy_look_at(hh, i, v3(9, 9, 9), EY));
			RK_CHECK(!rk_hierarchy_rotate_around(hh, i, v3(0, 0, 0), EY, 1.0));
			if (i != RK_NO_PARENT) {
				RK_CHECK(!rk_hierarchy_set_parent(hh, c, i, true));
				RK_CHECK_INT(rk_hierarchy_add(hh, i, rk_trs_identity()), -1);
			}
		}
	}
	/* Nothing changed. */
	RK_CHECK_INT(rk_hierarchy_count(h), 3);
	RK_CHECK_INT(rk_hierarchy_count(NULL), 0);
	RK_CHECK_INT(rk_hierarchy_parent(h, c), b);
	CHECK_VEC3(rk_hierarchy_get_world_position(h, c), 1, 4, 4, 1e-14);
	/* Zero axis for rotate_around, non-finite look_at target. */
	RK_CHECK(!rk_hierarchy_rotate_around(h, c, v3(0, 0, 0), v3(0, 0, 0), 1.0));
	RK_CHECK(!rk_hierarchy_look_at(h, c, v3(NAN, 0, 0), EY));
	RK_CHECK(!rk_hierarchy_look_at(h, c, v3(INFINITY, 0, 0), EY));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, c), 1, 4, 4, 1e-14);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, c), ((rk_quat){ 0.5, 0.5, 0.5, 0.5 }), 1e-15);
	rk_hierarchy_destroy(h);
}

RK_TEST(deep_chain_no_recursion)
{
	/* 100000 items in one chain, each 1 along x under a parent rotated 0:
	 * the leaf sits at x = 100000. Iterative walks, no stack growth. */
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t last = RK_NO_PARENT;
	for (int k = 0; k < 100000; k++) last = rk_hierarchy_add(h, last, trs(EX, RK_QUAT_IDENTITY, uniform(1)));
	RK_REQUIRE(last == 99999);
	CHECK_VEC3(rk_hierarchy_get_world_position(h, last), 100000, 0, 0, 0);
	/* Re-rooting the top under the leaf is a cycle. */
	RK_CHECK(!rk_hierarchy_set_parent(h, 0, last, false));
	rk_hierarchy_destroy(h);
}

/* ---- look_at and rotate_around ------------------------------------------------------------- */

RK_TEST(look_at)
{
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	/* Root at (1,1,1) looking at (1,1,-4): forward -Z, up +Y -> Ry(180). */
	int32_t r = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(1, 1, 1), QX90, uniform(3)));
	RK_CHECK(rk_hierarchy_look_at(h, r, v3(1, 1, -4), EY));
	CHECK_VEC3(rk_hierarchy_transform_direction(h, r, EZ), 0, 0, -1, 1e-15);
	CHECK_VEC3(rk_hierarchy_transform_direction(h, r, EY), 0, 1, 0, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, r), ((rk_quat){ 0, 1, 0, 0 }), 1e-15);
	CHECK_VEC3(rk_hierarchy_get_world_position(h, r), 1, 1, 1, 0);  /* unchanged */
	/* Child of a rotated, scaled parent: P (1,2,3), Rz90, scale 2; child local
	 * (1,0,0) -> world (1,4,3). Look at (4,4,3): forward +X, up +Y -> world Ry90,
	 * local rotation Rz(-90) * Ry90. */
	int32_t p = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(1, 2, 3), QZ90, uniform(2)));
	int32_t c = rk_hierarchy_add(h, p, trs(EX, RK_QUAT_IDENTITY, uniform(1)));
	RK_CHECK(rk_hierarchy_look_at(h, c, v3(4, 4, 3), EY));
	CHECK_VEC3(rk_hierarchy_transform_direction(h, c, EZ), 1, 0, 0, 1e-15);
	CHECK_VEC3(rk_hierarchy_transform_direction(h, c, EY), 0, 1, 0, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, c), rk_quat_mul((rk_quat){ 0, 0, -S45, S45 }, (rk_quat){ 0, S45, 0, S45 }), 1e-15);
	/* Uniform parent scale: the rendered axis (matrix column) points at the target too. */
	CHECK_VEC3(rk_vec3_normalize(rk_hierarchy_transform_vector(h, c, EZ)), 1, 0, 0, 1e-15);
	/* Oblique target (1,4,3) + (2,-1,2): forward (2,-1,2)/3. */
	RK_CHECK(rk_hierarchy_look_at(h, c, v3(3, 3, 5), EY));
	CHECK_VEC3(rk_hierarchy_transform_direction(h, c, EZ), 2.0 / 3, -1.0 / 3, 2.0 / 3, 1e-15);
	/* Up parallel to forward: still points at the target. */
	RK_CHECK(rk_hierarchy_look_at(h, c, v3(1, 9, 3), EY));
	CHECK_VEC3(rk_hierarchy_transform_direction(h, c, EZ), 0, 1, 0, 1e-15);
	/* Target at the item's own position: refused, rotation unchanged. */
	rk_quat before = rk_hierarchy_get_local_rotation(h, c);
	RK_CHECK(!rk_hierarchy_look_at(h, c, v3(1, 4, 3), EY));
	RK_CHECK(!rk_hierarchy_look_at(h, c, rk_vec3_add(v3(1, 4, 3), v3(1e-13, 0, 0)), EY));
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, c), before, 0);
	rk_hierarchy_destroy(h);
}

RK_TEST(rotate_around)
{
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	/* Root at (2,0,0) about the Z line through (1,0,0) by 90 deg: the offset
	 * (1,0,0) turns to (0,1,0): position (1,1,0), rotation Rz90. */
	int32_t r = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(2, 0, 0), RK_QUAT_IDENTITY, uniform(1)));
	RK_CHECK(rk_hierarchy_rotate_around(h, r, v3(1, 0, 0), v3(0, 0, 5), 90 * DEG));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, r), 1, 1, 0, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, r), QZ90, 1e-15);
	/* Four quarter turns come back. */
	for (int k = 0; k < 3; k++) RK_CHECK(rk_hierarchy_rotate_around(h, r, v3(1, 0, 0), EZ, 90 * DEG));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, r), 2, 0, 0, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, r), RK_QUAT_IDENTITY, 1e-15);
	/* Child of P (1,2,3), Rz90, scale 2 at local (1,0,0) = world (1,4,3).
	 * Rotate 90 deg about Z through (1,2,3): offset (0,2,0) -> (-2,0,0), world
	 * (-1,2,3). Local: Rz90^-1(-2,0,0) / 2 = (0,2,0) / 2 = (0,1,0). World
	 * rotation Rz180, local Rz90. */
	int32_t p = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(1, 2, 3), QZ90, uniform(2)));
	int32_t c = rk_hierarchy_add(h, p, trs(EX, RK_QUAT_IDENTITY, uniform(1)));
	RK_CHECK(rk_hierarchy_rotate_around(h, c, v3(1, 2, 3), EZ, 90 * DEG));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, c), -1, 2, 3, 1e-14);
	CHECK_VEC3(rk_hierarchy_get_local_position(h, c), 0, 1, 0, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_local_rotation(h, c), QZ90, 1e-15);
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, c), ((rk_quat){ 0, 0, 1, 0 }), 1e-15);
	/* A point on the axis only turns. */
	int32_t on = rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(0, 0, 7), RK_QUAT_IDENTITY, uniform(1)));
	RK_CHECK(rk_hierarchy_rotate_around(h, on, v3(0, 0, 0), EZ, 1.0));
	CHECK_VEC3(rk_hierarchy_get_world_position(h, on), 0, 0, 7, 1e-15);
	/* Singular parent: refused, nothing changes. */
	RK_CHECK(rk_hierarchy_set_local_scale(h, p, v3(0, 1, 1)));
	rk_trs before = rk_hierarchy_get_local(h, c);
	RK_CHECK(!rk_hierarchy_rotate_around(h, c, v3(0, 0, 0), EY, 1.0));
	rk_trs after = rk_hierarchy_get_local(h, c);
	RK_CHECK(memcmp(&before, &after, sizeof(before)) == 0);
	rk_hierarchy_destroy(h);
}

/* ---- seed 003: orbit around a rotated, non-uniformly scaled target ----------------
 *
 * Object 2 (the target) is a root at C = (3,-1,2), rotated 30 deg about X
 * then 20 deg about Z, i.e. R = Rz(20) * Rx(30), scaled (2, 0.5, 1.5).
 * Columns of R, with Rx30 e_x = e_x, Rx30 e_y = (0, c30, s30),
 * Rx30 e_z = (0, -s30, c30), then Rz20 (x,y,z) = (x c20 - y s20, x s20 + y c20, z):
 *   R e_x = ( c20,       s20,      0  )
 *   R e_y = (-c30 s20,   c30 c20,  s30)
 *   R e_z = ( s30 s20,  -s30 c20,  c30)
 * World up of the target n = normalize(local_to_world * e_y) =
 * normalize(0.5 R e_y) = R e_y (the scale only shortens it).
 * Orbit plane basis (perpendicular to n, orthonormal):
 *   u = R e_x                                   (the target's right axis)
 *   v = n x u = R (e_y x e_x) = -R e_z = (-s30 s20, s30 c20, -c30)
 * Turning u about n by theta (right-handed) gives cos(theta) u + sin(theta) (n x u), so
 *   P(theta) = C + 5 (cos(theta) u + sin(theta) v),   facing f = (C - P) / 5.
 * Numerically n = (-0.296198, 0.813798, 0.5), u = (0.939693, 0.342020, 0),
 * v = (-0.171010, 0.469846, -0.866025):
 *   P(0)   = (7.698463,  0.710101,  2)
 *   P(90)  = (2.144950,  1.349232, -2.330127)
 *   P(180) = (-1.698463, -2.710101, 2)
 *   P(270) = (3.855050, -3.349232,  6.330127)
 */

typedef struct orbit_ref { rk_vec3 c, n, u, v; } orbit_ref;

static orbit_ref orbit_hand(void)
{
	double c20 = cos(20 * DEG), s20 = sin(20 * DEG), c30 = cos(30 * DEG), s30 = sin(30 * DEG);
	orbit_ref r;
	r.c = v3(3, -1, 2);
	r.n = v3(-c30 * s20, c30 * c20, s30);
	r.u = v3(c20, s20, 0);
	r.v = v3(-s30 * s20, s30 * c20, -c30);
	return r;
}

static rk_vec3 orbit_p(const orbit_ref *r, double deg)
{
	double c = cos(deg * DEG), s = sin(deg * DEG);
	return rk_vec3_add(r->c, rk_vec3_scale(rk_vec3_add(rk_vec3_scale(r->u, c), rk_vec3_scale(r->v, s)), 5));
}

static const double orbit_angles[] = { 0, 37, 90, 180, 270 };

/* The target as a user would build it. */
static int32_t add_target(rk_hierarchy *h)
{
	rk_quat q = rk_quat_mul(rk_quat_axis_angle(EZ, 20 * DEG), rk_quat_axis_angle(EX, 30 * DEG));
	return rk_hierarchy_add(h, RK_NO_PARENT, trs(v3(3, -1, 2), q, v3(2, 0.5, 1.5)));
}

/* Every requirement of the seed for object `obj` at angle `deg`. */
static void check_orbit(rk_test_state *rk_t_, const rk_hierarchy *h, int32_t obj, int32_t target,
	const orbit_ref *ref, double deg)
{
	rk_vec3 c = rk_hierarchy_get_world_position(h, target);
	rk_vec3 p = rk_hierarchy_get_world_position(h, obj);
	rk_vec3 expect = orbit_p(ref, deg);
	/* At the closed-form position, hence distance 5 and in the plane. */
	CHECK_VEC3V(p, expect, 1e-12);
	RK_CHECK_NEAR(rk_vec3_length(rk_vec3_sub(p, c)), 5.0, 1e-12);
	RK_CHECK_NEAR(rk_vec3_dot(rk_vec3_sub(p, c), ref->n), 0.0, 1e-12);
	/* Facing the target: world +Z = normalize(C - P). */
	rk_vec3 face = rk_vec3_scale(rk_vec3_sub(ref->c, expect), 0.2);
	CHECK_VEC3V(rk_hierarchy_transform_direction(h, obj, EZ), face, 1e-12);
	/* Its up stays the target's up. */
	CHECK_VEC3V(rk_hierarchy_transform_direction(h, obj, EY), ref->n, 1e-12);
	if (rk_t_->failed) fprintf(stderr, "  (at %g deg)\n", deg);
}

RK_TEST(seed003_hand_reference_is_consistent)
{
	/* Sanity of the hand derivation itself: orthonormal, right-handed, and the
	 * literal numbers written above. */
	orbit_ref r = orbit_hand();
	RK_CHECK_NEAR(rk_vec3_length(r.n), 1, 1e-15);
	RK_CHECK_NEAR(rk_vec3_length(r.u), 1, 1e-15);
	RK_CHECK_NEAR(rk_vec3_length(r.v), 1, 1e-15);
	RK_CHECK_NEAR(rk_vec3_dot(r.n, r.u), 0, 1e-15);
	RK_CHECK_NEAR(rk_vec3_dot(r.n, r.v), 0, 1e-15);
	RK_CHECK_NEAR(rk_vec3_dot(r.u, r.v), 0, 1e-15);
	CHECK_VEC3V(rk_vec3_cross(r.n, r.u), r.v, 1e-15);
	CHECK_VEC3(orbit_p(&r, 0), 7.698463, 0.710101, 2, 1e-6);
	CHECK_VEC3(orbit_p(&r, 90), 2.144950, 1.349232, -2.330127, 1e-6);
	CHECK_VEC3(orbit_p(&r, 180), -1.698463, -2.710101, 2, 1e-6);
	CHECK_VEC3(orbit_p(&r, 270), 3.855050, -3.349232, 6.330127, 1e-6);
	/* The library's view of the target agrees with the hand axes. */
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t t = add_target(h);
	CHECK_VEC3V(rk_vec3_normalize(rk_hierarchy_transform_vector(h, t, EY)), r.n, 1e-15);
	CHECK_VEC3V(rk_hierarchy_transform_direction(h, t, EX), r.u, 1e-15);
	CHECK_VEC3V(rk_hierarchy_transform_direction(h, t, EZ), rk_vec3_scale(r.v, -1), 1e-15);
	/* Euler XYZ (30, 0, 20) is the same rotation ("X first, then Z"). */
	CHECK_SAME_ROTATION(rk_hierarchy_get_world_rotation(h, t), rk_quat_from_euler_deg(v3(30, 0, 20), RK_ROTATION_XYZ), 1e-15);
	rk_hierarchy_destroy(h);
}

RK_TEST(seed003_orbit_root_set_world_position_and_look_at)
{
	/* Object 1 is a root. Each frame: read the target's world position and
	 * axes, place object 1 at distance 5 along the right axis turned about the
	 * up axis, then look at the target with the target's up. */
	orbit_ref ref = orbit_hand();
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t target = add_target(h);
	int32_t obj = rk_hierarchy_add(h, RK_NO_PARENT, rk_trs_identity());
	for (size_t k = 0; k < sizeof(orbit_angles) / sizeof(orbit_angles[0]); k++) {
		double deg = orbit_angles[k];
		rk_vec3 c = rk_hierarchy_get_world_position(h, target);
		rk_vec3 up = rk_vec3_normalize(rk_hierarchy_transform_vector(h, target, EY));
		rk_vec3 right = rk_vec3_normalize(rk_hierarchy_transform_vector(h, target, EX));
		rk_vec3 offset = rk_quat_rotate(rk_quat_axis_angle(up, deg * DEG), rk_vec3_scale(right, 5));
		RK_CHECK(rk_hierarchy_set_world_position(h, obj, rk_vec3_add(c, offset)));
		RK_CHECK(rk_hierarchy_look_at(h, obj, c, up));
		check_orbit(rk_t_, h, obj, target, &ref, deg);
		/* A root with scale 1: the rendered +Z axis is the forward too. */
		CHECK_VEC3V(rk_hierarchy_transform_vector(h, obj, EZ), rk_vec3_scale(rk_vec3_sub(ref.c, orbit_p(&ref, deg)), 0.2), 1e-12);
	}
	rk_hierarchy_destroy(h);
}

RK_TEST(seed003_orbit_rotate_around)
{
	/* Object 1 starts at C + 5 u facing the target, then is carried around by
	 * rotate_around about the target's up line in uneven steps; rotate_around
	 * turns the rotation too, so it keeps facing the target with no look_at. */
	orbit_ref ref = orbit_hand();
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t target = add_target(h);
	rk_vec3 c = rk_hierarchy_get_world_position(h, target);
	rk_vec3 up = rk_vec3_normalize(rk_hierarchy_transform_vector(h, target, EY));
	rk_vec3 right = rk_vec3_normalize(rk_hierarchy_transform_vector(h, target, EX));
	int32_t obj = rk_hierarchy_add(h, RK_NO_PARENT, trs(rk_vec3_add(c, rk_vec3_scale(right, 5)), RK_QUAT_IDENTITY, uniform(1)));
	RK_CHECK(rk_hierarchy_look_at(h, obj, c, up));
	double at = 0;
	for (size_t k = 0; k < sizeof(orbit_angles) / sizeof(orbit_angles[0]); k++) {
		double deg = orbit_angles[k];
		/* In 1-degree steps plus the remainder, to accumulate some rounding. */
		while (at + 1 <= deg) {
			RK_CHECK(rk_hierarchy_rotate_around(h, obj, c, up, 1 * DEG));
			at += 1;
		}
		if (deg > at) RK_CHECK(rk_hierarchy_rotate_around(h, obj, c, up, (deg - at) * DEG));
		at = deg;
		check_orbit(rk_t_, h, obj, target, &ref, deg);
	}
	rk_hierarchy_destroy(h);
}

RK_TEST(seed003_orbit_child_of_unscaled_pivot)
{
	/* The hierarchy way: a pivot that copies the target's world position and
	 * rotation but NOT its scale, object 1 its child at local (5,0,0) turned
	 * by Ry(-90) so its +Z points back at the pivot (Ry(-90) e_z = -e_x) and
	 * its +Y is the pivot's +Y. Orbiting = setting the pivot's rotation to
	 * target rotation * Ry(theta):
	 *   P = C + R Ry(theta) (5,0,0) = C + 5 R (cos, 0, -sin) = C + 5 (cos u + sin v)
	 * since -R e_z = v. Forward R Ry(theta) (-e_x) = (C - P) / 5. */
	orbit_ref ref = orbit_hand();
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t target = add_target(h);
	int32_t pivot = rk_hierarchy_add(h, RK_NO_PARENT, rk_trs_identity());
	int32_t obj = rk_hierarchy_add(h, pivot, trs(v3(5, 0, 0), rk_quat_axis_angle(EY, -90 * DEG), uniform(1)));
	for (size_t k = 0; k < sizeof(orbit_angles) / sizeof(orbit_angles[0]); k++) {
		double deg = orbit_angles[k];
		rk_quat tq = rk_hierarchy_get_world_rotation(h, target);
		RK_CHECK(rk_hierarchy_set_world_position(h, pivot, rk_hierarchy_get_world_position(h, target)));
		RK_CHECK(rk_hierarchy_set_world_rotation(h, pivot, rk_quat_mul(tq, rk_quat_axis_angle(EY, deg * DEG))));
		check_orbit(rk_t_, h, obj, target, &ref, deg);
		/* Undistorted: the pivot has scale 1, so the lossy scale is exactly 1. */
		CHECK_VEC3(rk_hierarchy_get_lossy_scale(h, obj), 1, 1, 1, 1e-14);
	}
	rk_hierarchy_destroy(h);
}

RK_TEST(seed003_naive_child_of_scaled_target_is_distorted)
{
	/* Why the orbit must not simply be a child of the target: the child's
	 * local position goes through the target's non-uniform scale. The naive
	 * rig puts object 1 under the target at local Ry(theta) (5,0,0) =
	 * (5 cos, 0, -5 sin); its world offset is R S (5 cos, 0, -5 sin) =
	 * R (10 cos, 0, -7.5 sin), so the distance is
	 *   5 sqrt(4 cos^2 + 2.25 sin^2)  -- 10 at 0 deg, 7.5 at 90 deg: an ellipse.
	 * It is still in the plane perpendicular to n (R e_x, R e_z span it). */
	orbit_ref ref = orbit_hand();
	rk_hierarchy *h = rk_hierarchy_create(0, NULL);
	RK_REQUIRE(h);
	int32_t target = add_target(h);
	int32_t naive = rk_hierarchy_add(h, target, rk_trs_identity());
	int32_t comp = rk_hierarchy_add(h, target, rk_trs_identity());
	for (size_t k = 0; k < sizeof(orbit_angles) / sizeof(orbit_angles[0]); k++) {
		double deg = orbit_angles[k], c = cos(deg * DEG), s = sin(deg * DEG);
		RK_CHECK(rk_hierarchy_set_local_position(h, naive, v3(5 * c, 0, -5 * s)));
		RK_CHECK(rk_hierarchy_look_at(h, naive, ref.c, ref.n));
		rk_vec3 off = rk_vec3_sub(rk_hierarchy_get_world_position(h, naive), ref.c);
		double dist = rk_vec3_length(off);
		RK_CHECK_NEAR(dist, 5 * sqrt(4 * c * c + 2.25 * s * s), 1e-12);
		RK_CHECK(fabs(dist - 5.0) > 1.0);   /* never the required 5 */
		RK_CHECK_NEAR(rk_vec3_dot(off, ref.n), 0.0, 1e-12);

		/* Compensating the position (dividing by the scale, local
		 * (2.5 cos, 0, -5/1.5 sin)) restores distance 5, but the object itself
		 * still inherits the squash: with world rotation Rw from look_at its
		 * world 3x3 is R S R^T Rw. Its up axis Rw e_y = n = R e_y becomes
		 * R S e_y = 0.5 n (length 0.5), and in the target's frame its right
		 * and forward axes are S (s, 0, c) = (2s, 0, 1.5c) and
		 * S (-c, 0, s) = (-2c, 0, 1.5s), whose dot product is
		 * -4sc + 2.25sc = -1.75 sc: not perpendicular (sheared) unless sc = 0. */
		RK_CHECK(rk_hierarchy_set_local_position(h, comp, v3(2.5 * c, 0, -5 / 1.5 * s)));
		RK_CHECK(rk_hierarchy_look_at(h, comp, ref.c, ref.n));
		rk_vec3 offc = rk_vec3_sub(rk_hierarchy_get_world_position(h, comp), ref.c);
		RK_CHECK_NEAR(rk_vec3_length(offc), 5.0, 1e-12);
		rk_vec3 ax = rk_hierarchy_transform_vector(h, comp, EX);
		rk_vec3 ay = rk_hierarchy_transform_vector(h, comp, EY);
		rk_vec3 az = rk_hierarchy_transform_vector(h, comp, EZ);
		RK_CHECK_NEAR(rk_vec3_length(ay), 0.5, 1e-12);
		RK_CHECK_NEAR(rk_vec3_length(az), sqrt(4 * c * c + 2.25 * s * s), 1e-12);
		RK_CHECK_NEAR(rk_vec3_dot(ax, az), -1.75 * s * c, 1e-12);
	}
	rk_hierarchy_destroy(h);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(create_add_grow_destroy),
	RK_TEST_ENTRY(allocation_failure_leaves_hierarchy_intact),
	RK_TEST_ENTRY(local_to_world_three_levels),
	RK_TEST_ENTRY(local_setters_and_normalisation),
	RK_TEST_ENTRY(world_setters_round_trip),
	RK_TEST_ENTRY(lossy_scale_exact_without_shear),
	RK_TEST_ENTRY(lossy_scale_under_skew_is_approximate),
	RK_TEST_ENTRY(set_parent_keep_world_and_keep_local),
	RK_TEST_ENTRY(set_parent_refuses_cycles),
	RK_TEST_ENTRY(invalid_indices_are_rejected),
	RK_TEST_ENTRY(deep_chain_no_recursion),
	RK_TEST_ENTRY(look_at),
	RK_TEST_ENTRY(rotate_around),
	RK_TEST_ENTRY(seed003_hand_reference_is_consistent),
	RK_TEST_ENTRY(seed003_orbit_root_set_world_position_and_look_at),
	RK_TEST_ENTRY(seed003_orbit_rotate_around),
	RK_TEST_ENTRY(seed003_orbit_child_of_unscaled_pivot),
	RK_TEST_ENTRY(seed003_naive_child_of_scaled_target_is_distorted)
)
