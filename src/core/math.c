/* src/core/math.c - vector, quaternion, matrix and Euler helpers (see rigkit/math.h). */
#include "rigkit/math.h"
#include "internal.h"

#include <math.h>
#include <string.h>

#define DEG2RAD (RK_PI / 180.0)
#define RAD2DEG (180.0 / RK_PI)

/* ---- vectors ------------------------------------------------------------ */

rk_vec3 rk_vec3_make(double x, double y, double z) { return (rk_vec3){ x, y, z }; }
rk_vec3 rk_vec3_add(rk_vec3 a, rk_vec3 b) { return (rk_vec3){ a.x + b.x, a.y + b.y, a.z + b.z }; }
rk_vec3 rk_vec3_sub(rk_vec3 a, rk_vec3 b) { return (rk_vec3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
rk_vec3 rk_vec3_scale(rk_vec3 a, double s) { return (rk_vec3){ a.x * s, a.y * s, a.z * s }; }
rk_vec3 rk_vec3_mul(rk_vec3 a, rk_vec3 b) { return (rk_vec3){ a.x * b.x, a.y * b.y, a.z * b.z }; }
double rk_vec3_dot(rk_vec3 a, rk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

rk_vec3 rk_vec3_cross(rk_vec3 a, rk_vec3 b)
{
	return (rk_vec3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}

double rk_vec3_length(rk_vec3 a) { return sqrt(rk_vec3_dot(a, a)); }

rk_vec3 rk_vec3_normalize(rk_vec3 a)
{
	double len = rk_vec3_length(a);
	if (!(len > 0.0)) return (rk_vec3){ 0, 0, 0 };
	return rk_vec3_scale(a, 1.0 / len);
}

rk_vec3 rk_vec3_lerp(rk_vec3 a, rk_vec3 b, double t)
{
	return (rk_vec3){ a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t };
}

/* ---- quaternions ------------------------------------------------------------ */

rk_quat rk_quat_mul(rk_quat a, rk_quat b) { return rki_qmul(a, b); }   /* core/internal.h */

rk_quat rk_quat_conjugate(rk_quat q) { return (rk_quat){ -q.x, -q.y, -q.z, q.w }; }
double rk_quat_dot(rk_quat a, rk_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

rk_quat rk_quat_inverse(rk_quat q)
{
	double n = rk_quat_dot(q, q);
	if (!(n > 0.0)) return RK_QUAT_IDENTITY;
	return (rk_quat){ -q.x / n, -q.y / n, -q.z / n, q.w / n };
}

rk_quat rk_quat_normalize(rk_quat q)
{
	double n = sqrt(rk_quat_dot(q, q));
	if (!(n > 0.0)) return RK_QUAT_IDENTITY;
	return (rk_quat){ q.x / n, q.y / n, q.z / n, q.w / n };
}

rk_quat rk_quat_axis_angle(rk_vec3 axis, double radians)
{
	rk_vec3 a = rk_vec3_normalize(axis);
	if (a.x == 0.0 && a.y == 0.0 && a.z == 0.0) return RK_QUAT_IDENTITY;
	double s = sin(radians * 0.5);
	return (rk_quat){ a.x * s, a.y * s, a.z * s, cos(radians * 0.5) };
}

rk_vec3 rk_quat_rotate(rk_quat q, rk_vec3 v)
{
	/* v' = v + 2w (u x v) + 2 u x (u x v), u = vector part */
	rk_vec3 u = { q.x, q.y, q.z };
	rk_vec3 t = rki_v3scale(rki_v3cross(u, v), 2.0);
	return rki_v3add(rki_v3add(v, rki_v3scale(t, q.w)), rki_v3cross(u, t));
}

rk_quat rk_quat_nlerp(rk_quat a, rk_quat b, double t)
{
	double sign = rk_quat_dot(a, b) < 0.0 ? -1.0 : 1.0;
	rk_quat r = {
		a.x + (sign * b.x - a.x) * t,
		a.y + (sign * b.y - a.y) * t,
		a.z + (sign * b.z - a.z) * t,
		a.w + (sign * b.w - a.w) * t,
	};
	return rki_qnorm_exact(r);
}

rk_quat rk_quat_slerp(rk_quat a, rk_quat b, double t)
{
	double d = rk_quat_dot(a, b);
	if (d < 0.0) {
		d = -d;
		b = (rk_quat){ -b.x, -b.y, -b.z, -b.w };
	}
	if (d > 0.9995) return rk_quat_nlerp(a, b, t);
	double theta = acos(d);
	double s = sin(theta);
	double wa = sin((1.0 - t) * theta) / s;
	double wb = sin(t * theta) / s;
	return rki_qnorm_exact((rk_quat){
		wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w });
}

double rk_quat_angle_between(rk_quat a, rk_quat b)
{
	double d = fabs(rk_quat_dot(rki_qnorm_exact(a), rki_qnorm_exact(b)));
	if (d > 1.0) d = 1.0;
	return 2.0 * acos(d);
}

/* Axis index sequence per order: first applied, second, third. */
static const int rki_order_axes[7][3] = {
	{ 0, 1, 2 }, /* XYZ */
	{ 0, 2, 1 }, /* XZY */
	{ 1, 2, 0 }, /* YZX */
	{ 1, 0, 2 }, /* YXZ */
	{ 2, 0, 1 }, /* ZXY */
	{ 2, 1, 0 }, /* ZYX */
	{ 0, 1, 2 }, /* spheric XYZ, evaluated as XYZ */
};

static rk_quat rki_axis_quat(int axis, double radians)
{
	double s = sin(radians * 0.5), c = cos(radians * 0.5);
	rk_quat q = { 0, 0, 0, c };
	if (axis == 0) q.x = s;
	else if (axis == 1) q.y = s;
	else q.z = s;
	return q;
}

static double rki_vec3_get(rk_vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

rk_quat rk_quat_from_euler_deg(rk_vec3 euler_deg, rk_rotation_order order)
{
	unsigned o = (unsigned)order <= 6u ? (unsigned)order : 0u;
	const int *ax = rki_order_axes[o];
	rk_quat q1 = rki_axis_quat(ax[0], rki_vec3_get(euler_deg, ax[0]) * DEG2RAD);
	rk_quat q2 = rki_axis_quat(ax[1], rki_vec3_get(euler_deg, ax[1]) * DEG2RAD);
	rk_quat q3 = rki_axis_quat(ax[2], rki_vec3_get(euler_deg, ax[2]) * DEG2RAD);
	/* q1 applied first: q = q3 * q2 * q1 (rk_quat_mul inline) */
	return rki_qmul(q3, rki_qmul(q2, q1));
}

/* Element (row, col) of the rotation matrix of unit quaternion q. */
static void rki_quat_to_m3(rk_quat q, double r[3][3])
{
	double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
	double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
	double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
	r[0][0] = 1 - 2 * (yy + zz); r[0][1] = 2 * (xy - wz);     r[0][2] = 2 * (xz + wy);
	r[1][0] = 2 * (xy + wz);     r[1][1] = 1 - 2 * (xx + zz); r[1][2] = 2 * (yz - wx);
	r[2][0] = 2 * (xz - wy);     r[2][1] = 2 * (yz + wx);     r[2][2] = 1 - 2 * (xx + yy);
}

/* Rotation matrix (rows/cols) -> unit quaternion, numerically stable branch choice. */
static rk_quat rki_m3_to_quat(const double r[3][3]) { return rki_qnorm_exact(rki_quat_from_m3(r)); }

rk_vec3 rk_quat_to_euler_deg(rk_quat q, rk_rotation_order order)
{
	unsigned o = (unsigned)order <= 6u ? (unsigned)order : 0u;
	const int i = rki_order_axes[o][0], j = rki_order_axes[o][1], k = rki_order_axes[o][2];
	/* R = R_k(c) R_j(b) R_i(a). s = +1 for cyclic axis sequences. */
	const double s = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0;
	double r[3][3];
	rki_quat_to_m3(rki_qnorm_exact(q), r);
	double a, b, c;
	double cb = sqrt(r[i][i] * r[i][i] + r[j][i] * r[j][i]);
	b = atan2(-s * r[k][i], cb);
	if (cb > 1e-9) {
		a = atan2(s * r[k][j], r[k][k]);
		c = atan2(s * r[j][i], r[i][i]);
	} else {
		/* Gimbal lock: put all of the remaining rotation into the first angle.
		 * M = R_j(b)^T R = R_i(a); read a from M's (j,j)/(k,j) entries. */
		double rj[3][3];
		rki_quat_to_m3(rki_axis_quat(j, b), rj);
		double m_kj = 0, m_jj = 0;
		for (int t = 0; t < 3; t++) {
			m_kj += rj[t][k] * r[t][j];
			m_jj += rj[t][j] * r[t][j];
		}
		a = atan2(s * m_kj, m_jj);
		c = 0.0;
	}
	double out[3];
	out[i] = a * RAD2DEG;
	out[j] = b * RAD2DEG;
	out[k] = c * RAD2DEG;
	return (rk_vec3){ out[0], out[1], out[2] };
}

rk_quat rk_quat_look_rotation(rk_vec3 forward, rk_vec3 up)
{
	rk_vec3 z = rki_v3norm(forward);
	if (z.x == 0.0 && z.y == 0.0 && z.z == 0.0) return RK_QUAT_IDENTITY;
	rk_vec3 x = rki_v3cross(up, z);
	if (rki_v3len(x) < 1e-12) {
		/* forward parallel to up: pick the world axis least aligned with forward */
		rk_vec3 alt = fabs(z.x) < 0.9 ? (rk_vec3){ 1, 0, 0 } : (rk_vec3){ 0, 1, 0 };
		x = rki_v3cross(alt, z);
	}
	x = rki_v3norm(x);
	rk_vec3 y = rki_v3cross(z, x);
	double r[3][3] = {
		{ x.x, y.x, z.x },
		{ x.y, y.y, z.y },
		{ x.z, y.z, z.z },
	};
	return rki_m3_to_quat(r);
}


/* ---- matrices ---------------------------------------------------------------- */

#define M(mat, row, col) ((mat).m[(col) * 4 + (row)])

rk_mat4 rk_mat4_identity(void)
{
	rk_mat4 r;
	memset(&r, 0, sizeof(r));
	r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1.0;
	return r;
}

rk_mat4 rk_mat4_mul(rk_mat4 a, rk_mat4 b)
{
	rk_mat4 r;
	rki_mat4_mul_to(&r, &a, &b);
	return r;
}

rk_mat4 rk_mat4_translation(rk_vec3 t)
{
	rk_mat4 r = rk_mat4_identity();
	r.m[12] = t.x;
	r.m[13] = t.y;
	r.m[14] = t.z;
	return r;
}

rk_mat4 rk_mat4_scaling(rk_vec3 s)
{
	rk_mat4 r = rk_mat4_identity();
	r.m[0] = s.x;
	r.m[5] = s.y;
	r.m[10] = s.z;
	return r;
}

rk_mat4 rk_mat4_rotation(rk_quat q)
{
	double r3[3][3];
	rki_quat_to_m3(q, r3);
	rk_mat4 r = rk_mat4_identity();
	for (int row = 0; row < 3; row++)
		for (int col = 0; col < 3; col++) M(r, row, col) = r3[row][col];
	return r;
}

rk_mat4 rk_mat4_from_trs(rk_trs trs)
{
	rk_mat4 r = rk_mat4_rotation(trs.rotation);
	for (int row = 0; row < 3; row++) {
		M(r, row, 0) *= trs.scale.x;
		M(r, row, 1) *= trs.scale.y;
		M(r, row, 2) *= trs.scale.z;
	}
	r.m[12] = trs.translation.x;
	r.m[13] = trs.translation.y;
	r.m[14] = trs.translation.z;
	return r;
}

rk_mat4 rk_mat4_transpose(rk_mat4 m)
{
	rk_mat4 r;
	for (int row = 0; row < 4; row++)
		for (int col = 0; col < 4; col++) M(r, row, col) = M(m, col, row);
	return r;
}

double rk_mat4_determinant3(rk_mat4 m)
{
	return M(m, 0, 0) * (M(m, 1, 1) * M(m, 2, 2) - M(m, 1, 2) * M(m, 2, 1))
	     - M(m, 0, 1) * (M(m, 1, 0) * M(m, 2, 2) - M(m, 1, 2) * M(m, 2, 0))
	     + M(m, 0, 2) * (M(m, 1, 0) * M(m, 2, 1) - M(m, 1, 1) * M(m, 2, 0));
}

/* Step col of rk_mat4_invert's elimination on [m | I] (a, row-major);
 * false when the pivot is too small. Inlined with a constant col, its
 * loops have constant bounds. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline bool rki_invert_step(double a[4][8], int col, double scale)
{
	int piv = col;
	for (int r = col + 1; r < 4; r++)
		if (fabs(a[r][col]) > fabs(a[piv][col])) piv = r;
	if (!(fabs(a[piv][col]) > 1e-300) || !(fabs(a[piv][col]) > scale * 1e-15)) return false;
	if (piv != col) {
		for (int c = col; c < 8; c++) {
			double t = a[col][c];
			a[col][c] = a[piv][c];
			a[piv][c] = t;
		}
	}
	double inv = 1.0 / a[col][col];
	for (int c = col + 1; c < 8; c++) a[col][c] *= inv;
	for (int r = 0; r < 4; r++) {
		if (r == col || a[r][col] == 0.0) continue;
		double f = a[r][col];
		for (int c = col + 1; c < 8; c++) a[r][c] -= f * a[col][c];
	}
	return true;
}

bool rk_mat4_invert(rk_mat4 m, rk_mat4 *out)
{
	/* Gauss-Jordan elimination with partial pivoting on [m | I]. Column col
	 * is read only at step col (pivot, factors) and the result is the right
	 * half, so each step updates the columns after col alone: the same
	 * operations on every entry that is read again, the same bits. */
	double a[4][8];
	for (int r = 0; r < 4; r++) {
		a[r][0] = M(m, r, 0), a[r][1] = M(m, r, 1), a[r][2] = M(m, r, 2), a[r][3] = M(m, r, 3);
		a[r][4] = a[r][5] = a[r][6] = a[r][7] = 0.0;
		a[r][4 + r] = 1.0;
	}
	double scale = 0.0;   /* the largest |entry| (fmax's answer: NaN skipped) */
	for (int i = 0; i < 16; i++) {
		double v = fabs(m.m[i]);
		if (v > scale) scale = v;
	}
	if (!rki_invert_step(a, 0, scale) || !rki_invert_step(a, 1, scale) || !rki_invert_step(a, 2, scale) ||
		!rki_invert_step(a, 3, scale)) {
		*out = rk_mat4_identity();
		return false;
	}
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 4; c++) M(*out, r, c) = a[r][c + 4];
	return true;
}

bool rk_mat4_invert_affine(rk_mat4 m, rk_mat4 *out)
{
	double det = rk_mat4_determinant3(m);
	double scale = 0.0;
	for (int c = 0; c < 3; c++)
		for (int r = 0; r < 3; r++) scale = fmax(scale, fabs(M(m, r, c)));
	if (!(fabs(det) > 1e-300) || !(fabs(det) > scale * scale * scale * 1e-15)) {
		*out = rk_mat4_identity();
		return false;
	}
	double id = 1.0 / det;
	rk_mat4 r = rk_mat4_identity();
	M(r, 0, 0) = (M(m, 1, 1) * M(m, 2, 2) - M(m, 1, 2) * M(m, 2, 1)) * id;
	M(r, 0, 1) = (M(m, 0, 2) * M(m, 2, 1) - M(m, 0, 1) * M(m, 2, 2)) * id;
	M(r, 0, 2) = (M(m, 0, 1) * M(m, 1, 2) - M(m, 0, 2) * M(m, 1, 1)) * id;
	M(r, 1, 0) = (M(m, 1, 2) * M(m, 2, 0) - M(m, 1, 0) * M(m, 2, 2)) * id;
	M(r, 1, 1) = (M(m, 0, 0) * M(m, 2, 2) - M(m, 0, 2) * M(m, 2, 0)) * id;
	M(r, 1, 2) = (M(m, 0, 2) * M(m, 1, 0) - M(m, 0, 0) * M(m, 1, 2)) * id;
	M(r, 2, 0) = (M(m, 1, 0) * M(m, 2, 1) - M(m, 1, 1) * M(m, 2, 0)) * id;
	M(r, 2, 1) = (M(m, 0, 1) * M(m, 2, 0) - M(m, 0, 0) * M(m, 2, 1)) * id;
	M(r, 2, 2) = (M(m, 0, 0) * M(m, 1, 1) - M(m, 0, 1) * M(m, 1, 0)) * id;
	rk_vec3 t = { m.m[12], m.m[13], m.m[14] };
	rk_vec3 it = rk_mat4_transform_vector(r, t);
	r.m[12] = -it.x;
	r.m[13] = -it.y;
	r.m[14] = -it.z;
	*out = r;
	return true;
}

rk_vec3 rk_mat4_transform_point(rk_mat4 m, rk_vec3 p)
{
	return (rk_vec3){
		M(m, 0, 0) * p.x + M(m, 0, 1) * p.y + M(m, 0, 2) * p.z + M(m, 0, 3),
		M(m, 1, 0) * p.x + M(m, 1, 1) * p.y + M(m, 1, 2) * p.z + M(m, 1, 3),
		M(m, 2, 0) * p.x + M(m, 2, 1) * p.y + M(m, 2, 2) * p.z + M(m, 2, 3),
	};
}

rk_vec3 rk_mat4_transform_vector(rk_mat4 m, rk_vec3 v)
{
	return (rk_vec3){
		M(m, 0, 0) * v.x + M(m, 0, 1) * v.y + M(m, 0, 2) * v.z,
		M(m, 1, 0) * v.x + M(m, 1, 1) * v.y + M(m, 1, 2) * v.z,
		M(m, 2, 0) * v.x + M(m, 2, 1) * v.y + M(m, 2, 2) * v.z,
	};
}

rk_vec3 rk_mat4_transform_normal(rk_mat4 m, rk_vec3 n)
{
	/* Cofactor matrix = det * inverse-transpose; the determinant's sign keeps
	 * normals pointing the same way under mirroring, magnitude is dropped. */
	double c[3][3];
	c[0][0] = M(m, 1, 1) * M(m, 2, 2) - M(m, 1, 2) * M(m, 2, 1);
	c[0][1] = M(m, 1, 2) * M(m, 2, 0) - M(m, 1, 0) * M(m, 2, 2);
	c[0][2] = M(m, 1, 0) * M(m, 2, 1) - M(m, 1, 1) * M(m, 2, 0);
	c[1][0] = M(m, 0, 2) * M(m, 2, 1) - M(m, 0, 1) * M(m, 2, 2);
	c[1][1] = M(m, 0, 0) * M(m, 2, 2) - M(m, 0, 2) * M(m, 2, 0);
	c[1][2] = M(m, 0, 1) * M(m, 2, 0) - M(m, 0, 0) * M(m, 2, 1);
	c[2][0] = M(m, 0, 1) * M(m, 1, 2) - M(m, 0, 2) * M(m, 1, 1);
	c[2][1] = M(m, 0, 2) * M(m, 1, 0) - M(m, 0, 0) * M(m, 1, 2);
	c[2][2] = M(m, 0, 0) * M(m, 1, 1) - M(m, 0, 1) * M(m, 1, 0);
	double det = rk_mat4_determinant3(m);
	double sign = det < 0.0 ? -1.0 : 1.0;
	/* inverse-transpose = C / det, so n' = C * n (rows of C, not columns:
	 * C^T = adj(M) would give det * M^-1 * n). */
	rk_vec3 r = {
		sign * (c[0][0] * n.x + c[0][1] * n.y + c[0][2] * n.z),
		sign * (c[1][0] * n.x + c[1][1] * n.y + c[1][2] * n.z),
		sign * (c[2][0] * n.x + c[2][1] * n.y + c[2][2] * n.z),
	};
	return rki_v3norm(r);
}

rk_vec3 rk_mat4_get_translation(rk_mat4 m) { return (rk_vec3){ m.m[12], m.m[13], m.m[14] }; }

rk_trs rk_mat4_decompose(rk_mat4 m)
{
	rk_trs out;
	out.translation = rk_mat4_get_translation(m);
	rk_vec3 c0 = { M(m, 0, 0), M(m, 1, 0), M(m, 2, 0) };
	rk_vec3 c1 = { M(m, 0, 1), M(m, 1, 1), M(m, 2, 1) };
	rk_vec3 c2 = { M(m, 0, 2), M(m, 1, 2), M(m, 2, 2) };
	double sx = rki_v3len(c0);
	rk_vec3 x = sx > 0.0 ? rki_v3scale(c0, 1.0 / sx) : (rk_vec3){ 1, 0, 0 };
	rk_vec3 y1 = rki_v3sub(c1, rki_v3scale(x, rki_v3dot(x, c1)));
	double sy = rki_v3len(y1);
	rk_vec3 y;
	if (sy > 1e-300) {
		y = rki_v3scale(y1, 1.0 / sy);
	} else {
		rk_vec3 alt = fabs(x.x) < 0.9 ? (rk_vec3){ 1, 0, 0 } : (rk_vec3){ 0, 1, 0 };
		y = rki_v3norm(rki_v3cross(rki_v3cross(x, alt), x));
	}
	rk_vec3 z = rki_v3cross(x, y);
	double sz = rki_v3dot(z, c2);
	sy = rki_v3dot(y, c1);
	/* A mirrored basis shows up as sz < 0 with z = x cross y; move the sign to x. */
	if (sz < 0.0) {
		sz = -sz;
		sx = -sx;
		x = rki_v3scale(x, -1.0);
		z = rki_v3cross(x, y);
	}
	double r[3][3] = {
		{ x.x, y.x, z.x },
		{ x.y, y.y, z.y },
		{ x.z, y.z, z.z },
	};
	out.rotation = rki_m3_to_quat(r);
	out.scale = (rk_vec3){ sx, sy, sz };
	return out;
}

double rk_mat4_max_diff(rk_mat4 a, rk_mat4 b)
{
	double d = 0.0;
	for (int i = 0; i < 16; i++) d = fmax(d, fabs(a.m[i] - b.m[i]));
	return d;
}

/* ---- TRS ------------------------------------------------------------------------ */

rk_trs rk_trs_identity(void)
{
	return (rk_trs){ { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
}

rk_trs rk_trs_compose(rk_trs parent, rk_trs child)
{
	rk_trs r;
	r.translation = rki_v3add(parent.translation,
		rki_qrot(parent.rotation, rk_vec3_mul(parent.scale, child.translation)));
	r.rotation = rki_qnorm_exact(rki_qmul(parent.rotation, child.rotation));
	r.scale = rk_vec3_mul(parent.scale, child.scale);
	return r;
}
