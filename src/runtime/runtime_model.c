/* src/runtime/runtime_model.c - local-to-model job (see rigkit/runtime.h).
 * One pass over the joints in depth-first order; float; never allocates.
 * Two paths with bit-identical results (runtime_internal.h): scalar, and
 * blocked (runtime_simd.h lanes: the local matrices of 4 joints at once,
 * then each joint's product with its parent in column vectors). */
#include "runtime_internal.h"
#include "runtime_simd.h"

#include <stdarg.h>

static bool rki_l2m_fail(rk_error *err, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_l2m_fail(rk_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, RK_ERROR_INVALID_ARGUMENT, fmt, ap);
	va_end(ap);
	return false;
}

bool rk_local_to_model_validate(const rk_local_to_model_job *job, rk_error *err)
{
	rki_error_clear(err);
	if (!job) return rki_l2m_fail(err, "rk_local_to_model: job is NULL");
	const rk_skeleton *sk = job->skeleton;
	if (!sk) return rki_l2m_fail(err, "rk_local_to_model: skeleton is NULL");
	size_t n = sk->joint_count;
	if (n > (size_t)INT32_MAX) return rki_l2m_fail(err, "rk_local_to_model: skeleton has %zu joints", n);
	if (n && !sk->parents) return rki_l2m_fail(err, "rk_local_to_model: skeleton parents is NULL");
	/* -1 <= p < j as one unsigned test, p + 1 <= j (p < -1 wraps above
	 * INT32_MAX >= j), or-ed over every joint without a branch (this runs
	 * every frame); the joint for the message is looked for only on failure */
	uint32_t bad = 0;
	for (uint32_t j = 0; j < (uint32_t)n; j++) bad |= (uint32_t)sk->parents[j] + 1u > j;
	for (size_t j = 0; bad && j < n; j++) {
		int32_t p = sk->parents[j];
		if (p < RK_JOINT_NONE || (p >= 0 && (size_t)p >= j))
			return rki_l2m_fail(err, "rk_local_to_model: joint %zu has parent %d; parents must come first (-1 <= parent < joint)", j, (int)p);
	}
	if (job->input.joint_count != n)
		return rki_l2m_fail(err, "rk_local_to_model: input.joint_count is %zu, the skeleton has %zu joints", job->input.joint_count, n);
	if (n && (!job->input.translation || !job->input.rotation || !job->input.scale))
		return rki_l2m_fail(err, "rk_local_to_model: input streams must be non-NULL");
	if (n && !job->model) return rki_l2m_fail(err, "rk_local_to_model: model output is NULL");
	if (job->skinning) {
		if (job->skin_joint_count && (!job->skin_joints || !job->inverse_bind))
			return rki_l2m_fail(err, "rk_local_to_model: skinning needs skin_joints and inverse_bind");
		for (size_t k = 0; k < job->skin_joint_count; k++)
			if (job->skin_joints[k] >= n)
				return rki_l2m_fail(err, "rk_local_to_model: skin joint %zu maps to joint %u of %zu", k, (unsigned)job->skin_joints[k], n);
	}
	return true;
}

/* Affine product r = a * b (column-major 4x4, last rows 0 0 0 1): each
 * output column is a combination of a's columns, written 4 lanes wide so the
 * compiler can use vector registers (plain C, no intrinsics). */
static inline void rki_affine_mul(const float *restrict a, const float *restrict b, float *restrict r)
{
	for (int c = 0; c < 4; c++) {
		float b0 = b[c * 4 + 0], b1 = b[c * 4 + 1], b2 = b[c * 4 + 2], b3 = b[c * 4 + 3];
		for (int k = 0; k < 4; k++) r[c * 4 + k] = a[k] * b0 + a[4 + k] * b1 + a[8 + k] * b2 + a[12 + k] * b3;
	}
}

/* r = parent * (T * R * S) without forming the local matrix: the local
 * columns are R's columns times the scales, and (t, 1). */
static inline void rki_mul_trs(const float *restrict a, rk_float3 t, rk_float4 q, rk_float3 s, float *restrict r)
{
	float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
	float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
	float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
	const float l[12] = {
		(1.0f - 2.0f * (yy + zz)) * s.x, 2.0f * (xy + wz) * s.x, 2.0f * (xz - wy) * s.x,
		2.0f * (xy - wz) * s.y, (1.0f - 2.0f * (xx + zz)) * s.y, 2.0f * (yz + wx) * s.y,
		2.0f * (xz + wy) * s.z, 2.0f * (yz - wx) * s.z, (1.0f - 2.0f * (xx + yy)) * s.z,
		t.x, t.y, t.z
	};
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 4; k++) r[c * 4 + k] = a[k] * l[c * 3] + a[4 + k] * l[c * 3 + 1] + a[8 + k] * l[c * 3 + 2];
	for (int k = 0; k < 4; k++) r[12 + k] = a[k] * l[9] + a[4 + k] * l[10] + a[8 + k] * l[11] + a[12 + k];
}

static const float rki_identity4[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };

/* r = a * (b0, b1, b2, b3) columns: rki_affine_mul in lanes. */
RKI_RT_INLINE void rki_v4_affine_mul(const float *a, const float *b, float *r)
{
	const rki_v4 a0 = rki_v4_load(a), a1 = rki_v4_load(a + 4), a2 = rki_v4_load(a + 8), a3 = rki_v4_load(a + 12);
	for (int c = 0; c < 4; c++) {
		rki_v4 bc = rki_v4_load(b + 4 * c);
		rki_v4 s = rki_v4_add(rki_v4_add(rki_v4_add(rki_v4_mul(a0, rki_v4_splat(bc, 0)), rki_v4_mul(a1, rki_v4_splat(bc, 1))),
			rki_v4_mul(a2, rki_v4_splat(bc, 2))), rki_v4_mul(a3, rki_v4_splat(bc, 3)));
		rki_v4_store(r + 4 * c, s);
	}
}

/* model = parent * local for one joint: a holds the parent's columns, c0..c2
 * the local columns' x, y, z entries, c3 the translation (each entry splat
 * over the lanes; the column sums in rki_mul_trs's order). The result goes
 * to r and to m (kept for a child that comes next). */
RKI_RT_INLINE void rki_v4_mul_local(const rki_v4 a[4], const rki_v4 c0[3], const rki_v4 c1[3], const rki_v4 c2[3],
	const rki_v4 c3[3], rki_v4 m[4], float *r)
{
#define RKI_COL(c) rki_v4_add(rki_v4_add(rki_v4_mul(a[0], (c)[0]), rki_v4_mul(a[1], (c)[1])), rki_v4_mul(a[2], (c)[2]))
	const rki_v4 r0 = RKI_COL(c0), r1 = RKI_COL(c1), r2 = RKI_COL(c2), r3 = rki_v4_add(RKI_COL(c3), a[3]);
#undef RKI_COL
	rki_v4_store(r, r0);
	rki_v4_store(r + 4, r1);
	rki_v4_store(r + 8, r2);
	rki_v4_store(r + 12, r3);
	m[0] = r0;
	m[1] = r1;
	m[2] = r2;
	m[3] = r3;
}

static void rki_l2m_blocked(const int32_t *parents, rk_local_pose_view in, const float *root, rk_float4x4 *model, size_t n)
{
	/* the previous joint's matrix (the root transform before joint 0): a
	 * child that follows its parent takes it from here, not from model[],
	 * so the chain of products along a limb does not wait on a store and
	 * its reload */
	rki_v4 m[4] = { rki_v4_load(root), rki_v4_load(root + 4), rki_v4_load(root + 8), rki_v4_load(root + 12) };
	size_t j = 0;
	for (; j + 4 <= n; j += 4) {
		rki_v4 qx = rki_v4_load(&in.rotation[j].x), qy = rki_v4_load(&in.rotation[j + 1].x);
		rki_v4 qz = rki_v4_load(&in.rotation[j + 2].x), qw = rki_v4_load(&in.rotation[j + 3].x);
		rki_v4_transpose(&qx, &qy, &qz, &qw);
		/* 16 bytes per joint (the 4th float, the next joint's x, lands in
		 * the unused 4th vector or lane), 12 for the last joint of the arrays */
		rki_v4 sx = rki_v4_load(&in.scale[j].x), sy = rki_v4_load(&in.scale[j + 1].x);
		rki_v4 sz = rki_v4_load(&in.scale[j + 2].x);
		rki_v4 sw = j + 4 < n ? rki_v4_load(&in.scale[j + 3].x) : rki_v4_load3(&in.scale[j + 3].x);
		rki_v4_transpose(&sx, &sy, &sz, &sw);
		/* rki_mul_trs's entries l[0..8], 4 joints per vector (lane l:
		 * joint j + l); they are splat from these lanes, never transposed */
		const rki_v4 one = rki_v4_set1(1.0f), two = rki_v4_set1(2.0f);
		rki_v4 xx = rki_v4_mul(qx, qx), yy = rki_v4_mul(qy, qy), zz = rki_v4_mul(qz, qz);
		rki_v4 xy = rki_v4_mul(qx, qy), xz = rki_v4_mul(qx, qz), yz = rki_v4_mul(qy, qz);
		rki_v4 wx = rki_v4_mul(qw, qx), wy = rki_v4_mul(qw, qy), wz = rki_v4_mul(qw, qz);
		const rki_v4 e0 = rki_v4_mul(rki_v4_sub(one, rki_v4_mul(two, rki_v4_add(yy, zz))), sx);
		const rki_v4 e1 = rki_v4_mul(rki_v4_mul(two, rki_v4_add(xy, wz)), sx);
		const rki_v4 e2 = rki_v4_mul(rki_v4_mul(two, rki_v4_sub(xz, wy)), sx);
		const rki_v4 e3 = rki_v4_mul(rki_v4_mul(two, rki_v4_sub(xy, wz)), sy);
		const rki_v4 e4 = rki_v4_mul(rki_v4_sub(one, rki_v4_mul(two, rki_v4_add(xx, zz))), sy);
		const rki_v4 e5 = rki_v4_mul(rki_v4_mul(two, rki_v4_add(yz, wx)), sy);
		const rki_v4 e6 = rki_v4_mul(rki_v4_mul(two, rki_v4_add(xz, wy)), sz);
		const rki_v4 e7 = rki_v4_mul(rki_v4_mul(two, rki_v4_sub(yz, wx)), sz);
		const rki_v4 e8 = rki_v4_mul(rki_v4_sub(one, rki_v4_mul(two, rki_v4_add(xx, yy))), sz);
		/* joint j + l: its translation read as one vector; its parent's
		 * matrix from m when that is the previous joint (or, for joint 0,
		 * the root), else from model[] or the root */
#define RKI_L2M_JOINT(l, tload)                                                                              \
	do {                                                                                                 \
		const rki_v4 tv = tload(&in.translation[j + (l)].x);                                             \
		const rki_v4 c0[3] = { rki_v4_splat(e0, l), rki_v4_splat(e1, l), rki_v4_splat(e2, l) };          \
		const rki_v4 c1[3] = { rki_v4_splat(e3, l), rki_v4_splat(e4, l), rki_v4_splat(e5, l) };          \
		const rki_v4 c2[3] = { rki_v4_splat(e6, l), rki_v4_splat(e7, l), rki_v4_splat(e8, l) };          \
		const rki_v4 c3[3] = { rki_v4_splat(tv, 0), rki_v4_splat(tv, 1), rki_v4_splat(tv, 2) };          \
		const int32_t p = parents[j + (l)];                                                              \
		if (p == (int32_t)(j + (l)) - 1) {                                                               \
			const rki_v4 a[4] = { m[0], m[1], m[2], m[3] };                                          \
			rki_v4_mul_local(a, c0, c1, c2, c3, m, model[j + (l)].m);                                \
		} else {                                                                                     \
			const float *pm = p >= 0 ? model[p].m : root;                                            \
			const rki_v4 a[4] = { rki_v4_load(pm), rki_v4_load(pm + 4), rki_v4_load(pm + 8), rki_v4_load(pm + 12) }; \
			rki_v4_mul_local(a, c0, c1, c2, c3, m, model[j + (l)].m);                                \
		}                                                                                            \
	} while (0)
		RKI_L2M_JOINT(0, rki_v4_load);
		RKI_L2M_JOINT(1, rki_v4_load);
		RKI_L2M_JOINT(2, rki_v4_load);
		if (j + 4 < n) RKI_L2M_JOINT(3, rki_v4_load);
		else RKI_L2M_JOINT(3, rki_v4_load3);
#undef RKI_L2M_JOINT
	}
	for (; j < n; j++) {
		int32_t p = parents[j];
		rki_mul_trs(p >= 0 ? model[p].m : root, in.translation[j], in.rotation[j], in.scale[j], model[j].m);
	}
}

bool rki_local_to_model_run_path(const rk_local_to_model_job *job, rki_rt_path path)
{
	if (!rk_local_to_model_validate(job, NULL)) return false;
	const rk_skeleton *sk = job->skeleton;
	const size_t n = sk->joint_count;
	const int32_t *parents = sk->parents;
	rk_float4x4 *model = job->model;
	const float *root = job->root_transform ? job->root_transform->m : rki_identity4;
	if (path == RKI_RT_PATH_DEFAULT) path = rki_rt_default_path();
	if (path == RKI_RT_PATH_BLOCKED) {
		rki_l2m_blocked(parents, job->input, root, model, n);
		if (job->skinning) {
			for (size_t k = 0; k < job->skin_joint_count; k++)
				rki_v4_affine_mul(model[job->skin_joints[k]].m, job->inverse_bind[k].m, job->skinning[k].m);
		}
		return true;
	}
	const rk_float3 *tr = job->input.translation;
	const rk_float4 *ro = job->input.rotation;
	const rk_float3 *sc = job->input.scale;
	for (size_t j = 0; j < n; j++) {
		int32_t p = parents[j];
		rki_mul_trs(p >= 0 ? model[p].m : root, tr[j], ro[j], sc[j], model[j].m);
	}
	if (job->skinning) {
		for (size_t k = 0; k < job->skin_joint_count; k++)
			rki_affine_mul(model[job->skin_joints[k]].m, job->inverse_bind[k].m, job->skinning[k].m);
	}
	return true;
}

bool rk_local_to_model_run(const rk_local_to_model_job *job)
{
	return rki_local_to_model_run_path(job, RKI_RT_PATH_DEFAULT);
}
