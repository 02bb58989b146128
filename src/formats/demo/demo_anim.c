/* src/formats/demo/demo_anim.c - the procedural "Idle" and "Walk" clips of the
 * sample source character (see rigkit/demo.h).
 *
 * A pose is described per joint by a rotation delta in character axes: for
 * an ordinary joint j with parent p the world delta is D_j = D_p * A_j (A_j
 * turns the joint about its own pivot, expressed in the rest frame of the
 * character carried along by the parent), for IK-solved joints D_j is given
 * directly. The posed world orientation is D_j * rest_rot[j] and the posed
 * position pos[p] + D_p * (rest_pos[j] - rest_pos[p]), so the same motion
 * works for any bone rolls. Local keys follow with rki_sample_local().
 *
 * Walk: everything except the Hips forward translation is a function of the
 * cycle phase only, computed in a frame that moves forward with the hips, so
 * the last key equals the first one exactly (plus one stride of translation).
 */
#include "demo_internal.h"
#include "core/ik.h"

#include <math.h>
#include <string.h>

#define RKI_DEG (RK_PI / 180.0)
#define RKI_SAMPLE_FPS 30

/* Walk parameters (metres, seconds, degrees). */
#define RKI_WALK_SPEED 1.1        /* root speed along +Z, m/s; cycle 1 s */
#define RKI_WALK_STANCE 0.6       /* fraction of the cycle a foot is on the ground */
#define RKI_WALK_HEEL_OFF 0.35    /* phase of the stance at which the heel rises */
#define RKI_WALK_HEEL_RISE 40.0   /* foot pitch at toe-off, degrees (heel up) */
#define RKI_WALK_TOES_UP 12.0     /* toes raised in the swing, degrees */
#define RKI_WALK_FOOT_SHIFT -0.08 /* feet behind the hips' centre of the stride */
#define RKI_WALK_LIFT 0.12        /* highest ankle lift in the swing */
#define RKI_WALK_LIFT_SHAPE 0.6   /* lift = sin(pi s^shape): highest at s = 0.5^(1/shape) of the swing */
#define RKI_WALK_HIPS_DROP 0.03   /* mean hips height below rest */
#define RKI_WALK_HIPS_BOB 0.015   /* hips height amplitude (2 periods per cycle) */
#define RKI_WALK_HIPS_TOP 0.25    /* phase of the highest hips (left mid-stance) */
#define RKI_WALK_SWAY 0.02        /* lateral hips sway amplitude */

typedef struct rki_pose_in {
	rk_vec3 hips;                     /* world position of Hips */
	rk_quat delta[RKI_SJ_COUNT];      /* A_j, or D_j where absolute[j] */
	bool absolute[RKI_SJ_COUNT];
} rki_pose_in;

static rk_quat rki_rx(double deg) { return rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, deg * RKI_DEG); }
static rk_quat rki_ry(double deg) { return rk_quat_axis_angle((rk_vec3){ 0, 1, 0 }, deg * RKI_DEG); }
static rk_quat rki_rz(double deg) { return rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, deg * RKI_DEG); }

static void rki_pose_reset(rki_pose_in *in, const rki_sample_rig *rig)
{
	in->hips = rig->rest_pos[RKI_SJ_HIPS];
	for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
		in->delta[j] = RK_QUAT_IDENTITY;
		in->absolute[j] = false;
	}
}

/* World positions and orientations of every joint. */
static void rki_pose_solve(const rki_sample_rig *rig, const rki_pose_in *in, rk_vec3 *pos, rk_quat *rot)
{
	rk_quat d[RKI_SJ_COUNT];
	for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
		uint32_t p = rki_sample_joint_parent(j);
		if (p == RKI_SAMPLE_NO_PARENT) {
			d[j] = in->delta[j];
			pos[j] = in->hips;
		} else {
			d[j] = in->absolute[j] ? in->delta[j] : rk_quat_normalize(rk_quat_mul(d[p], in->delta[j]));
			pos[j] = rk_vec3_add(pos[p], rk_quat_rotate(d[p], rk_vec3_sub(rig->rest_pos[j], rig->rest_pos[p])));
		}
		rot[j] = rk_quat_normalize(rk_quat_mul(d[j], rig->rest_rot[j]));
	}
}

/* Relaxed fingers: joints 1..3 of index..pinky bend towards the palm. */
static void rki_pose_relaxed_hands(rki_pose_in *in)
{
	static const double curl[3] = { 10.0, 14.0, 10.0 };
	for (uint32_t side = 0; side < 2; side++) {
		uint32_t base = side ? RKI_SJ_ARM_R : RKI_SJ_ARM_L;
		double s = side ? 1.0 : -1.0; /* palm down: left curls about -Z, right about +Z */
		for (uint32_t f = 1; f < 5; f++)
			for (uint32_t k = 0; k < 3; k++) in->delta[base + RKI_ARM_FINGER + 4 * f + k] = rki_rz(s * curl[k]);
		in->delta[base + RKI_ARM_FINGER + 1] = rki_ry(-s * 8.0);
	}
}

static double rki_smoother(double s) { return s * s * s * (s * (s * 6.0 - 15.0) + 10.0); }

/* Two-bone IK of one leg (core/ik.h, hinge mode): thigh/shin deltas that
 * put the ankle at `target` with the knee bending towards +Z, starting from
 * the rest leg hung at `hip`. The knee's hinge is rest thigh x front, so
 * each bone keeps its rest relation to the bend plane (its rest frame about
 * front mapped onto the bend direction); the reach stays 1e-4 off full
 * extension and fold. */
static void rki_leg_ik(const rki_sample_rig *rig, uint32_t base, rk_vec3 hip, rk_vec3 target, rk_quat *d_thigh, rk_quat *d_shin)
{
	const rk_vec3 *rp = rig->rest_pos;
	rk_vec3 rest_thigh = rk_vec3_sub(rp[base + RKI_LEG_LEG], rp[base + RKI_LEG_UPLEG]);
	rk_vec3 rest_shin = rk_vec3_sub(rp[base + RKI_LEG_FOOT], rp[base + RKI_LEG_LEG]);
	rk_vec3 front = { 0, 0, 1 };
	rk_quat shin_rot = rig->rest_rot[base + RKI_LEG_LEG];
	rki_two_bone ik = {
		.start = hip,
		.mid = rk_vec3_add(hip, rest_thigh),
		.end = rk_vec3_add(rk_vec3_add(hip, rest_thigh), rest_shin),
		.start_rotation = rig->rest_rot[base + RKI_LEG_UPLEG],
		.mid_rotation = shin_rot,
		.target = target,
		.pole = front,
		.mid_axis = rk_quat_rotate(rk_quat_conjugate(shin_rot), rk_vec3_cross(rest_thigh, front)),
		.weight = 1.0,
		.reach_margin = 1e-4,
	};
	rki_two_bone_result r;
	rki_two_bone_solve(&ik, &r);
	*d_thigh = r.start_model;
	*d_shin = r.mid_model;
}

/* Places one leg: IK for the thigh and shin (absolute deltas) so the ankle
 * lands at `ankle`, the hip joint carried by the hips (in->hips, d_hips);
 * the foot and toe base get the absolute deltas d_foot / d_toe. */
static void rki_leg_place(const rki_sample_rig *rig, rki_pose_in *in, uint32_t base, rk_quat d_hips, rk_vec3 ankle,
	rk_quat d_foot, rk_quat d_toe)
{
	const rk_vec3 *rp = rig->rest_pos;
	rk_vec3 hip = rk_vec3_add(in->hips, rk_quat_rotate(d_hips, rk_vec3_sub(rp[base + RKI_LEG_UPLEG], rp[RKI_SJ_HIPS])));
	rki_leg_ik(rig, base, hip, ankle, &in->delta[base + RKI_LEG_UPLEG], &in->delta[base + RKI_LEG_LEG]);
	in->delta[base + RKI_LEG_FOOT] = d_foot;
	in->delta[base + RKI_LEG_TOEBASE] = d_toe;
	for (uint32_t k = RKI_LEG_UPLEG; k <= RKI_LEG_TOEBASE; k++) in->absolute[base + k] = true;
}

/* ---- Idle ------------------------------------------------------------------------ */

#define RKI_IDLE_KEYS 90    /* 3 s */
#define RKI_IDLE_SWAY 0.012 /* lateral weight shift of the hips, metres */
#define RKI_IDLE_SINK 0.003 /* hips below rest (soft knees), metres */

static void rki_idle_pose(const rki_sample_rig *rig, double phase, rki_pose_in *in)
{
	rki_pose_reset(in, rig);
	double b = sin(2.0 * RK_PI * phase);               /* one breath per loop */
	double look = sin(2.0 * RK_PI * phase + 0.6);
	double sway = sin(4.0 * RK_PI * phase + 0.3);
	double sway_w = sin(2.0 * RK_PI * phase - 0.4); /* weight shift, +1 over the left foot */
	in->delta[RKI_SJ_SPINE] = rk_quat_mul(rki_rz(0.4 * sway), rki_rx(-0.8 * b));
	in->delta[RKI_SJ_SPINE1] = rki_rx(-1.0 * b);
	in->delta[RKI_SJ_SPINE2] = rki_rx(-1.2 * b);
	in->delta[RKI_SJ_NECK] = rk_quat_mul(rki_rz(-0.4 * sway), rki_rx(1.4 * b));
	in->delta[RKI_SJ_HEAD] = rk_quat_mul(rki_ry(1.5 * look), rki_rx(1.4 * b));
	for (uint32_t side = 0; side < 2; side++) {
		uint32_t base = side ? RKI_SJ_ARM_R : RKI_SJ_ARM_L;
		double s = side ? -1.0 : 1.0; /* left +1 */
		in->delta[base + RKI_ARM_SHOULDER] = rki_rz(s * 2.0 * b);
		in->delta[base + RKI_ARM_ARM] = rk_quat_mul(rki_rx(-3.0), rki_rz(-s * (78.0 + 2.0 * b)));
		in->delta[base + RKI_ARM_FOREARM] = rki_ry(-s * (12.0 + 1.0 * b));
	}
	rki_pose_relaxed_hands(in);

	/* Weight shift: the hips sway over one foot and the other once per
	 * loop, a little below rest (soft knees); the legs are solved so the
	 * feet stay flat where they stand. */
	in->hips = rig->rest_pos[RKI_SJ_HIPS];
	in->hips.x += RKI_IDLE_SWAY * sway_w;
	in->hips.y -= RKI_IDLE_SINK + 0.25 * RKI_IDLE_SINK * (1.0 - sway_w * sway_w);
	rk_quat d_hips = rki_rz(-1.5 * sway_w);
	in->delta[RKI_SJ_HIPS] = d_hips;
	in->delta[RKI_SJ_SPINE] = rk_quat_mul(rki_rz(1.0 * sway_w + 0.4 * sway), in->delta[RKI_SJ_SPINE]);
	for (uint32_t side = 0; side < 2; side++) {
		uint32_t base = side ? RKI_SJ_LEG_R : RKI_SJ_LEG_L;
		rki_leg_place(rig, in, base, d_hips, rig->rest_pos[base + RKI_LEG_FOOT], RK_QUAT_IDENTITY, RK_QUAT_IDENTITY);
	}
}

/* ---- Walk ------------------------------------------------------------------------ */

#define RKI_WALK_KEYS 30 /* 1 s */

/* Walk pose at cycle phase [0, 1) in the frame moving with the hips (the
 * forward travel is added by the caller). Left heel strike at phase 0. */
static void rki_walk_pose(const rki_sample_rig *rig, double phase, rki_pose_in *in)
{
	const rk_vec3 *rp = rig->rest_pos;
	double c1 = cos(2.0 * RK_PI * phase);
	double s_mid = sin(2.0 * RK_PI * (phase - 0.05)); /* +1 at left mid-stance (0.3), -1 at right (0.8) */
	rki_pose_reset(in, rig);

	/* Pelvis: height bobs twice per cycle (highest at each mid-stance), sways
	 * over the stance foot, yaws with the forward leg, drops on the swing side. */
	double yaw = -6.0 * c1, roll = 3.0 * s_mid;
	in->hips = rp[RKI_SJ_HIPS];
	in->hips.x += RKI_WALK_SWAY * s_mid;
	in->hips.y += -RKI_WALK_HIPS_DROP + RKI_WALK_HIPS_BOB * cos(4.0 * RK_PI * (phase - RKI_WALK_HIPS_TOP));
	rk_quat d_hips = rk_quat_mul(rki_ry(yaw), rki_rz(roll));
	in->delta[RKI_SJ_HIPS] = d_hips;

	/* Trunk counter-rotates; neck and head keep the gaze forward. */
	double spine_yaw = (4.0 * c1 - yaw) / 3.0; /* chest ends at +4 c1 degrees */
	in->delta[RKI_SJ_SPINE] = rk_quat_mul(rki_ry(spine_yaw), rki_rz(-0.5 * roll));
	in->delta[RKI_SJ_SPINE1] = rk_quat_mul(rki_ry(spine_yaw), rk_quat_mul(rki_rz(-0.3 * roll), rki_rx(3.0)));
	in->delta[RKI_SJ_SPINE2] = rki_ry(spine_yaw);
	in->delta[RKI_SJ_NECK] = rk_quat_mul(rki_ry(-2.0 * c1), rk_quat_mul(rki_rz(-0.2 * roll), rki_rx(-1.5)));
	in->delta[RKI_SJ_HEAD] = rk_quat_mul(rki_ry(-2.0 * c1), rki_rx(-1.5));

	/* Arms hang and swing opposite to the legs (left arm forward at 0.5). */
	for (uint32_t side = 0; side < 2; side++) {
		uint32_t base = side ? RKI_SJ_ARM_R : RKI_SJ_ARM_L;
		double s = side ? -1.0 : 1.0;
		double swing = -s * 18.0 * c1; /* degrees, positive = forward */
		in->delta[base + RKI_ARM_ARM] = rk_quat_mul(rki_rx(-swing), rki_rz(-s * 78.0));
		in->delta[base + RKI_ARM_FOREARM] = rki_ry(-s * (20.0 + 8.0 * swing / 18.0));
	}
	rki_pose_relaxed_hands(in);

	/* Legs. Each foot's flat ground position F moves back at the walking
	 * speed in this frame (it is still in the world). In the stance the ankle
	 * is F turned about the ball of the foot B = F + (rest toe base - rest
	 * ankle), the ToeBase joint, which stays put while the heel rises:
	 *   ankle = B - Rx(pitch) (B - F),
	 * flat (pitch 0) until heel-off, then the heel rises to
	 * RKI_WALK_HEEL_RISE at toe-off with the toes flat on the ground. In the
	 * swing the ankle leaves from there: the heel-rise offset fades out as
	 * the foot travels forward (one stride) and lifts (highest early, so the
	 * shin trails and the knee folds), while the foot turns about the ankle:
	 * level, toes up, level again at landing. The swing's first 5% and last
	 * 10% have no travel and the pitch settles before the last 10%, so
	 * nothing on the ground slides, even between keys. */
	double v = RKI_WALK_SPEED, reach = 0.5 * v * RKI_WALK_STANCE + RKI_WALK_FOOT_SHIFT;
	for (uint32_t side = 0; side < 2; side++) {
		uint32_t base = side ? RKI_SJ_LEG_R : RKI_SJ_LEG_L;
		double fp = phase - 0.5 * side;
		if (fp < 0.0) fp += 1.0;
		rk_vec3 flat = rp[base + RKI_LEG_FOOT];
		flat.z += reach - v * fp;
		rk_vec3 to_ball = rk_vec3_sub(rp[base + RKI_LEG_TOEBASE], rp[base + RKI_LEG_FOOT]);
		double pitch, toe_bend, heel_offset_weight, lift = 0.0, travel = 0.0;
		double heel_pitch = RKI_WALK_HEEL_RISE;   /* the pitch the ankle offset is taken at */
		if (fp < RKI_WALK_STANCE) {
			double s = (fp - RKI_WALK_HEEL_OFF) / (RKI_WALK_STANCE - RKI_WALK_HEEL_OFF);
			pitch = s > 0.0 ? RKI_WALK_HEEL_RISE * s * s : 0.0;
			toe_bend = pitch;                       /* toes flat on the ground */
			heel_pitch = pitch;
			heel_offset_weight = 1.0;
		} else {
			double s = (fp - RKI_WALK_STANCE) / (1.0 - RKI_WALK_STANCE);
			double sh = (s - 0.05) / 0.85;
			sh = sh < 0.0 ? 0.0 : sh > 1.0 ? 1.0 : sh;
			double up = s / 0.9 > 1.0 ? 1.0 : s / 0.9; /* pitch settled at 90% */
			double toes_up = sin(RK_PI * up);
			pitch = RKI_WALK_HEEL_RISE * (1.0 - rki_smoother(up < 0.4 ? up / 0.4 : 1.0)) - RKI_WALK_TOES_UP * toes_up * toes_up;
			toe_bend = RKI_WALK_HEEL_RISE * (1.0 - rki_smoother(s < 0.3 ? s / 0.3 : 1.0));
			travel = v * rki_smoother(sh);
			heel_offset_weight = 1.0 - rki_smoother(sh);
			lift = RKI_WALK_LIFT * sin(RK_PI * pow(s, RKI_WALK_LIFT_SHAPE)); /* highest early: the shin trails */
		}
		rk_vec3 heel_offset = rk_vec3_sub(to_ball, rk_quat_rotate(rki_rx(heel_pitch), to_ball));
		rk_vec3 ankle = rk_vec3_add(flat, rk_vec3_scale(heel_offset, heel_offset_weight));
		ankle.z += travel;
		ankle.y += lift;
		rki_leg_place(rig, in, base, d_hips, ankle, rki_rx(pitch), rki_rx(pitch - toe_bend));
	}
}

/* ---- clips ------------------------------------------------------------------------ */

typedef struct rki_clip_spec {
	const char *name;
	uint32_t keys;         /* intervals; key_count = keys + 1 */
	bool walk;
} rki_clip_spec;

static bool rki_sample_clip(rki_scene_ctx *sc, const rki_sample_rig *rig, rk_node *joint_nodes, const rki_clip_spec *spec,
	uint32_t index, rk_anim_clip *clip)
{
	rki_arena *ar = sc->arena;
	size_t key_count = (size_t)spec->keys + 1;
	size_t track_count = RKI_SJ_COUNT + 1; /* Hips translation, then rotations */
	double *times = (double *)rki_arena_array(ar, key_count, sizeof(double));
	rk_anim_track *tracks = (rk_anim_track *)rki_arena_array(ar, track_count, sizeof(rk_anim_track));
	rk_anim_layer *layer = (rk_anim_layer *)rki_arena_alloc(ar, sizeof(rk_anim_layer));
	double *rot = (double *)rki_arena_array(ar, key_count * RKI_SJ_COUNT, 4 * sizeof(double));
	double *trans = (double *)rki_arena_array(ar, key_count, 3 * sizeof(double));
	if (!times || !tracks || !layer || !rot || !trans) return false;

	rki_pose_in in;
	rk_vec3 pos[RKI_SJ_COUNT];
	rk_quat wrot[RKI_SJ_COUNT];
	for (size_t k = 0; k < key_count; k++) {
		times[k] = (double)k / RKI_SAMPLE_FPS;
		double phase = (double)(k % spec->keys) / (double)spec->keys;
		if (spec->walk) rki_walk_pose(rig, phase, &in);
		else rki_idle_pose(rig, phase, &in);
		rki_pose_solve(rig, &in, pos, wrot);
		for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
			rk_quat q = rki_sample_local(rig, pos, wrot, j).rotation;
			double *out = rot + ((size_t)j * key_count + k) * 4;
			if (k > 0) {
				const double *prev = out - 4;
				if (prev[0] * q.x + prev[1] * q.y + prev[2] * q.z + prev[3] * q.w < 0.0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
			}
			out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
		}
		/* Walk forward travel: whole cycles plus the phase, exact at every key. */
		if (spec->walk) pos[RKI_SJ_HIPS].z += RKI_WALK_SPEED * times[k];
		rk_vec3 t = rki_sample_local(rig, pos, wrot, RKI_SJ_HIPS).translation;
		trans[k * 3 + 0] = t.x;
		trans[k * 3 + 1] = t.y;
		trans[k * 3 + 2] = t.z;
	}
	size_t n = 0;
	{
		rk_anim_track *t = &tracks[n++];
		t->node = &joint_nodes[RKI_SJ_HIPS];
		t->target = RK_TARGET_TRANSLATION;
		t->property = "";
		t->key_count = key_count;
		t->times = times;
		t->components = 3;
		t->values_f64 = trans;
		t->interpolation = RK_INTERP_LINEAR;
	}
	for (uint32_t j = 0; j < RKI_SJ_COUNT; j++) {
		rk_anim_track *t = &tracks[n++];
		t->node = &joint_nodes[j];
		t->target = RK_TARGET_ROTATION_QUAT;
		t->property = "";
		t->key_count = key_count;
		t->times = times;
		t->components = 4;
		t->values_f64 = rot + (size_t)j * key_count * 4;
		t->interpolation = RK_INTERP_LINEAR;
	}
	layer->name = spec->name;
	layer->weight = 1.0;
	layer->blend = RK_LAYER_OVERRIDE;
	layer->track_count = n;
	layer->tracks = tracks;
	clip->index = index;
	clip->name = spec->name;
	clip->time_begin = 0.0;
	clip->time_end = times[key_count - 1];
	clip->layer_count = 1;
	clip->layers = layer;
	return true;
}

bool rki_sample_build_clips(rki_scene_ctx *sc, const rki_sample_rig *rig, rk_node *joint_nodes)
{
	static const rki_clip_spec specs[2] = {
		{ "Idle", RKI_IDLE_KEYS, false },
		{ "Walk", RKI_WALK_KEYS, true },
	};
	rk_anim_clip *clips = (rk_anim_clip *)rki_arena_array(sc->arena, 2, sizeof(rk_anim_clip));
	if (!clips) return false;
	for (uint32_t i = 0; i < 2; i++)
		if (!rki_sample_clip(sc, rig, joint_nodes, &specs[i], i, &clips[i])) return false;
	sc->scene->clips.data = clips;
	sc->scene->clips.count = 2;
	return true;
}
