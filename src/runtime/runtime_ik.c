/* src/runtime/runtime_ik.c - two-bone IK job (see rigkit/runtime.h). The
 * solver is core/ik.c (shared with the demo walk, which may not include the
 * runtime); this file checks the job and hands it over. Never allocates. */
#include "runtime_internal.h"
#include "core/ik.h"

#include <stdarg.h>

static bool rki_ik_fail(rk_error *err, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_ik_fail(rk_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, RK_ERROR_INVALID_ARGUMENT, fmt, ap);
	va_end(ap);
	return false;
}

static bool rki_v3_finite(rk_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static bool rki_q_finite(rk_quat q) { return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }

bool rk_two_bone_ik_validate(const rk_two_bone_ik_job *job, rk_error *err)
{
	rki_error_clear(err);
	if (!job) return rki_ik_fail(err, "rk_two_bone_ik: job is NULL");
	if (!job->start_correction || !job->mid_correction)
		return rki_ik_fail(err, "rk_two_bone_ik: start_correction and mid_correction outputs are required");
	const struct { const char *name; rk_vec3 v; } vecs[] = {
		{ "start_position", job->start_position }, { "mid_position", job->mid_position },
		{ "end_position", job->end_position }, { "target", job->target }, { "pole", job->pole },
		{ "mid_axis", job->mid_axis },
	};
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		if (!rki_v3_finite(vecs[i].v)) return rki_ik_fail(err, "rk_two_bone_ik: %s is not finite", vecs[i].name);
	const struct { const char *name; rk_quat q; } quats[] = {
		{ "start_rotation", job->start_rotation }, { "mid_rotation", job->mid_rotation },
	};
	for (size_t i = 0; i < 2; i++) {
		if (!rki_q_finite(quats[i].q)) return rki_ik_fail(err, "rk_two_bone_ik: %s is not finite", quats[i].name);
		rk_quat q = quats[i].q;
		double n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;   /* rk_quat_dot inline */
		if (!(fabs(n2 - 1.0) <= 2e-3))
			return rki_ik_fail(err, "rk_two_bone_ik: %s is not a unit quaternion (|q|^2 = %g)", quats[i].name, n2);
	}
	if (!isfinite(job->weight) || !isfinite(job->soften) || !isfinite(job->twist) || !isfinite(job->reach_margin))
		return rki_ik_fail(err, "rk_two_bone_ik: weight, soften, twist and reach_margin must be finite");
	if (!(rki_v3len(rki_v3sub(job->mid_position, job->start_position)) > 0.0))
		return rki_ik_fail(err, "rk_two_bone_ik: the upper bone (start to mid) has zero length");
	if (!(rki_v3len(rki_v3sub(job->end_position, job->mid_position)) > 0.0))
		return rki_ik_fail(err, "rk_two_bone_ik: the lower bone (mid to end) has zero length");
	if (!(job->weight >= 0.0 && job->weight <= 1.0))
		return rki_ik_fail(err, "rk_two_bone_ik: weight %g is outside [0, 1]", job->weight);
	if (!(job->soften >= 0.0 && job->soften <= 1.0))
		return rki_ik_fail(err, "rk_two_bone_ik: soften %g is outside [0, 1]", job->soften);
	if (!(job->reach_margin >= 0.0 && job->reach_margin < 0.5))
		return rki_ik_fail(err, "rk_two_bone_ik: reach_margin %g is outside [0, 0.5)", job->reach_margin);
	return true;
}

bool rk_two_bone_ik_run(const rk_two_bone_ik_job *job)
{
	if (!rk_two_bone_ik_validate(job, NULL)) return false;
	rki_two_bone in = {
		.start = job->start_position, .mid = job->mid_position, .end = job->end_position,
		.start_rotation = rki_qnorm_exact(job->start_rotation), .mid_rotation = rki_qnorm_exact(job->mid_rotation),
		.target = job->target, .pole = job->pole, .mid_axis = job->mid_axis,
		.weight = job->weight, .soften = job->soften, .twist = job->twist, .reach_margin = job->reach_margin,
	};
	rki_two_bone_result r;
	rki_two_bone_solve(&in, &r);
	*job->start_correction = r.start_local;
	*job->mid_correction = r.mid_local;
	if (job->reached) *job->reached = r.reached;
	if (job->miss) *job->miss = r.miss;
	return true;
}
