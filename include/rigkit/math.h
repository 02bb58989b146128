/*
 * rigkit/math.h - vectors, quaternions, matrices and Euler angles (double).
 *
 * OVERVIEW
 *   Small pure functions over the value types of rigkit/base.h. Everything is
 *   double precision; nothing allocates; every function is thread safe.
 *
 *   Matrices are column-major and act on column vectors (see base.h):
 *     rk_mat4_mul(a, b) = a * b  -> applies b first, then a.
 *   Quaternions use the Hamilton product (x, y, z, w):
 *     rk_quat_mul(a, b) = a * b  -> rotates by b first, then a.
 *
 * EULER ANGLES
 *   rk_rotation_order names the order in which the three axis rotations are
 *   APPLIED to a vector. RK_ROTATION_XYZ rotates about X first, then Y, then Z,
 *   so the matrix is R = Rz * Ry * Rx. This is FBX's "RotationOrder" (eEulerXYZ
 *   = 0 ... eEulerZYX = 5, eSphericXYZ = 6) and Maya's rotateOrder.
 *   RK_ROTATION_SPHERIC_XYZ is evaluated as XYZ for static values (FBX uses it
 *   to ask for quaternion interpolation of animated rotation; see anim.h).
 *   Euler angles are in degrees where a name ends in _deg, radians otherwise.
 */
#ifndef RIGKIT_MATH_H
#define RIGKIT_MATH_H

#include "rigkit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rk_rotation_order {
	RK_ROTATION_XYZ = 0,  /* R = Rz * Ry * Rx (X applied first) */
	RK_ROTATION_XZY = 1,  /* R = Ry * Rz * Rx */
	RK_ROTATION_YZX = 2,  /* R = Rx * Rz * Ry */
	RK_ROTATION_YXZ = 3,  /* R = Rz * Rx * Ry */
	RK_ROTATION_ZXY = 4,  /* R = Ry * Rx * Rz */
	RK_ROTATION_ZYX = 5,  /* R = Rx * Ry * Rz */
	RK_ROTATION_SPHERIC_XYZ = 6 /* evaluated as XYZ */
} rk_rotation_order;

#define RK_PI 3.14159265358979323846

/* ---- vectors ------------------------------------------------------------ */
rk_vec3 rk_vec3_make(double x, double y, double z);
rk_vec3 rk_vec3_add(rk_vec3 a, rk_vec3 b);
rk_vec3 rk_vec3_sub(rk_vec3 a, rk_vec3 b);
rk_vec3 rk_vec3_scale(rk_vec3 a, double s);
rk_vec3 rk_vec3_mul(rk_vec3 a, rk_vec3 b);       /* component-wise */
double rk_vec3_dot(rk_vec3 a, rk_vec3 b);
rk_vec3 rk_vec3_cross(rk_vec3 a, rk_vec3 b);
double rk_vec3_length(rk_vec3 a);
/* Unit vector; returns the zero vector for a zero-length input. */
rk_vec3 rk_vec3_normalize(rk_vec3 a);
rk_vec3 rk_vec3_lerp(rk_vec3 a, rk_vec3 b, double t);

/* ---- quaternions ------------------------------------------------------------ */
#define RK_QUAT_IDENTITY ((rk_quat){ 0.0, 0.0, 0.0, 1.0 })
rk_quat rk_quat_mul(rk_quat a, rk_quat b);       /* a * b: b first, then a */
rk_quat rk_quat_conjugate(rk_quat q);
/* Inverse of any non-zero quaternion (conjugate / |q|^2); identity for zero. */
rk_quat rk_quat_inverse(rk_quat q);
double rk_quat_dot(rk_quat a, rk_quat b);
/* Unit quaternion; identity for a zero input. */
rk_quat rk_quat_normalize(rk_quat q);
/* Rotation of `radians` about `axis` (need not be unit; zero axis -> identity). */
rk_quat rk_quat_axis_angle(rk_vec3 axis, double radians);
rk_vec3 rk_quat_rotate(rk_quat q, rk_vec3 v);    /* q v q^-1 for unit q */
/* Shortest-path interpolation: b is negated when dot(a, b) < 0.
 * nlerp normalises a linear blend; slerp is constant angular velocity. */
rk_quat rk_quat_nlerp(rk_quat a, rk_quat b, double t);
rk_quat rk_quat_slerp(rk_quat a, rk_quat b, double t);
/* Angle in radians between two orientations (0..pi), sign-insensitive. */
double rk_quat_angle_between(rk_quat a, rk_quat b);

/* Euler angles (degrees) in `order` -> unit quaternion. */
rk_quat rk_quat_from_euler_deg(rk_vec3 euler_deg, rk_rotation_order order);
/* Unit quaternion -> Euler angles (degrees) in `order`, such that
 * rk_quat_from_euler_deg(result, order) gives back q (up to sign). The middle
 * angle is in [-90, 90]; at gimbal lock the first angle takes the rotation. */
rk_vec3 rk_quat_to_euler_deg(rk_quat q, rk_rotation_order order);
/* Rotation that turns +Z (forward) to `forward` with +Y as close to `up` as
 * possible. Returns identity when forward is zero; when forward is parallel
 * to up another up axis is chosen. */
rk_quat rk_quat_look_rotation(rk_vec3 forward, rk_vec3 up);

/* ---- matrices ---------------------------------------------------------------- */
rk_mat4 rk_mat4_identity(void);
rk_mat4 rk_mat4_mul(rk_mat4 a, rk_mat4 b);       /* a * b: b first, then a */
rk_mat4 rk_mat4_translation(rk_vec3 t);
rk_mat4 rk_mat4_scaling(rk_vec3 s);
rk_mat4 rk_mat4_rotation(rk_quat q);
/* T * R * S. */
rk_mat4 rk_mat4_from_trs(rk_trs trs);
/* General 4x4 inverse; returns false (and the identity) when singular. */
bool rk_mat4_invert(rk_mat4 m, rk_mat4 *out);
/* Inverse of an affine matrix (last row 0 0 0 1); false when singular. */
bool rk_mat4_invert_affine(rk_mat4 m, rk_mat4 *out);
rk_mat4 rk_mat4_transpose(rk_mat4 m);
double rk_mat4_determinant3(rk_mat4 m);          /* of the upper-left 3x3 */
rk_vec3 rk_mat4_transform_point(rk_mat4 m, rk_vec3 p);
rk_vec3 rk_mat4_transform_vector(rk_mat4 m, rk_vec3 v);  /* no translation */
/* Normal transform: inverse-transpose of the upper 3x3, result normalised. */
rk_vec3 rk_mat4_transform_normal(rk_mat4 m, rk_vec3 n);
rk_vec3 rk_mat4_get_translation(rk_mat4 m);
/* Decomposes an affine matrix into T * R * S. Exact for matrices without
 * shear; with shear the rotation is the orthonormalised (Gram-Schmidt, X
 * first) basis and scale the projections on it, an approximation. A negative
 * determinant is folded into a negative scale.x. */
rk_trs rk_mat4_decompose(rk_mat4 m);
/* Largest absolute element difference. */
double rk_mat4_max_diff(rk_mat4 a, rk_mat4 b);

/* ---- TRS ------------------------------------------------------------------------ */
rk_trs rk_trs_identity(void);
/* Parent TRS composed with a child TRS, quaternion-wise (like Unity's
 * Transform): t = pt + pr * (ps * ct); r = pr * cr; s = ps * cs. Equals the
 * matrix product only when the parent scale is uniform or the child
 * rotation is axis-aligned. */
rk_trs rk_trs_compose(rk_trs parent, rk_trs child);

#ifdef __cplusplus
}
#endif
#endif
