/* src/runtime/runtime_motion.c - root motion job (see rigkit/runtime.h,
 * rk_root_motion_job). The motion frame is computed in double precision
 * (loop accumulation can reach large distances); the pose stays float.
 * Never allocates. */
#include "runtime_internal.h"

#include <stdarg.h>

static bool rki_rm_fail(rk_error *err, const char *fmt, ...) RKI_PRINTF(2, 3);
static bool rki_rm_fail(rk_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, RK_ERROR_INVALID_ARGUMENT, fmt, ap);
	va_end(ap);
	return false;
}

/* Parent of joint j if the skeleton is well formed there, else -2. */
static int32_t rki_rm_parent(const rk_skeleton *sk, int32_t j)
{
	int32_t p = sk->parents[j];
	if (p < RK_JOINT_NONE || p >= j) return -2;
	return p;
}

bool rk_root_motion_validate(const rk_root_motion_job *job, rk_error *err)
{
	rki_error_clear(err);
	if (!job) return rki_rm_fail(err, "rk_root_motion: job is NULL");
	const rk_skeleton *sk = job->skeleton;
	const rk_runtime_clip *c = job->clip;
	if (!sk || !sk->parents || !sk->rest.rotation) return rki_rm_fail(err, "rk_root_motion: skeleton (with parents and rest pose) is required");
	if (!c) return rki_rm_fail(err, "rk_root_motion: clip is NULL");
	size_t n = sk->joint_count;
	if (n > (size_t)INT32_MAX || c->joint_count != n || sk->rest.joint_count != n)
		return rki_rm_fail(err, "rk_root_motion: clip has %zu joints, skeleton %zu", c->joint_count, n);
	if (job->pose.joint_count != n || !job->pose.translation || !job->pose.rotation || !job->pose.scale)
		return rki_rm_fail(err, "rk_root_motion: pose must have the skeleton's %zu joints and three streams", n);
	if ((unsigned)job->mode > (unsigned)RK_ROOT_MOTION_EXTRACT) return rki_rm_fail(err, "rk_root_motion: unknown mode %d", (int)job->mode);
	if ((unsigned)job->playback > (unsigned)RK_PLAYBACK_LOOP)
		return rki_rm_fail(err, "rk_root_motion: unknown playback %d", (int)job->playback);
	if (!isfinite(job->time)) return rki_rm_fail(err, "rk_root_motion: time is not finite");
	if (!isfinite(job->up.x) || !isfinite(job->up.y) || !isfinite(job->up.z)) return rki_rm_fail(err, "rk_root_motion: up is not finite");
	if (job->hips < 0 || (size_t)job->hips >= n) return rki_rm_fail(err, "rk_root_motion: hips %d is not a joint", (int)job->hips);
	if (!isfinite(c->duration) || c->duration < 0.0) return rki_rm_fail(err, "rk_root_motion: clip duration is not valid");
	if (!c->translation_tracks || !c->rotation_tracks || !c->times || !c->translation_values || !c->rotation_values
		|| !rki_rt_track_ok(&c->translation_tracks[job->hips], c->time_count, c->translation_value_count, 1)
		|| !rki_rt_track_ok(&c->rotation_tracks[job->hips], c->time_count, c->rotation_value_count, 1))
		return rki_rm_fail(err, "rk_root_motion: the clip's hips tracks are not valid");
	/* the parent chain of the hips */
	bool root_found = false;
	int32_t j = job->hips;
	for (size_t steps = 0; steps <= n; steps++) {
		int32_t p = rki_rm_parent(sk, j);
		if (p == -2) return rki_rm_fail(err, "rk_root_motion: joint %d has parent %d; parents must come first", (int)j, (int)sk->parents[j]);
		if (p == RK_JOINT_NONE) break;
		if (p == job->root) root_found = true;
		j = p;
	}
	if (job->mode == RK_ROOT_MOTION_EXTRACT && !root_found)
		return rki_rm_fail(err, "rk_root_motion: root %d is not an ancestor of hips %d", (int)job->root, (int)job->hips);
	return true;
}

/* ---- planar motion frames (d, Y): x -> Y x + d ----------------------------------------- */

typedef struct rki_frame {
	rk_vec3 d;
	rk_quat y;
} rki_frame;

static rki_frame rki_frame_mul(rki_frame a, rki_frame b)
{
	rki_frame r;
	r.d = rk_vec3_add(a.d, rk_quat_rotate(a.y, b.d));
	r.y = rk_quat_normalize(rk_quat_mul(a.y, b.y));
	return r;
}

static rki_frame rki_frame_inverse(rki_frame a)
{
	rki_frame r;
	r.y = rk_quat_conjugate(a.y);
	r.d = rk_vec3_scale(rk_quat_rotate(r.y, a.d), -1.0);
	return r;
}

static rki_frame rki_frame_pow(rki_frame f, int64_t k)
{
	rki_frame r = { { 0, 0, 0 }, RK_QUAT_IDENTITY };
	if (k < 0) {
		f = rki_frame_inverse(f);
		k = -k;
	}
	while (k > 0) {
		if (k & 1) r = rki_frame_mul(r, f);
		f = rki_frame_mul(f, f);
		k >>= 1;
	}
	return r;
}

static rk_vec3 rki_horiz(rk_vec3 v, rk_vec3 u)
{
	return rk_vec3_sub(v, rk_vec3_scale(u, rk_vec3_dot(v, u)));
}

/* The motion of hips values (h, q) relative to the clip start (h0, q0). */
static rki_frame rki_motion(rk_vec3 h, rk_quat q, rk_vec3 h0, rk_quat q0, rk_vec3 u)
{
	rk_quat delta = rk_quat_mul(q, rk_quat_conjugate(q0));
	double along = delta.x * u.x + delta.y * u.y + delta.z * u.z;
	rk_quat twist = { u.x * along, u.y * along, u.z * along, delta.w };
	double len2 = rk_quat_dot(twist, twist);
	rki_frame f;
	f.y = len2 > 1e-24 ? rk_quat_normalize(twist) : RK_QUAT_IDENTITY;
	f.d = rk_vec3_sub(rki_horiz(h, u), rk_quat_rotate(f.y, rki_horiz(h0, u)));
	return f;
}

bool rk_root_motion_run(const rk_root_motion_job *job)
{
	if (!rk_root_motion_validate(job, NULL)) return false;
	if (job->motion_translation) *job->motion_translation = rki_f3(0.0f, 0.0f, 0.0f);
	if (job->motion_rotation) *job->motion_rotation = rki_f4(0.0f, 0.0f, 0.0f, 1.0f);
	if (job->mode == RK_ROOT_MOTION_KEEP) return true;
	const rk_skeleton *sk = job->skeleton;
	const rk_runtime_clip *c = job->clip;
	const int32_t hips = job->hips;
	const rk_local_pose *pose = &job->pose;

	/* start values of the hips */
	rk_vec3 h0 = rki_d3(rki_rt_sample_f3(c->times, &c->translation_tracks[hips], c->translation_values, 0.0f, NULL));
	if (job->mode == RK_ROOT_MOTION_IN_PLACE_Y) {
		pose->translation[hips] = rki_to_f3(h0);
		return true;
	}
	/* up axis in the hips' parent frame (rest rotation of the parent in model space) */
	rk_vec3 up = rki_d3(job->up);
	if (!(rk_vec3_length(up) > 0.0)) up = rk_vec3_make(0.0, 1.0, 0.0);
	up = rk_vec3_normalize(up);
	rk_quat rm = RK_QUAT_IDENTITY;
	for (int32_t p = sk->parents[hips]; p >= 0; p = sk->parents[p])
		rm = rk_quat_mul(rk_quat_normalize(rki_dq(sk->rest.rotation[p])), rm);
	rk_vec3 u = rk_vec3_normalize(rk_quat_rotate(rk_quat_conjugate(rm), up));

	rk_vec3 h = rki_d3(pose->translation[hips]);
	if (job->mode == RK_ROOT_MOTION_IN_PLACE) {
		pose->translation[hips] = rki_to_f3(rk_vec3_sub(h, rki_horiz(rk_vec3_sub(h, h0), u)));
		return true;
	}

	/* EXTRACT */
	rk_quat q0 = rk_quat_normalize(rki_dq(rki_rt_sample_quat(c->times, &c->rotation_tracks[hips], c->rotation_values, 0.0f, NULL)));
	rk_quat q = rk_quat_normalize(rki_dq(pose->rotation[hips]));
	rki_frame cur = rki_motion(h, q, h0, q0, u);
	rki_frame total = cur;
	if (job->playback == RK_PLAYBACK_LOOP && c->duration > 0.0) {
		double loops = floor(job->time / c->duration);
		if (loops > 4.0e18) loops = 4.0e18;
		if (loops < -4.0e18) loops = -4.0e18;
		int64_t k = (int64_t)loops;
		if (k != 0) {
			float te = (float)c->duration;
			rk_vec3 he = rki_d3(rki_rt_sample_f3(c->times, &c->translation_tracks[hips], c->translation_values, te, NULL));
			rk_quat qe = rk_quat_normalize(rki_dq(rki_rt_sample_quat(c->times, &c->rotation_tracks[hips], c->rotation_values, te, NULL)));
			total = rki_frame_mul(rki_frame_pow(rki_motion(he, qe, h0, q0, u), k), cur);
		}
	}
	/* hips keep the in-place, yaw-free part of the current loop */
	rk_quat ycon = rk_quat_conjugate(cur.y);
	pose->translation[hips] = rki_to_f3(rk_quat_rotate(ycon, rk_vec3_sub(h, cur.d)));
	pose->rotation[hips] = rki_to_f4(rk_quat_normalize(rk_quat_mul(ycon, q)));

	/* C: root frame -> hips' parent frame, composed from the pose (uniform scales assumed) */
	rk_vec3 tc = { 0, 0, 0 };
	rk_quat rc = RK_QUAT_IDENTITY;
	double sc = 1.0;
	{
		/* top-down over the joints strictly below root down to the hips' parent
		 * (usually none: the root is the hips' parent); O(depth^2), no storage */
		int depth = 0;
		for (int32_t p = sk->parents[hips]; p >= 0 && p != job->root; p = sk->parents[p]) depth++;
		for (int level = depth - 1; level >= 0; level--) {
			int32_t p = sk->parents[hips];
			for (int s = 0; s < level; s++) p = sk->parents[p];
			rk_vec3 ct = rki_d3(pose->translation[p]);
			tc = rk_vec3_add(tc, rk_quat_rotate(rc, rk_vec3_scale(ct, sc)));
			rc = rk_quat_normalize(rk_quat_mul(rc, rki_dq(pose->rotation[p])));
			sc *= pose->scale[p].x;
		}
	}
	/* F_root = C * total * C^-1 */
	rk_quat fr = rk_quat_normalize(rk_quat_mul(rc, rk_quat_mul(total.y, rk_quat_conjugate(rc))));
	rk_vec3 ft = rk_vec3_add(rk_vec3_sub(tc, rk_quat_rotate(fr, tc)), rk_vec3_scale(rk_quat_rotate(rc, total.d), sc));
	/* root' = root * F_root */
	int32_t r = job->root;
	rk_vec3 rt = rki_d3(pose->translation[r]);
	rk_quat rr = rk_quat_normalize(rki_dq(pose->rotation[r]));
	rk_vec3 rs = rki_d3(pose->scale[r]);
	pose->translation[r] = rki_to_f3(rk_vec3_add(rt, rk_quat_rotate(rr, rk_vec3_mul(rs, ft))));
	pose->rotation[r] = rki_to_f4(rk_quat_normalize(rk_quat_mul(rr, fr)));
	if (job->motion_translation) *job->motion_translation = rki_to_f3(ft);
	if (job->motion_rotation) *job->motion_rotation = rki_to_f4(fr);
	return true;
}
