/* src/runtime/runtime_model.c - local-to-model job (see rigkit/runtime.h).
 * One pass over the joints in depth-first order; float; never allocates. */
#include "runtime_internal.h"

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
	for (size_t j = 0; j < n; j++) {
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

bool rk_local_to_model_run(const rk_local_to_model_job *job)
{
	if (!rk_local_to_model_validate(job, NULL)) return false;
	const rk_skeleton *sk = job->skeleton;
	const size_t n = sk->joint_count;
	const int32_t *parents = sk->parents;
	const rk_float3 *tr = job->input.translation;
	const rk_float4 *ro = job->input.rotation;
	const rk_float3 *sc = job->input.scale;
	rk_float4x4 *model = job->model;
	const float *root = job->root_transform ? job->root_transform->m : rki_identity4;
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
