/*
 * src/retarget/compare.c - rk_clip_compare: two clips on two humanoids,
 * bone by bone, in numbers (the measures are in rigkit/retarget.h,
 * COMPARISON).
 *
 * SAMPLING
 *   Times t = k / fps seconds from each clip's start (clip->time_begin + t),
 *   k = 0, 1, ... up to the compared duration (opts.duration, else the
 *   shorter clip's time_end - time_begin; a static side, clip NULL, has no
 *   duration of its own), plus one last sample exactly at the duration when
 *   it is not a whole number of frames. A duration longer than a clip
 *   evaluates that clip past its end as rk_pose_eval_run does (extrapolated
 *   curves). A static side is evaluated once.
 *
 * MEASURES (per humanoid bone mapped in both skeletons, per sample)
 *   direction  the angle between the bone directions (joint -> the joint of
 *              rki_humanoid_direction_child, chosen on the intersection of
 *              the two mappings so both sides use the same child) in the
 *              character frames; samples where either bone has zero length
 *              are left out of its maximum and mean.
 *   rotation   the angle of (Wa * Ra^-1) * (Wb * Rb^-1)^-1, W the
 *              character-frame world rotation at t, R at rest.
 *   position   |(pa(bone) - pa(hips)) - (pb(bone) - pb(hips))| in character
 *              units (hips heights); 0 for the hips themselves.
 *   Angles are computed as 2 atan2(|v|, |w|) of the relative quaternion and
 *   atan2(|a x b|, a . b) of the directions: exact near 0, where the acos of
 *   rk_quat_angle_between loses half the digits (a bone against itself gives
 *   0, not 1e-8).
 *
 * MEMORY
 *   Two pose buffers (from opts.allocator, within opts.memory_limit) for the
 *   duration of the call; the rest is on the stack. No global state: concurrent calls on const scenes are
 *   fine.
 */
#include "retarget/retarget_internal.h"
#include "retarget/contact_internal.h"

#include <math.h>
#include <string.h>

#define RKI_COMPARE_MAX_FRAMES 1000000.0
#define RKI_COMPARE_MAX_FPS 10000.0

/* Angle between unit quaternions a and b (radians, 0..pi). */
static double rki_quat_angle(rk_quat a, rk_quat b)
{
	rk_quat d = rk_quat_mul(a, rk_quat_conjugate(b));
	double v = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
	return 2.0 * atan2(v, fabs(d.w));
}

/* Angle between vectors a and b (radians), or -1 when either is zero. */
static double rki_vec_angle(rk_vec3 a, rk_vec3 b)
{
	double la = rk_vec3_length(a), lb = rk_vec3_length(b);
	if (!(la > 1e-12) || !(lb > 1e-12)) return -1.0;
	return atan2(rk_vec3_length(rk_vec3_cross(a, b)), rk_vec3_dot(a, b));
}

static bool rki_clip_of(const rk_scene *s, const rk_anim_clip *clip)
{
	return !clip || (s->clips.count && clip >= s->clips.data && clip < s->clips.data + s->clips.count);
}

/* time_end - time_begin of a clip, -1 for none (static), NAN when unusable. */
static double rki_clip_duration(const rk_anim_clip *clip)
{
	if (!clip) return -1.0;
	double d = clip->time_end - clip->time_begin;
	return isfinite(clip->time_begin) && isfinite(d) && d >= 0.0 ? d : NAN;
}

typedef struct rki_compare_acc {
	double dir_max, dir_sum, rot_max, rot_sum, pos_max, pos_sum, worst_time;
	size_t dir_count;
} rki_compare_acc;

/* The comparison proper, once humanoids and rest poses are known. */
static bool rki_compare_run(const rk_scene *a, const rk_anim_clip *a_clip, const rk_scene *b, const rk_anim_clip *b_clip,
	const rk_humanoid *ha, const rk_humanoid *hb, const rki_rest_table *ra, const rki_rest_table *rb,
	const rk_compare_opts *opts, rki_alloc *tmp, size_t frames, double duration, rk_compare_result *out, rk_error *err)
{
	const rk_compare_opts o = *opts;
	double fps = o.fps;
	rki_char_frame fa, fb;
	if (!rki_char_frame_from_rest(a, ha, ra->world, &fa, err)) {
		rki_error_file(err, a->source_path);
		return false;
	}
	if (!rki_char_frame_from_rest(b, hb, rb->world, &fb, err)) {
		rki_error_file(err, b->source_path);
		return false;
	}

	rki_warn_unpaired_bones(o.warning, o.warning_user, ha, hb, "a", "b", "not compared");
	/* Bones mapped in both, and the direction child each uses on both sides. */
	rk_humanoid both;
	memset(&both, 0, sizeof(both));
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++)
		both.bones[k] = ha->bones[k] && hb->bones[k] ? ha->bones[k] : NULL;
	int child[RK_HUMANOID_BONE_COUNT];
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++)
		child[k] = both.bones[k] ? rki_humanoid_direction_child(&both, (rk_humanoid_bone)k) : -1;

	/* rest rotations, inverted once */
	rki_humanoid_pose rest_a, rest_b, pa, pb;
	rki_humanoid_pose_from(ha, &fa, ra->world, &rest_a);
	rki_humanoid_pose_from(hb, &fb, rb->world, &rest_b);
	rk_quat inv_ra[RK_HUMANOID_BONE_COUNT], inv_rb[RK_HUMANOID_BONE_COUNT];
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
		inv_ra[k] = rk_quat_conjugate(rest_a.rotation[k]);
		inv_rb[k] = rk_quat_conjugate(rest_b.rotation[k]);
	}

	rki_pose_buffer bufa, bufb;
	if (!rki_pose_buffer_init(&bufa, a, tmp, err)) return false;
	if (!rki_pose_buffer_init(&bufb, b, tmp, err)) {
		rki_pose_buffer_free(&bufa);
		return false;
	}
	rki_compare_acc acc[RK_HUMANOID_BONE_COUNT];
	memset(acc, 0, sizeof(acc));
	/* CONTACT MEASURES: both animated sides' poses kept for after the loop */
	rki_humanoid_pose *keep = NULL;
	double *keep_t = NULL;
	size_t keep_bytes = 0;
	if (a_clip && b_clip && frames <= ((size_t)-1) / (2 * sizeof(rki_humanoid_pose) + 2 * sizeof(rk_contact_frame) + 8)) {
		keep_bytes = frames * (2 * sizeof(rki_humanoid_pose) + 2 * sizeof(rk_contact_frame) + sizeof(double));
		keep = (rki_humanoid_pose *)rki_malloc(tmp, keep_bytes);
		if (!keep) {
			rki_error_set(err, tmp->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
				"cannot keep %zu frames of poses for the contact measures", frames);
			rki_pose_buffer_free(&bufa);
			rki_pose_buffer_free(&bufb);
			return false;
		}
		keep_t = (double *)(void *)(keep + 2 * frames);
	}
	bool ok = true;
	for (size_t f = 0; f < frames && ok; f++) {
		double t = f + 1 == frames ? duration : (double)f / fps;
		if (t > duration) t = duration;
		/* static sides are evaluated on the first frame only; in the bind
		 * rest (rest.h) a static side is that rest pose */
		if (a_clip || f == 0) {
			const rk_mat4 *w = ra->world;
			if (a_clip || ra->report.used != RK_REST_BIND) {
				ok = rki_pose_buffer_eval(&bufa, a, a_clip, a_clip ? a_clip->time_begin + t : 0.0, err);
				w = bufa.pose.node_to_world;
			}
			if (ok) rki_humanoid_pose_from(ha, &fa, w, &pa);
		}
		if (ok && (b_clip || f == 0)) {
			const rk_mat4 *w = rb->world;
			if (b_clip || rb->report.used != RK_REST_BIND) {
				ok = rki_pose_buffer_eval(&bufb, b, b_clip, b_clip ? b_clip->time_begin + t : 0.0, err);
				w = bufb.pose.node_to_world;
			}
			if (ok) rki_humanoid_pose_from(hb, &fb, w, &pb);
		}
		if (!ok) break;
		if (keep) keep[f] = pa, keep[frames + f] = pb, keep_t[f] = t;
		rk_vec3 hips_a = pa.position[RK_HUMANOID_HIPS], hips_b = pb.position[RK_HUMANOID_HIPS];
		for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
			if (!both.bones[k]) continue;
			rki_compare_acc *c = &acc[k];
			if (child[k] >= 0) {
				rk_vec3 dir_a = rk_vec3_sub(pa.position[child[k]], pa.position[k]);
				rk_vec3 dir_b = rk_vec3_sub(pb.position[child[k]], pb.position[k]);
				double ang = rki_vec_angle(dir_a, dir_b);
				if (ang >= 0.0) {
					if (ang > c->dir_max) c->dir_max = ang;
					c->dir_sum += ang;
					c->dir_count++;
				}
			}
			double rot = rki_quat_angle(rk_quat_mul(pa.rotation[k], inv_ra[k]), rk_quat_mul(pb.rotation[k], inv_rb[k]));
			if (rot > c->rot_max || f == 0) {
				c->rot_max = rot;
				c->worst_time = t;
			}
			c->rot_sum += rot;
			rk_vec3 rel_a = rk_vec3_sub(pa.position[k], hips_a), rel_b = rk_vec3_sub(pb.position[k], hips_b);
			double pos = rk_vec3_length(rk_vec3_sub(rel_a, rel_b));
			if (pos > c->pos_max) c->pos_max = pos;
			c->pos_sum += pos;
		}
	}
	rki_pose_buffer_free(&bufa);
	rki_pose_buffer_free(&bufb);
	if (ok && keep) {
		bool usable[RK_HUMANOID_BONE_COUNT];
		for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) usable[k] = both.bones[k] != NULL;
		rki_contact_rig ga, gb;
		rki_contact_rig_init(&ga, ha, usable, &fa, ra->world, &rest_a);
		rki_contact_rig_init(&gb, hb, usable, &fb, rb->world, &rest_b);
		rk_contact_opts co;
		rki_contact_opts_resolve(&co, o.contact_opts);
		ok = rki_contact_opts_check(&co, err);
		rk_contact_frame *ca = (rk_contact_frame *)(void *)(keep_t + frames);
		double mpu = b->settings.unit_meters > 0.0 ? b->settings.unit_meters : 1.0;
		if (ok)
			rki_contact_measure(&ga, &gb, usable, &rest_a, &rest_b, keep, keep + frames, keep_t, frames, &co, fb.unit * mpu,
				ca, ca + frames, &out->contacts);
	}
	if (keep) rki_free(tmp, keep, keep_bytes);
	if (!ok) {
		memset(out, 0, sizeof(*out));
		return false;
	}

	out->frames = frames;
	out->a_rest = ra->report.used;
	out->b_rest = rb->report.used;
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
		if (!both.bones[k]) continue;
		const rki_compare_acc *c = &acc[k];
		rk_compare_bone *r = &out->bones[k];
		r->compared = true;
		r->max_direction_angle = c->dir_max;
		r->mean_direction_angle = c->dir_count ? c->dir_sum / (double)c->dir_count : 0.0;
		r->max_rotation_angle = c->rot_max;
		r->mean_rotation_angle = c->rot_sum / (double)frames;
		r->max_position_error = c->pos_max;
		r->mean_position_error = c->pos_sum / (double)frames;
		r->worst_time = c->worst_time;
		out->bones_compared++;
		if (r->max_direction_angle > out->max_direction_angle) out->max_direction_angle = r->max_direction_angle;
		if (r->max_rotation_angle > out->max_rotation_angle) out->max_rotation_angle = r->max_rotation_angle;
		if (r->max_position_error > out->max_position_error) out->max_position_error = r->max_position_error;
	}
	return true;
}

bool rk_clip_compare(const rk_scene *a, const rk_anim_clip *a_clip, const rk_scene *b, const rk_anim_clip *b_clip,
	const rk_compare_opts *opts, rk_compare_result *out, rk_error *err)
{
	rki_error_clear(err);
	if (out) memset(out, 0, sizeof(*out));
	if (!a || !b || !out) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_clip_compare needs scenes a and b and a result (got %s%s%s)",
			a ? "" : "a = NULL ", b ? "" : "b = NULL ", out ? "" : "out = NULL");
		return false;
	}
	if (!rki_clip_of(a, a_clip) || !rki_clip_of(b, b_clip)) {
		const char *which = rki_clip_of(a, a_clip) ? "b" : "a";
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "clip %s is not one of scene %s's clips (NULL = static pose)",
			which, which);
		return false;
	}
	rk_compare_opts o;
	rki_compare_opts_resolve(&o, opts);
	if (!isfinite(o.fps) || o.fps < 0.0 || o.fps > RKI_COMPARE_MAX_FPS) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "sampling rate %g fps: expected 0 (= 30) or up to %g",
			o.fps, RKI_COMPARE_MAX_FPS);
		return false;
	}
	double fps = o.fps;
	if (!isfinite(o.duration) || o.duration < 0.0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "duration %g s: expected 0 (= the shorter clip) or more",
			o.duration);
		return false;
	}
	double da = rki_clip_duration(a_clip), db = rki_clip_duration(b_clip);
	if (isnan(da) || isnan(db)) {
		const rk_anim_clip *bad = isnan(da) ? a_clip : b_clip;
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "clip %s '%s' has an unusable time range [%g, %g]",
			isnan(da) ? "a" : "b", bad->name ? bad->name : "", bad->time_begin, bad->time_end);
		return false;
	}
	double duration = o.duration;
	if (duration == 0.0) {
		if (da >= 0.0 && db >= 0.0) duration = da < db ? da : db;
		else if (da >= 0.0) duration = da;
		else if (db >= 0.0) duration = db;
	}
	/* whole frames, then one more at exactly `duration` when it falls between two */
	double steps = duration * fps;
	double whole = floor(steps + 1e-9);
	double nf = whole + 1.0 + (steps - whole > 1e-9 ? 1.0 : 0.0);
	if (!(nf <= RKI_COMPARE_MAX_FRAMES)) {
		rki_error_set(err, RK_ERROR_LIMIT, "%.0f frames (%g s at %g fps) exceed %.0f", nf, duration, fps,
			RKI_COMPARE_MAX_FRAMES);
		return false;
	}
	size_t frames = (size_t)nf;

	rk_humanoid ha_store, hb_store;
	/* errors about one side name its file (err->file) */
	const rk_humanoid *ha = rki_humanoid_resolve(a, o.a_humanoid, &ha_store, "scene a", err);
	if (!ha) {
		rki_error_file(err, a->source_path);
		return false;
	}
	const rk_humanoid *hb = rki_humanoid_resolve(b, o.b_humanoid, &hb_store, "scene b", err);
	if (!hb) {
		rki_error_file(err, b->source_path);
		return false;
	}
	rki_alloc tmp; /* the rest poses and two pose buffers, within opts.memory_limit */
	rki_alloc_init(&tmp, &o.allocator, o.memory_limit, 0);
	rki_rest_table resta, restb;
	if (!rki_rest_table_init(&resta, a, o.rest, &tmp, err)) {
		rki_error_file(err, a->source_path);
		return false;
	}
	if (!rki_rest_table_init(&restb, b, o.rest, &tmp, err)) {
		rki_error_file(err, b->source_path);
		rki_rest_table_free(&resta);
		return false;
	}
	bool ok = rki_compare_run(a, a_clip, b, b_clip, ha, hb, &resta, &restb, &o, &tmp, frames, duration, out, err);
	rki_rest_table_free(&resta);
	rki_rest_table_free(&restb);
	return ok;
}
