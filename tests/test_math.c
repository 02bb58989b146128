/* tests/test_math.c - rigkit/math.h against hand-derived values.
 *
 * Every expected value below is derived by hand (the derivation is in the
 * comment next to it) or built from explicitly written axis matrices; no
 * expectation is a copy of the library's own output.
 *
 * Notation: quaternions are (x, y, z, w); s45 = sin 45 deg = sqrt(1/2).
 * Hamilton product: (v1, w1)(v2, w2) = (w1 v2 + w2 v1 + v1 x v2, w1 w2 - v1.v2).
 */
#include "rigkit/math.h"
#include "rk_test.h"

#include <stdint.h>
#include <string.h>

#define DEG (RK_PI / 180.0)
#define S45 0.70710678118654752440

/* ---- helpers ------------------------------------------------------------- */

#define CHECK_VEC3(v, ex, ey, ez, tol) do { rk_vec3 v_ = (v); \
	RK_CHECK_NEAR(v_.x, (ex), (tol)); RK_CHECK_NEAR(v_.y, (ey), (tol)); RK_CHECK_NEAR(v_.z, (ez), (tol)); } while (0)

#define CHECK_QUAT(q, ex, ey, ez, ew, tol) do { rk_quat q_ = (q); \
	RK_CHECK_NEAR(q_.x, (ex), (tol)); RK_CHECK_NEAR(q_.y, (ey), (tol)); \
	RK_CHECK_NEAR(q_.z, (ez), (tol)); RK_CHECK_NEAR(q_.w, (ew), (tol)); } while (0)

/* Largest component difference between a and b or -b, whichever is closer
 * (q and -q are the same rotation). Written here rather than using
 * rk_quat_angle_between, whose 2*acos(|dot|) cannot resolve angles below
 * about 3e-8 rad (acos is flat near 1). For unit quaternions a difference d
 * means an angle of about 2*d... 4*d. */
static double quat_sign_diff(rk_quat a, rk_quat b)
{
	double dp = fmax(fmax(fabs(a.x - b.x), fabs(a.y - b.y)), fmax(fabs(a.z - b.z), fabs(a.w - b.w)));
	double dm = fmax(fmax(fabs(a.x + b.x), fabs(a.y + b.y)), fmax(fabs(a.z + b.z), fabs(a.w + b.w)));
	return fmin(dp, dm);
}

/* Same rotation: q and -q both accepted. */
#define CHECK_SAME_ROTATION(a, b, tol) RK_CHECK_NEAR(quat_sign_diff((a), (b)), 0.0, (tol))

typedef struct m3 { double e[3][3]; } m3;   /* e[row][col] */

/* The three axis rotations, written out from cos/sin (right-handed,
 * counter-clockwise looking down the axis towards the origin). */
static m3 rx(double deg)
{
	double c = cos(deg * DEG), s = sin(deg * DEG);
	return (m3){ { { 1, 0, 0 }, { 0, c, -s }, { 0, s, c } } };
}

static m3 ry(double deg)
{
	double c = cos(deg * DEG), s = sin(deg * DEG);
	return (m3){ { { c, 0, s }, { 0, 1, 0 }, { -s, 0, c } } };
}

static m3 rz(double deg)
{
	double c = cos(deg * DEG), s = sin(deg * DEG);
	return (m3){ { { c, -s, 0 }, { s, c, 0 }, { 0, 0, 1 } } };
}

static m3 m3_mul(m3 a, m3 b)
{
	m3 r;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			r.e[i][j] = a.e[i][0] * b.e[0][j] + a.e[i][1] * b.e[1][j] + a.e[i][2] * b.e[2][j];
	return r;
}

/* Hand composition for each order as documented in math.h: the first letter
 * is applied first, so it is the rightmost factor. */
static m3 euler_matrix(rk_vec3 e, rk_rotation_order order)
{
	m3 x = rx(e.x), y = ry(e.y), z = rz(e.z);
	switch (order) {
	case RK_ROTATION_XYZ: return m3_mul(z, m3_mul(y, x));
	case RK_ROTATION_XZY: return m3_mul(y, m3_mul(z, x));
	case RK_ROTATION_YZX: return m3_mul(x, m3_mul(z, y));
	case RK_ROTATION_YXZ: return m3_mul(z, m3_mul(x, y));
	case RK_ROTATION_ZXY: return m3_mul(y, m3_mul(x, z));
	case RK_ROTATION_ZYX: return m3_mul(x, m3_mul(y, z));
	case RK_ROTATION_SPHERIC_XYZ: return m3_mul(z, m3_mul(y, x));
	}
	return x;
}

/* Largest difference between the rotation of q (probed with rk_quat_rotate on
 * the basis vectors: column k of the matrix is q * e_k) and the matrix m. */
static double quat_vs_m3(rk_quat q, m3 m)
{
	const rk_vec3 basis[3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	double d = 0.0;
	for (int k = 0; k < 3; k++) {
		rk_vec3 c = rk_quat_rotate(q, basis[k]);
		d = fmax(d, fabs(c.x - m.e[0][k]));
		d = fmax(d, fabs(c.y - m.e[1][k]));
		d = fmax(d, fabs(c.z - m.e[2][k]));
	}
	return d;
}

/* Small deterministic PRNG (xorshift64*), caller-owned state. */
static double rnd(uint64_t *s, double lo, double hi)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	uint64_t r = *s * 2685821657736338717ull;
	return lo + (hi - lo) * ((double)(r >> 11) / 9007199254740992.0);
}

/* Angle difference folded into [-180, 180). */
static double angle_diff(double a, double b)
{
	double d = fmod(a - b + 540.0, 360.0);
	if (d < 0) d += 360.0;
	return d - 180.0;
}

static double component(rk_vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

/* Axis sequence of each order (first applied, middle, last), from math.h. */
static const int order_axes[7][3] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 2, 0 }, { 1, 0, 2 }, { 2, 0, 1 }, { 2, 1, 0 }, { 0, 1, 2 },
};

/* ---- vectors --------------------------------------------------------------------- */

RK_TEST(vec3_basics)
{
	/* x cross y = z, y cross z = x, z cross x = y (right-handed). */
	CHECK_VEC3(rk_vec3_cross(rk_vec3_make(1, 0, 0), rk_vec3_make(0, 1, 0)), 0, 0, 1, 0);
	CHECK_VEC3(rk_vec3_cross(rk_vec3_make(0, 1, 0), rk_vec3_make(0, 0, 1)), 1, 0, 0, 0);
	/* (1,2,3) x (4,5,6) = (2*6-3*5, 3*4-1*6, 1*5-2*4) = (-3, 6, -3) */
	CHECK_VEC3(rk_vec3_cross(rk_vec3_make(1, 2, 3), rk_vec3_make(4, 5, 6)), -3, 6, -3, 0);
	RK_CHECK_NEAR(rk_vec3_dot(rk_vec3_make(1, 2, 3), rk_vec3_make(4, 5, 6)), 32, 0);
	RK_CHECK_NEAR(rk_vec3_length(rk_vec3_make(2, 3, 6)), 7, 1e-15);  /* 4 + 9 + 36 = 49 */
	CHECK_VEC3(rk_vec3_normalize(rk_vec3_make(0, 3, 4)), 0, 0.6, 0.8, 1e-15);
	CHECK_VEC3(rk_vec3_normalize(rk_vec3_make(0, 0, 0)), 0, 0, 0, 0);
	CHECK_VEC3(rk_vec3_lerp(rk_vec3_make(0, 2, 4), rk_vec3_make(2, 4, 8), 0.25), 0.5, 2.5, 5, 1e-15);
}

/* ---- quaternions -------------------------------------------------------------- */

RK_TEST(quat_mul_hand_products)
{
	/* a = (1,2,3,4), b = (5,6,7,8):
	 * w = 4*8 - (1*5 + 2*6 + 3*7) = 32 - 38 = -6
	 * v = 4*(5,6,7) + 8*(1,2,3) + (1,2,3)x(5,6,7)
	 *   = (20,24,28) + (8,16,24) + (2*7-3*6, 3*5-1*7, 1*6-2*5) = (24, 48, 48) */
	rk_quat a = { 1, 2, 3, 4 }, b = { 5, 6, 7, 8 };
	CHECK_QUAT(rk_quat_mul(a, b), 24, 48, 48, -6, 0);
	/* b * a: the cross term flips: (5,6,7)x(1,2,3) = (4,-8,4) -> (32, 32, 56), w = -6 */
	CHECK_QUAT(rk_quat_mul(b, a), 32, 32, 56, -6, 0);
	/* Units: i j = k, j i = -k, i i = -1, k i = j. */
	rk_quat i = { 1, 0, 0, 0 }, j = { 0, 1, 0, 0 }, k = { 0, 0, 1, 0 };
	CHECK_QUAT(rk_quat_mul(i, j), 0, 0, 1, 0, 0);
	CHECK_QUAT(rk_quat_mul(j, i), 0, 0, -1, 0, 0);
	CHECK_QUAT(rk_quat_mul(i, i), 0, 0, 0, -1, 0);
	CHECK_QUAT(rk_quat_mul(k, i), 0, 1, 0, 0, 0);
	/* qz90 = (0,0,s45,s45), qx90 = (s45,0,0,s45).
	 * qz90 * qx90: w = 1/2; v = s45*(s45,0,0) + s45*(0,0,s45) + (0,0,s45)x(s45,0,0)
	 *            = (1/2, 0, 1/2) + (0, 1/2, 0) = (1/2, 1/2, 1/2): 120 deg about (1,1,1). */
	rk_quat qz90 = { 0, 0, S45, S45 }, qx90 = { S45, 0, 0, S45 };
	rk_quat p = rk_quat_mul(qz90, qx90);
	CHECK_QUAT(p, 0.5, 0.5, 0.5, 0.5, 1e-15);
	/* "b first, then a": Rx90 takes y to z, then Rz90 keeps z: y -> z.
	 * x: Rx90 keeps x, Rz90 takes x to y: x -> y. */
	CHECK_VEC3(rk_quat_rotate(p, rk_vec3_make(0, 1, 0)), 0, 0, 1, 1e-15);
	CHECK_VEC3(rk_quat_rotate(p, rk_vec3_make(1, 0, 0)), 0, 1, 0, 1e-15);
	/* The other order qx90 * qz90: x -> y (Rz90) -> z (Rx90). */
	CHECK_VEC3(rk_quat_rotate(rk_quat_mul(qx90, qz90), rk_vec3_make(1, 0, 0)), 0, 0, 1, 1e-15);
}

RK_TEST(quat_inverse_conjugate_normalize)
{
	/* |(1,2,3,4)|^2 = 30 -> inverse = (-1,-2,-3,4)/30 */
	rk_quat q = { 1, 2, 3, 4 };
	CHECK_QUAT(rk_quat_inverse(q), -1.0 / 30, -2.0 / 30, -3.0 / 30, 4.0 / 30, 1e-16);
	CHECK_QUAT(rk_quat_mul(q, rk_quat_inverse(q)), 0, 0, 0, 1, 1e-15);
	CHECK_QUAT(rk_quat_mul(rk_quat_inverse(q), q), 0, 0, 0, 1, 1e-15);
	CHECK_QUAT(rk_quat_conjugate(q), -1, -2, -3, 4, 0);
	CHECK_QUAT(rk_quat_inverse((rk_quat){ 0, 0, 0, 0 }), 0, 0, 0, 1, 0);
	/* normalize: |(1,2,3,4)| = sqrt(30) */
	double n = sqrt(30.0);
	CHECK_QUAT(rk_quat_normalize(q), 1 / n, 2 / n, 3 / n, 4 / n, 1e-15);
	CHECK_QUAT(rk_quat_normalize((rk_quat){ 0, 0, 0, 0 }), 0, 0, 0, 1, 0);
	RK_CHECK_NEAR(rk_quat_dot(q, (rk_quat){ 5, 6, 7, 8 }), 70, 0);  /* 5+12+21+32 */
}

RK_TEST(quat_axis_angle_and_rotate)
{
	/* 90 deg about Z: (0, 0, sin 45, cos 45); the axis need not be unit. */
	CHECK_QUAT(rk_quat_axis_angle(rk_vec3_make(0, 0, 2), RK_PI / 2), 0, 0, S45, S45, 1e-15);
	CHECK_QUAT(rk_quat_axis_angle(rk_vec3_make(0, 0, 0), 1.0), 0, 0, 0, 1, 0);
	/* Rz90: x -> y, y -> -x */
	rk_quat qz90 = { 0, 0, S45, S45 };
	CHECK_VEC3(rk_quat_rotate(qz90, rk_vec3_make(1, 0, 0)), 0, 1, 0, 1e-15);
	CHECK_VEC3(rk_quat_rotate(qz90, rk_vec3_make(0, 1, 0)), -1, 0, 0, 1e-15);
	/* 120 deg about (1,1,1) cycles x -> y -> z -> x:
	 * 1 e_x + 2 e_y + 3 e_z -> 1 e_y + 2 e_z + 3 e_x = (3, 1, 2) */
	CHECK_VEC3(rk_quat_rotate((rk_quat){ 0.5, 0.5, 0.5, 0.5 }, rk_vec3_make(1, 2, 3)), 3, 1, 2, 1e-14);
	/* Rx(30) takes (0,1,0) to (0, cos30, sin30) = (0, sqrt(3)/2, 1/2) */
	CHECK_VEC3(rk_quat_rotate(rk_quat_axis_angle(rk_vec3_make(1, 0, 0), 30 * DEG), rk_vec3_make(0, 1, 0)),
		0, sqrt(3.0) / 2, 0.5, 1e-15);
	/* A rotation keeps lengths and q, -q rotate alike. */
	rk_quat q = rk_quat_normalize((rk_quat){ 0.3, -0.2, 0.9, 0.4 });
	rk_vec3 v = rk_vec3_make(1.5, -2, 0.25);
	RK_CHECK_NEAR(rk_vec3_length(rk_quat_rotate(q, v)), rk_vec3_length(v), 1e-14);
	rk_vec3 a = rk_quat_rotate(q, v), b = rk_quat_rotate((rk_quat){ -q.x, -q.y, -q.z, -q.w }, v);
	CHECK_VEC3(a, b.x, b.y, b.z, 1e-14);
	/* angle_between: identity vs Ry90 is pi/2, sign-insensitive. */
	rk_quat ry90 = { 0, S45, 0, S45 };
	RK_CHECK_NEAR(rk_quat_angle_between(RK_QUAT_IDENTITY, ry90), RK_PI / 2, 1e-12);
	RK_CHECK_NEAR(rk_quat_angle_between(RK_QUAT_IDENTITY, (rk_quat){ 0, -S45, 0, -S45 }), RK_PI / 2, 1e-12);
}

RK_TEST(quat_slerp_nlerp)
{
	/* q0 = identity, q1 = Ry(90) = (0, sin45, 0, cos45).
	 * slerp(0.5) = Ry(45) = (0, sin 22.5, 0, cos 22.5); nlerp at 0.5 is the same
	 * (the halfway blend of two unit quaternions normalises onto the arc midpoint). */
	rk_quat q0 = RK_QUAT_IDENTITY, q1 = { 0, S45, 0, S45 };
	double s22 = sin(22.5 * DEG), c22 = cos(22.5 * DEG);
	CHECK_QUAT(rk_quat_slerp(q0, q1, 0.5), 0, s22, 0, c22, 1e-15);
	CHECK_QUAT(rk_quat_nlerp(q0, q1, 0.5), 0, s22, 0, c22, 1e-15);
	/* slerp has constant angular velocity: t = 1/3 -> Ry(30). */
	CHECK_QUAT(rk_quat_slerp(q0, q1, 1.0 / 3), 0, sin(15 * DEG), 0, cos(15 * DEG), 1e-15);
	/* nlerp at 1/3 is (0, s45/3, 0, 2/3 + s45/3) normalised: a Y rotation of
	 * 2*atan2(s45/3, 2/3 + s45/3) = 29.28 deg, not 30. */
	double half = atan2(S45 / 3, 2.0 / 3 + S45 / 3);
	CHECK_QUAT(rk_quat_nlerp(q0, q1, 1.0 / 3), 0, sin(half), 0, cos(half), 1e-15);
	RK_CHECK(fabs(2 * half / DEG - 30.0) > 0.5);
	/* Endpoints. */
	CHECK_QUAT(rk_quat_slerp(q0, q1, 0), 0, 0, 0, 1, 1e-15);
	CHECK_QUAT(rk_quat_slerp(q0, q1, 1), 0, S45, 0, S45, 1e-15);
	/* Shortest path: -q1 is the same rotation; b is negated when dot < 0, so
	 * the result is the same quaternion, not the 315 deg long way. */
	rk_quat nq1 = { 0, -S45, 0, -S45 };
	CHECK_QUAT(rk_quat_slerp(q0, nq1, 0.5), 0, s22, 0, c22, 1e-15);
	CHECK_QUAT(rk_quat_nlerp(q0, nq1, 0.5), 0, s22, 0, c22, 1e-15);
	/* Midpoint of Rz(170) and Rz(-170) the short way is Rz(180), not Rz(0). */
	rk_quat a = rk_quat_axis_angle(rk_vec3_make(0, 0, 1), 170 * DEG);
	rk_quat b = rk_quat_axis_angle(rk_vec3_make(0, 0, 1), -170 * DEG);
	CHECK_SAME_ROTATION(rk_quat_slerp(a, b, 0.5), ((rk_quat){ 0, 0, 1, 0 }), 1e-7);
	CHECK_SAME_ROTATION(rk_quat_nlerp(a, b, 0.5), ((rk_quat){ 0, 0, 1, 0 }), 1e-7);
	/* Nearly equal inputs (the linear fallback): Rz(0.01 deg) and Rz(0.03 deg) -> Rz(0.02 deg). */
	rk_quat c = rk_quat_axis_angle(rk_vec3_make(0, 0, 1), 0.01 * DEG);
	rk_quat d = rk_quat_axis_angle(rk_vec3_make(0, 0, 1), 0.03 * DEG);
	CHECK_QUAT(rk_quat_slerp(c, d, 0.5), 0, 0, sin(0.01 * DEG), cos(0.01 * DEG), 1e-12);
	/* Slerp between two arbitrary rotations: the midpoint is halfway in angle. */
	rk_quat e = rk_quat_normalize((rk_quat){ 0.1, 0.7, -0.3, 0.6 });
	rk_quat f = rk_quat_normalize((rk_quat){ -0.5, 0.2, 0.4, 0.7 });
	rk_quat m = rk_quat_slerp(e, f, 0.5);
	RK_CHECK_NEAR(rk_quat_angle_between(e, m), rk_quat_angle_between(e, f) / 2, 1e-12);
	RK_CHECK_NEAR(rk_quat_angle_between(m, f), rk_quat_angle_between(e, f) / 2, 1e-12);
}

/* ---- Euler angles --------------------------------------------------------------- */

RK_TEST(euler_hand_values)
{
	/* XYZ (90, 0, 90): R = Rz90 * Rx90, the product computed in
	 * quat_mul_hand_products: (1/2, 1/2, 1/2, 1/2). */
	CHECK_SAME_ROTATION(rk_quat_from_euler_deg(rk_vec3_make(90, 0, 90), RK_ROTATION_XYZ),
		((rk_quat){ 0.5, 0.5, 0.5, 0.5 }), 1e-12);
	/* ZYX (90, 0, 90): R = Rx90 * Rz90 -> qx90 * qz90:
	 * w = 1/2; v = s45*(0,0,s45) + s45*(s45,0,0) + (s45,0,0)x(0,0,s45)
	 *   = (1/2, 0, 1/2) + (0, -1/2, 0) = (1/2, -1/2, 1/2) */
	CHECK_SAME_ROTATION(rk_quat_from_euler_deg(rk_vec3_make(90, 0, 90), RK_ROTATION_ZYX),
		((rk_quat){ 0.5, -0.5, 0.5, 0.5 }), 1e-12);
	/* A single angle is the axis rotation, in every order. */
	for (int o = 0; o <= 6; o++) {
		rk_quat q = rk_quat_from_euler_deg(rk_vec3_make(0, 40, 0), (rk_rotation_order)o);
		CHECK_QUAT(q, 0, sin(20 * DEG), 0, cos(20 * DEG), 1e-15);
	}
}

RK_TEST(euler_to_quat_all_orders_vs_axis_matrices)
{
	const rk_vec3 angles[] = {
		{ 10, 20, 30 }, { -70, 45, 160 }, { 90, 90, 90 }, { 135, -60, -10 },
		{ 0, -90, 33 }, { 179, 1, -179 }, { 361, 725, -400 }, { 0.001, 0, 0 },
	};
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	for (int o = 0; o <= 6; o++) {
		for (size_t a = 0; a < sizeof(angles) / sizeof(angles[0]); a++) {
			rk_quat q = rk_quat_from_euler_deg(angles[a], (rk_rotation_order)o);
			RK_CHECK_NEAR(rk_quat_dot(q, q), 1.0, 1e-14);
			double d = quat_vs_m3(q, euler_matrix(angles[a], (rk_rotation_order)o));
			if (d > 1e-13) fprintf(stderr, "order %d angles %zu: diff %g\n", o, a, d);
			RK_CHECK(d <= 1e-13);
		}
		for (int n = 0; n < 100; n++) {
			rk_vec3 e = { rnd(&seed, -360, 360), rnd(&seed, -360, 360), rnd(&seed, -360, 360) };
			rk_quat q = rk_quat_from_euler_deg(e, (rk_rotation_order)o);
			RK_CHECK(quat_vs_m3(q, euler_matrix(e, (rk_rotation_order)o)) <= 1e-13);
		}
	}
	/* The orders really differ: XYZ and ZYX of (10,20,30) are different rotations. */
	rk_quat a = rk_quat_from_euler_deg(rk_vec3_make(10, 20, 30), RK_ROTATION_XYZ);
	rk_quat b = rk_quat_from_euler_deg(rk_vec3_make(10, 20, 30), RK_ROTATION_ZYX);
	RK_CHECK(rk_quat_angle_between(a, b) > 0.1);
}

RK_TEST(quat_to_euler_round_trip)
{
	uint64_t seed = 12345;
	for (int o = 0; o <= 6; o++) {
		const int *ax = order_axes[o];
		for (int n = 0; n < 500; n++) {
			double v[3];
			v[ax[0]] = rnd(&seed, -179.9, 179.9);
			v[ax[1]] = rnd(&seed, -89.0, 89.0);   /* middle angle */
			v[ax[2]] = rnd(&seed, -179.9, 179.9);
			rk_vec3 e = { v[0], v[1], v[2] };
			rk_quat q = rk_quat_from_euler_deg(e, (rk_rotation_order)o);
			rk_vec3 back = rk_quat_to_euler_deg(q, (rk_rotation_order)o);
			/* Inside these ranges the angles are unique, so they come back. */
			for (int k = 0; k < 3; k++)
				RK_CHECK_NEAR(angle_diff(component(back, k), component(e, k)), 0.0, 1e-8);
			RK_CHECK(fabs(component(back, ax[1])) <= 90.0);
			CHECK_SAME_ROTATION(rk_quat_from_euler_deg(back, (rk_rotation_order)o), q, 1e-9);
			/* And -q gives the same angles. */
			rk_vec3 back2 = rk_quat_to_euler_deg((rk_quat){ -q.x, -q.y, -q.z, -q.w }, (rk_rotation_order)o);
			for (int k = 0; k < 3; k++)
				RK_CHECK_NEAR(angle_diff(component(back2, k), component(back, k)), 0.0, 1e-8);
		}
		/* Close to, but not at, the lock: compare the rotations. */
		const double near_mid[] = { 89.9, -89.99, 89.9999, -89.999999 };
		for (size_t n = 0; n < sizeof(near_mid) / sizeof(near_mid[0]); n++) {
			double v[3];
			v[ax[0]] = 33;
			v[ax[1]] = near_mid[n];
			v[ax[2]] = -71;
			rk_quat q = rk_quat_from_euler_deg((rk_vec3){ v[0], v[1], v[2] }, (rk_rotation_order)o);
			rk_vec3 back = rk_quat_to_euler_deg(q, (rk_rotation_order)o);
			CHECK_SAME_ROTATION(rk_quat_from_euler_deg(back, (rk_rotation_order)o), q, 1e-7);
		}
	}
}

RK_TEST(quat_to_euler_gimbal_lock)
{
	/* Middle angle exactly +-90: only first +- last is determined, so compare
	 * rotations. math.h promises the middle comes back as +-90 and the first
	 * angle takes the whole remaining rotation (last = 0). */
	uint64_t seed = 777;
	for (int o = 0; o <= 6; o++) {
		const int *ax = order_axes[o];
		for (int sign = -1; sign <= 1; sign += 2) {
			for (int n = 0; n < 50; n++) {
				double v[3];
				v[ax[0]] = rnd(&seed, -180, 180);
				v[ax[1]] = 90.0 * sign;
				v[ax[2]] = rnd(&seed, -180, 180);
				rk_quat q = rk_quat_from_euler_deg((rk_vec3){ v[0], v[1], v[2] }, (rk_rotation_order)o);
				rk_vec3 back = rk_quat_to_euler_deg(q, (rk_rotation_order)o);
				RK_CHECK_NEAR(component(back, ax[1]), 90.0 * sign, 1e-6);
				RK_CHECK_NEAR(component(back, ax[2]), 0.0, 1e-9);
				CHECK_SAME_ROTATION(rk_quat_from_euler_deg(back, (rk_rotation_order)o), q, 1e-7);
			}
		}
	}
}

RK_TEST(look_rotation)
{
	/* forward +X, up +Y: +Z -> +X, +Y stays, and +X -> +Y x +X = -Z. */
	rk_quat q = rk_quat_look_rotation(rk_vec3_make(1, 0, 0), rk_vec3_make(0, 1, 0));
	CHECK_VEC3(rk_quat_rotate(q, rk_vec3_make(0, 0, 1)), 1, 0, 0, 1e-15);
	CHECK_VEC3(rk_quat_rotate(q, rk_vec3_make(0, 1, 0)), 0, 1, 0, 1e-15);
	CHECK_VEC3(rk_quat_rotate(q, rk_vec3_make(1, 0, 0)), 0, 0, -1, 1e-15);
	/* Identity for forward +Z, up +Y; a Y turn of 180 deg for forward -Z. */
	CHECK_SAME_ROTATION(rk_quat_look_rotation(rk_vec3_make(0, 0, 5), rk_vec3_make(0, 1, 0)), RK_QUAT_IDENTITY, 1e-12);
	CHECK_SAME_ROTATION(rk_quat_look_rotation(rk_vec3_make(0, 0, -1), rk_vec3_make(0, 1, 0)),
		((rk_quat){ 0, 1, 0, 0 }), 1e-12);
	/* Oblique: forward (1,2,3) (not unit), up +Y. +Z maps to (1,2,3)/sqrt(14);
	 * the up axis lies in the plane of (forward, world up), perpendicular to
	 * forward, on world up's side: Y' = normalize(up - (up.f) f), f unit.
	 * up.f = 2/sqrt(14): Y' = ((0,1,0) - (2/14)(1,2,3)) / |.| = (-2, 10, -6) / sqrt(140). */
	rk_vec3 f = rk_vec3_make(1, 2, 3);
	q = rk_quat_look_rotation(f, rk_vec3_make(0, 1, 0));
	double n = sqrt(14.0), m = sqrt(140.0);
	CHECK_VEC3(rk_quat_rotate(q, rk_vec3_make(0, 0, 1)), 1 / n, 2 / n, 3 / n, 1e-15);
	CHECK_VEC3(rk_quat_rotate(q, rk_vec3_make(0, 1, 0)), -2 / m, 10 / m, -6 / m, 1e-15);
	/* Forward parallel to up still maps +Z to forward. */
	q = rk_quat_look_rotation(rk_vec3_make(0, 2, 0), rk_vec3_make(0, 1, 0));
	RK_CHECK_NEAR(rk_quat_dot(q, q), 1.0, 1e-14);
	CHECK_VEC3(rk_quat_rotate(q, rk_vec3_make(0, 0, 1)), 0, 1, 0, 1e-15);
	q = rk_quat_look_rotation(rk_vec3_make(1, 0, 0), rk_vec3_make(-3, 0, 0));
	CHECK_VEC3(rk_quat_rotate(q, rk_vec3_make(0, 0, 1)), 1, 0, 0, 1e-15);
	/* Zero forward -> identity. */
	CHECK_QUAT(rk_quat_look_rotation(rk_vec3_make(0, 0, 0), rk_vec3_make(0, 1, 0)), 0, 0, 0, 1, 0);
}

/* ---- matrices ---------------------------------------------------------------------- */

static rk_mat4 mat4_cols(rk_vec3 c0, rk_vec3 c1, rk_vec3 c2, rk_vec3 t)
{
	rk_mat4 m = { { c0.x, c0.y, c0.z, 0, c1.x, c1.y, c1.z, 0, c2.x, c2.y, c2.z, 0, t.x, t.y, t.z, 1 } };
	return m;
}

RK_TEST(mat4_layout_and_mul)
{
	/* Column-major, translation in m[12..14]. */
	rk_mat4 t = rk_mat4_translation(rk_vec3_make(1, 2, 3));
	RK_CHECK_NEAR(t.m[12], 1, 0);
	RK_CHECK_NEAR(t.m[13], 2, 0);
	RK_CHECK_NEAR(t.m[14], 3, 0);
	/* T(1,2,3) * S(2,2,2) takes (1,1,1) to (3,4,5); S * T takes it to (4,6,8). */
	rk_mat4 s = rk_mat4_scaling(rk_vec3_make(2, 2, 2));
	CHECK_VEC3(rk_mat4_transform_point(rk_mat4_mul(t, s), rk_vec3_make(1, 1, 1)), 3, 4, 5, 0);
	CHECK_VEC3(rk_mat4_transform_point(rk_mat4_mul(s, t), rk_vec3_make(1, 1, 1)), 4, 6, 8, 0);
	CHECK_VEC3(rk_mat4_transform_vector(rk_mat4_mul(t, s), rk_vec3_make(1, 1, 1)), 2, 2, 2, 0);
	/* Rotation matrix of Rz90 has columns (0,1,0), (-1,0,0), (0,0,1). */
	rk_mat4 r = rk_mat4_rotation((rk_quat){ 0, 0, S45, S45 });
	rk_mat4 er = mat4_cols(rk_vec3_make(0, 1, 0), rk_vec3_make(-1, 0, 0), rk_vec3_make(0, 0, 1), rk_vec3_make(0, 0, 0));
	RK_CHECK(rk_mat4_max_diff(r, er) < 1e-15);
	/* from_trs = T * R * S: columns R e_k * s_k, translation t. */
	rk_trs trs = { { 1, 2, 3 }, { 0, 0, S45, S45 }, { 2, 3, 4 } };
	rk_mat4 e = mat4_cols(rk_vec3_make(0, 2, 0), rk_vec3_make(-3, 0, 0), rk_vec3_make(0, 0, 4), rk_vec3_make(1, 2, 3));
	RK_CHECK(rk_mat4_max_diff(rk_mat4_from_trs(trs), e) < 1e-15);
	RK_CHECK(rk_mat4_max_diff(rk_mat4_mul(rk_mat4_translation(trs.translation),
		rk_mat4_mul(rk_mat4_rotation(trs.rotation), rk_mat4_scaling(trs.scale))), e) < 1e-15);
	/* determinant3 = 2*3*4 = 24 (rotations have det 1); mirrored -24. */
	RK_CHECK_NEAR(rk_mat4_determinant3(e), 24, 1e-13);
	trs.scale.y = -3;
	RK_CHECK_NEAR(rk_mat4_determinant3(rk_mat4_from_trs(trs)), -24, 1e-13);
	/* transpose */
	rk_mat4 tt = rk_mat4_transpose(t);
	RK_CHECK_NEAR(tt.m[3], 1, 0);
	RK_CHECK_NEAR(tt.m[7], 2, 0);
	RK_CHECK_NEAR(tt.m[11], 3, 0);
	RK_CHECK_NEAR(tt.m[12], 0, 0);
}

RK_TEST(mat4_invert)
{
	/* (T(1,2,3) * S(2,4,8))^-1 = S(1/2,1/4,1/8) * T(-1,-2,-3):
	 * diagonal (0.5, 0.25, 0.125), translation (-1/2, -2/4, -3/8). */
	rk_mat4 m = rk_mat4_mul(rk_mat4_translation(rk_vec3_make(1, 2, 3)), rk_mat4_scaling(rk_vec3_make(2, 4, 8)));
	rk_mat4 expect = mat4_cols(rk_vec3_make(0.5, 0, 0), rk_vec3_make(0, 0.25, 0), rk_vec3_make(0, 0, 0.125),
		rk_vec3_make(-0.5, -0.5, -0.375));
	rk_mat4 inv, inv2;
	RK_REQUIRE(rk_mat4_invert(m, &inv));
	RK_CHECK(rk_mat4_max_diff(inv, expect) < 1e-15);
	RK_REQUIRE(rk_mat4_invert_affine(m, &inv2));
	RK_CHECK(rk_mat4_max_diff(inv2, expect) < 1e-15);
	/* Rz90 with translation: inverse is Rz(-90) * T(-t): (x,y,z) -> (y, -x, z) after
	 * subtracting t. Point (1,2,3) + Rz90 (1,0,0) = (1,3,3) must go back to (1,0,0). */
	rk_mat4 rt = rk_mat4_from_trs((rk_trs){ { 1, 2, 3 }, { 0, 0, S45, S45 }, { 1, 1, 1 } });
	RK_REQUIRE(rk_mat4_invert_affine(rt, &inv));
	CHECK_VEC3(rk_mat4_transform_point(inv, rk_vec3_make(1, 3, 3)), 1, 0, 0, 1e-15);
	/* Random affine TRS products: M * M^-1 = M^-1 * M = I for both inverses. */
	uint64_t seed = 99;
	rk_mat4 id = rk_mat4_identity();
	for (int n = 0; n < 200; n++) {
		rk_trs a = { { rnd(&seed, -10, 10), rnd(&seed, -10, 10), rnd(&seed, -10, 10) },
			rk_quat_normalize((rk_quat){ rnd(&seed, -1, 1), rnd(&seed, -1, 1), rnd(&seed, -1, 1), rnd(&seed, -1, 1) }),
			{ rnd(&seed, 0.2, 3), -rnd(&seed, 0.2, 3), rnd(&seed, 0.2, 3) } };
		rk_trs b = a;
		b.rotation = rk_quat_from_euler_deg(rk_vec3_make(rnd(&seed, -180, 180), 20, 70), RK_ROTATION_ZXY);
		rk_mat4 x = rk_mat4_mul(rk_mat4_from_trs(a), rk_mat4_from_trs(b));  /* sheared */
		RK_REQUIRE(rk_mat4_invert(x, &inv));
		RK_REQUIRE(rk_mat4_invert_affine(x, &inv2));
		RK_CHECK(rk_mat4_max_diff(rk_mat4_mul(x, inv), id) < 1e-12);
		RK_CHECK(rk_mat4_max_diff(rk_mat4_mul(inv, x), id) < 1e-12);
		RK_CHECK(rk_mat4_max_diff(rk_mat4_mul(x, inv2), id) < 1e-12);
		RK_CHECK(rk_mat4_max_diff(inv, inv2) < 1e-10);
	}
	/* A projective (non-affine) matrix needs the general inverse. */
	rk_mat4 p = { { 2, 0, 0, 0, 0, 3, 0, 0, 0.5, 0.25, -1.2, -1, 0, 0, -2.2, 0 } };
	RK_REQUIRE(rk_mat4_invert(p, &inv));
	RK_CHECK(rk_mat4_max_diff(rk_mat4_mul(p, inv), id) < 1e-14);
	RK_CHECK(rk_mat4_max_diff(rk_mat4_mul(inv, p), id) < 1e-14);
	/* Singular: a zero scale. Both return false and the identity. */
	rk_mat4 z = rk_mat4_scaling(rk_vec3_make(1, 0, 1));
	RK_CHECK(!rk_mat4_invert(z, &inv));
	RK_CHECK(rk_mat4_max_diff(inv, id) == 0);
	RK_CHECK(!rk_mat4_invert_affine(z, &inv2));
	RK_CHECK(rk_mat4_max_diff(inv2, id) == 0);
}

/* Gauss-Jordan with partial pivoting on [m | I], every column of both
 * halves updated at every step: what rk_mat4_invert computed before it
 * skipped the columns no later step reads. */
static bool plain_gauss_jordan(rk_mat4 m, rk_mat4 *out)
{
	double e[4][8] = { { 0 } };   /* [m | I], row-major */
	double big = 0.0;
	for (int i = 0; i < 16; i++) {
		e[i % 4][i / 4] = m.m[i];
		big = fmax(big, fabs(m.m[i]));
	}
	for (int d = 0; d < 4; d++) e[d][4 + d] = 1.0;
	for (int k = 0; k < 4; k++) {
		int best = k;
		for (int r = k + 1; r < 4; r++) best = fabs(e[r][k]) > fabs(e[best][k]) ? r : best;
		double p = fabs(e[best][k]);
		if (!(p > 1e-300 && p > big * 1e-15)) {
			*out = rk_mat4_identity();
			return false;
		}
		if (best != k) {
			double t[8];
			memcpy(t, e[k], sizeof(t));
			memcpy(e[k], e[best], sizeof(t));
			memcpy(e[best], t, sizeof(t));
		}
		double s = 1.0 / e[k][k];
		for (int c = 0; c < 8; c++) e[k][c] *= s;
		for (int r = 0; r < 4; r++) {
			double f = e[r][k];
			if (r != k && f != 0.0)
				for (int c = 0; c < 8; c++) e[r][c] -= f * e[k][c];
		}
	}
	for (int i = 0; i < 16; i++) out->m[i] = e[i % 4][4 + i / 4];
	return true;
}

RK_TEST(mat4_invert_same_bits_as_plain_elimination)
{
	/* random general, affine, sparse (zeros, signed zeros, +-1: pivot ties,
	 * skipped rows) and singular matrices: the same answer, bit for bit */
	uint64_t seed = 7;
	int fails = 0, ok = 0;
	for (int n = 0; n < 4000; n++) {
		rk_mat4 m;
		int kind = n % 4;
		for (int i = 0; i < 16; i++) {
			double v = rnd(&seed, -4, 4);
			if (kind >= 2) {
				double pick = rnd(&seed, 0, 1);
				v = pick < 0.4 ? 0.0 : pick < 0.5 ? -0.0 : pick < 0.7 ? 1.0 : pick < 0.8 ? -1.0 : v;
			}
			m.m[i] = v;
		}
		if (kind == 1 || kind == 3) m.m[3] = m.m[7] = m.m[11] = 0.0, m.m[15] = 1.0;
		rk_mat4 a, b;
		bool ra = rk_mat4_invert(m, &a), rb = plain_gauss_jordan(m, &b);
		RK_CHECK(ra == rb);
		RK_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
		if (ra) ok++;
		else fails++;
	}
	RK_CHECK(ok > 2000 && fails > 50);
}

RK_TEST(mat4_decompose)
{
	rk_quat r = rk_quat_from_euler_deg(rk_vec3_make(10, 20, 30), RK_ROTATION_XYZ);
	rk_vec3 t = { 1, -2, 3 };
	/* Positive scale: T, R (up to sign) and S come back. */
	rk_trs d = rk_mat4_decompose(rk_mat4_from_trs((rk_trs){ t, r, { 2, 3, 0.5 } }));
	CHECK_VEC3(d.translation, 1, -2, 3, 0);
	CHECK_SAME_ROTATION(d.rotation, r, 1e-12);
	CHECK_VEC3(d.scale, 2, 3, 0.5, 1e-14);
	/* Negative scale on x: math.h folds a mirror into scale.x, so it comes back exactly. */
	d = rk_mat4_decompose(rk_mat4_from_trs((rk_trs){ t, r, { -2, 3, 0.5 } }));
	CHECK_SAME_ROTATION(d.rotation, r, 1e-12);
	CHECK_VEC3(d.scale, -2, 3, 0.5, 1e-14);
	/* Negative scale on y: folded into x. R * diag(1,-1,1) = (R * diag(-1,-1,1)) * diag(-1,1,1)
	 * and diag(-1,-1,1) = Rz(180), so the result is R' = R * Rz180, S' = (-2, 3, 0.5). */
	rk_mat4 m = rk_mat4_from_trs((rk_trs){ t, r, { 2, -3, 0.5 } });
	d = rk_mat4_decompose(m);
	CHECK_SAME_ROTATION(d.rotation, rk_quat_mul(r, (rk_quat){ 0, 0, 1, 0 }), 1e-12);
	CHECK_VEC3(d.scale, -2, 3, 0.5, 1e-14);
	RK_CHECK(rk_mat4_max_diff(rk_mat4_from_trs(d), m) < 1e-14);
	/* Uniform negative scale (-1,-1,-1): det < 0, x takes the sign, the rest
	 * is R * diag(1,-1,-1) = R * Rx180. */
	m = rk_mat4_from_trs((rk_trs){ t, r, { -1, -1, -1 } });
	d = rk_mat4_decompose(m);
	CHECK_VEC3(d.scale, -1, 1, 1, 1e-14);
	CHECK_SAME_ROTATION(d.rotation, rk_quat_mul(r, (rk_quat){ 1, 0, 0, 0 }), 1e-12);
	RK_CHECK(rk_mat4_max_diff(rk_mat4_from_trs(d), m) < 1e-14);
	/* Identity. */
	d = rk_mat4_decompose(rk_mat4_identity());
	CHECK_QUAT(d.rotation, 0, 0, 0, 1, 0);
	CHECK_VEC3(d.scale, 1, 1, 1, 0);
}

RK_TEST(mat4_transform_normal)
{
	/* S(1,2,1): the plane x + y = 0 (normal (1,1,0)/sqrt2) holds (t,-t,z), which
	 * maps to (t,-2t,z): the plane 2x + y = 0, normal (2,1,0)/sqrt5.
	 * (Inverse-transpose diag(1, 1/2, 1) * (1,1,0) = (1, 1/2, 0), same direction.) */
	double r5 = sqrt(5.0);
	rk_mat4 s = rk_mat4_scaling(rk_vec3_make(1, 2, 1));
	CHECK_VEC3(rk_mat4_transform_normal(s, rk_vec3_make(S45, S45, 0)), 2 / r5, 1 / r5, 0, 1e-15);
	/* M = Rz90 * S(2,1,1): (x,y,z) -> Rz90 (2x, y, z) = (-y, 2x, z). The plane
	 * x + y = 0 holds (t,-t,z) -> (t, 2t, z): the plane 2x - y = 0. The side kept:
	 * (1,1,0) (n.p = 2 > 0) maps to (-1,2,0), so the normal is (-2,1,0)/sqrt5
	 * (n'.(-1,2,0) = 4 > 0). Equivalently M^-T (1,1,0) = (-1, 1/2, 0) with
	 * M^-1 = [[0,1/2,0],[-1,0,0],[0,0,1]] (rows). */
	rk_mat4 m = rk_mat4_mul(rk_mat4_rotation((rk_quat){ 0, 0, S45, S45 }), rk_mat4_scaling(rk_vec3_make(2, 1, 1)));
	CHECK_VEC3(rk_mat4_transform_normal(m, rk_vec3_make(1, 1, 0)), -2 / r5, 1 / r5, 0, 1e-15);
	/* Mirror S(-1,1,1): the plane x = 0 with normal +x maps to itself with its
	 * sides swapped: the point (1,0,0) on the +x side goes to (-1,0,0), normal -x. */
	CHECK_VEC3(rk_mat4_transform_normal(rk_mat4_scaling(rk_vec3_make(-1, 1, 1)), rk_vec3_make(1, 0, 0)), -1, 0, 0, 1e-15);
	/* General property on sheared matrices: the transformed normal stays
	 * perpendicular to transformed tangents, on the same side as transformed
	 * points in front of the plane, and is unit. */
	uint64_t seed = 4242;
	for (int n = 0; n < 200; n++) {
		rk_trs a = { { 0, 0, 0 }, rk_quat_normalize((rk_quat){ rnd(&seed, -1, 1), rnd(&seed, -1, 1), rnd(&seed, -1, 1), 1 }),
			{ rnd(&seed, 0.3, 3), rnd(&seed, 0.3, 3), rnd(&seed, -3, -0.3) } };
		rk_trs b = { { 1, 2, 3 }, rk_quat_normalize((rk_quat){ rnd(&seed, -1, 1), rnd(&seed, -1, 1), rnd(&seed, -1, 1), 1 }),
			{ rnd(&seed, 0.3, 3), rnd(&seed, 0.3, 3), rnd(&seed, 0.3, 3) } };
		rk_mat4 x = rk_mat4_mul(rk_mat4_from_trs(a), rk_mat4_from_trs(b));
		rk_vec3 nn = rk_vec3_normalize(rk_vec3_make(rnd(&seed, -1, 1), rnd(&seed, -1, 1), rnd(&seed, -1, 1)));
		rk_vec3 t1 = rk_vec3_cross(nn, rk_vec3_make(0.3, 0.5, 0.7));
		rk_vec3 t2 = rk_vec3_cross(nn, t1);
		rk_vec3 out = rk_mat4_transform_normal(x, nn);
		RK_CHECK_NEAR(rk_vec3_length(out), 1.0, 1e-13);
		RK_CHECK_NEAR(rk_vec3_dot(out, rk_mat4_transform_vector(x, t1)), 0.0, 1e-12);
		RK_CHECK_NEAR(rk_vec3_dot(out, rk_mat4_transform_vector(x, t2)), 0.0, 1e-12);
		RK_CHECK(rk_vec3_dot(out, rk_mat4_transform_vector(x, nn)) > 0.0);
	}
}

/* ---- TRS ------------------------------------------------------------------------------ */

RK_TEST(trs_compose)
{
	/* Parent (1,2,3), Rz90, uniform scale 2; child at (1,0,0), Rx90, scale (1,2,3):
	 * t = (1,2,3) + Rz90 (2*(1,0,0)) = (1,2,3) + (0,2,0) = (1,4,3)
	 * r = Rz90 * Rx90 = (1/2,1/2,1/2,1/2); s = (2,4,6). Uniform parent scale,
	 * so this equals the matrix product. */
	rk_trs p = { { 1, 2, 3 }, { 0, 0, S45, S45 }, { 2, 2, 2 } };
	rk_trs c = { { 1, 0, 0 }, { S45, 0, 0, S45 }, { 1, 2, 3 } };
	rk_trs w = rk_trs_compose(p, c);
	CHECK_VEC3(w.translation, 1, 4, 3, 1e-15);
	CHECK_SAME_ROTATION(w.rotation, ((rk_quat){ 0.5, 0.5, 0.5, 0.5 }), 1e-12);
	CHECK_VEC3(w.scale, 2, 4, 6, 0);
	RK_CHECK(rk_mat4_max_diff(rk_mat4_from_trs(w), rk_mat4_mul(rk_mat4_from_trs(p), rk_mat4_from_trs(c))) < 1e-14);
	rk_trs id = rk_trs_identity();
	CHECK_VEC3(id.translation, 0, 0, 0, 0);
	CHECK_QUAT(id.rotation, 0, 0, 0, 1, 0);
	CHECK_VEC3(id.scale, 1, 1, 1, 0);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(vec3_basics),
	RK_TEST_ENTRY(quat_mul_hand_products),
	RK_TEST_ENTRY(quat_inverse_conjugate_normalize),
	RK_TEST_ENTRY(quat_axis_angle_and_rotate),
	RK_TEST_ENTRY(quat_slerp_nlerp),
	RK_TEST_ENTRY(euler_hand_values),
	RK_TEST_ENTRY(euler_to_quat_all_orders_vs_axis_matrices),
	RK_TEST_ENTRY(quat_to_euler_round_trip),
	RK_TEST_ENTRY(quat_to_euler_gimbal_lock),
	RK_TEST_ENTRY(look_rotation),
	RK_TEST_ENTRY(mat4_layout_and_mul),
	RK_TEST_ENTRY(mat4_invert),
	RK_TEST_ENTRY(mat4_invert_same_bits_as_plain_elimination),
	RK_TEST_ENTRY(mat4_decompose),
	RK_TEST_ENTRY(mat4_transform_normal),
	RK_TEST_ENTRY(trs_compose)
)
